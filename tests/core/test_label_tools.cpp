// The manual label tools (core/label_tools.h) against brute-force references written here: physical distances
// computed through Geometry::indexToLps, breadth-first floods and component counts, analytic volumes.
#include <catch2/catch.hpp>

#include <cmath>
#include <deque>
#include <functional>
#include <random>
#include <vector>

#include "core/annotation_session.h"
#include "core/label_tools.h"
#include "tests/common/test_support.h"

using namespace delineate::core;

namespace {

constexpr double kPi = 3.14159265358979323846;

std::vector<Label> snapshot(const LabelMap& m) { return std::vector<Label>(m.data(), m.data() + m.size()); }

std::size_t countLabel(const LabelMap& m, Label l) {
  std::size_t n = 0;
  for (std::size_t i = 0; i < m.size(); ++i) n += m[i] == l;
  return n;
}

Index3 indexOf(const Geometry& g, std::size_t linear) {
  const Size3& d = g.dimensions();
  const auto i = static_cast<std::int64_t>(linear);
  return {i % d[0], (i / d[0]) % d[1], i / (d[0] * d[1])};
}

double dot(const Vec3& a, const Vec3& b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
Vec3 sub(const Vec3& a, const Vec3& b) { return {a[0] - b[0], a[1] - b[1], a[2] - b[2]}; }
Vec3 column(const Mat3& m, int c) { return {m(0, c), m(1, c), m(2, c)}; }

// Writes `label` where pred(ijk) holds, without locks (test setup).
template <class Pred>
void fillWhere(LabelMap& map, Label label, Pred pred) {
  EditTransaction tx(map, "setup");
  const Geometry& g = map.geometry();
  for (std::size_t i = 0; i < map.size(); ++i)
    if (pred(indexOf(g, i))) tx.set(indexOf(g, i), label);
  tx.commit();
}

void fillBox(LabelMap& map, Label label, Index3 lo, Index3 hi) {
  EditTransaction tx(map, "setup");
  tx.fillBox(IndexBox{lo, hi}, label);
  tx.commit();
}

// Breadth-first face-connected region from `seed` of voxels with the seed's value (and pred), in 3D or within the
// slice across `axis`.
std::vector<bool> referenceRegion(const LabelMap& map, const Index3& seed, int axis,
                                  const std::function<bool(const Index3&)>& pred) {
  const Geometry& g = map.geometry();
  std::vector<bool> in(map.size(), false);
  const Label from = map.at(seed);
  if (!pred(seed)) return in;
  std::deque<Index3> q{seed};
  in[g.linearIndex(seed)] = true;
  while (!q.empty()) {
    const Index3 p = q.front();
    q.pop_front();
    for (int a = 0; a < 3; ++a) {
      if (a == axis) continue;
      for (int d = -1; d <= 1; d += 2) {
        Index3 r = p;
        r[static_cast<std::size_t>(a)] += d;
        if (!g.contains(r) || in[g.linearIndex(r)] || map.at(r) != from || !pred(r)) continue;
        in[g.linearIndex(r)] = true;
        q.push_back(r);
      }
    }
  }
  return in;
}

// Face-connected components of `label` by breadth-first search: an id per voxel (-1 elsewhere) and the sizes.
std::vector<std::size_t> referenceComponents(const LabelMap& map, Label label, std::vector<int>& id) {
  const Geometry& g = map.geometry();
  id.assign(map.size(), -1);
  std::vector<std::size_t> sizes;
  for (std::size_t i = 0; i < map.size(); ++i) {
    if (map[i] != label || id[i] >= 0) continue;
    const auto region = referenceRegion(map, indexOf(g, i), -1, [](const Index3&) { return true; });
    std::size_t n = 0;
    for (std::size_t j = 0; j < region.size(); ++j)
      if (region[j]) {
        id[j] = static_cast<int>(sizes.size());
        ++n;
      }
    sizes.push_back(n);
  }
  return sizes;
}

}  // namespace

TEST_CASE("sliceAxisFor picks the voxel axis closest to a view normal, on rotated grids too", "[labeltools]") {
  const Geometry axial({10, 10, 10}, {1, 1, 1}, {0, 0, 0});
  CHECK(sliceAxisFor(axial, {0, 0, 1}) == 2);
  CHECK(sliceAxisFor(axial, {0, -1, 0}) == 1);
  CHECK(sliceAxisFor(axial, {-0.9, 0.1, 0.3}) == 0);
  CHECK(sliceAxisFor(axial, {0, 0, 0}) == 2);
  // A coronal stack: k runs along -y (posterior to anterior), j along -z.
  Mat3 coronal;
  coronal.m = {1, 0, 0, 0, 0, -1, 0, -1, 0};
  const Geometry cor({10, 10, 10}, {1, 1, 3}, {0, 0, 0}, coronal);
  CHECK(sliceAxisFor(cor, {0, 1, 0}) == 2);
  CHECK(sliceAxisFor(cor, {0, 0, 1}) == 1);
  const Geometry oblique({10, 10, 10}, {1, 1, 1}, {0, 0, 0}, delineate::test::rotationMatrix(0.2, -0.3, 0.7));
  for (int a = 0; a < 3; ++a) CHECK(sliceAxisFor(oblique, column(oblique.direction(), a)) == a);
}

TEST_CASE("brush discs and spheres paint what physical distance says, on anisotropic rotated grids", "[labeltools]") {
  const Geometry g({90, 80, 40}, {0.7, 0.9, 2.5}, {-30, 12, 40}, delineate::test::rotationMatrix(0.3, -0.2, 0.5));
  const Vec3 centreIjk{45.31, 39.77, 20.23};
  const Vec3 c = g.indexToLps(centreIjk);
  const double r = 12.0;

  SECTION("sphere") {
    LabelMap map = LabelMap::create(g).value();
    EditTransaction tx(map, "Paint");
    const std::size_t n = paintBrush(tx, c, 4, BrushOptions{r, true, 2, {}});
    std::size_t expected = 0, wrong = 0;
    for (std::size_t i = 0; i < map.size(); ++i) {
      const Vec3 d = sub(g.indexToLps(indexOf(g, i)), c);
      const bool inside = dot(d, d) <= r * r;
      expected += inside;
      wrong += inside != (map[i] == 4);
    }
    CHECK(wrong == 0);
    CHECK(n == expected);
    const double analytic = 4.0 / 3.0 * kPi * r * r * r / g.voxelVolumeMm3();
    CHECK(static_cast<double>(n) == Approx(analytic).epsilon(0.03));
  }

  SECTION("disc across each axis") {
    // Nearly half a voxel off every slice, so measuring the disc's distance in 3D would shrink it visibly.
    const Vec3 discIjk{45.46, 39.55, 20.44};
    const Vec3 dc = g.indexToLps(discIjk);
    for (int axis = 0; axis < 3; ++axis) {
      INFO("axis " << axis);
      LabelMap map = LabelMap::create(g).value();
      EditTransaction tx(map, "Paint");
      const std::size_t n = paintBrush(tx, dc, 4, BrushOptions{r, false, axis, {}});
      const auto a = static_cast<std::size_t>(axis);
      const std::int64_t slice = std::llround(discIjk[a]);
      // In-plane distance: the offset without its component along the slice normal (the axis's direction column).
      const Vec3 normal = column(g.direction(), axis);
      std::size_t expected = 0, wrong = 0, offSlice = 0;
      for (std::size_t i = 0; i < map.size(); ++i) {
        const Index3 p = indexOf(g, i);
        const Vec3 d = sub(g.indexToLps(p), dc);
        const double along = dot(d, normal);
        const bool inside = p[a] == slice && dot(d, d) - along * along <= r * r;
        expected += inside;
        wrong += inside != (map[i] == 4);
        offSlice += map[i] == 4 && p[a] != slice;
      }
      CHECK(offSlice == 0);
      CHECK(wrong == 0);
      CHECK(n == expected);
      std::array<double, 2> inPlane{};
      std::size_t k = 0;
      for (std::size_t b = 0; b < 3; ++b)
        if (b != a) inPlane[k++] = g.spacingMm()[b];
      CHECK(static_cast<double>(n) == Approx(kPi * r * r / (inPlane[0] * inPlane[1])).epsilon(0.03));
    }
  }

  SECTION("a disc lies in the slice of the centre's nearest voxel, wherever between slices the centre is") {
    for (const double k : {20.45, 20.55, 19.5001}) {
      LabelMap map = LabelMap::create(g).value();
      EditTransaction tx(map, "Paint");
      const std::size_t n = paintBrush(tx, g.indexToLps(Vec3{45.3, 39.8, k}), 2, BrushOptions{6, false, 2, {}});
      REQUIRE(n > 0);
      std::size_t inSlice = 0;
      for (std::size_t i = 0; i < map.size(); ++i)
        if (map[i] == 2) inSlice += indexOf(g, i)[2] == std::llround(k);
      CHECK(inSlice == n);
      CHECK(countLabel(map, 2) == n);
    }
  }

  SECTION("a radius below a voxel paints exactly the centre voxel") {
    for (const bool sphere : {false, true}) {
      LabelMap map = LabelMap::create(g).value();
      EditTransaction tx(map, "Paint");
      CHECK(paintBrush(tx, c, 9, BrushOptions{0.1, sphere, 2, {}}) == 1);
      CHECK(map.at(g.lpsToNearestIndex(c)) == 9);
      CHECK(paintBrush(tx, c, 9, BrushOptions{0.0, sphere, 2, {}}) == 1);
      CHECK(countLabel(map, 9) == 1);
    }
  }

  SECTION("refusals write nothing") {
    LabelMap map = LabelMap::create(g).value();
    EditTransaction tx(map, "Paint");
    CHECK(paintBrush(tx, c, 1, BrushOptions{-1, true, 2, {}}) == 0);
    CHECK(paintBrush(tx, c, 1, BrushOptions{NAN, true, 2, {}}) == 0);
    CHECK(paintBrush(tx, c, 1, BrushOptions{3, false, 3, {}}) == 0);
    CHECK(paintBrush(tx, {NAN, 0, 0}, 1, BrushOptions{3, true, 2, {}}) == 0);
    CHECK(paintBrush(tx, c, 1, BrushOptions{3, true, 2, IntensityRange{0, 1}}) == 0);  // range without an image
    const ImageVolume other = ImageVolume::create(Geometry({9, 9, 9}, {1, 1, 1}, {0, 0, 0})).value();
    CHECK(paintBrush(tx, c, 1, BrushOptions{3, true, 2, IntensityRange{0, 1}}, &other) == 0);
    CHECK(paintBrush(tx, g.indexToLps(Vec3{500, 500, 500}), 1, BrushOptions{3, true, 2, {}}) == 0);
    CHECK(countLabel(map, 1) == 0);
  }
}

TEST_CASE("a fast drag leaves no gaps: strokes cover the segment, stay near it and set each voxel once", "[labeltools]") {
  const Geometry g({160, 140, 30}, {0.8, 0.6, 3.0}, {0, 0, 0}, delineate::test::rotationMatrix(0, 0, 0.4));
  for (const bool sphere : {false, true}) {
    INFO((sphere ? "sphere" : "disc"));
    LabelMap map = LabelMap::create(g).value();
    EditTransaction tx(map, "Paint");
    const double r = 2.0;
    // One mouse event to the next across ~100 mm: a dab per event would leave 25 gaps.
    // The disc's segment lies in its slice (k = 15), the sphere's climbs across slices.
    const Vec3 from = g.indexToLps(Vec3{10.2, 15.7, sphere ? 14.9 : 15.0});
    const Vec3 to = g.indexToLps(Vec3{140.6, 120.1, sphere ? 22.3 : 15.0});
    const BrushOptions o{r, sphere, 2, {}};
    std::size_t written = paintBrush(tx, from, 3, o);
    written += paintStroke(tx, from, to, 3, o);
    const Vec3 seg = sub(to, from);
    const double len2 = dot(seg, seg);
    auto distanceToSegment = [&](const Vec3& p) {
      const double s = std::clamp(dot(sub(p, from), seg) / len2, 0.0, 1.0);
      const Vec3 q{from[0] + seg[0] * s, from[1] + seg[1] * s, from[2] + seg[2] * s};
      const Vec3 d = sub(p, q);
      return std::sqrt(dot(d, d));
    };
    const std::int64_t slice = std::llround(g.lpsToIndex(from)[2]);
    std::size_t gaps = 0, astray = 0, painted = 0;
    for (std::size_t i = 0; i < map.size(); ++i) {
      const Index3 p = indexOf(g, i);
      const Vec3 x = g.indexToLps(p);
      const double d = distanceToSegment(x);
      if (!sphere) {  // in-plane distance for the disc: the segment lies in the slice
        if (p[2] != slice) {
          astray += map[i] == 3;
          continue;
        }
      }
      painted += map[i] == 3;
      if (d <= 0.9 * r && map[i] != 3) ++gaps;       // the scallops between dabs r/2 apart are 0.03 r deep
      if (d > r + 1e-9 && map[i] == 3) ++astray;
    }
    CHECK(gaps == 0);
    CHECK(astray == 0);
    CHECK(painted > 300);
    CHECK(written == countLabel(map, 3));  // no voxel counted twice
    CHECK(paintStroke(tx, to, to, 3, o) == 0);  // a drag event that did not move: its dab is the last one's
    // Every point along the segment lies in a painted voxel.
    for (int s = 0; s <= 1000; ++s) {
      const Vec3 p{from[0] + seg[0] * s / 1000, from[1] + seg[1] * s / 1000, from[2] + seg[2] * s / 1000};
      Index3 ijk = g.lpsToNearestIndex(p);
      if (!sphere) ijk[2] = slice;
      REQUIRE(map.at(ijk) == 3);
    }
  }
  SECTION("a segment far off the grid, however long, writes nothing") {
    LabelMap map = LabelMap::create(g).value();
    EditTransaction tx(map, "Paint");
    CHECK(paintStroke(tx, {-1e9, -1e9, -1e9}, {-1e9, 1e9, -1e9}, 1, BrushOptions{2, true, 2, {}}) == 0);
    // Crossing the grid from far away paints only the crossing.
    const Vec3 mid = g.indexToLps(Vec3{80, 70, 15});
    const std::size_t n = paintStroke(tx, sub(mid, {1e7, 0, 0}), {mid[0] + 1e7, mid[1], mid[2]}, 1,
                                      BrushOptions{2, true, 2, {}});
    CHECK(n > 100);
    CHECK(countLabel(map, 1) == n);
  }
}

TEST_CASE("threshold-constrained paint touches only voxels whose intensity is in range, and erase writes 0", "[labeltools]") {
  const Geometry g({60, 50, 20}, {1, 1, 2}, {0, 0, 0});
  ImageVolume image = ImageVolume::create(g).value();
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> u(-100, 300);
  for (std::size_t i = 0; i < image.size(); ++i) image[i] = u(rng);
  const IntensityRange range{0, 100};
  const Vec3 c = g.indexToLps(Vec3{30.2, 24.9, 10.1});
  LabelMap map = LabelMap::create(g).value();
  {
    EditTransaction tx(map, "Paint");
    const std::size_t n = paintBrush(tx, c, 5, BrushOptions{10, true, 2, range}, &image);
    std::size_t expected = 0, wrong = 0;
    for (std::size_t i = 0; i < map.size(); ++i) {
      const Vec3 d = sub(g.indexToLps(indexOf(g, i)), c);
      const bool inside = dot(d, d) <= 100 && range.contains(image[i]);
      expected += inside;
      wrong += inside != (map[i] == 5);
    }
    CHECK(wrong == 0);
    CHECK(n == expected);
    CHECK(n > 300);
    // Strokes honour the range too.
    const std::size_t s = paintStroke(tx, c, g.indexToLps(Vec3{50, 40, 10.1}), 5, BrushOptions{3, false, 2, range},
                                      &image);
    CHECK(s > 0);
    for (std::size_t i = 0; i < map.size(); ++i)
      if (map[i] == 5) REQUIRE(range.contains(image[i]));
    tx.commit();
  }
  {
    const std::size_t before = countLabel(map, 5);
    EditTransaction tx(map, "Erase");
    const std::size_t n = paintBrush(tx, c, 0, BrushOptions{4, true, 2, {}});
    CHECK(n > 0);
    std::size_t left = 0;
    for (std::size_t i = 0; i < map.size(); ++i) {
      const Vec3 d = sub(g.indexToLps(indexOf(g, i)), c);
      if (dot(d, d) <= 16) REQUIRE(map[i] == 0);
      left += map[i] == 5;
    }
    CHECK(left > 0);
    CHECK(left < before);
  }
}

TEST_CASE("locked labels are never overwritten by any tool", "[labeltools]") {
  const Geometry g({40, 40, 20}, {1, 1, 1}, {0, 0, 0});
  LabelTable table;
  LabelEntry liverEntry;
  liverEntry.id = 1;
  liverEntry.name = "liver";
  liverEntry.locked = true;
  REQUIRE(table.add(liverEntry));
  LabelEntry tumourEntry;
  tumourEntry.id = 2;
  tumourEntry.name = "tumour";
  REQUIRE(table.add(tumourEntry));
  LabelMap labels = LabelMap::create(g).value();
  fillBox(labels, 1, {10, 10, 5}, {29, 29, 14});
  fillBox(labels, 1, {35, 35, 0}, {36, 36, 1});  // a small locked island
  auto session = AnnotationSession::create(ImageVolume::create(g).value(), labels, table).value();
  const std::size_t liver = countLabel(session.labels(), 1);
  const Vec3 c = g.indexToLps(Vec3{20, 20, 10});

  EditTransaction tx = session.beginEdit("Paint");
  const std::size_t painted = paintBrush(tx, c, 2, BrushOptions{15, true, 2, {}});
  std::size_t ball = 0, ballLiver = 0;
  for (std::size_t i = 0; i < session.labels().size(); ++i) {
    const Vec3 d = sub(g.indexToLps(indexOf(g, i)), c);
    if (dot(d, d) > 225) continue;
    ++ball;
    ballLiver += labels[i] == 1;
  }
  CHECK(painted == ball - ballLiver);
  CHECK(paintBrush(tx, c, 0, BrushOptions{5, false, 2, {}}) == 0);  // erasing inside the liver: all refused
  CHECK(paintStroke(tx, c, g.indexToLps(Vec3{25, 25, 10}), 0, BrushOptions{3, false, 2, {}}) == 0);
  CHECK(*floodFill(tx, session.labels(), Index3{20, 20, 10}, 2, FloodOptions{true, 2, {}}) == 0);
  CHECK(*keepLargestIsland(tx, session.labels(), 1) == 0);
  CHECK(*removeSmallIslands(tx, session.labels(), 1, 100) == 0);
  CHECK(*smoothLabel(tx, session.labels(), 1, 3.0) == 0);
  // Filling the background around the liver floods up to it and stops.
  const auto outside = referenceRegion(session.labels(), Index3{0, 0, 0}, -1, [](const Index3&) { return true; });
  const auto background = static_cast<std::size_t>(std::count(outside.begin(), outside.end(), true));
  CHECK(background > 1000);
  CHECK(*floodFill(tx, session.labels(), Index3{0, 0, 0}, 2, FloodOptions{true, 2, {}}) == background);
  CHECK(countLabel(session.labels(), 1) == liver);
  CHECK(session.commit(tx));
  for (std::size_t i = 0; i < labels.size(); ++i)
    if (labels[i] == 1) REQUIRE(session.labels()[i] == 1);
}

TEST_CASE("flood fill matches a breadth-first flood: in one slice, in 3D, within an intensity range", "[labeltools]") {
  const Geometry g({23, 19, 17}, {0.9, 1.1, 2.0}, {0, 0, 0});
  std::mt19937 rng(3);
  std::uniform_int_distribution<int> labelOf(0, 9);
  std::uniform_real_distribution<float> value(0, 100);
  ImageVolume image = ImageVolume::create(g).value();
  for (std::size_t i = 0; i < image.size(); ++i) image[i] = value(rng);
  LabelMap base = LabelMap::create(g).value();
  // Mostly label 3 and 0 (big regions), some 7: connected regions of every shape.
  fillWhere(base, 3, [&](const Index3&) { return labelOf(rng) < 7; });
  fillWhere(base, 7, [&](const Index3&) { return labelOf(rng) == 0; });
  std::uniform_int_distribution<std::int64_t> x(0, 22), y(0, 18), z(0, 16);
  int nonTrivial = 0;
  for (int trial = 0; trial < 60; ++trial) {
    LabelMap map = base;
    const Index3 seed{x(rng), y(rng), z(rng)};
    const int mode = trial % 4;  // 3D, or one slice across axis 0, 1, 2
    const bool ranged = trial % 3 == 0;
    const IntensityRange range{20, 90};
    FloodOptions o{mode == 0, mode == 0 ? 2 : mode - 1, {}};
    if (ranged) o.intensity = range;
    const auto ref = referenceRegion(map, seed, mode == 0 ? -1 : mode - 1, [&](const Index3& p) {
      return !ranged || range.contains(image.at(p));
    });
    const Label fillWith = map.at(seed) == 9 ? 8 : 9;
    EditTransaction tx(map, "Fill");
    const auto n = floodFill(tx, map, seed, fillWith, o, &image);
    REQUIRE(n);
    std::size_t expected = 0, wrong = 0;
    for (std::size_t i = 0; i < map.size(); ++i) {
      expected += ref[i];
      wrong += (map[i] == fillWith) != static_cast<bool>(ref[i]);
      if (!ref[i]) REQUIRE(map[i] == base[i]);
    }
    INFO("trial " << trial << " mode " << mode << " ranged " << ranged);
    CHECK(wrong == 0);
    CHECK(*n == expected);
    nonTrivial += expected > 20;
  }
  CHECK(nonTrivial > 20);

  SECTION("a 2D fill stays in its slice, a 3D fill takes the whole component and only it") {
    LabelMap map = LabelMap::create(g).value();
    fillBox(map, 5, {2, 2, 2}, {8, 8, 6});
    fillBox(map, 5, {12, 12, 2}, {18, 16, 6});  // a second, separate component
    {
      EditTransaction tx(map, "Fill");
      CHECK(*floodFill(tx, map, Index3{4, 4, 4}, 6, FloodOptions{false, 2, {}}) == 49);
      for (std::size_t i = 0; i < map.size(); ++i)
        if (map[i] == 6) REQUIRE(indexOf(g, i)[2] == 4);
      tx.rollback();
    }
    {
      EditTransaction tx(map, "Fill");
      CHECK(*floodFill(tx, map, Index3{4, 4, 4}, 6, FloodOptions{false, 0, {}}) == 35);
      tx.rollback();
    }
    EditTransaction tx(map, "Fill");
    CHECK(*floodFill(tx, map, Index3{4, 4, 4}, 6, FloodOptions{true, 2, {}}) == 7 * 7 * 5);
    CHECK(countLabel(map, 5) == 7 * 5 * 5);
    CHECK(*floodFill(tx, map, Index3{4, 4, 4}, 6, FloodOptions{true, 2, {}}) == 0);  // already holds 6
  }

  SECTION("errors") {
    LabelMap map = LabelMap::create(g).value();
    LabelMap other = LabelMap::create(g).value();
    EditTransaction tx(map, "Fill");
    CHECK(floodFill(tx, map, Index3{-1, 0, 0}, 1, {}).error().code == ErrorCode::InvalidArgument);
    CHECK(floodFill(tx, map, Index3{0, 0, 17}, 1, {}).error().code == ErrorCode::InvalidArgument);
    CHECK(floodFill(tx, other, Index3{0, 0, 0}, 1, {}).error().code == ErrorCode::InvalidArgument);
    FloodOptions ranged{false, 2, IntensityRange{0, 1}};
    CHECK(floodFill(tx, map, Index3{0, 0, 0}, 1, ranged).error().code == ErrorCode::InvalidArgument);
    const ImageVolume small = ImageVolume::create(Geometry({5, 5, 5}, {1, 1, 1}, {0, 0, 0})).value();
    CHECK(floodFill(tx, map, Index3{0, 0, 0}, 1, ranged, &small).error().code == ErrorCode::GeometryMismatch);
    CHECK(floodFill(tx, map, Index3{0, 0, 0}, 1, FloodOptions{false, 5, {}}).error().code ==
          ErrorCode::InvalidArgument);
    tx.rollback();
    CHECK(floodFill(tx, map, Index3{0, 0, 0}, 1, {}).error().code == ErrorCode::InvalidArgument);
    CHECK(countLabel(map, 1) == 0);
  }
}

TEST_CASE("keepLargestIsland and removeSmallIslands agree with a brute-force component count", "[labeltools]") {
  const Geometry g({30, 26, 14}, {0.8, 0.8, 1.5}, {0, 0, 0});
  std::mt19937 rng(5);
  for (int trial = 0; trial < 6; ++trial) {
    LabelMap base = LabelMap::create(g).value();
    std::bernoulli_distribution set(0.28 + 0.02 * trial);
    // Label 4 scattered over a sub-box (many islands of many sizes), label 2 elsewhere and around it.
    fillWhere(base, 4, [&](const Index3& p) { return p[0] >= 3 && p[0] < 27 && p[1] >= 2 && p[2] >= 1 && set(rng); });
    fillWhere(base, 2, [&](const Index3& p) { return base.at(p) == 0 && p[1] < 6 && set(rng); });
    std::vector<int> id;
    const std::vector<std::size_t> sizes = referenceComponents(base, 4, id);
    REQUIRE(sizes.size() > 10);
    std::size_t largest = 0;
    for (std::size_t c = 1; c < sizes.size(); ++c)
      if (sizes[c] > sizes[largest]) largest = c;
    const auto ties = std::count(sizes.begin(), sizes.end(), sizes[largest]);
    INFO("trial " << trial << ": " << sizes.size() << " islands, largest " << sizes[largest]);

    if (ties == 1) {
      LabelMap map = base;
      EditTransaction tx(map, "Keep largest island");
      const auto n = keepLargestIsland(tx, map, 4);
      REQUIRE(n);
      std::size_t wrong = 0;
      for (std::size_t i = 0; i < map.size(); ++i) {
        const bool keep = id[i] == static_cast<int>(largest);
        if (base[i] == 4) wrong += keep ? map[i] != 4 : map[i] != 0;
        else wrong += map[i] != base[i];
      }
      CHECK(wrong == 0);
      CHECK(*n == countLabel(base, 4) - sizes[largest]);
    }
    for (const std::size_t minVoxels : {std::size_t(2), std::size_t(5), std::size_t(30)}) {
      LabelMap map = base;
      EditTransaction tx(map, "Remove small islands");
      const auto n = removeSmallIslands(tx, map, 4, minVoxels);
      REQUIRE(n);
      std::size_t wrong = 0, removed = 0;
      for (std::size_t i = 0; i < map.size(); ++i) {
        if (base[i] != 4) {
          wrong += map[i] != base[i];
          continue;
        }
        const bool small = sizes[static_cast<std::size_t>(id[i])] < minVoxels;
        removed += small;
        wrong += small ? map[i] != 0 : map[i] != 4;
      }
      CHECK(wrong == 0);
      CHECK(*n == removed);
      if (minVoxels == 2) CHECK(removed > 0);  // isolated voxels exist at this density
    }
  }
  SECTION("errors and no-ops") {
    LabelMap map = LabelMap::create(g).value();
    EditTransaction tx(map, "Islands");
    CHECK(*keepLargestIsland(tx, map, 4) == 0);  // absent label
    CHECK(keepLargestIsland(tx, map, 0).error().code == ErrorCode::InvalidArgument);
    tx.rollback();
    CHECK(removeSmallIslands(tx, map, 4, 3).error().code == ErrorCode::InvalidArgument);
  }
}

TEST_CASE("fillHoles fills enclosed background only: not other labels, not pockets open to the border", "[labeltools]") {
  const Geometry g({40, 30, 20}, {1, 1, 1}, {0, 0, 0});
  LabelMap map = LabelMap::create(g).value();
  // A closed shell with a cavity holding background and a blob of label 2.
  fillWhere(map, 1, [](const Index3& p) {
    const bool inBox = p[0] >= 2 && p[0] <= 14 && p[1] >= 2 && p[1] <= 14 && p[2] >= 2 && p[2] <= 14;
    const bool inside = p[0] >= 4 && p[0] <= 12 && p[1] >= 4 && p[1] <= 12 && p[2] >= 4 && p[2] <= 12;
    return inBox && !inside;
  });
  fillBox(map, 2, {7, 7, 7}, {9, 9, 9});
  // A second shell whose cavity is entirely label 3.
  fillWhere(map, 1, [](const Index3& p) {
    const bool inBox = p[0] >= 20 && p[0] <= 26 && p[1] >= 2 && p[1] <= 8 && p[2] >= 2 && p[2] <= 8;
    const bool inside = p[0] >= 21 && p[0] <= 25 && p[1] >= 3 && p[1] <= 7 && p[2] >= 3 && p[2] <= 7;
    return inBox && !inside;
  });
  fillBox(map, 3, {21, 3, 3}, {25, 7, 7});
  // A cup whose opening is flush with the grid's x = 39 face: its inside reaches the border, so it is no hole.
  fillWhere(map, 1, [](const Index3& p) {
    const bool inBox = p[0] >= 30 && p[1] >= 18 && p[1] <= 26 && p[2] >= 10 && p[2] <= 18;
    const bool inside = p[0] >= 32 && p[1] >= 20 && p[1] <= 24 && p[2] >= 12 && p[2] <= 16;
    return inBox && !inside;
  });
  // A shell with a one-voxel opening in its wall: no hole either.
  fillWhere(map, 1, [](const Index3& p) {
    const bool inBox = p[0] >= 2 && p[0] <= 10 && p[1] >= 18 && p[1] <= 26 && p[2] >= 10 && p[2] <= 18;
    const bool inside = p[0] >= 4 && p[0] <= 8 && p[1] >= 20 && p[1] <= 24 && p[2] >= 12 && p[2] <= 16;
    return inBox && !inside;
  });
  fillBox(map, 0, {2, 22, 14}, {3, 22, 14});
  const LabelMap base = map;

  EditTransaction tx(map, "Fill holes");
  ToolWork work;
  const auto n = fillHoles(tx, map, 1, -1, work);
  REQUIRE(n);
  CHECK(*n == 9 * 9 * 9 - 27);
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < map.size(); ++i) {
    const Index3 p = indexOf(g, i);
    const bool cavity = p[0] >= 4 && p[0] <= 12 && p[1] >= 4 && p[1] <= 12 && p[2] >= 4 && p[2] <= 12;
    const Label expected = cavity && base[i] == 0 ? 1 : base[i];
    wrong += map[i] != expected;
  }
  CHECK(wrong == 0);
  CHECK(countLabel(map, 2) == 27);
  CHECK(countLabel(map, 3) == 125);
  CHECK(work.box == labelBoundingBox(base, 1));
  tx.rollback();

