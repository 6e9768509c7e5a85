#pragma once
// DICOM SEG reader: Segmentation Storage (BINARY, FRACTIONAL) and Label Map Segmentation Storage (LABELMAP) objects
// from other tools (dcmqi, highdicom, Slicer, ...) as per-segment binary masks on an index grid.
//
// - Not DCMTK's DcmSegmentation (dcmseg 3.6.7): it refuses Label Map SEGs ("Wrong SOP Class"), cannot decompress
//   RLE or JPEG 2000 frames, fails on Deflated Image Frame Compression and keeps binary frames bit-packed; it would
//   also parse the file before our pre-scan's checks.
// - Headers are parsed with DCMTK's dcmdata after our structural pre-scan (io/dicom/dicom.h); pixels are decoded by io's
//   frame decoders (native, deflate, RLE, JPEG 2000, Deflated Image Frame Compression; 1-bit frames unpacked even
//   where a frame does not start on a byte boundary, i.e. Rows x Columns not a multiple of 8).
// - Every frame is placed by its Plane Position (Patient) and Plane Orientation (Patient) (per-frame, else shared
//   functional groups) and Pixel Measures. With a reference grid the pixel (0,0) of every frame and its row and
//   column steps must land on voxel centres of that grid to kPlacementTolerance of a voxel; the SEG's in-plane axes
//   may be any permutation or flip of the grid's. Without one the grid is derived from the SEG itself.
// - FRACTIONAL frames are thresholded at half of MaximumFractionalValue (value * 2 >= max). LABELMAP frames give
//   each non-zero value other than the Pixel Padding Value to the segment of that number; segment 0 (background) is
//   not a label.
// - Sizes are checked before allocating: Rows x Columns x NumberOfFrames and the pixel data length against the
//   header, a derived grid against 2^30 voxels, and the masks' bounding boxes together against 4 GiB.
// - Errors (typed, naming the file): not a SEG (Unsupported), truncated or contradictory (Corrupt), sizes beyond
//   limits (SizeLimit, checked before allocating), another frame of reference or planes off the grid
//   (GeometryMismatch), frames without patient positions such as slide-microscopy SEGs (Unsupported).

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/error.h"
#include "core/geometry.h"
#include "core/label_map.h"
#include "core/label_table.h"

namespace delineate::io {

// How far (in voxels) a frame's pixel centres may lie from the reference grid's voxel centres.
constexpr double kSegPlacementTolerance = 0.1;

struct SegSegmentInfo {
  int number = 0;                 // Segment Number
  core::LabelEntry entry;         // id = number (when it fits a label), name = Segment Label, colour from the
                                  // Recommended Display CIELab Value (else LabelTable::defaultColor), terminology
  std::string algorithmType;      // MANUAL / SEMIAUTOMATIC / AUTOMATIC
  std::string algorithmName;
  std::size_t frames = 0;         // frames referencing this segment
};

// A binary mask over `box` of the document's grid, x fastest (box.voxelCount() bytes of 0/1).
struct SegSegmentMask {
  int number = 0;
  core::IndexBox box;
  std::vector<std::uint8_t> voxels;
  std::int64_t count() const;  // voxels set
};

struct DicomSegDocument {
  core::Geometry grid;  // the reference grid when given, else derived from the SEG's planes
  std::string seriesDescription, segmentationType;  // BINARY / FRACTIONAL / LABELMAP
  std::string referencedSeriesUid, frameOfReferenceUid;
  std::string sopClassUid;
  int frameCount = 0;  // NumberOfFrames
  int rows = 0, columns = 0;
  std::vector<SegSegmentInfo> segments;  // in the order of the Segment Sequence
  std::vector<SegSegmentMask> masks;     // one per segment with any voxel set, by segment number; never flattened
  std::size_t overlappingVoxels = 0;     // voxels claimed by more than one segment

  const SegSegmentInfo* findSegment(int number) const;
  const SegSegmentMask* findMask(int number) const;
};

struct DicomSegReadOptions {
  // The reference series' Frame of Reference UID: when both it and the SEG's are known and differ, the read fails.
  std::string referenceFrameOfReferenceUid;
};

// `reference`: the grid of the source series as loaded by io (optional); see the header comment for placement.
core::Result<DicomSegDocument> readDicomSeg(const std::string& path,
                                            const std::optional<core::Geometry>& reference = std::nullopt,
                                            const DicomSegReadOptions& options = {});

// A label map on doc.grid with segment numbers as label ids, and the label table of the segments. Where segments
// overlap the result is an error (InvalidArgument, saying how many voxels) unless allowOverlap; then the
// highest-numbered segment wins. Segment numbers above 65535 are refused.
core::Result<std::pair<core::LabelMap, core::LabelTable>> segToLabelMap(const DicomSegDocument& doc, bool allowOverlap);

// DICOM's scaled CIELab (PS3.3 C.10.7.1.1: L* 0..100, a* and b* -128..127, each mapped to 0..65535) to sRGB, with
// the D65 white point dcmqi and Slicer use (so their colours come back as they were written).
core::Rgba cielabToRgb(std::uint16_t l, std::uint16_t a, std::uint16_t b);

}  // namespace delineate::io
