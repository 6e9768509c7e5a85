#pragma once
// The classic engine behind inference/engine.h: automatic segmentation (auto_segmenter.h) when a request has no
// points, one click-prompted object (click_session.h) when it has, and interactive click sessions. CPU only, no
// weights; the default engine.

#include "inference/classic/click_session.h"
#include "inference/engine.h"

namespace delineate::inference::classic {

class ClassicEngine final : public SegmentationEngine {
 public:
  explicit ClassicEngine(ClickOptions clickOptions = {}) : m_clickOptions(clickOptions) {}

  EngineInfo info() const override;
  // No points: the automatic classes (request.classes, empty = all for the modality), computed on the whole image
  // (body and lungs need all of it) and returned for request.region when it is set. Points: the object they prompt,
  // written as request.targetLabel (required).
  core::Result<core::LabelPatch> segment(core::ImageView image, const SegmentationRequest& request,
                                         core::ProgressSink* progress) override;
  core::Result<std::unique_ptr<InteractiveSession>> beginSession(core::ImageView image) override;

 private:
  ClickOptions m_clickOptions;
};

}  // namespace delineate::inference::classic
