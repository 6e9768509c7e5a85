#include "inference/vista3d/combine.h"

#include "core/morphology.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace delineate::inference::vista3d {
namespace {

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
  // Torch order is memory order with the last axis fastest: as a grid with x fastest its sizes run backwards, and
  // component ids then follow the C-order scan, as skimage numbers them.
  const core::Size3 memory{size[2], size[1], size[0]};
  const auto posId = core::connectedComponents(pos, memory, core::Connectivity::Full).id;
  const auto negId = core::connectedComponents(neg, memory, core::Connectivity::Full).id;
  std::vector<std::uint8_t> cc(total, 0);
  for (std::size_t q = 0; q < points.size(); ++q) {
    const int l = points[q].label;
    if (l == -1) continue;
    const auto& ids = (l == 1 || l == 3) ? posId : negId;
    for (std::int64_t m = 0; m <= 2; ++m) {
      std::int32_t best = -1;
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
      if (best >= 0) {
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

std::vector<float> gaussianCombine(const std::vector<float>& classLogits, const std::vector<float>& pointLogits,
                                   const std::int64_t size[3], const std::vector<Vista3dModel::WindowPoint>& points,
                                   double radius) {
  if (radius <= 0) radius = static_cast<double>(std::min({size[0], size[1], size[2]}) / 5);
  const double twoR2 = 2.0 * radius * radius;
  std::vector<float> out(classLogits.size());
  std::size_t v = 0;
  for (std::int64_t i = 0; i < size[0]; ++i)
    for (std::int64_t j = 0; j < size[1]; ++j)
      for (std::int64_t k = 0; k < size[2]; ++k, ++v) {
        double disc = 0;
        for (const auto& p : points) {
          if (p.label < 0) continue;
          const double di = double(i) - p.ijk[0], dj = double(j) - p.ijk[1], dk = double(k) - p.ijk[2];
          disc += std::exp(-(di * di + dj * dj + dk * dk) / twoR2);
        }
        const double w = std::max(0.0, 1.0 - disc);
        out[v] = static_cast<float>(double(classLogits[v]) * w + (1.0 - w) * double(pointLogits[v]));
      }
  return out;
}

}  // namespace delineate::inference::vista3d
