#pragma once
// VISTA-3D automatic segmentation of a whole image, the bundle's way (SPEC.md 6): label prompts rewritten as
// VistaPreTransformd does (kidney, lung and bone expanded to their parts; no prompt = the 117 "everything" classes),
// preprocessing, the sliding window over the model grid, postprocessing and inversion onto the image's own grid.
// Torch-free: the network comes in as a loaded Vista3dModel.

#include <cstdint>
#include <memory>
#include <vector>

#include "core/error.h"
#include "core/label_map.h"
#include "core/progress.h"
#include "core/scalar_image.h"
#include "core/volume.h"
#include "inference/vista3d/network.h"
#include "inference/vista3d/postprocess.h"
#include "inference/vista3d/preprocess.h"

namespace delineate::inference::vista3d {

// The 117 classes the bundle segments when asked for everything (the 127 trained ones without kidney, lung and
// bone, which come as their parts, and the lesion and vessel classes 16, 18, 23-27).
std::vector<int> everythingLabels();
// VistaPreTransformd's subclass expansion: 2 -> 14, 5; 20 -> 28..32; 21 -> the vertebrae, ribs and other bones.
std::vector<int> expandLabelPrompts(const std::vector<int>& prompts);

// VistaPreTransformd's "special" classes, whose clicks take labels 3 / 2: the bundle's default list (25-29, 117),
// and the one VISTA-3D was trained with (23-27, 57, 128); SPEC.md 6.3. The pipeline follows the bundle's.
bool isBundleSpecialClass(int classId);
bool isTrainingSpecialClass(int classId);

struct SegmentOptions {
  std::int64_t roi = 128;  // the bundle's window
  int batch = 1;           // windows per network pass (halved on out of memory)
  bool expandGroups = true;  // 2, 20, 21 stand for the kidneys, lung lobes and bones (the bundle's); false: as given
};

// What a run took (for reports and benchmarks).
struct SegmentDetails {
  int batch = 1;  // the batch that ran to the end
  std::size_t windows = 0, accumulatorBytes = 0;
};

// Labels on the image's grid. The windows' sums stream through slabs on the model's device (slidingWindowWinners):
// the same labels as averaging every logit, in a fraction of the memory. Errors: class ids outside 1..254, the
// model's (OutOfMemory once a single window does not fit).
core::Result<core::LabelMap> segmentWithVista3d(Vista3dModel& model, core::ImageView image,
                                                const std::vector<int>& labelPrompts, const SegmentOptions& options = {},
                                                core::ProgressSink* progress = nullptr, SegmentDetails* details = nullptr);

// One object from clicks, the bundle's point-window way (SPEC.md 6.2-6.7): points are voxel indices of `image`
// (label 1 positive, 0 negative), mapped onto the model grid; with a class prompt (1..254; 0 = none) both heads run
// and merge by connected components (a class above 132 is zero-shot: point head only), and for the bundle's
// special classes (25-29, 117) the clicks take labels 3 / 2. Returns labels on the image grid: the prompt's label
// (1 without one) inside, 0 outside, 255 where no click window reached.
struct ClickPrompt {
  core::Vec3 ijk{0, 0, 0};
  bool positive = true;
};
// The stitched logits on the model grid before postprocessing (x fastest, NaN outside the click windows), with the
// preprocessed input and the clicks as the model saw them. `input`: the image already preprocessed (a click session
// keeps it between clicks); nullptr preprocesses here.
struct ClickLogits {
  std::shared_ptr<const Vista3dInput> in;
  std::vector<float> logits;
  std::vector<ModelPoint> points;
};
core::Result<ClickLogits> clickLogitsWithVista3d(Vista3dModel& model, core::ImageView image,
                                                 const std::vector<ClickPrompt>& clicks, int classPrompt = 0,
                                                 std::int64_t roi = 128, core::ProgressSink* progress = nullptr,
                                                 std::shared_ptr<const Vista3dInput> input = nullptr);
core::Result<core::Volume<std::uint8_t>> segmentClicksWithVista3d(Vista3dModel& model, core::ImageView image,
                                                                  const std::vector<ClickPrompt>& clicks, int classPrompt = 0,
                                                                  std::int64_t roi = 128,
                                                                  core::ProgressSink* progress = nullptr,
                                                                  std::shared_ptr<const Vista3dInput> input = nullptr);

}  // namespace delineate::inference::vista3d
