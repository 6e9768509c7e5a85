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
//   - the stitching's host memory for 117 classes on each volume: every logit kept (the bundle's way, then its
//     postprocessing) beside the streamed slab (ours), computed for every size and measured (peak RSS, with a
//     stand-in network so that no model time is spent) on the sizes given to --stitch-sizes;
//   - on CUDA (--device cuda): device memory in use, read from the driver after every window (the peak is printed).
//
// Usage: bench_vista3d [--width 48] [--roi 128] [--threads N] [--device cpu|cuda] [--precision fp32|fp16|bf16]
//                      [--batch N] [--sizes 256x256x256,...] [--stitch-sizes 256x256x256,...] [--full]

#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "inference/vista3d/network.h"
#include "inference/vista3d/postprocess.h"
#include "inference/vista3d/preprocess.h"
#include "inference/vista3d/segment.h"
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
        v.at({x, y, z}) = std::round(hu + (r < 1 ? noise(rng) : 0.0f));  // whole HU, as a CT stores them
      }
  return v;
}

// Peak resident memory of this process (VmHWM), and its reset (Linux: writing 5 to clear_refs).
std::size_t peakRssBytes() {
  std::ifstream f("/proc/self/status");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind("VmHWM:", 0) == 0) return static_cast<std::size_t>(std::atoll(line.c_str() + 6)) * 1024;
  return 0;
}
void resetPeakRss() { std::ofstream("/proc/self/clear_refs") << "5"; }

// Device memory in use from the CUDA driver (cuMemGetInfo on the context LibTorch made current), without CUDA
// headers: 0 where there is no driver or no context.
class DeviceMemory {
 public:
  DeviceMemory() {
    m_lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (m_lib) m_info = reinterpret_cast<int (*)(std::size_t*, std::size_t*)>(dlsym(m_lib, "cuMemGetInfo_v2"));
  }
  std::size_t used() const {
    std::size_t freeBytes = 0, total = 0;
    if (!m_info || m_info(&freeBytes, &total) != 0) return 0;
    return total - freeBytes;
  }

 private:
  void* m_lib = nullptr;
  int (*m_info)(std::size_t*, std::size_t*) = nullptr;
};

// Samples device memory whenever a window is reported.
class MemorySampler final : public core::ProgressSink {
 public:
  explicit MemorySampler(const DeviceMemory& memory) : m_memory(memory) {}
  void report(double, const std::string&) override { m_peak = std::max(m_peak, m_memory.used()); }
  bool cancelled() const override { return false; }
  std::size_t peak() const { return m_peak; }

 private:
  const DeviceMemory& m_memory;
  std::size_t m_peak = 0;
};

// A stand-in network for the stitching measurements: cheap logits, one per class, that vary with the window.
std::vector<float> standInLogits(const std::vector<float>& windows, int count, std::int64_t roi, int channels) {
  const auto cube = static_cast<std::size_t>(roi * roi * roi);
  std::vector<float> out(static_cast<std::size_t>(count) * static_cast<std::size_t>(channels) * cube);
  for (int w = 0; w < count; ++w)
    for (int c = 0; c < channels; ++c) {
      float* o = out.data() + (static_cast<std::size_t>(w) * static_cast<std::size_t>(channels) + static_cast<std::size_t>(c)) * cube;
      const float* in = windows.data() + static_cast<std::size_t>(w) * cube;
      const float k = static_cast<float>(c % 7) - 3.0f, b = -0.01f * static_cast<float>(c);
      for (std::size_t v = 0; v < cube; ++v) o[v] = k * in[v] + b;
    }
  return out;
}

core::Size3 parseSize(const std::string& s) {
  core::Size3 n{};
  if (std::sscanf(s.c_str(), "%ldx%ldx%ld", &n[0], &n[1], &n[2]) != 3) die("bad size " + s);
  return n;
}

}  // namespace

