#pragma once
// The share room's own side of signed records: the cached trust state of a store object, signing a JSON record as it
// is written and verifying one as it is read (io/share/share_trust.h states the rules).

#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "io/base/sealed_file.h"
#include "io/share/share_store.h"
#include "io/trust/roster.h"
#include "io/trust/signing_key.h"

namespace delineate::io {

struct ShareTrustState {
  bool hasRoster = false;
  std::string problem;  // non-empty: nothing counts, nothing is signed
  std::optional<VerifiedRoster> roster;
  bool pinnedNow = false;
  bool signedStore() const { return hasRoster || !problem.empty(); }
};

// The store's content keys as this user can have them (io/trust/content_key.h).
struct ShareContentKeys {
  int generation = 0;                         // the roster's current generation; 0: content not encrypted
  std::shared_ptr<const AtRestKey> current;   // what writers seal under; null when this user cannot have it
  std::string problem;                        // why not (current null with generation > 0)
  int readableFrom = 0, readableTo = 0;       // the generations this user holds (0: none)
};

struct ShareTrustCache {
  std::mutex mutex;
  std::shared_ptr<const ShareTrustState> state;
  std::shared_ptr<const ShareContentKeys> content;
  std::chrono::steady_clock::time_point rosterLooked{};  // when contentSealKey last listed the roster folder
  std::string rosterStamp;                                // and the folder's inode and change time then
  bool keyRead = false;
  std::shared_ptr<const SigningKey> key;
  std::optional<core::Error> keyError;
};

// The store object's trust state, read once (and again after forgetShareTrust).
std::shared_ptr<const ShareTrustState> shareTrust(const ShareStore& store);
void forgetShareTrust(const ShareStore& store);

// Who signs a record about to be written: nothing on an unsigned store (the author as requested); else this user's
// key, whose roster name is the author (refused, naming `what`, as share_trust.h says).
struct RecordSigner {
  std::shared_ptr<const SigningKey> key;  // null: unsigned store, write unsigned
  std::string author;
};
core::Result<RecordSigner> recordSigner(const ShareStore& store, const std::string& requestedAuthor,
                                        const std::string& role, const std::string& what);
// Adds "signature" to `record` (whose path in the store is `relativePath`) when the signer has a key.
void signRecord(const ShareStore& store, const RecordSigner& signer, const std::string& relativePath,
                nlohmann::json& record);

// The store's content keys for this user (read once per store object, with the trust state), each one this user can
// unwrap made known to io's readers (io/base/sealed_file.h registerSealKey), each one it cannot named with the reason.
std::shared_ptr<const ShareContentKeys> shareContentKeys(const ShareStore& store);
// The key a content file written now is sealed under: null when the store does not encrypt its content; an error
// naming `what` when it does and this user cannot have the key, or when the roster is not trusted (whether the
// content must be encrypted cannot be told then, and nothing is written in the clear by mistake).
core::Result<std::shared_ptr<const AtRestKey>> contentSealKey(const ShareStore& store, const std::string& what);

// Whether `id` (a sealed file's key id) is one of the content key generations the store's roster lists.
bool rosterListsContentKey(const ShareStore& store, const std::array<std::uint8_t, 8>& id);

RecordTrust verifyRecord(const ShareStore& store, const std::string& relativePath, const nlohmann::json& record,
                         const std::string& author, const std::string& role);
// Whether a record counts for review state: signed by a member in role on a signed store, anything on an unsigned one.
bool recordCounts(const ShareStore& store, const RecordTrust& trust);

}  // namespace delineate::io
