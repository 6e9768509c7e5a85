#pragma once
// Window/level: the CT presets radiologists expect and an automatic range for images without Hounsfield units.

#include <string>
#include <vector>

#include "core/scalar_image.h"
#include "core/volume.h"

namespace delineate::app::gui {

struct WindowLevel {
  double window = 400, level = 40;
};

struct WindowLevelPreset {
  std::string name;  // English; the window translates it
  WindowLevel value;
};

// Soft tissue (400/40), lung (1500/-600), bone (1800/400), brain (80/40), as commonly used for CT.
const std::vector<WindowLevelPreset>& ctPresets();

// The 0.5th to 99.5th percentile of the image's values (sampled, at most about a million voxels), for MR and
// anything without a fixed scale; a flat image gets window 1 around its value.
WindowLevel automaticWindowLevel(core::ImageView image);

// The finite values of evenly spaced voxels of the image (at most about a million), for percentiles.
std::vector<float> sampleValues(core::ImageView image);
// The q-quantile (0..1) of non-empty `values` (reorders them).
double sampledQuantile(std::vector<float>& values, double q);

// Whether the image looks like CT in Hounsfield units: air near -1000 present and nothing far below it.
bool looksLikeCt(core::ImageView image);

}  // namespace delineate::app::gui
