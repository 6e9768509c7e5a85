#include "inference/training/patch_loader.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <random>

namespace delineate::inference::training {

namespace {

using Size3 = std::array<std::int64_t, 3>;

double uniform(std::mt19937_64& rng, double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(rng); }
std::int64_t uniformIndex(std::mt19937_64& rng, std::int64_t n) {
  return std::uniform_int_distribution<std::int64_t>(0, std::max<std::int64_t>(0, n - 1))(rng);
}
bool chance(std::mt19937_64& rng, double p) { return p > 0 && uniform(rng, 0, 1) < p; }

// Where a patch of `patch` around `centre` starts: inside the case when the case is large enough along that axis,
// else with the case centred in the patch.
std::int64_t startOf(std::int64_t centre, std::int64_t patch, std::int64_t size) {
  if (size >= patch) return std::clamp<std::int64_t>(centre - patch / 2, 0, size - patch);
  return -(patch - size) / 2;
}

using Mat3 = std::array<std::array<double, 3>, 3>;

Mat3 rotationScale(double ax, double ay, double az, double scale) {
  const double cx = std::cos(ax), sx = std::sin(ax), cy = std::cos(ay), sy = std::sin(ay), cz = std::cos(az), sz = std::sin(az);
  const Mat3 rx{{{1, 0, 0}, {0, cx, -sx}, {0, sx, cx}}};
  const Mat3 ry{{{cy, 0, sy}, {0, 1, 0}, {-sy, 0, cy}}};
  const Mat3 rz{{{cz, -sz, 0}, {sz, cz, 0}, {0, 0, 1}}};
  auto mul = [](const Mat3& a, const Mat3& b) {
    Mat3 c{};
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j)
        for (int k = 0; k < 3; ++k) c[i][j] += a[i][k] * b[k][j];
    return c;
  };
  Mat3 m = mul(rz, mul(ry, rx));
  for (auto& row : m)
    for (auto& v : row) v *= scale;
  return m;
}

// One patch of case `k` into `image` / `labels` (patch voxels each).
core::Status makePatch(const CaseCache& cache, std::size_t k, const PatchSettings& settings, std::mt19937_64& rng, float* image,
                       std::uint16_t* labels) {
  const CaseInfo& info = cache.info(k);
  const Size3& n = info.size;
  const Size3& p = settings.patch;
  // The centre.
  Size3 centre{uniformIndex(rng, n[0]), uniformIndex(rng, n[1]), uniformIndex(rng, n[2])};
  std::vector<const std::vector<std::int64_t>*> foreground;
  for (const auto& [cls, voxels] : info.classVoxels)
    if (cls != 0 && !voxels.empty()) foreground.push_back(&voxels);
  if (!foreground.empty() && chance(rng, settings.foregroundRatio)) {
    const std::vector<std::int64_t>* list = nullptr;
    if (settings.classBalanced) {
      list = foreground[static_cast<std::size_t>(uniformIndex(rng, static_cast<std::int64_t>(foreground.size())))];
    } else {
      std::int64_t total = 0;
      for (const auto* l : foreground) total += static_cast<std::int64_t>(l->size());
      std::int64_t pick = uniformIndex(rng, total);
      for (const auto* l : foreground) {
        if (pick < static_cast<std::int64_t>(l->size())) {
          list = l;
          break;
        }
        pick -= static_cast<std::int64_t>(l->size());
      }
    }
    const std::int64_t v = (*list)[static_cast<std::size_t>(uniformIndex(rng, static_cast<std::int64_t>(list->size())))];
    centre = {v / (n[1] * n[2]), (v / n[2]) % n[1], v % n[2]};
  }
  Size3 start{startOf(centre[0], p[0], n[0]), startOf(centre[1], p[1], n[1]), startOf(centre[2], p[2], n[2])};
  const AugmentSettings& aug = settings.augment;
  if (aug.enabled && chance(rng, aug.affineProbability)) {
    const double pi = 3.14159265358979323846, r = aug.rotateDegrees * pi / 180;
    const Mat3 m = rotationScale(uniform(rng, -r, r), uniform(rng, -r, r), uniform(rng, -r, r),
                                 1 + uniform(rng, -aug.scaleRange, aug.scaleRange));
    // The patch's own centre, and the region of the case its rotated, scaled voxels come from.
    double mid[3];
    Size3 half{}, regionStart{}, region{};
    for (int a = 0; a < 3; ++a) mid[a] = static_cast<double>(start[static_cast<std::size_t>(a)]) + (static_cast<double>(p[static_cast<std::size_t>(a)]) - 1) / 2;
    for (int a = 0; a < 3; ++a) {
      double h = 0;
      for (int b = 0; b < 3; ++b) h += std::fabs(m[a][b]) * static_cast<double>(p[static_cast<std::size_t>(b)]) / 2;
      half[static_cast<std::size_t>(a)] = static_cast<std::int64_t>(std::ceil(h)) + 2;
      regionStart[static_cast<std::size_t>(a)] = static_cast<std::int64_t>(std::floor(mid[a])) - half[static_cast<std::size_t>(a)];
      region[static_cast<std::size_t>(a)] = 2 * half[static_cast<std::size_t>(a)] + 2;
    }
    const auto regionVoxels = static_cast<std::size_t>(region[0] * region[1] * region[2]);
    std::vector<float> ri(regionVoxels);
    std::vector<std::uint16_t> rl(regionVoxels);
    if (core::Status s = cache.readBox(k, regionStart, region, ri.data(), rl.data()); !s) return s;
    auto at = [&](std::int64_t x, std::int64_t y, std::int64_t z) { return static_cast<std::size_t>((x * region[1] + y) * region[2] + z); };
    for (std::int64_t i = 0; i < p[0]; ++i)
      for (std::int64_t j = 0; j < p[1]; ++j)
        for (std::int64_t l = 0; l < p[2]; ++l) {
          const double rel[3] = {static_cast<double>(i) - (static_cast<double>(p[0]) - 1) / 2,
                                 static_cast<double>(j) - (static_cast<double>(p[1]) - 1) / 2,
                                 static_cast<double>(l) - (static_cast<double>(p[2]) - 1) / 2};
          double src[3];
          for (int a = 0; a < 3; ++a)
            src[a] = mid[a] + m[a][0] * rel[0] + m[a][1] * rel[1] + m[a][2] * rel[2] - static_cast<double>(regionStart[static_cast<std::size_t>(a)]);
          const auto out = static_cast<std::size_t>((i * p[1] + j) * p[2] + l);
          const std::int64_t f0 = static_cast<std::int64_t>(std::floor(src[0])), f1 = static_cast<std::int64_t>(std::floor(src[1])),
                             f2 = static_cast<std::int64_t>(std::floor(src[2]));
          if (f0 < 0 || f1 < 0 || f2 < 0 || f0 + 1 >= region[0] || f1 + 1 >= region[1] || f2 + 1 >= region[2]) {
            image[out] = 0;
            labels[out] = 0;
            continue;
          }
          const double w0 = src[0] - static_cast<double>(f0), w1 = src[1] - static_cast<double>(f1), w2 = src[2] - static_cast<double>(f2);
          double v = 0;
          for (int c = 0; c < 8; ++c) {
            const double w = ((c & 1) ? w0 : 1 - w0) * ((c & 2) ? w1 : 1 - w1) * ((c & 4) ? w2 : 1 - w2);
            v += w * ri[at(f0 + (c & 1), f1 + ((c >> 1) & 1), f2 + ((c >> 2) & 1))];
          }
          image[out] = static_cast<float>(v);
          labels[out] = rl[at(f0 + (w0 >= 0.5), f1 + (w1 >= 0.5), f2 + (w2 >= 0.5))];
        }
  } else {
    if (core::Status s = cache.readBox(k, start, p, image, labels); !s) return s;
  }
  if (!aug.enabled) return core::Status::success();
  const std::size_t count = static_cast<std::size_t>(p[0] * p[1] * p[2]);
  // Flips.
  for (int a = 0; a < 3; ++a) {
    if (!chance(rng, aug.flipProbability)) continue;
    for (std::int64_t i = 0; i < p[0]; ++i)
      for (std::int64_t j = 0; j < p[1]; ++j)
        for (std::int64_t l = 0; l < p[2]; ++l) {
          std::int64_t c[3] = {i, j, l};
          if (c[a] >= p[static_cast<std::size_t>(a)] - 1 - c[a]) continue;
          std::int64_t d[3] = {i, j, l};
          d[a] = p[static_cast<std::size_t>(a)] - 1 - c[a];
          const auto u = static_cast<std::size_t>((c[0] * p[1] + c[1]) * p[2] + c[2]);
          const auto w = static_cast<std::size_t>((d[0] * p[1] + d[1]) * p[2] + d[2]);
          std::swap(image[u], image[w]);
          std::swap(labels[u], labels[w]);
        }
  }
  // 90-degree rotations in a plane whose two sides are equal.
  std::vector<std::pair<int, int>> planes;
  for (int a = 0; a < 3; ++a)
    for (int b = a + 1; b < 3; ++b)
      if (p[static_cast<std::size_t>(a)] == p[static_cast<std::size_t>(b)]) planes.emplace_back(a, b);
  if (!planes.empty() && chance(rng, aug.rotate90Probability)) {
    const auto [a, b] = planes[static_cast<std::size_t>(uniformIndex(rng, static_cast<std::int64_t>(planes.size())))];
    const int turns = 1 + static_cast<int>(uniformIndex(rng, 3));
    std::vector<float> ti(image, image + count);
    std::vector<std::uint16_t> tl(labels, labels + count);
    const std::int64_t side = p[static_cast<std::size_t>(a)];
    for (std::int64_t i = 0; i < p[0]; ++i)
      for (std::int64_t j = 0; j < p[1]; ++j)
        for (std::int64_t l = 0; l < p[2]; ++l) {
          std::int64_t o[3] = {i, j, l}, s[3] = {i, j, l};
          for (int t = 0; t < turns; ++t) {  // s: where output o reads from, one quarter turn at a time
            const std::int64_t sa = s[b], sb = side - 1 - s[a];
            s[a] = sa;
            s[b] = sb;
          }
          const auto out = static_cast<std::size_t>((o[0] * p[1] + o[1]) * p[2] + o[2]);
          const auto in = static_cast<std::size_t>((s[0] * p[1] + s[1]) * p[2] + s[2]);
          image[out] = ti[in];
          labels[out] = tl[in];
        }
  }
  // Intensity.
  if (chance(rng, aug.intensityScaleProbability)) {
    const double f = 1 + uniform(rng, -aug.intensityScale, aug.intensityScale);
    for (std::size_t i = 0; i < count; ++i) image[i] = static_cast<float>(image[i] * f);
  }
  if (chance(rng, aug.intensityShiftProbability)) {
    const double o = uniform(rng, -aug.intensityShift, aug.intensityShift);
    for (std::size_t i = 0; i < count; ++i) image[i] = static_cast<float>(image[i] + o);
  }
  if (chance(rng, aug.gammaProbability)) {
    const double gamma = uniform(rng, aug.gammaMin, aug.gammaMax);
    const auto [lo, hi] = std::minmax_element(image, image + count);
    const double mn = *lo, range = *hi - *lo;
    for (std::size_t i = 0; i < count; ++i)
      image[i] = static_cast<float>(std::pow((image[i] - mn) / (range + 1e-7), gamma) * range + mn);
  }
  if (chance(rng, aug.noiseProbability)) {
    std::normal_distribution<double> noise(0.0, uniform(rng, 0, aug.noiseStd));
    for (std::size_t i = 0; i < count; ++i) image[i] = static_cast<float>(image[i] + noise(rng));
  }
  return core::Status::success();
}

}  // namespace

