// Signed records and the roster (issue 47, item 1): Ed25519 keys kept owner-only, a roster chain pinned on first use,
// every revision and review step signed by its author, and readers that show a forged approval, an edited author, a
// removed member or an out-of-role record as such and never count it.
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "io/base/sealed_file.h"
#include "io/base/sha256.h"
#include "io/share/share_datasets.h"
#include "io/share/share_reviews.h"
#include "io/share/share_trust.h"
#include "io/trust/roster.h"
#include "io/trust/signing_key.h"
#include "tests/common/other_user.h"
#include "tests/common/test_support.h"

using namespace delineate;
using test::EnvScope;
using test::ScratchDir;
namespace fs = std::filesystem;
using io::ReviewAction;
using io::ReviewState;
using io::TrustState;

namespace {

std::string readText(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}
void writeText(const fs::path& p, const std::string& s) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << s;
}

// A share with a roster: alice (admin), bob and dave (annotators), carol and erin (reviewers), each with a key of
// their own; `as(user)` opens the store as that user would (their key, their configuration folder and pins).
struct SignedShare {
  ScratchDir dir;
  std::string root;
  std::map<std::string, io::SigningKey> keys;
  explicit SignedShare(const char* name) : dir(name), root((dir.path() / "share").string()) {
    fs::create_directories(root);
    REQUIRE(io::ShareStore::initialize(root).ok());
    for (const char* u : {"alice", "bob", "carol", "dave", "erin", "mallory"}) {
      auto key = io::SigningKey::generate();
      REQUIRE(key.ok());
      REQUIRE(key->saveNew(keyFile(u)).ok());
      keys.emplace(u, std::move(*key));
    }
    Session admin = as("alice");
    REQUIRE(io::createRoster(admin.store, "alice", keys.at("alice")).ok());
    const std::vector<std::pair<std::string, std::string>> members = {
        {"bob", "annotator"}, {"dave", "annotator"}, {"carol", "reviewer"}, {"erin", "reviewer"}};
    for (const auto& [user, role] : members) {
      auto v = io::updateRoster(admin.store, keys.at("alice"), [&, u = user, r = role](io::Roster& roster) {
        roster.members.push_back({u, keys.at(u).publicKey().base64(), {r}, keys.at(u).boxPublicKey()});
        return core::Status::success();
      });
      REQUIRE(v.ok());
    }
  }
  std::string keyFile(const std::string& user) const { return (dir.path() / user / "identity" / "ed25519.pem").string(); }
  std::string configFolder(const std::string& user) const { return (dir.path() / user).string(); }

  // The environment of one user's process: their key and their configuration (pins).
  struct Session {
    EnvScope key, config;
    io::ShareStore store;
  };
  Session as(const std::string& user) {
    io::forgetRegisteredSealKeys();  // the share keys another user's session unwrapped: one process plays them all
    return Session{EnvScope("DELINEATE_KEY_FILE", keyFile(user)), EnvScope("XDG_CONFIG_HOME", configFolder(user)),
                   io::ShareStore::open(root).value()};
  }
};

const std::vector<std::uint8_t> kBytes(300, 3);

std::string refusal(const core::Status& s) {
  REQUIRE_FALSE(s.ok());
  return s.error().describe();
}
template <class T>
std::string refusal(const core::Result<T>& r) {
  REQUIRE_FALSE(r.ok());
  return r.error().describe();
}

// A review step written by hand (what someone with write access to the share can do), signed with `key` or not.
void plantReview(const io::ShareStore& store, const io::LabelSetRevisions& set, int revision, int sequence,
                 const std::string& action, const std::string& user, const io::SigningKey* key) {
  char name[32];
  std::snprintf(name, sizeof name, "r%06d-%04d.json", revision, sequence);
  const std::string rel = set.folder() + "/reviews/" + name;
  nlohmann::json j{{"revision", revision}, {"sequence", sequence}, {"action", action}, {"user", user},
                   {"host", "elsewhere"}, {"time", "2026-11-28T10:00:00.000Z"}, {"comment", ""}};
  if (key) {
    j["signature"] = {{"alg", "ed25519"}, {"key", key->publicKey().fingerprint()}};
    j["signature"]["value"] = key->sign(io::recordSigningMessage(store.id(), rel, j.dump()));
  }
  fs::create_directories(fs::path(store.root()) / set.folder() / "reviews");
  writeText(fs::path(store.root()) / rel, j.dump(2));
}

}  // namespace

