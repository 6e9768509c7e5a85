#include "inference/vista3d/preprocess.h"

#include <algorithm>
#include <cmath>
#include <new>
#include <vector>

namespace delineate::inference::vista3d {
namespace {

using core::Index3;
using core::IndexBox;
using core::Size3;

// Linear resampling along one axis: out[i] = in at coordinate i * step, clamped to [0, n - 1] (border padding).
std::vector<float> resampleAxis(const std::vector<float>& in, const Size3& n, int axis, std::int64_t outLen, double step) {
  Size3 m = n;
  m[static_cast<std::size_t>(axis)] = outLen;
  std::vector<float> out(static_cast<std::size_t>(m[0] * m[1] * m[2]));
  const std::int64_t len = n[static_cast<std::size_t>(axis)];
  std::vector<std::int64_t> i0(static_cast<std::size_t>(outLen)), i1(static_cast<std::size_t>(outLen));
  std::vector<double> t(static_cast<std::size_t>(outLen));
  for (std::int64_t i = 0; i < outLen; ++i) {
    const double u = std::clamp(static_cast<double>(i) * step, 0.0, static_cast<double>(len - 1));
    const auto lo = static_cast<std::int64_t>(std::floor(u));
    i0[static_cast<std::size_t>(i)] = lo;
    i1[static_cast<std::size_t>(i)] = std::min(lo + 1, len - 1);
    t[static_cast<std::size_t>(i)] = u - static_cast<double>(lo);
  }
  const std::int64_t inStride[3] = {1, n[0], n[0] * n[1]};
  const std::int64_t outStride[3] = {1, m[0], m[0] * m[1]};
  const auto a = static_cast<std::size_t>(axis);
  for (std::int64_t z = 0; z < m[2]; ++z)
    for (std::int64_t y = 0; y < m[1]; ++y)
      for (std::int64_t x = 0; x < m[0]; ++x) {
        const std::int64_t c[3] = {x, y, z};
        std::int64_t base = 0;
        for (std::size_t b = 0; b < 3; ++b)
          if (b != a) base += c[b] * inStride[b];
        const auto k = static_cast<std::size_t>(c[a]);
        const double v0 = in[static_cast<std::size_t>(base + i0[k] * inStride[a])];
        const double v1 = in[static_cast<std::size_t>(base + i1[k] * inStride[a])];
        out[static_cast<std::size_t>(x * outStride[0] + y * outStride[1] + z * outStride[2])] =
            static_cast<float>(v0 + t[k] * (v1 - v0));
      }
  return out;
}

}  // namespace

core::Size3 spacedDimensions(const core::Geometry& g) {
  Size3 sd{};
  for (std::size_t a = 0; a < 3; ++a)
    sd[a] = static_cast<std::int64_t>(std::llround(static_cast<double>(g.dimensions()[a] - 1) * g.spacingMm()[a] /
                                                   kTargetSpacingMm)) + 1;
  return sd;
}

namespace {

Vista3dGrid orientationOf(const core::Geometry& g) {
  // Orientationd RAS: model axis m is the image axis whose direction is closest to R, A or S, flipped when it points
  // the other way. (LPS direction columns; RAS = LPS with x and y negated.)
  Vista3dGrid grid;
  const core::Mat3& d = g.direction();
  bool used[3] = {false, false, false};
  for (int m = 0; m < 3; ++m) {
    int best = -1;
    double bestAbs = -1;
    for (int a = 0; a < 3; ++a)
      if (!used[a] && std::fabs(d(m, a)) > bestAbs) {
        best = a;
        bestAbs = std::fabs(d(m, a));
      }
    used[best] = true;
    grid.axisOf[m] = best;
    const double ras = (m < 2 ? -1.0 : 1.0) * d(m, best);
    grid.flipped[m] = ras < 0;
  }
  return grid;
}

}  // namespace

core::Result<Vista3dInput> preprocessForVista3d(core::ImageView image, bool keepStages) {
  const auto& g = image.geometry();
  const Size3 n = g.dimensions();
  if (g.voxelCount() <= 0) return core::makeError(core::ErrorCode::InvalidArgument, "vista3d", "the image is empty");
  try {
    // 1. Orientationd RAS first (the bundle does it last; see the header): the image's axes permuted and flipped
    // into the model's order, an exact copy.
    Vista3dGrid grid = orientationOf(g);
    Size3 rn{};
    core::Vec3 rs{};
    core::Mat3 dir;
    Index3 corner{};  // the image voxel that becomes voxel 0
    std::vector<std::int64_t> from[3];
    const std::int64_t stride[3] = {1, n[0], n[0] * n[1]};
    for (int m = 0; m < 3; ++m) {
      const auto a = static_cast<std::size_t>(grid.axisOf[m]);
      const auto mm = static_cast<std::size_t>(m);
      rn[mm] = n[a];
      rs[mm] = g.spacingMm()[a];
      for (int r = 0; r < 3; ++r) dir(r, m) = (grid.flipped[m] ? -1.0 : 1.0) * g.direction()(r, static_cast<int>(a));
      corner[a] = grid.flipped[m] ? n[a] - 1 : 0;
      for (std::int64_t i = 0; i < n[a]; ++i) from[m].push_back((grid.flipped[m] ? n[a] - 1 - i : i) * stride[a]);
    }
    const core::Geometry oriented(rn, rs, g.indexToLps(corner), dir);

    // 2. Spacingd: per axis, (n - 1) * spacing / 1.5 + 1 samples, voxel 0 where it was, directions kept.
    const Size3 sd = spacedDimensions(oriented);
    double count = 1;
    for (std::size_t a = 0; a < 3; ++a) count *= static_cast<double>(sd[a]);
    if (count > static_cast<double>(core::Geometry::kMaxVoxels))
      return core::makeError(core::ErrorCode::SizeLimit, "vista3d", "the image at 1.5 mm would have too many voxels");
    std::vector<float> v(image.size());
    image.visit([&](const auto& volume) {  // the stored type read as float in the oriented copy
      const auto* src = volume.data();
      std::size_t o = 0;
      for (std::int64_t k = 0; k < rn[2]; ++k)
        for (std::int64_t j = 0; j < rn[1]; ++j) {
          const std::int64_t base = from[2][static_cast<std::size_t>(k)] + from[1][static_cast<std::size_t>(j)];
          for (std::int64_t i = 0; i < rn[0]; ++i, ++o)
            v[o] = static_cast<float>(src[base + from[0][static_cast<std::size_t>(i)]]);
        }
    });
    Size3 cur = rn;
    for (int a = 0; a < 3; ++a) {
      const auto s = static_cast<std::size_t>(a);
      if (sd[s] == cur[s] && std::fabs(rs[s] - kTargetSpacingMm) < 1e-9) continue;
      v = resampleAxis(v, cur, a, sd[s], kTargetSpacingMm / rs[s]);
      cur[s] = sd[s];
    }
    const core::Geometry spacedGeometry(sd, {kTargetSpacingMm, kTargetSpacingMm, kTargetSpacingMm}, oriented.originLps(),
                                        dir);

    // 3. CropForegroundd: the box of voxels above 0 HU, 10 voxels of margin, within the grid (the whole grid when
    // nothing is above 0).
    IndexBox fg;
    for (std::int64_t z = 0; z < sd[2]; ++z)
      for (std::int64_t y = 0; y < sd[1]; ++y)
        for (std::int64_t x = 0; x < sd[0]; ++x)
          if (v[static_cast<std::size_t>((z * sd[1] + y) * sd[0] + x)] > 0) fg.include(Index3{x, y, z});
    IndexBox crop{{0, 0, 0}, {sd[0] - 1, sd[1] - 1, sd[2] - 1}};
    if (!fg.empty())
      for (std::size_t a = 0; a < 3; ++a) {
        crop.min[a] = std::max<std::int64_t>(0, fg.min[a] - 10);
        crop.max[a] = std::min<std::int64_t>(sd[a] - 1, fg.max[a] + 10);
      }
    const Size3 cd{crop.max[0] - crop.min[0] + 1, crop.max[1] - crop.min[1] + 1, crop.max[2] - crop.min[2] + 1};
    grid.spacedDims = sd;
    grid.crop = crop;

    // 4. ScaleIntensityRanged: scaled and clipped, on the cropped grid.
    const core::Geometry modelGeometry(cd, {kTargetSpacingMm, kTargetSpacingMm, kTargetSpacingMm},
                                       spacedGeometry.indexToLps(crop.min), dir);
    auto out = core::ImageVolume::create(modelGeometry);
    if (!out) return out.error();
    const double scale = 1.0 / (kIntensityMax - kIntensityMin);
    for (std::int64_t k = 0; k < cd[2]; ++k)
      for (std::int64_t j = 0; j < cd[1]; ++j)
        for (std::int64_t i = 0; i < cd[0]; ++i) {
          const double hu =
              v[static_cast<std::size_t>(((k + crop.min[2]) * sd[1] + j + crop.min[1]) * sd[0] + i + crop.min[0])];
          out->at({i, j, k}) = static_cast<float>(std::clamp((hu - kIntensityMin) * scale, 0.0, 1.0));
        }
    Vista3dInput result{std::move(out).value(), grid, {}, {}};
    if (keepStages) {
      // The stages as the bundle has them, in the image's own axis order (it turns the grid to RAS last).
      Size3 ssd{}, scd{};
      Index3 spacedCorner{}, cropCorner{};
      for (int m = 0; m < 3; ++m) {
        const auto a = static_cast<std::size_t>(grid.axisOf[m]);
        const auto mm = static_cast<std::size_t>(m);
        ssd[a] = sd[mm];
        scd[a] = cd[mm];
        spacedCorner[mm] = grid.flipped[m] ? sd[mm] - 1 : 0;
        cropCorner[mm] = grid.flipped[m] ? crop.max[mm] : crop.min[mm];
      }
      // The spaced grid's voxel (model order) of voxel s of a stage whose voxel 0 is the spaced voxel `base`.
      auto modelIndexOf = [&](const Index3& s, const Index3& base) {
        Index3 mi{};
        for (int m = 0; m < 3; ++m) {
          const auto a = static_cast<std::size_t>(grid.axisOf[m]);
          const auto mm = static_cast<std::size_t>(m);
          mi[mm] = base[mm] + (grid.flipped[m] ? -s[a] : s[a]);
        }
        return mi;
      };
      auto stage = [&](const Size3& dims, const Index3& base) {
        auto vol = core::ImageVolume::create(core::Geometry(dims, spacedGeometry.spacingMm(),
                                                            spacedGeometry.indexToLps(base), g.direction()))
                       .value();
        for (std::int64_t z = 0; z < dims[2]; ++z)
          for (std::int64_t y = 0; y < dims[1]; ++y)
            for (std::int64_t x = 0; x < dims[0]; ++x) {
              const Index3 mi = modelIndexOf(Index3{x, y, z}, base);
              vol.at({x, y, z}) = v[static_cast<std::size_t>((mi[2] * sd[1] + mi[1]) * sd[0] + mi[0])];
            }
        return vol;
      };
      result.spaced = stage(ssd, spacedCorner);
      result.cropped = stage(scd, cropCorner);
    }
    return result;
  } catch (const std::bad_alloc&) {
    return core::makeError(core::ErrorCode::OutOfMemory, "vista3d", "out of memory preprocessing the image");
  }
}

}  // namespace delineate::inference::vista3d
