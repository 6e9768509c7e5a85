#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "core/edit_transaction.h"
#include "core/statistics.h"

using namespace delineate::core;

TEST_CASE("per-label statistics on a known phantom", "[statistics]") {
  Mat3 flipY;
  flipY.m = {1, 0, 0, 0, -1, 0, 0, 0, 1};
  const Geometry g({20, 30, 10}, {0.5, 2.0, 3.0}, {100, 50, -20}, flipY);
  auto image = ImageVolume::create(g, 0.0f).value();
  // Intensity = i, so stats under a box are known in closed form.
  for (std::int64_t k = 0; k < 10; ++k)
    for (std::int64_t j = 0; j < 30; ++j)
      for (std::int64_t i = 0; i < 20; ++i) image.at({i, j, k}) = float(i);
  auto labels = LabelMap::create(g).value();
  {
    EditTransaction tx(labels, "phantom");
    tx.fillBox(IndexBox{{2, 3, 4}, {5, 12, 6}}, 7);   // 4 x 10 x 3 = 120 voxels
    tx.fillBox(IndexBox{{10, 0, 0}, {10, 0, 0}}, 300);  // single voxel
    REQUIRE(tx.commit());
  }
  auto stats = computeLabelStatistics(labels, &image).value();
  REQUIRE(stats.size() == 2);
  const LabelStatistics& a = stats[0];
  REQUIRE(a.label == 7);
  REQUIRE(a.voxelCount == 120);
  REQUIRE(a.volumeMl == Approx(120 * 0.5 * 2.0 * 3.0 / 1000.0));
  REQUIRE(a.mean == Approx(3.5));
  REQUIRE(a.stddev == Approx(std::sqrt(1.25)));  // population std of {2,3,4,5}
  REQUIRE(a.min == 2.0);
  REQUIRE(a.max == 5.0);
  REQUIRE(a.box == IndexBox{{2, 3, 4}, {5, 12, 6}});
  // Centroid index (3.5, 7.5, 5) -> LPS with y flipped.
  REQUIRE(a.centroidLps[0] == Approx(100 + 3.5 * 0.5));
  REQUIRE(a.centroidLps[1] == Approx(50 - 7.5 * 2.0));
  REQUIRE(a.centroidLps[2] == Approx(-20 + 5 * 3.0));
  const LabelStatistics& b = stats[1];
  REQUIRE(b.label == 300);
  REQUIRE(b.voxelCount == 1);
  REQUIRE(b.stddev == 0.0);
  REQUIRE(b.mean == 10.0);

  StatisticsOptions withBackground;
  withBackground.includeBackground = true;
  auto all = computeLabelStatistics(labels, &image, withBackground).value();
  REQUIRE(all.size() == 3);
  REQUIRE(all[0].label == 0);
  REQUIRE(all[0].voxelCount == 20 * 30 * 10 - 121);

  auto noImage = computeLabelStatistics(labels, nullptr).value();
  REQUIRE(std::isnan(noImage[0].mean));
  REQUIRE(noImage[0].voxelCount == 120);

  auto otherGrid = ImageVolume::create(Geometry({20, 30, 10}, {0.5, 2.0, 3.0}, {100, 50, -20})).value();
  REQUIRE(computeLabelStatistics(labels, &otherGrid).error().code == ErrorCode::GeometryMismatch);
}

TEST_CASE("non-finite intensities are left out of the intensity summary", "[statistics]") {
  const Geometry g({4, 1, 1}, {1, 1, 1}, {0, 0, 0});
  auto image = ImageVolume::create(g).value();
  image.buffer() = {1.0f, std::numeric_limits<float>::quiet_NaN(), 3.0f, std::numeric_limits<float>::infinity()};
  auto labels = LabelMap::create(g).value();
  {
    EditTransaction tx(labels, "all");
    tx.fillBox(g.fullBox(), 1);
    tx.set({3, 0, 0}, 2);
    REQUIRE(tx.commit());
  }
  auto stats = computeLabelStatistics(labels, &image).value();
  REQUIRE(stats[0].voxelCount == 3);
  REQUIRE(stats[0].mean == Approx(2.0));
  REQUIRE(stats[0].max == 3.0);
  REQUIRE(stats[1].voxelCount == 1);
  REQUIRE(std::isnan(stats[1].mean));
}

TEST_CASE("bounding boxes see rows that start further left on later slices", "[statistics]") {
  auto labels = LabelMap::create(Geometry({10, 10, 10}, {1, 1, 1}, {0, 0, 0})).value();
  EditTransaction tx(labels, "t");
  tx.set({5, 5, 1}, 2);
  tx.set({1, 2, 8}, 2);
  tx.set({7, 9, 3}, 2);
  REQUIRE(tx.commit());
  auto stats = computeLabelStatistics(labels, nullptr).value();
  REQUIRE(stats[0].box == IndexBox{{1, 2, 1}, {7, 9, 8}});
}

TEST_CASE("volumes check sizes before allocating", "[volume]") {
  auto huge = Volume<float>::create(Geometry({1 << 14, 1 << 14, 1 << 14}, {1, 1, 1}, {0, 0, 0}), 0.f, "x.nii");
  REQUIRE_FALSE(huge.ok());
  REQUIRE(huge.error().code == ErrorCode::SizeLimit);
  auto bad = Volume<float>::adopt(Geometry({2, 2, 2}, {1, 1, 1}, {0, 0, 0}), Volume<float>::UninitBuffer(7));
  REQUIRE(bad.error().code == ErrorCode::Corrupt);
  auto ok = Volume<std::int16_t>::create(Geometry({3, 4, 5}, {1, 1, 1}, {0, 0, 0}), 9).value();
  REQUIRE(ok.size() == 60);
  REQUIRE(ok.byteSize() == 120);
  REQUIRE(ok.at({2, 3, 4}) == 9);
}

TEST_CASE("label tables keep entries sorted and unique", "[labeltable]") {
  LabelTable t;
  REQUIRE(t.add(LabelEntry{5, "five", {}, true, false, true, {}}).ok());
  REQUIRE(t.add(LabelEntry{2, "two", {}, true, false, true, {}}).ok());
  REQUIRE(t.add(LabelEntry{1, "one", {}, true, false, true, {}}).ok());
  REQUIRE_FALSE(t.add(LabelEntry{2, "again", {}, true, false, true, {}}).ok());
  REQUIRE_FALSE(t.add(LabelEntry{9, "", {}, true, false, true, {}}).ok());
  REQUIRE(t.entries()[0].id == 1);
  REQUIRE(t.entries()[2].id == 5);
  REQUIRE(t.nextFreeId() == 3);
  REQUIRE(t.findByName("five")->id == 5);
  t.set(LabelEntry{2, "renamed", {}, true, true, true, {}});
  REQUIRE(t.find(2)->name == "renamed");
  REQUIRE(t.isLocked(2));
  REQUIRE(t.remove(2));
  REQUIRE_FALSE(t.remove(2));
  REQUIRE(t.nextFreeId() == 2);
  // Default colours are deterministic and differ between neighbours.
  REQUIRE(LabelTable::defaultColor(7) == LabelTable::defaultColor(7));
  for (Label id = 1; id < 200; ++id) REQUIRE(LabelTable::defaultColor(id) != LabelTable::defaultColor(Label(id + 1)));
}
