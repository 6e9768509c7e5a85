#pragma once
// Manual label-editing tools (brush, stroke, flood fill, island and hole clean-up, smoothing, slice interpolation):
// the algorithms the window's tools call, written against EditTransaction so every one of them is undoable, respects
// locks and EditPolicy, and reports what it wrote. Distances are physical (mm, spacing and direction); clean-up tools
// work on the label's bounding box only, so a small label on a 512x512x300 map never costs full-volume buffers.
//
// Every count returned is the number of EditTransaction::set() calls that succeeded (a voxel a lock or the policy
// protects is not counted; a voxel that already held the label counts only for the brush, which sets every voxel
// under it).

#include <cstddef>
#include <optional>

#include "core/edit_transaction.h"
#include "core/error.h"
#include "core/geometry.h"
#include "core/label_map.h"
#include "core/scalar_image.h"
#include "core/volume.h"

namespace delineate::core {

// The voxel axis (0,1,2) of `g` most aligned with `normalLps` (a view's normal): the axis a 2D tool works across.
// 2 (the stacking axis) for a zero or non-finite normal; ties go to the lower axis.
int sliceAxisFor(const Geometry& g, const Vec3& normalLps);

struct IntensityRange {
  float low;
  float high;
  bool contains(double v) const { return v >= low && v <= high; }  // NaN is never inside
};

struct BrushOptions {
  double radiusMm = 5.0;
  bool sphere = false;  // false: a disc in the voxel slice across `axis` through the centre's nearest voxel
  int axis = 2;
  std::optional<IntensityRange> intensity;  // threshold-constrained paint: only voxels whose image value is inside
};

// One dab at centerLps: writes `label` (0 = erase) into voxels within radiusMm (physical distance using spacing and
// direction; a radius smaller than a voxel still paints the centre voxel). `image` required when options.intensity
// is set (same grid as the map). Returns voxels written. Locks and EditPolicy are the transaction's business.
// A disc measures the distance within its slice (the centre's offset along `axis` is ignored), so a click between
// two slices paints the full disc on the nearer one. Nothing is written (0) for a non-finite centre or radius, a
// negative radius, an axis outside 0..2 for a disc, a closed transaction, or an intensity range without an image on
// the map's grid.
std::size_t paintBrush(EditTransaction& t, const Vec3& centerLps, Label label, const BrushOptions& options,
                       ImageView image = {});
// Same, along the segment from `fromLps` to `toLps` (a mouse drag between two events): dabs spaced at most
// radius/2 apart (at least the end point), no gaps however fast the mouse moves.
// `fromLps` is the previous event's point, which that event painted: the dabs are the points (i/n) along the
// segment for i = 1..n, and voxels under the dab at fromLps are left to that event. Each voxel is set once, so the
// counts of a press (paintBrush) and its drags (paintStroke) add up to the distinct voxels written. For a radius below half a voxel the dabs are a
// quarter of the smallest voxel apart instead (the brush is then its centre voxel and closer dabs add nothing).
// Dabs wholly outside the grid are skipped, so a wild segment costs only its part over the grid.
std::size_t paintStroke(EditTransaction& t, const Vec3& fromLps, const Vec3& toLps, Label label,
                        const BrushOptions& options, ImageView image = {});

struct FloodOptions {
  bool threeD = false;  // false: within the voxel slice across `axis` through the seed
  int axis = 2;
  std::optional<IntensityRange> intensity;  // additionally only voxels inside this range
};

// Fills the face-connected region of voxels that hold the seed's current label (and are inside the range) with
// `label`. `map` is the map the transaction writes (read access). Errors: seed outside the grid, closed transaction,
// image missing/other grid when a range is set. Returns voxels written.
// 0 when the seed already holds `label`, lies outside the range, or its label may not be overwritten (a lock or the
// policy: they refuse every voxel of the region alike). Needs no buffer beyond the scanline stack: written voxels
// no longer hold the seed's label, which is the visited mark.
Result<std::size_t> floodFill(EditTransaction& t, const LabelMap& map, const Index3& seed, Label label,
                              const FloodOptions& options, ImageView image = {});

// What a clean-up tool worked on, for callers (and tests) that check it stays local: the box it read and wrote
// (beyond the one allocation-free scan that finds the label; it may reach past the grid where the tool pads), and the
// voxel count of its largest scratch buffer (masks, component ids, distance maps: each covers `box`, or for
// interpolation one slice of it, never the whole map unless the label spans it). Empty when nothing was done.
struct ToolWork {
  IndexBox box;
  std::size_t bufferVoxels = 0;
  // Slice interpolation: the voxels the shape covers between the annotated slices that other labels hold (left as
  // they are unless the interpolation is asked to write over them).
  std::size_t heldByOtherLabels = 0;
};

// The bounding box of `label` in `map` (empty when absent). One pass over the map, allocation-free.
IndexBox labelBoundingBox(const LabelMap& map, Label label);

// Per-label clean-up, each on the label's bounding box only (512x512x300 maps: never allocate full-volume masks
// for a small label); voxels removed from `label` become 0. sliceAxis -1: 3D, else per slice across that axis.
// Islands are face-connected (6-neighbourhood), as Slicer's Islands effect counts them. Errors (InvalidArgument):
// label 0, a closed transaction, or a transaction on another map. An absent label writes nothing.
Result<std::size_t> keepLargestIsland(EditTransaction& t, const LabelMap& map, Label label);
Result<std::size_t> removeSmallIslands(EditTransaction& t, const LabelMap& map, Label label, std::size_t minVoxels);
// fills only background (0) voxels enclosed by label; voxels of other labels are not holes. A hole is a region of
// non-label voxels cut off from the grid's border by the label; its background voxels are filled and any other
// label inside it (a lesion within an organ) is kept as it is.
Result<std::size_t> fillHoles(EditTransaction& t, const LabelMap& map, Label label, int sliceAxis = -1);
// Morphological opening then closing with a ball of radiusMm (exact Euclidean distances in mm): opening removes
// spikes and bridges thinner than the ball, closing fills notches and gaps narrower than it, and flat or convex
// boundaries wider than the ball stay where they are (an edge-preserving smoothing, unlike a Gaussian of the mask,
// which shifts every curved boundary). Grows only into background; outside the grid counts as background.
Result<std::size_t> smoothLabel(EditTransaction& t, const LabelMap& map, Label label, double radiusMm);
// Interpolates `label` between annotated slices across `axis`: for every gap between two slices that contain the
// label, fills the slices in between from the linear interpolation of the two slices' signed distance maps (a shape
// morphs, as ITK-SNAP/Slicer do), only into background voxels unless `overOtherLabels` (inside a parcellated atlas
// every voxel is some label's; locked labels stay protected by the transaction's policy). Error (InvalidArgument)
// when fewer than two slices hold the label. Distances are in mm in the slice's plane; the annotated slices themselves
// are never written.
Result<std::size_t> interpolateSlices(EditTransaction& t, const LabelMap& map, Label label, int axis);

// The same clean-up tools, reporting what they worked on.
Result<std::size_t> keepLargestIsland(EditTransaction& t, const LabelMap& map, Label label, ToolWork& work);
Result<std::size_t> removeSmallIslands(EditTransaction& t, const LabelMap& map, Label label, std::size_t minVoxels,
                                       ToolWork& work);
Result<std::size_t> fillHoles(EditTransaction& t, const LabelMap& map, Label label, int sliceAxis, ToolWork& work);
Result<std::size_t> smoothLabel(EditTransaction& t, const LabelMap& map, Label label, double radiusMm,
                                ToolWork& work);
Result<std::size_t> interpolateSlices(EditTransaction& t, const LabelMap& map, Label label, int axis,
                                      ToolWork& work, bool overOtherLabels = false);

}  // namespace delineate::core
