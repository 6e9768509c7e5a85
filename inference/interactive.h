#pragma once
// Click-prompted segmentation of one object at a time: the user (or the simulated-click evaluator) adds positive
// and negative points, the engine recomputes the object after each, and accept() hands the result over as a
// LabelPatch for an EditTransaction (applyPatch with keepBackground = true adds the object to existing labels).

#include <cstdint>
#include <memory>
#include <vector>

#include "core/error.h"
#include "core/label_patch.h"
#include "core/progress.h"
#include "core/volume.h"
#include "inference/engine.h"

namespace delineate::inference {

// The current object: 1 inside, 0 outside, over `box` of the image grid (x fastest). Empty box: nothing yet.
struct ObjectMask {
  core::IndexBox box;
  std::vector<std::uint8_t> voxels;

  bool contains(const core::Index3& ijk) const;
  std::size_t count() const;
};

// An ObjectMask packed as run lengths (alternating outside/inside, starting outside) for undo histories: a 20 M
// voxel object box of one spine takes a few MB instead of 20.
struct PackedMask {
  core::IndexBox box;
  std::vector<std::uint32_t> runs;
};
PackedMask packMask(const ObjectMask& mask);
ObjectMask unpackMask(const PackedMask& packed);

// A prompt of any kind, positive (object) or negative (not object). Positions are physical (LPS mm), so a prompt means
// the same voxels however the image stores its axes.
// - Point: one position (a click).
// - Box: two opposite corners. Drawn in a slice view (normalLps set: the view's normal) it is a rectangle in that
//   slice: it bounds the object along the two image axes nearest the slice's, and says nothing of the third. A 3D
//   box (normalLps zero, from two views) bounds all three.
// - Scribble: a stroke (positions in order, joined by straight segments): every voxel it crosses is seed.
// - Lasso: a closed contour in one slice (normalLps: the view's normal; the last position joins the first): every
//   voxel whose centre lies inside it (even-odd) in that slice is seed.
struct Prompt {
  enum class Kind { Point, Box, Scribble, Lasso };
  Kind kind = Kind::Point;
  bool positive = true;
  std::vector<core::Vec3> pointsLps;
  core::Vec3 normalLps{0, 0, 0};

  static Prompt point(const PointPrompt& p) { return Prompt{Kind::Point, p.positive, {p.pointLps}, {0, 0, 0}}; }
};
const char* promptKindName(Prompt::Kind kind);  // "point", "box", "scribble", "lasso"

// A prompt on a voxel grid: the voxels it marks (point: one; box: every voxel of the box; scribble: those the stroke
// crosses; lasso: those inside it) and their bounding box; `sliceAxis` is the grid axis across the slice a box or
// lasso was drawn in (-1 for a point, a scribble and a 3D box). Errors: no position, a position outside the grid, a
// lasso of fewer than 3 positions or one whose inside holds no voxel centre, a box with other than 2 corners, more
// than `maxVoxels` voxels.
struct RasterPrompt {
  std::vector<core::Index3> voxels;
  core::IndexBox box;
  int sliceAxis = -1;
};
core::Result<RasterPrompt> rasterizePrompt(const Prompt& prompt, const core::Geometry& grid,
                                           std::size_t maxVoxels = 16 * 1000 * 1000);
// The grid axis nearest to `normalLps` (largest |cosine| with the direction's columns); -1 for a zero vector.
int nearestAxis(const core::Geometry& grid, const core::Vec3& normalLps);
// Up to `count` voxels of `voxels` spread over it (every k-th, in order), the first and last included.
std::vector<core::Index3> spreadVoxels(const std::vector<core::Index3>& voxels, std::size_t count);

// `mask` with `other` set (`add`) or cleared (!add) in it; the box grows to hold what is added.
ObjectMask combineMasks(const ObjectMask& mask, const ObjectMask& other, bool add);
// The prompt's voxels as a mask over their box.
ObjectMask maskOfVoxels(const RasterPrompt& raster);
// The voxels of `labels` equal to `label`, as an object over their box (empty when there are none): a label map's
// object starting a session (a model's output, the window's label).
ObjectMask objectOfLabel(const core::Volume<core::Label>& labels, core::Label label);
// `mask` within `box` only.
ObjectMask clipMask(const ObjectMask& mask, const core::IndexBox& box);
// Whether `start` can start a session on a grid of `dims`: its box inside the grid and its voxels filling the box.
core::Status checkStartObject(const ObjectMask& start, const core::Size3& dims);

class InteractiveSession {
 public:
  virtual ~InteractiveSession() = default;

  // Adds a prompt and recomputes the object; a prompt of several voxels (a box, a scribble, a lasso) is one step. A
  // prompt outside the image is InvalidArgument; after an error or a cancel (progress->cancelled()) the session is
  // exactly as before the call. After the first object (or a start, below) a positive prompt only adds to it and a
  // negative one only removes.
  virtual core::Status addPrompt(const Prompt& prompt, core::ProgressSink* progress = nullptr) = 0;
  core::Status addPoint(const PointPrompt& point, core::ProgressSink* progress = nullptr) {
    return addPrompt(Prompt::point(point), progress);
  }
  // Removes the last prompt and restores the object as it was before it. False when there is no prompt, or when the
  // earlier object cannot be restored (out of memory); the session is then unchanged.
  virtual bool undoPrompt() = 0;
  virtual const std::vector<Prompt>& prompts() const = 0;
  virtual const ObjectMask& mask() const = 0;
  // Starts from an object that exists (a model's output, the label being edited) on the image grid: prompts then
  // edit it. Only before the first prompt (InvalidArgument after); Unsupported by engines that cannot.
  virtual core::Status setStart(const ObjectMask& start);

  // The object as an engine result: `label` inside, 0 elsewhere in its box. InvalidArgument for label 0 or an
  // empty object.
  core::Result<core::LabelPatch> accept(core::Label label) const;
};

}  // namespace delineate::inference
