#include "inference/click_evaluator.h"

#include "core/axis_order.h"
#include "core/morphology.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <new>
#include <optional>

namespace delineate::inference {
namespace {

using core::Index3;
using core::IndexBox;

std::int64_t extent(const IndexBox& b, std::size_t a) { return b.max[a] - b.min[a] + 1; }

// The largest 6-connected component of the voxels equal to `value` in m over box `b`, as a mask over its own tight
// box.
bool largestComponent(const std::vector<std::uint8_t>& m, const IndexBox& b, std::uint8_t value,
                      std::vector<std::uint8_t>& outMask, IndexBox& outBox, std::size_t& outCount) {
  const core::Size3 n{extent(b, 0), extent(b, 1), extent(b, 2)};
  core::Mask selected(m.size());
  for (std::size_t i = 0; i < m.size(); ++i) selected[i] = m[i] == value ? 1 : 0;
  const core::Components c = core::connectedComponents(selected, n);
  const std::int32_t best = c.largest();
  if (best < 0) return false;
  auto at = [&](std::size_t i) {
    const auto j = static_cast<std::int64_t>(i);
    return Index3{b.min[0] + j % n[0], b.min[1] + (j / n[0]) % n[1], b.min[2] + j / (n[0] * n[1])};
  };
  IndexBox tight;
  for (std::size_t i = 0; i < m.size(); ++i)
    if (c.id[i] == best) tight.include(at(i));
  outBox = tight;
  outMask.assign(static_cast<std::size_t>(tight.voxelCount()), 0);
  const std::int64_t tx = extent(tight, 0), ty = extent(tight, 1);
  for (std::size_t i = 0; i < m.size(); ++i)
    if (c.id[i] == best) {
      const Index3 p = at(i);
      outMask[static_cast<std::size_t>(((p[2] - tight.min[2]) * ty + (p[1] - tight.min[1])) * tx + (p[0] - tight.min[0]))] = 1;
    }
  outCount = static_cast<std::size_t>(c.size[static_cast<std::size_t>(best)]);
  return true;
}

// splitmix64: a fixed sequence on every platform (the standard distributions are not).
std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// A voxel of `region` (over `box`) at least `fraction` of its deepest depth inside it, drawn with `seed`, in the
// canonical storage order so that the draw does not depend on how the scan is stored.
bool interiorPoint(const std::vector<std::uint8_t>& region, const IndexBox& box, const core::Vec3& spacingMm,
                   double fraction, std::uint64_t seed, Index3& out) {
  const core::Size3 n{extent(box, 0), extent(box, 1), extent(box, 2)};
  if (std::none_of(region.begin(), region.end(), [](std::uint8_t v) { return v != 0; })) return false;
  const auto d = core::squaredDistanceToBackground(region, n, spacingMm, true);
  float deepest = 0;
  for (std::size_t i = 0; i < d.size(); ++i)
    if (region[i]) deepest = std::max(deepest, d[i]);
  const float floor = static_cast<float>(fraction * fraction) * deepest;  // squared distances
  std::vector<std::size_t> candidates;
  for (std::size_t i = 0; i < d.size(); ++i)
    if (region[i] && d[i] >= floor) candidates.push_back(i);
  const auto i = static_cast<std::int64_t>(candidates[mix(seed) % candidates.size()]);
  out = Index3{box.min[0] + i % n[0], box.min[1] + (i / n[0]) % n[1], box.min[2] + i / (n[0] * n[1])};
  return true;
}

// A stroke through `at` along the medial axis of `region` (over `box`) in the slice across `axis` through `at`: the
// line through it along the slice part's principal direction (in mm), kept while it stays inside the part at least a
// third of `at`'s depth there.
Prompt strokeThrough(const std::vector<std::uint8_t>& region, const IndexBox& box, const Index3& at, int axis,
                     const core::Geometry& g) {
  const auto ax = static_cast<std::size_t>(axis);
  const std::size_t u = (ax + 1) % 3, v = (ax + 2) % 3;
  const core::Vec3 sp = g.spacingMm();
  const std::int64_t nu = extent(box, u), nv = extent(box, v);
  auto inRegion = [&](std::int64_t cu, std::int64_t cv) {
    if (cu < box.min[u] || cu > box.max[u] || cv < box.min[v] || cv > box.max[v]) return false;
    Index3 q = at;
    q[u] = cu;
    q[v] = cv;
    const std::size_t i = static_cast<std::size_t>(((q[2] - box.min[2]) * extent(box, 1) + (q[1] - box.min[1])) * extent(box, 0) + (q[0] - box.min[0]));
    return region[i] != 0;
  };
  // The slice's part, its depth map and its principal direction.
  core::Mask slice(static_cast<std::size_t>(nu * nv), 0);
  double su = 0, sv = 0, suu = 0, svv = 0, suv = 0, count = 0;
  for (std::int64_t cv = 0; cv < nv; ++cv)
    for (std::int64_t cu = 0; cu < nu; ++cu)
      if (inRegion(box.min[u] + cu, box.min[v] + cv)) {
        slice[static_cast<std::size_t>(cv * nu + cu)] = 1;
        const double x = static_cast<double>(cu) * sp[u], y = static_cast<double>(cv) * sp[v];
        su += x;
        sv += y;
        suu += x * x;
        svv += y * y;
        suv += x * y;
        count += 1;
      }
  const auto depth = core::squaredDistanceToBackground(slice, core::Size3{nu, nv, 1}, core::Vec3{sp[u], sp[v], 1e9}, true);  // the slice's faces are no boundary
  auto depthAt = [&](std::int64_t cu, std::int64_t cv) {
    return depth[static_cast<std::size_t>((cv - box.min[v]) * nu + (cu - box.min[u]))];
  };
  double du = 1, dv = 0;
  if (count > 1) {
    const double mu = su / count, mv = sv / count;
    const double cuu = suu / count - mu * mu, cvv = svv / count - mv * mv, cuv = suv / count - mu * mv;
    const double angle = 0.5 * std::atan2(2 * cuv, cuu - cvv);
    du = std::cos(angle);
    dv = std::sin(angle);
  }
  const float floor = depthAt(at[u], at[v]) / 9.0f;  // a third of the depth, squared
  const double step = 0.5 * std::min(sp[u], sp[v]);
  Prompt p;
  p.kind = Prompt::Kind::Scribble;
  p.normalLps = core::Vec3{g.direction()(0, axis), g.direction()(1, axis), g.direction()(2, axis)};
  Index3 ends[2] = {at, at};
  for (int side = 0; side < 2; ++side) {
    const double sign = side == 0 ? -1.0 : 1.0;
    for (double t = step;; t += step) {
      const std::int64_t cu = at[u] + std::llround(sign * t * du / sp[u]);
      const std::int64_t cv = at[v] + std::llround(sign * t * dv / sp[v]);
      if (!inRegion(cu, cv) || depthAt(cu, cv) < floor) break;
      ends[side][u] = cu;
      ends[side][v] = cv;
    }
  }
  p.pointsLps = {g.indexToLps(ends[0]), g.indexToLps(at), g.indexToLps(ends[1])};
  return p;
}

}  // namespace

bool deepestPoint(const std::vector<std::uint8_t>& region, const IndexBox& box, const core::Vec3& spacingMm,
                  DeepestPoint& out) {
  const core::Size3 n{extent(box, 0), extent(box, 1), extent(box, 2)};
  if (std::none_of(region.begin(), region.end(), [](std::uint8_t v) { return v != 0; })) return false;
  // The box's own border counts as boundary: voxels outside it are not part of the region.
  const auto d = core::squaredDistanceToBackground(region, n, spacingMm, true);
  float best = -1;
  std::size_t at = 0;
  for (std::size_t i = 0; i < d.size(); ++i)
    if (region[i] && d[i] > best) {
      best = d[i];
      at = i;
    }
  const auto i = static_cast<std::int64_t>(at);
  out.voxel = Index3{box.min[0] + i % n[0], box.min[1] + (i / n[0]) % n[1], box.min[2] + i / (n[0] * n[1])};
  out.depthMm = std::sqrt(static_cast<double>(best));
  return true;
}

double diceOf(const ObjectMask& mask, const core::Volume<std::uint8_t>& reference) {
  std::size_t ref = 0, pred = 0, both = 0;
  for (std::size_t i = 0; i < reference.size(); ++i) ref += reference[i] ? 1 : 0;
  const auto dims = reference.geometry().dimensions();
  if (!mask.box.empty()) {
    std::size_t o = 0;
    for (std::int64_t z = mask.box.min[2]; z <= mask.box.max[2]; ++z)
      for (std::int64_t y = mask.box.min[1]; y <= mask.box.max[1]; ++y)
        for (std::int64_t x = mask.box.min[0]; x <= mask.box.max[0]; ++x, ++o) {
          if (!mask.voxels[o]) continue;
          ++pred;
          if (reference[static_cast<std::size_t>((z * dims[1] + y) * dims[0] + x)]) ++both;
        }
  }
  return ref + pred == 0 ? 1.0 : 2.0 * static_cast<double>(both) / static_cast<double>(ref + pred);
}

core::Result<ClickEvaluation> simulateClicks(InteractiveSession& session, const core::Volume<std::uint8_t>& source,
                                             int clicks, core::ProgressSink* progress, const ClickProtocol& protocol) {
  // The protocol runs on the canonical storage order (core/axis_order.h): the deepest point and the largest error
  // region break ties by storage index, so the same scan stored with other axes would get other clicks.
  const core::AxisOrder order = core::canonicalAxisOrder(source.geometry());
  const core::Size3 sourceDims = source.geometry().dimensions();
  std::optional<core::Volume<std::uint8_t>> reordered;
  if (!order.isIdentity()) {
    auto r = core::reorderedVolume(source, order);
    if (!r) return r.error();
    reordered = std::move(r).value();
  }
  const core::Volume<std::uint8_t>& reference = reordered ? *reordered : source;
  auto objectInOrder = [&]() {
    ObjectMask m = session.mask();
    if (order.isIdentity() || m.box.empty()) return m;
    ObjectMask c;
    c.box = core::reorderedBoxOf(m.box, sourceDims, order);
    c.voxels = core::reorderBox<std::uint8_t>(m.voxels, m.box, m.box, sourceDims, order);
    return c;
  };
  const auto& g = reference.geometry();
  const auto dims = g.dimensions();
  ClickEvaluation eval;
  IndexBox refBox;
  for (std::int64_t z = 0; z < dims[2]; ++z)
    for (std::int64_t y = 0; y < dims[1]; ++y)
      for (std::int64_t x = 0; x < dims[0]; ++x)
        if (reference[static_cast<std::size_t>((z * dims[1] + y) * dims[0] + x)]) {
          refBox.include(Index3{x, y, z});
          ++eval.referenceVoxels;
        }
  if (eval.referenceVoxels == 0)
    return core::makeError(core::ErrorCode::InvalidArgument, "reference", "the reference object is empty");
  eval.startDice = session.mask().box.empty() ? 0.0 : diceOf(session.mask(), source);
  // The axial axis (nearest the patient's S) of the canonical grid, and its LPS direction: boxes and strokes are drawn
  // in axial slices.
  const int axial = nearestAxis(g, core::Vec3{0, 0, 1});
  const auto ax = static_cast<std::size_t>(axial);
  const core::Vec3 axialLps{g.direction()(0, axial), g.direction()(1, axial), g.direction()(2, axial)};
  auto record = [&](ClickRecord rec, const Index3& voxel) -> core::Status {
    rec.voxel = order.isIdentity() ? voxel : core::sourceIndexOf(voxel, sourceDims, order);
    rec.point.positive = rec.prompt.positive;
    rec.point.pointLps = rec.prompt.pointsLps.front();
    const auto t0 = std::chrono::steady_clock::now();
    if (core::Status s = session.addPrompt(rec.prompt, progress); !s) return s;
    rec.latencyMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    rec.dice = diceOf(session.mask(), source);
    eval.clicks.push_back(rec);
    return core::Status::success();
  };
  try {
    const int total = clicks + (protocol.prompts == PromptProtocol::Box ? 1 : 0);
    for (int k = 0; k < total; ++k) {
      if (k == 0 && protocol.prompts == PromptProtocol::Box) {
        // The reference's largest axial slice (the first of equals) and its bounding rectangle there.
        std::vector<std::size_t> perSlice(static_cast<std::size_t>(dims[ax]), 0);
        for (std::int64_t z = refBox.min[2]; z <= refBox.max[2]; ++z)
          for (std::int64_t y = refBox.min[1]; y <= refBox.max[1]; ++y)
            for (std::int64_t x = refBox.min[0]; x <= refBox.max[0]; ++x)
              if (reference[static_cast<std::size_t>((z * dims[1] + y) * dims[0] + x)]) ++perSlice[static_cast<std::size_t>(Index3{x, y, z}[ax])];
        const auto slice = static_cast<std::int64_t>(std::max_element(perSlice.begin(), perSlice.end()) - perSlice.begin());
        IndexBox rect;
        IndexBox scan = refBox;
        scan.min[ax] = scan.max[ax] = slice;
        for (std::int64_t z = scan.min[2]; z <= scan.max[2]; ++z)
          for (std::int64_t y = scan.min[1]; y <= scan.max[1]; ++y)
            for (std::int64_t x = scan.min[0]; x <= scan.max[0]; ++x)
              if (reference[static_cast<std::size_t>((z * dims[1] + y) * dims[0] + x)]) rect.include(Index3{x, y, z});
        ClickRecord rec;
        rec.prompt.kind = Prompt::Kind::Box;
        rec.prompt.positive = true;
        rec.prompt.pointsLps = {g.indexToLps(rect.min), g.indexToLps(rect.max)};
        rec.prompt.normalLps = axialLps;
        if (core::Status s = record(rec, Index3{(rect.min[0] + rect.max[0]) / 2, (rect.min[1] + rect.max[1]) / 2,
                                                (rect.min[2] + rect.max[2]) / 2});
            !s)
          return s.error();
        continue;
      }
      // Error map over the union of the reference's and the object's boxes: 1 missed, 2 spurious.
      const ObjectMask m = objectInOrder();
      IndexBox b = refBox;
      if (!m.box.empty()) b.include(m.box);
      std::vector<std::uint8_t> err(static_cast<std::size_t>(b.voxelCount()), 0);
      std::size_t o = 0;
      for (std::int64_t z = b.min[2]; z <= b.max[2]; ++z)
        for (std::int64_t y = b.min[1]; y <= b.max[1]; ++y)
          for (std::int64_t x = b.min[0]; x <= b.max[0]; ++x, ++o) {
            const bool r = reference[static_cast<std::size_t>((z * dims[1] + y) * dims[0] + x)] != 0;
            const bool p = m.contains(Index3{x, y, z});
            err[o] = r && !p ? 1 : (!r && p ? 2 : 0);
          }
      std::vector<std::uint8_t> missed, spurious;
      IndexBox missedBox, spuriousBox;
      std::size_t missedCount = 0, spuriousCount = 0;
      const bool hasMissed = largestComponent(err, b, 1, missed, missedBox, missedCount);
      const bool hasSpurious = largestComponent(err, b, 2, spurious, spuriousBox, spuriousCount);
      if (!hasMissed && !hasSpurious) break;  // perfect
      const bool positive = hasMissed && (!hasSpurious || missedCount >= spuriousCount);
      const std::vector<std::uint8_t>& region = positive ? missed : spurious;
      const IndexBox& regionBox = positive ? missedBox : spuriousBox;
      DeepestPoint deep;
      if (k == 0 && m.box.empty() && protocol.first == FirstClick::Interior && protocol.prompts == PromptProtocol::Clicks)
        interiorPoint(missed, missedBox, g.spacingMm(), protocol.interiorDepthFraction, protocol.seed, deep.voxel);
      else
        deepestPoint(region, regionBox, g.spacingMm(), deep);
      ClickRecord rec;
      rec.prompt.positive = positive;
      if (protocol.prompts == PromptProtocol::Scribble) {
        rec.prompt = strokeThrough(region, regionBox, deep.voxel, axial, g);
        rec.prompt.positive = positive;
      } else {
        rec.prompt.kind = Prompt::Kind::Point;
        rec.prompt.pointsLps = {g.indexToLps(deep.voxel)};
      }
      if (core::Status s = record(rec, deep.voxel); !s) return s.error();
    }
  } catch (const std::bad_alloc&) {
    return core::makeError(core::ErrorCode::OutOfMemory, "click evaluation", "out of memory");
  }
  return eval;
}

}  // namespace delineate::inference
