// VISTA-3D speed on this machine, beside the VISTA-3D NIM's published A100 figures (issue 6). Needs only core and
// inference (so it builds where LibTorch is the only third-party library, such as the GPU machine).
//
// Measured, with random weights of the given width (48 = the official network):
//   - one window, automatic branch (encoder + auto decoder + class head), for 1 class and for 117 classes;
//   - one window, click (encoder + both decoders + point head + class head, the bundle's click-with-class path);
//   - preprocessing and postprocessing of a synthetic CT-like volume at 1 mm of each size, and the sliding-window
//     count for it; end-to-end seconds are measured by running every window when --full is given, else estimated
//     as windows x the measured window time (printed as an estimate).
//
// Usage: bench_vista3d [--width 48] [--roi 128] [--threads N] [--sizes 256x256x256,...] [--full]

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "inference/vista3d/network.h"
#include "inference/vista3d/postprocess.h"
#include "inference/vista3d/preprocess.h"
#include "inference/vista3d/sliding_window.h"

using namespace delineate;
using namespace delineate::inference::vista3d;

namespace {

[[noreturn]] void die(const std::string& m) {
  std::fprintf(stderr, "bench_vista3d: %s\n", m.c_str());
  std::exit(1);
}

double seconds(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// A CT-like volume at 1 mm: air around an elliptic body of soft tissue with noise, a fatty rim and a spine.
core::ImageVolume syntheticCt(const core::Size3& n) {
  const core::Geometry g(n, {1, 1, 1}, {0, 0, 0});
  auto v = core::ImageVolume::create(g, -1000.0f).value();
  std::mt19937 rng(5);
  std::normal_distribution<float> noise(0, 15);
  const double nx = static_cast<double>(n[0]), ny = static_cast<double>(n[1]);
  for (std::int64_t z = 0; z < n[2]; ++z)
    for (std::int64_t y = 0; y < n[1]; ++y)
      for (std::int64_t x = 0; x < n[0]; ++x) {
        const double dx = (double(x) - nx / 2.0) / (0.45 * nx), dy = (double(y) - ny / 2.0) / (0.35 * ny);
        const double r = std::sqrt(dx * dx + dy * dy);
        float hu = -1000;
        if (r < 1) hu = r > 0.9 ? -100.0f : 40.0f;
        if (std::hypot(double(x) - nx / 2.0, double(y) - 0.7 * ny) < 0.06 * nx) hu = 700;
        v.at({x, y, z}) = hu + (r < 1 ? noise(rng) : 0.0f);
      }
  return v;
}

core::Size3 parseSize(const std::string& s) {
  core::Size3 n{};
  if (std::sscanf(s.c_str(), "%ldx%ldx%ld", &n[0], &n[1], &n[2]) != 3) die("bad size " + s);
  return n;
}

}  // namespace

int main(int argc, char** argv) {
  int width = 48, threads = 0;
  std::int64_t roi = 128;
  bool full = false;
  std::vector<core::Size3> sizes = {{256, 256, 256}, {256, 256, 512}, {512, 512, 512}, {512, 512, 768}};
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string { if (i + 1 >= argc) die(a + " needs a value"); return argv[++i]; };
    if (a == "--width") width = std::atoi(next().c_str());
    else if (a == "--roi") roi = std::atoll(next().c_str());
    else if (a == "--threads") threads = std::atoi(next().c_str());
    else if (a == "--full") full = true;
    else if (a == "--sizes") {
      sizes.clear();
      std::string list = next();
      for (std::size_t p = 0; p <= list.size();) {
        const auto c = list.find(',', p);
        sizes.push_back(parseSize(list.substr(p, c == std::string::npos ? std::string::npos : c - p)));
        if (c == std::string::npos) break;
        p = c + 1;
      }
    } else die("unknown option " + a);
  }
  if (!torchAvailable()) die("this build has no LibTorch");
  Vista3dModel::setCpuThreads(threads);
  auto model = Vista3dModel::random(width, 1234);
  if (!model) die(model.error().describe());
  std::printf("VISTA-3D width %d, window %ld^3, device cpu, fp32\n", width, static_cast<long>(roi));

