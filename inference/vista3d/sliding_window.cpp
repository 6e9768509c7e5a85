#include "inference/vista3d/sliding_window.h"

#include <algorithm>
#include <cmath>
#include <new>
#include <string>

#include "core/progress.h"

namespace delineate::inference::vista3d {

std::vector<std::int64_t> windowStarts(std::int64_t size, std::int64_t roi, double overlap) {
  const std::int64_t interval = size == roi ? roi : std::max<std::int64_t>(1, static_cast<std::int64_t>(static_cast<double>(roi) * (1.0 - overlap)));
  std::int64_t count = 0;
  while (count * interval + roi < size) ++count;
  std::vector<std::int64_t> starts;
  for (std::int64_t d = 0; d <= count; ++d) {
    const std::int64_t s = std::min(d * interval, size - roi);
    if (starts.empty() || starts.back() != s) starts.push_back(s);
  }
  return starts;
}

core::Result<std::vector<float>> slidingWindowLogits(const core::ImageVolume& image, int channels, const WindowFn& network,
                                                     const SlidingWindowOptions& options, core::ProgressSink* progress) {
  const auto n = image.geometry().dimensions();
  const std::int64_t roi = options.roi;
  if (channels < 1 || roi < 1 || n[0] < 1) return core::makeError(core::ErrorCode::InvalidArgument, "vista3d", "nothing to infer");
  try {
    // Padded sizes and the padding before, per axis.
    std::int64_t p[3], before[3];
    for (std::size_t a = 0; a < 3; ++a) {
      p[a] = std::max(n[a], roi);
      before[a] = (p[a] - n[a]) / 2;
    }
    // The padded volume in torch order ((a0 * p1 + a1) * p2 + a2), replicating the edge voxels.
    std::vector<float> padded(static_cast<std::size_t>(p[0] * p[1] * p[2]));
    for (std::int64_t i = 0; i < p[0]; ++i)
      for (std::int64_t j = 0; j < p[1]; ++j)
        for (std::int64_t k = 0; k < p[2]; ++k) {
          const core::Index3 src{std::clamp<std::int64_t>(i - before[0], 0, n[0] - 1),
                                 std::clamp<std::int64_t>(j - before[1], 0, n[1] - 1),
                                 std::clamp<std::int64_t>(k - before[2], 0, n[2] - 1)};
          padded[static_cast<std::size_t>((i * p[1] + j) * p[2] + k)] = image.at(src);
        }
    const auto s0 = windowStarts(p[0], roi, options.overlap), s1 = windowStarts(p[1], roi, options.overlap),
               s2 = windowStarts(p[2], roi, options.overlap);
    const std::size_t cells = padded.size();
    std::vector<float> sum(cells * static_cast<std::size_t>(channels), 0.0f), count(cells, 0.0f);
    std::vector<float> window(static_cast<std::size_t>(roi * roi * roi));
    const std::int64_t roiSize[3] = {roi, roi, roi};
    std::size_t done = 0;
    const std::size_t total = s0.size() * s1.size() * s2.size();
    for (const auto a : s0)
      for (const auto b : s1)
        for (const auto c : s2) {
          if (progress && progress->cancelled()) return core::makeError(core::ErrorCode::Cancelled, "vista3d", "cancelled");
          for (std::int64_t i = 0; i < roi; ++i)
            for (std::int64_t j = 0; j < roi; ++j)
              std::copy_n(padded.begin() + static_cast<std::ptrdiff_t>(((a + i) * p[1] + b + j) * p[2] + c), roi,
                          window.begin() + static_cast<std::ptrdiff_t>((i * roi + j) * roi));
          auto logits = network(window, roiSize);
          if (!logits) return logits.error();
          if (logits->size() != window.size() * static_cast<std::size_t>(channels))
            return core::makeError(core::ErrorCode::InvalidArgument, "vista3d", "the network returned the wrong size");
          for (int ch = 0; ch < channels; ++ch)
            for (std::int64_t i = 0; i < roi; ++i)
              for (std::int64_t j = 0; j < roi; ++j)
                for (std::int64_t k = 0; k < roi; ++k) {
                  const auto cell = static_cast<std::size_t>(((a + i) * p[1] + b + j) * p[2] + c + k);
                  sum[static_cast<std::size_t>(ch) * cells + cell] +=
                      (*logits)[static_cast<std::size_t>(((ch * roi + i) * roi + j) * roi + k)];
                }
          for (std::int64_t i = 0; i < roi; ++i)
            for (std::int64_t j = 0; j < roi; ++j)
              for (std::int64_t k = 0; k < roi; ++k) count[static_cast<std::size_t>(((a + i) * p[1] + b + j) * p[2] + c + k)] += 1;
          if (progress) progress->report(static_cast<double>(++done) / static_cast<double>(total), "infer");
        }
    // Averages, cropped to the image, each channel x fastest.
    const auto voxels = static_cast<std::size_t>(n[0] * n[1] * n[2]);
    std::vector<float> out(voxels * static_cast<std::size_t>(channels));
    for (int ch = 0; ch < channels; ++ch)
      for (std::int64_t z = 0; z < n[2]; ++z)
        for (std::int64_t y = 0; y < n[1]; ++y)
          for (std::int64_t x = 0; x < n[0]; ++x) {
            const auto cell = static_cast<std::size_t>(((x + before[0]) * p[1] + y + before[1]) * p[2] + z + before[2]);
            out[static_cast<std::size_t>(ch) * voxels + static_cast<std::size_t>((z * n[1] + y) * n[0] + x)] =
                sum[static_cast<std::size_t>(ch) * cells + cell] / count[cell];
          }
    return out;
  } catch (const std::bad_alloc&) {
    return core::makeError(core::ErrorCode::OutOfMemory, "vista3d", "out of memory stitching the windows");
  }
}

core::Result<std::vector<float>> pointWindowLogits(const core::ImageVolume& image, const std::vector<ClickPoint>& points,
                                                   const PointWindowFn& network, std::int64_t roi,
                                                   core::ProgressSink* progress) {
  const auto n = image.geometry().dimensions();
  if (points.empty() || roi < 2 || n[0] < 1)
    return core::makeError(core::ErrorCode::InvalidArgument, "vista3d", "click inference needs points");
  try {
    std::int64_t p[3], before[3];
    for (std::size_t a = 0; a < 3; ++a) {
      p[a] = std::max(n[a], roi);
      before[a] = (p[a] - n[a]) / 2;
    }
    // Zero padding, torch order.
    std::vector<float> padded(static_cast<std::size_t>(p[0] * p[1] * p[2]), 0.0f);
    for (std::int64_t i = 0; i < n[0]; ++i)
      for (std::int64_t j = 0; j < n[1]; ++j)
        for (std::int64_t k = 0; k < n[2]; ++k)
          padded[static_cast<std::size_t>(((i + before[0]) * p[1] + j + before[1]) * p[2] + k + before[2])] = image.at({i, j, k});
    std::vector<ClickPoint> shifted = points;
    for (auto& pt : shifted)
      for (std::size_t a = 0; a < 3; ++a) pt.ijk[a] += static_cast<float>(before[a]);
    const std::size_t cells = padded.size();
    std::vector<float> sum(cells, 0.0f);
    std::vector<std::uint8_t> covered(cells, 0);
    std::vector<float> window(static_cast<std::size_t>(roi * roi * roi));
    const std::int64_t roiSize[3] = {roi, roi, roi};
    const std::int64_t half = roi / 2;
    std::size_t done = 0;
    for (const auto& centre : shifted) {
      if (progress && progress->cancelled()) return core::makeError(core::ErrorCode::Cancelled, "vista3d", "cancelled");
      std::int64_t start[3];
      for (std::size_t a = 0; a < 3; ++a) {
        const double c = centre.ijk[a];
        if (c - static_cast<double>(half) < 0) start[a] = 0;
        else if (c + static_cast<double>(half) > static_cast<double>(p[a])) start[a] = p[a] - roi;
        else start[a] = static_cast<std::int64_t>(c) - half;
      }
      for (std::int64_t i = 0; i < roi; ++i)
        for (std::int64_t j = 0; j < roi; ++j)
          std::copy_n(padded.begin() + static_cast<std::ptrdiff_t>(((start[0] + i) * p[1] + start[1] + j) * p[2] + start[2]), roi,
                      window.begin() + static_cast<std::ptrdiff_t>((i * roi + j) * roi));
      // The points strictly inside this window, in its coordinates.
      std::vector<ClickPoint> inside;
      for (const auto& q : shifted) {
        if (q.label == -1) continue;  // with one object a pad point's column is all -1 and MONAI deletes it
        bool in = true;
        ClickPoint local = q;
        for (std::size_t a = 0; a < 3; ++a) {
          const double rel = static_cast<double>(q.ijk[a]) - static_cast<double>(start[a]);
          in = in && rel > 0 && static_cast<double>(roi) - rel > 0;
          local.ijk[a] = static_cast<float>(rel);
        }
        if (in) inside.push_back(local);
      }
      std::vector<float> logits;
      if (inside.empty()) {
        logits.assign(window.size(), -9999.0f);
      } else {
        auto r = network(window, roiSize, inside);
        if (!r) return r.error();
        if (r->size() != window.size())
          return core::makeError(core::ErrorCode::InvalidArgument, "vista3d", "the network returned the wrong size");
        logits = std::move(r).value();
      }
      for (std::int64_t i = 0; i < roi; ++i)
        for (std::int64_t j = 0; j < roi; ++j)
          for (std::int64_t k = 0; k < roi; ++k) {
            const auto cell = static_cast<std::size_t>(((start[0] + i) * p[1] + start[1] + j) * p[2] + start[2] + k);
            sum[cell] += logits[static_cast<std::size_t>((i * roi + j) * roi + k)];
            covered[cell] = 1;
          }
      if (progress) progress->report(static_cast<double>(++done) / static_cast<double>(shifted.size()), "infer");
    }
    const auto voxels = static_cast<std::size_t>(n[0] * n[1] * n[2]);
    std::vector<float> out(voxels);
    for (std::int64_t z = 0; z < n[2]; ++z)
      for (std::int64_t y = 0; y < n[1]; ++y)
        for (std::int64_t x = 0; x < n[0]; ++x) {
          const auto cell = static_cast<std::size_t>(((x + before[0]) * p[1] + y + before[1]) * p[2] + z + before[2]);
          out[static_cast<std::size_t>((z * n[1] + y) * n[0] + x)] = covered[cell] ? sum[cell] : std::nanf("");
        }
    return out;
  } catch (const std::bad_alloc&) {
    return core::makeError(core::ErrorCode::OutOfMemory, "vista3d", "out of memory stitching the click windows");
  }
}

}  // namespace delineate::inference::vista3d
