// The save path's faults (issue 24): `delineate-cli share save` run with a preloaded fault shim
// (tests/faults/fs_faults.cpp) that kills it at chosen steps of the verified write path, makes fsync a no-op, or lets
// a publish happen and report failure, as a network share whose reply was lost does. After each, the share is read
// independently: no half revision is ever listed or loaded, interrupted writes are reported as such, and the next
// save works.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "core/edit_transaction.h"
#include "io/base/sha256.h"
#include "io/volume/nifti.h"
#include "tests/common/test_support.h"

using namespace delineate;
using namespace delineate::test;
namespace fs = std::filesystem;

#include "tests/cli/cli_runner.h"

namespace {

fs::path writeSample(const fs::path& p) {
  const core::Geometry g({40, 30, 12}, {1.0, 1.0, 2.0}, {0.0, 0.0, 0.0});
  auto map = core::LabelMap::create(g);
  REQUIRE(map.ok());
  core::EditTransaction t(*map, "paint");
  t.fillBox(core::IndexBox{{2, 3, 1}, {20, 25, 9}}, 1);
  t.fillBox(core::IndexBox{{22, 3, 1}, {35, 20, 6}}, 7);
  REQUIRE(t.commit().has_value());
  REQUIRE(io::writeNiftiLabels(p.string(), *map).ok());
  return p;
}

nlohmann::json listOf(const std::string& root) {
  const Run r = runCli("share list " + root + " s1 labels --json");
  INFO(r.out);
  REQUIRE(r.exitCode == 0);
  const auto j = nlohmann::json::parse(r.out, nullptr, false);
  REQUIRE_FALSE(j.is_discarded());
  return j;
}

// `share save` under the shim, with `faults` as its environment ("DELINEATE_FAULT_KILL=...").
Run faultySave(const std::string& root, const fs::path& labels, const std::string& faults) {
  return runShell("LD_PRELOAD='" DELINEATE_FS_FAULTS_PATH "' " + faults + " '" DELINEATE_CLI_PATH "' share save " + root +
                  " s1 labels " + quoted(labels.string()) + " 2>&1");
}

// Every listed revision's content is what was saved: fetched with `share get` and hashed here.
void checkRevisions(const std::string& root, const nlohmann::json& list, const std::string& expectedSha,
                    const fs::path& scratch) {
  for (const auto& r : list["revisions"]) {
    const int n = r["revision"].get<int>();
    CHECK(r["sha256"].get<std::string>() == expectedSha);
    const fs::path out = scratch / ("got" + std::to_string(n) + ".nii.gz");
    REQUIRE(runCli("share get " + root + " s1 labels " + std::to_string(n) + " " + quoted(out.string())).exitCode == 0);
    auto sha = io::sha256OfFile(out.string());
    REQUIRE(sha.ok());
    CHECK(*sha == expectedSha);
  }
}

}  // namespace

TEST_CASE("share save: a publish that happened but reported failure is a success and claims no number twice",
          "[cli][share][faults]") {
  // A link(2) whose reply is lost is retried by the NFS client and then fails with EEXIST, or surfaces as EIO. Both
  // for the revision's record (its number's claim) and its content. Before the fix, EEXIST on the content reported
  // a failed save although the revision existed, and EEXIST on the record abandoned the number (listed incomplete
  // forever) and marked the next save a conflict.
  ScratchDir dir("cli-share-lies");
  const fs::path root = dir / "store";
  fs::create_directories(root);
  const std::string r = quoted(root.string());
  REQUIRE(runCli("share init " + r).exitCode == 0);
  const fs::path labels = writeSample(dir / "labels.nii.gz");
  const auto sha = io::sha256OfFile(labels.string());
  REQUIRE(sha.ok());
  int expected = 0;
  for (const char* lie : {"link:.nii.gz:EIO", "link:.nii.gz:EEXIST", "link:.json:EEXIST", "link:.json:EIO"}) {
    INFO(lie);
    const Run saved = faultySave(r, labels, std::string("DELINEATE_FAULT_LIE=") + lie);
    INFO(saved.out);
    CHECK(saved.out.find("happened, reported as failed") != std::string::npos);  // the fault did fire
    CHECK(saved.exitCode == 0);
    CHECK(saved.out.find("saved revision " + std::to_string(++expected) + " ") != std::string::npos);
    CHECK(saved.out.find("CONFLICT") == std::string::npos);
  }
  const auto list = listOf(r);
  REQUIRE(list["revisions"].size() == 4);
  for (int i = 0; i < 4; ++i) {
    CHECK(list["revisions"][static_cast<std::size_t>(i)]["revision"] == i + 1);
    CHECK(list["revisions"][static_cast<std::size_t>(i)]["conflict"] == false);
  }
  CHECK(list["incomplete"].empty());
  CHECK(list["leftovers"].empty());
  checkRevisions(r, list, *sha, dir.path());
}

