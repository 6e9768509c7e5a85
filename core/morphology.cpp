#include "core/morphology.h"

#include <algorithm>
#include <array>
#include <limits>

namespace delineate::core {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

// One line: out[q] = min_p ((q - p) h)^2 + f[p], the lower envelope of the parabolas rooted at the finite f[p].
void envelope1d(const float* f, std::int64_t n, float h, float* out, std::int64_t* v, float* z) {
  std::int64_t k = -1;
  for (std::int64_t q = 0; q < n; ++q) {
    if (f[q] == kInf) continue;
    const float fq = f[q] + (static_cast<float>(q) * h) * (static_cast<float>(q) * h);
    float s = -kInf;
    while (k >= 0) {
      const std::int64_t p = v[k];
      const float fp = f[p] + (static_cast<float>(p) * h) * (static_cast<float>(p) * h);
      s = (fq - fp) / (2 * h * static_cast<float>(q - p));
      if (s > z[k]) break;
      --k;
    }
    ++k;
    v[k] = q;
    z[k] = k == 0 ? -kInf : s;
  }
  if (k < 0) {
    std::fill(out, out + n, kInf);
    return;
  }
  std::int64_t j = 0;
  for (std::int64_t q = 0; q < n; ++q) {
    while (j < k && z[j + 1] < static_cast<float>(q) * h) ++j;
    const float d = static_cast<float>(q - v[j]) * h;
    out[q] = d * d + f[v[j]];
  }
}

std::int64_t total(const Size3& n) { return n[0] * n[1] * n[2]; }

}  // namespace

std::vector<float> squaredDistanceToBackground(const Mask& mask, const Size3& n, const Vec3& spacingMm,
                                               bool borderIsBackground) {
  const std::int64_t count = total(n);
  std::vector<float> d(static_cast<std::size_t>(count));
  for (std::int64_t i = 0; i < count; ++i) d[static_cast<std::size_t>(i)] = mask[static_cast<std::size_t>(i)] ? kInf : 0.0f;
  const std::int64_t stride[3] = {1, n[0], n[0] * n[1]};
  const std::int64_t longest = std::max({n[0], n[1], n[2]});
  std::vector<float> f(static_cast<std::size_t>(longest)), g(static_cast<std::size_t>(longest)),
      z(static_cast<std::size_t>(longest) + 1);
  std::vector<std::int64_t> v(static_cast<std::size_t>(longest));
  for (int a = 0; a < 3; ++a) {
    const std::int64_t len = n[a];
    const float h = static_cast<float>(spacingMm[static_cast<std::size_t>(a)]);
    const int b1 = a == 0 ? 1 : 0, b2 = a == 2 ? 1 : 2;  // the two other axes
    for (std::int64_t u = 0; u < n[b2]; ++u)
      for (std::int64_t t = 0; t < n[b1]; ++t) {
        const std::int64_t start = t * stride[b1] + u * stride[b2];
        for (std::int64_t i = 0; i < len; ++i) f[static_cast<std::size_t>(i)] = d[static_cast<std::size_t>(start + i * stride[a])];
        envelope1d(f.data(), len, h, g.data(), v.data(), z.data());
        for (std::int64_t i = 0; i < len; ++i) {
          float value = g[static_cast<std::size_t>(i)];
          if (borderIsBackground) {
            // The voxels just outside the grid on this axis, straight across.
            const float lo = static_cast<float>(i + 1) * h, hi = static_cast<float>(len - i) * h;
            value = std::min({value, lo * lo, hi * hi});
          }
          d[static_cast<std::size_t>(start + i * stride[a])] = value;
        }
      }
  }
  return d;
}

Mask erode(const Mask& mask, const Size3& n, const Vec3& spacingMm, double radiusMm) {
  const auto d = squaredDistanceToBackground(mask, n, spacingMm, false);
  const float r2 = static_cast<float>(radiusMm * radiusMm);
  Mask out(mask.size());
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = d[i] > r2 ? 1 : 0;
  return out;
}

