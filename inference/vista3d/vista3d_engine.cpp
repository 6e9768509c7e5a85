// The VISTA-3D engine behind inference/engine.h (compiled into delineate_inference_torch).
#include "inference/engine.h"
#include "inference/vista3d/checkpoint_reader.h"
#include "inference/vista3d/network.h"
#include "inference/vista3d/segment.h"

namespace delineate::inference {
namespace {

class Vista3dEngine final : public SegmentationEngine {
 public:
  Vista3dEngine(std::unique_ptr<vista3d::Vista3dModel> model, const Vista3dEngineOptions& options)
      : m_model(std::move(model)), m_options(options) {}

  EngineInfo info() const override {
    EngineInfo i;
    i.id = "vista3d";
    i.modality = "CT";
    i.device = "cpu";
    i.supportsPoints = false;  // click sessions come with the interactive path
    return i;
  }

  core::Result<core::LabelPatch> segment(const core::ImageVolume& image, const SegmentationRequest& request,
                                         core::ProgressSink* progress) override {
    if (!request.points.empty())
      return core::makeError(core::ErrorCode::Unsupported, "vista3d", "click prompts are not wired to this engine yet");
    std::vector<int> prompts(request.classes.begin(), request.classes.end());
    vista3d::SegmentOptions options;
    options.roi = m_options.roi;
    auto labels = vista3d::segmentWithVista3d(*m_model, image, prompts, options, progress);
    if (!labels) return labels.error();
    const auto dims = image.geometry().dimensions();
    core::LabelPatch patch;
    patch.box = core::IndexBox{{0, 0, 0}, {dims[0] - 1, dims[1] - 1, dims[2] - 1}};
    patch.voxels.resize(labels->size());
    for (std::size_t i = 0; i < labels->size(); ++i) patch.voxels[i] = (*labels)[i];
    return patch;
  }

 private:
  std::unique_ptr<vista3d::Vista3dModel> m_model;
  Vista3dEngineOptions m_options;
};

}  // namespace

core::Result<std::unique_ptr<SegmentationEngine>> createVista3dEngine(const std::string& checkpointPath,
                                                                       const Vista3dEngineOptions& options) {
  if (options.roi < 16 || options.roi % 16)
    return core::makeError(core::ErrorCode::InvalidArgument, "vista3d", "the window size must be a multiple of 16");
  if (!vista3d::torchAvailable())
    return core::makeError(core::ErrorCode::Unsupported, checkpointPath, "this build has no LibTorch (install libtorch-dev)");
  auto ck = vista3d::readCheckpoint(checkpointPath);
  if (!ck) return ck.error();
  vista3d::Vista3dModel::setCpuThreads(options.cpuThreads);
  auto model = vista3d::Vista3dModel::load(*ck);
  if (!model) return model.error();
  return std::unique_ptr<SegmentationEngine>(new Vista3dEngine(std::move(model).value(), options));
}

}  // namespace delineate::inference
