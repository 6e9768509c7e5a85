#include "io/volume/nrrd.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <map>
#include <optional>
#include <string_view>
#include <utility>

#include "io/base/atomic_file.h"
#include "io/base/gzip.h"
#include "io/volume/image_file_internal.h"

namespace delineate::io {
namespace {

using namespace image_file_detail;

constexpr int kMaxDimension = 16;  // NRRD_DIM_MAX
constexpr const char* kSpacingKey = "delineate_spacing";
constexpr const char* kDirectionKey = "delineate_direction";

// ---------------------------------------------------------------------------------------------------------------
// Vocabulary

struct TypeSpelling {
  const char* spelling;
  ScalarType type;
  const char* canonical;
};

// Every spelling teem accepts (nrrdTypeStrEqv), compared after lower-casing and collapsing spaces.
constexpr TypeSpelling kTypes[] = {
    {"signed char", ScalarType::Int8, "int8"},           {"int8", ScalarType::Int8, "int8"},
    {"int8_t", ScalarType::Int8, "int8"},                {"uchar", ScalarType::UInt8, "uint8"},
    {"unsigned char", ScalarType::UInt8, "uint8"},       {"uint8", ScalarType::UInt8, "uint8"},
    {"uint8_t", ScalarType::UInt8, "uint8"},             {"short", ScalarType::Int16, "int16"},
    {"short int", ScalarType::Int16, "int16"},           {"signed short", ScalarType::Int16, "int16"},
    {"signed short int", ScalarType::Int16, "int16"},    {"int16", ScalarType::Int16, "int16"},
    {"int16_t", ScalarType::Int16, "int16"},             {"ushort", ScalarType::UInt16, "uint16"},
    {"unsigned short", ScalarType::UInt16, "uint16"},    {"unsigned short int", ScalarType::UInt16, "uint16"},
    {"uint16", ScalarType::UInt16, "uint16"},            {"uint16_t", ScalarType::UInt16, "uint16"},
    {"int", ScalarType::Int32, "int32"},                 {"signed int", ScalarType::Int32, "int32"},
    {"int32", ScalarType::Int32, "int32"},               {"int32_t", ScalarType::Int32, "int32"},
    {"uint", ScalarType::UInt32, "uint32"},              {"unsigned int", ScalarType::UInt32, "uint32"},
    {"uint32", ScalarType::UInt32, "uint32"},            {"uint32_t", ScalarType::UInt32, "uint32"},
    {"longlong", ScalarType::Int64, "int64"},            {"long long", ScalarType::Int64, "int64"},
    {"long long int", ScalarType::Int64, "int64"},       {"signed long long", ScalarType::Int64, "int64"},
    {"signed long long int", ScalarType::Int64, "int64"}, {"int64", ScalarType::Int64, "int64"},
    {"int64_t", ScalarType::Int64, "int64"},             {"ulonglong", ScalarType::UInt64, "uint64"},
    {"unsigned long long", ScalarType::UInt64, "uint64"}, {"unsigned long long int", ScalarType::UInt64, "uint64"},
    {"uint64", ScalarType::UInt64, "uint64"},            {"uint64_t", ScalarType::UInt64, "uint64"},
    {"float", ScalarType::Float32, "float"},             {"double", ScalarType::Float64, "double"},
};

enum class Field {
  Content, Number, Type, BlockSize, Dimension, Space, SpaceDimension, Sizes, Spacings, Thicknesses, AxisMins,
  AxisMaxs, SpaceDirections, Centers, Kinds, Labels, Units, Min, Max, OldMin, OldMax, Endian, Encoding, LineSkip,
  ByteSkip, SampleUnits, SpaceUnits, SpaceOrigin, MeasurementFrame, DataFile,
};

// Field identifiers without their spaces, as teem compares them.
const std::map<std::string, Field>& fieldNames() {
  static const std::map<std::string, Field> names{
      {"content", Field::Content},         {"number", Field::Number},
      {"type", Field::Type},               {"blocksize", Field::BlockSize},
      {"dimension", Field::Dimension},     {"space", Field::Space},
      {"spacedimension", Field::SpaceDimension}, {"sizes", Field::Sizes},
      {"spacings", Field::Spacings},       {"thicknesses", Field::Thicknesses},
      {"axismins", Field::AxisMins},       {"axismaxs", Field::AxisMaxs},
      {"spacedirections", Field::SpaceDirections}, {"centers", Field::Centers},
      {"centerings", Field::Centers},      {"kinds", Field::Kinds},
      {"labels", Field::Labels},           {"units", Field::Units},
      {"min", Field::Min},                 {"max", Field::Max},
      {"oldmin", Field::OldMin},           {"oldmax", Field::OldMax},
      {"endian", Field::Endian},           {"encoding", Field::Encoding},
      {"lineskip", Field::LineSkip},       {"byteskip", Field::ByteSkip},
      {"sampleunits", Field::SampleUnits}, {"spaceunits", Field::SpaceUnits},
      {"spaceorigin", Field::SpaceOrigin}, {"measurementframe", Field::MeasurementFrame},
      {"datafile", Field::DataFile},
  };
  return names;
}

struct SpaceInfo {
  std::array<double, 3> toLps{1, 1, 1};  // factor per coordinate
  int dimension = 3;                     // coordinates per vector in the file
  bool time = false;                     // a fourth (time) coordinate follows the spatial ones
};

std::optional<SpaceInfo> spaceFromName(const std::string& name) {
  SpaceInfo s;
  std::string n = name;
  const std::string timeSuffix = "-time";
  if (n == "rast" || n == "last" || n == "lpst") {
    s.time = true;
    n.pop_back();
  } else if (n.size() > timeSuffix.size() && n.compare(n.size() - timeSuffix.size(), timeSuffix.size(), timeSuffix) == 0) {
    s.time = true;
    n.resize(n.size() - timeSuffix.size());
  }
  if (s.time) s.dimension = 4;
  if (n == "left-posterior-superior" || n == "lps" || n == "scanner-xyz" || n == "3d-right-handed" ||
      n == "3d-left-handed")
    return s;
  if (n == "right-anterior-superior" || n == "ras") {
    s.toLps = {-1, -1, 1};
    return s;
  }
  if (n == "left-anterior-superior" || n == "las") {
    s.toLps = {1, -1, 1};
    return s;
  }
  return std::nullopt;
}

// ---------------------------------------------------------------------------------------------------------------
// Header text

struct FieldValue {
  std::string value;
  int line = 0;
};

struct HeaderText {
  int version = 0;
  std::map<Field, FieldValue> fields;
  std::map<std::string, FieldValue> hints;  // our own key/value pairs
  std::vector<FieldValue> listedFiles;      // after "data file: LIST"
  bool blankLineEnd = false;                // the header ended with a blank line (attached data may follow)
  std::uint64_t dataOffset = 0;
};

std::string fieldKey(std::string_view name) {
  std::string key;
  for (char c : name)
    if (c != ' ' && c != '\t') key += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return key;
}

Result<HeaderText> readHeaderText(const InputFile& file, const std::string& path) {
  HeaderLineReader reader(file, path);
  std::string line;
  auto first = reader.next(line);
  if (!first || !*first || line.rfind("NRRD", 0) != 0)
    return makeError(ErrorCode::ParseError, path, "not a NRRD file: the first line must be the magic NRRD000X");
  HeaderText h;
  if (line == "NRRD00.01") {
    h.version = 1;
  } else if (line.size() == 8 && line.compare(0, 7, "NRRD000") == 0 && line[7] >= '1' && line[7] <= '5') {
    h.version = line[7] - '0';
  } else {
    return makeError(ErrorCode::Unsupported, path, "unknown NRRD version " + shown(line) + " (NRRD0001..NRRD0005 are read)", 1);
  }
  bool listing = false;
  for (;;) {
    auto more = reader.next(line);
    if (!more) return more.error();
    if (!*more) break;
    const int number = reader.lineNumber();
    if (line.empty()) {
      h.blankLineEnd = true;
      break;
    }
    if (listing) {
      h.listedFiles.push_back({std::string(trim(line)), number});
      continue;
    }
    if (line[0] == '#') continue;
    const auto colon = line.find(':');
    if (colon == std::string::npos)
      return makeError(ErrorCode::ParseError, path, "expected 'field: value', found " + shown(line), number);
    if (colon + 1 < line.size() && line[colon + 1] == '=') {
      const std::string key(trim(std::string_view(line).substr(0, colon)));
      if (key == kSpacingKey || key == kDirectionKey)
        h.hints[key] = {std::string(trim(std::string_view(line).substr(colon + 2))), number};
      continue;
    }
    const auto name = fieldNames().find(fieldKey(std::string_view(line).substr(0, colon)));
    if (name == fieldNames().end())
      return makeError(ErrorCode::ParseError, path,
                       "unknown field " + shown(trim(std::string_view(line).substr(0, colon))), number);
    if (h.fields.count(name->second))
      return makeError(ErrorCode::ParseError, path,
                       "field " + shown(trim(std::string_view(line).substr(0, colon))) + " appears twice", number);
    FieldValue v{std::string(trim(std::string_view(line).substr(colon + 1))), number};
    if (name->second == Field::DataFile) {
      const auto words = splitWords(v.value);
      listing = !words.empty() && (words[0] == "LIST" || words[0] == "SKIPLIST");
    }
    h.fields[name->second] = std::move(v);
  }
  h.dataOffset = reader.offset();
  return h;
}

// ---------------------------------------------------------------------------------------------------------------
// Field values

class Parser {
 public:
  Parser(const HeaderText& h, std::string path) : m_h(h), m_path(std::move(path)) {}

