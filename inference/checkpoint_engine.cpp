#include "inference/checkpoint_engine.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>

#include "inference/interactive.h"
#include "inference/training/trainer.h"
#include "inference/vista3d/checkpoint_reader.h"
#include "inference/vista3d/network.h"

namespace delineate::inference {

using core::ErrorCode;
using core::makeError;

namespace {

class AtlasEngine final : public SegmentationEngine {
 public:
  AtlasEngine(std::unique_ptr<training::TrainableModel> model, CheckpointModel info, std::string name)
      : m_model(std::move(model)), m_info(std::move(info)), m_name(std::move(name)) {}

  EngineInfo info() const override {
    EngineInfo i;
    i.id = "atlas";
    i.modality = "any";
    i.device = m_model->device();
    i.supportsPoints = false;
    i.guidesPrompts = true;
    i.classes = m_info.labelTable();
    return i;
  }

  core::Result<core::LabelPatch> segment(core::ImageView image, const SegmentationRequest& request,
                                         core::ProgressSink* progress) override {
    if (!request.points.empty())
      return makeError(ErrorCode::Unsupported, m_name, "an atlas network segments automatically; it takes no clicks");
    // Network class -> the label written (0 for classes not asked for).
    std::vector<core::Label> lut(static_cast<std::size_t>(m_info.network.outChannels), 0);
    for (const auto& c : m_info.classes)
      if (request.classes.empty() || std::find(request.classes.begin(), request.classes.end(), c.id) != request.classes.end())
        lut[static_cast<std::size_t>(c.networkClass)] = c.id;
    for (const auto id : request.classes)
      if (std::none_of(m_info.classes.begin(), m_info.classes.end(), [&](const CheckpointModel::Class& c) { return c.id == id; }))
        return makeError(ErrorCode::InvalidArgument, m_name, "label " + std::to_string(id) + " is not a class of this model");
    core::Geometry grid;
    std::array<std::int64_t, 3> preparedSize{};
    // The same run gives the probabilities prompts are guided by (classProbability), where they fit the cache's
    // budget: a session on this study then needs no second network run.
    std::vector<std::uint8_t> all;
    const bool keep = estimatedProbabilityBytes(image) <= kProbabilityCacheBytes;
    if (keep) dropProbabilities();  // the previous study's go first, so two sets are never held at once
    auto labels = run(image, progress, &grid, &preparedSize, nullptr, keep ? &all : nullptr);
    if (!labels) return labels.error();
    if (keep) storeProbabilities(image, std::move(all), grid, preparedSize, fingerprint(image));
    if (progress) progress->report(0.95, "resample");
    // Back onto the image's own grid, nearest: each voxel takes the label of the prepared voxel it falls in.
    const auto dims = image.geometry().dimensions();
    core::LabelPatch patch;
    patch.box = request.region.empty() ? core::IndexBox{{0, 0, 0}, {dims[0] - 1, dims[1] - 1, dims[2] - 1}} : request.region;
    for (std::size_t a = 0; a < 3; ++a) {
      patch.box.min[a] = std::max<std::int64_t>(patch.box.min[a], 0);
      patch.box.max[a] = std::min<std::int64_t>(patch.box.max[a], dims[a] - 1);
    }
    if (patch.box.empty()) return makeError(ErrorCode::InvalidArgument, m_name, "the region lies outside the image");
    patch.voxels.assign(static_cast<std::size_t>(patch.box.voxelCount()), 0);
    const auto& n = preparedSize;
    std::size_t out = 0;
    for (std::int64_t k = patch.box.min[2]; k <= patch.box.max[2]; ++k)
      for (std::int64_t j = patch.box.min[1]; j <= patch.box.max[1]; ++j)
        for (std::int64_t i = patch.box.min[0]; i <= patch.box.max[0]; ++i, ++out) {
          const core::Vec3 p = grid.lpsToIndex(image.geometry().indexToLps(core::Index3{i, j, k}));
          const std::int64_t x = std::llround(p[0]), y = std::llround(p[1]), z = std::llround(p[2]);
          if (x < 0 || y < 0 || z < 0 || x >= n[0] || y >= n[1] || z >= n[2]) continue;
          patch.voxels[out] = lut[(*labels)[static_cast<std::size_t>((x * n[1] + y) * n[2] + z)]];
        }
    if (progress) progress->report(1.0, "done");
    return patch;
  }

