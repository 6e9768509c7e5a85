#pragma once
// The bundle's automatic sliding window (SPEC.md 6.5: MONAI's SlidingWindowInfererAdapt as the bundle calls it):
// the model-grid volume padded (replicate, half before) to at least one window per axis, windows every
// int(roi * (1 - overlap)) voxels with the last one shifted back inside, visited in C order over (axis 0, 1, 2),
// logits averaged with uniform weights, padding cropped away. Torch-free: the network is a callback.

#include <cstdint>
#include <functional>
#include <vector>

#include "core/error.h"
#include "core/progress.h"
#include "core/volume.h"

namespace delineate::inference::vista3d {

// Window starts along one axis of `size` voxels (size >= roi).
std::vector<std::int64_t> windowStarts(std::int64_t size, std::int64_t roi, double overlap);

// The network on one window: [roi0, roi1, roi2] values in torch order (the last axis fastest) -> `channels` logit
// maps in the same order.
using WindowFn = std::function<core::Result<std::vector<float>>(const std::vector<float>& window, const std::int64_t roi[3])>;

struct SlidingWindowOptions {
  std::int64_t roi = 128;
  double overlap = 0.25;
};

// Logits [channels] x the image grid (each channel x fastest, like core volumes). Cancelled through progress.
core::Result<std::vector<float>> slidingWindowLogits(const core::ImageVolume& image, int channels, const WindowFn& network,
                                                     const SlidingWindowOptions& options = {},
                                                     core::ProgressSink* progress = nullptr);

}  // namespace delineate::inference::vista3d
