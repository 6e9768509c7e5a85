// The same scan stored with its axes in another order or direction (LPS vs LAS, i and j swapped: 48 storage orders
// of the same voxels, each voxel keeping its LPS position) must give the same objects for the same physical clicks,
// and the same automatic labels: compared voxel for voxel in physical space (mapped back to one grid).
#include <catch2/catch.hpp>

#include <algorithm>
#include <functional>
#include <numeric>
#include <optional>

#include "core/axis_order.h"
#include "inference/classic/auto_segmenter.h"
#include "inference/classic/click_session.h"
#include "inference/click_evaluator.h"
#include "io/volume/image_file.h"
#include "tests/common/storage_order_support.h"
#include "tests/common/test_support.h"

using namespace delineate;

namespace {

// The box around a label (plus `margin` voxels), at most `cap` voxels per axis around its centre.
core::IndexBox boxAround(const core::LabelMap& labels, core::Label label, std::int64_t margin, std::int64_t cap) {
  const auto dims = labels.geometry().dimensions();
  core::IndexBox b;
  for (std::int64_t z = 0; z < dims[2]; ++z)
    for (std::int64_t y = 0; y < dims[1]; ++y)
      for (std::int64_t x = 0; x < dims[0]; ++x)
        if (labels.at(core::Index3{x, y, z}) == label) b.include(core::Index3{x, y, z});
  REQUIRE(!b.empty());
  for (std::size_t a = 0; a < 3; ++a) {
    const std::int64_t c = (b.min[a] + b.max[a]) / 2;
    const std::int64_t half = std::min((b.max[a] - b.min[a]) / 2 + margin, cap / 2);
    b.min[a] = std::max<std::int64_t>(0, c - half);
    b.max[a] = std::min(dims[a] - 1, c + half);
  }
  return b;
}

// The object on the original grid (`dims`) of an object computed on the grid reordered by `order`.
std::vector<std::uint8_t> onOriginalGrid(const inference::ObjectMask& m, const core::Size3& dims, const core::AxisOrder& order) {
  std::vector<std::uint8_t> out(static_cast<std::size_t>(dims[0] * dims[1] * dims[2]), 0);
  if (m.box.empty()) return out;
  std::size_t o = 0;
  for (std::int64_t z = m.box.min[2]; z <= m.box.max[2]; ++z)
    for (std::int64_t y = m.box.min[1]; y <= m.box.max[1]; ++y)
      for (std::int64_t x = m.box.min[0]; x <= m.box.max[0]; ++x, ++o)
        if (m.voxels[o]) {
          const core::Index3 s = core::sourceIndexOf(core::Index3{x, y, z}, dims, order);
          out[static_cast<std::size_t>((s[2] * dims[1] + s[1]) * dims[0] + s[0])] = 1;
        }
  return out;
}

struct Crop {
  core::ImageVolume image;
  core::Volume<std::uint8_t> reference;
};

std::optional<Crop> loadCrop(const std::string& image, const std::string& labels, core::Label label,
                             std::int64_t margin, std::int64_t cap) {
  auto ip = test::sharedFile(image), lp = test::sharedFile(labels);
  if (!ip || !lp) return std::nullopt;
  auto i = io::readImageFile(ip->string());
  auto l = io::readLabelFile(lp->string());
  REQUIRE(i.ok());
  REQUIRE(l.ok());
  const core::IndexBox box = boxAround(*l, label, margin, cap);
  Crop c{test::cropVolume(*i, box), {}};
  const auto lab = test::cropVolume(l->voxels(), box);
  c.reference = core::Volume<std::uint8_t>::create(lab.geometry(), 0).value();
  for (std::size_t k = 0; k < lab.size(); ++k) c.reference[k] = lab[k] == label ? 1 : 0;
  return c;
}

// The clicks of the simulated protocol on the stored order (positive and negative, several in sequence), replayed
// at the same physical points on every other order: the object after each click, mapped back, must be the same.
void checkClicksInvariant(const Crop& c, const std::vector<core::AxisOrder>& orders, int clicks) {
  auto first = inference::classic::ClickSession::begin(c.image);
  REQUIRE(first.ok());
  auto eval = inference::simulateClicks(**first, c.reference, clicks);
  REQUIRE(eval.ok());
  REQUIRE(!eval->clicks.empty());
  std::vector<std::vector<std::uint8_t>> expected;
  const auto dims = c.image.geometry().dimensions();
  {
    auto replay = inference::classic::ClickSession::begin(c.image);
    REQUIRE(replay.ok());
    for (const auto& k : eval->clicks) {
      REQUIRE((*replay)->addPoint(k.point).ok());
      expected.push_back(onOriginalGrid((*replay)->mask(), dims, core::AxisOrder{}));
    }
  }
  bool negative = false;
  for (const auto& k : eval->clicks) negative = negative || !k.point.positive;
  INFO("clicks: " << eval->clicks.size() << ", a negative one among them: " << negative);
  for (const auto& order : orders) {
    INFO("storage order " << test::describeOrder(order));
    const auto stored = core::reorderedVolume(c.image, order).value();
    auto session = inference::classic::ClickSession::begin(stored);
    REQUIRE(session.ok());
    for (std::size_t k = 0; k < eval->clicks.size(); ++k) {
      INFO("after click " << k + 1);
      REQUIRE((*session)->addPoint(eval->clicks[k].point).ok());
      const auto got = onOriginalGrid((*session)->mask(), dims, order);
      const auto diff = std::inner_product(got.begin(), got.end(), expected[k].begin(), std::size_t(0), std::plus<>(),
                                           [](std::uint8_t a, std::uint8_t b) { return a != b ? std::size_t(1) : 0; });
      CHECK(diff == 0);
    }
    // Undo restores the earlier object in this order too.
    if (eval->clicks.size() > 1) {
      REQUIRE((*session)->undoPrompt());
      CHECK(onOriginalGrid((*session)->mask(), dims, order) == expected[eval->clicks.size() - 2]);
    }
  }
}

// LPS vs LAS (i reversed), i and j swapped, and a few mixed orders.
std::vector<core::AxisOrder> someOrders() {
  std::vector<core::AxisOrder> out;
  for (const auto& o : core::allAxisOrders()) {
    const bool las = o.axis == std::array<int, 3>{0, 1, 2} && o.flip == std::array<bool, 3>{true, false, false};
    const bool swapped = o.axis == std::array<int, 3>{1, 0, 2} && o.flip == std::array<bool, 3>{false, false, false};
    const bool mixed = (o.axis == std::array<int, 3>{2, 0, 1} && o.flip[1]) ||
                       (o.axis == std::array<int, 3>{1, 2, 0} && o.flip[0] && o.flip[2]);
    if (las || swapped || mixed) out.push_back(o);
  }
  return out;
}

}  // namespace