  core::Result<core::Volume<std::uint8_t>> classProbability(core::ImageView image, core::Label label,
                                                            core::ProgressSink* progress) override {
    auto cls = std::find_if(m_info.classes.begin(), m_info.classes.end(), [&](const CheckpointModel::Class& c) { return c.id == label; });
    if (cls == m_info.classes.end())
      return makeError(ErrorCode::InvalidArgument, m_name, "label " + std::to_string(label) + " is not a class of this model");
    // Every class's probabilities are kept for the last image (a session per class follows another on one study);
    // a second network run costs seconds, the cache channels x voxels bytes.
    const std::uint64_t print = fingerprint(image);
    const bool cached = m_probabilityImage == image.data() && !m_probabilities.empty() &&
                        m_probabilityDims == image.geometry().dimensions() && m_probabilityPrint == print;
    if (!cached) {
      dropProbabilities();
      std::vector<std::uint8_t> all;
      core::Geometry grid;
      std::array<std::int64_t, 3> size{};
      auto labels = run(image, progress, &grid, &size, nullptr, &all);
      if (!labels) return labels.error();
      storeProbabilities(image, std::move(all), grid, size, print);
    }
    auto out = core::Volume<std::uint8_t>::create(image.geometry(), 0);
    if (!out) return out.error();
    const auto& n = m_probabilitySize;
    const auto voxels = static_cast<std::size_t>(n[0] * n[1] * n[2]);
    const std::uint8_t* channel = m_probabilities.data() + static_cast<std::size_t>(cls->networkClass) * voxels;
    const auto dims = image.geometry().dimensions();
    std::size_t o = 0;
    for (std::int64_t k = 0; k < dims[2]; ++k)
      for (std::int64_t j = 0; j < dims[1]; ++j)
        for (std::int64_t i = 0; i < dims[0]; ++i, ++o) {
          const core::Vec3 p = m_probabilityGrid.lpsToIndex(image.geometry().indexToLps(core::Index3{i, j, k}));
          const std::int64_t x = std::llround(p[0]), y = std::llround(p[1]), z = std::llround(p[2]);
          if (x < 0 || y < 0 || z < 0 || x >= n[0] || y >= n[1] || z >= n[2]) continue;
          out->data()[o] = channel[static_cast<std::size_t>((x * n[1] + y) * n[2] + z)];
        }
    if (progress) progress->report(1.0, "done");
    return out;
  }

  core::Result<training::UncertaintyStats> uncertainty(core::ImageView image, core::ProgressSink* progress) {
    training::UncertaintyStats stats;
    core::Geometry grid;
    std::array<std::int64_t, 3> size{};
    auto labels = run(image, progress, &grid, &size, &stats);
    if (!labels) return labels.error();
    if (progress) progress->report(1.0, "done");
    return stats;
  }

 private:
  // The network's labels on the image prepared as in training (`grid`, `size`: that grid).
  core::Result<std::vector<std::uint16_t>> run(core::ImageView image, core::ProgressSink* progress, core::Geometry* grid,
                                               std::array<std::int64_t, 3>* size, training::UncertaintyStats* stats,
                                               std::vector<std::uint8_t>* probabilities = nullptr) {
    if (progress) progress->report(0.0, "prepare");
    auto prepared = training::prepareImage("image", image, m_info.prepare, grid);  // read in the image's own type
    if (!prepared) return prepared.error();
    *size = prepared->size;
    std::array<std::int64_t, 3> window = m_info.window;
    const std::int64_t factor = m_info.network.sizeFactor();
    for (std::size_t a = 0; a < 3; ++a) {  // as validation rounds it: a window the network takes
      if (window[a] <= 0) window[a] = std::min<std::int64_t>(128, prepared->size[a]);
      window[a] = (window[a] + factor - 1) / factor * factor;
    }
    return training::segmentPrepared(
        *m_model, prepared->image, prepared->size, window, m_info.overlap, {},
        [&](double f) {
          if (progress) progress->report(0.05 + 0.9 * f, "infer");
          return !(progress && progress->cancelled());
        },
        stats, probabilities);
  }

