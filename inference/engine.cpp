#include "inference/engine.h"

#include "inference/classic/classic_engine.h"
#include "inference/classic/threshold_engine.h"
#include "inference/interactive.h"

namespace delineate::inference {

core::Result<std::unique_ptr<InteractiveSession>> SegmentationEngine::beginSession(core::ImageView) {
  return core::makeError(core::ErrorCode::Unsupported, info().id, "this engine does not take click prompts");
}

core::Result<core::Volume<std::uint8_t>> SegmentationEngine::classProbability(core::ImageView, core::Label,
                                                                              core::ProgressSink*) {
  return core::makeError(core::ErrorCode::Unsupported, info().id, "this engine gives no per-voxel probabilities");
}

std::unique_ptr<SegmentationEngine> createEngine(const std::string& id) {
  if (id == "classic") return std::make_unique<classic::ClassicEngine>();
  if (id == "classic.threshold") return std::make_unique<classic::ThresholdEngine>(classic::ThresholdEngine::ctTissuePreset());
  return nullptr;
}

std::vector<std::string> availableEngines() { return {"classic", "classic.threshold"}; }

}  // namespace delineate::inference
