// Exact longest diameter of each label: the largest distance between hull vertices of its voxel centres.

#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/statistics_internal.h"

namespace delineate::core::detail {

namespace {

__extension__ using Int128 = __int128;  // cross products of indices up to 2^36 need more than 64 bits

// > 0 when o -> p -> q turns counter-clockwise in the (a, b) plane.
Int128 cross(const Index3& o, const Index3& p, const Index3& q, std::size_t a, std::size_t b) {
  return Int128(p[a] - o[a]) * Int128(q[b] - o[b]) - Int128(p[b] - o[b]) * Int128(q[a] - o[a]);
}

// Reduces each group of points sharing coordinate `fixed` to its 2D hull's vertices.
void keepSliceHullVertices(std::vector<Index3>& points, int fixed) {
  const auto f = static_cast<std::size_t>(fixed);
  const int a = fixed == 0 ? 1 : 0, b = fixed == 2 ? 1 : 2;
  std::sort(points.begin(), points.end(), [f](const Index3& p, const Index3& q) { return p[f] < q[f]; });
  std::vector<Index3> out, group;
  out.reserve(points.size());
  for (std::size_t s = 0; s < points.size();) {
    std::size_t e = s + 1;
    while (e < points.size() && points[e][f] == points[s][f]) ++e;
    group.assign(points.begin() + static_cast<std::ptrdiff_t>(s), points.begin() + static_cast<std::ptrdiff_t>(e));
    keepHullVertices2D(group, a, b);
    out.insert(out.end(), group.begin(), group.end());
    s = e;
  }
  points.swap(out);
}

double distance(const Vec3& p, const Vec3& q) {
  const double dx = p[0] - q[0], dy = p[1] - q[1], dz = p[2] - q[2];
  return std::sqrt(dx * dx + dy * dy + dz * dz);
}

}  // namespace

void DiameterCandidates::addRow(std::size_t slot, std::int64_t j, std::int64_t iFirst, std::int64_t iLast) {
  if (slot >= m_labels.size()) m_labels.resize(slot + 1);
  PerLabel& p = m_labels[slot];
  if (p.slice.empty()) m_touched.push_back(slot);
  p.slice.push_back(Index3{iFirst, j, 0});
  if (iLast != iFirst) p.slice.push_back(Index3{iLast, j, 0});
}

void DiameterCandidates::endSlice(std::int64_t k) {
  for (std::size_t slot : m_touched) {
    PerLabel& p = m_labels[slot];
    for (Index3& q : p.slice) q[2] = k;
    keepHullVertices2D(p.slice, 0, 1);
    p.candidates.insert(p.candidates.end(), p.slice.begin(), p.slice.end());
    p.slice.clear();
  }
  m_touched.clear();
}

const std::vector<Index3>& DiameterCandidates::candidates(std::size_t slot) const {
  static const std::vector<Index3> kNone;
  return slot < m_labels.size() ? m_labels[slot].candidates : kNone;
}

void keepHullVertices2D(std::vector<Index3>& points, int a, int b) {
  const std::size_t n = points.size();
  if (n <= 2) return;  // distinct points: all vertices
  const auto ua = static_cast<std::size_t>(a), ub = static_cast<std::size_t>(b);
  std::sort(points.begin(), points.end(), [ua, ub](const Index3& p, const Index3& q) {
    return p[ua] != q[ua] ? p[ua] < q[ua] : p[ub] < q[ub];
  });
  // Andrew's monotone chain; popping on cross <= 0 drops points on edges too.
  std::vector<Index3> hull(2 * n);
  std::size_t m = 0;
  for (std::size_t i = 0; i < n; ++i) {
    while (m >= 2 && cross(hull[m - 2], hull[m - 1], points[i], ua, ub) <= 0) --m;
    hull[m++] = points[i];
  }
  for (std::size_t i = n - 1, lower = m + 1; i-- > 0;) {
    while (m >= lower && cross(hull[m - 2], hull[m - 1], points[i], ua, ub) <= 0) --m;
    hull[m++] = points[i];
  }
  hull.resize(m - 1);  // the last point repeats the first
  points.swap(hull);
}

double longestDistanceMm(std::vector<Index3> points, const Geometry& grid, std::uint64_t* pairsCompared) {
  if (pairsCompared) *pairsCompared = 0;
  if (points.size() < 2) return 0;
  // A point inside the hull of its own slice is inside the 3D hull: only slice-hull vertices can be 3D vertices.
  for (int fixed = 2; fixed >= 0; --fixed) keepSliceHullVertices(points, fixed);

  const std::size_t m = points.size();
  std::vector<Vec3> p(m);
  Vec3 centre{0, 0, 0};
  for (std::size_t i = 0; i < m; ++i) {
    p[i] = grid.indexToLps(points[i]);
    for (std::size_t c = 0; c < 3; ++c) centre[c] += p[i][c] / double(m);
  }
  // Farthest from the centre first: |p - q| <= r(p) + r(q) bounds every later pair.
  std::vector<double> r(m);
  for (std::size_t i = 0; i < m; ++i) r[i] = distance(p[i], centre);
  std::vector<std::size_t> order(m);
  std::iota(order.begin(), order.end(), std::size_t(0));
  std::sort(order.begin(), order.end(), [&r](std::size_t x, std::size_t y) { return r[x] > r[y]; });
  std::vector<Vec3> q(m);
  std::vector<double> rs(m);
  for (std::size_t i = 0; i < m; ++i) {
    q[i] = p[order[i]];
    rs[i] = r[order[i]];
  }
  // A good first answer makes the bound bite early: the point farthest from the outermost one.
  double best = 0;
  for (std::size_t i = 1; i < m; ++i) best = std::max(best, distance(q[0], q[i]));
  // The margin keeps pairs whose rounded distance could still tie or beat `best`.
  constexpr double kMargin = 1 + 1e-9;
  std::uint64_t pairs = 0;
  for (std::size_t i = 1; i < m; ++i) {
    if ((rs[i] + rs[0]) * kMargin < best) break;
    for (std::size_t j = 0; j < i; ++j) {
      if ((rs[i] + rs[j]) * kMargin < best) break;
      best = std::max(best, distance(q[i], q[j]));
      ++pairs;
    }
  }
  if (pairsCompared) *pairsCompared = pairs;
  return best;
}

}  // namespace delineate::core::detail
