// Builds without LibTorch (no libtorch-dev found at configure time): the encoder reports that it is not here.
#include "inference/vista3d/network.h"

namespace delineate::inference::vista3d {

bool torchAvailable() { return false; }
bool cudaAvailable() { return false; }
int cpuThreads() { return 1; }
void setCpuConvolutionShortcuts(bool) {}
bool cpuConvolutionShortcuts() { return false; }
bool cpuBf16Accurate() { return false; }
const char* precisionName(Precision p) { return p == Precision::Float16 ? "fp16" : p == Precision::BFloat16 ? "bf16" : "fp32"; }

core::Result<EncoderOutputs> runImageEncoder(const Checkpoint& checkpoint, const std::vector<float>&, const std::int64_t[3]) {
  return core::makeError(core::ErrorCode::Unsupported, checkpoint.path, "this build has no LibTorch (install libtorch-dev)");
}

core::Result<std::vector<float>> runClassLogits(const Checkpoint& checkpoint, const std::vector<float>&,
                                                const std::int64_t[3], const std::vector<std::int64_t>&) {
  return core::makeError(core::ErrorCode::Unsupported, checkpoint.path, "this build has no LibTorch (install libtorch-dev)");
}

struct Vista3dModel::Impl {};
Vista3dModel::Vista3dModel(std::unique_ptr<Impl> impl) : m_impl(std::move(impl)) {}
Vista3dModel::~Vista3dModel() = default;
int Vista3dModel::width() const { return 0; }
core::Result<std::unique_ptr<Vista3dModel>> Vista3dModel::load(const Checkpoint& checkpoint) {
  return core::makeError(core::ErrorCode::Unsupported, checkpoint.path, "this build has no LibTorch (install libtorch-dev)");
}
core::Result<std::unique_ptr<Vista3dModel>> Vista3dModel::random(int, std::uint64_t) {
  return core::makeError(core::ErrorCode::Unsupported, "vista3d", "this build has no LibTorch (install libtorch-dev)");
}
void Vista3dModel::setCpuThreads(int) {}
core::Status Vista3dModel::setDevice(const std::string& device, Precision) {
  return core::makeError(core::ErrorCode::Unsupported, device, "this build has no LibTorch (install libtorch-dev)");
}
std::string Vista3dModel::device() const { return "none"; }
Precision Vista3dModel::precision() const { return Precision::Float32; }
core::Result<std::vector<float>> Vista3dModel::classLogitsBatch(const std::vector<float>&, int, const std::int64_t[3],
                                                                const std::vector<std::int64_t>&) {
  return core::makeError(core::ErrorCode::Unsupported, "vista3d", "this build has no LibTorch (install libtorch-dev)");
}
std::unique_ptr<SlabAccumulator> Vista3dModel::slabAccumulator(const std::vector<std::int64_t>&) {
  return std::make_unique<CpuSlabAccumulator>([](const std::vector<float>&, int, std::int64_t) -> core::Result<std::vector<float>> {
    return core::makeError(core::ErrorCode::Unsupported, "vista3d", "this build has no LibTorch (install libtorch-dev)");
  });
}
core::Result<EncoderOutputs> Vista3dModel::encoderOutputs(const std::vector<float>&, const std::int64_t[3]) {
  return core::makeError(core::ErrorCode::Unsupported, "vista3d", "this build has no LibTorch (install libtorch-dev)");
}
core::Result<std::vector<float>> Vista3dModel::classLogits(const std::vector<float>&, const std::int64_t[3],
                                                           const std::vector<std::int64_t>&) {
  return core::makeError(core::ErrorCode::Unsupported, "vista3d", "this build has no LibTorch (install libtorch-dev)");
}

core::Result<std::vector<float>> Vista3dModel::pointLogits(const std::vector<float>&, const std::int64_t[3],
                                                           const std::vector<WindowPoint>&, std::int64_t) {
  return core::makeError(core::ErrorCode::Unsupported, "vista3d", "this build has no LibTorch (install libtorch-dev)");
}

core::Result<Vista3dModel::BothLogits> Vista3dModel::bothLogits(const std::vector<float>&, const std::int64_t[3],
                                                                const std::vector<WindowPoint>&, std::int64_t) {
  return core::makeError(core::ErrorCode::Unsupported, "vista3d", "this build has no LibTorch (install libtorch-dev)");
}

}  // namespace delineate::inference::vista3d
