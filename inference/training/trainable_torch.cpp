// The torch side of training: the losses of the VISTA-3D bundle and of Auto3DSeg's SegResNetDS recipe, the VISTA-3D
// training forward (both heads, the Gaussian combination of point and class logits), AdamW and loss scaling.
#include <torch/torch.h>

#include <cmath>
#include <map>
#include <set>

#include <optional>

#include "core/file_source.h"
#include "inference/training/trainable.h"
#include "inference/training/data_parallel_torch.h"
#include "inference/vista3d/architecture.h"
#include "inference/vista3d/modules_torch.h"
#include "inference/vista3d/torch_support.h"

namespace delineate::inference::training {

namespace nn = torch::nn;
using vista3d::Precision;
using namespace vista3d::net;  // NOLINT: the module tree is this file's vocabulary

namespace {

// MONAI's NINF_VALUE: the logits of an object the point head did not see.
constexpr double kNegativeLogit = -9999.0;

// MONAI's DiceLoss(squared_pred, smooth_nr 0, smooth_dr 1e-5, include_background) for probabilities `p` and a
// target of the same shape [B, C, H, W, D]: one Dice per (B, C) over the spatial axes, averaged.
torch::Tensor squaredDiceLoss(const torch::Tensor& p, const torch::Tensor& target, const LossSettings& s) {
  const std::vector<std::int64_t> axes{2, 3, 4};
  const auto intersection = (target * p).sum(axes);
  const auto denominator = (target * target).sum(axes) + (p * p).sum(axes);
  return (1.0 - (2.0 * intersection + s.smoothNr) / (denominator + s.smoothDr)).mean();
}

// DiceCELoss(sigmoid) of one object's logits [1, 1, H, W, D] against its mask: Dice plus binary cross-entropy.
torch::Tensor sigmoidDiceCe(const torch::Tensor& logits, const torch::Tensor& target, const LossSettings& s) {
  return squaredDiceLoss(torch::sigmoid(logits), target, s) +
         torch::binary_cross_entropy_with_logits(logits, target);
}

// DiceCELoss(softmax, to_onehot_y) of logits [B, C, H, W, D] against class indices [B, H, W, D].
torch::Tensor softmaxDiceCe(const torch::Tensor& logits, const torch::Tensor& labels, const LossSettings& s) {
  const auto onehot = torch::one_hot(labels, logits.size(1)).permute({0, 4, 1, 2, 3}).to(logits.scalar_type());
  return squaredDiceLoss(torch::softmax(logits, 1), onehot, s) + torch::nn::functional::cross_entropy(logits, labels);
}

// Class indices [B, H, W, D] brought to `size` by PyTorch's "nearest-exact" rule (source index
// floor((i + 0.5) * in / out)), as DeepSupervisionLoss does for the coarser outputs.
torch::Tensor nearestExact(const torch::Tensor& labels, const torch::IntArrayRef size) {
  torch::Tensor out = labels;
  for (int a = 0; a < 3; ++a) {
    const std::int64_t in = labels.size(a + 1), n = size[static_cast<std::size_t>(a)];
    if (in == n) continue;
    const double scale = static_cast<double>(in) / static_cast<double>(n);
    std::vector<std::int64_t> index(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i)
      index[static_cast<std::size_t>(i)] = std::min(in - 1, static_cast<std::int64_t>(std::floor((static_cast<double>(i) + 0.5) * scale)));
    out = out.index_select(a + 1, torch::tensor(index, torch::kInt64).to(labels.device()));
  }
  return out;
}

// DeepSupervisionLoss(weight_mode "exp"): weights max(0.5^l, 1/16) over the outputs, full resolution first.
torch::Tensor deepSupervisionLoss(const std::vector<torch::Tensor>& outputs, const torch::Tensor& labels, const LossSettings& s) {
  torch::Tensor loss = torch::zeros({}, labels.options().dtype(torch::kFloat32));
  for (std::size_t l = 0; l < outputs.size(); ++l) {
    const double weight = std::max(std::pow(0.5, static_cast<double>(l)), 0.0625);
    const auto& out = outputs[l];
    loss = loss + weight * softmaxDiceCe(out.to(torch::kFloat32), nearestExact(labels, out.sizes().slice(2)), s);
  }
  return loss;
}

// MONAI's convert_points_to_disc (Gaussian) summed over its two channels, as gaussian_combine weighs the class logits
// against the point logits: 1 - (sum of exp(-d^2 / 2r^2) over negative points + the same over positive), clamped at
// zero; [B, 1, H, W, D].
torch::Tensor gaussianWeight(const std::vector<float>& coords, const std::vector<int>& labels, std::int64_t objects,
                             std::int64_t perObject, const std::int64_t size[3], const torch::Device& device) {
  const std::int64_t radius = std::min({size[0], size[1], size[2]}) / 5;
  const auto opts = torch::TensorOptions().dtype(torch::kFloat32).device(device);
  const auto axes = torch::meshgrid({torch::arange(size[0], opts), torch::arange(size[1], opts), torch::arange(size[2], opts)}, "ij");
  std::vector<torch::Tensor> rows;
  for (std::int64_t b = 0; b < objects; ++b) {
    torch::Tensor channel[2] = {torch::zeros({size[0], size[1], size[2]}, opts), torch::zeros({size[0], size[1], size[2]}, opts)};
    for (std::int64_t n = 0; n < perObject; ++n) {
      const auto k = static_cast<std::size_t>(b * perObject + n);
      const int label = labels[k];
      if (label < 0) continue;
      const int c = (label == 0 || label == 2) ? 0 : 1;
      torch::Tensor d2 = (axes[0] - coords[3 * k]).pow(2) + (axes[1] - coords[3 * k + 1]).pow(2) + (axes[2] - coords[3 * k + 2]).pow(2);
      channel[c] += torch::exp(-d2 / static_cast<double>(2 * radius * radius));
    }
    rows.push_back((1 - (channel[0] + channel[1])).clamp_min(0).unsqueeze(0));
  }
  return torch::stack(rows);
}

// The state_dict's names and tensors in PyTorch's order: each module's own parameters, then its buffers, then its
// children depth first.
void collectState(const nn::Module& module, const std::string& prefix, std::vector<std::pair<std::string, torch::Tensor>>& out,
                  bool withBuffers) {
  for (const auto& p : module.named_parameters(false)) out.emplace_back(prefix + p.key(), p.value());
  if (withBuffers)
    for (const auto& b : module.named_buffers(false)) out.emplace_back(prefix + b.key(), b.value());
  for (const auto& c : module.named_children()) collectState(*c.value(), prefix + c.key() + ".", out, withBuffers);
}

NamedTensor toNamed(const std::string& name, const torch::Tensor& t) {
  NamedTensor n;
  n.name = name;
  n.shape = t.sizes().vec();
  n.values = hostFloats(t);
  return n;
}

}  // namespace

int SegResNetDSConfig::sizeFactor() const { return 1 << (blocksDown.empty() ? 0 : blocksDown.size() - 1); }

struct TrainableModel::Impl {
  ModelKind kind = ModelKind::SegResNetDS;
  SegResNetDSConfig config;
  // VISTA-3D
  ImageEncoder encoder{nullptr};
  ClassHead head{nullptr};
  PointHead pointHead{nullptr};
  // SegResNetDS
  SegResNetDS segResNet{nullptr};

