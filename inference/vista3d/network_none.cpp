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

}  // namespace delineate::inference::vista3d
