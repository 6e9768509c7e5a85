#pragma once
// LibTorch helpers shared by the torch translation units of inference/ (the VISTA-3D engine and training): checkpoint
// entries into module weights, autocast for one pass, host copies, LibTorch's exceptions as errors.
#include <ATen/autocast_mode.h>
#include <torch/torch.h>
#include <torch/version.h>

#include <pthread.h>

#include <csignal>
#include <fstream>
#include <istream>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/file_source.h"
#include "inference/vista3d/architecture.h"
#include "inference/vista3d/checkpoint_reader.h"
#include "inference/vista3d/modules_torch.h"
#include "inference/vista3d/network.h"

namespace delineate::inference::vista3d::net {

inline torch::ScalarType scalarType(DType t) {
  switch (t) {
    case DType::Float32: return torch::kFloat32;
    case DType::Float64: return torch::kFloat64;
    case DType::Float16: return torch::kFloat16;
    case DType::BFloat16: return torch::kBFloat16;
    case DType::Int64: return torch::kInt64;
    case DType::Int32: return torch::kInt32;
    case DType::Int16: return torch::kInt16;
    case DType::Int8: return torch::kInt8;
    case DType::UInt8: return torch::kUInt8;
    case DType::Bool: return torch::kBool;
  }
  return torch::kFloat32;
}

// Copies every parameter and buffer of `module` from the checkpoint entry `prefix` + its name, read through `file`
// (open on the checkpoint).
inline core::Status loadWeights(nn::Module& module, std::istream& file, const Checkpoint& checkpoint, const std::string& prefix) {
  if (!file) return core::makeError(core::ErrorCode::NotFound, checkpoint.path, "cannot open the checkpoint");
  torch::NoGradGuard noGrad;
  auto load = [&](const std::string& name, torch::Tensor& target) -> core::Status {
    const TensorEntry* e = checkpoint.find(prefix + name);
    if (!e) return core::makeError(core::ErrorCode::ParseError, checkpoint.path, "missing key " + prefix + name);
    if (e->shape != target.sizes().vec())
      return core::makeError(core::ErrorCode::ParseError, checkpoint.path, "wrong shape for " + prefix + name);
    auto bytes = readTensorBytes(file, checkpoint, *e);
    if (!bytes) return bytes.error();
    auto source = torch::from_blob(bytes->data(), e->shape, scalarType(e->dtype));
    target.copy_(source.to(target.scalar_type()));
    return core::Status::success();
  };
  for (auto& p : module.named_parameters(true))
    if (core::Status s = load(p.key(), p.value()); !s) return s;
  for (auto& b : module.named_buffers(true))
    if (core::Status s = load(b.key(), b.value()); !s) return s;
  return core::Status::success();
}


// Autocast (the bundle's amp: convolutions and matrix products in fp16 / bf16, reductions in fp32) for one forward
// pass, then the previous state back. LibTorch 2.4 replaced the per-device setters by ones taking the device type.
class AutocastScope {
 public:
  AutocastScope(torch::DeviceType type, Precision precision) : m_type(type), m_on(precision != Precision::Float32) {
    if (!m_on) return;
    const auto dtype = precision == Precision::Float16 ? torch::kFloat16 : torch::kBFloat16;
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)
    m_wasOn = at::autocast::is_autocast_enabled(type);
    m_wasType = at::autocast::get_autocast_dtype(type);
    at::autocast::set_autocast_dtype(type, dtype);
    at::autocast::set_autocast_enabled(type, true);
#else
    if (type == torch::kCUDA) {
      m_wasOn = at::autocast::is_enabled();
      m_wasType = at::autocast::get_autocast_gpu_dtype();
      at::autocast::set_autocast_gpu_dtype(dtype);
      at::autocast::set_enabled(true);
    } else {
      m_wasOn = at::autocast::is_cpu_enabled();
      m_wasType = at::autocast::get_autocast_cpu_dtype();
      at::autocast::set_autocast_cpu_dtype(dtype);
      at::autocast::set_cpu_enabled(true);
    }
#endif
  }
  ~AutocastScope() {
    if (!m_on) return;
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)
    at::autocast::set_autocast_enabled(m_type, m_wasOn);
    at::autocast::set_autocast_dtype(m_type, m_wasType);
#else
    if (m_type == torch::kCUDA) {
      at::autocast::set_enabled(m_wasOn);
      at::autocast::set_autocast_gpu_dtype(m_wasType);
    } else {
      at::autocast::set_cpu_enabled(m_wasOn);
      at::autocast::set_autocast_cpu_dtype(m_wasType);
    }
#endif
    at::autocast::clear_cache();
  }
  AutocastScope(const AutocastScope&) = delete;
  AutocastScope& operator=(const AutocastScope&) = delete;

 private:
  torch::DeviceType m_type;
  bool m_on;
  bool m_wasOn = false;
  torch::ScalarType m_wasType = torch::kFloat16;
};

