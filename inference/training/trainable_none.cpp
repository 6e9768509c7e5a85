// Training in a build without LibTorch: every entry point says so.
#include "inference/training/trainable.h"

namespace delineate::inference::training {

namespace {
core::Error noTorch() {
  return core::makeError(core::ErrorCode::Unsupported, "training", "this build has no LibTorch (install libtorch-dev)");
}
}  // namespace

struct TrainableModel::Impl {
  SegResNetDSConfig config;
};

int SegResNetDSConfig::sizeFactor() const { return 1 << (blocksDown.empty() ? 0 : blocksDown.size() - 1); }
bool trainingAvailable() { return false; }
bool dataParallelTrainingAvailable() { return false; }
core::Status TrainableModel::joinDataParallel(const DataParallelSettings&) { return noTorch(); }
bool TrainableModel::dataParallel() const { return false; }
void TrainableModel::proposeForNextStep(bool, int) {}
void seedTorch(std::uint64_t) {}
TrainableModel::TrainableModel(std::unique_ptr<Impl> impl) : m_impl(std::move(impl)) {}
TrainableModel::~TrainableModel() = default;
core::Result<std::unique_ptr<TrainableModel>> TrainableModel::vista3d(const vista3d::Checkpoint&) { return noTorch(); }
core::Result<std::unique_ptr<TrainableModel>> TrainableModel::segResNetDS(const SegResNetDSConfig&, const vista3d::Checkpoint*,
                                                                          std::uint64_t) {
  return noTorch();
}
ModelKind TrainableModel::kind() const { return ModelKind::SegResNetDS; }
const SegResNetDSConfig& TrainableModel::segResNetDSConfig() const { return m_impl->config; }
core::Status TrainableModel::setDevice(const std::string&, vista3d::Precision) { return noTorch(); }
std::string TrainableModel::device() const { return "cpu"; }
void TrainableModel::setOptimizer(const OptimizerSettings&) {}
void TrainableModel::setLearningRate(double) {}
void TrainableModel::setLoss(const LossSettings&) {}
core::Status TrainableModel::freeze(const std::vector<std::string>&) { return noTorch(); }
core::Result<TrainableModel::StepResult> TrainableModel::stepVista(const std::vector<float>&, const std::int64_t[3],
                                                                   const std::vector<std::uint16_t>&, const VistaPrompts&, bool) {
  return noTorch();
}
core::Result<TrainableModel::StepResult> TrainableModel::stepSegResNetDS(const std::vector<float>&, int, const std::int64_t[3],
                                                                         const std::vector<std::uint16_t>&, bool) {
  return noTorch();
}
core::Result<std::vector<float>> TrainableModel::evalLogits(const std::vector<float>&, const std::int64_t[3],
                                                            const std::vector<std::int64_t>&) {
  return noTorch();
}
std::vector<NamedTensor> TrainableModel::stateDict() const { return {}; }
std::vector<NamedTensor> TrainableModel::parameters() const { return {}; }
std::vector<NamedTensor> TrainableModel::gradients() const { return {}; }
std::vector<NamedTensor> TrainableModel::optimizerState() const { return {}; }
core::Status TrainableModel::loadOptimizerState(const std::vector<NamedTensor>&) { return noTorch(); }
core::Status TrainableModel::loadStateDict(const std::vector<NamedTensor>&) { return noTorch(); }
std::int64_t TrainableModel::parameterCount() const { return 0; }

}  // namespace delineate::inference::training
