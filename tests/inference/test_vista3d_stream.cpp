// The streaming sliding window (slab sums, winners only) against the plain one (every logit kept, then the bundle's
// postprocessing), with a stand-in network whose logits depend on the window's content and on the place inside the
// window, so that every overlap and every slab hand-over shows.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>

#include "inference/vista3d/postprocess.h"
#include "inference/vista3d/sliding_window.h"

using namespace delineate;
using namespace delineate::inference::vista3d;

namespace {

core::ImageVolume randomImage(core::Size3 dims, unsigned seed) {
  auto image = core::ImageVolume::create(core::Geometry(dims, {1.5, 1.5, 1.5}, {0, 0, 0}), 0.0f);
  REQUIRE(image.ok());
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  for (std::size_t i = 0; i < image->size(); ++i) (*image)[i] = u(rng);
  return std::move(image).value();
}

// Channel c at window voxel (i, j, k): a smooth function of the value there and of the place in the window, with
// signs of both kinds.
float fakeLogit(float value, int c, std::int64_t i, std::int64_t j, std::int64_t k, std::int64_t roi) {
  const double place = std::sin(0.37 * double(i + 2 * j) + 0.11 * double(k) * double(c + 1)) / double(roi);
  return static_cast<float>(std::sin(7.0 * value * (c + 1) + c) + 8.0 * place - 0.2);
}

std::vector<float> fakeNetwork(const float* window, int channels, std::int64_t roi) {
  std::vector<float> out(static_cast<std::size_t>(channels * roi * roi * roi));
  std::size_t o = 0;
  for (int c = 0; c < channels; ++c)
    for (std::int64_t i = 0; i < roi; ++i)
      for (std::int64_t j = 0; j < roi; ++j)
        for (std::int64_t k = 0; k < roi; ++k, ++o)
          out[o] = fakeLogit(window[(i * roi + j) * roi + k], c, i, j, k, roi);
  return out;
}

BatchWindowFn batchOf(int channels, int* largestBatch = nullptr, int failAbove = 1 << 30) {
  return [=](const std::vector<float>& windows, int count, std::int64_t roi) -> core::Result<std::vector<float>> {
    if (count > failAbove) return core::makeError(core::ErrorCode::OutOfMemory, "fake", "out of memory");
    if (largestBatch) *largestBatch = std::max(*largestBatch, count);
    std::vector<float> out;
    const auto cube = static_cast<std::size_t>(roi * roi * roi);
    for (int w = 0; w < count; ++w) {
      const auto one = fakeNetwork(windows.data() + static_cast<std::size_t>(w) * cube, channels, roi);
      out.insert(out.end(), one.begin(), one.end());
    }
    return out;
  };
}

// The bundle's way: every logit averaged over the whole grid, then argmax + 1 (0 where none is positive).
std::vector<float> plainLabels(const core::ImageVolume& image, int channels, std::int64_t roi) {
  const WindowFn one = [&](const std::vector<float>& window, const std::int64_t r[3]) -> core::Result<std::vector<float>> {
    return fakeNetwork(window.data(), channels, r[0]);
  };
  SlidingWindowOptions options;
  options.roi = roi;
  auto logits = slidingWindowLogits(image, channels, one, options);
  REQUIRE(logits.ok());
  auto labels = vistaPostTransform(*logits, channels, image.geometry().dimensions(), {}, {});
  REQUIRE(labels.ok());
  return std::move(labels).value();
}

}  // namespace

TEST_CASE("vista3d streaming sliding window: slab sums give the same labels as averaging every logit, on every slab "
          "axis and batch size", "[vista3d][stream]") {
  struct Case {
    core::Size3 dims;
    int channels;
    int slabAxis;
  };
  // Slabs along x, y and z (the longest padded axis), images smaller than a window on some axes (replicate padding
  // on both sides), one channel (threshold) and several (argmax).
  const Case cases[] = {{{70, 40, 33}, 3, 0}, {{40, 70, 50}, 4, 1}, {{20, 45, 81}, 1, 2}, {{32, 32, 32}, 5, 0}};
  const std::int64_t roi = 32;
  for (const auto& c : cases) {
    INFO("image " << c.dims[0] << "x" << c.dims[1] << "x" << c.dims[2] << ", " << c.channels << " channels");
    const auto image = randomImage(c.dims, 7u + static_cast<unsigned>(c.dims[0]));
    const auto expect = plainLabels(image, c.channels, roi);
    for (const int batch : {1, 3, 64}) {
      INFO("batch " << batch);
      int largest = 0;
      CpuSlabAccumulator sums(batchOf(c.channels, &largest));
      StreamOptions options;
      options.roi = roi;
      options.batch = batch;
      auto r = slidingWindowWinners(image, c.channels, sums, options);
      REQUIRE(r.ok());
      CHECK(r->slabAxis == c.slabAxis);
      CHECK(r->batch == batch);
      CHECK(largest <= batch);
      REQUIRE(r->winners.size() == expect.size());
      std::size_t differ = 0, positive = 0;
      for (std::size_t i = 0; i < expect.size(); ++i) {
        differ += float(r->winners[i]) != expect[i];
        positive += r->winners[i] > 0;
      }
      CHECK(differ == 0);
      CHECK(positive > expect.size() / 10);   // the stand-in network is not trivially negative
      CHECK(positive < expect.size());        // nor trivially positive
      // The slab spans one window along its axis: smaller than every logit on the grid once there are two slabs.
      std::int64_t p[3];
      for (int a = 0; a < 3; ++a) p[a] = std::max<std::int64_t>(c.dims[static_cast<std::size_t>(a)], roi);
      const auto full = static_cast<std::size_t>(c.channels * p[0] * p[1] * p[2]) * sizeof(float);
      CHECK(r->accumulatorBytes == full / static_cast<std::size_t>(p[c.slabAxis]) * static_cast<std::size_t>(roi));
    }
  }
}

TEST_CASE("vista3d streaming sliding window: out of memory halves the batch and retries the same windows, and is "
          "passed up at batch 1", "[vista3d][stream]") {
  const auto image = randomImage({40, 70, 50}, 3);
  const auto expect = plainLabels(image, 2, 32);
  StreamOptions options;
  options.roi = 32;
  options.batch = 8;
  {
    int largest = 0;
    CpuSlabAccumulator sums(batchOf(2, &largest, 3));  // more than 3 windows at once do not fit
    auto r = slidingWindowWinners(image, 2, sums, options);
    REQUIRE(r.ok());
    CHECK(r->batch == 2);  // 8 -> 4 -> 2
    CHECK(largest == 2);
    CHECK(r->windows == 2u * 3u * 2u);  // each window counted once, none lost or doubled by the retries
    std::size_t differ = 0;
    for (std::size_t i = 0; i < expect.size(); ++i) differ += float(r->winners[i]) != expect[i];
    CHECK(differ == 0);
  }
  {
    CpuSlabAccumulator sums(batchOf(2, nullptr, 0));  // not even one window fits
    auto r = slidingWindowWinners(image, 2, sums, options);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == core::ErrorCode::OutOfMemory);
  }
  {
    CpuSlabAccumulator sums(batchOf(2));
    CHECK_FALSE(slidingWindowWinners(image, 0, sums, options).ok());
    CHECK_FALSE(slidingWindowWinners(image, 255, sums, options).ok());
  }
}
