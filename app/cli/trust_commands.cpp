// delineate-cli trust: signing keys, the share's roster, and every signed record checked (io/share/share_trust.h).
#include <chrono>
#include <cstdio>
#include <map>

#include <nlohmann/json.hpp>

#include "app/cli/commands.h"
#include "io/base/process_info.h"
#include "io/share/share_trust.h"
#include "io/trust/content_key.h"
#include "io/trust/signing_key.h"

namespace delineate::app::cli {
using io::ShareStore;

namespace {
std::string keyPath(const TrustOptions& o) { return o.keyFile.empty() ? io::defaultSigningKeyPath() : o.keyFile; }

void printKey(const std::string& path, const io::SigningKey& key, bool json, bool created) {
  if (json) {
    std::printf("%s\n", nlohmann::json{{"file", path}, {"publicKey", key.publicKey().base64()},
                                       {"boxKey", key.boxPublicKey()},
                                       {"fingerprint", key.publicKey().fingerprint()}, {"created", created}}
                            .dump(2)
                            .c_str());
    return;
  }
  std::printf("%s %s\npublic key:  %s\nbox key:     %s\nfingerprint: %s\n", created ? "created" : "key", path.c_str(),
              key.publicKey().base64().c_str(), key.boxPublicKey().c_str(), key.publicKey().fingerprint().c_str());
  if (created)
    std::printf("Give both keys to the share's admin: delineate-cli trust add ROOT %s %s --box-key %s --role ...\n",
                io::processUserName().c_str(), key.publicKey().base64().c_str(), key.boxPublicKey().c_str());
}

int openStore(const std::string& root, std::optional<ShareStore>& out) {
  auto store = ShareStore::open(root);
  if (!store) return fileError(store.error());
  out.emplace(std::move(store).value());
  return 0;
}

nlohmann::json trustJson(const io::RecordTrust& t) {
  return {{"state", io::trustStateName(t.state)}, {"signer", t.signer}, {"detail", io::describeTrust(t)}};
}
}  // namespace

nlohmann::json recordTrustJson(const io::RecordTrust& trust) { return trustJson(trust); }

void warnSignedAuthor(const std::string& given, const std::string& recorded) {
  if (given.empty() || given == recorded) return;
  std::fprintf(stderr,
               "warning: recorded as %s, not %s: this share signs its records, and %s is the roster's name for this "
               "user's key\n",
               recorded.c_str(), given.c_str(), recorded.c_str());
}

int runTrustKeygen(const TrustOptions& o) {
  const std::string path = keyPath(o);
  auto key = io::SigningKey::generate();
  if (!key) return fileError(key.error());
  if (core::Status s = key->saveNew(path); !s) return fileError(s.error());
  printKey(path, *key, o.json, true);
  return 0;
}

int runTrustKey(const TrustOptions& o) {
  const std::string path = keyPath(o);
  auto key = io::SigningKey::load(path);
  if (!key) return fileError(key.error());
  printKey(path, *key, o.json, false);
  return 0;
}

int runTrustInit(const TrustOptions& o) {
  std::optional<ShareStore> store;
  if (int rc = openStore(o.root, store)) return rc;
  auto key = io::SigningKey::load(keyPath(o));
  if (!key) return fileError(key.error());
  const std::string user = o.user.empty() ? io::processUserName() : o.user;
  auto version = io::createRoster(*store, user, *key, o.roles);
  if (!version) return fileError(version.error());
  audit(*store, "trust", {}, {}, *version, "roster created: " + user + " admin");
  std::printf("roster version %d: %s is its admin (key %s); this machine pinned it\n", *version, user.c_str(),
              key->publicKey().fingerprint().substr(0, 16).c_str());
  return 0;
}

int runTrustAdd(const TrustOptions& o) {
  std::optional<ShareStore> store;
  if (int rc = openStore(o.root, store)) return rc;
  auto key = io::SigningKey::load(keyPath(o));
  if (!key) return fileError(key.error());
  auto member = io::PublicKey::fromBase64(o.publicKey, "PUBKEY");
  if (!member) return usageError("trust add", member.error().detail);
  if (!o.boxKey.empty() && !io::isBoxKey(o.boxKey))
    return usageError("trust add", "--box-key is not base64 of 32 bytes (the box key 'trust key' prints)");
  bool replaced = false;
  auto version = io::updateRoster(*store, *key, [&](io::Roster& r) {
    io::RosterMember* m = nullptr;
    for (auto& candidate : r.members)
      if (candidate.user == o.user) m = &candidate;
    if (m) {
      // Their box key stays when none is given and their signing key is the same one.
      const bool sameKey = m->publicKey == o.publicKey;
      m->publicKey = o.publicKey;
      m->roles = o.roles;
      if (!o.boxKey.empty() || !sameKey) m->boxKey = o.boxKey;
      replaced = true;
    } else {
      r.members.push_back({o.user, o.publicKey, o.roles, o.boxKey});
      m = &r.members.back();
    }
    if (r.content.generation > 0 && m->boxKey.empty())
      return core::Status(core::makeError(core::ErrorCode::InvalidArgument, o.root,
                                          "this share encrypts its content: " + o.user +
                                              "'s box key is needed (--box-key, from their 'trust key')"));
    return core::Status::success();
  });
  if (!version) return fileError(version.error());
  std::string roles;
  for (const auto& role : o.roles) roles += (roles.empty() ? "" : ", ") + role;
  audit(*store, "trust", {}, {}, *version, (replaced ? "member changed: " : "member added: ") + o.user + " (" + roles + ")");
  std::printf("roster version %d: %s %s (%s), key %s\n", *version, o.user.c_str(), replaced ? "changed" : "added",
              roles.c_str(), member->fingerprint().substr(0, 16).c_str());
  return 0;
}

int runTrustRemove(const TrustOptions& o) {
  std::optional<ShareStore> store;
  if (int rc = openStore(o.root, store)) return rc;
  auto key = io::SigningKey::load(keyPath(o));
  if (!key) return fileError(key.error());
  auto version = io::updateRoster(*store, *key, [&](io::Roster& r) {
    const auto it = std::find_if(r.members.begin(), r.members.end(), [&](const auto& m) { return m.user == o.user; });
    if (it == r.members.end())
      return core::Status(core::makeError(core::ErrorCode::NotFound, o.root, o.user + " is not on the roster"));
    r.members.erase(it);
    return core::Status::success();
  });
  if (!version) return fileError(version.error());
  audit(*store, "trust", {}, {}, *version, "member removed: " + o.user);
  std::printf("roster version %d: %s removed; what they signed no longer counts\n", *version, o.user.c_str());
  const io::ShareTrustStatus st = io::readShareTrust(*store);
  if (st.contentGeneration > 0)
    std::printf("the share's content key is now generation %d: %s cannot read what is written from now on (what "
                "they could read before, they may have kept)\n",
                st.contentGeneration, o.user.c_str());
  return 0;
}

int runTrustEncrypt(const TrustOptions& o) {
  std::optional<ShareStore> store;
  if (int rc = openStore(o.root, store)) return rc;
  auto key = io::SigningKey::load(keyPath(o));
  if (!key) return fileError(key.error());
  auto version = io::encryptShareContent(*store, *key);
  if (!version) return fileError(version.error());
  const io::ShareTrustStatus st = io::readShareTrust(*store);
  audit(*store, "trust", {}, {}, *version, "content encryption on (key generation 1)");
  std::printf("roster version %d: the share's content is encrypted from now on (key generation %d, wrapped for %zu "
              "members); what was written before stays as it is\n",
              *version, st.contentGeneration, st.contentReaders.size());
  return 0;
}

int runTrustShow(const TrustOptions& o) {
  std::optional<ShareStore> store;
  if (int rc = openStore(o.root, store)) return rc;
  const io::ShareTrustStatus st = io::readShareTrust(*store);
  if (o.json) {
    nlohmann::json j{{"signed", st.hasRoster || !st.problem.empty()}, {"trusted", st.problem.empty()},
                     {"problem", st.problem}, {"version", st.version}, {"root", st.rootFingerprint},
                     {"pinnedNow", st.pinnedNow}, {"members", nlohmann::json::array()},
                     {"removed", nlohmann::json::array()},
                     {"content", {{"generation", st.contentGeneration}, {"readers", st.contentReaders},
                                  {"thisUserReads", st.thisUserReadsContent}, {"problem", st.contentProblem}}}};
    for (const auto& m : st.members)
      j["members"].push_back({{"user", m.user}, {"roles", m.roles}, {"fingerprint", io::keyFingerprint(m.publicKey)}});
    for (const auto& f : st.removed) j["removed"].push_back({{"user", f.user}, {"removedIn", f.removedIn}});
    std::printf("%s\n", j.dump(2).c_str());
    return st.problem.empty() ? 0 : 1;
  }
  if (!st.problem.empty()) {
    std::printf("roster NOT TRUSTED: %s\nNothing signed on this share counts until an admin sorts it out.\n",
                st.problem.c_str());
    return 1;
  }
  if (!st.hasRoster) {
    std::printf("no roster: this share is unsigned (records read as \"unsigned\"; 'trust init' makes one)\n");
    return 0;
  }
  std::printf("roster version %d, rooted in key %s%s\n", st.version, st.rootFingerprint.substr(0, 16).c_str(),
              st.pinnedNow ? " (pinned now: first use on this machine)" : " (matches this user's pin)");
  for (const auto& m : st.members) {
    std::string roles;
    for (const auto& r : m.roles) roles += (roles.empty() ? "" : ", ") + r;
    std::printf("  %-16s %-40s key %s\n", m.user.c_str(), roles.c_str(), io::keyFingerprint(m.publicKey).substr(0, 16).c_str());
  }
  for (const auto& f : st.removed) std::printf("  %-16s removed in version %d\n", f.user.c_str(), f.removedIn);
  if (st.contentGeneration == 0) {
    std::printf("content: not encrypted ('trust encrypt' turns it on)\n");
  } else {
    std::string readers;
    for (const auto& r : st.contentReaders) readers += (readers.empty() ? "" : ", ") + r;
    std::printf("content: encrypted, key generation %d, wrapped for %s\n", st.contentGeneration, readers.c_str());
    if (!st.thisUserReadsContent) std::printf("  this user cannot read new content: %s\n", st.contentProblem.c_str());
  }
  return 0;
}

int runTrustVerify(const TrustOptions& o) {
  std::optional<ShareStore> store;
  if (int rc = openStore(o.root, store)) return rc;
  const auto start = std::chrono::steady_clock::now();
  const io::ShareTrustStatus st = io::readShareTrust(*store);
  auto report = io::checkShareRecords(*store);
  if (!report) return fileError(report.error());
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const bool signedStore = st.hasRoster || !st.problem.empty();
  std::map<std::string, std::size_t> counts;
  for (const auto& r : report->records) ++counts[io::trustStateName(r.trust.state)];
  // Bad: what somebody did to a record or signed without the right. Unsigned records on a signed share and
  // removed members' records are shown, and do not count, but are no sign of tampering.
  std::vector<const io::CheckedRecord*> bad, shown;
  for (const auto& r : report->records) {
    const auto s = r.trust.state;
    if (s == io::TrustState::Forged || s == io::TrustState::UnknownKey || s == io::TrustState::OutOfRole ||
        s == io::TrustState::NoRoster)
      bad.push_back(&r);
    else if (signedStore && (s != io::TrustState::Signed || !r.counted))
      shown.push_back(&r);
  }
  const int rc = bad.empty() && report->problems.empty() && st.problem.empty() ? 0 : 1;
  if (o.json) {
    nlohmann::json j{{"signed", signedStore}, {"rosterProblem", st.problem}, {"rosterVersion", st.version},
                     {"records", report->records.size()}, {"counts", counts}, {"seconds", seconds},
                     {"problems", report->problems}, {"flagged", nlohmann::json::array()}};
    for (const auto* list : {&bad, &shown})
      for (const auto* r : *list) {
        j["flagged"].push_back({{"path", r->path}, {"kind", r->kind}, {"author", r->author}, {"trust", trustJson(r->trust)},
                                {"counted", r->counted}, {"notCounted", r->notCounted}});
      }
    std::printf("%s\n", j.dump(2).c_str());
    return rc;
  }
  if (!st.problem.empty()) std::printf("roster NOT TRUSTED: %s\n", st.problem.c_str());
  else if (!signedStore) std::printf("no roster: an unsigned share\n");
  std::printf("%zu record(s) checked in %.3f s:", report->records.size(), seconds);
  for (const auto& [state, n] : counts) std::printf(" %zu %s", n, state.c_str());
  std::printf("\n");
  for (const auto* r : bad)
    std::printf("%s: %s %s: %s\n", io::trustStateName(r->trust.state), r->kind.c_str(), r->path.c_str(),
                io::describeTrust(r->trust).c_str());
  for (const auto* r : shown)
    std::printf("%s: %s %s: %s\n", r->trust.state == io::TrustState::Signed ? "not counted" : io::trustStateName(r->trust.state),
                r->kind.c_str(), r->path.c_str(), r->counted ? io::describeTrust(r->trust).c_str() : r->notCounted.c_str());
  for (const auto& p : report->problems) std::printf("unreadable: %s\n", p.c_str());
  return rc;
}

}  // namespace delineate::app::cli
