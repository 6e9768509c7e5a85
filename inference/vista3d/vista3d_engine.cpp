// The VISTA-3D engine behind inference/engine.h (compiled into delineate_inference_torch): automatic segmentation,
// click prompts and click sessions, the device choice and the engine selection.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>

#include "inference/checkpoint_engine.h"
#include "inference/engine.h"
#include "inference/interactive.h"
#include "inference/vista3d/checkpoint_reader.h"
#include "inference/vista3d/network.h"
#include "inference/vista3d/preprocess.h"
#include "inference/vista3d/segment.h"
#include "inference/vista3d/sliding_window.h"

namespace delineate::inference {
namespace {

using vista3d::Precision;

// The model and where it runs, shared by the engine and its sessions. A run out of GPU memory at one window moves
// the model to the CPU (fp32) and runs again there; the caller's data is untouched either way.
struct Vista3dRunner {
  std::unique_ptr<vista3d::Vista3dModel> model;
  Vista3dEngineOptions options;
  int batch = 1;

  template <class Run>
  auto withFallback(core::ProgressSink* progress, Run&& run) -> decltype(run()) {
    auto r = run();
    // Only the GPU's memory running out moves the run (host memory would run out on the CPU all the more).
    if (r.ok() || r.error().code != core::ErrorCode::OutOfMemory || r.error().subject != vista3d::kDeviceMemorySubject ||
        model->device() == "cpu")
      return r;
    if (progress) progress->report(0.0, "out of GPU memory: continuing on the CPU");
    if (core::Status moved = model->setDevice("cpu", Precision::Float32); !moved) return r;
    batch = 1;
    return run();
  }
};

core::Result<std::vector<vista3d::ClickPrompt>> clicksOnGrid(core::ImageView image,
                                                              const std::vector<PointPrompt>& points) {
  const auto dims = image.geometry().dimensions();
  std::vector<vista3d::ClickPrompt> clicks;
  for (const auto& p : points) {
    const core::Vec3 ijk = image.geometry().lpsToIndex(p.pointLps);
    for (std::size_t a = 0; a < 3; ++a)
      if (!(ijk[a] > -0.5 && ijk[a] < static_cast<double>(dims[a]) - 0.5))
        return core::makeError(core::ErrorCode::InvalidArgument, "vista3d", "a click lies outside the image");
    clicks.push_back({ijk, p.positive});
  }
  return clicks;
}

// The object of a click run: label values 1..254 inside (255 = not computed, 0 = outside), as a mask over its
// bounding box.
ObjectMask objectOf(const core::Volume<std::uint8_t>& labels) {
  const auto d = labels.geometry().dimensions();
  core::IndexBox box{{d[0], d[1], d[2]}, {-1, -1, -1}};
  std::size_t i = 0;
  for (std::int64_t z = 0; z < d[2]; ++z)
    for (std::int64_t y = 0; y < d[1]; ++y)
      for (std::int64_t x = 0; x < d[0]; ++x, ++i) {
        const std::uint8_t v = labels[i];
        if (v == 0 || v == 255) continue;
        box.min = {std::min(box.min[0], x), std::min(box.min[1], y), std::min(box.min[2], z)};
        box.max = {std::max(box.max[0], x), std::max(box.max[1], y), std::max(box.max[2], z)};
      }
  ObjectMask mask;
  if (box.max[0] < 0) return mask;
  mask.box = box;
  for (std::int64_t z = box.min[2]; z <= box.max[2]; ++z)
    for (std::int64_t y = box.min[1]; y <= box.max[1]; ++y)
      for (std::int64_t x = box.min[0]; x <= box.max[0]; ++x) {
        const std::uint8_t v = labels.at({x, y, z});
        mask.voxels.push_back(v != 0 && v != 255 ? 1 : 0);
      }
  return mask;
}

class Vista3dSession final : public InteractiveSession {
 public:
  Vista3dSession(std::shared_ptr<Vista3dRunner> runner, core::ImageView image)
      : m_runner(std::move(runner)), m_image(image) {}

