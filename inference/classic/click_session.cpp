#include "inference/classic/click_session.h"

#include "core/morphology.h"
#include "inference/classic/geodesic.h"
#include "inference/classic/working_grid.h"

#include <algorithm>
#include <type_traits>
#include <cmath>
#include <cstdint>
#include <limits>
#include <new>
#include <utility>

namespace delineate::inference::classic {
namespace {

using core::fillHoles;
using core::Index3;
using core::IndexBox;

// Median of v (reordered).
float medianOf(std::vector<float>& v) {
  if (v.empty()) return 0;
  auto mid = v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2);
  std::nth_element(v.begin(), mid, v.end());
  return *mid;
}

struct IntensityModel {
  float median = 0;
  float spread = 0;
};

}  // namespace

// Offsets of a ball of `radiusMm` (at most `maxVoxels` per axis), nearest first.
struct Offset {
  std::int64_t d[3];
  float mm;
};
struct ClickSession::OffsetCache {
  core::Vec3 spacingMm{0, 0, 0};
  std::vector<Offset> offsets;
};

namespace {

std::vector<Offset> ballOffsets(const core::Vec3& sp, double radiusMm, std::int64_t maxVoxels) {
  std::int64_t rad[3];
  for (std::size_t a = 0; a < 3; ++a) rad[a] = std::min<std::int64_t>(maxVoxels, static_cast<std::int64_t>(radiusMm / sp[a]));
  std::vector<Offset> out;
  for (std::int64_t z = -rad[2]; z <= rad[2]; ++z)
    for (std::int64_t y = -rad[1]; y <= rad[1]; ++y)
      for (std::int64_t x = -rad[0]; x <= rad[0]; ++x) {
        const double dx = static_cast<double>(x) * sp[0], dy = static_cast<double>(y) * sp[1],
                     dz = static_cast<double>(z) * sp[2];
        const double mm = std::sqrt(dx * dx + dy * dy + dz * dz);
        if (mm <= radiusMm) out.push_back({{x, y, z}, static_cast<float>(mm)});
      }
  std::sort(out.begin(), out.end(), [](const Offset& a, const Offset& b) { return a.mm < b.mm; });
  return out;
}

// The fraction of the grid's voxels (exact repeats of their x neighbour, such as a masked background, left out;
// every third voxel is plenty) that lie in a click's band.
double bandFraction(const WorkingGrid& g, const IntensityModel& mdl, float k) {
  std::size_t in = 0, all = 0;
  for (std::size_t i = 0; i + 1 < g.value.size(); i += 3) {
    if (g.value[i] == g.value[i + 1]) continue;
    ++all;
    if (std::fabs(g.value[i] - mdl.median) <= k * mdl.spread) ++in;
  }
  return all ? static_cast<double>(in) / static_cast<double>(all) : 0.0;
}

// How far (mm) the surroundings of a click look like it: the radius at which more than `outsideFraction` of the ball
// lies more than `k` spreads from the click's median, or at which the ball reaches the object of the earlier clicks
// (a click beside the object marks a missing part about as wide as its distance to the object). Infinity when
// neither happens within the offsets up to `scanMm`.
float clickDepth(const Index3& seed, const IntensityModel& mdl, float k, const WorkingGrid& g,
                 const std::vector<Offset>& offsets, double scanMm, const std::vector<std::uint8_t>* previous,
                 double outsideFraction) {
  std::size_t seen = 0, outside = 0;
  for (const auto& o : offsets) {
    if (o.mm > scanMm) break;
    const Index3 q{seed[0] + o.d[0], seed[1] + o.d[1], seed[2] + o.d[2]};
    if (q[0] < 0 || q[1] < 0 || q[2] < 0 || q[0] >= g.n[0] || q[1] >= g.n[1] || q[2] >= g.n[2]) continue;
    const std::size_t i = g.index(q[0], q[1], q[2]);
    if (previous && (*previous)[i]) return o.mm;
    ++seen;
    if (std::fabs(g.value[i] - mdl.median) > k * mdl.spread) ++outside;
    if (seen >= 27 && static_cast<double>(outside) > outsideFraction * static_cast<double>(seen)) return o.mm;
  }
  return std::numeric_limits<float>::infinity();
}

// The voxels of the working grid within reach of some positive click (`seedAt` in grid coordinates); empty (no
// limit) when a positive click's reach is unbounded.
std::vector<std::uint8_t> reachableMask(const std::vector<Index3>& seedAt, const std::vector<bool>& positive,
                                        const std::vector<float>& reach, const std::vector<IndexBox>& bounds,
                                        const WorkingGrid& r) {
  const core::Vec3& sp = r.spacingMm;
  for (std::size_t k = 0; k < seedAt.size(); ++k)
    if (positive[k] && !std::isfinite(reach[k]) && bounds[k].empty()) return {};
  std::vector<std::uint8_t> out(r.size(), 0);
  for (std::size_t k = 0; k < seedAt.size(); ++k) {
    if (!positive[k]) continue;
    const double rr = std::isfinite(reach[k]) ? static_cast<double>(reach[k]) : 1e30;
    std::int64_t lo[3], hi[3];
    for (std::size_t a = 0; a < 3; ++a) {
      const double ext = std::ceil(rr / sp[a]);
      lo[a] = ext >= static_cast<double>(r.n[a]) ? 0 : std::max<std::int64_t>(0, seedAt[k][a] - static_cast<std::int64_t>(ext));
      hi[a] = ext >= static_cast<double>(r.n[a]) ? r.n[a] - 1 : std::min<std::int64_t>(r.n[a] - 1, seedAt[k][a] + static_cast<std::int64_t>(ext));
      if (!bounds[k].empty()) {
        lo[a] = std::max(lo[a], bounds[k].min[a]);
        hi[a] = std::min(hi[a], bounds[k].max[a]);
      }
    }
    for (std::int64_t z = lo[2]; z <= hi[2]; ++z)
      for (std::int64_t y = lo[1]; y <= hi[1]; ++y)
        for (std::int64_t x = lo[0]; x <= hi[0]; ++x) {
          const double dx = static_cast<double>(x - seedAt[k][0]) * sp[0];
          const double dy = static_cast<double>(y - seedAt[k][1]) * sp[1];
          const double dz = static_cast<double>(z - seedAt[k][2]) * sp[2];
          if (dx * dx + dy * dy + dz * dz <= rr * rr) out[static_cast<std::size_t>((z * r.n[1] + y) * r.n[0] + x)] = 1;
        }
  }
  return out;
}

// The intensity model of each positive click: median and spread of the working grid around it (over
// `radius` voxels along every axis but the thick one), the spread kept between `noiseFloor` and `maxSpread` x
// `noiseFloor` noise levels: a click near the object's edge samples some of the outside too, and an unbounded spread would let
// the object leak.
std::vector<IntensityModel> intensityModels(const WorkingGrid& g, const std::vector<Index3>& seedAt,
                                            const std::vector<bool>& positive, std::int64_t radius, int thickAxis,
                                            double noiseFloor, double maxSpread) {
  std::vector<IntensityModel> models;
  for (std::size_t k = 0; k < seedAt.size(); ++k) {
    if (!positive[k]) continue;
    std::vector<float> samples;
    Index3 lo{}, hi{};
    for (std::size_t a = 0; a < 3; ++a) {
      const std::int64_t rad = static_cast<int>(a) == thickAxis ? 0 : radius;
      lo[a] = std::max<std::int64_t>(0, seedAt[k][a] - rad);
      hi[a] = std::min(g.n[a] - 1, seedAt[k][a] + rad);
    }
    for (std::int64_t z = lo[2]; z <= hi[2]; ++z)
      for (std::int64_t y = lo[1]; y <= hi[1]; ++y)
        for (std::int64_t x = lo[0]; x <= hi[0]; ++x) samples.push_back(g.value[g.index(x, y, z)]);
    IntensityModel mdl;
    mdl.median = medianOf(samples);
    for (auto& v : samples) v = std::fabs(v - mdl.median);
    const float floorSpread = static_cast<float>(noiseFloor) * g.noise;
    mdl.spread = std::clamp(medianOf(samples) * 1.4826f, floorSpread, static_cast<float>(maxSpread) * floorSpread);
    models.push_back(mdl);
  }
  return models;
}

// The voxels within some positive click's band and `factor` times its reach.
std::vector<std::uint8_t> sharedBand(const WorkingGrid& g, const std::vector<GeodesicSeed>& seeds, double factor) {
  std::vector<std::uint8_t> out(g.size(), 0);
  for (const auto& sd : seeds) {
    if (!sd.positive) continue;
    const double rr = static_cast<double>(sd.reachMm) * factor;
    std::int64_t lo[3], hi[3];
    for (std::size_t a = 0; a < 3; ++a) {
      const double ext = std::ceil(rr / g.spacingMm[a]);
      lo[a] = ext >= static_cast<double>(g.n[a]) ? 0 : std::max<std::int64_t>(0, sd.at[a] - static_cast<std::int64_t>(ext));
      hi[a] = ext >= static_cast<double>(g.n[a]) ? g.n[a] - 1 : std::min(g.n[a] - 1, sd.at[a] + static_cast<std::int64_t>(ext));
    }
    for (std::int64_t z = lo[2]; z <= hi[2]; ++z)
      for (std::int64_t y = lo[1]; y <= hi[1]; ++y)
        for (std::int64_t x = lo[0]; x <= hi[0]; ++x) {
          const std::size_t i = g.index(x, y, z);
          if (out[i] || g.value[i] < sd.low || g.value[i] > sd.high) continue;
          const double dx = static_cast<double>(x - sd.at[0]) * g.spacingMm[0];
          const double dy = static_cast<double>(y - sd.at[1]) * g.spacingMm[1];
          const double dz = static_cast<double>(z - sd.at[2]) * g.spacingMm[2];
          if (dx * dx + dy * dy + dz * dz <= rr * rr) out[i] = 1;
        }
  }
  return out;
}

// Sets `cell` (the voxels a negative click won itself) to the connected parts (6-neighbourhood) of what the
// recomputation drops (set in `before`, not in `object`) that hold some of the cell. The parts are found within the
// box of the dropped voxels only: a click changes a small region of a large working grid.
void keepPartsWithCell(std::vector<std::uint8_t>& cell, const std::vector<std::uint8_t>& object,
                       const std::vector<std::uint8_t>& before, const WorkingGrid& g) {
  IndexBox box;
  for (std::int64_t z = 0; z < g.n[2]; ++z)
    for (std::int64_t y = 0; y < g.n[1]; ++y)
      for (std::int64_t x = 0; x < g.n[0]; ++x) {
        const std::size_t i = g.index(x, y, z);
        if (before[i] && !object[i]) box.include(Index3{x, y, z});
      }
  if (box.empty()) {
    std::fill(cell.begin(), cell.end(), 0);
    return;
  }
  const core::Size3 n{box.max[0] - box.min[0] + 1, box.max[1] - box.min[1] + 1, box.max[2] - box.min[2] + 1};
  core::Mask changed(static_cast<std::size_t>(box.voxelCount()));
  auto gridIndex = [&](std::size_t o) {
    const auto j = static_cast<std::int64_t>(o);
    return g.index(box.min[0] + j % n[0], box.min[1] + (j / n[0]) % n[1], box.min[2] + j / (n[0] * n[1]));
  };
  for (std::size_t o = 0; o < changed.size(); ++o) {
    const std::size_t i = gridIndex(o);
    changed[o] = before[i] && !object[i];
  }
  const core::Components parts = core::connectedComponents(changed, n);
  std::vector<std::uint8_t> keep(parts.size.size(), 0);
  for (std::size_t o = 0; o < changed.size(); ++o)
    if (parts.id[o] >= 0 && cell[gridIndex(o)]) keep[static_cast<std::size_t>(parts.id[o])] = 1;
  std::fill(cell.begin(), cell.end(), 0);
  for (std::size_t o = 0; o < changed.size(); ++o)
    if (parts.id[o] >= 0 && keep[static_cast<std::size_t>(parts.id[o])]) cell[gridIndex(o)] = 1;
}

// Whether the object reaches a face of the working grid that is not the image's edge.
bool touchesInnerFace(const std::vector<std::uint8_t>& object, const WorkingGrid& g, const core::Size3& dims) {
  for (std::int64_t z = 0; z < g.n[2]; ++z)
    for (std::int64_t y = 0; y < g.n[1]; ++y)
      for (std::int64_t x = 0; x < g.n[0]; ++x) {
        if (!object[g.index(x, y, z)]) continue;
        const Index3 c{x, y, z};
        for (std::size_t a = 0; a < 3; ++a)
          if ((c[a] == 0 && g.box.min[a] > 0) || (c[a] == g.n[a] - 1 && g.box.max[a] < dims[a] - 1)) return true;
      }
  return false;
}

}  // namespace

