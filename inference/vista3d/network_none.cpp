// Builds without LibTorch (no libtorch-dev found at configure time): the encoder reports that it is not here.
#include "inference/vista3d/network.h"

namespace delineate::inference::vista3d {

bool torchAvailable() { return false; }

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
