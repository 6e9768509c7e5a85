#include "inference/classic/working_grid.h"

#include "inference/classic/parallel.h"

#include <algorithm>
#include <type_traits>
#include <cmath>

namespace delineate::inference::classic {
namespace {

using core::Index3;
using core::IndexBox;

// [1 2 1]/4 along one axis (edges repeat), in place.
void smoothAxis(std::vector<float>& v, const std::int64_t n[3], int axis) {
  const std::int64_t len = n[axis];
  if (len < 3) return;
  const std::int64_t stride = axis == 0 ? 1 : axis == 1 ? n[0] : n[0] * n[1];
  std::vector<float> line(static_cast<std::size_t>(len));
  const std::int64_t lines = n[0] * n[1] * n[2] / len;
  for (std::int64_t l = 0; l < lines; ++l) {
    // The first voxel of line l: axis 0 lines run over (y, z), axis 1 over (x, z), axis 2 over (x, y).
    std::int64_t start = 0;
    if (axis == 0) start = l * n[0];
    else if (axis == 1) start = (l / n[0]) * n[0] * n[1] + l % n[0];
    else start = l;
    for (std::int64_t i = 0; i < len; ++i) line[static_cast<std::size_t>(i)] = v[static_cast<std::size_t>(start + i * stride)];
    for (std::int64_t i = 0; i < len; ++i) {
      const float a = line[static_cast<std::size_t>(std::max<std::int64_t>(0, i - 1))];
      const float b = line[static_cast<std::size_t>(i)];
      const float c = line[static_cast<std::size_t>(std::min(len - 1, i + 1))];
      v[static_cast<std::size_t>(start + i * stride)] = 0.25f * a + 0.5f * b + 0.25f * c;
    }
  }
}

float noiseLevel(const std::vector<float>& s, const std::int64_t n[3]) {
  // Differences along the first axis longer than one voxel (x, unless the grid is a single column).
  int axis = 0;
  while (axis < 2 && n[axis] < 2) ++axis;
  const std::int64_t stride = axis == 0 ? 1 : axis == 1 ? n[0] : n[0] * n[1];
  const std::size_t total = s.size();
  std::vector<float> diffs;
  const std::size_t step = std::max<std::size_t>(1, total / 200000);  // a sample is plenty
  diffs.reserve(total / step + 1);
  // Exact repeats are left out: masked or saturated backgrounds (a skull-stripped template, air at -1024 HU) are
  // constant and would make the noise level vanish.
  for (std::size_t i = 0; i < total; i += step) {
    const std::int64_t along = (static_cast<std::int64_t>(i) / stride) % n[axis];
    if (along + 1 >= n[axis]) continue;
    const std::size_t j = i + static_cast<std::size_t>(stride);
    if (s[j] != s[i]) diffs.push_back(std::fabs(s[j] - s[i]));
  }
  if (diffs.empty()) return 1e-3f;
  auto mid = diffs.begin() + static_cast<std::ptrdiff_t>(diffs.size() / 2);
  std::nth_element(diffs.begin(), mid, diffs.end());
  const float noise = *mid * 1.4826f / std::sqrt(2.0f);
  return noise > 0 ? noise : 1e-3f;
}

// Trilinear sampling positions of full voxels along one axis: the two working voxels around each and the weight of
// the second.
struct AxisSamples {
  std::vector<std::int64_t> i0, i1;
  std::vector<float> t;
};
AxisSamples axisSamples(std::int64_t fullMin, std::int64_t fullMax, std::int64_t boxMin, std::int64_t f, std::int64_t n) {
  AxisSamples s;
  for (std::int64_t p = fullMin; p <= fullMax; ++p) {
    const double u = (static_cast<double>(p - boxMin) + 0.5) / static_cast<double>(f) - 0.5;
    const double fl = std::floor(u);
    std::int64_t a = static_cast<std::int64_t>(fl);
    double t = u - fl;
    if (a < 0) {
      a = 0;
      t = 0;
    }
    if (a >= n - 1) {
      a = n - 1;
      t = 0;
    }
    s.i0.push_back(a);
    s.i1.push_back(std::min(a + 1, n - 1));
    s.t.push_back(static_cast<float>(t));
  }
  return s;
}

}  // namespace

Index3 WorkingGrid::toWorking(const Index3& full) const {
  Index3 w{};
  for (std::size_t a = 0; a < 3; ++a)
    w[a] = std::clamp<std::int64_t>((full[a] - box.min[a]) / factor[a], 0, n[a] - 1);
  return w;
}

void chooseFactors(const IndexBox& box, const core::Vec3& spacingMm, std::int64_t maxVoxels, std::int64_t factor[3]) {
  std::int64_t len[3];
  for (int a = 0; a < 3; ++a) {
    len[a] = box.max[a] - box.min[a] + 1;
    factor[a] = 1;
  }
  auto count = [&]() {
    std::int64_t c = 1;
    for (int a = 0; a < 3; ++a) c *= (len[a] + factor[a] - 1) / factor[a];
    return c;
  };
  while (count() > std::max<std::int64_t>(1, maxVoxels)) {
    int best = -1;
    for (int a = 0; a < 3; ++a) {
      if (factor[a] >= len[a]) continue;
      if (best < 0 || spacingMm[static_cast<std::size_t>(a)] * static_cast<double>(factor[a]) <
                          spacingMm[static_cast<std::size_t>(best)] * static_cast<double>(factor[best]))
        best = a;
    }
    if (best < 0) break;
    ++factor[best];
  }
}

WorkingGrid buildWorkingGrid(core::ImageView image, const IndexBox& box, std::int64_t maxVoxels,
                             int smoothingPasses) {
  const auto dims = image.geometry().dimensions();
  return image.visit([&](const auto& volume) {
    using T = typename std::decay_t<decltype(volume)>::value_type;
    const T* data = volume.data();
    const auto len = static_cast<std::size_t>(box.max[0] - box.min[0] + 1);
    return buildWorkingGrid(
        [&, len](std::int64_t y, std::int64_t z, std::vector<float>& scratch) -> const float* {
          const T* row = data + ((z * dims[1] + y) * dims[0] + box.min[0]);
          if constexpr (std::is_same_v<T, float>) {
            return row;
          } else {  // a typed image's row as float, in the reader's scratch
            scratch.resize(len);
            std::transform(row, row + len, scratch.begin(), [](T v) { return static_cast<float>(v); });
            return scratch.data();
          }
        },
        image.geometry().spacingMm(), box, maxVoxels, smoothingPasses);
  });
}

WorkingGrid buildWorkingGrid(const RowReader& rowAt, const core::Vec3& sp, const IndexBox& box, std::int64_t maxVoxels,
                             int smoothingPasses) {
  WorkingGrid g;
  g.box = box;
  chooseFactors(box, sp, maxVoxels, g.factor);
  for (std::size_t a = 0; a < 3; ++a) {
    g.n[a] = (box.max[a] - box.min[a] + 1 + g.factor[a] - 1) / g.factor[a];
    g.spacingMm[a] = sp[a] * static_cast<double>(g.factor[a]);
  }
  g.value.assign(g.size(), 0.0f);
  if (g.atFullResolution()) {
    std::size_t i = 0;
    std::vector<float> scratch;
    for (std::int64_t z = box.min[2]; z <= box.max[2]; ++z)
      for (std::int64_t y = box.min[1]; y <= box.max[1]; ++y) {
        const float* row = rowAt(y, z, scratch);
        std::copy(row, row + g.n[0], g.value.begin() + static_cast<std::ptrdiff_t>(i));
        i += static_cast<std::size_t>(g.n[0]);
      }
  } else {
    // Sums row by row, then divided by each block's voxel count (blocks at the far faces may be partial).
    std::vector<std::int64_t> wx(static_cast<std::size_t>(box.max[0] - box.min[0] + 1));
    for (std::size_t x = 0; x < wx.size(); ++x) wx[x] = static_cast<std::int64_t>(x) / g.factor[0];
    // Working slabs in parallel: each owns its output blocks.
    parallelRanges(g.n[2], 4, [&](std::int64_t wz0, std::int64_t wz1) {
      const std::int64_t z0 = box.min[2] + wz0 * g.factor[2], z1 = std::min(box.max[2] + 1, box.min[2] + wz1 * g.factor[2]);
      std::vector<float> scratch;
      for (std::int64_t z = z0; z < z1; ++z) {
        const std::int64_t wz = (z - box.min[2]) / g.factor[2];
        for (std::int64_t y = box.min[1]; y <= box.max[1]; ++y) {
          const std::int64_t wy = (y - box.min[1]) / g.factor[1];
          float* out = g.value.data() + g.index(0, wy, wz);
          const float* row = rowAt(y, z, scratch);
          for (std::size_t x = 0; x < wx.size(); ++x) out[wx[x]] += row[x];
        }
      }
    });
    auto blockLen = [&](std::size_t a, std::int64_t w) {
      return std::min(g.factor[a], box.max[a] - box.min[a] + 1 - w * g.factor[a]);
    };
    for (std::int64_t z = 0; z < g.n[2]; ++z)
      for (std::int64_t y = 0; y < g.n[1]; ++y)
        for (std::int64_t x = 0; x < g.n[0]; ++x)
          g.value[g.index(x, y, z)] /= static_cast<float>(blockLen(0, x) * blockLen(1, y) * blockLen(2, z));
  }
  const double finest = std::min({g.spacingMm[0], g.spacingMm[1], g.spacingMm[2]});
  for (int pass = 0; pass < smoothingPasses; ++pass)
    for (int a = 0; a < 3; ++a)
      if (g.factor[a] == 1 && g.spacingMm[static_cast<std::size_t>(a)] <= 2 * finest) smoothAxis(g.value, g.n, a);
  g.noise = noiseLevel(g.value, g.n);
  return g;
}

ObjectMask toFullResolution(const WorkingGrid& g, const std::vector<std::uint8_t>& mask) {
  IndexBox tight;
  for (std::int64_t z = 0; z < g.n[2]; ++z)
    for (std::int64_t y = 0; y < g.n[1]; ++y)
      for (std::int64_t x = 0; x < g.n[0]; ++x)
        if (mask[g.index(x, y, z)]) tight.include(Index3{x, y, z});
  ObjectMask out;
  if (tight.empty()) return out;
  // Interpolation can reach one block beyond the blocks that are inside.
  const std::int64_t grow = g.atFullResolution() ? 0 : 1;
  IndexBox full;
  for (std::size_t a = 0; a < 3; ++a) {
    full.min[a] = g.box.min[a] + std::max<std::int64_t>(0, tight.min[a] - grow) * g.factor[a];
    full.max[a] = std::min(g.box.max[a], g.box.min[a] + (std::min(g.n[a] - 1, tight.max[a] + grow) + 1) * g.factor[a] - 1);
  }
  // A block is mixed when one of its 26 neighbours differs from it; only mixed blocks are interpolated (elsewhere
  // the eight blocks around a voxel agree). Marking the 3x3x3 blocks around every object block with a background
  // 6-neighbour covers them all (and a few more, which interpolation leaves as they are).
  std::vector<std::uint8_t> mixed;
  if (!g.atFullResolution()) {
    mixed.assign(g.size(), 0);
    const std::int64_t stride[3] = {1, g.n[0], g.n[0] * g.n[1]};
    for (std::int64_t z = tight.min[2]; z <= tight.max[2]; ++z)
      for (std::int64_t y = tight.min[1]; y <= tight.max[1]; ++y)
        for (std::int64_t x = tight.min[0]; x <= tight.max[0]; ++x) {
          const std::size_t i = g.index(x, y, z);
          if (!mask[i]) continue;
          const std::int64_t c[3] = {x, y, z};
          bool surface = false;
          for (int a = 0; a < 3 && !surface; ++a)
            surface = (c[a] > 0 && !mask[i - static_cast<std::size_t>(stride[a])]) ||
                      (c[a] + 1 < g.n[a] && !mask[i + static_cast<std::size_t>(stride[a])]);
          if (!surface) continue;
          for (std::int64_t qz = std::max<std::int64_t>(0, z - 1); qz <= std::min(g.n[2] - 1, z + 1); ++qz)
            for (std::int64_t qy = std::max<std::int64_t>(0, y - 1); qy <= std::min(g.n[1] - 1, y + 1); ++qy)
              for (std::int64_t qx = std::max<std::int64_t>(0, x - 1); qx <= std::min(g.n[0] - 1, x + 1); ++qx)
                mixed[g.index(qx, qy, qz)] = 1;
        }
  }
  const AxisSamples sx = axisSamples(full.min[0], full.max[0], g.box.min[0], g.factor[0], g.n[0]);
  const AxisSamples sy = axisSamples(full.min[1], full.max[1], g.box.min[1], g.factor[1], g.n[1]);
  const AxisSamples sz = axisSamples(full.min[2], full.max[2], g.box.min[2], g.factor[2], g.n[2]);
  const std::int64_t len[3] = {full.max[0] - full.min[0] + 1, full.max[1] - full.min[1] + 1, full.max[2] - full.min[2] + 1};
  std::vector<std::uint8_t> voxels(static_cast<std::size_t>(len[0] * len[1] * len[2]), 0);
  auto at = [&](std::int64_t ix, std::int64_t iy, std::int64_t iz) { return mask[g.index(ix, iy, iz)] ? 1.0f : 0.0f; };
  // Slabs of full slices in parallel, each with its own bounding box of set voxels.
  std::vector<IndexBox> slabSets(static_cast<std::size_t>(len[2]));
  parallelRanges(len[2], 8, [&](std::int64_t zBegin, std::int64_t zEnd) {
    std::vector<float> columns(static_cast<std::size_t>(g.n[0]));
    IndexBox& set = slabSets[static_cast<std::size_t>(zBegin)];
    for (std::int64_t z = zBegin; z < zEnd; ++z) {
      const std::int64_t wz = (full.min[2] + z - g.box.min[2]) / g.factor[2];
      const auto zs = static_cast<std::size_t>(z);
      for (std::int64_t y = 0; y < len[1]; ++y) {
        const std::int64_t wy = (full.min[1] + y - g.box.min[1]) / g.factor[1];
        const auto ys = static_cast<std::size_t>(y);
        std::uint8_t* row = voxels.data() + static_cast<std::size_t>((z * len[1] + y) * len[0]);
        bool any = false;
        // The block mask interpolated along y and z for this row, per working x; filled on the first mixed block.
        bool haveColumns = false;
        // Block by block along the row: whole blocks filled at once, mixed ones voxel by voxel.
        for (std::int64_t x = 0; x < len[0];) {
          const std::int64_t wx = (full.min[0] + x - g.box.min[0]) / g.factor[0];
          const std::int64_t end = std::min(len[0], g.box.min[0] + (wx + 1) * g.factor[0] - full.min[0]);
          const std::size_t w = g.index(wx, wy, wz);
          if (mixed.empty() || !mixed[w]) {
            if (mask[w]) {
              std::fill(row + x, row + end, std::uint8_t{1});
              any = true;
            }
            x = end;
            continue;
          }
          if (!haveColumns) {
            const float ty = sy.t[ys], tz = sz.t[zs];
            const float w00 = (1 - ty) * (1 - tz), w10 = ty * (1 - tz), w01 = (1 - ty) * tz, w11 = ty * tz;
            for (std::int64_t ix = 0; ix < g.n[0]; ++ix)
              columns[static_cast<std::size_t>(ix)] =
                  w00 * at(ix, sy.i0[ys], sz.i0[zs]) + w10 * at(ix, sy.i1[ys], sz.i0[zs]) +
                  w01 * at(ix, sy.i0[ys], sz.i1[zs]) + w11 * at(ix, sy.i1[ys], sz.i1[zs]);
            haveColumns = true;
          }
          for (; x < end; ++x) {
            const auto xs = static_cast<std::size_t>(x);
            const float tx = sx.t[xs];
            const float v = (1 - tx) * columns[static_cast<std::size_t>(sx.i0[xs])] +
                            tx * columns[static_cast<std::size_t>(sx.i1[xs])];
            if (v >= 0.5f) {
              row[x] = 1;
              any = true;
            }
          }
        }
        if (!any) continue;
        std::int64_t first = 0, last = len[0] - 1;
        while (!row[first]) ++first;
        while (!row[last]) --last;
        set.include(Index3{full.min[0] + first, full.min[1] + y, full.min[2] + z});
        set.include(Index3{full.min[0] + last, full.min[1] + y, full.min[2] + z});
      }
    }
  });
  IndexBox set;
  for (const auto& b : slabSets)
    if (!b.empty()) set.include(b);
  if (set.empty()) return out;
  out.box = set;
  // A box a little larger than the object is still a valid mask; copying 20 M voxels to trim a margin is not worth it.
  if (set == full || set.voxelCount() * 4 >= full.voxelCount() * 3) {
    out.box = full;
    out.voxels = std::move(voxels);
    return out;
  }
  out.voxels.reserve(static_cast<std::size_t>(set.voxelCount()));
  for (std::int64_t z = set.min[2]; z <= set.max[2]; ++z)
    for (std::int64_t y = set.min[1]; y <= set.max[1]; ++y) {
      const std::size_t row = static_cast<std::size_t>(((z - full.min[2]) * len[1] + (y - full.min[1])) * len[0] +
                                                       (set.min[0] - full.min[0]));
      out.voxels.insert(out.voxels.end(), voxels.begin() + static_cast<std::ptrdiff_t>(row),
                        voxels.begin() + static_cast<std::ptrdiff_t>(row + static_cast<std::size_t>(set.max[0] - set.min[0] + 1)));
    }
  return out;
}

std::vector<std::uint8_t> toWorkingGrid(const WorkingGrid& g, const ObjectMask& mask) {
  std::vector<std::uint8_t> out(g.size(), 0);
  if (mask.box.empty()) return out;
  // The full voxel at the centre of each block, per axis; -1 where it lies outside the mask's box.
  std::vector<std::int64_t> centre[3];
  for (std::size_t a = 0; a < 3; ++a)
    for (std::int64_t w = 0; w < g.n[a]; ++w) {
      const std::int64_t start = g.box.min[a] + w * g.factor[a];
      const std::int64_t c = start + (std::min(g.factor[a], g.box.max[a] - start + 1) - 1) / 2;
      centre[a].push_back(c >= mask.box.min[a] && c <= mask.box.max[a] ? c - mask.box.min[a] : -1);
    }
  const std::int64_t mx = mask.box.max[0] - mask.box.min[0] + 1, my = mask.box.max[1] - mask.box.min[1] + 1;
  for (std::int64_t z = 0; z < g.n[2]; ++z) {
    const std::int64_t cz = centre[2][static_cast<std::size_t>(z)];
    if (cz < 0) continue;
    for (std::int64_t y = 0; y < g.n[1]; ++y) {
      const std::int64_t cy = centre[1][static_cast<std::size_t>(y)];
      if (cy < 0) continue;
      const std::uint8_t* row = mask.voxels.data() + (cz * my + cy) * mx;
      std::uint8_t* o = out.data() + g.index(0, y, z);
      for (std::int64_t x = 0; x < g.n[0]; ++x) {
        const std::int64_t cx = centre[0][static_cast<std::size_t>(x)];
        if (cx >= 0 && row[cx]) o[x] = 1;
      }
    }
  }
  return out;
}

}  // namespace delineate::inference::classic
