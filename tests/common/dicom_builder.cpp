#include "tests/common/dicom_builder.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace delineate::test {

using dicom_builder_detail::Element;
using dicom_builder_detail::Item;

namespace {

constexpr std::uint32_t kUndefined = 0xFFFFFFFFu;
constexpr std::uint64_t kRawKeyBase = std::uint64_t(1) << 32;

std::uint32_t tagOf(std::uint16_t group, std::uint16_t element) { return std::uint32_t(group) << 16 | element; }

bool isLongVr(const std::string& vr) {
  static const char* const kLong[] = {"OB", "OD", "OF", "OL", "OV", "OW", "SQ", "SV", "UC", "UN", "UR", "UT", "UV"};
  return std::any_of(std::begin(kLong), std::end(kLong), [&](const char* l) { return vr == l; });
}

std::string le16(std::uint16_t v) { return std::string{char(v & 0xFF), char(v >> 8)}; }
std::string le32(std::uint32_t v) {
  return std::string{char(v & 0xFF), char((v >> 8) & 0xFF), char((v >> 16) & 0xFF), char((v >> 24) & 0xFF)};
}

// A meta element (always explicit VR little endian).
std::string metaElement(std::uint16_t element, const std::string& vr, std::string value) {
  if (value.size() % 2) value += vr == "UI" || vr == "OB" ? '\0' : ' ';
  std::string out = le16(0x0002) + le16(element) + vr;
  if (isLongVr(vr)) out += std::string(2, '\0') + le32(std::uint32_t(value.size()));
  else out += le16(std::uint16_t(value.size()));
  return out + value;
}

}  // namespace

const char* transferSyntaxUid(TransferSyntax syntax) {
  switch (syntax) {
    case TransferSyntax::ExplicitLittle: return "1.2.840.10008.1.2.1";
    case TransferSyntax::ImplicitLittle: return "1.2.840.10008.1.2";
    case TransferSyntax::ExplicitBig: return "1.2.840.10008.1.2.2";
    case TransferSyntax::RleLossless: return "1.2.840.10008.1.2.5";
    case TransferSyntax::Jpeg2000Lossless: return "1.2.840.10008.1.2.4.90";
  }
  return "";
}

bool isEncapsulated(TransferSyntax syntax) {
  return syntax == TransferSyntax::RleLossless || syntax == TransferSyntax::Jpeg2000Lossless;
}

DicomBuilder::DicomBuilder(TransferSyntax syntax) : m_syntax(syntax) {}

std::string DicomBuilder::u16(std::uint16_t v) const {
  std::string s = le16(v);
  if (bigEndian()) std::reverse(s.begin(), s.end());
  return s;
}

std::string DicomBuilder::u32(std::uint32_t v) const {
  std::string s = le32(v);
  if (bigEndian()) std::reverse(s.begin(), s.end());
  return s;
}

Item& DicomBuilder::current() {
  Item* item = &m_dataset;
  for (const Open& o : m_open) {
    Element& seq = item->elements.at(o.element);
    if (!o.itemOpen) throw std::logic_error("DicomBuilder: inside a sequence, call beginItem() first");
    item = &seq.items.back();
  }
  return *item;
}

DicomBuilder& DicomBuilder::put(Element e) {
  Item& item = current();
  auto& v = item.elements;
  auto it = std::lower_bound(v.begin(), v.end(), e.sortKey,
                             [](const Element& a, std::uint64_t key) { return a.sortKey < key; });
  if (it != v.end() && it->sortKey == e.sortKey) *it = std::move(e);
  else v.insert(it, std::move(e));
  return *this;
}

DicomBuilder& DicomBuilder::str(std::uint16_t group, std::uint16_t element, const std::string& vr,
                                const std::string& value) {
  Element e;
  e.sortKey = tagOf(group, element);
  e.vr = vr;
  e.value = value;
  if (e.value.size() % 2) e.value += vr == "UI" ? '\0' : ' ';
  return put(std::move(e));
}

DicomBuilder& DicomBuilder::ds(std::uint16_t group, std::uint16_t element, double value) {
  return str(group, element, "DS", formatDs(value));
}

DicomBuilder& DicomBuilder::is(std::uint16_t group, std::uint16_t element, long long value) {
  return str(group, element, "IS", std::to_string(value));
}

