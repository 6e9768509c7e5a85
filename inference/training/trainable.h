#pragma once
// A network being trained, behind a torch-free interface (the trainer, its tests and the training program above it
// never include torch): VISTA-3D from a checkpoint, trained with the bundle's per-prompt sigmoid DiceCE, and MONAI's
// SegResNetDS with deep-supervised softmax DiceCE. One call is one optimizer step: forward, loss, backward, AdamW.
// Arrays are in torch's order ([C, H, W, D], the last axis fastest), as in inference/vista3d/network.h.

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/error.h"
#include "inference/vista3d/checkpoint_reader.h"
#include "inference/vista3d/network.h"

namespace delineate::inference::training {

// A parameter (or its gradient) copied to the host.
struct NamedTensor {
  std::string name;
  std::vector<std::int64_t> shape;
  std::vector<float> values;  // row-major
};

// MONAI's SegResNetDS(spatial_dims 3, norm instance, act relu, upsample deconv, isotropic kernels).
struct SegResNetDSConfig {
  int initFilters = 32;
  int inChannels = 1;
  int outChannels = 2;
  std::vector<int> blocksDown{1, 2, 2, 4};
  int dsdepth = 4;  // deep-supervision outputs in training (1: only the full resolution)
  // Each patch side must be a multiple of this (2 ^ (levels - 1)).
  int sizeFactor() const;
};

// The prompts of one VISTA-3D training patch (what MONAI's sample_prompt_pairs returns), for B objects.
struct VistaPrompts {
  std::vector<std::int64_t> labelPrompt;  // B class ids for the class head; empty when the label prompts were dropped
  int pointsPerObject = 0;                // N; 0 when the points were dropped
  std::vector<float> pointCoords;         // [B, N, 3] voxel indices of the patch
  std::vector<int> pointLabels;           // [B, N]: -1 pad, 0 / 1 negative / positive, 2 / 3 for a special class
  std::vector<std::int64_t> promptClass;  // B: the class each object's loss compares with
};

// AdamW (decoupled weight decay), as torch.optim.AdamW.
struct OptimizerSettings {
  double learningRate = 1e-4;
  double weightDecay = 1e-5;
  double beta1 = 0.9, beta2 = 0.999, eps = 1e-8;
  double gradientClip = 0.0;  // max global L2 norm of the gradients; 0 for none
};

// DiceLoss smoothing (the bundle's train.json: 0 / 1e-5; its continual-learning recipe: 1e-4 / 1e-2).
struct LossSettings {
  double smoothNr = 0.0;
  double smoothDr = 1e-5;
};

enum class ModelKind { Vista3d, SegResNetDS };

// Data-parallel training over processes (inference/training/data_parallel_torch.h): this process's rank, the world
// size and the rendezvous (rank 0's TCP store).
struct DataParallelSettings {
  int rank = 0, worldSize = 1;
  std::string masterAddress;
  int masterPort = 0;
  int timeoutSeconds = 1800;   // a rank waits this long for the others (rank 0 validating, a slow node)
  std::string interfaceName;   // the network interface Gloo binds (empty: loopback for 127.0.0.1, else the hostname's)
};

class TrainableModel {
 public:
  // VISTA-3D with the weights of `checkpoint` (the strict key check of the engine).
  static core::Result<std::unique_ptr<TrainableModel>> vista3d(const vista3d::Checkpoint& checkpoint);
  // SegResNetDS with LibTorch's initialisation under `seed`, or the weights of `initial` when given.
  static core::Result<std::unique_ptr<TrainableModel>> segResNetDS(const SegResNetDSConfig& config,
                                                                   const vista3d::Checkpoint* initial, std::uint64_t seed);
  ~TrainableModel();
  TrainableModel(const TrainableModel&) = delete;
  TrainableModel& operator=(const TrainableModel&) = delete;

