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

// The bundle's click inference (SPEC.md 6.6, point_based_window_inferer with center_only): the volume padded with
// zeros to at least one window per axis, one window around every point (a window of `roi` centred on int(p), moved
// inside the volume), each run with the points strictly inside it (shifted into it; none inside: -9999, as the
// network answers), the windows' logits summed where they overlap and NaN where no window reached.
struct ClickPoint {
  float ijk[3] = {0, 0, 0};  // on the model grid, in float32 as the bundle passes them
  int label = 1;
};
using PointWindowFn = std::function<core::Result<std::vector<float>>(
    const std::vector<float>& window, const std::int64_t roi[3], const std::vector<ClickPoint>& pointsInWindow)>;

// One object's logits on the image grid (x fastest), NaN where not computed.
core::Result<std::vector<float>> pointWindowLogits(const core::ImageVolume& image, const std::vector<ClickPoint>& points,
                                                   const PointWindowFn& network, std::int64_t roi = 128,
                                                   core::ProgressSink* progress = nullptr);

}  // namespace delineate::inference::vista3d