DicomBuilder& DicomBuilder::us(std::uint16_t group, std::uint16_t element, std::uint16_t value) {
  Element e;
  e.sortKey = tagOf(group, element);
  e.vr = "US";
  e.value = u16(value);
  return put(std::move(e));
}

DicomBuilder& DicomBuilder::ul(std::uint16_t group, std::uint16_t element, std::uint32_t value) {
  Element e;
  e.sortKey = tagOf(group, element);
  e.vr = "UL";
  e.value = u32(value);
  return put(std::move(e));
}

DicomBuilder& DicomBuilder::binary(std::uint16_t group, std::uint16_t element, const std::string& vr,
                                   const std::string& bytes) {
  Element e;
  e.sortKey = tagOf(group, element);
  e.vr = vr;
  e.value = bytes;
  if (e.value.size() % 2) e.value += '\0';
  return put(std::move(e));
}

DicomBuilder& DicomBuilder::beginSequence(std::uint16_t group, std::uint16_t element, bool undefinedLength) {
  Element e;
  e.sortKey = tagOf(group, element);
  e.vr = "SQ";
  e.isSequence = true;
  e.undefinedLength = undefinedLength;
  put(std::move(e));
  Item& item = current();
  const auto it = std::find_if(item.elements.begin(), item.elements.end(),
                               [&](const Element& x) { return x.sortKey == tagOf(group, element); });
  m_open.push_back(Open{std::size_t(it - item.elements.begin()), false});
  return *this;
}

DicomBuilder& DicomBuilder::beginItem(bool undefinedLength) {
  if (m_open.empty() || m_open.back().itemOpen) throw std::logic_error("DicomBuilder: beginItem outside a sequence");
  Open o = m_open.back();
  m_open.pop_back();
  Element& seq = current().elements.at(o.element);
  seq.items.push_back(Item{{}, undefinedLength});
  o.itemOpen = true;
  m_open.push_back(o);
  return *this;
}

DicomBuilder& DicomBuilder::endItem() {
  if (m_open.empty() || !m_open.back().itemOpen) throw std::logic_error("DicomBuilder: endItem without an item");
  m_open.back().itemOpen = false;
  return *this;
}

DicomBuilder& DicomBuilder::endSequence() {
  if (m_open.empty() || m_open.back().itemOpen)
    throw std::logic_error("DicomBuilder: endSequence without an open sequence (or with an open item)");
  m_open.pop_back();
  return *this;
}

DicomBuilder& DicomBuilder::nestedSequences(std::uint16_t group, std::uint16_t element, int depth,
                                            bool undefinedLength) {
  if (depth < 1) throw std::invalid_argument("DicomBuilder: nesting depth must be at least 1");
  const std::uint64_t h = explicitVr() ? 12 : 8;  // sequence header
  const auto d64 = std::uint64_t(depth);
  if ((d64 * (h + 8)) > 0xFFFFFFF0u) throw std::invalid_argument("DicomBuilder: nesting too deep for 32-bit lengths");
  std::string out;
  out.reserve(std::size_t(d64 * (h + 8) + (undefinedLength ? d64 * 16 : 0)));
  for (std::uint64_t d = 0; d < d64; ++d) {
    // Value length of the sequence at level d: one item header per level below and including d, one sequence
    // header per level below d.
    const std::uint32_t seqLength = undefinedLength ? kUndefined : std::uint32_t((d64 - d) * 8 + (d64 - 1 - d) * h);
    const std::uint32_t itemLength = undefinedLength ? kUndefined : seqLength - 8;
    out += header(tagOf(group, element), "SQ", seqLength);
    out += u16(0xFFFE) + u16(0xE000) + u32(itemLength);
  }
  if (undefinedLength)
    for (std::uint64_t d = 0; d < d64; ++d) out += u16(0xFFFE) + u16(0xE00D) + u32(0) + u16(0xFFFE) + u16(0xE0DD) + u32(0);
  return rawElement(group, element, out);
}

DicomBuilder& DicomBuilder::pixelsNative(const std::vector<std::int16_t>& values) {
  std::vector<std::uint16_t> u(values.size());
  std::transform(values.begin(), values.end(), u.begin(), [](std::int16_t v) { return std::uint16_t(v); });
  return pixelsNative(u);
}

