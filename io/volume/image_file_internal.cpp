#include "io/volume/image_file_internal.h"

#include <fcntl.h>
#include <libdeflate.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>
#include <memory>
#include <new>
#include <type_traits>

#include "io/base/atomic_file.h"
#include "io/base/gzip.h"
#include "io/base/regular_file.h"
#include "io/volume/image_file.h"
#include "io/volume/nifti_internal.h"

namespace delineate::io::image_file_detail {
namespace {

namespace fs = std::filesystem;
using nifti_detail::byteSwapped;
using nifti_detail::hostIsLittleEndian;

constexpr std::size_t kReadChunk = std::size_t(64) << 10;
// zlib counts in 32-bit uInt; larger buffers go through in pieces.
constexpr std::size_t kZlibChunk = std::size_t(1) << 30;

struct DecompressorDeleter {
  void operator()(libdeflate_decompressor* d) const { libdeflate_free_decompressor(d); }
};
struct CompressorDeleter {
  void operator()(libdeflate_compressor* c) const { libdeflate_free_compressor(c); }
};

bool gzipMemberAt(const std::uint8_t* in, std::size_t inSize, std::size_t pos) {
  return inSize - pos >= 2 && in[pos] == 0x1f && in[pos + 1] == 0x8b;
}

class Inflater {
 public:
  Inflater() = default;
  Inflater(const Inflater&) = delete;
  Inflater& operator=(const Inflater&) = delete;
  ~Inflater() {
    if (m_ready) inflateEnd(&m_zs);
  }
  bool init(bool gzip) {
    m_ready = inflateInit2(&m_zs, gzip ? 16 + MAX_WBITS : MAX_WBITS) == Z_OK;
    return m_ready;
  }
  z_stream* get() { return &m_zs; }