  SECTION("slice by slice: a tube open at both ends is a hole in every slice across it, none in 3D") {
    LabelMap tube = LabelMap::create(g).value();
    fillWhere(tube, 1, [](const Index3& p) {
      const double dx = double(p[0]) - 20, dy = double(p[1]) - 15, d2 = dx * dx + dy * dy;
      return d2 <= 36 && d2 >= 9 && p[2] >= 3 && p[2] <= 16;
    });
    std::size_t inner = 0;
    for (std::size_t i = 0; i < tube.size(); ++i) {
      const Index3 p = indexOf(g, i);
      const double dx = double(p[0]) - 20, dy = double(p[1]) - 15;
      inner += dx * dx + dy * dy < 9 && p[2] >= 3 && p[2] <= 16;
    }
    EditTransaction t2(tube, "Fill holes");
    CHECK(*fillHoles(t2, tube, 1, -1) == 0);
    CHECK(*fillHoles(t2, tube, 1, 0) == 0);  // across x the tube's wall is two bars, nothing enclosed
    CHECK(*fillHoles(t2, tube, 1, 2) == inner);
    CHECK(fillHoles(t2, tube, 1, 3).error().code == ErrorCode::InvalidArgument);
  }
}

TEST_CASE("smoothing removes a one-voxel spike, fills a one-voxel notch and leaves a plain cube alone", "[labeltools]") {
  const Geometry g({30, 30, 30}, {1, 1, 1}, {0, 0, 0});
  LabelMap cube = LabelMap::create(g).value();
  fillBox(cube, 1, {8, 8, 8}, {21, 21, 21});
  LabelMap map = cube;
  fillBox(map, 1, {14, 14, 22}, {14, 14, 24});  // a spike three voxels long on the top face
  fillBox(map, 0, {12, 8, 15}, {12, 8, 15});     // a pit in the front face
  fillBox(map, 0, {17, 21, 10}, {17, 21, 10});   // and one in the back face, which label 2 fills
  fillBox(map, 2, {17, 21, 10}, {17, 21, 10});
  const LabelMap base = map;
  EditTransaction tx(map, "Smooth");
  // A ball of radius 1.75 voxels: wider than the spike and the pit, and the cube's corners (sqrt 3 from the inner
  // cube's) survive the opening.
  ToolWork work;
  const auto n = smoothLabel(tx, map, 1, 1.75, work);
  REQUIRE(n);
  CHECK(*n == 4);
  CHECK(map.at({14, 14, 22}) == 0);
  CHECK(map.at({14, 14, 24}) == 0);
  CHECK(map.at({12, 8, 15}) == 1);
  CHECK(map.at({17, 21, 10}) == 2);  // grows only into background
  std::size_t changed = 0;
  for (std::size_t i = 0; i < map.size(); ++i) changed += map[i] != base[i];
  CHECK(changed == 4);
  // The work stays in the label's box, padded by the radius.
  CHECK(work.bufferVoxels == static_cast<std::size_t>(work.box.voxelCount()));
  CHECK(work.box.voxelCount() <= 23 * 23 * 23);

  // A slab against the grid's faces comes back whole: outside counts as background, and an opening restores flat
  // faces and right-angled edges of this size.
  LabelMap slab = LabelMap::create(g).value();
  fillBox(slab, 1, {0, 0, 0}, {29, 29, 5});
  EditTransaction t2(slab, "Smooth");
  CHECK(*smoothLabel(t2, slab, 1, 1.75) == 0);
  CHECK(smoothLabel(t2, slab, 1, -1).error().code == ErrorCode::InvalidArgument);
}

