// Engines, statistics and tools read the image in its stored type (issue 27): on a real CT series loaded as int16
// and as float32, every result is the same, and only a whole-volume float consumer makes a float copy.
#include <catch2/catch.hpp>

#include <algorithm>
#include <limits>
#include <optional>
#include <set>

#include "core/annotation_session.h"
#include "core/edit_transaction.h"
#include "core/label_tools.h"
#include "core/scalar_image.h"
#include "core/statistics.h"
#include "inference/classic/auto_segmenter.h"
#include "inference/classic/classic_engine.h"
#include "inference/classic/click_session.h"
#include "inference/classic/threshold_engine.h"
#include "inference/training/prepared_case.h"
#include "inference/vista3d/preprocess.h"
#include "io/dicom/dicom.h"
#include "tests/common/test_support.h"

using namespace delineate;

namespace {

struct Loaded {
  core::ScalarImage typed;
  core::ImageVolume floats;
};

std::optional<Loaded> loadCt() {
  auto dir = test::sharedFile("data/ct/tcia-crlm-ct-series/CRLM-CT-1004");
  if (!dir) return std::nullopt;
  auto index = io::indexDicomFolder(dir->string());
  REQUIRE(index.ok());
  REQUIRE(index->allSeries().size() == 1);
  auto typed = io::loadDicomSeriesTyped(*index->allSeries().front());
  auto floats = io::loadDicomSeries(*index->allSeries().front());
  REQUIRE(typed.ok());
  REQUIRE(floats.ok());
  REQUIRE(typed->image.type() == core::ScalarType::Int16);
  return Loaded{std::move(typed->image), std::move(floats->image)};
}

}  // namespace

TEST_CASE("typed images: a float view is the image itself, a typed one converts once for whole-volume use", "[typed]") {
  auto ct = loadCt();
  if (!ct) return;
  std::optional<core::ImageVolume> storage;
  auto same = core::floatVolume(ct->floats, storage);
  REQUIRE(same.ok());
  CHECK(*same == &ct->floats);
  CHECK(!storage);
  auto converted = core::floatVolume(ct->typed, storage);
  REQUIRE(converted.ok());
  REQUIRE(storage);
  CHECK(storage->buffer() == ct->floats.buffer());
  const core::ImageView view(ct->typed);
  CHECK(view.type() == core::ScalarType::Int16);
  CHECK(view.byteSize() * 2 == ct->floats.byteSize());
  CHECK(view.at({100, 200, 20}) == double(ct->floats.at({100, 200, 20})));
  CHECK_FALSE(core::ImageView(static_cast<const core::ScalarImage*>(nullptr)));
  CHECK_FALSE(core::floatVolume(core::ImageView{}, storage).ok());
}

TEST_CASE("typed images: threshold classes, statistics, brush ranges, click objects and the VISTA-3D input are the "
          "same from int16 as from float32",
          "[typed]") {
  auto ct = loadCt();
  if (!ct) return;
  auto engine = inference::classic::ThresholdEngine::ctTissuePreset();
  auto fromTyped = engine.segment(ct->typed, {}, nullptr);
  auto fromFloat = engine.segment(ct->floats, {}, nullptr);
  REQUIRE(fromTyped.ok());
  REQUIRE(fromFloat.ok());
  CHECK(fromTyped->box == fromFloat->box);
  REQUIRE(fromTyped->voxels == fromFloat->voxels);

  // Statistics of those classes over either image: every figure bit for bit.
  auto map = core::LabelMap::create(ct->floats.geometry()).value();
  {
    core::EditTransaction tx(map, "classes");
    REQUIRE(tx.applyPatch(*fromTyped, false).ok());
    REQUIRE(tx.commit());
  }
  auto statsTyped = core::computeLabelStatistics(map, ct->typed);
  auto statsFloat = core::computeLabelStatistics(map, ct->floats);
  REQUIRE(statsTyped.ok());
  REQUIRE(statsFloat.ok());
  REQUIRE(statsTyped->size() == statsFloat->size());
  REQUIRE(statsTyped->size() >= 2);
  for (std::size_t i = 0; i < statsTyped->size(); ++i) {
    const auto& a = (*statsTyped)[i];
    const auto& b = (*statsFloat)[i];
    CHECK(a.label == b.label);
    CHECK(a.voxelCount == b.voxelCount);
    CHECK(a.mean == b.mean);
    CHECK(a.stddev == b.stddev);
    CHECK(a.min == b.min);
    CHECK(a.max == b.max);
    CHECK(a.median == b.median);
  }

  // A brush limited to soft tissue paints the same voxels whatever the image's type.
  const core::Vec3 centre = ct->floats.geometry().indexToLps(core::Index3{256, 256, 20});
  core::BrushOptions brush;
  brush.radiusMm = 30;
  brush.intensity = core::IntensityRange{-100, 200};
  auto paintedWith = [&](core::ImageView image) {
    auto m = core::LabelMap::create(ct->floats.geometry()).value();
    core::EditTransaction tx(m, "brush");
    const std::size_t n = core::paintBrush(tx, centre, 5, brush, image);
    REQUIRE(tx.commit());
    return std::make_pair(n, std::vector<core::Label>(m.data(), m.data() + m.size()));
  };
  const auto brushTyped = paintedWith(ct->typed), brushFloat = paintedWith(ct->floats);
  CHECK(brushTyped.first > 0);
  CHECK(brushTyped == brushFloat);

  // A click session grows the same object from the same clicks.
  auto objectOf = [&](core::ImageView image) {
    auto session = inference::classic::ClickSession::begin(image);
    REQUIRE(session.ok());
    REQUIRE((*session)->addPoint({centre, true}, nullptr).ok());
    return (*session)->mask();
  };
  const inference::ObjectMask clickTyped = objectOf(ct->typed), clickFloat = objectOf(ct->floats);
  CHECK(clickTyped.count() > 0);
  CHECK(clickTyped.box == clickFloat.box);
  CHECK(clickTyped.voxels == clickFloat.voxels);

  // VISTA-3D's network input: the oriented copy reads the stored type, nothing else changes.
  auto inTyped = inference::vista3d::preprocessForVista3d(ct->typed);
  auto inFloat = inference::vista3d::preprocessForVista3d(ct->floats);
  REQUIRE(inTyped.ok());
  REQUIRE(inFloat.ok());
  CHECK(inTyped->image.geometry().dimensions() == inFloat->image.geometry().dimensions());
  CHECK(inTyped->image.buffer() == inFloat->image.buffer());
}