  // segment() keeps the probabilities of its run up to this size (a mouse study, 38 classes: about 44 MB); larger
  // ones are computed when a prompt first asks (classProbability).
  static constexpr double kProbabilityCacheBytes = 512.0 * 1024 * 1024;

  // Channels x voxels of the image prepared at the model's spacing.
  double estimatedProbabilityBytes(core::ImageView image) const {
    double voxels = 1;
    const auto dims = image.geometry().dimensions();
    const auto sp = image.geometry().spacingMm();
    for (std::size_t a = 0; a < 3; ++a) {
      const double target = m_info.prepare.spacingMm[a] > 0 ? m_info.prepare.spacingMm[a] : sp[a];
      voxels *= std::ceil(static_cast<double>(dims[a]) * sp[a] / target) + 1;
    }
    return voxels * static_cast<double>(m_info.network.outChannels);
  }

  void storeProbabilities(core::ImageView image, std::vector<std::uint8_t> all, const core::Geometry& grid,
                          const std::array<std::int64_t, 3>& size, std::uint64_t print) {
    m_probabilities = std::move(all);
    m_probabilityGrid = grid;
    m_probabilitySize = size;
    m_probabilityImage = image.data();
    m_probabilityDims = image.geometry().dimensions();
    m_probabilityPrint = print;
  }

  // Frees the cache (clear() alone would keep its memory while the next run fills another).
  void dropProbabilities() {
    std::vector<std::uint8_t>().swap(m_probabilities);
    m_probabilityImage = nullptr;
  }

  std::unique_ptr<training::TrainableModel> m_model;
  CheckpointModel m_info;
  std::string m_name;
  // classProbability's cache: every channel's softmax on the prepared grid of the image at m_probabilityImage.
  std::vector<std::uint8_t> m_probabilities;
  core::Geometry m_probabilityGrid;
  std::array<std::int64_t, 3> m_probabilitySize{};
  const void* m_probabilityImage = nullptr;
  core::Size3 m_probabilityDims{0, 0, 0};
  std::uint64_t m_probabilityPrint = 0;

  // 4096 voxels spread over the image and its geometry, hashed: another image at the same address is not the cached one.
  static std::uint64_t fingerprint(core::ImageView image) {
    std::uint64_t h = 1469598103934665603ull;
    auto mixIn = [&h](double v) {
      std::uint64_t bits = 0;
      std::memcpy(&bits, &v, sizeof bits);
      h = (h ^ bits) * 1099511628211ull;
    };
    const std::size_t n = image.size();
    for (std::size_t k = 0; n > 0 && k < 4096; ++k) mixIn(image.value(k * (n - 1) / 4095));
    for (double v : image.geometry().originLps()) mixIn(v);
    for (double v : image.geometry().spacingMm()) mixIn(v);
    return h;
  }
};

class TrainedLabelsEngine final : public SegmentationEngine {
 public:
  TrainedLabelsEngine(std::unique_ptr<SegmentationEngine> base, CheckpointModel model)
      : m_base(std::move(base)), m_model(std::move(model)) {}

  EngineInfo info() const override {
    EngineInfo i = m_base->info();
    i.classes = m_model.labelTable();
    return i;
  }

