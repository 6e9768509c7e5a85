// The click session's working grid (block averaging, interpolation back to the image grid) and its bucket-queue
// geodesic competition, each against a plain reference computed here.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <queue>
#include <random>

#include "inference/classic/click_session.h"
#include "inference/classic/geodesic.h"
#include "inference/classic/working_grid.h"
#include "inference/click_evaluator.h"

using namespace delineate;
using namespace delineate::core;
using namespace delineate::inference::classic;

namespace {

// A bright ellipsoid (200 against 20, Gaussian noise of 15) on `g`: centre and semi-axes in mm from the grid origin.
struct Ellipsoid {
  ImageVolume image;
  Volume<std::uint8_t> reference;
};
Ellipsoid brightEllipsoid(const Geometry& g, const Vec3& centreMm, const Vec3& radiiMm, unsigned seed) {
  Ellipsoid e{ImageVolume::create(g).value(), Volume<std::uint8_t>::create(g, 0).value()};
  std::mt19937 rng(seed);
  std::normal_distribution<float> noise(0, 15);
  const Size3 d = g.dimensions();
  const Vec3 sp = g.spacingMm();
  for (std::int64_t z = 0; z < d[2]; ++z)
    for (std::int64_t y = 0; y < d[1]; ++y)
      for (std::int64_t x = 0; x < d[0]; ++x) {
        const double dx = (double(x) * sp[0] - centreMm[0]) / radiiMm[0], dy = (double(y) * sp[1] - centreMm[1]) / radiiMm[1],
                     dz = (double(z) * sp[2] - centreMm[2]) / radiiMm[2];
        const bool inside = dx * dx + dy * dy + dz * dz <= 1;
        e.image.at({x, y, z}) = (inside ? 200.0f : 20.0f) + noise(rng);
        e.reference.at({x, y, z}) = inside ? 1 : 0;
      }
  return e;
}

// Textbook Dijkstra with a binary heap and the same rules as geodesicCompetition.
std::vector<std::uint8_t> referenceCompetition(const std::vector<float>& v, const std::int64_t n[3], const Vec3& sp,
                                               const std::vector<GeodesicSeed>& seeds,
                                               const std::vector<std::uint8_t>& shared, float w) {
  const std::size_t total = v.size();
  std::vector<double> dist(total, std::numeric_limits<double>::infinity());
  std::vector<std::uint8_t> owner(total, 0);
  std::vector<std::size_t> from(total, 0);
  using Item = std::pair<double, std::size_t>;
  std::priority_queue<Item, std::vector<Item>, std::greater<Item>> q;
  for (std::size_t k = 0; k < seeds.size(); ++k) {
    const auto& s = seeds[k].at;
    const std::size_t i = static_cast<std::size_t>((s[2] * n[1] + s[1]) * n[0] + s[0]);
    dist[i] = 0;
    owner[i] = seeds[k].positive ? 1 : 2;
    from[i] = k;
    q.push({0, i});
  }
  while (!q.empty()) {
    const auto [d, i] = q.top();
    q.pop();
    if (d > dist[i]) continue;
    const std::int64_t si = static_cast<std::int64_t>(i);
    const std::int64_t c[3] = {si % n[0], (si / n[0]) % n[1], si / (n[0] * n[1])};
    for (int a = 0; a < 3; ++a)
      for (int dir = -1; dir <= 1; dir += 2) {
        std::int64_t p[3] = {c[0], c[1], c[2]};
        p[a] += dir;
        if (p[a] < 0 || p[a] >= n[a]) continue;
        const std::size_t j = static_cast<std::size_t>((p[2] * n[1] + p[1]) * n[0] + p[0]);
        if (owner[i] == 1) {
          if ((v[j] < seeds[from[i]].low || v[j] > seeds[from[i]].high) && !shared[j]) continue;
          double e2 = 0;
          for (int b = 0; b < 3; ++b) {
            const double dd = double(p[b] - seeds[from[i]].at[static_cast<std::size_t>(b)]) * sp[static_cast<std::size_t>(b)];
            e2 += dd * dd;
          }
          if (e2 > double(seeds[from[i]].reachMm) * double(seeds[from[i]].reachMm)) continue;
        }
        const double step = sp[static_cast<std::size_t>(a)] *
                            std::min(1.0 + double(w) * std::fabs(double(v[j]) - double(v[i])), double(kMaxStepFactor));
        if (d + step < dist[j]) {
          dist[j] = d + step;
          owner[j] = owner[i];
          from[j] = from[i];
          q.push({dist[j], j});
        }
      }
  }
  return owner;
}

}  // namespace

