#include "inference/training/prompt_sampler.h"

#include <algorithm>
#include <cmath>
#include <set>

namespace delineate::inference::training {

bool isSpecialClass(std::int64_t id) {
  static const std::int64_t kSpecial[] = {23, 24, 25, 26, 27, 57, 128};
  return std::find(std::begin(kSpecial), std::end(kSpecial), id) != std::end(kSpecial);
}

VistaPrompts samplePrompts(const std::vector<std::uint16_t>& labels, const std::int64_t size[3], const PromptSettings& settings,
                           std::mt19937_64& rng) {
  // Runs once per training step over the whole patch: a flag per id, not a set insert per voxel.
  std::vector<char> present(65536, 0);
  for (const auto l : labels) present[l] = 1;
  const std::set<std::int64_t> labelSet(settings.labelSet.begin(), settings.labelSet.end());
  std::vector<std::int64_t> foreground, background;
  for (const auto id : labelSet) {
    const bool here = id >= 0 && id < 65536 && present[static_cast<std::size_t>(id)];
    if (here && (id != 0 || settings.includeBackground)) foreground.push_back(id);
    else background.push_back(id);
  }
  auto limit = [&](std::vector<std::int64_t>& v, int max) {
    if (max >= 0 && static_cast<int>(v.size()) > max) {
      std::shuffle(v.begin(), v.end(), rng);
      v.resize(static_cast<std::size_t>(max));
    }
  };
  limit(background, settings.maxBackprompt);
  limit(foreground, settings.maxForeprompt);
  if (settings.maxPrompt >= 0 && static_cast<int>(foreground.size() + background.size()) > settings.maxPrompt) {
    if (static_cast<int>(foreground.size()) > settings.maxPrompt) {
      limit(foreground, settings.maxPrompt);
      background.clear();
    } else {
      limit(background, settings.maxPrompt - static_cast<int>(foreground.size()));
    }
  }
  VistaPrompts prompts;
  if (foreground.empty() && background.empty()) return prompts;
  // Voxels of each foreground class (positive points) in one pass; slot[id] indexes voxelsOf.
  std::vector<int> slot(65536, -1);
  std::vector<std::vector<std::int64_t>> voxelsOf(foreground.size());
  for (std::size_t k = 0; k < foreground.size(); ++k) slot[static_cast<std::size_t>(foreground[k])] = static_cast<int>(k);
  for (std::size_t i = 0; i < labels.size(); ++i)
    if (slot[labels[i]] >= 0) voxelsOf[static_cast<std::size_t>(slot[labels[i]])].push_back(static_cast<std::int64_t>(i));
  const int sigma = settings.maxPoint / 2;
  std::normal_distribution<double> gauss(0.0, std::max(1e-9, static_cast<double>(sigma)));
  const int positives = std::min(settings.maxPoint, static_cast<int>(std::fabs(sigma > 0 ? gauss(rng) : 0.0)) + 1);
  const int negatives = std::min(settings.maxPoint, static_cast<int>(std::fabs(sigma > 0 ? gauss(rng) : 0.0)));
  const int perObject = positives + negatives;
  const auto total = static_cast<std::int64_t>(labels.size());
  auto push = [&](std::int64_t index, int label) {
    prompts.pointCoords.push_back(static_cast<float>(index / (size[1] * size[2])));
    prompts.pointCoords.push_back(static_cast<float>((index / size[2]) % size[1]));
    prompts.pointCoords.push_back(static_cast<float>(index % size[2]));
    prompts.pointLabels.push_back(label);
  };
  for (const auto id : foreground) {
    const int neg = isSpecialClass(id) ? 2 : 0, pos = isSpecialClass(id) ? 3 : 1;
    const auto& mine = voxelsOf[static_cast<std::size_t>(slot[static_cast<std::size_t>(id)])];
    const std::int64_t others = total - static_cast<std::int64_t>(mine.size());
    const int p = static_cast<int>(std::min<std::int64_t>(positives, static_cast<std::int64_t>(mine.size())));
    const int n = static_cast<int>(std::min<std::int64_t>(negatives, others));
    std::uniform_int_distribution<std::size_t> pickMine(0, mine.empty() ? 0 : mine.size() - 1);
    for (int k = 0; k < p; ++k) push(mine[pickMine(rng)], pos);
    std::uniform_int_distribution<std::int64_t> pickAny(0, total - 1);
    for (int k = 0; k < n; ++k) {
      std::int64_t v;
      do v = pickAny(rng);
      while (labels[static_cast<std::size_t>(v)] == id);
      push(v, neg);
    }
    for (int k = p + n; k < perObject; ++k) {
      for (int a = 0; a < 3; ++a) prompts.pointCoords.push_back(0.0f);
      prompts.pointLabels.push_back(-1);
    }
  }
  for (std::size_t b = 0; b < background.size(); ++b)
    for (int k = 0; k < perObject; ++k) {
      for (int a = 0; a < 3; ++a) prompts.pointCoords.push_back(0.0f);
      prompts.pointLabels.push_back(-1);
    }
  prompts.pointsPerObject = perObject;
  prompts.labelPrompt = foreground;
  prompts.labelPrompt.insert(prompts.labelPrompt.end(), background.begin(), background.end());
  prompts.promptClass = prompts.labelPrompt;
  std::uniform_real_distribution<double> u(0, 1);
  if (u(rng) < settings.dropLabelProbability && !foreground.empty()) {
    // Only the points: the background objects (points all pads) go.
    prompts.labelPrompt.clear();
    prompts.promptClass.resize(foreground.size());
    prompts.pointCoords.resize(foreground.size() * static_cast<std::size_t>(perObject) * 3);
    prompts.pointLabels.resize(foreground.size() * static_cast<std::size_t>(perObject));
  } else if (u(rng) < settings.dropPointProbability) {
    prompts.pointsPerObject = 0;
    prompts.pointCoords.clear();
    prompts.pointLabels.clear();
  }
  return prompts;
}

}  // namespace delineate::inference::training
