#pragma once
// Intensity-window classification: each voxel gets the first class whose [low, high] window holds its value.
// The CT preset uses the usual Hounsfield windows of body-composition analysis; it is the engine of last resort
// (no weights, no GPU) and the demo's source of labels, not an organ segmenter.

#include <string>
#include <vector>

#include "core/label_table.h"
#include "inference/engine.h"

namespace delineate::inference::classic {

struct IntensityClass {
  core::Label label = 0;
  std::string name;
  double low = 0;   // inclusive
  double high = 0;  // exclusive, so adjacent windows leave no gap for non-integer intensities
};

class ThresholdEngine final : public SegmentationEngine {
 public:
  explicit ThresholdEngine(std::vector<IntensityClass> classes, std::string modality = "any");

  // Adipose tissue -190..-30 HU, soft tissue (muscle, organs) -29..150 HU, bone 250..3000 HU (integer HU,
  // inclusive). 151..249 HU (contrast-filled vessels, partial volume) is left unlabelled on purpose.
  static ThresholdEngine ctTissuePreset();

  EngineInfo info() const override;  // classes: one entry per intensity window, default colours
  core::Result<core::LabelPatch> segment(core::ImageView image, const SegmentationRequest& request,
                                         core::ProgressSink* progress) override;

  const std::vector<IntensityClass>& classes() const { return m_classes; }

 private:
  std::vector<IntensityClass> m_classes;
  std::string m_modality;
};

}  // namespace delineate::inference::classic