TEST_CASE("interpolation morphs a small disc on slice 10 into a large one on slice 20", "[labeltools]") {
  const Geometry g({48, 44, 30}, {0.8, 0.8, 2.0}, {0, 0, 0});
  LabelMap map = LabelMap::create(g).value();
  const double cx = 23.3, cy = 21.6;
  auto disc = [&](const Index3& p, double rMm) {
    const double dx = (double(p[0]) - cx) * 0.8, dy = (double(p[1]) - cy) * 0.8;
    return dx * dx + dy * dy <= rMm * rMm;
  };
  fillWhere(map, 6, [&](const Index3& p) { return p[2] == 10 && disc(p, 3.0); });
  fillWhere(map, 6, [&](const Index3& p) { return p[2] == 20 && disc(p, 14.0); });
  fillWhere(map, 2, [&](const Index3& p) { return p == Index3{23, 21, 15}; });  // another label in the way
  const LabelMap base = map;
  EditTransaction tx(map, "Interpolate");
  ToolWork work;
  const auto n = interpolateSlices(tx, map, 6, 2, work);
  REQUIRE(n);
  std::vector<std::size_t> area(30, 0);
  for (std::size_t i = 0; i < map.size(); ++i)
    if (map[i] == 6) ++area[static_cast<std::size_t>(indexOf(g, i)[2])];
  std::size_t total = 0;
  for (std::size_t s = 0; s < 30; ++s) {
    INFO("slice " << s << " area " << area[s]);
    if (s < 10 || s > 20) CHECK(area[s] == 0);
    if (s > 10 && s <= 20) CHECK(area[s] > area[s - 1]);
    if (s > 10 && s < 20) total += area[s];
    // The radius grows linearly: the area of the blend is about pi r(s)^2.
    if (s > 10 && s < 20) {
      const double r = 3.0 + (14.0 - 3.0) * double(s - 10) / 10.0;
      CHECK(double(area[s] + (s == 15 ? 1 : 0)) == Approx(kPi * r * r / 0.64).epsilon(0.12));
    }
  }
  CHECK(*n == total);
  CHECK(map.at({23, 21, 15}) == 2);
  CHECK(work.heldByOtherLabels == 1);  // the one voxel of label 2 in the shape's way is counted, not written
  // The annotated slices are exactly as they were, and nothing but the gap changed.
  std::size_t changedOutsideGap = 0;
  for (std::size_t i = 0; i < map.size(); ++i) {
    const std::int64_t k = indexOf(g, i)[2];
    if ((k <= 10 || k >= 20) && map[i] != base[i]) ++changedOutsideGap;
  }
  CHECK(changedOutsideGap == 0);
  CHECK(work.bufferVoxels < static_cast<std::size_t>(48 * 44));
  tx.rollback();

  SECTION("the same across another axis on a transposed stack") {
    LabelMap side = LabelMap::create(Geometry({30, 44, 48}, {2.0, 0.8, 0.8}, {0, 0, 0})).value();
    fillWhere(side, 6, [&](const Index3& p) { return p[0] == 10 && disc(Index3{p[2], p[1], 0}, 3.0); });
    fillWhere(side, 6, [&](const Index3& p) { return p[0] == 20 && disc(Index3{p[2], p[1], 0}, 14.0); });
    EditTransaction t2(side, "Interpolate");
    CHECK(*interpolateSlices(t2, side, 6, 0) == total + 1);  // no label 2 in the way here
  }
  SECTION("inside a parcellated map, over other labels when asked (issue 23 item 9)") {
    // Every voxel of the gap belongs to label 3: background-only interpolation has nothing to fill and says how
    // much other labels hold; asked to, it writes over them, except where a label is locked.
    LabelMap atlas = base;
    fillWhere(atlas, 3, [&](const Index3& p) { return p[2] > 10 && p[2] < 20; });
    EditTransaction t2(atlas, "Interpolate");
    ToolWork w2;
    CHECK(*interpolateSlices(t2, atlas, 6, 2, w2) == 0);
    CHECK(w2.heldByOtherLabels == total + 1);
    t2.rollback();
    EditTransaction t3(atlas, "Interpolate");
    ToolWork w3;
    CHECK(*interpolateSlices(t3, atlas, 6, 2, w3, true) == total + 1);
    t3.rollback();
  }
  SECTION("fewer than two slices is an error") {
    LabelMap one = LabelMap::create(g).value();
    fillWhere(one, 6, [&](const Index3& p) { return p[2] == 4 && disc(p, 3.0); });
    EditTransaction t2(one, "Interpolate");
    CHECK(interpolateSlices(t2, one, 6, 2).error().code == ErrorCode::InvalidArgument);
    CHECK(interpolateSlices(t2, one, 7, 2).error().code == ErrorCode::InvalidArgument);
    CHECK(interpolateSlices(t2, one, 6, 1).ok());  // across y the disc spans many slices, all adjacent
    CHECK(interpolateSlices(t2, one, 6, -1).error().code == ErrorCode::InvalidArgument);
  }
}

