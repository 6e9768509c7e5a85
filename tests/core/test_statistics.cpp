#include <catch2/catch.hpp>

#include <cstdio>
#include <string>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <random>
#include <vector>

#include "core/edit_transaction.h"
#include "core/statistics.h"
#include "core/statistics_internal.h"
#include "tests/common/test_support.h"

using namespace delineate::core;

namespace {

LabelMap mapOf(const Geometry& g, Volume<Label>::UninitBuffer voxels) {
  return LabelMap(Volume<Label>::adopt(g, std::move(voxels)).value());
}

// Median as the definition says: sort the finite values, average the two middle ones.
double sortedMedian(std::vector<float> v) {
  if (v.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::sort(v.begin(), v.end());
  return (double(v[(v.size() - 1) / 2]) + double(v[v.size() / 2])) / 2.0;
}

// Brute force over all pairs of voxel centres.
double bruteDiameter(const std::vector<Index3>& voxels, const Geometry& g) {
  double best = 0;
  std::vector<Vec3> p;
  for (const Index3& v : voxels) p.push_back(g.indexToLps(v));
  for (std::size_t a = 0; a < p.size(); ++a)
    for (std::size_t b = a + 1; b < p.size(); ++b) {
      const double dx = p[a][0] - p[b][0], dy = p[a][1] - p[b][1], dz = p[a][2] - p[b][2];
      best = std::max(best, std::sqrt(dx * dx + dy * dy + dz * dz));
    }
  return best;
}

struct Reference {
  std::vector<Index3> voxels;
  std::vector<float> finite;
};

std::map<Label, Reference> referenceOf(const LabelMap& labels, const ImageVolume* image) {
  std::map<Label, Reference> out;
  const Size3& d = labels.geometry().dimensions();
  for (std::int64_t k = 0; k < d[2]; ++k)
    for (std::int64_t j = 0; j < d[1]; ++j)
      for (std::int64_t i = 0; i < d[0]; ++i) {
        const Label l = labels.at({i, j, k});
        if (l == 0) continue;
        Reference& r = out[l];
        r.voxels.push_back({i, j, k});
        if (image && std::isfinite(image->at({i, j, k}))) r.finite.push_back(image->at({i, j, k}));
      }
  return out;
}

// Random connected blobs grown by random walks, later labels painting over earlier ones.
Volume<Label>::UninitBuffer randomBlobs(const Geometry& g, std::mt19937& rng, int count, int steps) {
  const Size3& d = g.dimensions();
  Volume<Label>::UninitBuffer v(static_cast<std::size_t>(g.voxelCount()), Label(0));
  for (int l = 1; l <= count; ++l) {
    Index3 p{std::int64_t(rng() % std::uint32_t(d[0])), std::int64_t(rng() % std::uint32_t(d[1])),
             std::int64_t(rng() % std::uint32_t(d[2]))};
    for (int s = 0; s < steps; ++s) {
      v[g.linearIndex(p)] = Label(l * 37);
      const std::size_t axis = rng() % 3;
      p[axis] = std::clamp<std::int64_t>(p[axis] + ((rng() & 1) ? 1 : -1), 0, d[axis] - 1);
    }
  }
  return v;
}

}  // namespace

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
  // Ids the label map carries are taken too (issue 23: a new label must not adopt voxels the table does not name).
  REQUIRE(t.nextFreeId({2, 3}) == 4);
  REQUIRE(t.nextFreeId({}) == 2);
  // Default colours are deterministic and differ between neighbours.
  REQUIRE(LabelTable::defaultColor(7) == LabelTable::defaultColor(7));
  for (Label id = 1; id < 200; ++id) REQUIRE(LabelTable::defaultColor(id) != LabelTable::defaultColor(Label(id + 1)));
}