int main(int argc, char** argv) {
  int width = 48, threads = 0, batch = 0;
  std::int64_t roi = 128;
  bool full = false;
  std::string device = "cpu", precisionArg = "auto";
  std::vector<core::Size3> sizes = {{256, 256, 256}, {256, 256, 512}, {512, 512, 512}, {512, 512, 768}};
  std::vector<core::Size3> stitchSizes = {{256, 256, 256}};
  auto parseList = [](const std::string& list) {
    std::vector<core::Size3> out;
    for (std::size_t p = 0; p <= list.size();) {
      const auto c = list.find(',', p);
      out.push_back(parseSize(list.substr(p, c == std::string::npos ? std::string::npos : c - p)));
      if (c == std::string::npos) break;
      p = c + 1;
    }
    return out;
  };
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string { if (i + 1 >= argc) die(a + " needs a value"); return argv[++i]; };
    if (a == "--width") width = std::atoi(next().c_str());
    else if (a == "--roi") roi = std::atoll(next().c_str());
    else if (a == "--threads") threads = std::atoi(next().c_str());
    else if (a == "--batch") batch = std::atoi(next().c_str());
    else if (a == "--device") device = next();
    else if (a == "--precision") precisionArg = next();
    else if (a == "--full") full = true;
    else if (a == "--sizes") sizes = parseList(next());
    else if (a == "--stitch-sizes") {
      const std::string v = next();
      stitchSizes = v == "none" ? std::vector<core::Size3>{} : parseList(v);
    } else die("unknown option " + a);
  }
  if (!torchAvailable()) die("this build has no LibTorch");
  Vista3dModel::setCpuThreads(threads);
  auto model = Vista3dModel::random(width, 1234);
  if (!model) die(model.error().describe());
  const bool cuda = device.rfind("cuda", 0) == 0;
  Precision precision = cuda ? Precision::Float16 : Precision::Float32;
  if (precisionArg == "fp32") precision = Precision::Float32;
  else if (precisionArg == "fp16") precision = Precision::Float16;
  else if (precisionArg == "bf16") precision = Precision::BFloat16;
  else if (precisionArg != "auto") die("--precision takes auto, fp32, fp16 or bf16");
  if (core::Status st = (*model)->setDevice(device, precision); !st) die(st.error().describe());
  if (batch <= 0) batch = cuda ? 4 : 1;
  const DeviceMemory deviceMemory;
  std::printf("VISTA-3D width %d, window %ld^3, device %s, %s, batch %d, %d CPU threads\n", width, static_cast<long>(roi),
              (*model)->device().c_str(), inference::vista3d::precisionName(precision), batch, cpuThreads());

  // One window.
  std::vector<float> window(static_cast<std::size_t>(roi * roi * roi));
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(0, 1);
  for (auto& v : window) v = u(rng);
  const std::int64_t roiSize[3] = {roi, roi, roi};
  std::vector<std::int64_t> everything;
  for (std::int64_t c = 1; c <= 117; ++c) everything.push_back(c);
  if (cuda) {  // cuDNN autotuning and the allocator's first blocks are not a window's cost
    if (auto r = (*model)->classLogits(window, roiSize, everything); !r) die(r.error().describe());
    if (auto r = (*model)->bothLogits(window, roiSize, {{{double(roi) / 2, double(roi) / 2, double(roi) / 2}, 1}}, 3); !r)
      die(r.error().describe());
  }
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
  std::printf("\n%-14s %8s %9s %12s %12s %9s %12s %12s %10s\n", "volume", "pre s", "windows", "grid", "ours s", "batch",
              "GPU mem GB", "NIM A100 s", "int16 s");
  for (const auto& n : sizes) {
    const auto ct = syntheticCt(n);
    t0 = std::chrono::steady_clock::now();
    auto in = preprocessForVista3d(ct);
    if (!in) die(in.error().describe());
    const double pre = seconds(t0);
    const auto md = in->image.geometry().dimensions();
    std::size_t windows = 1;
    for (std::size_t a = 0; a < 3; ++a) windows *= windowStarts(std::max(md[a], roi), roi, 0.25).size();
    double total = 0;
    int usedBatch = batch;
    std::size_t gpuPeak = 0;
    double typedTotal = 0;
    bool typedSame = false;
    if (full) {
      // End to end as the engine runs it: preprocessing, streamed windows, winners, inversion (load excluded).
      MemorySampler sampler(deviceMemory);
      SegmentOptions options;
      options.roi = roi;
      options.batch = batch;
      SegmentDetails details;
      t0 = std::chrono::steady_clock::now();
      auto labels = segmentWithVista3d(**model, ct, {}, options, &sampler, &details);
      if (!labels) die(labels.error().describe());
      total = seconds(t0);
      usedBatch = details.batch;
      gpuPeak = sampler.peak();
      // The same CT stored as int16, as the window holds it (issue 27): read in that type, never copied to float32.
      auto ints = core::Volume<std::int16_t>::create(ct.geometry()).value();
      for (std::size_t i = 0; i < ints.size(); ++i) ints[i] = static_cast<std::int16_t>(ct[i]);
      t0 = std::chrono::steady_clock::now();
      auto fromInts = segmentWithVista3d(**model, ints, {}, options, nullptr, nullptr);
      if (!fromInts) die(fromInts.error().describe());
      typedTotal = seconds(t0);
      typedSame = fromInts->voxels().buffer() == labels->voxels().buffer();
    } else {
      total = pre + static_cast<double>(windows) * autoAll;
    }
    double peer = 0;
    for (int k = 0; k < 4; ++k)
      if (nimSizes[k] == n) peer = nim[k];
    char grid[32], name[32], mem[32];
    std::snprintf(grid, sizeof grid, "%ldx%ldx%ld", static_cast<long>(md[0]), static_cast<long>(md[1]), static_cast<long>(md[2]));
    std::snprintf(name, sizeof name, "%ldx%ldx%ld", static_cast<long>(n[0]), static_cast<long>(n[1]), static_cast<long>(n[2]));
    char nimText[32];
    std::snprintf(mem, sizeof mem, gpuPeak ? "%.1f" : "-", static_cast<double>(gpuPeak) / 1e9);
    std::snprintf(nimText, sizeof nimText, peer > 0 ? "%.2f" : "-", peer);
    std::printf("%-14s %8.2f %9zu %12s %11.1f%s %9d %12s %12s", name, pre, windows, grid, total, full ? " " : "*",
                usedBatch, mem, nimText);
    if (full) std::printf(" %10.1f%s", typedTotal, typedSame ? "" : " (labels differ from float32!)");
    if (peer > 0 && full) std::printf("   (NIM / ours = %.2fx)", peer / total);
    std::printf("\n");
  }
  if (!full)
    std::printf("* estimated: preprocessing + windows x the measured 117-class window time (run with --full to measure "
                "end to end)\n");

  // Stitching memory for the 117 "everything" classes: every logit kept (the bundle's averaged copy on the whole grid,
  // then its postprocessing's copy) beside our slab. Computed for each volume; measured with a stand-in network.
  const int channels = 117;
  std::printf("\nstitching memory, %d classes (host, float32)\n%-14s %14s %14s %8s\n", channels, "volume",
              "all logits GB", "slab GB", "ratio");
  for (const auto& n : sizes) {
    auto in = preprocessForVista3d(syntheticCt(n));
    if (!in) die(in.error().describe());
    const auto md = in->image.geometry().dimensions();
    std::int64_t p[3];
    for (int a = 0; a < 3; ++a) p[a] = std::max<std::int64_t>(md[static_cast<std::size_t>(a)], roi);
    const std::int64_t longest = std::max({p[0], p[1], p[2]});
    const double grid = static_cast<double>(p[0] * p[1] * p[2]), voxels = static_cast<double>(md[0] * md[1] * md[2]);
    // At the end of the plain sliding window: the sums and counts on the padded grid and the averaged crop.
    const double all = 4.0 * (channels * grid + grid + channels * voxels);
    const double slab = 4.0 * channels * grid / static_cast<double>(longest) * static_cast<double>(roi);
    char name[32];
    std::snprintf(name, sizeof name, "%ldx%ldx%ld", static_cast<long>(n[0]), static_cast<long>(n[1]), static_cast<long>(n[2]));
    std::printf("%-14s %14.2f %14.2f %7.1fx\n", name, all / 1e9, slab / 1e9, all / slab);
  }
  for (const auto& n : stitchSizes) {
    auto in = preprocessForVista3d(syntheticCt(n));
    if (!in) die(in.error().describe());
    std::vector<int> prompt;
    for (int c = 1; c <= channels; ++c) prompt.push_back(c);
    const std::size_t base = peakRssBytes();
    resetPeakRss();
    const std::size_t before = peakRssBytes();
    t0 = std::chrono::steady_clock::now();
    {
      const WindowFn fn = [&](const std::vector<float>& w, const std::int64_t r[3]) -> core::Result<std::vector<float>> {
        return standInLogits(w, 1, r[0], channels);
      };
      SlidingWindowOptions options;
      options.roi = roi;
      auto logits = slidingWindowLogits(in->image, channels, fn, options);
      if (!logits) die(logits.error().describe());
      auto labels = vistaPostTransform(*logits, channels, in->image.geometry().dimensions(), prompt, {});
      if (!labels) die(labels.error().describe());
    }
    const double plainSeconds = seconds(t0);
    const std::size_t plainPeak = peakRssBytes() - before;
    resetPeakRss();
    const std::size_t before2 = peakRssBytes();
    t0 = std::chrono::steady_clock::now();
    std::size_t slabBytes = 0;
    {
      CpuSlabAccumulator sums([&](const std::vector<float>& w, int count, std::int64_t r) -> core::Result<std::vector<float>> {
        return standInLogits(w, count, r, channels);
      });
      StreamOptions options;
      options.roi = roi;
      auto winners = slidingWindowWinners(in->image, channels, sums, options);
      if (!winners) die(winners.error().describe());
      slabBytes = winners->accumulatorBytes;
    }
    const double streamSeconds = seconds(t0);
    const std::size_t streamPeak = peakRssBytes() - before2;
    char name[32];
    std::snprintf(name, sizeof name, "%ldx%ldx%ld", static_cast<long>(n[0]), static_cast<long>(n[1]), static_cast<long>(n[2]));
    std::printf("measured %s (stand-in network, peak RSS above the %.2f GB before): all logits %.2f GB in %.1f s, "
                "slab %.2f GB (sums %.2f GB) in %.1f s: %.1fx less memory\n",
                name, static_cast<double>(base) / 1e9, static_cast<double>(plainPeak) / 1e9, plainSeconds,
                static_cast<double>(streamPeak) / 1e9, static_cast<double>(slabBytes) / 1e9, streamSeconds,
                static_cast<double>(plainPeak) / static_cast<double>(std::max<std::size_t>(1, streamPeak)));
  }
  return 0;
}