std::uint64_t streamSeed(std::uint64_t seed, std::uint64_t stream) {
  auto mix = [](std::uint64_t z) {
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  };
  return mix(mix(seed) ^ (stream * 0xD1B54A32D192ED03ull));
}

PatchLoader::PatchLoader(const CaseCache& cache, std::vector<std::size_t> cases, PatchSettings settings)
    : m_cache(cache), m_cases(std::move(cases)), m_settings(std::move(settings)) {}

PatchLoader::~PatchLoader() { stop(); }

core::Result<Batch> PatchLoader::make(const CaseCache& cache, const std::vector<std::size_t>& cases, const PatchSettings& settings,
                                      std::int64_t index) {
  if (cases.empty()) return core::makeError(core::ErrorCode::InvalidArgument, "training", "no training case");
  for (const auto s : settings.patch)
    if (s < 1) return core::makeError(core::ErrorCode::InvalidArgument, "training", "the patch size must be positive");
  const std::uint64_t batchSeed = streamSeed(settings.seed, static_cast<std::uint64_t>(index));
  Batch b;
  b.index = index;
  b.count = std::max(1, settings.batch);
  b.size = settings.patch;
  const auto voxels = static_cast<std::size_t>(settings.patch[0] * settings.patch[1] * settings.patch[2]);
  try {
    b.images.resize(voxels * static_cast<std::size_t>(b.count));
    b.labels.resize(voxels * static_cast<std::size_t>(b.count));
  } catch (const std::bad_alloc&) {
    return core::makeError(core::ErrorCode::OutOfMemory, "training", "out of memory for a batch of patches");
  }
  for (int i = 0; i < b.count; ++i) {
    // Sample j of batch `index` has a stream of its own, so rank r of a data-parallel run (samples r*B .. r*B+B-1)
    // draws exactly the samples one process with batch R*B draws; sample 0 keeps the batch's stream.
    const auto j = static_cast<std::uint64_t>(settings.sampleOffset + i);
    std::mt19937_64 rng(j == 0 ? batchSeed : streamSeed(batchSeed, j));
    const std::size_t k = cases[static_cast<std::size_t>(uniformIndex(rng, static_cast<std::int64_t>(cases.size())))];
    b.cases.push_back(k);
    if (core::Status s = makePatch(cache, k, settings, rng, b.images.data() + voxels * static_cast<std::size_t>(i),
                                   b.labels.data() + voxels * static_cast<std::size_t>(i));
        !s)
      return s.error();
  }
  return b;
}