TEST_CASE("label colours: a table of up to 30 labels, read or grown one by one, keeps every pair apart", "[labels]") {
  // Issue 41: the golden-angle walk gave ids 1 and 14 nearly the same green (delta E 6.9).
  CHECK(LabelTable::colorDistance(LabelTable::defaultColor(1), LabelTable::defaultColor(14)) < 10);
  auto closest = [](const LabelTable& t) {
    double d = 1e9;
    for (const LabelEntry& x : t.entries())
      for (const LabelEntry& y : t.entries())
        if (y.id > x.id) d = std::min(d, LabelTable::colorDistance(x.color, y.color));
    return d;
  };
  LabelTable read, grown;
  for (Label id = 1; id <= 30; ++id) {
    read.set(LabelEntry{id, "structure " + std::to_string(id), Rgba{0, 0, 0, 255}, true, false, true, {}});
    grown.set(LabelEntry{id, "structure " + std::to_string(id), grown.colorForNewLabel(), true, false, true, {}});
  }
  read.assignDistinctColors();
  CHECK(closest(read) >= 30);
  CHECK(closest(grown) >= 30);
  // Bright and saturated enough to show over grey: no palette colour is a grey.
  for (std::size_t i = 0; i < LabelTable::kDistinctColors; ++i) {
    const Rgba c = LabelTable::distinctColor(i);
    CHECK(std::max({c.r, c.g, c.b}) - std::min({c.r, c.g, c.b}) >= 40);
  }
  // A label added to a table in the colours of the old walk takes a colour away from all of them.
  LabelTable old;
  for (Label id = 1; id <= 20; ++id) old.set(LabelEntry{id, "l", LabelTable::defaultColor(id), true, false, true, {}});
  const Rgba added = old.colorForNewLabel();
  for (const LabelEntry& e : old.entries()) CHECK(LabelTable::colorDistance(added, e.color) >= 20);
}

TEST_CASE("medians are exact against sorting, with ties, signed zeros and non-finite values left out",
          "[statistics]") {
  std::mt19937 rng(20240611);
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  const float specials[] = {nan, inf, -inf, 0.0f, -0.0f, 1e30f, -1e30f, 1e-40f, -3.5f, 7.25f};
  for (int round = 0; round < 6; ++round) {
    const Geometry g({23, 17, 11}, {1, 1, 1}, {0, 0, 0});
    auto labels = mapOf(g, randomBlobs(g, rng, 8, 1 + int(rng() % 900)));
    auto image = ImageVolume::create(g).value();
    std::uniform_real_distribution<float> wide(-2000.0f, 3000.0f);
    for (float& v : image.buffer()) {
      switch (rng() % 4) {
        case 0: v = specials[rng() % 10]; break;                 // ties and extremes
        case 1: v = float(int(rng() % 7)) - 3.0f; break;         // many ties
        default: v = round % 2 ? wide(rng) : wide(rng) * 1e-3f;  // continuous
      }
    }
    const auto ref = referenceOf(labels, &image);
    auto stats = computeLabelStatistics(labels, &image).value();
    REQUIRE(stats.size() == ref.size());
    for (const LabelStatistics& s : stats) {
      const double expected = sortedMedian(ref.at(s.label).finite);
      INFO("label " << s.label << " of " << ref.at(s.label).finite.size() << " finite values");
      if (std::isnan(expected)) REQUIRE(std::isnan(s.median));
      else REQUIRE(s.median == expected);
    }

    // The paths big studies take, forced on the small grid: histograms from the first pass (down to two bins per
    // label, so up to 32 passes) and collection after one or more narrowing passes.
    std::vector<std::int32_t> slotOf(65536, -1);
    std::vector<detail::MedianRequest> requests;
    for (const auto& [label, r] : ref) {
      slotOf[label] = static_cast<std::int32_t>(requests.size());
      detail::MedianRequest q;
      q.finiteCount = r.finite.size();
      if (!r.finite.empty()) {
        q.min = *std::min_element(r.finite.begin(), r.finite.end());
        q.max = *std::max_element(r.finite.begin(), r.finite.end());
      }
      q.box = g.fullBox();
      requests.push_back(q);
    }
    for (const detail::MedianTuning tuning : {detail::MedianTuning{0, 8, 2, 2}, detail::MedianTuning{0, 64, 4, 16},
                                              detail::MedianTuning{5, 1 << 10, 256, 256},
                                              detail::MedianTuning{40, 16, 2, 4}}) {
      int passes = 0;
      const std::vector<double> m = detail::labelMedians(labels, image, slotOf, requests, tuning, &passes);
      for (const auto& [label, r] : ref) {
        const double expected = sortedMedian(r.finite);
        const double got = m[static_cast<std::size_t>(slotOf[label])];
        INFO("label " << label << ", collectMax " << tuning.collectMax << ", bins " << tuning.maxBins);
        if (std::isnan(expected)) REQUIRE(std::isnan(got));
        else REQUIRE(got == expected);
      }
      REQUIRE(passes >= 1);
      REQUIRE(passes <= 33);
    }
  }
}

