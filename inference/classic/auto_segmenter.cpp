#include "inference/classic/auto_segmenter.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <new>
#include <queue>
#include <utility>

#include "core/axis_order.h"
#include "core/morphology.h"

namespace delineate::inference::classic {
namespace {

using core::Components;
using core::connectedComponents;
using core::dilate;
using core::erode;
using core::fillHoles;
using core::Mask;
using core::Size3;

struct Grid {
  Size3 n;
  core::Vec3 sp;
  std::size_t count = 0;
  int axial = 2;            // the index axis closest to the patient's head-foot direction
  bool upIsSuperior = true;  // larger index on that axis = more superior (LPS +z)
  double voxelMl = 0;
};

template <class T>
Grid gridOf(const core::Volume<T>& image) {
  Grid g;
  const auto& geo = image.geometry();
  g.n = geo.dimensions();
  g.sp = geo.spacingMm();
  g.count = static_cast<std::size_t>(geo.voxelCount());
  double best = -1;
  for (int a = 0; a < 3; ++a) {
    const double z = geo.direction()(2, a);
    if (std::fabs(z) > best) {
      best = std::fabs(z);
      g.axial = a;
      g.upIsSuperior = z >= 0;
    }
  }
  g.voxelMl = g.sp[0] * g.sp[1] * g.sp[2] / 1000.0;
  return g;
}

bool cancelled(core::ProgressSink* p) { return p != nullptr && p->cancelled(); }
void report(core::ProgressSink* p, double f, const char* stage) {
  if (p) p->report(f, stage);
}

// Component ids, largest first.
std::vector<std::int32_t> bySize(const Components& c) {
  std::vector<std::int32_t> order(c.size.size());
  for (std::size_t k = 0; k < order.size(); ++k) order[k] = static_cast<std::int32_t>(k);
  std::sort(order.begin(), order.end(), [&](std::int32_t a, std::int32_t b) {
    return c.size[static_cast<std::size_t>(a)] > c.size[static_cast<std::size_t>(b)];
  });
  return order;
}

Mask keepComponent(const Components& c, std::int32_t id) {
  Mask out(c.id.size(), 0);
  if (id < 0) return out;
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = c.id[i] == id ? 1 : 0;
  return out;
}

// Holes of at most maxAreaMm2 in every slice across `axis` are filled (marrow inside cortical bone, not the chest
// that ribs happen to ring in one slice).
void fillSmallSliceHoles(Mask& m, const Grid& g, int axis, double maxAreaMm2) {
  const int u = axis == 0 ? 1 : 0, v = axis == 2 ? 1 : 2;
  const std::int64_t stride[3] = {1, g.n[0], g.n[0] * g.n[1]};
  const double pixelMm2 = g.sp[static_cast<std::size_t>(u)] * g.sp[static_cast<std::size_t>(v)];
  const auto maxPixels = static_cast<std::int64_t>(maxAreaMm2 / pixelMm2);
  std::vector<std::int64_t> region, stack;
  Mask seen(m.size(), 0);
  for (std::int64_t s = 0; s < g.n[axis]; ++s)
    for (std::int64_t b = 0; b < g.n[v]; ++b)
      for (std::int64_t a = 0; a < g.n[u]; ++a) {
        const std::int64_t start = s * stride[axis] + a * stride[u] + b * stride[v];
        if (m[static_cast<std::size_t>(start)] || seen[static_cast<std::size_t>(start)]) continue;
        region.clear();
        bool border = false;
        seen[static_cast<std::size_t>(start)] = 1;
        stack.push_back(start);
        while (!stack.empty()) {
          const std::int64_t i = stack.back();
          stack.pop_back();
          region.push_back(i);
          const std::int64_t pu = (i / stride[u]) % g.n[u], pv = (i / stride[v]) % g.n[v];
          if (pu == 0 || pv == 0 || pu == g.n[u] - 1 || pv == g.n[v] - 1) border = true;
          const std::int64_t next[4][2] = {{pu - 1, pv}, {pu + 1, pv}, {pu, pv - 1}, {pu, pv + 1}};
          for (const auto& q : next) {
            if (q[0] < 0 || q[1] < 0 || q[0] >= g.n[u] || q[1] >= g.n[v]) continue;
            const std::int64_t j = i + (q[0] - pu) * stride[u] + (q[1] - pv) * stride[v];
            if (!m[static_cast<std::size_t>(j)] && !seen[static_cast<std::size_t>(j)]) {
              seen[static_cast<std::size_t>(j)] = 1;
              stack.push_back(j);
            }
          }
        }
        if (!border && static_cast<std::int64_t>(region.size()) <= maxPixels)
          for (const auto i : region) m[static_cast<std::size_t>(i)] = 1;
      }
}

template <class T>
Mask segmentBody(const core::Volume<T>& image, const Grid& g, const AutoOptions& o) {
  const T* v = image.data();
  Mask tissue(g.count);
  for (std::size_t i = 0; i < g.count; ++i) tissue[i] = v[i] > o.bodyHu ? 1 : 0;
  // Detach the table: erode, keep the largest piece, grow it back inside the tissue.
  Mask core = erode(tissue, g.n, g.sp, o.tableGapMm);
  {
    const Components pieces = connectedComponents(core, g.n);
    core = keepComponent(pieces, pieces.largest());
  }
  Mask body = dilate(core, g.n, g.sp, o.tableGapMm + 0.5 * std::min({g.sp[0], g.sp[1], g.sp[2]}));
  for (std::size_t i = 0; i < g.count; ++i) body[i] = body[i] && tissue[i] ? 1 : 0;
  const Components parts = connectedComponents(body, g.n);
  body = keepComponent(parts, parts.largest());
  fillHoles(body, g.n, g.axial);
  fillHoles(body, g.n);
  return body;
}

// The trachea's cross-section in the top slices that have body: a round air region of 1-8 cm^2 near the body's
// left-right centre. Returns the seed voxels (empty when the scan does not reach the trachea).
template <class T>
std::vector<std::size_t> findTracheaSeed(const core::Volume<T>& image, const Grid& g, const Mask& body) {
  const int ax = g.axial, u = ax == 0 ? 1 : 0, w = ax == 2 ? 1 : 2;
  const std::int64_t stride[3] = {1, g.n[0], g.n[0] * g.n[1]};
  const double pixelMm2 = g.sp[static_cast<std::size_t>(u)] * g.sp[static_cast<std::size_t>(w)];
  const T* v = image.data();
  // Slices from the top down.
  std::vector<std::int64_t> slices;
  for (std::int64_t s = 0; s < g.n[ax]; ++s) slices.push_back(g.upIsSuperior ? g.n[ax] - 1 - s : s);
  int withBody = 0;
  for (const std::int64_t s : slices) {
    // Body extent in this slice.
    double sumU = 0, cnt = 0;
    for (std::int64_t b = 0; b < g.n[w]; ++b)
      for (std::int64_t a = 0; a < g.n[u]; ++a)
        if (body[static_cast<std::size_t>(s * stride[ax] + a * stride[u] + b * stride[w])]) {
          sumU += static_cast<double>(a);
          cnt += 1;
        }
    if (cnt * pixelMm2 < 2000) continue;  // less than 20 cm^2 of body: not yet the neck or chest
    if (++withBody > std::max<int>(3, static_cast<int>(30 / g.sp[static_cast<std::size_t>(ax)]))) break;
    const double centreU = sumU / cnt;
    // 2D air components inside the body.
    Mask air(static_cast<std::size_t>(g.n[u] * g.n[w]), 0);
    for (std::int64_t b = 0; b < g.n[w]; ++b)
      for (std::int64_t a = 0; a < g.n[u]; ++a) {
        const std::int64_t i = s * stride[ax] + a * stride[u] + b * stride[w];
        air[static_cast<std::size_t>(b * g.n[u] + a)] = body[static_cast<std::size_t>(i)] && v[i] < -900 ? 1 : 0;
      }
    const Components c = connectedComponents(air, Size3{g.n[u], g.n[w], 1});
    // One pass for every component's centre and extent.
    struct Extent {
      double sumU = 0, minU = 1e300, maxU = -1e300, minW = 1e300, maxW = -1e300;
    };
    std::vector<Extent> ext(c.size.size());
    for (std::size_t p = 0; p < c.id.size(); ++p) {
      if (c.id[p] < 0) continue;
      Extent& e = ext[static_cast<std::size_t>(c.id[p])];
      const double a = static_cast<double>(static_cast<std::int64_t>(p) % g.n[u]);
      const double b = static_cast<double>(static_cast<std::int64_t>(p) / g.n[u]);
      e.sumU += a;
      e.minU = std::min(e.minU, a), e.maxU = std::max(e.maxU, a), e.minW = std::min(e.minW, b), e.maxW = std::max(e.maxW, b);
    }
    double bestDist = 1e300;
    std::int32_t best = -1;
    for (std::size_t k = 0; k < c.size.size(); ++k) {
      const double area = static_cast<double>(c.size[k]) * pixelMm2;
      if (area < 100 || area > 800) continue;
      const Extent& e = ext[k];
      const double du = (e.maxU - e.minU + 1) * g.sp[static_cast<std::size_t>(u)];
      const double dw = (e.maxW - e.minW + 1) * g.sp[static_cast<std::size_t>(w)];
      if (std::max(du, dw) > 2.2 * std::min(du, dw)) continue;  // not round
      const double dist = std::fabs(e.sumU / static_cast<double>(c.size[k]) - centreU) * g.sp[static_cast<std::size_t>(u)];
      if (dist < 40 && dist < bestDist) {
        bestDist = dist;
        best = static_cast<std::int32_t>(k);
      }
    }
    if (best >= 0) {
      std::vector<std::size_t> seed;
      for (std::size_t p = 0; p < c.id.size(); ++p)
        if (c.id[p] == best) {
          const std::int64_t a = static_cast<std::int64_t>(p) % g.n[u], b = static_cast<std::int64_t>(p) / g.n[u];
          seed.push_back(static_cast<std::size_t>(s * stride[ax] + a * stride[u] + b * stride[w]));
        }
      return seed;
    }
  }
  return {};
}

// Voxels below `threshold` connected to the seed inside the body; stops counting past `limit` voxels.
template <class T>
std::size_t growBelow(const T* v, const Grid& g, const Mask& body, const std::vector<std::size_t>& seed,
                      float threshold, std::size_t limit, Mask& out) {
  std::fill(out.begin(), out.end(), 0);
  const std::int64_t stride[3] = {1, g.n[0], g.n[0] * g.n[1]};
  std::vector<std::int64_t> stack;
  std::size_t count = 0;
  for (const auto s : seed)
    if (!out[s]) {
      out[s] = 1;
      stack.push_back(static_cast<std::int64_t>(s));
    }
  while (!stack.empty() && count <= limit) {
    const std::int64_t i = stack.back();
    stack.pop_back();
    ++count;
    const std::int64_t p[3] = {i % g.n[0], (i / g.n[0]) % g.n[1], i / (g.n[0] * g.n[1])};
    for (int a = 0; a < 3; ++a)
      for (int d = -1; d <= 1; d += 2) {
        if (p[a] + d < 0 || p[a] + d >= g.n[a]) continue;
        const auto j = static_cast<std::size_t>(i + d * stride[a]);
        if (!out[j] && body[j] && static_cast<float>(v[j]) < threshold) {
          out[j] = 1;
          stack.push_back(static_cast<std::int64_t>(j));
        }
      }
  }
  return count;
}

template <class T>
Mask segmentAirways(const core::Volume<T>& image, const Grid& g, const Mask& body) {
  Mask best(g.count, 0);
  const auto seed = findTracheaSeed(image, g, body);
  if (seed.empty()) return best;
  Mask trial(g.count, 0);
  // An adult's airway tree down to the segmental bronchi is well under 300 mL; a jump beyond that is a leak.
  const auto limit = static_cast<std::size_t>(300.0 / g.voxelMl);
  std::size_t previous = 0;
  for (float t = -990; t <= -900; t += 10) {
    const std::size_t count = growBelow(image.data(), g, body, seed, t, limit, trial);
    // A leak into a lung multiplies the volume; early steps may double a fragmented trachea, so jumps count only
    // once the tree holds 20 mL.
    if (count > limit || (static_cast<double>(previous) * g.voxelMl > 20 && count > 3 * previous)) break;
    best.swap(trial);
    previous = count;
  }
  return best;
}

// Splits one mask into two by eroding until it falls apart into two large pieces, then giving every voxel to the
// piece that reaches it first (breadth first inside the mask). False when it never splits.
bool splitInTwo(const Mask& m, const Grid& g, std::vector<std::int8_t>& side) {
  const double total = static_cast<double>(std::count(m.begin(), m.end(), std::uint8_t{1}));
  const double finest = std::min({g.sp[0], g.sp[1], g.sp[2]});
  for (double r = finest; r <= 30; r += finest) {
    const Mask core = erode(m, g.n, g.sp, r);
    const Components c = connectedComponents(core, g.n);
    const std::vector<std::int32_t> order = bySize(c);
    if (order.empty()) return false;
    if (order.size() < 2) continue;
    const double first = static_cast<double>(c.size[static_cast<std::size_t>(order[0])]);
    const double second = static_cast<double>(c.size[static_cast<std::size_t>(order[1])]);
    if (second < 0.15 * first || second < 0.01 * total) continue;
    side.assign(m.size(), -1);
    std::vector<std::int64_t> frontier, next;
    for (std::size_t i = 0; i < m.size(); ++i)
      if (c.id[i] == order[0] || c.id[i] == order[1]) {
        side[i] = c.id[i] == order[0] ? 0 : 1;
        frontier.push_back(static_cast<std::int64_t>(i));
      }
    const std::int64_t stride[3] = {1, g.n[0], g.n[0] * g.n[1]};
    while (!frontier.empty()) {
      next.clear();
      for (const std::int64_t i : frontier) {
        const std::int64_t p[3] = {i % g.n[0], (i / g.n[0]) % g.n[1], i / (g.n[0] * g.n[1])};
        for (int a = 0; a < 3; ++a)
          for (int d = -1; d <= 1; d += 2) {
            if (p[a] + d < 0 || p[a] + d >= g.n[a]) continue;
            const auto j = static_cast<std::size_t>(i + d * stride[a]);
            if (m[j] && side[j] < 0) {
              side[j] = side[static_cast<std::size_t>(i)];
              next.push_back(static_cast<std::int64_t>(j));
            }
          }
      }
      frontier.swap(next);
    }
    return true;
  }
  return false;
}

// Lungs: returns 0 outside, 1 left, 2 right.
template <class T>
std::vector<std::uint8_t> segmentLungs(const core::Volume<T>& image, const Grid& g, const Mask& body,
                                       const Mask& airways, const AutoOptions& o) {
  const T* v = image.data();
  Mask air(g.count);
  for (std::size_t i = 0; i < g.count; ++i) air[i] = body[i] && !airways[i] && v[i] < o.lungHu ? 1 : 0;
  const Components c = connectedComponents(air, g.n);
  // Lung components: large, and not pure gas (bowel and stomach gas sit near -1000 HU; lung tissue with its vessels
  // has a median near -850).
  const auto minVoxels = static_cast<std::int64_t>(o.minLungMl / g.voxelMl);
  std::vector<std::vector<float>> samples(c.size.size());
  for (std::size_t i = 0; i < g.count; ++i)
    if (c.id[i] >= 0 && c.size[static_cast<std::size_t>(c.id[i])] >= minVoxels && (i % 7) == 0)
      samples[static_cast<std::size_t>(c.id[i])].push_back(static_cast<float>(v[i]));
  Mask lungs(g.count, 0);
  std::vector<std::uint8_t> keep(c.size.size(), 0);
  for (std::size_t k = 0; k < c.size.size(); ++k) {
    if (c.size[k] < minVoxels || samples[k].empty()) continue;
    auto mid = samples[k].begin() + static_cast<std::ptrdiff_t>(samples[k].size() / 2);
    std::nth_element(samples[k].begin(), mid, samples[k].end());
    keep[k] = *mid > -960 ? 1 : 0;
  }
  for (std::size_t i = 0; i < g.count; ++i) lungs[i] = c.id[i] >= 0 && keep[static_cast<std::size_t>(c.id[i])] ? 1 : 0;
  fillSmallSliceHoles(lungs, g, g.axial, 400);  // vessels entering the lung

  // Components of the lung mask; the two largest are the lungs unless one holds both.
  const auto& geo = image.geometry();
  const Components lc = connectedComponents(lungs, g.n);
  std::vector<std::int8_t> side(g.count, -1);
  const std::vector<std::int32_t> largest = bySize(lc);
  std::vector<std::uint8_t> out(g.count, 0);
  if (largest.empty()) return out;
  const bool oneBlob = largest.size() == 1 || lc.size[static_cast<std::size_t>(largest[1])] <
                                                 lc.size[static_cast<std::size_t>(largest[0])] / 10;
  bool split = false;
  if (oneBlob) {
    const Mask blob = keepComponent(lc, largest[0]);
    std::vector<std::int8_t> halves;
    if (splitInTwo(blob, g, halves)) {
      split = true;
      side = halves;
    }
  }
  if (!split)
    for (std::size_t i = 0; i < g.count; ++i)
      if (lc.id[i] >= 0) side[i] = static_cast<std::int8_t>(lc.id[i] == largest[0] ? 0 : (largest.size() > 1 && lc.id[i] == largest[1]) ? 1 : 2);
  // Patient left is +x in LPS: compare the pieces' centroids (a single lung goes by the body's centre).
  double sx[3] = {0, 0, 0}, nx[3] = {0, 0, 0}, bodyX = 0, bodyN = 0;
  for (std::int64_t z = 0; z < g.n[2]; ++z)
    for (std::int64_t y = 0; y < g.n[1]; ++y)
      for (std::int64_t x = 0; x < g.n[0]; x += 1) {
        const auto i = static_cast<std::size_t>((z * g.n[1] + y) * g.n[0] + x);
        if (!body[i] || (x % 2) || (y % 2)) continue;
        const double lx = geo.indexToLps(core::Index3{x, y, z})[0];
        bodyX += lx;
        bodyN += 1;
        if (side[i] >= 0 && side[i] < 2) {
          sx[side[i]] += lx;
          nx[side[i]] += 1;
        }
      }
  const double centre = bodyN > 0 ? bodyX / bodyN : 0;
  const double c0 = nx[0] > 0 ? sx[0] / nx[0] : centre, c1 = nx[1] > 0 ? sx[1] / nx[1] : centre;
  const bool twoPieces = nx[1] > 0;
  const std::uint8_t label0 = twoPieces ? (c0 > c1 ? 1 : 2) : (c0 > centre ? 1 : 2);
  const std::uint8_t label1 = label0 == 1 ? 2 : 1;
  for (std::size_t i = 0; i < g.count; ++i) {
    if (side[i] == 0) out[i] = label0;
    else if (side[i] == 1) out[i] = label1;
  }
  return out;
}

// Voxels of `through` within `reachMm` of a seed along paths inside `through`, a step costing its length in mm times
// `slow` where the voxel it enters is in `slowly` (Dijkstra; the set does not depend on the queue's tie order).
Mask reachWithin(const Mask& seeds, const Mask& through, const Mask& slowly, double slow, const Grid& g, double reachMm) {
  std::vector<float> dist(g.count, std::numeric_limits<float>::infinity());
  using Item = std::pair<float, std::int64_t>;
  std::priority_queue<Item, std::vector<Item>, std::greater<Item>> queue;
  for (std::size_t i = 0; i < g.count; ++i)
    if (seeds[i]) {
      dist[i] = 0;
      queue.emplace(0.0f, static_cast<std::int64_t>(i));
    }
  const std::int64_t stride[3] = {1, g.n[0], g.n[0] * g.n[1]};
  while (!queue.empty()) {
    const auto [d, i] = queue.top();
    queue.pop();
    if (d > dist[static_cast<std::size_t>(i)]) continue;
    const std::int64_t p[3] = {i % g.n[0], (i / g.n[0]) % g.n[1], i / (g.n[0] * g.n[1])};
    for (int a = 0; a < 3; ++a)
      for (int s = -1; s <= 1; s += 2) {
        if (p[a] + s < 0 || p[a] + s >= g.n[a]) continue;
        const auto j = static_cast<std::size_t>(i + s * stride[a]);
        if (!through[j]) continue;
        const float nd = d + static_cast<float>(g.sp[static_cast<std::size_t>(a)] * (slowly[j] ? slow : 1.0));
        if (nd <= reachMm && nd < dist[j]) {
          dist[j] = nd;
          queue.emplace(nd, static_cast<std::int64_t>(j));
        }
      }
  }
  Mask out(g.count, 0);
  for (std::size_t i = 0; i < g.count; ++i) out[i] = dist[i] <= reachMm ? 1 : 0;
  return out;
}

template <class T>
Mask segmentBone(const core::Volume<T>& image, const Grid& g, const Mask& body, const AutoOptions& o) {
  // Cortex (above corticalHu) seeds the skeleton; bone grows from it along paths above boneHu, at most boneReachMm
  // long, a step through voxels below shellHu (trabecular bone, or soft tissue) counting trabecularCost times its
  // length; marrow enclosed by that shell in a slice is then filled. Enhanced organs and vessels (liver near 130 HU,
  // kidney cortex and portal vessels near 200, an arterial aorta up to 400) pass boneHu and touch ribs and vertebrae,
  // so plain hysteresis (everything above boneHu connected to cortex) took the liver, kidneys and vessels with the
  // bone; a vertebral body's trabecular interior (100-150 HU at 3 mm) is no brighter than an enhanced liver and comes
  // in by its enclosure, not its intensity.
  const T* v = image.data();
  // The shell's threshold follows the scan's enhancement: shellPerTissue times the upper quartile of the body's soft
  // tissue (0-300 HU; about 50 HU without contrast, 120 on a portal-venous CT where the liver is near 130, so 150 and
  // 305 HU), at least shellHu.
  std::vector<float> tissue;
  for (std::size_t i = 0; i < g.count; i += 3)
    if (body[i] && v[i] > 0 && v[i] <= 300) tissue.push_back(static_cast<float>(v[i]));
  double shellHu = o.shellHu;
  if (!tissue.empty()) {
    auto q = tissue.begin() + static_cast<std::ptrdiff_t>(tissue.size() * 3 / 4);
    std::nth_element(tissue.begin(), q, tissue.end());
    shellHu = std::max(o.shellHu, o.shellPerTissue * static_cast<double>(*q));
  }
  tissue = std::vector<float>();
  Mask cortex(g.count), trabecular(g.count), soft(g.count);
  for (std::size_t i = 0; i < g.count; ++i) {
    cortex[i] = body[i] && v[i] > o.corticalHu ? 1 : 0;
    trabecular[i] = body[i] && v[i] > o.boneHu ? 1 : 0;
    soft[i] = v[i] <= shellHu ? 1 : 0;
  }
  Mask bone = reachWithin(cortex, trabecular, soft, o.trabecularCost, g, o.boneReachMm);
  soft = Mask();
  fillSmallSliceHoles(bone, g, g.axial, 2500);  // marrow inside the cortex, up to a femoral head or a vertebra
  const Components c = connectedComponents(bone, g.n);
  std::vector<std::int64_t> cortical(c.size.size(), 0);
  for (std::size_t i = 0; i < g.count; ++i)
    if (c.id[i] >= 0 && cortex[i]) ++cortical[static_cast<std::size_t>(c.id[i])];
  const auto minVoxels = static_cast<std::int64_t>(o.minBoneMl / g.voxelMl);
  const auto minCortical = std::max<std::int64_t>(1, static_cast<std::int64_t>(o.minCorticalMl / g.voxelMl));
  for (std::size_t i = 0; i < g.count; ++i) {
    const auto k = c.id[i];
    bone[i] = k >= 0 && c.size[static_cast<std::size_t>(k)] >= minVoxels && cortical[static_cast<std::size_t>(k)] >= minCortical ? 1 : 0;
  }
  return bone;
}

// Otsu's threshold over a 256-bin histogram between the minimum and the 99.5th percentile.
template <class T>
Mask segmentForeground(const core::Volume<T>& image, const Grid& g) {
  const T* v = image.data();
  std::vector<float> sample;
  for (std::size_t i = 0; i < g.count; i += std::max<std::size_t>(1, g.count / 200000)) sample.push_back(static_cast<float>(v[i]));
  std::sort(sample.begin(), sample.end());
  const float lo = sample.front();
  const float hi = sample[std::min(sample.size() - 1, sample.size() * 995 / 1000)];
  Mask fg(g.count, 0);
  if (!(hi > lo)) return fg;
  std::vector<double> hist(256, 0);
  for (const float x : sample) hist[static_cast<std::size_t>(std::clamp((x - lo) / (hi - lo) * 255.0f, 0.0f, 255.0f))] += 1;
  double total = 0, sumAll = 0;
  for (int b = 0; b < 256; ++b) total += hist[static_cast<std::size_t>(b)], sumAll += b * hist[static_cast<std::size_t>(b)];
  double w0 = 0, sum0 = 0, bestVar = -1;
  int bestBin = 0;
  for (int b = 0; b < 255; ++b) {
    w0 += hist[static_cast<std::size_t>(b)];
    sum0 += b * hist[static_cast<std::size_t>(b)];
    const double w1 = total - w0;
    if (w0 <= 0 || w1 <= 0) continue;
    const double m0 = sum0 / w0, m1 = (sumAll - sum0) / w1;
    const double between = w0 * w1 * (m0 - m1) * (m0 - m1);
    if (between > bestVar) {
      bestVar = between;
      bestBin = b;
    }
  }
  const float t = lo + (static_cast<float>(bestBin) + 1.0f) / 255.0f * (hi - lo);
  for (std::size_t i = 0; i < g.count; ++i) fg[i] = static_cast<float>(v[i]) > t ? 1 : 0;
  const Components c = connectedComponents(fg, g.n);
  fg = keepComponent(c, c.largest());
  fillHoles(fg, g.n, g.axial);
  fillHoles(fg, g.n);
  return fg;
}

bool wanted(const std::vector<core::Label>& classes, core::Label l) {
  return classes.empty() || std::find(classes.begin(), classes.end(), l) != classes.end();
}

}  // namespace

bool looksLikeCt(core::ImageView image) {
  return image.visit([](const auto& stored) {
    const std::size_t count = stored.size();
    if (count == 0) return false;
    const std::size_t step = std::max<std::size_t>(1, count / 500000);
    std::size_t below = 0, seen = 0;
    float lowest = 0;
    for (std::size_t i = 0; i < count; i += step, ++seen) {
      const auto x = static_cast<float>(stored.data()[i]);
      below += x < -500 ? 1 : 0;
      lowest = std::min(lowest, x);
    }
    return lowest < -900 && below * 100 >= seen;
  });
}

core::LabelTable autoLabelTable() {
  core::LabelTable t;
  // SNOMED CT codes (DICOM SEG's segmented property category and type), so a SEG of these labels is readable by
  // other software; the colours are told apart at a glance (the lungs and the airway were all cyan, the body and
  // bone both red-brown).
  const core::CodedConcept anatomy{"SCT", "123037004", "Anatomical Structure"};
  auto add = [&](core::Label id, const char* name, core::Rgba c, core::Terminology terms) {
    core::LabelEntry e;
    e.id = id;
    e.name = name;
    e.color = c;
    e.terminology = std::move(terms);
    t.set(e);
  };
  const core::CodedConcept lung{"SCT", "39607008", "Lung"};
  add(kBodyLabel, "body", {128, 174, 128, 255}, {anatomy, {"SCT", "38266002", "Entire body"}, {}, {}, {}});
  add(kLeftLungLabel, "left lung", {90, 130, 230, 255}, {anatomy, lung, {"SCT", "7771000", "Left"}, {}, {}});
  add(kRightLungLabel, "right lung", {26, 144, 153, 255}, {anatomy, lung, {"SCT", "24028007", "Right"}, {}, {}});
  // VISTA-3D's id, name and colour:
  add(kAirwayLabel, "airway", {37, 217, 237, 255}, {anatomy, {"SCT", "110726009", "Trachea and bronchus"}, {}, {}, {}});
  add(kBoneLabel, "bone", {204, 53, 31, 255},
      {{"SCT", "85756007", "Tissue"}, {"SCT", "272673000", "Bone"}, {}, {}, {}});
  return t;
}

namespace {
template <class T>
core::Result<AutoResult> segmentInStorageOrder(const core::Volume<T>& image, const std::vector<core::Label>& classes,
                                               core::ProgressSink* progress, const AutoOptions& options);

template <class T>
core::Result<AutoResult> segmentStored(const core::Volume<T>& image, const std::vector<core::Label>& classes,
                                       core::ProgressSink* progress, const AutoOptions& options) {
  // The steps follow storage axes (the axial axis's slices for hole filling and the trachea search, 6-neighbour
  // flood orders, the lungs' split by breadth-first growth, component tie-breaks), so they run on the canonical
  // storage order (core/axis_order.h, an exact voxel permutation) and the labels are mapped back: the same scan
  // stored with other axes gets the same labels. An image already in that order (most CT) is not copied.
  const core::AxisOrder order = image.size() == 0 ? core::AxisOrder{} : core::canonicalAxisOrder(image.geometry());
  return core::withAxisOrder(image, order, [&](const core::Volume<T>& canonical) -> core::Result<AutoResult> {
    if (order.isIdentity()) return segmentInStorageOrder(canonical, classes, progress, options);
    try {
      auto r = segmentInStorageOrder(canonical, classes, progress, options);
      if (!r) return r;
      r->voxels = core::restoreBox<core::Label>(r->voxels, canonical.geometry().fullBox(), image.geometry().dimensions(),
                                                order);
      return r;
    } catch (const std::bad_alloc&) {
      return core::makeError(core::ErrorCode::OutOfMemory, "automatic segmentation", "out of memory");
    }
  });
}
}  // namespace

core::Result<AutoResult> segmentAutomatically(core::ImageView image, const std::vector<core::Label>& classes,
                                              core::ProgressSink* progress, const AutoOptions& options) {
  // In the stored type (issue 27): every step compares voxels with thresholds or collects them as float, which is
  // exact for the integer types, so an int16 CT gives the labels of its float32 copy without that copy.
  return image.visit([&](const auto& stored) { return segmentStored(stored, classes, progress, options); });
}

namespace {
template <class T>
core::Result<AutoResult> segmentInStorageOrder(const core::Volume<T>& image, const std::vector<core::Label>& classes,
                                               core::ProgressSink* progress, const AutoOptions& options) {
  const auto table = autoLabelTable();
  for (const auto l : classes)
    if (!table.contains(l))
      return core::makeError(core::ErrorCode::InvalidArgument, "automatic segmentation",
                             "the classic engine does not produce label " + std::to_string(l) +
                                 " (it makes body 200, left lung 201, right lung 202, airway 132, bone 21)");
  if (image.size() == 0) return core::makeError(core::ErrorCode::InvalidArgument, "automatic segmentation", "the image is empty");
  const auto cancel = [] { return core::makeError(core::ErrorCode::Cancelled, "automatic segmentation", "cancelled"); };
  try {
    const Grid g = gridOf(image);
    AutoResult r;
    r.ct = looksLikeCt(image);
    r.voxels.assign(g.count, 0);
    auto paint = [&](const Mask& m, core::Label l) {
      for (std::size_t i = 0; i < g.count; ++i)
        if (m[i]) r.voxels[i] = l;
      r.produced.push_back(l);
    };
    if (!r.ct) {
      if (!wanted(classes, kBodyLabel))
        return core::makeError(core::ErrorCode::InvalidArgument, "automatic segmentation",
                               "this image is not CT (no air in Hounsfield units); only the body (200) can be made");
      report(progress, 0.1, "foreground");
      paint(segmentForeground(image, g), kBodyLabel);
      report(progress, 1.0, "done");
      return r;
    }
    report(progress, 0.05, "body");
    const Mask body = segmentBody(image, g, options);
    if (cancelled(progress)) return cancel();
    if (wanted(classes, kBodyLabel)) paint(body, kBodyLabel);
    const bool lungs = wanted(classes, kLeftLungLabel) || wanted(classes, kRightLungLabel);
    Mask airways(g.count, 0);
    if (lungs || wanted(classes, kAirwayLabel)) {
      report(progress, 0.35, "airways");
      airways = segmentAirways(image, g, body);
      if (cancelled(progress)) return cancel();
    }
    if (lungs) {
      report(progress, 0.5, "lungs");
      const auto sides = segmentLungs(image, g, body, airways, options);
      if (cancelled(progress)) return cancel();
      Mask left(g.count), right(g.count);
      for (std::size_t i = 0; i < g.count; ++i) {
        left[i] = sides[i] == 1 ? 1 : 0;
        right[i] = sides[i] == 2 ? 1 : 0;
      }
      if (wanted(classes, kLeftLungLabel)) paint(left, kLeftLungLabel);
      if (wanted(classes, kRightLungLabel)) paint(right, kRightLungLabel);
    }
    if (wanted(classes, kAirwayLabel)) paint(airways, kAirwayLabel);
    if (wanted(classes, kBoneLabel)) {
      report(progress, 0.75, "bone");
      paint(segmentBone(image, g, body, options), kBoneLabel);
      if (cancelled(progress)) return cancel();
    }
    report(progress, 1.0, "done");
    return r;
  } catch (const std::bad_alloc&) {
    return core::makeError(core::ErrorCode::OutOfMemory, "automatic segmentation",
                           "out of memory (the classic engine needs about 12 bytes per voxel)");
  }
}

}  // namespace

}  // namespace delineate::inference::classic
