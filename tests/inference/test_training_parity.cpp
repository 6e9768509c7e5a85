// Training steps against MONAI's own (../shared/reference/training): from the same initial weights, input, labels and
// prompts, one and two AdamW steps of VISTA-3D (the bundle trainer's iteration: class prompts, points, both) and of
// SegResNetDS (deep-supervised softmax DiceCE) give MONAI's losses, outputs, gradients and weights within the
// reference's tolerances.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <map>

#include "inference/training/trainable.h"
#include "inference/vista3d/checkpoint_reader.h"
#include "tests/common/test_support.h"
#include "tests/inference/npy.h"

using namespace delineate;
using namespace delineate::inference;
using namespace delineate::inference::training;
using nlohmann::json;

namespace {

bool haveTorch() {
  if (trainingAvailable()) return true;
  if (test::runningInCi()) FAIL("this build has no LibTorch; scripts/setup.sh installs libtorch-dev");
  WARN("no LibTorch in this build: skipped");
  return false;
}

json readJson(const std::filesystem::path& p) {
  std::ifstream f(p);
  REQUIRE(f);
  return json::parse(f);
}

// How a digest is compared. The reference README's tolerances: l2 / sum / maxabs to 1e-4 relative (1e-6 absolute
// floor), the sampled values to 1e-4 absolute. Two refinements for weights after AdamW steps, where float noise is
// amplified: Adam moves every weight by about lr per step whatever its gradient's size, so a weight whose gradient is
// at rounding level moves by +-lr on the sign of that rounding. (1) A bias feeding a normalisation has a gradient that
// is zero in exact arithmetic (the reference's is 1e-9); its weights are compared to within 2 lr per step. (2) The sum
// of 10^5 updated weights carries those flips: MONAI's own run with 2 threads instead of 1 moves
// encoder.layers.3.blocks.0.conv1.weight's sum after two steps by 2e-3; sums after steps are compared to 1e-5 of the
// sum of their terms' magnitudes (l2, maxabs and the sampled values keep the README's tolerances).
struct DigestTolerance {
  bool afterSteps = false;
  double stepMargin = 0;           // 2 lr per step taken: an Adam step's size whatever its gradient's
  const json* gradient = nullptr;  // the reference's step-1 gradient digest of this weight (same indices)
  double noiseMargin = 0;  // > 0: a weight whose gradient is rounding noise, compared to within this
  double relative = 1e-4;  // the README's; wider for the CPU convolution shortcuts (see below)
};

void requireDigest(const NamedTensor& t, const json& digest, const std::string& what, const DigestTolerance& tol) {
  INFO(what << " " << t.name);
  REQUIRE(t.shape == digest.at("shape").get<std::vector<std::int64_t>>());
  double sum = 0, l1 = 0, l2 = 0, maxabs = 0;
  for (const float v : t.values) {
    sum += v;
    l1 += std::fabs(static_cast<double>(v));
    l2 += static_cast<double>(v) * v;
    maxabs = std::max(maxabs, std::fabs(static_cast<double>(v)));
  }
  l2 = std::sqrt(l2);
  const bool noise = tol.noiseMargin > 0;
  const bool shortcuts = tol.relative > 1e-4;
  const double floor = noise ? tol.noiseMargin : 1e-6;
  // A sum of terms that cancel is compared against the magnitude of its terms (its l1 norm) where float order matters:
  // after Adam steps, and with the shortcuts.
  const double sumMargin = noise ? tol.noiseMargin * static_cast<double>(t.values.size())
                                 : (tol.afterSteps || shortcuts) ? std::max(1e-6, (shortcuts ? tol.relative : 1e-5) * l1) : 1e-6;
  CHECK(sum == Approx(digest.at("sum").get<double>()).epsilon(tol.relative).margin(sumMargin));
  CHECK(l2 == Approx(digest.at("l2").get<double>()).epsilon(tol.relative).margin(floor));
  CHECK(maxabs == Approx(digest.at("maxabs").get<double>()).epsilon(tol.relative).margin(floor));
  // Sampled values: 1e-4 absolute (the README), or with the shortcuts that or 1e-3 of the tensor's largest value.
  const double valueTolerance = noise ? tol.noiseMargin : shortcuts ? std::max(1e-4, tol.relative * maxabs) : 1e-4;
  const auto index = digest.at("index").get<std::vector<std::size_t>>();
  const auto values = digest.at("values").get<std::vector<double>>();
  REQUIRE(index.size() == values.size());
  for (std::size_t k = 0; k < index.size(); ++k) {
    REQUIRE(index[k] < t.values.size());
    double allowed = valueTolerance;
    // With the shortcuts, a weight whose own gradient is within 1% of zero (relative to its tensor's largest) may
    // take its Adam step the other way: allow the step.
    if (shortcuts && tol.gradient && tol.stepMargin > 0) {
      const double g = tol.gradient->at("values").at(k).get<double>(), gmax = tol.gradient->at("maxabs").get<double>();
      if (std::fabs(g) < 1e-2 * gmax) allowed = std::max(allowed, tol.stepMargin);
    }
    CHECK(std::fabs(t.values[index[k]] - values[k]) <= allowed);
  }
}

// `steps` AdamW steps of learning rate `lr` taken (0 for gradients); `gradients` the reference's step-1 gradients.
void requireDigests(const std::vector<NamedTensor>& tensors, const json& digests, const std::string& what, int steps,
                    double lr, const json& gradients, double relative) {
  REQUIRE(tensors.size() == digests.size());
  for (const auto& t : tensors) {
    REQUIRE(digests.contains(t.name));
    DigestTolerance tol;
    tol.afterSteps = steps > 0;
    tol.relative = relative;
    tol.stepMargin = 2 * lr * steps;
    tol.gradient = &gradients.at(t.name);
    const double gradientL2 = gradients.at(t.name).at("l2").get<double>();
    if (steps > 0 && gradientL2 > 0 && gradientL2 < 1e-6) tol.noiseMargin = 2 * lr * steps;
    requireDigest(t, digests.at(t.name), what, tol);
  }
}

// The CPU convolution shortcuts (inference/vista3d/modules_torch.h) sum in another order than LibTorch's kernels,
// which MONAI's reference ran. Compared with a float64 run of MONAI (vista_class_only, conv_init's gradient sum:
// float64 1.2184062, MONAI float32 1.2184614, ours with the shortcuts 1.2182055), both are float32 results of the same
// arithmetic; through the deep network's normalisations the shortcuts' gradients land up to 1.5e-3 (relative, largest
// values) from MONAI's, so they are compared to 2e-3; losses and outputs keep the README's tolerances either way.
constexpr double kShortcutRelative = 2e-3;

class ShortcutsScope {
 public:
  explicit ShortcutsScope(bool on) : m_was(vista3d::cpuConvolutionShortcuts()) { vista3d::setCpuConvolutionShortcuts(on); }
  ~ShortcutsScope() { vista3d::setCpuConvolutionShortcuts(m_was); }
  ShortcutsScope(const ShortcutsScope&) = delete;
  ShortcutsScope& operator=(const ShortcutsScope&) = delete;