 private:
  z_stream m_zs{};
  bool m_ready = false;
};

Status tooMuchData(const std::string& subject, const std::string& what, std::size_t size) {
  return makeError(ErrorCode::Corrupt, subject,
                   what + " holds more than the " + std::to_string(size) +
                       " bytes the header declares after decompression (a damaged header, or a decompression bomb)");
}

// zlib, for exact counts where libdeflate's one-shot inflate cannot say (multi-member gzip, truncation, damage).
Status inflateStreaming(Encoding encoding, const std::uint8_t* in, std::size_t inSize, std::uint8_t* out,
                        std::size_t size, const std::string& subject, const std::string& what) {
  const bool gzip = encoding == Encoding::Gzip;
  Inflater inflater;
  if (!inflater.init(gzip)) return makeError(ErrorCode::OutOfMemory, subject, "cannot initialise zlib");
  z_stream* zs = inflater.get();
  std::size_t inPos = 0;
  std::size_t produced = 0;
  bool ended = false;
  std::uint8_t probe = 0;  // one byte past the declared size is enough to know there is more
  for (;;) {
    const bool full = produced == size;
    const auto availIn = static_cast<uInt>(std::min(inSize - inPos, kZlibChunk));
    const auto availOut = static_cast<uInt>(full ? 1 : std::min(size - produced, kZlibChunk));
    zs->next_in = const_cast<Bytef*>(in + inPos);  // zlib's API is not const-correct; it never writes input
    zs->avail_in = availIn;
    zs->next_out = full ? &probe : out + produced;
    zs->avail_out = availOut;
    const int ret = inflate(zs, Z_NO_FLUSH);
    inPos += availIn - zs->avail_in;
    const std::size_t n = availOut - zs->avail_out;
    if (full && n > 0) return tooMuchData(subject, what, size);
    produced += full ? 0 : n;
    if (ret == Z_STREAM_END) {
      if (gzip && gzipMemberAt(in, inSize, inPos)) {
        if (inflateReset(zs) != Z_OK) return makeError(ErrorCode::Corrupt, subject, what + ": gzip data is corrupt");
        continue;
      }
      ended = true;
      break;
    }
    if (ret == Z_OK) continue;
    if (ret == Z_BUF_ERROR && inPos == inSize) break;  // input ends inside the stream
    return makeError(ErrorCode::Corrupt, subject,
                     what + ": " + (gzip ? "gzip" : "zlib") + " data is corrupt (" +
                         (zs->msg ? zs->msg : "inflate failed") + ") after " + std::to_string(produced) +
                         " decompressed bytes");
  }
  if (produced < size || !ended)
    return makeError(ErrorCode::Corrupt, subject,
                     what + " is truncated: expected " + std::to_string(size) + " bytes after decompression, found " +
                         std::to_string(produced) +
                         (ended ? "" : produced < size ? " (the compressed stream is cut off)"
                                                       : " (the compressed stream is cut off before its end)"));
  return Status::success();
}

// Offset just past `lines` line breaks from `start` (NRRD "line skip").
Result<std::uint64_t> skipLines(const InputFile& file, std::uint64_t start, std::int64_t lines,
                                const std::string& subject, const std::string& where) {
  std::uint64_t pos = start;
  std::vector<std::uint8_t> chunk(kReadChunk);
  std::int64_t seen = 0;
  while (seen < lines) {
    auto n = file.readAt(pos, chunk.data(), chunk.size());
    if (!n) return n.error();
    if (*n == 0)
      return makeError(ErrorCode::Corrupt, subject,
                       where + "line skip " + std::to_string(lines) + " passes the end of the file (found " +
                           std::to_string(seen) + " lines)");
    std::size_t i = 0;
    for (; i < *n && seen < lines; ++i)
      if (chunk[i] == '\n') ++seen;
    pos += i;
  }
  return pos;
}

template <class T>
const char* typeLimitsName() {
  return std::is_floating_point_v<T> ? "number" : "whole number in range";
}

// Parses one text token as a value of type T: integers exactly (in T's range), floating point by from_chars.
template <class T>
bool parseToken(std::string_view token, T& out) {
  if (!token.empty() && token.front() == '+') token.remove_prefix(1);
  if constexpr (std::is_floating_point_v<T>) {
    double v = 0;
    const auto [ptr, ec] = std::from_chars(token.data(), token.data() + token.size(), v);
    if (ec != std::errc() || ptr != token.data() + token.size()) return false;
    out = static_cast<T>(v);
    return true;
  } else {
    using Wide = std::conditional_t<std::is_signed_v<T>, std::int64_t, std::uint64_t>;
    Wide v = 0;
    const auto [ptr, ec] = std::from_chars(token.data(), token.data() + token.size(), v);
    if (ec != std::errc() || ptr != token.data() + token.size()) return false;
    if (v < static_cast<Wide>(std::numeric_limits<T>::min()) || v > static_cast<Wide>(std::numeric_limits<T>::max()))
      return false;
    out = static_cast<T>(v);
    return true;
  }
}

bool isSeparator(std::uint8_t c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ',' || c == '\f' || c == '\v'; }

struct PiecePlan {
  std::uint64_t offset = 0;  // raw/text: first data byte; compressed: first compressed byte
  std::uint64_t length = 0;  // raw: data bytes; compressed: compressed bytes; text: bytes to the end of the file
};

std::string whereOf(const DataPiece& piece) { return piece.detached ? "data file '" + piece.path + "': " : ""; }

Result<InputFile> openPiece(const VoxelSource& src, const DataPiece& piece) {
  auto file = InputFile::open(piece.path, piece.detached ? "data file" : "image file");
  if (file || !piece.detached) return file;
  const core::Error& e = file.error();
  if (e.code == ErrorCode::NotFound)
    return makeError(ErrorCode::NotFound, src.subject, "data file '" + piece.path + "' does not exist");
  return makeError(e.code, src.subject, "data file '" + piece.path + "': " + e.detail);
}

// Every check that needs no voxel buffer: what each piece's file holds against what the header declares.
Result<std::vector<PiecePlan>> planPieces(const VoxelSource& src, std::uint64_t pieceValues) {
  const auto bpv = static_cast<std::uint64_t>(scalarBytes(src.type));
  const std::uint64_t pieceBytes = pieceValues * bpv;
  std::vector<PiecePlan> plans;
  for (const DataPiece& piece : src.pieces) {
    const std::string where = whereOf(piece);
    auto file = openPiece(src, piece);
    if (!file) return file.error();
    std::uint64_t start = piece.start;
    if (piece.lineSkip > 0) {
      auto s = skipLines(*file, start, piece.lineSkip, src.subject, where);
      if (!s) return s.error();
      start = *s;
    }
    const std::uint64_t fileSize = file->size();
    PiecePlan plan;
    if (src.encoding == Encoding::Raw) {
      if (piece.byteSkip < 0) {
        if (fileSize < pieceBytes)
          return makeError(ErrorCode::Corrupt, src.subject,
                           where + "file is truncated: expected its last " + std::to_string(pieceBytes) +
                               " bytes to be voxel data, but it holds only " + std::to_string(fileSize));
        plan.offset = fileSize - pieceBytes;
      } else {
        plan.offset = start + static_cast<std::uint64_t>(piece.byteSkip);
        if (plan.offset > fileSize || fileSize - plan.offset < pieceBytes)
          return makeError(ErrorCode::Corrupt, src.subject,
                           where + "file is truncated: expected " + std::to_string(pieceBytes) +
                               " bytes of voxel data from byte " + std::to_string(plan.offset) + ", found " +
                               std::to_string(plan.offset > fileSize ? 0 : fileSize - plan.offset));
      }
      plan.length = pieceBytes;
    } else if (src.encoding == Encoding::Ascii) {
      plan.offset = start + static_cast<std::uint64_t>(std::max<std::int64_t>(piece.byteSkip, 0));
      plan.length = plan.offset > fileSize ? 0 : fileSize - plan.offset;
      // Every number needs a character and a separator: refuse before allocating for what cannot be there.
      if (plan.length < 2 * pieceValues - 1)
        return makeError(ErrorCode::Corrupt, src.subject,
                         where + "file is truncated: expected " + std::to_string(pieceValues) + " numbers, but its " +
                             std::to_string(plan.length) + " bytes of text can hold at most " +
                             std::to_string((plan.length + 1) / 2));
    } else {
      plan.offset = start;
      const std::uint64_t rest = start > fileSize ? 0 : fileSize - start;
      if (piece.compressedBytes >= 0 && static_cast<std::uint64_t>(piece.compressedBytes) > rest)
        return makeError(ErrorCode::Corrupt, src.subject,
                         where + "file is truncated: the header declares " + std::to_string(piece.compressedBytes) +
                             " compressed bytes from byte " + std::to_string(start) + ", found " +
                             std::to_string(rest));
      plan.length = piece.compressedBytes >= 0 ? static_cast<std::uint64_t>(piece.compressedBytes) : rest;
      const std::uint64_t need = static_cast<std::uint64_t>(piece.byteSkip) + pieceBytes;
      const std::uint64_t most = maxInflatedSize(plan.length);
      if (need > most)
        return makeError(ErrorCode::Corrupt, src.subject,
                         where + "file is truncated: expected " + std::to_string(need) +
                             " bytes after decompression, but its " + std::to_string(plan.length) +
                             " compressed bytes can hold at most " + std::to_string(most));
      if (plan.length > std::numeric_limits<std::size_t>::max() || need > std::numeric_limits<std::size_t>::max())
        return makeError(ErrorCode::SizeLimit, src.subject, where + "too large for this machine's address space");
    }
    plans.push_back(plan);
  }
  return plans;
}

// Reads one binary piece into dst (pieceBytes bytes, file byte order).
Status readBinaryPiece(const VoxelSource& src, const DataPiece& piece, const PiecePlan& plan, std::uint8_t* dst,
                       std::size_t pieceBytes) {
  const std::string where = whereOf(piece);
  auto file = openPiece(src, piece);
  if (!file) return file.error();
  if (src.encoding == Encoding::Raw) {
    auto n = file->readAt(plan.offset, dst, pieceBytes);
    if (!n) return n.error();
    if (*n != pieceBytes)
      return makeError(ErrorCode::Corrupt, src.subject,
                       where + "file is truncated: expected " + std::to_string(pieceBytes) +
                           " bytes of voxel data, found " + std::to_string(*n));
    return Status::success();
  }
  try {
    std::vector<std::uint8_t> compressed(static_cast<std::size_t>(plan.length));
    auto n = file->readAt(plan.offset, compressed.data(), compressed.size());
    if (!n) return n.error();
    compressed.resize(*n);  // a file that shrank under us shows up as truncation
    const std::string what = piece.detached ? "data file '" + piece.path + "'" : "the voxel data";
    const auto skip = static_cast<std::size_t>(piece.byteSkip);
    if (skip == 0) return inflateExactly(src.encoding, compressed.data(), compressed.size(), dst, pieceBytes, src.subject, what);
    core::Volume<std::uint8_t>::UninitBuffer whole(skip + pieceBytes);
    if (Status s = inflateExactly(src.encoding, compressed.data(), compressed.size(), whole.data(), whole.size(),
                                  src.subject, what);
        !s)
      return s;
    std::memcpy(dst, whole.data() + skip, pieceBytes);
    return Status::success();
  } catch (const std::bad_alloc&) {
    return makeError(ErrorCode::OutOfMemory, src.subject,
                     where + "cannot allocate " + std::to_string(plan.length) + " bytes for the compressed data");
  }
}

// Parses a text piece value by value (chunked, so a huge file costs no huge string); emit(value) gets each as T.
template <class T, class Emit>
Status parseTextPiece(const VoxelSource& src, const DataPiece& piece, const PiecePlan& plan, std::uint64_t values,
                      std::uint64_t firstIndex, Emit&& emit) {
  const std::string where = whereOf(piece);
  auto file = openPiece(src, piece);
  if (!file) return file.error();
  std::vector<std::uint8_t> chunk(kReadChunk);
  std::string token;
  std::uint64_t done = 0;
  std::uint64_t pos = plan.offset;
  const std::uint64_t end = plan.offset + plan.length;
  auto finishToken = [&]() -> Status {
    if (token.empty() || done == values) {
      token.clear();
      return Status::success();
    }
    T v{};
    if (token.size() > 64 || !parseToken<T>(token, v))
      return makeError(ErrorCode::ParseError, src.subject,
                       where + "text value " + std::to_string(firstIndex + done) + " is " + shown(token) +
                           ", not a " + typeLimitsName<T>() + " of type " + scalarName(src.type));
    emit(v);
    ++done;
    token.clear();
    return Status::success();
  };
  while (pos < end && done < values) {
    auto n = file->readAt(pos, chunk.data(), static_cast<std::size_t>(std::min<std::uint64_t>(chunk.size(), end - pos)));
    if (!n) return n.error();
    if (*n == 0) break;
    for (std::size_t i = 0; i < *n && done < values; ++i) {
      if (isSeparator(chunk[i])) {
        if (Status s = finishToken(); !s) return s;
      } else if (token.size() <= 64) {
        token.push_back(static_cast<char>(chunk[i]));
      }
    }
    pos += *n;
  }
  if (Status s = finishToken(); !s) return s;
  if (done < values)
    return makeError(ErrorCode::Corrupt, src.subject,
                     where + "file is truncated: expected " + std::to_string(values) + " numbers of text data, found " +
                         std::to_string(done));
  return Status::success();
}

template <class Src>
Src loadElement(const std::uint8_t* raw, std::size_t i, bool swap) {
  Src v;
  std::memcpy(&v, raw + i * sizeof(Src), sizeof(Src));
  return swap ? byteSwapped(v) : v;
}

// Loads every piece and converts each value with convert(index, value, out) -> bool; a false return stops with
// `rejected` set. Binary data no wider than the output go straight into the output buffer and are converted in place
// (narrower types are loaded into its tail, so converting front to back never overwrites a value not yet read): an
// int16 CT costs one float buffer, not a float and an int16 buffer.
template <class Dst, class Convert>
Result<typename core::Volume<Dst>::UninitBuffer> loadConverted(const VoxelSource& src, std::size_t count,
                                                               ScalarType sameType, Convert&& convert,
                                                               std::size_t& rejectedAt, bool& rejected) {
  if (src.pieces.empty() || count % src.pieces.size() != 0)
    return makeError(ErrorCode::ParseError, src.subject,
                     std::to_string(src.pieces.size()) + " data files cannot hold equal shares of " +
                         std::to_string(count) + " voxels");
  const std::uint64_t pieceValues = count / src.pieces.size();
  auto plans = planPieces(src, pieceValues);
  if (!plans) return plans.error();
  const auto bpv = static_cast<std::size_t>(scalarBytes(src.type));
  const bool text = src.encoding == Encoding::Ascii;
  const bool swap = !text && src.bigEndian == hostIsLittleEndian() && bpv > 1;
  const bool inPlace = !text && bpv <= sizeof(Dst);
  const auto pieceBytes = static_cast<std::size_t>(pieceValues * bpv);
  try {
    // Uninitialised buffers: only the pages reading reaches are touched (see core::UninitAllocator).
    typename core::Volume<Dst>::UninitBuffer out(count);
    core::Volume<std::uint8_t>::UninitBuffer raw;
    if (!text && !inPlace) raw.resize(count * bpv);
    std::uint8_t* bytes =
        inPlace ? reinterpret_cast<std::uint8_t*>(out.data()) + count * (sizeof(Dst) - bpv) : raw.data();
    bool ok = true;
    for (std::size_t p = 0; p < src.pieces.size() && ok; ++p) {
      if (!text) {
        if (Status s = readBinaryPiece(src, src.pieces[p], (*plans)[p], bytes + p * pieceBytes, pieceBytes); !s)
          return s.error();
        continue;
      }
      Status parsed = Status::success();
      const std::size_t first = p * static_cast<std::size_t>(pieceValues);
      visitScalar(src.type, [&](auto tag) {
        using T = decltype(tag);
        std::size_t i = first;
        parsed = parseTextPiece<T>(src, src.pieces[p], (*plans)[p], pieceValues, first, [&](T v) {
          if (ok && !convert(i, v, out[i])) {
            ok = false;
            rejectedAt = i;
          }
          ++i;
        });
      });
      if (!parsed) return parsed.error();
    }
    if (!text && !(src.type == sameType && !swap)) {
      visitScalar(src.type, [&](auto tag) {
        using Src = decltype(tag);
        for (std::size_t i = 0; i < count && ok; ++i) {
          if (!convert(i, loadElement<Src>(bytes, i, swap), out[i])) {
            ok = false;
            rejectedAt = i;
          }
        }
      });
    }
    rejected = !ok;
    if (!ok) out.clear();
    return out;
  } catch (const std::bad_alloc&) {
    return makeError(ErrorCode::OutOfMemory, src.subject,
                     "cannot allocate " + std::to_string(count * (sizeof(Dst) + (inPlace || text ? 0 : bpv))) +
                         " bytes for voxel data");
  }
}

}  // namespace

// ---------------------------------------------------------------------------------------------------------------

int scalarBytes(ScalarType type) {
  int n = 0;
  visitScalar(type, [&n](auto tag) { n = static_cast<int>(sizeof(tag)); });
  return n;
}

const char* scalarName(ScalarType type) {
  switch (type) {
    case ScalarType::UInt8: return "uint8";
    case ScalarType::Int8: return "int8";
    case ScalarType::UInt16: return "uint16";
    case ScalarType::Int16: return "int16";
    case ScalarType::UInt32: return "uint32";
    case ScalarType::Int32: return "int32";
    case ScalarType::UInt64: return "uint64";
    case ScalarType::Int64: return "int64";
    case ScalarType::Float32: return "float32";
    case ScalarType::Float64: return "float64";
  }
  return "unknown";
}

InputFile::InputFile(InputFile&& other) noexcept
    : m_path(std::move(other.m_path)), m_fd(std::exchange(other.m_fd, -1)), m_size(other.m_size) {}

InputFile& InputFile::operator=(InputFile&& other) noexcept {
  std::swap(m_path, other.m_path);
  std::swap(m_fd, other.m_fd);
  std::swap(m_size, other.m_size);
  return *this;
}

InputFile::~InputFile() {
  if (m_fd >= 0) ::close(m_fd);
}

Result<InputFile> InputFile::open(const std::string& path, std::string_view what) {
  InputFile f;
  f.m_path = path;
  // A pipe, socket, device or folder is refused before it is opened: a FIFO would block the open forever.
  auto fd = openRegularFile(path, what);
  if (!fd) return fd.error();
  f.m_fd = *fd;
  struct stat st {};
  if (::fstat(f.m_fd, &st) != 0)
    return makeError(ErrorCode::ReadFailed, path, std::string("cannot stat: ") + std::strerror(errno));
  f.m_size = static_cast<std::uint64_t>(st.st_size);
  return f;
}

Result<std::size_t> InputFile::readAt(std::uint64_t offset, std::uint8_t* dst, std::size_t n) const {
  std::size_t done = 0;
  while (done < n) {
    const std::size_t chunk = std::min(n - done, std::size_t(1) << 30);
    const ssize_t r = ::pread(m_fd, dst + done, chunk, static_cast<off_t>(offset + done));
    if (r < 0) {
      if (errno == EINTR) continue;
      return makeError(ErrorCode::ReadFailed, m_path, std::string("read failed: ") + std::strerror(errno));
    }
    if (r == 0) break;
    done += static_cast<std::size_t>(r);
  }
  return done;
}

Result<bool> HeaderLineReader::next(std::string& line) {
  for (;;) {
    const auto begin = m_buffer.begin() + static_cast<std::ptrdiff_t>(m_bufferStart);
    const auto nl = std::find(begin, m_buffer.end(), static_cast<std::uint8_t>('\n'));
    const auto pending = static_cast<std::size_t>((nl != m_buffer.end() ? nl : m_buffer.end()) - begin);
    if (pending > kMaxHeaderLineBytes)
      return makeError(ErrorCode::ParseError, m_subject,
                       "header line is longer than " + std::to_string(kMaxHeaderLineBytes) +
                           " bytes (a damaged header, or not a header at all)",
                       m_line + 1);
    if (nl != m_buffer.end() || (m_eof && pending > 0)) {
      line.assign(begin, begin + static_cast<std::ptrdiff_t>(pending));
      if (!line.empty() && line.back() == '\r') line.pop_back();
      const std::size_t consumed = pending + (nl != m_buffer.end() ? 1 : 0);
      m_bufferStart += consumed;
      m_offset += consumed;
      if (++m_line > kMaxHeaderLines)
        return makeError(ErrorCode::ParseError, m_subject,
                         "header has more than " + std::to_string(kMaxHeaderLines) + " lines", m_line);
      return true;
    }
    if (m_eof) return false;
    m_buffer.erase(m_buffer.begin(), begin);
    m_bufferStart = 0;
    const std::size_t old = m_buffer.size();
    m_buffer.resize(old + kReadChunk);
    auto n = m_file.readAt(m_offset + old, m_buffer.data() + old, kReadChunk);
    if (!n) return n.error();
    m_buffer.resize(old + *n);
    if (*n == 0) m_eof = true;
  }
}

Result<std::string> resolveDataFile(const std::string& headerPath, const std::string& name) {
  if (name.empty()) return makeError(ErrorCode::ParseError, headerPath, "the data file name is empty");
  const fs::path rel(name);
  const fs::path folder(folderOf(headerPath));
  if (rel.is_absolute() || name.front() == '/')
    return makeError(ErrorCode::Unsupported, headerPath,
                     "data file '" + name + "' is an absolute path; data files must lie in the header's folder");
  const fs::path joined = (folder / rel).lexically_normal();
  const fs::path inside = joined.lexically_relative(folder.lexically_normal());
  if (inside.empty() || *inside.begin() == "..")
    return makeError(ErrorCode::Unsupported, headerPath,
                     "data file '" + name + "' lies outside the header's folder '" + folder.string() +
                         "'; data files must lie in the header's folder");
  std::error_code ec;
  const fs::path realFolder = fs::weakly_canonical(folder, ec);
  if (ec)
    return makeError(ErrorCode::ReadFailed, headerPath, "cannot resolve folder '" + folder.string() + "': " + ec.message());
  const fs::path realData = fs::weakly_canonical(folder / rel, ec);
  if (ec)
    return makeError(ErrorCode::ReadFailed, headerPath, "cannot resolve data file '" + name + "': " + ec.message());
  const fs::path realInside = realData.lexically_relative(realFolder);
  if (realInside.empty() || *realInside.begin() == "..")
    return makeError(ErrorCode::Unsupported, headerPath,
                     "data file '" + name + "' resolves to '" + realData.string() +
                         "' (through a symbolic link), outside the header's folder '" + realFolder.string() + "'");
  return joined.string();
}

Status inflateExactly(Encoding encoding, const std::uint8_t* in, std::size_t inSize, std::uint8_t* out,
                      std::size_t size, const std::string& subject, const std::string& what) {
  // Our own gzip files (indexed members, io/base/gzip.h) inflate on all cores.
  if (encoding == Encoding::Gzip && gunzipIndexed(in, inSize, out, size)) return Status::success();
  // libdeflate inflates the common case (one member of exactly the declared size) several times faster than zlib. It
  // never writes past `size`; INSUFFICIENT_SPACE means the stream holds more.
  std::unique_ptr<libdeflate_decompressor, DecompressorDeleter> d(libdeflate_alloc_decompressor());
  if (d) {
    std::size_t inUsed = 0;
    std::size_t outUsed = 0;
    const libdeflate_result r =
        encoding == Encoding::Gzip
            ? libdeflate_gzip_decompress_ex(d.get(), in, inSize, out, size, &inUsed, &outUsed)
            : libdeflate_zlib_decompress_ex(d.get(), in, inSize, out, size, &inUsed, &outUsed);
    if (r == LIBDEFLATE_INSUFFICIENT_SPACE) return tooMuchData(subject, what, size);
    if (r == LIBDEFLATE_SUCCESS && outUsed == size &&
        (encoding != Encoding::Gzip || !gzipMemberAt(in, inSize, inUsed)))
      return Status::success();
  }
  return inflateStreaming(encoding, in, inSize, out, size, subject, what);
}

Result<std::vector<std::uint8_t>> zlibCompress(const void* data, std::size_t size, int level,
                                               const std::string& subject) {
  if (level < 0 || level > 12)
    return makeError(ErrorCode::InvalidArgument, subject, "compression level " + std::to_string(level) + " is outside 0..12");
  std::unique_ptr<libdeflate_compressor, CompressorDeleter> c(libdeflate_alloc_compressor(level));
  if (!c) return makeError(ErrorCode::OutOfMemory, subject, "cannot allocate a zlib compressor");
  try {
    std::vector<std::uint8_t> out(libdeflate_zlib_compress_bound(c.get(), size));
    const std::size_t n = libdeflate_zlib_compress(c.get(), data, size, out.data(), out.size());
    if (n == 0) return makeError(ErrorCode::WriteFailed, subject, "zlib compression failed");
    out.resize(n);
    return out;
  } catch (const std::bad_alloc&) {
    return makeError(ErrorCode::OutOfMemory, subject,
                     "cannot allocate the compression buffer for " + std::to_string(size) + " bytes");
  }
}

Result<core::ImageVolume> loadImage(const VoxelSource& source, const Geometry& geometry) {
  auto convert = [](std::size_t, auto v, float& out) {
    out = static_cast<float>(v);
    return true;
  };
  std::size_t badIndex = 0;
  bool rejected = false;
  auto voxels = loadConverted<float>(source, static_cast<std::size_t>(geometry.voxelCount()), ScalarType::Float32,
                                     convert, badIndex, rejected);
  if (!voxels) return voxels.error();
  return core::ImageVolume::adopt(geometry, std::move(voxels).value(), source.subject);
}

Result<core::ScalarImage> loadImageTyped(const VoxelSource& source, const Geometry& geometry) {
  auto as = [&](auto tag, ScalarType stored) -> Result<core::ScalarImage> {
    using T = decltype(tag);
    auto convert = [](std::size_t, auto v, T& out) {
      out = static_cast<T>(v);
      return true;
    };
    std::size_t badIndex = 0;
    bool rejected = false;
    auto voxels =
        loadConverted<T>(source, static_cast<std::size_t>(geometry.voxelCount()), stored, convert, badIndex, rejected);
    if (!voxels) return voxels.error();
    auto volume = core::Volume<T>::adopt(geometry, std::move(voxels).value(), source.subject);
    if (!volume) return volume.error();
    return core::ScalarImage(std::move(*volume));
  };
  switch (source.type) {
    case ScalarType::UInt8: return as(std::uint8_t{}, ScalarType::UInt8);
    case ScalarType::Int8:
    case ScalarType::Int16: return as(std::int16_t{}, ScalarType::Int16);
    case ScalarType::UInt16: return as(std::uint16_t{}, ScalarType::UInt16);
    case ScalarType::Int32: return as(std::int32_t{}, ScalarType::Int32);
    case ScalarType::Float32: return as(float{}, ScalarType::Float32);
    default: break;
  }
  auto image = loadImage(source, geometry);
  if (!image) return image.error();
  return core::ScalarImage::narrowed(std::move(*image), source.subject);
}

Result<core::LabelMap> loadLabels(const VoxelSource& source, const Geometry& geometry) {
  double badValue = 0;
  auto convert = [&badValue](std::size_t, auto v, core::Label& out) {
    const auto x = static_cast<double>(v);
    if (!(x >= 0 && x <= 65535 && x == std::floor(x))) {
      badValue = x;
      return false;
    }
    out = static_cast<core::Label>(x);
    return true;
  };
  std::size_t badIndex = 0;
  bool rejected = false;
  auto voxels = loadConverted<core::Label>(source, static_cast<std::size_t>(geometry.voxelCount()),
                                           ScalarType::UInt16, convert, badIndex, rejected);
  if (!voxels) return voxels.error();
  if (rejected) return labelValueRefused(source.subject, geometry, badIndex, formatDouble(badValue));
  auto volume = core::Volume<core::Label>::adopt(geometry, std::move(voxels).value(), source.subject);
  if (!volume) return volume.error();
  return core::LabelMap(std::move(volume).value());
}

StoredVoxels imageVoxels(const core::ImageVolume& image, bool int16WhenExact) {
  StoredVoxels v;
  v.type = ScalarType::Float32;
  v.data = image.data();
  v.count = image.size();
  if (!int16WhenExact) return v;
  const auto& buf = image.buffer();
  const bool exact = std::all_of(buf.begin(), buf.end(), [](float x) {
    return x >= -32768.0f && x <= 32767.0f && x == std::floor(x);  // NaN fails every comparison
  });
  if (!exact) return v;
  v.int16Copy.resize(buf.size());
  std::transform(buf.begin(), buf.end(), v.int16Copy.begin(), [](float x) { return static_cast<std::int16_t>(x); });
  v.type = ScalarType::Int16;
  v.data = v.int16Copy.data();
  return v;
}

ScalarType storedType(core::ScalarType type) {
  switch (type) {
    case core::ScalarType::UInt8: return ScalarType::UInt8;
    case core::ScalarType::Int16: return ScalarType::Int16;
    case core::ScalarType::UInt16: return ScalarType::UInt16;
    case core::ScalarType::Int32: return ScalarType::Int32;
    case core::ScalarType::Float32: break;
  }
  return ScalarType::Float32;
}

StoredVoxels imageVoxels(const core::ScalarImage& image) {
  StoredVoxels v;
  v.type = storedType(image.type());
  v.data = image.data();
  v.count = image.size();
  return v;
}

StoredVoxels labelVoxels(const core::LabelMap& labels) {
  StoredVoxels v;
  v.type = ScalarType::UInt16;
  v.data = labels.data();
  v.count = labels.size();
  return v;
}

const std::uint8_t* littleEndianBytes(const void* data, std::size_t count, std::size_t elementSize,
                                      std::vector<std::uint8_t>& storage) {
  const auto* bytes = static_cast<const std::uint8_t*>(data);
  if (hostIsLittleEndian() || elementSize == 1) return bytes;
  storage.assign(bytes, bytes + count * elementSize);
  for (std::size_t i = 0; i < count; ++i)
    std::reverse(storage.begin() + static_cast<std::ptrdiff_t>(i * elementSize),
                 storage.begin() + static_cast<std::ptrdiff_t>((i + 1) * elementSize));
  return storage.data();
}

Result<EncodedVoxels> encodeVoxels(const StoredVoxels& voxels, Encoding encoding, int level,
                                   const std::string& subject) {
  const auto elementSize = static_cast<std::size_t>(scalarBytes(voxels.type));
  const std::size_t bytes = voxels.count * elementSize;
  EncodedVoxels out;
  try {
    std::vector<std::uint8_t> little;
    const std::uint8_t* src = littleEndianBytes(voxels.data, voxels.count, elementSize, little);
    if (encoding == Encoding::Raw) {
      out.owned = std::move(little);
      out.bytes = out.owned.empty() ? src : out.owned.data();
      out.size = bytes;
      return out;
    }
    auto packed = encoding == Encoding::Gzip ? gzipCompress(src, bytes, level, subject)
                                             : zlibCompress(src, bytes, level, subject);
    if (!packed) return packed.error();
    out.owned = std::move(packed).value();
    out.bytes = out.owned.data();
    out.size = out.owned.size();
    return out;
  } catch (const std::bad_alloc&) {
    return makeError(ErrorCode::OutOfMemory, subject, "cannot allocate buffers to write " + std::to_string(bytes) + " bytes of voxel data");
  }
}

Status writeHeaderAndData(const std::string& path, const std::string& header, const EncodedVoxels& data) {
  auto writer = AtomicFileWriter::create(path);
  if (!writer) return writer.error();
  if (Status s = writer->write(header.data(), header.size()); !s) return s;
  if (Status s = writer->write(data.bytes, data.size); !s) return s;
  return writer->commit();
}

// ---------------------------------------------------------------------------------------------------------------

std::string formatDouble(double v) {
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::general, 17);
  return std::string(buf, r.ptr);
}

