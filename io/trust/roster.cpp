#include "io/trust/roster.h"

#include <algorithm>
#include <filesystem>
#include <set>

#include <nlohmann/json.hpp>

#include "io/base/atomic_file.h"
#include "io/base/file_modes.h"
#include "io/base/file_read.h"
#include "io/base/process_info.h"
#include "io/base/sha256.h"

namespace delineate::io {
namespace fs = std::filesystem;
using core::ErrorCode;
using core::makeError;

namespace {
constexpr const char* kRosterPrefix = "delineate-roster/1\n";
constexpr std::size_t kMaxMembers = 100000;

bool validUser(const std::string& u) {
  if (u.empty() || u.size() > 64 || u[0] == '.' || u[0] == '-') return false;
  return std::all_of(u.begin(), u.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
           c == '-' || c == '@';
  });
}

nlohmann::json rosterJson(const Roster& r) {
  nlohmann::json members = nlohmann::json::array();
  for (const auto& m : r.members) {
    nlohmann::json j{{"user", m.user}, {"key", m.publicKey}, {"roles", m.roles}};
    if (!m.boxKey.empty()) j["box"] = m.boxKey;
    members.push_back(std::move(j));
  }
  nlohmann::json j{{"format", r.content.generation > 0 ? 2 : 1}, {"store", r.store}, {"version", r.version},
                   {"previous", r.previous}, {"time", r.time}, {"members", members}};
  if (r.content.generation > 0) {
    nlohmann::json wrapped = nlohmann::json::object();
    for (const auto& [user, w] : r.content.wrapped) wrapped[user] = {{"epk", w.epk}, {"key", w.key}};
    j["content"] = {{"generation", r.content.generation}, {"id", r.content.id}, {"wrapped", wrapped}};
    if (!r.content.previousKey.empty())
      j["content"]["previous"] = {{"nonce", r.content.previousNonce}, {"key", r.content.previousKey}};
  }
  return j;
}

// Members sorted and checked: valid names and keys, known roles, no name or key twice.
core::Status normalise(Roster& r, const std::string& source) {
  std::set<std::string> users, keys;
  if (r.members.size() > kMaxMembers) return makeError(ErrorCode::SizeLimit, source, "more than 100000 members");
  for (auto& m : r.members) {
    if (!validUser(m.user))
      return makeError(ErrorCode::InvalidArgument, source,
                       "member name '" + m.user + "' is not 1-64 letters, digits, '.', '_', '-' or '@'");
    if (keyFingerprint(m.publicKey).empty())
      return makeError(ErrorCode::InvalidArgument, source, m.user + "'s key is not base64 of an Ed25519 public key");
    for (const auto& role : m.roles)
      if (!isRole(role)) return makeError(ErrorCode::InvalidArgument, source, m.user + ": unknown role '" + role + "'");
    std::sort(m.roles.begin(), m.roles.end());
    m.roles.erase(std::unique(m.roles.begin(), m.roles.end()), m.roles.end());
    if (!users.insert(m.user).second)
      return makeError(ErrorCode::InvalidArgument, source, "member '" + m.user + "' is listed twice");
    if (!keys.insert(m.publicKey).second)
      return makeError(ErrorCode::InvalidArgument, source, m.user + "'s key is another member's key as well");
    if (!m.boxKey.empty() && !isBoxKey(m.boxKey))
      return makeError(ErrorCode::InvalidArgument, source, m.user + "'s box key is not base64 of 32 bytes (X25519)");
  }
  if (r.content.generation < 0 || r.content.generation > 1000000)
    return makeError(ErrorCode::InvalidArgument, source, "the content key's generation is out of range");
  if (r.content.generation > 0) {
    if (r.content.id.size() != 16 || r.content.id.find_first_not_of("0123456789abcdef") != std::string::npos)
      return makeError(ErrorCode::InvalidArgument, source, "the content key's id is not 16 hex digits");
    for (const auto& [user, w] : r.content.wrapped)
      if (!users.count(user))
        return makeError(ErrorCode::InvalidArgument, source, "the content key is wrapped for '" + user + "', who is not a member");
    if (r.content.generation > 1 && r.content.previousKey.empty())
      return makeError(ErrorCode::InvalidArgument, source,
                       "content key generation " + std::to_string(r.content.generation) + " does not carry the one before");
  }
  std::sort(r.members.begin(), r.members.end(), [](const auto& a, const auto& b) { return a.user < b.user; });
  return core::Status::success();
}

// The content key from one roster version to the next (io/trust/content_key.h): never switched off, a generation
// never going back or skipping and keeping its id, and a new one whenever a member who held the key leaves or
// changes keys. `before` null: version 1.
core::Status checkContentStep(const Roster* before, const Roster& now, const std::string& source) {
  const ContentKeyBlock& b = now.content;
  const auto refuse = [&](const std::string& why) { return makeError(ErrorCode::Corrupt, source, why); };
  if (!before) {
    if (b.generation > 1) return refuse("the roster's first version starts at content key generation " + std::to_string(b.generation));
    return core::Status::success();
  }
  const ContentKeyBlock& a = before->content;
  if (a.generation > 0 && b.generation == 0)
    return refuse("content encryption was switched off (by a client that does not know it?): refused");
  if (b.generation < a.generation || b.generation > a.generation + 1)
    return refuse("the content key goes from generation " + std::to_string(a.generation) + " to " +
                  std::to_string(b.generation));
  if (b.generation == a.generation && a.generation > 0) {
    if (b.id != a.id) return refuse("content key generation " + std::to_string(b.generation) + " changed its key");
    for (const auto& [user, w] : a.wrapped) {
      const RosterMember* was = before->member(user);
      const RosterMember* is = now.member(user);
      if (!is || !was || is->publicKey != was->publicKey || is->boxKey != was->boxKey)
        return refuse(user + " left or changed keys and the content key stayed generation " +
                      std::to_string(b.generation) + ": they could read what is written next");
    }
  }
  return core::Status::success();
}

std::string pinFolderOr(const std::string& folder) {
  return folder.empty() ? userConfigFolder() + "/trust/pins" : folder;
}

bool validStoreId(const std::string& id) {
  return !id.empty() && id.size() <= 64 &&
         std::all_of(id.begin(), id.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}
}  // namespace

bool isRole(const std::string& role) {
  return std::any_of(std::begin(kRoles), std::end(kRoles), [&](const char* r) { return role == r; });
}

bool RosterMember::has(const std::string& role) const {
  return std::find(roles.begin(), roles.end(), role) != roles.end();
}

const RosterMember* Roster::member(const std::string& user) const {
  for (const auto& m : members)
    if (m.user == user) return &m;
  return nullptr;
}

const char* trustStateName(TrustState state) {
  switch (state) {
    case TrustState::Unsigned: return "unsigned";
    case TrustState::Signed: return "signed";
    case TrustState::Forged: return "forged";
    case TrustState::UnknownKey: return "unknown-key";
    case TrustState::Removed: return "removed-member";
    case TrustState::OutOfRole: return "out-of-role";
    case TrustState::NoRoster: return "untrusted-roster";
  }
  return "unsigned";
}

std::string recordSigningMessage(const std::string& storeId, const std::string& relativePath,
                                 const std::string& canonical) {
  return "delineate-record/1\n" + storeId + "\n" + relativePath + "\n" + canonical;
}

core::Result<std::string> signRoster(Roster roster, const SigningKey& key) {
  if (core::Status s = normalise(roster, "roster version " + std::to_string(roster.version)); !s) return s.error();
  nlohmann::json j = rosterJson(roster);
  j["signature"] = {{"alg", "ed25519"}, {"key", key.publicKey().fingerprint()}};
  const std::string value = key.sign(kRosterPrefix + j.dump());
  if (value.empty()) return makeError(ErrorCode::InvalidArgument, "roster", "OpenSSL could not sign the roster");
  j["signature"]["value"] = value;
  return j.dump(2) + "\n";
}

core::Result<Roster> parseRoster(const std::string& document, const std::string& source) {
  const auto j = nlohmann::json::parse(document, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return makeError(ErrorCode::ParseError, source, "the roster is not a JSON object");
  Roster r;
  try {
    const int format = j.at("format").get<int>();
    if (format != 1 && format != 2)
      return makeError(ErrorCode::ParseError, source, "roster format " + j.at("format").dump() + " is not 1 or 2");
    if ((format == 2) != j.contains("content"))
      return makeError(ErrorCode::ParseError, source, "a roster of format 2 has a content key, and only one of format 2");
    r.store = j.at("store").get<std::string>();
    r.version = j.at("version").get<int>();
    r.previous = j.at("previous").get<std::string>();
    r.time = j.at("time").get<std::string>();
    for (const auto& m : j.at("members"))
      r.members.push_back({m.at("user").get<std::string>(), m.at("key").get<std::string>(),
                           m.at("roles").get<std::vector<std::string>>(),
                           m.contains("box") ? m.at("box").get<std::string>() : std::string()});
    if (j.contains("content")) {
      const auto& c = j.at("content");
      r.content.generation = c.at("generation").get<int>();
      if (r.content.generation < 1) return makeError(ErrorCode::ParseError, source, "the content key's generation is not 1 or more");
      r.content.id = c.at("id").get<std::string>();
      for (const auto& [user, w] : c.at("wrapped").items())
        r.content.wrapped[user] = {w.at("epk").get<std::string>(), w.at("key").get<std::string>()};
      if (c.contains("previous")) {
        r.content.previousNonce = c.at("previous").at("nonce").get<std::string>();
        r.content.previousKey = c.at("previous").at("key").get<std::string>();
      }
    }
    const auto& sig = j.at("signature");
    if (sig.at("alg").get<std::string>() != "ed25519")
      return makeError(ErrorCode::ParseError, source, "the roster's signature is not Ed25519");
    r.signerFingerprint = sig.at("key").get<std::string>();
    (void)sig.at("value").get<std::string>();
  } catch (const nlohmann::json::exception& e) {
    return makeError(ErrorCode::ParseError, source, std::string("roster field missing or wrong: ") + e.what());
  }
  if (core::Status s = normalise(r, source); !s) return s.error();
  return r;
}

core::Result<VerifiedRoster> VerifiedRoster::fromChain(const std::vector<std::string>& documents,
                                                       const std::vector<int>& versions,
                                                       const std::vector<std::string>& sources,
                                                       const std::string& storeId) {
  if (documents.empty() || documents.size() != sources.size() || documents.size() != versions.size())
    return makeError(ErrorCode::InvalidArgument, "roster", "no roster versions");
  VerifiedRoster out;
  for (std::size_t i = 0; i < documents.size(); ++i) {
    const std::string& source = sources[i];
    auto parsed = parseRoster(documents[i], source);
    if (!parsed) return parsed.error();
    const int expected = versions[i];
    if (parsed->version != expected)
      return makeError(ErrorCode::Corrupt, source,
                       "roster version " + std::to_string(parsed->version) + " where " + std::to_string(expected) +
                           " belongs");
    if (parsed->store != storeId)
      return makeError(ErrorCode::Corrupt, source, "the roster is another share's (store " + parsed->store + ")");
    const std::string expectedPrevious = i == 0 ? std::string() : sha256Hex(documents[i - 1].data(), documents[i - 1].size());
    if (parsed->previous != expectedPrevious)
      return makeError(ErrorCode::Corrupt, source,
                       "its 'previous' hash is not the version before's document: the chain was changed");
    // The signer must be an admin of the version before (of this one, for version 1).
    const Roster& authority = i == 0 ? *parsed : out.m_versions.back();
    const RosterMember* signer = nullptr;
    for (const auto& m : authority.members)
      if (keyFingerprint(m.publicKey) == parsed->signerFingerprint) signer = &m;
    if (!signer || !signer->has("admin"))
      return makeError(ErrorCode::Corrupt, source,
                       "signed by a key that is not an admin's " +
                           std::string(i == 0 ? "in this version"
                                              : "in version " + std::to_string(out.m_versions.back().version)));
    auto key = PublicKey::fromBase64(signer->publicKey, source);
    if (!key) return key.error();
    auto j = nlohmann::json::parse(documents[i]);
    const std::string value = j["signature"]["value"].get<std::string>();
    j["signature"].erase("value");
    if (!key->verify(kRosterPrefix + j.dump(), value))
      return makeError(ErrorCode::Corrupt, source, "the roster's signature does not verify: it was changed after signing");
    if (core::Status s = checkContentStep(i == 0 ? nullptr : &out.m_versions.back(), *parsed, source); !s)
      return s.error();
    for (const auto& m : parsed->members) {
      auto mk = PublicKey::fromBase64(m.publicKey, source);
      if (!mk) return mk.error();
      const std::string fp = mk->fingerprint();
      out.m_keys[fp] = KeyInfo{std::move(*mk), m.user, i};
    }
    out.m_versions.push_back(std::move(*parsed));
    out.m_shas.push_back(sha256Hex(documents[i].data(), documents[i].size()));
  }
  return out;
}

const RosterMember* VerifiedRoster::memberByKey(const std::string& fingerprint) const {
  const auto it = m_keys.find(fingerprint);
  if (it == m_keys.end() || it->second.lastIndex + 1 != m_versions.size()) return nullptr;
  return current().member(it->second.user);
}

RecordTrust VerifiedRoster::check(const std::string& fingerprint, const std::string& signatureValue,
                                  const std::string& message, const std::string& author,
                                  const std::string& role) const {
  RecordTrust t;
  const auto it = m_keys.find(fingerprint);
  if (it == m_keys.end()) {
    t.state = TrustState::UnknownKey;
    t.detail = "signed by a key that was never on the roster (" + fingerprint.substr(0, 16) + ")";
    return t;
  }
  const KeyInfo& info = it->second;
  t.signer = info.user;
  if (!info.key.verify(message, signatureValue)) {
    t.state = TrustState::Forged;
    t.detail = "the signature by " + info.user + "'s key does not match the record: it was changed after signing";
    return t;
  }
  if (info.user != author) {
    t.state = TrustState::Forged;
    t.detail = "signed by " + info.user + ", but the record names " + (author.empty() ? "nobody" : author) +
               " as its author";
    return t;
  }
  if (info.lastIndex + 1 != m_versions.size()) {
    t.state = TrustState::Removed;
    const std::string when = "version " + std::to_string(m_versions[info.lastIndex + 1].version);
    t.detail = current().member(info.user)
                   ? "signed with " + info.user + "'s former key, replaced in roster " + when
                   : "signed by " + info.user + ", removed from the roster in " + when;
    return t;
  }
  const RosterMember* m = current().member(info.user);
  if (!role.empty() && (!m || !m->has(role))) {
    t.state = TrustState::OutOfRole;
    t.detail = "signed by " + info.user + ", who is not " + (role == "admin" || role == "annotator" ? "an " : "a ") +
               role + " on the roster";
    return t;
  }
  t.state = TrustState::Signed;
  t.detail = "signed by " + info.user;
  return t;
}

namespace {
struct Pin {
  std::string root;
  int version = 0;
  std::string sha256;
};

core::Result<std::optional<Pin>> readPin(const std::string& path) {
  auto text = readWholeFileIfPresent(path, 4096, "roster pin");
  if (!text) return text.error();
  if (!text->has_value()) return std::optional<Pin>();
  const auto j = nlohmann::json::parse(**text, nullptr, false);
  Pin pin;
  if (j.is_object() && j.contains("root") && j["root"].is_string() && j.contains("version") &&
      j["version"].is_number_integer() && j.contains("sha256") && j["sha256"].is_string()) {
    pin.root = j["root"].get<std::string>();
    pin.version = j["version"].get<int>();
    pin.sha256 = j["sha256"].get<std::string>();
  }
  if (pin.root.size() != 64 || pin.sha256.size() != 64 || pin.version < 1)
    return makeError(ErrorCode::ParseError, path, "the pin is not a roster pin (root, version, sha256)");
  return std::optional<Pin>(pin);
}

core::Status writePin(const std::string& path, const Pin& pin, bool replace) {
  AtomicWriteOptions options;
  options.noReplace = !replace;
  options.access = FileAccess::Private;
  const std::string text = nlohmann::json{{"root", pin.root}, {"version", pin.version}, {"sha256", pin.sha256}}.dump() + "\n";
  return writeFileAtomically(path, text.data(), text.size(), options);
}
}  // namespace

std::vector<std::pair<std::string, int>> VerifiedRoster::formerMembers() const {
  std::map<std::string, int> out;
  for (const auto& [fp, info] : m_keys)
    if (info.lastIndex + 1 != m_versions.size() && !current().member(info.user)) {
      const int removedIn = m_versions[info.lastIndex + 1].version;
      auto& v = out[info.user];
      v = std::max(v, removedIn);
    }
  return {out.begin(), out.end()};
}

std::string VerifiedRoster::documentSha256(int version) const {
  for (std::size_t i = 0; i < m_versions.size(); ++i)
    if (m_versions[i].version == version) return m_shas[i];
  return {};
}

core::Result<bool> hasRosterPin(const std::string& storeId, const std::string& pinFolder) {
  if (!validStoreId(storeId)) return makeError(ErrorCode::InvalidArgument, storeId, "not a store id");
  auto pin = readPin(pinFolderOr(pinFolder) + "/" + storeId);
  if (!pin) return pin.error();
  return pin->has_value();
}

core::Status checkRosterPin(const std::string& storeId, const VerifiedRoster& roster, bool* pinnedNow,
                            const std::string& pinFolder) {
  if (pinnedNow) *pinnedNow = false;
  if (!validStoreId(storeId)) return makeError(ErrorCode::InvalidArgument, storeId, "not a store id");
  const std::string folder = pinFolderOr(pinFolder);
  const std::string path = folder + "/" + storeId;
  const Pin now{roster.rootFingerprint(), roster.version(), roster.documentSha256(roster.version())};
  for (int attempt = 0; attempt < 2; ++attempt) {
    auto pin = readPin(path);
    if (!pin) return pin.error();
    if (!pin->has_value()) {
      if (core::Status s = createFolders(folder, FileAccess::Private); !s) return s;
      if (writePin(path, now, false)) {
        if (pinnedNow) *pinnedNow = true;
        return core::Status::success();
      }
      continue;  // another process pinned it first: check against that
    }
    const Pin& p = **pin;
    if (p.root != roster.rootFingerprint())
      return makeError(ErrorCode::InvalidArgument, path,
                       "this share's roster was signed by key " + p.root.substr(0, 16) +
                           " when this user first met it, and is now rooted in key " +
                           roster.rootFingerprint().substr(0, 16) +
                           ": the roster was replaced, so nothing it lists is trusted (remove the pin only when an "
                           "admin confirms the new key)");
    const std::string sha = roster.documentSha256(p.version);
    if (p.version > roster.version() || sha.empty())
      return makeError(ErrorCode::InvalidArgument, path,
                       "this user has seen roster version " + std::to_string(p.version) + ", and the share's newest is " +
                           std::to_string(roster.version()) + ": the roster was rolled back (a removal undone?)");
    if (sha != p.sha256)
      return makeError(ErrorCode::InvalidArgument, path,
                       "roster version " + std::to_string(p.version) + " is not the document this user saw: it was rewritten");
    if (p.version < roster.version()) (void)writePin(path, now, true);  // best effort: the check passed either way
    return core::Status::success();
  }
  return makeError(ErrorCode::WriteFailed, path, "could not write or read the roster pin");
}

}  // namespace delineate::io