DicomBuilder& DicomBuilder::pixelsNative(const std::vector<std::uint16_t>& values) {
  Element e;
  e.sortKey = tagOf(0x7FE0, 0x0010);
  e.vr = "OW";
  e.value.reserve(values.size() * 2);
  for (std::uint16_t v : values) e.value += u16(v);
  return put(std::move(e));
}

DicomBuilder& DicomBuilder::pixelsNative(const std::vector<std::uint8_t>& values) {
  return binary(0x7FE0, 0x0010, "OB", std::string(values.begin(), values.end()));
}

DicomBuilder& DicomBuilder::pixelsEncapsulated(const std::vector<std::string>& fragments, bool offsetTable) {
  Element e;
  e.sortKey = tagOf(0x7FE0, 0x0010);
  e.vr = "OB";
  e.encapsulatedPixels = true;
  e.undefinedLength = true;
  std::string table, items;
  for (std::string f : fragments) {
    if (f.size() % 2) f += '\0';
    table += u32(std::uint32_t(items.size()));
    items += u16(0xFFFE) + u16(0xE000) + u32(std::uint32_t(f.size())) + f;
  }
  if (!offsetTable) table.clear();
  e.value = u16(0xFFFE) + u16(0xE000) + u32(std::uint32_t(table.size())) + table + items + u16(0xFFFE) +
            u16(0xE0DD) + u32(0);
  return put(std::move(e));
}

DicomBuilder& DicomBuilder::raw(const std::string& bytes) {
  Element e;
  Item& item = current();
  std::uint64_t key = kRawKeyBase;
  for (const Element& x : item.elements) key = std::max(key, x.sortKey + 1);
  e.sortKey = key;
  e.raw = true;
  e.value = bytes;
  return put(std::move(e));
}

DicomBuilder& DicomBuilder::rawElement(std::uint16_t group, std::uint16_t element, const std::string& bytes) {
  Element e;
  e.sortKey = tagOf(group, element);
  e.raw = true;
  e.value = bytes;
  return put(std::move(e));
}

DicomBuilder::Element* DicomBuilder::findInCurrent(std::uint32_t tag) {
  for (Element& e : current().elements)
    if (e.sortKey == tag) return &e;
  return nullptr;
}

const DicomBuilder::Element* DicomBuilder::findTopLevel(std::uint32_t tag) const {
  for (const Element& e : m_dataset.elements)
    if (e.sortKey == tag) return &e;
  return nullptr;
}

DicomBuilder& DicomBuilder::declareLength(std::uint16_t group, std::uint16_t element, std::uint32_t length) {
  Element* e = findInCurrent(tagOf(group, element));
  if (!e || e->raw) throw std::logic_error("DicomBuilder: declareLength on a missing or raw element");
  if (explicitVr() && !isLongVr(e->vr) && length > 0xFFFF)
    throw std::invalid_argument("DicomBuilder: a " + e->vr + " element has a 16-bit length field in explicit VR");
  e->declaredLength = length;
  return *this;
}

DicomBuilder& DicomBuilder::remove(std::uint16_t group, std::uint16_t element) {
  auto& v = current().elements;
  v.erase(std::remove_if(v.begin(), v.end(), [&](const Element& e) { return e.sortKey == tagOf(group, element); }),
          v.end());
  return *this;
}

bool DicomBuilder::has(std::uint16_t group, std::uint16_t element) const {
  return findTopLevel(tagOf(group, element)) != nullptr;
}

DicomBuilder& DicomBuilder::setPreamble(bool withPreambleAndMeta) {
  m_preamble = withPreambleAndMeta;
  return *this;
}

DicomBuilder& DicomBuilder::setMetaTransferSyntaxUid(const std::string& uid) {
  m_metaTransferSyntax = uid;
  return *this;
}

std::string DicomBuilder::header(std::uint32_t tag, const std::string& vr, std::uint32_t length) const {
  std::string out = u16(std::uint16_t(tag >> 16)) + u16(std::uint16_t(tag & 0xFFFF));
  if (!explicitVr()) return out + u32(length);
  out += vr;
  if (isLongVr(vr)) return out + std::string(2, '\0') + u32(length);
  if (length > 0xFFFF) throw std::invalid_argument("DicomBuilder: value of " + vr + " longer than 65535 bytes");
  return out + u16(std::uint16_t(length));
}

