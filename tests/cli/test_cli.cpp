// The CLI as the harness: arguments in, output and exit codes out.

#include <catch2/catch.hpp>

#include <map>

#include <algorithm>
#include <array>
#include <set>
#include <cstdio>
#include <string>
#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <cstring>
#include <random>
#include <vector>

#include <nlohmann/json.hpp>

#include "io/base/gzip.h"
#include "io/labels/label_table_io.h"
#include "io/volume/image_file.h"
#include "tests/common/test_support.h"

using namespace delineate::test;
namespace fs = std::filesystem;

#include "tests/cli/cli_runner.h"

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

TEST_CASE("a small .nii.gz declaring a gigabyte is refused without committing the gigabyte", "[cli]") {
  // 1 MB of incompressible data behind a NIfTI-1 header declaring 1024 x 1024 x 1000 uint8 voxels (1 GB): a ratio
  // real CT reaches, so the size check lets it through and inflation then finds the file truncated. The voxel
  // buffer must not be zero-filled up front, or this refusal alone would commit a gigabyte.
  ScratchDir dir("cli-bomb");
  std::vector<std::uint8_t> bytes(352, 0);
  auto put = [&bytes](std::size_t at, auto v) { std::memcpy(bytes.data() + at, &v, sizeof v); };
  put(0, std::int32_t{348});
  const std::int16_t dims[8] = {3, 1024, 1024, 1000, 1, 1, 1, 1};
  for (std::size_t i = 0; i < 8; ++i) put(40 + 2 * i, dims[i]);
  put(70, std::int16_t{2});  // uint8
  put(72, std::int16_t{8});
  for (std::size_t i = 0; i < 4; ++i) put(76 + 4 * i, 1.0f);
  put(108, 352.0f);
  std::memcpy(bytes.data() + 344, "n+1", 4);
  std::mt19937 rng(1);
  for (int i = 0; i < 1100000; ++i) bytes.push_back(static_cast<std::uint8_t>(rng()));
  auto gz = delineate::io::gzipCompress(bytes.data(), bytes.size(), 1, "bomb").value();
  const auto path = dir / "bomb.nii.gz";
  writeTextFile(path, std::string(gz.begin(), gz.end()));

  // Its own process, so its peak memory is its own whatever this test binary did before.
  const std::string exe = DELINEATE_CLI_PATH;
  const std::string file = path.string();
  char* argv[] = {const_cast<char*>(exe.c_str()), const_cast<char*>("info"), const_cast<char*>(file.c_str()),
                  nullptr};
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  pid_t pid = 0;
  REQUIRE(posix_spawn(&pid, exe.c_str(), &actions, nullptr, argv, environ) == 0);
  posix_spawn_file_actions_destroy(&actions);
  int status = 0;
  rusage usage{};
  REQUIRE(wait4(pid, &status, 0, &usage) == pid);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 1);
  INFO("peak RSS " << usage.ru_maxrss / 1024 << " MiB");
  // KiB. 7 MiB in a release build; AddressSanitizer touches 1/8 of the allocation as shadow memory (~130 MiB).
  // Zero-filling the buffer would commit the whole declared 1000 MiB.
  CHECK(usage.ru_maxrss < 256 * 1024);
}

