#include "io/volume/metaimage.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <optional>
#include <string_view>
#include <utility>

#include "io/base/atomic_file.h"
#include "io/volume/image_file_internal.h"

namespace delineate::io {
namespace {

using namespace image_file_detail;

constexpr int kMaxDims = 10;  // MetaIO's own limit

struct ElementTypeName {
  const char* name;
  ScalarType type;
};

// MET_LONG and MET_ULONG are 4 bytes in files whatever the platform's long (MetaIO's MET_ValueTypeSize).
constexpr ElementTypeName kElementTypes[] = {
    {"MET_UCHAR", ScalarType::UInt8},       {"MET_CHAR", ScalarType::Int8},
    {"MET_USHORT", ScalarType::UInt16},     {"MET_SHORT", ScalarType::Int16},
    {"MET_UINT", ScalarType::UInt32},       {"MET_INT", ScalarType::Int32},
    {"MET_ULONG", ScalarType::UInt32},      {"MET_LONG", ScalarType::Int32},
    {"MET_ULONG_LONG", ScalarType::UInt64}, {"MET_LONG_LONG", ScalarType::Int64},
    {"MET_FLOAT", ScalarType::Float32},     {"MET_DOUBLE", ScalarType::Float64},
};

struct KeyValue {
  std::string key;  // as written
  std::string value;
  int line = 0;
};

// Synonyms share one slot: MetaIO reads Offset, Origin and Position (and the three matrix names) as one field.
std::string slotOf(const std::string& lowerKey) {
  if (lowerKey == "origin" || lowerKey == "position") return "offset";
  if (lowerKey == "rotation" || lowerKey == "orientation") return "transformmatrix";
  if (lowerKey == "elementbyteordermsb") return "binarydatabyteordermsb";
  return lowerKey;
}

struct HeaderText {
  std::map<std::string, KeyValue> fields;  // by slot
  std::uint64_t dataOffset = 0;            // just past the ElementDataFile line
};

Result<HeaderText> readHeaderText(const InputFile& file, const std::string& path) {
  HeaderLineReader reader(file, path);
  HeaderText h;
  std::string line;
  for (;;) {
    auto more = reader.next(line);
    if (!more) {
      if (reader.lineNumber() == 0)
        return makeError(ErrorCode::ParseError, path, "not a MetaImage file: " + more.error().detail);
      return more.error();
    }
    if (!*more) break;
    const int number = reader.lineNumber();
    const std::string_view text = trim(line);
    if (text.empty() || text.front() == '#') continue;
    const auto eq = text.find('=');
    if (eq == std::string_view::npos) {
      const bool binary = std::any_of(text.begin(), text.end(), [](char c) {
        return (static_cast<unsigned char>(c) < 0x20 && c != '\t') || static_cast<unsigned char>(c) >= 0x7f;
      });
      return makeError(ErrorCode::ParseError, path,
                       (h.fields.empty() ? "not a MetaImage file: " : "") + std::string("expected 'Key = Value', found ") +
                           shown(text) +
                           (binary && !h.fields.empty() ? " (binary data: the header has no 'ElementDataFile' line before it)"
                                                        : ""),
                       number);
    }
    KeyValue kv{std::string(trim(text.substr(0, eq))), std::string(trim(text.substr(eq + 1))), number};
    const std::string slot = slotOf(lowerCase(kv.key));
    const auto previous = h.fields.find(slot);
    if (previous != h.fields.end() && !(previous->second.key != kv.key && previous->second.value == kv.value))
      return makeError(ErrorCode::ParseError, path,
                       "'" + kv.key + "' given twice (line " + std::to_string(previous->second.line) + " too)", number);
    h.fields[slot] = std::move(kv);
    if (slot == "elementdatafile") {
      h.dataOffset = reader.offset();
      return h;
    }
  }
  return makeError(ErrorCode::ParseError, path, "missing required field 'ElementDataFile' (it must end the header)");
}

class Fields {
 public:
  Fields(const HeaderText& h, std::string path) : m_h(h), m_path(std::move(path)) {}

