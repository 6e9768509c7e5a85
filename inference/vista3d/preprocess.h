#pragma once
// The VISTA-3D bundle's preprocessing (SPEC.md 6, bundle inference.json), torch-free: Spacingd to 1.5 mm (bilinear,
// border, voxel 0 kept in place, axis directions kept), CropForegroundd (HU > 0, margin 10 voxels), the intensity
// scaling with the bundle's constants (clipped to [0, 1]) and Orientationd to RAS (axes permuted and flipped). The
// result is the network's input grid; `Vista3dGrid` keeps what is needed to map points in and labels back.
//
// One deliberate difference: the image is turned to RAS first, not last. The bundle resamples in the file's own axis
// order with the 1.5 mm grid anchored at the file's voxel 0, so a file stored with an axis reversed (LPS rather than
// RAS, or the reverse) gets a grid shifted by a fraction of a voxel wherever that axis's extent is not a multiple of
// 1.5 mm, and other labels; the separable resampling's rounding also follows the axis order. Turned first, every
// storage order of one scan gives the same network input, bit for bit. For a file stored RAS (the order the bundle
// turns everything to, and nibabel's canonical one) nothing changes; for a file stored otherwise whose extents are
// multiples of 1.5 mm (3 mm voxels, the parity reference's CT) the values are the bundle's up to rounding.

#include <cstdint>

#include "core/error.h"
#include "core/scalar_image.h"
#include "core/volume.h"

namespace delineate::inference::vista3d {

constexpr double kTargetSpacingMm = 1.5;
constexpr double kIntensityMin = -963.8247715525971;  // ScaleIntensityRanged a_min (HU)
constexpr double kIntensityMax = 1053.678477684517;   // a_max

struct Vista3dGrid {
  core::Size3 spacedDims{0, 0, 0};   // after Spacingd, in model (RAS) order
  core::IndexBox crop;               // CropForegroundd's box on the spaced grid (model order)
  int axisOf[3] = {0, 1, 2};         // model axis m holds spaced axis axisOf[m]
  bool flipped[3] = {false, false, false};  // model axis m runs against it
};

struct Vista3dInput {
  core::ImageVolume image;  // the network input, on the model grid (its geometry in LPS)
  Vista3dGrid grid;
  // The stages as the bundle has them, in the image's own axis order, for parity checks and debugging (empty unless
  // keepStages).
  core::ImageVolume spaced, cropped;
};

// The grid size after Spacingd to 1.5 mm (before the foreground crop): (n - 1) * spacing / 1.5 + 1 per axis, rounded.
core::Size3 spacedDimensions(const core::Geometry& geometry);

// Errors: an empty image, or one whose 1.5 mm grid would exceed core::Geometry::kMaxVoxels.
core::Result<Vista3dInput> preprocessForVista3d(core::ImageView image, bool keepStages = false);

}  // namespace delineate::inference::vista3d
