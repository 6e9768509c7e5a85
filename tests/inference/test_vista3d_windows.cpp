// The reference's window-level cases on the random 100 x 80 x 48 volume (../shared/reference/vista3d README):
// the bundle's sliding window (replicate padding of the short axis, uniform averaging) and its point windows
// (summed overlaps, NaN outside), each through VistaPostTransformd.
#include <catch2/catch.hpp>

#include <cmath>
#include <optional>

#include "inference/vista3d/combine.h"
#include "inference/vista3d/network.h"
#include "inference/vista3d/postprocess.h"
#include "inference/vista3d/sliding_window.h"
#include "tests/common/test_support.h"
#include "tests/inference/npy.h"
#include "tests/inference/vista3d_support.h"

using namespace delineate;
using namespace delineate::inference::vista3d;

namespace {

struct WindowCase {
  std::unique_ptr<Vista3dModel> model;
  core::ImageVolume image;  // the random volume, torch axis a = our axis a
  std::string dir = "reference/vista3d/";

  static std::optional<WindowCase> load() {
    auto pt = test::sharedFile("reference/vista3d/tiny_state_dict.pt");
    auto inputPath = test::sharedFile("reference/vista3d/input_sw_100x80x48.npy");
    if (!pt || !inputPath) return std::nullopt;
    auto model = test::loadVista3d(*pt);
    std::vector<std::int64_t> shape;
    const auto input = test::readNpy(*inputPath, shape);
    REQUIRE(shape == std::vector<std::int64_t>{1, 1, 100, 80, 48});
    const core::Size3 dims{100, 80, 48};
    auto image = core::ImageVolume::create(core::Geometry(dims, {1.5, 1.5, 1.5}, {0, 0, 0}), 0.0f);
    REQUIRE(image.ok());
    const auto values = test::toXFastest(input, 1, dims);
    for (std::size_t i = 0; i < values.size(); ++i) (*image)[i] = values[i];
    WindowCase c;
    c.model = std::move(model);
    c.image = std::move(image).value();
    return c;
  }

  std::vector<float> reference(const std::string& name, int channels) const {
    auto path = test::sharedFile(dir + name + ".npy");
    REQUIRE(path);
    std::vector<std::int64_t> shape;
    return test::toXFastest(test::readNpy(*path, shape), channels, image.geometry().dimensions());
  }
};

// Logits: NaN where the reference has NaN, within 1e-4 elsewhere (at most 1e-4 of voxels beyond).
void compareLogits(const std::vector<float>& ours, const std::vector<float>& ref, std::size_t expectNan) {
  REQUIRE(ours.size() == ref.size());
  std::size_t nanRef = 0, nanMismatch = 0, far = 0;
  double worst = 0;
  for (std::size_t i = 0; i < ref.size(); ++i) {
    const bool a = std::isnan(ours[i]), b = std::isnan(ref[i]);
    nanRef += b;
    nanMismatch += a != b;
    if (a || b) continue;
    const double d = std::fabs(double(ours[i]) - double(ref[i]));
    worst = std::max(worst, d);
    far += d > 1e-4;
  }
  INFO("max |ours - MONAI| = " << worst << "; " << far << " voxels beyond 1e-4");
  CHECK(nanRef == expectNan);
  CHECK(nanMismatch == 0);
  CHECK(far <= ref.size() / 10000);
}

// Label maps: equal (NaN to NaN) but for 1e-4 of the voxels, and holding every value of `values`.
void compareLabels(const std::vector<float>& ours, const std::vector<float>& ref, const std::vector<float>& values) {
  REQUIRE(ours.size() == ref.size());
  std::size_t differ = 0;
  std::vector<std::size_t> seen(values.size(), 0);
  for (std::size_t i = 0; i < ref.size(); ++i) {
    const bool same = (std::isnan(ours[i]) && std::isnan(ref[i])) || ours[i] == ref[i];
    differ += !same;
    for (std::size_t v = 0; v < values.size(); ++v) seen[v] += ref[i] == values[v];
  }
  CHECK(differ <= ref.size() / 10000);
  for (std::size_t v = 0; v < values.size(); ++v) {
    INFO("label " << values[v]);
    CHECK(seen[v] > 0);
  }
}

}  // namespace