TEST_CASE("trust: Ed25519 keys are kept owner-only, never replaced, and refused when others may read them", "[trust]") {
  ScratchDir dir("trust-keys");
  test::UmaskScope umask(022);
  const std::string path = (dir.path() / "cfg" / "identity" / "ed25519.pem").string();
  auto key = io::SigningKey::generate();
  REQUIRE(key.ok());
  REQUIRE(key->saveNew(path).ok());
  CHECK(test::modeOf(path) == 0600);
  CHECK(test::modeOf(fs::path(path).parent_path()) == 0700);
  CHECK(refusal(key->saveNew(path)).find("never written over") != std::string::npos);

  auto loaded = io::SigningKey::load(path);
  REQUIRE(loaded.ok());
  CHECK(loaded->publicKey().fingerprint() == key->publicKey().fingerprint());
  CHECK(loaded->publicKey().fingerprint().size() == 64);
  const std::string sig = loaded->sign("a record");
  CHECK(key->publicKey().verify("a record", sig));
  CHECK_FALSE(key->publicKey().verify("a recorD", sig));
  auto other = io::SigningKey::generate();
  CHECK_FALSE(other->publicKey().verify("a record", sig));

  // A real second account cannot read the key.
  if (const auto user = test::otherUser()) {
    test::openToOthers(dir.path());
    test::openToOthers(dir.path() / "cfg");
    CHECK_FALSE(test::canRead(*user, path));
  }
  ::chmod(path.c_str(), 0640);
  const std::string why = refusal(io::SigningKey::load(path));
  CHECK(why.find(path) != std::string::npos);
  CHECK(why.find("chmod") != std::string::npos);

  writeText(dir.path() / "not-a-key.pem", "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n");
  ::chmod((dir.path() / "not-a-key.pem").c_str(), 0600);
  CHECK(refusal(io::SigningKey::load((dir.path() / "not-a-key.pem").string())).find("not a PEM private key") !=
        std::string::npos);
  CHECK_FALSE(io::PublicKey::fromBase64("AAAA", "x").ok());
  CHECK_FALSE(io::PublicKey::fromBase64(std::string(44, '!'), "x").ok());
}

