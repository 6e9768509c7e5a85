#pragma once
// The classic engine's click refinement: positive and negative points grow and shrink one object, on the CPU, on
// any modality, with anisotropic voxels handled in millimetres.
//
// How an object is computed from the clicks (all of it inside a region of interest around the clicks):
// 1. The region is taken onto a working grid (working_grid.h): at full resolution while it holds at most
//    `maxWorkingVoxels` voxels, else averaged over blocks; smoothed lightly ([1 2 1]/4 along every axis that was not
//    averaged and whose spacing is at most twice the finest, so thick slices are not blurred into each other) and
//    its noise level estimated robustly from neighbour differences. Steps 2-6 run on that grid; the object comes
//    back to the image grid by interpolating the block mask. Consecutive clicks in one region reuse the grid.
// 2. Each positive click brings an intensity model: the median and spread of the smoothed image around it (the
//    spread between `noiseFloor` and `maxSpread` x `noiseFloor` times the noise). A voxel is in a click's band when
//    it is within `bandSigmas` spreads of its median. A click floods through its own band, and through the band of
//    any other positive click within `shareReachFactor` times that click's reach, so an object of several tissues
//    (a tumour's rim and core) is covered by clicking each, while a click on an edge (a band holding both sides)
//    opens that band only near itself.
// 3. Each positive click has a reach: `reachFactor` times its depth, measured once when the click is added, as the
//    radius at which more than `outsideFraction` of a ball around it (up to `depthScanMm`) falls outside its band,
//    or at which the ball meets the object of the earlier clicks (a click beside the object marks a missing part
//    about as wide as its distance to the object). Without it one click on a low-contrast image takes everything.
//    Where the band holds much of the region (more than `lowContrastBandFraction`: a brain template whose
//    structures differ by a fraction of their texture, abdominal organs sharing the soft-tissue band on CT), the
//    depth is measured with a band of `lowContrastDepthSigmas` spreads: how far the texture stays close to the
//    click's own median, up to `lowContrastScanMm` (a homogeneous organ deeper than that is taken to be that deep:
//    an unbounded reach would flood the band). A low-contrast click added to an object that exists reaches
//    `laterReachFactor` (not `reachFactor`) times its depth: it marks a missing part about as wide as its depth, and
//    the first click's factor floods the neighbourhood (most of the clicks that lowered Dice did that). No positive
//    click reaches past a negative click: the user said the object stops before it.
// 4. Positive and negative clicks compete for voxels by geodesic distance (Dijkstra, 6-neighbourhood, steps in mm
//    lengthened by intensity differences; geodesic.h): positive clicks only spread through their bands and within
//    their reach (straight-line mm from the click), negative clicks spread wherever some positive click can reach.
//    A voxel belongs to the object when a positive click reaches it first. So a negative click cuts a leak where
//    the leak's path from the positive clicks is weakest or farthest.
// 5. Holes are filled (3D, and slice by slice across the thickest axis when voxels are anisotropic).
//    After the first object, a click changes it only its own way: a positive click adds what the competition gives
//    and removes nothing; a negative click removes only the connected parts of what the competition drops that hold
//    voxels it won itself (the wrong region it touches). The competition alone reroutes paths around a new seed and
//    moved boundaries far from the click: positive clicks removed voxels and negative ones added some.
// 6. The region of interest starts `initialMarginMm` around the clicks and grows its margin `marginGrowth` times
//    where the object reaches one of its faces (up to `maxExpansions` times), so small objects stay fine and large ones are not cut;
//    the next click starts from the margin its predecessor reached.
// Prompts other than points (interactive.h): a scribble's voxels and a lasso's inside are the object (or not, when
// negative) for certain, and up to `maxStrokeSeeds` of them, spread along the stroke or over the lasso's deepest
// part, are seeds of their own (each with its band and reach); a positive box is a seed at the deepest point of the
// part of the box's middle slice in one band with its centre, whose reach is the box's half diagonal and which never
// grows out of the box (a 2D box bounds two axes); a negative box clears its voxels. A negative prompt on an object
// with no positive seed (a start object) removes the connected parts of the object that a positive prompt at the
// same place would have grown.
// All of it runs on the image's canonical storage order (core/axis_order.h: axes permuted and flipped so the direction
// is closest to the identity in LPS; an exact voxel permutation), read box by box, and the object is mapped back: so
// the same scan stored in any of the 48 axis orders, clicked at the same points, gives the same voxels. Block
// averaging, the per-axis box snapping, the geodesic queue's neighbour order and slice-wise hole filling all follow
// storage axes and would otherwise differ between LPS and LAS files, or with i and j swapped.

#include <limits>
#include <memory>
#include <vector>

#include "core/axis_order.h"
#include "core/scalar_image.h"
#include "inference/interactive.h"

