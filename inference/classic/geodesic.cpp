#include "inference/classic/geodesic.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace delineate::inference::classic {

core::Result<std::vector<std::uint8_t>> geodesicCompetition(const std::vector<float>& value, const std::int64_t n[3],
                                                            const core::Vec3& spacingMm,
                                                            const std::vector<GeodesicSeed>& seeds,
                                                            const std::vector<std::uint8_t>& sharedBand,
                                                            const std::vector<std::uint8_t>& reachable, float weight,
                                                            core::ProgressSink* progress,
                                                            std::vector<std::uint16_t>* winner) {
  const std::size_t total = static_cast<std::size_t>(n[0] * n[1] * n[2]);
  if (total > std::numeric_limits<std::uint32_t>::max())
    return core::makeError(core::ErrorCode::SizeLimit, "click", "the working grid has more than 2^32 voxels");
  if (seeds.size() > std::numeric_limits<std::uint16_t>::max())
    return core::makeError(core::ErrorCode::SizeLimit, "click", "more than 65535 clicks on one object");
  // Everything a relaxation reads or writes about a voxel, in one 12-byte record: the flood visits neighbours
  // along all three axes, and separate arrays cost a cache miss each (the competition on a 1.7 M voxel grid was
  // bound by those misses).
  struct Node {
    float dist;
    float value;
    std::uint16_t from;  // the seed that reached the voxel first
    std::uint8_t owner;  // 0 none, 1 object, 2 background
    std::uint8_t flags;  // kDone, kShared, kReachable
  };
  static_assert(sizeof(Node) == 12, "Node packs into 12 bytes");
  constexpr std::uint8_t kDone = 1, kShared = 2, kReachable = 4;
  std::vector<Node> node(total);
  for (std::size_t i = 0; i < total; ++i) {
    std::uint8_t f = 0;
    if (sharedBand[i]) f |= kShared;
    if (reachable.empty() || reachable[i]) f |= kReachable;
    node[i] = Node{std::numeric_limits<float>::infinity(), value[i], 0, 0, f};
  }

  const float step[3] = {static_cast<float>(spacingMm[0]), static_cast<float>(spacingMm[1]),
                         static_cast<float>(spacingMm[2])};
  const float width = std::min({step[0], step[1], step[2]});
  const float longest = std::max({step[0], step[1], step[2]}) * kMaxStepFactor;
  const std::size_t bucketCount = static_cast<std::size_t>(std::ceil(longest / width)) + 2;
  std::vector<std::vector<std::uint32_t>> buckets(bucketCount);
  std::size_t pending = 0;
  auto bucketOf = [&](float d) { return static_cast<std::uint64_t>(d / width); };
  std::uint64_t current = 0;
  // Seeds go to bucket 0; a relaxation lands at least one bucket later (rounding aside, hence the max), never in
  // the bucket being emptied.
  auto push = [&](std::size_t i, float d, std::uint64_t earliest) {
    const std::uint64_t b = std::max(bucketOf(d), earliest);
    buckets[b % bucketCount].push_back(static_cast<std::uint32_t>(i));
    ++pending;
  };

  auto at = [&](const core::Index3& c) { return static_cast<std::size_t>((c[2] * n[1] + c[1]) * n[0] + c[0]); };
  std::vector<float> reach2(seeds.size(), 0);
  for (std::size_t k = 0; k < seeds.size(); ++k) {
    const std::size_t i = at(seeds[k].at);
    node[i].dist = 0;
    node[i].owner = seeds[k].positive ? 1 : 2;  // a later seed on the same voxel wins
    node[i].from = static_cast<std::uint16_t>(k);
    reach2[k] = seeds[k].reachMm * seeds[k].reachMm;  // infinity stays infinity
    push(i, 0, 0);
  }

  const std::int64_t stride[3] = {1, n[0], n[0] * n[1]};
  const auto nx32 = static_cast<std::uint32_t>(n[0]), ny32 = static_cast<std::uint32_t>(n[1]);
  std::vector<std::uint32_t> work;
  std::size_t popped = 0;
  while (pending > 0) {
    work.clear();
    std::swap(work, buckets[current % bucketCount]);
    pending -= work.size();
    for (const std::uint32_t ui : work) {
      const std::size_t i = ui;
      Node& self = node[i];
      if (self.flags & kDone) continue;
      self.flags |= kDone;
      if (progress && (++popped & 0xFFFFF) == 0 && progress->cancelled())
        return core::makeError(core::ErrorCode::Cancelled, "click", "cancelled");
      const float d = self.dist;
      const float vi = self.value;
      // Coordinates by 32-bit division (the grid has fewer than 2^32 voxels), far cheaper than 64-bit.
      const std::uint32_t rest = ui / nx32;
      const std::int64_t c[3] = {static_cast<std::int64_t>(ui - rest * nx32), static_cast<std::int64_t>(rest % ny32),
                                 static_cast<std::int64_t>(rest / ny32)};
      const std::int64_t si = static_cast<std::int64_t>(i);
      const std::uint8_t o = self.owner;
      const std::uint16_t f = self.from;
      const GeodesicSeed& seed = seeds[f];
      // Offsets (mm) of i from the click that reached it, for the straight-line reach of positive clicks (6-neighbour
      // paths would measure city blocks).
      float off[3] = {0, 0, 0};
      float off2 = 0;
      if (o == 1) {
        for (int b = 0; b < 3; ++b) {
          off[b] = static_cast<float>(c[b] - seed.at[static_cast<std::size_t>(b)]) * step[b];
          off2 += off[b] * off[b];
        }
      }
      for (int a = 0; a < 3; ++a)
        for (int dir = -1; dir <= 1; dir += 2) {
          const std::int64_t q = c[a] + dir;
          if (q < 0 || q >= n[a]) continue;
          Node& next = node[static_cast<std::size_t>(si + dir * stride[a])];
          if (next.flags & kDone) continue;
          if (!(next.flags & kReachable)) continue;  // within the union of the positive seeds' reaches
          if (o == 1) {
            if ((next.value < seed.low || next.value > seed.high) && !(next.flags & kShared)) continue;
            const float moved = off[a] + static_cast<float>(dir) * step[a];
            if (off2 - off[a] * off[a] + moved * moved > reach2[f]) continue;
            if (!seed.bound.empty()) {  // a box prompt's seed stays in its box
              const auto& b = seed.bound;
              const std::size_t ax = static_cast<std::size_t>(a);
              if (q < b.min[ax] || q > b.max[ax]) continue;
            }
          }
          const float nd = d + step[a] * std::min(1.0f + weight * std::fabs(next.value - vi), kMaxStepFactor);
          if (nd < next.dist) {
            next.dist = nd;
            next.owner = o;
            next.from = f;
            push(static_cast<std::size_t>(si + dir * stride[a]), nd, current + 1);
          }
        }
    }
    ++current;
  }
  std::vector<std::uint8_t> owner(total);
  for (std::size_t i = 0; i < total; ++i) owner[i] = node[i].owner;
  if (winner) {
    winner->resize(total);
    for (std::size_t i = 0; i < total; ++i) (*winner)[i] = node[i].from;
  }
  return owner;
}

}  // namespace delineate::inference::classic