TEST_CASE("trust: records are signed by their authors, and a forged approval, an edited author and a removed member never count",
          "[trust][share-suite]") {
  SignedShare share("trust-records");
  int revision = 0;
  {
    auto bob = share.as("bob");
    auto set = io::LabelSetRevisions::open(bob.store, "mouse-1", "atlas").value();
    auto saved = set.save(kBytes.data(), kBytes.size(), io::SaveRequest{"", 0, "first", {}});
    REQUIRE(saved.ok());
    revision = saved->number;
    CHECK(saved->author == "bob");  // the roster's name for the key, not the login
    REQUIRE(io::LabelSetReviews(set).record(revision, ReviewAction::Submit, "", "").ok());
    // A name given that is not the signer's is not what the record says: the key decides who wrote it.
    auto other = io::LabelSetRevisions::open(bob.store, "mouse-1", "other").value();
    auto named = other.save(kBytes.data(), kBytes.size(), io::SaveRequest{"carol", 0, "x", {}});
    REQUIRE(named.ok());
    CHECK(named->author == "bob");
    CHECK(other.list()->find(named->number)->trust.state == TrustState::Signed);
  }
  {
    auto dave = share.as("dave");  // an annotator, not a reviewer
    auto set = io::LabelSetRevisions::open(dave.store, "mouse-1", "atlas").value();
    CHECK(refusal(io::LabelSetReviews(set).record(revision, ReviewAction::Approve, "", "")).find("dave is not a reviewer") !=
          std::string::npos);
  }
  {
    auto carol = share.as("carol");  // a reviewer, not an annotator
    auto set = io::LabelSetRevisions::open(carol.store, "mouse-1", "atlas").value();
    CHECK(refusal(set.save(kBytes.data(), kBytes.size(), io::SaveRequest{"", 1, "x", {}})).find("carol is not an annotator") !=
          std::string::npos);
    auto approved = io::LabelSetReviews(set).record(revision, ReviewAction::Approve, "", "");
    REQUIRE(approved.ok());
    CHECK(approved->user == "carol");
    auto rv = io::LabelSetReviews(set).review(revision);
    REQUIRE(rv.ok());
    CHECK(rv->state == ReviewState::Approved);
    for (const auto& h : rv->history) {
      CHECK(h.trust.state == TrustState::Signed);
      CHECK(h.counted);
    }
    auto list = set.list();
    REQUIRE(list.ok());
    CHECK(list->revisions.front().trust.state == TrustState::Signed);
    CHECK(list->revisions.front().trust.signer == "bob");
  }

  // Second revision, submitted by bob; then approvals nobody may count.
  auto bob = share.as("bob");
  auto set = io::LabelSetRevisions::open(bob.store, "mouse-1", "atlas").value();
  REQUIRE(set.save(kBytes.data(), kBytes.size(), io::SaveRequest{"", 1, "second", {}}).ok());
  REQUIRE(io::LabelSetReviews(set).record(2, ReviewAction::Submit, "", "").ok());
  const auto stateOf = [&](int rev) {
    auto r = io::LabelSetReviews(set).review(rev);
    REQUIRE(r.ok());
    return *r;
  };

  SECTION("an unsigned approval, one by an annotator signed with his own key, and one copied from another revision") {
    plantReview(bob.store, set, 2, 2, "approve", "carol", nullptr);
    plantReview(bob.store, set, 2, 3, "approve", "dave", &share.keys.at("dave"));
    // Carol's real, signed approval of revision 1 copied as a step of revision 2: its signature covers its path.
    const fs::path folder = fs::path(bob.store.root()) / set.folder() / "reviews";
    auto copied = nlohmann::json::parse(readText(folder / "r000001-0002.json"));
    copied["revision"] = 2;
    copied["sequence"] = 4;
    writeText(folder / "r000002-0004.json", copied.dump(2));
    // And a signature block of the wrong types: named as forged, never a crash.
    writeText(folder / "r000002-0005.json",
              R"({"revision": 2, "sequence": 5, "action": "approve", "user": "erin", "host": "x", "time": "t",
                  "comment": "", "signature": {"alg": 5, "key": [], "value": null}})");
    const auto rv = stateOf(2);
    CHECK(rv.state == ReviewState::Submitted);
    REQUIRE(rv.history.size() == 5);
    CHECK(rv.history[4].trust.state == TrustState::Forged);
    CHECK_FALSE(rv.history[4].counted);
    CHECK(rv.history[1].trust.state == TrustState::Unsigned);
    CHECK(rv.history[2].trust.state == TrustState::OutOfRole);
    CHECK(rv.history[2].trust.detail.find("dave, who is not a reviewer") != std::string::npos);
    CHECK(rv.history[3].trust.state == TrustState::Forged);
    for (int i = 1; i < 4; ++i) CHECK_FALSE(rv.history[i].counted);
    CHECK(rv.notCounted() == 4);
    // Datasets built from approved revisions skip it: revision 1 is the newest approved.
    auto approved = io::newestApprovedRevisions(bob.store, "atlas");
    REQUIRE(approved.ok());
    REQUIRE(approved->size() == 1);
    CHECK(approved->front().revision == 1);
    // A real reviewer can still approve: the planted steps changed nothing.
    auto erin = share.as("erin");
    auto eset = io::LabelSetRevisions::open(erin.store, "mouse-1", "atlas").value();
    REQUIRE(io::LabelSetReviews(eset).record(2, ReviewAction::Approve, "", "").ok());
    CHECK(stateOf(2).state == ReviewState::Approved);
  }

  SECTION("a self-approval signed by a reviewer who wrote the revision counts for nothing") {
    // erin becomes an annotator as well, writes revision 3 and approves it with her own key, by hand.
    auto admin = share.as("alice");
    REQUIRE(io::updateRoster(admin.store, share.keys.at("alice"), [](io::Roster& r) {
              for (auto& m : r.members)
                if (m.user == "erin") m.roles = {"annotator", "reviewer"};
              return core::Status::success();
            }).ok());
    auto erin = share.as("erin");
    auto eset = io::LabelSetRevisions::open(erin.store, "mouse-1", "atlas").value();
    REQUIRE(eset.save(kBytes.data(), kBytes.size(), io::SaveRequest{"", 2, "third", {}}).ok());
    plantReview(erin.store, eset, 3, 1, "submit", "erin", &share.keys.at("erin"));
    plantReview(erin.store, eset, 3, 2, "approve", "erin", &share.keys.at("erin"));
    auto rv = io::LabelSetReviews(eset).review(3);
    REQUIRE(rv.ok());
    CHECK(rv->state == ReviewState::Submitted);
    CHECK(rv->history[1].trust.state == TrustState::Signed);
    CHECK_FALSE(rv->history[1].counted);
    CHECK(rv->history[1].notCounted.find("erin wrote the revision") != std::string::npos);
  }

  SECTION("an author changed in a record") {
    const fs::path meta = fs::path(bob.store.root()) / set.folder() / "r000001.json";
    std::string text = readText(meta);
    const auto at = text.find("\"author\": \"bob\"");
    REQUIRE(at != std::string::npos);
    text.replace(at, 15, "\"author\": \"dave\"");
    writeText(meta, text);
    auto list = set.list();
    REQUIRE(list.ok());
    CHECK(list->revisions.front().author == "dave");
    CHECK(list->revisions.front().trust.state == TrustState::Forged);
    CHECK(list->revisions.front().trust.detail.find("changed after signing") != std::string::npos);
    // Re-signed by dave with his own key: still not bob's record.
    auto j = nlohmann::json::parse(text);
    j.erase("signature");
    j["signature"] = {{"alg", "ed25519"}, {"key", share.keys.at("dave").publicKey().fingerprint()}};
    // (signed as dave, but naming bob)
    j["author"] = "bob";
    j["signature"]["value"] =
        share.keys.at("dave").sign(io::recordSigningMessage(bob.store.id(), set.folder() + "/r000001.json", j.dump()));
    writeText(meta, j.dump(2));
    list = set.list();
    CHECK(list->revisions.front().trust.state == TrustState::Forged);
    CHECK(list->revisions.front().trust.detail.find("signed by dave, but the record names bob") != std::string::npos);
    auto report = io::checkShareRecords(bob.store);
    REQUIRE(report.ok());
    CHECK(report->count(TrustState::Forged) == 1);
  }

  SECTION("a removed member: what they signed no longer counts, and they can sign nothing new") {
    auto admin = share.as("alice");
    auto v = io::updateRoster(admin.store, share.keys.at("alice"), [](io::Roster& r) {
      r.members.erase(std::remove_if(r.members.begin(), r.members.end(), [](const auto& m) { return m.user == "carol"; }),
                      r.members.end());
      return core::Status::success();
    });
    REQUIRE(v.ok());
    const auto status = io::readShareTrust(admin.store);
    REQUIRE(status.removed.size() == 1);
    CHECK(status.removed.front().user == "carol");
    CHECK(status.removed.front().removedIn == *v);
    auto fresh = share.as("bob");
    auto fset = io::LabelSetRevisions::open(fresh.store, "mouse-1", "atlas").value();
    auto rv = io::LabelSetReviews(fset).review(1);
    REQUIRE(rv.ok());
    CHECK(rv->state == ReviewState::Submitted);
    CHECK(rv->history[1].trust.state == TrustState::Removed);
    CHECK(rv->history[1].trust.detail.find("carol, removed from the roster in version " + std::to_string(*v)) !=
          std::string::npos);
    auto carol = share.as("carol");
    auto cset = io::LabelSetRevisions::open(carol.store, "mouse-1", "atlas").value();
    CHECK(refusal(io::LabelSetReviews(cset).record(2, ReviewAction::Approve, "", "")).find("not on the share's roster") !=
          std::string::npos);
  }
}

