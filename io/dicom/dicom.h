#pragma once
// DICOM folders and series: index a folder tree (headers only, in parallel), then load one series into a volume.
//
// Indexing
// - Every regular file under the folder is tried (DICOM files often have no extension). A file is DICOM when it has
//   the "DICM" preamble or parses as a bare dataset; other files are counted, not listed.
// - Unreadable files (issue 22: a lost first or last slice must never load as a complete series). A file that looks
//   like DICOM but cannot be read (truncated, zero bytes, a garbage header) is listed in DicomIndex::skipped with the
//   reason. "Looks like DICOM": the DICM preamble, a .dcm/.dicom/.ima name, a dataset start, or a SeriesInstanceUID
//   that a byte search of its first MiB (64 KiB for other names) still finds (the salvage below). A file without any
//   of these (notes.txt, an empty "thumbs" file) is counted in nonDicomFiles as before.
//   Salvage: the damaged bytes are searched for SeriesInstanceUID (0020,000E), InstanceNumber and
//   ImagePositionPatient encoded as explicit or implicit VR, either byte order. A file whose salvaged UID names an
//   indexed series becomes an unreadable member of it (DicomSeries::unreadable); an unreadable file whose series
//   cannot be told is attached to every image series with files in its folder, since it may be theirs. Either way
//   the series gets an UnreadableFiles issue naming the files, and loadDicomSeries refuses it unless
//   DicomLoadOptions::allowUnreadable is set (CLI: --allow-unreadable): allowIrregular does not cover it, because a
//   lost first or last slice leaves a perfectly regular grid. Where the salvage found a position, the issue says
//   where the slice would have been (before the first slice, after the last, or inside the stack).
// - Before DCMTK sees a file, our own structural pre-scan walks its elements without reading values: every value
//   length must fit in the file, sequences may nest at most kMaxSequenceDepth deep, and the pixel data must be as
//   long as Rows x Columns x Frames x BitsAllocated say (native) or be present (encapsulated). DCMTK would otherwise
//   recurse once per nesting level (a stack overflow on a crafted file) and trust declared lengths. DCMTK then parses
//   the bytes before the pixel data from memory: one open and, for most files, one read per file (network shares).
// - Instances are grouped into patients / studies / series. A series is split further by SeriesInstanceUID (or,
//   where it is blank, by folder + SeriesNumber + Modality, with an issue saying so), then by image orientation
//   (to 1e-3), rows x columns, pixel format (bits allocated/stored, high bit, sign, photometric, transfer syntax)
//   and echo number. Each piece is one DicomSeries with splitIndex > 0 and a splitReason. Non-image instances under
//   an image series' UID form a piece of their own; a file repeating an instance (same SOPInstanceUID and plane) is
//   ignored with an issue.
// - Multi-frame instances contribute one DicomSlice per frame: Enhanced CT/MR take position, orientation, spacing
//   and rescale from the per-frame or shared functional groups; older multi-frame objects follow
//   GridFrameOffsetVector, or else have no per-frame position (MissingGeometry, stacked in frame order).
//   NumberOfFrames is limited to kMaxFrames and, for encapsulated data, to the number of fragments.
//
// Geometry (LPS, the DICOM patient frame, so no conversion):
// - Column index i runs along ImageOrientationPatient[0..2] with spacing PixelSpacing[1]; row index j along
//   ImageOrientationPatient[3..5] with spacing PixelSpacing[0]; k along the normal row x column. Slices are sorted by
//   the projection of ImagePositionPatient on that normal, and the origin is the first slice's position.
// - The slice spacing is the median gap between sorted positions. Checks (each becomes a SeriesIssue):
//     MissingSlices      a gap is an integer multiple (>= 2) of the median gap, within 10 %
//     NonUniformSpacing  any other gap differs from the median by more than max(0.01 mm, 1 %)
//     DuplicatePositions two slices within 0.001 mm along the normal
//     GantryTilt         consecutive positions step off the normal by more than 0.01 degrees
//     MissingGeometry    no ImagePositionPatient / ImageOrientationPatient / PixelSpacing (defaults assumed)
//   Slices lost at either end leave a regular grid; where every slice of an unsplit single-acquisition series carries
//   the same ImagesInAcquisition, fewer slices than it says (beyond the gaps) are a MissingSlices issue too.
//   A series with any of the first four is not a regular grid: loadDicomSeries refuses it unless
//   DicomLoadOptions::allowIrregular is set, and then still returns the issues with the volume, so no caller can
//   present it as regular without saying so. What such a load gives: missing slices become slices filled with the
//   series' lowest value at their true positions (so every acquired slice stays where it was scanned); duplicate
//   positions keep the first slice by InstanceNumber; non-uniform gaps and gantry tilt are stacked along the normal
//   at the median gap (approximate geometry, said in the issue).
//
// Pixels
// - Decoded per frame into the volume, in parallel over files, with progress ("read") and cancel:
//   native little/big endian (explicit and implicit VR; read by us at the offset our pre-scan found, one open per
//   file), deflated datasets (DCMTK), RLE (our own decoder: DCMTK's refuses 1-bit frames and crashes on crafted
//   segment offsets), JPEG baseline/extended/lossless and JPEG-LS (DCMTK codecs), JPEG 2000 lossless and
//   lossy (OpenJPEG; DCMTK has no JPEG 2000 decoder) and Deflated Image Frame Compression (1.2.840.10008.1.2.8.1,
//   newer than DCMTK 3.6.7: zlib, inflation stopped at the frame size).
// - BitsStored/HighBit are honoured (bits outside the stored range are masked off, signed values sign-extended),
//   then RescaleSlope/RescaleIntercept are applied per slice (CT values become HU). Monochrome only: colour images
//   are Unsupported.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/geometry.h"
#include "core/scalar_image.h"
#include "core/progress.h"
#include "core/volume.h"

