// The one translation unit of the encoder that includes torch (compiled only where LibTorch is found).
#include <ATen/autocast_mode.h>
#include <torch/torch.h>
#include <torch/version.h>

#include <atomic>
#include <cmath>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>

#include "inference/vista3d/architecture.h"
#include "inference/vista3d/modules_torch.h"
#include "inference/vista3d/torch_support.h"
#include "inference/vista3d/network.h"

namespace delineate::inference::vista3d {

namespace nn = torch::nn;
using namespace net;  // NOLINT: the module tree is this file's vocabulary

bool torchAvailable() { return true; }

bool cudaAvailable() {
  try {
    return torch::cuda::is_available();
  } catch (const c10::Error&) {
    return false;
  }
}

int cpuThreads() { return static_cast<int>(torch::get_num_threads()); }

namespace {
std::atomic<bool> g_cpuShortcuts{true};
}
void setCpuConvolutionShortcuts(bool on) { g_cpuShortcuts.store(on); }
bool cpuConvolutionShortcuts() { return g_cpuShortcuts.load(); }
bool cpuBf16Accurate() { return cpuBf16SumsInFp32(); }

const char* precisionName(Precision p) {
  switch (p) {
    case Precision::Float32: return "fp32";
    case Precision::Float16: return "fp16";
    case Precision::BFloat16: return "bf16";
  }
  return "fp32";
}

struct Vista3dModel::Impl {
  int width = 0;
  ImageEncoder encoder{nullptr};
  ClassHead head{nullptr};
  PointHead pointHead{nullptr};
  torch::Device device{torch::kCPU};
  Precision precision = Precision::Float32;

