// delineate-cli trust (issue 47, item 1) through the program: keys per user (each user a configuration folder of
// their own, as each account has a home), the roster made and changed by its admin, records signed as they are
// written, and a forged approval, an edited author and a removed member shown as such by review show, share list
// and trust verify (exit 1 where something was tampered with).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "core/edit_transaction.h"
#include "core/label_map.h"
#include "io/base/process_info.h"
#include "io/volume/nifti.h"
#include "tests/common/other_user.h"
#include "tests/common/test_support.h"

using namespace delineate;
using namespace delineate::test;
namespace fs = std::filesystem;

#include "tests/cli/cli_runner.h"
#include "tests/cli/cli_in_folder.h"
#include "tests/cli/share_fixture.h"

namespace {

struct Users {
  fs::path base;
  // The CLI as `user`: their own configuration folder (key, pins), as their own account would have.
  Run as(const std::string& user, const std::string& args) const {
    return runShell("XDG_CONFIG_HOME=" + quoted((base / user).string()) + " XDG_CACHE_HOME=" +
                    quoted((base / user / "cache").string()) + " DELINEATE_KEY_FILE= '" DELINEATE_CLI_PATH "' " + args +
                    " 2>&1");
  }
  nlohmann::json json(const std::string& user, const std::string& args, int exitCode = 0) const {
    const Run r = as(user, args);
    INFO(args << "\n" << r.out);
    REQUIRE(r.exitCode == exitCode);
    const auto j = nlohmann::json::parse(r.out, nullptr, false);
    REQUIRE_FALSE(j.is_discarded());
    return j;
  }
};

fs::path labelFile(const fs::path& p) {
  const core::Geometry g({16, 12, 6}, {1.0, 1.0, 2.0}, {0.0, 0.0, 0.0});
  auto map = core::LabelMap::create(g);
  REQUIRE(map.ok());
  core::EditTransaction t(*map, "paint");
  t.fillBox(core::IndexBox{{2, 2, 1}, {9, 8, 4}}, 1);
  REQUIRE(t.commit().has_value());
  REQUIRE(io::writeNiftiLabels(p.string(), *map).ok());
  return p;
}

}  // namespace