TEST_CASE("trust: the roster chain is pinned on first use, and a rewritten, replaced, rolled-back or deleted roster is refused",
          "[trust][share-suite]") {
  SignedShare share("trust-roster");
  {
    auto bob = share.as("bob");
    auto set = io::LabelSetRevisions::open(bob.store, "m", "atlas").value();
    REQUIRE(set.save(kBytes.data(), kBytes.size(), io::SaveRequest{"", 0, "first", {}}).ok());
    const auto st = io::readShareTrust(bob.store);
    CHECK(st.problem.empty());
    CHECK(st.version == 5);
    CHECK(st.members.size() == 5);
    CHECK(fs::exists(fs::path(share.configFolder("bob")) / "delineate" / "trust" / "pins" / bob.store.id()));
  }
  const fs::path rosterDir = fs::path(share.root) / "trust" / "roster";
  const auto problemFor = [&](const std::string& user) {
    auto s = share.as(user);
    return io::readShareTrust(s.store).problem;
  };
  const auto recordStateFor = [&](const std::string& user) {
    auto s = share.as(user);
    auto set = io::LabelSetRevisions::open(s.store, "m", "atlas").value();
    return set.list()->revisions.front().trust.state;
  };

  SECTION("a version rewritten (a role added by hand): the chain breaks for everyone") {
    // The document's hash is in its metadata: rewrite both, as an attacker with write access would.
    const fs::path doc = rosterDir / "r000002.roster.json";
    std::string text = readText(doc);
    const auto at = text.find("\"annotator\"");
    REQUIRE(at != std::string::npos);
    text.replace(at, 11, "\"reviewer\" ");
    writeText(doc, text);
    auto meta = nlohmann::json::parse(readText(rosterDir / "r000002.json"));
    meta["sha256"] = io::sha256Hex(text.data(), text.size());
    meta["bytes"] = text.size();
    writeText(rosterDir / "r000002.json", meta.dump(2));
    CHECK(problemFor("bob").find("does not verify") != std::string::npos);
    CHECK(recordStateFor("bob") == TrustState::NoRoster);
    auto bob = share.as("bob");
    auto set = io::LabelSetRevisions::open(bob.store, "m", "atlas").value();
    CHECK(refusal(set.save(kBytes.data(), kBytes.size(), io::SaveRequest{"", 1, "x", {}})).find("roster is not trusted") !=
          std::string::npos);
  }

  SECTION("a roster replaced by mallory's own, rooted in her key") {
    fs::remove_all(rosterDir);
    auto mallory = share.as("mallory");
    // mallory has never met this share: she pins her own roster.
    REQUIRE(io::createRoster(mallory.store, "bob", share.keys.at("mallory"), {"reviewer"}).ok());
    CHECK(problemFor("bob").find("the roster was replaced") != std::string::npos);
    CHECK(recordStateFor("bob") == TrustState::NoRoster);
  }

  SECTION("rolled back to before a removal") {
    auto admin = share.as("alice");
    REQUIRE(io::updateRoster(admin.store, share.keys.at("alice"), [](io::Roster& r) {
              r.members.pop_back();
              return core::Status::success();
            }).ok());
    CHECK(problemFor("bob").empty());  // bob saw version 6
    fs::remove(rosterDir / "r000006.roster.json");
    fs::remove(rosterDir / "r000006.json");
    CHECK(problemFor("bob").find("rolled back") != std::string::npos);
    // A user who never saw version 6 cannot tell (trust on first use has that limit; README says so).
    CHECK(problemFor("erin").empty());
  }

  SECTION("deleted after it was pinned: the share does not turn into an unsigned one") {
    fs::remove_all(rosterDir);
    CHECK(problemFor("bob").find("has none now") != std::string::npos);
    CHECK(recordStateFor("bob") == TrustState::NoRoster);
    CHECK(problemFor("erin").empty());  // never pinned: reads an unsigned share
  }

  SECTION("only an admin of the current version changes it, and never to no admin") {
    auto bob = share.as("bob");
    CHECK(refusal(io::updateRoster(bob.store, share.keys.at("bob"), [](io::Roster&) { return core::Status::success(); }))
              .find("not an admin's") != std::string::npos);
    auto admin = share.as("alice");
    CHECK(refusal(io::updateRoster(admin.store, share.keys.at("alice"), [](io::Roster& r) {
            for (auto& m : r.members) m.roles = {"annotator"};
            return core::Status::success();
          })).find("without an admin") != std::string::npos);
    CHECK(refusal(io::createRoster(admin.store, "alice", share.keys.at("alice"))).find("has a roster already") !=
          std::string::npos);
  }
}

