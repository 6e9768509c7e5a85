// The VISTA-3D network in LibTorch against MONAI's own outputs for the same weights and input (the parity
// reference of ../shared/reference/vista3d: width 8, a 64^3 input).
#include <catch2/catch.hpp>

#include <cmath>
#include <optional>

#include "inference/vista3d/combine.h"
#include "inference/vista3d/network.h"
#include "inference/vista3d/postprocess.h"
#include "inference/vista3d/preprocess.h"
#include "inference/vista3d/segment.h"
#include "inference/vista3d/sliding_window.h"
#include "io/volume/image_file.h"
#include "tests/common/test_support.h"
#include "tests/inference/npy.h"
#include "tests/inference/vista3d_support.h"

using namespace delineate;
using namespace delineate::inference::vista3d;

TEST_CASE("vista3d image encoder: both decoder branches equal MONAI's to 1e-4", "[vista3d][network][data]") {
  if (!torchAvailable()) {
    if (test::runningInCi()) FAIL("this build has no LibTorch; scripts/setup.sh installs libtorch-dev");
    WARN("no LibTorch in this build: skipped");
    return;
  }
  auto pt = test::sharedFile("reference/vista3d/tiny_state_dict.pt");
  auto inputPath = test::sharedFile("reference/vista3d/input_64.npy");
  auto pointPath = test::sharedFile("reference/vista3d/enc_out_point_branch.npy");
  auto autoPath = test::sharedFile("reference/vista3d/enc_out_auto_branch.npy");
  if (!pt || !inputPath || !pointPath || !autoPath) return;
  auto ck = readCheckpoint(pt->string());
  REQUIRE(ck.ok());
  std::vector<std::int64_t> shape;
  const auto input = test::readNpy(*inputPath, shape);
  REQUIRE(shape == std::vector<std::int64_t>{1, 1, 64, 64, 64});
  const std::int64_t size[3] = {64, 64, 64};
  auto out = runImageEncoder(*ck, input, size);
  REQUIRE(out.ok());
  CHECK(out->channels == 8);
  for (const auto& [path, ours] : {std::make_pair(*pointPath, &out->pointBranch), std::make_pair(*autoPath, &out->autoBranch)}) {
    INFO(path.filename().string());
    const auto ref = test::readNpy(path, shape);
    REQUIRE(shape == std::vector<std::int64_t>{1, 8, 64, 64, 64});
    REQUIRE(ours->size() == ref.size());
    double worst = 0, scale = 0;
    for (std::size_t i = 0; i < ref.size(); ++i) {
      worst = std::max(worst, std::fabs(double((*ours)[i]) - double(ref[i])));
      scale = std::max(scale, std::fabs(double(ref[i])));
    }
    INFO("max |ours - MONAI| = " << worst << " (values up to " << scale << ")");
    CHECK(worst < 1e-4);
    CHECK(scale > 0.1);  // not a vacuous comparison of zeros
  }
}

TEST_CASE("vista3d image encoder: sizes that are not multiples of 16 and foreign checkpoints are refused",
          "[vista3d][network][data]") {
  auto pt = test::sharedFile("reference/vista3d/tiny_state_dict.pt");
  if (!pt || !torchAvailable()) return;
  auto ck = readCheckpoint(pt->string());
  REQUIRE(ck.ok());
  const std::int64_t bad[3] = {64, 60, 64};
  auto r = runImageEncoder(*ck, std::vector<float>(64 * 60 * 64, 0.0f), bad);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().detail.find("multiples of 16") != std::string::npos);
  Checkpoint broken = *ck;
  broken.tensors.erase(broken.tensors.begin() + 5);
  const std::int64_t size[3] = {16, 16, 16};
  auto r2 = runImageEncoder(broken, std::vector<float>(16 * 16 * 16, 0.0f), size);
  REQUIRE_FALSE(r2.ok());
  CHECK(r2.error().detail.find("missing keys (1)") != std::string::npos);
}