TEST_CASE("axis order: the orders, their geometry and index maps", "[classic][axis]") {
  const auto all = core::allAxisOrders();
  REQUIRE(all.size() == 48);
  CHECK(all.front().isIdentity());
  const core::Geometry g(core::Size3{4, 5, 6}, core::Vec3{0.5, 0.7, 2.0}, core::Vec3{10, -20, 30},
                         test::rotationMatrix(0.1, -0.2, 0.3));
  for (const auto& o : all) {
    INFO(test::describeOrder(o));
    const core::Geometry r = core::reorderedGeometry(g, o);
    for (const core::Index3 p : {core::Index3{0, 0, 0}, core::Index3{3, 1, 5}, core::Index3{2, 4, 0}}) {
      const core::Index3 q = core::reorderedIndexOf(p, g.dimensions(), o);
      CHECK(core::sourceIndexOf(q, g.dimensions(), o) == p);
      const auto a = g.indexToLps(p), b = r.indexToLps(q);
      for (std::size_t k = 0; k < 3; ++k) CHECK(a[k] == Approx(b[k]).margin(1e-9));
    }
    // Every order of the same voxels finds the same canonical grid.
    const core::AxisOrder back = core::canonicalAxisOrder(r);
    const core::Geometry c = core::reorderedGeometry(r, back);
    CHECK(c.isCloseTo(core::reorderedGeometry(g, core::canonicalAxisOrder(g))));
  }
}

