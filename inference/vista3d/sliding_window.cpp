#include "inference/vista3d/sliding_window.h"

#include <algorithm>
#include <array>
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

namespace {

// The image padded (replicating its edge voxels) to at least `roi` per axis, half the padding before, in torch order
// ((a0 * p1 + a1) * p2 + a2); `p` the padded sizes, `before` the padding before.
std::vector<float> replicatePadded(const core::ImageVolume& image, std::int64_t roi, std::int64_t p[3], std::int64_t before[3]) {
  const auto n = image.geometry().dimensions();
  for (std::size_t a = 0; a < 3; ++a) {
    p[a] = std::max(n[a], roi);
    before[a] = (p[a] - n[a]) / 2;
  }
  std::vector<float> padded(static_cast<std::size_t>(p[0] * p[1] * p[2]));
  for (std::int64_t i = 0; i < p[0]; ++i)
    for (std::int64_t j = 0; j < p[1]; ++j)
      for (std::int64_t k = 0; k < p[2]; ++k) {
        const core::Index3 src{std::clamp<std::int64_t>(i - before[0], 0, n[0] - 1),
                               std::clamp<std::int64_t>(j - before[1], 0, n[1] - 1),
                               std::clamp<std::int64_t>(k - before[2], 0, n[2] - 1)};
        padded[static_cast<std::size_t>((i * p[1] + j) * p[2] + k)] = image.at(src);
      }
  return padded;
}

// Copies the roi^3 window at `start` of the padded volume (sizes p) into `out` at `offset`.
void copyWindow(const std::vector<float>& padded, const std::int64_t p[3], const std::int64_t start[3], std::int64_t roi,
                std::vector<float>& out, std::size_t offset) {
  for (std::int64_t i = 0; i < roi; ++i)
    for (std::int64_t j = 0; j < roi; ++j)
      std::copy_n(padded.begin() + static_cast<std::ptrdiff_t>(((start[0] + i) * p[1] + start[1] + j) * p[2] + start[2]), roi,
                  out.begin() + static_cast<std::ptrdiff_t>(offset + static_cast<std::size_t>((i * roi + j) * roi)));
}

}  // namespace