TEST_CASE("vista3d class head: automatic logits for four classes equal MONAI's to 1e-4", "[vista3d][network][data]") {
  if (!torchAvailable()) return;  // the encoder case above reports it
  auto pt = test::sharedFile("reference/vista3d/tiny_state_dict.pt");
  auto inputPath = test::sharedFile("reference/vista3d/input_64.npy");
  auto logitsPath = test::sharedFile("reference/vista3d/case_auto_logits.npy");
  if (!pt || !inputPath || !logitsPath) return;
  auto ck = readCheckpoint(pt->string());
  REQUIRE(ck.ok());
  std::vector<std::int64_t> shape;
  const auto input = test::readNpy(*inputPath, shape);
  const std::int64_t size[3] = {64, 64, 64};
  // README: model(input, class_vector=[[1],[3],[25],[200]]) -> [4, 1, 64, 64, 64]
  auto logits = runClassLogits(*ck, input, size, {1, 3, 25, 200});
  REQUIRE(logits.ok());
  const auto ref = test::readNpy(*logitsPath, shape);
  REQUIRE(shape == std::vector<std::int64_t>{4, 1, 64, 64, 64});
  REQUIRE(logits->size() == ref.size());
  double worst = 0, scale = 0;
  std::size_t positive = 0;
  for (std::size_t i = 0; i < ref.size(); ++i) {
    worst = std::max(worst, std::fabs(double((*logits)[i]) - double(ref[i])));
    scale = std::max(scale, std::fabs(double(ref[i])));
    positive += ref[i] > 0;
  }
  INFO("max |ours - MONAI| = " << worst << " (values up to " << scale << ", " << positive << " positive)");
  CHECK(worst < 1e-4);
  CHECK(scale > 0.1);
  CHECK_FALSE(runClassLogits(*ck, input, size, {512}).ok());  // the embedding has 512 rows
}

TEST_CASE("vista3d sliding window: window starts follow MONAI's dense_patch_slices", "[vista3d][network]") {
  using inference::vista3d::windowStarts;
  CHECK(windowStarts(128, 128, 0.25) == std::vector<std::int64_t>{0});
  CHECK(windowStarts(200, 128, 0.25) == std::vector<std::int64_t>{0, 72});
  CHECK(windowStarts(300, 128, 0.25) == std::vector<std::int64_t>{0, 96, 172});
  CHECK(windowStarts(115, 64, 0.25) == std::vector<std::int64_t>{0, 48, 51});
  CHECK(windowStarts(77, 64, 0.25) == std::vector<std::int64_t>{0, 13});
}

