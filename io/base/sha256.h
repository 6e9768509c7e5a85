#pragma once
// SHA-256 (FIPS 180-4), our own: content hashes for the share store (revisions, checkpoints, read-back checks) and
// the audit log's hash chain. Incremental, so large files hash while they stream. Where the CPU has the SHA
// extensions (x86 SHA-NI: Intel since Ice Lake/Goldmont, AMD since Zen) the compression function runs on them,
// about 4-5x faster than portable code; checkpoints of hundreds of MB are hashed twice per save (while writing and
// on read-back), so this is most of a save's cost otherwise. The choice is made once per process from CPUID.

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/error.h"

namespace delineate::io {

class Sha256 {
 public:
  enum class Engine { Auto, Portable };
  explicit Sha256(Engine engine = Engine::Auto);
  // Whether Engine::Auto uses the CPU's SHA instructions on this machine.
  static bool hardwareAccelerated();
  void update(const void* data, std::size_t size);
  // The digest; the object is reset afterwards and can hash a new message.
  std::array<std::uint8_t, 32> finish();

 private:
  using Compress = void (*)(std::uint32_t* state, const std::uint8_t* blocks, std::size_t count);
  Compress m_compress;
  Engine m_engine;
  std::array<std::uint32_t, 8> m_state{};
  std::array<std::uint8_t, 64> m_buffer{};
  std::size_t m_buffered = 0;
  std::uint64_t m_length = 0;  // bytes so far
};

std::string toHex(const std::array<std::uint8_t, 32>& digest);
std::string sha256Hex(const void* data, std::size_t size);
// HMAC-SHA-256 (RFC 2104): keyed hashes whose output nobody without the key can reproduce (pseudonyms).
std::array<std::uint8_t, 32> hmacSha256(const std::string& key, const std::string& message);
// Streams the file in 1 MiB blocks; errors name the file.
core::Result<std::string> sha256OfFile(const std::string& path);

}  // namespace delineate::io
