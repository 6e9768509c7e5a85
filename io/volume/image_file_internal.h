#pragma once
// Shared by the NRRD (nrrd.cpp) and MetaImage (metaimage.cpp) readers and writers; implemented in
// image_file_internal.cpp. Not part of io's interface: text headers read within limits, voxel types, the rule that
// keeps data files beside their header, inflation capped at the declared size, voxel loading and conversion.
//
// Both formats describe their voxels the same way once parsed: a scalar type, a byte order, an encoding and one or
// more data pieces (files, or the header file itself past its text), each holding an equal share of the voxels in
// file order. loadImage()/loadLabels() do the rest, so every size check happens in one place:
// - Before anything is allocated, each piece is checked against what its file holds: raw data against the file size,
//   compressed data against the most its compressed bytes can inflate to (io::maxInflatedSize), text data against
//   the fewest bytes that many numbers need.
// - Inflation writes at most the declared size; a stream that holds more than declared is Corrupt (a gzip bomb or a
//   header that lies), as is one that holds less.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/error.h"
#include "core/geometry.h"
#include "core/scalar_image.h"
#include "core/label_map.h"
#include "core/volume.h"

namespace delineate::io::image_file_detail {

using core::ErrorCode;
using core::Geometry;
using core::makeError;
using core::Mat3;
using core::Result;
using core::Status;
using core::Vec3;

// Real headers are a few hundred bytes. These bound what a damaged or hostile file can make us read and keep.
constexpr std::size_t kMaxHeaderLineBytes = std::size_t(64) << 10;
constexpr int kMaxHeaderLines = 100000;  // NRRD LIST headers name one data file per line
constexpr int kMaxDataFiles = 100000;

enum class ScalarType { UInt8, Int8, UInt16, Int16, UInt32, Int32, UInt64, Int64, Float32, Float64 };

int scalarBytes(ScalarType type);
const char* scalarName(ScalarType type);  // "int16", "float32", ...

// Calls fn(T{}) with the C++ type of `type`.
template <class Fn>
void visitScalar(ScalarType type, Fn&& fn) {
  switch (type) {
    case ScalarType::UInt8: fn(std::uint8_t{}); break;
    case ScalarType::Int8: fn(std::int8_t{}); break;
    case ScalarType::UInt16: fn(std::uint16_t{}); break;
    case ScalarType::Int16: fn(std::int16_t{}); break;
    case ScalarType::UInt32: fn(std::uint32_t{}); break;
    case ScalarType::Int32: fn(std::int32_t{}); break;
    case ScalarType::UInt64: fn(std::uint64_t{}); break;
    case ScalarType::Int64: fn(std::int64_t{}); break;
    case ScalarType::Float32: fn(float{}); break;
    case ScalarType::Float64: fn(double{}); break;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Files

// A file opened for reading; move-only.
class InputFile {
 public:
  InputFile() = default;
  InputFile(InputFile&& other) noexcept;
  InputFile& operator=(InputFile&& other) noexcept;
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;
  ~InputFile();

  // NotFound when missing, ReadFailed when unreadable or not a regular file; errors name `path`.
  static Result<InputFile> open(const std::string& path, std::string_view what = "image file");

  const std::string& path() const { return m_path; }
  std::uint64_t size() const { return m_size; }
  // Up to n bytes at offset; fewer only at the end of the file.
  Result<std::size_t> readAt(std::uint64_t offset, std::uint8_t* dst, std::size_t n) const;

 private:
  std::string m_path;
  int m_fd = -1;
  std::uint64_t m_size = 0;
};

// Reads the text header at the start of a file one line at a time, refusing lines longer than kMaxHeaderLineBytes
// and headers of more than kMaxHeaderLines lines (ParseError naming `subject` and the line).
class HeaderLineReader {
 public:
  HeaderLineReader(const InputFile& file, std::string subject) : m_file(file), m_subject(std::move(subject)) {}
  // The next line without its '\n' (nor a '\r' before it): true, or false at the end of the file.
  Result<bool> next(std::string& line);
  std::uint64_t offset() const { return m_offset; }  // just past the last line returned
  int lineNumber() const { return m_line; }         // 1-based number of the last line returned

 private:
  const InputFile& m_file;
  std::string m_subject;
  std::vector<std::uint8_t> m_buffer;
  std::size_t m_bufferStart = 0;  // unread bytes are m_buffer[m_bufferStart, end)
  std::uint64_t m_offset = 0;     // file offset of m_buffer[m_bufferStart]
  bool m_eof = false;
  int m_line = 0;
};

// A data file named in a header, resolved against the header's folder. Absolute names and names that lead out of the
// folder (after lexical normalisation, or through symbolic links as weakly_canonical resolves them) are Unsupported:
// a header from a share must not make us read /etc/passwd or a neighbour's files. Errors name the header and `name`.
Result<std::string> resolveDataFile(const std::string& headerPath, const std::string& name);

// ---------------------------------------------------------------------------------------------------------------
// Voxel data

enum class Encoding { Raw, Gzip, Zlib, Ascii };

struct DataPiece {
  std::string path;                   // the data file; the header itself for attached data
  bool detached = false;              // errors then say which data file
  std::uint64_t start = 0;            // where the data (or its skipped lines) begin
  std::int64_t lineSkip = 0;          // text lines to skip from `start` (NRRD "line skip")
  // Raw and text: bytes to skip after the lines, or -1 for "the data are the last bytes of the file" (raw only).
  // Compressed: bytes of decompressed stream to skip (NRRD applies "byte skip" after decompression).
  std::int64_t byteSkip = 0;
  std::int64_t compressedBytes = -1;  // length of the compressed stream (MetaImage CompressedDataSize); -1: to the end
};

struct VoxelSource {
  std::string subject;  // the header file: every error names it
  ScalarType type = ScalarType::UInt8;
  bool bigEndian = false;
  Encoding encoding = Encoding::Raw;
  std::vector<DataPiece> pieces;  // each holds voxelCount / pieces.size() voxels, in file order
};

// float voxels on `geometry` (already validated by the caller). Text data must hold whole numbers for integer types.
Result<core::ImageVolume> loadImage(const VoxelSource& source, const Geometry& geometry);
// The voxels in their stored type where it is one of core::ScalarType's (read in place, no float buffer; int8 widened
// to int16); other types (uint32, 64-bit, float64) as float32, then narrowed to the smallest exact type.
Result<core::ScalarImage> loadImageTyped(const VoxelSource& source, const Geometry& geometry);
// uint16 labels; a value that is not a whole number in 0..65535 is a ParseError naming the file, voxel and value.
Result<core::LabelMap> loadLabels(const VoxelSource& source, const Geometry& geometry);

// zlib (RFC 1950) stream of `size` bytes by libdeflate; `level` 0..12.
Result<std::vector<std::uint8_t>> zlibCompress(const void* data, std::size_t size, int level,
                                               const std::string& subject);

// Inflates a gzip (possibly multi-member) or zlib stream into exactly `size` bytes. Fewer is Corrupt ("truncated"),
// more is Corrupt ("holds more than declared"); at most `size` bytes are ever written. `what` names the data in
// messages ("voxel data", "data file x.raw.gz").
Status inflateExactly(Encoding encoding, const std::uint8_t* in, std::size_t inSize, std::uint8_t* out,
                      std::size_t size, const std::string& subject, const std::string& what);

// ---------------------------------------------------------------------------------------------------------------
// Writing

// The voxels a writer stores: the caller's buffer, or a converted copy it owns.
struct StoredVoxels {
  ScalarType type = ScalarType::Float32;
  const void* data = nullptr;
  std::size_t count = 0;
  std::vector<std::int16_t> int16Copy;
};

// Images are float32; with `int16WhenExact`, int16 when every voxel is a whole number in -32768..32767 (CT in HU),
// which loses nothing and halves the file.
StoredVoxels imageVoxels(const core::ImageVolume& image, bool int16WhenExact);
// A typed image's buffer as it is (not copied).
StoredVoxels imageVoxels(const core::ScalarImage& image);
// The file type of an image type (uint8, int16, uint16, int32, float32 map one to one).
ScalarType storedType(core::ScalarType type);
StoredVoxels labelVoxels(const core::LabelMap& labels);

// The stored bytes, little-endian, compressed when `encoding` is Gzip or Zlib. Raw data on a little-endian host are
// not copied: `bytes` then points into the caller's buffer.
struct EncodedVoxels {
  std::vector<std::uint8_t> owned;
  const std::uint8_t* bytes = nullptr;
  std::size_t size = 0;
};
// `count` elements of `elementSize` bytes as the little-endian bytes every format here stores: `data` itself on a
// little-endian host (nothing copied), else a byte-swapped copy held in `storage`. May throw std::bad_alloc.
const std::uint8_t* littleEndianBytes(const void* data, std::size_t count, std::size_t elementSize,
                                      std::vector<std::uint8_t>& storage);
Result<EncodedVoxels> encodeVoxels(const StoredVoxels& voxels, Encoding encoding, int level,
                                   const std::string& subject);

// header + data into one file, atomically (io/base/atomic_file.h).
Status writeHeaderAndData(const std::string& path, const std::string& header, const EncodedVoxels& data);

// ---------------------------------------------------------------------------------------------------------------
// Text

// %.17g without the locale: a double printed by formatDouble reads back bit-identical through parseDouble.
std::string formatDouble(double v);
std::optional<double> parseDouble(std::string_view s);  // accepts nan/inf; a leading '+' is allowed
std::optional<std::int64_t> parseInt(std::string_view s);
std::string_view trim(std::string_view s);
std::string lowerCase(std::string_view s);
std::vector<std::string_view> splitWords(std::string_view s);  // on spaces and tabs
bool endsWithNoCase(const std::string& s, const std::string& suffix);
std::string shown(std::string_view s);  // a value quoted in an error message, cut at 60 characters

// Folder part of a path ("." for a bare name) and the file name part.
std::string folderOf(const std::string& path);
std::string fileNameOf(const std::string& path);

}  // namespace delineate::io::image_file_detail
