#include "io/share/share_trust.h"

#include <algorithm>
#include <set>

#include "io/base/process_info.h"
#include "io/share/share_revisions.h"
#include "io/share/share_trust_internal.h"

namespace delineate::io {
using core::ErrorCode;
using core::makeError;

namespace {
constexpr const char* kRosterFolder = "trust/roster";
constexpr const char* kRosterSuffix = ".roster.json";

ShareTrustState loadState(const ShareStore& store) {
  ShareTrustState st;
  const RevisionFolder folder(store, kRosterFolder, kRosterSuffix);
  auto list = folder.list();
  if (!list) {
    st.problem = "the roster cannot be read: " + list.error().describe();
    return st;
  }
  if (list->revisions.empty() && list->damaged.empty()) {
    auto pinned = hasRosterPin(store.id());
    if (!pinned)
      st.problem = pinned.error().describe();
    else if (*pinned)
      st.problem = "this user pinned a roster for this share, and the share has none now: it was removed";
    return st;
  }
  st.hasRoster = true;
  if (!list->damaged.empty()) {
    st.problem = "roster version " + std::to_string(list->damaged.front().number) +
                 " is damaged: " + list->damaged.front().reason;
    return st;
  }
  std::vector<std::string> documents, sources;
  std::vector<int> versions;
  for (const auto& r : list->revisions) {
    auto bytes = folder.load(r.number);
    if (!bytes) {
      st.problem = bytes.error().describe();
      return st;
    }
    documents.emplace_back(bytes->begin(), bytes->end());
    versions.push_back(r.number);
    sources.push_back(store.root() + "/" + kRosterFolder + "/" + r.content);
  }
  auto verified = VerifiedRoster::fromChain(documents, versions, sources, store.id());
  if (!verified) {
    st.problem = verified.error().describe();
    return st;
  }
  if (core::Status s = checkRosterPin(store.id(), *verified, &st.pinnedNow); !s) {
    st.problem = s.error().describe();
    return st;
  }
  st.roster = std::move(*verified);
  return st;
}

std::shared_ptr<const SigningKey> userKey(const ShareStore& store, std::optional<core::Error>* error) {
  ShareTrustCache& cache = store.trustCache();
  std::lock_guard<std::mutex> lock(cache.mutex);
  if (!cache.keyRead) {
    cache.keyRead = true;
    auto key = SigningKey::load(defaultSigningKeyPath());
    if (key)
      cache.key = std::make_shared<const SigningKey>(std::move(*key));
    else if (key.error().code != ErrorCode::NotFound)
      cache.keyError = key.error();
  }
  *error = cache.keyError;
  return cache.key;
}

std::string article(const std::string& role) { return (role == "admin" || role == "annotator" ? "an " : "a ") + role; }
}  // namespace

std::shared_ptr<const ShareTrustState> shareTrust(const ShareStore& store) {
  ShareTrustCache& cache = store.trustCache();
  {
    std::lock_guard<std::mutex> lock(cache.mutex);
    if (cache.state) return cache.state;
  }
  auto state = std::make_shared<const ShareTrustState>(loadState(store));
  std::lock_guard<std::mutex> lock(cache.mutex);
  if (!cache.state) cache.state = state;
  return cache.state;
}

void forgetShareTrust(const ShareStore& store) {
  ShareTrustCache& cache = store.trustCache();
  std::lock_guard<std::mutex> lock(cache.mutex);
  cache.state.reset();
}

core::Result<RecordSigner> recordSigner(const ShareStore& store, const std::string& requestedAuthor,
                                        const std::string& role, const std::string& what) {
  RecordSigner signer;
  signer.author = requestedAuthor;
  const auto trust = shareTrust(store);
  if (!trust->signedStore()) return signer;
  if (!trust->problem.empty())
    return makeError(ErrorCode::InvalidArgument, what,
                     "this share signs its records, and its roster is not trusted, so nothing is written: " +
                         trust->problem);
  std::optional<core::Error> keyError;
  auto key = userKey(store, &keyError);
  if (keyError) return *keyError;
  if (!key)
    return makeError(ErrorCode::InvalidArgument, what,
                     "this share signs its records and this user has no signing key (" + defaultSigningKeyPath() +
                         "): create one with 'delineate-cli trust keygen' and ask an admin to add it to the roster");
  const RosterMember* member = trust->roster->memberByKey(key->publicKey().fingerprint());
  if (!member)
    return makeError(ErrorCode::InvalidArgument, what,
                     "this user's key (" + key->publicKey().fingerprint().substr(0, 16) +
                         ") is not on the share's roster: ask an admin to add it");
  if (!role.empty() && !member->has(role))
    return makeError(ErrorCode::InvalidArgument, what, member->user + " is not " + article(role) + " on the share's roster");
  signer.key = key;
  signer.author = member->user;
  return signer;
}

void signRecord(const ShareStore& store, const RecordSigner& signer, const std::string& relativePath,
                nlohmann::json& record) {
  if (!signer.key) return;
  record.erase("signature");
  record["signature"] = {{"alg", "ed25519"}, {"key", signer.key->publicKey().fingerprint()}};
  record["signature"]["value"] = signer.key->sign(recordSigningMessage(store.id(), relativePath, record.dump()));
}

RecordTrust verifyRecord(const ShareStore& store, const std::string& relativePath, const nlohmann::json& record,
                         const std::string& author, const std::string& role) {
  RecordTrust t;
  const auto it = record.find("signature");
  if (it == record.end()) {
    t.detail = "unsigned";
    return t;
  }
  const auto trust = shareTrust(store);
  if (!trust->roster) {
    t.state = TrustState::NoRoster;
    t.detail = trust->problem.empty() ? "signed, but this share has no roster to check it against"
                                      : "signed, but the share's roster is not trusted: " + trust->problem;
    return t;
  }
  const nlohmann::json& sig = *it;
  const auto isString = [&sig](const char* key) { return sig.contains(key) && sig[key].is_string(); };
  if (!sig.is_object() || !isString("key") || !isString("value") || !isString("alg") ||
      sig["alg"].get<std::string>() != "ed25519") {
    t.state = TrustState::Forged;
    t.detail = "the signature is not an Ed25519 signature block";
    return t;
  }
  nlohmann::json payload = record;
  payload["signature"].erase("value");
  return trust->roster->check(sig["key"].get<std::string>(), sig["value"].get<std::string>(),
                              recordSigningMessage(store.id(), relativePath, payload.dump()), author, role);
}

bool recordCounts(const ShareStore& store, const RecordTrust& trust) {
  return trust.counts() || !shareTrust(store)->signedStore();
}

bool storeIsSigned(const ShareStore& store) { return shareTrust(store)->signedStore(); }

ShareTrustStatus readShareTrust(const ShareStore& store) {
  forgetShareTrust(store);
  const auto st = shareTrust(store);
  ShareTrustStatus out;
  out.hasRoster = st->hasRoster;
  out.problem = st->problem;
  out.pinnedNow = st->pinnedNow;
  if (st->roster) {
    out.version = st->roster->version();
    out.rootFingerprint = st->roster->rootFingerprint();
    out.members = st->roster->current().members;
    for (const auto& f : st->roster->formerMembers()) out.removed.push_back({f.first, f.second});
  }
  return out;
}

namespace {
core::Result<int> publishRoster(const ShareStore& store, Roster roster, const SigningKey& key, int base) {
  auto document = signRoster(roster, key);
  if (!document) return document.error();
  const RevisionFolder folder(store, kRosterFolder, kRosterSuffix);
  SaveRequest request;
  for (const auto& m : roster.members)
    if (keyFingerprint(m.publicKey) == key.publicKey().fingerprint()) request.author = m.user;
  request.baseRevision = base;
  request.message = "roster version " + std::to_string(roster.version);
  request.expectedNumber = roster.version;
  auto saved = folder.save(document->data(), document->size(), request);
  forgetShareTrust(store);
  if (!saved) return saved.error();
  // Read back through the chain and the pin: a version that does not verify is reported now, not by the next reader.
  const auto st = shareTrust(store);
  if (!st->roster)
    return makeError(ErrorCode::Corrupt, store.root() + "/" + kRosterFolder, "the roster written does not verify: " + st->problem);
  return saved->number;
}

// The number the next roster revision will get: one past every number claimed (incomplete and damaged ones too).
core::Result<int> nextRosterNumber(const ShareStore& store) {
  const RevisionFolder folder(store, kRosterFolder, kRosterSuffix);
  auto list = folder.list();
  if (!list) return list.error();
  int next = list->latest();
  for (int n : list->incomplete) next = std::max(next, n);
  for (const auto& d : list->damaged) next = std::max(next, d.number);
  return next + 1;
}
}  // namespace

core::Result<int> createRoster(const ShareStore& store, const std::string& admin, const SigningKey& key,
                               const std::vector<std::string>& roles) {
  const std::string where = store.root() + "/" + kRosterFolder;
  if (core::Status s = store.checkMounted(); !s) return s.error();
  const RevisionFolder folder(store, kRosterFolder, kRosterSuffix);
  auto list = folder.list();
  if (!list) return list.error();
  if (!list->revisions.empty() || !list->damaged.empty())
    return makeError(ErrorCode::InvalidArgument, where, "the share has a roster already: change it with an admin's key");
  auto next = nextRosterNumber(store);
  if (!next) return next.error();
  Roster r;
  r.version = *next;
  r.store = store.id();
  r.time = utcNowIso();
  RosterMember m{admin, key.publicKey().base64(), roles};
  m.roles.push_back("admin");
  r.members.push_back(m);
  return publishRoster(store, std::move(r), key, 0);
}

core::Result<int> updateRoster(const ShareStore& store, const SigningKey& key,
                               const std::function<core::Status(Roster&)>& change) {
  const std::string where = store.root() + "/" + kRosterFolder;
  if (core::Status s = store.checkMounted(); !s) return s.error();
  forgetShareTrust(store);
  const auto st = shareTrust(store);
  if (!st->roster)
    return makeError(ErrorCode::InvalidArgument, where,
                     st->problem.empty() ? "the share has no roster yet: create it first" : "the roster is not trusted: " + st->problem);
  const RosterMember* signer = st->roster->memberByKey(key.publicKey().fingerprint());
  if (!signer || !signer->has("admin"))
    return makeError(ErrorCode::InvalidArgument, where,
                     "this key (" + key.publicKey().fingerprint().substr(0, 16) + ") is not an admin's on the roster");
  Roster r = st->roster->current();
  if (core::Status s = change(r); !s) return s.error();
  if (std::none_of(r.members.begin(), r.members.end(), [](const RosterMember& m) { return m.has("admin"); }))
    return makeError(ErrorCode::InvalidArgument, where, "the change would leave the roster without an admin");
  const int current = r.version;
  auto next = nextRosterNumber(store);
  if (!next) return next.error();
  r.version = *next;
  r.previous = st->roster->documentSha256(current);
  r.time = utcNowIso();
  return publishRoster(store, std::move(r), key, current);
}

std::string describeTrust(const RecordTrust& trust) { return trust.detail.empty() ? trustStateName(trust.state) : trust.detail; }

}  // namespace delineate::io