namespace delineate::inference::classic {

struct WorkingGrid;

struct ClickOptions {
  double initialMarginMm = 20;
  int maxExpansions = 3;
  double marginGrowth = 4;  // the margin's factor per expansion
  double bandSigmas = 2.5;
  double noiseFloor = 2.0;
  double maxSpread = 2.0;                       // a click's spread is at most this many noise floors
  double gradientWeight = 1.0;
  int sampleRadiusVoxels = 2;                  // of the neighbourhood sampled around a click (fine axes only)
  int smoothingPasses = 1;                      // of the [1 2 1] filter
  double depthScanMm = 15;                      // a click's depth is looked for up to this radius (else unbounded)
  double outsideFraction = 0.3;
  // A click whose band holds more than this fraction of the region is low-contrast (a mouse brain template, where
  // every structure is in one band; abdominal organs on CT, which share the soft-tissue band); its depth is measured
  // with a band of this many spreads instead of bandSigmas.
  double lowContrastBandFraction = 0.25;
  double lowContrastDepthSigmas = 1.0;
  double lowContrastScanMm = 25;  // ... looked for up to this radius, which is its depth when nothing is found
  double reachFactor = 2.5;
  double laterReachFactor = 1.5;                // ... of a positive click added to an object that exists
  double shareReachFactor = 2.0;                // a click's band is open to other clicks this many reaches around it
  std::int64_t maxRoiVoxels = 64 * 1000 * 1000;  // the region (image voxels) stops growing beyond this
  std::int64_t maxWorkingVoxels = 2 * 1000 * 1000;  // larger regions are computed on blocks
  // A region this large is computed on blocks of 2 or more voxels a side anyway; it gets a smaller budget (blocks of
  // about 4 a side instead of 3), which bounds a click on a whole skeleton: on a 512x512x300 CT (bench_click_latency)
  // p95 went from 280 to about 140 ms, and the bone's Dice did not go down. The budget on smaller regions stays:
  // 600 k everywhere cost 0.01 mean Dice after 5 clicks over the CT and MR structures.
  std::int64_t largeRegionVoxels = 16 * 1000 * 1000;
  std::int64_t largeRegionWorkingVoxels = 600 * 1000;
  std::size_t maxStrokeSeeds = 24;              // seeds of one scribble or lasso
  double strokeSeedSpacingMm = 3;               // ... about this far apart along a scribble
  double strokeReachFactor = 1.0;               // ... each reaching this many times its depth (at most a click's)
};

class ClickSession final : public InteractiveSession {
 public:
  // The image must outlive the session.
  static core::Result<std::unique_ptr<ClickSession>> begin(core::ImageView image, const ClickOptions& options = {});

  core::Status addPrompt(const Prompt& prompt, core::ProgressSink* progress = nullptr) override;
  bool undoPrompt() override;
  const std::vector<Prompt>& prompts() const override { return m_prompts; }
  const ObjectMask& mask() const override { return m_order.isIdentity() ? m_current : m_shown; }
  core::Status setStart(const ObjectMask& start) override;

  // A seed of the competition (canonical grid). `reach`: straight-line mm it may grow the object (NaN: to be measured
  // when added); `bound`: a box it may not grow out of (a box prompt's; empty: none); `extent`: a box the region of
  // interest must hold (the box prompt itself).
  struct Seed {
    core::Index3 at{0, 0, 0};
    bool positive = true;
    float reach = 0;
    core::IndexBox bound, extent;
    float low = std::numeric_limits<float>::quiet_NaN(), high = low;  // its band (NaN: from around it, as a click's)
    bool stroke = false;  // one of a scribble's or lasso's seeds (strokeReachFactor)
  };

 private:
  ClickSession(core::ImageView image, const ClickOptions& options);
  // The object of these seeds (those from `firstNew` on are the prompt being added); measures the reach of seeds
  // that have none yet; `margin` (mm around the seeds) grows where the object needs a larger region.
  core::Result<ObjectMask> compute(std::vector<Seed>& seeds, std::size_t firstNew, const ObjectMask* previous,
                                   double& margin, core::ProgressSink* progress) const;
  // The seeds of a prompt rasterised on the canonical grid.
  core::Result<std::vector<Seed>> seedsOf(const Prompt& prompt, const RasterPrompt& raster) const;
  // A box prompt's seeds: in the box's slice, the voxels whose intensities the box holds clearly more of than a ring
  // just outside it; of their part holding most of the box's middle third, the deepest voxel and up to 4 more over
  // its deeper half, with that part's intensity range as their band.
  std::vector<Seed> boxSeeds(const RasterPrompt& raster) const;
  // The working grid of `box`: the cached one when it covers the same box, else a new one (which replaces it).
  std::shared_ptr<const WorkingGrid> gridFor(const core::IndexBox& box) const;
  // The working grid of `box` in canonical order (gridFor's, uncached).
  WorkingGrid buildGrid(const core::IndexBox& box) const;

  core::ImageView m_image;
  ClickOptions m_options;
  core::AxisOrder m_order;  // the canonical order of the image's storage axes
  core::Geometry m_canonical;   // the image's grid in that order; seeds, boxes and objects below are on it
  std::vector<Prompt> m_prompts;
  std::vector<std::size_t> m_seedCounts;  // seeds of each prompt
  std::vector<Seed> m_seeds;
  std::vector<double> m_margins;      // the region's margin (mm) after each prompt
  bool m_started = false;             // the session began from a start object (setStart)
  ObjectMask m_current;               // the object after the last prompt (canonical grid)
  ObjectMask m_shown;                 // ... on the image's own grid, where the orders differ
  std::vector<PackedMask> m_history;  // the object before each prompt (packed), for undo
  // Caches (results depend only on the prompts): the working grid, and the ball offsets of its spacing.
  struct OffsetCache;
  mutable std::shared_ptr<const WorkingGrid> m_grid;
  mutable std::shared_ptr<const OffsetCache> m_offsets;
};

}  // namespace delineate::inference::classic
