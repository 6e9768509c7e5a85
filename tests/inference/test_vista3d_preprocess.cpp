// VISTA-3D preprocessing against MONAI's own transforms on a real CT (../shared/reference/vista3d/pipeline): every
// stage's array and the model grid's geometry.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "inference/vista3d/postprocess.h"
#include "inference/vista3d/preprocess.h"
#include "inference/vista3d/segment.h"
#include "io/volume/image_file.h"
#include "core/axis_order.h"
#include "tests/common/storage_order_support.h"
#include "tests/common/test_support.h"
#include "tests/inference/npy.h"

using namespace delineate;

namespace {

// Largest difference between a volume (x fastest) and a C-order array of the same [nx, ny, nz].
double worstDifference(const core::ImageVolume& v, const std::vector<float>& ref, const std::vector<std::int64_t>& shape) {
  const auto d = v.geometry().dimensions();
  REQUIRE(shape == std::vector<std::int64_t>{d[0], d[1], d[2]});
  double worst = 0;
  for (std::int64_t i = 0; i < d[0]; ++i)
    for (std::int64_t j = 0; j < d[1]; ++j)
      for (std::int64_t k = 0; k < d[2]; ++k)
        worst = std::max(worst, std::fabs(double(v.at({i, j, k})) -
                                          double(ref[static_cast<std::size_t>((i * d[1] + j) * d[2] + k)])));
  return worst;
}

}  // namespace

TEST_CASE("vista3d preprocessing matches MONAI's Spacingd, CropForegroundd, scaling and Orientationd",
          "[vista3d][preprocess][data]") {
  auto ct = test::sharedFile("reference/vista3d/pipeline/input_ct.nii.gz");
  auto spacing = test::sharedFile("reference/vista3d/pipeline/after_spacing.npy");
  auto crop = test::sharedFile("reference/vista3d/pipeline/after_crop.npy");
  auto scale = test::sharedFile("reference/vista3d/pipeline/after_scale.npy");
  auto orient = test::sharedFile("reference/vista3d/pipeline/after_orientation.npy");
  if (!ct || !spacing || !crop || !scale || !orient) return;
  auto image = io::readImageFile(ct->string());
  REQUIRE(image.ok());
  auto in = inference::vista3d::preprocessForVista3d(*image, true);
  REQUIRE(in.ok());
  std::vector<std::int64_t> shape;

  // Spacingd: 58 x 57 x 32 at 3 mm -> 115 x 113 x 63 at 1.5 mm (HU, within 1e-3 as the reference advises).
  const auto s = test::readNpy(*spacing, shape);
  CHECK(worstDifference(in->spaced, s, shape) < 1e-3);
  // CropForegroundd: 36 anterior rows of air go (the box in model order: axes 0 and 1 turned to R and A, so the
  // anterior rows are the last 36 of 113).
  CHECK(in->grid.spacedDims == core::Size3{115, 113, 63});
  CHECK(in->grid.crop.min == core::Index3{0, 0, 0});
  CHECK(in->grid.crop.max == core::Index3{114, 76, 62});
  const auto c = test::readNpy(*crop, shape);
  CHECK(worstDifference(in->cropped, c, shape) < 1e-3);
  // Scaling then Orientationd (axes 0 and 1 flipped): the network input, within 1e-6.
  const auto o = test::readNpy(*orient, shape);
  CHECK(worstDifference(in->image, o, shape) < 1e-6);
  CHECK(in->grid.flipped[0]);
  CHECK(in->grid.flipped[1]);
  CHECK_FALSE(in->grid.flipped[2]);
  // The model grid: MONAI's final affine diag(1.5, 1.5, 1.5), t = (14.0437, 143.3190, 94.3018) in RAS.
  const auto& g = in->image.geometry();
  CHECK(g.originLps()[0] == Approx(-14.043670654296875).margin(1e-4));
  CHECK(g.originLps()[1] == Approx(-143.31900024414062).margin(1e-4));
  CHECK(g.originLps()[2] == Approx(94.3017578125).margin(1e-4));
  CHECK(g.direction()(0, 0) == Approx(-1));  // +i points to R, which is -x in LPS
  CHECK(g.direction()(1, 1) == Approx(-1));
  CHECK(g.direction()(2, 2) == Approx(1));
  // Scaled values before orientation, for completeness: after_scale is the cropped grid scaled.
  const auto sc = test::readNpy(*scale, shape);
  double worst = 0;
  const auto d = in->cropped.geometry().dimensions();
  for (std::int64_t i = 0; i < d[0]; ++i)
    for (std::int64_t j = 0; j < d[1]; ++j)
      for (std::int64_t k = 0; k < d[2]; ++k) {
        const double hu = in->cropped.at({i, j, k});
        const double v = std::clamp((hu - inference::vista3d::kIntensityMin) /
                                        (inference::vista3d::kIntensityMax - inference::vista3d::kIntensityMin),
                                    0.0, 1.0);
        worst = std::max(worst, std::fabs(v - sc[static_cast<std::size_t>((i * d[1] + j) * d[2] + k)]));
      }
  CHECK(worst < 1e-6);
}