TEST_CASE("vista3d reference sliding window on 100x80x48: logits and label map equal MONAI's, streamed or not",
          "[vista3d][network][data]") {
  if (!torchAvailable()) return;
  auto c = WindowCase::load();
  if (!c) return;
  const std::vector<std::int64_t> classes{1, 3};
  const WindowFn network = [&](const std::vector<float>& window, const std::int64_t roi[3]) {
    return c->model->classLogits(window, roi, classes);
  };
  SlidingWindowOptions options;
  options.roi = 64;
  auto logits = slidingWindowLogits(c->image, 2, network, options);
  REQUIRE(logits.ok());
  compareLogits(*logits, c->reference("case_sw_auto_logits", 2), 0);
  auto labels = vistaPostTransform(*logits, 2, c->image.geometry().dimensions(), {1, 3}, {});
  REQUIRE(labels.ok());
  const auto expect = c->reference("case_sw_auto_labelmap", 1);
  compareLabels(*labels, expect, {0, 1, 3});
  // The streamed winners on the model's device give the same map.
  auto sums = c->model->slabAccumulator(classes);
  StreamOptions stream;
  stream.roi = 64;
  stream.batch = 2;
  auto winners = slidingWindowWinners(c->image, 2, *sums, stream);
  REQUIRE(winners.ok());
  std::vector<float> streamed(winners->winners.size());
  for (std::size_t i = 0; i < streamed.size(); ++i)
    streamed[i] = winners->winners[i] ? float(classes[winners->winners[i] - 1u]) : 0.0f;
  compareLabels(streamed, expect, {0, 1, 3});
}

TEST_CASE("vista3d reference point windows on 100x80x48: summed overlaps, NaN outside and the label maps equal "
          "MONAI's, point head alone and with a class", "[vista3d][network][data]") {
  if (!torchAvailable()) return;
  auto c = WindowCase::load();
  if (!c) return;
  // README: clicks [[20,30,20],[80,60,30]] labelled [1,0]; class_vector None, then [[3]].
  std::vector<ClickPoint> clicks(2);
  clicks[0] = ClickPoint{{20, 30, 20}, 1};
  clicks[1] = ClickPoint{{80, 60, 30}, 0};
  const std::vector<ModelPoint> modelPoints{{{20, 30, 20}, 1}, {{80, 60, 30}, 0}};
  for (const bool withClass : {false, true}) {
    INFO((withClass ? "class 3" : "point head only"));
    const PointWindowFn network = [&](const std::vector<float>& window, const std::int64_t roi[3],
                                      const std::vector<ClickPoint>& inside) -> core::Result<std::vector<float>> {
      std::vector<Vista3dModel::WindowPoint> pts;
      for (const auto& p : inside) pts.push_back({{p.ijk[0], p.ijk[1], p.ijk[2]}, p.label});
      if (!withClass) return c->model->pointLogits(window, roi, pts);
      auto both = c->model->bothLogits(window, roi, pts, 3);
      if (!both) return both.error();
      return connectedComponentsCombine(both->classLogits, both->pointLogits, roi, pts);
    };
    auto logits = pointWindowLogits(c->image, clicks, network, 64);
    REQUIRE(logits.ok());
    const std::string name = withClass ? "case_pw_autopoint" : "case_pw_point";
    compareLogits(*logits, c->reference(name + "_logits", 1), 55296);  // the README's NaN count
    auto labels = withClass ? vistaPostTransform(*logits, 1, c->image.geometry().dimensions(), {3}, {})
                            : vistaPostTransform(*logits, 1, c->image.geometry().dimensions(), {}, modelPoints);
    REQUIRE(labels.ok());
    compareLabels(*labels, c->reference(name + "_labelmap", 1), {0, withClass ? 3.0f : 1.0f});
  }
}