TEST_CASE("segment writes the classic engine's automatic labels, refusals name the file and exit non-zero", "[cli]") {
  ScratchDir dir("cli-segment");
  const std::string out = (dir / "auto.nii.gz").string();
  Run r = runCli("segment " + kSample + " " + quoted(out));
  INFO(r.out);
  REQUIRE(r.exitCode == 0);
  CHECK(r.out.find("body") != std::string::npos);
  CHECK(r.out.find("left lung") != std::string::npos);
  // The written map, read back, holds body, both lungs and bone.
  r = runCli("info " + kSample + " --labels " + quoted(out) + " --format json");
  REQUIRE(r.exitCode == 0);
  const auto j = nlohmann::json::parse(r.out);
  std::set<int> ids;
  for (const auto& l : j["labels"]) ids.insert(l["label"].get<int>());
  CHECK(ids == std::set<int>{21, 200, 201, 202});
  // The names are written beside the map, so `info --labels` (and the window) name them; no "label 21".
  const fs::path beside = dir / "auto.label";
  REQUIRE(fs::exists(beside));
  std::map<int, std::string> names;
  for (const auto& l : j["labels"]) names[l["label"].get<int>()] = l["name"].get<std::string>();
  CHECK(names[21] == "bone");
  CHECK(names[201] == "left lung");
  r = runCli("info " + kSample + " --labels " + quoted(out));
  REQUIRE(r.exitCode == 0);
  CHECK(r.out.find("right lung") != std::string::npos);
  CHECK(r.out.find("label 2") == std::string::npos);
  CHECK(r.out.find("(names: " + beside.string() + ")") != std::string::npos);
  r = runCli("segment " + kSample + " " + quoted(out) + " --class 201");
  REQUIRE(r.exitCode == 0);
  CHECK(r.out.find("body") == std::string::npos);
  // Written again with the map: it names what the new map holds.
  auto rewritten = delineate::io::readLabelTableFile(beside);
  REQUIRE(rewritten.ok());
  CHECK(rewritten->size() == 1);
  CHECK(rewritten->contains(201));
  // A table of the user's own under that name is never replaced: the map is written, a warning names the file.
  const std::string mine = "0 0 0 0 0 0 0 \"Clear Label\"\n201 10 20 30 1 1 1 \"my lung\"\n";
  writeTextFile(beside, mine);
  const SplitRun kept = runProgramSplit(DELINEATE_CLI_PATH, "segment " + kSample + " " + quoted(out) + " --class 202");
  INFO(kept.err);
  CHECK(kept.exitCode == 0);
  CHECK(kept.err.find("warning: " + beside.string() + ": ") != std::string::npos);
  CHECK(kept.err.find("left as it is") != std::string::npos);
  CHECK(readTextFile(beside) == mine);
  // An unknown engine is a usage error; a class the engine does not make is an engine error naming the image.
  CHECK(runCli("segment " + kSample + " " + quoted(out) + " --engine nope").exitCode == 2);
  r = runCli("segment " + kSample + " " + quoted(out) + " --class 7");
  CHECK(r.exitCode == 1);
  CHECK(r.out.find("example_ct.nii.gz") != std::string::npos);
}

// Issue 40: `segment --engine CHECKPOINT` uses that checkpoint or fails; it never writes the classic engine's labels
// with exit 0 (the plugin's selection falls back to the classic engine without CUDA). A sidecar beside it that is not
// one of ours is named; one that is not JSON at all is an error naming it.
TEST_CASE("segment --engine with a checkpoint that cannot be used fails, never falls back to the classic engine",
          "[cli]") {
  ScratchDir dir("cli-segment-foreign");
  const fs::path checkpoint = dir / "model.pt", sidecar = dir / "model.json", out = dir / "seg.nii.gz";
  writeTextFile(checkpoint, "hello world\n");
  writeTextFile(sidecar, R"({"note":"written by another tool"})");
  const SplitRun foreign = runProgramSplit(DELINEATE_CLI_PATH, "segment " + kSample + " " + quoted(out.string()) +
                                                                   " --engine " + quoted(checkpoint.string()));
  INFO(foreign.out << foreign.err);
  CHECK(foreign.exitCode == 1);
  CHECK(foreign.err.find("warning: " + sidecar.string() + ": names no architecture") != std::string::npos);
  CHECK(foreign.err.find("error: ") != std::string::npos);
  CHECK(foreign.out.find("classic") == std::string::npos);
  CHECK_FALSE(fs::exists(out));

  writeTextFile(sidecar, "not json at all");
  const SplitRun garbage = runProgramSplit(DELINEATE_CLI_PATH, "segment " + kSample + " " + quoted(out.string()) +
                                                                   " --engine " + quoted(checkpoint.string()));
  INFO(garbage.err);
  CHECK(garbage.exitCode == 1);
  CHECK(garbage.err.find("error: " + sidecar.string()) != std::string::npos);
  CHECK_FALSE(fs::exists(out));
}

