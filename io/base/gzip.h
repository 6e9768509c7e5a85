#pragma once
// gzip (RFC 1952) for whole in-memory buffers, with a hard cap on what decompression may produce so a hostile or
// damaged file cannot make us allocate or write more than its own header declared.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/error.h"

namespace delineate::io {

// True when `data` starts with the gzip magic bytes (1f 8b). File extensions are not trusted for this.
bool isGzip(const std::uint8_t* data, std::size_t size);

// Deflate can compress at most about 1032:1, so a stream of `compressedBytes` can never inflate to more than this.
// Lets callers reject an impossible declared size before allocating for it.
std::uint64_t maxInflatedSize(std::uint64_t compressedBytes);

struct GunzipResult {
  std::size_t bytes = 0;   // written to the output buffer, never more than its capacity
  bool truncated = false;  // the input ended inside a gzip member (cut-off file)
};

// Inflates one or more concatenated gzip members from `in` into `out`, stopping once `capacity` bytes are produced
// (output beyond that is not produced). When fewer bytes come back, `truncated` says whether the file was cut off or
// simply holds less. Bytes after the last member that are not another member are ignored, as gzip(1) does.
//
// A stream written by gzipCompress (indexed members whose sizes add up to exactly `capacity`) is inflated in
// parallel, each member checked against its CRC; if anything does not add up it takes the paths below.
// When the last member's ISIZE trailer equals `capacity` (mod 2^32, as the format stores it) the whole buffer is
// inflated in one call by libdeflate (several times faster); otherwise, or if that fails, zlib streams with the cap.
// Damaged data (bad deflate codes, CRC mismatch) is a Corrupt error naming `subject`.
core::Result<GunzipResult> gunzipInto(const std::uint8_t* in, std::size_t inSize, std::uint8_t* out,
                                      std::size_t capacity, const std::string& subject);

// The parallel path alone: true when `in` is exactly a gzipCompress stream (indexed members) of `capacity` bytes and
// every member inflated and matched its CRC; false otherwise (then `out` may hold partial data).
bool gunzipIndexed(const std::uint8_t* in, std::size_t inSize, std::uint8_t* out, std::size_t capacity);

// libdeflate levels: 0 (stored) .. 12 (slowest, smallest). 6 matches gzip(1)'s default trade-off.
constexpr int kDefaultGzipLevel = 6;
// InvalidArgument naming `subject` for a level outside 0..12.
core::Status checkGzipLevel(int level, const std::string& subject);

// gzip of `size` bytes as consecutive members of 8 MiB, compressed in parallel, each with an extra field ("DL": the
// member's size in the file and uncompressed) so gunzipInto can find the members without inflating and inflate them
// in parallel. Every gzip reader reads such a file (members concatenate); other writers' files take the ordinary
// one-thread path. `level` outside 0..12 is an InvalidArgument error.
core::Result<std::vector<std::uint8_t>> gzipCompress(const void* data, std::size_t size, int level,
                                                     const std::string& subject);
// The same for the concatenation head + body (a file header and its voxels) without copying the body: members are
// compressed straight from it, only the first one is assembled.
core::Result<std::vector<std::uint8_t>> gzipCompress(const void* head, std::size_t headSize, const void* body,
                                                     std::size_t bodySize, int level, const std::string& subject);

// The same members handed to `sink` in order as they are made, a few at a time (two per worker thread), so a large
// file is written without holding its compressed bytes whole. A sink error ends it and is returned.
using GzipSink = std::function<core::Status(const std::uint8_t* bytes, std::size_t size)>;
core::Status gzipCompressTo(const void* head, std::size_t headSize, const void* body, std::size_t bodySize, int level,
                            const std::string& subject, const GzipSink& sink);

// The same indexed members made from bytes that arrive in pieces (a volume decoded slab by slab, never held whole):
// every 8 MiB of what is appended becomes a member at the same place as gzipCompressTo of the whole would put it, so
// the two streams are byte-identical. Members are compressed in parallel a batch at a time (one per worker, at most
// four: 32 MiB of input staged) and handed to `sink` in order. After an error every later call returns it.
class GzipStream {
 public:
  GzipStream(int level, std::string subject, GzipSink sink);
  ~GzipStream();
  GzipStream(const GzipStream&) = delete;
  GzipStream& operator=(const GzipStream&) = delete;

  core::Status append(const void* data, std::size_t size);
  // Compresses what is staged; a stream with nothing appended still gets its one (empty) member, as gzipCompressTo.
  core::Status finish();
  // Bytes appended so far.
  std::size_t consumed() const { return consumed_; }

 private:
  core::Status flushMembers(bool last);

  int level_;
  std::string subject_;
  GzipSink sink_;
  std::unique_ptr<std::uint8_t[]> staging_;
  std::size_t capacity_ = 0, filled_ = 0, consumed_ = 0;
  bool wroteMember_ = false;
  core::Status failed_ = core::Status::success();  // the first error, the answer from then on
};

}  // namespace delineate::io