void PatchLoader::start(std::int64_t first) {
  stop();
  {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_stopping = false;
    m_done.clear();
    m_nextToMake = m_nextToGive = first;
  }
  for (int i = 0; i < std::max(1, m_settings.workers); ++i) m_threads.emplace_back([this] { work(); });
}

void PatchLoader::stop() {
  {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_stopping = true;
  }
  m_space.notify_all();
  m_ready.notify_all();
  for (auto& t : m_threads) t.join();
  m_threads.clear();
}

void PatchLoader::work() {
  for (;;) {
    std::int64_t index;
    {
      std::unique_lock<std::mutex> lock(m_mutex);
      m_space.wait(lock, [&] { return m_stopping || m_nextToMake < m_nextToGive + std::max(1, m_settings.queueDepth); });
      if (m_stopping) return;
      index = m_nextToMake++;
    }
    core::Result<Batch> batch = core::makeError(core::ErrorCode::OutOfMemory, "training", "out of memory making a batch");
    try {
      batch = make(m_cache, m_cases, m_settings, index);
    } catch (const std::exception& e) {  // never let a worker end the process: the trainer gets the error in order
      batch = core::makeError(core::ErrorCode::InvalidArgument, "training", std::string("making batch ") + std::to_string(index) + ": " + e.what());
    }
    {
      std::lock_guard<std::mutex> lock(m_mutex);
      m_done.emplace(index, std::move(batch));
    }
    m_ready.notify_all();
  }
}

core::Result<Batch> PatchLoader::next() {
  std::unique_lock<std::mutex> lock(m_mutex);
  if (m_threads.empty()) return core::makeError(core::ErrorCode::InvalidArgument, "training", "the patch loader is not started");
  const auto t0 = std::chrono::steady_clock::now();
  m_ready.wait(lock, [&] { return m_stopping || m_done.count(m_nextToGive) > 0; });
  m_waited += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (m_stopping) return core::makeError(core::ErrorCode::Cancelled, "training", "the patch loader stopped");
  auto it = m_done.find(m_nextToGive);
  core::Result<Batch> out = std::move(it->second);
  m_done.erase(it);
  ++m_nextToGive;
  lock.unlock();
  m_space.notify_all();
  return out;
}

}  // namespace delineate::inference::training
