#include "inference/vista3d/combine.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace delineate::inference::vista3d {
namespace {

// 26-connected components numbered 1, 2, ... in the order of their first voxel in a C-order scan (as skimage's
// label numbers them); 0 where the mask is unset.
std::vector<std::int32_t> label26(const std::vector<std::uint8_t>& mask, const std::int64_t n[3]) {
  std::vector<std::int32_t> id(mask.size(), 0);
  std::vector<std::size_t> stack;
  std::int32_t next = 0;
  for (std::size_t s = 0; s < mask.size(); ++s) {
    if (!mask[s] || id[s]) continue;
    id[s] = ++next;
    stack.push_back(s);
    while (!stack.empty()) {
      const std::size_t v = stack.back();
      stack.pop_back();
      const auto sv = static_cast<std::int64_t>(v);
      const std::int64_t i = sv / (n[1] * n[2]), j = (sv / n[2]) % n[1], k = sv % n[2];
      for (std::int64_t di = -1; di <= 1; ++di)
        for (std::int64_t dj = -1; dj <= 1; ++dj)
          for (std::int64_t dk = -1; dk <= 1; ++dk) {
            const std::int64_t a = i + di, b = j + dj, c = k + dk;
            if (a < 0 || b < 0 || c < 0 || a >= n[0] || b >= n[1] || c >= n[2]) continue;
            const auto u = static_cast<std::size_t>((a * n[1] + b) * n[2] + c);
            if (mask[u] && !id[u]) {
              id[u] = next;
              stack.push_back(u);
            }
          }
    }
  }
  return id;
}

float sigmoid(float x) { return 1.0f / (1.0f + std::exp(-x)); }

}  // namespace

std::vector<float> connectedComponentsCombine(const std::vector<float>& classLogits, std::vector<float> pointLogits,
                                              const std::int64_t size[3],
                                              const std::vector<Vista3dModel::WindowPoint>& points) {
  const std::size_t total = classLogits.size();
  auto at = [&](const std::int64_t p[3]) { return static_cast<std::size_t>((p[0] * size[1] + p[1]) * size[2] + p[2]); };
  // Rounded click voxels (half to even, as numpy), clipped to the window.
  std::vector<std::array<std::int64_t, 3>> voxel;
  for (const auto& p : points) {
    std::array<std::int64_t, 3> v{};
    for (std::size_t a = 0; a < 3; ++a)
      v[a] = std::clamp<std::int64_t>(static_cast<std::int64_t>(std::nearbyint(p.ijk[a])), 0, size[a] - 1);
    voxel.push_back(v);
  }
  // Whether a click lies on the class's object.
  bool inside = false;
  for (const auto& v : voxel) inside = inside || classLogits[at(v.data())] > 0;
  std::vector<std::uint8_t> nan(total), pos(total), neg(total);
  for (std::size_t i = 0; i < total; ++i) {
    nan[i] = std::isnan(classLogits[i]) ? 1 : 0;
    const float a = sigmoid(nan[i] ? -9999.0f : classLogits[i]);
    const bool p = sigmoid(pointLogits[i]) > 0.5f;
    pos[i] = ((a <= 0.5f || inside) && p) ? 1 : 0;
    neg[i] = (a > 0.5f && !p) ? 1 : 0;
  }
  const auto posId = label26(pos, size), negId = label26(neg, size);
  std::vector<std::uint8_t> cc(total, 0);
  for (std::size_t q = 0; q < points.size(); ++q) {
    const int l = points[q].label;
    if (l == -1) continue;
    const auto& ids = (l == 1 || l == 3) ? posId : negId;
    for (std::int64_t m = 0; m <= 2; ++m) {
      std::int32_t best = 0;
      std::int64_t lo[3], hi[3];
      for (std::size_t a = 0; a < 3; ++a) {
        lo[a] = std::max<std::int64_t>(0, voxel[q][a] - m);
        hi[a] = std::min<std::int64_t>(size[a] - 1, voxel[q][a] + m);
      }
      for (std::int64_t i = lo[0]; i <= hi[0]; ++i)
        for (std::int64_t j = lo[1]; j <= hi[1]; ++j)
          for (std::int64_t k = lo[2]; k <= hi[2]; ++k) {
            const std::int64_t c[3] = {i, j, k};
            best = std::max(best, ids[at(c)]);
          }
      if (best > 0) {
        for (std::size_t i = 0; i < total; ++i)
          if (ids[i] == best) cc[i] = 1;
        break;
      }
    }
  }
  std::vector<float> out(total);
  for (std::size_t i = 0; i < total; ++i) {
    if (nan[i] && sigmoid(pointLogits[i]) > 0.5f && !cc[i]) pointLogits[i] = -1.0f;
    const float c = (nan[i] || cc[i]) ? 1.0f : 0.0f;
    out[i] = classLogits[i] * (1.0f - c) + c * pointLogits[i];
  }
  return out;
}

}  // namespace delineate::inference::vista3d
