// delineate-train as its users run it, on the real mouse-brain MRIs of ../shared/data/mouse (small networks and
// patches so each run takes seconds): progress as JSON lines, checkpoints Python torch loads, the sidecar's labels
// and hashes; a run killed after a checkpoint and one killed inside a save, both resumed to the uninterrupted run's
// weights; bad cases named and skipped or stopping the run; a NaN loss stopping it with the last good checkpoint; the
// share's checkpoints, published through a share that fails mid-run and retried.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <set>
#include <thread>

#include "inference/vista3d/checkpoint_reader.h"
#include "io/base/sealed_file.h"
#include "io/base/sealed_stream.h"
#include "io/base/sha256.h"
#include "io/studies/checkpoint_fetch.h"
#include "io/share/share_store.h"
#include "io/volume/image_file.h"
#include "tests/cli/cli_runner.h"
#include "tests/cli/share_fixture.h"
#include "tests/common/other_user.h"
#include "tests/common/test_support.h"

using namespace delineate;
using namespace delineate::test;
using nlohmann::json;
namespace fs = std::filesystem;

extern char** environ;

namespace {

const char* kMouse = "data/mouse/fvb-ncrl-in-vivo";

// cases.json for mouse subjects `ids` (the first `train` train, the rest validate).
std::optional<fs::path> mouseCases(const ScratchDir& dir, const std::vector<int>& ids, std::size_t train, json extra = json::array()) {
  const auto root = sharedFile(std::string(kMouse) + "/template/FVB_NCrl_in_vivo_1.nii.gz");
  if (!root) return std::nullopt;
  const fs::path base = root->parent_path().parent_path();
  json cases = json::array();
  for (std::size_t i = 0; i < ids.size(); ++i) {
    const std::string n = std::to_string(ids[i]);
    cases.push_back({{"id", "FVB" + n},
                     {"image", (base / "template" / ("FVB_NCrl_in_vivo_" + n + ".nii.gz")).string()},
                     {"labels", (base / "label" / ("FVB_NCrl_in_vivo_" + n + ".nii.gz")).string()},
                     {"split", i < train ? "train" : "validation"}});
  }
  for (const auto& e : extra) cases.push_back(e);
  const fs::path path = dir / "cases.json";
  writeTextFile(path, json{{"cases", cases}}.dump(1));
  return path;
}

std::string labelTable() {
  const auto t = sharedFile(std::string(kMouse) + "/structure_label_list_hemisphere_separated.csv");
  return t ? t->string() : std::string();
}

// A small, fast configuration: 4 filters, 32^3 patches, the whole brain as one validation window.
json smallConfig(const fs::path& cases, const fs::path& out, int iterations) {
  return {{"cases", cases.string()}, {"output", out.string()}, {"iterations", iterations}, {"initFilters", 4},
          {"patch", {32, 32, 32}}, {"validationWindow", {112, 128, 80}}, {"validationInterval", 4}, {"seed", 7},
          {"threads", 1}, {"workers", 2}, {"labels", labelTable()}};
}

fs::path writeConfig(const ScratchDir& dir, const std::string& name, const json& config) {
  const fs::path p = dir / name;
  writeTextFile(p, config.dump(1));
  return p;
}

std::vector<json> jsonLines(const std::string& text) {
  std::vector<json> out;
  std::size_t start = 0;
  while (start < text.size()) {
    const auto end = text.find('\n', start);
    const std::string line = text.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (!line.empty() && line[0] == '{') out.push_back(json::parse(line));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return out;
}

// The program with stdout on a pipe, its lines handed to `onLine` until it returns false (then SIGKILL) or the
// program ends; with `killWhen`, also SIGKILL as soon as that file exists (polled every 2 ms). Returns the wait status.
int runWatching(const std::vector<std::string>& args, const std::vector<std::string>& env,
                const std::function<bool(const std::string&)>& onLine, std::string* all = nullptr,
                const fs::path& killWhen = {}) {
  int fds[2];
  REQUIRE(pipe(fds) == 0);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
  posix_spawn_file_actions_addclose(&actions, fds[0]);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  std::vector<std::string> envStrings;
  for (char** e = environ; *e; ++e) envStrings.emplace_back(*e);
  for (const auto& e : env) envStrings.push_back(e);
  std::vector<char*> argv, envp;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  for (const auto& e : envStrings) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  pid_t pid = 0;
  REQUIRE(posix_spawn(&pid, args[0].c_str(), &actions, nullptr, argv.data(), envp.data()) == 0);
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);
  std::atomic<bool> running{true};
  std::thread watcher([&] {
    while (running && !killWhen.empty()) {
      if (fs::exists(killWhen)) {
        kill(pid, SIGKILL);
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  });
  FILE* out = fdopen(fds[0], "r");
  char* line = nullptr;
  std::size_t cap = 0;
  bool killed = false;
  while (getline(&line, &cap, out) > 0) {
    if (all) *all += line;
    if (!killed && !onLine(line)) {
      kill(pid, SIGKILL);
      killed = true;
    }
  }
  free(line);
  fclose(out);
  int status = 0;
  waitpid(pid, &status, 0);
  running = false;
  watcher.join();
  return status;
}

std::vector<inference::vista3d::TensorEntry> entriesOf(const fs::path& checkpoint) {
  auto ck = inference::vista3d::readCheckpoint(checkpoint.string());
  REQUIRE(ck.ok());
  return ck->tensors;
}

std::vector<std::uint8_t> storageBytes(const fs::path& checkpoint) {
  auto ck = inference::vista3d::readCheckpoint(checkpoint.string());
  REQUIRE(ck.ok());
  std::vector<std::uint8_t> all;
  for (const auto& e : ck->tensors) {
    auto bytes = inference::vista3d::readTensorBytes(*ck, e);
    REQUIRE(bytes.ok());
    all.insert(all.end(), bytes->begin(), bytes->end());
  }
  return all;
}

// Per-structure Dice of a label file against the reference labels (ids present in the reference).
std::map<int, double> diceAgainst(const fs::path& segmentation, const fs::path& reference) {
  auto a = io::readLabelFile(segmentation.string());
  auto b = io::readLabelFile(reference.string());
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  REQUIRE(a->voxels().size() == b->voxels().size());
  std::map<int, std::array<double, 3>> counts;  // both, in a, in b
  for (std::size_t i = 0; i < a->voxels().size(); ++i) {
    const int x = a->voxels()[i], y = b->voxels()[i];
    if (x) counts[x][1] += 1;
    if (y) counts[y][2] += 1;
    if (x && x == y) counts[x][0] += 1;
  }
  std::map<int, double> dice;
  for (const auto& [id, c] : counts)
    if (c[2] > 0) dice[id] = 2 * c[0] / (c[1] + c[2]);
  return dice;
}

bool pythonTorch() { return runShell("/usr/bin/python3 -c 'import torch' >/dev/null 2>&1").exitCode == 0; }

}  // namespace

TEST_CASE("delineate-train: an atlas network on mouse MRI, JSON progress, checkpoints torch loads, the sidecar",
          "[cli][train][data]") {
  ScratchDir dir("train");
  const auto cases = mouseCases(dir, {1, 2, 3}, 2);
  if (!cases || labelTable().empty()) return;
  const fs::path out = dir / "run";
  const auto config = writeConfig(dir, "config.json", smallConfig(*cases, out, 8));
  const Run r = runProgram(DELINEATE_TRAIN_PATH, "--config " + quoted(config.string()) + " --json");
  INFO(r.out);
  REQUIRE(r.exitCode == 0);
  const auto events = jsonLines(r.out);
  REQUIRE(events.size() >= 3);
  CHECK(events.front().at("event") == "start");
  CHECK(events.front().at("trainCases") == 2);
  CHECK(events.front().at("validationCases") == 1);
  CHECK(events.front().at("patch") == json::array({32, 32, 32}));
  int validations = 0;
  for (const auto& e : events)
    if (e.at("event") == "progress" && e.contains("validation")) {
      ++validations;
      // 37 structures in the validation subject, each with a Dice in [0, 1].
      CHECK(e.at("validation").at("perClass").size() == 37);
      for (const auto& [k, d] : e.at("validation").at("perClass").items()) {
        const double dice = d.get<double>();
        CHECK(dice >= 0);
        CHECK(dice <= 1);
      }
      CHECK(e.at("iterationsPerSecond").get<double>() > 0);
      CHECK(e.at("dataWaitFraction").get<double>() >= 0);
    }
  CHECK(validations == 2);
  const json& done = events.back();
  REQUIRE(done.at("event") == "done");
  CHECK(done.at("iterations") == 8);
  CHECK(done.at("cancelled") == false);

  // Checkpoints: the last two and the best, each with weights, optimizer state and a sidecar.
  for (const char* stem : {"it0000004", "it0000008"}) {
    INFO(stem);
    CHECK(fs::exists(out / "checkpoints" / (std::string(stem) + ".pt")));
    CHECK(fs::exists(out / "checkpoints" / (std::string(stem) + ".optim.pt")));
    CHECK(fs::exists(out / "checkpoints" / (std::string(stem) + ".json")));
  }
  const json sidecar = json::parse(readTextFile(out / "checkpoints" / "it0000008.json"));
  CHECK(sidecar.at("validatedIteration") == 8);  // the validation of these very weights (issue 41)
  CHECK(sidecar.at("lastValidationIteration") == 8);
  CHECK(sidecar.at("architecture").at("name") == "SegResNetDS");
  CHECK(sidecar.at("architecture").at("monai").at("out_channels") == 38);  // background and 37 structures
  CHECK(sidecar.at("architecture").at("monai").at("init_filters") == 4);
  REQUIRE(sidecar.at("labels").size() == 37);
  CHECK(sidecar.at("labels").at(0).at("class") == 1);
  CHECK(sidecar.at("labels").at(0).at("id") == 1);
  CHECK(sidecar.at("labels").at(0).at("name") == "Left Hippocampus");
  CHECK(sidecar.at("preprocessing").at("intensity") == "zscore-nonzero");
  CHECK(sidecar.at("validations").size() == 2);
  CHECK(sidecar.at("iteration") == 8);
  // What the cases were, for the fit check before the model runs on a study (issue 41): three mouse MRIs.
  const json& profile = sidecar.at("trainingDataProfile");
  CHECK(profile.at("images") == 3);
  CHECK(profile.at("hounsfield") == false);
  CHECK(profile.at("modalities").empty());  // NIfTI files name none
  for (const char* key : {"spacingMm", "fieldOfViewMm"})
    for (const char* bound : {"min", "max"}) {
      INFO(key << " " << bound);
      REQUIRE(profile.at(key).at(bound).size() == 3);
      CHECK(profile.at(key).at(bound).at(0).get<double>() > 0);
    }
  CHECK(profile.at("fieldOfViewMm").at("max").at(0).get<double>() < 100);  // a mouse: centimetres, not a human body
  REQUIRE(sidecar.at("data").at("cases").size() == 3);
  for (const auto& c : sidecar.at("data").at("cases")) {
    auto labels = io::sha256OfFile(c.at("labels").get<std::string>());
    auto image = io::sha256OfFile(c.at("image").get<std::string>());
    REQUIRE(labels.ok());
    REQUIRE(image.ok());
    CHECK(c.at("labelsSha256") == *labels);
    CHECK(c.at("imageSha256") == *image);
  }
  // The weights as PyTorch names them (MONAI's SegResNetDS keys), and Python torch reads them.
  const auto entries = entriesOf(out / "checkpoints" / "it0000008.pt");
  CHECK(entries.front().name == "encoder.conv_init.weight");
  CHECK(entries.front().shape == std::vector<std::int64_t>{4, 1, 3, 3, 3});
  if (!pythonTorch()) {
    if (runningInCi()) FAIL("python3-torch is missing; scripts/setup.sh installs it");
    return;
  }
  const Run py = runShell("/usr/bin/python3 -c \"import torch; sd = torch.load('" + (out / "checkpoints" / "it0000008.pt").string() +
                          "', weights_only=True); print(len(sd), tuple(sd['up_layers.2.head.weight'].shape))\"");
  CHECK(py.exitCode == 0);
  CHECK(py.out.find(std::to_string(entries.size()) + " (38, 4, 1, 1, 1)") != std::string::npos);

  // The checkpoint is an engine: delineate-cli segments the validation subject with it on the subject's own grid
  // (stored RAS, trained in the canonical order), and its Dice per structure is the one training's evaluation gives
  // on the prepared grid, so every voxel went back where it came from.
  const auto subject3 = sharedFile(std::string(kMouse) + "/template/FVB_NCrl_in_vivo_3.nii.gz");
  const auto labels3 = sharedFile(std::string(kMouse) + "/label/FVB_NCrl_in_vivo_3.nii.gz");
  REQUIRE(subject3);
  REQUIRE(labels3);
  const fs::path checkpoint = out / "checkpoints" / "it0000008.pt";
  const SplitRun seg = runCliSplit("segment " + quoted(subject3->string()) + " " + quoted((dir / "seg3.nii.gz").string()) +
                                   " --engine " + quoted(checkpoint.string()) + " --device cpu");
  INFO(seg.out << seg.err);
  REQUIRE(seg.exitCode == 0);
  CHECK(seg.err.find("atlas network it0000008.pt (37 classes) on cpu") != std::string::npos);
  CHECK(seg.out.find("Left Hippocampus") != std::string::npos);  // the sidecar's names
  const Run evaluated = runProgram(DELINEATE_TRAIN_PATH, "--config " + quoted(config.string()) + " --evaluate " + quoted(checkpoint.string()));
  REQUIRE(evaluated.exitCode == 0);
  const json evaluation = json::parse(evaluated.out.substr(evaluated.out.find('{')));
  const json& expected = evaluation.at("cases").at("FVB3").at("perStructure");
  const auto dice = diceAgainst(dir / "seg3.nii.gz", *labels3);
  CHECK(dice.size() == 37);
  int compared = 0;
  double largest = 0;
  for (const auto& [id, d] : dice) {
    INFO("structure " << id);
    REQUIRE(expected.contains(std::to_string(id)));
    // Equal up to a few voxels whose argmax turns on rounding (the evaluation ran on 1 thread, the engine on every
    // core); a voxel put back in the wrong place (a flipped axis) would move a Dice by far more.
    CHECK(std::abs(d - expected.at(std::to_string(id)).get<double>()) < 1e-4);
    largest = std::max(largest, d);
    ++compared;
  }
  CHECK(compared == 37);
  CHECK(largest > 0.01);  // eight steps of 4 filters: little, but something lands where it belongs
  // Only the classes asked for; a class the model does not have is named.
  const Run two = runCli("segment " + quoted(subject3->string()) + " " + quoted((dir / "seg3b.nii.gz").string()) + " --engine " +
                         quoted(checkpoint.string()) + " --device cpu --class 17 --class 34");
  REQUIRE(two.exitCode == 0);
  std::set<int> present;
  for (const auto& [id, d] : diceAgainst(dir / "seg3b.nii.gz", *labels3))
    if (d > 0) present.insert(id);
  for (const int id : present) CHECK((id == 17 || id == 34));
  const Run unknown = runCli("segment " + quoted(subject3->string()) + " " + quoted((dir / "seg3c.nii.gz").string()) + " --engine " +
                             quoted(checkpoint.string()) + " --device cpu --class 99");
  CHECK(unknown.exitCode == 1);
  CHECK(unknown.out.find("label 99 is not a class of this model") != std::string::npos);
  CHECK_FALSE(fs::exists(dir / "seg3c.nii.gz"));
}

TEST_CASE("delineate-train: killed after a checkpoint, or inside a save, resumes to the uninterrupted run's weights",
          "[cli][train][data]") {
  ScratchDir dir("train-resume");
  const auto cases = mouseCases(dir, {1, 2}, 2);
  if (!cases || labelTable().empty()) return;
  auto config = smallConfig(*cases, dir / "whole", 40);
  config["validationInterval"] = 0;  // no validation case: checkpoints every 4 iterations and at the end
  config["checkpointInterval"] = 4;
  config["keepLast"] = 20;
  const Run whole = runProgram(DELINEATE_TRAIN_PATH, "--config " + quoted(writeConfig(dir, "whole.json", config).string()));
  INFO(whole.out);
  REQUIRE(whole.exitCode == 0);
  const auto reference = storageBytes(dir / "whole" / "checkpoints" / "it0000040.pt");

  config["output"] = (dir / "killed").string();
  const auto path = writeConfig(dir, "killed.json", config);
  SECTION("SIGKILL once iteration 4's checkpoint is complete") {
    const int status = runWatching({DELINEATE_TRAIN_PATH, "--config", path.string()}, {},
                                   [](const std::string&) { return true; }, nullptr,
                                   dir / "killed" / "checkpoints" / "it0000004.json");
    REQUIRE(WIFSIGNALED(status));
    CHECK_FALSE(fs::exists(dir / "killed" / "checkpoints" / "it0000040.json"));
  }
  SECTION("SIGKILL inside the save of iteration 8 (as its weights file is renamed into place)") {
    const int status = runWatching({DELINEATE_TRAIN_PATH, "--config", path.string()},
                                   {"LD_PRELOAD=" + std::string(DELINEATE_FS_FAULTS_PATH), "DELINEATE_FAULT_KILL=before:rename:it0000008.pt$"},
                                   [](const std::string&) { return true; });
    REQUIRE(WIFSIGNALED(status));
    // The earlier checkpoint is whole; the one being written is not listed as a checkpoint.
    CHECK(fs::exists(dir / "killed" / "checkpoints" / "it0000004.json"));
    CHECK_FALSE(fs::exists(dir / "killed" / "checkpoints" / "it0000008.json"));
    CHECK_FALSE(fs::exists(dir / "killed" / "checkpoints" / "it0000008.pt"));
  }
  const Run resumed = runProgram(DELINEATE_TRAIN_PATH, "--config " + quoted(path.string()) + " --resume");
  INFO(resumed.out);
  REQUIRE(resumed.exitCode == 0);
  const auto at = resumed.out.find("(iteration ");
  REQUIRE(at != std::string::npos);
  const int from = std::stoi(resumed.out.substr(at + 11));
  CHECK(from >= 4);
  CHECK(from < 40);
  CHECK(from % 4 == 0);
  // Same batches, learning rates and Adam moments: the same weights, bit for bit.
  CHECK(storageBytes(dir / "killed" / "checkpoints" / "it0000040.pt") == reference);
}

TEST_CASE("delineate-train: bad cases are named and skipped, or stop the run", "[cli][train][data]") {
  ScratchDir dir("train-bad");
  const auto root = sharedFile(std::string(kMouse) + "/label/FVB_NCrl_in_vivo_4.nii.gz");
  if (!root || labelTable().empty()) return;
  const fs::path base = root->parent_path().parent_path();
  json extra = json::array();
  // Subject 4's labels on subject 5's image would pass the grid check (one atlas grid), so: a changed hash, and
  // labels with an id the table does not have.
  extra.push_back({{"id", "changed"}, {"image", (base / "template" / "FVB_NCrl_in_vivo_4.nii.gz").string()},
                   {"labels", (base / "label" / "FVB_NCrl_in_vivo_4.nii.gz").string()}, {"labelsSha256", std::string(64, '0')}});
  extra.push_back({{"id", "missing"}, {"image", (dir / "nowhere.nii.gz").string()},
                   {"labels", (base / "label" / "FVB_NCrl_in_vivo_4.nii.gz").string()}});
  const auto cases = mouseCases(dir, {1, 2}, 1, extra);
  REQUIRE(cases);
  auto config = smallConfig(*cases, dir / "run", 2);
  const auto path = writeConfig(dir, "config.json", config);
  const SplitRun r = runProgramSplit(DELINEATE_TRAIN_PATH, "--config " + quoted(path.string()));
  INFO(r.out << r.err);
  REQUIRE(r.exitCode == 0);
  CHECK(r.err.find("case skipped: changed: " + (base / "label" / "FVB_NCrl_in_vivo_4.nii.gz").string() + " changed since") != std::string::npos);
  CHECK(r.err.find("case skipped: missing: " + (dir / "nowhere.nii.gz").string()) != std::string::npos);
  CHECK(r.out.find("1 training and 1 validation case(s), 2 skipped") != std::string::npos);
  const json sidecar = json::parse(readTextFile(dir / "run" / "checkpoints" / "it0000002.json"));
  CHECK(sidecar.at("data").at("skipped").size() == 2);

  const SplitRun stop = runProgramSplit(DELINEATE_TRAIN_PATH, "--config " + quoted(path.string()) + " --stop-on-bad-case --out " +
                                                                   quoted((dir / "stopped").string()));
  CHECK(stop.exitCode == 1);
  CHECK(stop.err.find("error: changed: ") != std::string::npos);
  CHECK(stop.err.find("(the run stops on a bad case)") != std::string::npos);
  CHECK_FALSE(fs::exists(dir / "stopped" / "checkpoints"));

  // A label the table does not know is a bad case too (never trained silently as background).
  writeTextFile(dir / "short_table.csv", "label,name\n1,Left Hippocampus\n2,External Capsule\n");
  ScratchDir good("train-bad-good");
  const auto goodCases = mouseCases(good, {1, 2}, 1);
  REQUIRE(goodCases);
  const SplitRun unknown = runProgramSplit(DELINEATE_TRAIN_PATH, "--config " + quoted(path.string()) + " --cases " +
                                                                      quoted(goodCases->string()) + " --stop-on-bad-case --labels " +
                                                                      quoted((dir / "short_table.csv").string()) + " --out " +
                                                                      quoted((dir / "unknown").string()));
  INFO(unknown.err);
  CHECK(unknown.exitCode == 1);
  CHECK(unknown.err.find("error: FVB1: invalid argument: label 3 is not in the run's label table") != std::string::npos);
}

TEST_CASE("delineate-train: a NaN loss stops the run at its iteration and keeps the last good checkpoint",
          "[cli][train][data]") {
  const UmaskScope umask(022);  // the run's files are checked for who may read them (issue 40)
  ScratchDir dir("train-nan");
  const auto cases = mouseCases(dir, {1, 2}, 2);
  if (!cases || labelTable().empty()) return;
  auto config = smallConfig(*cases, dir / "run", 60);
  config["learningRate"] = 1e8;  // AdamW's decay multiplies every weight by 1 - 1e3 each step: inf, then NaN
  config["schedule"] = "constant";
  config["validationInterval"] = 0;
  config["checkpointInterval"] = 1;
  const SplitRun r = runProgramSplit(DELINEATE_TRAIN_PATH, "--config " + quoted(writeConfig(dir, "nan.json", config).string()));
  INFO(r.out << r.err);
  REQUIRE(r.exitCode == 1);
  const auto at = r.err.find(": iteration ", r.err.find("error: training: "));
  REQUIRE(at != std::string::npos);
  const int iteration = std::stoi(r.err.substr(at + 12));
  CHECK((r.err.find("the loss is NaN") != std::string::npos || r.err.find("the weights are no longer finite") != std::string::npos));
  CHECK(r.err.find("last good checkpoint is kept") != std::string::npos);
  // The newest checkpoint is of the step before, and every weight in it is finite.
  char stem[32];
  std::snprintf(stem, sizeof stem, "it%07d.pt", iteration - 1);
  REQUIRE(fs::exists(dir / "run" / "checkpoints" / stem));
  auto ck = inference::vista3d::readCheckpoint((dir / "run" / "checkpoints" / stem).string());
  REQUIRE(ck.ok());
  for (const auto& e : ck->tensors) {
    auto bytes = inference::vista3d::readTensorBytes(*ck, e);
    REQUIRE(bytes.ok());
    std::vector<float> v(bytes->size() / 4);
    std::memcpy(v.data(), bytes->data(), bytes->size());
    for (const float x : v) REQUIRE(std::isfinite(x));
  }
  std::snprintf(stem, sizeof stem, "it%07d.pt", iteration);
  CHECK_FALSE(fs::exists(dir / "run" / "checkpoints" / stem));
  // What was learnt from patient data: the run folder it made is the user's alone, its files never others'.
  CHECK(modeOf(dir / "run") == 0700);
  for (const auto& p : everythingBelow(dir / "run")) {
    INFO(p.string());
    if (fs::is_regular_file(p)) CHECK((modeOf(p) & 007) == 0);
  }
}

TEST_CASE("delineate-train: VISTA-3D fine-tuned with its labels mapped to new ids, and the engine loads the result",
          "[cli][train][data]") {
  // TotalSegmentator's example CT (3 mm, 30 slices) twice: with its full model's labels it trains, with its fast
  // model's it validates; every label mapped to a new VISTA-3D id (133 on), the reference's tiny VISTA-3D (width 8)
  // as the base.
  ScratchDir dir("train-vista");
  const auto ct = sharedFile("data/ct/totalseg-example/example_ct_sm.nii.gz");
  const auto ctLabels = sharedFile("data/ct/totalseg-example/example_seg_fast.nii.gz");
  const auto small = sharedFile("data/ct/totalseg-example/example_ct_sm.nii.gz");
  const auto smallLabels = sharedFile("data/ct/totalseg-example/example_seg.nii.gz");
  const auto tiny = sharedFile("reference/vista3d/tiny_state_dict.pt");
  if (!ct || !ctLabels || !small || !smallLabels || !tiny) return;
  std::set<int> ids;
  for (const auto& path : {*ctLabels, *smallLabels}) {
    auto labels = io::readLabelFile(path.string());
    REQUIRE(labels.ok());
    for (std::size_t i = 0; i < labels->voxels().size(); ++i)
      if (labels->voxels()[i]) ids.insert(labels->voxels()[i]);
  }
  json mapping = json::array();
  int next = 133;  // VISTA-3D's free ids
  for (const int id : ids) mapping.push_back({id, next++});
  REQUIRE(next <= 255);
  writeTextFile(dir / "cases.json",
                json{{"cases", {{{"id", "ct"}, {"image", ct->string()}, {"labels", ctLabels->string()}, {"split", "train"}},
                                {{"id", "ct_sm"}, {"image", small->string()}, {"labels", smallLabels->string()}, {"split", "validation"}}}}}
                    .dump());
  const json config{{"model", "vista3d"}, {"checkpoint", tiny->string()}, {"cases", (dir / "cases.json").string()},
                    {"output", (dir / "run").string()}, {"iterations", 4}, {"validationInterval", 4},
                    {"patch", {64, 64, 32}}, {"validationWindow", {128, 128, 64}}, {"labelMapping", mapping},
                    {"maxForeprompt", 4}, {"maxBackprompt", 1}, {"seed", 3}, {"threads", 2}};
  const Run r = runProgram(DELINEATE_TRAIN_PATH, "--config " + quoted(writeConfig(dir, "vista.json", config).string()) + " --json");
  INFO(r.out);
  REQUIRE(r.exitCode == 0);
  const auto events = jsonLines(r.out);
  REQUIRE(events.back().at("event") == "done");
  CHECK(events.back().at("iterations") == 4);
  CHECK(events.back().at("lastValidation").at("perClass").size() > 10);
  const json sidecar = json::parse(readTextFile(dir / "run" / "checkpoints" / "it0000004.json"));
  CHECK(sidecar.at("architecture").at("name") == "VISTA3D");
  REQUIRE(sidecar.at("labels").size() == ids.size());
  CHECK(sidecar.at("labels").at(0).at("id") == *ids.begin());
  CHECK(sidecar.at("labels").at(0).at("vista3d") == 133);
  CHECK(sidecar.at("preprocessing").at("spacingMm") == json::array({1.5, 1.5, 1.5}));
  CHECK(sidecar.at("training").at("loss") == "per-prompt sigmoid DiceCE");
  // Spacing is the engine's: setting it is refused, naming the key.
  json spaced = config;
  spaced["spacing"] = {3, 3, 3};
  const Run refused = runProgram(DELINEATE_TRAIN_PATH, "--config " + quoted(writeConfig(dir, "spaced.json", spaced).string()));
  CHECK(refused.exitCode == 1);
  CHECK(refused.out.find("error: spacing: ") != std::string::npos);
  // The fine-tuned weights pass the engine's strict key check and segment with a new class.
  const Run seg = runProgram(DELINEATE_VISTA3D_PATH, "segment " + quoted(small->string()) + " " + quoted((dir / "seg.nii.gz").string()) +
                                                         " --checkpoint " + quoted((dir / "run" / "checkpoints" / "it0000004.pt").string()) +
                                                         " --device cpu --class " + std::to_string(*ids.begin()));
  INFO(seg.out);
  CHECK(seg.exitCode == 0);
  // The engine speaks the labels it was trained with: the class is asked for and written by the user's id (VISTA-3D
  // segments it as 133).
  CHECK(seg.out.find("fine-tuned: " + std::to_string(ids.size()) + " classes") != std::string::npos);
  auto written = io::readLabelFile((dir / "seg.nii.gz").string());
  REQUIRE(written.ok());
  std::set<int> present;
  for (std::size_t i = 0; i < written->voxels().size(); ++i)
    if (written->voxels()[i]) present.insert(written->voxels()[i]);
  for (const int id : present) CHECK(id == *ids.begin());
  const Run vistaId = runProgram(DELINEATE_VISTA3D_PATH, "segment " + quoted(small->string()) + " " + quoted((dir / "seg2.nii.gz").string()) +
                                                             " --checkpoint " + quoted((dir / "run" / "checkpoints" / "it0000004.pt").string()) +
                                                             " --device cpu --class 200");
  CHECK(vistaId.exitCode == 1);
  CHECK(vistaId.out.find("label 200 is not a class of this model") != std::string::npos);
}

TEST_CASE("delineate-train: checkpoints published to the share, and a share failing mid-run is reported and retried",
          "[cli][train][data]") {
  ScratchDir dir("train-share");
  const auto cases = mouseCases(dir, {1, 2}, 1);
  if (!cases || labelTable().empty()) return;
  const fs::path root = initCliShare(dir);
  auto config = smallConfig(*cases, dir / "run", 12);
  config["share"] = root.string();
  config["modelName"] = "atlas";
  const fs::path folder = root / "checkpoints" / "atlas";
  bool broken = false, restored = false;
  std::string all;
  const int status = runWatching({DELINEATE_TRAIN_PATH, "--config", writeConfig(dir, "share.json", config).string(), "--json"}, {},
                                 [&](const std::string& line) {
                                   const json j = json::parse(line, nullptr, false);
                                   if (!j.is_object()) return true;
                                   if (j.value("event", "") == "start") {
                                     // The share's model folder turns into a file: every publish fails.
                                     fs::remove_all(folder);
                                     fs::create_directories(folder.parent_path());
                                     writeTextFile(folder, "not a folder");
                                     broken = true;
                                   }
                                   if (j.value("event", "") == "warning" && broken && !restored) {
                                     fs::remove(folder);
                                     fs::create_directories(folder);
                                     restored = true;
                                   }
                                   return true;
                                 },
                                 &all);
  INFO(all);
  REQUIRE(WIFEXITED(status));
  REQUIRE(WEXITSTATUS(status) == 0);
  CHECK(restored);
  CHECK(all.find("not published (tried again with the next save)") != std::string::npos);
  const auto events = jsonLines(all);
  REQUIRE(events.back().at("event") == "done");
  CHECK(events.back().at("unpublished") == 0);
  // The share lists whole revisions only: the first best (published late) and the final one, each with its sidecar.
  const Run list = runCli("checkpoint list " + quoted(root.string()) + " atlas --json");
  INFO(list.out);
  REQUIRE(list.exitCode == 0);
  const json revisions = json::parse(list.out);
  REQUIRE(revisions.at("revisions").size() >= 2);
  CHECK(revisions.at("revisions").front().at("message").get<std::string>().rfind("iteration 4", 0) == 0);
  CHECK(revisions.at("revisions").back().at("message").get<std::string>().find("(final)") != std::string::npos);
  CHECK(revisions.at("revisions").back().at("extra").at("iteration") == 12);
  CHECK(revisions.at("revisions").back().at("extra").at("architecture").at("name") == "SegResNetDS");
  CHECK(revisions.at("incomplete").empty());
  const Run get = runCli("checkpoint get " + quoted(root.string()) + " atlas " +
                         std::to_string(revisions.at("revisions").back().at("revision").get<int>()) + " " +
                         quoted((dir / "got.pt").string()));
  CHECK(get.exitCode == 0);
  CHECK(readTextFile(dir / "got.pt") == readTextFile(dir / "run" / "checkpoints" / "it0000012.pt"));
  // The share's model is an engine: fetched verified into the cache with its sidecar, it segments as the local file.
  const auto subject2 = sharedFile(std::string(kMouse) + "/template/FVB_NCrl_in_vivo_2.nii.gz");
  REQUIRE(subject2);
  const std::string env = "XDG_CACHE_HOME=" + quoted((dir / "cache").string()) + " ";
  const Run fromShare = runShell(env + quoted(DELINEATE_CLI_PATH) + " segment " + quoted(subject2->string()) + " " +
                                 quoted((dir / "share-seg.nii.gz").string()) + " --engine " + quoted("share:" + root.string() + "#atlas") +
                                 " --device cpu 2>&1");
  INFO(fromShare.out);
  REQUIRE(fromShare.exitCode == 0);
  CHECK(fromShare.out.find("atlas network") != std::string::npos);
  // The cache's copy and its sidecar are sealed at rest; the engine read their content.
  int cachedCopies = 0;
  for (const auto& e : fs::recursive_directory_iterator(dir / "cache" / "delineate" / "checkpoints"))
    if (e.is_regular_file()) {
      CHECK(io::isSealedFile(e.path().string()));
      ++cachedCopies;
    }
  CHECK(cachedCopies == 2);
  const Run fromFile = runCli("segment " + quoted(subject2->string()) + " " + quoted((dir / "file-seg.nii.gz").string()) + " --engine " +
                              quoted((dir / "run" / "checkpoints" / "it0000012.pt").string()) + " --device cpu");
  REQUIRE(fromFile.exitCode == 0);
  auto a = io::readLabelFile((dir / "share-seg.nii.gz").string());
  auto b = io::readLabelFile((dir / "file-seg.nii.gz").string());
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  CHECK(std::equal(a->data(), a->data() + a->size(), b->data(), b->data() + b->size()));
  // A revision that does not exist is named.
  const Run missing = runShell(env + quoted(DELINEATE_CLI_PATH) + " segment " + quoted(subject2->string()) + " " +
                               quoted((dir / "none.nii.gz").string()) + " --engine " + quoted("share:" + root.string() + "#atlas@99") + " 2>&1");
  CHECK(missing.exitCode == 1);
  CHECK(missing.out.find("no checkpoint revision 99") != std::string::npos);
  // The share gone (unmounted): a pinned revision fetched before still segments from the cache, said on stderr; the
  // newest revision cannot be known without the share, and that is named.
  const int latest = revisions.at("revisions").back().at("revision").get<int>();
  fs::rename(root, dir / "share-gone");
  const Run offline = runShell(env + quoted(DELINEATE_CLI_PATH) + " segment " + quoted(subject2->string()) + " " +
                               quoted((dir / "offline-seg.nii.gz").string()) + " --engine " +
                               quoted("share:" + root.string() + "#atlas@" + std::to_string(latest)) + " --device cpu 2>&1");
  INFO(offline.out);
  REQUIRE(offline.exitCode == 0);
  CHECK(offline.out.find("warning: the share " + root.string() + " cannot be reached") != std::string::npos);
  CHECK(offline.out.find("atlas-r" + std::to_string(latest) + ".pt") != std::string::npos);
  auto c = io::readLabelFile((dir / "offline-seg.nii.gz").string());
  REQUIRE(c.ok());
  CHECK(std::equal(c->data(), c->data() + c->size(), b->data(), b->data() + b->size()));
  const Run unpinned = runShell(env + quoted(DELINEATE_CLI_PATH) + " segment " + quoted(subject2->string()) + " " +
                                quoted((dir / "unpinned.nii.gz").string()) + " --engine " + quoted("share:" + root.string() + "#atlas") + " 2>&1");
  CHECK(unpinned.exitCode == 1);
  CHECK(unpinned.out.find(root.string()) != std::string::npos);
  CHECK_FALSE(fs::exists(dir / "unpinned.nii.gz"));
}

// Issue 47, item 2: the window's own run folders are sealed at rest (--seal): checkpoints, optimizer state and sidecars
// sealed and owner-only, the run resumed from them, an engine made of them, and published to the share as their
// content (never as this user's ciphertext).
TEST_CASE("delineate-train --seal: checkpoints sealed at rest, resumed from, segmented with and published as their "
          "content", "[cli][train][data][sealed]") {
  ScratchDir dir("train-sealed");
  const auto cases = mouseCases(dir, {1, 2}, 1);
  if (!cases || labelTable().empty()) return;
  const fs::path root = initCliShare(dir);
  auto config = smallConfig(*cases, dir / "run", 4);
  config["share"] = root.string();
  config["modelName"] = "atlas";
  const fs::path path = writeConfig(dir, "sealed.json", config);
  const Run first = runProgram(DELINEATE_TRAIN_PATH, "--config " + quoted(path.string()) + " --seal");
  INFO(first.out);
  REQUIRE(first.exitCode == 0);
  const fs::path checkpoints = dir / "run" / "checkpoints";
  for (const char* name : {"it0000004.pt", "it0000004.optim.pt", "it0000004.json"}) {
    INFO(name);
    CHECK(io::isSealedFile((checkpoints / name).string()));
    CHECK(modeOf(checkpoints / name) == 0600u);
  }
  // Resumed (its optimizer state and sidecar read through the seal) to 8 iterations.
  config["iterations"] = 8;
  const Run resumed = runProgram(DELINEATE_TRAIN_PATH, "--config " + quoted(writeConfig(dir, "more.json", config).string()) +
                                                           " --seal --resume");
  INFO(resumed.out);
  REQUIRE(resumed.exitCode == 0);
  CHECK(resumed.out.find("(iteration 4") != std::string::npos);
  CHECK(io::isSealedFile((checkpoints / "it0000008.pt").string()));
  // Resumed with the user's key lost: refused naming a sidecar and why, never started over at
  // iteration 0 over the checkpoints it cannot read.
  config["iterations"] = 12;
  const Run lost = runShell("DELINEATE_AT_REST_KEY_FILE=" + quoted((dir / "other-key" / "at-rest.key").string()) + " " +
                            quoted(DELINEATE_TRAIN_PATH) + " --config " + quoted(writeConfig(dir, "lost.json", config).string()) +
                            " --seal --resume 2>&1");
  INFO(lost.out);
  CHECK(lost.exitCode == 1);
  CHECK(lost.out.find("it0000008.json") != std::string::npos);
  CHECK(lost.out.find("this user has no at-rest key") != std::string::npos);
  CHECK_FALSE(fs::exists(checkpoints / "it0000012.json"));
  CHECK(io::isSealedFile((checkpoints / "it0000004.pt").string()));
  // Published as its content: the share's newest revision is the plain checkpoint, hashed as its content.
  const Run list = runCli("checkpoint list " + quoted(root.string()) + " atlas --json");
  REQUIRE(list.exitCode == 0);
  const json revisions = json::parse(list.out).at("revisions");
  REQUIRE_FALSE(revisions.empty());
  CHECK(revisions.back().at("extra").at("iteration") == 8);
  const Run get = runCli("checkpoint get " + quoted(root.string()) + " atlas " +
                         std::to_string(revisions.back().at("revision").get<int>()) + " " + quoted((dir / "got.pt").string()));
  REQUIRE(get.exitCode == 0);
  CHECK_FALSE(io::isSealedFile((dir / "got.pt").string()));
  CHECK(io::sha256OfFile((dir / "got.pt").string()).value() == io::contentSha256((checkpoints / "it0000008.pt").string()).value());
  CHECK(entriesOf(dir / "got.pt").size() > 10);  // a torch.save state_dict
  // The sidecar gives the weights' size as their content's, not the sealed file's.
  auto sidecarText = io::openContentStream((checkpoints / "it0000008.json").string(), "sidecar");
  REQUIRE(sidecarText.ok());
  const json sidecar = json::parse(**sidecarText);
  CHECK(sidecar.at("weights").at("bytes").get<std::uint64_t>() == fs::file_size(dir / "got.pt"));
  CHECK(fs::file_size(checkpoints / "it0000008.pt") > fs::file_size(dir / "got.pt"));
  // The sealed file is an engine (with its sealed sidecar beside it), segmenting as the published copy does.
  const auto subject2 = sharedFile(std::string(kMouse) + "/template/FVB_NCrl_in_vivo_2.nii.gz");
  REQUIRE(subject2);
  fs::copy_file(checkpoints / "it0000008.json", dir / "got.json");
  for (const auto& [engine, out] : {std::pair{checkpoints / "it0000008.pt", dir / "a.nii.gz"}, std::pair{dir / "got.pt", dir / "b.nii.gz"}}) {
    const Run seg = runCli("segment " + quoted(subject2->string()) + " " + quoted(out.string()) + " --engine " +
                           quoted(engine.string()) + " --device cpu");
    INFO(seg.out);
    REQUIRE(seg.exitCode == 0);
  }
  auto a = io::readLabelFile((dir / "a.nii.gz").string());
  auto b = io::readLabelFile((dir / "b.nii.gz").string());
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  CHECK(std::equal(a->data(), a->data() + a->size(), b->data(), b->data() + b->size()));
  // A batch with the share's model as its engine is keyed by the weights' content: run again through another cache
  // (another sealed copy of the weights, under another nonce) it finds its revision and saves nothing new.
  fs::create_directories(dir / "in");
  fs::copy_file(*subject2, dir / "in" / subject2->filename());
  const std::string model = quoted("share:" + root.string() + "#atlas@" + std::to_string(revisions.back().at("revision").get<int>()));
  for (const char* cache : {"batch-cache-a", "batch-cache-b"}) {
    const bool importing = std::string(cache) == "batch-cache-a";
    const std::string command = "XDG_CACHE_HOME=" + quoted((dir / cache).string()) + " " + quoted(DELINEATE_CLI_PATH) +
                                " batch " + quoted(root.string()) + " --label-set atlas-auto --engine " + model +
                                " --device cpu --json " +
                                (importing ? "--folder " + quoted((dir / "in").string()) : std::string("--all")) + " 2>&1";
    const Run batch = runShell(command);
    INFO(command << "\n" << batch.out);
    REQUIRE(batch.exitCode == 0);
    int studies = 0;
    for (const auto& line : jsonLines(batch.out))
      if (line.value("event", "") == "study") {
        CHECK(line.value("status", "") == (importing ? "segmented" : "done"));
        ++studies;
      }
    CHECK(studies == 1);
  }
  // `checkpoint put` of the sealed file with its sealed sidecar stores the content too.
  const Run put = runCli("checkpoint put " + quoted(root.string()) + " by-hand " + quoted((checkpoints / "it0000008.pt").string()) +
                         " --sidecar " + quoted((checkpoints / "it0000008.json").string()));
  INFO(put.out);
  REQUIRE(put.exitCode == 0);
  const Run getPut = runCli("checkpoint get " + quoted(root.string()) + " by-hand 1 " + quoted((dir / "put.pt").string()));
  REQUIRE(getPut.exitCode == 0);
  CHECK(readTextFile(dir / "put.pt") == readTextFile(dir / "got.pt"));
}

TEST_CASE("delineate-train: a run holds its model's lease on the share: a second run on that model is refused, "
          "naming the first", "[cli][train][data]") {
  ScratchDir dir("train-lease");
  const auto cases = mouseCases(dir, {1, 2}, 1);
  if (!cases || labelTable().empty()) return;
  const fs::path root = initCliShare(dir);
  auto config = smallConfig(*cases, dir / "run", 60);
  config["share"] = root.string();
  config["modelName"] = "atlas";
  auto second = config;
  second["output"] = (dir / "run2").string();
  const fs::path secondConfig = writeConfig(dir, "second.json", second);
  bool refusedWhileRunning = false, listedAsTraining = false;
  std::string refusal, all;
  const int status = runWatching({DELINEATE_TRAIN_PATH, "--config", writeConfig(dir, "first.json", config).string(), "--json"}, {},
                                 [&](const std::string& line) {
                                   const json j = json::parse(line, nullptr, false);
                                   if (!j.is_object() || j.value("event", "") != "start" || refusedWhileRunning) return true;
                                   const Run r = runProgram(DELINEATE_TRAIN_PATH, "--config " + quoted(secondConfig.string()));
                                   refusal = r.out;
                                   refusedWhileRunning = r.exitCode == 1;
                                   auto store = io::ShareStore::open(root.string());
                                   REQUIRE(store.ok());
                                   auto models = io::listCheckpointModels(*store);
                                   REQUIRE(models.ok());
                                   listedAsTraining = models->size() == 1 && models->front().model == "atlas" &&
                                                      !models->front().trainingBy.empty();
                                   const Run list = runCli("checkpoint list " + quoted(root.string()) + " atlas");
                                   listedAsTraining = listedAsTraining && list.out.find("being trained by ") == 0;
                                   return true;
                                 },
                                 &all);
  INFO(all);
  INFO(refusal);
  REQUIRE(WIFEXITED(status));
  REQUIRE(WEXITSTATUS(status) == 0);
  CHECK(refusedWhileRunning);
  CHECK(refusal.find("model 'atlas' is being trained by ") != std::string::npos);
  CHECK(listedAsTraining);
  CHECK_FALSE(fs::exists(dir / "run2" / "checkpoints" / "it0000060.pt"));
  // Ended, the run gave its lease up: the model is listed without it, and another run may train it.
  auto store = io::ShareStore::open(root.string());
  REQUIRE(store.ok());
  auto models = io::listCheckpointModels(*store);
  REQUIRE(models.ok());
  REQUIRE(models->size() == 1);
  CHECK(models->front().trainingBy.empty());
  CHECK(models->front().revision >= 1);
  CHECK(runCli("checkpoint list " + quoted(root.string()) + " atlas").out.find("being trained by") == std::string::npos);
  second["iterations"] = 4;
  const Run again = runProgram(DELINEATE_TRAIN_PATH, "--config " + quoted(writeConfig(dir, "again.json", second).string()));
  INFO(again.out);
  CHECK(again.exitCode == 0);
  // A model of the share as the starting weights (fetched verified into the cache), and one that is not there, named.
  auto fromShare = smallConfig(*cases, dir / "run3", 2);
  fromShare["checkpoint"] = "share:" + root.string() + "#atlas";
  const std::string env = "XDG_CACHE_HOME=" + quoted((dir / "cache").string()) + " ";
  const Run started = runShell(env + quoted(DELINEATE_TRAIN_PATH) + " --config " + quoted(writeConfig(dir, "from-share.json", fromShare).string()) + " 2>&1");
  INFO(started.out);
  CHECK(started.exitCode == 0);
  CHECK(fs::exists(dir / "run3" / "checkpoints" / "it0000002.pt"));
  fromShare["checkpoint"] = "share:" + root.string() + "#nosuch";
  fromShare["output"] = (dir / "run4").string();
  const Run missing = runShell(env + quoted(DELINEATE_TRAIN_PATH) + " --config " + quoted(writeConfig(dir, "missing.json", fromShare).string()) + " 2>&1");
  CHECK(missing.exitCode == 1);
  CHECK(missing.out.find("nosuch") != std::string::npos);
}

TEST_CASE("delineate-train --rank: the share's studies without approved labels, most uncertain first, scores that do "
          "not depend on the others or the thread count", "[cli][train][data]") {
  ScratchDir dir("train-rank");
  const auto cases = mouseCases(dir, {1, 2}, 1);
  if (!cases || labelTable().empty()) return;
  const fs::path base = fs::path(labelTable()).parent_path();
  const fs::path root = initCliShare(dir);
  for (int i = 1; i <= 4; ++i) {
    const std::string n = std::to_string(i);
    const Run r = runCli("study import " + quoted(root.string()) + " " +
                         quoted((base / "template" / ("FVB_NCrl_in_vivo_" + n + ".nii.gz")).string()) + " --study mouse" + n);
    INFO(r.out);
    REQUIRE(r.exitCode == 0);
  }
  // mouse1 approved (labelled), mouse3 with a draft only (still to label), mouse2 and mouse4 without labels.
  const std::string labels1 = (base / "label" / "FVB_NCrl_in_vivo_1.nii.gz").string(),
                    labels3 = (base / "label" / "FVB_NCrl_in_vivo_3.nii.gz").string();
  for (const std::string& args : {"share save " + quoted(root.string()) + " mouse1 atlas " + quoted(labels1) + " --author ann",
                                  "review submit " + quoted(root.string()) + " mouse1 atlas 1 --user ann",
                                  "review approve " + quoted(root.string()) + " mouse1 atlas 1 --user bob",
                                  "share save " + quoted(root.string()) + " mouse3 atlas " + quoted(labels3) + " --author ann"}) {
    const Run r = runCli(args);
    INFO(args << "\n" << r.out);
    REQUIRE(r.exitCode == 0);
  }
  const Run trained = runProgram(DELINEATE_TRAIN_PATH, "--config " + quoted(writeConfig(dir, "c.json", smallConfig(*cases, dir / "run", 8)).string()));
  INFO(trained.out);
  REQUIRE(trained.exitCode == 0);
  const std::string checkpoint = (dir / "run" / "checkpoints" / "it0000008.pt").string();
  REQUIRE(fs::exists(checkpoint));

  // A human CT on the same share, its label set unlabelled too: the mouse model does not rank it (issue 41: both
  // label sets were "labels", and the CT was ranked by the mouse model).
  {
    const Run r = runCli("study import " + quoted(root.string()) + " " +
                         quoted(std::string(DELINEATE_SOURCE_DIR) + "/resources/sample/example_ct.nii.gz") +
                         " --study human --modality CT");
    INFO(r.out);
    REQUIRE(r.exitCode == 0);
  }
  const std::string common = "--share " + quoted(root.string()) + " --label-set atlas --json --device cpu";
  const Run all = runProgram(DELINEATE_TRAIN_PATH, "--rank " + quoted(checkpoint) + " " + common + " --threads 2");
  INFO(all.out);
  REQUIRE(all.exitCode == 0);
  const auto events = jsonLines(all.out);
  REQUIRE(events.front().at("event") == "start");
  CHECK(events.front().at("candidates") == 3);
  bool humanSkipped = false;
  for (const auto& e : events)
    if (e.at("event") == "skipped" && e.at("study") == "human") {
      const std::string reason = e.at("reason").get<std::string>();
      INFO(reason);
      humanSkipped = true;
      CHECK(reason.find("does not fit the model") != std::string::npos);
      CHECK(reason.find("model trained on 2 images") != std::string::npos);
      CHECK(reason.find("this CT is") != std::string::npos);
      CHECK(reason.find("field of view") != std::string::npos);
    }
  CHECK(humanSkipped);
  for (const auto& c : events.back().at("cases")) CHECK(c.at("study") != "human");
  REQUIRE(events.back().at("event") == "ranking");
  const json ranking = events.back().at("cases");
  REQUIRE(ranking.size() == 3);
  std::map<std::string, double> score;
  double previous = 2;
  for (const auto& c : ranking) {
    const std::string study = c.at("study").get<std::string>();
    score[study] = c.at("score").get<double>();
    CHECK(score[study] > 0);
    CHECK(score[study] <= 1);
    CHECK(score[study] <= previous);  // most uncertain first
    previous = score[study];
    CHECK(c.at("labels") == (study == "mouse3" ? "r1 not approved" : "none"));
    CHECK(c.at("foregroundFraction").get<double>() > 0);
  }
  CHECK(score.count("mouse2") == 1);
  CHECK(score.count("mouse3") == 1);
  CHECK(score.count("mouse4") == 1);
  CHECK(score.count("mouse1") == 0);  // approved: labelled
  // One study alone, on one thread: the score it had among the others (no dependence on order or threads).
  const Run alone = runProgram(DELINEATE_TRAIN_PATH, "--rank " + quoted(checkpoint) + " " + common + " --threads 1 --studies mouse4");
  INFO(alone.out);
  REQUIRE(alone.exitCode == 0);
  const json single = jsonLines(alone.out).back().at("cases");
  REQUIRE(single.size() == 1);
  CHECK(single.at(0).at("score").get<double>() == Approx(score["mouse4"]).epsilon(1e-4));
  // Named refusals: a labelled study asked for, a VISTA-3D (no sidecar) checkpoint, a missing file, no share.
  const Run labelled = runProgram(DELINEATE_TRAIN_PATH, "--rank " + quoted(checkpoint) + " " + common + " --studies mouse1");
  CHECK(labelled.exitCode == 1);
  CHECK(labelled.out.find("has an approved revision of label set 'atlas'") != std::string::npos);
  const Run human = runProgram(DELINEATE_TRAIN_PATH, "--rank " + quoted(checkpoint) + " " + common + " --studies human");
  CHECK(human.exitCode == 1);
  CHECK(human.out.find("does not fit the model") != std::string::npos);
  // A checkpoint from before the profile was recorded: ranked all the same, with a warning that the fit is unknown.
  {
    const fs::path oldDir = dir / "old";
    fs::create_directories(oldDir);
    fs::copy_file(checkpoint, oldDir / "it0000008.pt");
    json oldSidecar = json::parse(readTextFile(fs::path(checkpoint).replace_extension(".json")));
    oldSidecar.erase("trainingDataProfile");
    std::ofstream(oldDir / "it0000008.json") << oldSidecar.dump();
    const Run unknown = runProgram(DELINEATE_TRAIN_PATH, "--rank " + quoted((oldDir / "it0000008.pt").string()) + " " + common +
                                                             " --studies mouse4");
    INFO(unknown.out);
    REQUIRE(unknown.exitCode == 0);
    bool warned = false;
    for (const auto& e : jsonLines(unknown.out))
      warned |= e.at("event") == "warning" && e.at("reason").get<std::string>().find("unknown") != std::string::npos;
    CHECK(warned);
    CHECK(jsonLines(unknown.out).back().at("cases").size() == 1);
  }
  fs::copy_file(checkpoint, dir / "plain.pt");
  const Run plain = runProgram(DELINEATE_TRAIN_PATH, "--rank " + quoted((dir / "plain.pt").string()) + " " + common);
  CHECK(plain.exitCode == 1);
  CHECK(plain.out.find("takes an atlas network") != std::string::npos);
  const Run missing = runProgram(DELINEATE_TRAIN_PATH, "--rank " + quoted((dir / "none.pt").string()) + " " + common);
  CHECK(missing.exitCode == 1);
  CHECK(missing.out.find("none.pt") != std::string::npos);
  CHECK(runProgram(DELINEATE_TRAIN_PATH, "--rank " + quoted(checkpoint)).exitCode == 2);
}

// Issue 40: a model name (and a checkpoint to start from) is checked before any case is read: reading cases takes
// minutes on real data, and a run that skips bad cases must not reach the name only at the end (or never, when every
// case was bad).
TEST_CASE("delineate-train: --model-name and --checkpoint are checked before a case is read", "[cli][train]") {
  ScratchDir dir("train-name-first");
  const fs::path store = initCliShare(dir);
  const fs::path missing = dir / "nowhere.nii.gz";
  writeTextFile(dir / "cases.json",
                json{{"cases", json::array({{{"id", "gone"}, {"image", missing.string()}, {"labels", missing.string()},
                                             {"split", "train"}}})}}.dump());
  const std::string common = "--cases " + quoted((dir / "cases.json").string()) + " --iterations 2";

  const SplitRun bad = runProgramSplit(DELINEATE_TRAIN_PATH, common + " --out " + quoted((dir / "a").string()) +
                                                                 " --share " + quoted(store.string()) + " --model-name 'bad/name'");
  INFO(bad.err);
  CHECK(bad.exitCode == 1);
  CHECK(bad.err.find("error: bad/name: invalid argument: not a valid model name") != std::string::npos);
  CHECK(bad.err.find(missing.string()) == std::string::npos);  // no case was read

  const SplitRun noShare =
      runProgramSplit(DELINEATE_TRAIN_PATH, common + " --out " + quoted((dir / "b").string()) + " --model-name atlas");
  INFO(noShare.err);
  CHECK(noShare.exitCode == 1);
  CHECK(noShare.err.find("error: atlas: invalid argument: --model-name publishes to a share") != std::string::npos);
  CHECK(noShare.err.find(missing.string()) == std::string::npos);

  writeTextFile(dir / "not-a-checkpoint.pt", "twelve bytes");
  const SplitRun notCheckpoint =
      runProgramSplit(DELINEATE_TRAIN_PATH, common + " --out " + quoted((dir / "c").string()) + " --checkpoint " +
                                                quoted((dir / "not-a-checkpoint.pt").string()));
  INFO(notCheckpoint.err);
  CHECK(notCheckpoint.exitCode == 1);
  CHECK(notCheckpoint.err.find("error: " + (dir / "not-a-checkpoint.pt").string()) != std::string::npos);
  CHECK(notCheckpoint.err.find(missing.string()) == std::string::npos);
}

// Issue 41: the CPU's default patch is 64^3 (0.59 it/s on the mouse atlas, 96x96x80 ran 0.07-0.18 it/s), whatever the
// cases' size; a patch given is kept.
TEST_CASE("delineate-train: on the CPU the patch defaults to 64^3", "[cli][train][data]") {
  ScratchDir dir("train-cpu-patch");
  const auto cases = mouseCases(dir, {1, 2}, 1);
  if (!cases || labelTable().empty()) return;
  json config = smallConfig(*cases, dir / "run", 1);
  config.erase("patch");
  config["validationInterval"] = 0;
  const auto path = writeConfig(dir, "config.json", config);
  const Run r = runProgram(DELINEATE_TRAIN_PATH, "--config " + quoted(path.string()) + " --device cpu --json");
  INFO(r.out);
  REQUIRE(r.exitCode == 0);
  const auto events = jsonLines(r.out);
  REQUIRE_FALSE(events.empty());
  REQUIRE(events.front().at("event") == "start");
  CHECK(events.front().at("device") == "cpu");
  CHECK(events.front().at("patch") == json::array({64, 64, 64}));
}

TEST_CASE("delineate-train --time-budget: a probe fits the iterations, the cosine ends at the fitted end, and the "
          "budget is refused when it is not a duration",
          "[cli][train][budget]") {
  ScratchDir dir("train-budget");
  const auto cases = mouseCases(dir, {1, 2}, 1);
  if (!cases || labelTable().empty()) return;
  auto config = smallConfig(*cases, dir / "run", 100000);  // far more than fits: the budget decides
  config["validationInterval"] = 10;
  config["budgetProbeIterations"] = 5;
  const fs::path file = writeConfig(dir, "budget.json", config);
  const SplitRun r = runProgramSplit(DELINEATE_TRAIN_PATH, "--config " + quoted(file.string()) + " --time-budget 25s --json");
  INFO(r.out << r.err);
  REQUIRE(r.exitCode == 0);
  const auto lines = jsonLines(r.out);
  json fit, done;
  double lastRate = -1;
  int fits = 0;
  for (const auto& l : lines) {
    if (l["event"] == "progress") {
      lastRate = l["learningRate"];
      if (l.contains("budget")) {
        fit = l["budget"];
        ++fits;
      }
    }
    if (l["event"] == "done") done = l;
  }
  REQUIRE(fits == 1);  // announced once, at the end of the probe
  CHECK(fit["probeIterations"] == 5);
  CHECK(fit["secondsPerStep"].get<double>() > 0);
  CHECK(fit["validationSeconds"].get<double>() > 0);  // a validation was timed after the probe
  CHECK(fit["iterations"].get<int>() < 100000);
  REQUIRE(done.contains("budget"));
  // The run ended at its (last) fitted end, or at the budget with its weights validated and saved: either way the
  // iterations done are the ones the summary names, and the cosine went (nearly) to zero when it ran to its end.
  const int iterations = done["iterations"];
  if (!done["budget"]["budgetReached"].get<bool>()) {
    CHECK(iterations == done["budget"]["iterations"].get<int>());
    CHECK(lastRate < 0.05 * 1e-3);
  }
  CHECK(fs::exists(dir / "run" / "checkpoints"));
  CHECK(done["lastValidation"]["iteration"] == iterations);  // the final weights carry their own Dice
  // The sidecar says what was asked.
  json sidecar;
  for (const auto& e : fs::directory_iterator(dir / "run" / "checkpoints"))
    if (e.path().extension() == ".json") sidecar = json::parse(readTextFile(e.path()));
  CHECK(sidecar["training"]["timeBudgetSeconds"] == 25.0);

  for (const std::string bad : {"25x", "1h30", "-5m", "soon"}) {
    const SplitRun b = runProgramSplit(DELINEATE_TRAIN_PATH, "--config " + quoted(file.string()) + " --time-budget " + bad);
    INFO(bad << ": " << b.err);
    CHECK(b.exitCode != 0);
    CHECK(b.err.find("timeBudget") != std::string::npos);
  }
}
