#include "io/trust/content_key.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/kdf.h>
#include <openssl/rand.h>

#include <cstring>
#include <vector>

#include "io/base/sealed_file.h"

namespace delineate::io {
using core::ErrorCode;
using core::makeError;

namespace {
using Bytes = std::vector<unsigned char>;

// AES-256-GCM of `plain` (32 bytes) under `key` with `nonce` (12 bytes) and `aad`: ciphertext and tag, 48 bytes.
bool gcmSeal(const unsigned char* key, const unsigned char* nonce, const std::string& aad, const unsigned char* plain,
             unsigned char* out) {
  EVP_CIPHER_CTX* ctx = EVP_CIPHER_CTX_new();
  int n = 0;
  const bool ok = ctx && EVP_EncryptInit_ex(ctx, EVP_aes_256_gcm(), nullptr, key, nonce) == 1 &&
                  EVP_EncryptUpdate(ctx, nullptr, &n, reinterpret_cast<const unsigned char*>(aad.data()),
                                    int(aad.size())) == 1 &&
                  EVP_EncryptUpdate(ctx, out, &n, plain, 32) == 1 && n == 32 &&
                  EVP_EncryptFinal_ex(ctx, out + 32, &n) == 1 &&
                  EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_GET_TAG, 16, out + 32) == 1;
  EVP_CIPHER_CTX_free(ctx);
  return ok;
}

bool gcmOpen(const unsigned char* key, const unsigned char* nonce, const std::string& aad, const unsigned char* sealed,
             unsigned char* out) {
  EVP_CIPHER_CTX* ctx = EVP_CIPHER_CTX_new();
  int n = 0;
  unsigned char tail[16];
  const bool ok = ctx && EVP_DecryptInit_ex(ctx, EVP_aes_256_gcm(), nullptr, key, nonce) == 1 &&
                  EVP_DecryptUpdate(ctx, nullptr, &n, reinterpret_cast<const unsigned char*>(aad.data()),
                                    int(aad.size())) == 1 &&
                  EVP_DecryptUpdate(ctx, out, &n, sealed, 32) == 1 &&
                  EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_TAG, 16, const_cast<unsigned char*>(sealed + 32)) == 1 &&
                  EVP_DecryptFinal_ex(ctx, tail, &n) == 1;  // GCM writes nothing here
  EVP_CIPHER_CTX_free(ctx);
  if (!ok) OPENSSL_cleanse(out, 32);
  return ok;
}

// HKDF-SHA256 to 32 bytes.
bool hkdf(const std::string& secret, const Bytes& salt, const std::string& info, unsigned char* out) {
  EVP_PKEY_CTX* ctx = EVP_PKEY_CTX_new_id(EVP_PKEY_HKDF, nullptr);
  std::size_t len = 32;
  const bool ok = ctx && EVP_PKEY_derive_init(ctx) == 1 && EVP_PKEY_CTX_set_hkdf_md(ctx, EVP_sha256()) == 1 &&
                  EVP_PKEY_CTX_set1_hkdf_salt(ctx, salt.data(), int(salt.size())) == 1 &&
                  EVP_PKEY_CTX_set1_hkdf_key(ctx, reinterpret_cast<const unsigned char*>(secret.data()),
                                             int(secret.size())) == 1 &&
                  EVP_PKEY_CTX_add1_hkdf_info(ctx, reinterpret_cast<const unsigned char*>(info.data()),
                                              int(info.size())) == 1 &&
                  EVP_PKEY_derive(ctx, out, &len) == 1 && len == 32;
  EVP_PKEY_CTX_free(ctx);
  return ok;
}

std::string previousContext(const std::string& storeId, int generation) {
  return "delineate-share-key-chain/1\n" + storeId + "\n" + std::to_string(generation);
}
}  // namespace

std::string keyIdHex(const std::array<std::uint8_t, 8>& id) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (std::uint8_t b : id) {
    out += digits[b >> 4];
    out += digits[b & 15];
  }
  return out;
}

std::array<std::uint8_t, 8> keyIdFromHex(const std::string& hex) {
  const auto nibble = [](char c) { return c <= '9' ? c - '0' : c - 'a' + 10; };
  std::array<std::uint8_t, 8> id{};
  for (std::size_t i = 0; i < id.size() && 2 * i + 1 < hex.size(); ++i)
    id[i] = std::uint8_t(nibble(hex[2 * i]) * 16 + nibble(hex[2 * i + 1]));
  return id;
}

std::string contentKeyIdHex(const ContentKeyBytes& key) { return keyIdHex(sealKeyId(key, kShareKeyLabel)); }

core::Result<ContentKeyBytes> newContentKey() {
  ContentKeyBytes key{};
  if (RAND_bytes(key.data(), int(key.size())) != 1)
    return makeError(ErrorCode::InvalidArgument, "content key", "no random bytes (OpenSSL's RAND_bytes failed)");
  return key;
}

bool isBoxKey(const std::string& base64) {
  Bytes b;
  return base64Decode(base64, 32, b);
}

std::string contentKeyContext(const std::string& storeId, int generation, const std::string& user) {
  return "delineate-share-key/1\n" + storeId + "\n" + std::to_string(generation) + "\n" + user;
}

