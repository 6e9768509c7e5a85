#include "io/share/share_trust.h"

#include <sys/stat.h>

#include <algorithm>
#include <map>
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
  const RevisionFolder folder(store, kRosterFolder, kRosterSuffix, ShareFile::Record);
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
  cache.content.reset();
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
    const Roster& cur = st->roster->current();
    out.contentGeneration = cur.content.generation;
    for (const auto& w : cur.content.wrapped) out.contentReaders.push_back(w.first);
    if (cur.content.generation > 0) {
      const auto keys = shareContentKeys(store);
      out.thisUserReadsContent = keys->current != nullptr;
      out.contentProblem = keys->problem;
    }
  }
  return out;
}

namespace {
std::shared_ptr<AtRestKey> asSealKey(const ContentKeyBytes& bytes) {
  auto k = std::make_shared<AtRestKey>();
  k->bytes = bytes;
  k->id = sealKeyId(bytes, kShareKeyLabel);
  return k;
}

// The newest block of each generation (every version of one generation carries the same key; the newest has the
// most members).
std::map<int, const ContentKeyBlock*> blocksByGeneration(const VerifiedRoster& roster) {
  std::map<int, const ContentKeyBlock*> out;
  for (const Roster& v : roster.versions())
    if (v.content.generation > 0) out[v.content.generation] = &v.content;
  return out;
}

ShareContentKeys loadContentKeys(const ShareStore& store) {
  ShareContentKeys out;
  const auto trust = shareTrust(store);
  if (!trust->roster) {
    if (trust->signedStore()) out.problem = "the share's roster is not trusted: " + trust->problem;
    return out;
  }
  const VerifiedRoster& roster = *trust->roster;
  out.generation = roster.current().content.generation;
  const auto blocks = blocksByGeneration(roster);
  if (blocks.empty()) return out;
  const std::string rosterPath = store.root() + "/" + kRosterFolder;
  std::optional<core::Error> keyError;
  const auto key = userKey(store, &keyError);
  const std::string fp = key ? key->publicKey().fingerprint() : std::string();
  // The newest generation wrapped for this user's key: each version's entry for the member holding this key.
  int mine = 0;
  std::optional<ContentKeyBytes> held;
  std::string whyNot, chainBroken;
  if (keyError) whyNot = keyError->describe();
  else if (!key) whyNot = "this user has no key (" + defaultSigningKeyPath() + ")";
  for (auto v = roster.versions().rbegin(); key && v != roster.versions().rend() && !held; ++v) {
    if (v->content.generation == 0) continue;
    const RosterMember* m = nullptr;
    for (const auto& candidate : v->members)
      if (keyFingerprint(candidate.publicKey) == fp) m = &candidate;
    if (!m) continue;
    const auto w = v->content.wrapped.find(m->user);
    if (w == v->content.wrapped.end()) continue;
    auto k = unwrapContentKey(w->second, *key, contentKeyContext(store.id(), v->content.generation, m->user),
                              rosterPath + " (version " + std::to_string(v->version) + ")");
    if (!k) {
      whyNot = k.error().describe();
      continue;
    }
    if (contentKeyIdHex(*k) != v->content.id) {
      whyNot = "roster version " + std::to_string(v->version) + "'s content key is not the key its id names";
      continue;
    }
    held = *k;
    mine = v->content.generation;
  }
  if (held) {
    // Down the chain: each generation's block holds the one before, sealed under its own key.
    ContentKeyBytes k = *held;
    registerSealKey(asSealKey(k));
    out.readableFrom = out.readableTo = mine;
    for (int g = mine; g > 1; --g) {
      const auto b = blocks.find(g), before = blocks.find(g - 1);
      if (b == blocks.end() || before == blocks.end()) {
        chainBroken = "the roster has no content key block of generation " + std::to_string(g - 1);
        break;
      }
      auto prev = openPreviousKey(*b->second, k, store.id(), rosterPath);
      if (!prev || contentKeyIdHex(*prev) != before->second->id) {
        chainBroken = prev ? "generation " + std::to_string(g) + " carries a key that is not generation " +
                                 std::to_string(g - 1) + "'s"
                           : prev.error().describe();
        break;
      }
      k = *prev;
      registerSealKey(asSealKey(k));
      out.readableFrom = g - 1;
    }
    k.fill(0);
  }
  // Generations this user does not hold, named as such for readers.
  std::string who = "this user";
  const RosterMember* now = key ? roster.memberByKey(fp) : nullptr;
  if (now) who = now->user;
  std::string reason;
  if (!key) reason = whyNot;
  else if (!now) {
    std::string former;
    for (const auto& f : roster.formerMembers())
      for (const auto& v : roster.versions())
        for (const auto& m : v.members)
          if (m.user == f.first && keyFingerprint(m.publicKey) == fp)
            former = f.first + " was removed from the roster in version " + std::to_string(f.second);
    reason = former.empty() ? "this user's key (" + fp.substr(0, 16) + ") is not on the roster" : former;
  } else if (now->boxKey.empty())
    reason = "the roster has no box key for " + now->user + " (an admin re-adds them with --box-key)";
  else if (now->boxKey != key->boxPublicKey())
    reason = "the roster's box key for " + now->user + " is not this user's (" + key->boxPublicKey().substr(0, 12) + "...)";
  else
    reason = whyNot.empty() ? "it is not wrapped for " + now->user : whyNot;
  for (const auto& [g, block] : blocks) {
    if (g >= out.readableFrom && g <= out.readableTo && out.readableTo > 0) continue;
    const bool chainCut = g < out.readableFrom && !chainBroken.empty();
    registerUnreadableSealKey(keyIdFromHex(block->id),
                              "the share's content key generation " + std::to_string(g) + " (id " + block->id + "), " +
                                  (chainCut ? "which the roster's key chain does not give: " + chainBroken
                                            : "which " + who + " cannot read: " + reason));
  }
  if (out.generation > 0 && out.readableTo == out.generation) {
    out.current = asSealKey(*held);
  } else if (out.generation > 0) {
    out.problem = "this share encrypts its content, and its current content key (generation " +
                  std::to_string(out.generation) + ") is not readable by " + who + ": " + reason;
  }
  return out;
}
}  // namespace

