#include "inference/guided_session.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <new>

#include "inference/classic/click_session.h"

namespace delineate::inference {

namespace {
// How far (voxels) the distance from a prompt to the object's edge is looked for; the reach is a few times that.
constexpr double kDistanceLimitVoxels = 50;
}  // namespace

using core::Index3;
using core::IndexBox;

GuidedSession::GuidedSession(core::ImageView image, core::Volume<std::uint8_t> probability, const GuidedOptions& options)
    : m_image(image), m_probability(std::move(probability)), m_options(options) {}

core::Result<std::unique_ptr<GuidedSession>> GuidedSession::begin(core::ImageView image,
                                                                  core::Volume<std::uint8_t> probability,
                                                                  const ObjectMask& start, const GuidedOptions& options) {
  if (image.geometry().voxelCount() <= 0)
    return core::makeError(core::ErrorCode::InvalidArgument, "model-guided session", "the image is empty");
  if (probability.geometry().dimensions() != image.geometry().dimensions())
    return core::makeError(core::ErrorCode::GeometryMismatch, "model-guided session",
                           "the model's probabilities are not on the image's grid");
  std::unique_ptr<GuidedSession> session(new GuidedSession(image, std::move(probability), options));
  if (core::Status s = session->setStart(start); !s) return s.error();
  return session;
}

core::Status GuidedSession::setStart(const ObjectMask& start) {
  if (!m_prompts.empty())
    return core::makeError(core::ErrorCode::InvalidArgument, "start object", "the session has prompts already");
  const core::Size3 dims = m_image.geometry().dimensions();
  if (core::Status s = checkStartObject(start, dims); !s) return s;
  m_mask = start;
  return core::Status::success();
}

double GuidedSession::distanceTo(const Index3& at, bool inObject, double limitMm) const {
  if (m_mask.box.empty()) return inObject ? std::numeric_limits<double>::infinity() : 0.0;
  const core::Vec3 sp = m_image.geometry().spacingMm();
  const core::Size3 dims = m_image.geometry().dimensions();
  IndexBox box;
  for (std::size_t a = 0; a < 3; ++a) {
    const auto r = static_cast<std::int64_t>(std::ceil(limitMm / sp[a]));
    box.min[a] = std::max<std::int64_t>(0, at[a] - r);
    box.max[a] = std::min<std::int64_t>(dims[a] - 1, at[a] + r);
    if (inObject) {  // nothing of the object lies outside its box
      box.min[a] = std::max(box.min[a], m_mask.box.min[a]);
      box.max[a] = std::min(box.max[a], m_mask.box.max[a]);
    }
  }
  double best = limitMm * limitMm;
  for (std::int64_t z = box.min[2]; z <= box.max[2]; ++z)
    for (std::int64_t y = box.min[1]; y <= box.max[1]; ++y)
      for (std::int64_t x = box.min[0]; x <= box.max[0]; ++x) {
        if (m_mask.contains(Index3{x, y, z}) != inObject) continue;
        const double dx = static_cast<double>(x - at[0]) * sp[0], dy = static_cast<double>(y - at[1]) * sp[1],
                     dz = static_cast<double>(z - at[2]) * sp[2];
        best = std::min(best, dx * dx + dy * dy + dz * dz);
      }
  return std::sqrt(best);
}

template <class Accept>
ObjectMask GuidedSession::flood(const std::vector<Index3>& seeds, double reachMm, const IndexBox& bound,
                                Accept&& accept) const {
  ObjectMask out;
  if (seeds.empty()) return out;
  const core::Vec3 sp = m_image.geometry().spacingMm();
  const core::Size3 dims = m_image.geometry().dimensions();
  IndexBox seedBox;
  for (const auto& q : seeds) seedBox.include(q);
  IndexBox box;
  for (std::size_t a = 0; a < 3; ++a) {
    const double r = std::ceil(reachMm / sp[a]);
    box.min[a] = r >= static_cast<double>(dims[a]) ? 0 : std::max<std::int64_t>(0, seedBox.min[a] - static_cast<std::int64_t>(r));
    box.max[a] = r >= static_cast<double>(dims[a]) ? dims[a] - 1 : std::min<std::int64_t>(dims[a] - 1, seedBox.max[a] + static_cast<std::int64_t>(r));
    if (!bound.empty()) {
      box.min[a] = std::max(box.min[a], bound.min[a]);
      box.max[a] = std::min(box.max[a], bound.max[a]);
    }
  }
  if (box.empty()) return out;
  const std::vector<Index3> near = spreadVoxels(seeds, 64);  // reach is measured from these
  const double reach2 = reachMm * reachMm;
  auto withinReach = [&](const Index3& q) {
    if (!std::isfinite(reachMm)) return true;
    for (const auto& s : near) {
      const double dx = static_cast<double>(q[0] - s[0]) * sp[0], dy = static_cast<double>(q[1] - s[1]) * sp[1],
                   dz = static_cast<double>(q[2] - s[2]) * sp[2];
      if (dx * dx + dy * dy + dz * dz <= reach2) return true;
    }
    return false;
  };
  out.box = box;
  out.voxels.assign(static_cast<std::size_t>(box.voxelCount()), 0);
  const std::int64_t nx = box.max[0] - box.min[0] + 1, ny = box.max[1] - box.min[1] + 1;
  auto local = [&](const Index3& q) {
    return static_cast<std::size_t>(((q[2] - box.min[2]) * ny + (q[1] - box.min[1])) * nx + (q[0] - box.min[0]));
  };
  std::deque<Index3> queue;
  // The prompt's own voxels start the flood whatever they hold: the rule is about what they are connected to.
  for (const auto& q : seeds)
    if (box.contains(q) && !out.voxels[local(q)]) {
      out.voxels[local(q)] = 1;
      queue.push_back(q);
    }
  static constexpr std::int64_t kSteps[6][3] = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}};
  while (!queue.empty()) {
    const Index3 q = queue.front();
    queue.pop_front();
    for (const auto& d : kSteps) {
      const Index3 r{q[0] + d[0], q[1] + d[1], q[2] + d[2]};
      if (!box.contains(r) || out.voxels[local(r)] || !accept(r) || !withinReach(r)) continue;
      out.voxels[local(r)] = 1;
      queue.push_back(r);
    }
  }
  return out;
}

