// Who may read what delineate-cli writes (issue 40, defect 4), under the usual umask 022: segment and convert
// outputs are 0640 (never readable by others), a study imported through the CLI is for the share's group alone, and a
// de-identification key others may read is refused. A real second account (tests/common/other_user.h) tries to read.
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <filesystem>
#include <string>

#include "tests/common/dicom_builder.h"
#include "tests/common/other_user.h"
#include "tests/common/test_support.h"

using namespace delineate;
using namespace delineate::test;
namespace fs = std::filesystem;

#include "tests/cli/cli_runner.h"

namespace {

// The CLI with its local index and caches in `dir`, never in the user's home; stdout and stderr apart.
SplitRun cli(const ScratchDir& dir, const std::string& args) {
  return runProgramSplit("/usr/bin/env", "XDG_CACHE_HOME=" + quoted((dir / "cache").string()) + " '" +
                                             DELINEATE_CLI_PATH + "' " + args);
}

void writePatientSeries(const fs::path& folder) {
  fs::create_directories(folder);
  for (int k = 0; k < 3; ++k) {
    CtSliceParams p;
    p.patientId = "MRN-4711";
    p.patientName = "Doe^Jane";
    p.studyUid = "2.25.4004002";
    p.seriesUid = "2.25.4004002.1";
    p.instanceNumber = k + 1;
    p.positionLps = {0, 0, 2.0 * k};
    makeCtSlice(p).write(folder / ("slice" + std::to_string(k) + ".dcm"));
  }
}

}  // namespace

TEST_CASE("segment and convert write their outputs 0640 under umask 022: others cannot read them", "[cli][modes]") {
  auto other = otherUser();
  if (!other) return;
  const UmaskScope umask(022);  // the CLI inherits it
  ScratchDir dir("cli-modes");
  openToOthers(dir.path());
  const fs::path out = dir / "out";
  fs::create_directories(out);
  REQUIRE(::chmod(out.c_str(), 0755) == 0);
  const SplitRun converted = cli(dir, "convert " + kSample + " " + quoted((out / "ct.nii").string()));
  INFO(converted.err);
  REQUIRE(converted.exitCode == 0);
  const SplitRun segmented = cli(dir, "segment " + kSample + " " + quoted((out / "labels.nii.gz").string()));
  INFO(segmented.err);
  REQUIRE(segmented.exitCode == 0);
  const auto written = everythingBelow(out);
  REQUIRE(written.size() >= 3);  // the image, the labels and their names beside them
  for (const auto& p : written) {
    INFO(p.string());
    CHECK(modeOf(p) == 0640);
    CHECK_FALSE(canRead(*other, p));
  }
}

TEST_CASE("study import through the CLI under umask 022: the share's files are for its group, a key others may read "
          "is refused",
          "[cli][share][modes]") {
  auto other = otherUser();
  if (!other) return;
  const UmaskScope umask(022);
  ScratchDir dir("cli-modes-share");
  openToOthers(dir.path());
  const fs::path share = dir / "share";
  fs::create_directories(share);
  REQUIRE(::chown(share.c_str(), static_cast<uid_t>(-1), other->shareGroup) == 0);
  REQUIRE(::chmod(share.c_str(), 02755) == 0);  // others may enter the root: the store's own modes must keep them out
  const std::string root = quoted(share.string());
  REQUIRE(cli(dir, "share init " + root).exitCode == 0);
  writePatientSeries(dir / "input");
  const std::string input = quoted((dir / "input").string());

  writeTextFile(dir / "key", "0123456789abcdef0123456789abcdef");  // 0644 under umask 022
  const std::string keyed = "study import " + root + " " + input + " --deidentify --key-file " + quoted((dir / "key").string());
  const SplitRun readable = cli(dir, keyed);
  CHECK(readable.exitCode == 1);
  CHECK(readable.err.find("may be read by its group and others (mode 0644)") != std::string::npos);
  CHECK(readable.err.find("chmod 600 '" + (dir / "key").string() + "'") != std::string::npos);
  CHECK(fs::is_empty(share / "studies"));  // nothing was imported

  REQUIRE(::chmod((dir / "key").c_str(), 0600) == 0);
  const SplitRun imported = cli(dir, keyed);
  INFO(imported.err);
  REQUIRE(imported.exitCode == 0);
  REQUIRE(cli(dir, "study list " + root).exitCode == 0);  // the local index is written too

  std::size_t files = 0;
  for (const auto& p : everythingBelow(share)) {
    INFO(p.string());
    if (fs::is_regular_file(p)) ++files;
    CHECK((modeOf(p) & 007) == 0);
    CHECK(groupOf(p) == other->shareGroup);
    CHECK_FALSE(canRead(*other, p));
    CHECK(canRead(*other, p, {other->shareGroup}));
  }
  CHECK(files >= 5);  // three instances, the manifest, catalogue records, the sentinel
  for (const auto& p : everythingBelow(dir / "cache")) {
    INFO(p.string());
    CHECK((modeOf(p) & 077) == 0);
    CHECK_FALSE(canRead(*other, p));
  }
}
