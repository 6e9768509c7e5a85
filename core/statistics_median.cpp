// Exact per-label medians without holding every label's values at once (a CT's body label has tens of millions).

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "core/statistics_internal.h"

namespace delineate::core::detail {

namespace {

// Order-preserving map of floats to unsigned keys: key(a) < key(b) iff a < b (with -0 just below +0).
std::uint32_t floatKey(float f) {
  std::uint32_t b;
  std::memcpy(&b, &f, sizeof b);
  return (b & 0x80000000u) ? ~b : (b | 0x80000000u);
}

float keyFloat(std::uint32_t key) {
  const std::uint32_t b = (key & 0x80000000u) ? (key & 0x7FFFFFFFu) : ~key;
  float f;
  std::memcpy(&f, &b, sizeof f);
  return f;
}

// Selection of ranks A = (n-1)/2 and B = n/2 among one label's finite values. Invariant: rank A lies in the key
// interval [lo, hi], which holds `inside` values, `below` of the values lie under it.
struct Task {
  std::uint64_t rankA = 0, rankB = 0;
  std::uint32_t lo = 0, hi = 0;
  std::uint64_t below = 0, inside = 0;
  bool haveA = false, haveB = false;
  float a = 0, b = 0;
  IndexBox box;
  // This pass: either a histogram of (key - lo) >> shift, or the interval's values (histogram empty).
  int shift = 0;
  std::vector<std::uint64_t> histogram;
  std::vector<float> values;
  std::uint32_t minAbove = std::numeric_limits<std::uint32_t>::max();  // smallest key above hi seen this pass
  bool anyAbove = false;
};

std::uint64_t floorPow2(std::uint64_t v) {
  std::uint64_t p = 1;
  while (p <= v / 2) p *= 2;
  return p;
}

// Plans the next pass of every task still looking for rank A.
void plan(std::vector<Task>& tasks, const MedianTuning& tuning) {
  std::uint64_t histogrammed = 0;
  for (const Task& t : tasks)
    if (!t.haveA && t.inside > tuning.collectMax) ++histogrammed;
  std::uint64_t bins = histogrammed ? floorPow2(std::max<std::uint64_t>(tuning.histogramBudget / histogrammed, 1)) : 1;
  bins = std::clamp(bins, std::max<std::uint64_t>(tuning.minBins, 2), std::max(tuning.maxBins, tuning.minBins));
  for (Task& t : tasks) {
    t.histogram.clear();
    t.histogram.shrink_to_fit();
    t.values.clear();
    t.values.shrink_to_fit();
    t.minAbove = std::numeric_limits<std::uint32_t>::max();
    t.anyAbove = false;
    if (t.haveA) continue;
    if (t.inside <= tuning.collectMax) {
      t.values.reserve(static_cast<std::size_t>(t.inside));
      continue;
    }
    const std::uint64_t span = std::uint64_t(t.hi) - t.lo;
    t.shift = 0;
    while ((span >> t.shift) >= bins) ++t.shift;
    t.histogram.assign(static_cast<std::size_t>((span >> t.shift) + 1), 0);
  }
}

// After a pass: settles what the pass found.
void settle(Task& t) {
  // Rank B beyond the interval is the smallest value above it (rank A is then the interval's last value).
  if (!t.haveB && t.rankB >= t.below + t.inside && t.anyAbove) {
    t.b = keyFloat(t.minAbove);
    t.haveB = true;
  }
  if (t.haveA) return;
  if (t.histogram.empty()) {
    // Collected: select rank A, and B when it lies inside too (the smallest value above A's position).
    const auto pos = static_cast<std::size_t>(t.rankA - t.below);
    std::nth_element(t.values.begin(), t.values.begin() + static_cast<std::ptrdiff_t>(pos), t.values.end(),
                     [](float x, float y) { return floatKey(x) < floatKey(y); });
    t.a = t.values[pos];
    t.haveA = true;
    if (!t.haveB && t.rankB < t.below + t.inside) {
      t.b = t.rankB == t.rankA ? t.a
                               : *std::min_element(t.values.begin() + static_cast<std::ptrdiff_t>(pos) + 1,
                                                   t.values.end(),
                                                   [](float x, float y) { return floatKey(x) < floatKey(y); });
      t.haveB = true;
    }
    return;
  }
  // Histogram: narrow to the bin holding rank A.
  std::uint64_t cum = t.below;
  std::size_t bin = 0;
  while (bin + 1 < t.histogram.size() && cum + t.histogram[bin] <= t.rankA) cum += t.histogram[bin++];
  const std::uint64_t binLo = std::uint64_t(t.lo) + (std::uint64_t(bin) << t.shift);
  const std::uint64_t binHi = std::min<std::uint64_t>(t.hi, binLo + (std::uint64_t(1) << t.shift) - 1);
  const std::uint64_t binCount = t.histogram[bin];
  if (!t.haveB && t.rankB >= cum + binCount && t.shift == 0) {
    // B is in the next non-empty bin, a single key when shift is 0.
    std::size_t next = bin + 1;
    while (next < t.histogram.size() && t.histogram[next] == 0) ++next;
    if (next < t.histogram.size()) {
      t.b = keyFloat(static_cast<std::uint32_t>(std::uint64_t(t.lo) + next));
      t.haveB = true;
    }
  }
  t.lo = static_cast<std::uint32_t>(binLo);
  t.hi = static_cast<std::uint32_t>(binHi);
  t.below = cum;
  t.inside = binCount;
  if (t.lo == t.hi) {
    t.a = keyFloat(t.lo);
    t.haveA = true;
    if (!t.haveB && t.rankB < t.below + t.inside) {
      t.b = t.a;
      t.haveB = true;
    }
  }
}

}  // namespace

std::vector<double> labelMedians(const LabelMap& labels, ImageView image,
                                 const std::vector<std::int32_t>& slotOf, const std::vector<MedianRequest>& requests,
                                 const MedianTuning& tuning, int* passes) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<double> out(requests.size(), nan);
  std::vector<Task> tasks;
  std::vector<std::size_t> slotOfTask;
  for (std::size_t s = 0; s < requests.size(); ++s) {
    const MedianRequest& r = requests[s];
    if (r.finiteCount == 0) continue;
    Task t;
    t.rankA = (r.finiteCount - 1) / 2;
    t.rankB = r.finiteCount / 2;
    t.lo = floatKey(r.min);
    t.hi = floatKey(r.max);
    t.inside = r.finiteCount;
    t.box = r.box;
    if (t.lo == t.hi) {  // one distinct value: no pass needed
      t.a = t.b = r.min;
      t.haveA = t.haveB = true;
    }
    tasks.push_back(std::move(t));
    slotOfTask.push_back(s);
  }

