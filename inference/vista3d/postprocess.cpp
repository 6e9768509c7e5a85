#include "inference/vista3d/postprocess.h"

#include "core/morphology.h"

#include <algorithm>
#include <cmath>
#include <new>
#include <string>

namespace delineate::inference::vista3d {
using core::Index3;
using core::Size3;

core::Result<std::vector<float>> vistaPostTransform(const std::vector<float>& logits, int channels, const Size3& dims,
                                                    const std::vector<int>& labelPrompt,
                                                    const std::vector<ModelPoint>& points) {
  const auto voxels = static_cast<std::size_t>(dims[0] * dims[1] * dims[2]);
  if (channels < 1 || logits.size() != voxels * static_cast<std::size_t>(channels))
    return core::makeError(core::ErrorCode::InvalidArgument, "vista3d", "logits do not match the model grid");
  if (!labelPrompt.empty() && labelPrompt.size() != static_cast<std::size_t>(channels))
    return core::makeError(core::ErrorCode::InvalidArgument, "vista3d", "one label prompt per channel is needed");
  try {
    std::vector<float> pred = logits;
    // Point-only results keep only the components (26-connected, logit > 0) that hold a positive click; the other
    // components' positive voxels get the mean of every voxel that is neither kept nor NaN.
    if (labelPrompt.empty() && !points.empty()) {
      for (int c = 0; c < channels; ++c) {
        float* p = pred.data() + static_cast<std::size_t>(c) * voxels;
        std::vector<std::uint8_t> fg(voxels);
        for (std::size_t i = 0; i < voxels; ++i) fg[i] = p[i] > 0 ? 1 : 0;  // NaN is not > 0
        const auto id = core::connectedComponents(fg, dims, core::Connectivity::Full).id;
        std::vector<std::int32_t> keep;
        for (const auto& pt : points) {
          if (pt.label != 1 && pt.label != 3) continue;
          Index3 v{};
          bool inside = true;
          for (std::size_t a = 0; a < 3; ++a) {
            v[a] = static_cast<std::int64_t>(std::nearbyint(pt.ijk[a]));  // half to even, as Python's round()
            inside = inside && v[a] >= 0 && v[a] < dims[a];
          }
          if (!inside) continue;
          const std::int32_t k = id[static_cast<std::size_t>((v[2] * dims[1] + v[1]) * dims[0] + v[0])];
          if (k >= 0) keep.push_back(k);
        }
        auto kept = [&](std::size_t i) { return id[i] >= 0 && std::find(keep.begin(), keep.end(), id[i]) != keep.end(); };
        double sum = 0;
        std::size_t count = 0;
        for (std::size_t i = 0; i < voxels; ++i)
          if (!kept(i) && !std::isnan(p[i])) {
            sum += p[i];
            ++count;
          }
        const float fill = count ? static_cast<float>(sum / static_cast<double>(count)) : 0.0f;
        for (std::size_t i = 0; i < voxels; ++i)
          if (fg[i] && !kept(i)) p[i] = fill;
      }
    }
    for (auto& v : pred)
      if (v < 0) v = 0;
    std::vector<float> out(voxels);
    for (std::size_t i = 0; i < voxels; ++i) {
      if (channels == 1) {
        const float v = pred[i];
        out[i] = std::isnan(v) ? v : v > 0 ? 1.0f : 0.0f;
      } else {
        int best = 0;
        bool any = false, nan = false;
        for (int c = 0; c < channels; ++c) {
          const float v = pred[static_cast<std::size_t>(c) * voxels + i];
          if (std::isnan(v)) nan = true;
          if (v > 0) any = true;
          if (v > pred[static_cast<std::size_t>(best) * voxels + i]) best = c;  // the first maximum wins
        }
        out[i] = nan ? std::nanf("") : any ? static_cast<float>(best + 1) : 0.0f;
      }
      if (!labelPrompt.empty() && out[i] > 0) out[i] = static_cast<float>(labelPrompt[static_cast<std::size_t>(out[i]) - 1]);
    }
    return out;
  } catch (const std::bad_alloc&) {
    return core::makeError(core::ErrorCode::OutOfMemory, "vista3d", "out of memory postprocessing");
  }
}

core::Result<core::Volume<std::uint8_t>> invertToOriginal(const std::vector<float>& modelLabels, const Vista3dGrid& grid,
                                                           const core::Geometry& original) {
  // The model grid is the crop of the 1.5 mm grid, both in model (RAS) order.
  const Size3 md{grid.crop.max[0] - grid.crop.min[0] + 1, grid.crop.max[1] - grid.crop.min[1] + 1,
                 grid.crop.max[2] - grid.crop.min[2] + 1};
  if (modelLabels.size() != static_cast<std::size_t>(md[0] * md[1] * md[2]))
    return core::makeError(core::ErrorCode::InvalidArgument, "vista3d", "labels do not match the model grid");
  auto out = core::Volume<std::uint8_t>::create(original, 0);
  if (!out) return out.error();
  const Size3 sd = grid.spacedDims;
  const Size3 od = original.dimensions();
  // Per original voxel along each axis: its place along the model axis that holds it (counted from the RAS-first
  // end), its nearest voxel of the 1.5 mm grid (border), then its place on the model grid (-1 where the crop removed
  // it: label 0).
  std::vector<std::int64_t> toModel[3];
  for (std::size_t a = 0; a < 3; ++a) {
    int m = 0;
    while (grid.axisOf[m] != static_cast<int>(a)) ++m;
    const auto mm = static_cast<std::size_t>(m);
    for (std::int64_t o = 0; o < od[a]; ++o) {
      const std::int64_t r = grid.flipped[m] ? od[a] - 1 - o : o;
      const double u = static_cast<double>(r) * original.spacingMm()[a] / kTargetSpacingMm;
      const std::int64_t s = std::clamp<std::int64_t>(static_cast<std::int64_t>(std::nearbyint(u)), 0, sd[mm] - 1);
      std::int64_t c = s - grid.crop.min[mm];
      if (c < 0 || c >= md[mm]) c = -1;
      toModel[a].push_back(c);
    }
  }
  // Model axis m holds spaced axis axisOf[m]; model index along m comes from original axis axisOf[m].
  for (std::int64_t z = 0; z < od[2]; ++z)
    for (std::int64_t y = 0; y < od[1]; ++y)
      for (std::int64_t x = 0; x < od[0]; ++x) {
        const std::int64_t c[3] = {toModel[0][static_cast<std::size_t>(x)], toModel[1][static_cast<std::size_t>(y)],
                                   toModel[2][static_cast<std::size_t>(z)]};
        if (c[0] < 0 || c[1] < 0 || c[2] < 0) continue;
        std::int64_t mi[3];
        for (int m = 0; m < 3; ++m) mi[m] = c[grid.axisOf[m]];
        const float v = modelLabels[static_cast<std::size_t>((mi[2] * md[1] + mi[1]) * md[0] + mi[0])];
        out->at({x, y, z}) = std::isnan(v) ? 255 : static_cast<std::uint8_t>(std::clamp(v, 0.0f, 254.0f));
      }
  return out;
}

core::Vec3 toModelGrid(const core::Vec3& originalIjk, const core::Geometry& original, const core::Geometry& model) {
  const core::Vec3 world = original.indexToLps(originalIjk);
  return model.lpsToIndex(world);
}

}  // namespace delineate::inference::vista3d