  const FieldValue* get(Field f) const {
    const auto it = m_h.fields.find(f);
    return it == m_h.fields.end() ? nullptr : &it->second;
  }
  Result<const FieldValue*> require(Field f, const char* name) const {
    if (const FieldValue* v = get(f)) return v;
    return makeError(ErrorCode::ParseError, m_path, std::string("missing required field '") + name + "'");
  }
  core::Error error(ErrorCode code, const FieldValue& v, const std::string& detail) const {
    return makeError(code, m_path, detail, v.line);
  }

  // Whitespace-separated words, exactly `count` of them.
  Result<std::vector<std::string_view>> words(const FieldValue& v, const char* name, int count) const {
    auto w = splitWords(v.value);
    if (static_cast<int>(w.size()) != count)
      return error(ErrorCode::ParseError, v,
                   std::string(name) + ": expected " + std::to_string(count) + " values (one per axis), found " +
                       std::to_string(w.size()));
    return w;
  }

  // "(x,y,z)" vectors or "none", exactly `count` of them with `components` numbers each.
  Result<std::vector<std::optional<std::vector<double>>>> vectors(const FieldValue& v, const char* name, int count,
                                                                  int components) const {
    std::vector<std::optional<std::vector<double>>> out;
    std::string_view s = v.value;
    for (;;) {
      s = trim(s);
      if (s.empty()) break;
      if (s.size() >= 4 && lowerCase(s.substr(0, 4)) == "none") {
        out.emplace_back(std::nullopt);
        s.remove_prefix(4);
        continue;
      }
      const auto close = s.find(')');
      if (s.front() != '(' || close == std::string_view::npos)
        return error(ErrorCode::ParseError, v, std::string(name) + ": expected '(x,y,z)' or 'none', found " + shown(s));
      std::vector<double> numbers;
      std::string_view inner = s.substr(1, close - 1);
      for (;;) {
        const auto comma = inner.find(',');
        auto n = parseDouble(inner.substr(0, comma));
        if (!n)
          return error(ErrorCode::ParseError, v,
                       std::string(name) + ": " + shown(trim(inner.substr(0, comma))) + " is not a number");
        numbers.push_back(*n);
        if (comma == std::string_view::npos) break;
        inner.remove_prefix(comma + 1);
      }
      if (static_cast<int>(numbers.size()) != components)
        return error(ErrorCode::ParseError, v,
                     std::string(name) + ": a vector has " + std::to_string(numbers.size()) + " coordinates, the space " +
                         std::to_string(components));
      out.emplace_back(std::move(numbers));
      s.remove_prefix(close + 1);
    }
    if (static_cast<int>(out.size()) != count)
      return error(ErrorCode::ParseError, v,
                   std::string(name) + ": expected " + std::to_string(count) + " vectors, found " +
                       std::to_string(out.size()));
    return out;
  }