TEST_CASE("click grid: the bucket-queue competition gives Dijkstra's owners", "[classic][click][geodesic]") {
  std::mt19937 rng(11);
  for (int trial = 0; trial < 6; ++trial) {
    INFO("trial " << trial);
    const std::int64_t n[3] = {23, 17, 9};
    const Vec3 sp = trial % 2 ? Vec3{0.7, 0.7, 3.0} : Vec3{1, 1, 1};
    std::vector<float> v(static_cast<std::size_t>(n[0] * n[1] * n[2]));
    std::normal_distribution<float> noise(0, 10);
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = (i % 23 < 11 ? 100.0f : 0.0f) + noise(rng);
    std::uniform_int_distribution<std::int64_t> px(0, n[0] - 1), py(0, n[1] - 1), pz(0, n[2] - 1);
    std::vector<GeodesicSeed> seeds;
    for (int k = 0; k < 4; ++k) {
      const bool positive = k % 2 == 0;
      // Two bands: the bright half, and everything.
      seeds.push_back({{px(rng), py(rng), pz(rng)}, positive, positive ? 4.0f + 3.0f * float(k) : 0.0f,
                       k == 0 ? 60.0f : -1000.0f, 1000.0f});
    }
    std::vector<std::uint8_t> shared(v.size(), 0);
    for (std::size_t i = 0; i < v.size(); i += 7) shared[i] = 1;
    const float w = 0.05f;
    auto ours = geodesicCompetition(v, n, sp, seeds, shared, {}, w, nullptr);
    REQUIRE(ours.ok());
    const auto ref = referenceCompetition(v, n, sp, seeds, shared, w);
    std::size_t differ = 0, objects = 0;
    for (std::size_t i = 0; i < v.size(); ++i) {
      differ += (*ours)[i] != ref[i];
      objects += ref[i] == 1;
    }
    CHECK(objects > 0);
    // Float against double distances may break an exact tie the other way; nothing more.
    CHECK(differ <= 2);
  }
}

TEST_CASE("click grid: factors keep the budget and coarsen the finest axis first, block means", "[classic][click]") {
  std::int64_t f[3];
  chooseFactors(IndexBox{{0, 0, 0}, {511, 511, 99}}, Vec3{0.8, 0.8, 5.0}, 2'000'000, f);
  CHECK(f[2] == 1);  // 5 mm slices stay
  CHECK(f[0] >= 2);
  CHECK(((512 + f[0] - 1) / f[0]) * ((512 + f[1] - 1) / f[1]) * 100 <= 2'000'000);
  chooseFactors(IndexBox{{0, 0, 0}, {49, 49, 49}}, Vec3{1, 1, 1}, 2'000'000, f);
  CHECK((f[0] == 1 && f[1] == 1 && f[2] == 1));

  // A ramp along x averaged in blocks of 2 x 2 x 1 (budget 1/4 of the voxels, z spacing coarse).
  const Geometry g({8, 6, 3}, {1, 1, 3}, {0, 0, 0});
  ImageVolume image = ImageVolume::create(g).value();
  for (std::int64_t z = 0; z < 3; ++z)
    for (std::int64_t y = 0; y < 6; ++y)
      for (std::int64_t x = 0; x < 8; ++x) image.at({x, y, z}) = float(x) + 10.0f * float(z);
  const WorkingGrid w = buildWorkingGrid(image, IndexBox{{1, 0, 0}, {7, 5, 2}}, 36, 0);
  REQUIRE(w.factor[0] == 2);
  REQUIRE(w.factor[1] == 2);
  REQUIRE(w.factor[2] == 1);
  CHECK(w.n[0] == 4);  // 7 columns: three full blocks and one of a single column
  CHECK(w.value[w.index(0, 0, 0)] == Approx(1.5));
  CHECK(w.value[w.index(3, 2, 1)] == Approx(17.0));  // the partial block holds column 7 only
  CHECK(w.toWorking({7, 5, 2}) == Index3{3, 2, 2});
}

