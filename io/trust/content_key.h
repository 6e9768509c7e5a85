#pragma once
// A share's content key (issue 47, item 2): the share's content files (label revisions, checkpoints, datasets,
// imported series; not report files, which people open from the share with their own programs) are sealed (io/base/sealed_file.h) under a per-share AES-256 key, wrapped for each roster member with their
// box key (X25519, io/trust/signing_key.h) in the signed roster itself (io/trust/roster.h, "content"):
//   "content": {"generation": G, "id": <hex key id>, "wrapped": {<user>: {"epk": <b64 32>, "key": <b64 48>}},
//               "previous": {"nonce": <b64 12>, "key": <b64 48>}}   (previous: absent in generation 1)
// - Wrapping for one member: a fresh ephemeral X25519 key `epk`; X25519(epk, the member's box key) -> HKDF-SHA256
//   (salt: epk and the member's box key; info: the context) -> a key-encryption key; the content key sealed under it
//   with AES-256-GCM (a zero nonce: each key-encryption key is used once), the context as additional data. The
//   context names the share, the generation and the member ("delineate-share-key/1\n<store>\n<G>\n<user>"), so an
//   entry moved to another member, generation or share does not open.
// - Generations: removing a member (or changing a member's keys) makes a new key, wrapped for the members left, with
//   the previous generation's key sealed under it ("previous", AES-256-GCM under a key derived from the new one by
//   HKDF with the chain's context, a random nonce): whoever holds the newest key reads every older generation; a
//   removed member keeps what they could read before, and cannot read what is written afterwards.
// - A roster with "content" is format 2, which clients from before content encryption refuse to read (they would
//   re-sign it without the key and switch encryption off). The chain is checked from version to version
//   (VerifiedRoster::fromChain): encryption is never switched off, a generation never goes back or skips, keeps its
//   id, and a member who held the key and leaves, or changes keys, always brings a new generation.
// - The roster is signed by an admin, hash-chained and pinned (io/trust/roster.h), so a planted or rolled-back key
//   generation is refused with the roster: writers never seal under a key somebody slipped in.
// OpenSSL's headers stay in content_key.cpp.

#include <array>
#include <cstdint>
#include <map>
#include <string>

#include "core/error.h"
#include "io/trust/signing_key.h"

namespace delineate::io {

struct WrappedContentKey {
  std::string epk;  // base64, 32 bytes
  std::string key;  // base64, 48 bytes: the sealed content key and its tag
};

struct ContentKeyBlock {
  int generation = 0;  // 0: the share's content is not encrypted
  std::string id;      // hex of the key's 8-byte id (io/base/sealed_file.h sealKeyId, "delineate share key")
  std::map<std::string, WrappedContentKey> wrapped;  // by member
  std::string previousNonce, previousKey;            // base64; empty in generation 1
};

using ContentKeyBytes = std::array<std::uint8_t, 32>;

inline constexpr const char* kShareKeyLabel = "delineate share key";
std::string contentKeyIdHex(const ContentKeyBytes& key);
// A key id (8 bytes) as the roster writes it (16 lowercase hex digits), and back (from a roster's checked id).
std::string keyIdHex(const std::array<std::uint8_t, 8>& id);
std::array<std::uint8_t, 8> keyIdFromHex(const std::string& hex);
core::Result<ContentKeyBytes> newContentKey();

// Whether `base64` is 32 bytes (an X25519 public key's size); OpenSSL checks the point when it is used.
bool isBoxKey(const std::string& base64);

std::string contentKeyContext(const std::string& storeId, int generation, const std::string& user);
core::Result<WrappedContentKey> wrapContentKey(const ContentKeyBytes& key, const std::string& boxPublicKey,
                                               const std::string& context);
// InvalidArgument naming `source` when the entry does not open with this key (not wrapped for it, or changed).
core::Result<ContentKeyBytes> unwrapContentKey(const WrappedContentKey& wrapped, const SigningKey& key,
                                               const std::string& context, const std::string& source);
// "previous" of `block`: the previous generation's key sealed under the block's own key, and opened again.
core::Status sealPreviousKey(ContentKeyBlock& block, const ContentKeyBytes& current, const ContentKeyBytes& previous,
                             const std::string& storeId);
core::Result<ContentKeyBytes> openPreviousKey(const ContentKeyBlock& block, const ContentKeyBytes& current,
                                              const std::string& storeId, const std::string& source);

}  // namespace delineate::io