TEST_CASE("vista3d automatic segmentation end to end: preprocessing, sliding window, postprocessing and inversion "
          "equal the bundle's on a real CT", "[vista3d][network][data]") {
  if (!torchAvailable()) return;
  const std::string dir = "reference/vista3d/pipeline/";
  auto pt = test::sharedFile("reference/vista3d/tiny_state_dict.pt");
  auto ct = test::sharedFile(dir + "input_ct.nii.gz");
  auto logitsPath = test::sharedFile(dir + "auto_logits.npy");
  auto originalPath = test::sharedFile(dir + "auto_labels_original.npy");
  if (!pt || !ct || !logitsPath || !originalPath) return;
  auto model = test::loadVista3d(*pt);
  auto image = io::readImageFile(ct->string());
  REQUIRE(image.ok());
  auto in = preprocessForVista3d(*image);
  REQUIRE(in.ok());
  // The bundle's "kidney" (2) expands to left and right kidney (14, 5); the reference ran with roi 64.
  const std::vector<std::int64_t> classes{1, 3, 14, 5};
  const WindowFn network = [&](const std::vector<float>& window, const std::int64_t roi[3]) {
    return model->classLogits(window, roi, classes);
  };
  SlidingWindowOptions options;
  options.roi = 64;
  auto logits = slidingWindowLogits(in->image, 4, network, options);
  REQUIRE(logits.ok());
  const auto md = in->image.geometry().dimensions();
  std::vector<std::int64_t> shape;
  const auto ref = test::toXFastest(test::readNpy(*logitsPath, shape), 4, md);
  REQUIRE(shape == std::vector<std::int64_t>{1, 4, 115, 77, 63});
  double worst = 0;
  for (std::size_t i = 0; i < ref.size(); ++i) worst = std::max(worst, std::fabs(double((*logits)[i]) - double(ref[i])));
  INFO("max |ours - MONAI| over the stitched logits = " << worst);
  CHECK(worst < 1e-4);
  auto labels = vistaPostTransform(*logits, 4, md, {1, 3, 14, 5}, {});
  REQUIRE(labels.ok());
  auto back = invertToOriginal(*labels, in->grid, image->geometry());
  REQUIRE(back.ok());
  const auto expect = test::toXFastest(test::readNpy(*originalPath, shape), 1, image->geometry().dimensions());
  std::size_t differ = 0, organ = 0;
  for (std::size_t i = 0; i < expect.size(); ++i) {
    differ += float((*back)[i]) != expect[i];
    organ += expect[i] > 0;
  }
  CHECK(organ > 0);
  CHECK(differ <= expect.size() / 10000);  // the reference allows 1e-4 of voxels to flip at logits near 0

  // The product's path: the prompt as a user gives it (kidney), sums streamed through slabs on the model's device,
  // one window at a time and three at once: the same labels.
  for (const int batch : {1, 3}) {
    INFO("batch " << batch);
    SegmentOptions streamed;
    streamed.roi = 64;
    streamed.batch = batch;
    SegmentDetails details;
    auto labelMap = segmentWithVista3d(*model, *image, {1, 3, 2}, streamed, nullptr, &details);
    REQUIRE(labelMap.ok());
    std::size_t streamDiffer = 0;
    for (std::size_t i = 0; i < expect.size(); ++i) streamDiffer += float((*labelMap)[i]) != expect[i];
    CHECK(streamDiffer <= expect.size() / 10000);
    CHECK(details.windows == 3u * 2u * 1u);  // 115 x 77 x 63 in windows of 64
    CHECK(details.batch == batch);
    CHECK(details.accumulatorBytes == 4u * 64u * 77u * 64u * sizeof(float));  // slab along the longest axis
  }
}

TEST_CASE("vista3d point head: one and two objects, special and pad labels, zero-shot token, equal to MONAI's",
          "[vista3d][network][data]") {
  if (!torchAvailable()) return;
  auto pt = test::sharedFile("reference/vista3d/tiny_state_dict.pt");
  auto inputPath = test::sharedFile("reference/vista3d/input_64.npy");
  auto onePath = test::sharedFile("reference/vista3d/case_point_logits.npy");
  auto twoPath = test::sharedFile("reference/vista3d/case_point2_logits.npy");
  if (!pt || !inputPath || !onePath || !twoPath) return;
  auto model = test::loadVista3d(*pt);
  std::vector<std::int64_t> shape;
  const auto input = test::readNpy(*inputPath, shape);
  const std::int64_t size[3] = {64, 64, 64};
  using P = Vista3dModel::WindowPoint;
  struct Object {
    std::vector<P> points;
    std::int64_t promptClass;
  };
  // README: case_point = clicks [[30,34,28],[10,50,40]] labels [1,0], no class; case_point2 = two objects,
  // [[30,34,28],[12,20,50]] labels [3,2] class 25, and [[40,10,10],[0,0,0]] labels [1,-1] class 150 (zero-shot).
  const std::vector<std::pair<std::filesystem::path, std::vector<Object>>> cases = {
      {*onePath, {{{P{{30, 34, 28}, 1}, P{{10, 50, 40}, 0}}, 0}}},
      {*twoPath, {{{P{{30, 34, 28}, 3}, P{{12, 20, 50}, 2}}, 25}, {{P{{40, 10, 10}, 1}, P{{0, 0, 0}, -1}}, 150}}}};
  for (const auto& [path, objects] : cases) {
    INFO(path.filename().string());
    const auto ref = test::readNpy(path, shape);
    REQUIRE(ref.size() == objects.size() * 64 * 64 * 64);
    for (std::size_t b = 0; b < objects.size(); ++b) {
      INFO("object " << b);
      auto logits = model->pointLogits(input, size, objects[b].points, objects[b].promptClass);
      REQUIRE(logits.ok());
      double worst = 0, scale = 0;
      for (std::size_t i = 0; i < logits->size(); ++i) {
        const double r = ref[b * logits->size() + i];
        worst = std::max(worst, std::fabs(double((*logits)[i]) - r));
        scale = std::max(scale, std::fabs(r));
      }
      INFO("max |ours - MONAI| = " << worst << " (values up to " << scale << ")");
      CHECK(worst < 1e-4 * std::max(1.0, scale));
      CHECK(scale > 0.1);
    }
  }
}

