#pragma once
// The grid a click session computes on: a box of the image, averaged over blocks of f0 x f1 x f2 voxels where the
// box would otherwise hold more than a voxel budget, then lightly smoothed. Small objects (a tumour) are computed at
// full resolution; a spine or a lung is computed on blocks about as wide as its thinnest voxel axis allows, which
// keeps a click's cost bounded by the budget instead of by the object's size. The result comes back to the full grid
// by interpolating the block mask, so the object's surface is not staircased by the block size.

#include <cstdint>
#include <functional>
#include <vector>

#include "core/geometry.h"
#include "core/scalar_image.h"
#include "core/volume.h"
#include "inference/interactive.h"

namespace delineate::inference::classic {

struct WorkingGrid {
  core::IndexBox box;                 // of the full image grid
  std::int64_t factor[3] = {1, 1, 1};  // full voxels per working voxel along each axis
  std::int64_t n[3] = {0, 0, 0};      // working voxels along each axis
  core::Vec3 spacingMm{1, 1, 1};      // of a working voxel
  std::vector<float> value;           // block means, smoothed; x fastest
  float noise = 0;                    // robust noise level of `value`

  std::size_t size() const { return static_cast<std::size_t>(n[0] * n[1] * n[2]); }
  std::size_t index(std::int64_t x, std::int64_t y, std::int64_t z) const {
    return static_cast<std::size_t>((z * n[1] + y) * n[0] + x);
  }
  // The working voxel holding a full-grid voxel of the box.
  core::Index3 toWorking(const core::Index3& full) const;
  bool atFullResolution() const { return factor[0] == 1 && factor[1] == 1 && factor[2] == 1; }
};

// Block factors for `box` so that it holds at most `maxVoxels` working voxels: the finest axis (in mm, after the
// factors so far) is coarsened first, so blocks tend towards cubes.
void chooseFactors(const core::IndexBox& box, const core::Vec3& spacingMm, std::int64_t maxVoxels, std::int64_t factor[3]);

// Averages `box` of the image (any stored type, read as float) into blocks, smooths (`smoothingPasses` of [1 2 1]/4 along each axis that was not
// averaged and whose spacing is at most twice the finest, so thick slices are not blurred into each other) and
// estimates the noise level from neighbour differences (exact repeats, such as a masked background, left out).
WorkingGrid buildWorkingGrid(core::ImageView image, const core::IndexBox& box, std::int64_t maxVoxels,
                             int smoothingPasses);
// The same from rows supplied by `rowAt(y, z, scratch)`: a pointer to the box's voxels x = box.min[0]..box.max[0]
// at (y, z) of a grid with `spacingMm` (the reader may fill `scratch`, one per thread, and point into it). A click
// session reads an image stored in another axis order this way, gathering each row of its canonical order, so the
// grid is the one an image stored in that order gives, without copying the region.
using RowReader = std::function<const float*(std::int64_t y, std::int64_t z, std::vector<float>& scratch)>;
WorkingGrid buildWorkingGrid(const RowReader& rowAt, const core::Vec3& spacingMm, const core::IndexBox& box,
                             std::int64_t maxVoxels, int smoothingPasses);

// The object (`mask` on the working grid, 1 inside) on the full image grid: blocks inside and outside copied,
// blocks on the boundary decided voxel by voxel by trilinear interpolation of the block mask (at least one half).
ObjectMask toFullResolution(const WorkingGrid& grid, const std::vector<std::uint8_t>& mask);

// A full-grid object sampled onto the working grid (a block is inside when the voxel at its centre is).
std::vector<std::uint8_t> toWorkingGrid(const WorkingGrid& grid, const ObjectMask& mask);

}  // namespace delineate::inference::classic