  torch::Device device{torch::kCPU};
  Precision precision = Precision::Float32;
  OptimizerSettings settings;
  LossSettings lossSettings;
  bool optimizerReady = false;
  // AdamW's state by parameter name, as torch.optim keeps it: exp_avg, exp_avg_sq and the parameter's own step count
  // (a parameter first reached late, e.g. a head whose prompts were dropped, starts its bias correction then).
  std::map<std::string, std::pair<torch::Tensor, torch::Tensor>> moments;
  std::map<std::string, std::int64_t> steps;
  // Data parallel (null: one process).
  std::unique_ptr<GradientAllReduce> allReduce;
  bool proposeStop = false;
  std::optional<core::Error> pendingError;  // the all-reduce's, reported by the step
  int proposeIterations = 0;
  double lossScale = 65536.0;  // fp16 only: PyTorch GradScaler's initial scale, halved on overflow, doubled per 2000
  int goodSteps = 0;

  std::vector<std::pair<std::string, torch::Tensor>> named(bool withBuffers) const {
    std::vector<std::pair<std::string, torch::Tensor>> out;
    if (kind == ModelKind::Vista3d) {
      collectState(*encoder, "image_encoder.", out, withBuffers);
      collectState(*head, "class_head.", out, withBuffers);
      collectState(*pointHead, "point_head.", out, withBuffers);
    } else {
      collectState(*segResNet, "", out, withBuffers);
    }
    return out;
  }
  std::vector<nn::Module*> modules() {
    if (kind == ModelKind::Vista3d) return {encoder.ptr().get(), head.ptr().get(), pointHead.ptr().get()};
    return {segResNet.ptr().get()};
  }
  void train(bool on) {
    for (auto* m : modules()) m->train(on);
  }
  // zero_grad(set_to_none=False), as MONAI's trainers call it: a gradient once defined stays defined (zero), so a
  // branch no prompt reached this step still decays and moves on its momentum, as in the bundle's training.
  void clearGradients() {
    torch::NoGradGuard noGrad;
    for (auto& p : named(false))
      if (p.second.grad().defined()) p.second.mutable_grad().zero_();
  }