  // One window.
  std::vector<float> window(static_cast<std::size_t>(roi * roi * roi));
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(0, 1);
  for (auto& v : window) v = u(rng);
  const std::int64_t roiSize[3] = {roi, roi, roi};
  std::vector<std::int64_t> everything;
  for (std::int64_t c = 1; c <= 117; ++c) everything.push_back(c);
  auto t0 = std::chrono::steady_clock::now();
  if (auto r = (*model)->classLogits(window, roiSize, {1}); !r) die(r.error().describe());
  const double autoOne = seconds(t0);
  t0 = std::chrono::steady_clock::now();
  if (auto r = (*model)->classLogits(window, roiSize, everything); !r) die(r.error().describe());
  const double autoAll = seconds(t0);
  const std::vector<Vista3dModel::WindowPoint> click{{{double(roi) / 2, double(roi) / 2, double(roi) / 2}, 1}};
  t0 = std::chrono::steady_clock::now();
  if (auto r = (*model)->bothLogits(window, roiSize, click, 3); !r) die(r.error().describe());
  const double clickSeconds = seconds(t0);
  std::printf("one window: auto 1 class %.2f s, auto 117 classes %.2f s, click with class (both heads) %.2f s\n",
              autoOne, autoAll, clickSeconds);

  // Volumes: the NIM's A100 figures for these sizes (everything, end to end) beside ours.
  const double nim[4] = {2.07, 4.99, 14.88, 19.15};
  const core::Size3 nimSizes[4] = {{256, 256, 256}, {256, 256, 512}, {512, 512, 512}, {512, 512, 768}};
  std::printf("\n%-14s %8s %8s %9s %8s %12s %12s\n", "volume", "pre s", "post s", "windows", "grid", "ours s", "NIM A100 s");
  for (const auto& n : sizes) {
    const auto ct = syntheticCt(n);
    t0 = std::chrono::steady_clock::now();
    auto in = preprocessForVista3d(ct);
    if (!in) die(in.error().describe());
    const double pre = seconds(t0);
    const auto md = in->image.geometry().dimensions();
    std::size_t windows = 1;
    for (std::size_t a = 0; a < 3; ++a) windows *= windowStarts(std::max(md[a], roi), roi, 0.25).size();
    double infer = 0;
    std::vector<float> logits;
    if (full) {
      t0 = std::chrono::steady_clock::now();
      const WindowFn fn = [&](const std::vector<float>& w, const std::int64_t r[3]) { return (*model)->classLogits(w, r, everything); };
      SlidingWindowOptions options;
      options.roi = roi;
      auto l = slidingWindowLogits(in->image, static_cast<int>(everything.size()), fn, options);
      if (!l) die(l.error().describe());
      logits = std::move(l).value();
      infer = seconds(t0);
    } else {
      infer = static_cast<double>(windows) * autoAll;
      logits.assign(static_cast<std::size_t>(md[0] * md[1] * md[2]) * 2, -1.0f);  // postprocessing cost of 2 classes
    }
    const int channels = full ? static_cast<int>(everything.size()) : 2;
    std::vector<int> prompt;
    for (int c = 1; c <= channels; ++c) prompt.push_back(c);
    t0 = std::chrono::steady_clock::now();
    auto labels = vistaPostTransform(logits, channels, md, prompt, {});
    if (!labels) die(labels.error().describe());
    auto back = invertToOriginal(*labels, in->grid, ct.geometry());
    if (!back) die(back.error().describe());
    const double post = seconds(t0);
    double peer = 0;
    for (int k = 0; k < 4; ++k)
      if (nimSizes[k] == n) peer = nim[k];
    char grid[32], name[32];
    std::snprintf(grid, sizeof grid, "%ldx%ldx%ld", static_cast<long>(md[0]), static_cast<long>(md[1]), static_cast<long>(md[2]));
    std::snprintf(name, sizeof name, "%ldx%ldx%ld", static_cast<long>(n[0]), static_cast<long>(n[1]), static_cast<long>(n[2]));
    std::printf("%-14s %8.2f %8.2f %9zu %8s %11.1f%s %12.2f\n", name, pre, post, windows, grid, pre + infer + post,
                full ? " " : "*", peer);
  }
  if (!full)
    std::printf("* estimated: windows x the measured 117-class window time, and post s measured on 2 classes (run with "
                "--full to measure everything)\n");
  return 0;
}
