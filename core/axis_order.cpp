#include "core/axis_order.h"

#include <algorithm>
#include <cmath>

namespace delineate::core {

std::vector<AxisOrder> allAxisOrders() {
  std::vector<AxisOrder> out;
  std::array<int, 3> p{0, 1, 2};
  do {
    for (int f = 0; f < 8; ++f) {
      AxisOrder o;
      o.axis = p;
      for (std::size_t a = 0; a < 3; ++a) o.flip[a] = ((f >> a) & 1) != 0;
      out.push_back(o);
    }
  } while (std::next_permutation(p.begin(), p.end()));
  return out;
}

AxisOrder canonicalAxisOrder(const Geometry& geometry) {
  const Mat3& d = geometry.direction();
  AxisOrder best;
  double bestScore = -1;
  std::array<int, 3> p{0, 1, 2};
  // Strictly greater: among exact ties the first permutation in lexicographic order wins.
  do {
    double score = 0;
    for (int a = 0; a < 3; ++a) score += std::fabs(d(a, p[static_cast<std::size_t>(a)]));
    if (score > bestScore) {
      bestScore = score;
      best.axis = p;
    }
  } while (std::next_permutation(p.begin(), p.end()));
  for (int a = 0; a < 3; ++a) best.flip[static_cast<std::size_t>(a)] = d(a, best.axis[static_cast<std::size_t>(a)]) < 0;
  return best;
}

Index3 sourceIndexOf(const Index3& reordered, const Size3& sourceDims, const AxisOrder& order) {
  Index3 s{};
  for (std::size_t a = 0; a < 3; ++a) {
    const auto sa = static_cast<std::size_t>(order.axis[a]);
    s[sa] = order.flip[a] ? sourceDims[sa] - 1 - reordered[a] : reordered[a];
  }
  return s;
}

Index3 reorderedIndexOf(const Index3& source, const Size3& sourceDims, const AxisOrder& order) {
  Index3 r{};
  for (std::size_t a = 0; a < 3; ++a) {
    const auto sa = static_cast<std::size_t>(order.axis[a]);
    r[a] = order.flip[a] ? sourceDims[sa] - 1 - source[sa] : source[sa];
  }
  return r;
}

namespace {
// The box spanned by two mapped corners: a flipped axis swaps which corner is low.
IndexBox spannedBy(const Index3& a, const Index3& b) {
  IndexBox out;
  for (std::size_t k = 0; k < 3; ++k) {
    out.min[k] = std::min(a[k], b[k]);
    out.max[k] = std::max(a[k], b[k]);
  }
  return out;
}
}  // namespace

IndexBox sourceBoxOf(const IndexBox& reordered, const Size3& sourceDims, const AxisOrder& order) {
  return spannedBy(sourceIndexOf(reordered.min, sourceDims, order), sourceIndexOf(reordered.max, sourceDims, order));
}

IndexBox reorderedBoxOf(const IndexBox& source, const Size3& sourceDims, const AxisOrder& order) {
  return spannedBy(reorderedIndexOf(source.min, sourceDims, order), reorderedIndexOf(source.max, sourceDims, order));
}

Geometry reorderedGeometry(const Geometry& source, const AxisOrder& order) {
  const Size3& dims = source.dimensions();
  Size3 n{};
  Vec3 sp{};
  Mat3 dir;
  for (std::size_t a = 0; a < 3; ++a) {
    const auto sa = static_cast<std::size_t>(order.axis[a]);
    n[a] = dims[sa];
    sp[a] = source.spacingMm()[sa];
    for (int r = 0; r < 3; ++r) {
      const double c = source.direction()(r, static_cast<int>(sa));
      dir(r, static_cast<int>(a)) = order.flip[a] ? -c : c;
    }
  }
  const Vec3 origin = source.indexToLps(sourceIndexOf(Index3{0, 0, 0}, dims, order));
  return Geometry(n, sp, origin, dir);
}

}  // namespace delineate::core