namespace {

// The pipeline reference's click cases: the tiny model, the CT, and the two clicks (positive, negative) on the
// original image (the reference README's points).
struct ClickPipelineCase {
  std::unique_ptr<Vista3dModel> model;
  core::ImageVolume image;
  std::vector<ClickPrompt> clicks{{{30, 40, 16}, true}, {{10, 50, 25}, false}};
  std::filesystem::path logitsPath, originalPath;

  static std::optional<ClickPipelineCase> load(const std::string& name) {
    const std::string dir = "reference/vista3d/pipeline/";
    auto pt = test::sharedFile("reference/vista3d/tiny_state_dict.pt");
    auto ct = test::sharedFile(dir + "input_ct.nii.gz");
    auto logits = test::sharedFile(dir + name + "_logits.npy");
    auto original = test::sharedFile(dir + name + "_labels_original.npy");
    if (!pt || !ct || !logits || !original) return std::nullopt;
    auto model = test::loadVista3d(*pt);
    auto image = io::readImageFile(ct->string());
    REQUIRE(image.ok());
    ClickPipelineCase c;
    c.model = std::move(model);
    c.image = std::move(image).value();
    c.logitsPath = *logits;
    c.originalPath = *original;
    return c;
  }

  // Our logits (model grid, x fastest) against the bundle's: NaN voxels must coincide; returns the largest
  // difference elsewhere, the bundle's NaN count and how many voxels differ by more than 1e-4.
  struct LogitComparison {
    double worst = 0;
    std::size_t nanReference = 0, far = 0;
  };
  LogitComparison compareLogits(const ClickLogits& ours) const {
    std::vector<std::int64_t> shape;
    const auto ref = test::toXFastest(test::readNpy(logitsPath, shape), 1, ours.in->image.geometry().dimensions());
    REQUIRE(ref.size() == ours.logits.size());
    LogitComparison r;
    std::size_t nanMismatch = 0;
    for (std::size_t i = 0; i < ref.size(); ++i) {
      const bool a = std::isnan(ours.logits[i]), b = std::isnan(ref[i]);
      r.nanReference += b;
      nanMismatch += a != b;
      if (a || b) continue;
      const double d = std::fabs(double(ours.logits[i]) - double(ref[i]));
      r.worst = std::max(r.worst, d);
      r.far += d > 1e-4;
    }
    INFO(r.far << " voxels differ by more than 1e-4; the largest difference is " << r.worst);
    CHECK(nanMismatch == 0);
    CHECK(r.far <= ref.size() / 10000);
    return r;
  }

  // Labels on the CT against the bundle's label file: equal but for 1e-4 of the voxels, and holding `object`.
  void compareLabels(const core::Volume<std::uint8_t>& labels, float object) const {
    std::vector<std::int64_t> shape;
    const auto expect = test::toXFastest(test::readNpy(originalPath, shape), 1, image.geometry().dimensions());
    REQUIRE(expect.size() == labels.size());
    std::size_t differ = 0, found = 0;
    for (std::size_t i = 0; i < expect.size(); ++i) {
      differ += float(labels[i]) != expect[i];
      found += expect[i] == object;
    }
    CHECK(found > 0);
    CHECK(differ <= expect.size() / 10000);
  }
};

}  // namespace

TEST_CASE("vista3d click inference end to end: point windows, postprocessing and inversion equal the bundle's on a "
          "real CT", "[vista3d][network][data]") {
  if (!torchAvailable()) return;
  auto c = ClickPipelineCase::load("click");
  if (!c) return;
  auto logits = clickLogitsWithVista3d(*c->model, c->image, c->clicks, 0, 64);
  REQUIRE(logits.ok());
  const auto compared = c->compareLogits(*logits);
  CHECK(compared.nanReference == 182889);  // the reference README's count
  CHECK(compared.worst < 1e-4);
  auto labels = segmentClicksWithVista3d(*c->model, c->image, c->clicks, 0, 64);
  REQUIRE(labels.ok());
  c->compareLabels(*labels, 1);
  // A click outside the image is refused before any work.
  CHECK_FALSE(segmentClicksWithVista3d(*c->model, c->image, {{{-3, 40, 16}, true}}, 0, 64).ok());
  CHECK_FALSE(segmentClicksWithVista3d(*c->model, c->image, {}, 0, 64).ok());
}

