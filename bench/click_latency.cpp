// Per-click latency and memory of the classic engine's click sessions on a full-size CT, beside a peer.
//
// The CT: a DICOM series folder (scripts/bench_click.sh builds a 512x512x300 one from the shared TCIA series with
// bench_make_ct_series) or any volume file. The objects clicked: the bone pieces and lungs the classic automatic
// segmentation finds (the largest --objects of them); the clicks: the simulated-click protocol (first click deepest
// in the object, then deepest in the largest error), --clicks per object. Figures: p50/p95/max per click (and the
// slowest clicks), memory (below), undo time, and the process's peak RSS before and after clicking.
//
// Peer (built with -DDELINEATE_PEER_BENCH=ON): ITK's ConfidenceConnectedImageFilter, the region growing that
// ITK-SNAP- and Slicer-style tools run over the whole image, seeded with the same positive clicks (multiplier 2.5,
// 2 iterations, radius 2), timed per click.
//
// Memory: this program replaces the global operator new/delete with counting ones, so a click's working memory (the
// most bytes the session held beyond what was live when addPoint began) and what a session retains after its clicks
// (its per-click undo objects, working grid and caches) are measured apart from the automatic segmentation and the
// evaluator.
//
// --store ORDER rewrites the image in another storage order before clicking (each voxel keeps its LPS position):
// ORDER names the stored axes as reordered ones, e.g. -i+j+k (i reversed: LPS stored as RAS-like LAS) or +j+i+k
// (i and j swapped). The engine then runs on its canonical order, reordering each region it reads; this measures
// what that costs beside an image already stored in that order.
//
// --prompts box|scribble: the challenge protocol (a box on the object's largest axial slice, then --clicks clicks) or
// strokes instead of clicks (inference/click_evaluator.h); every prompt is timed as a click is.
//
// Usage: bench_click_latency SERIES_DIR|IMAGE [--clicks N] [--objects N] [--store ORDER] [--prompts clicks|box|scribble]

#include <malloc.h>
#include <sys/resource.h>

#include <atomic>
#include <new>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "inference/classic/auto_segmenter.h"
#include "inference/classic/click_session.h"
#include "core/axis_order.h"
#include "core/morphology.h"
#include "inference/click_evaluator.h"
#include "io/dicom/dicom.h"
#include "io/volume/image_file.h"

#ifdef DELINEATE_WITH_ITK
#include <itkConfidenceConnectedImageFilter.h>
#include <itkImage.h>
#include <itkImportImageFilter.h>
#endif

using namespace delineate;

namespace {
std::atomic<std::int64_t> g_liveBytes{0};
std::atomic<std::int64_t> g_peakBytes{0};

void* countedAlloc(std::size_t n) {
  void* p = std::malloc(n ? n : 1);
  if (!p) throw std::bad_alloc();
  const auto now = g_liveBytes.fetch_add(static_cast<std::int64_t>(malloc_usable_size(p))) +
                   static_cast<std::int64_t>(malloc_usable_size(p));
  std::int64_t peak = g_peakBytes.load();
  while (now > peak && !g_peakBytes.compare_exchange_weak(peak, now)) {
  }
  return p;
}
void countedFree(void* p) noexcept {
  if (!p) return;
  g_liveBytes.fetch_sub(static_cast<std::int64_t>(malloc_usable_size(p)));
  std::free(p);
}
}  // namespace

void* operator new(std::size_t n) { return countedAlloc(n); }
void* operator new[](std::size_t n) { return countedAlloc(n); }
void operator delete(void* p) noexcept { countedFree(p); }
void operator delete[](void* p) noexcept { countedFree(p); }
void operator delete(void* p, std::size_t) noexcept { countedFree(p); }
void operator delete[](void* p, std::size_t) noexcept { countedFree(p); }

namespace {

// Forwards to a session and records, per click, the most bytes allocated during addPoint beyond those live when it
// began.
class MeasuredSession final : public inference::InteractiveSession {
 public:
  explicit MeasuredSession(inference::InteractiveSession& s) : m_s(s) {}
  core::Status addPrompt(const inference::Prompt& p, core::ProgressSink* progress) override {
    const std::int64_t base = g_liveBytes.load();
    g_peakBytes.store(base);
    core::Status st = m_s.addPrompt(p, progress);
    workingBytes.push_back(static_cast<double>(g_peakBytes.load() - base));
    return st;
  }
  bool undoPrompt() override { return m_s.undoPrompt(); }
  const std::vector<inference::Prompt>& prompts() const override { return m_s.prompts(); }
  const inference::ObjectMask& mask() const override { return m_s.mask(); }
  std::vector<double> workingBytes;

 private:
  inference::InteractiveSession& m_s;
};

[[noreturn]] void die(const std::string& m) {
  std::fprintf(stderr, "bench_click_latency: %s\n", m.c_str());
  std::exit(1);
}

double peakRssMb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;
}

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<std::size_t>(p * static_cast<double>(v.size() - 1) + 0.5))];
}

