#include "viewer/label_colors.h"

#include <algorithm>
#include <cmath>

#include <vtkLookupTable.h>

namespace delineate::viewer {

vtkSmartPointer<vtkLookupTable> labelLookupTable(const core::LabelTable& table, const std::set<core::Label>& hidden,
                                                 core::Label maxId) {
  for (const auto& e : table.entries()) maxId = std::max(maxId, e.id);
  maxId = std::max<core::Label>(maxId, 1);
  auto lut = vtkSmartPointer<vtkLookupTable>::New();
  lut->SetNumberOfTableValues(static_cast<vtkIdType>(maxId) + 1);
  lut->SetTableRange(0, maxId);
  for (int id = 0; id <= maxId; ++id) {
    const auto label = static_cast<core::Label>(id);
    const core::LabelEntry* e = table.find(label);
    const core::Rgba c = e ? e->color : core::LabelTable::defaultColor(label);
    const bool shown = id != 0 && !hidden.count(label) && (!e || e->visible);
    lut->SetTableValue(id, c.r / 255.0, c.g / 255.0, c.b / 255.0, shown ? 1.0 : 0.0);
  }
  return lut;
}

double hueDegrees(core::Rgba c) {
  const double r = c.r / 255.0, g = c.g / 255.0, b = c.b / 255.0;
  const double hi = std::max({r, g, b}), lo = std::min({r, g, b}), span = hi - lo;
  if (span <= 0) return 0;
  double h = hi == r ? std::fmod((g - b) / span, 6.0) : hi == g ? (b - r) / span + 2 : (r - g) / span + 4;
  h *= 60;
  return h < 0 ? h + 360 : h;
}

core::Rgba contrastingPreviewColor(const std::vector<core::Rgba>& under) {
  static const core::Rgba kCandidates[] = {
      {255, 220, 40, 255},  // yellow
      {0, 230, 255, 255},   // cyan
      {255, 40, 255, 255},  // magenta
      {60, 255, 60, 255},   // green
  };
  core::Rgba best = kCandidates[0];
  double bestDistance = -1;
  for (const core::Rgba& candidate : kCandidates) {
    double nearest = 360;
    const double h = hueDegrees(candidate);
    for (const core::Rgba& u : under) {
      if (std::max({u.r, u.g, u.b}) - std::min({u.r, u.g, u.b}) < 40) continue;  // a grey has no hue to avoid
      const double d = std::fabs(h - hueDegrees(u));
      nearest = std::min(nearest, std::min(d, 360 - d));
    }
    if (nearest > bestDistance + 1e-9) best = candidate, bestDistance = nearest;
  }
  return best;
}

}  // namespace delineate::viewer