// A tensor's values on the host as float32 (from any device and type).
inline std::vector<float> hostFloats(const torch::Tensor& t) {
  const torch::Tensor h = t.to(torch::kCPU, torch::kFloat32).contiguous();
  return std::vector<float>(h.data_ptr<float>(), h.data_ptr<float>() + h.numel());
}

// Holds asynchronous signals off this thread while LibTorch computes on it. A handled signal (SIGTERM for a Stop, a
// Ctrl-C, a child's SIGCHLD) delivered in the middle of LibTorch's CPU kernels corrupts the heap: measured with
// delineate-train, a handler that does nothing and a signal every 2 ms crashed every run within ~200 signals, and
// none with oneDNN switched off. A signal sent meanwhile goes to another thread of the process, or waits here until
// the pass ends. The threads LibTorch starts during the pass inherit the mask. Faults (SIGSEGV ...) are never held.
class SignalHold {
 public:
  SignalHold() {
    sigset_t held;
    sigfillset(&held);
    for (const int fault : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP, SIGSYS}) sigdelset(&held, fault);
    m_held = pthread_sigmask(SIG_BLOCK, &held, &m_previous) == 0;
  }
  ~SignalHold() {
    if (m_held) pthread_sigmask(SIG_SETMASK, &m_previous, nullptr);
  }
  SignalHold(const SignalHold&) = delete;
  SignalHold& operator=(const SignalHold&) = delete;

 private:
  sigset_t m_previous{};
  bool m_held = false;
};

// Runs `body` (a forward pass) with signals held off (SignalHold) and turns LibTorch's exceptions into errors:
// OutOfMemory for the device's or the host's memory (so that callers can retry smaller or elsewhere), InvalidArgument
// otherwise.
template <class Body>
auto guarded(const std::string& what, Body&& body) -> decltype(body()) {
  const SignalHold hold;
  try {
    return body();
  } catch (const c10::OutOfMemoryError&) {
    return core::makeError(core::ErrorCode::OutOfMemory, kDeviceMemorySubject, "out of device memory " + what);
  } catch (const std::bad_alloc&) {
    return core::makeError(core::ErrorCode::OutOfMemory, "vista3d", "out of memory " + what);
  } catch (const c10::Error& e) {
    const std::string message = e.what_without_backtrace();
    if (message.find("CUDA out of memory") != std::string::npos)
      return core::makeError(core::ErrorCode::OutOfMemory, kDeviceMemorySubject, "out of device memory " + what);
    if (message.find("out of memory") != std::string::npos || message.find("can't allocate memory") != std::string::npos)
      return core::makeError(core::ErrorCode::OutOfMemory, "vista3d", "out of memory " + what + " (" + message + ")");
    return core::makeError(core::ErrorCode::InvalidArgument, "vista3d", "LibTorch, " + what + ": " + message);
  }
}