  // The VISTA-3D bundle's training forward (MONAI VISTA3D.forward without patch coordinates): the class head for
  // the label prompts, the point head for the objects with at least one point, the two combined by a Gaussian weight
  // around the points; an object without either gets kNegativeLogit. [B, 1, H, W, D].
  torch::Tensor vistaForward(const torch::Tensor& input, const VistaPrompts& prompts, const std::int64_t size[3]) {
    const auto objects = static_cast<std::int64_t>(prompts.promptClass.size());
    const std::int64_t perObject = prompts.pointsPerObject;
    std::vector<std::int64_t> mapped;
    for (std::int64_t b = 0; perObject > 0 && b < objects; ++b)
      for (std::int64_t n = 0; n < perObject; ++n)
        if (prompts.pointLabels[static_cast<std::size_t>(b * perObject + n)] != -1) {
          mapped.push_back(b);
          break;
        }
    const bool hasLabels = !prompts.labelPrompt.empty();
    if (perObject > 0 && mapped.empty() && !hasLabels)  // points of pads only: MONAI keeps them all
      for (std::int64_t b = 0; b < objects; ++b) mapped.push_back(b);
    const bool hasPoints = !mapped.empty();

    const auto skips = encoder->encode(input);
    torch::Tensor pointLogits, weight;
    std::vector<float> coords;
    std::vector<int> labels;
    std::vector<std::int64_t> classes;
    if (hasPoints) {
      for (const auto b : mapped) {
        for (std::int64_t n = 0; n < perObject; ++n) {
          const auto k = static_cast<std::size_t>(b * perObject + n);
          for (int a = 0; a < 3; ++a) coords.push_back(prompts.pointCoords[3 * k + static_cast<std::size_t>(a)]);
          labels.push_back(prompts.pointLabels[k]);
        }
        classes.push_back(prompts.promptClass[static_cast<std::size_t>(b)]);
      }
      const auto m = static_cast<std::int64_t>(mapped.size());
      const auto coordTensor = torch::from_blob(coords.data(), {m, perObject, 3}, torch::kFloat32).clone().to(device);
      std::vector<std::int64_t> l(labels.begin(), labels.end());
      const auto labelTensor = torch::tensor(l, torch::kInt64).reshape({m, perObject}).to(device);
      const auto features = ImageEncoderImpl::decode(encoder->up_layers, skips);
      pointLogits = pointHead->forwardBatch(features, coordTensor, labelTensor, classes).unsqueeze(1);  // [m, 1, ...]
      if (hasLabels) weight = gaussianWeight(coords, labels, m, perObject, size, device);
    }
    std::vector<torch::Tensor> rows;
    if (hasLabels) {
      const auto autoFeatures = ImageEncoderImpl::decode(encoder->up_layers_auto, skips);
      const auto logits = head->forward(autoFeatures, torch::tensor(prompts.labelPrompt, torch::kInt64).to(device)).transpose(0, 1);
      std::size_t next = 0;
      for (std::int64_t b = 0; b < logits.size(0); ++b) {
        torch::Tensor row = logits[b];
        if (next < mapped.size() && mapped[next] == b) {
          const auto k = static_cast<std::int64_t>(next++);
          row = row * weight[k] + (1 - weight[k]) * pointLogits[k];
        }
        rows.push_back(row);
      }
    } else {
      std::size_t next = 0;
      for (std::int64_t b = 0; b < objects; ++b) {
        if (next < mapped.size() && mapped[next] == b) {
          rows.push_back(pointLogits[static_cast<std::int64_t>(next++)]);
        } else {
          rows.push_back(torch::full({1, size[0], size[1], size[2]}, kNegativeLogit, input.options()));
        }
      }
    }
    return torch::stack(rows);
  }