core::ImageVolume load(const std::string& path) {
  if (std::filesystem::is_directory(path)) {
    auto index = io::indexDicomFolder(path);
    if (!index) die(index.error().describe());
    for (const auto* s : index->allSeries())
      if (s->isImage) {
        auto loaded = io::loadDicomSeries(*s);
        if (!loaded) die(loaded.error().describe());
        return std::move(loaded->image);
      }
    die(path + ": no image series");
  }
  auto image = io::readImageFile(path);
  if (!image) die(image.error().describe());
  return std::move(image).value();
}

#ifdef DELINEATE_WITH_ITK
using ItkImage = itk::Image<float, 3>;
ItkImage::Pointer toItk(const core::ImageVolume& image) {
  auto img = ItkImage::New();
  const auto d = image.geometry().dimensions();
  ItkImage::RegionType region;
  region.SetSize({{static_cast<itk::SizeValueType>(d[0]), static_cast<itk::SizeValueType>(d[1]),
                   static_cast<itk::SizeValueType>(d[2])}});
  img->SetRegions(region);
  const auto sp = image.geometry().spacingMm();
  const double spacing[3] = {sp[0], sp[1], sp[2]};
  img->SetSpacing(spacing);
  img->Allocate();
  std::copy(image.data(), image.data() + image.size(), img->GetBufferPointer());
  return img;
}

double peerClickMs(const ItkImage::Pointer& img, const std::vector<core::Index3>& positives) {
  using Filter = itk::ConfidenceConnectedImageFilter<ItkImage, itk::Image<unsigned char, 3>>;
  auto f = Filter::New();
  f->SetInput(img);
  f->SetMultiplier(2.5);
  f->SetNumberOfIterations(2);
  f->SetInitialNeighborhoodRadius(2);
  f->SetReplaceValue(1);
  for (const auto& p : positives) f->AddSeed({{p[0], p[1], p[2]}});
  const auto t0 = std::chrono::steady_clock::now();
  f->Update();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}