Mask dilate(const Mask& mask, const Size3& n, const Vec3& spacingMm, double radiusMm) {
  Mask inverse(mask.size());
  for (std::size_t i = 0; i < mask.size(); ++i) inverse[i] = mask[i] ? 0 : 1;
  const auto d = squaredDistanceToBackground(inverse, n, spacingMm, false);
  const float r2 = static_cast<float>(radiusMm * radiusMm);
  Mask out(mask.size());
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = d[i] <= r2 ? 1 : 0;
  return out;
}

std::int32_t Components::largest() const {
  if (size.empty()) return -1;
  return static_cast<std::int32_t>(std::max_element(size.begin(), size.end()) - size.begin());
}

Components connectedComponents(const Mask& mask, const Size3& n, Connectivity connectivity) {
  Components c;
  c.id.assign(mask.size(), -1);
  // Neighbour offsets: the 6 faces, or all 26 neighbours.
  std::vector<std::array<std::int64_t, 3>> offsets;
  for (std::int64_t dz = -1; dz <= 1; ++dz)
    for (std::int64_t dy = -1; dy <= 1; ++dy)
      for (std::int64_t dx = -1; dx <= 1; ++dx) {
        const int nonzero = (dx != 0) + (dy != 0) + (dz != 0);
        if (nonzero == 1 || (nonzero > 1 && connectivity == Connectivity::Full)) offsets.push_back({dx, dy, dz});
      }
  std::vector<std::int64_t> stack;
  for (std::size_t seed = 0; seed < mask.size(); ++seed) {
    if (!mask[seed] || c.id[seed] >= 0) continue;
    const auto label = static_cast<std::int32_t>(c.size.size());
    std::int64_t count = 0;
    c.id[seed] = label;
    stack.push_back(static_cast<std::int64_t>(seed));
    while (!stack.empty()) {
      const std::int64_t i = stack.back();
      stack.pop_back();
      ++count;
      const std::int64_t p[3] = {i % n[0], (i / n[0]) % n[1], i / (n[0] * n[1])};
      for (const auto& o : offsets) {
        const std::int64_t q[3] = {p[0] + o[0], p[1] + o[1], p[2] + o[2]};
        if (q[0] < 0 || q[1] < 0 || q[2] < 0 || q[0] >= n[0] || q[1] >= n[1] || q[2] >= n[2]) continue;
        const auto j = static_cast<std::size_t>((q[2] * n[1] + q[1]) * n[0] + q[0]);
        if (mask[j] && c.id[j] < 0) {
          c.id[j] = label;
          stack.push_back(static_cast<std::int64_t>(j));
        }
      }
    }
    c.size.push_back(count);
  }
  return c;
}

namespace {

// The voxel-by-voxel flood, for slices across x (where runs along x would cross slices).
void fillHolesByVoxel(Mask& mask, const Size3& n, int sliceAxis) {
  const std::int64_t stride[3] = {1, n[0], n[0] * n[1]};
  // Per voxel, which faces of the grid it lies on (bit 2a: the low face of axis a, bit 2a+1: the high one), so the
  // flood needs no division to know its neighbours. Faces across sliceAxis do not count: slices are filled apart.
  std::vector<std::uint8_t> faces(mask.size(), 0);
  for (std::int64_t z = 0; z < n[2]; ++z)
    for (std::int64_t y = 0; y < n[1]; ++y) {
      std::uint8_t rowBits = 0;
      if (z == 0) rowBits |= 16;
      if (z == n[2] - 1) rowBits |= 32;
      if (y == 0) rowBits |= 4;
      if (y == n[1] - 1) rowBits |= 8;
      std::uint8_t* f = faces.data() + (z * n[1] + y) * n[0];
      for (std::int64_t x = 0; x < n[0]; ++x) f[x] = rowBits;
      f[0] |= 1;
      f[n[0] - 1] |= 2;
    }
  const std::uint8_t sliceBits = sliceAxis >= 0 ? static_cast<std::uint8_t>(3u << (2 * sliceAxis)) : 0;
  Mask outside(mask.size(), 0);
  std::vector<std::size_t> stack;
  auto push = [&](std::size_t u) {
    if (!mask[u] && !outside[u]) {
      outside[u] = 1;
      stack.push_back(u);
    }
  };
  // Seeds: every unset voxel on a face of the grid (in 2D mode, the faces of the other two axes).
  for (std::size_t i = 0; i < mask.size(); ++i)
    if (faces[i] & ~sliceBits) push(i);
  while (!stack.empty()) {
    const std::size_t i = stack.back();
    stack.pop_back();
    const std::uint8_t f = faces[i];
    for (int a = 0; a < 3; ++a) {
      if (a == sliceAxis) continue;
      if (!(f & (1u << (2 * a)))) push(i - static_cast<std::size_t>(stride[a]));
      if (!(f & (2u << (2 * a)))) push(i + static_cast<std::size_t>(stride[a]));
    }
  }
  for (std::size_t i = 0; i < mask.size(); ++i)
    if (!mask[i] && !outside[i]) mask[i] = 1;
}

}  // namespace