ClickSession::ClickSession(core::ImageView image, const ClickOptions& options)
    : m_image(image),
      m_options(options),
      m_order(core::canonicalAxisOrder(image.geometry())),
      m_canonical(m_order.isIdentity() ? image.geometry() : core::reorderedGeometry(image.geometry(), m_order)) {}

namespace {
// The object on the image's own grid.
ObjectMask toImageOrder(const ObjectMask& canonical, const core::Size3& imageDims, const core::AxisOrder& order) {
  ObjectMask out;
  if (canonical.box.empty()) return out;
  out.box = core::sourceBoxOf(canonical.box, imageDims, order);
  out.voxels = core::restoreBox<std::uint8_t>(canonical.voxels, canonical.box, imageDims, order);
  return out;
}

}  // namespace

core::Result<std::unique_ptr<ClickSession>> ClickSession::begin(core::ImageView image,
                                                                const ClickOptions& options) {
  if (image.geometry().voxelCount() <= 0)
    return core::makeError(core::ErrorCode::InvalidArgument, "click session", "the image is empty");
  return std::unique_ptr<ClickSession>(new ClickSession(image, options));
}

core::Status ClickSession::setStart(const ObjectMask& start) {
  if (!m_prompts.empty())
    return core::makeError(core::ErrorCode::InvalidArgument, "start object", "the session has prompts already");
  const core::Size3 dims = m_image.geometry().dimensions();
  if (core::Status s = checkStartObject(start, dims); !s) return s;
  try {
    ObjectMask canonical;
    if (m_order.isIdentity() || start.box.empty()) {
      canonical = start;
    } else {
      canonical.box = core::reorderedBoxOf(start.box, dims, m_order);
      canonical.voxels = core::reorderBox<std::uint8_t>(start.voxels, start.box, start.box, dims, m_order);
    }
    m_shown = m_order.isIdentity() ? ObjectMask{} : start;
    m_current = std::move(canonical);
  } catch (const std::bad_alloc&) {
    return core::makeError(core::ErrorCode::OutOfMemory, "start object", "out of memory");
  }
  m_started = true;
  return core::Status::success();
}

