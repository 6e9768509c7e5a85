// Checkpoints written by training: read back bit for bit by our reader, and by Python: torch.load(weights_only=True)
// into MONAI's own SegResNetDS (strict keys), whose output equals ours.
#include <catch2/catch.hpp>

#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "inference/training/checkpoint_file.h"
#include "inference/training/trainable.h"
#include "tests/common/test_support.h"
#include "tests/inference/npy.h"

using namespace delineate;
using namespace delineate::inference::training;

namespace {

int shell(const std::string& command) { return std::system(command.c_str()); }

bool pythonTorchAvailable() {
  return shell("/usr/bin/python3 -c 'import torch, numpy' >/dev/null 2>&1") == 0;
}

}  // namespace

TEST_CASE("training checkpoint: torch.save format read back exactly, and by MONAI's SegResNetDS in Python",
          "[training][checkpoint][data]") {
  if (!trainingAvailable()) {
    if (test::runningInCi()) FAIL("this build has no LibTorch; scripts/setup.sh installs libtorch-dev");
    WARN("no LibTorch in this build: skipped");
    return;
  }
  const auto inputPath = test::sharedFile("reference/training/segresnetds_input.npy");
  const auto labelPath = test::sharedFile("reference/training/segresnetds_label.npy");
  const auto monaiTar = test::sharedFile("reference/monai/monai-d388d1c.tar.gz");
  if (!inputPath || !labelPath || !monaiTar) return;
  std::vector<std::int64_t> shape;
  const auto image = test::readNpy(*inputPath, shape);
  const auto labelValues = test::readNpy(*labelPath, shape);
  std::vector<std::uint16_t> labels(labelValues.begin(), labelValues.end());
  const std::int64_t size[3] = {48, 64, 40};

  SegResNetDSConfig config;
  config.initFilters = 8;
  config.outChannels = 4;
  config.dsdepth = 3;
  auto model = TrainableModel::segResNetDS(config, nullptr, 5);
  REQUIRE(model.ok());
  (*model)->setOptimizer(OptimizerSettings{});
  REQUIRE((*model)->stepSegResNetDS(image, 1, size, labels).ok());  // weights that differ from any initialisation
  const auto state = (*model)->stateDict();
  REQUIRE(state.size() == 85);

  test::ScratchDir dir("checkpoint");
  const std::string path = (dir / "model.pt").string();
  REQUIRE(writeTorchStateDict(path, state).ok());
  auto back = readStateDict(path);
  REQUIRE(back.ok());
  REQUIRE(back->size() == state.size());
  for (std::size_t k = 0; k < state.size(); ++k) {
    INFO(state[k].name);
    CHECK((*back)[k].name == state[k].name);
    CHECK((*back)[k].shape == state[k].shape);
    CHECK((*back)[k].values == state[k].values);
  }
  // A damaged byte in a storage (the middle of the file is the largest weights) is caught by its CRC.
  {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekg(0, std::ios::end);
    const auto middle = static_cast<std::streamoff>(f.tellg()) / 2;
    f.seekg(middle);
    const char c = static_cast<char>(f.get());
    f.seekp(middle);
    f.put(static_cast<char>(c ^ 0x55));
  }
  auto damaged = readStateDict(path);
  REQUIRE_FALSE(damaged.ok());
  CHECK(damaged.error().detail.find("CRC-32") != std::string::npos);
  REQUIRE(writeTorchStateDict(path, state).ok());

  auto ours = (*model)->evalLogits(image, size);
  REQUIRE(ours.ok());
  if (!pythonTorchAvailable()) {
    if (test::runningInCi()) FAIL("python3-torch is missing; scripts/setup.sh installs it");
    WARN("no Python torch (python3-torch): the MONAI half skipped");
    return;
  }
  REQUIRE(shell("tar xzf '" + monaiTar->string() + "' -C '" + dir.path().string() + "' monai") == 0);
  const std::string script = std::string(DELINEATE_SOURCE_DIR) + "/tests/inference/python/segresnetds_from_checkpoint.py";
  const auto out = dir / "python_out.npy";
  REQUIRE(shell("/usr/bin/python3 '" + script + "' '" + dir.path().string() + "' '" + path + "' '" + inputPath->string() +
                "' '" + out.string() + "' 8 4 3") == 0);
  const auto theirs = test::readNpy(out, shape);
  REQUIRE(theirs.size() == ours->size());
  double worst = 0;
  for (std::size_t i = 0; i < theirs.size(); ++i) worst = std::max(worst, std::fabs(static_cast<double>(theirs[i]) - (*ours)[i]));
  INFO("largest difference " << worst);
  CHECK(worst <= 1e-4);
}