 private:
  bool m_was;
};

void requireClose(const std::vector<float>& ours, const std::vector<float>& theirs, double tolerance, const std::string& what) {
  INFO(what);
  REQUIRE(ours.size() == theirs.size());
  double worst = 0;
  for (std::size_t i = 0; i < ours.size(); ++i) worst = std::max(worst, std::fabs(static_cast<double>(ours[i]) - theirs[i]));
  INFO("largest difference " << worst);
  CHECK(worst <= tolerance);
}

std::vector<std::uint16_t> labelsOf(const std::vector<float>& v) {
  std::vector<std::uint16_t> out(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) out[i] = static_cast<std::uint16_t>(std::lround(v[i]));
  return out;
}

VistaPrompts promptsOf(const json& p) {
  VistaPrompts prompts;
  if (!p.at("label_prompt").is_null())
    for (const auto& row : p.at("label_prompt")) prompts.labelPrompt.push_back(row.at(0).get<std::int64_t>());
  for (const auto& row : p.at("prompt_class")) prompts.promptClass.push_back(row.at(0).get<std::int64_t>());
  if (!p.at("point").is_null()) {
    prompts.pointsPerObject = static_cast<int>(p.at("point").at(0).size());
    for (const auto& object : p.at("point"))
      for (const auto& point : object)
        for (const auto& c : point) prompts.pointCoords.push_back(c.get<float>());
    for (const auto& object : p.at("point_label"))
      for (const auto& l : object) prompts.pointLabels.push_back(static_cast<int>(std::lround(l.get<double>())));
  }
  return prompts;
}

}  // namespace