std::shared_ptr<const ShareContentKeys> shareContentKeys(const ShareStore& store) {
  ShareTrustCache& cache = store.trustCache();
  {
    std::lock_guard<std::mutex> lock(cache.mutex);
    if (cache.content) return cache.content;
  }
  auto keys = std::make_shared<const ShareContentKeys>(loadContentKeys(store));
  std::lock_guard<std::mutex> lock(cache.mutex);
  if (!cache.content) cache.content = keys;
  return cache.content;
}

bool rosterListsContentKey(const ShareStore& store, const std::array<std::uint8_t, 8>& id) {
  const auto trust = shareTrust(store);
  if (!trust->roster) return false;
  const std::string hex = keyIdHex(id);
  for (const Roster& v : trust->roster->versions())
    if (v.content.generation > 0 && v.content.id == hex) return true;
  return false;
}

core::Result<std::shared_ptr<const AtRestKey>> contentSealKey(const ShareStore& store, const std::string& what) {
  auto trust = shareTrust(store);
  // A writer that keeps its store object for hours (a training run saving checkpoints) must not seal under a key
  // read before a member was removed, nor write in the clear after encryption was turned on: the roster folder's
  // newest number is looked at (a listing: at once when the folder's change time moved, else at most once a second,
  // so an import of 500 instances lists it a few times, not 500), and the roster read again when it moved.
  bool look = false;
  {
    std::string stamp = "none";
    struct stat st {};
    if (::stat((store.root() + "/" + kRosterFolder).c_str(), &st) == 0)
      stamp = std::to_string(st.st_ino) + ":" + std::to_string(st.st_ctim.tv_sec) + "." +
              std::to_string(st.st_ctim.tv_nsec) + ":" + std::to_string(st.st_mtim.tv_sec) + "." +
              std::to_string(st.st_mtim.tv_nsec);
    ShareTrustCache& cache = store.trustCache();
    std::lock_guard<std::mutex> lock(cache.mutex);
    const auto now = std::chrono::steady_clock::now();
    if (stamp != cache.rosterStamp || now - cache.rosterLooked >= std::chrono::seconds(1)) {
      cache.rosterLooked = now;
      cache.rosterStamp = stamp;
      look = true;
    }
  }
  if (look) {
    const RevisionFolder folder(store, kRosterFolder, kRosterSuffix, ShareFile::Record);
    auto list = folder.list();
    int newest = list ? list->latest() : -1;
    if (list)
      for (const auto& d : list->damaged) newest = std::max(newest, d.number);
    if (newest != (trust->roster ? trust->roster->version() : 0)) {
      forgetShareTrust(store);
      trust = shareTrust(store);
    }
  }
  if (trust->signedStore() && !trust->roster)
    return makeError(ErrorCode::InvalidArgument, what,
                     "this share's roster is not trusted, so whether its content must be encrypted cannot be told: "
                     "nothing is written (" + trust->problem + ")");
  const auto keys = shareContentKeys(store);
  if (keys->generation == 0) return std::shared_ptr<const AtRestKey>();
  if (!keys->current) return makeError(ErrorCode::InvalidArgument, what, "not written: " + keys->problem);
  return keys->current;
}

