#include "io/trust/signing_key.h"

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/crypto.h>

#include <cstdlib>
#include <filesystem>
#include <vector>

#include "io/base/atomic_file.h"
#include "io/base/file_modes.h"
#include "io/base/file_read.h"
#include "io/base/sha256.h"

namespace delineate::io {
namespace fs = std::filesystem;
using core::ErrorCode;
using core::makeError;

namespace {

std::shared_ptr<void> own(EVP_PKEY* key) {
  return std::shared_ptr<void>(key, [](void* p) { EVP_PKEY_free(static_cast<EVP_PKEY*>(p)); });
}
EVP_PKEY* raw(const std::shared_ptr<void>& key) { return static_cast<EVP_PKEY*>(key.get()); }

std::string rawPublicKey(EVP_PKEY* key) {
  unsigned char buf[32];
  std::size_t len = sizeof buf;
  if (EVP_PKEY_get_raw_public_key(key, buf, &len) != 1 || len != 32) return {};
  return base64Encode(buf, len);
}

}  // namespace

std::string base64Encode(const unsigned char* data, std::size_t size) {
  std::string out(4 * ((size + 2) / 3) + 1, '\0');
  const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()), data, static_cast<int>(size));
  out.resize(static_cast<std::size_t>(n));
  return out;
}

// Strict base64 of exactly `expected` bytes (EVP_DecodeBlock pads its output to whole triples).
bool base64Decode(const std::string& text, std::size_t expected, std::vector<unsigned char>& out) {
  if (text.size() != 4 * ((expected + 2) / 3) || text.size() > 1024) return false;
  out.assign(text.size() / 4 * 3, 0);
  const int n = EVP_DecodeBlock(out.data(), reinterpret_cast<const unsigned char*>(text.data()),
                                static_cast<int>(text.size()));
  if (n < 0) return false;
  const std::size_t padding = (text.size() >= 1 && text.back() == '=') + (text.size() >= 2 && text[text.size() - 2] == '=');
  if (static_cast<std::size_t>(n) - padding != expected) return false;
  out.resize(expected);
  return true;
}

std::string keyFingerprint(const std::string& publicKeyBase64) {
  std::vector<unsigned char> bytes;
  if (!base64Decode(publicKeyBase64, 32, bytes)) return {};
  return sha256Hex(bytes.data(), bytes.size());
}

core::Result<PublicKey> PublicKey::fromBase64(const std::string& base64, const std::string& source) {
  std::vector<unsigned char> bytes;
  if (!base64Decode(base64, 32, bytes))
    return makeError(ErrorCode::InvalidArgument, source, "the public key is not base64 of 32 bytes (an Ed25519 key)");
  EVP_PKEY* key = EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nullptr, bytes.data(), bytes.size());
  if (!key) return makeError(ErrorCode::InvalidArgument, source, "the public key is not an Ed25519 key");
  PublicKey k;
  k.m_key = own(key);
  k.m_base64 = base64;
  k.m_fingerprint = sha256Hex(bytes.data(), bytes.size());
  return k;
}

bool PublicKey::verify(const std::string& message, const std::string& signatureBase64) const {
  std::vector<unsigned char> sig;
  if (!m_key || !base64Decode(signatureBase64, 64, sig)) return false;
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  if (!ctx) return false;
  bool ok = EVP_DigestVerifyInit(ctx, nullptr, nullptr, nullptr, raw(m_key)) == 1 &&
            EVP_DigestVerify(ctx, sig.data(), sig.size(), reinterpret_cast<const unsigned char*>(message.data()),
                             message.size()) == 1;
  EVP_MD_CTX_free(ctx);
  return ok;
}

core::Result<SigningKey> SigningKey::generate() {
  EVP_PKEY* key = nullptr;
  EVP_PKEY_CTX* ctx = EVP_PKEY_CTX_new_id(EVP_PKEY_ED25519, nullptr);
  const bool ok = ctx && EVP_PKEY_keygen_init(ctx) == 1 && EVP_PKEY_keygen(ctx, &key) == 1;
  EVP_PKEY_CTX_free(ctx);
  if (!ok) return makeError(ErrorCode::InvalidArgument, "Ed25519", "OpenSSL could not generate a key");
  SigningKey k;
  k.m_key = own(key);
  auto pub = PublicKey::fromBase64(rawPublicKey(key), "Ed25519");
  if (!pub) return pub.error();
  k.m_public = std::move(*pub);
  if (core::Status s = k.deriveBox(); !s) return s.error();
  return k;
}

core::Result<SigningKey> SigningKey::load(const std::string& path) {
  auto text = readSecretFile(path, 64 * 1024, "signing key");
  if (!text) return text.error();
  BIO* bio = BIO_new_mem_buf(text->data(), static_cast<int>(text->size()));
  if (!bio) return makeError(ErrorCode::ReadFailed, path, "OpenSSL could not read the key");
  EVP_PKEY* key = PEM_read_bio_PrivateKey(bio, nullptr, nullptr, nullptr);
  BIO_free(bio);
  if (!key) return makeError(ErrorCode::InvalidArgument, path, "not a PEM private key (PKCS#8)");
  if (EVP_PKEY_get_id(key) != EVP_PKEY_ED25519) {
    EVP_PKEY_free(key);
    return makeError(ErrorCode::InvalidArgument, path, "the key is not an Ed25519 key");
  }
  SigningKey k;
  k.m_key = own(key);
  auto pub = PublicKey::fromBase64(rawPublicKey(key), path);
  if (!pub) return pub.error();
  k.m_public = std::move(*pub);
  if (core::Status s = k.deriveBox(); !s) return makeError(s.error().code, path, s.error().detail);
  return k;
}