TEST_CASE("vista3d preprocessing refuses an empty image and keeps a grid without foreground whole",
          "[vista3d][preprocess]") {
  CHECK_FALSE(inference::vista3d::preprocessForVista3d(core::ImageVolume{}).ok());
  // All air: nothing above 0 HU, so nothing is cropped; 10 x 8 x 4 at 3 mm -> 19 x 15 x 7 at 1.5 mm.
  const core::Geometry g({10, 8, 4}, {3, 3, 3}, {0, 0, 0});
  auto air = core::ImageVolume::create(g, -1000.0f).value();
  auto in = inference::vista3d::preprocessForVista3d(air);
  REQUIRE(in.ok());
  CHECK(in->image.geometry().dimensions() == core::Size3{19, 15, 7});
  CHECK(in->image.at({3, 4, 5}) == 0.0f);  // clipped at the bottom of the range
}


TEST_CASE("vista3d postprocessing and inversion match the bundle's on the reference logits", "[vista3d][preprocess][data]") {
  const std::string dir = "reference/vista3d/pipeline/";
  auto ct = test::sharedFile(dir + "input_ct.nii.gz");
  if (!ct) return;
  auto image = io::readImageFile(ct->string());
  REQUIRE(image.ok());
  auto in = inference::vista3d::preprocessForVista3d(*image);
  REQUIRE(in.ok());
  const core::Size3 md = in->image.geometry().dimensions();
  REQUIRE(md == core::Size3{115, 77, 63});

  // The clicks of the reference, mapped as the bundle maps them.
  std::vector<std::int64_t> shape;
  auto pointsPath = test::sharedFile(dir + "click_points_model.npy");
  if (!pointsPath) return;
  bool fortran = false;
  const auto mapped = test::readNpy64(*pointsPath, shape, fortran);
  REQUIRE(shape == std::vector<std::int64_t>{2, 3});
  const core::Vec3 clicks[2] = {{30, 40, 16}, {10, 50, 25}};
  std::vector<inference::vista3d::ModelPoint> points;
  for (int p = 0; p < 2; ++p) {
    const core::Vec3 m = inference::vista3d::toModelGrid(clicks[p], image->geometry(), in->image.geometry());
    for (std::size_t a = 0; a < 3; ++a)
      CHECK(m[a] == Approx(mapped[fortran ? a * 2 + static_cast<std::size_t>(p) : static_cast<std::size_t>(p) * 3 + a]).margin(1e-9));
    points.push_back({m, p == 0 ? 1 : 0});
  }

  struct Case {
    const char* name;
    int channels;
    std::vector<int> prompt;
    bool withPoints;
  };
  for (const Case& c : {Case{"auto", 4, {1, 3, 14, 5}, false}, Case{"click", 1, {}, true}, Case{"click_class", 1, {3}, true}}) {
    INFO(c.name);
    auto logitsPath = test::sharedFile(dir + c.name + "_logits.npy");
    auto modelPath = test::sharedFile(dir + c.name + "_labels_model.npy");
    auto originalPath = test::sharedFile(dir + c.name + "_labels_original.npy");
    if (!logitsPath || !modelPath || !originalPath) return;
    const auto logits = test::toXFastest(test::readNpy(*logitsPath, shape), c.channels, md);
    auto labels = inference::vista3d::vistaPostTransform(logits, c.channels, md, c.prompt,
                                                         c.withPoints ? points : std::vector<inference::vista3d::ModelPoint>{});
    REQUIRE(labels.ok());
    const auto expect = test::toXFastest(test::readNpy(*modelPath, shape), 1, md);
    std::size_t differ = 0, nan = 0;
    for (std::size_t i = 0; i < expect.size(); ++i) {
      const bool bothNan = std::isnan(expect[i]) && std::isnan((*labels)[i]);
      nan += std::isnan(expect[i]);
      differ += !bothNan && expect[i] != (*labels)[i];
    }
    CHECK(differ == 0);
    if (c.withPoints) CHECK(nan > 0);  // voxels outside every click window stay "not computed"
    auto back = inference::vista3d::invertToOriginal(*labels, in->grid, image->geometry());
    REQUIRE(back.ok());
    const auto expectOriginal = test::toXFastest(test::readNpy(*originalPath, shape), 1, image->geometry().dimensions());
    std::size_t differOriginal = 0;
    for (std::size_t i = 0; i < expectOriginal.size(); ++i) {
      const float e = std::isnan(expectOriginal[i]) ? 255.0f : expectOriginal[i];
      differOriginal += float((*back)[i]) != e;
    }
    CHECK(differOriginal == 0);
  }
}

