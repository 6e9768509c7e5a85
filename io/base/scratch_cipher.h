#pragma once
// Scratch files one process writes and reads back itself (the spill files of a training run's prepared cases:
// voxels of patients' images), encrypted at rest under a key that exists only in that process's memory (issue 47,
// item 2): AES-256-CTR through OpenSSL, a random key and nonce per ScratchCipher, never written anywhere. Each file
// is a stream of its own (its number in the counter block: nonce 4 bytes, stream 4, block 8), so no two files, and
// no two places of one, share key stream. Such files
// are unreadable by anyone once the process has gone, a crash's leftovers included. CTR because the reader reads a
// row of voxels here and there (pread of a few hundred bytes at any offset): each byte is decrypted alone, at the cost
// of its own bytes, where a sealed file's 64 KiB authenticated chunks (io/base/sealed_file.h) would cost a whole chunk
// per row. No authentication: the files live for one run in an owner-only folder, and whoever can change them runs as
// this user already (and could change the process); said in the README.

#include <array>
#include <cstddef>
#include <cstdint>

#include "core/error.h"

namespace delineate::io {

class ScratchCipher {
 public:
  // A fresh random key and nonce; error when OpenSSL has no random bytes.
  static core::Result<ScratchCipher> create();
  ScratchCipher(const ScratchCipher&) = delete;
  ScratchCipher& operator=(const ScratchCipher&) = delete;
  ScratchCipher(ScratchCipher&& other) noexcept;
  ScratchCipher& operator=(ScratchCipher&&) = delete;
  ~ScratchCipher();  // the key is wiped

  // Encrypts or decrypts (the same operation) `n` bytes in place, which lie at byte `offset` of file number `stream`
  // (each file written under this cipher a number of its own). Thread-safe.
  core::Status apply(void* data, std::size_t n, std::uint64_t offset, std::uint32_t stream) const;

 private:
  ScratchCipher() = default;
  std::array<std::uint8_t, 32> m_key{};
  std::array<std::uint8_t, 4> m_nonce{};
};

}  // namespace delineate::io