std::string DicomBuilder::encodeItem(const Item& item) const {
  std::string content;
  for (const Element& e : item.elements) content += encodeElement(e);
  std::string out = u16(0xFFFE) + u16(0xE000) + u32(item.undefinedLength ? kUndefined : std::uint32_t(content.size()));
  out += content;
  if (item.undefinedLength) out += u16(0xFFFE) + u16(0xE00D) + u32(0);
  return out;
}

std::string DicomBuilder::encodeElement(const Element& e) const {
  if (e.raw) return e.value;
  const auto tag = std::uint32_t(e.sortKey);
  if (e.encapsulatedPixels) return header(tag, e.vr, e.declaredLength.value_or(kUndefined)) + e.value;
  if (e.isSequence) {
    std::string content;
    for (const Item& item : e.items) content += encodeItem(item);
    const std::uint32_t length = e.undefinedLength ? kUndefined : std::uint32_t(content.size());
    std::string out = header(tag, "SQ", e.declaredLength.value_or(length)) + content;
    if (e.undefinedLength) out += u16(0xFFFE) + u16(0xE0DD) + u32(0);
    return out;
  }
  return header(tag, e.vr, e.declaredLength.value_or(std::uint32_t(e.value.size()))) + e.value;
}

std::string DicomBuilder::serialize(
    std::vector<std::pair<std::uint32_t, std::pair<std::size_t, std::size_t>>>* offsets) const {
  if (!m_open.empty()) throw std::logic_error("DicomBuilder: a sequence is still open");
  std::string out;
  if (m_preamble) {
    const Element* sopClass = findTopLevel(tagOf(0x0008, 0x0016));
    const Element* sopInstance = findTopLevel(tagOf(0x0008, 0x0018));
    std::string meta;
    meta += metaElement(0x0001, "OB", std::string("\0\1", 2));
    meta += metaElement(0x0002, "UI", sopClass && !sopClass->raw ? sopClass->value : "1.2.840.10008.5.1.4.1.1.2");
    meta += metaElement(0x0003, "UI", sopInstance && !sopInstance->raw ? sopInstance->value : "2.25.1");
    meta += metaElement(0x0010, "UI", m_metaTransferSyntax.value_or(transferSyntaxUid(m_syntax)));
    meta += metaElement(0x0012, "UI", "2.25.31415926535897932384");
    meta += metaElement(0x0013, "SH", "DLT_TEST_BLD");
    out = std::string(128, '\0') + "DICM" + metaElement(0x0000, "UL", le32(std::uint32_t(meta.size()))) + meta;
  }
  for (const Element& e : m_dataset.elements) {
    const std::size_t at = out.size();
    out += encodeElement(e);
    if (offsets) {
      std::size_t headerSize = 0;
      if (!e.raw) headerSize = !explicitVr() ? 8 : (isLongVr(e.vr) || e.isSequence) ? 12 : 8;
      offsets->push_back({std::uint32_t(e.sortKey), {at, at + headerSize}});
    }
  }
  return out;
}

std::string DicomBuilder::bytes() const { return serialize(nullptr); }

std::size_t DicomBuilder::offsetOf(std::uint16_t group, std::uint16_t element) const {
  std::vector<std::pair<std::uint32_t, std::pair<std::size_t, std::size_t>>> offsets;
  serialize(&offsets);
  for (const auto& [tag, at] : offsets)
    if (tag == tagOf(group, element)) return at.first;
  throw std::logic_error("DicomBuilder: no such element");
}

std::size_t DicomBuilder::valueOffsetOf(std::uint16_t group, std::uint16_t element) const {
  std::vector<std::pair<std::uint32_t, std::pair<std::size_t, std::size_t>>> offsets;
  serialize(&offsets);
  for (const auto& [tag, at] : offsets)
    if (tag == tagOf(group, element)) return at.second;
  throw std::logic_error("DicomBuilder: no such element");
}

void DicomBuilder::write(const std::filesystem::path& path) const { writeFileBytes(path, bytes()); }

std::vector<std::int16_t> ctPixels(const CtSliceParams& p) {
  std::vector<std::int16_t> v(std::size_t(p.rows) * std::size_t(p.columns));
  for (int j = 0; j < p.rows; ++j)
    for (int i = 0; i < p.columns; ++i)
      v[std::size_t(j) * std::size_t(p.columns) + std::size_t(i)] =
          std::int16_t(p.pixel ? p.pixel(i, j) : 10 * j + i);
  return v;
}