  // AdamW as torch.optim.AdamW: decay, moments, bias-corrected step; parameters without a gradient are left alone.
  // The arithmetic of its single-tensor form, done as its foreach form does it: one multi-tensor kernel per operation
  // over the parameters that share a step count (all of them, unless some were frozen or got no gradient), instead
  // of ten small kernels per parameter (on a GPU, launches dominated VISTA-3D's optimizer step).
  void adamw() {
    torch::NoGradGuard noGrad;
    const double b1 = settings.beta1, b2 = settings.beta2, lr = settings.learningRate;
    struct Group {
      std::vector<torch::Tensor> params, grads, first, second;
    };
    std::map<std::int64_t, Group> groups;  // by the step each parameter is about to take
    for (auto& [name, p] : named(false)) {
      if (!p.requires_grad() || !p.grad().defined()) continue;
      auto& m = moments[name];
      if (!m.first.defined()) {
        m.first = torch::zeros_like(p, torch::MemoryFormat::Preserve);
        m.second = torch::zeros_like(p, torch::MemoryFormat::Preserve);
      }
      Group& g = groups[++steps[name]];
      g.params.push_back(p);
      g.grads.push_back(p.grad());
      g.first.push_back(m.first);
      g.second.push_back(m.second);
    }
    for (auto& [stepCount, g] : groups) {
      const auto step = static_cast<double>(stepCount);
      const double correction1 = 1 - std::pow(b1, step), correction2 = 1 - std::pow(b2, step);
      at::_foreach_mul_(g.params, 1 - lr * settings.weightDecay);
      at::_foreach_mul_(g.first, b1);
      at::_foreach_add_(g.first, g.grads, 1 - b1);
      at::_foreach_mul_(g.second, b2);
      at::_foreach_addcmul_(g.second, g.grads, g.grads, 1 - b2);
      auto denom = at::_foreach_sqrt(g.second);
      at::_foreach_div_(denom, std::sqrt(correction2));
      at::_foreach_add_(denom, settings.eps);
      at::_foreach_addcdiv_(g.params, g.first, denom, -lr / correction1);
    }
  }