TEST_CASE("vista3d click with a class: the connected-components and gaussian combinations equal MONAI's",
          "[vista3d][network][data]") {
  if (!torchAvailable()) return;
  auto pt = test::sharedFile("reference/vista3d/tiny_state_dict.pt");
  auto inputPath = test::sharedFile("reference/vista3d/input_64.npy");
  auto refPath = test::sharedFile("reference/vista3d/case_autopoint_cc_logits.npy");
  if (!pt || !inputPath || !refPath) return;
  auto model = test::loadVista3d(*pt);
  std::vector<std::int64_t> shape;
  const auto input = test::readNpy(*inputPath, shape);
  const std::int64_t size[3] = {64, 64, 64};
  // README: class [[3]] with the clicks of case_point, patch_coords the whole window.
  const std::vector<Vista3dModel::WindowPoint> points{{{30, 34, 28}, 1}, {{10, 50, 40}, 0}};
  auto both = model->bothLogits(input, size, points, 3);
  REQUIRE(both.ok());
  const auto out = connectedComponentsCombine(both->classLogits, both->pointLogits, size, points);
  const auto ref = test::readNpy(*refPath, shape);
  REQUIRE(ref.size() == out.size());
  std::size_t far = 0, fromPoint = 0;
  for (std::size_t i = 0; i < ref.size(); ++i) {
    if (std::fabs(double(out[i]) - double(ref[i])) > 1e-4) ++far;
    if (std::fabs(double(out[i]) - double(both->classLogits[i])) > 1e-6) ++fromPoint;
  }
  INFO(far << " voxels differ by more than 1e-4; " << fromPoint << " voxels took the point head's logits");
  CHECK(fromPoint > 0);  // the combination did something
  CHECK(far <= 1);       // the reference README: one voxel may flip (its point logit is about 1e-8)

  // The same prompts without window coordinates: gaussian_combine (radius 64 // 5 = 12).
  auto gaussianPath = test::sharedFile("reference/vista3d/case_autopoint_gaussian_logits.npy");
  if (!gaussianPath) return;
  const auto gaussian = gaussianCombine(both->classLogits, both->pointLogits, size, points);
  const auto gaussianRef = test::readNpy(*gaussianPath, shape);
  REQUIRE(gaussianRef.size() == gaussian.size());
  double worst = 0;
  std::size_t mixed = 0;
  for (std::size_t i = 0; i < gaussianRef.size(); ++i) {
    worst = std::max(worst, std::fabs(double(gaussian[i]) - double(gaussianRef[i])));
    mixed += std::fabs(double(gaussian[i]) - double(both->classLogits[i])) > 1e-3;
  }
  INFO("gaussian: max |ours - MONAI| = " << worst << "; " << mixed << " voxels moved towards the point head");
  CHECK(worst < 1e-4);
  CHECK(mixed > 1000);  // the discs reach well beyond the clicks
}


TEST_CASE("vista3d click with a class end to end on a real CT equals the bundle's", "[vista3d][network][data]") {
  if (!torchAvailable()) return;
  auto c = ClickPipelineCase::load("click_class");
  if (!c) return;
  // Class 3 (spleen, not a "special" class: the labels stay 1 / 0): both heads and the combination in every window;
  // with a class prompt there is no component filtering: thresholds, then label 3.
  auto logits = clickLogitsWithVista3d(*c->model, c->image, c->clicks, 3, 64);
  REQUIRE(logits.ok());
  c->compareLogits(*logits);
  auto labels = segmentClicksWithVista3d(*c->model, c->image, c->clicks, 3, 64);
  REQUIRE(labels.ok());
  c->compareLabels(*labels, 3);
}
