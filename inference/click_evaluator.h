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
  Prompt prompt;         // what was given
  PointPrompt point;     // a point prompt's position (a box's and a stroke's first position)
  core::Index3 voxel{0, 0, 0};
  double dice = 0;       // after this click
  double latencyMs = 0;  // of addPoint
};

struct ClickEvaluation {
  std::vector<ClickRecord> clicks;
  std::size_t referenceVoxels = 0;
  double startDice = 0;  // of the object before the first prompt (a start object's; 0 for none)
};

// Where the first click goes. Deepest: the protocol of the papers. Interior: where a user might click, a voxel drawn
// (seeded, reproducible) among those at least `interiorDepthFraction` of the deepest point's depth inside the
// object: inside, clear of the edge, not at the centre (a radiologist clicks on the liver, not at its medial axis).
enum class FirstClick { Deepest, Interior };
// What is given. Clicks: every prompt a point (as above). Box: the protocol of the CVPR 2025 interactive 3D
// segmentation challenge: first a 2D box, the reference's bounding rectangle on its largest axial slice (the image
// axis nearest the patient's S), then clicks as above. Scribble: every prompt a stroke through the deepest point of
// the largest error region, along its medial axis in that axial slice: the line through the point along the
// region's principal in-plane direction, kept while it stays at least a third of the point's depth inside the region.
enum class PromptProtocol { Clicks, Box, Scribble };
struct ClickProtocol {
  FirstClick first = FirstClick::Deepest;
  std::uint64_t seed = 1;
  double interiorDepthFraction = 0.3;
  PromptProtocol prompts = PromptProtocol::Clicks;
};

// Runs `clicks` simulated prompts on `session` against `reference` (non-zero = object, on the session's image grid):
// with the box protocol a box and then `clicks` clicks. The session is fresh, or holds a start object (setStart) that
// the prompts then correct: the first prompt goes to the largest error as every later one does. Stops early when the
// object is perfect. Errors: an empty reference, a grid mismatch, a session error.
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