  const KeyValue* get(const char* slot) const {
    const auto it = m_h.fields.find(slot);
    return it == m_h.fields.end() ? nullptr : &it->second;
  }
  Result<const KeyValue*> require(const char* slot, const char* name) const {
    if (const KeyValue* v = get(slot)) return v;
    return makeError(ErrorCode::ParseError, m_path, std::string("missing required field '") + name + "'");
  }
  core::Error error(ErrorCode code, const KeyValue& kv, const std::string& detail) const {
    return makeError(code, m_path, kv.key + ": " + detail, kv.line);
  }
  // Exactly `count` numbers.
  Result<std::vector<double>> numbers(const KeyValue& kv, std::size_t count) const {
    const auto words = splitWords(kv.value);
    if (words.size() != count)
      return error(ErrorCode::ParseError, kv,
                   "expected " + std::to_string(count) + " numbers, found " + std::to_string(words.size()));
    std::vector<double> out;
    for (std::string_view w : words) {
      auto v = parseDouble(w);
      if (!v) return error(ErrorCode::ParseError, kv, shown(w) + " is not a number");
      out.push_back(*v);
    }
    return out;
  }
  static bool isTrue(const KeyValue& kv) {
    const char c = kv.value.empty() ? 'F' : kv.value.front();
    return c == 'T' || c == 't' || c == '1';
  }