TEST_CASE("every tool through the session: commit, undo restores the bytes, redo reapplies them", "[labeltools]") {
  const Geometry g({36, 32, 24}, {0.9, 0.9, 1.8}, {5, -3, 2}, delineate::test::rotationMatrix(0.1, 0.2, -0.3));
  LabelMap start = LabelMap::create(g).value();
  std::mt19937 rng(17);
  std::bernoulli_distribution speck(0.01);
  fillBox(start, 1, {5, 5, 4}, {20, 20, 12});
  fillBox(start, 1, {8, 8, 7}, {12, 12, 9});  // (kept) then hollowed below
  fillBox(start, 0, {9, 9, 8}, {11, 11, 8});
  fillWhere(start, 1, [&](const Index3&) { return speck(rng); });
  fillWhere(start, 3, [&](const Index3& p) { return p[2] == 6 && p[0] > 24 && p[1] > 20; });
  fillWhere(start, 3, [&](const Index3& p) { return p[2] == 14 && p[0] > 22 && p[1] > 16; });
  auto session = AnnotationSession::create(ImageVolume::create(g).value(), start, LabelTable{}).value();
  const Vec3 c = g.indexToLps(Vec3{15.2, 14.7, 10.1});
  using Tool = std::function<std::size_t(EditTransaction&, const LabelMap&)>;
  const std::vector<std::pair<const char*, Tool>> tools = {
      {"brush", [&](EditTransaction& t, const LabelMap&) { return paintBrush(t, c, 2, BrushOptions{6, false, 2, {}}); }},
      {"sphere", [&](EditTransaction& t, const LabelMap&) { return paintBrush(t, c, 2, BrushOptions{5, true, 2, {}}); }},
      {"stroke", [&](EditTransaction& t, const LabelMap&) {
         return paintStroke(t, c, g.indexToLps(Vec3{30, 3, 20}), 4, BrushOptions{2, true, 2, {}});
       }},
      {"erase", [&](EditTransaction& t, const LabelMap&) { return paintBrush(t, c, 0, BrushOptions{4, true, 2, {}}); }},
      {"flood", [&](EditTransaction& t, const LabelMap& m) { return *floodFill(t, m, {0, 0, 0}, 5, FloodOptions{false, 2, {}}); }},
      {"flood3d", [&](EditTransaction& t, const LabelMap& m) { return *floodFill(t, m, {6, 6, 5}, 7, FloodOptions{true, 2, {}}); }},
      {"largest", [&](EditTransaction& t, const LabelMap& m) { return *keepLargestIsland(t, m, 1); }},
      {"small", [&](EditTransaction& t, const LabelMap& m) { return *removeSmallIslands(t, m, 1, 5); }},
      {"holes", [&](EditTransaction& t, const LabelMap& m) { return *fillHoles(t, m, 7); }},
      {"smooth", [&](EditTransaction& t, const LabelMap& m) { return *smoothLabel(t, m, 7, 2.0); }},
      {"interpolate", [&](EditTransaction& t, const LabelMap& m) { return *interpolateSlices(t, m, 3, 2); }},
  };
  std::vector<std::vector<Label>> states{snapshot(session.labels())};
  for (const auto& [name, tool] : tools) {
    INFO(name);
    EditTransaction tx = session.beginEdit(name);
    const std::size_t written = tool(tx, session.labels());
    CHECK(written > 0);
    REQUIRE(session.commit(tx));
    states.push_back(snapshot(session.labels()));
    CHECK(states.back() != states[states.size() - 2]);
  }
  for (std::size_t s = tools.size(); s > 0; --s) {
    REQUIRE(session.undo());
    REQUIRE(snapshot(session.labels()) == states[s - 1]);
  }
  for (std::size_t s = 1; s <= tools.size(); ++s) {
    REQUIRE(session.redo());
    REQUIRE(snapshot(session.labels()) == states[s]);
  }
}