TEST_CASE("trust: an unsigned share reads as before, every record 'unsigned', and no key is needed to write to it", "[trust]") {
  ScratchDir dir("trust-unsigned");
  EnvScope key("DELINEATE_KEY_FILE", (dir.path() / "no-key.pem").string());
  EnvScope config("XDG_CONFIG_HOME", (dir.path() / "cfg").string());
  auto store = io::ShareStore::initialize(dir.path().string()).value();
  auto set = io::LabelSetRevisions::open(store, "s", "l").value();
  REQUIRE(set.save(kBytes.data(), kBytes.size(), io::SaveRequest{"ann", 0, "", {}}).ok());
  const io::LabelSetReviews reviews(set);
  REQUIRE(reviews.record(1, ReviewAction::Submit, "ann", "").ok());
  REQUIRE(reviews.record(1, ReviewAction::Approve, "bob", "").ok());
  auto rv = reviews.review(1);
  CHECK(rv->state == ReviewState::Approved);
  CHECK(rv->history.back().trust.state == TrustState::Unsigned);
  CHECK(rv->history.back().counted);
  CHECK(set.list()->revisions.front().trust.state == TrustState::Unsigned);
  CHECK_FALSE(io::storeIsSigned(store));
  auto report = io::checkShareRecords(store);
  REQUIRE(report.ok());
  CHECK(report->count(TrustState::Unsigned) == 3);
}

