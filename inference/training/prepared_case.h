#pragma once
// One training case as the network sees it, made once per run (torch-free): the image and its labels turned to the
// canonical axis order (so a scan stored LPS or RAS, axes in any order, trains the same), resampled to the run's
// spacing (image linear, labels nearest), intensities normalised as the recipe says, label ids mapped to the
// network's classes, in torch's order ([X, Y, Z], the last axis fastest). Also the voxels of each class, for
// class-balanced patch centres.

#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/error.h"
#include "core/label_map.h"
#include "core/scalar_image.h"
#include "core/volume.h"

namespace delineate::inference::training {

enum class IntensityMode {
  None,
  Range,   // clip to [min, max], then scale to [0, 1] (CT; the VISTA-3D bundle's ScaleIntensityRanged)
  ZScore,  // zero mean, unit variance over the nonzero voxels (MR; Auto3DSeg's NormalizeIntensityd(nonzero))
};

struct PrepareSettings {
  std::array<double, 3> spacingMm{0, 0, 0};  // 0: keep the image's own spacing on that axis
  IntensityMode intensity = IntensityMode::ZScore;
  double intensityMin = 0, intensityMax = 1;  // Range
  // Source label id -> network class (0 stays background). An id the case holds that is not listed is an error
  // naming it, so a label the table does not know never trains silently as background.
  std::vector<std::pair<std::uint16_t, std::uint16_t>> labelMap;
  int classes = 2;  // SegResNetDS outputs (background included); VISTA-3D: ignored (ids are VISTA-3D's)
  std::size_t maxIndicesPerClass = 50000;  // class-balanced sampling keeps at most this many voxels per class
};

struct PreparedCase {
  std::string id, split;
  std::array<std::int64_t, 3> size{0, 0, 0};  // X, Y, Z
  std::array<double, 3> spacingMm{0, 0, 0};
  std::vector<float> image;            // [X, Y, Z], Z fastest
  std::vector<std::uint16_t> labels;   // the same layout, mapped ids
  // For each class present (mapped id), up to maxIndicesPerClass linear indices of its voxels (an even subsample).
  std::vector<std::pair<std::uint16_t, std::vector<std::int64_t>>> classVoxels;
  std::int64_t voxels() const { return size[0] * size[1] * size[2]; }
  std::size_t bytes() const { return image.size() * sizeof(float) + labels.size() * sizeof(std::uint16_t); }
};

// Errors name `id`: labels on another grid than the image, an unmapped label id, an image without finite voxels,
// a grid too large.
core::Result<PreparedCase> prepareCase(const std::string& id, const core::ImageVolume& image, const core::LabelMap& labels,
                                       const PrepareSettings& settings);

// A VISTA-3D fine-tuning case, prepared exactly as the engine prepares what it segments
// (inference/vista3d/preprocess.h: RAS, 1.5 mm, the bundle's foreground crop and CT scaling), the labels resampled
// onto that grid by nearest neighbour and mapped (settings.labelMap; spacing and intensity settings do not apply).
core::Result<PreparedCase> prepareVista3dCase(const std::string& id, const core::ImageVolume& image, const core::LabelMap& labels,
                                              const PrepareSettings& settings);

// The image alone, as prepareCase makes it (for inference with a trained network): also the canonical grid's
// geometry, to map a result back. Read in its stored type: no float32 copy of the whole volume, and no copy at all
// when its axes are already in canonical order.
core::Result<PreparedCase> prepareImage(const std::string& id, core::ImageView image, const PrepareSettings& settings,
                                        core::Geometry* preparedGeometry = nullptr);

}  // namespace delineate::inference::training
