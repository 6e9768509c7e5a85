#include "core/statistics.h"

#include <cmath>
#include <limits>

namespace delineate::core {

namespace {
struct Accumulator {
  std::uint64_t count = 0;
  std::uint64_t intensityCount = 0;  // finite intensities only: NaN voxels (MR outside the FOV) are left out
  double sumX = 0, sumY = 0, sumZ = 0;  // index sums for the centroid
  // Welford's running mean/variance: stable for large counts of similar values (CT soft tissue).
  double mean = 0, m2 = 0;
  double min = std::numeric_limits<double>::infinity();
  double max = -std::numeric_limits<double>::infinity();
  IndexBox box;
};
}  // namespace

Result<std::vector<LabelStatistics>> computeLabelStatistics(const LabelMap& labels, const ImageVolume* image,
                                                            const StatisticsOptions& options) {
  const Geometry& g = labels.geometry();
  if (image && !image->geometry().isCloseTo(g))
    return makeError(ErrorCode::GeometryMismatch, {}, "label map and image grids differ");

  std::vector<std::int32_t> slotOf(65536, -1);
  std::vector<Accumulator> acc;
  const Size3& d = g.dimensions();
  const Label* lab = labels.data();
  const float* img = image ? image->data() : nullptr;
  std::size_t idx = 0;
  for (std::int64_t k = 0; k < d[2]; ++k)
    for (std::int64_t j = 0; j < d[1]; ++j) {
      for (std::int64_t i = 0; i < d[0]; ++i, ++idx) {
        const Label l = lab[idx];
        if (l == 0 && !options.includeBackground) continue;
        std::int32_t& slot = slotOf[l];
        if (slot < 0) {
          slot = static_cast<std::int32_t>(acc.size());
          acc.emplace_back();
        }
        Accumulator& a = acc[static_cast<std::size_t>(slot)];
        ++a.count;
        a.sumX += double(i);
        a.sumY += double(j);
        a.sumZ += double(k);
        if (a.box.empty()) {
          a.box.min = a.box.max = Index3{i, j, k};
        } else {
          if (i < a.box.min[0]) a.box.min[0] = i;
          if (i > a.box.max[0]) a.box.max[0] = i;
          if (j < a.box.min[1]) a.box.min[1] = j;
          if (j > a.box.max[1]) a.box.max[1] = j;
          a.box.max[2] = k;  // k never decreases in this scan order, so min[2] is the first k seen
        }
        if (img && std::isfinite(img[idx])) {
          const double v = img[idx];
          ++a.intensityCount;
          const double delta = v - a.mean;
          a.mean += delta / double(a.intensityCount);
          a.m2 += delta * (v - a.mean);
          if (v < a.min) a.min = v;
          if (v > a.max) a.max = v;
        }
      }
    }

  std::vector<LabelStatistics> out;
  out.reserve(acc.size());
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (std::uint32_t l = 0; l < 65536; ++l) {
    if (slotOf[l] < 0) continue;
    const Accumulator& a = acc[static_cast<std::size_t>(slotOf[l])];
    LabelStatistics s;
    s.label = static_cast<Label>(l);
    s.voxelCount = a.count;
    s.volumeMl = double(a.count) * g.voxelVolumeMm3() / 1000.0;
    const bool haveIntensity = img && a.intensityCount > 0;
    s.mean = haveIntensity ? a.mean : nan;
    s.stddev = haveIntensity ? std::sqrt(a.m2 / double(a.intensityCount)) : nan;
    s.min = haveIntensity ? a.min : nan;
    s.max = haveIntensity ? a.max : nan;
    s.box = a.box;
    const double n = double(a.count);
    s.centroidLps = g.indexToLps(Vec3{a.sumX / n, a.sumY / n, a.sumZ / n});
    out.push_back(s);
  }
  return out;
}

}  // namespace delineate::core
