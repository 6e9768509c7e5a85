#pragma once
// The VISTA-3D bundle's postprocessing (SPEC.md 6.7), torch-free: VistaPostTransformd on the model grid (components
// without a positive click suppressed for point-only results, thresholds, argmax + 1, label mapping, NaN kept where
// no click window reached), then Invertd back onto the original image grid (orientation and crop undone, nearest
// resampling from 1.5 mm), NaN written as 255 ("not computed").

#include <cstdint>
#include <vector>

#include "core/error.h"
#include "core/volume.h"
#include "inference/vista3d/preprocess.h"

namespace delineate::inference::vista3d {

struct ModelPoint {
  core::Vec3 ijk{0, 0, 0};  // continuous coordinates on the model grid
  int label = 1;            // -1 ignore, 0 negative, 1 positive, 2 / 3 negative / positive of a "special" class
};

// `logits`: `channels` volumes of the model grid `dims` (x fastest, channel slowest), NaN where not computed.
// `labelPrompt`: the class of each channel (empty: point-only, labelled 1). Returns one label (as float, NaN kept)
// per model voxel.
core::Result<std::vector<float>> vistaPostTransform(const std::vector<float>& logits, int channels, const core::Size3& dims,
                                                    const std::vector<int>& labelPrompt,
                                                    const std::vector<ModelPoint>& points);

// The model-grid labels on the original image's grid (`original` is the image given to preprocessForVista3d), NaN as
// 255.
core::Result<core::Volume<std::uint8_t>> invertToOriginal(const std::vector<float>& modelLabels, const Vista3dGrid& grid,
                                                           const core::Geometry& original);

// A point given as a voxel of the original image, on the model grid: p' = inv(A_final) A_original p, as the bundle
// maps clicks (float64).
core::Vec3 toModelGrid(const core::Vec3& originalIjk, const core::Geometry& original, const core::Geometry& model);

}  // namespace delineate::inference::vista3d