namespace {
core::Result<int> publishRoster(const ShareStore& store, Roster roster, const SigningKey& key, int base) {
  auto document = signRoster(roster, key);
  if (!document) return document.error();
  const RevisionFolder folder(store, kRosterFolder, kRosterSuffix, ShareFile::Record);
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
  const RevisionFolder folder(store, kRosterFolder, kRosterSuffix, ShareFile::Record);
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
  const RevisionFolder folder(store, kRosterFolder, kRosterSuffix, ShareFile::Record);
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
  RosterMember m{admin, key.publicKey().base64(), roles, key.boxPublicKey()};
  m.roles.push_back("admin");
  r.members.push_back(m);
  return publishRoster(store, std::move(r), key, 0);
}

namespace {
// The content key block of the roster version about to be published (`next`, changed from the current one, `cur`),
// with `enable` turning encryption on: the same generation with entries for members added, or a new generation when
// a member who held the key left or changed keys. `key` is the admin's, who must hold the current key to pass it on.
core::Status rewrapContent(const ShareStore& store, const Roster& cur, Roster& next, const SigningKey& key,
                           const RosterMember& signer, bool enable, const std::string& where) {
  if (cur.content.generation == 0 && !enable) {
    next.content = {};
    return core::Status::success();
  }
  std::vector<std::string> withoutBox;
  for (const auto& m : next.members)
    if (m.boxKey.empty()) withoutBox.push_back(m.user);
  if (enable) {
    if (cur.content.generation > 0)
      return makeError(ErrorCode::InvalidArgument, where, "this share encrypts its content already (generation " +
                                                               std::to_string(cur.content.generation) + ")");
    if (!withoutBox.empty()) {
      std::string names;
      for (const auto& n : withoutBox) names += (names.empty() ? "" : ", ") + n;
      return makeError(ErrorCode::InvalidArgument, where,
                       "the roster has no box key for " + names +
                           ", who could not read the share's content: re-add them with 'trust add ROOT USER PUBKEY "
                           "--box-key BOXKEY --role ...' (their 'trust key' prints both), or remove them first");
    }
  }
  ContentKeyBytes current{};
  bool rotate = enable;
  if (!enable) {
    const auto mine = cur.content.wrapped.find(signer.user);
    if (mine == cur.content.wrapped.end())
      return makeError(ErrorCode::InvalidArgument, where,
                       "this share encrypts its content and its content key is not wrapped for " + signer.user +
                           ", so this admin cannot pass it on: another admin who holds it makes this change");
    auto k = unwrapContentKey(mine->second, key, contentKeyContext(store.id(), cur.content.generation, signer.user), where);
    if (!k) return k.error();
    if (contentKeyIdHex(*k) != cur.content.id)
      return makeError(ErrorCode::Corrupt, where, "the roster's content key is not the key its id names");
    current = *k;
    for (const auto& [user, w] : cur.content.wrapped) {
      const RosterMember* before = cur.member(user);
      const RosterMember* after = next.member(user);
      if (!after || !before || after->publicKey != before->publicKey || after->boxKey != before->boxKey) rotate = true;
    }
  }
  ContentKeyBlock block;
  ContentKeyBytes use = current;
  if (rotate) {
    auto fresh = newContentKey();
    if (!fresh) return fresh.error();
    use = *fresh;
    block.generation = cur.content.generation + 1;
    block.id = contentKeyIdHex(use);
    if (!enable)
      if (core::Status s = sealPreviousKey(block, use, current, store.id()); !s) return s;
  } else {
    block = cur.content;
    block.wrapped.clear();
  }
  for (const auto& m : next.members) {
    if (m.boxKey.empty()) continue;
    const auto kept = cur.content.wrapped.find(m.user);
    if (!rotate && kept != cur.content.wrapped.end()) {
      block.wrapped[m.user] = kept->second;
      continue;
    }
    auto w = wrapContentKey(use, m.boxKey, contentKeyContext(store.id(), block.generation, m.user));
    if (!w) return makeError(ErrorCode::InvalidArgument, where, m.user + "'s box key: " + w.error().detail);
    block.wrapped[m.user] = *w;
  }
  use.fill(0);
  current.fill(0);
  next.content = std::move(block);
  return core::Status::success();
}

core::Result<int> updateRosterImpl(const ShareStore& store, const SigningKey& key,
                                   const std::function<core::Status(Roster&)>& change, bool enable) {
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
  // The signing admin's own box key, where the roster has none for them (a roster from before content encryption):
  // it is theirs, derived from the key that signs.
  for (auto& m : r.members)
    if (m.user == signer->user && m.publicKey == signer->publicKey && m.boxKey.empty()) m.boxKey = key.boxPublicKey();
  if (core::Status s = rewrapContent(store, st->roster->current(), r, key, *signer, enable, where); !s) return s.error();
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
}  // namespace

core::Result<int> updateRoster(const ShareStore& store, const SigningKey& key,
                               const std::function<core::Status(Roster&)>& change) {
  return updateRosterImpl(store, key, change, false);
}

core::Result<int> encryptShareContent(const ShareStore& store, const SigningKey& key) {
  return updateRosterImpl(store, key, [](Roster&) { return core::Status::success(); }, true);
}

std::string describeTrust(const RecordTrust& trust) { return trust.detail.empty() ? trustStateName(trust.state) : trust.detail; }

}  // namespace delineate::io
