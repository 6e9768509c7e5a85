#include "inference/classic/click_session.h"

#include "inference/classic/morphology.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <new>
#include <queue>
#include <utility>

namespace delineate::inference::classic {
namespace {

using core::Index3;
using core::IndexBox;

// A box of the image copied out as floats, x fastest, with its strides.
struct Roi {
  IndexBox box;
  std::int64_t n[3] = {0, 0, 0};
  std::size_t size() const { return static_cast<std::size_t>(n[0] * n[1] * n[2]); }
  std::size_t index(const Index3& ijk) const {
    return static_cast<std::size_t>(((ijk[2] - box.min[2]) * n[1] + (ijk[1] - box.min[1])) * n[0] + (ijk[0] - box.min[0]));
  }
};

Roi makeRoi(const IndexBox& box) {
  Roi r;
  r.box = box;
  for (int a = 0; a < 3; ++a) r.n[a] = box.max[a] - box.min[a] + 1;
  return r;
}

// [1 2 1]/4 along one axis (edges repeat), in place.
void smoothAxis(std::vector<float>& v, const Roi& r, int axis) {
  const std::int64_t len = r.n[axis];
  if (len < 3) return;
  const std::int64_t stride = axis == 0 ? 1 : axis == 1 ? r.n[0] : r.n[0] * r.n[1];
  std::vector<float> line(static_cast<std::size_t>(len));
  const std::int64_t lines = static_cast<std::int64_t>(r.size()) / len;
  for (std::int64_t l = 0; l < lines; ++l) {
    // The first voxel of line l: axis 0 lines run over (y, z), axis 1 over (x, z), axis 2 over (x, y).
    std::int64_t start = 0;
    if (axis == 0) start = l * r.n[0];
    else if (axis == 1) start = (l / r.n[0]) * r.n[0] * r.n[1] + l % r.n[0];
    else start = l;
    for (std::int64_t i = 0; i < len; ++i) line[static_cast<std::size_t>(i)] = v[static_cast<std::size_t>(start + i * stride)];
    for (std::int64_t i = 0; i < len; ++i) {
      const float a = line[static_cast<std::size_t>(std::max<std::int64_t>(0, i - 1))];
      const float b = line[static_cast<std::size_t>(i)];
      const float c = line[static_cast<std::size_t>(std::min(len - 1, i + 1))];
      v[static_cast<std::size_t>(start + i * stride)] = 0.25f * a + 0.5f * b + 0.25f * c;
    }
  }
}

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

// Offsets of a ball of `radiusMm` (at most `maxVoxels` per axis), nearest first.
struct Offset {
  std::int64_t d[3];
  float mm;
};
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

// How far (mm) the surroundings of a click look like it: the radius at which more than `outsideFraction` of the ball
// lies outside the click's intensity band, or at which the ball reaches the object of the earlier clicks (a click
// beside the object marks a missing part about as wide as its distance to the object). Infinity when neither
// happens within the offsets.
float clickDepth(const Index3& seed, const IntensityModel& mdl, float k, const std::vector<float>& s, const Roi& r,
                 const std::vector<Offset>& offsets, const std::vector<std::uint8_t>* previous, double outsideFraction) {
  std::size_t seen = 0, outside = 0;
  for (const auto& o : offsets) {
    Index3 q{seed[0] + o.d[0], seed[1] + o.d[1], seed[2] + o.d[2]};
    if (!r.box.contains(q)) continue;
    const std::size_t i = r.index(q);
    if (previous && (*previous)[i]) return o.mm;
    ++seen;
    if (std::fabs(s[i] - mdl.median) > k * mdl.spread) ++outside;
    if (seen >= 27 && static_cast<double>(outside) > outsideFraction * static_cast<double>(seen)) return o.mm;
  }
  return std::numeric_limits<float>::infinity();
}

// `mask` copied onto the region's grid (1 inside the object); empty when the object is empty.
std::vector<std::uint8_t> maskInRoi(const ObjectMask& mask, const Roi& r) {
  if (mask.box.empty()) return {};
  std::vector<std::uint8_t> out(r.size(), 0);
  const IndexBox b = mask.box.intersected(r.box);
  for (std::int64_t z = b.min[2]; z <= b.max[2]; ++z)
    for (std::int64_t y = b.min[1]; y <= b.max[1]; ++y)
      for (std::int64_t x = b.min[0]; x <= b.max[0]; ++x)
        if (mask.contains({x, y, z})) out[r.index({x, y, z})] = 1;
  return out;
}

// The voxels of the region within reach of some positive click (`seedAt` in region coordinates); empty (no limit)
// when a positive click's reach is unbounded.
std::vector<std::uint8_t> reachableMask(const std::vector<Index3>& seedAt, const std::vector<bool>& positive,
                                        const std::vector<float>& reach, const Roi& r, const core::Vec3& sp) {
  for (std::size_t k = 0; k < seedAt.size(); ++k)
    if (positive[k] && !std::isfinite(reach[k])) return {};
  std::vector<std::uint8_t> out(r.size(), 0);
  for (std::size_t k = 0; k < seedAt.size(); ++k) {
    if (!positive[k]) continue;
    const double rr = static_cast<double>(reach[k]);
    std::int64_t lo[3], hi[3];
    for (std::size_t a = 0; a < 3; ++a) {
      const auto ext = static_cast<std::int64_t>(std::ceil(rr / sp[a]));
      lo[a] = std::max<std::int64_t>(0, seedAt[k][a] - ext);
      hi[a] = std::min<std::int64_t>(r.n[a] - 1, seedAt[k][a] + ext);
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

}  // namespace

core::Result<std::unique_ptr<ClickSession>> ClickSession::begin(const core::ImageVolume& image,
                                                                const ClickOptions& options) {
  if (image.geometry().voxelCount() <= 0)
    return core::makeError(core::ErrorCode::InvalidArgument, "click session", "the image is empty");
  return std::unique_ptr<ClickSession>(new ClickSession(image, options));
}

core::Status ClickSession::addPoint(const PointPrompt& point, core::ProgressSink* progress) {
  const auto& g = m_image->geometry();
  const core::Vec3 c = g.lpsToIndex(point.pointLps);
  Index3 ijk{};
  for (int a = 0; a < 3; ++a) {
    ijk[static_cast<std::size_t>(a)] = static_cast<std::int64_t>(std::llround(c[static_cast<std::size_t>(a)]));
    if (ijk[static_cast<std::size_t>(a)] < 0 || ijk[static_cast<std::size_t>(a)] >= g.dimensions()[static_cast<std::size_t>(a)])
      return core::makeError(core::ErrorCode::InvalidArgument, "click",
                             "the point lies outside the image (" + std::to_string(point.pointLps[0]) + ", " +
                                 std::to_string(point.pointLps[1]) + ", " + std::to_string(point.pointLps[2]) +
                                 " mm LPS)");
  }
  std::vector<Index3> seeds = m_seeds;
  seeds.push_back(ijk);
  std::vector<bool> positive;
  for (const auto& p : m_points) positive.push_back(p.positive);
  positive.push_back(point.positive);
  std::vector<float> reach = m_reach;
  reach.push_back(std::numeric_limits<float>::quiet_NaN());
  auto mask = compute(seeds, positive, m_masks.empty() ? nullptr : &m_masks.back(), reach, progress);
  if (!mask) return mask.error();
  m_points.push_back(point);
  m_seeds.push_back(ijk);
  m_reach = std::move(reach);
  m_masks.push_back(std::move(mask).value());
  return core::Status::success();
}

bool ClickSession::undoPoint() {
  if (m_points.empty()) return false;
  m_points.pop_back();
  m_seeds.pop_back();
  m_reach.pop_back();
  m_masks.pop_back();
  return true;
}

core::Result<ObjectMask> ClickSession::compute(const std::vector<Index3>& seeds, const std::vector<bool>& positive,
                                               const ObjectMask* previous, std::vector<float>& reach,
                                               core::ProgressSink* progress) const {
  if (std::find(positive.begin(), positive.end(), true) == positive.end()) return ObjectMask{};  // nothing to grow
  const auto& g = m_image->geometry();
  const auto dims = g.dimensions();
  const auto sp = g.spacingMm();
  const double finest = std::min({sp[0], sp[1], sp[2]});
  const double coarsest = std::max({sp[0], sp[1], sp[2]});
  int thickAxis = -1;
  if (coarsest > 2 * finest) thickAxis = static_cast<int>(std::max_element(sp.begin(), sp.end()) - sp.begin());

  IndexBox clicks;
  for (const auto& s : seeds) clicks.include(s);
  double margin = m_options.initialMarginMm;
  try {
    for (int attempt = 0;; ++attempt) {
      if (progress && progress->cancelled())
        return core::makeError(core::ErrorCode::Cancelled, "click", "cancelled");
      IndexBox box;
      for (std::size_t a = 0; a < 3; ++a) {
        const auto m = static_cast<std::int64_t>(std::ceil(margin / sp[a]));
        box.min[a] = std::max<std::int64_t>(0, clicks.min[a] - m);
        box.max[a] = std::min<std::int64_t>(dims[a] - 1, clicks.max[a] + m);
      }
      const Roi r = makeRoi(box);
      const std::size_t n = r.size();

      // 1. Smoothed copy and noise level.
      std::vector<float> s(n);
      {
        std::size_t i = 0;
        for (std::int64_t z = box.min[2]; z <= box.max[2]; ++z)
          for (std::int64_t y = box.min[1]; y <= box.max[1]; ++y) {
            const float* row = m_image->data() + ((z * dims[1] + y) * dims[0] + box.min[0]);
            std::copy(row, row + r.n[0], s.begin() + static_cast<std::ptrdiff_t>(i));
            i += static_cast<std::size_t>(r.n[0]);
          }
      }
      for (int pass = 0; pass < m_options.smoothingPasses; ++pass)
        for (int a = 0; a < 3; ++a)
          if (sp[static_cast<std::size_t>(a)] <= 2 * finest) smoothAxis(s, r, a);
      float noise = 0;
      {
        std::vector<float> diffs;
        diffs.reserve(n / 2 + 1);
        const std::size_t step = std::max<std::size_t>(1, n / 200000);  // a sample is plenty
        // Exact zeros are left out: masked or saturated backgrounds (a skull-stripped template, air at -1024 HU) are
        // constant and would make the noise level vanish.
        for (std::size_t i = 0; i + 1 < n; i += step)
          if (static_cast<std::int64_t>(i % static_cast<std::size_t>(r.n[0])) + 1 < r.n[0] && s[i + 1] != s[i])
            diffs.push_back(std::fabs(s[i + 1] - s[i]));
        noise = medianOf(diffs) * 1.4826f / std::sqrt(2.0f);
        if (!(noise > 0)) noise = 1e-3f;
      }

      // 2. Intensity models of the positive clicks.
      std::vector<IntensityModel> models;
      for (std::size_t k = 0; k < seeds.size(); ++k) {
        if (!positive[k]) continue;
        std::vector<float> samples;
        Index3 lo{}, hi{};
        for (std::size_t a = 0; a < 3; ++a) {
          const std::int64_t rad = static_cast<int>(a) == thickAxis ? 0 : m_options.sampleRadiusVoxels;
          lo[a] = std::max(box.min[a], seeds[k][a] - rad);
          hi[a] = std::min(box.max[a], seeds[k][a] + rad);
        }
        for (std::int64_t z = lo[2]; z <= hi[2]; ++z)
          for (std::int64_t y = lo[1]; y <= hi[1]; ++y)
            for (std::int64_t x = lo[0]; x <= hi[0]; ++x) samples.push_back(s[r.index({x, y, z})]);
        IntensityModel mdl;
        mdl.median = medianOf(samples);
        for (auto& v : samples) v = std::fabs(v - mdl.median);
        // The spread is the local one, but kept between noiseFloor and 3 x noiseFloor noise levels: a click near
        // the object's edge samples some of the outside too, and an unbounded spread would let the object leak.
        const float floorSpread = static_cast<float>(m_options.noiseFloor) * noise;
        mdl.spread = std::clamp(medianOf(samples) * 1.4826f, floorSpread, 3 * floorSpread);
        models.push_back(mdl);
      }
      const float k = static_cast<float>(m_options.bandSigmas);
      std::vector<std::uint8_t> band(n, 0);
      for (std::size_t i = 0; i < n; ++i)
        for (const auto& mdl : models)
          if (std::fabs(s[i] - mdl.median) <= k * mdl.spread) {
            band[i] = 1;
            break;
          }

      // A click's reach (straight-line mm) is measured once, when it is added, against the object of the clicks
      // before it; later recomputations (more clicks, a grown region) keep it.
      if (std::any_of(reach.begin(), reach.end(), [](float v) { return std::isnan(v); })) {
        const auto before = previous ? maskInRoi(*previous, r) : std::vector<std::uint8_t>{};
        const auto offsets = ballOffsets(sp, m_options.depthScanMm, 24);
        std::size_t mi = 0;
        for (std::size_t k2 = 0; k2 < seeds.size(); ++k2) {
          if (!positive[k2]) continue;
          const IntensityModel& mdl = models[mi++];
          if (!std::isnan(reach[k2])) continue;
          const float depth = clickDepth(seeds[k2], mdl, k, s, r, offsets, before.empty() ? nullptr : &before,
                                         m_options.outsideFraction);
          reach[k2] = static_cast<float>(m_options.reachFactor) * std::max(depth, static_cast<float>(2 * finest));
        }
      }

      // 3. Geodesic competition.
      std::vector<float> dist(n, std::numeric_limits<float>::infinity());
      std::vector<std::uint8_t> owner(n, 0);  // 0 none, 1 object, 2 background
      std::vector<std::uint16_t> from(n, 0);  // the click that reached a voxel first
      std::vector<Index3> seedAt(seeds.size());  // clicks in region coordinates
      for (std::size_t k2 = 0; k2 < seeds.size(); ++k2)
        for (std::size_t a = 0; a < 3; ++a) seedAt[k2][a] = seeds[k2][a] - box.min[a];
      // Only where some positive click can reach can a voxel be object, so negative clicks need not flood the rest
      // of the region (on a long object the region spans all the clicks and is mostly out of reach).
      const std::vector<std::uint8_t> reachable = reachableMask(seedAt, positive, reach, r, sp);
      using Item = std::pair<float, std::uint32_t>;
      std::priority_queue<Item, std::vector<Item>, std::greater<Item>> queue;
      for (std::size_t k2 = 0; k2 < seeds.size(); ++k2) {
        const std::size_t i = r.index(seeds[k2]);
        dist[i] = 0;
        owner[i] = positive[k2] ? 1 : 2;  // a later click on the same voxel wins
        from[i] = static_cast<std::uint16_t>(k2);
        if (positive[k2]) band[i] = 1;
        queue.push({0.0f, static_cast<std::uint32_t>(i)});
      }
      const std::int64_t stride[3] = {1, r.n[0], r.n[0] * r.n[1]};
      const float step[3] = {static_cast<float>(sp[0]), static_cast<float>(sp[1]), static_cast<float>(sp[2])};
      const float w = static_cast<float>(m_options.gradientWeight) / noise;
      std::size_t popped = 0;
      while (!queue.empty()) {
        const auto [d, ui] = queue.top();
        queue.pop();
        const std::size_t i = ui;
        if (d > dist[i]) continue;
        if (progress && (++popped & 0xFFFFF) == 0 && progress->cancelled())
          return core::makeError(core::ErrorCode::Cancelled, "click", "cancelled");
        const std::int64_t c[3] = {static_cast<std::int64_t>(i) % r.n[0], (static_cast<std::int64_t>(i) / r.n[0]) % r.n[1],
                                   static_cast<std::int64_t>(i) / (r.n[0] * r.n[1])};
        const std::uint8_t o = owner[i];
        for (int a = 0; a < 3; ++a)
          for (int dir = -1; dir <= 1; dir += 2) {
            const std::int64_t q = c[a] + dir;
            if (q < 0 || q >= r.n[a]) continue;
            const std::size_t j = static_cast<std::size_t>(static_cast<std::int64_t>(i) + dir * stride[a]);
            if (o == 1 && !band[j]) continue;
            if (o == 2 && !reachable.empty() && !reachable[j]) continue;
            const float nd = d + step[a] * (1.0f + w * std::fabs(s[j] - s[i]));
            if (o == 1) {
              // Straight-line distance from the click that reached i (6-neighbour paths would measure city blocks).
              const Index3& c0 = seedAt[from[i]];
              double e2 = 0;
              for (int b = 0; b < 3; ++b) {
                const double dd = static_cast<double>((b == a ? q : c[b]) - c0[static_cast<std::size_t>(b)]) *
                                  sp[static_cast<std::size_t>(b)];
                e2 += dd * dd;
              }
              if (e2 > static_cast<double>(reach[from[i]]) * reach[from[i]]) continue;
            }
            if (nd < dist[j]) {
              dist[j] = nd;
              owner[j] = o;
              from[j] = from[i];
              queue.push({nd, static_cast<std::uint32_t>(j)});
            }
          }
      }
      std::vector<std::uint8_t> object(n, 0);
      for (std::size_t i = 0; i < n; ++i) object[i] = owner[i] == 1 ? 1 : 0;
      // Negative clicks stay outside whatever hole filling does.
      const core::Size3 roiSize{r.n[0], r.n[1], r.n[2]};
      fillHoles(object, roiSize);
      if (thickAxis >= 0) fillHoles(object, roiSize, thickAxis);
      for (std::size_t k2 = 0; k2 < seeds.size(); ++k2)
        if (!positive[k2]) object[r.index(seeds[k2])] = 0;

      // 5. Grow the region where the object reaches a face that is not the image's edge.
      bool touches = false;
      for (std::size_t i = 0; i < n && !touches; ++i) {
        if (!object[i]) continue;
        const std::int64_t c[3] = {static_cast<std::int64_t>(i) % r.n[0], (static_cast<std::int64_t>(i) / r.n[0]) % r.n[1],
                                   static_cast<std::int64_t>(i) / (r.n[0] * r.n[1])};
        for (std::size_t a = 0; a < 3; ++a)
          if ((c[a] == 0 && box.min[a] > 0) || (c[a] == r.n[a] - 1 && box.max[a] < dims[a] - 1)) touches = true;
      }
      const bool whole = box.min == Index3{0, 0, 0} && box.max == Index3{dims[0] - 1, dims[1] - 1, dims[2] - 1};
      if (!touches || whole || attempt >= m_options.maxExpansions ||
          static_cast<std::int64_t>(n) * 8 > m_options.maxRoiVoxels) {
        // The tight box of the object.
        IndexBox tight;
        for (std::size_t i = 0; i < n; ++i)
          if (object[i])
            tight.include(Index3{box.min[0] + static_cast<std::int64_t>(i) % r.n[0],
                                 box.min[1] + (static_cast<std::int64_t>(i) / r.n[0]) % r.n[1],
                                 box.min[2] + static_cast<std::int64_t>(i) / (r.n[0] * r.n[1])});
        ObjectMask out;
        if (tight.empty()) return out;
        out.box = tight;
        const Roi t = makeRoi(tight);
        out.voxels.resize(t.size());
        std::size_t o = 0;
        for (std::int64_t z = tight.min[2]; z <= tight.max[2]; ++z)
          for (std::int64_t y = tight.min[1]; y <= tight.max[1]; ++y)
            for (std::int64_t x = tight.min[0]; x <= tight.max[0]; ++x) out.voxels[o++] = object[r.index({x, y, z})];
        return out;
      }
      margin *= 2;
    }
  } catch (const std::bad_alloc&) {
    return core::makeError(core::ErrorCode::OutOfMemory, "click", "out of memory segmenting around the clicks");
  }
}

}  // namespace delineate::inference::classic