namespace delineate::io {

constexpr int kMaxSequenceDepth = 24;
// NumberOfFrames above this is refused (SizeLimit): each frame becomes a DicomSlice before any pixel is read.
constexpr int kMaxFrames = 100000;

// One image plane: a single-frame instance, or one frame of a multi-frame instance.
struct DicomSlice {
  std::string path;
  int frame = 0;  // 0-based frame number within the file
  std::string sopInstanceUid;
  int instanceNumber = 0;
  bool hasPosition = false;
  core::Vec3 positionLps{0, 0, 0};       // ImagePositionPatient: centre of the first transmitted pixel
  bool hasOrientation = false;
  core::Vec3 rowDirection{1, 0, 0};      // ImageOrientationPatient[0..2]: direction of increasing column index
  core::Vec3 columnDirection{0, 1, 0};   // ImageOrientationPatient[3..5]: direction of increasing row index
  bool hasPixelSpacing = false;
  double rowSpacingMm = 1;     // PixelSpacing[0]: distance between rows
  double columnSpacingMm = 1;  // PixelSpacing[1]: distance between columns
  double sliceThicknessMm = 0;
  double rescaleSlope = 1;
  double rescaleIntercept = 0;
  int echoNumber = 0;
  int acquisitionNumber = 0;
  int imagesInAcquisition = 0;  // ImagesInAcquisition (0020,1002) of a single-frame instance; 0 when absent
  // Set by analyzeSeriesGeometry: the slice's k in the volume, or -1 for a duplicate position that is not loaded
  // (the first slice at a position, by instance number, wins).
  int gridIndex = -1;
};

// How the pixels of a series are stored (identical for all its slices; a series whose slices differ is split).
struct DicomPixelFormat {
  int rows = 0;
  int columns = 0;
  int bitsAllocated = 0;
  int bitsStored = 0;
  int highBit = 0;
  int pixelRepresentation = 0;  // 0 unsigned, 1 two's complement
  int samplesPerPixel = 1;
  std::string photometric;       // MONOCHROME1, MONOCHROME2, ...
  std::string transferSyntaxUid;
  std::string transferSyntaxName;  // human-readable, for listings
};

enum class SeriesIssueKind {
  MissingSlices,
  NonUniformSpacing,
  DuplicatePositions,
  GantryTilt,
  MissingGeometry,
  MissingSeriesUid,
  Split,  // one SeriesInstanceUID became several series (orientation, size or echo)
  DuplicateInstances,  // the same SOPInstanceUID in several byte-identical files: the copies are ignored
  ConflictingInstances,  // the same SOPInstanceUID (and plane) in files with different bytes: the series is refused
  UnreadableFiles,     // files of the series (or beside it) that could not be read: loading needs allowUnreadable
};
const char* seriesIssueName(SeriesIssueKind kind);
// true for the issues that make the slices an irregular grid (MissingSlices .. GantryTilt)
bool breaksRegularGrid(SeriesIssueKind kind);

struct SeriesIssue {
  SeriesIssueKind kind = SeriesIssueKind::MissingSlices;
  std::string detail;  // English, with figures: "2 slices missing between z = 40.0 and z = 55.0 mm"
};

// A file that looks like DICOM but could not be read, and what a byte search of it still found.
struct DicomSkippedFile {
  std::string path;
  std::string reason;  // "<path>: <what is wrong>", as core::Error::describe() words it
  // Salvaged from the damaged bytes (empty / nullopt when not found): which series the file belongs to and where its
  // slice was, so a lost slice can be named and placed.
  std::string seriesInstanceUid;
  std::optional<int> instanceNumber;
  std::optional<core::Vec3> positionLps;
};

// A file that carries an instance already read from another file (same SOPInstanceUID, first plane and frame count).
// Byte-identical: a copy, counted and ignored. Different bytes: a conflict that no reader can settle (which of the two
// is the instance?), so the series is refused by loadDicomSeries and left out of imports, naming both files.
struct DicomDuplicateFile {
  std::string path;    // the file not read
  std::string sameAs;  // the file that was read for that instance
  std::string sopInstanceUid;
  bool identical = true;
};

struct DicomSeries {
  // identification
  std::string patientId;
  std::string patientName;
  std::string studyInstanceUid;
  std::string studyDate;
  std::string studyDescription;
  std::string accessionNumber;
  std::string seriesInstanceUid;
  std::string seriesNumber;
  std::string seriesDescription;
  std::string modality;
  std::string sopClassUid;
  std::string frameOfReferenceUid;
  int splitIndex = 0;       // 0 when the series was not split, else 1, 2, ...
  std::string splitReason;  // "orientation", "size", "echo"

