// Hole filling (scanline flood) against a plain breadth-first flood written here, on random masks.
#include <catch2/catch.hpp>

#include <deque>
#include <random>

#include "core/morphology.h"

using namespace delineate;
using namespace delineate::core;

namespace {

Mask referenceFill(Mask m, const core::Size3& n, int sliceAxis) {
  Mask outside(m.size(), 0);
  std::deque<core::Index3> q;
  auto idx = [&](const core::Index3& p) { return static_cast<std::size_t>((p[2] * n[1] + p[1]) * n[0] + p[0]); };
  auto visit = [&](const core::Index3& p) {
    if (!m[idx(p)] && !outside[idx(p)]) {
      outside[idx(p)] = 1;
      q.push_back(p);
    }
  };
  for (std::int64_t z = 0; z < n[2]; ++z)
    for (std::int64_t y = 0; y < n[1]; ++y)
      for (std::int64_t x = 0; x < n[0]; ++x) {
        const core::Index3 p{x, y, z};
        for (std::size_t a = 0; a < 3; ++a)
          if (static_cast<int>(a) != sliceAxis && (p[a] == 0 || p[a] == n[a] - 1)) visit(p);
      }
  while (!q.empty()) {
    const core::Index3 p = q.front();
    q.pop_front();
    for (std::size_t a = 0; a < 3; ++a) {
      if (static_cast<int>(a) == sliceAxis) continue;
      for (int d = -1; d <= 1; d += 2) {
        core::Index3 r = p;
        r[a] += d;
        if (r[a] >= 0 && r[a] < n[a]) visit(r);
      }
    }
  }
  for (std::size_t i = 0; i < m.size(); ++i)
    if (!outside[i]) m[i] = 1;
  return m;
}

}  // namespace

TEST_CASE("fillHoles fills exactly the unset voxels cut off from the faces, in 3D and slice by slice", "[morphology]") {
  std::mt19937 rng(7);
  const core::Size3 n{19, 13, 11};
  for (const double density : {0.3, 0.5, 0.6, 0.7}) {
    std::bernoulli_distribution set(density);
    for (int sliceAxis = -1; sliceAxis < 3; ++sliceAxis) {
      INFO("density " << density << ", slice axis " << sliceAxis);
      Mask m(static_cast<std::size_t>(n[0] * n[1] * n[2]));
      for (auto& v : m) v = set(rng) ? 1 : 0;
      Mask ours = m;
      fillHoles(ours, n, sliceAxis);
      const Mask ref = referenceFill(m, n, sliceAxis);
      std::size_t filled = 0, differ = 0;
      for (std::size_t i = 0; i < m.size(); ++i) {
        filled += ref[i] != m[i];
        differ += ours[i] != ref[i];
      }
      CHECK(differ == 0);
      if (density >= 0.6) CHECK(filled > 0);  // the case is not vacuous
    }
  }
  // A hollow box: its inside is a hole.
  Mask box(static_cast<std::size_t>(n[0] * n[1] * n[2]), 0);
  for (std::int64_t z = 2; z <= 8; ++z)
    for (std::int64_t y = 2; y <= 10; ++y)
      for (std::int64_t x = 2; x <= 16; ++x)
        if (z == 2 || z == 8 || y == 2 || y == 10 || x == 2 || x == 16) box[static_cast<std::size_t>((z * 13 + y) * 19 + x)] = 1;
  Mask filled3d = box;
  fillHoles(filled3d, n);
  CHECK(filled3d[static_cast<std::size_t>((5 * 13 + 6) * 19 + 9)] == 1);
}
