#pragma once
// The VISTA-3D network (SPEC.md 2) in LibTorch, behind a torch-free interface: the image encoder (SegResNetDS2 with
// the point branch `up_layers` and the automatic branch `up_layers_auto`), the class head (ClassMappingClassify) and
// the point head (PointMappingSAM), on a chosen device and precision. Weights come from a checkpoint by name after
// the strict key check. Arrays are in torch's order ([C, H, W, D], the last axis fastest).

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/error.h"
#include "inference/vista3d/checkpoint_reader.h"
#include "inference/vista3d/sliding_window.h"

namespace delineate::inference::vista3d {

struct EncoderOutputs {
  std::int64_t channels = 0;
  std::int64_t size[3] = {0, 0, 0};  // H, W, D
  std::vector<float> pointBranch;    // [channels, H, W, D]
  std::vector<float> autoBranch;
};

// Whether this build has LibTorch (the encoder needs it; the checkpoint, pre- and postprocessing do not).
bool torchAvailable();
// The subject of an OutOfMemory error that the GPU's memory ran out (host memory running out has subject "vista3d"):
// only the former is worth a retry on the CPU.
constexpr const char* kDeviceMemorySubject = "vista3d device";

// Whether LibTorch sees a CUDA device (false without LibTorch or in a CPU-only LibTorch such as Debian's).
bool cudaAvailable();
// Threads LibTorch uses on the CPU (1 without LibTorch).
int cpuThreads();
// Whether CPU passes take the two shortcuts around LibTorch's slow convolution kernels (modules_torch.h: batch-1
// convolutions on small inputs, stride-2 transposed convolutions): on by default; off, every convolution runs
// LibTorch's own choice (for parity checks against MONAI, which runs those).
void setCpuConvolutionShortcuts(bool on);
bool cpuConvolutionShortcuts();
// Whether bf16 autocast on this CPU keeps its sums in fp32 (oneDNN's kernels, CPUs with AVX-512). Where it does not,
// bf16 on the CPU is refused (setDevice's error says so). False without LibTorch.
bool cpuBf16Accurate();

// The arithmetic of a forward pass: fp32, or autocast (the bundle's amp) to fp16 / bf16 for convolutions and matrix
// products with reductions kept in fp32.
enum class Precision { Float32, Float16, BFloat16 };
const char* precisionName(Precision p);
// "fp32", "fp16", "bf16", or "auto" (`autoChoice`); an unknown name is an error naming it.
inline core::Result<Precision> parsePrecision(const std::string& name, Precision autoChoice = Precision::Float32) {
  if (name == "auto") return autoChoice;
  if (name == "fp32") return Precision::Float32;
  if (name == "fp16") return Precision::Float16;
  if (name == "bf16") return Precision::BFloat16;
  return core::makeError(core::ErrorCode::InvalidArgument, name, "not a precision (auto, fp32, fp16, bf16)");
}

// Runs the encoder of a checkpoint of width `widthOf(checkpoint)` on one [H, W, D] volume (each a multiple of 16),
// on the CPU in fp32. Errors: a checkpoint that fails the key check, a bad size, no LibTorch in this build.
core::Result<EncoderOutputs> runImageEncoder(const Checkpoint& checkpoint, const std::vector<float>& volume,
                                             const std::int64_t size[3]);

// A loaded network (weights copied once) for running many windows.
class Vista3dModel {
 public:
  // Errors: a checkpoint that fails the key check, no LibTorch in this build.
  static core::Result<std::unique_ptr<Vista3dModel>> load(const Checkpoint& checkpoint);
  // The architecture of `width` with LibTorch's default random initialisation (seeded), for benchmarks.
  static core::Result<std::unique_ptr<Vista3dModel>> random(int width, std::uint64_t seed);
  // Threads LibTorch uses on the CPU (0: one per hardware thread).
  static void setCpuThreads(int threads);
  ~Vista3dModel();
  Vista3dModel(const Vista3dModel&) = delete;
  Vista3dModel& operator=(const Vista3dModel&) = delete;

  int width() const;
  // Moves the weights to `device` ("cpu", "cuda", "cuda:N") and runs every later pass there at `precision` (cuDNN
  // autotuning on for CUDA). Errors: an unknown device, no CUDA, out of device memory (the model stays where it was).
  core::Status setDevice(const std::string& device, Precision precision);
  std::string device() const;
  Precision precision() const;
  // Both decoder branches of the encoder for one [H, W, D] window.
  core::Result<EncoderOutputs> encoderOutputs(const std::vector<float>& window, const std::int64_t size[3]);
  // Class logits [classes, H, W, D] of one [H, W, D] window (each a multiple of 16).
  core::Result<std::vector<float>> classLogits(const std::vector<float>& window, const std::int64_t size[3],
                                               const std::vector<std::int64_t>& classes);
  // The same for `count` windows in one pass: [count, classes, H, W, D]. Out of memory (host or device) is
  // ErrorCode::OutOfMemory, so a caller can retry with fewer.
  core::Result<std::vector<float>> classLogitsBatch(const std::vector<float>& windows, int count, const std::int64_t size[3],
                                                    const std::vector<std::int64_t>& classes);
  // Window sums for slidingWindowWinners on this network's device (float32; float16 under reduced precision), its
  // windows run through the class head for `classes` (the model must outlive it).
  std::unique_ptr<SlabAccumulator> slabAccumulator(const std::vector<std::int64_t>& classes);

  // Point-head logits [H, W, D] of one object in one window: its points (voxel indices of the window, labels -1
  // pad, 0 / 1 negative / positive, 2 / 3 the same for a "special" class) and its prompt class (the zero-shot token
  // above 132, else the supported one; 0 for none).
  struct WindowPoint {
    std::array<double, 3> ijk{0, 0, 0};
    int label = 1;
  };
  core::Result<std::vector<float>> pointLogits(const std::vector<float>& window, const std::int64_t size[3],
                                               const std::vector<WindowPoint>& points, std::int64_t promptClass = 0);

  // Both heads on one window with one encoder pass (the class prompt's auto logits and the point logits), for the
  // connected-components combination of a click with a class.
  struct BothLogits {
    std::vector<float> classLogits, pointLogits;  // [H, W, D] each
  };
  core::Result<BothLogits> bothLogits(const std::vector<float>& window, const std::int64_t size[3],
                                      const std::vector<WindowPoint>& points, std::int64_t classId);

  struct Impl;

 private:
  explicit Vista3dModel(std::unique_ptr<Impl> impl);
  core::Result<BothLogits> runHeads(const std::vector<float>& window, const std::int64_t size[3],
                                    const std::vector<WindowPoint>& points, std::int64_t promptClass, bool withClass);
  std::unique_ptr<Impl> m_impl;
};

// The automatic branch for one window: encoder, automatic decoder and class head; one logit map per class
// ([classes, H, W, D]; logit > 0 is foreground). Classes are rows of the 512-entry class embedding.
core::Result<std::vector<float>> runClassLogits(const Checkpoint& checkpoint, const std::vector<float>& volume,
                                                const std::int64_t size[3], const std::vector<std::int64_t>& classes);

}  // namespace delineate::inference::vista3d