 private:
  const HeaderText& m_h;
  std::string m_path;
};

Vec3 cross(const Vec3& a, const Vec3& b) {
  return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}

double norm(const Vec3& v) { return std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]); }

// Our own exact spacing and direction, used only when they reproduce the space directions bit for bit.
void applyHints(const HeaderText& h, const std::array<Vec3, 3>& columns, Vec3& spacing, Mat3& direction) {
  const auto sp = h.hints.find(kSpacingKey);
  const auto dir = h.hints.find(kDirectionKey);
  if (sp == h.hints.end() || dir == h.hints.end()) return;
  const auto spWords = splitWords(sp->second.value);
  const auto dirWords = splitWords(dir->second.value);
  if (spWords.size() != 3 || dirWords.size() != 9) return;
  Vec3 s{};
  Mat3 d;
  for (std::size_t i = 0; i < 3; ++i) {
    auto v = parseDouble(spWords[i]);
    if (!v) return;
    s[i] = *v;
  }
  for (std::size_t i = 0; i < 9; ++i) {
    auto v = parseDouble(dirWords[i]);
    if (!v) return;
    d.m[i] = *v;
  }
  for (int c = 0; c < 3; ++c)
    for (int r = 0; r < 3; ++r)
      if (d(r, c) * s[static_cast<std::size_t>(c)] != columns[static_cast<std::size_t>(c)][static_cast<std::size_t>(r)]) return;
  spacing = s;
  direction = d;
}

// Replaces the first %d (with optional 0 flag and width) of a teem data file pattern by n.
std::string formatNumbered(const std::string& pattern, std::int64_t n) {
  std::string out;
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] != '%') {
      out += pattern[i];
      continue;
    }
    if (i + 1 < pattern.size() && pattern[i + 1] == '%') {
      out += '%';
      ++i;
      continue;
    }
    std::size_t j = i + 1;
    const bool zero = j < pattern.size() && pattern[j] == '0';
    std::size_t width = 0;
    while (j < pattern.size() && std::isdigit(static_cast<unsigned char>(pattern[j])))
      width = width * 10 + static_cast<std::size_t>(pattern[j++] - '0');
    std::string digits = std::to_string(n < 0 ? -n : n);
    const std::size_t sign = n < 0 ? 1 : 0;
    if (digits.size() + sign < width) digits.insert(0, width - digits.size() - sign, zero ? '0' : ' ');
    out += (n < 0 ? "-" : "") + digits;
    i = j;  // the 'd'
  }
  return out;
}

