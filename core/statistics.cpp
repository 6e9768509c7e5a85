#include "core/statistics.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>

#include "core/statistics_internal.h"

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
  // This label's first and last voxel in the row being scanned (for the diameter).
  std::int64_t row = -1, rowFirst = 0, rowLast = 0;
};
}  // namespace

Result<IndexBox> sliceRangeBox(const Geometry& grid, const SliceRange& range) {
  const std::string name = "slice range axis " + std::to_string(range.axis) + " [" + std::to_string(range.first) +
                           ", " + std::to_string(range.last) + "]";
  if (range.axis < 0 || range.axis > 2)
    return makeError(ErrorCode::InvalidArgument, name, "the axis must be 0 (i), 1 (j) or 2 (k)");
  const auto axis = static_cast<std::size_t>(range.axis);
  const std::int64_t extent = grid.dimensions()[axis];
  const std::int64_t last = range.last == -1 ? extent - 1 : range.last;
  if (range.first < 0 || range.first > last || last >= extent)
    return makeError(ErrorCode::InvalidArgument, name,
                     "slices must satisfy 0 <= first <= last < " + std::to_string(extent) +
                         " (the grid's slice count along the axis; last -1 means the last slice)");
  IndexBox box = grid.fullBox();
  box.min[axis] = range.first;
  box.max[axis] = last;
  return box;
}

namespace {

// The intensity summary of voxels [x, end) of a row of the image (its stored type; non-finite values skipped).
template <class T>
void addIntensities(Accumulator& a, const T* v, std::int64_t x, std::int64_t end) {
  for (std::int64_t t = x; t < end; ++t) {
    if constexpr (std::is_floating_point_v<T>) {
      if (!std::isfinite(v[t])) continue;
    }
    const double value = static_cast<double>(v[t]);
    ++a.intensityCount;
    const double delta = value - a.mean;
    a.mean += delta / double(a.intensityCount);
    a.m2 += delta * (value - a.mean);
    if (value < a.min) a.min = value;
    if (value > a.max) a.max = value;
  }
}

// addIntensities for the image's type, chosen once per call rather than per run: `row` is the image's row start.
using AddRow = void (*)(Accumulator&, const void* row, std::int64_t x, std::int64_t end);
template <class T>
void addRow(Accumulator& a, const void* row, std::int64_t x, std::int64_t end) {
  addIntensities(a, static_cast<const T*>(row), x, end);
}

}  // namespace

