#pragma once
// The share's roster and what a signed record is worth (issue 47, item 1).
//
// The roster lists the share's members: user name, Ed25519 public key (io/trust/signing_key.h) and roles
// (annotator: saves label revisions and submits them; reviewer: approves or sends back; trainer: dataset versions and
// checkpoints; admin: the roster). Roles are separate: an admin approves nothing unless also a reviewer.
// Each version is a JSON document, stored as a revision of the share (io/share/share_trust.h):
//   {"format": 1, "store": <store id>, "version": N, "previous": <hex SHA-256 of version N-1's document, "" for 1>,
//    "time", "members": [{"user", "key", "roles", "box"?}] (by user), "content"? (io/trust/content_key.h),
//    "signature": {"alg": "ed25519", "key": <fingerprint>, "value": <base64>}}
// ("box", a member's X25519 key, and "content", the share's wrapped content key, are written only when present, so
// rosters from before them read and verify as they were.)
// signed over "delineate-roster/1\n" + the canonical JSON of the document without signature.value (nlohmann's
// dump(): keys in byte order, no spaces). Version 1 is signed by an admin it lists; version N by an admin of version
// N-1, so the whole chain hangs from the key that signed version 1, which each client pins the first time it reads
// the roster (trust on first use, as ssh does with host keys): a share whose version 1 is signed by another key later,
// or whose roster disappeared after it was pinned, is refused rather than trusted.
//
// A signed record (revision metadata, a review step) carries "signature": {"alg", "key", "value"} over
// "delineate-record/1\n" + store id + "\n" + the record's path in the store + "\n" + the canonical JSON of the record
// without signature.value, so a record copied to another study, revision number or share no longer verifies.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/error.h"
#include "io/trust/content_key.h"
#include "io/trust/signing_key.h"

namespace delineate::io {

inline constexpr const char* kRoles[] = {"annotator", "reviewer", "trainer", "admin"};
bool isRole(const std::string& role);

struct RosterMember {
  std::string user;
  std::string publicKey;  // base64, 32 bytes
  std::vector<std::string> roles;  // sorted, each one of kRoles
  std::string boxKey;     // base64 X25519 public key ("box"; io/trust/content_key.h); empty: none given
  bool has(const std::string& role) const;
};

struct Roster {
  int version = 0;
  std::string store;
  std::string previous;  // hex SHA-256 of the previous version's document ("" for version 1)
  std::string time;
  std::vector<RosterMember> members;  // by user
  ContentKeyBlock content;            // generation 0: the share's content is not encrypted
  std::string signerFingerprint;      // set when parsed or signed
  const RosterMember* member(const std::string& user) const;
};

// The signed document for `roster` (members sorted, signature added), ending in '\n'. InvalidArgument for a member
// without a valid key or with an unknown role, a user name used twice or a key used twice.
core::Result<std::string> signRoster(Roster roster, const SigningKey& key);
// The document's fields, checked for form (not its signature); errors name `source`.
core::Result<Roster> parseRoster(const std::string& document, const std::string& source);

enum class TrustState {
  Unsigned,   // no signature (a share written before signing, or by a client without a key)
  Signed,     // valid signature by a current member with the role the record needs
  Forged,     // the signature does not verify, or the signer is not the author the record names
  UnknownKey, // signed by a key that was never on the roster
  Removed,    // signed by a member removed from the roster since
  OutOfRole,  // signed by a current member without the role the record needs
  NoRoster,   // the share's roster itself cannot be trusted (its chain is broken or not the pinned one)
};
const char* trustStateName(TrustState state);  // "unsigned", "signed", "forged", "unknown-key", "removed-member",
                                               // "out-of-role", "untrusted-roster"

struct RecordTrust {
  TrustState state = TrustState::Unsigned;
  std::string signer;  // the roster's name for the signing key, where known
  std::string detail;  // a sentence for people ("signed by carol, removed from the roster in version 3")
  bool counts() const { return state == TrustState::Signed; }
};

// The message a record's signature covers (see above). `canonical` is the record without signature.value.
std::string recordSigningMessage(const std::string& storeId, const std::string& relativePath,
                                 const std::string& canonical);

// A roster chain checked from version 1 to its newest: what records are verified against.
class VerifiedRoster {
 public:
  // `documents[i]` is the document of version `versions[i]` (the share revision it is stored as; increasing: a
  // version whose writer was killed leaves a gap), `sources[i]` names its file. Errors name the first version that
  // does not verify: another store's, a version that is not its revision's number, a previous hash that is not the
  // version before's document, a signature that does not verify or a signer who was not an admin of the version
  // before.
  static core::Result<VerifiedRoster> fromChain(const std::vector<std::string>& documents,
                                                const std::vector<int>& versions,
                                                const std::vector<std::string>& sources, const std::string& storeId);

  const Roster& current() const { return m_versions.back(); }
  int version() const { return m_versions.back().version; }
  // The fingerprint of the key that signed version 1 (what clients pin).
  const std::string& rootFingerprint() const { return m_versions.front().signerFingerprint; }
  // The current member holding the key `fingerprint`, else nullptr.
  const RosterMember* memberByKey(const std::string& fingerprint) const;
  // Users an earlier version listed and the current one does not, with the version that dropped them.
  std::vector<std::pair<std::string, int>> formerMembers() const;
  // Hex SHA-256 of version `version`'s document, "" when the chain has no such version.
  std::string documentSha256(int version) const;
  // Every version, oldest first.
  const std::vector<Roster>& versions() const { return m_versions; }

  // What a record is worth: its signature (`signature` = {key fingerprint, base64 value}) over `message`, made by the
  // key of the member named `author` who holds `role` now.
  RecordTrust check(const std::string& fingerprint, const std::string& signatureValue, const std::string& message,
                    const std::string& author, const std::string& role) const;

 private:
  std::vector<Roster> m_versions;
  std::vector<std::string> m_shas;  // of each version's document
  struct KeyInfo {
    PublicKey key;
    std::string user;
    std::size_t lastIndex = 0;  // the newest version (index into m_versions) that lists it
  };
  std::map<std::string, KeyInfo> m_keys;  // every key any version listed, by fingerprint
};

// Trust on first use, and no going back. The first time this user meets store `storeId`'s roster, the fingerprint of
// its version-1 signer and the newest version seen (number and document hash) are written to
// <userConfigFolder>/trust/pins/<storeId> (owner-only) and `pinnedNow` is set. Afterwards the root must match, and
// the version pinned must still be there with the same document (a roster rolled back to before a removal, or
// rewritten, is refused); a newer version moves the pin forward. Errors (InvalidArgument) name the pin file and say
// what changed. `pinFolder` empty: the default.
core::Status checkRosterPin(const std::string& storeId, const VerifiedRoster& roster, bool* pinnedNow = nullptr,
                            const std::string& pinFolder = {});
// Whether this user has pinned a roster for `storeId` (a share that had a roster and lost it is refused by readers).
core::Result<bool> hasRosterPin(const std::string& storeId, const std::string& pinFolder = {});

}  // namespace delineate::io
