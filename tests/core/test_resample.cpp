#include <catch2/catch.hpp>

#include <random>

#include "core/resample.h"
#include "tests/common/test_support.h"

using namespace delineate::core;

namespace {
LabelMap randomMap(const Geometry& g, unsigned seed) {
  auto map = Volume<Label>::create(g, 0);
  REQUIRE(map.ok());
  std::mt19937 rng(seed);
  for (std::size_t i = 0; i < map->size(); ++i) map->data()[i] = static_cast<Label>(rng() % 7);
  return LabelMap(std::move(map).value());
}
}  // namespace

TEST_CASE("resample: the same grid and the same grid stored flipped give the map back", "[resample]") {
  const Geometry image({7, 5, 4}, {0.8, 1.2, 2.5}, {-10, 20, 30});
  const LabelMap map = randomMap(image, 1);
  REQUIRE(coversVoxelCentres(image, image));
  auto same = resampleNearest(map, image);
  REQUIRE(same.ok());
  for (std::size_t i = 0; i < map.size(); ++i) REQUIRE((*same)[i] == map[i]);

  // The same voxels stored RAS-style: i and j reversed, the origin at the other corner.
  Mat3 flip;
  flip(0, 0) = -1;
  flip(1, 1) = -1;
  const Geometry flipped({7, 5, 4}, {0.8, 1.2, 2.5}, image.indexToLps(Index3{6, 4, 0}), flip);
  auto storedFlipped = Volume<Label>::create(flipped, 0);
  REQUIRE(storedFlipped.ok());
  for (std::int64_t k = 0; k < 4; ++k)
    for (std::int64_t j = 0; j < 5; ++j)
      for (std::int64_t i = 0; i < 7; ++i) storedFlipped->at({6 - i, 4 - j, k}) = map.at({i, j, k});
  const LabelMap flippedMap(std::move(storedFlipped).value());
  REQUIRE(coversVoxelCentres(flipped, image));
  auto back = resampleNearest(flippedMap, image);
  REQUIRE(back.ok());
  for (std::size_t i = 0; i < map.size(); ++i) REQUIRE((*back)[i] == map[i]);
}

TEST_CASE("resample: a coarser map of the same space gives each voxel its parent's label", "[resample]") {
  // Image 8 x 8 x 4 at 1 mm; map 4 x 4 x 2 at 2 mm over the same box (its first centre half a voxel further).
  const Geometry image({8, 8, 4}, {1, 1, 1}, {0, 0, 0});
  const Geometry coarse({4, 4, 2}, {2, 2, 2}, {0.5, 0.5, 0.5});
  const LabelMap map = randomMap(coarse, 2);
  REQUIRE(coversVoxelCentres(coarse, image));
  auto fine = resampleNearest(map, image);
  REQUIRE(fine.ok());
  CHECK(fine->geometry() == image);
  for (std::int64_t k = 0; k < 4; ++k)
    for (std::int64_t j = 0; j < 8; ++j)
      for (std::int64_t i = 0; i < 8; ++i) REQUIRE(fine->at({i, j, k}) == map.at({i / 2, j / 2, k / 2}));
}

TEST_CASE("resample: an oblique image inside a larger map, and a map that does not cover the image", "[resample]") {
  const Geometry big({60, 60, 60}, {1, 1, 1}, {-30, -30, -30});
  const LabelMap map = randomMap(big, 3);
  const Geometry oblique({10, 12, 8}, {1.5, 1.1, 2}, {-5, -4, -3}, delineate::test::rotationMatrix(0.3, -0.5, 1.1));
  REQUIRE(coversVoxelCentres(big, oblique));
  auto out = resampleNearest(map, oblique);
  REQUIRE(out.ok());
  for (std::int64_t k = 0; k < 8; ++k)
    for (std::int64_t j = 0; j < 12; ++j)
      for (std::int64_t i = 0; i < 10; ++i)
        REQUIRE(out->at({i, j, k}) == map.at(big.lpsToNearestIndex(oblique.indexToLps(Index3{i, j, k}))));

  // The other way round the small grid leaves most of the big one uncovered: refused by the check, background there.
  CHECK_FALSE(coversVoxelCentres(oblique, big));
  const Geometry shifted({8, 8, 4}, {1, 1, 1}, {4, 0, 0});  // half of it beyond a 8 mm wide map
  const Geometry image({8, 8, 4}, {1, 1, 1}, {0, 0, 0});
  CHECK_FALSE(coversVoxelCentres(image, shifted));
  const LabelMap ones = [&] {
    auto v = Volume<Label>::create(image, 5);
    REQUIRE(v.ok());
    return LabelMap(std::move(v).value());
  }();
  auto partial = resampleNearest(ones, shifted);
  REQUIRE(partial.ok());
  CHECK(partial->at({3, 0, 0}) == 5);
  CHECK(partial->at({4, 0, 0}) == 0);
}
