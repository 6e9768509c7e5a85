#include "inference/classic/threshold_engine.h"

#include <algorithm>
#include <utility>

namespace delineate::inference::classic {

ThresholdEngine::ThresholdEngine(std::vector<IntensityClass> classes, std::string modality)
    : m_classes(std::move(classes)), m_modality(std::move(modality)) {}

ThresholdEngine ThresholdEngine::ctTissuePreset() {
  return ThresholdEngine({{1, "adipose tissue", -190, -29}, {2, "soft tissue", -29, 151}, {3, "bone", 250, 3001}},
                         "CT");
}

EngineInfo ThresholdEngine::info() const {
  EngineInfo info;
  info.id = "classic.threshold";
  info.modality = m_modality;
  info.device = "cpu";
  for (const IntensityClass& c : m_classes) {
    core::LabelEntry e;
    e.id = c.label;
    e.name = c.name;
    e.color = core::LabelTable::defaultColor(c.label);
    info.classes.set(e);
  }
  return info;
}

core::Result<core::LabelPatch> ThresholdEngine::segment(core::ImageView image,
                                                        const SegmentationRequest& request,
                                                        core::ProgressSink* progress) {
  const core::Geometry& g = image.geometry();
  core::IndexBox box = request.region.empty() ? g.fullBox() : request.region.intersected(g.fullBox());
  if (box.empty()) return core::makeError(core::ErrorCode::InvalidArgument, "classic.threshold", "empty region");
  if (!request.points.empty())
    return core::makeError(core::ErrorCode::Unsupported, "classic.threshold", "point prompts are not supported");

  std::vector<IntensityClass> active;
  for (const IntensityClass& c : m_classes)
    if (request.classes.empty() ||
        std::find(request.classes.begin(), request.classes.end(), c.label) != request.classes.end())
      active.push_back(c);

  core::LabelPatch patch;
  patch.box = box;
  patch.voxels.assign(static_cast<std::size_t>(box.voxelCount()), 0);
  const core::Size3& d = g.dimensions();
  std::size_t out = 0;
  return image.visit([&](const auto& volume) -> core::Result<core::LabelPatch> {
    const auto* src = volume.data();
    for (std::int64_t k = box.min[2]; k <= box.max[2]; ++k) {
      if (progress) {
        if (progress->cancelled())
          return core::makeError(core::ErrorCode::Cancelled, "classic.threshold", "cancelled by the user");
        progress->report(double(k - box.min[2]) / double(box.max[2] - box.min[2] + 1), "classify");
      }
      for (std::int64_t j = box.min[1]; j <= box.max[1]; ++j) {
        const auto* row = src + d[0] * (j + d[1] * k);
        for (std::int64_t i = box.min[0]; i <= box.max[0]; ++i, ++out) {
          const auto v = static_cast<double>(row[i]);
          for (const IntensityClass& c : active)
            if (v >= c.low && v < c.high) {
              patch.voxels[out] = c.label;
              break;
            }
        }
      }
    }
    if (progress) progress->report(1.0, "classify");
    return patch;
  });
}

}  // namespace delineate::inference::classic