TEST_CASE("click grid: a ball computed on blocks comes back to the image grid smooth and in place", "[classic][click]") {
  const Geometry g({90, 90, 90}, {1, 1, 1}, {0, 0, 0});
  ImageVolume image = ImageVolume::create(g).value();
  const WorkingGrid w = buildWorkingGrid(image, g.fullBox(), 90 * 90 * 90 / 27, 0);
  REQUIRE(w.factor[0] == 3);
  std::vector<std::uint8_t> blocks(w.size());
  auto inBall = [](double x, double y, double z) { return std::hypot(x - 45, y - 44, z - 46) <= 20; };
  for (std::int64_t z = 0; z < w.n[2]; ++z)
    for (std::int64_t y = 0; y < w.n[1]; ++y)
      for (std::int64_t x = 0; x < w.n[0]; ++x)
        blocks[w.index(x, y, z)] = inBall(3.0 * double(x) + 1, 3.0 * double(y) + 1, 3.0 * double(z) + 1) ? 1 : 0;
  const inference::ObjectMask full = toFullResolution(w, blocks);
  Volume<std::uint8_t> truth = Volume<std::uint8_t>::create(g, 0).value();
  std::size_t nearest = 0;
  for (std::int64_t z = 0; z < 90; ++z)
    for (std::int64_t y = 0; y < 90; ++y)
      for (std::int64_t x = 0; x < 90; ++x) {
        truth.at({x, y, z}) = inBall(double(x), double(y), double(z)) ? 1 : 0;
        nearest += blocks[w.index(x / 3, y / 3, z / 3)];
      }
  const double dice = inference::diceOf(full, truth);
  // Nearest-block upsampling of the same blocks, for scale.
  std::size_t both = 0, ours = full.count(), ref = 0;
  for (std::int64_t z = 0; z < 90; ++z)
    for (std::int64_t y = 0; y < 90; ++y)
      for (std::int64_t x = 0; x < 90; ++x) {
        ref += truth.at({x, y, z});
        both += truth.at({x, y, z}) && blocks[w.index(x / 3, y / 3, z / 3)];
      }
  const double diceNearest = 2.0 * double(both) / double(ref + nearest);
  CHECK(dice > 0.96);
  CHECK(dice > diceNearest);
  CHECK(ours > 0);
  // And back onto the blocks: the same blocks, but for a few on the surface.
  const auto again = toWorkingGrid(w, full);
  std::size_t differ = 0;
  for (std::size_t i = 0; i < blocks.size(); ++i) differ += again[i] != blocks[i];
  CHECK(differ < blocks.size() / 100);
}

TEST_CASE("click grid: a session on blocks finds a large object, and a click on its edge does not leak",
          "[classic][click]") {
  // A bright ellipsoid of about 60 mm on a 0.8 mm grid, far more voxels than the working budget allows.
  const Geometry g({140, 140, 110}, {0.8, 0.8, 1.0}, {0, 0, 0});
  const Ellipsoid e = brightEllipsoid(g, {56, 56, 55}, {30, 24, 35}, 5);
  const ImageVolume& image = e.image;
  const Volume<std::uint8_t>& reference = e.reference;
  ClickOptions options;
  options.maxWorkingVoxels = 200'000;  // blocks of about 2 x 2 x 2
  auto session = ClickSession::begin(image, options);
  REQUIRE(session.ok());
  auto eval = inference::simulateClicks(**session, reference, 3);
  REQUIRE(eval.ok());
  REQUIRE(!eval->clicks.empty());
  // A later click lands on the blurred edge of the blocks; its band holds both sides, and must not let the first
  // click (whose reach is unbounded here) into the background.
  for (const auto& c : eval->clicks) {
    INFO((c.point.positive ? "+" : "-") << " at " << c.voxel[0] << "," << c.voxel[1] << "," << c.voxel[2]);
    CHECK(c.dice > 0.93);
  }
}

