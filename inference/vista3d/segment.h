#pragma once
// VISTA-3D automatic segmentation of a whole image, the bundle's way (SPEC.md 6): label prompts rewritten as
// VistaPreTransformd does (kidney, lung and bone expanded to their parts; no prompt = the 117 "everything" classes),
// preprocessing, the sliding window over the model grid, postprocessing and inversion onto the image's own grid.
// Torch-free: the network comes in as a loaded Vista3dModel.

#include <cstdint>
#include <vector>

#include "core/error.h"
#include "core/label_map.h"
#include "core/progress.h"
#include "core/volume.h"
#include "inference/vista3d/network.h"

namespace delineate::inference::vista3d {

// The 117 classes the bundle segments when asked for everything (the 127 trained ones without kidney, lung and
// bone, which come as their parts, and the lesion and vessel classes 16, 18, 23-27).
std::vector<int> everythingLabels();
// VistaPreTransformd's subclass expansion: 2 -> 14, 5; 20 -> 28..32; 21 -> the vertebrae, ribs and other bones.
std::vector<int> expandLabelPrompts(const std::vector<int>& prompts);

struct SegmentOptions {
  std::int64_t roi = 128;  // the bundle's window
};

// Labels on the image's grid (255 where nothing was computed cannot happen here: every voxel is in some window).
// Errors: class ids outside 1..254, the model's.
core::Result<core::LabelMap> segmentWithVista3d(Vista3dModel& model, const core::ImageVolume& image,
                                                const std::vector<int>& labelPrompts, const SegmentOptions& options = {},
                                                core::ProgressSink* progress = nullptr);

}  // namespace delineate::inference::vista3d