TEST_CASE("typed images: a trained network's input is the same from int16 and float32, in canonical and reordered axes", "[typed]") {
  inference::training::PrepareSettings range;
  range.spacingMm = {1.5, 1.5, 2.0};
  range.intensity = inference::training::IntensityMode::Range;
  range.intensityMin = -200;
  range.intensityMax = 300;
  inference::training::PrepareSettings zscore;
  zscore.spacingMm = {0.9, 1.1, 3.0};
  auto same = [](core::ImageView a, core::ImageView b, const inference::training::PrepareSettings& settings) {
    core::Geometry ga, gb;
    auto pa = inference::training::prepareImage("a", a, settings, &ga);
    auto pb = inference::training::prepareImage("b", b, settings, &gb);
    REQUIRE(pa.ok());
    REQUIRE(pb.ok());
    CHECK(pa->size == pb->size);
    CHECK(ga.isCloseTo(gb));
    CHECK(pa->image == pb->image);  // bit for bit: the same doubles from the same whole numbers
    return pa->voxels();
  };
  if (auto ct = loadCt()) {
    CHECK(same(ct->typed, ct->floats, range) > 0);
    CHECK(same(ct->typed, ct->floats, zscore) > 0);
  }
  // Axes that are not in canonical order (x and y swapped, z reversed): reordered in the stored type first.
  core::Mat3 swapped;
  swapped.m = {0, 1, 0, 1, 0, 0, 0, 0, -1};
  const core::Geometry g({23, 17, 9}, {0.8, 1.2, 2.5}, {10, -20, 30}, swapped);
  auto ints = core::Volume<std::int16_t>::create(g);
  auto floats = core::ImageVolume::create(g);
  REQUIRE(ints.ok());
  REQUIRE(floats.ok());
  for (std::size_t i = 0; i < ints->size(); ++i) {
    (*ints)[i] = static_cast<std::int16_t>(int(i * 37 % 1001) - 400);
    (*floats)[i] = float((*ints)[i]);
  }
  CHECK(same(*ints, *floats, range) > 0);
  CHECK(same(*ints, *floats, zscore) > 0);
  // The float32 path still refuses an image without a finite voxel, naming it.
  std::fill(floats->buffer().begin(), floats->buffer().end(), std::numeric_limits<float>::quiet_NaN());
  auto refused = inference::training::prepareImage("scan.nii", *floats, range);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().subject == "scan.nii");
}

TEST_CASE("typed images: the classic automatic segmentation gives the same labels from int16 as from float32", "[typed]") {
  auto ct = loadCt();
  if (!ct) return;
  CHECK(inference::classic::looksLikeCt(ct->typed));
  inference::classic::ClassicEngine engine;
  auto fromTyped = engine.segment(ct->typed, {}, nullptr);
  auto fromFloat = engine.segment(ct->floats, {}, nullptr);
  REQUIRE(fromTyped.ok());
  REQUIRE(fromFloat.ok());
  CHECK(fromTyped->box == fromFloat->box);
  REQUIRE(fromTyped->voxels.size() == fromFloat->voxels.size());
  CHECK(fromTyped->voxels == fromFloat->voxels);
  // More than the body: lungs and bone were found, so the thresholds below the body's were compared too.
  std::set<core::Label> found(fromTyped->voxels.begin(), fromTyped->voxels.end());
  CHECK(found.count(inference::classic::kBoneLabel) == 1);
  CHECK(found.size() >= 4);
}