core::Status SigningKey::deriveBox() {
  unsigned char seed[32];
  std::size_t len = sizeof seed;
  if (EVP_PKEY_get_raw_private_key(raw(m_key), seed, &len) != 1 || len != 32)
    return makeError(ErrorCode::InvalidArgument, "Ed25519", "OpenSSL could not read the key's seed");
  Sha256 h;
  static const char label[] = "delineate-box/1";
  h.update(label, sizeof label - 1);
  h.update(seed, sizeof seed);
  auto scalar = h.finish();
  OPENSSL_cleanse(seed, sizeof seed);
  EVP_PKEY* box = EVP_PKEY_new_raw_private_key(EVP_PKEY_X25519, nullptr, scalar.data(), 32);
  OPENSSL_cleanse(scalar.data(), scalar.size());
  if (!box) return makeError(ErrorCode::InvalidArgument, "X25519", "OpenSSL could not make the box key");
  m_box = own(box);
  m_boxPublic = rawPublicKey(box);
  if (m_boxPublic.empty()) return makeError(ErrorCode::InvalidArgument, "X25519", "OpenSSL could not read the box key");
  return core::Status::success();
}

core::Result<std::string> SigningKey::boxAgree(const std::string& peerPublicBase64, const std::string& source) const {
  std::vector<unsigned char> peerBytes;
  if (!base64Decode(peerPublicBase64, 32, peerBytes))
    return makeError(ErrorCode::InvalidArgument, source, "the box key is not base64 of 32 bytes (an X25519 key)");
  EVP_PKEY* peer = EVP_PKEY_new_raw_public_key(EVP_PKEY_X25519, nullptr, peerBytes.data(), peerBytes.size());
  if (!peer) return makeError(ErrorCode::InvalidArgument, source, "the box key is not an X25519 key");
  std::string secret(32, '\0');
  std::size_t len = secret.size();
  EVP_PKEY_CTX* ctx = EVP_PKEY_CTX_new(raw(m_box), nullptr);
  const bool ok = ctx && EVP_PKEY_derive_init(ctx) == 1 && EVP_PKEY_derive_set_peer(ctx, peer) == 1 &&
                  EVP_PKEY_derive(ctx, reinterpret_cast<unsigned char*>(secret.data()), &len) == 1 && len == 32;
  EVP_PKEY_CTX_free(ctx);
  EVP_PKEY_free(peer);
  // OpenSSL refuses an all-zero result (a low-order peer point) in EVP_PKEY_derive.
  if (!ok) return makeError(ErrorCode::InvalidArgument, source, "X25519 with this box key failed (not a usable key)");
  return secret;
}

core::Status SigningKey::saveNew(const std::string& path) const {
  std::error_code ec;
  if (fs::exists(fs::symlink_status(path, ec)))
    return makeError(ErrorCode::WriteFailed, path, "a file is there already; a key is never written over");
  const fs::path parent = fs::path(path).parent_path();
  if (!parent.empty())
    if (core::Status s = createFolders(parent.string(), FileAccess::Private); !s) return s;
  BIO* bio = BIO_new(BIO_s_mem());
  if (!bio || PEM_write_bio_PrivateKey(bio, raw(m_key), nullptr, nullptr, 0, nullptr, nullptr) != 1) {
    BIO_free(bio);
    return makeError(ErrorCode::WriteFailed, path, "OpenSSL could not encode the key");
  }
  char* data = nullptr;
  const long n = BIO_get_mem_data(bio, &data);
  std::string pem(data, static_cast<std::size_t>(n));
  BIO_free(bio);
  AtomicWriteOptions options;
  options.noReplace = true;
  options.access = FileAccess::Private;
  core::Status s = writeFileAtomically(path, pem.data(), pem.size(), options);
  OPENSSL_cleanse(pem.data(), pem.size());
  return s;
}

std::string SigningKey::sign(const std::string& message) const {
  unsigned char sig[64];
  std::size_t len = sizeof sig;
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  const bool ok = ctx && EVP_DigestSignInit(ctx, nullptr, nullptr, nullptr, raw(m_key)) == 1 &&
                  EVP_DigestSign(ctx, sig, &len, reinterpret_cast<const unsigned char*>(message.data()),
                                 message.size()) == 1;
  EVP_MD_CTX_free(ctx);
  return ok ? base64Encode(sig, len) : std::string();
}

std::string defaultSigningKeyPath() {
  if (const char* k = std::getenv("DELINEATE_KEY_FILE"); k && *k) return k;
  return userConfigFolder() + "/identity/ed25519.pem";
}

}  // namespace delineate::io