std::vector<ClickSession::Seed> ClickSession::boxSeeds(const RasterPrompt& raster) const {
  const IndexBox& b = raster.box;
  // The slice the box was drawn in; for a 3D box the middle slice across its thinnest side (in mm).
  int axis = raster.sliceAxis;
  if (axis < 0) {
    double thinnest = std::numeric_limits<double>::infinity();
    for (int a = 0; a < 3; ++a) {
      const double mm = static_cast<double>(b.max[static_cast<std::size_t>(a)] - b.min[static_cast<std::size_t>(a)] + 1) *
                        m_canonical.spacingMm()[static_cast<std::size_t>(a)];
      if (mm < thinnest) {
        thinnest = mm;
        axis = a;
      }
    }
  }
  const auto ax = static_cast<std::size_t>(axis);
  IndexBox slice = b;
  slice.min[ax] = slice.max[ax] = (b.min[ax] + b.max[ax]) / 2;
  // The grid holds the box's slice and a ring around it, a quarter of the box's side wide (at least 3 voxels): what
  // lies just outside the box is what the object is not.
  IndexBox region = slice;
  for (std::size_t a = 0; a < 3; ++a) {
    if (a == ax) continue;
    const std::int64_t ring = std::max<std::int64_t>(3, (b.max[a] - b.min[a] + 1) / 4);
    region.min[a] = std::max<std::int64_t>(0, region.min[a] - ring);
    region.max[a] = std::min<std::int64_t>(m_canonical.dimensions()[a] - 1, region.max[a] + ring);
  }
  // Its own grid, not the session's cached one: the clicks that follow compute on the 3D region around the box.
  const WorkingGrid g = buildGrid(region);
  const Index3 lo = g.toWorking(region.min), hi = g.toWorking(region.max);
  const Index3 inLo = g.toWorking(slice.min), inHi = g.toWorking(slice.max);
  const core::Size3 n{hi[0] - lo[0] + 1, hi[1] - lo[1] + 1, hi[2] - lo[2] + 1};
  const std::size_t count = static_cast<std::size_t>(n[0] * n[1] * n[2]);
  std::vector<float> value(count);
  std::vector<std::uint8_t> inside(count, 0), central(count, 0);
  float vmin = std::numeric_limits<float>::infinity(), vmax = -vmin;
  for (std::size_t o = 0; o < count; ++o) {
    const auto j = static_cast<std::int64_t>(o);
    const Index3 w{lo[0] + j % n[0], lo[1] + (j / n[0]) % n[1], lo[2] + j / (n[0] * n[1])};
    value[o] = g.value[g.index(w[0], w[1], w[2])];
    vmin = std::min(vmin, value[o]);
    vmax = std::max(vmax, value[o]);
    bool in = true, mid = true;
    for (std::size_t a = 0; a < 3; ++a) {
      if (a == ax) continue;
      if (w[a] < inLo[a] || w[a] > inHi[a]) in = false;
      const std::int64_t span = inHi[a] - inLo[a], c = w[a] - inLo[a];
      if (span >= 3 && (3 * c < span || 3 * c > 2 * span)) mid = false;  // a narrow box is all middle
    }
    inside[o] = in ? 1 : 0;
    central[o] = in && mid ? 1 : 0;
  }
  // Intensity histograms of the inside and of the ring (bins of one noise floor, lightly smoothed): the object's
  // intensities are those the inside holds clearly more of than the ring.
  const float floorSpread = std::max(1e-6f, static_cast<float>(m_options.noiseFloor) * g.noise);
  const float width = std::max(floorSpread, (vmax - vmin) / 512.0f);
  const std::size_t bins = static_cast<std::size_t>((vmax - vmin) / width) + 1;
  std::vector<double> hIn(bins, 0), hOut(bins, 0);
  auto bin = [&](float v) { return std::min(bins - 1, static_cast<std::size_t>((v - vmin) / width)); };
  double nIn = 0, nOut = 0;
  for (std::size_t o = 0; o < count; ++o) {
    (inside[o] ? hIn : hOut)[bin(value[o])] += 1;
    (inside[o] ? nIn : nOut) += 1;
  }
  auto smooth = [&](std::vector<double>& h) {
    std::vector<double> out(h.size(), 0);
    for (std::size_t i = 0; i < h.size(); ++i)
      for (int d = -2; d <= 2; ++d) {
        const auto k = static_cast<std::ptrdiff_t>(i) + d;
        if (k >= 0 && k < static_cast<std::ptrdiff_t>(h.size())) out[i] += h[static_cast<std::size_t>(k)] * (3 - std::abs(d));
      }
    h = std::move(out);
  };
  smooth(hIn);
  smooth(hOut);
  core::Mask object(count, 0);
  for (std::size_t o = 0; o < count; ++o) {
    if (!inside[o]) continue;
    const std::size_t k = bin(value[o]);
    const double pIn = hIn[k] / std::max(1.0, nIn), pOut = hOut[k] / std::max(1.0, nOut);
    // 1.5: on the shared CT and MR sets a box alone gave 0.51 (1.0: 0.50, 2.0: 0.51); box + 5 clicks 0.63 for all.
    object[o] = pIn > 1.5 * pOut + 1e-9 ? 1 : 0;
  }
  // The part of it (in the slice) holding most of the middle third, else the largest.
  const core::Components parts = core::connectedComponents(object, n);
  std::vector<std::size_t> inCentre(parts.size.size(), 0);
  for (std::size_t o = 0; o < count; ++o)
    if (central[o] && parts.id[o] >= 0) ++inCentre[static_cast<std::size_t>(parts.id[o])];
  std::int32_t best = -1;
  for (std::size_t c = 0; c < parts.size.size(); ++c)
    if (best < 0 || inCentre[c] > inCentre[static_cast<std::size_t>(best)] ||
        (inCentre[c] == inCentre[static_cast<std::size_t>(best)] && parts.size[c] > parts.size[static_cast<std::size_t>(best)]))
      best = static_cast<std::int32_t>(c);
  auto toFull = [&](std::size_t o) {
    const auto j = static_cast<std::int64_t>(o);
    const Index3 w{lo[0] + j % n[0], lo[1] + (j / n[0]) % n[1], lo[2] + j / (n[0] * n[1])};
    Index3 full{};
    for (std::size_t a = 0; a < 3; ++a) full[a] = std::clamp(g.box.min[a] + w[a] * g.factor[a] + g.factor[a] / 2, b.min[a], b.max[a]);
    return full;
  };
  Seed base;
  base.positive = true;
  base.extent = b;
  base.bound = b;
  double diag2 = 0;
  const core::Vec3 sp = m_canonical.spacingMm();
  for (std::size_t a = 0; a < 3; ++a) {
    if (static_cast<int>(a) == raster.sliceAxis) {  // a 2D box says nothing of this axis
      base.bound.min[a] = 0;
      base.bound.max[a] = m_canonical.dimensions()[a] - 1;
      continue;
    }
    const double half = 0.5 * static_cast<double>(b.max[a] - b.min[a] + 1) * sp[a];
    diag2 += half * half;
  }
  base.reach = static_cast<float>(std::max(std::sqrt(diag2), 2 * std::min({sp[0], sp[1], sp[2]})));
  std::vector<Seed> seeds;
  if (best < 0 || parts.size[static_cast<std::size_t>(best)] == 0) {
    base.at = Index3{(b.min[0] + b.max[0]) / 2, (b.min[1] + b.max[1]) / 2, (b.min[2] + b.max[2]) / 2};
    seeds.push_back(base);
    return seeds;
  }
  core::Mask part(count, 0);
  std::vector<float> partValues;
  for (std::size_t o = 0; o < count; ++o)
    if (parts.id[o] == best) {
      part[o] = 1;
      partValues.push_back(value[o]);
    }
  // Its band: the part's intensities (5th to 95th percentile) widened by a noise floor; its seeds: the deepest voxel
  // and a few more over its deeper half, so a textured object is entered in several places.
  std::sort(partValues.begin(), partValues.end());
  base.low = partValues[partValues.size() / 20] - floorSpread;
  base.high = partValues[partValues.size() - 1 - partValues.size() / 20] + floorSpread;
  core::Vec3 planeSpacing = g.spacingMm;
  planeSpacing[ax] = 1e9;  // in-plane depth: the slice's faces are no boundary
  const auto depth = core::squaredDistanceToBackground(part, n, planeSpacing, true);
  std::size_t deepestAt = 0;
  float deepest = -1;
  for (std::size_t o = 0; o < count; ++o)
    if (part[o] && depth[o] > deepest) {
      deepest = depth[o];
      deepestAt = o;
    }
  base.at = toFull(deepestAt);
  seeds.push_back(base);
  std::vector<Index3> deep;
  for (std::size_t o = 0; o < count; ++o)
    if (part[o] && o != deepestAt && depth[o] >= 0.25f * deepest) deep.push_back(toFull(o));
  for (const auto& q : spreadVoxels(deep, 4)) {
    Seed more = base;
    more.at = q;
    seeds.push_back(more);
  }
  return seeds;
}