#endif

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: bench_click_latency SERIES_DIR|IMAGE [--clicks N] [--objects N]\n");
    return 2;
  }
  int clicks = 10, objects = 8;
  std::string store, prompts = "clicks";
  for (int i = 2; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--clicks") clicks = std::atoi(argv[i + 1]);
    else if (a == "--objects") objects = std::atoi(argv[i + 1]);
    else if (a == "--store") store = argv[i + 1];
    else if (a == "--prompts") prompts = argv[i + 1];
    else die("unknown option " + a);
  }
  core::ImageVolume image = load(argv[1]);
  if (!store.empty()) {
    core::AxisOrder order;
    std::array<bool, 3> used{false, false, false};
    if (store.size() != 6) die("--store wants three signed axes such as -i+j+k");
    for (std::size_t a = 0; a < 3; ++a) {
      const char sign = store[2 * a], axis = store[2 * a + 1];
      if ((sign != '+' && sign != '-') || axis < 'i' || axis > 'k' || used[static_cast<std::size_t>(axis - 'i')])
        die("--store wants three signed axes such as -i+j+k");
      used[static_cast<std::size_t>(axis - 'i')] = true;
      order.axis[a] = axis - 'i';
      order.flip[a] = sign == '-';
    }
    auto stored = core::reorderedVolume(image, order);
    if (!stored) die(stored.error().describe());
    image = std::move(stored).value();
    std::printf("stored as %s\n", store.c_str());
  }
  const auto& g = image.geometry();
  const auto d = g.dimensions();
  const auto sp = g.spacingMm();
  std::printf("image: %lld x %lld x %lld, %.3f x %.3f x %.3f mm (%s)\n", static_cast<long long>(d[0]),
              static_cast<long long>(d[1]), static_cast<long long>(d[2]), sp[0], sp[1], sp[2], argv[1]);

  // Objects: pieces of the automatic segmentation's bone and lungs.
  auto t0 = std::chrono::steady_clock::now();
  auto seg = inference::classic::segmentAutomatically(image, {}, nullptr);
  if (!seg) die(seg.error().describe());
  std::printf("automatic segmentation (body, lungs, airways, bone): %.2f s\n",
              std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  struct Object {
    std::string name;
    core::Volume<std::uint8_t> mask;
    std::int64_t voxels;
  };
  std::vector<Object> list;
  for (const core::Label l : {inference::classic::kBoneLabel, inference::classic::kLeftLungLabel, inference::classic::kRightLungLabel}) {
    core::Mask m(seg->voxels.size());
    for (std::size_t i = 0; i < m.size(); ++i) m[i] = seg->voxels[i] == l ? 1 : 0;
    const auto c = core::connectedComponents(m, d);
    for (std::size_t k = 0; k < c.size.size(); ++k) {
      if (static_cast<double>(c.size[k]) * sp[0] * sp[1] * sp[2] < 5000) continue;  // under 5 mL
      Object o{l == inference::classic::kBoneLabel ? "bone piece" : "lung", core::Volume<std::uint8_t>::create(g, 0).value(), c.size[k]};
      for (std::size_t i = 0; i < m.size(); ++i) o.mask[i] = c.id[i] == static_cast<std::int32_t>(k) ? 1 : 0;
      list.push_back(std::move(o));
    }
  }
  std::sort(list.begin(), list.end(), [](const Object& a, const Object& b) { return a.voxels > b.voxels; });
  if (static_cast<int>(list.size()) > objects) list.resize(static_cast<std::size_t>(objects));
  if (list.empty()) die("no bone or lung piece of 5 mL or more to click on");

#ifdef DELINEATE_WITH_ITK
  const auto itkImage = toItk(image);
#endif
  const double rssBefore = peakRssMb();
  std::vector<double> ours, peer;
  double retainedMb = 0;
  std::vector<double> undoMs;
  struct Slow {
    std::string name;
    int click;
    double ms;
  };
  std::vector<Slow> slowest;
  std::vector<double> workingMb;
  std::printf("\n%-12s %10s %8s %9s %9s %9s\n", "object", "voxels", "clicks", "dice@1", "dice@5", "dice@last");
  for (const auto& o : list) {
    const std::int64_t liveBefore = g_liveBytes.load();
    auto session = inference::classic::ClickSession::begin(image);
    if (!session) die(session.error().describe());
    MeasuredSession measured(**session);
    inference::ClickProtocol protocol;
    if (prompts == "box") protocol.prompts = inference::PromptProtocol::Box;
    else if (prompts == "scribble") protocol.prompts = inference::PromptProtocol::Scribble;
    else if (prompts != "clicks") die("--prompts is clicks, box or scribble");
    auto eval = inference::simulateClicks(measured, o.mask, clicks, nullptr, protocol);
    if (!eval) die(eval.error().describe());
    for (double b : measured.workingBytes) workingMb.push_back(b / 1e6);
    // The evaluator's own buffers are gone once it returns (its click records are a few hundred bytes); what is
    // live beyond liveBefore is the session's.
    retainedMb = std::max(retainedMb, static_cast<double>(g_liveBytes.load() - liveBefore) / 1e6);
    // Undo every click (each unpacks the object before it).
    for (;;) {
      const auto u0 = std::chrono::steady_clock::now();
      if (!(*session)->undoPrompt()) break;
      undoMs.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - u0).count());
    }
    std::vector<core::Index3> positives;
    for (const auto& c : eval->clicks) {
      ours.push_back(c.latencyMs);
      slowest.push_back({o.name, static_cast<int>(&c - eval->clicks.data()) + 1, c.latencyMs});
#ifdef DELINEATE_WITH_ITK
      if (c.point.positive) positives.push_back(c.voxel);
      if (!positives.empty()) peer.push_back(peerClickMs(itkImage, positives));
#endif
    }
    const auto& cl = eval->clicks;
    std::printf("%-12s %10lld %8zu %9.3f %9.3f %9.3f\n", o.name.c_str(), static_cast<long long>(o.voxels), cl.size(),
                cl.empty() ? 0.0 : cl[0].dice, cl.size() >= 5 ? cl[4].dice : (cl.empty() ? 0.0 : cl.back().dice),
                cl.empty() ? 0.0 : cl.back().dice);
  }
  std::sort(slowest.begin(), slowest.end(), [](const Slow& a, const Slow& b) { return a.ms > b.ms; });
  std::printf("\nper prompt (%zu, %s)   p50 ms   p95 ms   max ms\n", ours.size(), prompts.c_str());
  std::printf("classic click session     %8.1f %8.1f %8.1f\n", percentile(ours, 0.5), percentile(ours, 0.95),
              percentile(ours, 1.0));
  for (std::size_t i = 0; i < slowest.size() && i < 3; ++i)
    std::printf("  slow: %s click %d of %d: %.1f ms\n", slowest[i].name.c_str(), slowest[i].click, clicks, slowest[i].ms);
  if (!peer.empty())
    std::printf("ITK ConfidenceConnected   %8.1f %8.1f %8.1f   (peer / ours at p50: %.2fx)\n", percentile(peer, 0.5),
                percentile(peer, 0.95), percentile(peer, 1.0), percentile(peer, 0.5) / percentile(ours, 0.5));
  else
    std::printf("(peer: build with -DDELINEATE_PEER_BENCH=ON for ITK's ConfidenceConnected beside it)\n");
  // The high-water mark before clicking is the automatic segmentation's; a session's working memory shows only
  // where it goes beyond that.
  std::printf("memory: image %.0f MB; per click working memory p50 %.1f MB, max %.1f MB; a session after %d clicks "
              "holds up to %.1f MB (its object, the packed objects before each click for undo, its working grid and "
              "caches); process peak RSS %.0f MB before clicking (the automatic segmentation), %.0f MB after\n",
              static_cast<double>(image.size()) * 4 / 1e6, percentile(workingMb, 0.5), percentile(workingMb, 1.0), clicks,
              retainedMb, rssBefore, peakRssMb());
  std::printf("undo: p50 %.1f ms, max %.1f ms per click undone\n", percentile(undoMs, 0.5), percentile(undoMs, 1.0));
  return 0;
}
