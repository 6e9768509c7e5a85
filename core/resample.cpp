#include "core/resample.h"

#include <cmath>
#include <cstdint>

namespace delineate::core {

namespace {

constexpr double kEdgeTolerance = 1e-3;  // voxels

// The source's continuous index of the target's index (i, j, k) is base + i*step[0] + j*step[1] + k*step[2].
struct IndexMapping {
  Vec3 base{};
  std::array<Vec3, 3> step{};
};

IndexMapping mapping(const Geometry& source, const Geometry& target) {
  IndexMapping m;
  m.base = source.lpsToIndex(target.indexToLps(Vec3{0, 0, 0}));
  for (int a = 0; a < 3; ++a) {
    Vec3 unit{0, 0, 0};
    unit[static_cast<std::size_t>(a)] = 1;
    const Vec3 p = source.lpsToIndex(target.indexToLps(unit));
    for (int c = 0; c < 3; ++c) m.step[static_cast<std::size_t>(a)][static_cast<std::size_t>(c)] = p[c] - m.base[c];
  }
  return m;
}

// The nearest source index along one axis, or -1 outside the source's boxes (with the tolerance).
std::int64_t nearest(double q, std::int64_t n) {
  if (!(q >= -0.5 - kEdgeTolerance && q <= static_cast<double>(n) - 0.5 + kEdgeTolerance)) return -1;
  const auto i = static_cast<std::int64_t>(std::floor(q + 0.5));
  return i < 0 ? 0 : (i >= n ? n - 1 : i);
}

}  // namespace

bool coversVoxelCentres(const Geometry& source, const Geometry& target) {
  const Size3& n = target.dimensions();
  if (n[0] <= 0 || n[1] <= 0 || n[2] <= 0) return false;
  // The mapping is affine: the centres' hull is spanned by the eight corner centres.
  for (int corner = 0; corner < 8; ++corner) {
    const Vec3 ijk{(corner & 1) ? double(n[0] - 1) : 0.0, (corner & 2) ? double(n[1] - 1) : 0.0,
                   (corner & 4) ? double(n[2] - 1) : 0.0};
    const Vec3 q = source.lpsToIndex(target.indexToLps(ijk));
    for (int a = 0; a < 3; ++a)
      if (nearest(q[a], source.dimensions()[a]) < 0) return false;
  }
  return true;
}

Result<LabelMap> resampleNearest(const LabelMap& source, const Geometry& target) {
  if (Status s = target.validate("resample target"); !s) return s.error();
  auto out = Volume<Label>::create(target, 0, "resampled label map");
  if (!out) return out.error();
  const Geometry& from = source.geometry();
  const Size3& sn = from.dimensions();
  const Size3& tn = target.dimensions();
  const IndexMapping m = mapping(from, target);
  const Label* in = source.data();
  Label* dst = out->data();
  std::size_t o = 0;
  for (std::int64_t k = 0; k < tn[2]; ++k)
    for (std::int64_t j = 0; j < tn[1]; ++j) {
      Vec3 row;
      for (int c = 0; c < 3; ++c)
        row[c] = m.base[c] + double(j) * m.step[1][c] + double(k) * m.step[2][c];
      for (std::int64_t i = 0; i < tn[0]; ++i, ++o) {
        const double di = double(i);
        const std::int64_t x = nearest(row[0] + di * m.step[0][0], sn[0]);
        const std::int64_t y = nearest(row[1] + di * m.step[0][1], sn[1]);
        const std::int64_t z = nearest(row[2] + di * m.step[0][2], sn[2]);
        if (x < 0 || y < 0 || z < 0) continue;
        dst[o] = in[static_cast<std::size_t>(x + sn[0] * (y + sn[1] * z))];
      }
    }
  return LabelMap(std::move(out).value());
}

}  // namespace delineate::core