// True when `s` holds exactly one %d conversion (with an optional 0 flag and width) and otherwise only %%.
bool isNumberedPattern(const std::string& s, bool& malformed) {
  int conversions = 0;
  malformed = false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '%') continue;
    if (i + 1 < s.size() && s[i + 1] == '%') {
      ++i;
      continue;
    }
    std::size_t j = i + 1;
    while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j])) && j - i <= 3) ++j;
    if (j < s.size() && s[j] == 'd') {
      ++conversions;
      i = j;
    } else {
      malformed = true;
    }
  }
  if (conversions > 1) malformed = true;
  return conversions >= 1;
}

struct Parsed {
  NrrdHeaderInfo info;
  VoxelSource source;
};

Result<std::vector<std::string>> dataFileNames(const Parser& p, const HeaderText& h, const FieldValue& v,
                                               const std::vector<std::int64_t>& sizes, const std::string& path) {
  const int dim = static_cast<int>(sizes.size());
  const auto words = splitWords(v.value);
  std::vector<std::string> names;
  int subdim = dim;  // a single file holds everything
  auto parseSubdim = [&](std::string_view word) -> Status {
    auto n = parseInt(word);
    if (!n || *n < 1 || *n > dim)
      return p.error(ErrorCode::ParseError, v,
                     "data file: the data file dimension " + shown(word) + " is outside 1.." + std::to_string(dim));
    subdim = static_cast<int>(*n);
    return Status::success();
  };
  bool malformed = false;
  if (!words.empty() && words[0] == "SKIPLIST") {
    return p.error(ErrorCode::Unsupported, v, "data file: SKIPLIST is not supported");
  } else if (!words.empty() && words[0] == "LIST") {
    subdim = dim - 1;
    if (words.size() > 2) return p.error(ErrorCode::ParseError, v, "data file: expected 'LIST [dimension]'");
    if (words.size() == 2)
      if (Status s = parseSubdim(words[1]); !s) return s.error();
    for (const FieldValue& f : h.listedFiles) names.push_back(f.value);
    if (names.empty()) return p.error(ErrorCode::ParseError, v, "data file: LIST names no files");
  } else if (!words.empty() && isNumberedPattern(std::string(words[0]), malformed)) {
    if (malformed)
      return p.error(ErrorCode::ParseError, v, "data file: " + shown(words[0]) + " must hold exactly one %d");
    if (words.size() < 4 || words.size() > 5)
      return p.error(ErrorCode::ParseError, v, "data file: expected 'FORMAT MIN MAX STEP [dimension]'");
    auto lo = parseInt(words[1]), hi = parseInt(words[2]), step = parseInt(words[3]);
    if (!lo || !hi || !step || std::abs(*lo) > (1 << 30) || std::abs(*hi) > (1 << 30) || std::abs(*step) > (1 << 30))
      return p.error(ErrorCode::ParseError, v, "data file: MIN MAX STEP must be whole numbers");
    if (*step == 0) return p.error(ErrorCode::ParseError, v, "data file: the file number step must not be 0");
    if ((*hi - *lo) * *step < 0)
      return p.error(ErrorCode::ParseError, v, "data file: MAX is not reached from MIN by STEP");
    subdim = dim - 1;
    if (words.size() == 5)
      if (Status s = parseSubdim(words[4]); !s) return s.error();
    const std::int64_t count = (*hi - *lo) / *step + 1;
    if (count > kMaxDataFiles)
      return p.error(ErrorCode::SizeLimit, v,
                     "data file: " + std::to_string(count) + " data files, more than the limit of " +
                         std::to_string(kMaxDataFiles));
    for (std::int64_t i = 0; i < count; ++i) names.push_back(formatNumbered(std::string(words[0]), *lo + i * *step));
  } else {
    names.push_back(v.value);
  }
  if (names.size() > 1 || subdim < dim) {
    if (subdim < dim) {
      std::int64_t pieces = 1;
      for (int a = subdim; a < dim; ++a) pieces *= sizes[static_cast<std::size_t>(a)];  // <= voxel count: no overflow
      if (pieces != static_cast<std::int64_t>(names.size()))
        return p.error(ErrorCode::ParseError, v,
                       "data file: expected " + std::to_string(pieces) + " data files of " + std::to_string(subdim) +
                           "-D pieces, found " + std::to_string(names.size()));
    } else if (sizes.back() % static_cast<std::int64_t>(names.size()) != 0) {
      return p.error(ErrorCode::ParseError, v,
                     "data file: " + std::to_string(names.size()) + " data files do not divide the " +
                         std::to_string(sizes.back()) + " slices of the last axis");
    }
  }
  std::vector<std::string> resolved;
  for (const std::string& name : names) {
    auto r = resolveDataFile(path, name);
    if (!r) return r.error();
    resolved.push_back(std::move(r).value());
  }
  return resolved;
}