DicomBuilder makeCtSlice(const CtSliceParams& p) {
  DicomBuilder b(p.syntax);
  const std::string sop = p.sopInstanceUid.empty() ? p.seriesUid + "." + std::to_string(p.instanceNumber)
                                                   : p.sopInstanceUid;
  b.str(0x0008, 0x0008, "CS", "ORIGINAL\\PRIMARY\\AXIAL");
  b.ui(0x0008, 0x0016, "1.2.840.10008.5.1.4.1.1.2");
  b.ui(0x0008, 0x0018, sop);
  b.str(0x0008, 0x0020, "DA", "20240102");
  b.str(0x0008, 0x0060, "CS", "CT");
  b.str(0x0010, 0x0010, "PN", p.patientName);
  b.str(0x0010, 0x0020, "LO", p.patientId);
  b.ds(0x0018, 0x0050, p.sliceThicknessMm);
  b.ui(0x0020, 0x000D, p.studyUid);
  b.ui(0x0020, 0x000E, p.seriesUid);
  b.str(0x0020, 0x0011, "IS", p.seriesNumber);
  b.is(0x0020, 0x0013, p.instanceNumber);
  b.ds(0x0020, 0x0032, formatDs(p.positionLps));
  b.ds(0x0020, 0x0037, formatDs(p.rowDirection) + "\\" + formatDs(p.columnDirection));
  b.ui(0x0020, 0x0052, p.frameOfReferenceUid);
  b.us(0x0028, 0x0002, 1);
  b.str(0x0028, 0x0004, "CS", "MONOCHROME2");
  b.us(0x0028, 0x0010, std::uint16_t(p.rows));
  b.us(0x0028, 0x0011, std::uint16_t(p.columns));
  b.ds(0x0028, 0x0030, formatDs(p.rowSpacingMm) + "\\" + formatDs(p.columnSpacingMm));
  b.us(0x0028, 0x0100, 16);
  b.us(0x0028, 0x0101, 16);
  b.us(0x0028, 0x0102, 15);
  b.us(0x0028, 0x0103, 1);
  b.ds(0x0028, 0x1052, p.rescaleIntercept);
  b.ds(0x0028, 0x1053, p.rescaleSlope);
  b.str(0x0028, 0x1054, "LO", "HU");
  const auto values = ctPixels(p);
  if (p.syntax == TransferSyntax::RleLossless) b.pixelsEncapsulated({rleEncode16(values, p.rows, p.columns)});
  else if (!isEncapsulated(p.syntax)) b.pixelsNative(values);
  return b;
}

std::string rleEncode16(const std::vector<std::int16_t>& values, int rows, int columns) {
  // Segment 1 holds the most significant bytes, segment 2 the least significant ones (PS3.5 G.2).
  auto segment = [&](int shift) {
    std::string s;
    for (int j = 0; j < rows; ++j) {
      for (int i0 = 0; i0 < columns; i0 += 128) {
        const int n = std::min(128, columns - i0);
        s += char(n - 1);  // literal run of n bytes
        for (int i = i0; i < i0 + n; ++i)
          s += char((std::uint16_t(values[std::size_t(j) * std::size_t(columns) + std::size_t(i)]) >> shift) & 0xFF);
      }
    }
    if (s.size() % 2) s += char(0x80);  // -128: a no-op run
    return s;
  };
  const std::string high = segment(8), low = segment(0);
  std::string out = le32(2) + le32(64) + le32(std::uint32_t(64 + high.size()));
  out += std::string(64 - out.size(), '\0');
  return out + high + low;
}

std::string formatDs(double value) {
  char buf[64];
  for (int precision = 12; precision > 0; --precision) {
    std::snprintf(buf, sizeof buf, "%.*g", precision, value);
    if (std::string(buf).size() <= 16) return buf;
  }
  return buf;
}

std::string formatDs(const core::Vec3& v) { return formatDs(v[0]) + "\\" + formatDs(v[1]) + "\\" + formatDs(v[2]); }

std::string readFileBytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path.string());
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void writeFileBytes(const std::filesystem::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), std::streamsize(bytes.size()));
  out.close();
  if (!out) throw std::runtime_error("cannot write " + path.string());
}

}  // namespace delineate::test