 private:
  const HeaderText& m_h;
  std::string m_path;
};

struct Parsed {
  MetaImageHeaderInfo info;
  VoxelSource source;
};

Result<Parsed> parseMetaImage(const std::string& path) {
  auto file = InputFile::open(path);
  if (!file) return file.error();
  auto text = readHeaderText(*file, path);
  if (!text) return text.error();
  const Fields f(*text, path);
  Parsed out;
  MetaImageHeaderInfo& info = out.info;

  if (const KeyValue* o = f.get("objecttype"); o && lowerCase(o->value) != "image")
    return f.error(ErrorCode::Unsupported, *o, "object type " + shown(o->value) + " is not an image");
  auto ndims = f.require("ndims", "NDims");
  if (!ndims) return ndims.error();
  const auto n = parseInt((*ndims)->value);
  if (!n || *n < 1 || *n > kMaxDims)
    return f.error(ErrorCode::ParseError, **ndims,
                   shown((*ndims)->value) + " is not a whole number in 1.." + std::to_string(kMaxDims));
  if (*n < 2) return f.error(ErrorCode::Unsupported, **ndims, "1D images are not supported");
  info.dimensions = static_cast<int>(*n);
  const auto nd = static_cast<std::size_t>(info.dimensions);

  auto dimSize = f.require("dimsize", "DimSize");
  if (!dimSize) return dimSize.error();
  const auto sizeWords = splitWords((*dimSize)->value);
  if (sizeWords.size() != nd)
    return f.error(ErrorCode::ParseError, **dimSize,
                   "expected " + std::to_string(nd) + " sizes, found " + std::to_string(sizeWords.size()));
  for (std::size_t a = 0; a < nd; ++a) {
    const std::string_view w = sizeWords[a];
    const auto s = parseInt(w);
    const bool digits = !w.empty() && std::all_of(w.begin(), w.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
    if (!s && digits) return f.error(ErrorCode::SizeLimit, **dimSize, shown(w) + " does not fit in 64 bits");
    if (!s) return f.error(ErrorCode::ParseError, **dimSize, shown(w) + " is not a whole number");
    if (*s <= 0)
      return f.error(ErrorCode::InvalidGeometry, **dimSize,
                     "axis " + std::to_string(a) + " has size " + std::to_string(*s) + ", must be positive");
    info.dimSize.push_back(*s);
  }
  std::int64_t count = 1;
  for (std::int64_t s : info.dimSize) {
    if (s > Geometry::kMaxVoxels / count) {
      std::string dims;
      for (std::size_t a = 0; a < nd; ++a) dims += (a ? "x" : "") + std::to_string(info.dimSize[a]);
      return f.error(ErrorCode::SizeLimit, **dimSize,
                     "declares " + dims + " voxels, more than the limit of " + std::to_string(Geometry::kMaxVoxels));
    }
    count *= s;
  }
  for (std::size_t a = 3; a < nd; ++a)
    if (info.dimSize[a] != 1)
      return f.error(ErrorCode::Unsupported, **dimSize,
                     "axis " + std::to_string(a) + " has " + std::to_string(info.dimSize[a]) +
                         " samples: images with more than 3 dimensions are not supported");
  if (const KeyValue* c = f.get("elementnumberofchannels")) {
    const auto channels = parseInt(c->value);
    if (!channels || *channels < 1) return f.error(ErrorCode::ParseError, *c, shown(c->value) + " is not a channel count");
    if (*channels != 1)
      return f.error(ErrorCode::Unsupported, *c,
                     std::to_string(*channels) + " channels per voxel: multi-channel images are not supported");
  }

  auto typeField = f.require("elementtype", "ElementType");
  if (!typeField) return typeField.error();
  const std::string typeName = (*typeField)->value;
  const auto type = std::find_if(std::begin(kElementTypes), std::end(kElementTypes),
                                 [&](const ElementTypeName& t) { return typeName == t.name; });
  if (type == std::end(kElementTypes))
    return f.error(typeName.rfind("MET_", 0) == 0 ? ErrorCode::Unsupported : ErrorCode::ParseError, **typeField,
                   "element type " + shown(typeName) + " is not supported");
  info.elementType = typeName;
  info.bytesPerVoxel = scalarBytes(type->type);
  info.dataBytes = count * info.bytesPerVoxel;  // <= 2^36 * 8: no overflow

  if (const KeyValue* b = f.get("binarydata")) info.binary = Fields::isTrue(*b);
  if (const KeyValue* b = f.get("binarydatabyteordermsb")) info.bigEndian = Fields::isTrue(*b);
  if (const KeyValue* c = f.get("compresseddata")) info.compressed = Fields::isTrue(*c);
  if (info.compressed) info.binary = true;  // as MetaIO: compressed data are binary
  if (const KeyValue* c = f.get("compresseddatasize"); c && info.compressed) {
    const auto s = parseInt(c->value);
    if (!s || *s < 0) return f.error(ErrorCode::ParseError, *c, shown(c->value) + " is not a byte count");
    info.compressedDataSize = *s;
  }
  if (const KeyValue* hs = f.get("headersize")) {
    const auto s = parseInt(hs->value);
    if (!s || *s < -1) return f.error(ErrorCode::ParseError, *hs, shown(hs->value) + " is not -1 or a byte count");
    if (*s == -1 && (info.compressed || !info.binary))
      return f.error(ErrorCode::ParseError, *hs, "-1 (data at the end of the file) needs uncompressed binary data");
    info.headerSize = *s;
  }
  if (const KeyValue* a = f.get("anatomicalorientation")) info.anatomicalOrientation = a->value;

  // geometry
  Vec3 spacing{1, 1, 1};
  Vec3 origin{0, 0, 0};
  Mat3 direction = Mat3::identity();
  const std::size_t used = std::min<std::size_t>(nd, 3);
  if (const KeyValue* s = f.get("elementspacing")) {
    auto v = f.numbers(*s, nd);
    if (!v) return v.error();
    for (std::size_t a = 0; a < used; ++a) spacing[a] = (*v)[a];
  }
  if (const KeyValue* o = f.get("offset")) {
    auto v = f.numbers(*o, nd);
    if (!v) return v.error();
    for (std::size_t a = 0; a < used; ++a) origin[a] = (*v)[a];
  }
  if (const KeyValue* m = f.get("transformmatrix")) {
    auto v = f.numbers(*m, nd * nd);
    if (!v) return v.error();
    for (std::size_t i = 0; i < used; ++i)
      for (std::size_t j = 0; j < used; ++j) direction(static_cast<int>(i), static_cast<int>(j)) = (*v)[i + nd * j];
  }
  const core::Size3 dims{info.dimSize[0], info.dimSize[1], nd >= 3 ? info.dimSize[2] : 1};
  if (Status s = Geometry::validate(dims, spacing, origin, direction, path); !s) return s.error();
  info.geometry = Geometry(dims, spacing, origin, direction);

  // where the data are
  auto dataField = f.require("elementdatafile", "ElementDataFile");
  if (!dataField) return dataField.error();
  const std::string& name = (*dataField)->value;
  const auto words = splitWords(name);
  DataPiece piece;
  if (lowerCase(name) == "local") {
    info.local = true;
    info.dataFile = path;
    info.dataOffset = text->dataOffset;
    piece.path = path;
    piece.start = info.headerSize > 0 ? 0 : text->dataOffset;
  } else if (!words.empty() && words[0] == "LIST") {
    return f.error(ErrorCode::Unsupported, **dataField, "LIST data files are not supported");
  } else if (name.find('%') != std::string::npos && words.size() >= 2) {
    return f.error(ErrorCode::Unsupported, **dataField, "numbered data file patterns are not supported");
  } else {
    auto resolved = resolveDataFile(path, name);
    if (!resolved) return resolved.error();
    info.dataFile = *resolved;
    piece.path = *resolved;
    piece.detached = true;
  }
  piece.byteSkip = info.headerSize;  // from `start`: the file start when HeaderSize > 0 (or the end, for -1)
  piece.compressedBytes = info.compressedDataSize;
  if (info.compressed) {
    piece.start += static_cast<std::uint64_t>(info.headerSize);
    piece.byteSkip = 0;
  }
  out.source.subject = path;
  out.source.type = type->type;
  out.source.bigEndian = info.bigEndian;
  out.source.encoding = info.compressed ? Encoding::Zlib : info.binary ? Encoding::Raw : Encoding::Ascii;
  out.source.pieces.push_back(piece);
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// Writing

// ITK's AnatomicalOrientation names the side each axis comes from ("RAI" for an identity direction), the opposite of
// core::Geometry::orientationCode's "to" letters.
std::string itkOrientation(const Geometry& g) {
  std::string code = g.orientationCode();
  for (char& c : code) {
    switch (c) {
      case 'L': c = 'R'; break;
      case 'R': c = 'L'; break;
      case 'P': c = 'A'; break;
      case 'A': c = 'P'; break;
      case 'S': c = 'I'; break;
      case 'I': c = 'S'; break;
      default: break;
    }
  }
  return code;
}

std::string joined(const double* v, std::size_t n) {
  std::string s;
  for (std::size_t i = 0; i < n; ++i) s += (i ? " " : "") + formatDouble(v[i]);
  return s;
}

std::string headerFor(const Geometry& g, ScalarType type, bool compressed, std::size_t compressedSize,
                      const std::string& dataFile) {
  const auto& d = g.dimensions();
  const Mat3& dir = g.direction();
  double columns[9];
  for (int j = 0; j < 3; ++j)
    for (int i = 0; i < 3; ++i) columns[i + 3 * j] = dir(i, j);
  std::string h = "ObjectType = Image\nNDims = 3\nBinaryData = True\nBinaryDataByteOrderMSB = False\n";
  h += std::string("CompressedData = ") + (compressed ? "True" : "False") + "\n";
  if (compressed) h += "CompressedDataSize = " + std::to_string(compressedSize) + "\n";
  h += "TransformMatrix = " + joined(columns, 9) + "\n";
  h += "Offset = " + joined(g.originLps().data(), 3) + "\n";
  h += "CenterOfRotation = 0 0 0\n";
  h += "AnatomicalOrientation = " + itkOrientation(g) + "\n";
  h += "ElementSpacing = " + joined(g.spacingMm().data(), 3) + "\n";
  h += "DimSize = " + std::to_string(d[0]) + " " + std::to_string(d[1]) + " " + std::to_string(d[2]) + "\n";
  h += std::string("ElementType = ") +
       (type == ScalarType::UInt8    ? "MET_UCHAR"
        : type == ScalarType::UInt16 ? "MET_USHORT"
        : type == ScalarType::Int16  ? "MET_SHORT"
        : type == ScalarType::Int32  ? "MET_INT"
                                     : "MET_FLOAT") +
       "\n";
  h += "ElementDataFile = " + dataFile + "\n";
  return h;
}

Status writeMeta(const std::string& path, const Geometry& g, const StoredVoxels& voxels,
                 const MetaImageWriteOptions& options) {
  const bool detached = endsWithNoCase(path, ".mhd");
  if (!detached && !endsWithNoCase(path, ".mha"))
    return makeError(ErrorCode::InvalidArgument, path, "a MetaImage file name must end in .mha or .mhd");
  if (options.compress && (options.compressionLevel < 0 || options.compressionLevel > 12))
    return makeError(ErrorCode::InvalidArgument, path,
                     "compression level " + std::to_string(options.compressionLevel) + " is outside 0..12");
  if (Status s = g.validate(path); !s) return s;
  if (voxels.count != static_cast<std::size_t>(g.voxelCount()))
    return makeError(ErrorCode::InvalidArgument, path, "voxel buffer does not match the geometry");
  auto data = encodeVoxels(voxels, options.compress ? Encoding::Zlib : Encoding::Raw, options.compressionLevel, path);
  if (!data) return data.error();
  if (!detached)
    return writeHeaderAndData(path, headerFor(g, voxels.type, options.compress, data->size, "LOCAL"), *data);
  const std::string name = fileNameOf(path);
  const std::string dataName = name.substr(0, name.size() - 4) + (options.compress ? ".zraw" : ".raw");
  const std::string folder = folderOf(path);
  const std::string dataPath = (folder == "/" ? "" : folder) + "/" + dataName;
  if (Status s = writeFileAtomically(dataPath, data->bytes, data->size); !s) return s;
  return writeHeaderAndData(path, headerFor(g, voxels.type, options.compress, data->size, dataName), EncodedVoxels{});
}

}  // namespace

core::Result<MetaImageHeaderInfo> readMetaImageHeader(const std::string& path) {
  auto parsed = parseMetaImage(path);
  if (!parsed) return parsed.error();
  return std::move(parsed->info);
}

core::Result<core::ImageVolume> readMetaImage(const std::string& path) {
  auto parsed = parseMetaImage(path);
  if (!parsed) return parsed.error();
  return loadImage(parsed->source, parsed->info.geometry);
}

core::Result<core::ScalarImage> readMetaImageTyped(const std::string& path) {
  auto parsed = parseMetaImage(path);
  if (!parsed) return parsed.error();
  return loadImageTyped(parsed->source, parsed->info.geometry);
}

core::Result<core::LabelMap> readMetaImageLabels(const std::string& path) {
  auto parsed = parseMetaImage(path);
  if (!parsed) return parsed.error();
  return loadLabels(parsed->source, parsed->info.geometry);
}

core::Status writeMetaImage(const std::string& path, const core::ImageVolume& image,
                            const MetaImageWriteOptions& options) {
  return writeMeta(path, image.geometry(), imageVoxels(image, options.int16WhenExact), options);
}

core::Status writeMetaImage(const std::string& path, const core::ScalarImage& image, const MetaImageWriteOptions& options) {
  return writeMeta(path, image.geometry(), imageVoxels(image), options);
}

core::Status writeMetaImageLabels(const std::string& path, const core::LabelMap& labels,
                                  const MetaImageWriteOptions& options) {
  return writeMeta(path, labels.geometry(), labelVoxels(labels), options);
}

}  // namespace delineate::io