  // VISTA-3D's heads take points (and class prompts) only, so other prompts become points: a box its centre (and the
  // object is kept inside the box: a 2D box bounds two axes), a scribble up to kStrokePoints points spread along it, a
  // lasso up to kStrokePoints points over its inside; the voxels of a scribble and a lasso are then set (or cleared)
  // for certain, and a negative box clears its voxels without running the network. Each run takes every point so far
  // and its object replaces the last, as the bundle's point head does (the parity tests hold it to the bundle's
  // objects), so here a point may also move the object elsewhere.
  core::Status addPrompt(const Prompt& prompt, core::ProgressSink* progress) override {
    static constexpr std::size_t kStrokePoints = 8;
    auto raster = rasterizePrompt(prompt, m_image.geometry());
    if (!raster) {
      core::Error e = raster.error();
      e.subject = "vista3d";
      return e;
    }
    std::vector<PointPrompt> added;
    const core::Geometry& g = m_image.geometry();
    switch (prompt.kind) {
      case Prompt::Kind::Point:
        added.push_back({prompt.pointsLps.front(), prompt.positive});
        break;
      case Prompt::Kind::Box:
        if (prompt.positive) {
          core::Vec3 c{};
          for (std::size_t a = 0; a < 3; ++a) c[a] = 0.5 * static_cast<double>(raster->box.min[a] + raster->box.max[a]);
          added.push_back({g.indexToLps(c), true});
        }
        break;
      case Prompt::Kind::Scribble:
      case Prompt::Kind::Lasso:
        for (const auto& q : spreadVoxels(raster->voxels, kStrokePoints)) added.push_back({g.indexToLps(q), prompt.positive});
        break;
    }
    std::vector<PointPrompt> points = m_points;
    points.insert(points.end(), added.begin(), added.end());
    ObjectMask next = m_mask;
    if (!added.empty()) {
      auto clicks = clicksOnGrid(m_image, points);
      if (!clicks) return clicks.error();
      if (!std::any_of(points.begin(), points.end(), [](const PointPrompt& p) { return p.positive; }))
        return core::makeError(core::ErrorCode::InvalidArgument, "vista3d", "the first click must be positive");
      if (!m_input) {  // the image is preprocessed once per session, not once per click
        auto in = vista3d::preprocessForVista3d(m_image);
        if (!in) return in.error();
        m_input = std::make_shared<const vista3d::Vista3dInput>(std::move(in).value());
      }
      auto labels = m_runner->withFallback(progress, [&] {
        return vista3d::segmentClicksWithVista3d(*m_runner->model, m_image, *clicks, 0, m_runner->options.roi, progress,
                                                 m_input);
      });
      if (!labels) return labels.error();
      try {
        next = objectOf(*labels);
      } catch (const std::bad_alloc&) {
        return core::makeError(core::ErrorCode::OutOfMemory, "vista3d", "out of memory keeping the click");
      }
    }
    try {
      if (prompt.kind == Prompt::Kind::Box && prompt.positive) {
        core::IndexBox bound = raster->box;
        if (raster->sliceAxis >= 0) {
          bound.min[static_cast<std::size_t>(raster->sliceAxis)] = 0;
          bound.max[static_cast<std::size_t>(raster->sliceAxis)] = g.dimensions()[static_cast<std::size_t>(raster->sliceAxis)] - 1;
        }
        next = clipMask(next, bound);
      }
      if (prompt.kind == Prompt::Kind::Scribble || prompt.kind == Prompt::Kind::Lasso ||
          (prompt.kind == Prompt::Kind::Box && !prompt.positive))
        next = combineMasks(next, maskOfVoxels(*raster), prompt.positive);
      PackedMask before = packMask(m_mask);
      Prompt kept = prompt;
      m_history.reserve(m_history.size() + 1);
      m_prompts.reserve(m_prompts.size() + 1);
      m_pointCounts.reserve(m_pointCounts.size() + 1);
      m_history.push_back(std::move(before));
      m_prompts.push_back(std::move(kept));
      m_pointCounts.push_back(added.size());
      m_points = std::move(points);
      m_mask = std::move(next);
    } catch (const std::bad_alloc&) {
      return core::makeError(core::ErrorCode::OutOfMemory, "vista3d", "out of memory keeping the click");
    }
    return core::Status::success();
  }

  bool undoPrompt() override {
    if (m_prompts.empty() || m_history.empty()) return false;
    try {
      ObjectMask previous = unpackMask(m_history.back());
      m_history.pop_back();
      m_points.resize(m_points.size() - m_pointCounts.back());
      m_pointCounts.pop_back();
      m_prompts.pop_back();
      m_mask = std::move(previous);
      return true;
    } catch (const std::bad_alloc&) {
      return false;
    }
  }

  const std::vector<Prompt>& prompts() const override { return m_prompts; }
  const ObjectMask& mask() const override { return m_mask; }

