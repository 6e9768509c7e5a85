#pragma once
// DICOM SEG writer: a label map drawn on a DICOM series becomes a segmentation object (explicit VR little endian)
// that references that series, in one of two forms (SegWriteOptions::encoding):
//   BINARY   Segmentation Storage (1.2.840.10008.5.1.4.1.1.66.4): one 1-bit frame per segment per slice: the
//            form SEG readers (dcmqi, highdicom, Slicer, OHIF, DCMTK) have long understood.
//   LABELMAP Label Map Segmentation Storage (1.2.840.10008.5.1.4.1.1.66.7, Supplement 243): one 8- or 16-bit frame
//            per slice whose pixels are the label ids. Frames (slices x rows x columns) instead of segments x slices
//            x rows x columns / 8 bytes, so smaller from 8 labels per slice (16 with 16-bit ids), but only recent
//            readers know it (DCMTK 3.6.7's dcmseg and Debian 12's dciodvfy do not).
//
// - Built with DCMTK's dcmdata, not dcmseg's DcmSegmentation: io links dcmdata only (dcmseg would add dcmfg, dcmiod
//   and their checks to every io user; dcmseg 3.6.7 cannot write LABELMAP either), the frames are packed here in one
//   pass over the label map rather than copied into one DcmIODImage frame object per segment and slice, and the
//   encoding streams straight into AtomicFileWriter's temporary file (DcmSegmentation::saveFile writes the target in
//   place). Memory: the label map plus the frames once plus the per-frame headers. The reader (io/dicom/dicom_seg.h) is
//   ours too, so both halves speak the same subset and are tested against each other, against dicom3tools' dciodvfy
//   (which predates LABELMAP: it checks those only as far as it knows them) and, where built, against dcmseg's
//   loader (BINARY).
// - One segment per label present in the map, by increasing id; background 0 gets no segment. Segment Numbers differ
//   between the forms because the standard's rules differ:
//   BINARY: 1..n as PS3.3 C.8.20.2 requires ("start at 1 and increase monotonically by 1", which dciodvfy enforces),
//   so they are not the label ids: segment n is the n-th smallest id present (io::segToLabelMap gives ids 1..n back;
//   SegWriteInfo::segments says which id each number stands for).
//   LABELMAP: the segment number is the pixel value, and Supplement 243 lifts the 1..n rule, so the number is the
//   label id itself and ids survive the round trip through io::readDicomSeg + io::segToLabelMap.
//   Segment Label = the table's name ("Label <id>" for ids missing from the table), Recommended Display CIELab from
//   the colour (sRGB, D65 white as dcmqi and Slicer use), category/type/modifier/anatomic region from the table's
//   terminology. A label without a type code gets one from the local scheme "99DELINEATE" (value "L<id>", so the id
//   survives, meaning = the name), without a category "99DELINEATE" "LABEL" "Label"; the scheme is declared in the
//   Coding Scheme Identification Sequence.
// - Empty segments: labels of the table that no voxel holds are not written (the standard allows a segment with no
//   frames, but readers such as dcmqi warn or drop them, and nothing is lost: the table travels separately). A map
//   without any labelled voxel is refused (InvalidArgument): a SEG needs at least one frame.
// - BINARY frames: one per segment per slice where the segment has voxels (Rows x Columns = the series' rows x
//   columns), ordered by segment, then slice; 1-bit pixels packed LSB first with no padding between frames (Rows x
//   Columns may be odd), the whole padded to an even length. Per frame: Plane Position, Segment Identification,
//   Frame Content (Dimension Index Values: segment number, slice 1..n) and Derivation Image with a Source Image
//   referencing the series instance (and frame, for multi-frame sources) the slice came from.
// - LABELMAP frames: one per slice holding any label, ordered by slice; slices without labels have no frame (sparse,
//   as dcmqi writes them). Bits Allocated = Bits Stored = 8 when the largest id is at most 255, else 16 (the most the
//   supplement allows); MONOCHROME2 (no palette: the colours are in the segments), Pixel Padding Value 0 marks
//   background, Segments Overlap NO. Per frame: Plane Position, Frame Content (Dimension Index Values: slice 1..n;
//   the plane position is the only dimension) and the same Derivation Image; no Segment Identification.
// - Both: shared Plane Orientation and Pixel Measures (PixelSpacing, SliceThickness = SpacingBetweenSlices = the
//   grid's k spacing). Sizes (frames x rows x columns x bits) are checked against Pixel Data's 32-bit length before
//   anything is allocated.
// - Overlap: a LabelMap holds one label per voxel, so a SEG written from it never has overlapping segments. SEGs
//   read by io/dicom/dicom_seg.h keep their overlap (one mask per segment); only flattening them into a label map loses it.
// - Patient and study attributes are copied from the series' first instance; Frame of Reference and Study Instance
//   UID from the series. deidentify (PS3.15 Basic Application Level Confidentiality Profile, as far as this object
//   carries identifying attributes): PatientName ("Anonymous^Patient") and PatientID (a random "ANON...") replaced,
//   birth date, sex, study date/time, accession number, referring physician and study ID emptied, study description
//   removed, every UID taken from the source (study, series, instances, frame of reference) replaced by a fresh one,
//   the same fresh UID for every occurrence of one original within the file; PatientIdentityRemoved = YES with the
//   de-identification method and code.
// - Errors (typed, naming the output file unless the fault is the source's): labels not on the series' grid
//   (GeometryMismatch), a series that is not a regular image grid or lacks the instance of a slice (Unsupported),
//   bad options (InvalidArgument), sizes beyond a DICOM object's 32-bit lengths (SizeLimit), the folder missing or
//   unwritable (WriteFailed; nothing is left behind, an existing file is untouched). `info` is written only on
//   success.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/error.h"
#include "core/label_map.h"
#include "core/label_table.h"
#include "io/dicom/dicom.h"

namespace delineate::io {

enum class SegEncoding { Binary, Labelmap };

struct SegWriteOptions {
  std::string seriesDescription = "Delineate segmentation";
  int seriesNumber = 300;
  // Segment Algorithm Name and Type. An empty name or type, or type MANUAL, writes MANUAL without a name; otherwise
  // the type must be SEMIAUTOMATIC or AUTOMATIC.
  std::string algorithmName = "Delineate";
  std::string algorithmType = "SEMIAUTOMATIC";
  bool deidentify = false;
  // Content Creator's Name (PN: who made the labels, as the author name is typed; at most 64 characters kept). Empty:
  // none (type 2, present and empty). Never written when de-identifying.
  std::string contentCreator;
  // BINARY by default, as every SEG reader understands it; LABELMAP keeps label ids as segment numbers.
  SegEncoding encoding = SegEncoding::Binary;
};

// What a successful write produced, so callers can reference the object (e.g. from an SR) without reading it back.
struct SegWriteInfo {
  std::string sopClassUid, sopInstanceUid, seriesInstanceUid;
  // (segment number, label id) of every segment written, in Segment Sequence order.
  std::vector<std::pair<std::uint16_t, core::Label>> segments;
};

constexpr const char* kDelineateCodingScheme = "99DELINEATE";

core::Status writeDicomSeg(const std::string& path, const core::LabelMap& labels, const core::LabelTable& table,
                           const DicomSeries& source, const SegWriteOptions& options = {}, SegWriteInfo* info = nullptr);

// sRGB to DICOM's scaled CIELab (PS3.3 C.10.7.1.1), the inverse of io::cielabToRgb.
void rgbToCielab(const core::Rgba& rgb, std::uint16_t lab[3]);

}  // namespace delineate::io
