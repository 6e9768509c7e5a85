// Signals during LibTorch's passes. The window's Stop sends SIGTERM to delineate-train, whose handler sets a flag; a
// handled signal that lands on a thread inside LibTorch's CPU kernels (oneDNN) corrupted the heap, and the run crashed
// instead of saving (CI, the Training dock test, about one Stop in twenty). Here a handler that does nothing is hit
// every half millisecond on the very thread that trains: without inference's SignalHold this crashed within a few
// hundred signals; with it every step and window is computed, and the signals are handled between the passes.
#include <catch2/catch.hpp>

#include <pthread.h>
#include <signal.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <random>
#include <thread>

#include "inference/training/trainable.h"
#include "tests/common/test_support.h"

using namespace delineate::inference::training;

namespace {

std::atomic<int> g_handled{0};
void onTestSignal(int) { g_handled.fetch_add(1); }

}  // namespace

TEST_CASE("training: signals sent to the training thread during its steps and windows are handled between passes, "
          "never inside LibTorch's kernels",
          "[training][signals]") {
  if (!trainingAvailable()) {
    if (delineate::test::runningInCi()) FAIL("this build has no LibTorch; scripts/setup.sh installs libtorch-dev");
    WARN("no LibTorch in this build: skipped");
    return;
  }
  SegResNetDSConfig config;
  config.initFilters = 4;
  config.outChannels = 4;
  config.dsdepth = 3;
  auto model = TrainableModel::segResNetDS(config, nullptr, 7);
  REQUIRE(model.ok());
  (*model)->setOptimizer(OptimizerSettings{});
  const std::int64_t size[3] = {32, 32, 32};
  const std::size_t voxels = 32 * 32 * 32;
  std::mt19937 rng(3);
  std::normal_distribution<float> noise(0.0f, 1.0f);
  std::vector<float> image(voxels);
  std::vector<std::uint16_t> labels(voxels);
  for (std::size_t i = 0; i < voxels; ++i) {
    labels[i] = static_cast<std::uint16_t>((i / 1024) % 4);  // slabs along the first axis
    image[i] = static_cast<float>(labels[i]) + 0.3f * noise(rng);
  }

  struct sigaction action {}, previous{};
  action.sa_handler = onTestSignal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  REQUIRE(sigaction(SIGUSR2, &action, &previous) == 0);
  g_handled = 0;
  std::atomic<bool> stop{false};
  std::atomic<int> sent{0};
  const pthread_t trainer = pthread_self();
  std::thread storm([&] {
    while (!stop.load()) {
      if (pthread_kill(trainer, SIGUSR2) == 0) sent.fetch_add(1);
      std::this_thread::sleep_for(std::chrono::microseconds(500));
    }
  });
  int steps = 0, windows = 0;
  bool allFinite = true;
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(4);
  while (std::chrono::steady_clock::now() < until || steps < 10) {
    auto step = (*model)->stepSegResNetDS(image, 1, size, labels);
    if (!step.ok()) break;
    allFinite = allFinite && std::isfinite(step->loss);
    ++steps;
    if (steps % 4 == 0) {
      auto logits = (*model)->evalLogits(image, size);
      if (!logits.ok() || logits->size() != 4 * voxels) break;
      ++windows;
    }
  }
  stop = true;
  storm.join();
  sigaction(SIGUSR2, &previous, nullptr);
  INFO(steps << " steps, " << windows << " windows, " << sent.load() << " signals sent, " << g_handled.load() << " handled");
  CHECK(steps >= 10);
  CHECK(windows >= steps / 4);
  CHECK(allFinite);
  CHECK(sent.load() > 1000);
  CHECK(g_handled.load() >= steps / 2);  // delivered between the passes, not lost
}
