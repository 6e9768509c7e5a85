#include <catch2/catch.hpp>

#include "core/edit_transaction.h"
#include "core/progress.h"
#include "core/statistics.h"
#include "inference/classic/threshold_engine.h"
#include "inference/engine.h"
#include "io/volume/nifti.h"
#include "tests/common/test_support.h"

using namespace delineate;
using namespace delineate::core;

namespace {
ImageVolume ramp() {
  // HU ramp along i: -1000 .. +1300 in steps of 100 (24 columns).
  auto img = ImageVolume::create(Geometry({24, 3, 2}, {1, 1, 1}, {0, 0, 0})).value();
  for (std::int64_t k = 0; k < 2; ++k)
    for (std::int64_t j = 0; j < 3; ++j)
      for (std::int64_t i = 0; i < 24; ++i) img.at({i, j, k}) = float(-1000 + 100 * i);
  return img;
}
}  // namespace

TEST_CASE("the CT preset classifies Hounsfield windows", "[classic]") {
  auto engine = inference::createEngine("classic.threshold");
  REQUIRE(engine);
  const inference::EngineInfo info = engine->info();  // kept alive: the loop borrows its entries
  std::vector<Label> ids;
  for (const LabelEntry& e : info.classes.entries()) ids.push_back(e.id);
  REQUIRE(ids == std::vector<Label>{1, 2, 3});
  const ImageVolume img = ramp();
  auto patch = engine->segment(img, {}, nullptr).value();
  REQUIRE(patch.valid());
  REQUIRE(patch.box == img.geometry().fullBox());
  // -1000..-200 background, -100 adipose, 0..100 soft tissue, 200 gap, 300.. bone.
  const Label expected[24] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 2, 0, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3};
  for (std::int64_t i = 0; i < 24; ++i) REQUIRE(patch.voxels[static_cast<std::size_t>(i)] == expected[i]);
}

TEST_CASE("adjacent windows leave no gap for fractional intensities", "[classic]") {
  auto img = ImageVolume::create(Geometry({6, 1, 1}, {1, 1, 1}, {0, 0, 0})).value();
  img.buffer() = {-190.0f, -29.5f, -29.0f, 150.9f, 151.0f, 3000.5f};
  auto patch = inference::classic::ThresholdEngine::ctTissuePreset().segment(img, {}, nullptr).value();
  REQUIRE(patch.voxels == std::vector<Label>{1, 1, 2, 2, 0, 3});
}

TEST_CASE("class selection, regions, prompts and cancellation", "[classic]") {
  inference::classic::ThresholdEngine engine = inference::classic::ThresholdEngine::ctTissuePreset();
  const ImageVolume img = ramp();
  inference::SegmentationRequest onlyBone;
  onlyBone.classes = {3};
  onlyBone.region = IndexBox{{8, 0, 0}, {15, 0, 0}};
  auto patch = engine.segment(img, onlyBone, nullptr).value();
  REQUIRE(patch.box == onlyBone.region);
  REQUIRE(patch.voxels == std::vector<Label>{0, 0, 0, 0, 0, 3, 3, 3});

  inference::SegmentationRequest clicks;
  clicks.points.push_back({{1, 1, 1}, true});
  REQUIRE(engine.segment(img, clicks, nullptr).error().code == ErrorCode::Unsupported);

  CancelFlag cancel;
  cancel.cancel();
  REQUIRE(engine.segment(img, {}, &cancel).error().code == ErrorCode::Cancelled);
  REQUIRE(engine.info().classes.find(3)->name == "bone");
  REQUIRE_FALSE(inference::createEngine("no.such.engine"));
}

TEST_CASE("the threshold engine on the sample CT gives plausible tissue volumes", "[classic]") {
  auto path = test::sharedFile("data/ct/totalseg-example/example_ct.nii.gz");
  if (!path) return;
  auto image = io::readNiftiImage(path->string());
  REQUIRE(image.ok());
  auto engine = inference::createEngine("classic.threshold");
  auto patch = engine->segment(*image, {}, nullptr).value();
  auto labels = LabelMap::create(image->geometry()).value();
  EditTransaction tx(labels, "segment");
  REQUIRE(tx.applyPatch(patch, false).ok());
  REQUIRE(tx.commit());
  auto stats = computeLabelStatistics(labels, &*image).value();
  REQUIRE(stats.size() == 3);
  // An abdominal CT: litres of soft tissue, a sizeable fat volume, bone well under soft tissue, and each class's
  // mean inside its window.
  REQUIRE(stats[1].volumeMl > 2000);
  REQUIRE(stats[0].volumeMl > 500);
  REQUIRE(stats[2].volumeMl > 100);
  REQUIRE(stats[2].volumeMl < stats[1].volumeMl);
  REQUIRE(stats[0].mean > -190);
  REQUIRE(stats[0].mean < -30);
  REQUIRE(stats[1].mean > -29);
  REQUIRE(stats[1].mean < 150);
  REQUIRE(stats[2].min >= 250);
}
