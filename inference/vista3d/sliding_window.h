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

// Streaming automatic segmentation for whole images: the same windows, but the sums live in a slab that spans the
// window size along one axis (the longest) and the whole padded image along the other two; a plane is final once
// every window over it is done, and only each voxel's winning channel leaves the slab. Memory is channels x roi x
// the two other extents instead of channels x the whole grid (twice, with the averaged copy). The sums and the
// network run behind SlabAccumulator: on the CPU in float32 (CpuSlabAccumulator) or on the network's device.
class SlabAccumulator {
 public:
  virtual ~SlabAccumulator() = default;
  // Zeroed sums for `channels` maps over `extent` (torch order; the slab axis holds roi planes).
  virtual core::Status reset(int channels, const std::int64_t extent[3]) = 0;
  // Runs the network on `count` windows of roi^3 (back to back, torch order) and adds window i's logits at
  // origins[3 i .. 3 i + 2] of the slab. On an error nothing is added; OutOfMemory makes the caller retry smaller.
  virtual core::Status addWindows(const std::vector<float>& windows, int count, std::int64_t roi,
                                  const std::vector<std::int64_t>& origins) = 0;
  // The winners of the first `length` planes along `axis` (torch order over [length or extent] per axis): 0 where no
  // sum is positive, else 1 + the first channel with the largest sum (the bundle's argmax + 1 of the averages, whose
  // divisor is the same for every channel); then those planes leave and the rest move down, the new ones zeroed.
  virtual core::Result<std::vector<std::uint8_t>> takeWinners(int axis, std::int64_t length) = 0;
  // Bytes the sums take (for reports).
  virtual std::size_t bytes() const = 0;
};

// A batch of windows through the network: `count` windows of roi^3 back to back -> count x channels x roi^3 logits.
using BatchWindowFn =
    std::function<core::Result<std::vector<float>>(const std::vector<float>& windows, int count, std::int64_t roi)>;

// float32 sums in host memory, the network a callback.
class CpuSlabAccumulator final : public SlabAccumulator {
 public:
  explicit CpuSlabAccumulator(BatchWindowFn network) : m_network(std::move(network)) {}
  core::Status reset(int channels, const std::int64_t extent[3]) override;
  core::Status addWindows(const std::vector<float>& windows, int count, std::int64_t roi,
                          const std::vector<std::int64_t>& origins) override;
  core::Result<std::vector<std::uint8_t>> takeWinners(int axis, std::int64_t length) override;
  std::size_t bytes() const override { return m_sums.size() * sizeof(float); }

 private:
  BatchWindowFn m_network;
  int m_channels = 0;
  std::int64_t m_extent[3] = {0, 0, 0};
  std::vector<float> m_sums;  // [channel][extent0][extent1][extent2]
};

struct StreamOptions {
  std::int64_t roi = 128;
  double overlap = 0.25;
  int batch = 1;  // windows per network call; halved on OutOfMemory down to 1
};

struct StreamResult {
  std::vector<std::uint8_t> winners;  // per image voxel (x fastest): 0 or 1 + the winning channel
  int batch = 1;                      // the batch that ran to the end
  int slabAxis = 0;
  std::size_t windows = 0, accumulatorBytes = 0;
};

// Errors: channels outside 1..254, the accumulator's (OutOfMemory at batch 1 is passed up), Cancelled.
core::Result<StreamResult> slidingWindowWinners(const core::ImageVolume& image, int channels, SlabAccumulator& accumulator,
                                                const StreamOptions& options = {}, core::ProgressSink* progress = nullptr);

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