TEST_CASE("a small label on a 512x512x300 map: the clean-up tools work on its box, not the map", "[labeltools]") {
  const Geometry g({512, 512, 300}, {0.7, 0.7, 1.0}, {0, 0, 0});
  LabelMap map = LabelMap::create(g).value();
  {
    EditTransaction tx(map, "setup");
    tx.paintSphere(g.indexToLps(Index3{300, 200, 150}), 6, 9);
    tx.paintSphere(g.indexToLps(Index3{300, 200, 150}), 2, 0);  // a hole inside
    tx.fillBox(IndexBox{{300, 222, 150}, {300, 222, 150}}, 9);   // an island
    tx.fillBox(IndexBox{{300, 200, 140}, {300, 200, 140}}, 9);   // another, on another slice
    tx.commit();
  }
  const IndexBox box = labelBoundingBox(map, 9);
  REQUIRE(box == IndexBox{{292, 192, 140}, {308, 222, 156}});
  const auto boxVoxels = static_cast<std::size_t>(box.voxelCount());
  const std::size_t labelled = countLabel(map, 9);
  auto local = [&](const ToolWork& w, std::size_t limit) {
    CHECK(w.bufferVoxels > 0);
    CHECK(w.bufferVoxels <= limit);
    CHECK(w.bufferVoxels * 1000 < static_cast<std::size_t>(g.voxelCount()));
  };
  EditTransaction tx(map, "Clean up");
  ToolWork work;
  CHECK(*removeSmallIslands(tx, map, 9, 2, work) == 2);
  local(work, boxVoxels);
  CHECK(*fillHoles(tx, map, 9, -1, work) > 0);
  local(work, 19 * 19 * 17);
  CHECK(*keepLargestIsland(tx, map, 9, work) == 0);
  local(work, 19 * 19 * 17);
  CHECK(*smoothLabel(tx, map, 9, 1.0, work) < 200);
  local(work, 25 * 25 * 21);
  CHECK(interpolateSlices(tx, map, 9, 2, work).ok());
  local(work, 21 * 21);
  CHECK(countLabel(map, 9) > labelled - 2);
  tx.rollback();
}