TEST_CASE("click grid: a region larger than largeRegionVoxels is computed on the smaller budget",
          "[classic][click]") {
  // Issue 45's latency: a click on a whole skeleton (a region of tens of millions of voxels) computes on 600 k
  // working voxels instead of 2 M. Here the thresholds are scaled down to a 1.1 M voxel image.
  const Geometry g({120, 120, 80}, {0.8, 0.8, 1.0}, {0, 0, 0});
  const Ellipsoid e = brightEllipsoid(g, {48, 48, 40}, {26, 20, 26}, 11);
  const ImageVolume& image = e.image;
  const Volume<std::uint8_t>& reference = e.reference;
  auto objectOf = [&](const ClickOptions& options) {
    auto session = ClickSession::begin(image, options);
    REQUIRE(session.ok());
    REQUIRE((*session)->addPoint({g.indexToLps(Index3{60, 60, 40}), true}).ok());
    return (*session)->mask();
  };
  ClickOptions whole;  // every region here is under 16 M voxels: full resolution within 2 M
  ClickOptions large;
  large.largeRegionVoxels = 100'000;  // every region counts as large ...
  large.largeRegionWorkingVoxels = 150'000;  // ... and gets this budget
  ClickOptions small;
  small.maxWorkingVoxels = 150'000;  // the same grid by the plain budget
  const inference::ObjectMask a = objectOf(whole), b = objectOf(large), c = objectOf(small);
  CHECK(b.box == c.box);
  CHECK(b.voxels == c.voxels);
  CHECK_FALSE(a.voxels == b.voxels);  // the full-resolution object differs from the blocks' one
  // One click finds the ellipsoid either way (0.935 at full resolution, a little more on the blocks here).
  CHECK(inference::diceOf(a, reference) > 0.9);
  CHECK(inference::diceOf(b, reference) > 0.9);
  // A budget larger than the plain one is not taken: the large-region budget only ever lowers it.
  ClickOptions higher = large;
  higher.largeRegionWorkingVoxels = 4'000'000;
  const inference::ObjectMask d = objectOf(higher);
  CHECK(d.voxels == a.voxels);
}

TEST_CASE("click: on low-contrast texture a first click stays near its structure instead of taking the region",
          "[classic][click]") {
  // A template-like image: smoothed noise texture everywhere (every structure in one band), a ball whose mean is
  // a fraction of the texture higher. The image has no edge; only the texture's statistics bound the click.
  const Geometry g({64, 64, 64}, {0.15, 0.15, 0.15}, {0, 0, 0});
  ImageVolume image = ImageVolume::create(g).value();
  Volume<std::uint8_t> reference = Volume<std::uint8_t>::create(g, 0).value();
  std::mt19937 rng(9);
  std::normal_distribution<float> noise(0, 1);
  std::vector<float> raw(static_cast<std::size_t>(64 * 64 * 64));
  for (auto& v : raw) v = noise(rng);
  auto at = [&](std::int64_t x, std::int64_t y, std::int64_t z) {
    auto c = [](std::int64_t v) { return std::clamp<std::int64_t>(v, 0, 63); };
    return raw[static_cast<std::size_t>((c(z) * 64 + c(y)) * 64 + c(x))];
  };
  for (std::int64_t z = 0; z < 64; ++z)
    for (std::int64_t y = 0; y < 64; ++y)
      for (std::int64_t x = 0; x < 64; ++x) {
        float t = 0;  // a 3x3x3 box average: texture about two voxels wide
        for (int dz = -1; dz <= 1; ++dz)
          for (int dy = -1; dy <= 1; ++dy)
            for (int dx = -1; dx <= 1; ++dx) t += at(x + dx, y + dy, z + dz);
        const bool inside = std::hypot(double(x) - 32, double(y) - 32, double(z) - 32) <= 8;
        image.at({x, y, z}) = 15000.0f + 400.0f * t + (inside ? 600.0f : 0.0f);
        reference.at({x, y, z}) = inside ? 1 : 0;
      }
  auto objectAfterOneClick = [&](const ClickOptions& options) {
    auto session = ClickSession::begin(image, options);
    REQUIRE(session.ok());
    REQUIRE((*session)->addPoint({g.indexToLps(Index3{32, 32, 32}), true}).ok());
    return std::make_pair((*session)->mask().count(), inference::diceOf((*session)->mask(), reference));
  };
  ClickOptions plain;
  plain.lowContrastBandFraction = 1.0;  // never low-contrast: the band's depth, as on a CT
  const auto [plainCount, plainDice] = objectAfterOneClick(plain);
  const auto [count, dice] = objectAfterOneClick(ClickOptions{});
  const auto ball = std::size_t(4.0 / 3.0 * 3.14159 * 8 * 8 * 8);
  INFO("plain: " << plainCount << " voxels, Dice " << plainDice << "; low-contrast rule: " << count << " voxels, Dice "
                 << dice << "; ball " << ball);
  CHECK(plainCount > 20 * ball);  // without the rule the click takes the texture around it
  CHECK(count < 5 * ball);
  CHECK(dice > plainDice);
}

