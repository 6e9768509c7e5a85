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

class InteractiveSession {
 public:
  virtual ~InteractiveSession() = default;

  // Adds a click and recomputes the object. A point outside the image is InvalidArgument; after an error or a
  // cancel (progress->cancelled()) the session is exactly as before the call.
  virtual core::Status addPoint(const PointPrompt& point, core::ProgressSink* progress = nullptr) = 0;
  // Removes the last click and restores the object as it was before it. False when there is no click, or when the
  // earlier object cannot be restored (out of memory); the session is then unchanged.
  virtual bool undoPoint() = 0;
  virtual const std::vector<PointPrompt>& points() const = 0;
  virtual const ObjectMask& mask() const = 0;

  // The object as an engine result: `label` inside, 0 elsewhere in its box. InvalidArgument for label 0 or an
  // empty object.
  core::Result<core::LabelPatch> accept(core::Label label) const;
};

}  // namespace delineate::inference
