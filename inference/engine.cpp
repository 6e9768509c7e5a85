#include "inference/engine.h"

#include "inference/classic/threshold_engine.h"

namespace delineate::inference {

std::unique_ptr<SegmentationEngine> createEngine(const std::string& id) {
  if (id == "classic.threshold") return std::make_unique<classic::ThresholdEngine>(classic::ThresholdEngine::ctTissuePreset());
  return nullptr;
}

std::vector<std::string> availableEngines() { return {"classic.threshold"}; }

}  // namespace delineate::inference