 private:
  std::shared_ptr<Vista3dRunner> m_runner;
  core::ImageView m_image;
  std::shared_ptr<const vista3d::Vista3dInput> m_input;  // the preprocessed image, from the first click on
  std::vector<PointPrompt> m_points;  // every prompt's points, as the network takes them
  std::vector<Prompt> m_prompts;
  std::vector<std::size_t> m_pointCounts;  // of each prompt
  ObjectMask m_mask;
  std::vector<PackedMask> m_history;
};

class Vista3dEngine final : public SegmentationEngine {
 public:
  explicit Vista3dEngine(std::shared_ptr<Vista3dRunner> runner) : m_runner(std::move(runner)) {}

  EngineInfo info() const override {
    EngineInfo i;
    i.id = "vista3d";
    i.modality = "CT";
    i.device = m_runner->model->device() + " " + vista3d::precisionName(m_runner->model->precision());
    i.supportsPoints = true;
    return i;
  }

  core::Result<core::LabelPatch> segment(core::ImageView image, const SegmentationRequest& request,
                                         core::ProgressSink* progress) override {
    const auto dims = image.geometry().dimensions();
    core::LabelPatch patch;
    patch.box = core::IndexBox{{0, 0, 0}, {dims[0] - 1, dims[1] - 1, dims[2] - 1}};
    if (!request.points.empty()) {
      if (request.classes.size() > 1)
        return core::makeError(core::ErrorCode::InvalidArgument, "vista3d", "clicks take at most one class prompt");
      const int prompt = request.classes.empty() ? 0 : static_cast<int>(request.classes.front());
      if (prompt > 254) return core::makeError(core::ErrorCode::InvalidArgument, "vista3d", "class prompts are 1..254");
      auto clicks = clicksOnGrid(image, request.points);
      if (!clicks) return clicks.error();
      auto labels = m_runner->withFallback(progress, [&] {
        return vista3d::segmentClicksWithVista3d(*m_runner->model, image, *clicks, prompt, m_runner->options.roi, progress);
      });
      if (!labels) return labels.error();
      const core::Label inside = request.targetLabel ? request.targetLabel : core::Label(prompt ? prompt : 1);
      patch.voxels.resize(labels->size());
      for (std::size_t i = 0; i < labels->size(); ++i)
        patch.voxels[i] = (*labels)[i] != 0 && (*labels)[i] != 255 ? inside : core::Label{0};
      return patch;
    }
    std::vector<int> prompts(request.classes.begin(), request.classes.end());
    auto labels = m_runner->withFallback(progress, [&] {
      vista3d::SegmentOptions options;
      options.roi = m_runner->options.roi;
      options.batch = m_runner->batch;
      options.expandGroups = request.expandClassGroups;
      vista3d::SegmentDetails details;
      auto r = vista3d::segmentWithVista3d(*m_runner->model, image, prompts, options, progress, &details);
      if (r.ok()) m_runner->batch = details.batch;  // a batch that ran out of memory stays smaller
      return r;
    });
    if (!labels) return labels.error();
    patch.voxels.resize(labels->size());
    for (std::size_t i = 0; i < labels->size(); ++i) patch.voxels[i] = (*labels)[i];
    return patch;
  }

  core::Result<std::unique_ptr<InteractiveSession>> beginSession(core::ImageView image) override {
    return std::unique_ptr<InteractiveSession>(new Vista3dSession(m_runner, image));
  }