core::Status GuidedSession::addPrompt(const Prompt& prompt, core::ProgressSink* progress) {
  const core::Geometry& g = m_image.geometry();
  auto raster = rasterizePrompt(prompt, g);
  if (!raster) return raster.error();
  if (progress && progress->cancelled()) return core::makeError(core::ErrorCode::Cancelled, "prompt", "cancelled");
  const core::Vec3 sp = g.spacingMm();
  const double finest = std::min({sp[0], sp[1], sp[2]});
  auto prob = [&](const Index3& q) { return static_cast<int>(m_probability.at(q)); };
  try {
    ObjectMask next;
    bool guided = true;
    auto fallback = [&]() -> core::Status {
      // The model never considered the class here: the classic engine decides from the intensities.
      guided = false;
      auto classic = classic::ClickSession::begin(m_image);
      if (!classic) return classic.error();
      if (core::Status s = (*classic)->setStart(m_mask); !s) return s;
      if (core::Status s = (*classic)->addPrompt(prompt, progress); !s) return s;
      next = (*classic)->mask();
      return core::Status::success();
    };
    if (prompt.kind == Prompt::Kind::Box && !prompt.positive) {
      next = combineMasks(m_mask, maskOfVoxels(*raster), false);
    } else if (prompt.kind == Prompt::Kind::Box) {
      // The most probable voxel of the box's middle third (in-plane), the first of equals.
      const IndexBox& b = raster->box;
      Index3 seed = raster->voxels.front();
      int best = -1;
      for (const auto& q : raster->voxels) {
        bool central = true;
        for (std::size_t a = 0; a < 3; ++a) {
          if (static_cast<int>(a) == raster->sliceAxis) continue;
          const std::int64_t n = b.max[a] - b.min[a], c = q[a] - b.min[a];
          if (n >= 3 && (3 * c < n || 3 * c > 2 * n)) central = false;  // a box 3 voxels wide or less is all middle
        }
        if (central && prob(q) > best) {
          best = prob(q);
          seed = q;
        }
      }
      if (best < m_options.blindBelow) {
        if (core::Status s = fallback(); !s) return s;
      } else {
        IndexBox bound = b;
        if (raster->sliceAxis >= 0) {
          const auto a = static_cast<std::size_t>(raster->sliceAxis);
          bound.min[a] = 0;
          bound.max[a] = g.dimensions()[a] - 1;
        }
        const int floor = std::max(1, static_cast<int>(std::lround(best * m_options.addFraction)));
        const ObjectMask region = flood({seed}, std::numeric_limits<double>::infinity(), bound,
                                        [&](const Index3& q) { return prob(q) >= floor; });
        next = combineMasks(m_mask, region, true);
      }
    } else if (prompt.positive) {
      // The level comes from the prompt's voxels that are not object yet (a stroke from the object's core into a
      // missed rim is about the rim).
      std::vector<Index3> outside;
      for (const auto& q : raster->voxels)
        if (!m_mask.contains(q)) outside.push_back(q);
      int ps = 0;
      for (const auto& q : outside) ps = std::max(ps, prob(q));
      if (outside.empty()) {
        next = m_mask;  // all of it is object already
      } else if (ps < m_options.blindBelow) {
        if (core::Status s = fallback(); !s) return s;
      } else {
        double d = std::numeric_limits<double>::infinity();
        for (const auto& q : spreadVoxels(outside, 8)) d = std::min(d, distanceTo(q, true, kDistanceLimitVoxels * finest));
        double reach = std::isfinite(d) ? std::max(m_options.minReachVoxels * finest, m_options.reachFactor * d)
                                        : std::numeric_limits<double>::infinity();
        // Where the model found the class unlikely, "as likely as here" holds much of the surroundings: the prompt
        // corrects only its own neighbourhood (a 150-voxel structure went from 0.65 to 0.32 Dice on one such click).
        if (ps < m_options.unlikelyBelow) reach = m_options.minReachVoxels * finest;
        const int floor = std::max(1, static_cast<int>(std::lround(ps * m_options.addFraction)));
        // Connected through the object too: a thin missed layer touches the prompt only across the object.
        const ObjectMask region = flood(outside, reach, {}, [&](const Index3& q) {
          return prob(q) >= floor && !m_mask.contains(q);
        });
        next = combineMasks(combineMasks(m_mask, region, true), maskOfVoxels(*raster), true);
      }
    } else {
      std::vector<Index3> inside;
      for (const auto& q : raster->voxels)
        if (m_mask.contains(q)) inside.push_back(q);
      next = m_mask;
      if (!inside.empty()) {
        int ps = 0;
        for (const auto& q : inside) ps = std::max(ps, prob(q));
        double d = std::numeric_limits<double>::infinity();
        for (const auto& q : spreadVoxels(inside, 8)) d = std::min(d, distanceTo(q, false, kDistanceLimitVoxels * finest));
        const double reach = std::max(m_options.minReachVoxels * finest, m_options.removeReachFactor * d);
        // Where the model was sure (saturated), "less likely than here" is nothing: the part as sure as here goes.
        const bool sure = ps >= 250;
        const int ceiling = std::min(255, static_cast<int>(std::lround(ps * m_options.removeFactor)) + m_options.removeMargin);
        const ObjectMask region = flood(inside, reach, {}, [&](const Index3& q) {
          return (sure ? prob(q) >= 250 : prob(q) <= ceiling) && m_mask.contains(q);
        });
        next = combineMasks(next, region, false);
      }
      next = combineMasks(next, maskOfVoxels(*raster), false);
    }
    // A scribble's and a lasso's voxels are what the user said, for certain.
    if (prompt.kind == Prompt::Kind::Scribble || prompt.kind == Prompt::Kind::Lasso)
      next = combineMasks(next, maskOfVoxels(*raster), prompt.positive);
    // Everything that allocates before the session changes: a failure leaves it as it was.
    PackedMask before = packMask(m_mask);
    Prompt kept = prompt;
    m_history.reserve(m_history.size() + 1);
    m_prompts.reserve(m_prompts.size() + 1);
    m_wasGuided.reserve(m_wasGuided.size() + 1);
    m_history.push_back(std::move(before));
    m_prompts.push_back(std::move(kept));
    m_wasGuided.push_back(guided ? 1 : 0);
    m_mask = std::move(next);
    ++(guided ? m_guided : m_fallback);
  } catch (const std::bad_alloc&) {
    return core::makeError(core::ErrorCode::OutOfMemory, "prompt", "out of memory");
  }
  return core::Status::success();
}

bool GuidedSession::undoPrompt() {
  if (m_prompts.empty() || m_history.empty()) return false;
  try {
    ObjectMask previous = unpackMask(m_history.back());
    m_history.pop_back();
    m_prompts.pop_back();
    --(m_wasGuided.back() ? m_guided : m_fallback);
    m_wasGuided.pop_back();
    m_mask = std::move(previous);
    return true;
  } catch (const std::bad_alloc&) {
    return false;
  }
}

}  // namespace delineate::inference