core::Result<WrappedContentKey> wrapContentKey(const ContentKeyBytes& key, const std::string& boxPublicKey,
                                               const std::string& context) {
  Bytes peerBytes;
  if (!base64Decode(boxPublicKey, 32, peerBytes))
    return makeError(ErrorCode::InvalidArgument, "box key", "not base64 of 32 bytes (an X25519 key)");
  EVP_PKEY* peer = EVP_PKEY_new_raw_public_key(EVP_PKEY_X25519, nullptr, peerBytes.data(), peerBytes.size());
  EVP_PKEY* eph = nullptr;
  EVP_PKEY_CTX* gen = EVP_PKEY_CTX_new_id(EVP_PKEY_X25519, nullptr);
  bool ok = peer && gen && EVP_PKEY_keygen_init(gen) == 1 && EVP_PKEY_keygen(gen, &eph) == 1;
  EVP_PKEY_CTX_free(gen);
  std::string secret(32, '\0');
  unsigned char epk[32];
  std::size_t len = 32, epkLen = sizeof epk;
  if (ok) {
    EVP_PKEY_CTX* ctx = EVP_PKEY_CTX_new(eph, nullptr);
    ok = ctx && EVP_PKEY_derive_init(ctx) == 1 && EVP_PKEY_derive_set_peer(ctx, peer) == 1 &&
         EVP_PKEY_derive(ctx, reinterpret_cast<unsigned char*>(secret.data()), &len) == 1 && len == 32 &&
         EVP_PKEY_get_raw_public_key(eph, epk, &epkLen) == 1 && epkLen == 32;
    EVP_PKEY_CTX_free(ctx);
  }
  EVP_PKEY_free(eph);
  EVP_PKEY_free(peer);
  if (!ok) return makeError(ErrorCode::InvalidArgument, "box key", "X25519 with this box key failed (not a usable key)");
  Bytes salt(epk, epk + 32);
  salt.insert(salt.end(), peerBytes.begin(), peerBytes.end());
  unsigned char kek[32], sealed[48];
  static const unsigned char zeroNonce[12] = {};
  ok = hkdf(secret, salt, context, kek) && gcmSeal(kek, zeroNonce, context, key.data(), sealed);
  OPENSSL_cleanse(kek, sizeof kek);
  OPENSSL_cleanse(secret.data(), secret.size());
  if (!ok) return makeError(ErrorCode::InvalidArgument, "content key", "OpenSSL could not wrap the key");
  return WrappedContentKey{base64Encode(epk, 32), base64Encode(sealed, 48)};
}

core::Result<ContentKeyBytes> unwrapContentKey(const WrappedContentKey& wrapped, const SigningKey& key,
                                               const std::string& context, const std::string& source) {
  Bytes epk, sealed, own;
  if (!base64Decode(wrapped.epk, 32, epk) || !base64Decode(wrapped.key, 48, sealed) ||
      !base64Decode(key.boxPublicKey(), 32, own))
    return makeError(ErrorCode::InvalidArgument, source, "the wrapped content key is not in its form (base64 of 32 and 48 bytes)");
  auto secret = key.boxAgree(wrapped.epk, source);
  if (!secret) return secret.error();
  Bytes salt = epk;
  salt.insert(salt.end(), own.begin(), own.end());
  unsigned char kek[32];
  static const unsigned char zeroNonce[12] = {};
  ContentKeyBytes out{};
  const bool ok = hkdf(*secret, salt, context, kek) && gcmOpen(kek, zeroNonce, context, sealed.data(), out.data());
  OPENSSL_cleanse(kek, sizeof kek);
  OPENSSL_cleanse(secret->data(), secret->size());
  if (!ok)
    return makeError(ErrorCode::InvalidArgument, source,
                     "the content key wrapped for this user does not open with this user's key (wrapped for another "
                     "key, or changed)");
  return out;
}

namespace {
// The key the previous generation's key is sealed under: derived from the content key (HKDF, the chain's context), so
// the content key itself seals files only.
bool chainKey(const ContentKeyBytes& current, const std::string& context, unsigned char* out) {
  // No salt given: RFC 5869 takes a hash length of zeros (OpenSSL wants it spelt out).
  return hkdf(std::string(reinterpret_cast<const char*>(current.data()), current.size()), Bytes(32, 0), context, out);
}
}  // namespace

core::Status sealPreviousKey(ContentKeyBlock& block, const ContentKeyBytes& current, const ContentKeyBytes& previous,
                             const std::string& storeId) {
  unsigned char nonce[12], sealed[48], key[32];
  const std::string context = previousContext(storeId, block.generation);
  const bool ok = RAND_bytes(nonce, sizeof nonce) == 1 && chainKey(current, context, key) &&
                  gcmSeal(key, nonce, context, previous.data(), sealed);
  OPENSSL_cleanse(key, sizeof key);
  if (!ok) return makeError(ErrorCode::InvalidArgument, "content key", "OpenSSL could not seal the previous key");
  block.previousNonce = base64Encode(nonce, sizeof nonce);
  block.previousKey = base64Encode(sealed, sizeof sealed);
  return core::Status::success();
}

core::Result<ContentKeyBytes> openPreviousKey(const ContentKeyBlock& block, const ContentKeyBytes& current,
                                              const std::string& storeId, const std::string& source) {
  Bytes nonce, sealed;
  if (!base64Decode(block.previousNonce, 12, nonce) || !base64Decode(block.previousKey, 48, sealed))
    return makeError(ErrorCode::InvalidArgument, source,
                     "content key generation " + std::to_string(block.generation) + " has no previous key in its form");
  ContentKeyBytes out{};
  unsigned char key[32];
  const std::string context = previousContext(storeId, block.generation);
  const bool ok = chainKey(current, context, key) && gcmOpen(key, nonce.data(), context, sealed.data(), out.data());
  OPENSSL_cleanse(key, sizeof key);
  if (!ok)
    return makeError(ErrorCode::InvalidArgument, source,
                     "the previous content key under generation " + std::to_string(block.generation) + " does not open");
  return out;
}

}  // namespace delineate::io
