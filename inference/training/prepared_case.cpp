#include "inference/training/prepared_case.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <type_traits>

#include "core/axis_order.h"
#include "core/resample.h"
#include "inference/vista3d/preprocess.h"

namespace delineate::inference::training {

namespace {

struct Grid {
  std::array<std::int64_t, 3> source{0, 0, 0}, target{0, 0, 0};
  std::array<double, 3> step{1, 1, 1};  // source voxels per target voxel
  std::array<double, 3> spacing{1, 1, 1};
};

core::Result<Grid> targetGrid(const core::Geometry& g, const PrepareSettings& settings, const std::string& id) {
  Grid grid;
  for (int a = 0; a < 3; ++a) {
    const auto ua = static_cast<std::size_t>(a);
    const double s = g.spacingMm()[ua];
    const double t = settings.spacingMm[ua] > 0 ? settings.spacingMm[ua] : s;
    grid.source[ua] = g.dimensions()[ua];
    grid.step[ua] = t / s;
    grid.spacing[ua] = t;
    grid.target[ua] = std::max<std::int64_t>(1, std::llround(static_cast<double>(grid.source[ua] - 1) * s / t) + 1);
  }
  if (grid.target[0] * grid.target[1] * grid.target[2] > core::Geometry::kMaxVoxels / 4)
    return core::makeError(core::ErrorCode::InvalidArgument, id, "the resampled grid is too large");
  return grid;
}

// Linear (image) and nearest (labels) resampling of the reordered volume onto the target grid, written in torch
// order. Voxel 0 stays in place.
template <class T>
void resampleImage(const core::Volume<T>& source, const Grid& grid, std::vector<float>& out) {
  const auto& n = grid.source;
  const auto& m = grid.target;
  out.assign(static_cast<std::size_t>(m[0] * m[1] * m[2]), 0.0f);
  auto taps = [&](int a, std::int64_t i, std::int64_t& i0, std::int64_t& i1, double& w) {
    const double f = static_cast<double>(i) * grid.step[static_cast<std::size_t>(a)];
    const std::int64_t last = n[static_cast<std::size_t>(a)] - 1;
    i0 = std::min<std::int64_t>(static_cast<std::int64_t>(std::floor(f)), last);
    i1 = std::min<std::int64_t>(i0 + 1, last);
    w = std::clamp(f - static_cast<double>(i0), 0.0, 1.0);
  };
  const T* v = source.data();
  auto at = [&](std::int64_t x, std::int64_t y, std::int64_t z) {
    return static_cast<double>(v[static_cast<std::size_t>((z * n[1] + y) * n[0] + x)]);
  };
  for (std::int64_t x = 0; x < m[0]; ++x) {
    std::int64_t x0, x1;
    double wx;
    taps(0, x, x0, x1, wx);
    for (std::int64_t y = 0; y < m[1]; ++y) {
      std::int64_t y0, y1;
      double wy;
      taps(1, y, y0, y1, wy);
      for (std::int64_t z = 0; z < m[2]; ++z) {
        std::int64_t z0, z1;
        double wz;
        taps(2, z, z0, z1, wz);
        const double c00 = at(x0, y0, z0) * (1 - wx) + at(x1, y0, z0) * wx;
        const double c10 = at(x0, y1, z0) * (1 - wx) + at(x1, y1, z0) * wx;
        const double c01 = at(x0, y0, z1) * (1 - wx) + at(x1, y0, z1) * wx;
        const double c11 = at(x0, y1, z1) * (1 - wx) + at(x1, y1, z1) * wx;
        const double c0 = c00 * (1 - wy) + c10 * wy, c1 = c01 * (1 - wy) + c11 * wy;
        out[static_cast<std::size_t>((x * m[1] + y) * m[2] + z)] = static_cast<float>(c0 * (1 - wz) + c1 * wz);
      }
    }
  }
}

void resampleLabels(const core::Volume<core::Label>& source, const Grid& grid, const std::vector<std::uint16_t>& lut,
                    std::vector<std::uint16_t>& out) {
  const auto& n = grid.source;
  const auto& m = grid.target;
  out.assign(static_cast<std::size_t>(m[0] * m[1] * m[2]), 0);
  auto nearest = [&](int a, std::int64_t i) {
    return std::min<std::int64_t>(std::llround(static_cast<double>(i) * grid.step[static_cast<std::size_t>(a)]),
                                  n[static_cast<std::size_t>(a)] - 1);
  };
  const core::Label* v = source.data();
  for (std::int64_t x = 0; x < m[0]; ++x) {
    const auto sx = nearest(0, x);
    for (std::int64_t y = 0; y < m[1]; ++y) {
      const auto sy = nearest(1, y);
      for (std::int64_t z = 0; z < m[2]; ++z)
        out[static_cast<std::size_t>((x * m[1] + y) * m[2] + z)] =
            lut[v[static_cast<std::size_t>((nearest(2, z) * n[1] + sy) * n[0] + sx)]];
    }
  }
}

core::Status normalise(std::vector<float>& image, const PrepareSettings& settings, const std::string& id) {
  if (settings.intensity == IntensityMode::Range) {
    const double lo = settings.intensityMin, hi = settings.intensityMax;
    if (!(hi > lo)) return core::makeError(core::ErrorCode::InvalidArgument, id, "the intensity range is empty");
    for (auto& v : image) v = static_cast<float>(std::clamp((static_cast<double>(v) - lo) / (hi - lo), 0.0, 1.0));
  } else if (settings.intensity == IntensityMode::ZScore) {
    double sum = 0, sq = 0;
    std::size_t n = 0;
    for (const float v : image)
      if (v != 0.0f && std::isfinite(v)) {
        sum += v;
        sq += static_cast<double>(v) * v;
        ++n;
      }
    if (n == 0) return core::makeError(core::ErrorCode::InvalidArgument, id, "the image has no nonzero voxel to normalise");
    const double mean = sum / static_cast<double>(n);
    double sd = std::sqrt(std::max(0.0, sq / static_cast<double>(n) - mean * mean));
    if (sd <= 0) sd = 1;
    for (auto& v : image)
      if (v != 0.0f) v = static_cast<float>((static_cast<double>(v) - mean) / sd);
  }
  for (auto& v : image)
    if (!std::isfinite(v)) v = 0.0f;
  return core::Status::success();
}

}  // namespace

core::Result<PreparedCase> prepareImage(const std::string& id, core::ImageView image, const PrepareSettings& settings,
                                        core::Geometry* preparedGeometry) {
  // Read in the stored type (issue 27): the image itself when its axes are already canonical, else one reordered copy
  // in that type; never a float32 copy of the whole volume (the prepared grid is float32).
  if (core::Status s = core::requireFiniteVoxels(image, id); !s) return s.error();
  return image.visit([&](const auto& stored) -> core::Result<PreparedCase> {
    using T = typename std::decay_t<decltype(stored)>::value_type;
    const auto prepare = [&](const core::Volume<T>& canonical) -> core::Result<PreparedCase> {
      auto grid = targetGrid(canonical.geometry(), settings, id);
      if (!grid) return grid.error();
      try {
        PreparedCase c;
        c.id = id;
        c.size = grid->target;
        c.spacingMm = grid->spacing;
        resampleImage(canonical, *grid, c.image);
        if (core::Status s = normalise(c.image, settings, id); !s) return s.error();
        if (preparedGeometry) {
          const auto& g = canonical.geometry();
          *preparedGeometry = core::Geometry(core::Size3{grid->target[0], grid->target[1], grid->target[2]},
                                             core::Vec3{grid->spacing[0], grid->spacing[1], grid->spacing[2]},
                                             g.originLps(), g.direction());
        }
        return c;
      } catch (const std::bad_alloc&) {
        return core::makeError(core::ErrorCode::OutOfMemory, id, "out of memory preparing the image");
      }
    };
    return core::withAxisOrder(stored, core::canonicalAxisOrder(stored.geometry()), prepare);
  });
}

namespace {

// The lookup of source ids to classes (0xFFFF: not in the run's table), and a refusal naming the first unknown id.
core::Result<std::vector<std::uint16_t>> labelLookup(const std::string& id, const core::LabelMap& labels, const PrepareSettings& settings) {
  std::vector<std::uint16_t> lut(65536, 0xFFFF);
  lut[0] = 0;
  if (settings.labelMap.empty()) {
    for (std::size_t i = 0; i < lut.size(); ++i)
      if (settings.classes <= 0 || static_cast<int>(i) < settings.classes) lut[i] = static_cast<std::uint16_t>(i);
  } else {
    for (const auto& [from, to] : settings.labelMap) lut[from] = to;
  }
  std::vector<bool> seen(65536, false);
  for (std::size_t i = 0; i < labels.voxels().size(); ++i) seen[labels.voxels()[i]] = true;
  for (std::size_t i = 0; i < seen.size(); ++i)
    if (seen[i] && lut[i] == 0xFFFF)
      return core::makeError(core::ErrorCode::InvalidArgument, id, "label " + std::to_string(i) + " is not in the run's label table");
  return lut;
}

// Each class's voxels (an even subsample, at most settings.maxIndicesPerClass), in one pass.
void collectClassVoxels(PreparedCase& prepared, const PrepareSettings& settings) {
  std::vector<std::int64_t> counts(65536, 0), stride(65536, 1), seen(65536, 0);
  for (const auto l : prepared.labels) ++counts[l];
  std::vector<int> slot(65536, -1);
  const auto cap = static_cast<std::int64_t>(std::max<std::size_t>(1, settings.maxIndicesPerClass));
  for (std::size_t cls = 0; cls < counts.size(); ++cls) {
    if (!counts[cls]) continue;
    stride[cls] = std::max<std::int64_t>(1, (counts[cls] + cap - 1) / cap);
    slot[cls] = static_cast<int>(prepared.classVoxels.size());
    prepared.classVoxels.emplace_back(static_cast<std::uint16_t>(cls), std::vector<std::int64_t>{});
    prepared.classVoxels.back().second.reserve(static_cast<std::size_t>(counts[cls] / stride[cls] + 1));
  }
  for (std::size_t i = 0; i < prepared.labels.size(); ++i) {
    const auto l = prepared.labels[i];
    if ((seen[l]++ % stride[l]) == 0)
      prepared.classVoxels[static_cast<std::size_t>(slot[l])].second.push_back(static_cast<std::int64_t>(i));
  }
}

}  // namespace

core::Result<PreparedCase> prepareCase(const std::string& id, const core::ImageVolume& image, const core::LabelMap& labels,
                                       const PrepareSettings& settings) {
  if (!labels.voxels().geometry().isCloseTo(image.geometry()))
    return core::makeError(core::ErrorCode::GeometryMismatch, id,
                           "the labels are on another grid than the image (" + labels.voxels().geometry().orientationCode() +
                               " vs " + image.geometry().orientationCode() + ", or other size, spacing or origin)");
  auto lut = labelLookup(id, labels, settings);
  if (!lut) return lut.error();
  auto prepared = prepareImage(id, image, settings, nullptr);
  if (!prepared) return prepared.error();
  // The labels in the image's canonical order: the map itself when that is its storage order (no copy).
  const core::AxisOrder order = core::canonicalAxisOrder(image.geometry());
  return core::withAxisOrder(labels.voxels(), order, [&](const core::Volume<core::Label>& canonical)
                                                         -> core::Result<PreparedCase> {
    try {
      // The image's grid (the labels' own geometry may differ from it within the tolerance, and a rounding there
      // must not give the labels another size).
      auto grid = targetGrid(core::reorderedGeometry(image.geometry(), order), settings, id);
      if (!grid) return grid.error();
      resampleLabels(canonical, *grid, *lut, prepared->labels);
      if (prepared->labels.size() != prepared->image.size())
        return core::makeError(core::ErrorCode::GeometryMismatch, id,
                               "the labels and the image prepared to different sizes");
      collectClassVoxels(*prepared, settings);
      return std::move(prepared);
    } catch (const std::bad_alloc&) {
      return core::makeError(core::ErrorCode::OutOfMemory, id, "out of memory preparing the labels");
    }
  });
}

core::Result<PreparedCase> prepareVista3dCase(const std::string& id, const core::ImageVolume& image, const core::LabelMap& labels,
                                              const PrepareSettings& settings) {
  if (!labels.voxels().geometry().isCloseTo(image.geometry()))
    return core::makeError(core::ErrorCode::GeometryMismatch, id, "the labels are on another grid than the image");
  if (core::Status s = core::requireFiniteVoxels(image, id); !s) return s.error();
  auto lut = labelLookup(id, labels, settings);
  if (!lut) return lut.error();
  auto input = vista3d::preprocessForVista3d(image);
  if (!input) return input.error();
  // The labels on the network's grid (in LPS, as the image's), by nearest neighbour.
  core::LabelMap onImageGrid = labels;
  auto onGrid = core::resampleNearest(onImageGrid, input->image.geometry());
  if (!onGrid) return onGrid.error();
  try {
    PreparedCase c;
    c.id = id;
    const auto n = input->image.geometry().dimensions();
    c.size = {n[0], n[1], n[2]};
    for (std::size_t a = 0; a < 3; ++a) c.spacingMm[a] = input->image.geometry().spacingMm()[a];
    const auto voxels = static_cast<std::size_t>(n[0] * n[1] * n[2]);
    c.image.resize(voxels);
    c.labels.resize(voxels);
    // Core order (x fastest) to torch order (x slowest), as the engine's windows are.
    for (std::int64_t z = 0; z < n[2]; ++z)
      for (std::int64_t y = 0; y < n[1]; ++y)
        for (std::int64_t x = 0; x < n[0]; ++x) {
          const auto from = static_cast<std::size_t>((z * n[1] + y) * n[0] + x);
          const auto to = static_cast<std::size_t>((x * n[1] + y) * n[2] + z);
          c.image[to] = input->image[from];
          c.labels[to] = (*lut)[onGrid->voxels()[from]];
        }
    collectClassVoxels(c, settings);
    return c;
  } catch (const std::bad_alloc&) {
    return core::makeError(core::ErrorCode::OutOfMemory, id, "out of memory preparing the case");
  }
}

}  // namespace delineate::inference::training