TEST_CASE("click: packed undo objects unpack to the same voxels", "[classic][click]") {
  std::mt19937 rng(4);
  for (int trial = 0; trial < 20; ++trial) {
    inference::ObjectMask m;
    m.box = IndexBox{{3, 4, 5}, {3 + 40 + trial, 4 + 17, 5 + 9}};
    m.voxels.resize(static_cast<std::size_t>(m.box.voxelCount()));
    // Runs of random lengths (short ones and ones spanning many words), starting inside or outside.
    auto v = static_cast<std::uint8_t>(trial % 2);
    std::geometric_distribution<int> len(trial % 3 == 0 ? 0.01 : 0.3);
    for (std::size_t i = 0; i < m.voxels.size();) {
      const std::size_t l = std::min<std::size_t>(m.voxels.size() - i, 1 + std::size_t(len(rng)));
      std::fill(m.voxels.begin() + std::ptrdiff_t(i), m.voxels.begin() + std::ptrdiff_t(i + l), v);
      i += l;
      v ^= 1;
    }
    const inference::PackedMask p = inference::packMask(m);
    const inference::ObjectMask back = inference::unpackMask(p);
    CHECK(back.box == m.box);
    CHECK(back.voxels == m.voxels);
    CHECK(p.runs.size() < m.voxels.size());
  }
  CHECK(inference::unpackMask(inference::packMask(inference::ObjectMask{})).voxels.empty());
}

TEST_CASE("click grid: a negative click's voxel stays outside the object on blocks", "[classic][click]") {
  // A bright ball around a small dark cavity; the negative click in the cavity is one background block amid object
  // blocks, which interpolation alone would set again.
  const Geometry g({96, 96, 96}, {1, 1, 1}, {0, 0, 0});
  ImageVolume image = ImageVolume::create(g).value();
  for (std::int64_t z = 0; z < 96; ++z)
    for (std::int64_t y = 0; y < 96; ++y)
      for (std::int64_t x = 0; x < 96; ++x) {
        const double r = std::hypot(double(x) - 48, double(y) - 48, double(z) - 48);
        image.at({x, y, z}) = r <= 30 && r > 2 ? 200.0f : 20.0f;
      }
  ClickOptions options;
  options.maxWorkingVoxels = 120'000;  // blocks of 2 x 2 x 2
  auto session = ClickSession::begin(image, options);
  REQUIRE(session.ok());
  // Clicks all around the cavity, so the object encloses it and hole filling takes it in.
  for (const Index3& c : {Index3{60, 48, 48}, Index3{36, 48, 48}, Index3{48, 60, 48}, Index3{48, 36, 48},
                          Index3{48, 48, 60}, Index3{48, 48, 36}})
    REQUIRE((*session)->addPoint({g.indexToLps(c), true}).ok());
  REQUIRE((*session)->mask().contains({48, 48, 48}));  // the cavity is a hole, filled
  REQUIRE((*session)->addPoint({g.indexToLps(Index3{48, 48, 48}), false}).ok());
  CHECK((*session)->mask().contains({60, 48, 48}));
  CHECK_FALSE((*session)->mask().contains({48, 48, 48}));
}