// Whether bf16 autocast on this CPU sums in fp32, as oneDNN's bf16 kernels do on CPUs with AVX-512. Without them
// (an AVX2-only CPU), LibTorch 1.13 falls back to kernels that round every partial sum to bf16's 8 bits: measured on
// an AVX2 EPYC, a 2048-term matrix product was 12% off and 6% of the parity case's VISTA-3D logits changed sign
// (with fp32 sums: 2%). Probed once by behaviour, not CPU flags: a 1728-term convolution of ones and a 1024-term
// product of ones, which bf16 sums leave stuck at 256.
inline bool cpuBf16SumsInFp32() {
  static const bool exact = [] {
    try {
      torch::NoGradGuard noGrad;
      AutocastScope autocast(torch::kCPU, Precision::BFloat16);
      const auto conv = torch::conv3d(torch::ones({1, 64, 3, 3, 3}), torch::ones({1, 64, 3, 3, 3}));
      const auto product = torch::matmul(torch::ones({1, 1024}), torch::ones({1024, 1}));
      return conv.to(torch::kFloat32).item<float>() == 1728.0f && product.to(torch::kFloat32).item<float>() == 1024.0f;
    } catch (const c10::Error&) {
      return false;
    }
  }();
  return exact;
}

// `device` ("cpu", "cuda", "cuda:N") checked for a pass at `precision`: an unknown device, no CUDA (or no such CUDA
// device), another device type, fp16 on the CPU, bf16 on a CPU whose kernels sum in bf16 are errors naming it.
inline core::Result<torch::Device> parseDevice(const std::string& device, Precision precision) {
  torch::Device target(torch::kCPU);
  try {
    target = torch::Device(device);
  } catch (const c10::Error&) {
    return core::makeError(core::ErrorCode::InvalidArgument, device, "not a device (cpu, cuda or cuda:N)");
  }
  if (target.is_cuda()) {
    if (!cudaAvailable())
      return core::makeError(core::ErrorCode::Unsupported, device, "LibTorch sees no CUDA device in this build or machine");
    if (target.has_index() && target.index() >= static_cast<int>(torch::cuda::device_count()))
      return core::makeError(core::ErrorCode::InvalidArgument, device, "no such CUDA device");
  } else if (!target.is_cpu()) {
    return core::makeError(core::ErrorCode::Unsupported, device, "only cpu and cuda devices are supported");
  } else if (precision == Precision::Float16) {
    return core::makeError(core::ErrorCode::Unsupported, device,
                           cpuBf16SumsInFp32() ? "fp16 autocast needs CUDA (use bf16 on the CPU)"
                                               : "fp16 autocast needs CUDA (use fp32 on this CPU)");
  } else if (precision == Precision::BFloat16 && !cpuBf16SumsInFp32()) {
    return core::makeError(core::ErrorCode::Unsupported, device,
                           "bf16 on this CPU: LibTorch's kernels here round every sum to bf16 (no AVX-512), which "
                           "changes the results; use fp32");
  }
  return target;
}

// The three parts of a VISTA-3D network from a checkpoint that passed the key check (older key names load under
// today's), through one open of the file.
inline core::Status loadVista3dWeights(const Checkpoint& checkpoint, ImageEncoderImpl& encoder, ClassHeadImpl& head,
                                       PointHeadImpl& pointHead) {
  Checkpoint named = checkpoint;
  for (auto& t : named.tensors) t.name = canonicalKey(t.name);
  auto opened = core::openInputFile(checkpoint.path);  // one open for all 259 tensors
  if (!opened) return opened.error();
  std::istream& file = **opened;
  if (core::Status s = loadWeights(encoder, file, named, "image_encoder."); !s) return s;
  if (core::Status s = loadWeights(head, file, named, "class_head."); !s) return s;
  return loadWeights(pointHead, file, named, "point_head.");
}

}  // namespace delineate::inference::vista3d::net