namespace {
std::string contentFileOf(const io::RevisionFolder& set, int revision) {
  char name[32];
  std::snprintf(name, sizeof name, "r%06d.nii.gz", revision);
  return set.store().root() + "/" + set.folder() + "/" + name;
}
std::string sealKeyIdOf(const std::string& path) { return readText(path).substr(8, 8); }
}  // namespace

TEST_CASE("trust: the share's content encrypted for its members, a removed member cannot read what is written after "
          "the removal, a member added later reads it all",
          "[trust][encrypt]") {
  SignedShare share("trust-encrypt");
  std::vector<std::uint8_t> labels(200000);  // several 64 KiB chunks
  for (std::size_t i = 0; i < labels.size(); ++i) labels[i] = std::uint8_t((i * 7919) >> 5);
  const std::string plainSha = io::sha256Hex(labels.data(), labels.size());
  {
    auto alice = share.as("alice");
    // Not for a member without a box key (they could not read): re-added with theirs, it goes through.
    REQUIRE(io::updateRoster(alice.store, share.keys.at("alice"), [&](io::Roster& r) {
              for (auto& m : r.members)
                if (m.user == "erin") m.boxKey.clear();
              return core::Status::success();
            }).ok());
    CHECK(refusal(io::encryptShareContent(alice.store, share.keys.at("alice"))).find("no box key for erin") !=
          std::string::npos);
    REQUIRE(io::updateRoster(alice.store, share.keys.at("alice"), [&](io::Roster& r) {
              for (auto& m : r.members)
                if (m.user == "erin") m.boxKey = share.keys.at("erin").boxPublicKey();
                else if (m.user == "bob") m.roles.push_back("trainer");
              return core::Status::success();
            }).ok());
    REQUIRE(io::encryptShareContent(alice.store, share.keys.at("alice")).ok());
    const auto st = io::readShareTrust(alice.store);
    CHECK(st.contentGeneration == 1);
    CHECK(st.contentReaders == std::vector<std::string>{"alice", "bob", "carol", "dave", "erin"});
    CHECK(st.thisUserReadsContent);
    CHECK(refusal(io::encryptShareContent(alice.store, share.keys.at("alice"))).find("already") != std::string::npos);
  }
  std::string firstKeyId;
  int removalVersion = 0;
  std::optional<io::ShareStore> bobsStore;  // kept open across the removal, as a long training run keeps its store
  {
    auto bob = share.as("bob");
    bobsStore.emplace(bob.store);
    auto set = io::LabelSetRevisions::open(bob.store, "mouse-1", "atlas").value();
    auto saved = set.save(labels.data(), labels.size(), io::SaveRequest{"", 0, "before", {}});
    REQUIRE(saved.ok());
    CHECK(saved->sha256 == plainSha);  // the metadata describes the content, sealed or not
    CHECK(saved->bytes == labels.size());
    const std::string stored = readText(contentFileOf(set, 1));
    CHECK(stored.substr(0, 8) == "DLNSEAL1");
    CHECK(stored.find(std::string(reinterpret_cast<const char*>(labels.data()) + 1000, 64)) == std::string::npos);
    firstKeyId = sealKeyIdOf(contentFileOf(set, 1));
    CHECK(set.load(1).value() == labels);
    CHECK(set.verify(1).ok());
    // A checkpoint streamed in (the staged write path) is sealed too and comes out whole.
    const fs::path weights = share.dir.path() / "weights.pt";
    writeText(weights, std::string(labels.begin(), labels.end()) + "tail");
    auto checkpoints = io::ModelCheckpoints::open(bob.store, "atlas-net").value();
    auto ck = checkpoints.saveFile(weights.string(), io::SaveRequest{"", 0, "weights", {}});
    REQUIRE(ck.ok());
    CHECK(ck->bytes == labels.size() + 4);
    CHECK(ck->sha256 == io::sha256Hex(readText(weights).data(), labels.size() + 4));
    const fs::path out = share.dir.path() / "weights-out.pt";
    REQUIRE(checkpoints.copyOut(ck->number, out.string(), io::FileAccess::Private).ok());
    CHECK(readText(out) == readText(weights));
  }
  {
    auto dave = share.as("dave");  // a member: reads it, before the removal
    auto set = io::LabelSetRevisions::open(dave.store, "mouse-1", "atlas").value();
    CHECK(set.load(1).value() == labels);
  }
  {
    auto mallory = share.as("mallory");  // a key, never on the roster
    auto set = io::LabelSetRevisions::open(mallory.store, "mouse-1", "atlas").value();
    const std::string why = refusal(set.load(1));
    CHECK(why.find("r000001.nii.gz") != std::string::npos);
    CHECK(why.find("content key generation 1") != std::string::npos);
    CHECK(why.find("not on the roster") != std::string::npos);
  }
  {
    auto alice = share.as("alice");
    auto removed = io::updateRoster(alice.store, share.keys.at("alice"), [](io::Roster& r) {
      r.members.erase(std::remove_if(r.members.begin(), r.members.end(),
                                     [](const io::RosterMember& m) { return m.user == "dave"; }),
                      r.members.end());
      return core::Status::success();
    });
    INFO((removed ? std::string() : removed.error().describe()));
    REQUIRE(removed.ok());
    const auto st = io::readShareTrust(alice.store);
    CHECK(st.contentGeneration == 2);
    CHECK(st.contentReaders == std::vector<std::string>{"alice", "bob", "carol", "erin"});
    removalVersion = st.version;
  }
  {
    auto bob = share.as("bob");
    // The store object bob opened before the removal: it looks at the roster again before sealing.
    auto set = io::LabelSetRevisions::open(*bobsStore, "mouse-1", "atlas").value();
    REQUIRE(set.save(labels.data(), labels.size(), io::SaveRequest{"", 1, "after", {}}).ok());
    CHECK(sealKeyIdOf(contentFileOf(set, 2)) != firstKeyId);  // the new generation's key
    CHECK(set.load(1).value() == labels);  // and the old one still read through the chain
    CHECK(set.load(2).value() == labels);
  }
  {
    auto dave = share.as("dave");
    auto set = io::LabelSetRevisions::open(dave.store, "mouse-1", "atlas").value();
    CHECK(set.load(1).value() == labels);  // what they could read before the removal: they may have kept it anyway
    const std::string why = refusal(set.load(2));
    CHECK(why.find("r000002.nii.gz") != std::string::npos);
    CHECK(why.find("content key generation 2") != std::string::npos);
    CHECK(why.find("dave was removed from the roster in version") != std::string::npos);
    const fs::path out = share.dir.path() / "dave-copy.nii.gz";
    CHECK_FALSE(set.copyOut(2, out.string()).ok());
    CHECK_FALSE(fs::exists(out));
    // Nor does a removed member write: nothing is claimed.
    CHECK_FALSE(set.save(labels.data(), labels.size(), io::SaveRequest{"", 2, "x", {}}).ok());
    CHECK(set.list()->latest() == 2);
    CHECK(set.list()->incomplete.empty());
  }
  {
    // Frank joins after the removal: the newest key is wrapped for him, and the chain opens generation 1 too.
    auto key = io::SigningKey::generate().value();
    REQUIRE(key.saveNew(share.keyFile("frank")).ok());
    auto alice = share.as("alice");
    REQUIRE(io::updateRoster(alice.store, share.keys.at("alice"), [&](io::Roster& r) {
              r.members.push_back({"frank", key.publicKey().base64(), {"reviewer"}, key.boxPublicKey()});
              return core::Status::success();
            }).ok());
    CHECK(io::readShareTrust(alice.store).contentGeneration == 2);  // adding changes no key
    auto frank = share.as("frank");
    auto set = io::LabelSetRevisions::open(frank.store, "mouse-1", "atlas").value();
    CHECK(set.load(1).value() == labels);
    CHECK(set.load(2).value() == labels);
  }
  {
    // The removed member cuts the roster back to before their removal (they can still write to the folder). erin has
    // never looked at this share: she pins the cut roster, which wraps generation 1 (dave's) for her. The label set's
    // newest revision is sealed under generation 2, which that roster does not list: her save is refused rather than
    // sealed under dave's key.
    const fs::path folder = fs::path(share.root) / "trust" / "roster";
    const fs::path aside = share.dir.path() / "roster-aside";
    fs::create_directories(aside);
    for (const auto& e : fs::directory_iterator(folder)) {
      const std::string name = e.path().filename().string();
      if (name.size() > 7 && name[0] == 'r' && std::stoi(name.substr(1, 6)) >= removalVersion)
        fs::rename(e.path(), aside / name);
    }
    {
      auto erin = share.as("erin");
      CHECK(io::readShareTrust(erin.store).contentGeneration == 1);
      auto set = io::LabelSetRevisions::open(erin.store, "mouse-1", "atlas").value();
      const std::string why = refusal(set.save(labels.data(), labels.size(), io::SaveRequest{"", 2, "x", {}}));
      CHECK(why.find("r000002.nii.gz") != std::string::npos);
      CHECK(why.find("does not list") != std::string::npos);
      CHECK(set.list()->latest() == 2);
    }
    for (const auto& e : fs::directory_iterator(aside)) fs::rename(e.path(), folder / e.path().filename());
  }
  {
    // A wrapped key moved to another member's entry does not open (the entry names its member), and a roster changed
    // by hand does not verify: nothing is written until an admin sorts it out.
    const fs::path folder = fs::path(share.root) / "trust" / "roster";
    std::vector<fs::path> versions;
    for (const auto& e : fs::directory_iterator(folder))
      if (e.path().string().size() > 12 && e.path().string().find(".roster.json") != std::string::npos)
        versions.push_back(e.path());
    std::sort(versions.begin(), versions.end());
    auto doc = nlohmann::json::parse(readText(versions.back()));
    doc["content"]["wrapped"]["mallory"] = doc["content"]["wrapped"]["bob"];
    const std::string original = readText(versions.back());
    writeText(versions.back(), doc.dump(2));
    auto bob = share.as("bob");
    auto set = io::LabelSetRevisions::open(bob.store, "mouse-1", "atlas").value();
    CHECK(refusal(set.save(labels.data(), labels.size(), io::SaveRequest{"", 2, "x", {}})).find("not trusted") !=
          std::string::npos);
    // Nor is anything read: the keys come from the roster, and the reason given is the roster's.
    const std::string why = refusal(set.load(2));
    CHECK(why.find("r000002.nii.gz") != std::string::npos);
    CHECK(why.find("roster is not trusted") != std::string::npos);
    writeText(versions.back(), original);
  }
}

