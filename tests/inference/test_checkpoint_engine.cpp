// A trained checkpoint as an engine (inference/checkpoint_engine.h), below the CLI tests that train one: a fine-tuned
// VISTA-3D's sidecar (the reference's tiny model standing in for the fine-tuned weights) makes the engine speak the
// user's ids, segment its classes as they were trained (2, 20 and 21 are no groups there), refuse ids it does not
// have and never fall back to the classic engine; sidecars that are not delineate-train's are named.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>

#include "inference/checkpoint_engine.h"
#include "inference/engine.h"
#include "inference/vista3d/network.h"
#include "io/volume/image_file.h"
#include "tests/common/test_support.h"

using namespace delineate;
namespace fs = std::filesystem;

namespace {

void writeFile(const fs::path& p, const std::string& text) { std::ofstream(p) << text; }

const char* kFineTuned = R"({"architecture": {"name": "VISTA3D"}, "training": {"patch": [64, 64, 64]},
  "labels": [{"id": 7, "vista3d": 2, "name": "own kidneys"}, {"id": 9, "vista3d": 3, "name": "own spleen"}]})";

}  // namespace

TEST_CASE("a fine-tuned VISTA-3D engine takes and writes the user's ids, without the bundle's class groups",
          "[vista3d][engine][train][data]") {
  auto pt = test::sharedFile("reference/vista3d/tiny_state_dict.pt");
  auto ct = test::sharedFile("reference/vista3d/pipeline/input_ct.nii.gz");
  if (!pt || !ct || !inference::vista3d::torchAvailable()) return;
  test::ScratchDir dir("checkpoint-engine");
  fs::copy_file(*pt, dir / "ft.pt");
  writeFile(dir / "ft.json", kFineTuned);
  auto image = io::readImageFile(ct->string());
  REQUIRE(image.ok());

  inference::EngineSelection selection;
  selection.checkpoint = (dir / "ft.pt").string();
  selection.vista.roi = 64;
  if (!inference::vista3d::cudaAvailable()) {  // never the classic engine, which would read 7 and 9 as its classes
    auto refused = inference::selectEngine(selection);
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().subject == selection.checkpoint);
    CHECK(refused.error().detail.find("--device cpu") != std::string::npos);
  }
  selection.vista.device = "cpu";
  auto chosen = inference::selectEngine(selection);
  REQUIRE(chosen.ok());
  CHECK(chosen->why.find("fine-tuned: 2 classes") != std::string::npos);
  const inference::EngineInfo info = chosen->engine->info();
  CHECK(info.id == "vista3d");
  REQUIRE(info.classes.size() == 2);
  REQUIRE(info.classes.find(7) != nullptr);
  CHECK(info.classes.find(7)->name == "own kidneys");

  // The same weights as a plain VISTA-3D engine: class 2 unexpanded is what the fine-tuned engine runs for id 7.
  inference::Vista3dEngineOptions plainOptions;
  plainOptions.roi = 64;
  plainOptions.device = "cpu";
  auto plain = inference::createVista3dEngine(selection.checkpoint, plainOptions);
  REQUIRE(plain.ok());
  inference::SegmentationRequest asTrained;
  asTrained.classes = {2};
  asTrained.expandClassGroups = false;
  auto expected = (*plain)->segment(*image, asTrained, nullptr);
  REQUIRE(expected.ok());
  inference::SegmentationRequest byUserId;
  byUserId.classes = {7};
  auto got = chosen->engine->segment(*image, byUserId, nullptr);
  REQUIRE(got.ok());
  REQUIRE(got->voxels.size() == expected->voxels.size());
  std::size_t inside = 0;
  for (std::size_t i = 0; i < got->voxels.size(); ++i) {
    CHECK((expected->voxels[i] == 2 ? 7 : expected->voxels[i]) == got->voxels[i]);
    inside += got->voxels[i] == 7;
  }
  CHECK(inside > 1000);  // the tiny model does find its class 2 here (48,158 voxels): the comparison means something
  // The bundle's way reads 2 as the two kidneys (14 and 5): none of them may come out of the fine-tuned engine.
  inference::SegmentationRequest grouped;
  grouped.classes = {2};
  auto bundle = (*plain)->segment(*image, grouped, nullptr);
  REQUIRE(bundle.ok());
  std::set<core::Label> bundleIds(bundle->voxels.begin(), bundle->voxels.end());
  for (const core::Label id : bundleIds) CHECK((id == 0 || id == 14 || id == 5));

  // Without --class: its own classes, by the user's ids; an id it does not have is named.
  auto all = chosen->engine->segment(*image, inference::SegmentationRequest{}, nullptr);
  REQUIRE(all.ok());
  for (const core::Label v : std::set<core::Label>(all->voxels.begin(), all->voxels.end())) CHECK((v == 0 || v == 7 || v == 9));
  inference::SegmentationRequest unknown;
  unknown.classes = {8};
  auto refused = chosen->engine->segment(*image, unknown, nullptr);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().detail == "label 8 is not a class of this model");
}

