#pragma once
// The segmentation engine interface. app/ reaches every engine (classic CPU, VISTA-3D) through this header only;
// engines take a core::ImageVolume and return label patches, never touching widgets or the label map.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/label_patch.h"
#include "core/label_table.h"
#include "core/progress.h"
#include "core/scalar_image.h"
#include "core/volume.h"

namespace delineate::inference {

class InteractiveSession;  // inference/interactive.h

struct PointPrompt {
  core::Vec3 pointLps{0, 0, 0};
  bool positive = true;
};

struct SegmentationRequest {
  std::vector<core::Label> classes;   // labels to produce; empty = everything the engine supports
  std::vector<PointPrompt> points;    // click prompts (refinement); empty = automatic
  core::Label targetLabel = 0;        // label written for a click-prompted object
  core::IndexBox region;              // restrict work to this box; empty = whole image
  bool expandClassGroups = true;      // VISTA-3D: classes 2, 20, 21 stand for their organs (the bundle's); a
                                      // fine-tuned model's ids are its own (false)
};

struct EngineInfo {
  std::string id;          // stable machine name, e.g. "classic", "classic.threshold"
  std::string modality;    // "CT", "MR" or "any"
  std::string device;      // where it runs: "cpu", "cuda:0"
  bool supportsPoints = false;
  bool guidesPrompts = false;  // classProbability answers: prompts can edit its classes through it (model-guided)
  core::LabelTable classes;  // the labels it produces, with names and colours for a session's table
};

class SegmentationEngine {
 public:
  virtual ~SegmentationEngine() = default;
  virtual EngineInfo info() const = 0;
  // Runs on the caller's thread (app/ moves it off the GUI thread); polls `progress` for cancellation.
  // `image` in its stored type (an engine that needs float32 for the whole volume converts: core::floatVolume).
  virtual core::Result<core::LabelPatch> segment(core::ImageView image, const SegmentationRequest& request,
                                                 core::ProgressSink* progress) = 0;
  // An interactive click session on `image` (which must outlive it), for engines with supportsPoints; the others
  // answer Unsupported.
  virtual core::Result<std::unique_ptr<InteractiveSession>> beginSession(core::ImageView image);
  // The engine's probability that each voxel of `image` is `label` (0..255 for 0..1), on the image's grid: what
  // model-guided prompts edit a trained model's class through (inference/guided_session.h). Unsupported by engines
  // without one: the classic engine, and VISTA-3D, whose clicks reach its own point head instead.
  virtual core::Result<core::Volume<std::uint8_t>> classProbability(core::ImageView image, core::Label label,
                                                                    core::ProgressSink* progress);
};

// Engines known by id: "classic" (automatic CT/MR classes and click sessions on the CPU, the default) and
// "classic.threshold" (Hounsfield windows).
std::unique_ptr<SegmentationEngine> createEngine(const std::string& id);
std::vector<std::string> availableEngines();

// VISTA-3D from a checkpoint (torch.save model.pt or safetensors). Automatic segmentation of the requested classes
// (VISTA-3D ids; none = the 117 "everything" classes); with points, the object they mark (the first class, if any,
// as its prompt), written as `targetLabel` (else the class, else 1); click sessions. Out of GPU memory, the batch
// halves, then the run moves to the CPU. Defined in delineate_inference_torch (link it to use this; it loads
// LibTorch). Errors: the checkpoint's, an unusable device, no LibTorch in the build.
struct Vista3dEngineOptions {
  std::int64_t roi = 128;       // the sliding window's size (the bundle's 128)
  int cpuThreads = 0;           // 0: one per hardware thread
  std::string device = "auto";  // "auto" (CUDA when LibTorch sees one, else the CPU), "cpu", "cuda", "cuda:N"
  std::string precision = "auto";  // "auto" (fp16 autocast on CUDA as the bundle's amp, fp32 on the CPU), "fp32",
                                   // "fp16" (CUDA only), "bf16"
  int batch = 0;                // windows per pass; 0: 4 on CUDA, 1 on the CPU
};
core::Result<std::unique_ptr<SegmentationEngine>> createVista3dEngine(const std::string& checkpointPath,
                                                                       const Vista3dEngineOptions& options = {});

// Which engine segments: VISTA-3D when a checkpoint is configured and a CUDA device is there; on the CPU only when
// asked for (device "cpu"; the full model takes minutes per window there); otherwise the classic engine. `why` says
// which and why, for the user. Errors: a configured checkpoint that does not load, a CUDA device asked for and absent.
struct EngineSelection {
  std::string checkpoint;  // empty: none configured
  Vista3dEngineOptions vista;
};
struct EngineChoice {
  std::unique_ptr<SegmentationEngine> engine;
  std::string why;  // in English, for the command-line tools
  // Why, for a program that words it in its own language (the window's tr): the case, and the checkpoint's file name
  // for AtlasNetwork and Vista3d (the engine's info gives the device and the classes).
  enum class Reason { Other, NoCheckpoint, NoCuda, AtlasNetwork, Vista3d, Vista3dOnCpu };
  Reason reason = Reason::Other;
  bool fineTuned = false;  // Vista3d, Vista3dOnCpu: a delineate-train fine-tuned checkpoint with its own label ids
};
core::Result<EngineChoice> selectEngine(const EngineSelection& selection);

// A note for a click with class prompt `classPrompt` where the bundle and VISTA-3D's training disagree on whether
// the class is "special" (clicks labelled 2 / 3): the bundle's list (25-29, 117) is used, training used 23-27, 57
// and 128 (SPEC.md 6.3). Empty when they agree.
std::string vista3dPromptNote(int classPrompt);

// Seconds VISTA-3D would take on this machine's CPU for an image of `geometry` (its 1.5 mm grid in windows of `roi`,
// before the foreground crop, so an upper bound), from the per-window cost measured on a 2-core Xeon (about 185
// core-seconds per automatic window, 305 per click window) shared over `threads` (0: LibTorch's count).
double estimateVista3dCpuSeconds(const core::Geometry& geometry, bool clicks, std::int64_t roi = 128, int threads = 0);

}  // namespace delineate::inference