TEST_CASE("segment reports an empty result instead of saving it silently", "[cli]") {
  // Issue 24 (the save path's untested faults): an engine result with no voxels. A CT-like block of water in air
  // has no lungs: --class 201 finds nothing. The (empty) map is still written, as the engine's answer, and said.
  ScratchDir dir("cli-segment-empty");
  const delineate::core::Geometry g({48, 40, 12}, {2.0, 2.0, 3.0}, {0.0, 0.0, 0.0});
  auto image = delineate::core::ImageVolume::create(g, -1000.0f);
  REQUIRE(image.ok());
  for (std::int64_t z = 2; z < 10; ++z)
    for (std::int64_t y = 8; y < 32; ++y)
      for (std::int64_t x = 8; x < 40; ++x) image->at({x, y, z}) = 20.0f;
  const std::string in = (dir / "water.nii.gz").string(), out = (dir / "lungs.nii.gz").string();
  REQUIRE(delineate::io::writeImageFile(in, *image).ok());
  const SplitRun r = runProgramSplit(DELINEATE_CLI_PATH, "segment " + quoted(in) + " " + quoted(out) + " --class 201");
  INFO(r.out << r.err);
  CHECK(r.exitCode == 0);
  CHECK(r.out.find("(no labelled voxels)") != std::string::npos);
  CHECK(r.err.find("warning: " + out + ": classic found nothing: every voxel is background") != std::string::npos);
  auto written = delineate::io::readLabelFile(out);
  REQUIRE(written.ok());
  CHECK(std::all_of(written->data(), written->data() + written->size(), [](delineate::core::Label v) { return v == 0; }));
  // A result with voxels gives no such warning.
  const SplitRun body = runProgramSplit(DELINEATE_CLI_PATH, "segment " + quoted(in) + " " + quoted(out) + " --class 200");
  CHECK(body.exitCode == 0);
  CHECK(body.err.find("found nothing") == std::string::npos);
}

TEST_CASE("info counts and says the label values a given table does not name", "[cli]") {
  // Issue 24: the mouse atlas's plain table names 1-20; its maps carry 21-40 too (the other hemisphere).
  auto image = sharedFile("data/mouse/fvb-ncrl-in-vivo/template/FVB_NCrl_in_vivo_2.nii.gz");
  auto labels = sharedFile("data/mouse/fvb-ncrl-in-vivo/label/FVB_NCrl_in_vivo_2.nii.gz");
  auto plain = sharedFile("data/mouse/fvb-ncrl-in-vivo/structure_label_list.csv");
  auto both = sharedFile("data/mouse/fvb-ncrl-in-vivo/structure_label_list_hemisphere_separated.csv");
  if (!image || !labels || !plain || !both) return;
  const std::string args = "info " + quoted(image->string()) + " --labels " + quoted(labels->string()) + " --table ";
  const SplitRun r = runProgramSplit(DELINEATE_CLI_PATH, args + quoted(plain->string()));
  INFO(r.err);
  CHECK(r.exitCode == 0);
  CHECK(r.err.find("17 value(s) that " + plain->string() + " does not name: 21 (5293 voxels), 23 (4584 voxels)") !=
        std::string::npos);
  const SplitRun named = runProgramSplit(DELINEATE_CLI_PATH, args + quoted(both->string()));
  CHECK(named.exitCode == 0);
  CHECK(named.err.find("does not name") == std::string::npos);
}

TEST_CASE("info --slices restricts the statistics to a slice range, and a bad range is refused naming it", "[cli]") {
  ScratchDir dir("cli-slices");
  const Run all = runCli("info " + kSample + " --segment classic --format json");
  REQUIRE(all.exitCode == 0);
  const Run some = runCli("info " + kSample + " --segment classic --format json --slices k:40:49");
  REQUIRE(some.exitCode == 0);
  const auto a = nlohmann::json::parse(all.out), s = nlohmann::json::parse(some.out);
  CHECK(s["slices"]["first"] == 40);
  std::map<int, long long> whole;
  for (const auto& l : a["labels"]) whole[l["label"].get<int>()] = l["voxels"].get<long long>();
  REQUIRE_FALSE(s["labels"].empty());
  for (const auto& l : s["labels"]) {
    CHECK(l["voxels"].get<long long>() < whole[l["label"].get<int>()]);  // ten slices of a longer structure
    CHECK(l["bbox_ijk"][0][2].get<int>() >= 40);
    CHECK(l["bbox_ijk"][1][2].get<int>() <= 49);
  }
  CHECK(runCli("info " + kSample + " --segment classic --slices k:40").exitCode == 2);
  const Run bad = runCli("info " + kSample + " --segment classic --slices k:40:9999");
  CHECK(bad.exitCode == 1);
  CHECK(bad.out.find("9999") != std::string::npos);
}