TEST_CASE("medians of large labels take the histogram path, and are NaN where no intensity is", "[statistics]") {
  const Geometry g({64, 64, 40}, {0.8, 0.8, 2.0}, {0, 0, 0});
  Volume<Label>::UninitBuffer v(static_cast<std::size_t>(g.voxelCount()), Label(1));
  for (std::size_t i = 0; i < 64 * 64; ++i) v[i] = 2;  // one slice of label 2, the rest (160k voxels) label 1
  v[5000] = 3;
  auto labels = mapOf(g, std::move(v));
  auto image = ImageVolume::create(g).value();
  std::mt19937 rng(7);
  std::normal_distribution<float> tissue(40.0f, 15.0f);
  for (std::size_t i = 0; i < image.size(); ++i) image[i] = i % 3 ? tissue(rng) : std::round(tissue(rng));
  image[5000] = std::numeric_limits<float>::quiet_NaN();
  const auto ref = referenceOf(labels, &image);
  auto stats = computeLabelStatistics(labels, &image).value();
  REQUIRE(stats.size() == 3);
  REQUIRE(stats[0].median == sortedMedian(ref.at(1).finite));
  REQUIRE(stats[1].median == sortedMedian(ref.at(2).finite));
  REQUIRE(std::isnan(stats[2].median));  // its only voxel is NaN

  // Even counts average the two middle values.
  const Geometry g4({4, 1, 1}, {1, 1, 1}, {0, 0, 0});
  auto four = mapOf(g4, Volume<Label>::UninitBuffer(4, Label(1)));
  auto img4 = ImageVolume::create(g4).value();
  img4.buffer() = {10.0f, 1.0f, 2.0f, 1e20f};
  REQUIRE(computeLabelStatistics(four, &img4).value()[0].median == 6.0);

  REQUIRE(std::isnan(computeLabelStatistics(labels, nullptr).value()[0].median));
  StatisticsOptions noMedian;
  noMedian.median = false;
  auto without = computeLabelStatistics(labels, &image, noMedian).value();
  REQUIRE(std::isnan(without[0].median));
  REQUIRE(without[0].mean == stats[0].mean);
}

TEST_CASE("longest diameters equal brute force on random blobs in an oblique anisotropic grid", "[statistics]") {
  std::mt19937 rng(99);
  for (int round = 0; round < 8; ++round) {
    const Mat3 rotation = delineate::test::rotationMatrix(0.3 * round, -0.7 + 0.2 * round, 1.1);
    const Geometry g({26, 21, 15}, {0.7, 1.3, 2.9 - 0.3 * round}, {-40, 12, 300}, rotation);
    auto labels = mapOf(g, randomBlobs(g, rng, 6, 50 + int(rng() % 1500)));
    const auto ref = referenceOf(labels, nullptr);
    auto stats = computeLabelStatistics(labels, nullptr).value();
    REQUIRE(stats.size() == ref.size());
    for (const LabelStatistics& s : stats) {
      const Reference& r = ref.at(s.label);
      INFO("label " << s.label << " of " << r.voxels.size() << " voxels");
      REQUIRE(s.longestDiameterMm == Approx(bruteDiameter(r.voxels, g)).epsilon(1e-12).margin(1e-12));
    }
  }
}