  core::Result<core::LabelPatch> segment(core::ImageView image, const SegmentationRequest& request,
                                         core::ProgressSink* progress) override {
    SegmentationRequest mapped = request;
    mapped.classes.clear();
    mapped.expandClassGroups = false;  // 2, 20 and 21 are classes of their own once trained as such
    std::map<core::Label, core::Label> toUser;
    for (const auto& c : m_model.classes) toUser[static_cast<core::Label>(c.networkClass)] = c.id;
    auto vistaId = [&](core::Label id) -> core::Result<core::Label> {
      for (const auto& c : m_model.classes)
        if (c.id == id) return static_cast<core::Label>(c.networkClass);
      return makeError(ErrorCode::InvalidArgument, m_model.sidecarPath, "label " + std::to_string(id) + " is not a class of this model");
    };
    if (request.classes.empty() && request.points.empty()) {
      for (const auto& c : m_model.classes) mapped.classes.push_back(static_cast<core::Label>(c.networkClass));
    } else {
      for (const auto id : request.classes) {
        auto v = vistaId(id);
        if (!v) return v.error();
        mapped.classes.push_back(*v);
      }
    }
    if (!request.points.empty()) {  // the object is written as the label asked for, else its class (the user's id)
      if (mapped.targetLabel == 0 && !request.classes.empty()) mapped.targetLabel = request.classes.front();
      return m_base->segment(image, mapped, progress);
    }
    auto patch = m_base->segment(image, mapped, progress);
    if (!patch) return patch.error();
    for (auto& v : patch->voxels) {
      if (!v) continue;
      const auto it = toUser.find(v);
      v = it == toUser.end() ? 0 : it->second;
    }
    return patch;
  }

  core::Result<std::unique_ptr<InteractiveSession>> beginSession(core::ImageView image) override {
    return m_base->beginSession(image);
  }

 private:
  std::unique_ptr<SegmentationEngine> m_base;
  CheckpointModel m_model;
};

}  // namespace

core::Result<std::unique_ptr<SegmentationEngine>> createAtlasEngine(const std::string& checkpointPath, const CheckpointModel& model,
                                                                    const Vista3dEngineOptions& options) {
  if (model.kind != CheckpointModel::Kind::SegResNetDS)
    return makeError(ErrorCode::InvalidArgument, checkpointPath, "not an atlas network (SegResNetDS) checkpoint");
  if (!training::trainingAvailable())
    return makeError(ErrorCode::Unsupported, checkpointPath, "this build has no LibTorch to run the atlas network");
  auto checkpoint = vista3d::readCheckpoint(checkpointPath);
  if (!checkpoint) return checkpoint.error();
  auto network = training::TrainableModel::segResNetDS(model.network, &*checkpoint, 0);
  if (!network) return makeError(network.error().code, checkpointPath, network.error().detail);
  vista3d::Vista3dModel::setCpuThreads(options.cpuThreads);
  const std::string device = options.device == "auto" ? (vista3d::cudaAvailable() ? "cuda" : "cpu") : options.device;
  const auto precision = vista3d::parsePrecision(options.precision);  // auto: fp32 (a small network)
  if (!precision) return precision.error();
  if (core::Status s = (*network)->setDevice(device, *precision); !s) return s.error();
  return std::unique_ptr<SegmentationEngine>(
      new AtlasEngine(std::move(*network), model, std::filesystem::path(checkpointPath).filename().string()));
}

std::unique_ptr<SegmentationEngine> withTrainedLabels(std::unique_ptr<SegmentationEngine> engine, const CheckpointModel& model) {
  return std::unique_ptr<SegmentationEngine>(new TrainedLabelsEngine(std::move(engine), model));
}

core::Result<training::UncertaintyStats> measureUncertainty(SegmentationEngine& engine, core::ImageView image,
                                                            core::ProgressSink* progress) {
  auto* atlas = dynamic_cast<AtlasEngine*>(&engine);
  if (!atlas)
    return makeError(ErrorCode::Unsupported, engine.info().id,
                     "ranking by uncertainty takes an atlas network (SegResNetDS); this engine gives no probabilities");
  return atlas->uncertainty(image, progress);
}

}  // namespace delineate::inference
