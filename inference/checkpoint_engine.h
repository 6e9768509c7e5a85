#pragma once
// A trained checkpoint as an engine (delineate-train's, issue 25). Its sidecar (the JSON written beside it,
// `it0001000.pt` -> `it0001000.json`, or a share revision's metadata) says what it is:
// - an atlas network (SegResNetDS): automatic segmentation of its classes, the image prepared as in training
//   (canonical axis order, the run's spacing and intensity normalisation), a sliding window of the training patch,
//   the classes written as the label ids of the cases it learnt from, back on the image's own grid (nearest);
// - a fine-tuned VISTA-3D: the VISTA-3D engine with the run's label table: classes asked for and produced by the
//   user's ids (mapped to and from VISTA-3D's), automatic segmentation of the classes it was trained on.
// A checkpoint without a sidecar is a plain VISTA-3D checkpoint (engine.h). Torch-free; the sidecar readers are in
// delineate_inference (checkpoint_sidecar.cpp), the engines in delineate_inference_torch (without LibTorch they answer
// Unsupported).

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/error.h"
#include "inference/engine.h"
#include "inference/training/prepared_case.h"
#include "inference/training/trainer.h"
#include "inference/training/trainable.h"

namespace delineate::inference {

struct CheckpointModel {
  enum class Kind { Vista3d, SegResNetDS };
  Kind kind = Kind::SegResNetDS;
  std::string sidecarPath;
  training::SegResNetDSConfig network;         // SegResNetDS
  training::PrepareSettings prepare;           // SegResNetDS: spacing and intensity as trained
  std::array<std::int64_t, 3> window{0, 0, 0};  // the sliding window: validation's (else the training patch)
  double overlap = 0.25;
  struct Class {
    core::Label id = 0;       // the label id in the user's label maps
    int networkClass = 0;     // SegResNetDS: its output channel; VISTA-3D: its VISTA-3D id
    std::string name;
  };
  std::vector<Class> classes;
  core::LabelTable labelTable() const;  // the classes with their names and default colours
};

// Whether `path` is a checkpoint the engines' reader takes (a torch.save state_dict zip or a safetensors file, with at
// least one tensor), read as far as its tensor list (cheap: no tensor data). Errors name the file and say it is none.
core::Status checkCheckpointFile(const std::string& path);

// `<checkpoint without .pt/.safetensors>.json`.
std::string checkpointSidecarPath(const std::string& checkpointPath);

// The sidecar of `checkpointPath`: nullopt when there is none (a plain VISTA-3D checkpoint); errors name the sidecar
// (not JSON, an architecture or label entry this version does not know).
core::Result<std::optional<CheckpointModel>> readCheckpointModel(const std::string& checkpointPath);
// The same from the sidecar's text (a share revision's "extra"); `subject` names it in errors.
core::Result<CheckpointModel> parseCheckpointModel(const std::string& sidecarJson, const std::string& subject);

// The atlas network of `checkpointPath` (SegResNetDS) on `options.device` ("auto": CUDA when there, else the CPU) at
// `options.precision` ("auto": fp32). Errors: the checkpoint's, the device's, no LibTorch in this build.
core::Result<std::unique_ptr<SegmentationEngine>> createAtlasEngine(const std::string& checkpointPath, const CheckpointModel& model,
                                                                    const Vista3dEngineOptions& options);

// `engine` (VISTA-3D) speaking the fine-tuned model's label ids.
std::unique_ptr<SegmentationEngine> withTrainedLabels(std::unique_ptr<SegmentationEngine> engine, const CheckpointModel& model);

// How unsure an atlas engine (createAtlasEngine's) is of `image`: its segmentation's per-voxel entropy on the prepared
// grid (training::UncertaintyStats), what "next case" ranks studies by. Unsupported for any other engine.
core::Result<training::UncertaintyStats> measureUncertainty(SegmentationEngine& engine, core::ImageView image,
                                                            core::ProgressSink* progress = nullptr);

}  // namespace delineate::inference