TEST_CASE("longest diameters of points, lines, planes and single voxels", "[statistics]") {
  const Geometry g({30, 20, 10}, {0.5, 1.5, 3.0}, {0, 0, 0}, delineate::test::rotationMatrix(0.4, 0.2, -0.9));
  auto labels = LabelMap::create(g).value();
  {
    EditTransaction tx(labels, "shapes");
    tx.set({3, 4, 5}, 1);                                // one voxel
    tx.set({0, 0, 0}, 2);                                // two voxels
    tx.set({29, 19, 9}, 2);
    tx.fillBox(IndexBox{{2, 10, 1}, {27, 10, 1}}, 3);    // a line along i
    tx.fillBox(IndexBox{{5, 12, 0}, {20, 18, 0}}, 4);    // a flat rectangle in one slice
    tx.fillBox(IndexBox{{21, 0, 2}, {21, 8, 9}}, 5);     // a rectangle across slices
    REQUIRE(tx.commit());
  }
  auto stats = computeLabelStatistics(labels, nullptr).value();
  REQUIRE(stats.size() == 5);
  REQUIRE(stats[0].longestDiameterMm == 0.0);
  REQUIRE(stats[1].longestDiameterMm == Approx(std::sqrt(29 * 29 * 0.25 + 19 * 19 * 2.25 + 81 * 9.0)));
  REQUIRE(stats[2].longestDiameterMm == Approx(25 * 0.5));
  REQUIRE(stats[3].longestDiameterMm == Approx(std::sqrt(15 * 15 * 0.25 + 6 * 6 * 2.25)));
  REQUIRE(stats[4].longestDiameterMm == Approx(std::sqrt(8 * 8 * 2.25 + 7 * 7 * 9.0)));
  StatisticsOptions noDiameter;
  noDiameter.diameter = false;
  REQUIRE(computeLabelStatistics(labels, nullptr, noDiameter).value()[1].longestDiameterMm == 0.0);

  // The hull reduction itself, on point sets with collinear and coplanar runs.
  std::vector<Index3> square;
  for (std::int64_t a = 0; a < 5; ++a)
    for (std::int64_t b = 0; b < 5; ++b) square.push_back({a, b, 7});
  detail::keepHullVertices2D(square, 0, 1);
  std::sort(square.begin(), square.end());
  REQUIRE(square == std::vector<Index3>{{0, 0, 7}, {0, 4, 7}, {4, 0, 7}, {4, 4, 7}});
  std::mt19937 rng(3);
  for (int round = 0; round < 50; ++round) {
    std::vector<Index3> pts;
    const int n = 2 + int(rng() % 60);
    for (int t = 0; t < n; ++t) {
      const Index3 p{std::int64_t(rng() % 9), std::int64_t(rng() % (round % 3 ? 9 : 1)), std::int64_t(rng() % 5)};
      if (std::find(pts.begin(), pts.end(), p) == pts.end()) pts.push_back(p);
    }
    REQUIRE(detail::longestDistanceMm(pts, g) == Approx(bruteDiameter(pts, g)).epsilon(1e-12));
  }
}