core::Result<std::vector<ClickSession::Seed>> ClickSession::seedsOf(const Prompt& prompt, const RasterPrompt& raster) const {
  std::vector<Seed> seeds;
  const float measured = prompt.positive ? std::numeric_limits<float>::quiet_NaN() : 0.0f;  // NaN: to be measured
  const core::Vec3 sp = m_canonical.spacingMm();
  switch (prompt.kind) {
    case Prompt::Kind::Point:
      seeds.push_back({raster.voxels.front(), prompt.positive, measured, {}, {}});
      break;
    case Prompt::Kind::Scribble: {
      double mm = 0;
      for (std::size_t k = 1; k < raster.voxels.size(); ++k) {
        double d2 = 0;
        for (std::size_t a = 0; a < 3; ++a) {
          const double d = static_cast<double>(raster.voxels[k][a] - raster.voxels[k - 1][a]) * sp[a];
          d2 += d * d;
        }
        mm += std::sqrt(d2);
      }
      const auto count = std::clamp<std::size_t>(static_cast<std::size_t>(mm / m_options.strokeSeedSpacingMm) + 1, 1,
                                                 m_options.maxStrokeSeeds);
      for (const auto& q : spreadVoxels(raster.voxels, count)) {
        seeds.push_back({q, prompt.positive, measured, {}, {}});
        seeds.back().stroke = true;
      }
      break;
    }
    case Prompt::Kind::Lasso: {
      // Seeds over the deepest half of the inside (in its slice), spread in scan order.
      const IndexBox& b = raster.box;
      const core::Size3 n{b.max[0] - b.min[0] + 1, b.max[1] - b.min[1] + 1, b.max[2] - b.min[2] + 1};
      core::Mask inside(static_cast<std::size_t>(b.voxelCount()), 0);
      auto at = [&](const Index3& q) {
        return static_cast<std::size_t>(((q[2] - b.min[2]) * n[1] + (q[1] - b.min[1])) * n[0] + (q[0] - b.min[0]));
      };
      for (const auto& q : raster.voxels) inside[at(q)] = 1;
      core::Vec3 planeSpacing = sp;  // in-plane depth: the slice's faces are no boundary
      planeSpacing[static_cast<std::size_t>(raster.sliceAxis)] = 1e9;
      const auto depth = core::squaredDistanceToBackground(inside, n, planeSpacing, true);
      float deepest = 0;
      for (std::size_t o = 0; o < depth.size(); ++o)
        if (inside[o]) deepest = std::max(deepest, depth[o]);
      std::vector<Index3> deep;
      for (const auto& q : raster.voxels)
        if (depth[at(q)] >= 0.25f * deepest) deep.push_back(q);
      for (const auto& q : spreadVoxels(deep, m_options.maxStrokeSeeds)) {
        seeds.push_back({q, prompt.positive, measured, {}, {}});
        seeds.back().stroke = true;
      }
      break;
    }
    case Prompt::Kind::Box: {
      if (!prompt.positive) break;  // a negative box clears its voxels (below), nothing more
      seeds = boxSeeds(raster);
      break;
    }
  }
  return seeds;
}