  // `count` windows (back to back) as a [count, 1, H, W, D] tensor on the device.
  torch::Tensor input(const std::vector<float>& windows, std::int64_t count, const std::int64_t size[3]) const {
    return torch::from_blob(const_cast<float*>(windows.data()), {count, 1, size[0], size[1], size[2]}, torch::kFloat32)
        .to(device);
  }
  // Class logits [count, classes, H, W, D] on the device (in the autocast type when reduced).
  torch::Tensor classLogits(const torch::Tensor& input, const std::vector<std::int64_t>& classes) {
    const auto features = ImageEncoderImpl::decode(encoder->up_layers_auto, encoder->encode(input));
    return head->forward(features, torch::tensor(classes, torch::kInt64).to(device));
  }
};

namespace {

// The three parts of width `width`, in eval mode, with LibTorch's initial weights.
std::unique_ptr<Vista3dModel::Impl> makeImpl(int width) {
  auto impl = std::make_unique<Vista3dModel::Impl>();
  impl->width = width;
  impl->encoder = ImageEncoder(width);
  impl->head = ClassHead(width);
  impl->pointHead = PointHead(width);
  impl->encoder->eval();
  impl->head->eval();
  impl->pointHead->eval();
  return impl;
}

}  // namespace

Vista3dModel::Vista3dModel(std::unique_ptr<Impl> impl) : m_impl(std::move(impl)) {}
Vista3dModel::~Vista3dModel() = default;
int Vista3dModel::width() const { return m_impl->width; }

core::Result<std::unique_ptr<Vista3dModel>> Vista3dModel::load(const Checkpoint& checkpoint) {
  const int width = widthOf(checkpoint);
  if (width <= 0 || width % 2) return core::makeError(core::ErrorCode::ParseError, checkpoint.path, "no VISTA-3D encoder in it");
  const KeyReport report = checkKeys(checkpoint, vista3dLayout(width));
  if (!report.ok()) return core::makeError(core::ErrorCode::ParseError, checkpoint.path, report.describe());
  try {
    auto impl = makeImpl(width);
    if (core::Status s = loadVista3dWeights(checkpoint, *impl->encoder, *impl->head, *impl->pointHead); !s) return s.error();
    return std::unique_ptr<Vista3dModel>(new Vista3dModel(std::move(impl)));
  } catch (const std::bad_alloc&) {
    return core::makeError(core::ErrorCode::OutOfMemory, checkpoint.path, "out of memory loading the network");
  } catch (const c10::Error& e) {
    return core::makeError(core::ErrorCode::InvalidArgument, checkpoint.path, std::string("LibTorch: ") + e.what_without_backtrace());
  }
}

core::Result<std::unique_ptr<Vista3dModel>> Vista3dModel::random(int width, std::uint64_t seed) {
  if (width <= 0 || width % 2) return core::makeError(core::ErrorCode::InvalidArgument, "vista3d", "the width must be even");
  try {
    torch::manual_seed(seed);
    auto impl = makeImpl(width);
    {
      torch::NoGradGuard noGrad;
      impl->pointHead->pe_layer->gaussian.normal_();  // a registered buffer starts at zero here; MONAI draws it
    }
    return std::unique_ptr<Vista3dModel>(new Vista3dModel(std::move(impl)));
  } catch (const std::bad_alloc&) {
    return core::makeError(core::ErrorCode::OutOfMemory, "vista3d", "out of memory building the network");
  }
}

void Vista3dModel::setCpuThreads(int threads) {
  // Debian's LibTorch starts with one thread; a workstation's user expects every core.
  if (threads <= 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  torch::set_num_threads(threads);
}

core::Status Vista3dModel::setDevice(const std::string& device, Precision precision) {
  auto parsed = parseDevice(device, precision);
  if (!parsed) return parsed.error();
  const torch::Device target = *parsed;
  const core::Status moved = guarded("moving the network to " + device, [&]() -> core::Status {
    m_impl->encoder->to(target);
    m_impl->head->to(target);
    m_impl->pointHead->to(target);
    return core::Status::success();
  });
  if (!moved) {  // the weights stay usable where they were (a partial move is undone)
    m_impl->encoder->to(m_impl->device);
    m_impl->head->to(m_impl->device);
    m_impl->pointHead->to(m_impl->device);
    return moved;
  }
  if (target.is_cuda()) {
    at::globalContext().setBenchmarkCuDNN(true);  // fixed window sizes: autotuning pays
    // fp32 means fp32: LibTorch lets cuDNN run fp32 convolutions in TF32 by default (10-bit mantissa), which on an
    // H100 put the parity case 0.05 (0.3% of the logits' range, ~800 voxels flipping sign) and the point head 3e-3
    // from MONAI's fp32 logits. The reduced precisions keep LibTorch's default (TF32 for what autocast leaves fp32).
    // Matrix products already default to full fp32 (float32 matmul precision "highest").
    at::globalContext().setAllowTF32CuDNN(precision != Precision::Float32);
  }
  m_impl->device = target;
  m_impl->precision = precision;
  return core::Status::success();
}

std::string Vista3dModel::device() const { return m_impl->device.str(); }
Precision Vista3dModel::precision() const { return m_impl->precision; }

namespace {

core::Status checkWindows(const std::vector<float>& windows, int count, const std::int64_t size[3]) {
  for (int a = 0; a < 3; ++a)
    if (size[a] <= 0 || size[a] % 16)
      return core::makeError(core::ErrorCode::InvalidArgument, "vista3d", "window sizes must be multiples of 16");
  if (count < 1 || windows.size() != static_cast<std::size_t>(count * size[0] * size[1] * size[2]))
    return core::makeError(core::ErrorCode::InvalidArgument, "vista3d", "the windows do not match their size");
  return core::Status::success();
}

core::Status checkClasses(const std::vector<std::int64_t>& classes) {
  if (classes.empty()) return core::makeError(core::ErrorCode::InvalidArgument, "vista3d", "no class to segment");
  for (const auto c : classes)
    if (c < 0 || c >= 512) return core::makeError(core::ErrorCode::InvalidArgument, "vista3d", "class ids are 0..511");
  return core::Status::success();
}

}  // namespace

core::Result<std::vector<float>> Vista3dModel::classLogits(const std::vector<float>& window, const std::int64_t size[3],
                                                           const std::vector<std::int64_t>& classes) {
  return classLogitsBatch(window, 1, size, classes);
}

core::Result<std::vector<float>> Vista3dModel::classLogitsBatch(const std::vector<float>& windows, int count,
                                                                const std::int64_t size[3],
                                                                const std::vector<std::int64_t>& classes) {
  if (core::Status s = checkWindows(windows, count, size); !s) return s.error();
  if (core::Status s = checkClasses(classes); !s) return s.error();
  return guarded("running the network", [&]() -> core::Result<std::vector<float>> {
    torch::NoGradGuard noGrad;
    AutocastScope autocast(m_impl->device.type(), m_impl->precision);
    return hostFloats(m_impl->classLogits(m_impl->input(windows, count, size), classes));
  });
}

namespace {

// Window sums on the network's device: [classes, e0, e1, e2], float32, or float16 when the network runs in reduced
// precision (half the memory; a voxel's winner can then differ where two classes' sums are within fp16 rounding).
class DeviceSlabAccumulator final : public SlabAccumulator {
 public:
  DeviceSlabAccumulator(Vista3dModel::Impl& model, std::vector<std::int64_t> classes)
      : m_model(model), m_classes(std::move(classes)) {}

  core::Status reset(int channels, const std::int64_t extent[3]) override {
    if (channels != static_cast<int>(m_classes.size()))
      return core::makeError(core::ErrorCode::InvalidArgument, "vista3d", "one channel per class is needed");
    if (core::Status s = checkClasses(m_classes); !s) return s;
    return guarded("for the window sums", [&]() -> core::Status {
      m_sums = torch::Tensor();
      const auto type = m_model.precision == Precision::Float32 ? torch::kFloat32 : torch::kFloat16;
      m_sums = torch::zeros({channels, extent[0], extent[1], extent[2]},
                            torch::TensorOptions().dtype(type).device(m_model.device));
      return core::Status::success();
    });
  }

  core::Status addWindows(const std::vector<float>& windows, int count, std::int64_t roi,
                          const std::vector<std::int64_t>& origins) override {
    const std::int64_t size[3] = {roi, roi, roi};
    if (core::Status s = checkWindows(windows, count, size); !s) return s;
    if (origins.size() != static_cast<std::size_t>(3 * count))
      return core::makeError(core::ErrorCode::InvalidArgument, "vista3d", "one origin per window is needed");
    return guarded("running the network", [&]() -> core::Status {
      torch::NoGradGuard noGrad;
      torch::Tensor logits;
      {
        AutocastScope autocast(m_model.device.type(), m_model.precision);
        logits = m_model.classLogits(m_model.input(windows, count, size), m_classes);
      }
      logits = logits.to(m_sums.scalar_type());  // every allocation before the first sum changes
      for (int w = 0; w < count; ++w) {
        const std::int64_t* o = &origins[static_cast<std::size_t>(3 * w)];
        m_sums.narrow(1, o[0], roi).narrow(2, o[1], roi).narrow(3, o[2], roi).add_(logits[w]);
      }
      return core::Status::success();
    });
  }

  core::Result<std::vector<std::uint8_t>> takeWinners(int axis, std::int64_t length) override {
    return guarded("taking the winning classes", [&]() -> core::Result<std::vector<std::uint8_t>> {
      torch::NoGradGuard noGrad;
      const int dim = axis + 1;
      const std::int64_t extent = m_sums.size(dim);
      // max over the classes gives the first of equal maxima, as the bundle's argmax.
      const auto best = m_sums.narrow(dim, 0, length).max(0);
      const torch::Tensor top = std::get<0>(best), index = std::get<1>(best);
      const torch::Tensor winners =
          torch::where(top > 0, index + 1, torch::zeros_like(index)).to(torch::kCPU, torch::kUInt8).contiguous();
      std::vector<std::uint8_t> out(winners.data_ptr<std::uint8_t>(), winners.data_ptr<std::uint8_t>() + winners.numel());
      const std::int64_t keep = extent - length;
      if (keep > 0) m_sums.narrow(dim, 0, keep).copy_(m_sums.narrow(dim, length, keep).clone());
      m_sums.narrow(dim, keep, length).zero_();
      return out;
    });
  }

  std::size_t bytes() const override {
    return m_sums.defined() ? static_cast<std::size_t>(m_sums.numel()) * m_sums.element_size() : 0;
  }

 private:
  Vista3dModel::Impl& m_model;
  std::vector<std::int64_t> m_classes;
  torch::Tensor m_sums;
};

}  // namespace

std::unique_ptr<SlabAccumulator> Vista3dModel::slabAccumulator(const std::vector<std::int64_t>& classes) {
  return std::make_unique<DeviceSlabAccumulator>(*m_impl, classes);
}

core::Result<std::vector<float>> Vista3dModel::pointLogits(const std::vector<float>& window, const std::int64_t size[3],
                                                           const std::vector<WindowPoint>& points, std::int64_t promptClass) {
  auto both = runHeads(window, size, points, promptClass, false);
  if (!both) return both.error();
  return std::move(both->pointLogits);
}

core::Result<Vista3dModel::BothLogits> Vista3dModel::bothLogits(const std::vector<float>& window, const std::int64_t size[3],
                                                                const std::vector<WindowPoint>& points, std::int64_t classId) {
  return runHeads(window, size, points, classId, true);
}

core::Result<Vista3dModel::BothLogits> Vista3dModel::runHeads(const std::vector<float>& window, const std::int64_t size[3],
                                                              const std::vector<WindowPoint>& points, std::int64_t promptClass,
                                                              bool withClass) {
  if (core::Status s = checkWindows(window, 1, size); !s) return s.error();
  if (points.empty()) return core::makeError(core::ErrorCode::InvalidArgument, "vista3d", "no point");
  if (promptClass < 0 || promptClass >= 512) return core::makeError(core::ErrorCode::InvalidArgument, "vista3d", "class ids are 0..511");
  std::vector<float> flat;
  std::vector<int> labels;
  for (const auto& p : points) {
    if (p.label < -1 || p.label > 3) return core::makeError(core::ErrorCode::InvalidArgument, "vista3d", "point labels are -1..3");
    for (int a = 0; a < 3; ++a) flat.push_back(static_cast<float>(p.ijk[static_cast<std::size_t>(a)]));
    labels.push_back(p.label);
  }
  return guarded("running the network", [&]() -> core::Result<BothLogits> {
    torch::NoGradGuard noGrad;
    AutocastScope autocast(m_impl->device.type(), m_impl->precision);
    const auto skips = m_impl->encoder->encode(m_impl->input(window, 1, size));
    const auto features = ImageEncoderImpl::decode(m_impl->encoder->up_layers, skips);
    const auto coords =
        torch::from_blob(flat.data(), {static_cast<std::int64_t>(points.size()), 3}, torch::kFloat32).to(m_impl->device);
    BothLogits out;
    out.pointLogits = hostFloats(m_impl->pointHead->forward(features, coords, labels, promptClass));
    if (withClass) {
      const auto autoFeatures = ImageEncoderImpl::decode(m_impl->encoder->up_layers_auto, skips);
      out.classLogits = hostFloats(m_impl->head->forward(autoFeatures, torch::tensor({promptClass}, torch::kInt64).to(m_impl->device)));
    }
    return out;
  });
}

core::Result<EncoderOutputs> Vista3dModel::encoderOutputs(const std::vector<float>& window, const std::int64_t size[3]) {
  if (core::Status s = checkWindows(window, 1, size); !s) return s.error();
  return guarded("running the encoder", [&]() -> core::Result<EncoderOutputs> {
    torch::NoGradGuard noGrad;
    AutocastScope autocast(m_impl->device.type(), m_impl->precision);
    const auto skips = m_impl->encoder->encode(m_impl->input(window, 1, size));
    const torch::Tensor point = ImageEncoderImpl::decode(m_impl->encoder->up_layers, skips);
    EncoderOutputs out;
    out.channels = point.size(1);
    for (int a = 0; a < 3; ++a) out.size[a] = size[a];
    out.pointBranch = hostFloats(point);
    out.autoBranch = hostFloats(ImageEncoderImpl::decode(m_impl->encoder->up_layers_auto, skips));
    return out;
  });
}

core::Result<EncoderOutputs> runImageEncoder(const Checkpoint& checkpoint, const std::vector<float>& volume,
                                             const std::int64_t size[3]) {
  auto model = Vista3dModel::load(checkpoint);
  if (!model) return model.error();
  return (*model)->encoderOutputs(volume, size);
}

core::Result<std::vector<float>> runClassLogits(const Checkpoint& checkpoint, const std::vector<float>& volume,
                                                const std::int64_t size[3], const std::vector<std::int64_t>& classes) {
  auto model = Vista3dModel::load(checkpoint);
  if (!model) return model.error();
  return (*model)->classLogits(volume, size, classes);
}

}  // namespace delineate::inference::vista3d
