#pragma once
// The training loop (torch-free; the network behind TrainableModel): batches from the patch loader's workers, one
// optimizer step each (VISTA-3D with prompts sampled per iteration), a warm-up then cosine learning rate, validation
// every N iterations (sliding window over the validation cases, per-class Dice), checkpoints handed to a sink (best
// and last), early stop, cancel, and a NaN loss stopping the run at the iteration that produced it. A run resumed
// from a checkpoint at iteration i continues with the batches, prompts and learning rate it would have had.

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "core/error.h"
#include "inference/training/case_cache.h"
#include "inference/training/patch_loader.h"
#include "inference/training/prompt_sampler.h"
#include "inference/training/trainable.h"

namespace delineate::inference::training {

struct TrainerSettings {
  int iterations = 1000;
  int warmupIterations = 0;   // linear warm-up from 0, then cosine to 0 at `iterations` (the bundle's WarmupCosine)
  bool cosine = true;         // false: constant learning rate after the warm-up (the continual-learning recipe)
  OptimizerSettings optimizer;
  LossSettings loss;
  PatchSettings patches;
  PromptSettings prompts;     // VISTA-3D only
  int validationInterval = 100;  // 0: validate only at the end
  int earlyStopPatience = 0;     // validations without a better mean Dice before stopping; 0: never
  std::array<std::int64_t, 3> validationWindow{0, 0, 0};  // 0: the patch size
  double validationOverlap = 0.25;
  int checkpointInterval = 0;  // also save `last` every this many iterations (0: at validations and the end)
  // The classes validated: SegResNetDS channels 1..C-1 when empty; VISTA-3D: the label set without 0.
  std::vector<std::int64_t> validationClasses;
  // A wall-time budget for this process's run (0: none; `iterations` decides). The first `budgetProbeIterations`
  // steps (from where the run starts or resumes) are the probe: their time per step, and a validation timed right
  // after them, fit the iterations into what is left of the budget, counting the validations every
  // `validationInterval` and the final one, and `iterations` becomes that (the schedule's cosine ends there). Until
  // the fit, the schedule is that of the configured `iterations` (a warm-up longer than the probe is unaffected). A
  // run that falls behind anyway stops at the budget like a cancelled one: its weights validated and saved final.
  // Every validation after the fit fits the rest again with the steps measured so far (the cosine's end moves with
  // it). The budget is counted from the call to train(): a caller that spent time before subtracts it.
  double timeBudgetSeconds = 0;
  int budgetProbeIterations = 10;
};

// What the time budget's probe measured and decided (TrainResult::budget, and Progress right after the fit).
struct BudgetFit {
  bool fitted = false;
  int probeIterations = 0;
  double secondsPerStep = 0;        // the probe's mean
  double validationSeconds = 0;     // the validation timed after the probe (0 without validation cases)
  double secondsLeft = 0;           // of the budget when the fit was made
  int iterations = 0;               // the run's iterations as fitted (the latest fit)
  bool budgetReached = false;       // stopped by the budget before `iterations`
};

struct Validation {
  int iteration = 0;
  double meanDice = 0;
  std::vector<std::pair<std::int64_t, double>> perClass;  // class -> mean Dice over the cases that hold it
  double seconds = 0;         // the validation's own time
  double elapsedSeconds = 0;  // since the run (this process) started, when the validation ended
};

struct Progress {
  int iteration = 0, iterations = 0;
  double loss = 0;            // mean over the iterations since the previous report
  double learningRate = 0;
  double iterationsPerSecond = 0;
  double elapsedSeconds = 0;  // since the run (this process) started
  double etaSeconds = 0;
  double dataWaitFraction = 0;  // of the wall time since the run (re)started, spent waiting for batches
  int skippedSteps = 0;         // fp16 overflow steps and iterations without a prompt
  const Validation* validation = nullptr;  // set on the report right after a validation
  const BudgetFit* budget = nullptr;       // set on the report right after the time budget's fit
  double allReduceFraction = 0;            // over processes: of the time since the last report, in all-reduces
  std::string lastCheckpoint;
  double lastSaveStallSeconds = 0;
};

// What a checkpoint holds; the sink takes it on the training thread and writes it elsewhere.
struct CheckpointState {
  int iteration = 0;
  bool best = false;     // the best validation so far
  bool final = false;    // the run's last save
  std::vector<NamedTensor> model, optimizer;
  std::vector<Validation> validations;  // every validation so far
  double bestDice = -1;
  int validationsWithoutGain = 0;
};

class CheckpointSink {
 public:
  virtual ~CheckpointSink() = default;
  // Must return quickly: the training thread waits for it (the stall that is reported).
  virtual void save(CheckpointState state) = 0;
  virtual std::string lastSaved() const = 0;
};

// Where a resumed run picks up (from the checkpoint's sidecar).
struct ResumePoint {
  int iteration = 0;
  std::vector<Validation> validations;
  double bestDice = -1;
  int validationsWithoutGain = 0;
};

struct TrainResult {
  int iterations = 0;  // the iteration reached
  bool earlyStopped = false, cancelled = false;
  std::vector<Validation> validations;
  double bestDice = -1;
  double dataWaitSeconds = 0, wallSeconds = 0;
  BudgetFit budget;
  double allReduceSeconds = 0;  // over processes: the steps' all-reduces in all
  int allReduceSteps = 0;
};

using ProgressFn = std::function<void(const Progress&)>;

// The learning rate at `iteration` (0-based) of the schedule.
double learningRateAt(const TrainerSettings& settings, int iteration);

// Errors: a non-finite loss ("iteration N: the loss is NaN"; the weights stay those of the previous step and the
// sink has the last good checkpoint), the loader's, the network's.
core::Result<TrainResult> train(TrainableModel& model, const CaseCache& cache, const std::vector<std::size_t>& trainCases,
                                const std::vector<std::size_t>& validationCases, const TrainerSettings& settings,
                                const ProgressFn& progress, CheckpointSink* sink, const std::atomic<bool>* cancel,
                                const ResumePoint& resume = {});

// Per-class Dice of the network on one case (sliding window, argmax / sigmoid > 0), for validation and benchmarks.
core::Result<std::vector<std::pair<std::int64_t, double>>> validateCase(TrainableModel& model, const CaseCache& cache, std::size_t k,
                                                                        const TrainerSettings& settings);

// How sure a SegResNetDS network was of a whole image (issue 26's "next case"): per voxel the normalised entropy (0:
// certain, 1: no preference) of the softmax of its logits averaged over the windows covering it, divided by
// log(classes). A voxel with a non-finite logit is counted apart and in nothing else.
struct UncertaintyStats {
  std::int64_t voxels = 0;
  std::int64_t nonFiniteVoxels = 0;
  std::int64_t foregroundVoxels = 0;  // labelled as a structure (not background)
  std::int64_t consideredVoxels = 0;  // labelled as a structure, or with an entropy above 0.5 (the model hesitates)
  double entropySum = 0;              // over all voxels
  double consideredEntropySum = 0;    // over the considered voxels
  // The mean entropy of the considered voxels: what the model claims or hesitates about, not the certain background
  // whose extent depends on the field of view. 0 when it considered nothing.
  double score() const { return consideredVoxels > 0 ? consideredEntropySum / static_cast<double>(consideredVoxels) : 0.0; }
  double meanEntropy() const { return voxels > 0 ? entropySum / static_cast<double>(voxels) : 0.0; }
};

// The network's labels for a whole prepared image [X, Y, Z] (sliding window; SegResNetDS argmax, VISTA-3D the best
// class above 0 among `classes`). `progress` gets the fraction of windows done after each; returning false cancels
// (ErrorCode::Cancelled). With `uncertainty`, its figures over the image; with `probabilities`, the softmax of the
// windows' averaged logits as 0..255, channel after channel, each over the prepared image (SegResNetDS only: both are
// Unsupported for VISTA-3D).
core::Result<std::vector<std::uint16_t>> segmentPrepared(TrainableModel& model, const std::vector<float>& image,
                                                         const std::array<std::int64_t, 3>& size,
                                                         const std::array<std::int64_t, 3>& window, double overlap,
                                                         const std::vector<std::int64_t>& classes,
                                                         const std::function<bool(double)>& progress = {},
                                                         UncertaintyStats* uncertainty = nullptr,
                                                         std::vector<std::uint8_t>* probabilities = nullptr);

}  // namespace delineate::inference::training
