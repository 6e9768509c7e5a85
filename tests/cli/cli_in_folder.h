#pragma once
// The CLI run with its local index and series cache in a test's scratch folder (never the user's home), and its
// --json output parsed. For the suites that read the share's catalogue back (study, pacs get, pacs listen).

#include <string>

#include <nlohmann/json.hpp>

#include "tests/cli/cli_runner.h"
#include "tests/common/test_support.h"

namespace delineate::test {

// The 41-slice TCIA CRLM series' study and series UIDs (../shared/data/ct/tcia-crlm-ct-series).
inline const std::string kCrlmStudyUid = "1.3.6.1.4.1.14519.5.2.1.9203.8273.319461848560755521018609264462";
inline const std::string kCrlmSeriesUid = "1.3.6.1.4.1.14519.5.2.1.9203.8273.254242588659825836950462054011";

// stdout and stderr apart; `env` adds "NAME=value" assignments.
inline SplitRun cli(const ScratchDir& dir, const std::string& args, const std::string& env = {}) {
  return runProgramSplit("/usr/bin/env", "XDG_CACHE_HOME=" + quoted((dir / "cache").string()) + " " + env + " '" +
                                             DELINEATE_CLI_PATH + "' " + args);
}

// The run's stdout as JSON; the run must have succeeded.
inline nlohmann::json jsonOf(const SplitRun& r) {
  INFO(r.out << r.err);
  REQUIRE(r.exitCode == 0);
  auto j = nlohmann::json::parse(r.out, nullptr, false);
  REQUIRE_FALSE(j.is_discarded());
  return j;
}

}  // namespace delineate::test
