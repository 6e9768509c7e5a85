#pragma once
// Geodesic competition between positive and negative clicks on a voxel grid (the click session's core): every click
// floods outwards by geodesic distance, 6-neighbourhood, each step its length in mm times (1 + weight x |intensity
// difference|), and a voxel goes to the click that reaches it first. A positive click floods only through voxels
// within its reach (straight-line mm from the click) that are within its own intensity band or set in `sharedBand`
// (the click session sets there the voxels in some positive click's band and within that click's reach: a click on a
// tumour's rim lets the core's click through the rim near it, but a click on a boundary does not let an unbounded
// click into the other side everywhere). Negative clicks flood only where `reachable` is set (empty: everywhere), and positive ones too (within their own reach as well: a box prompt's bound is kept there).
//
// The queue is a cyclic bucket queue whose bucket width is the shortest step: every relaxation adds at least one
// bucket width, so the voxels of the lowest bucket are final in any order and the result is exactly Dijkstra's, at
// O(1) per queue operation instead of a heap's O(log n). Step costs are capped at kMaxStepFactor lengths (an
// intensity jump that large is a wall either way), which bounds the number of buckets.

#include <cstdint>
#include <vector>

#include "core/error.h"
#include "core/geometry.h"
#include "core/progress.h"

namespace delineate::inference::classic {

constexpr float kMaxStepFactor = 256;

struct GeodesicSeed {
  core::Index3 at{0, 0, 0};  // grid coordinates
  bool positive = true;
  float reachMm = 0;  // positive clicks only; infinity for unbounded
  float low = 0, high = 0;  // positive clicks only: the intensity band it floods through
  core::IndexBox bound;     // positive clicks only: grid coordinates it never leaves (empty: none; a box prompt's)
};

// 1 where a positive click wins, 2 where a negative click wins, 0 where none arrives. A later seed on the same voxel
// as an earlier one wins it. `winner`, when given, gets the index of the seed that won each voxel (meaningless where
// none arrived). Cancelled when progress says so.
core::Result<std::vector<std::uint8_t>> geodesicCompetition(const std::vector<float>& value, const std::int64_t n[3],
                                                            const core::Vec3& spacingMm,
                                                            const std::vector<GeodesicSeed>& seeds,
                                                            const std::vector<std::uint8_t>& sharedBand,
                                                            const std::vector<std::uint8_t>& reachable, float weight,
                                                            core::ProgressSink* progress,
                                                            std::vector<std::uint16_t>* winner = nullptr);

}  // namespace delineate::inference::classic