TEST_CASE("cli trust: keys, the roster, signed records, and a forged approval, an edited author and a removed member are shown",
          "[cli][share][trust]") {
  ScratchDir dir("cli-trust");
  const fs::path root = initCliShare(dir);
  const std::string r = quoted(root.string());
  const Users users{dir.path()};
  const fs::path labels = labelFile(dir / "labels.nii.gz");

  std::map<std::string, std::string> pub;
  for (const char* u : {"alice", "ann", "carol", "dave"}) {
    const auto k = users.json(u, "trust keygen --json");
    CHECK(k["created"] == true);
    pub[u] = k["publicKey"].get<std::string>();
    const fs::path key = k["file"].get<std::string>();
    CHECK(key == dir / u / "delineate" / "identity" / "ed25519.pem");
    CHECK(modeOf(key) == 0600);
  }
  const Run again = users.as("ann", "trust keygen");
  CHECK(again.exitCode == 1);
  CHECK(again.out.find("never written over") != std::string::npos);
  if (const auto other = otherUser()) {
    openToOthers(dir.path());
    openToOthers(dir.path() / "ann");
    openToOthers(dir.path() / "ann" / "delineate");
    CHECK_FALSE(canRead(*other, dir.path() / "ann" / "delineate" / "identity" / "ed25519.pem"));
    CHECK_FALSE(canRead(*other, dir.path() / "ann" / "delineate" / "identity"));
  }

  // An unsigned share until the admin makes its roster.
  CHECK(users.as("ann", "trust show " + r).out.find("no roster") != std::string::npos);
  REQUIRE(users.as("alice", "trust init " + r + " --user alice").exitCode == 0);
  REQUIRE(users.as("alice", "trust add " + r + " ann " + pub["ann"] + " --role annotator").exitCode == 0);
  REQUIRE(users.as("alice", "trust add " + r + " carol " + pub["carol"] + " --role reviewer").exitCode == 0);
  REQUIRE(users.as("alice", "trust add " + r + " dave " + pub["dave"] + " --role annotator").exitCode == 0);
  const Run notAdmin = users.as("ann", "trust add " + r + " eve " + pub["dave"] + " --role admin");
  CHECK(notAdmin.exitCode == 1);
  CHECK(notAdmin.out.find("not an admin's") != std::string::npos);
  const auto roster = users.json("dave", "trust show " + r + " --json");
  CHECK(roster["trusted"] == true);
  CHECK(roster["pinnedNow"] == true);  // dave meets it the first time
  CHECK(users.json("dave", "trust show " + r + " --json")["pinnedNow"] == false);
  CHECK(roster["version"] == 4);
  CHECK(roster["members"].size() == 4);

  // ann saves (as "ann" whatever --author says) and submits; dave may not approve, carol does.
  const Run saved = users.as("ann", "share save " + r + " m1 atlas " + quoted(labels.string()) + " --author 'Ann A.'");
  INFO(saved.out);
  REQUIRE(saved.exitCode == 0);
  CHECK(saved.out.find("recorded as ann, not Ann A.") != std::string::npos);
  REQUIRE(users.as("ann", "review submit " + r + " m1 atlas 1").exitCode == 0);
  const Run daveApproves = users.as("dave", "review approve " + r + " m1 atlas 1");
  CHECK(daveApproves.exitCode == 1);
  CHECK(daveApproves.out.find("dave is not a reviewer") != std::string::npos);
  REQUIRE(users.as("carol", "review approve " + r + " m1 atlas 1").exitCode == 0);
  const auto clean = users.json("carol", "trust verify " + r + " --json");
  CHECK(clean["records"] == 3);
  CHECK(clean["counts"]["signed"] == 3);

  // A second revision, submitted; an approval planted by hand in carol's name, unsigned.
  REQUIRE(users.as("ann", "share save " + r + " m1 atlas " + quoted(labels.string()) + " --base 1").exitCode == 0);
  REQUIRE(users.as("ann", "review submit " + r + " m1 atlas 2").exitCode == 0);
  const fs::path set = root / "studies" / "m1" / "labelsets" / "atlas";
  std::ofstream(set / "reviews" / "r000002-0002.json")
      << R"({"revision": 2, "sequence": 2, "action": "approve", "user": "carol", "host": "x", "time": "2026-11-28T10:00:00.000Z", "comment": ""})";
  const auto shown = users.json("ann", "review show " + r + " m1 atlas 2 --json");
  CHECK(shown[0]["state"] == "submitted");
  CHECK(shown[0]["history"][1]["trust"]["state"] == "unsigned");
  CHECK(shown[0]["history"][1]["counted"] == false);
  const Run shownText = users.as("ann", "review show " + r + " m1 atlas 2");
  CHECK(shownText.out.find("NOT TRUSTED: unsigned") != std::string::npos);

  // The author of revision 1 changed by hand.
  {
    std::ifstream in(set / "r000001.json");
    std::string text((std::istreambuf_iterator<char>(in)), {});
    const auto at = text.find("\"author\": \"ann\"");
    REQUIRE(at != std::string::npos);
    text.replace(at, 15, "\"author\": \"dave\"");
    std::ofstream(set / "r000001.json", std::ios::trunc) << text;
  }
  const auto list = users.json("ann", "share list " + r + " m1 atlas --json");
  CHECK(list["revisions"][0]["author"] == "dave");
  CHECK(list["revisions"][0]["trust"]["state"] == "forged");
  CHECK(list["revisions"][1]["trust"]["state"] == "signed");
  CHECK(list["revisions"][1]["review"]["state"] == "submitted");
  CHECK(list["revisions"][1]["review"]["notCounted"] == 1);
  const Run listText = users.as("ann", "share list " + r + " m1 atlas");
  CHECK(listText.out.find("NOT TRUSTED: the signature by ann's key does not match the record") != std::string::npos);

  const auto tampered = users.json("ann", "trust verify " + r + " --json", 1);
  CHECK(tampered["counts"]["forged"] == 1);
  CHECK(tampered["counts"]["unsigned"] == 1);
  const Run verifyText = users.as("ann", "trust verify " + r);
  CHECK(verifyText.out.find("forged: labels studies/m1/labelsets/atlas/r000001.json") != std::string::npos);

  // carol removed: her approval of revision 1 no longer counts, and she signs nothing new.
  REQUIRE(users.as("alice", "trust remove " + r + " carol").exitCode == 0);
  const auto afterRemoval = users.json("ann", "review show " + r + " m1 atlas 1 --json");
  CHECK(afterRemoval[0]["state"] == "submitted");
  CHECK(afterRemoval[0]["history"][1]["trust"]["state"] == "removed-member");
  CHECK(afterRemoval[0]["history"][1]["trust"]["detail"] == "signed by carol, removed from the roster in version 5");
  const Run carolAgain = users.as("carol", "review approve " + r + " m1 atlas 2");
  CHECK(carolAgain.exitCode == 1);
  CHECK(carolAgain.out.find("not on the share's roster") != std::string::npos);
  const auto removed = users.json("ann", "trust show " + r + " --json");
  REQUIRE(removed["removed"].size() == 1);
  CHECK(removed["removed"][0]["user"] == "carol");

  // Roster changes are audited.
  const Run audit = runCli("audit verify " + r);
  CHECK(audit.exitCode == 0);
  std::ifstream log(root / "audit" / ("audit-" + io::localHostName() + ".jsonl"));
  std::string all((std::istreambuf_iterator<char>(log)), {});
  CHECK(all.find("member removed: carol") != std::string::npos);
}

