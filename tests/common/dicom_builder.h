#pragma once
// Writes DICOM Part 10 files byte by byte, without DCMTK, so tests can build files DCMTK would refuse to write
// (truncated, lying lengths, absurd nesting, impossible pixel formats) as well as valid ones.
//
// A file is a 128-byte preamble, "DICM", the file meta group (0002) in explicit VR little endian with a correct
// group length, then the dataset in the builder's transfer syntax. Elements are kept in ascending tag order within
// each item (setting a tag again replaces it) and odd values are padded to even length (UI with \0, binary with \0,
// other strings with a space). Ways to break a file on purpose: declareLength(), rawElement(), raw(), truncating
// bytes(), or setMetaTransferSyntaxUid().

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/geometry.h"

namespace delineate::test {

enum class TransferSyntax {
  ExplicitLittle,    // 1.2.840.10008.1.2.1
  ImplicitLittle,    // 1.2.840.10008.1.2
  ExplicitBig,       // 1.2.840.10008.1.2.2 (retired, still read)
  RleLossless,       // 1.2.840.10008.1.2.5 (dataset explicit little endian, pixel data encapsulated)
  Jpeg2000Lossless,  // 1.2.840.10008.1.2.4.90 (dataset explicit little endian, pixel data encapsulated)
};
const char* transferSyntaxUid(TransferSyntax syntax);
bool isEncapsulated(TransferSyntax syntax);

namespace dicom_builder_detail {
struct Element;
struct Item {
  std::vector<Element> elements;
  bool undefinedLength = false;
};
struct Element {
  std::uint64_t sortKey = 0;  // tag, or above every tag for raw bytes appended with raw()
  std::string vr;             // empty for raw bytes
  std::string value;          // encoded value bytes; for raw elements the complete element bytes
  bool raw = false;
  bool isSequence = false;
  bool encapsulatedPixels = false;  // value holds the items + delimiter of encapsulated pixel data
  bool undefinedLength = false;
  std::optional<std::uint32_t> declaredLength;
  std::vector<Item> items;
};
}  // namespace dicom_builder_detail

class DicomBuilder {
 public:
  explicit DicomBuilder(TransferSyntax syntax = TransferSyntax::ExplicitLittle);

  TransferSyntax syntax() const { return m_syntax; }
  bool bigEndian() const { return m_syntax == TransferSyntax::ExplicitBig; }
  bool explicitVr() const { return m_syntax != TransferSyntax::ImplicitLittle; }

  // Values, in the current item (or the dataset). Each replaces an element with the same tag.
  DicomBuilder& str(std::uint16_t group, std::uint16_t element, const std::string& vr, const std::string& value);
  DicomBuilder& ui(std::uint16_t group, std::uint16_t element, const std::string& uid) {
    return str(group, element, "UI", uid);
  }
  DicomBuilder& ds(std::uint16_t group, std::uint16_t element, const std::string& value) {
    return str(group, element, "DS", value);
  }
  DicomBuilder& ds(std::uint16_t group, std::uint16_t element, double value);
  DicomBuilder& is(std::uint16_t group, std::uint16_t element, long long value);
  DicomBuilder& us(std::uint16_t group, std::uint16_t element, std::uint16_t value);
  DicomBuilder& ul(std::uint16_t group, std::uint16_t element, std::uint32_t value);
  // Binary value bytes written as given (no byte swapping); odd lengths padded with \0.
  DicomBuilder& binary(std::uint16_t group, std::uint16_t element, const std::string& vr, const std::string& bytes);

  // Sequences: beginSequence, then per item beginItem ... endItem, then endSequence.
  DicomBuilder& beginSequence(std::uint16_t group, std::uint16_t element, bool undefinedLength = false);
  DicomBuilder& beginItem(bool undefinedLength = false);
  DicomBuilder& endItem();
  DicomBuilder& endSequence();
  // `depth` sequences nested inside each other (tag (group,element) at every level, one item each, the innermost
  // item empty), encoded iteratively so any depth is cheap to build.
  DicomBuilder& nestedSequences(std::uint16_t group, std::uint16_t element, int depth, bool undefinedLength);

  // Pixel data (7FE0,0010). Native: OW in the dataset's byte order (8-bit: OB). Encapsulated: OB of undefined
  // length, a basic offset table item (empty unless `offsetTable`), one item per fragment, a sequence delimiter.
  DicomBuilder& pixelsNative(const std::vector<std::int16_t>& values);
  DicomBuilder& pixelsNative(const std::vector<std::uint16_t>& values);
  DicomBuilder& pixelsNative(const std::vector<std::uint8_t>& values);
  DicomBuilder& pixelsEncapsulated(const std::vector<std::string>& fragments, bool offsetTable = false);

