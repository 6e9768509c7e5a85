#include "io/base/sha256.h"

#include <algorithm>

#include <fcntl.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#include <immintrin.h>
#endif

#include <cerrno>
#include <cstring>
#include <vector>

namespace delineate::io {
namespace {

constexpr std::uint32_t kRound[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

constexpr std::array<std::uint32_t, 8> kInitial = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                                   0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};

inline std::uint32_t rotr(std::uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

void compressPortable(std::uint32_t* state, const std::uint8_t* p, std::size_t count) {
  for (; count > 0; --count, p += 64) {
    std::uint32_t w[64];
    for (int i = 0; i < 16; ++i)
      w[i] = std::uint32_t(p[4 * i]) << 24 | std::uint32_t(p[4 * i + 1]) << 16 | std::uint32_t(p[4 * i + 2]) << 8 |
             std::uint32_t(p[4 * i + 3]);
    for (int i = 16; i < 64; ++i) {
      const std::uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
      const std::uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
      w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    std::uint32_t a = state[0], b = state[1], c = state[2], d = state[3];
    std::uint32_t e = state[4], f = state[5], g = state[6], h = state[7];
    for (int i = 0; i < 64; ++i) {
      const std::uint32_t t1 = h + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + kRound[i] + w[i];
      const std::uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
      h = g;
      g = f;
      f = e;
      e = d + t1;
      d = c;
      c = b;
      b = a;
      a = t1 + t2;
    }
    state[0] += a;
    state[1] += b;
    state[2] += c;
    state[3] += d;
    state[4] += e;
    state[5] += f;
    state[6] += g;
    state[7] += h;
  }
}

#if defined(__x86_64__) || defined(__i386__)
#define DELINEATE_SHA_NI 1
// The SHA-NI form of the same compression (Intel's SHA extensions reference, 2013). The instructions keep the
// working variables as two registers, ABEF and CDGH (A in the highest dword); SHA256RNDS2 does two rounds with the
// low two dwords of its message+constant operand and returns the new ABEF, while the old ABEF becomes the new CDGH,
// so the two registers swap roles every two rounds. SHA256MSG1/MSG2 compute the message schedule four words at a
// time: W[t..t+3] = MSG2(MSG1(W[t-16..t-13], W[t-12..t-9]) + W[t-7..t-4], W[t-4..t-1]).
__attribute__((target("sha,sse4.1,ssse3"))) void compressShaNi(std::uint32_t* state, const std::uint8_t* p,
                                                                std::size_t count) {
  // Byte order: message words are big-endian; this shuffle reverses the bytes within each dword.
  const __m128i bswap = _mm_set_epi8(12, 13, 14, 15, 8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3);
  const __m128i abcd = _mm_shuffle_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(state)), 0xB1);
  const __m128i hgfe = _mm_shuffle_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(state + 4)), 0x1B);
  __m128i abef = _mm_alignr_epi8(abcd, hgfe, 8);
  __m128i cdgh = _mm_blend_epi16(hgfe, abcd, 0xF0);
  for (; count > 0; --count, p += 64) {
    const __m128i abefIn = abef, cdghIn = cdgh;
    __m128i w[16];  // w[g] = W[4g .. 4g+3], W[4g] in the lowest dword
    for (int g = 0; g < 4; ++g)
      w[g] = _mm_shuffle_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * g)), bswap);
    for (int g = 4; g < 16; ++g) {
      const __m128i t = _mm_add_epi32(_mm_sha256msg1_epu32(w[g - 4], w[g - 3]), _mm_alignr_epi8(w[g - 1], w[g - 2], 4));
      w[g] = _mm_sha256msg2_epu32(t, w[g - 1]);
    }
    for (int g = 0; g < 16; ++g) {
      __m128i wk = _mm_add_epi32(w[g], _mm_loadu_si128(reinterpret_cast<const __m128i*>(kRound + 4 * g)));
      // Rounds 4g and 4g+1: the new ABEF goes into `cdgh`, and the old ABEF in `abef` is now the CDGH.
      cdgh = _mm_sha256rnds2_epu32(cdgh, abef, wk);
      // Rounds 4g+2 and 4g+3 swap them back: `abef` and `cdgh` are named right again.
      wk = _mm_shuffle_epi32(wk, 0x0E);
      abef = _mm_sha256rnds2_epu32(abef, cdgh, wk);
    }
    abef = _mm_add_epi32(abef, abefIn);
    cdgh = _mm_add_epi32(cdgh, cdghIn);
  }
  const __m128i feba = _mm_shuffle_epi32(abef, 0x1B);
  const __m128i dchg = _mm_shuffle_epi32(cdgh, 0xB1);
  _mm_storeu_si128(reinterpret_cast<__m128i*>(state), _mm_blend_epi16(feba, dchg, 0xF0));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(state + 4), _mm_alignr_epi8(dchg, feba, 8));
}