TEST_CASE("slice ranges count only their slices and are validated", "[statistics]") {
  std::mt19937 rng(5);
  const Geometry g({19, 23, 13}, {0.9, 1.1, 2.5}, {10, -5, 7}, delineate::test::rotationMatrix(0.1, 0.5, 0.2));
  auto voxels = randomBlobs(g, rng, 5, 1200);
  auto labels = mapOf(g, voxels);
  auto image = ImageVolume::create(g).value();
  std::uniform_real_distribution<float> u(-100.0f, 100.0f);
  for (float& v : image.buffer()) v = rng() % 10 ? u(rng) : std::numeric_limits<float>::quiet_NaN();
  const SliceRange ranges[] = {{2, 3, 7}, {0, 0, 0}, {1, 11, -1}, {0, 5, 18}, {2, 0, -1}};
  for (const SliceRange& range : ranges) {
    INFO("axis " << range.axis << " [" << range.first << ", " << range.last << "]");
    // The same statistics as of a map with everything outside the slices erased.
    auto clipped = voxels;
    const IndexBox box = sliceRangeBox(g, range).value();
    for (std::int64_t k = 0; k < 13; ++k)
      for (std::int64_t j = 0; j < 23; ++j)
        for (std::int64_t i = 0; i < 19; ++i)
          if (!box.contains({i, j, k})) clipped[g.linearIndex({i, j, k})] = 0;
    const auto expected = computeLabelStatistics(mapOf(g, clipped), &image).value();
    StatisticsOptions options;
    options.slices = range;
    const auto got = computeLabelStatistics(labels, &image, options).value();
    REQUIRE(got.size() == expected.size());
    for (std::size_t s = 0; s < got.size(); ++s) {
      REQUIRE(got[s].label == expected[s].label);
      REQUIRE(got[s].voxelCount == expected[s].voxelCount);
      REQUIRE(got[s].box == expected[s].box);
      REQUIRE(got[s].centroidLps == expected[s].centroidLps);
      REQUIRE(got[s].min == expected[s].min);
      REQUIRE(got[s].median == expected[s].median);
      REQUIRE(got[s].longestDiameterMm == expected[s].longestDiameterMm);
      REQUIRE(box.contains(got[s].box.min));
      REQUIRE(box.contains(got[s].box.max));
      if (std::isnan(expected[s].mean)) REQUIRE(std::isnan(got[s].mean));
      else REQUIRE(got[s].mean == expected[s].mean);
    }
  }
  REQUIRE(sliceRangeBox(g, SliceRange{}).value() == g.fullBox());
  const SliceRange bad[] = {{3, 0, -1}, {-1, 0, 0}, {2, 5, 3}, {2, 0, 13}, {1, -1, 4}, {0, 2, -2}};
  for (const SliceRange& range : bad) {
    StatisticsOptions options;
    options.slices = range;
    auto r = computeLabelStatistics(labels, &image, options);
    REQUIRE_FALSE(r.ok());
    REQUIRE(r.error().code == ErrorCode::InvalidArgument);
    const std::string name = "axis " + std::to_string(range.axis) + " [" + std::to_string(range.first) + ", " +
                             std::to_string(range.last) + "]";
    REQUIRE(r.error().subject.find(name) != std::string::npos);
  }
}

