#pragma once
// Model-guided refinement: prompts that edit one class of a trained model's segmentation through the model's own
// per-voxel probability of that class (SegmentationEngine::classProbability), not from intensities alone.
//
// The rule: a positive prompt at voxels whose probability is p says "voxels the model finds about as likely as these
// are object here too"; it adds the voxels connected to the prompt (6-neighbourhood, through the object as well) with
// probabilities of at least `addFraction` x p, p the highest of the prompt's voxels outside the object, within a
// reach of the prompt. A negative prompt at probability p removes
// the object's voxels connected to it through probabilities of at most `removeFactor` x p (+ `removeMargin`), within
// a reach; where the model was sure (p saturated, 250 of 255 or more), those as sure as there. The reach is
// `reachFactor` (`removeReachFactor` for a negative prompt) times the prompt's distance to the object's edge (to the
// object for a positive prompt, to its outside for a negative one), at least `minReachVoxels` voxels: a click beside the object corrects
// its edge there, a click far from it marks a whole missed (or spurious) part. A positive box adds what the model
// finds likely in it: from the box's most probable voxel of its middle third, through probabilities of at least
// half of that voxel's, within the box (a 2D box bounds two axes). Scribble and lasso voxels are set (or cleared) for
// certain, as in the classic engine; a negative box clears its voxels.
// Where the model is blind (the prompt's probability below `blindBelow`: it never considered the class there) the
// prompt can go to the classic engine's click session on the image, started from the object (off by default: below).
// A positive prompt the model finds unlikely (below `unlikelyBelow`) corrects only its neighbourhood.
// A positive prompt only adds and a negative one only removes, so a correction never undoes the model elsewhere.
//
// Why this and not a network retrained with prompt channels: the atlas networks are trained in minutes to hours on a
// user's few cases, without prompts; a rule on their probabilities works with every such model as it is, costs one
// network run per study (the probabilities are kept) and a flood fill per prompt, and never moves a boundary the user
// did not touch.

#include <cstdint>
#include <memory>
#include <vector>

#include "core/scalar_image.h"
#include "core/volume.h"
#include "inference/interactive.h"

namespace delineate::inference {

struct GuidedOptions {
  // Measured with an atlas network trained on mouse subjects 1-4 (500 iterations, start Dice 0.76 and 0.79 on
  // subjects 5 and 6), 5 clicks per structure: "at least as likely as the prompt" to add, "less likely than 0.9 of it"
  // to remove: 0.784 / 0.803, 1.1% / 2.2% of clicks lowering a structure's Dice by more than 0.01. Removing "at most
  // as likely" (1.0) reached 0.799 / 0.816 with 3.2% / 4.9% of such clicks; half as likely to add and twice to
  // remove oscillated (0.60 from 0.53 with a weaker model, 27% of clicks lowering Dice by more than 0.05); a reach of
  // 10 or 100 times the distance instead of 3 lowered Dice (0.74). Handing prompts below 5% (not 1%) to the classic
  // engine cost 0.01: on the mouse brain intensities alone make things worse (the classic engine from the same start:
  // 0.66 after 5 clicks, 17% of clicks lowering Dice by more than 0.05).
  double addFraction = 1.0;
  double removeFactor = 0.9;
  int removeMargin = 0;       // of 255
  // Below this (of 255) a positive prompt goes to the classic engine. Off (0): on the mouse atlas the classic
  // engine's growth took tiny structures' neighbours (one click: 0.72 to 0.20 Dice); without it a 1000-iteration model
  // went 0.835 to 0.850 after 5 clicks with 1.1% of clicks lowering Dice by more than 0.01 (with it at 1%: 0.840, 3.2%).
  int blindBelow = 0;
  int unlikelyBelow = 64;     // of 255: a positive prompt below 25 % reaches minReachVoxels only
  double reachFactor = 3.0;
  double removeReachFactor = 1.5;  // of a negative prompt (3: the same Dice, 3.2% of clicks lowering Dice on subject 6)
  double minReachVoxels = 4;
};

class GuidedSession final : public InteractiveSession {
 public:
  // `probability`: the class's probability on the image's grid (0..255); `start`: the model's object of the class
  // (may be empty). The image must outlive the session. Errors: a probability or start on another grid.
  static core::Result<std::unique_ptr<GuidedSession>> begin(core::ImageView image, core::Volume<std::uint8_t> probability,
                                                            const ObjectMask& start, const GuidedOptions& options = {});

  core::Status addPrompt(const Prompt& prompt, core::ProgressSink* progress = nullptr) override;
  bool undoPrompt() override;
  const std::vector<Prompt>& prompts() const override { return m_prompts; }
  const ObjectMask& mask() const override { return m_mask; }
  core::Status setStart(const ObjectMask& start) override;
  // How many prompts the model's probabilities decided, and how many went to the classic engine (blind model).
  std::size_t guidedPrompts() const { return m_guided; }
  std::size_t fallbackPrompts() const { return m_fallback; }

 private:
  GuidedSession(core::ImageView image, core::Volume<std::uint8_t> probability, const GuidedOptions& options);
  // The voxels connected to `seeds` through voxels passing `accept`, within `reachMm` of the nearest seed and
  // inside `bound` (empty: none).
  template <class Accept>
  ObjectMask flood(const std::vector<core::Index3>& seeds, double reachMm, const core::IndexBox& bound, Accept&& accept) const;
  // Distance (mm) from `at` to the nearest voxel that is (inObject) or is not in the object, at most `limitMm`.
  double distanceTo(const core::Index3& at, bool inObject, double limitMm) const;

  core::ImageView m_image;
  core::Volume<std::uint8_t> m_probability;
  GuidedOptions m_options;
  std::vector<Prompt> m_prompts;
  ObjectMask m_mask;
  std::vector<PackedMask> m_history;
  std::vector<std::uint8_t> m_wasGuided;  // per prompt: decided by the probabilities (1) or the classic engine (0)
  std::size_t m_guided = 0, m_fallback = 0;
};

}  // namespace delineate::inference