  std::vector<std::uint32_t> labelOfSlot(requests.size(), 0);
  for (std::uint32_t l = 0; l < 65536; ++l)
    if (slotOf[l] >= 0) labelOfSlot[static_cast<std::size_t>(slotOf[l])] = l;
  // Label -> index of its unfinished task, -1 for none.
  std::vector<std::int32_t> taskOf(65536, -1);
  const Geometry& g = labels.geometry();
  const Size3& d = g.dimensions();
  const Label* lab = labels.data();
  int passCount = 0;
  for (;;) {
    IndexBox region;
    std::fill(taskOf.begin(), taskOf.end(), -1);
    bool any = false;
    for (std::size_t t = 0; t < tasks.size(); ++t) {
      if (tasks[t].haveA && tasks[t].haveB) continue;
      region.include(tasks[t].box);
      any = true;
    }
    if (!any) break;
    for (std::size_t t = 0; t < tasks.size(); ++t)
      if (!(tasks[t].haveA && tasks[t].haveB)) taskOf[labelOfSlot[slotOfTask[t]]] = static_cast<std::int32_t>(t);
    plan(tasks, tuning);
    ++passCount;
    image.visit([&](const auto& volume) {  // the image in its stored type; each voxel as float (exact up to 2^24)
      const auto* img = volume.data();
      for (std::int64_t k = region.min[2]; k <= region.max[2]; ++k)
        for (std::int64_t j = region.min[1]; j <= region.max[1]; ++j) {
          const std::size_t rowStart = static_cast<std::size_t>(d[0] * (j + d[1] * k));
          for (std::int64_t i = region.min[0]; i <= region.max[0]; ++i) {
            const std::int32_t ti = taskOf[lab[rowStart + static_cast<std::size_t>(i)]];
            if (ti < 0) continue;
            const float v = static_cast<float>(img[rowStart + static_cast<std::size_t>(i)]);
            if (!std::isfinite(v)) continue;
            Task& t = tasks[static_cast<std::size_t>(ti)];
            const std::uint32_t key = floatKey(v);
            if (key > t.hi) {
              if (key < t.minAbove) t.minAbove = key;
              t.anyAbove = true;
            } else if (!t.haveA && key >= t.lo) {
              if (t.histogram.empty()) t.values.push_back(v);
              else ++t.histogram[(key - t.lo) >> t.shift];
            }
          }
        }
    });
    for (Task& t : tasks)
      if (!(t.haveA && t.haveB)) settle(t);
  }
  for (std::size_t t = 0; t < tasks.size(); ++t)
    out[slotOfTask[t]] = (double(tasks[t].a) + double(tasks[t].b)) / 2.0;
  if (passes) *passes = passCount;
  return out;
}

}  // namespace delineate::core::detail