TEST_CASE("training parity: VISTA-3D steps equal the bundle trainer's (class prompts, points, both)",
          "[training][parity][data]") {
  if (!haveTorch()) return;
  const auto info = test::sharedFile("reference/training/reference_info.json");
  const auto weights = test::sharedFile("reference/vista3d/tiny_state_dict.pt");
  const auto inputPath = test::sharedFile("reference/vista3d/input_64.npy");
  const auto labelPath = test::sharedFile("reference/training/vista_label_64.npy");
  if (!info || !weights || !inputPath || !labelPath) return;
  const json reference = readJson(*info);
  std::vector<std::int64_t> shape;
  const auto image = test::readNpy(*inputPath, shape);
  REQUIRE(shape == std::vector<std::int64_t>{1, 1, 64, 64, 64});
  const auto labels = labelsOf(test::readNpy(*labelPath, shape));
  const std::int64_t size[3] = {64, 64, 64};
  auto checkpoint = vista3d::readCheckpoint(weights->string());
  REQUIRE(checkpoint.ok());

  for (const std::string name : {"vista_both", "vista_class_only", "vista_points_only"}) {
    for (const bool shortcuts : {false, true}) {
    SECTION(name + (shortcuts ? ", CPU convolution shortcuts" : ", LibTorch's kernels")) {
      ShortcutsScope scope(shortcuts);
      const double relative = shortcuts ? kShortcutRelative : 1e-4;
      const json& c = reference.at("cases").at(name);
      const auto digestsPath = test::sharedFile("reference/training/" + name + "_digests.json");
      const auto logitsPath = test::sharedFile("reference/training/" + name + "_logits_step1.npy");
      if (!digestsPath || !logitsPath) return;
      const json digests = readJson(*digestsPath);
      auto model = TrainableModel::vista3d(*checkpoint);
      REQUIRE(model.ok());
      OptimizerSettings optimizer;
      optimizer.learningRate = 1e-4;
      optimizer.weightDecay = 1e-5;
      (*model)->setOptimizer(optimizer);
      const VistaPrompts prompts = promptsOf(c.at("prompts"));
      const auto losses = c.at("losses").get<std::vector<double>>();

      auto step1 = (*model)->stepVista(image, size, labels, prompts, true);
      REQUIRE(step1.ok());
      CHECK(step1->loss == Approx(losses[0]).epsilon(1e-5));
      const auto logits = test::readNpy(*logitsPath, shape);
      REQUIRE(step1->outputs.size() == 1);
      requireClose(step1->outputs[0], logits, 1e-4, name + " logits of step 1");
      const json& gradients = digests.at("grads_step1");
      requireDigests((*model)->gradients(), gradients, name + " gradient", 0, 0, gradients, relative);
      requireDigests((*model)->parameters(), digests.at("params_after_step1"), name + " after step 1", 1, 1e-4, gradients, relative);

      auto step2 = (*model)->stepVista(image, size, labels, prompts);
      REQUIRE(step2.ok());
      CHECK(step2->loss == Approx(losses[1]).epsilon(1e-5));
      requireDigests((*model)->parameters(), digests.at("params_after_step2"), name + " after step 2", 2, 1e-4, gradients, relative);
    }
    }
  }
}

