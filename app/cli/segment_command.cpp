// segment: an engine's automatic segmentation of an image, written as a label file (headless batch work).
#include <chrono>
#include <memory>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "app/cli/commands.h"
#include "app/cli/input_checks.h"
#include "app/cli/segment_output.h"
#include "inference/checkpoint_engine.h"
#include "inference/engine.h"
#include "inference/engine_plugin.h"
#include "io/studies/checkpoint_fetch.h"
#include "io/volume/image_file.h"

namespace delineate::app::cli {

int createSegmentationEngine(std::string engineArgument, const std::string& device, const std::string& command,
                             std::unique_ptr<inference::SegmentationEngine>& engine, std::string& checkpointFile) {
  // A classic engine by id, or a trained checkpoint (a file, or share:ROOT#MODEL[@REV]) through the LibTorch plugin.
  engine = inference::createEngine(engineArgument);
  checkpointFile.clear();
  if (engine) return 0;
  const bool reference =
      io::parseCheckpointReference(engineArgument).has_value() || engineArgument.rfind("model:", 0) == 0;
  std::error_code ec;
  if (!reference && !std::filesystem::exists(engineArgument, ec))
    return usageError(command, "unknown engine '" + engineArgument + "' (classic, classic.threshold, a checkpoint file, "
                               "share:ROOT#MODEL[@REV] or model:NAME)");
  inference::EngineSelection selection;
  selection.checkpoint = engineArgument;
  if (int code = resolveCheckpointArgument(selection.checkpoint); code != 0) return code;
  selection.vista.device = device;
  // A sidecar beside it that is not one of ours (no architecture) leaves a plain VISTA-3D checkpoint: said, not
  // silent; one that names an architecture but cannot be read is an error naming it (readCheckpointModel).
  auto model = inference::readCheckpointModel(selection.checkpoint);
  if (!model) return fileError(model.error());
  const std::string sidecar = inference::checkpointSidecarPath(selection.checkpoint);
  std::error_code sidecarError;
  if (!*model && std::filesystem::exists(sidecar, sidecarError))
    std::fprintf(stderr, "warning: %s: names no architecture (not a Delineate sidecar): the checkpoint is read as a "
                         "plain VISTA-3D checkpoint\n", sidecar.c_str());
  // Read as a checkpoint (its zip directory and pickle, or safetensors header: cheap) before LibTorch is loaded, so
  // a file that is none is named as such whatever device would have run it.
  if (core::Status readable = inference::checkCheckpointFile(selection.checkpoint); !readable)
    return fileError(readable.error());
  auto choice = inference::selectEngineViaPlugin(selection);
  if (!choice) return fileError(choice.error());
  // The engine asked for is the engine used, or nothing is: a batch run must never write another engine's labels
  // with exit 0 (the window may fall back to the classic engine; it says so on screen).
  if (choice->engine && choice->engine->info().id.rfind("classic", 0) == 0)
    return fileError(core::makeError(core::ErrorCode::Unsupported, engineArgument,
                                     "the checkpoint cannot be used here: " + choice->why +
                                         "; nothing was segmented (--device cpu runs it on the CPU; --engine classic "
                                         "asks for the classic engine)"));
  std::fprintf(stderr, "%s\n", choice->why.c_str());
  engine = std::move(choice->engine);
  checkpointFile = selection.checkpoint;
  return 0;
}

int runSegment(const SegmentOptions& o) {
  std::unique_ptr<inference::SegmentationEngine> engine;
  std::string checkpoint;
  if (int code = createSegmentationEngine(o.engine, o.device, "segment", engine, checkpoint); code != 0) return code;
  inference::SegmentationRequest request;
  request.classes = o.classes;
  // In its stored type: every engine reads it (an int16 CT is half the memory of its float32 copy).
  auto image = std::make_unique<core::ScalarImage>();
  if (int code = readInputImage(o.image, o.dicom.series, o.dicom.allowIrregular, o.dicom.allowUnreadable, 0, *image);
      code != 0)
    return code;
  if (core::Status s = core::requireFiniteVoxels(*image, o.image); !s) return fileError(s.error());
  const auto t0 = std::chrono::steady_clock::now();
  auto patch = engine->segment(*image, request, nullptr);
  if (!patch) return fileError(core::makeError(patch.error().code, o.image, patch.error().detail));
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return writeSegmentation(o.output, image->geometry(), *patch, engine->info(), seconds);
}

}  // namespace delineate::app::cli