TEST_CASE("statistics of a 512x512x300 study with a body and an organ-sized label", "[statistics][large]") {
  // An elliptic body cylinder (label 1, about 31 M voxels, integer HU) around an ellipsoidal organ (label 2, semi-axes
  // 84, 56, 60 mm: about 2.4 M voxels, 1.2 l, float intensities).
  const Geometry g({512, 512, 300}, {0.7, 0.7, 1.0}, {-180, -180, -150});
  Volume<Label>::UninitBuffer v(static_cast<std::size_t>(g.voxelCount()), Label(0));
  auto image = ImageVolume::create(g, -1000.0f).value();
  std::mt19937 rng(11);
  std::normal_distribution<float> organNoise(60.0f, 12.0f);
  std::vector<std::uint64_t> bodyCounts(200, 0);  // HU -40..159
  std::vector<float> organValues;
  std::uint64_t bodyVoxels = 0;
  std::size_t idx = 0;
  for (std::int64_t k = 0; k < 300; ++k)
    for (std::int64_t j = 0; j < 512; ++j)
      for (std::int64_t i = 0; i < 512; ++i, ++idx) {
        const double bx = double(i - 256) / 220.0, by = double(j - 256) / 150.0;
        if (bx * bx + by * by > 1) continue;
        const double ox = double(i - 256) / 120.0, oy = double(j - 250) / 80.0, oz = double(k - 150) / 60.0;
        if (ox * ox + oy * oy + oz * oz <= 1) {
          v[idx] = 2;
          image[idx] = organNoise(rng);
          organValues.push_back(image[idx]);
        } else {
          v[idx] = 1;
          const int hu = int((i * 7 + j * 13 + k * 3) % 200) - 40;
          image[idx] = float(hu);
          ++bodyCounts[static_cast<std::size_t>(hu + 40)];
          ++bodyVoxels;
        }
      }
  auto labels = mapOf(g, std::move(v));
  auto stats = computeLabelStatistics(labels, &image).value();
  REQUIRE(stats.size() == 2);
  REQUIRE(stats[0].voxelCount == bodyVoxels);
  REQUIRE(stats[1].voxelCount == organValues.size());
  REQUIRE(stats[1].volumeMl == Approx(4.0 / 3.0 * M_PI * 84 * 56 * 60 / 1000.0).epsilon(0.01));
  REQUIRE(stats[1].box == IndexBox{{136, 170, 90}, {376, 330, 210}});
  // The ellipsoid's major axis, whose ends are voxel centres, is its diameter.
  REQUIRE(stats[1].longestDiameterMm == Approx(2 * 120 * 0.7).epsilon(1e-12));
  REQUIRE(stats[1].median == sortedMedian(organValues));
  // The body's median from its value counts.
  const std::uint64_t lower = (bodyVoxels - 1) / 2, upper = bodyVoxels / 2;
  std::uint64_t seen = 0;
  double a = 0, b = 0;
  for (std::size_t h = 0; h < bodyCounts.size(); ++h) {
    if (seen <= lower && lower < seen + bodyCounts[h]) a = double(h) - 40;
    if (seen <= upper && upper < seen + bodyCounts[h]) b = double(h) - 40;
    seen += bodyCounts[h];
  }
  REQUIRE(stats[0].median == (a + b) / 2);
  // A prism's diameter joins the ends of its section's diameter (the major axis) on the first and last slices.
  REQUIRE(stats[0].longestDiameterMm == Approx(std::sqrt(308.0 * 308.0 + 299.0 * 299.0)).epsilon(1e-12));

  StatisticsOptions slab;
  slab.slices = SliceRange{2, 140, 160};
  auto inSlab = computeLabelStatistics(labels, &image, slab).value();
  REQUIRE(inSlab[1].box.min[2] == 140);
  REQUIRE(inSlab[1].box.max[2] == 160);
  REQUIRE(inSlab[1].longestDiameterMm == Approx(2 * 120 * 0.7).epsilon(1e-12));
}

TEST_CASE("volumes for people: mL from 1 mL up and mm3 below with three significant digits", "[statistics]") {
  auto text = [](double mm3) {
    const VolumeText t = volumeText(mm3);
    char out[32];
    std::snprintf(out, sizeof out, "%.*f %s", t.decimals, t.value, t.millilitres ? "mL" : "mm3");
    return std::string(out);
  };
  CHECK(text(17.4) == "17.4 mm3");         // a mouse hippocampus: not "0.02 mL"
  CHECK(text(0.0034) == "0.00340 mm3");    // one 0.15 mm voxel
  CHECK(text(895541.6) == "896 mL");
  CHECK(text(42900) == "42.9 mL");
  CHECK(text(999.4) == "999 mm3");
  CHECK(text(999.6) == "1.00 mL");         // what rounds to 1 mL is shown in mL
  CHECK(text(99.96) == "100 mm3");         // rounding that carries a digit loses a decimal
  CHECK(text(0) == "0 mm3");
  CHECK(text(-1500) == "-1.50 mL");
}
