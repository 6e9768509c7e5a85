#include "io/base/gzip.h"

#include <libdeflate.h>
#include <zlib.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <limits>
#include <memory>
#include <new>
#include <system_error>
#include <thread>

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

// --- Indexed multi-member gzip -------------------------------------------------------------------------------------
// Large buffers are written as consecutive gzip members of kMemberBytes each (valid gzip: every reader concatenates
// members). Each member's header carries an extra field, subfield "DL" of 8 bytes: the member's total size in the
// file and its uncompressed size (both little-endian uint32). With those, a reader can find every member without
// inflating and inflate them on all cores at once, each straight into its place in the output.

constexpr std::size_t kMemberBytes = std::size_t(8) << 20;
constexpr std::size_t kIndexedHeaderBytes = 10 + 2 + 12;  // fixed header, XLEN, one 12-byte subfield

unsigned workerCount(std::size_t jobs) {
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  return unsigned(std::min<std::size_t>(jobs, cores));
}

// Runs job(i) for i in [0, n) on workerCount(n) threads; false from any job is the result.
template <class Job>
bool runParallel(std::size_t n, Job&& job) {
  std::atomic<std::size_t> next{0};
  std::atomic<bool> ok{true};
  auto worker = [&] {
    for (std::size_t i; ok.load() && (i = next.fetch_add(1)) < n;)
      if (!job(i)) ok.store(false);
  };
  std::vector<std::thread> pool;
  try {
    for (unsigned t = 1; t < workerCount(n); ++t) pool.emplace_back(worker);
  } catch (const std::system_error&) {  // no threads to be had: the caller's thread does all the work
  }
  worker();
  for (auto& t : pool) t.join();
  return ok.load();
}

void putLe32(std::uint8_t* p, std::uint32_t v) {
  p[0] = std::uint8_t(v);
  p[1] = std::uint8_t(v >> 8);
  p[2] = std::uint8_t(v >> 16);
  p[3] = std::uint8_t(v >> 24);
}

struct IndexedMember {
  std::size_t offset = 0;        // of the member in the input
  std::size_t size = 0;          // whole member
  std::size_t outOffset = 0;     // of its data in the output
  std::size_t outSize = 0;
};

// The members of an indexed stream whose sizes add up to exactly `capacity`, or nothing (then the caller takes the
// ordinary path, which also checks everything again).
std::vector<IndexedMember> indexedMembers(const std::uint8_t* in, std::size_t inSize, std::size_t capacity) {
  std::vector<IndexedMember> members;
  std::size_t pos = 0, out = 0;
  while (pos < inSize && out < capacity) {
    if (inSize - pos < kIndexedHeaderBytes + 8) return {};
    const std::uint8_t* h = in + pos;
    if (h[0] != 0x1f || h[1] != 0x8b || h[2] != 8 || h[3] != 0x04 /* FEXTRA only */ || h[10] != 12 || h[11] != 0 ||
        h[12] != 'D' || h[13] != 'L' || h[14] != 8 || h[15] != 0)
      return {};
    IndexedMember m;
    m.offset = pos;
    m.size = readLe32(h + 16);
    m.outSize = readLe32(h + 20);
    m.outOffset = out;
    if (m.size < kIndexedHeaderBytes + 8 || m.size > inSize - pos || m.outSize > capacity - out) return {};
    if (readLe32(in + pos + m.size - 4) != std::uint32_t(m.outSize)) return {};  // ISIZE agrees with the index
    members.push_back(m);
    pos += m.size;
    out += m.outSize;
  }
  if (out != capacity || pos != inSize) return {};  // exactly the whole input, exactly `capacity` bytes
  return members;
}