core::Status ClickSession::addPrompt(const Prompt& prompt, core::ProgressSink* progress) {
  auto raster = rasterizePrompt(prompt, m_canonical);
  if (!raster) {
    core::Error e = raster.error();
    if (prompt.kind == Prompt::Kind::Point) e.subject = "click";
    return e;
  }
  try {
    auto fresh = seedsOf(prompt, *raster);
    if (!fresh) return fresh.error();
    std::vector<Seed> seeds = m_seeds;
    const std::size_t firstNew = seeds.size();
    seeds.insert(seeds.end(), fresh->begin(), fresh->end());
    // A prompt starts from the region its predecessor grew to, so a large object is not grown again every time.
    double margin = m_margins.empty() ? m_options.initialMarginMm : m_margins.back();
    const bool hasObject = !m_prompts.empty() || m_started;
    const ObjectMask* previous = hasObject ? &m_current : nullptr;
    ObjectMask next;
    const bool anyPositive = std::any_of(seeds.begin(), seeds.end(), [](const Seed& sd) { return sd.positive; });
    if (!prompt.positive && !anyPositive && previous && !previous->box.empty() && !fresh->empty()) {
      // Nothing competes with a negative prompt on a start object: it removes the connected parts of the object that
      // the same prompt, positive, would grow on its own.
      std::vector<Seed> probe = *fresh;
      for (auto& sd : probe) {
        sd.positive = true;
        sd.reach = std::numeric_limits<float>::quiet_NaN();
      }
      double probeMargin = m_options.initialMarginMm;
      auto region = compute(probe, 0, nullptr, probeMargin, progress);
      if (!region) return region.error();
      ObjectMask within = std::move(region).value();
      // Only the region's voxels in the object, in the parts (of object ∩ region) that hold a seed.
      if (!within.box.empty()) {
        const IndexBox& b = within.box;
        const core::Size3 n{b.max[0] - b.min[0] + 1, b.max[1] - b.min[1] + 1, b.max[2] - b.min[2] + 1};
        core::Mask both(within.voxels.size(), 0);
        std::size_t o = 0;
        for (std::int64_t z = b.min[2]; z <= b.max[2]; ++z)
          for (std::int64_t y = b.min[1]; y <= b.max[1]; ++y)
            for (std::int64_t x = b.min[0]; x <= b.max[0]; ++x, ++o)
              both[o] = within.voxels[o] && previous->contains(Index3{x, y, z}) ? 1 : 0;
        const core::Components parts = core::connectedComponents(both, n);
        std::vector<std::uint8_t> keep(parts.size.size(), 0);
        for (const auto& sd : probe)
          if (b.contains(sd.at)) {
            const auto i = static_cast<std::size_t>(((sd.at[2] - b.min[2]) * n[1] + (sd.at[1] - b.min[1])) * n[0] + (sd.at[0] - b.min[0]));
            if (parts.id[i] >= 0) keep[static_cast<std::size_t>(parts.id[i])] = 1;
          }
        for (std::size_t i = 0; i < both.size(); ++i) within.voxels[i] = parts.id[i] >= 0 && keep[static_cast<std::size_t>(parts.id[i])] ? 1 : 0;
      }
      next = combineMasks(*previous, within, false);
    } else if (fresh->empty() || (!anyPositive && !(previous && !previous->box.empty()))) {
      next = previous ? *previous : ObjectMask{};  // a negative box alone, or negative prompts on nothing
    } else {
      auto mask = compute(seeds, firstNew, previous, margin, progress);
      if (!mask) return mask.error();
      next = std::move(mask).value();
    }
    // A scribble's and a lasso's voxels (a negative box's too) are what the user said, for certain.
    if (prompt.kind != Prompt::Kind::Point && (prompt.kind != Prompt::Kind::Box || !prompt.positive)) {
      next = combineMasks(next, maskOfVoxels(*raster), prompt.positive);
    }
    // Everything that allocates happens before the session changes, so running out of memory leaves it as it was.
    ObjectMask shown;
    if (!m_order.isIdentity()) shown = toImageOrder(next, m_image.geometry().dimensions(), m_order);
    PackedMask before = packMask(m_current);
    Prompt kept = prompt;
    m_history.reserve(m_history.size() + 1);
    m_prompts.reserve(m_prompts.size() + 1);
    m_seedCounts.reserve(m_seedCounts.size() + 1);
    m_margins.reserve(m_margins.size() + 1);
    m_history.push_back(std::move(before));
    m_prompts.push_back(std::move(kept));
    m_seedCounts.push_back(fresh->size());
    m_seeds = std::move(seeds);
    m_margins.push_back(margin);
    m_current = std::move(next);
    m_shown = std::move(shown);
  } catch (const std::bad_alloc&) {
    return core::makeError(core::ErrorCode::OutOfMemory, "click", "out of memory keeping the object for undo");
  }
  return core::Status::success();
}

