#pragma once
// VISTA-3D's training prompts for one patch, as MONAI's sample_prompt_pairs makes them (torch-free): the classes of
// the run's label set present in the patch as foreground prompts, the absent ones as background prompts, a random
// number of positive and negative points per foreground class (a normal of sigma max_point / 2), and with the drop
// probabilities the label prompts or the points left out. Points are voxel indices of the patch in torch order.

#include <cstdint>
#include <random>
#include <vector>

#include "inference/training/trainable.h"

namespace delineate::inference::training {

struct PromptSettings {
  std::vector<std::int64_t> labelSet;  // VISTA-3D ids trained (0 included when the background is trained)
  int maxPoint = 5;
  int maxPrompt = -1;      // -1: no limit (the bundle's null)
  int maxForeprompt = -1;
  int maxBackprompt = -1;
  bool includeBackground = false;  // the bundle: exclude_background
  double dropLabelProbability = 0.25;
  double dropPointProbability = 0.25;
};

// VISTA-3D's classes whose points are "special" (labels 2 / 3): the tumours and lesions (MONAI's SPECIAL_INDEX).
bool isSpecialClass(std::int64_t id);

// Empty promptClass when the patch gives no prompt at all (the bundle skips such an iteration).
VistaPrompts samplePrompts(const std::vector<std::uint16_t>& labels, const std::int64_t size[3], const PromptSettings& settings,
                           std::mt19937_64& rng);

}  // namespace delineate::inference::training