void fillHoles(Mask& mask, const Size3& n, int sliceAxis) {
  if (sliceAxis == 0) {
    fillHolesByVoxel(mask, n, sliceAxis);
    return;
  }
  // A scanline flood of the unset voxels reachable from the grid's faces: each popped seed fills its whole run along
  // x, then seeds the runs it touches in the neighbouring rows (y +-1, and z +-1 unless slices are filled apart).
  const std::int64_t nx = n[0], ny = n[1], nz = n[2];
  Mask outside(mask.size(), 0);
  std::vector<std::size_t> stack;
  auto fillable = [&](std::size_t u) { return !mask[u] && !outside[u]; };
  auto seedRow = [&](std::int64_t y, std::int64_t z, std::int64_t left, std::int64_t right) {
    const std::size_t row = static_cast<std::size_t>((z * ny + y) * nx);
    bool inRun = false;
    for (std::int64_t x = left; x <= right; ++x) {
      const bool f = fillable(row + static_cast<std::size_t>(x));
      if (f && !inRun) stack.push_back(row + static_cast<std::size_t>(x));
      inRun = f;
    }
  };
  // Seeds: the unset voxels of every face (in 2D mode, the faces of the other two axes).
  for (std::int64_t z = 0; z < nz; ++z)
    for (std::int64_t y = 0; y < ny; ++y) {
      const bool faceRow = (sliceAxis != 1 && (y == 0 || y == ny - 1)) || (sliceAxis != 2 && (z == 0 || z == nz - 1));
      if (faceRow) {
        seedRow(y, z, 0, nx - 1);
      } else {
        const std::size_t row = static_cast<std::size_t>((z * ny + y) * nx);
        if (fillable(row)) stack.push_back(row);
        if (fillable(row + static_cast<std::size_t>(nx - 1))) stack.push_back(row + static_cast<std::size_t>(nx - 1));
      }
    }
  while (!stack.empty()) {
    const std::size_t i = stack.back();
    stack.pop_back();
    if (!fillable(i)) continue;
    const std::int64_t si = static_cast<std::int64_t>(i);
    const std::int64_t x0 = si % nx, y = (si / nx) % ny, z = si / (nx * ny);
    const std::size_t row = i - static_cast<std::size_t>(x0);
    std::int64_t left = x0, right = x0;
    while (left > 0 && fillable(row + static_cast<std::size_t>(left - 1))) --left;
    while (right + 1 < nx && fillable(row + static_cast<std::size_t>(right + 1))) ++right;
    std::fill(outside.begin() + static_cast<std::ptrdiff_t>(row + static_cast<std::size_t>(left)),
              outside.begin() + static_cast<std::ptrdiff_t>(row + static_cast<std::size_t>(right) + 1), std::uint8_t{1});
    if (sliceAxis != 1) {
      if (y > 0) seedRow(y - 1, z, left, right);
      if (y + 1 < ny) seedRow(y + 1, z, left, right);
    }
    if (sliceAxis != 2) {
      if (z > 0) seedRow(y, z - 1, left, right);
      if (z + 1 < nz) seedRow(y, z + 1, left, right);
    }
  }
  for (std::size_t i = 0; i < mask.size(); ++i)
    if (!mask[i] && !outside[i]) mask[i] = 1;
}

}  // namespace delineate::core