 private:
  std::shared_ptr<Vista3dRunner> m_runner;
};

}  // namespace

core::Result<std::unique_ptr<SegmentationEngine>> createVista3dEngine(const std::string& checkpointPath,
                                                                       const Vista3dEngineOptions& options) {
  if (options.roi < 16 || options.roi % 16)
    return core::makeError(core::ErrorCode::InvalidArgument, "vista3d", "the window size must be a multiple of 16");
  if (options.batch < 0) return core::makeError(core::ErrorCode::InvalidArgument, "vista3d", "the batch is 1 or more");
  if (!vista3d::torchAvailable())
    return core::makeError(core::ErrorCode::Unsupported, checkpointPath, "this build has no LibTorch (install libtorch-dev)");
  const std::string device = options.device == "auto" ? (vista3d::cudaAvailable() ? "cuda" : "cpu") : options.device;
  const bool cuda = device.rfind("cuda", 0) == 0;
  auto precision = vista3d::parsePrecision(options.precision, cuda ? Precision::Float16 : Precision::Float32);
  if (!precision) return precision.error();
  auto ck = vista3d::readCheckpoint(checkpointPath);
  if (!ck) return ck.error();
  vista3d::Vista3dModel::setCpuThreads(options.cpuThreads);
  auto model = vista3d::Vista3dModel::load(*ck);
  if (!model) return model.error();
  if (core::Status s = (*model)->setDevice(device, *precision); !s) return s.error();
  auto runner = std::make_shared<Vista3dRunner>();
  runner->model = std::move(model).value();
  runner->options = options;
  runner->batch = options.batch > 0 ? options.batch : cuda ? 4 : 1;
  return std::unique_ptr<SegmentationEngine>(new Vista3dEngine(std::move(runner)));
}

double estimateVista3dCpuSeconds(const core::Geometry& geometry, bool clicks, std::int64_t roi, int threads) {
  if (threads <= 0) threads = vista3d::cpuThreads();
  std::size_t windows = 1;
  if (!clicks) {
    const core::Size3 n = vista3d::spacedDimensions(geometry);  // the grid preprocessing makes
    for (std::size_t a = 0; a < 3; ++a) windows *= vista3d::windowStarts(std::max(n[a], roi), roi, 0.25).size();
  }
  const double scale = std::pow(static_cast<double>(roi) / 128.0, 3.0);
  return static_cast<double>(windows) * (clicks ? 305.0 : 185.0) * scale / static_cast<double>(std::max(1, threads));
}

std::string vista3dPromptNote(int classPrompt) {
  const bool bundle = vista3d::isBundleSpecialClass(classPrompt), training = vista3d::isTrainingSpecialClass(classPrompt);
  if (bundle == training) return {};
  return "note: class " + std::to_string(classPrompt) + (bundle ? " is" : " is not") +
         " a 'special' class for the VISTA-3D bundle (its clicks " + (bundle ? "take" : "do not take") +
         " the special embedding) but " + (training ? "was" : "was not") +
         " one in training; the bundle's choice is followed here, and results may differ from the training setup";
}

core::Result<EngineChoice> selectEngine(const EngineSelection& selection) {
  EngineChoice choice;
  const std::string& device = selection.vista.device;
  const bool cuda = vista3d::cudaAvailable();
  if (selection.checkpoint.empty()) {
    choice.engine = createEngine("classic");
    choice.why = "classic engine: no VISTA-3D checkpoint is configured";
    choice.reason = EngineChoice::Reason::NoCheckpoint;
    return choice;
  }
  // A delineate-train checkpoint: its sidecar says what it is.
  auto trained = readCheckpointModel(selection.checkpoint);
  if (!trained) return trained.error();
  if (*trained && (*trained)->kind == CheckpointModel::Kind::SegResNetDS) {
    auto engine = createAtlasEngine(selection.checkpoint, **trained, selection.vista);
    if (!engine) return engine.error();
    choice.why = "atlas network " + std::filesystem::path(selection.checkpoint).filename().string() + " (" +
                 std::to_string((*trained)->classes.size()) + " classes) on " + (*engine)->info().device;
    choice.reason = EngineChoice::Reason::AtlasNetwork;
    choice.engine = std::move(engine).value();
    return choice;
  }
  if (device == "auto" && !cuda && *trained)  // the classic engine would read its label ids as other classes
    return core::makeError(core::ErrorCode::Unsupported, selection.checkpoint,
                           "a fine-tuned VISTA-3D needs a CUDA device here, or the CPU asked for (--device cpu; minutes "
                           "per 128^3 window)");
  if (device == "auto" && !cuda) {
    choice.engine = createEngine("classic");
    choice.why = "classic engine: no CUDA device for VISTA-3D (ask for the CPU explicitly to run it there, at minutes "
                 "per window)";
    choice.reason = EngineChoice::Reason::NoCuda;
    return choice;
  }
  Vista3dEngineOptions options = selection.vista;
  if (device == "auto") options.device = "cuda";
  auto engine = createVista3dEngine(selection.checkpoint, options);
  if (!engine) return engine.error();
  choice.why = "VISTA-3D on " + (*engine)->info().device;
  choice.reason = EngineChoice::Reason::Vista3d;
  if (options.device == "cpu") {
    choice.why += ", asked for (the full model takes minutes per 128^3 window on a CPU)";
    choice.reason = EngineChoice::Reason::Vista3dOnCpu;
  }
  choice.engine = std::move(engine).value();
  if (*trained) {
    choice.why += ", fine-tuned: " + std::to_string((*trained)->classes.size()) + " classes by the labels it was trained with";
    choice.fineTuned = true;
    choice.engine = withTrainedLabels(std::move(choice.engine), **trained);
  }
  return choice;
}

}  // namespace delineate::inference
