#include "app/gui/base/window_level.h"

#include <QtGlobal>

#include <algorithm>
#include <cmath>

namespace delineate::app::gui {
std::vector<float> sampleValues(core::ImageView image) {
  const std::size_t n = image.size();
  const std::size_t stride = std::max<std::size_t>(1, n / 1000000);
  std::vector<float> values;
  values.reserve(n / stride + 1);
  image.visit([&](const auto& v) {
    for (std::size_t i = 0; i < n; i += stride) {
      const auto x = static_cast<float>(v[i]);
      if (std::isfinite(x)) values.push_back(x);
    }
  });
  return values;
}

double sampledQuantile(std::vector<float>& values, double q) {
  const auto k = static_cast<std::size_t>(q * static_cast<double>(values.size() - 1));
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(k), values.end());
  return static_cast<double>(values[k]);
}

const std::vector<WindowLevelPreset>& ctPresets() {
  static const std::vector<WindowLevelPreset> presets = {
      // Names are shown through tr() in the MainWindow context (its full name) (the menu translates them).
      {QT_TRANSLATE_NOOP("delineate::app::gui::MainWindow", "Soft tissue"), {400, 40}},
      {QT_TRANSLATE_NOOP("delineate::app::gui::MainWindow", "Lung"), {1500, -600}},
      {QT_TRANSLATE_NOOP("delineate::app::gui::MainWindow", "Bone"), {1800, 400}},
      {QT_TRANSLATE_NOOP("delineate::app::gui::MainWindow", "Brain"), {80, 40}}};
  return presets;
}

WindowLevel automaticWindowLevel(core::ImageView image) {
  std::vector<float> values = sampleValues(image);
  if (values.empty()) return {1, 0};
  const double lo = sampledQuantile(values, 0.005), hi = sampledQuantile(values, 0.995);
  if (hi - lo <= 0) return {1, lo};
  return {hi - lo, (hi + lo) / 2};
}

bool looksLikeCt(core::ImageView image) {
  // Air (about -1000 HU) in at least 1% of the voxels, and nothing beyond the range CT scanners write (-3024 marks
  // voxels outside the field of view on some scanners).
  const std::vector<float> values = sampleValues(image);
  if (values.empty()) return false;
  std::size_t air = 0, outside = 0;
  for (const float v : values) {
    air += v > -1100 && v < -900;
    outside += v < -3100 || v > 40000;
  }
  return air > values.size() / 100 && outside == 0;
}

}  // namespace delineate::app::gui
