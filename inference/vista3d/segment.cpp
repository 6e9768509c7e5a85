#include "inference/vista3d/segment.h"

#include <algorithm>

#include "inference/vista3d/postprocess.h"
#include "inference/vista3d/preprocess.h"
#include "inference/vista3d/sliding_window.h"

namespace delineate::inference::vista3d {

std::vector<int> everythingLabels() {
  std::vector<int> out;
  for (int c = 1; c <= 127; ++c)
    if (c != 2 && c != 16 && c != 18 && c != 20 && c != 21 && (c < 23 || c > 27)) out.push_back(c);
  return out;
}

std::vector<int> expandLabelPrompts(const std::vector<int>& prompts) {
  std::vector<int> out;
  for (const int p : prompts) {
    if (p == 2) {
      out.insert(out.end(), {14, 5});
    } else if (p == 20) {
      for (int c = 28; c <= 32; ++c) out.push_back(c);
    } else if (p == 21) {
      for (int c = 33; c <= 56; ++c) out.push_back(c);
      for (int c = 63; c <= 97; ++c) out.push_back(c);
      out.insert(out.end(), {114, 120, 122});
    } else {
      out.push_back(p);
    }
  }
  return out;
}

core::Result<core::LabelMap> segmentWithVista3d(Vista3dModel& model, const core::ImageVolume& image,
                                                const std::vector<int>& labelPrompts, const SegmentOptions& options,
                                                core::ProgressSink* progress) {
  const std::vector<int> classes = expandLabelPrompts(labelPrompts.empty() ? everythingLabels() : labelPrompts);
  for (const int c : classes)
    if (c < 1 || c > 254) return core::makeError(core::ErrorCode::InvalidArgument, "vista3d", "label prompts are 1..254");
  auto in = preprocessForVista3d(image);
  if (!in) return in.error();
  const std::vector<std::int64_t> ids(classes.begin(), classes.end());
  const WindowFn network = [&](const std::vector<float>& window, const std::int64_t roi[3]) {
    return model.classLogits(window, roi, ids);
  };
  SlidingWindowOptions sw;
  sw.roi = options.roi;
  auto logits = slidingWindowLogits(in->image, static_cast<int>(classes.size()), network, sw, progress);
  if (!logits) return logits.error();
  auto labels = vistaPostTransform(*logits, static_cast<int>(classes.size()), in->image.geometry().dimensions(), classes, {});
  if (!labels) return labels.error();
  auto back = invertToOriginal(*labels, in->grid, image.geometry());
  if (!back) return back.error();
  auto voxels = core::Volume<core::Label>::create(image.geometry(), 0);
  if (!voxels) return voxels.error();
  for (std::size_t i = 0; i < back->size(); ++i) (*voxels)[i] = (*back)[i] == 255 ? core::Label{0} : (*back)[i];
  return core::LabelMap(std::move(voxels).value());
}

}  // namespace delineate::inference::vista3d