bool inflateIndexed(const std::uint8_t* in, const std::vector<IndexedMember>& members, std::uint8_t* out) {
  return runParallel(members.size(), [&](std::size_t i) {
    const IndexedMember& m = members[i];
    std::unique_ptr<libdeflate_decompressor, LibdeflateDecompressorDeleter> d(libdeflate_alloc_decompressor());
    if (!d) return false;
    std::size_t produced = 0;
    const std::uint8_t* deflated = in + m.offset + kIndexedHeaderBytes;
    const std::size_t deflatedSize = m.size - kIndexedHeaderBytes - 8;
    if (libdeflate_deflate_decompress(d.get(), deflated, deflatedSize, out + m.outOffset, m.outSize, &produced) !=
            LIBDEFLATE_SUCCESS ||
        produced != m.outSize)
      return false;
    return libdeflate_crc32(0, out + m.outOffset, m.outSize) == readLe32(in + m.offset + m.size - 8);
  });
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

bool gunzipIndexed(const std::uint8_t* in, std::size_t inSize, std::uint8_t* out, std::size_t capacity) {
  const std::vector<IndexedMember> members = indexedMembers(in, inSize, capacity);
  return !members.empty() && inflateIndexed(in, members, out);
}

core::Result<GunzipResult> gunzipInto(const std::uint8_t* in, std::size_t inSize, std::uint8_t* out,
                                      std::size_t capacity, const std::string& subject) {
  if (!isGzip(in, inSize)) return makeError(ErrorCode::Corrupt, subject, "not gzip data (missing 1f 8b magic)");
  // ISIZE is the last member's size mod 2^32: a match means a single member of exactly the size we want, the
  // common case, where libdeflate's one-shot inflate is safe to try.
  constexpr std::size_t kMinMember = 18;
  if (gunzipIndexed(in, inSize, out, capacity)) return GunzipResult{capacity, false};
  if (capacity > 0 && inSize >= kMinMember &&
      readLe32(in + inSize - 4) == static_cast<std::uint32_t>(capacity & 0xffffffffu) &&
      tryLibdeflate(in, inSize, out, capacity))
    return GunzipResult{capacity, false};
  return gunzipStreaming(in, inSize, out, capacity, subject);
}

namespace {

// One compressed member of the indexed stream. `bytes` is default-initialised (new[] without ()), so only the pages
// the compressor writes are ever touched: zero-filling worst-case bounds cost more than compressing a label map.
struct GzipPart {
  std::unique_ptr<std::uint8_t[]> bytes;
  std::size_t size = 0;
};

bool compressMember(int level, const std::uint8_t* in, std::size_t n, GzipPart& part) {
  std::unique_ptr<libdeflate_compressor, LibdeflateCompressorDeleter> c(libdeflate_alloc_compressor(level));
  if (!c) return false;
  const std::size_t capacity = kIndexedHeaderBytes + libdeflate_deflate_compress_bound(c.get(), n) + 8;
  part.bytes.reset(new std::uint8_t[capacity]);
  std::uint8_t* h = part.bytes.get();
  const std::size_t z =
      libdeflate_deflate_compress(c.get(), in, n, h + kIndexedHeaderBytes, capacity - kIndexedHeaderBytes - 8);
  if (z == 0 && n > 0) return false;
  const std::size_t memberSize = kIndexedHeaderBytes + z + 8;
  if (memberSize > 0xffffffffu) return false;
  const std::uint8_t fixed[12] = {0x1f, 0x8b, 8, 0x04, 0, 0, 0, 0, 0, 0xff /* OS unknown */, 12, 0};
  std::memcpy(h, fixed, sizeof fixed);
  h[12] = 'D';
  h[13] = 'L';
  h[14] = 8;
  h[15] = 0;
  putLe32(h + 16, std::uint32_t(memberSize));
  putLe32(h + 20, std::uint32_t(n));
  putLe32(h + kIndexedHeaderBytes + z, libdeflate_crc32(0, in, n));
  putLe32(h + kIndexedHeaderBytes + z + 4, std::uint32_t(n));
  part.size = memberSize;
  return true;
}

struct MemberInput {
  const std::uint8_t* data = nullptr;
  std::size_t size = 0;
};

// Compresses one batch of member inputs in parallel and hands the members to `sink` in order, each released once
// written. `total` only words the out-of-memory error.
core::Status compressBatch(const std::vector<MemberInput>& inputs, int level, const std::string& subject,
                           std::size_t total, const GzipSink& sink) {
  const auto outOfMemory = [&] {
    return makeError(ErrorCode::OutOfMemory, subject,
                     "cannot allocate the gzip output buffer for " + std::to_string(total) + " bytes");
  };
  try {
    std::vector<GzipPart> parts(inputs.size());
    std::atomic<bool> allocFailed{false};
    const bool ok = runParallel(inputs.size(), [&](std::size_t j) {
      try {
        return compressMember(level, inputs[j].data, inputs[j].size, parts[j]);
      } catch (const std::bad_alloc&) {
        allocFailed.store(true);
        return false;
      }
    });
    if (allocFailed.load()) return outOfMemory();
    if (!ok) return makeError(ErrorCode::WriteFailed, subject, "gzip compression failed");
    for (auto& p : parts) {
      if (core::Status s = sink(p.bytes.get(), p.size); !s) return s;
      p.bytes.reset();
    }
    return core::Status::success();
  } catch (const std::bad_alloc&) {
    return outOfMemory();
  }
}

}  // namespace

core::Status checkGzipLevel(int level, const std::string& subject) {
  if (level < 0 || level > 12)
    return makeError(ErrorCode::InvalidArgument, subject, "gzip level " + std::to_string(level) + " is outside 0..12");
  return core::Status::success();
}

core::Status gzipCompressTo(const void* head, std::size_t headSize, const void* body, std::size_t bodySize, int level,
                            const std::string& subject, const GzipSink& sink) {
  if (core::Status s = checkGzipLevel(level, subject); !s) return s;
  const auto* headBytes = static_cast<const std::uint8_t*>(head);
  const auto* bodyBytes = static_cast<const std::uint8_t*>(body);
  const std::size_t size = headSize + bodySize;
  const std::size_t count = std::max<std::size_t>(1, (size + kMemberBytes - 1) / kMemberBytes);
  try {
    // Members compressed in parallel a batch at a time (two per worker), handed to the sink in order and released:
    // what is held is one batch, not the whole compressed file. A member's input comes straight from the body, or
    // (only where it overlaps the head) is assembled here.
    const std::size_t batch = std::max<std::size_t>(1, 2 * std::size_t(workerCount(count)));
    for (std::size_t first = 0; first < count; first += batch) {
      std::vector<MemberInput> inputs;
      std::vector<std::unique_ptr<std::uint8_t[]>> assembled;  // members of this batch that overlap the head
      for (std::size_t i = first; i < std::min(count, first + batch); ++i) {
        const std::size_t begin = i * kMemberBytes;
        const std::size_t n = std::min(kMemberBytes, size - std::min(size, begin));
        if (begin >= headSize) {
          inputs.push_back({bodyBytes + (begin - headSize), n});
        } else {
          std::uint8_t* joined = assembled.emplace_back(new std::uint8_t[n]).get();
          const std::size_t fromHead = std::min(n, headSize - begin);
          std::memcpy(joined, headBytes + begin, fromHead);
          if (n > fromHead) std::memcpy(joined + fromHead, bodyBytes, n - fromHead);
          inputs.push_back({joined, n});
        }
      }
      if (core::Status s = compressBatch(inputs, level, subject, size, sink); !s) return s;
    }
    return core::Status::success();
  } catch (const std::bad_alloc&) {
    return makeError(ErrorCode::OutOfMemory, subject,
                     "cannot allocate the gzip output buffer for " + std::to_string(size) + " bytes");
  }
}

GzipStream::GzipStream(int level, std::string subject, GzipSink sink)
    : level_(level), subject_(std::move(subject)), sink_(std::move(sink)), failed_(checkGzipLevel(level_, subject_)) {}

GzipStream::~GzipStream() = default;

core::Status GzipStream::flushMembers(bool last) {
  std::vector<MemberInput> inputs;
  for (std::size_t at = 0; at < filled_; at += kMemberBytes)
    inputs.push_back({staging_.get() + at, std::min(kMemberBytes, filled_ - at)});
  static const std::uint8_t kNothing = 0;
  if (inputs.empty() && last && !wroteMember_) inputs.push_back({&kNothing, 0});  // an empty stream: one member
  if (inputs.empty()) return core::Status::success();
  wroteMember_ = true;
  core::Status s = compressBatch(inputs, level_, subject_, consumed_, sink_);
  filled_ = 0;
  return s;
}

core::Status GzipStream::append(const void* data, std::size_t size) {
  if (!failed_) return failed_;
  const auto fail = [&](core::Status s) {
    if (!s) failed_ = s;
    return s;
  };
  if (!staging_) {
    // One member per worker, as many as the machine compresses at once (at most 4: 32 MiB of input held).
    capacity_ = std::size_t(std::min(4u, workerCount(64))) * kMemberBytes;
    try {
      staging_.reset(new std::uint8_t[capacity_]);
    } catch (const std::bad_alloc&) {
      return fail(makeError(ErrorCode::OutOfMemory, subject_,
                            "cannot allocate " + std::to_string(capacity_) + " bytes to stage gzip members"));
    }
  }
  const auto* bytes = static_cast<const std::uint8_t*>(data);
  while (size > 0) {
    const std::size_t n = std::min(size, capacity_ - filled_);
    std::memcpy(staging_.get() + filled_, bytes, n);
    filled_ += n;
    consumed_ += n;
    bytes += n;
    size -= n;
    if (filled_ == capacity_)
      if (core::Status s = flushMembers(false); !s) return fail(s);
  }
  return core::Status::success();
}

core::Status GzipStream::finish() {
  if (!failed_) return failed_;
  core::Status s = flushMembers(true);
  if (!s) failed_ = s;
  return s;
}

core::Result<std::vector<std::uint8_t>> gzipCompress(const void* head, std::size_t headSize, const void* body,
                                                     std::size_t bodySize, int level, const std::string& subject) {
  std::vector<std::uint8_t> out;
  try {
    core::Status s = gzipCompressTo(head, headSize, body, bodySize, level, subject, [&](const std::uint8_t* bytes, std::size_t n) {
      out.insert(out.end(), bytes, bytes + n);
      return core::Status::success();
    });
    if (!s) return s.error();
  } catch (const std::bad_alloc&) {
    return makeError(ErrorCode::OutOfMemory, subject,
                     "cannot allocate the gzip output buffer for " + std::to_string(headSize + bodySize) + " bytes");
  }
  return out;
}

core::Result<std::vector<std::uint8_t>> gzipCompress(const void* data, std::size_t size, int level,
                                                     const std::string& subject) {
  return gzipCompress(nullptr, 0, data, size, level, subject);
}

}  // namespace delineate::io