  ModelKind kind() const;
  const SegResNetDSConfig& segResNetDSConfig() const;  // SegResNetDS only
  // "cpu", "cuda", "cuda:N"; precision as for inference (bf16 autocast, or fp16 with a dynamic loss scale).
  core::Status setDevice(const std::string& device, vista3d::Precision precision);
  std::string device() const;
  // A new optimizer (its moments start at zero) over the parameters that train.
  void setOptimizer(const OptimizerSettings& settings);
  void setLearningRate(double lr);
  void setLoss(const LossSettings& loss);
  // Parameters whose names start with one of `prefixes` stop training (VISTA-3D: "image_encoder.encoder.",
  // "class_head.", "point_head."); call before setOptimizer.
  core::Status freeze(const std::vector<std::string>& prefixes);

  struct StepResult {
    double loss = 0;
    bool finite = true;                       // false: the loss was NaN or infinite and no weight changed
    bool skipped = false;                     // fp16: the scaled gradients overflowed, the step was skipped
    std::vector<std::vector<float>> outputs;  // when asked: the forward outputs (VISTA-3D [B, 1, H, W, D] logits;
                                              // SegResNetDS every deep-supervision output, full resolution first)
    // Data parallel: what the ranks agreed with this step's all-reduce.
    bool stopAgreed = false;      // some rank asked to stop: every rank stops after this step
    int agreedIterations = 0;     // rank 0's iteration count (a time budget fits it there)
    double allReduceSeconds = 0;  // the step's all-reduce
  };
  // Joins the other ranks (blocks until all are there), then takes rank 0's weights and buffers. Every step then
  // averages the gradients over the ranks before clipping and AdamW, so that R ranks with batch B step as one process
  // with batch R*B (the losses are means over the samples). Errors name the rank and the rendezvous.
  core::Status joinDataParallel(const DataParallelSettings& settings);
  bool dataParallel() const;
  // What the next step tells the other ranks: stop after it; and on rank 0, the run's iterations.
  void proposeForNextStep(bool stop, int iterations);
  // One VISTA-3D step on `count` = 1 patch [H, W, D] (multiples of 16) with its labels (ids on VISTA-3D's scale).
  core::Result<StepResult> stepVista(const std::vector<float>& image, const std::int64_t size[3],
                                     const std::vector<std::uint16_t>& labels, const VistaPrompts& prompts,
                                     bool keepOutputs = false);
  // One SegResNetDS step on `count` patches [count, inChannels, H, W, D] with labels [count, H, W, D] (0..C-1).
  core::Result<StepResult> stepSegResNetDS(const std::vector<float>& images, int count, const std::int64_t size[3],
                                           const std::vector<std::uint16_t>& labels, bool keepOutputs = false);
  // Evaluation-mode logits of one window (SegResNetDS: [C, H, W, D]; VISTA-3D: the class head for `classes`).
  core::Result<std::vector<float>> evalLogits(const std::vector<float>& image, const std::int64_t size[3],
                                              const std::vector<std::int64_t>& classes = {});

  // Every parameter and buffer (the state_dict's names and order), and the gradients of the last step (zeros where a
  // parameter got none).
  std::vector<NamedTensor> stateDict() const;
  std::vector<NamedTensor> parameters() const;
  std::vector<NamedTensor> gradients() const;
  // The optimizer's state (exp_avg, exp_avg_sq per parameter, and the step), for resuming.
  std::vector<NamedTensor> optimizerState() const;
  core::Status loadOptimizerState(const std::vector<NamedTensor>& state);
  core::Status loadStateDict(const std::vector<NamedTensor>& state);
  std::int64_t parameterCount() const;

  struct Impl;

 private:
  explicit TrainableModel(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> m_impl;
};

// Whether this build can train (LibTorch found).
bool trainingAvailable();
// Whether it can train over processes (a Gloo process group).
bool dataParallelTrainingAvailable();
// The seed of LibTorch's generators (weights, dropout-free here; the trainer seeds its own samplers).
void seedTorch(std::uint64_t seed);

}  // namespace delineate::inference::training
