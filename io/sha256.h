#pragma once
// SHA-256 (FIPS 180-4), our own: content hashes for the share store (revisions, checkpoints, read-back checks) and
// the audit log's hash chain. Incremental, so large files hash while they stream.

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/error.h"

namespace delineate::io {

class Sha256 {
 public:
  Sha256();
  void update(const void* data, std::size_t size);
  // The digest; the object is reset afterwards and can hash a new message.
  std::array<std::uint8_t, 32> finish();

 private:
  void block(const std::uint8_t* p);
  std::array<std::uint32_t, 8> m_state{};
  std::array<std::uint8_t, 64> m_buffer{};
  std::size_t m_buffered = 0;
  std::uint64_t m_length = 0;  // bytes so far
};

std::string toHex(const std::array<std::uint8_t, 32>& digest);
std::string sha256Hex(const void* data, std::size_t size);
// Streams the file in 1 MiB blocks; errors name the file.
core::Result<std::string> sha256OfFile(const std::string& path);

}  // namespace delineate::io