  // content
  bool isImage = true;  // false for SEG, SR, RTSTRUCT, PR, KO and other instances without a loadable image
  std::string folder;   // the folder holding the first file
  int instanceCount = 0;
  DicomPixelFormat format;
  std::vector<DicomSlice> slices;  // sorted along the normal (for images)

  // analysis (images only)
  std::optional<core::Geometry> geometry;  // the grid the slices form (with the median spacing)
  double sliceSpacingMm = 0;
  double gantryTiltDegrees = 0;
  std::vector<SeriesIssue> issues;
  bool isRegular() const;  // no issue that breaks the regular grid

  // Files that belong to this series by their salvaged SeriesInstanceUID, or lie in one of its folders without a
  // readable UID, but could not be read. Non-empty: the series is not complete (see UnreadableFiles).
  std::vector<DicomSkippedFile> unreadable;
  bool isComplete() const { return unreadable.empty(); }

  // Files of its SeriesInstanceUID that repeat an instance (see DicomDuplicateFile), in file order.
  std::vector<DicomDuplicateFile> duplicates;
  bool hasConflictingInstances() const;
  // "<a> and <b> carry SOPInstanceUID <uid> with different bytes" for each conflict, joined by "; ".
  std::string conflictDescription() const;

  // "1.2.3.4" or "1.2.3.4#2" for split series: the key the CLI and the GUI use to pick a series.
  std::string key() const;
};

struct DicomStudy {
  std::string studyInstanceUid;
  std::string studyDate;
  std::string studyDescription;
  std::vector<DicomSeries> series;
};

struct DicomPatient {
  std::string patientId;
  std::string patientName;
  std::vector<DicomStudy> studies;
};


struct DicomIndex {
  std::string root;
  std::vector<DicomPatient> patients;
  // Every DICOM-looking file that could not be read, with the reason (those of a series are also in its unreadable).
  std::vector<DicomSkippedFile> skipped;
  std::int64_t filesVisited = 0;
  std::int64_t nonDicomFiles = 0;