bool ClickSession::undoPrompt() {
  if (m_prompts.empty() || m_history.empty()) return false;
  ObjectMask previous, shown;
  try {
    previous = unpackMask(m_history.back());
    if (!m_order.isIdentity()) shown = toImageOrder(previous, m_image.geometry().dimensions(), m_order);
  } catch (const std::bad_alloc&) {
    return false;  // the session stays as it is
  }
  m_history.pop_back();
  m_seeds.resize(m_seeds.size() - m_seedCounts.back());
  m_seedCounts.pop_back();
  m_prompts.pop_back();
  m_margins.pop_back();
  m_current = std::move(previous);
  m_shown = std::move(shown);
  return true;
}

std::shared_ptr<const WorkingGrid> ClickSession::gridFor(const IndexBox& box) const {
  if (!m_grid || !(m_grid->box == box)) {
    m_grid.reset();  // the old grid's memory goes before the new one is built
    m_grid = std::make_shared<const WorkingGrid>(buildGrid(box));
  }
  return m_grid;
}

WorkingGrid ClickSession::buildGrid(const IndexBox& box) const {
  const std::int64_t budget = box.voxelCount() > m_options.largeRegionVoxels
                                  ? std::min(m_options.maxWorkingVoxels, m_options.largeRegionWorkingVoxels)
                                  : m_options.maxWorkingVoxels;
  if (m_order.isIdentity()) return buildWorkingGrid(m_image, box, budget, m_options.smoothingPasses);
  // Each row of the box in canonical order is gathered from the image as it is stored (one row per thread, not a
  // copy of the region), so the grid is the one of an image stored in canonical order.
  const core::Size3& dims = m_image.geometry().dimensions();
  const core::AxisOrder order = m_order;
  const std::int64_t len = box.max[0] - box.min[0] + 1;
  const core::Index3 step0 = core::sourceIndexOf(core::Index3{1, 0, 0}, dims, order);
  const core::Index3 base0 = core::sourceIndexOf(core::Index3{0, 0, 0}, dims, order);
  const std::int64_t stride = ((step0[2] - base0[2]) * dims[1] + (step0[1] - base0[1])) * dims[0] + (step0[0] - base0[0]);
  return m_image.visit([&](const auto& volume) {
    using T = typename std::decay_t<decltype(volume)>::value_type;
    const T* data = volume.data();
    auto rowAt = [&, len, stride](std::int64_t y, std::int64_t z, std::vector<float>& scratch) -> const float* {
      const core::Index3 s0 = core::sourceIndexOf(core::Index3{box.min[0], y, z}, dims, order);
      const T* p = data + ((s0[2] * dims[1] + s0[1]) * dims[0] + s0[0]);
      if constexpr (std::is_same_v<T, float>) {
        if (stride == 1) return p;
      }
      scratch.resize(static_cast<std::size_t>(len));
      for (std::int64_t x = 0; x < len; ++x) scratch[static_cast<std::size_t>(x)] = static_cast<float>(p[x * stride]);
      return scratch.data();
    };
    return buildWorkingGrid(rowAt, m_canonical.spacingMm(), box, budget, m_options.smoothingPasses);
  });
}