TEST_CASE("training parity: SegResNetDS steps equal MONAI's (deep supervision, softmax DiceCE, AdamW)",
          "[training][parity][data]") {
  if (!haveTorch()) return;
  const auto info = test::sharedFile("reference/training/reference_info.json");
  const auto initial = test::sharedFile("reference/training/segresnetds_initial_state_dict.pt");
  const auto inputPath = test::sharedFile("reference/training/segresnetds_input.npy");
  const auto labelPath = test::sharedFile("reference/training/segresnetds_label.npy");
  const auto digestsPath = test::sharedFile("reference/training/segresnetds_digests.json");
  const auto evalPath = test::sharedFile("reference/training/segresnetds_eval_output_after_step2.npy");
  if (!info || !initial || !inputPath || !labelPath || !digestsPath || !evalPath) return;
  const json reference = readJson(*info);
  const auto losses = reference.at("cases").at("segresnetds").at("losses").get<std::vector<double>>();
  const json digests = readJson(*digestsPath);
  std::vector<std::int64_t> shape;
  const auto image = test::readNpy(*inputPath, shape);
  REQUIRE(shape == std::vector<std::int64_t>{1, 1, 48, 64, 40});
  const auto labels = labelsOf(test::readNpy(*labelPath, shape));
  const std::int64_t size[3] = {48, 64, 40};

  for (const bool shortcuts : {false, true}) {
  SECTION(shortcuts ? "CPU convolution shortcuts" : "LibTorch's kernels") {
  ShortcutsScope scope(shortcuts);
  const double relative = shortcuts ? kShortcutRelative : 1e-4;
  SegResNetDSConfig config;
  config.initFilters = 8;
  config.outChannels = 4;
  config.blocksDown = {1, 2, 2, 4};
  config.dsdepth = 3;
  auto checkpoint = vista3d::readCheckpoint(initial->string());
  REQUIRE(checkpoint.ok());
  auto model = TrainableModel::segResNetDS(config, &*checkpoint, 0);
  REQUIRE(model.ok());
  OptimizerSettings optimizer;
  optimizer.learningRate = 2e-4;
  optimizer.weightDecay = 1e-5;
  (*model)->setOptimizer(optimizer);

  auto step1 = (*model)->stepSegResNetDS(image, 1, size, labels, true);
  REQUIRE(step1.ok());
  CHECK(step1->loss == Approx(losses[0]).epsilon(1e-5));
  REQUIRE(step1->outputs.size() == 3);
  for (int k = 0; k < 3; ++k) {
    const auto out = test::sharedFile("reference/training/segresnetds_output" + std::to_string(k) + "_step1.npy");
    REQUIRE(out);
    requireClose(step1->outputs[static_cast<std::size_t>(k)], test::readNpy(*out, shape), 1e-4,
                 "deep-supervision output " + std::to_string(k));
  }
  const json& gradients = digests.at("grads_step1");
  requireDigests((*model)->gradients(), gradients, "gradient", 0, 0, gradients, relative);
  requireDigests((*model)->parameters(), digests.at("params_after_step1"), "after step 1", 1, 2e-4, gradients, relative);
  auto step2 = (*model)->stepSegResNetDS(image, 1, size, labels);
  REQUIRE(step2.ok());
  CHECK(step2->loss == Approx(losses[1]).epsilon(1e-5));
  requireDigests((*model)->parameters(), digests.at("params_after_step2"), "after step 2", 2, 2e-4, gradients, relative);
  auto eval = (*model)->evalLogits(image, size);
  REQUIRE(eval.ok());
  const auto evalReference = test::readNpy(*evalPath, shape);
  if (!shortcuts) {
    requireClose(*eval, evalReference, 1e-4, "evaluation output after step 2");
  } else {
    // After two steps the shortcuts' weights differ from MONAI's within kShortcutRelative, so the outputs do too:
    // compared to that share of the outputs' range (on an AVX2-only EPYC: 1.2e-3 of 2.37). The shortcuts' own forward
    // pass is held to the README's 1e-4 against LibTorch's kernels on these same weights.
    double range = 0;
    for (const float v : evalReference) range = std::max(range, std::fabs(static_cast<double>(v)));
    requireClose(*eval, evalReference, kShortcutRelative * range, "evaluation output after step 2");
    ShortcutsScope kernels(false);
    auto exact = (*model)->evalLogits(image, size);
    REQUIRE(exact.ok());
    requireClose(*eval, *exact, 1e-4, "evaluation output after step 2, shortcuts against LibTorch's kernels");
  }
}
  }
  }
