#include "inference/classic/click_session.h"

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

// Fills holes: background components (6-connected) of the box that do not touch its border become object. With
// `sliceAxis` >= 0 the same is done in every 2D slice across that axis as well (thick slices: a hole in one slice
// is open to its neighbours in 3D only because the slices are far apart).
void fillHoles(std::vector<std::uint8_t>& m, const Roi& r, int sliceAxis) {
  const std::int64_t nx = r.n[0], ny = r.n[1], nz = r.n[2];
  // Flood the outside from the border; whatever background is not reached is a hole.
  auto flood = [&](std::int64_t z0, std::int64_t z1, int axis2d) {
    // axis2d < 0: 3D over the whole box. Else: 2D within slices [z0, z1) of `axis2d` (only the slice-local border).
    std::vector<std::uint8_t> outside(m.size(), 0);
    std::vector<std::size_t> stack;
    auto push = [&](std::int64_t x, std::int64_t y, std::int64_t z) {
      const std::size_t i = static_cast<std::size_t>((z * ny + y) * nx + x);
      if (!m[i] && !outside[i]) {
        outside[i] = 1;
        stack.push_back(i);
      }
    };
    for (std::int64_t z = 0; z < nz; ++z)
      for (std::int64_t y = 0; y < ny; ++y)
        for (std::int64_t x = 0; x < nx; ++x) {
          const std::int64_t c[3] = {x, y, z};
          bool border = false;
          for (int a = 0; a < 3; ++a)
            if (a != axis2d && (c[a] == 0 || c[a] == r.n[a] - 1)) border = true;
          if (axis2d >= 0 && (c[axis2d] < z0 || c[axis2d] >= z1)) border = false;
          if (border) push(x, y, z);
        }
    while (!stack.empty()) {
      const std::size_t i = stack.back();
      stack.pop_back();
      const std::int64_t x = static_cast<std::int64_t>(i) % nx, y = (static_cast<std::int64_t>(i) / nx) % ny,
                         z = static_cast<std::int64_t>(i) / (nx * ny);
      const std::int64_t c[3] = {x, y, z};
      for (int a = 0; a < 3; ++a) {
        if (a == axis2d) continue;
        for (int d = -1; d <= 1; d += 2) {
          std::int64_t q[3] = {c[0], c[1], c[2]};
          q[a] += d;
          if (q[a] < 0 || q[a] >= r.n[a]) continue;
          push(q[0], q[1], q[2]);
        }
      }
    }
    for (std::size_t i = 0; i < m.size(); ++i)
      if (!m[i] && !outside[i]) m[i] = 1;
  };
  flood(0, 0, -1);
  if (sliceAxis >= 0) flood(0, r.n[sliceAxis], sliceAxis);
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
  auto mask = compute(seeds, positive, progress);
  if (!mask) return mask.error();
  m_points.push_back(point);
  m_seeds.push_back(ijk);
  m_masks.push_back(std::move(mask).value());
  return core::Status::success();
}

bool ClickSession::undoPoint() {
  if (m_points.empty()) return false;
  m_points.pop_back();
  m_seeds.pop_back();
  m_masks.pop_back();
  return true;
}

core::Result<ObjectMask> ClickSession::compute(const std::vector<Index3>& seeds, const std::vector<bool>& positive,
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
      for (int a = 0; a < 3; ++a)
        if (sp[static_cast<std::size_t>(a)] <= 2 * finest) smoothAxis(s, r, a);
      float noise = 0;
      {
        std::vector<float> diffs;
        diffs.reserve(n / 2 + 1);
        const std::size_t step = std::max<std::size_t>(1, n / 200000);  // a sample is plenty
        for (std::size_t i = 0; i + 1 < n; i += step)
          if (static_cast<std::int64_t>(i % static_cast<std::size_t>(r.n[0])) + 1 < r.n[0]) diffs.push_back(std::fabs(s[i + 1] - s[i]));
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

      // 3. Geodesic competition.
      std::vector<float> dist(n, std::numeric_limits<float>::infinity());
      std::vector<std::uint8_t> owner(n, 0);  // 0 none, 1 object, 2 background
      using Item = std::pair<float, std::uint32_t>;
      std::priority_queue<Item, std::vector<Item>, std::greater<Item>> queue;
      for (std::size_t k2 = 0; k2 < seeds.size(); ++k2) {
        const std::size_t i = r.index(seeds[k2]);
        dist[i] = 0;
        owner[i] = positive[k2] ? 1 : 2;  // a later click on the same voxel wins
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
            const float nd = d + step[a] * (1.0f + w * std::fabs(s[j] - s[i]));
            if (nd < dist[j]) {
              dist[j] = nd;
              owner[j] = o;
              queue.push({nd, static_cast<std::uint32_t>(j)});
            }
          }
      }
      std::vector<std::uint8_t> object(n);
      for (std::size_t i = 0; i < n; ++i) object[i] = owner[i] == 1 ? 1 : 0;
      // Negative clicks stay outside whatever hole filling does.
      fillHoles(object, r, thickAxis);
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