TEST_CASE("trust: a roster chain that switches content encryption off, changes a generation's key or keeps it past a "
          "member's removal is refused",
          "[trust][encrypt]") {
  auto alice = io::SigningKey::generate().value();
  auto bob = io::SigningKey::generate().value();
  const std::string store = "00112233445566778899aabbccddeeff";
  io::Roster v1;
  v1.version = 1;
  v1.store = store;
  v1.time = "2026-11-29T08:00:00.000Z";
  v1.members = {{"alice", alice.publicKey().base64(), {"admin"}, alice.boxPublicKey()},
                {"bob", bob.publicKey().base64(), {"annotator"}, bob.boxPublicKey()}};
  const auto key = io::newContentKey().value();
  v1.content.generation = 1;
  v1.content.id = io::contentKeyIdHex(key);
  for (const auto& m : v1.members)
    v1.content.wrapped[m.user] = io::wrapContentKey(key, m.boxKey, io::contentKeyContext(store, 1, m.user)).value();
  const std::string doc1 = io::signRoster(v1, alice).value();
  CHECK(nlohmann::json::parse(doc1)["format"] == 2);
  const auto chain = [&](io::Roster next) {
    next.version = 2;
    next.previous = io::sha256Hex(doc1.data(), doc1.size());
    const std::string doc2 = io::signRoster(next, alice).value();
    return io::VerifiedRoster::fromChain({doc1, doc2}, {1, 2}, {"v1", "v2"}, store);
  };
  {
    io::Roster same = v1;
    auto ok = chain(same);
    INFO((ok ? std::string() : ok.error().describe()));
    CHECK(ok.ok());
  }
  {
    io::Roster off = v1;
    off.content = {};
    CHECK(refusal(chain(off)).find("switched off") != std::string::npos);
  }
  {
    io::Roster changed = v1;
    changed.content.id = io::contentKeyIdHex(io::newContentKey().value());
    CHECK(refusal(chain(changed)).find("changed its key") != std::string::npos);
  }
  {
    io::Roster bobGone = v1;
    bobGone.members.pop_back();
    bobGone.content.wrapped.erase("bob");
    CHECK(refusal(chain(bobGone)).find("bob left or changed keys") != std::string::npos);
  }
  {
    io::Roster skipped = v1;
    skipped.content.generation = 3;
    skipped.content.previousNonce = "AAAAAAAAAAAAAAAA";
    skipped.content.previousKey = std::string(64, 'A');
    CHECK(refusal(chain(skipped)).find("from generation 1 to 3") != std::string::npos);
  }
  // A format-1 document with a content key (what an older client would sign) does not parse.
  std::string relabelled = doc1;
  relabelled.replace(relabelled.find("\"format\": 2"), 11, "\"format\": 1");
  CHECK(refusal(io::parseRoster(relabelled, "v1")).find("format 2") != std::string::npos);
}
