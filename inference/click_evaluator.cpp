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
  try {
    for (int k = 0; k < clicks; ++k) {
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
      DeepestPoint deep;
      if (k == 0 && protocol.first == FirstClick::Interior)
        interiorPoint(missed, missedBox, g.spacingMm(), protocol.interiorDepthFraction, protocol.seed, deep.voxel);
      else
        deepestPoint(positive ? missed : spurious, positive ? missedBox : spuriousBox, g.spacingMm(), deep);
      ClickRecord rec;
      rec.voxel = order.isIdentity() ? deep.voxel : core::sourceIndexOf(deep.voxel, sourceDims, order);
      rec.point.positive = positive;
      rec.point.pointLps = g.indexToLps(deep.voxel);
      const auto t0 = std::chrono::steady_clock::now();
      if (core::Status s = session.addPoint(rec.point, progress); !s) return s.error();
      rec.latencyMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      rec.dice = diceOf(session.mask(), source);
      eval.clicks.push_back(rec);
    }
  } catch (const std::bad_alloc&) {
    return core::makeError(core::ErrorCode::OutOfMemory, "click evaluation", "out of memory");
  }
  return eval;
}

}  // namespace delineate::inference