core::Result<std::vector<float>> slidingWindowLogits(const core::ImageVolume& image, int channels, const WindowFn& network,
                                                     const SlidingWindowOptions& options, core::ProgressSink* progress) {
  const auto n = image.geometry().dimensions();
  const std::int64_t roi = options.roi;
  if (channels < 1 || roi < 1 || n[0] < 1) return core::makeError(core::ErrorCode::InvalidArgument, "vista3d", "nothing to infer");
  try {
    std::int64_t p[3], before[3];
    const std::vector<float> padded = replicatePadded(image, roi, p, before);
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
          const std::int64_t start[3] = {a, b, c};
          copyWindow(padded, p, start, roi, window, 0);
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
      copyWindow(padded, p, start, roi, window, 0);
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

core::Status CpuSlabAccumulator::reset(int channels, const std::int64_t extent[3]) {
  try {
    m_channels = channels;
    std::copy_n(extent, 3, m_extent);
    m_sums.assign(static_cast<std::size_t>(channels * extent[0] * extent[1] * extent[2]), 0.0f);
    return core::Status::success();
  } catch (const std::bad_alloc&) {
    return core::makeError(core::ErrorCode::OutOfMemory, "vista3d", "out of memory for the window sums");
  }
}

core::Status CpuSlabAccumulator::addWindows(const std::vector<float>& windows, int count, std::int64_t roi,
                                            const std::vector<std::int64_t>& origins) {
  auto logits = m_network(windows, count, roi);
  if (!logits) return logits.error();
  const auto cube = static_cast<std::size_t>(roi * roi * roi);
  if (logits->size() != static_cast<std::size_t>(count) * static_cast<std::size_t>(m_channels) * cube)
    return core::makeError(core::ErrorCode::InvalidArgument, "vista3d", "the network returned the wrong size");
  const std::int64_t* e = m_extent;
  const auto plane = static_cast<std::size_t>(e[0] * e[1] * e[2]);
  for (int w = 0; w < count; ++w) {
    const std::int64_t* o = &origins[static_cast<std::size_t>(3 * w)];
    for (int ch = 0; ch < m_channels; ++ch) {
      const float* src = logits->data() + (static_cast<std::size_t>(w) * static_cast<std::size_t>(m_channels) +
                                           static_cast<std::size_t>(ch)) * cube;
      float* dst = m_sums.data() + static_cast<std::size_t>(ch) * plane;
      for (std::int64_t i = 0; i < roi; ++i)
        for (std::int64_t j = 0; j < roi; ++j) {
          float* row = dst + ((o[0] + i) * e[1] + o[1] + j) * e[2] + o[2];
          const float* in = src + (i * roi + j) * roi;
          for (std::int64_t k = 0; k < roi; ++k) row[k] += in[k];
        }
    }
  }
  return core::Status::success();
}

core::Result<std::vector<std::uint8_t>> CpuSlabAccumulator::takeWinners(int axis, std::int64_t length) {
  const std::int64_t* e = m_extent;
  std::int64_t part[3] = {e[0], e[1], e[2]};
  part[axis] = length;
  const auto plane = static_cast<std::size_t>(e[0] * e[1] * e[2]);
  try {
    const auto n = static_cast<std::size_t>(part[0] * part[1] * part[2]);
    std::vector<std::uint8_t> winner(n, 0);
    std::vector<float> best(n, 0.0f);  // only a positive sum can win, and only a strictly larger one replaces it
    for (int ch = 0; ch < m_channels; ++ch) {
      const float* sums = m_sums.data() + static_cast<std::size_t>(ch) * plane;
      std::size_t v = 0;
      for (std::int64_t i = 0; i < part[0]; ++i)
        for (std::int64_t j = 0; j < part[1]; ++j) {
          const float* row = sums + (i * e[1] + j) * e[2];
          for (std::int64_t k = 0; k < part[2]; ++k, ++v)
            if (row[k] > best[v]) {
              best[v] = row[k];
              winner[v] = static_cast<std::uint8_t>(ch + 1);
            }
        }
    }
    // Planes move down by `length` along the axis; each destination's source lies later in memory.
    const std::int64_t stride = axis == 0 ? e[1] * e[2] : axis == 1 ? e[2] : 1;
    for (int ch = 0; ch < m_channels; ++ch) {
      float* sums = m_sums.data() + static_cast<std::size_t>(ch) * plane;
      for (std::int64_t i = 0; i < e[0]; ++i)
        for (std::int64_t j = 0; j < e[1]; ++j)
          for (std::int64_t k = 0; k < e[2]; ++k) {
            const std::int64_t c[3] = {i, j, k};
            const std::int64_t at = (i * e[1] + j) * e[2] + k;
            sums[at] = c[axis] + length < e[axis] ? sums[at + length * stride] : 0.0f;
          }
    }
    return winner;
  } catch (const std::bad_alloc&) {
    return core::makeError(core::ErrorCode::OutOfMemory, "vista3d", "out of memory taking the winning classes");
  }
}

core::Result<StreamResult> slidingWindowWinners(const core::ImageVolume& image, int channels, SlabAccumulator& accumulator,
                                                const StreamOptions& options, core::ProgressSink* progress) {
  const auto n = image.geometry().dimensions();
  const std::int64_t roi = options.roi;
  if (channels < 1 || channels > 254)
    return core::makeError(core::ErrorCode::InvalidArgument, "vista3d", "1 to 254 classes per run");
  if (roi < 1 || n[0] < 1 || options.batch < 1)
    return core::makeError(core::ErrorCode::InvalidArgument, "vista3d", "nothing to infer");
  try {
    std::int64_t p[3], before[3];
    const std::vector<float> padded = replicatePadded(image, roi, p, before);
    std::vector<std::int64_t> starts[3];
    for (int a = 0; a < 3; ++a) starts[a] = windowStarts(p[a], roi, options.overlap);
    // The slab runs along the longest axis (the first of equals: axis 0 keeps the bundle's visiting order).
    int s = 0;
    for (int a = 1; a < 3; ++a)
      if (p[a] > p[s]) s = a;
    const int o1 = s == 0 ? 1 : 0, o2 = s == 2 ? 1 : 2;
    std::int64_t extent[3] = {p[0], p[1], p[2]};
    extent[s] = roi;
    if (core::Status st = accumulator.reset(channels, extent); !st) return st.error();

    StreamResult result;
    result.slabAxis = s;
    result.batch = options.batch;
    result.accumulatorBytes = accumulator.bytes();
    result.winners.assign(static_cast<std::size_t>(n[0] * n[1] * n[2]), 0);
    const auto cube = static_cast<std::size_t>(roi * roi * roi);
    const std::size_t total = starts[0].size() * starts[1].size() * starts[2].size();
    std::vector<float> windows;
    for (std::size_t t = 0; t < starts[s].size(); ++t) {
      const std::int64_t base = starts[s][t];
      std::vector<std::array<std::int64_t, 3>> row;  // this slab's windows, in C order
      for (const auto b : starts[o1])
        for (const auto c : starts[o2]) {
          std::array<std::int64_t, 3> w{};
          w[static_cast<std::size_t>(s)] = base;
          w[static_cast<std::size_t>(o1)] = b;
          w[static_cast<std::size_t>(o2)] = c;
          row.push_back(w);
        }
      for (std::size_t i = 0; i < row.size();) {
        if (progress && progress->cancelled()) return core::makeError(core::ErrorCode::Cancelled, "vista3d", "cancelled");
        const auto count = static_cast<int>(std::min<std::size_t>(static_cast<std::size_t>(result.batch), row.size() - i));
        windows.resize(static_cast<std::size_t>(count) * cube);
        std::vector<std::int64_t> origins;
        for (int w = 0; w < count; ++w) {
          copyWindow(padded, p, row[i + static_cast<std::size_t>(w)].data(), roi, windows, static_cast<std::size_t>(w) * cube);
          for (int a = 0; a < 3; ++a)
            origins.push_back(row[i + static_cast<std::size_t>(w)][static_cast<std::size_t>(a)] - (a == s ? base : 0));
        }
        core::Status added = accumulator.addWindows(windows, count, roi, origins);
        if (!added && added.error().code == core::ErrorCode::OutOfMemory && result.batch > 1) {
          result.batch = std::max(1, result.batch / 2);  // the same windows again, fewer at a time
          continue;
        }
        if (!added) return added.error();
        i += static_cast<std::size_t>(count);
        result.windows += static_cast<std::size_t>(count);
        if (progress) progress->report(static_cast<double>(result.windows) / static_cast<double>(total), "infer");
      }
      // Planes [base, next) are final: no later window reaches them.
      const std::int64_t next = t + 1 < starts[s].size() ? starts[s][t + 1] : p[s];
      auto winners = accumulator.takeWinners(s, next - base);
      if (!winners) return winners.error();
      std::int64_t part[3] = {extent[0], extent[1], extent[2]};
      part[s] = next - base;
      std::size_t v = 0;
      for (std::int64_t i = 0; i < part[0]; ++i)
        for (std::int64_t j = 0; j < part[1]; ++j)
          for (std::int64_t k = 0; k < part[2]; ++k, ++v) {
            std::int64_t q[3] = {i, j, k};
            q[s] += base;
            const std::int64_t x = q[0] - before[0], y = q[1] - before[1], z = q[2] - before[2];
            if (x < 0 || y < 0 || z < 0 || x >= n[0] || y >= n[1] || z >= n[2]) continue;
            result.winners[static_cast<std::size_t>((z * n[1] + y) * n[0] + x)] = (*winners)[v];
          }
    }
    return result;
  } catch (const std::bad_alloc&) {
    return core::makeError(core::ErrorCode::OutOfMemory, "vista3d", "out of memory stitching the windows");
  }
}

}  // namespace delineate::inference::vista3d