bool cpuHasShaNi() {
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (!__get_cpuid(1, &a, &b, &c, &d)) return false;
  const bool sse41 = (c & bit_SSE4_1) != 0, ssse3 = (c & bit_SSSE3) != 0;
  if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return false;
  return sse41 && ssse3 && (b & bit_SHA) != 0;
}
#endif

bool shaNiAvailable() {
#ifdef DELINEATE_SHA_NI
  static const bool available = cpuHasShaNi();
  return available;
#else
  return false;
#endif
}

}  // namespace

Sha256::Sha256(Engine engine) : m_compress(compressPortable), m_engine(engine), m_state(kInitial) {
#ifdef DELINEATE_SHA_NI
  if (engine == Engine::Auto && shaNiAvailable()) m_compress = compressShaNi;
#endif
}

bool Sha256::hardwareAccelerated() { return shaNiAvailable(); }

void Sha256::update(const void* data, std::size_t size) {
  const auto* p = static_cast<const std::uint8_t*>(data);
  m_length += size;
  if (m_buffered > 0) {
    const std::size_t take = std::min(size, 64 - m_buffered);
    std::memcpy(m_buffer.data() + m_buffered, p, take);
    m_buffered += take;
    p += take;
    size -= take;
    if (m_buffered < 64) return;
    m_compress(m_state.data(), m_buffer.data(), 1);
    m_buffered = 0;
  }
  const std::size_t whole = size / 64;
  if (whole > 0) m_compress(m_state.data(), p, whole);
  p += whole * 64;
  size -= whole * 64;
  std::memcpy(m_buffer.data(), p, size);
  m_buffered = size;
}

std::array<std::uint8_t, 32> Sha256::finish() {
  const std::uint64_t bits = m_length * 8;
  const std::uint8_t pad = 0x80;
  update(&pad, 1);
  const std::uint8_t zero = 0;
  while (m_buffered != 56) update(&zero, 1);
  std::uint8_t length[8];
  for (int i = 0; i < 8; ++i) length[i] = std::uint8_t(bits >> (56 - 8 * i));
  update(length, 8);
  std::array<std::uint8_t, 32> digest{};
  for (int i = 0; i < 8; ++i)
    for (int b = 0; b < 4; ++b) digest[std::size_t(4 * i + b)] = std::uint8_t(m_state[std::size_t(i)] >> (24 - 8 * b));
  *this = Sha256(m_engine);
  return digest;
}

std::string toHex(const std::array<std::uint8_t, 32>& digest) {
  static const char* const kHex = "0123456789abcdef";
  std::string s(64, '0');
  for (std::size_t i = 0; i < 32; ++i) {
    s[2 * i] = kHex[digest[i] >> 4];
    s[2 * i + 1] = kHex[digest[i] & 15];
  }
  return s;
}

std::array<std::uint8_t, 32> hmacSha256(const std::string& key, const std::string& message) {
  std::array<std::uint8_t, 64> block{};  // the key, hashed first when longer than a block, zero-padded
  if (key.size() > block.size()) {
    Sha256 h;
    h.update(key.data(), key.size());
    const auto digest = h.finish();
    std::copy(digest.begin(), digest.end(), block.begin());
  } else {
    std::copy(key.begin(), key.end(), block.begin());
  }
  std::array<std::uint8_t, 64> inner{}, outer{};
  for (std::size_t i = 0; i < block.size(); ++i) {
    inner[i] = std::uint8_t(block[i] ^ 0x36);
    outer[i] = std::uint8_t(block[i] ^ 0x5c);
  }
  Sha256 h;
  h.update(inner.data(), inner.size());
  h.update(message.data(), message.size());
  const auto innerDigest = h.finish();
  h.update(outer.data(), outer.size());
  h.update(innerDigest.data(), innerDigest.size());
  return h.finish();
}

std::string sha256Hex(const void* data, std::size_t size) {
  Sha256 h;
  h.update(data, size);
  return toHex(h.finish());
}

core::Result<std::string> sha256OfFile(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return core::makeError(errno == ENOENT ? core::ErrorCode::NotFound : core::ErrorCode::ReadFailed, path,
                           std::strerror(errno));
  Sha256 h;
  std::vector<std::uint8_t> buffer(std::size_t(1) << 20);
  for (;;) {
    const ssize_t n = ::read(fd, buffer.data(), buffer.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int e = errno;
      ::close(fd);
      return core::makeError(core::ErrorCode::ReadFailed, path, std::string("reading to hash it: ") + std::strerror(e));
    }
    if (n == 0) break;
    h.update(buffer.data(), std::size_t(n));
  }
  ::close(fd);
  return toHex(h.finish());
}

}  // namespace delineate::io
