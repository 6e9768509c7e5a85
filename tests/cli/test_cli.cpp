// The CLI as the harness: arguments in, output and exit codes out.

#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cstdio>
#include <string>
#include <sys/wait.h>

#include <nlohmann/json.hpp>

#include "tests/common/test_support.h"

using namespace delineate::test;

namespace {
struct Run {
  int exitCode = -1;
  std::string out;  // stdout and stderr together
};

Run runCli(const std::string& args) {
  const std::string command = std::string("'") + DELINEATE_CLI_PATH + "' " + args + " 2>&1";
  Run r;
  FILE* pipe = popen(command.c_str(), "r");
  REQUIRE(pipe);
  std::array<char, 4096> buffer{};
  std::size_t n = 0;
  while ((n = fread(buffer.data(), 1, buffer.size(), pipe)) > 0) r.out.append(buffer.data(), n);
  const int status = pclose(pipe);
  r.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

const std::string kSample = std::string("'") + DELINEATE_SOURCE_DIR + "/resources/sample/example_ct.nii.gz'";
}  // namespace

TEST_CASE("info prints the sample study's geometry and tissue statistics", "[cli]") {
  const Run r = runCli("info " + kSample + " --segment classic.threshold");
  INFO(r.out);
  REQUIRE(r.exitCode == 0);
  REQUIRE(r.out.find("122 x 101 x 112 voxels") != std::string::npos);
  REQUIRE(r.out.find("3.0000 x 3.0000 x 3.0000 mm") != std::string::npos);
  REQUIRE(r.out.find("adipose tissue") != std::string::npos);
  REQUIRE(r.out.find("soft tissue") != std::string::npos);
  REQUIRE(r.out.find("bone") != std::string::npos);
}

TEST_CASE("info as JSON agrees with the label map it was given", "[cli]") {
  auto seg = sharedFile("data/ct/totalseg-example/example_seg_fast_force_split.nii.gz");
  if (!seg) return;
  auto table = sharedFile("data/labels/totalsegmentator_total_classes.tsv");
  if (!table) return;
  const Run r = runCli("info " + kSample + " --labels '" + seg->string() + "' --table '" + table->string() +
                       "' --format json");
  INFO(r.out.substr(0, 2000));
  REQUIRE(r.exitCode == 0);
  const auto j = nlohmann::json::parse(r.out);
  REQUIRE(j["geometry"]["dimensions"] == nlohmann::json::array({122, 101, 112}));
  const auto& labels = j["labels"];
  REQUIRE(labels.size() == 61);  // SOURCES.md: 61 labels in this map
  bool sawLiver = false;
  for (const auto& l : labels) {
    REQUIRE(l["voxels"].get<long long>() > 0);
    REQUIRE(l["volume_ml"].get<double>() == Approx(l["voxels"].get<double>() * 27.0 / 1000.0));
    if (l["name"] == "liver") {
      sawLiver = true;
      // Liver in contrast CT: mean between 0 and 200 HU, volume of an adult liver.
      REQUIRE(l["mean"].get<double>() > 0);
      REQUIRE(l["mean"].get<double>() < 200);
      REQUIRE(l["volume_ml"].get<double>() > 500);
    }
  }
  REQUIRE(sawLiver);
}

TEST_CASE("CSV output has one row per label", "[cli]") {
  const Run r = runCli("info " + kSample + " --segment classic.threshold --format csv");
  REQUIRE(r.exitCode == 0);
  REQUIRE(r.out.rfind("label,name,voxels,volume_ml", 0) == 0);
  REQUIRE(std::count(r.out.begin(), r.out.end(), '\n') == 4);
}

TEST_CASE("bad input gives a clear error naming the file and a non-zero exit", "[cli]") {
  ScratchDir dir("cli");
  writeTextFile(dir / "garbage.nii.gz", "this is not a gzip file");
  Run r = runCli("info '" + (dir / "garbage.nii.gz").string() + "'");
  REQUIRE(r.exitCode == 1);
  REQUIRE(r.out.find("error: " + (dir / "garbage.nii.gz").string()) != std::string::npos);

  r = runCli("info '" + (dir / "missing.nii").string() + "'");
  REQUIRE(r.exitCode == 1);
  REQUIRE(r.out.find("missing.nii") != std::string::npos);

  // A label map on another grid is refused, not silently resampled.
  auto small = sharedFile("data/ct/totalseg-example/example_seg.nii.gz");
  if (small) {
    r = runCli("info " + kSample + " --labels '" + small->string() + "'");
    REQUIRE(r.exitCode == 1);
    REQUIRE(r.out.find("example_seg.nii.gz") != std::string::npos);
    REQUIRE(r.out.find("grid") != std::string::npos);
  }
}

TEST_CASE("usage errors exit with 2", "[cli]") {
  REQUIRE(runCli("").exitCode == 2);
  REQUIRE(runCli("frobnicate").exitCode == 2);
  REQUIRE(runCli("info").exitCode == 2);
  REQUIRE(runCli("info " + kSample + " --format xml").exitCode == 2);
  REQUIRE(runCli("info " + kSample + " --segment no.such.engine").exitCode == 2);
  REQUIRE(runCli("info " + kSample + " --labels").exitCode == 2);
  const Run help = runCli("help");
  REQUIRE(help.exitCode == 0);
  REQUIRE(help.out.find("usage: delineate-cli") != std::string::npos);
  REQUIRE(runCli("version").out.find("delineate-cli 0.1.0") != std::string::npos);
}

TEST_CASE("JSON output survives names that are not UTF-8", "[cli]") {
  ScratchDir dir("cli-latin1");
  // A Latin-1 label table (0xE4 is a-umlaut), as older tools write them.
  writeTextFile(dir / "latin1.txt", "0 background 0 0 0 0\n1 Gef\xe4\xdf 255 0 0 255\n2 Knochen 0 0 255 255\n");
  const Run r = runCli("info " + kSample + " --segment classic.threshold --table '" + (dir / "latin1.txt").string() +
                       "' --format json");
  INFO(r.out.substr(0, 600));
  REQUIRE(r.exitCode == 0);
  const auto j = nlohmann::json::parse(r.out);
  REQUIRE(j["labels"][0]["name"].get<std::string>().find("Gef") == 0);
  REQUIRE(j["labels"][1]["name"] == "Knochen");
}
