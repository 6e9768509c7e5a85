#include "io/gzip.h"

#include <libdeflate.h>
#include <zlib.h>

#include <algorithm>
#include <limits>
#include <memory>
#include <new>

namespace delineate::io {
namespace {

using core::ErrorCode;
using core::makeError;

// zlib counts in 32-bit uInt; larger buffers are fed in pieces.
constexpr std::size_t kZlibChunk = std::size_t(1) << 30;
// After the cap is reached we inflate a little further to reach the member's CRC trailer. Bounded so a file with a
// huge tail after the declared data costs no more than this.
constexpr std::size_t kTailCheckBytes = std::size_t(64) << 10;

std::uint32_t readLe32(const std::uint8_t* p) {
  return std::uint32_t(p[0]) | (std::uint32_t(p[1]) << 8) | (std::uint32_t(p[2]) << 16) | (std::uint32_t(p[3]) << 24);
}

struct LibdeflateDecompressorDeleter {
  void operator()(libdeflate_decompressor* d) const { libdeflate_free_decompressor(d); }
};
struct LibdeflateCompressorDeleter {
  void operator()(libdeflate_compressor* c) const { libdeflate_free_compressor(c); }
};

// Whole-buffer inflate; true only when exactly `capacity` bytes came out of a valid member (CRC and ISIZE checked
// by libdeflate). Anything else returns false and the caller falls back to zlib, which reports precise counts.
bool tryLibdeflate(const std::uint8_t* in, std::size_t inSize, std::uint8_t* out, std::size_t capacity) {
  std::unique_ptr<libdeflate_decompressor, LibdeflateDecompressorDeleter> d(libdeflate_alloc_decompressor());
  if (!d) return false;
  std::size_t inUsed = 0;
  std::size_t outUsed = 0;
  const libdeflate_result r = libdeflate_gzip_decompress_ex(d.get(), in, inSize, out, capacity, &inUsed, &outUsed);
  return r == LIBDEFLATE_SUCCESS && outUsed == capacity;
}

class ZStream {
 public:
  ZStream() = default;
  ZStream(const ZStream&) = delete;
  ZStream& operator=(const ZStream&) = delete;
  ~ZStream() {
    if (m_ready) inflateEnd(&m_zs);
  }
  bool init() {
    // 16 + MAX_WBITS: gzip wrapper only, so a zlib or raw stream is reported as corrupt rather than half-accepted.
    m_ready = inflateInit2(&m_zs, 16 + MAX_WBITS) == Z_OK;
    return m_ready;
  }
  z_stream* get() { return &m_zs; }