Result<Parsed> parseNrrd(const std::string& path) {
  auto file = InputFile::open(path);
  if (!file) return file.error();
  auto text = readHeaderText(*file, path);
  if (!text) return text.error();
  const HeaderText& h = *text;
  const Parser p(h, path);
  Parsed out;
  NrrdHeaderInfo& info = out.info;
  info.version = h.version;

  // dimension, sizes and the voxel count before anything else depends on them
  auto dimField = p.require(Field::Dimension, "dimension");
  if (!dimField) return dimField.error();
  const auto dim = parseInt((*dimField)->value);
  if (!dim || *dim < 1 || *dim > kMaxDimension)
    return p.error(ErrorCode::ParseError, **dimField,
                   "dimension " + shown((*dimField)->value) + " is not a whole number in 1.." +
                       std::to_string(kMaxDimension));
  info.dimension = static_cast<int>(*dim);
  auto sizesField = p.require(Field::Sizes, "sizes");
  if (!sizesField) return sizesField.error();
  auto sizeWords = p.words(**sizesField, "sizes", info.dimension);
  if (!sizeWords) return sizeWords.error();
  for (std::size_t a = 0; a < sizeWords->size(); ++a) {
    const std::string_view w = (*sizeWords)[a];
    const auto n = parseInt(w);
    const bool digits = !w.empty() && std::all_of(w.begin(), w.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
    if (!n && digits)
      return p.error(ErrorCode::SizeLimit, **sizesField, "sizes: " + shown(w) + " does not fit in 64 bits");
    if (!n) return p.error(ErrorCode::ParseError, **sizesField, "sizes: " + shown(w) + " is not a whole number");
    if (*n <= 0)
      return p.error(ErrorCode::InvalidGeometry, **sizesField,
                     "sizes: axis " + std::to_string(a) + " has size " + std::to_string(*n) + ", must be positive");
    info.sizes.push_back(*n);
  }
  std::int64_t count = 1;
  for (std::int64_t s : info.sizes) {
    if (s > Geometry::kMaxVoxels / count) {
      std::string dims;
      for (std::size_t a = 0; a < info.sizes.size(); ++a) dims += (a ? "x" : "") + std::to_string(info.sizes[a]);
      return p.error(ErrorCode::SizeLimit, **sizesField,
                     "declares " + dims + " voxels, more than the limit of " + std::to_string(Geometry::kMaxVoxels));
    }
    count *= s;
  }

  // type, encoding, byte order
  auto typeField = p.require(Field::Type, "type");
  if (!typeField) return typeField.error();
  std::string typeName;
  const std::string typeLower = lowerCase((*typeField)->value);
  for (std::string_view w : splitWords(typeLower)) typeName += (typeName.empty() ? "" : " ") + std::string(w);
  const auto spelling = std::find_if(std::begin(kTypes), std::end(kTypes),
                                     [&](const TypeSpelling& t) { return typeName == t.spelling; });
  if (typeName == "block") return p.error(ErrorCode::Unsupported, **typeField, "type 'block' is not supported");
  if (spelling == std::end(kTypes))
    return p.error(ErrorCode::ParseError, **typeField, "unknown type " + shown((*typeField)->value));
  info.type = spelling->canonical;
  info.bytesPerVoxel = scalarBytes(spelling->type);
  info.dataBytes = count * info.bytesPerVoxel;  // <= 2^36 * 8: no overflow
  out.source.type = spelling->type;

  auto encField = p.require(Field::Encoding, "encoding");
  if (!encField) return encField.error();
  const std::string enc = lowerCase((*encField)->value);
  if (enc == "raw") {
    info.encoding = NrrdEncoding::Raw;
    out.source.encoding = Encoding::Raw;
  } else if (enc == "gzip" || enc == "gz") {
    info.encoding = NrrdEncoding::Gzip;
    out.source.encoding = Encoding::Gzip;
  } else if (enc == "ascii" || enc == "text" || enc == "txt") {
    info.encoding = NrrdEncoding::Ascii;
    out.source.encoding = Encoding::Ascii;
  } else if (enc == "bzip2" || enc == "bz2") {
    return p.error(ErrorCode::Unsupported, **encField, "bzip2 encoding is not supported (gzip and raw are)");
  } else if (enc == "hex" || enc == "zrl") {
    return p.error(ErrorCode::Unsupported, **encField, "encoding '" + enc + "' is not supported (raw, gzip and ascii are)");
  } else {
    return p.error(ErrorCode::ParseError, **encField, "unknown encoding " + shown((*encField)->value));
  }
  if (const FieldValue* e = p.get(Field::Endian)) {
    const std::string endian = lowerCase(e->value);
    if (endian != "little" && endian != "big")
      return p.error(ErrorCode::ParseError, *e, "endian must be 'little' or 'big', found " + shown(e->value));
    info.bigEndian = endian == "big";
  } else if (info.bytesPerVoxel > 1 && info.encoding != NrrdEncoding::Ascii) {
    return makeError(ErrorCode::ParseError, path, "missing required field 'endian' (the data are " + info.type + ")");
  }
  out.source.bigEndian = info.bigEndian;

  // axes: which are spatial
  if (const FieldValue* k = p.get(Field::Kinds)) {
    auto w = p.words(*k, "kinds", info.dimension);
    if (!w) return w.error();
    for (std::string_view kind : *w) info.kinds.push_back(lowerCase(kind));
  }
  SpaceInfo space;
  bool haveSpace = false;
  if (const FieldValue* s = p.get(Field::Space)) {
    info.space = lowerCase(s->value);
    auto known = spaceFromName(info.space);
    if (!known) return p.error(ErrorCode::ParseError, *s, "unknown space " + shown(s->value));
    space = *known;
    haveSpace = true;
  }
  if (const FieldValue* s = p.get(Field::SpaceDimension)) {
    const auto n = parseInt(s->value);
    if (!n) return p.error(ErrorCode::ParseError, *s, "space dimension " + shown(s->value) + " is not a whole number");
    if (haveSpace && *n != space.dimension)
      return p.error(ErrorCode::ParseError, *s, "space dimension " + std::to_string(*n) + " contradicts the space");
    if (*n < 2 || *n > 3)
      return p.error(ErrorCode::Unsupported, *s, "space dimension " + std::to_string(*n) + " is not supported (2 or 3 are)");
    space.dimension = static_cast<int>(*n);
    haveSpace = true;
  }
  std::vector<std::optional<std::vector<double>>> directions;
  const FieldValue* dirField = p.get(Field::SpaceDirections);
  if (dirField) {
    if (!haveSpace)
      return p.error(ErrorCode::ParseError, *dirField, "space directions need a 'space' or 'space dimension' field");
    auto v = p.vectors(*dirField, "space directions", info.dimension, space.dimension);
    if (!v) return v.error();
    directions = std::move(v).value();
  }
  std::vector<int> spatial;
  for (int a = 0; a < info.dimension; ++a) {
    bool isSpatial = true;
    if (dirField) {
      isSpatial = directions[static_cast<std::size_t>(a)].has_value();
    } else if (!info.kinds.empty()) {
      const std::string& kind = info.kinds[static_cast<std::size_t>(a)];
      isSpatial = kind == "domain" || kind == "space" || kind == "???" || kind == "none";
    }
    if (isSpatial) {
      spatial.push_back(a);
      continue;
    }
    const std::int64_t size = info.sizes[static_cast<std::size_t>(a)];
    if (size != 1) {
      const std::string kind = info.kinds.empty() ? "" : " (kind '" + info.kinds[static_cast<std::size_t>(a)] + "')";
      const bool time = !info.kinds.empty() && info.kinds[static_cast<std::size_t>(a)] == "time";
      return makeError(ErrorCode::Unsupported, path,
                       "axis " + std::to_string(a) + kind + " holds " + std::to_string(size) +
                           (time ? " time points: 4D images are not supported"
                                 : " values per voxel: multi-component images (vectors, colours, segment lists) are "
                                   "not supported"));
    }
  }
  if (spatial.size() < 2 || spatial.size() > 3)
    return makeError(ErrorCode::Unsupported, path,
                     std::to_string(spatial.size()) + " spatial axes: only 2D and 3D images are supported");

  // geometry
  Vec3 spacing{1, 1, 1};
  Vec3 origin{0, 0, 0};
  Mat3 direction = Mat3::identity();
  std::array<Vec3, 3> columns{};  // spacing x direction per spatial axis, in LPS
  if (const FieldValue* o = p.get(Field::SpaceOrigin)) {
    if (!haveSpace) return p.error(ErrorCode::ParseError, *o, "space origin needs a 'space' or 'space dimension' field");
    auto v = p.vectors(*o, "space origin", 1, space.dimension);
    if (!v) return v.error();
    if (!(*v)[0]) return p.error(ErrorCode::ParseError, *o, "space origin is 'none'");
    for (std::size_t r = 0; r < 3 && r < (*v)[0]->size() && static_cast<int>(r) < space.dimension - (space.time ? 1 : 0); ++r)
      origin[r] = (*(*v)[0])[r] * space.toLps[r];
  }
  std::vector<double> spacings;
  if (const FieldValue* s = p.get(Field::Spacings)) {
    auto w = p.words(*s, "spacings", info.dimension);
    if (!w) return w.error();
    for (std::string_view word : *w) {
      auto n = parseDouble(word);
      if (!n) return p.error(ErrorCode::ParseError, *s, "spacings: " + shown(word) + " is not a number");
      spacings.push_back(*n);
    }
  }
  for (std::size_t k = 0; k < spatial.size(); ++k) {
    const auto a = static_cast<std::size_t>(spatial[k]);
    Vec3 col{0, 0, 0};
    if (dirField) {
      const std::vector<double>& v = *directions[a];
      if (space.time && v[3] != 0)
        return p.error(ErrorCode::Unsupported, *dirField,
                       "space directions: spatial axis " + std::to_string(a) + " moves in time");
      for (std::size_t r = 0; r < 3; ++r)
        col[r] = static_cast<int>(r) < space.dimension - (space.time ? 1 : 0) ? v[r] * space.toLps[r] : 0.0;
    } else {
      col[k] = (spacings.empty() ? 1.0 : spacings[a]) * space.toLps[k];
    }
    columns[k] = col;
    const double n = norm(col);
    spacing[k] = dirField ? n : (spacings.empty() ? 1.0 : spacings[a]);
    for (std::size_t r = 0; r < 3; ++r)
      direction(static_cast<int>(r), static_cast<int>(k)) =
          dirField ? (std::isfinite(n) && n > 0 ? col[r] / n : col[r]) : (r == k ? space.toLps[r] : 0.0);
  }
  if (spatial.size() == 2) {
    Vec3 normal = cross({direction(0, 0), direction(1, 0), direction(2, 0)}, {direction(0, 1), direction(1, 1), direction(2, 1)});
    const double n = norm(normal);
    for (std::size_t r = 0; r < 3; ++r) direction(static_cast<int>(r), 2) = n > 0 ? normal[r] / n : (r == 2 ? 1.0 : 0.0);
    spacing[2] = 1;
  } else if (dirField) {
    applyHints(h, columns, spacing, direction);
  }
  const core::Size3 dims{info.sizes[static_cast<std::size_t>(spatial[0])], info.sizes[static_cast<std::size_t>(spatial[1])],
                         spatial.size() == 3 ? info.sizes[static_cast<std::size_t>(spatial[2])] : 1};
  if (Status s = Geometry::validate(dims, spacing, origin, direction, path); !s) return s.error();
  info.geometry = Geometry(dims, spacing, origin, direction);

  // where the data are
  if (const FieldValue* s = p.get(Field::LineSkip)) {
    const auto n = parseInt(s->value);
    if (!n || *n < 0) return p.error(ErrorCode::ParseError, *s, "line skip " + shown(s->value) + " is not a count of lines");
    info.lineSkip = *n;
  }
  if (const FieldValue* s = p.get(Field::ByteSkip)) {
    const auto n = parseInt(s->value);
    if (!n || *n < -1 || *n > (std::int64_t(1) << 40))
      return p.error(ErrorCode::ParseError, *s, "byte skip " + shown(s->value) + " is not -1 or a count of bytes");
    if (*n == -1 && info.encoding != NrrdEncoding::Raw)
      return p.error(ErrorCode::ParseError, *s, "byte skip -1 is only valid with raw encoding");
    info.byteSkip = *n;
  }
  info.dataOffset = h.dataOffset;
  out.source.subject = path;
  if (const FieldValue* d = p.get(Field::DataFile)) {
    auto names = dataFileNames(p, h, *d, info.sizes, path);
    if (!names) return names.error();
    info.dataFiles = std::move(names).value();
    for (const std::string& f : info.dataFiles) {
      DataPiece piece;
      piece.path = f;
      piece.detached = true;
      piece.lineSkip = info.lineSkip;
      piece.byteSkip = info.byteSkip;
      out.source.pieces.push_back(piece);
    }
  } else {
    if (!h.blankLineEnd)
      return makeError(ErrorCode::Corrupt, path,
                       "no voxel data: the header names no data file and no blank line ends it before attached data");
    DataPiece piece;
    piece.path = path;
    piece.start = h.dataOffset;
    piece.lineSkip = info.lineSkip;
    piece.byteSkip = info.byteSkip;
    out.source.pieces.push_back(piece);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// Writing

std::string vectorText(const Vec3& v) {
  return "(" + formatDouble(v[0]) + "," + formatDouble(v[1]) + "," + formatDouble(v[2]) + ")";
}

std::string headerFor(const Geometry& g, ScalarType type, bool gzip, const std::string& dataFile) {
  const auto& d = g.dimensions();
  const auto& s = g.spacingMm();
  const Mat3& dir = g.direction();
  std::string h = "NRRD0004\n# Complete NRRD file format specification at:\n# http://teem.sourceforge.net/nrrd/format.html\n";
  h += std::string("type: ") +
       (type == ScalarType::UInt8    ? "unsigned char"
        : type == ScalarType::UInt16 ? "unsigned short"
        : type == ScalarType::Int16  ? "short"
        : type == ScalarType::Int32  ? "int"
                                     : "float") +
       "\n";
  h += "dimension: 3\nspace: left-posterior-superior\n";
  h += "sizes: " + std::to_string(d[0]) + " " + std::to_string(d[1]) + " " + std::to_string(d[2]) + "\n";
  h += "space directions:";
  for (int c = 0; c < 3; ++c) {
    const double sc = s[static_cast<std::size_t>(c)];
    h += " " + vectorText({dir(0, c) * sc, dir(1, c) * sc, dir(2, c) * sc});
  }
  h += "\nkinds: domain domain domain\nendian: little\n";
  h += std::string("encoding: ") + (gzip ? "gzip" : "raw") + "\n";
  h += "space origin: " + vectorText(g.originLps()) + "\n";
  h += std::string(kSpacingKey) + ":=" + formatDouble(s[0]) + " " + formatDouble(s[1]) + " " + formatDouble(s[2]) + "\n";
  h += std::string(kDirectionKey) + ":=";
  for (std::size_t i = 0; i < 9; ++i) h += (i ? " " : "") + formatDouble(dir.m[i]);
  h += "\n";
  if (!dataFile.empty()) h += "data file: " + dataFile + "\n";
  h += "\n";
  return h;
}

// What every NRRD write checks before a byte is written: the name, the gzip level, the geometry.
Status checkNrrdWrite(const std::string& path, const Geometry& g, const NrrdWriteOptions& options) {
  if (!endsWithNoCase(path, ".nhdr") && !endsWithNoCase(path, ".nrrd"))
    return makeError(ErrorCode::InvalidArgument, path, "a NRRD file name must end in .nrrd or .nhdr");
  if (options.gzip)
    if (Status s = checkGzipLevel(options.gzipLevel, path); !s) return s;
  return g.validate(path);
}

Status writeNrrd(const std::string& path, const Geometry& g, const StoredVoxels& voxels, const NrrdWriteOptions& options) {
  const bool detached = endsWithNoCase(path, ".nhdr");
  if (Status s = checkNrrdWrite(path, g, options); !s) return s;
  if (voxels.count != static_cast<std::size_t>(g.voxelCount()))
    return makeError(ErrorCode::InvalidArgument, path, "voxel buffer does not match the geometry");
  auto data = encodeVoxels(voxels, options.gzip ? Encoding::Gzip : Encoding::Raw, options.gzipLevel, path);
  if (!data) return data.error();
  if (!detached) return writeHeaderAndData(path, headerFor(g, voxels.type, options.gzip, ""), *data);
  const std::string stem = fileNameOf(path).substr(0, fileNameOf(path).size() - 5);
  const std::string dataName = stem + (options.gzip ? ".raw.gz" : ".raw");
  const std::string folder = folderOf(path);
  const std::string dataPath = (folder == "/" ? "" : folder) + "/" + dataName;
  if (Status s = writeFileAtomically(dataPath, data->bytes, data->size); !s) return s;
  return writeHeaderAndData(path, headerFor(g, voxels.type, options.gzip, dataName), EncodedVoxels{});
}

}  // namespace

core::Result<std::string> nrrdImageHeader(const std::string& path, const core::Geometry& geometry, core::ScalarType type,
                                          const NrrdWriteOptions& options) {
  if (endsWithNoCase(path, ".nhdr"))
    return makeError(ErrorCode::Unsupported, path, "a detached NRRD header's data file is written whole, not streamed");
  if (Status s = checkNrrdWrite(path, geometry, options); !s) return s.error();
  return headerFor(geometry, storedType(type), options.gzip, "");
}

core::Result<NrrdHeaderInfo> readNrrdHeader(const std::string& path) {
  auto parsed = parseNrrd(path);
  if (!parsed) return parsed.error();
  return std::move(parsed->info);
}

core::Result<core::ImageVolume> readNrrdImage(const std::string& path) {
  auto parsed = parseNrrd(path);
  if (!parsed) return parsed.error();
  return loadImage(parsed->source, parsed->info.geometry);
}

core::Result<core::ScalarImage> readNrrdImageTyped(const std::string& path) {
  auto parsed = parseNrrd(path);
  if (!parsed) return parsed.error();
  return loadImageTyped(parsed->source, parsed->info.geometry);
}

core::Result<core::LabelMap> readNrrdLabels(const std::string& path) {
  auto parsed = parseNrrd(path);
  if (!parsed) return parsed.error();
  return loadLabels(parsed->source, parsed->info.geometry);
}

core::Status writeNrrdImage(const std::string& path, const core::ImageVolume& image, const NrrdWriteOptions& options) {
  return writeNrrd(path, image.geometry(), imageVoxels(image, options.int16WhenExact), options);
}

core::Status writeNrrdImage(const std::string& path, const core::ScalarImage& image, const NrrdWriteOptions& options) {
  return writeNrrd(path, image.geometry(), imageVoxels(image), options);
}

core::Status writeNrrdLabels(const std::string& path, const core::LabelMap& labels, const NrrdWriteOptions& options) {
  return writeNrrd(path, labels.geometry(), labelVoxels(labels), options);
}

}  // namespace delineate::io
