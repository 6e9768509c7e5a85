// Datasets through the CLI (issue 24, item 5): created from the approved revisions, an entry added by hand, listed,
// shown with every label revision's hash checked (exit 1 and the entry named when one changed), audited.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "io/share/share_reviews.h"
#include "io/share/share_revisions.h"
#include "tests/common/test_support.h"

using namespace delineate;
using namespace delineate::test;
namespace fs = std::filesystem;

#include "tests/cli/cli_runner.h"
#include "tests/cli/share_fixture.h"

TEST_CASE("cli dataset: create from approved revisions, add by hand, list, show and a changed revision found",
          "[cli][share]") {
  ScratchDir dir("cli-dataset");
  const fs::path root = initCliShare(dir);
  const std::string r = quoted(root.string());
  {
    auto store = io::ShareStore::open(root.string());
    REQUIRE(store.ok());
    for (int i = 1; i <= 4; ++i) {
      saveBytesRevision(root, "mouse" + std::to_string(i), "atlas", "ann", static_cast<std::uint8_t>(i));
      if (i == 4) continue;  // mouse4 is not approved
      auto set = io::LabelSetRevisions::open(*store, "mouse" + std::to_string(i), "atlas");
      REQUIRE(set.ok());
      REQUIRE(io::LabelSetReviews(*set).record(1, io::ReviewAction::Submit, "ann", "").ok());
      REQUIRE(io::LabelSetReviews(*set).record(1, io::ReviewAction::Approve, "bob", "").ok());
    }
  }
  CHECK(runCli("dataset create " + r + " mice --from-approved atlas --split 50:50").exitCode == 2);
  const Run created = runCli("dataset create " + r + " mice --from-approved atlas --split 60:20:20 --json");
  INFO(created.out);
  REQUIRE(created.exitCode == 0);
  CHECK(created.out.find("note: skipped mouse4: no approved revision of atlas") != std::string::npos);
  const auto c = nlohmann::json::parse(created.out.substr(created.out.find('{')));
  CHECK(c["revision"] == 1);
  CHECK(c["entries"].size() == 3);
  const Run added = runCli("dataset add " + r + " mice mouse4 atlas 1 --split test");
  INFO(added.out);
  REQUIRE(added.exitCode == 0);
  CHECK(added.out.find("saved dataset mice revision 2: 4 entries") != std::string::npos);
  CHECK(runCli("dataset add " + r + " mice mouse4 atlas 7 --split test").exitCode == 1);  // no such revision
  const Run listed = runCli("dataset list " + r + " --json");
  REQUIRE(listed.exitCode == 0);
  const auto l = nlohmann::json::parse(listed.out);
  REQUIRE(l.size() == 1);
  CHECK(l[0]["latest"] == 2);
  CHECK(l[0]["entries"] == 4);
  const Run shown = runCli("dataset show " + r + " mice --json");
  REQUIRE(shown.exitCode == 0);
  const auto s = nlohmann::json::parse(shown.out);
  CHECK(s["problems"].empty());
  CHECK(s["entries"][3]["study"] == "mouse4");
  CHECK(s["entries"][3]["split"] == "test");
  // Version 1 is kept as it was.
  const Run first = runCli("dataset show " + r + " mice 1 --json");
  REQUIRE(first.exitCode == 0);
  CHECK(nlohmann::json::parse(first.out)["entries"].size() == 3);
  // A label revision replaced behind the store's back: the dataset no longer is what it names.
  {
    std::ofstream out(root / "studies" / "mouse2" / "labelsets" / "atlas" / "r000001.nii.gz",
                      std::ios::binary | std::ios::trunc);
    const std::vector<char> other(300, 9);
    out.write(other.data(), static_cast<std::streamsize>(other.size()));
  }
  const Run changed = runCli("dataset show " + r + " mice");
  CHECK(changed.exitCode == 1);
  CHECK(changed.out.find("CHANGED: mouse2/atlas r1") != std::string::npos);
  CHECK(runCli("audit verify " + r).exitCode == 0);
}
