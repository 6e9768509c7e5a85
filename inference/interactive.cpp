#include "inference/interactive.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <unordered_set>

namespace delineate::inference {

using core::Index3;
using core::IndexBox;

bool ObjectMask::contains(const core::Index3& ijk) const {
  if (!box.contains(ijk)) return false;
  const std::int64_t nx = box.max[0] - box.min[0] + 1, ny = box.max[1] - box.min[1] + 1;
  const std::int64_t i = ((ijk[2] - box.min[2]) * ny + (ijk[1] - box.min[1])) * nx + (ijk[0] - box.min[0]);
  return voxels[static_cast<std::size_t>(i)] != 0;
}

std::size_t ObjectMask::count() const {
  return static_cast<std::size_t>(std::count_if(voxels.begin(), voxels.end(), [](std::uint8_t v) { return v != 0; }));
}

PackedMask packMask(const ObjectMask& mask) {
  PackedMask p;
  p.box = mask.box;
  const std::uint8_t* v = mask.voxels.data();
  const std::size_t n = mask.voxels.size();
  std::uint8_t value = 0;
  std::uint64_t run = 0;
  std::size_t i = 0;
  while (i < n) {
    // Whole words of the current value at a time (masks hold 0 and 1), then byte by byte.
    const std::uint64_t word = value ? 0x0101010101010101ull : 0;
    std::uint64_t w = 0;
    while (i + 8 <= n && (std::memcpy(&w, v + i, 8), w == word)) {
      i += 8;
      run += 8;
    }
    while (i < n && (v[i] != 0) == (value != 0)) {
      ++i;
      ++run;
      if ((i & 7) == 0) break;
    }
    if (i < n && (v[i] != 0) != (value != 0)) {
      // A run longer than 32 bits continues after an empty run of the other value.
      for (; run > UINT32_MAX; run -= UINT32_MAX) {
        p.runs.push_back(UINT32_MAX);
        p.runs.push_back(0);
      }
      p.runs.push_back(static_cast<std::uint32_t>(run));
      run = 0;
      value ^= 1;
    }
  }
  for (; run > UINT32_MAX; run -= UINT32_MAX) {
    p.runs.push_back(UINT32_MAX);
    p.runs.push_back(0);
  }
  p.runs.push_back(static_cast<std::uint32_t>(run));
  p.runs.shrink_to_fit();
  return p;
}

ObjectMask unpackMask(const PackedMask& packed) {
  ObjectMask m;
  m.box = packed.box;
  if (packed.box.empty()) return m;
  m.voxels.reserve(static_cast<std::size_t>(packed.box.voxelCount()));
  std::uint8_t value = 0;
  for (const std::uint32_t run : packed.runs) {
    m.voxels.insert(m.voxels.end(), run, value);
    value ^= 1;
  }
  return m;
}

const char* promptKindName(Prompt::Kind kind) {
  switch (kind) {
    case Prompt::Kind::Point: return "point";
    case Prompt::Kind::Box: return "box";
    case Prompt::Kind::Scribble: return "scribble";
    case Prompt::Kind::Lasso: return "lasso";
  }
  return "prompt";
}

int nearestAxis(const core::Geometry& grid, const core::Vec3& normalLps) {
  const double len = std::sqrt(normalLps[0] * normalLps[0] + normalLps[1] * normalLps[1] + normalLps[2] * normalLps[2]);
  if (!(len > 0)) return -1;
  int best = 0;
  double bestCos = -1;
  for (int a = 0; a < 3; ++a) {
    double c = 0;
    for (int r = 0; r < 3; ++r) c += grid.direction()(r, a) * normalLps[static_cast<std::size_t>(r)];
    c = std::fabs(c) / len;
    if (c > bestCos + 1e-9) {
      bestCos = c;
      best = a;
    }
  }
  return best;
}

std::vector<core::Index3> spreadVoxels(const std::vector<core::Index3>& voxels, std::size_t count) {
  if (count == 0 || voxels.empty()) return {};
  if (voxels.size() <= count) return voxels;
  std::vector<core::Index3> out;
  if (count == 1) return {voxels[voxels.size() / 2]};
  for (std::size_t k = 0; k < count; ++k) out.push_back(voxels[k * (voxels.size() - 1) / (count - 1)]);
  return out;
}

core::Result<RasterPrompt> rasterizePrompt(const Prompt& prompt, const core::Geometry& grid, std::size_t maxVoxels) {
  const char* what = promptKindName(prompt.kind);
  auto fail = [&](const std::string& why) { return core::makeError(core::ErrorCode::InvalidArgument, what, why); };
  const core::Size3 dims = grid.dimensions();
  for (const auto& p : prompt.pointsLps)
    for (double v : p)
      if (!std::isfinite(v)) return fail("a position is not a finite number");
  if (prompt.pointsLps.empty()) return fail("the prompt has no position");
  for (const auto& p : prompt.pointsLps) {  // index arithmetic below stays far from overflow
    const core::Vec3 c = grid.lpsToIndex(p);
    for (double v : c)
      if (std::fabs(v) > 1e9) return fail("a position lies far outside the image");
  }
  auto inside = [&](const core::Index3& q) {
    return q[0] >= 0 && q[1] >= 0 && q[2] >= 0 && q[0] < dims[0] && q[1] < dims[1] && q[2] < dims[2];
  };
  auto nearest = [&](const core::Vec3& c) {
    return core::Index3{std::llround(c[0]), std::llround(c[1]), std::llround(c[2])};
  };
  auto outsideText = [](const core::Vec3& p) {
    return "the " + std::string("position lies outside the image (") + std::to_string(p[0]) + ", " + std::to_string(p[1]) +
           ", " + std::to_string(p[2]) + " mm LPS)";
  };
  RasterPrompt out;
  switch (prompt.kind) {
    case Prompt::Kind::Point: {
      if (prompt.pointsLps.size() != 1) return fail("a point has one position");
      const core::Index3 q = nearest(grid.lpsToIndex(prompt.pointsLps[0]));
      if (!inside(q)) return fail(outsideText(prompt.pointsLps[0]));
      out.voxels.push_back(q);
      break;
    }
    case Prompt::Kind::Box: {
      if (prompt.pointsLps.size() != 2) return fail("a box has two corners");
      const core::Vec3 a = grid.lpsToIndex(prompt.pointsLps[0]), b = grid.lpsToIndex(prompt.pointsLps[1]);
      out.sliceAxis = nearestAxis(grid, prompt.normalLps);
      core::IndexBox box;
      for (std::size_t ax = 0; ax < 3; ++ax) {
        if (static_cast<int>(ax) == out.sliceAxis) {
          box.min[ax] = box.max[ax] = std::llround(0.5 * (a[ax] + b[ax]));
        } else {
          box.min[ax] = std::llround(std::min(a[ax], b[ax]));
          box.max[ax] = std::llround(std::max(a[ax], b[ax]));
        }
        // A box dragged past the image's edge ends there; one wholly outside is an error.
        if (box.max[ax] < 0 || box.min[ax] >= dims[ax]) return fail("the box lies outside the image");
        box.min[ax] = std::max<std::int64_t>(box.min[ax], 0);
        box.max[ax] = std::min<std::int64_t>(box.max[ax], dims[ax] - 1);
      }
      if (static_cast<std::size_t>(box.voxelCount()) > maxVoxels) return fail("the box holds too many voxels");
      out.voxels.reserve(static_cast<std::size_t>(box.voxelCount()));
      for (std::int64_t z = box.min[2]; z <= box.max[2]; ++z)
        for (std::int64_t y = box.min[1]; y <= box.max[1]; ++y)
          for (std::int64_t x = box.min[0]; x <= box.max[0]; ++x) out.voxels.push_back({x, y, z});
      break;
    }
    case Prompt::Kind::Scribble: {
      // Each segment sampled every half voxel (in index units along its longest axis); voxels kept in stroke order.
      std::unordered_set<std::int64_t> seen;
      auto add = [&](const core::Index3& q) {
        if (!inside(q)) return;
        if (seen.insert((q[2] * dims[1] + q[1]) * dims[0] + q[0]).second) out.voxels.push_back(q);
      };
      core::Vec3 prev = grid.lpsToIndex(prompt.pointsLps[0]);
      add(nearest(prev));
      for (std::size_t k = 1; k < prompt.pointsLps.size(); ++k) {
        const core::Vec3 next = grid.lpsToIndex(prompt.pointsLps[k]);
        double len = 0;
        for (std::size_t ax = 0; ax < 3; ++ax) len = std::max(len, std::fabs(next[ax] - prev[ax]));
        if (len > 1e6) return fail("a stroke segment is too long");
        const auto steps = static_cast<std::int64_t>(std::ceil(2 * len));
        for (std::int64_t s = 1; s <= steps; ++s) {
          const double t = static_cast<double>(s) / static_cast<double>(steps);
          add(nearest(core::Vec3{prev[0] + t * (next[0] - prev[0]), prev[1] + t * (next[1] - prev[1]),
                                 prev[2] + t * (next[2] - prev[2])}));
          if (out.voxels.size() > maxVoxels) return fail("the stroke crosses too many voxels");
        }
        prev = next;
      }
      if (out.voxels.empty()) return fail("the stroke lies outside the image");
      break;
    }
    case Prompt::Kind::Lasso: {
      if (prompt.pointsLps.size() < 3) return fail("a lasso needs at least 3 positions");
      out.sliceAxis = nearestAxis(grid, prompt.normalLps);
      if (out.sliceAxis < 0) return fail("a lasso needs the normal of the slice it was drawn in");
      const auto a = static_cast<std::size_t>(out.sliceAxis);
      const std::size_t u = (a + 1) % 3, v = (a + 2) % 3;
      std::vector<core::Vec3> poly;
      double across = 0;
      for (const auto& p : prompt.pointsLps) {
        poly.push_back(grid.lpsToIndex(p));
        across += poly.back()[a];
      }
      const std::int64_t slice = std::llround(across / static_cast<double>(poly.size()));
      if (slice < 0 || slice >= dims[a]) return fail("the lasso lies outside the image");
      double vLo = poly[0][v], vHi = poly[0][v];
      for (const auto& p : poly) {
        vLo = std::min(vLo, p[v]);
        vHi = std::max(vHi, p[v]);
      }
      const std::int64_t r0 = std::max<std::int64_t>(0, static_cast<std::int64_t>(std::ceil(vLo)));
      const std::int64_t r1 = std::min<std::int64_t>(dims[v] - 1, static_cast<std::int64_t>(std::floor(vHi)));
      std::vector<double> cross;
      for (std::int64_t row = r0; row <= r1; ++row) {
        // Even-odd scan line through the voxel centres of this row: an edge counts when it spans the row's v
        // half-open ([lo, hi)), so a vertex on the row is counted once.
        cross.clear();
        const auto rv = static_cast<double>(row);
        for (std::size_t k = 0; k < poly.size(); ++k) {
          const core::Vec3& p = poly[k];
          const core::Vec3& q = poly[(k + 1) % poly.size()];
          if ((p[v] <= rv && q[v] > rv) || (q[v] <= rv && p[v] > rv))
            cross.push_back(p[u] + (rv - p[v]) * (q[u] - p[u]) / (q[v] - p[v]));
        }
        std::sort(cross.begin(), cross.end());
        for (std::size_t k = 0; k + 1 < cross.size(); k += 2) {
          const std::int64_t c0 = std::max<std::int64_t>(0, static_cast<std::int64_t>(std::ceil(cross[k])));
          const std::int64_t c1 = std::min<std::int64_t>(dims[u] - 1, static_cast<std::int64_t>(std::floor(cross[k + 1])));
          for (std::int64_t col = c0; col <= c1; ++col) {
            core::Index3 q{};
            q[a] = slice;
            q[u] = col;
            q[v] = row;
            out.voxels.push_back(q);
          }
          if (out.voxels.size() > maxVoxels) return fail("the lasso holds too many voxels");
        }
      }
      if (out.voxels.empty()) return fail("the lasso holds no voxel centre of the image");
      break;
    }
  }
  for (const auto& q : out.voxels) out.box.include(q);
  return out;
}

// `mask` with `other` set (`add`) or cleared (!add) in it; the box grows to hold what is added.
ObjectMask combineMasks(const ObjectMask& mask, const ObjectMask& other, bool add) {
  if (other.box.empty()) return mask;
  ObjectMask out;
  out.box = mask.box;
  if (add) out.box.include(other.box);
  if (out.box.empty()) return out;
  const std::int64_t nx = out.box.max[0] - out.box.min[0] + 1, ny = out.box.max[1] - out.box.min[1] + 1;
  if (out.box == mask.box) {
    out.voxels = mask.voxels;
  } else {
    out.voxels.assign(static_cast<std::size_t>(out.box.voxelCount()), 0);
    std::size_t o = 0;
    for (std::int64_t z = mask.box.min[2]; z <= mask.box.max[2]; ++z)
      for (std::int64_t y = mask.box.min[1]; y <= mask.box.max[1]; ++y, o += static_cast<std::size_t>(mask.box.max[0] - mask.box.min[0] + 1))
        std::copy_n(mask.voxels.data() + o, mask.box.max[0] - mask.box.min[0] + 1,
                    out.voxels.data() + ((z - out.box.min[2]) * ny + (y - out.box.min[1])) * nx + (mask.box.min[0] - out.box.min[0]));
  }
  // Row by row over the part of `other` inside the result's box (all of it when adding).
  IndexBox both;
  for (std::size_t a = 0; a < 3; ++a) {
    both.min[a] = std::max(other.box.min[a], out.box.min[a]);
    both.max[a] = std::min(other.box.max[a], out.box.max[a]);
  }
  if (both.empty()) return out;
  const std::int64_t onx = other.box.max[0] - other.box.min[0] + 1, ony = other.box.max[1] - other.box.min[1] + 1;
  const std::int64_t len = both.max[0] - both.min[0] + 1;
  for (std::int64_t z = both.min[2]; z <= both.max[2]; ++z)
    for (std::int64_t y = both.min[1]; y <= both.max[1]; ++y) {
      const std::uint8_t* src = other.voxels.data() + ((z - other.box.min[2]) * ony + (y - other.box.min[1])) * onx + (both.min[0] - other.box.min[0]);
      std::uint8_t* dst = out.voxels.data() + ((z - out.box.min[2]) * ny + (y - out.box.min[1])) * nx + (both.min[0] - out.box.min[0]);
      if (add) {
        for (std::int64_t x = 0; x < len; ++x) dst[x] = static_cast<std::uint8_t>(src[x] ? 1 : dst[x]);
      } else {
        for (std::int64_t x = 0; x < len; ++x) dst[x] = static_cast<std::uint8_t>(src[x] ? 0 : dst[x]);
      }
    }
  return out;
}

ObjectMask maskOfVoxels(const RasterPrompt& raster) {
  ObjectMask m;
  m.box = raster.box;
  if (m.box.empty()) return m;
  const IndexBox& b = m.box;
  m.voxels.assign(static_cast<std::size_t>(b.voxelCount()), 0);
  for (const auto& q : raster.voxels)
    m.voxels[static_cast<std::size_t>(((q[2] - b.min[2]) * (b.max[1] - b.min[1] + 1) + (q[1] - b.min[1])) * (b.max[0] - b.min[0] + 1) +
                                      (q[0] - b.min[0]))] = 1;
  return m;
}

ObjectMask objectOfLabel(const core::Volume<core::Label>& labels, core::Label label) {
  const core::Size3 d = labels.geometry().dimensions();
  ObjectMask m;
  std::size_t i = 0;
  for (std::int64_t z = 0; z < d[2]; ++z)
    for (std::int64_t y = 0; y < d[1]; ++y)
      for (std::int64_t x = 0; x < d[0]; ++x, ++i)
        if (labels[i] == label) m.box.include(core::Index3{x, y, z});
  if (m.box.empty()) return m;
  const core::IndexBox& b = m.box;
  m.voxels.reserve(static_cast<std::size_t>(b.voxelCount()));
  for (std::int64_t z = b.min[2]; z <= b.max[2]; ++z)
    for (std::int64_t y = b.min[1]; y <= b.max[1]; ++y) {
      const core::Label* row = labels.data() + labels.geometry().linearIndex({b.min[0], y, z});
      for (std::int64_t x = 0; x <= b.max[0] - b.min[0]; ++x) m.voxels.push_back(row[x] == label ? 1 : 0);
    }
  return m;
}

ObjectMask clipMask(const ObjectMask& mask, const core::IndexBox& box) {
  ObjectMask out;
  if (mask.box.empty()) return out;
  for (std::size_t a = 0; a < 3; ++a) {
    out.box.min[a] = std::max(mask.box.min[a], box.min[a]);
    out.box.max[a] = std::min(mask.box.max[a], box.max[a]);
  }
  if (out.box.empty()) return ObjectMask{};
  out.voxels.reserve(static_cast<std::size_t>(out.box.voxelCount()));
  for (std::int64_t z = out.box.min[2]; z <= out.box.max[2]; ++z)
    for (std::int64_t y = out.box.min[1]; y <= out.box.max[1]; ++y)
      for (std::int64_t x = out.box.min[0]; x <= out.box.max[0]; ++x) out.voxels.push_back(mask.contains(Index3{x, y, z}) ? 1 : 0);
  return out;
}

core::Status checkStartObject(const ObjectMask& start, const core::Size3& dims) {
  if (start.box.empty()) return core::Status::success();
  for (std::size_t a = 0; a < 3; ++a)
    if (start.box.min[a] < 0 || start.box.max[a] >= dims[a])
      return core::makeError(core::ErrorCode::InvalidArgument, "start object", "the object lies outside the image");
  if (start.voxels.size() != static_cast<std::size_t>(start.box.voxelCount()))
    return core::makeError(core::ErrorCode::InvalidArgument, "start object", "the object's voxels do not fill its box");
  return core::Status::success();
}

core::Status InteractiveSession::setStart(const ObjectMask&) {
  return core::makeError(core::ErrorCode::Unsupported, "start object", "this engine's sessions start from nothing");
}

core::Result<core::LabelPatch> InteractiveSession::accept(core::Label label) const {
  if (label == 0) return core::makeError(core::ErrorCode::InvalidArgument, "accept", "the object needs a label other than 0");
  const ObjectMask& m = mask();
  if (m.box.empty() || m.count() == 0)
    return core::makeError(core::ErrorCode::InvalidArgument, "accept", "there is no object to accept yet");
  core::LabelPatch patch;
  patch.box = m.box;
  patch.voxels.resize(m.voxels.size());
  std::transform(m.voxels.begin(), m.voxels.end(), patch.voxels.begin(),
                 [label](std::uint8_t v) { return v ? label : core::Label(0); });
  return patch;
}

}  // namespace delineate::inference