  // Bytes written as they are after the last element of the current item (or the dataset).
  DicomBuilder& raw(const std::string& bytes);
  // A complete, pre-encoded element (header included) at the sorted position of (group,element).
  DicomBuilder& rawElement(std::uint16_t group, std::uint16_t element, const std::string& bytes);
  // Writes `length` in the element's header instead of its real length; the value bytes stay as they are.
  // Explicit VR elements with a 16-bit length field accept at most 0xFFFF.
  DicomBuilder& declareLength(std::uint16_t group, std::uint16_t element, std::uint32_t length);
  DicomBuilder& remove(std::uint16_t group, std::uint16_t element);
  bool has(std::uint16_t group, std::uint16_t element) const;

  // File framing.
  DicomBuilder& setPreamble(bool withPreambleAndMeta);            // false: a bare dataset
  DicomBuilder& setMetaTransferSyntaxUid(const std::string& uid);  // the dataset encoding stays the builder's

  std::string bytes() const;
  // Offset in bytes() of a dataset-level element's header / value; throws when absent.
  std::size_t offsetOf(std::uint16_t group, std::uint16_t element) const;
  std::size_t valueOffsetOf(std::uint16_t group, std::uint16_t element) const;
  void write(const std::filesystem::path& path) const;  // throws std::runtime_error on failure

 private:
  using Element = dicom_builder_detail::Element;
  using Item = dicom_builder_detail::Item;

  Item& current();
  const Element* findTopLevel(std::uint32_t tag) const;
  Element* findInCurrent(std::uint32_t tag);
  DicomBuilder& put(Element e);
  std::string encodeElement(const Element& e) const;
  std::string encodeItem(const Item& item) const;
  std::string header(std::uint32_t tag, const std::string& vr, std::uint32_t length) const;
  std::string u16(std::uint16_t v) const;
  std::string u32(std::uint32_t v) const;
  std::string serialize(std::vector<std::pair<std::uint32_t, std::pair<std::size_t, std::size_t>>>* offsets) const;

  TransferSyntax m_syntax;
  bool m_preamble = true;
  std::optional<std::string> m_metaTransferSyntax;
  Item m_dataset;
  // Open sequences: index of the sequence element in its container, and whether its last item is open.
  struct Open {
    std::size_t element;
    bool itemOpen;
  };
  std::vector<Open> m_open;
};

// A valid single-frame 16-bit signed CT slice (CT Image Storage, MONOCHROME2).
struct CtSliceParams {
  TransferSyntax syntax = TransferSyntax::ExplicitLittle;
  int rows = 4;
  int columns = 5;
  core::Vec3 positionLps{0, 0, 0};
  core::Vec3 rowDirection{1, 0, 0};     // ImageOrientationPatient[0..2]
  core::Vec3 columnDirection{0, 1, 0};  // ImageOrientationPatient[3..5]
  double rowSpacingMm = 0.5;            // PixelSpacing[0]: between rows
  double columnSpacingMm = 0.5;         // PixelSpacing[1]: between columns
  double sliceThicknessMm = 2;
  std::string patientId = "DLT-TEST-1";
  std::string patientName = "Test^Phantom";
  std::string studyUid = "2.25.40112233445566778899";
  std::string seriesUid = "2.25.40112233445566778899.1";
  std::string seriesNumber = "1";
  std::string sopInstanceUid;  // empty: seriesUid + "." + instanceNumber
  std::string frameOfReferenceUid = "2.25.40112233445566778899.9";
  int instanceNumber = 1;
  double rescaleSlope = 1;
  double rescaleIntercept = -1024;
  // Stored value at column i, row j (i runs along rowDirection, j along columnDirection). Default 10 * j + i.
  std::function<int(int i, int j)> pixel;
};
// The stored values of the slice, row by row.
std::vector<std::int16_t> ctPixels(const CtSliceParams& params);
// Native syntaxes get native pixel data, RLE gets an RLE-encoded frame; for JPEG 2000 no pixel data is written
// (tests add their own with pixelsEncapsulated).
DicomBuilder makeCtSlice(const CtSliceParams& params);

// One RLE Lossless frame of 16-bit samples (two segments, literal runs per row).
std::string rleEncode16(const std::vector<std::int16_t>& values, int rows, int columns);

// A DS value of at most 16 characters; "a\\b\\c" for a vector.
std::string formatDs(double value);
std::string formatDs(const core::Vec3& v);

std::string readFileBytes(const std::filesystem::path& path);
void writeFileBytes(const std::filesystem::path& path, const std::string& bytes);

}  // namespace delineate::test
