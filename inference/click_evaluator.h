#pragma once
// The simulated-click protocol of interactive-segmentation papers (e.g. the NoC/Dice@k evaluations of DeepIGeoS,
// SAM-Med3D, nnInteractive): the first click goes to the point deepest inside the reference object; every next click
// goes to the point deepest inside the largest error region, positive where the object was missed and negative
// where it is spurious. "Deepest" is the largest Euclidean distance in mm to the region's boundary (voxels outside
// the image count as boundary), so anisotropic voxels are measured as the user sees them.

#include <cstdint>
#include <vector>

#include "core/error.h"
#include "core/volume.h"
#include "inference/interactive.h"

namespace delineate::inference {

struct ClickRecord {
  PointPrompt point;
  core::Index3 voxel{0, 0, 0};
  double dice = 0;       // after this click
  double latencyMs = 0;  // of addPoint
};

struct ClickEvaluation {
  std::vector<ClickRecord> clicks;
  std::size_t referenceVoxels = 0;
};

// Where the first click goes. Deepest: the protocol of the papers. Interior: where a user might click, a voxel drawn
// (seeded, reproducible) among those at least `interiorDepthFraction` of the deepest point's depth inside the
// object: inside, clear of the edge, not at the centre (a radiologist clicks on the liver, not at its medial axis).
enum class FirstClick { Deepest, Interior };
struct ClickProtocol {
  FirstClick first = FirstClick::Deepest;
  std::uint64_t seed = 1;
  double interiorDepthFraction = 0.3;
};

// Runs `clicks` simulated clicks on `session` (which must be fresh) against `reference` (non-zero = object, on the
// session's image grid). Stops early when the object is perfect. Errors: an empty reference, a grid mismatch, a
// session error.
core::Result<ClickEvaluation> simulateClicks(InteractiveSession& session, const core::Volume<std::uint8_t>& reference,
                                             int clicks, core::ProgressSink* progress = nullptr,
                                             const ClickProtocol& protocol = {});

// Dice of the session's object against the reference.
double diceOf(const ObjectMask& mask, const core::Volume<std::uint8_t>& reference);

// The voxel of `region` (non-zero voxels of a mask over `box` of a grid with `spacingMm`) farthest from its
// boundary, in mm; ties go to the first in x-fastest order. An empty region gives an empty optional.
struct DeepestPoint {
  core::Index3 voxel{0, 0, 0};
  double depthMm = 0;
};
bool deepestPoint(const std::vector<std::uint8_t>& region, const core::IndexBox& box, const core::Vec3& spacingMm,
                  DeepestPoint& out);

}  // namespace delineate::inference