core::Result<ObjectMask> ClickSession::compute(std::vector<Seed>& seedList, std::size_t firstNew,
                                               const ObjectMask* previous, double& margin,
                                               core::ProgressSink* progress) const {
  std::vector<Index3> seeds;
  std::vector<bool> positive;
  std::vector<float> reach;
  for (const auto& sd : seedList) {
    seeds.push_back(sd.at);
    positive.push_back(sd.positive);
    reach.push_back(sd.reach);
  }
  if (std::find(positive.begin(), positive.end(), true) == positive.end()) return ObjectMask{};  // nothing to grow
  const auto dims = m_canonical.dimensions();
  const auto sp = m_canonical.spacingMm();
  IndexBox clicks;
  for (const auto& s : seeds) clicks.include(s);
  for (const auto& sd : seedList)
    if (!sd.extent.empty()) clicks.include(sd.extent);
  try {
    for (int attempt = 0;; ++attempt) {
      if (progress && progress->cancelled()) return core::makeError(core::ErrorCode::Cancelled, "click", "cancelled");
      // The region: the clicks and a margin, its faces snapped outwards to multiples of kSnap voxels (16, or half
      // the margin) so that nearby clicks share one working grid (built once, reused while the region stays).
      IndexBox box;
      for (std::size_t a = 0; a < 3; ++a) {
        const auto m = static_cast<std::int64_t>(std::ceil(margin / sp[a]));
        const std::int64_t kSnap = std::max<std::int64_t>(16, m / 2);
        box.min[a] = std::max<std::int64_t>(0, (clicks.min[a] - m) / kSnap * kSnap);
        box.max[a] = std::min<std::int64_t>(dims[a] - 1, ((clicks.max[a] + m) / kSnap + 1) * kSnap - 1);
      }
      const auto grid = gridFor(box);
      const WorkingGrid& g = *grid;
      const double finest = std::min({g.spacingMm[0], g.spacingMm[1], g.spacingMm[2]});
      const double coarsest = std::max({g.spacingMm[0], g.spacingMm[1], g.spacingMm[2]});
      int thickAxis = -1;
      if (coarsest > 2 * finest)
        thickAxis = static_cast<int>(std::max_element(g.spacingMm.begin(), g.spacingMm.end()) - g.spacingMm.begin());
      std::vector<Index3> seedAt(seeds.size());
      for (std::size_t k = 0; k < seeds.size(); ++k) seedAt[k] = g.toWorking(seeds[k]);

      const auto models = intensityModels(g, seedAt, positive, m_options.sampleRadiusVoxels, thickAxis,
                                          m_options.noiseFloor, m_options.maxSpread);
      const float k = static_cast<float>(m_options.bandSigmas);

      // A click's reach (straight-line mm) is measured once, when it is added, against the object of the clicks
      // before it; later recomputations (more clicks, a grown region) keep it.
      if (std::any_of(reach.begin(), reach.end(), [](float v) { return std::isnan(v); })) {
        const auto before = previous ? toWorkingGrid(g, *previous) : std::vector<std::uint8_t>{};
        if (!m_offsets || m_offsets->spacingMm != g.spacingMm) {
          m_offsets.reset();
          auto cache = std::make_shared<OffsetCache>();
          cache->spacingMm = g.spacingMm;
          cache->offsets = ballOffsets(g.spacingMm, std::max(m_options.depthScanMm, m_options.lowContrastScanMm), 24);
          m_offsets = std::move(cache);
        }
        const auto& offsets = m_offsets->offsets;
        std::size_t mi = 0;
        for (std::size_t k2 = 0; k2 < seeds.size(); ++k2) {
          if (!positive[k2]) continue;
          const IntensityModel& mdl = models[mi++];
          if (!std::isnan(reach[k2])) continue;
          // A low-contrast click (its band holds most of the region) measures its depth with a tighter band: how far
          // the texture stays close to the click's own median, not how far the band (everything) goes.
          const bool lowContrast = bandFraction(g, mdl, k) > m_options.lowContrastBandFraction;
          const float depthK = lowContrast ? static_cast<float>(m_options.lowContrastDepthSigmas) : k;
          const double scanMm = lowContrast ? m_options.lowContrastScanMm : m_options.depthScanMm;
          float depth = clickDepth(seedAt[k2], mdl, depthK, g, offsets, scanMm,
                                   before.empty() ? nullptr : &before, m_options.outsideFraction);
          // A low-contrast click whose texture stays alike as far as it looks is as deep as it looked: an unbounded
          // reach would flood the band, which holds much of the region.
          if ((lowContrast || seedList[k2].stroke) && !std::isfinite(depth)) depth = static_cast<float>(scanMm);
          // A later click marks a missing part of an object that exists: it reaches less far than the first (the
          // part is about as wide as its depth, and a reach as long as the first click's floods the surroundings on
          // a low-contrast image), and never past a negative click (the user said the object stops before it).
          double factor = lowContrast && previous && !previous->box.empty() ? m_options.laterReachFactor : m_options.reachFactor;
          // A stroke's seeds sample the object where it was drawn; many of them each reaching as far as a click (or
          // without bound, where their band holds all they scan) flooded a whole abdomen's soft tissue.
          if (seedList[k2].stroke) factor = std::min(factor, m_options.strokeReachFactor);
          reach[k2] = static_cast<float>(factor) * std::max(depth, static_cast<float>(2 * finest));
          for (std::size_t n2 = 0; n2 < seeds.size(); ++n2) {
            if (positive[n2]) continue;
            double d2 = 0;
            for (std::size_t a = 0; a < 3; ++a) {
              const double d = static_cast<double>(seedAt[n2][a] - seedAt[k2][a]) * g.spacingMm[a];
              d2 += d * d;
            }
            reach[k2] = std::min(reach[k2], static_cast<float>(std::sqrt(d2)));
          }
        }
      }

      // Geodesic competition. Only where some positive click can reach can a voxel be object, so negative clicks
      // need not flood the rest of the region (on a long object the region spans all the clicks and is mostly out
      // of reach).
      std::vector<IndexBox> bounds(seeds.size());
      for (std::size_t k2 = 0; k2 < seeds.size(); ++k2) {
        const IndexBox& b = seedList[k2].bound;
        if (b.empty()) continue;
        IndexBox clipped;
        for (std::size_t a = 0; a < 3; ++a) {
          clipped.min[a] = std::clamp(b.min[a], g.box.min[a], g.box.max[a]);
          clipped.max[a] = std::clamp(b.max[a], g.box.min[a], g.box.max[a]);
        }
        bounds[k2] = IndexBox{g.toWorking(clipped.min), g.toWorking(clipped.max)};
      }
      std::vector<GeodesicSeed> gs(seeds.size());
      for (std::size_t k2 = 0, mi = 0; k2 < seeds.size(); ++k2) {
        gs[k2] = {seedAt[k2], static_cast<bool>(positive[k2]), 0.0f, 0.0f, 0.0f, {}};
        if (!positive[k2]) continue;
        const IntensityModel& mdl = models[mi++];
        gs[k2].reachMm = reach[k2];
        gs[k2].bound = bounds[k2];
        gs[k2].low = mdl.median - k * mdl.spread;
        gs[k2].high = mdl.median + k * mdl.spread;
        if (!std::isnan(seedList[k2].low)) {  // a box's seeds: the band the box's inside and ring give
          gs[k2].low = seedList[k2].low;
          gs[k2].high = seedList[k2].high;
        }
      }
      const std::vector<std::uint8_t> reachable = reachableMask(seedAt, positive, reach, bounds, g);
      const std::vector<std::uint8_t> shared = sharedBand(g, gs, m_options.shareReachFactor);
      // After the first object, a click changes only what it wins itself (its cell, below); the rest stays.
      const bool incremental = previous && !previous->box.empty();
      const bool removing = incremental && firstNew < seeds.size() && !positive[firstNew];
      std::vector<std::uint16_t> winner;
      auto owner = geodesicCompetition(g.value, g.n, g.spacingMm, gs, shared, reachable,
                                       static_cast<float>(m_options.gradientWeight) / g.noise, progress,
                                       removing ? &winner : nullptr);
      if (!owner) return owner.error();
      std::vector<std::uint8_t>& object = *owner;
      std::vector<std::uint8_t> cell;  // what a negative click won itself
      if (removing) {
        cell.assign(object.size(), 0);
        for (std::size_t i = 0; i < object.size(); ++i) cell[i] = object[i] != 0 && winner[i] >= firstNew ? 1 : 0;
      }
      for (auto& v : object) v = v == 1 ? 1 : 0;
      // Holes are filled; negative clicks stay outside whatever hole filling does.
      const core::Size3 gridSize{g.n[0], g.n[1], g.n[2]};
      fillHoles(object, gridSize);
      if (thickAxis >= 0) fillHoles(object, gridSize, thickAxis);
      for (std::size_t k2 = 0; k2 < seeds.size(); ++k2)
        if (!positive[k2]) object[g.index(seedAt[k2][0], seedAt[k2][1], seedAt[k2][2])] = 0;

      // Grow the region where the object reaches one of its inner faces.
      const bool whole = box == m_canonical.fullBox();
      if (whole || attempt >= m_options.maxExpansions || box.voxelCount() * 8 > m_options.maxRoiVoxels ||
          !touchesInnerFace(object, g, dims)) {
        ObjectMask out;
        if (incremental) {
          // A positive click adds what the recomputation gives and removes nothing: the object it had stays (the
          // competition reroutes its paths around the new seed and can lose parts far from the click). A negative
          // click removes only what the recomputation drops in the connected parts (6-neighbourhood) that hold some
          // of its own cell, the voxels it won itself: the wrong region it touches, not a boundary moved elsewhere.
          if (removing) keepPartsWithCell(cell, object, toWorkingGrid(g, *previous), g);
          out = combineMasks(*previous, toFullResolution(g, removing ? cell : object), !removing);
        } else {
          out = toFullResolution(g, object);
        }
        // Interpolating the blocks back can set a negative click's own voxel again (a lone background block amid
        // the object); the clicked voxel itself stays outside.
        for (std::size_t k2 = 0; k2 < seeds.size(); ++k2)
          if (!positive[k2] && out.box.contains(seeds[k2])) {
            const IndexBox& b = out.box;
            const Index3& q = seeds[k2];
            const std::int64_t nx = b.max[0] - b.min[0] + 1, ny = b.max[1] - b.min[1] + 1;
            out.voxels[static_cast<std::size_t>(((q[2] - b.min[2]) * ny + (q[1] - b.min[1])) * nx + (q[0] - b.min[0]))] = 0;
          }
        for (std::size_t k2 = 0; k2 < seedList.size(); ++k2) seedList[k2].reach = reach[k2];
        return out;
      }
      margin *= m_options.marginGrowth;
    }
  } catch (const std::bad_alloc&) {
    m_grid.reset();
    return core::makeError(core::ErrorCode::OutOfMemory, "click", "out of memory segmenting around the clicks");
  }
}

}  // namespace delineate::inference::classic