TEST_CASE("cli trust encrypt: the share's content sealed for its members, a removed member cannot read what is "
          "written after the removal",
          "[cli][share][trust][encrypt]") {
  auto ct = sharedFile("data/ct/tcia-crlm-ct-series/CRLM-CT-1004");
  if (!ct) return;
  ScratchDir dir("cli-trust-encrypt");
  const fs::path root = initCliShare(dir);
  const std::string r = quoted(root.string());
  const Users users{dir.path()};
  const fs::path labels = labelFile(dir / "labels.nii.gz");
  std::map<std::string, nlohmann::json> keys;
  for (const char* u : {"alice", "ann", "dave", "erin"}) {
    keys[u] = users.json(u, "trust keygen --json");
    CHECK(keys[u]["boxKey"].get<std::string>().size() == 44);
  }
  const auto add = [&](const std::string& user, bool box) {
    return users.as("alice", "trust add " + r + " " + user + " " + keys[user]["publicKey"].get<std::string>() +
                                 (box ? " --box-key " + keys[user]["boxKey"].get<std::string>() : std::string()) +
                                 " --role annotator");
  };
  REQUIRE(users.as("alice", "trust init " + r + " --user alice --role annotator").exitCode == 0);
  REQUIRE(add("ann", true).exitCode == 0);
  REQUIRE(add("dave", false).exitCode == 0);
  const Run noBox = users.as("alice", "trust encrypt " + r);
  CHECK(noBox.exitCode == 1);
  CHECK(noBox.out.find("no box key for dave") != std::string::npos);
  REQUIRE(add("dave", true).exitCode == 0);
  const Run on = users.as("alice", "trust encrypt " + r);
  INFO(on.out);
  REQUIRE(on.exitCode == 0);
  CHECK(users.json("ann", "trust show " + r + " --json")["content"]["generation"] == 1);
  const Run erinNoBox = add("erin", false);
  CHECK(erinNoBox.exitCode == 1);
  CHECK(erinNoBox.out.find("erin's box key is needed") != std::string::npos);

  // A series imported and a label revision saved: ciphertext on the share, the content for members.
  REQUIRE(users.as("ann", "study import " + r + " " + quoted(ct->string())).exitCode == 0);
  const fs::path series = root / "studies" / kCrlmStudyUid / "series" / kCrlmSeriesUid;
  int sealedFiles = 0;
  for (const auto& e : fs::directory_iterator(series))
    if (e.path().extension() == ".dcm") {
      std::ifstream in(e.path(), std::ios::binary);
      char head[8] = {};
      in.read(head, 8);
      sealedFiles += std::string(head, 8) == "DLNSEAL1";
    }
  CHECK(sealedFiles > 0);
  REQUIRE(users.as("ann", "share save " + r + " m1 atlas " + quoted(labels.string())).exitCode == 0);
  const Run got = users.as("dave", "study get " + r + " " + kCrlmStudyUid + " " + kCrlmSeriesUid + " " +
                                       quoted((dir / "dave-ct").string()));
  INFO(got.out);
  REQUIRE(got.exitCode == 0);
  const auto info = users.json("dave", "info " + quoted((dir / "dave-ct").string()) + " --format json");
  CHECK(info.dump().find("512") != std::string::npos);
  REQUIRE(users.as("dave", "share get " + r + " m1 atlas 1 " + quoted((dir / "dave-1.nii.gz").string())).exitCode == 0);

  // dave removed: a new key generation; what ann saves now, dave cannot read.
  const Run removed = users.as("alice", "trust remove " + r + " dave");
  REQUIRE(removed.exitCode == 0);
  CHECK(removed.out.find("content key is now generation 2") != std::string::npos);
  REQUIRE(users.as("ann", "share save " + r + " m1 atlas " + quoted(labels.string()) + " --base 1").exitCode == 0);
  REQUIRE(users.as("ann", "share get " + r + " m1 atlas 2 " + quoted((dir / "ann-2.nii.gz").string())).exitCode == 0);
  const Run daveAfter = users.as("dave", "share get " + r + " m1 atlas 2 " + quoted((dir / "dave-2.nii.gz").string()));
  CHECK(daveAfter.exitCode == 1);
  CHECK(daveAfter.out.find("r000002.nii.gz") != std::string::npos);
  CHECK(daveAfter.out.find("dave was removed from the roster in version") != std::string::npos);
  CHECK_FALSE(fs::exists(dir / "dave-2.nii.gz"));
  const auto shown = users.json("dave", "trust show " + r + " --json");
  CHECK(shown["content"]["generation"] == 2);
  CHECK(shown["content"]["thisUserReads"] == false);
  CHECK(shown["content"]["readers"] == nlohmann::json::array({"alice", "ann"}));
}