TEST_CASE("vista3d prompts: the 117 everything classes and the bundle's subclass expansion", "[vista3d][preprocess]") {
  const auto all = inference::vista3d::everythingLabels();
  CHECK(all.size() == 117);
  for (int excluded : {2, 16, 18, 20, 21, 23, 24, 25, 26, 27}) CHECK(std::find(all.begin(), all.end(), excluded) == all.end());
  CHECK(inference::vista3d::expandLabelPrompts({1, 2, 3}) == std::vector<int>{1, 14, 5, 3});
  CHECK(inference::vista3d::expandLabelPrompts({20}) == std::vector<int>{28, 29, 30, 31, 32});
  CHECK(inference::vista3d::expandLabelPrompts({21}).size() == 62);  // 24 vertebrae, 35 ribs and bones, 3 more
}

// Issue 22, item 2: the bundle resamples in the file's axis order, anchored at its voxel 0, so a reversed axis whose
// extent is no multiple of 1.5 mm moved the 1.5 mm grid by a fraction of a voxel. The reference CT at 2.4 x 2.2 x 3 mm
// (its voxels relabelled: 57 x 2.4 and 56 x 2.2 mm are no multiples of 1.5) in eight storage orders: the network input
// must be the same, bit for bit, on the same grid in space.
TEST_CASE("vista3d preprocessing gives the same network input whatever order the file stores its axes in",
          "[vista3d][preprocess][axis][data]") {
  auto ct = test::sharedFile("reference/vista3d/pipeline/input_ct.nii.gz");
  if (!ct) return;
  auto read = io::readImageFile(ct->string());
  REQUIRE(read.ok());
  const auto& rg = read->geometry();
  auto image = core::ImageVolume::create(core::Geometry(rg.dimensions(), {2.4, 2.2, 3.0}, rg.originLps(), rg.direction()))
                   .value();
  std::copy(read->data(), read->data() + read->size(), image.data());
  auto expected = inference::vista3d::preprocessForVista3d(image);
  REQUIRE(expected.ok());
  const auto& eg = expected->image.geometry();
  std::vector<core::AxisOrder> orders(7);
  orders[0].flip = {true, false, false};
  orders[1].flip = {false, true, false};
  orders[2].flip = {true, true, true};
  orders[3].axis = {1, 0, 2};
  orders[4].axis = {1, 0, 2};
  orders[4].flip = {true, false, true};
  orders[5].axis = {2, 0, 1};
  orders[5].flip = {false, true, false};
  orders[6].axis = {2, 1, 0};
  orders[6].flip = {true, true, true};
  for (const auto& order : orders) {
    INFO("storage order " << test::describeOrder(order));
    const auto stored = core::reorderedVolume(image, order).value();
    auto got = inference::vista3d::preprocessForVista3d(stored);
    REQUIRE(got.ok());
    const auto& gg = got->image.geometry();
    REQUIRE(gg.dimensions() == eg.dimensions());
    CHECK(gg.isCloseTo(eg));
    std::size_t differ = 0;
    for (std::size_t i = 0; i < got->image.size(); ++i) differ += got->image.data()[i] != expected->image.data()[i] ? 1 : 0;
    CHECK(differ == 0);
  }
}