 private:
  z_stream m_zs{};
  bool m_ready = false;
};

// One inflate() call over in[inPos..] into out[0..outSize), capped to zlib's 32-bit counters; advances the counters.
int inflateStep(z_stream* zs, const std::uint8_t* in, std::size_t inSize, std::size_t& inPos, std::uint8_t* out,
                std::size_t outSize, std::size_t& produced) {
  const auto availIn = static_cast<uInt>(std::min(inSize - inPos, kZlibChunk));
  const auto availOut = static_cast<uInt>(std::min(outSize, kZlibChunk));
  zs->next_in = const_cast<Bytef*>(in + inPos);  // zlib's API is not const-correct; it never writes input
  zs->avail_in = availIn;
  zs->next_out = out;
  zs->avail_out = availOut;
  const int ret = inflate(zs, Z_NO_FLUSH);
  inPos += availIn - zs->avail_in;
  produced = availOut - zs->avail_out;
  return ret;
}

core::Error corruptError(const std::string& subject, z_stream* zs, std::size_t producedSoFar) {
  return makeError(ErrorCode::Corrupt, subject,
                   std::string("gzip data is corrupt (") + (zs->msg ? zs->msg : "inflate failed") + ") after " +
                       std::to_string(producedSoFar) + " decompressed bytes");
}

bool memberFollows(const std::uint8_t* in, std::size_t inSize, std::size_t inPos) {
  return inSize - inPos >= 2 && in[inPos] == 0x1f && in[inPos + 1] == 0x8b;
}

core::Result<GunzipResult> gunzipStreaming(const std::uint8_t* in, std::size_t inSize, std::uint8_t* out,
                                           std::size_t capacity, const std::string& subject) {
  ZStream stream;
  if (!stream.init()) return makeError(ErrorCode::OutOfMemory, subject, "cannot initialise zlib");
  z_stream* zs = stream.get();
  GunzipResult result;
  std::size_t inPos = 0;
  bool atMemberEnd = false;

  while (result.bytes < capacity) {
    std::size_t produced = 0;
    const int ret = inflateStep(zs, in, inSize, inPos, out + result.bytes, capacity - result.bytes, produced);
    result.bytes += produced;
    if (ret == Z_STREAM_END) {
      if (!memberFollows(in, inSize, inPos)) return result;  // complete; any trailing non-gzip bytes are ignored
      if (inflateReset(zs) != Z_OK) return corruptError(subject, zs, result.bytes);
      continue;
    }
    if (ret == Z_OK) continue;
    if (ret == Z_BUF_ERROR && inPos == inSize) {
      result.truncated = true;
      return result;
    }
    return corruptError(subject, zs, result.bytes);
  }

  // The cap is reached. Inflate a bounded tail into scratch so the member's CRC is checked and a file cut off just
  // after the data we need is still noticed.
  std::uint8_t scratch[4096];
  std::size_t extra = 0;
  while (!atMemberEnd && extra < kTailCheckBytes) {
    std::size_t produced = 0;
    const int ret = inflateStep(zs, in, inSize, inPos, scratch, sizeof scratch, produced);
    extra += produced;
    if (ret == Z_STREAM_END) {
      atMemberEnd = true;
    } else if (ret == Z_BUF_ERROR && inPos == inSize) {
      result.truncated = true;
      break;
    } else if (ret != Z_OK) {
      return corruptError(subject, zs, result.bytes + extra);
    }
  }
  return result;
}

}  // namespace

bool isGzip(const std::uint8_t* data, std::size_t size) { return size >= 2 && data[0] == 0x1f && data[1] == 0x8b; }

std::uint64_t maxInflatedSize(std::uint64_t compressedBytes) {
  constexpr std::uint64_t kRatio = 1032;
  constexpr std::uint64_t kSlack = 4096;
  if (compressedBytes > (std::numeric_limits<std::uint64_t>::max() - kSlack) / kRatio)
    return std::numeric_limits<std::uint64_t>::max();
  return compressedBytes * kRatio + kSlack;
}

core::Result<GunzipResult> gunzipInto(const std::uint8_t* in, std::size_t inSize, std::uint8_t* out,
                                      std::size_t capacity, const std::string& subject) {
  if (!isGzip(in, inSize)) return makeError(ErrorCode::Corrupt, subject, "not gzip data (missing 1f 8b magic)");
  // ISIZE is the last member's size mod 2^32: a match means a single member of exactly the size we want, the
  // common case, where libdeflate's one-shot inflate is safe to try.
  constexpr std::size_t kMinMember = 18;
  if (capacity > 0 && inSize >= kMinMember &&
      readLe32(in + inSize - 4) == static_cast<std::uint32_t>(capacity & 0xffffffffu) &&
      tryLibdeflate(in, inSize, out, capacity))
    return GunzipResult{capacity, false};
  return gunzipStreaming(in, inSize, out, capacity, subject);
}

core::Result<std::vector<std::uint8_t>> gzipCompress(const void* data, std::size_t size, int level,
                                                     const std::string& subject) {
  if (level < 0 || level > 12)
    return makeError(ErrorCode::InvalidArgument, subject,
                     "gzip level " + std::to_string(level) + " is outside 0..12");
  std::unique_ptr<libdeflate_compressor, LibdeflateCompressorDeleter> c(libdeflate_alloc_compressor(level));
  if (!c) return makeError(ErrorCode::OutOfMemory, subject, "cannot allocate a gzip compressor");
  try {
    std::vector<std::uint8_t> out(libdeflate_gzip_compress_bound(c.get(), size));
    const std::size_t n = libdeflate_gzip_compress(c.get(), data, size, out.data(), out.size());
    if (n == 0) return makeError(ErrorCode::WriteFailed, subject, "gzip compression failed");
    out.resize(n);
    return out;
  } catch (const std::bad_alloc&) {
    return makeError(ErrorCode::OutOfMemory, subject,
                     "cannot allocate the gzip output buffer for " + std::to_string(size) + " bytes");
  }
}

}  // namespace delineate::io
