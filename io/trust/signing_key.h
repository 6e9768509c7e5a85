#pragma once
// Ed25519 keys through OpenSSL (issue 47, item 1): a key per user signs the share records that user writes
// (revisions, review steps, dataset versions, checkpoints); the share's roster (io/trust/roster.h) binds each public
// key to a user name and roles.
//
// - Keys: PKCS#8 PEM files. A user's own key lives at $DELINEATE_KEY_FILE, else
//   $XDG_CONFIG_HOME (or ~/.config)/delineate/identity/ed25519.pem: owner-only (0600 in a 0700 folder), and refused
//   when its group or others may read it, as ssh refuses such a key. It is never written over.
// - Public keys travel as base64 of their 32 raw bytes; a key's fingerprint is the hex SHA-256 of those bytes.
// - Signatures are base64 of Ed25519's 64 bytes over the exact message (no pre-hashing: Ed25519 hashes itself).
// OpenSSL's headers stay in signing_key.cpp.

#include <memory>
#include <string>
#include <vector>

#include "core/error.h"
#include "io/base/process_info.h"

namespace delineate::io {

// Verifies signatures of one public key; parsing the key once makes verifying many records cheap.
class PublicKey {
 public:
  // InvalidArgument (naming `source`) unless `base64` is 32 raw bytes of an Ed25519 public key.
  static core::Result<PublicKey> fromBase64(const std::string& base64, const std::string& source);
  bool verify(const std::string& message, const std::string& signatureBase64) const;
  const std::string& base64() const { return m_base64; }
  const std::string& fingerprint() const { return m_fingerprint; }

 private:
  std::shared_ptr<void> m_key;  // EVP_PKEY
  std::string m_base64;
  std::string m_fingerprint;
};

class SigningKey {
 public:
  static core::Result<SigningKey> generate();
  // Reads a PEM private key. InvalidArgument naming the file when its group or others may access it, when it is not
  // an Ed25519 key or not a key at all; NotFound when it is missing.
  static core::Result<SigningKey> load(const std::string& path);
  // Writes the key to a new file, 0600 (its missing folders 0700). Refuses to replace an existing file: a lost key
  // means re-enrolling, an overwritten one means records nobody can attribute.
  core::Status saveNew(const std::string& path) const;

  std::string sign(const std::string& message) const;  // base64
  const PublicKey& publicKey() const { return m_public; }

  // The user's box key (issue 47, item 2: a share's content key is wrapped for each member with X25519): an X25519
  // key derived from this Ed25519 key's seed (SHA-256 of "delineate-box/1" and the seed), so the one key file is the
  // whole identity. Its public half (base64 of 32 bytes) is what an admin puts on the roster beside the public key.
  const std::string& boxPublicKey() const { return m_boxPublic; }
  // X25519 of the box key with `peerPublicBase64` (32 bytes); InvalidArgument naming `source` for a bad peer key or
  // a low-order point (an all-zero shared secret).
  core::Result<std::string> boxAgree(const std::string& peerPublicBase64, const std::string& source) const;

 private:
  core::Status deriveBox();
  std::shared_ptr<void> m_key;  // EVP_PKEY
  PublicKey m_public;
  std::shared_ptr<void> m_box;  // EVP_PKEY (X25519)
  std::string m_boxPublic;
};

// Strict base64 (no line breaks) of raw bytes, and back: false unless `text` is base64 of exactly `expected` bytes.
std::string base64Encode(const unsigned char* data, std::size_t size);
bool base64Decode(const std::string& text, std::size_t expected, std::vector<unsigned char>& out);

// Hex SHA-256 of the raw public key bytes ("" when `base64` is not a key).
std::string keyFingerprint(const std::string& publicKeyBase64);

// userConfigFolder(): io/base/process_info.h.
// Where this user's signing key is kept: $DELINEATE_KEY_FILE when set, else <userConfigFolder>/identity/ed25519.pem.
std::string defaultSigningKeyPath();

}  // namespace delineate::io
