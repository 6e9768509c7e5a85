// Review state through the CLI (issue 24, item 4): submit, send back, resubmit, approve; the refusals name the
// revision and exit 1; share list shows each revision's state; every step is in the audit log.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "io/base/process_info.h"
#include "io/share/share_revisions.h"
#include "tests/common/test_support.h"

using namespace delineate;
using namespace delineate::test;
namespace fs = std::filesystem;

#include "tests/cli/cli_runner.h"
#include "tests/cli/share_fixture.h"

TEST_CASE("cli review: submit, reject with a comment, resubmit, approve, and share list and the audit log show it",
          "[cli][share]") {
  ScratchDir dir("cli-review");
  const fs::path root = initCliShare(dir);
  const std::string r = quoted(root.string());
  saveBytesRevision(root, "m1", "atlas", "ann", 1);
  const std::string set = r + " m1 atlas 1";
  Run early = runCli("review approve " + set + " --user bob");
  CHECK(early.exitCode == 1);
  CHECK(early.out.find("never submitted") != std::string::npos);
  CHECK(early.out.find("studies/m1/labelsets/atlas r1") != std::string::npos);
  REQUIRE(runCli("review submit " + set + " --user ann --comment ready").exitCode == 0);
  Run own = runCli("review approve " + set + " --user ann");
  CHECK(own.exitCode == 1);
  CHECK(own.out.find("ann wrote this revision") != std::string::npos);
  CHECK(runCli("review reject " + set + " --user bob").exitCode == 2);  // --comment is required
  REQUIRE(runCli("review reject " + set + " --user bob --comment 'left fimbria missing'").exitCode == 0);
  REQUIRE(runCli("review submit " + set + " --user ann").exitCode == 0);
  const Run approved = runCli("review approve " + set + " --user carol --json");
  INFO(approved.out);
  REQUIRE(approved.exitCode == 0);
  const auto a = nlohmann::json::parse(approved.out);
  CHECK(a["action"] == "approve");
  CHECK(a["user"] == "carol");
  CHECK(a["sequence"] == 4);

  const Run shown = runCli("review show " + r + " m1 atlas --json");
  REQUIRE(shown.exitCode == 0);
  const auto s = nlohmann::json::parse(shown.out);
  REQUIRE(s.size() == 1);
  CHECK(s[0]["state"] == "approved");
  REQUIRE(s[0]["history"].size() == 4);
  CHECK(s[0]["history"][1]["action"] == "reject");
  CHECK(s[0]["history"][1]["comment"] == "left fimbria missing");

  const Run list = runCli("share list " + r + " m1 atlas --json");
  REQUIRE(list.exitCode == 0);
  const auto l = nlohmann::json::parse(list.out);
  CHECK(l["revisions"][0]["review"]["state"] == "approved");
  CHECK(l["revisions"][0]["review"]["by"] == "carol");
  const Run text = runCli("share list " + r + " m1 atlas");
  CHECK(text.out.find("review: approved by carol") != std::string::npos);

  // Each step is in the audit log, and the log still verifies.
  std::ifstream log(root / "audit" / ("audit-" + std::string(io::localHostName()) + ".jsonl"));
  std::string line;
  int steps = 0;
  while (std::getline(log, line))
    if (line.find("\"action\":\"review\"") != std::string::npos) ++steps;
  CHECK(steps == 4);
  CHECK(runCli("audit verify " + r).exitCode == 0);
}
