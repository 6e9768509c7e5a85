#include "inference/classic/classic_engine.h"

#include "inference/classic/auto_segmenter.h"


namespace delineate::inference::classic {

EngineInfo ClassicEngine::info() const {
  EngineInfo i;
  i.id = "classic";
  i.modality = "any";
  i.device = "cpu";
  i.supportsPoints = true;
  i.classes = autoLabelTable();
  return i;
}

core::Result<core::LabelPatch> ClassicEngine::segment(core::ImageView image, const SegmentationRequest& request,
                                                      core::ProgressSink* progress) {
  if (!request.points.empty()) {
    if (request.targetLabel == 0)
      return core::makeError(core::ErrorCode::InvalidArgument, "classic", "a click-prompted object needs a target label");
    auto session = ClickSession::begin(image, m_clickOptions);
    if (!session) return session.error();
    for (const auto& p : request.points)
      if (core::Status s = (*session)->addPoint(p, progress); !s) return s.error();
    return (*session)->accept(request.targetLabel);
  }
  auto result = segmentAutomatically(image, request.classes, progress);  // in the image's own type
  if (!result) return result.error();
  const auto dims = image.geometry().dimensions();
  core::IndexBox box{{0, 0, 0}, {dims[0] - 1, dims[1] - 1, dims[2] - 1}};
  if (!request.region.empty()) box = request.region.intersected(box);
  if (box.empty()) return core::makeError(core::ErrorCode::InvalidArgument, "classic", "the region lies outside the image");
  core::LabelPatch patch;
  patch.box = box;
  if (box.voxelCount() == image.geometry().voxelCount()) {
    patch.voxels = std::move(result->voxels);
    return patch;
  }
  patch.voxels.reserve(static_cast<std::size_t>(box.voxelCount()));
  for (std::int64_t z = box.min[2]; z <= box.max[2]; ++z)
    for (std::int64_t y = box.min[1]; y <= box.max[1]; ++y)
      for (std::int64_t x = box.min[0]; x <= box.max[0]; ++x)
        patch.voxels.push_back(result->voxels[static_cast<std::size_t>((z * dims[1] + y) * dims[0] + x)]);
  return patch;
}

core::Result<std::unique_ptr<InteractiveSession>> ClassicEngine::beginSession(core::ImageView image) {
  auto s = ClickSession::begin(image, m_clickOptions);
  if (!s) return s.error();
  return std::unique_ptr<InteractiveSession>(std::move(s).value());
}

}  // namespace delineate::inference::classic