  // Backward from `loss` and the optimizer step, with fp16 loss scaling and clipping; fills `result`.
  void backwardAndStep(const torch::Tensor& loss, StepResult& result) {
    result.loss = loss.item<double>();
    result.finite = std::isfinite(result.loss);
    if (!result.finite && !allReduce) return;
    const bool scaled = precision == Precision::Float16 && device.is_cuda();
    if (result.finite) (scaled ? loss * lossScale : loss).backward();
    std::vector<torch::Tensor> grads;
    for (auto& p : named(false)) {
      // Over processes every rank sends the same gradients in the same order: one a branch did not reach yet is zero.
      if (allReduce && p.second.requires_grad() && !p.second.grad().defined())
        p.second.mutable_grad() = torch::zeros_like(p.second);
      if (p.second.grad().defined()) grads.push_back(p.second.grad());
    }
    bool overflow = false;
    if (scaled && result.finite) {
      torch::NoGradGuard noGrad;
      // Unscaled in place and checked for inf/NaN by one multi-tensor kernel, with one synchronisation (as torch's
      // GradScaler does), not one per gradient.
      auto foundInf = torch::zeros({1}, torch::TensorOptions().dtype(torch::kFloat32).device(device));
      const auto invScale = torch::full({1}, 1.0 / lossScale, torch::TensorOptions().dtype(torch::kFloat32).device(device));
      at::_amp_foreach_non_finite_check_and_unscale_(grads, foundInf, invScale);
      overflow = foundInf.item<float>() != 0;
    }
    if (allReduce) {
      auto agreed = allReduce->allReduce(grads, proposeStop, overflow, !result.finite, proposeIterations);
      if (!agreed) {
        pendingError = agreed.error();
        return;
      }
      result.stopAgreed = agreed->stop;
      result.agreedIterations = agreed->iterations;
      result.allReduceSeconds = agreed->seconds;
      overflow = agreed->overflow;
      if (agreed->nonFinite) {
        result.finite = false;
        return;
      }
    }
    if (scaled) {
      if (overflow) {
        lossScale /= 2;
        goodSteps = 0;
        result.skipped = true;
        return;
      }
      if (++goodSteps >= 2000) {
        lossScale *= 2;
        goodSteps = 0;
      }
    }
    if (settings.gradientClip > 0) {
      std::vector<torch::Tensor> params;
      for (auto& p : named(false))
        if (p.second.grad().defined()) params.push_back(p.second);
      torch::nn::utils::clip_grad_norm_(params, settings.gradientClip);
    }
    adamw();
  }
};

TrainableModel::TrainableModel(std::unique_ptr<Impl> impl) : m_impl(std::move(impl)) {}
TrainableModel::~TrainableModel() = default;

bool trainingAvailable() { return true; }
bool dataParallelTrainingAvailable() { return dataParallelAvailable(); }

core::Status TrainableModel::joinDataParallel(const DataParallelSettings& settings) {
  auto joined = GradientAllReduce::join(settings);
  if (!joined) return joined.error();
  std::vector<at::Tensor> state;
  for (auto& p : m_impl->named(true)) state.push_back(p.second);
  if (core::Status s = (*joined)->broadcastFromRankZero(state); !s) return s;
  m_impl->allReduce = std::move(joined).value();
  return core::Status::success();
}

bool TrainableModel::dataParallel() const { return m_impl->allReduce != nullptr; }

void TrainableModel::proposeForNextStep(bool stop, int iterations) {
  m_impl->proposeStop = stop;
  m_impl->proposeIterations = iterations;
}
void seedTorch(std::uint64_t seed) { torch::manual_seed(seed); }

core::Result<std::unique_ptr<TrainableModel>> TrainableModel::vista3d(const vista3d::Checkpoint& checkpoint) {
  const int width = vista3d::widthOf(checkpoint);
  if (width <= 0 || width % 2) return core::makeError(core::ErrorCode::ParseError, checkpoint.path, "no VISTA-3D encoder in it");
  const vista3d::KeyReport report = vista3d::checkKeys(checkpoint, vista3d::vista3dLayout(width));
  if (!report.ok()) return core::makeError(core::ErrorCode::ParseError, checkpoint.path, report.describe());
  return guarded("loading " + checkpoint.path, [&]() -> core::Result<std::unique_ptr<TrainableModel>> {
    auto impl = std::make_unique<Impl>();
    impl->kind = ModelKind::Vista3d;
    impl->encoder = ImageEncoder(width);
    impl->head = ClassHead(width);
    impl->pointHead = PointHead(width);
    if (core::Status s = loadVista3dWeights(checkpoint, *impl->encoder, *impl->head, *impl->pointHead); !s) return s.error();
    impl->train(true);
    return std::unique_ptr<TrainableModel>(new TrainableModel(std::move(impl)));
  });
}

core::Result<std::unique_ptr<TrainableModel>> TrainableModel::segResNetDS(const SegResNetDSConfig& config,
                                                                          const vista3d::Checkpoint* initial,
                                                                          std::uint64_t seed) {
  if (config.initFilters < 1 || config.inChannels < 1 || config.outChannels < 2 || config.blocksDown.size() < 2 ||
      config.dsdepth < 1 || config.initFilters > 512 || config.blocksDown.size() > 7)
    return core::makeError(core::ErrorCode::InvalidArgument, "segresnetds",
                           "init filters 1..512, at least one input and two output channels, 2..7 levels, dsdepth >= 1");
  for (const int b : config.blocksDown)
    if (b < 1 || b > 16) return core::makeError(core::ErrorCode::InvalidArgument, "segresnetds", "1..16 blocks per level");
  return guarded("building SegResNetDS", [&]() -> core::Result<std::unique_ptr<TrainableModel>> {
    torch::manual_seed(seed);
    auto impl = std::make_unique<Impl>();
    impl->kind = ModelKind::SegResNetDS;
    impl->config = config;
    impl->segResNet = SegResNetDS(config.initFilters, config.inChannels, config.outChannels, config.blocksDown, config.dsdepth);
    if (initial) {
      auto file = core::openInputFile(initial->path);
      if (!file) return file.error();
      if (core::Status s = loadWeights(*impl->segResNet, **file, *initial, ""); !s) return s.error();
      std::set<std::string> known;
      for (const auto& p : impl->named(true)) known.insert(p.first);
      for (const auto& t : initial->tensors)
        if (!known.count(t.name))
          return core::makeError(core::ErrorCode::ParseError, initial->path, "unexpected key " + t.name + " for this SegResNetDS");
    }
    impl->train(true);
    return std::unique_ptr<TrainableModel>(new TrainableModel(std::move(impl)));
  });
}

ModelKind TrainableModel::kind() const { return m_impl->kind; }
const SegResNetDSConfig& TrainableModel::segResNetDSConfig() const { return m_impl->config; }
std::string TrainableModel::device() const { return m_impl->device.str(); }

core::Status TrainableModel::setDevice(const std::string& device, Precision precision) {
  auto parsed = parseDevice(device, precision);
  if (!parsed) return parsed.error();
  const torch::Device target = *parsed;
  return guarded("moving the network to " + device, [&]() -> core::Status {
    for (auto* m : m_impl->modules()) m->to(target);
    for (auto& [name, m] : m_impl->moments) {
      m.first = m.first.to(target);
      m.second = m.second.to(target);
    }
    if (target.is_cuda()) {
      at::globalContext().setBenchmarkCuDNN(true);
      // PyTorch's default, which MONAI's training runs with: cuDNN convolutions in TF32 (the inference engine turns it
      // off in fp32 for parity with MONAI's logits; a training run has no such reference).
      at::globalContext().setAllowTF32CuDNN(true);
    }
    m_impl->device = target;
    m_impl->precision = precision;
    return core::Status::success();
  });
}

void TrainableModel::setOptimizer(const OptimizerSettings& settings) {
  m_impl->settings = settings;
  m_impl->moments.clear();
  m_impl->steps.clear();
  m_impl->optimizerReady = true;
}

void TrainableModel::setLearningRate(double lr) { m_impl->settings.learningRate = lr; }
void TrainableModel::setLoss(const LossSettings& loss) { m_impl->lossSettings = loss; }

core::Status TrainableModel::freeze(const std::vector<std::string>& prefixes) {
  int frozen = 0;
  for (auto& [name, p] : m_impl->named(false))
    for (const auto& prefix : prefixes)
      if (name.compare(0, prefix.size(), prefix) == 0) {
        p.set_requires_grad(false);
        ++frozen;
        break;
      }
  if (!prefixes.empty() && frozen == 0)
    return core::makeError(core::ErrorCode::InvalidArgument, prefixes.front(), "no parameter starts with it");
  return core::Status::success();
}

core::Result<TrainableModel::StepResult> TrainableModel::stepVista(const std::vector<float>& image, const std::int64_t size[3],
                                                                   const std::vector<std::uint16_t>& labels,
                                                                   const VistaPrompts& prompts, bool keepOutputs) {
  if (m_impl->kind != ModelKind::Vista3d)
    return core::makeError(core::ErrorCode::InvalidArgument, "training", "not a VISTA-3D model");
  const std::int64_t voxels = size[0] * size[1] * size[2];
  for (int a = 0; a < 3; ++a)
    if (size[a] <= 0 || size[a] % 16)
      return core::makeError(core::ErrorCode::InvalidArgument, "training", "VISTA-3D patch sides must be multiples of 16");
  if (image.size() != static_cast<std::size_t>(voxels) || labels.size() != image.size())
    return core::makeError(core::ErrorCode::InvalidArgument, "training", "the patch and its labels do not match its size");
  const auto objects = prompts.promptClass.size();
  if (objects == 0) return core::makeError(core::ErrorCode::InvalidArgument, "training", "no prompt");
  if (!prompts.labelPrompt.empty() && prompts.labelPrompt.size() != objects)
    return core::makeError(core::ErrorCode::InvalidArgument, "training", "one label prompt per object");
  const auto points = objects * static_cast<std::size_t>(std::max(0, prompts.pointsPerObject));
  if (prompts.pointLabels.size() != points || prompts.pointCoords.size() != 3 * points)
    return core::makeError(core::ErrorCode::InvalidArgument, "training", "the points do not match the objects");
  if (prompts.labelPrompt.empty() && points == 0)
    return core::makeError(core::ErrorCode::InvalidArgument, "training", "neither label prompts nor points");
  if (!m_impl->optimizerReady) setOptimizer(m_impl->settings);
  return guarded("training VISTA-3D", [&]() -> core::Result<StepResult> {
    m_impl->train(true);
    m_impl->clearGradients();
    const auto input = torch::from_blob(const_cast<float*>(image.data()), {1, 1, size[0], size[1], size[2]}, torch::kFloat32).to(m_impl->device);
    std::vector<std::int32_t> l32(labels.begin(), labels.end());
    const auto labelTensor = torch::from_blob(l32.data(), {1, 1, size[0], size[1], size[2]}, torch::kInt32).to(m_impl->device);
    StepResult result;
    torch::Tensor logits;
    {
      AutocastScope autocast(m_impl->device.type(), m_impl->precision);
      logits = m_impl->vistaForward(input, prompts, size);
    }
    logits = logits.to(torch::kFloat32);
    torch::Tensor loss = torch::zeros({}, logits.options());
    for (std::size_t b = 0; b < objects; ++b) {
      const auto target = (labelTensor == prompts.promptClass[b]).to(torch::kFloat32);
      loss = loss + sigmoidDiceCe(logits.slice(0, static_cast<std::int64_t>(b), static_cast<std::int64_t>(b) + 1), target, m_impl->lossSettings);
    }
    loss = loss / static_cast<double>(std::max<std::size_t>(objects, 1));
    if (keepOutputs) result.outputs.push_back(hostFloats(logits));
    m_impl->backwardAndStep(loss, result);
    if (m_impl->pendingError) {
      core::Error e = *m_impl->pendingError;
      m_impl->pendingError.reset();
      return e;
    }
    return result;
  });
}

core::Result<TrainableModel::StepResult> TrainableModel::stepSegResNetDS(const std::vector<float>& images, int count,
                                                                         const std::int64_t size[3],
                                                                         const std::vector<std::uint16_t>& labels,
                                                                         bool keepOutputs) {
  if (m_impl->kind != ModelKind::SegResNetDS)
    return core::makeError(core::ErrorCode::InvalidArgument, "training", "not a SegResNetDS model");
  const int factor = m_impl->config.sizeFactor();
  for (int a = 0; a < 3; ++a)
    if (size[a] <= 0 || size[a] % factor)
      return core::makeError(core::ErrorCode::InvalidArgument, "training",
                             "patch sides must be multiples of " + std::to_string(factor) + " for this network");
  const std::int64_t voxels = size[0] * size[1] * size[2];
  if (count < 1 || images.size() != static_cast<std::size_t>(count * m_impl->config.inChannels * voxels) ||
      labels.size() != static_cast<std::size_t>(count * voxels))
    return core::makeError(core::ErrorCode::InvalidArgument, "training", "the patches and their labels do not match their size");
  for (const auto l : labels)
    if (l >= m_impl->config.outChannels)
      return core::makeError(core::ErrorCode::InvalidArgument, "training",
                             "label " + std::to_string(l) + " is not below the network's " +
                                 std::to_string(m_impl->config.outChannels) + " outputs");
  if (!m_impl->optimizerReady) setOptimizer(m_impl->settings);
  return guarded("training SegResNetDS", [&]() -> core::Result<StepResult> {
    m_impl->train(true);
    m_impl->clearGradients();
    const auto input = torch::from_blob(const_cast<float*>(images.data()),
                                        {count, m_impl->config.inChannels, size[0], size[1], size[2]}, torch::kFloat32)
                           .to(m_impl->device);
    std::vector<std::int64_t> l64(labels.begin(), labels.end());
    const auto labelTensor = torch::from_blob(l64.data(), {count, size[0], size[1], size[2]}, torch::kInt64).to(m_impl->device);
    std::vector<torch::Tensor> outputs;
    {
      AutocastScope autocast(m_impl->device.type(), m_impl->precision);
      outputs = m_impl->segResNet->forward(input);
    }
    StepResult result;
    const auto loss = deepSupervisionLoss(outputs, labelTensor, m_impl->lossSettings);
    if (keepOutputs)
      for (const auto& o : outputs) result.outputs.push_back(hostFloats(o));
    m_impl->backwardAndStep(loss, result);
    if (m_impl->pendingError) {
      core::Error e = *m_impl->pendingError;
      m_impl->pendingError.reset();
      return e;
    }
    return result;
  });
}

core::Result<std::vector<float>> TrainableModel::evalLogits(const std::vector<float>& image, const std::int64_t size[3],
                                                            const std::vector<std::int64_t>& classes) {
  const int channels = m_impl->kind == ModelKind::SegResNetDS ? m_impl->config.inChannels : 1;
  if (image.size() != static_cast<std::size_t>(channels * size[0] * size[1] * size[2]))
    return core::makeError(core::ErrorCode::InvalidArgument, "training", "the window does not match its size");
  return guarded("running the network", [&]() -> core::Result<std::vector<float>> {
    torch::NoGradGuard noGrad;
    m_impl->train(false);
    const auto input = torch::from_blob(const_cast<float*>(image.data()), {1, channels, size[0], size[1], size[2]}, torch::kFloat32)
                           .to(m_impl->device);
    torch::Tensor logits;
    {
      AutocastScope autocast(m_impl->device.type(), m_impl->precision);
      if (m_impl->kind == ModelKind::SegResNetDS) {
        logits = m_impl->segResNet->forward(input).front();
      } else {
        if (classes.empty()) return core::makeError(core::ErrorCode::InvalidArgument, "training", "no class to segment");
        const auto features = ImageEncoderImpl::decode(m_impl->encoder->up_layers_auto, m_impl->encoder->encode(input));
        logits = m_impl->head->forward(features, torch::tensor(classes, torch::kInt64).to(m_impl->device));
      }
    }
    m_impl->train(true);
    return hostFloats(logits);
  });
}

std::vector<NamedTensor> TrainableModel::stateDict() const {
  std::vector<NamedTensor> out;
  for (const auto& [name, t] : m_impl->named(true)) out.push_back(toNamed(name, t));
  return out;
}

std::vector<NamedTensor> TrainableModel::parameters() const {
  std::vector<NamedTensor> out;
  for (const auto& [name, t] : m_impl->named(false)) out.push_back(toNamed(name, t));
  return out;
}

std::vector<NamedTensor> TrainableModel::gradients() const {
  std::vector<NamedTensor> out;
  for (const auto& [name, t] : m_impl->named(false))
    out.push_back(toNamed(name, t.grad().defined() ? t.grad() : torch::zeros_like(t)));
  return out;
}

std::int64_t TrainableModel::parameterCount() const {
  std::int64_t n = 0;
  for (const auto& p : m_impl->named(false)) n += p.second.numel();
  return n;
}

std::vector<NamedTensor> TrainableModel::optimizerState() const {
  // Counts as float32 values: exact up to 2^24, above the 10^7 iterations a run may have.
  auto scalar = [](const std::string& name, double v) {
    NamedTensor t;
    t.name = name;
    t.values = {static_cast<float>(v)};
    return t;
  };
  std::vector<NamedTensor> out;
  out.push_back(scalar("loss_scale", m_impl->lossScale));
  out.push_back(scalar("loss_scale_good_steps", m_impl->goodSteps));
  for (const auto& [name, m] : m_impl->moments) {
    out.push_back(toNamed(name + ".exp_avg", m.first));
    out.push_back(toNamed(name + ".exp_avg_sq", m.second));
    const auto it = m_impl->steps.find(name);
    out.push_back(scalar(name + ".step", it == m_impl->steps.end() ? 0.0 : static_cast<double>(it->second)));
  }
  return out;
}

namespace {

core::Status copyInto(torch::Tensor& target, const NamedTensor& source) {
  if (source.shape != target.sizes().vec())
    return core::makeError(core::ErrorCode::ParseError, source.name, "wrong shape for this network");
  torch::NoGradGuard noGrad;
  target.copy_(torch::from_blob(const_cast<float*>(source.values.data()), source.shape, torch::kFloat32).to(target.device()));
  return core::Status::success();
}

}  // namespace

core::Status TrainableModel::loadOptimizerState(const std::vector<NamedTensor>& state) {
  std::map<std::string, torch::Tensor> params;
  for (const auto& p : m_impl->named(false)) params[p.first] = p.second;
  decltype(m_impl->moments) moments;
  decltype(m_impl->steps) steps;
  double scale = 65536.0;
  int goodSteps = 0;
  auto endsWith = [](const std::string& s, const std::string& tail) {
    return s.size() > tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
  };
  for (const auto& t : state) {
    if (t.name == "loss_scale" && t.values.size() == 1) {
      scale = t.values[0];
      continue;
    }
    if (t.name == "loss_scale_good_steps" && t.values.size() == 1) {
      goodSteps = static_cast<int>(t.values[0]);
      continue;
    }
    const std::string tail = endsWith(t.name, ".exp_avg") ? ".exp_avg" : endsWith(t.name, ".exp_avg_sq") ? ".exp_avg_sq"
                             : endsWith(t.name, ".step")  ? ".step" : "";
    const std::string param = t.name.substr(0, t.name.size() - tail.size());
    const auto it = params.find(param);
    if (tail.empty() || it == params.end())
      return core::makeError(core::ErrorCode::ParseError, t.name, "not part of this network's optimizer state");
    if (tail == ".step") {
      if (t.values.size() != 1 || !(t.values[0] >= 1)) return core::makeError(core::ErrorCode::ParseError, t.name, "not a step count");
      steps[param] = static_cast<std::int64_t>(t.values[0]);
      continue;
    }
    auto& m = moments[param];
    torch::Tensor& slot = tail == ".exp_avg" ? m.first : m.second;
    slot = torch::zeros_like(it->second);
    if (core::Status s = copyInto(slot, t); !s) return s;
  }
  for (const auto& [name, m] : moments)
    if (!m.first.defined() || !m.second.defined() || !steps.count(name))
      return core::makeError(core::ErrorCode::ParseError, name, "incomplete optimizer state (moments and step)");
  // A parameter with moments had a gradient before: it has one again (zero), as in the run that saved the state, so
  // a resumed run treats branches unused in its first steps the same.
  {
    torch::NoGradGuard noGrad;
    for (const auto& [name, m] : moments) {
      auto& p = params[name];
      if (!p.grad().defined()) p.mutable_grad() = torch::zeros_like(p);
    }
  }
  m_impl->moments = std::move(moments);
  m_impl->steps = std::move(steps);
  m_impl->lossScale = scale;
  m_impl->goodSteps = goodSteps;
  m_impl->optimizerReady = true;
  return core::Status::success();
}

core::Status TrainableModel::loadStateDict(const std::vector<NamedTensor>& state) {
  std::map<std::string, const NamedTensor*> byName;
  for (const auto& t : state) byName[t.name] = &t;
  for (auto& [name, t] : m_impl->named(true)) {
    const auto it = byName.find(name);
    if (it == byName.end()) return core::makeError(core::ErrorCode::ParseError, name, "missing from the state");
    if (core::Status s = copyInto(t, *it->second); !s) return s;
  }
  if (byName.size() != m_impl->named(true).size())
    return core::makeError(core::ErrorCode::ParseError, "state", "keys this network does not have");
  return core::Status::success();
}

}  // namespace delineate::inference::training
