#include <catch2/catch.hpp>

#include <random>
#include <vector>

#include "core/label_runs.h"

using namespace delineate::core;

namespace {

// The map the runs describe, voxel for voxel.
std::vector<Label> decode(const LabelRuns& runs) {
  const Size3& d = runs.geometry().dimensions();
  std::vector<Label> out(static_cast<std::size_t>(d[0] * d[1] * d[2]), 0);
  for (std::int64_t z = 0; z < d[2]; ++z)
    for (std::int64_t y = 0; y < d[1]; ++y) {
      const auto [first, last] = runs.row(y, z);
      std::int32_t previousEnd = 0;
      for (const LabelRuns::Run* r = first; r != last; ++r) {
        CHECK(r->begin >= previousEnd);  // left to right, not overlapping
        CHECK(r->end > r->begin);
        CHECK(r->value != 0);  // background is left out
        previousEnd = r->end;
        for (std::int32_t x = r->begin; x < r->end; ++x) out[static_cast<std::size_t>((z * d[1] + y) * d[0] + x)] = r->value;
      }
    }
  return out;
}

}  // namespace

TEST_CASE("label runs: a segmentation's runs decode to the map, at a fraction of its size", "[runs]") {
  const Geometry g({97, 61, 23}, {0.8, 0.8, 2.5}, {-40, 12, 3});
  auto voxels = Volume<Label>::create(g).value();
  // Nested blobs and a few labels above 255, as an atlas has them.
  for (std::int64_t z = 0; z < 23; ++z)
    for (std::int64_t y = 0; y < 61; ++y)
      for (std::int64_t x = 0; x < 97; ++x) {
        const double dx = double(x) - 48.0, dy = double(y) - 30.0, dz = double(z) - 11.0;
        const double r2 = dx * dx / 1600 + dy * dy / 700 + dz * dz / 100;
        Label l = r2 < 1 ? 5 : 0;
        if (r2 < 0.3) l = 1002;
        if (x > 90 && y < 5) l = 65535;
        voxels.at({x, y, z}) = l;
      }
  const LabelMap map(voxels);
  auto runs = LabelRuns::encode(map, map.size() * sizeof(Label));
  REQUIRE(runs);
  CHECK(runs->geometry().isCloseTo(g));
  CHECK(decode(*runs) == std::vector<Label>(map.data(), map.data() + map.size()));
  CHECK(runs->byteSize() < map.size() * sizeof(Label) / 4);
}

TEST_CASE("label runs: a map of noise gives up at the bound, an empty map has no runs", "[runs]") {
  const Geometry g({64, 64, 8}, {1, 1, 1}, {0, 0, 0});
  auto noise = Volume<Label>::create(g).value();
  std::mt19937 rng(7);
  for (std::size_t i = 0; i < noise.size(); ++i) noise[i] = static_cast<Label>(rng() % 7);
  const LabelMap noisy(noise);
  CHECK_FALSE(LabelRuns::encode(noisy, noisy.size() * sizeof(Label) / 2));
  auto unbounded = LabelRuns::encode(noisy, std::size_t(1) << 30);
  REQUIRE(unbounded);
  CHECK(decode(*unbounded) == std::vector<Label>(noisy.data(), noisy.data() + noisy.size()));
  const LabelMap empty = LabelMap::create(g).value();
  auto none = LabelRuns::encode(empty, 1 << 20);
  REQUIRE(none);
  CHECK(none->runCount() == 0);
  CHECK(decode(*none) == std::vector<Label>(empty.size(), 0));
}