TEST_CASE("checkpoint sidecars: none or one without an architecture is a plain VISTA-3D checkpoint, others are named",
          "[engine][train]") {
  test::ScratchDir dir("checkpoint-sidecars");
  writeFile(dir / "plain.pt", "x");
  auto none = inference::readCheckpointModel((dir / "plain.pt").string());
  REQUIRE(none.ok());
  CHECK_FALSE(none->has_value());
  writeFile(dir / "noted.pt", "x");
  writeFile(dir / "noted.json", R"({"message": "stored by hand"})");
  auto noted = inference::readCheckpointModel((dir / "noted.pt").string());
  REQUIRE(noted.ok());
  CHECK_FALSE(noted->has_value());
  writeFile(dir / "broken.pt", "x");
  writeFile(dir / "broken.json", "{\"architecture\": ");
  auto broken = inference::readCheckpointModel((dir / "broken.pt").string());
  REQUIRE_FALSE(broken.ok());
  CHECK(broken.error().subject == (dir / "broken.json").string());
  auto other = inference::parseCheckpointModel(R"({"architecture": {"name": "UNet"}, "labels": []})", "unet.json");
  REQUIRE_FALSE(other.ok());
  CHECK(other.error().code == core::ErrorCode::Unsupported);
  CHECK(other.error().detail.find("UNet") != std::string::npos);
  auto outOfRange = inference::parseCheckpointModel(
      R"({"architecture": {"name": "SegResNetDS", "monai": {"init_filters": 8, "in_channels": 1, "out_channels": 3,
          "blocks_down": [1, 2, 2, 4]}}, "preprocessing": {"spacingMm": [1, 1, 1], "intensity": "zscore-nonzero"},
          "training": {"patch": [32, 32, 32]}, "labels": [{"id": 4, "class": 3, "name": "x"}]})",
      "atlas.json");
  REQUIRE_FALSE(outOfRange.ok());
  CHECK(outOfRange.error().detail == "label 4 maps to no output of the network");
  auto atlas = inference::parseCheckpointModel(
      R"({"architecture": {"name": "SegResNetDS", "monai": {"init_filters": 8, "in_channels": 1, "out_channels": 3,
          "blocks_down": [1, 2, 2, 4]}}, "preprocessing": {"spacingMm": [0.5, 0.5, 1], "intensity": "range",
          "intensityRange": [-1000, 1000]}, "training": {"patch": [32, 32, 16], "validationWindow": [64, 64, 0],
          "validationOverlap": 0.5}, "labels": [{"id": 40, "class": 1, "name": "a"}, {"id": 41, "class": 2}]})",
      "atlas.json");
  REQUIRE(atlas.ok());
  CHECK(atlas->kind == inference::CheckpointModel::Kind::SegResNetDS);
  CHECK(atlas->window == std::array<std::int64_t, 3>{64, 64, 16});  // validation's, the patch where it gave 0
  CHECK(atlas->overlap == 0.5);
  CHECK(atlas->prepare.intensity == inference::training::IntensityMode::Range);
  CHECK(atlas->prepare.intensityMin == -1000);
  CHECK(atlas->labelTable().find(41)->name == "class 41");
}