TEST_CASE("share save: killed at each step it leaves no half revision and the leftovers are listed apart",
          "[cli][share][faults]") {
  ScratchDir dir("cli-share-kills");
  const fs::path labels = writeSample(dir / "labels.nii.gz");
  const auto sha = io::sha256OfFile(labels.string());
  REQUIRE(sha.ok());
  struct Step {
    const char* kill;
    int revisions;     // complete revisions after the kill
    int incomplete;    // claimed numbers without content
    bool leftover;     // a temporary file of the interrupted write
  };
  // The save writes the record (its number's claim) first, then the content; each through a temporary file,
  // fsync, link under the new name, folder fsync.
  const Step steps[] = {
      {"before:fsync:.json.tmp-", 0, 0, true},     // the record written, not yet flushed
      {"after:link:.json", 0, 1, true},            // the number claimed, its temporary name not yet removed
      {"before:fsync:labels$", 0, 1, false},       // the claim's folder fsync
      {"before:fsync:.nii.gz.tmp-", 0, 1, true},   // the content written, not yet flushed
      {"after:link:.nii.gz", 1, 0, true},          // the content published, its temporary name not yet removed
  };
  int round = 0;
  for (const bool fsyncLies : {false, true}) {
    for (const Step& step : steps) {
      INFO(step.kill << (fsyncLies ? ", fsync a no-op" : ""));
      const fs::path root = dir / ("store" + std::to_string(++round));
      fs::create_directories(root);
      const std::string r = quoted(root.string());
      REQUIRE(runCli("share init " + r).exitCode == 0);
      std::string faults = std::string("DELINEATE_FAULT_KILL='") + step.kill + "'";
      if (fsyncLies) faults += " DELINEATE_FAULT_FSYNC_NOOP=1";
      const Run killed = faultySave(r, labels, faults);
      INFO(killed.out);
      REQUIRE(killed.out.find("fs_faults: SIGKILL") != std::string::npos);
      CHECK(killed.exitCode == 128 + 9);
      CHECK(killed.out.find("saved revision") == std::string::npos);
      const auto list = listOf(r);
      CHECK(list["revisions"].size() == static_cast<std::size_t>(step.revisions));
      CHECK(list["incomplete"].size() == static_cast<std::size_t>(step.incomplete));
      CHECK(list["leftovers"].empty() == !step.leftover);
      for (const auto& name : list["leftovers"]) CHECK(name.get<std::string>().rfind('.', 0) == 0);
      checkRevisions(r, list, *sha, dir.path());
      // An incomplete revision is never loaded.
      if (step.incomplete > 0) CHECK(runCli("share get " + r + " s1 labels 1 " + quoted((dir / "x.nii.gz").string())).exitCode != 0);
      // The text listing says what they are.
      const Run text = runCli("share list " + r + " s1 labels");
      if (step.leftover) CHECK(text.out.find("(an interrupted write; not a revision)") != std::string::npos);
      // The next save works and takes a number nobody claimed.
      const Run next = runCli("share save " + r + " s1 labels " + quoted(labels.string()));
      INFO(next.out);
      REQUIRE(next.exitCode == 0);
      const int number = step.revisions + step.incomplete + 1;
      CHECK(next.out.find("saved revision " + std::to_string(number) + " ") != std::string::npos);
      checkRevisions(r, listOf(r), *sha, dir.path());
    }
  }
}

TEST_CASE("share list: a damaged revision record is reported by name and hides no other revision",
          "[cli][share][faults]") {
  ScratchDir dir("cli-share-damaged");
  const fs::path root = dir / "store";
  fs::create_directories(root);
  const std::string r = quoted(root.string());
  REQUIRE(runCli("share init " + r).exitCode == 0);
  const fs::path labels = writeSample(dir / "labels.nii.gz");
  for (int i = 0; i < 3; ++i) REQUIRE(runCli("share save " + r + " s1 labels " + quoted(labels.string())).exitCode == 0);
  const fs::path record = root / "studies" / "s1" / "labelsets" / "labels" / "r000002.json";
  REQUIRE(fs::exists(record));
  std::ofstream(record, std::ios::trunc) << "{\"number\": 2, \"content\": ";  // torn
  const auto list = listOf(r);
  REQUIRE(list["revisions"].size() == 2);
  CHECK(list["revisions"][0]["revision"] == 1);
  CHECK(list["revisions"][1]["revision"] == 3);
  REQUIRE(list["damaged"].size() == 1);
  CHECK(list["damaged"][0]["revision"] == 2);
  CHECK(list["damaged"][0]["reason"].get<std::string>().find("r000002.json") != std::string::npos);
  const Run text = runCli("share list " + r + " s1 labels");
  CHECK(text.out.find("damaged, skipped") != std::string::npos);
  // Its number stays taken: the next save is r4, and revision 2 is refused by name.
  const Run next = runCli("share save " + r + " s1 labels " + quoted(labels.string()));
  CHECK(next.out.find("saved revision 4 ") != std::string::npos);
  const Run got = runCli("share get " + r + " s1 labels 2 " + quoted((dir / "x.nii.gz").string()));
  CHECK(got.exitCode != 0);
  CHECK(got.out.find("r000002.json") != std::string::npos);
}