Result<std::vector<LabelStatistics>> computeLabelStatistics(const LabelMap& labels, ImageView image,
                                                            const StatisticsOptions& options) {
  const Geometry& g = labels.geometry();
  if (image && !image.geometry().isCloseTo(g))
    return makeError(ErrorCode::GeometryMismatch, {}, "label map and image grids differ");
  IndexBox region = g.fullBox();
  if (options.slices) {
    Result<IndexBox> r = sliceRangeBox(g, *options.slices);
    if (!r) return r.error();
    region = *r;
  }

  std::vector<std::int32_t> slotOf(65536, -1);
  std::vector<Accumulator> acc;
  detail::DiameterCandidates hullPoints;
  std::vector<std::size_t> inRow;  // slots seen in the current row (diameter only)
  const Size3& d = g.dimensions();
  const Label* lab = labels.data();
  const bool img = static_cast<bool>(image);
  AddRow add = nullptr;
  if (img) image.visit([&](const auto& v) { add = &addRow<typename std::decay_t<decltype(v)>::value_type>; });
  const auto* imageBytes = static_cast<const char*>(image.data());
  const std::size_t voxelBytes = scalarTypeBytes(image.type());
  const std::int64_t width = region.empty() ? 0 : region.max[0] - region.min[0] + 1;
  std::int64_t rowId = 0;
  for (std::int64_t k = region.min[2]; k <= region.max[2]; ++k) {
    for (std::int64_t j = region.min[1]; j <= region.max[1]; ++j, ++rowId) {
      const std::size_t rowStart = static_cast<std::size_t>(region.min[0] + d[0] * (j + d[1] * k));
      const Label* row = lab + rowStart;
      // Runs of one label: per-voxel work is only the intensity summary.
      for (std::int64_t x = 0; x < width;) {
        const Label l = row[x];
        std::int64_t end = x + 1;
        while (end < width && row[end] == l) ++end;
        if (l == 0 && !options.includeBackground) {
          x = end;
          continue;
        }
        std::int32_t& slot = slotOf[l];
        if (slot < 0) {
          slot = static_cast<std::int32_t>(acc.size());
          acc.emplace_back();
        }
        Accumulator& a = acc[static_cast<std::size_t>(slot)];
        const std::int64_t i0 = region.min[0] + x, i1 = region.min[0] + end - 1, n = end - x;
        a.count += std::uint64_t(n);
        a.sumX += double(i0 + i1) * double(n) / 2.0;  // exact: integers well below 2^53
        a.sumY += double(j) * double(n);
        a.sumZ += double(k) * double(n);
        if (a.box.empty()) {
          a.box.min = Index3{i0, j, k};
          a.box.max = Index3{i1, j, k};
        } else {
          if (i0 < a.box.min[0]) a.box.min[0] = i0;
          if (i1 > a.box.max[0]) a.box.max[0] = i1;
          if (j < a.box.min[1]) a.box.min[1] = j;
          if (j > a.box.max[1]) a.box.max[1] = j;
          a.box.max[2] = k;  // k never decreases in this scan order, so min[2] is the first k seen
        }
        if (add) add(a, imageBytes + rowStart * voxelBytes, x, end);
        if (options.diameter) {
          if (a.row != rowId) {
            a.row = rowId;
            a.rowFirst = i0;
            inRow.push_back(static_cast<std::size_t>(slot));
          }
          a.rowLast = i1;
        }
        x = end;
      }
      for (std::size_t s : inRow) hullPoints.addRow(s, j, acc[s].rowFirst, acc[s].rowLast);
      inRow.clear();
    }
    if (options.diameter) hullPoints.endSlice(k);
  }

  std::vector<double> medians;
  if (options.median && img) {
    std::vector<detail::MedianRequest> requests(acc.size());
    for (std::size_t s = 0; s < acc.size(); ++s) {
      const Accumulator& a = acc[s];
      requests[s].finiteCount = a.intensityCount;
      if (a.intensityCount > 0) {
        requests[s].min = static_cast<float>(a.min);  // came from floats or integers below 2^24: exact
        requests[s].max = static_cast<float>(a.max);
      }
      requests[s].box = a.box;
    }
    medians = detail::labelMedians(labels, image, slotOf, requests);
  }

  std::vector<LabelStatistics> out;
  out.reserve(acc.size());
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (std::uint32_t l = 0; l < 65536; ++l) {
    if (slotOf[l] < 0) continue;
    const auto slot = static_cast<std::size_t>(slotOf[l]);
    const Accumulator& a = acc[slot];
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
    s.median = medians.empty() ? nan : medians[slot];
    if (options.diameter) s.longestDiameterMm = detail::longestDistanceMm(hullPoints.candidates(slot), g);
    out.push_back(s);
  }
  return out;
}

VolumeText volumeText(double mm3) {
  VolumeText out;
  out.millilitres = std::fabs(mm3) >= 999.5;
  out.value = out.millilitres ? mm3 / 1000.0 : mm3;
  if (out.value == 0.0 || !std::isfinite(out.value)) return out;
  // Three significant digits, never more than six decimals (a single 10 µm voxel).
  const int magnitude = static_cast<int>(std::floor(std::log10(std::fabs(out.value))));
  out.decimals = std::clamp(2 - magnitude, 0, 6);
  // Rounding can carry into the next digit (99.96 -> "100.0"): one decimal fewer then.
  const double scale = std::pow(10.0, out.decimals);
  const double rounded = std::round(std::fabs(out.value) * scale) / scale;
  if (out.decimals > 0 && static_cast<int>(std::floor(std::log10(rounded))) > magnitude) --out.decimals;
  return out;
}

}  // namespace delineate::core
