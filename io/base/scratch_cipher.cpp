#include "io/base/scratch_cipher.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

#include <climits>

namespace delineate::io {

core::Result<ScratchCipher> ScratchCipher::create() {
  ScratchCipher c;
  if (RAND_bytes(c.m_key.data(), int(c.m_key.size())) != 1 || RAND_bytes(c.m_nonce.data(), int(c.m_nonce.size())) != 1)
    return core::makeError(core::ErrorCode::InvalidArgument, "scratch key", "no random bytes (OpenSSL's RAND_bytes failed)");
  return c;
}

ScratchCipher::ScratchCipher(ScratchCipher&& other) noexcept : m_key(other.m_key), m_nonce(other.m_nonce) {
  OPENSSL_cleanse(other.m_key.data(), other.m_key.size());
}

ScratchCipher::~ScratchCipher() { OPENSSL_cleanse(m_key.data(), m_key.size()); }

core::Status ScratchCipher::apply(void* data, std::size_t n, std::uint64_t offset, std::uint32_t stream) const {
  if (n == 0) return core::Status::success();
  // The counter block: the nonce, the stream, then the 16-byte block number big-endian; a start inside a block skips
  // its first bytes of key stream.
  std::uint8_t iv[16];
  for (int i = 0; i < 4; ++i) iv[i] = m_nonce[std::size_t(i)];
  for (int i = 0; i < 4; ++i) iv[4 + i] = std::uint8_t(stream >> (24 - 8 * i));
  std::uint64_t block = offset / 16;
  for (int i = 15; i >= 8; --i) {
    iv[i] = std::uint8_t(block & 0xff);
    block >>= 8;
  }
  EVP_CIPHER_CTX* ctx = EVP_CIPHER_CTX_new();
  bool ok = ctx && EVP_EncryptInit_ex(ctx, EVP_aes_256_ctr(), nullptr, m_key.data(), iv) == 1;
  int len = 0;
  if (ok && offset % 16 != 0) {
    std::uint8_t skip[16] = {};
    ok = EVP_EncryptUpdate(ctx, skip, &len, skip, int(offset % 16)) == 1;
  }
  auto* p = static_cast<std::uint8_t*>(data);
  while (ok && n > 0) {
    const int step = n > std::size_t(INT_MAX / 2) ? INT_MAX / 2 : int(n);
    ok = EVP_EncryptUpdate(ctx, p, &len, p, step) == 1 && len == step;
    p += step;
    n -= std::size_t(step);
  }
  EVP_CIPHER_CTX_free(ctx);
  if (!ok) return core::makeError(core::ErrorCode::InvalidArgument, "scratch file", "OpenSSL's AES-256-CTR failed");
  return core::Status::success();
}

}  // namespace delineate::io