TEST_CASE("labelBoundingBox finds every label value, at any position in a row", "[labeltools]") {
  // Rows of 37 voxels: two 16-voxel words and a tail; values with the high bit set and neighbours of the label.
  const Geometry g({37, 5, 4}, {1, 1, 1}, {0, 0, 0});
  std::mt19937 rng(23);
  std::uniform_int_distribution<std::size_t> at(0, 37 * 5 * 4 - 1);
  for (const Label label : {Label(1), Label(2), Label(0x7fff), Label(0x8000), Label(0x8001), Label(0xffff)}) {
    for (int trial = 0; trial < 40; ++trial) {
      LabelMap map = LabelMap::create(g).value();
      EditTransaction tx(map, "setup");
      // Decoys: the label's neighbours and bit patterns that differ from it in one lane bit.
      for (int i = 0; i < 30; ++i) {
        const Label decoy = static_cast<Label>(label ^ (1u << (i % 16)));
        tx.set(indexOf(g, at(rng)), decoy);
      }
      IndexBox expected;
      for (int i = 0; i < trial % 4; ++i) {
        const Index3 p = indexOf(g, at(rng));
        tx.set(p, label);
        expected.include(p);
      }
      INFO("label " << label << " trial " << trial);
      CHECK(labelBoundingBox(map, label) == expected);
    }
  }
}