TEST_CASE("axis order: clicks on a CT kidney give the same object in all 48 storage orders",
          "[classic][click][axis][data]") {
  auto c = loadCrop("data/ct/totalseg-example/example_ct.nii.gz",
                    "data/ct/totalseg-example/example_seg_fast_force_split.nii.gz", 2, 6, 40);
  if (!c) return;
  checkClicksInvariant(*c, core::allAxisOrders(), 4);
}

TEST_CASE("axis order: clicks on a CT liver give the same object stored LAS, with i and j swapped, and mixed",
          "[classic][click][axis][data]") {
  auto c = loadCrop("data/ct/totalseg-example/example_ct.nii.gz",
                    "data/ct/totalseg-example/example_seg_fast_force_split.nii.gz", 5, 4, 112);
  if (!c) return;
  checkClicksInvariant(*c, someOrders(), 5);
}

TEST_CASE("axis order: clicks on an MR tumour give the same object in all 48 storage orders",
          "[classic][click][axis][data]") {
  auto c = loadCrop("data/mr/pyradiomics-mr-tumor/breast1_image.nrrd", "data/mr/pyradiomics-mr-tumor/breast1_label.nrrd",
                    1, 6, 48);
  if (!c) return;
  checkClicksInvariant(*c, core::allAxisOrders(), 4);
}

TEST_CASE("axis order: the simulated-click protocol gives the same Dice curve in every storage order",
          "[classic][click][axis][data]") {
  auto c = loadCrop("data/mr/pyradiomics-mr-tumor/brain1_image.nrrd", "data/mr/pyradiomics-mr-tumor/brain1_label.nrrd",
                    1, 6, 64);
  if (!c) return;
  auto curve = [&](const core::AxisOrder& order) {
    const auto image = core::reorderedVolume(c->image, order).value();
    const auto ref = core::reorderedVolume(c->reference, order).value();
    auto session = inference::classic::ClickSession::begin(image);
    REQUIRE(session.ok());
    auto eval = inference::simulateClicks(**session, ref, 5);
    REQUIRE(eval.ok());
    std::vector<double> dice;
    for (const auto& k : eval->clicks) dice.push_back(k.dice);
    return dice;
  };
  const auto expected = curve(core::AxisOrder{});
  for (const auto& order : someOrders()) {
    INFO("storage order " << test::describeOrder(order));
    CHECK(curve(order) == expected);
  }
}

TEST_CASE("axis order: automatic labels of a CT are the same stored LAS, with i and j swapped, and mixed",
          "[classic][auto][axis][data]") {
  auto p = test::sharedFile("data/ct/totalseg-example/example_ct.nii.gz");
  if (!p) return;
  auto full = io::readImageFile(p->string());
  REQUIRE(full.ok());
  // A chest slab: the lungs, the trachea's top slices, ribs and the table.
  const auto dims = full->geometry().dimensions();
  const core::IndexBox box{{0, 0, dims[2] / 2}, {dims[0] - 1, dims[1] - 1, dims[2] - 1}};
  const auto image = test::cropVolume(*full, box);
  auto expected = inference::classic::segmentAutomatically(image, {}, nullptr, {});
  REQUIRE(expected.ok());
  REQUIRE(expected->ct);
  for (const auto& order : someOrders()) {
    INFO("storage order " << test::describeOrder(order));
    const auto stored = core::reorderedVolume(image, order).value();
    auto got = inference::classic::segmentAutomatically(stored, {}, nullptr, {});
    REQUIRE(got.ok());
    CHECK(got->produced == expected->produced);
    const auto back = core::restoreBox<core::Label>(got->voxels, stored.geometry().fullBox(),
                                                    image.geometry().dimensions(), order);
    std::size_t diff = 0;
    for (std::size_t k = 0; k < back.size(); ++k) diff += back[k] != expected->voxels[k] ? 1 : 0;
    CHECK(diff == 0);
  }
}