  std::vector<const DicomSeries*> allSeries() const;
  // By key() or, when unique, by SeriesNumber; nullptr when absent or ambiguous.
  const DicomSeries* findSeries(const std::string& keyOrNumber) const;
};

struct DicomScanOptions {
  int threads = 0;  // 0: enough for network latency (4 x cores, at least 8, at most 32)
  bool recursive = true;
  core::ProgressSink* progress = nullptr;  // stage "index"
};

// Indexes every file under `folder` (or one file). NotFound when the folder is missing; a folder without any
// DICOM file is an empty index, not an error.
core::Result<DicomIndex> indexDicomFolder(const std::string& folder, const DicomScanOptions& options = {});
core::Result<DicomIndex> indexDicomFiles(const std::vector<std::string>& files, const DicomScanOptions& options = {});

// The grouping and geometry analysis on already-read slices (used by the indexer, exposed for tests): sorts
// `series.slices` along the normal and fills geometry, sliceSpacingMm, gantryTiltDegrees and issues.
void analyzeSeriesGeometry(DicomSeries& series);

struct DicomLoadOptions {
  int threads = 0;  // 0: as for scanning
  bool allowIrregular = false;
  // Load a series whose unreadable files are left out (the UnreadableFiles issue comes back with the volume); a gap
  // they leave inside the stack is still a missing slice and needs allowIrregular as well.
  bool allowUnreadable = false;
  core::ProgressSink* progress = nullptr;  // stage "read"; cancelled() stops the load with ErrorCode::Cancelled
};

struct LoadedDicomSeries {
  core::ImageVolume image;          // rescaled values (HU for CT)
  std::vector<SeriesIssue> issues;  // as in the series; never empty for an irregular or incomplete series
  bool regular = true;
  bool complete = true;  // false when unreadable files were left out (allowUnreadable)
};

core::Result<LoadedDicomSeries> loadDicomSeries(const DicomSeries& series, const DicomLoadOptions& options = {});

// The same series in the type its values need (issue 27), decoded straight into it: uint8, int16 or uint16 when every
// slice's rescale is a whole-number shift and the stored bits plus the intercepts fit (int16 is tried for 16 stored
// bits shifted beyond it, a signed CT with intercept -1024, and the series is read again as int32 only when a value
// does not fit), int32 for wider whole numbers, float32 when a slope or a fractional intercept needs it.
struct LoadedTypedDicomSeries {
  core::ScalarImage image;  // rescaled values (HU for CT)
  std::vector<SeriesIssue> issues;
  bool regular = true;
  bool complete = true;
};
core::Result<LoadedTypedDicomSeries> loadDicomSeriesTyped(const DicomSeries& series, const DicomLoadOptions& options = {});
// The type loadDicomSeriesTyped tries first for `series`.
core::ScalarType storedSeriesType(const DicomSeries& series);

// The series decoded slab by slab (a few consecutive slices at a time, slice 0 first), never held whole: what a
// conversion to a file needs (delineate-cli convert writes each slab as it comes). Values and type are those of
// loadDicomSeriesTyped. `begin` names the geometry and type before the first slab; when a value does not fit the type
// tried first (a 16-bit series shifted beyond int16), the stream starts again from slice 0 in int32 and `begin` is
// called again, so a sink drops what it had. The same refusals as a load; a series with missing slices (allowIrregular
// fills them with its lowest value, known only at the end) is Unsupported here: dicomSeriesStreamable says so first.
struct DicomSlabSink {
  std::function<core::Status(const core::Geometry& geometry, core::ScalarType type)> begin;
  // `sliceCount` slices from `firstSlice` on, x fastest, in the type `begin` named.
  std::function<core::Status(std::int64_t firstSlice, std::int64_t sliceCount, const void* voxels)> slab;
};
struct DicomStreamResult {
  core::ScalarType type = core::ScalarType::Float32;  // of the slabs delivered last
  std::vector<SeriesIssue> issues;
  bool regular = true;
  bool complete = true;
};
bool dicomSeriesStreamable(const DicomSeries& series);
core::Result<DicomStreamResult> streamDicomSeriesTyped(const DicomSeries& series, const DicomLoadOptions& options,
                                                        const DicomSlabSink& sink,
                                                        std::size_t slabBytes = std::size_t(16) << 20);

// Every frame of one instance, decoded but not rescaled: stored bits extracted and sign-extended, 1-bit data (SEG)
// unpacked to 0/1 (native 1-bit frames need not start on a byte boundary). For SEG and other objects the series
// loader does not take, and for checking decoders against each other. Monochrome only.
struct DicomFrames {
  DicomPixelFormat format;
  int frames = 0;
  std::vector<std::int32_t> samples;  // frames x rows x columns, row by row
};
core::Result<DicomFrames> readDicomFrames(const std::string& path);

}  // namespace delineate::io
