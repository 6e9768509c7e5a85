#pragma once
// Whether a trained model fits a study before it runs on it (issue 41): a network learnt on mouse micro-CT at 0.1 mm
// does not segment a human CT at 0.8 mm (resampled to its grid the CT is tens of billions of voxels), and a ranking
// by its uncertainty says nothing about such a study. delineate-train records what its cases were in the sidecar's
// "trainingDataProfile" (modalities, Hounsfield intensities, voxel spacing and field of view, each as the range over
// the cases); the check compares a study against it.
//
// The verdict carries numbers, not sentences: the window words it in its own language (tr), the command-line tools
// with describeModelFit (English). Torch-free: the window, delineate-cli and delineate-train's ranking all use it.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/geometry.h"

namespace delineate::inference {

// What a model's training images were. Spacings are sorted finest first and fields of view largest first per image,
// so an axial and a sagittal acquisition of one body compare alike; min and max are element-wise over the images.
struct TrainingDataProfile {
  int images = 0;
  std::vector<std::string> modalities;  // DICOM modality codes ("CT", "MR"), sorted; empty when none was known
  bool hounsfield = false;              // every image held Hounsfield air (below -500): CT intensities
  core::Vec3 spacingMinMm{0, 0, 0}, spacingMaxMm{0, 0, 0};
  core::Vec3 extentMinMm{0, 0, 0}, extentMaxMm{0, 0, 0};
};

// One image's part of the profile (delineate-train adds each case, then writes profileJson).
class TrainingDataProfileBuilder {
 public:
  void add(const core::Geometry& geometry, const std::string& modality, float lowestIntensity);
  TrainingDataProfile profile() const;

 private:
  TrainingDataProfile m_profile;
  bool m_allHounsfield = true;
};

// The sidecar's "trainingDataProfile" object, and back.
std::string trainingDataProfileJson(const TrainingDataProfile& profile);

// What the check needs of a model: its profile (absent in checkpoints written before it was recorded) and the grid it
// prepares images on.
struct ModelFitProfile {
  std::optional<TrainingDataProfile> data;
  core::Vec3 spacingMm{0, 0, 0};  // the preprocessing spacing (SegResNetDS); 0 when the model resamples otherwise
};
// From a sidecar's text (a share revision's "extra" or the file beside a checkpoint); errors name `subject`. A
// sidecar without "trainingDataProfile" gives a profile without data (an older checkpoint: fit unknown).
core::Result<ModelFitProfile> parseModelFitProfile(const std::string& sidecarJson, const std::string& subject);
// The sidecar beside `checkpointPath`; nullopt when there is none (a plain VISTA-3D checkpoint: nothing to check).
core::Result<std::optional<ModelFitProfile>> readModelFitProfile(const std::string& checkpointPath);

// What is known of the study: its image grid, its DICOM modality ("" when unknown: an image file) and whether its
// intensities are Hounsfield units (nullopt when not looked at).
struct StudyFitInput {
  core::Geometry geometry;
  std::string modality;
  std::optional<bool> hounsfield;
};

struct ModelFitIssue {
  enum class Kind {
    // Fields of view compare by their volumes; the factor is linear (the cube root of the volumes' ratio).
    FieldOfViewLarger,   // factor: the study's field of view over the largest training image's
    FieldOfViewSmaller,  // factor: the smallest training image's field of view over the study's
    SpacingCoarser,      // factor: the study's finest spacing over the coarsest finest spacing of training
    SpacingFiner,        // factor: the finest finest spacing of training over the study's
    Modality,            // the study's modality is none of the training images'
    NotHounsfield,       // trained on CT intensities (HU); the study holds no Hounsfield air
    GridTooLarge,        // factor: voxels of the study resampled to the model's grid
  };
  Kind kind;
  double factor = 0;
};

struct ModelFit {
  enum class Verdict { Fits, Unknown, Mismatch };
  Verdict verdict = Verdict::Fits;
  std::vector<ModelFitIssue> issues;  // with Mismatch
  // With Mismatch: true when running cannot work at all (GridTooLarge: no confirmation can make it fit in memory).
  bool refused = false;
  TrainingDataProfile model;  // as read (with Fits and Mismatch)
  core::Vec3 studySpacingMm{0, 0, 0}, studyExtentMm{0, 0, 0};  // sorted as the profile's
  double preparedVoxels = 0;  // the study on the model's grid (0 when the model's spacing is unknown)
};

// Thresholds: a field of view more than 2 times (linear: 8 times the volume) larger than the largest training image's
// or 3 times smaller than the smallest's; a finest spacing 4 times coarser or finer than training's range; a known modality not
// among the training images'; a Hounsfield-trained model on a study without Hounsfield air; and, refused outright,
// more than kMaxPreparedVoxels on the model's grid.
inline constexpr double kMaxPreparedVoxels = 2147483648.0;  // 2^31: 8 GiB of float intensities alone
ModelFit checkModelFit(const ModelFitProfile& model, const StudyFitInput& study);

// "model trained on 3 CT images at 0.1 mm, field of view up to 20 x 19 x 40 mm; this CT is 0.8 mm, 512 x 512 x 300
// voxels (410 x 410 x 240 mm): field of view 4000x larger" (English: the command-line tools'). Empty when it fits.
std::string describeModelFit(const ModelFit& fit, const StudyFitInput& study);

}  // namespace delineate::inference
