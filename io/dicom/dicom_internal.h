#pragma once
// Internal to io/dicom/ (other rooms use its public headers): the structural pre-scan, the header reader and the
// frame decoders.

#include <atomic>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "core/error.h"
#include "io/base/regular_file.h"
#include "core/label_table.h"
#include "io/base/parallel.h"
#include "io/dicom/dicom.h"

class DcmDataset;
class DcmItem;
class DcmTagKey;

namespace delineate::io::dicom_detail {

// What the pre-scan learned about a file without reading element values.
struct PrescanResult {
  bool hasPreamble = false;
  std::string transferSyntaxUid;     // from the meta header; empty without one
  bool pixelDataPresent = false;
  bool pixelDataEncapsulated = false;
  std::int64_t pixelDataOffset = -1;  // offset of the native value in the file (not for deflated files)
  std::int64_t pixelDataLength = 0;   // native value length
  std::int64_t pixelDataElementOffset = -1;  // where the top-level pixel data element starts (not for deflated files)
  int maxSequenceDepth = 0;
  bool bigEndian = false;  // dataset byte order
  // Top-level Rows, Columns, BitsAllocated as the pre-scan saw them (-1 when absent): the native fast path checks
  // them against the index without a DCMTK parse.
  int rows = -1, columns = -1, bitsAllocated = -1, bitsStored = -1, highBit = -1, pixelRepresentation = -1;
  std::int64_t pixelItems = 0;         // items in encapsulated pixel data (the offset table and the fragments)
  bool floatPixelDataPresent = false;  // (7FE0,0008) or (7FE0,0009): parametric maps
  // The top-level Study, Series and SOP Instance UIDs as the file stores them (trailing padding removed): DCMTK's
  // input correction removes spaces inside a UID, which would make "1.2 3.4" and "1.23.4" one study (issue 40).
  std::string storedStudyUid, storedSeriesUid, storedSopInstanceUid;
};
// PS3.15 Table E.1-1 applied to a dataset this program built for export with a de-identification claim (a SEG, an
// SR): its UIDs are fresh already and stay, no date option is claimed (dates and times take the basic action), the
// top-level Patient ID and Name are the caller's dummies, and `keep` (top-level attributes: the SR's content tree,
// clean by construction) are left as they are. Errors name `path`. Defined in dicom_deidentify.cpp.
core::Status applyConfidentialityProfileToExport(DcmItem* dataset, const std::vector<DcmTagKey>& keep,
                                                 const std::string& path);

// The UID `tag` as stored when the pre-scan saw it, else `parsed` (DCMTK's value).
std::string storedUid(const PrescanResult& pre, std::uint16_t group, std::uint16_t element, const std::string& parsed);

// Walks every element of `path` (iteratively, with values skipped) and checks lengths against the file size and
// the nesting depth. NotFound/ReadFailed for I/O, Corrupt for truncation, SizeLimit for lengths and depth,
// ParseError ("not a DICOM file") when the bytes are not a DICOM stream at all.
core::Result<PrescanResult> prescanDicomFile(const std::string& path);
// The same, then `then(file, result)` on the still open file (one open for pre-scan and pixel reads; a sealed file's
// content, io/base/sealed_file.h).
core::Status prescanDicomFile(const std::string& path,
                              const std::function<core::Status(RandomAccessFile& file, const PrescanResult&)>& then);

// true for the uncompressed syntaxes whose pixel bytes lie in the file as they are (implicit/explicit little endian,
// explicit big endian, and files without a meta header).
bool isNativeSyntax(const std::string& transferSyntaxUid);

// DCMTK's name for a transfer syntax, or ours for syntaxes newer than DCMTK 3.6.7.
inline std::string transferSyntaxName(const std::string& uid, const char* dcmtkName) {
  if (uid == "1.2.840.10008.1.2.8.1") return "Deflated Image Frame Compression";
  return dcmtkName ? dcmtkName : uid;
}

// DCMTK's maxReadLength for a file: values above 256 bytes stay on disk until read, except in deflated files,
// whose values cannot be fetched later from the inflated stream (everything is loaded; the pre-scan capped it).
inline std::uint32_t maxReadLength(const PrescanResult& pre) {
  return pre.transferSyntaxUid == "1.2.840.10008.1.2.1.99" ? 0xFFFFFFFFu : 256u;
}

// The pixel format a dataset declares (rows, columns, bits, sign, samples, photometric) and its transfer syntax (the
// pre-scan's where it found one, else the dataset's original, with its name): one reader for frames and SEGs.
DicomPixelFormat readPixelFormat(DcmDataset* dataset, const PrescanResult& pre);

// One file's header: identification, the pixel format and one DicomSlice per frame.
struct FileHeader {
  std::string patientId, patientName, studyInstanceUid, studyDate, studyDescription, accessionNumber;
  std::string seriesInstanceUid, seriesNumber, seriesDescription, modality, sopClassUid, frameOfReferenceUid;
  bool isImage = false;
  DicomPixelFormat format;
  int numberOfFrames = 1;
  std::vector<DicomSlice> slices;
};

// Pre-scan + DCMTK header parse (pixel values are not read). Every error names the file.
core::Result<FileHeader> readDicomFileHeader(const std::string& path);

// What a byte search of a file that could not be parsed still finds: every distinct SeriesInstanceUID-shaped value
// (a referenced series in a sequence may come first, so the caller picks the one it knows), the first InstanceNumber
// and ImagePositionPatient. Only the first `maxBytes` are searched; a file that cannot be opened finds nothing.
struct SalvagedHeader {
  std::int64_t fileSize = -1;  // -1: could not be opened
  std::vector<std::string> seriesUids;
  std::optional<int> instanceNumber;
  std::optional<core::Vec3> positionLps;
};
constexpr std::size_t kSalvageBytes = std::size_t(1) << 20;       // a file that claims to be DICOM
constexpr std::size_t kSalvageOtherBytes = std::size_t(64) << 10;  // any other file: headers start within this
SalvagedHeader salvageHeader(const std::string& path, std::size_t maxBytes);

// Receives each decoded frame: rows x columns samples (stored bits extracted and sign-extended, rescale not applied),
// valid only during the call. `index` is the position in the frame list that was asked for.
using FrameSink = std::function<void(std::size_t index, const std::int32_t* samples)>;

// Decodes the listed frames of one file, in order, one frame buffer at a time. Errors name the file.
core::Status decodeFrames(const std::string& path, const DicomPixelFormat& format, const std::vector<int>& frameNumbers,
                          const FrameSink& deliver);

// JPEG 2000 (OpenJPEG): one frame's code stream -> rows x columns int32 samples. Only a single component of at most
// `maxPrecision` bits, at full resolution, is accepted, and only component 0 is decoded.
core::Status decodeJpeg2000(const std::string& path, const std::uint8_t* data, std::size_t size, int rows,
                            int columns, int maxPrecision, std::int32_t* out);

bool isJpeg2000Syntax(const std::string& transferSyntaxUid);

// Once per process: quiets DCMTK's logger (errors reach users through our Error values) and registers the
// JPEG and JPEG-LS decoders. Thread-safe.
void ensureDcmtkReady();

// A DS (decimal string) value: at most 16 characters, with as many significant digits as fit, up to `maxPrecision`
// (SEG geometry wants all 15; measurements are given to 10, no false precision). Magnitudes below 1e-9 (SEG) or
// 1e-30 are written as 0 so that "-0" or denormal noise never appear.
std::string decimalString(double v, int maxPrecision = 15, double zeroBelow = 1e-9);
// At most n bytes of UTF-8 text, cut before a continuation byte so no character is split (LO/SH/CS limits).
std::string truncateUtf8(const std::string& s, std::size_t n);
// A fresh UID under DCMTK's site root.
std::string newUid();

// SEG SOP classes: Segmentation Storage (BINARY, FRACTIONAL) and Label Map Segmentation Storage (2024).
inline constexpr const char* kSegmentationStorage = "1.2.840.10008.5.1.4.1.1.66.4";
inline constexpr const char* kLabelMapSegmentationStorage = "1.2.840.10008.5.1.4.1.1.66.7";

// The whole value of an attribute of `item` (all values, '\\'-separated); empty when absent or item is null.
std::string textOf(DcmItem* item, const DcmTagKey& key);
// The first item of a code sequence (Code Value, else Long or URN Code Value); empty when there is none.
core::CodedConcept codeOf(DcmItem* parent, const DcmTagKey& sequence);

// parallelFor and resolveThreads live in io/base/parallel.h (the study importer uses them too).
using io::parallelFor;
using io::resolveThreads;

}  // namespace delineate::io::dicom_detail