std::optional<double> parseDouble(std::string_view s) {
  s = trim(s);
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  if (s.empty()) return std::nullopt;
  double v = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size()) return std::nullopt;
  return v;
}

std::optional<std::int64_t> parseInt(std::string_view s) {
  s = trim(s);
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  if (s.empty()) return std::nullopt;
  std::int64_t v = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size()) return std::nullopt;
  return v;
}

std::string_view trim(std::string_view s) {
  const auto space = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
  while (!s.empty() && space(s.front())) s.remove_prefix(1);
  while (!s.empty() && space(s.back())) s.remove_suffix(1);
  return s;
}

std::string lowerCase(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::vector<std::string_view> splitWords(std::string_view s) {
  std::vector<std::string_view> words;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
    const std::size_t start = i;
    while (i < s.size() && s[i] != ' ' && s[i] != '\t') ++i;
    if (i > start) words.push_back(s.substr(start, i - start));
  }
  return words;
}

bool endsWithNoCase(const std::string& s, const std::string& suffix) {
  if (s.size() < suffix.size()) return false;
  for (std::size_t i = 0; i < suffix.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(s[s.size() - suffix.size() + i])) !=
        std::tolower(static_cast<unsigned char>(suffix[i])))
      return false;
  return true;
}

std::string shown(std::string_view s) {
  std::string out;
  for (char c : s.substr(0, 60)) out += (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) ? '?' : c;
  return "'" + out + (s.size() > 60 ? "...'" : "'");
}

std::string folderOf(const std::string& path) {
  const auto slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

std::string fileNameOf(const std::string& path) {
  const auto slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace delineate::io::image_file_detail
