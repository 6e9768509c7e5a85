#pragma once
// Nearest-neighbour resampling of a label map onto another grid, in physical (LPS) space: each voxel of the target
// grid takes the label of the source voxel whose box holds its centre. Any direction matrices (a map stored RAS
// beside an LPS image, an oblique stack): the mapping goes through both grids' index<->LPS affines.

#include "core/error.h"
#include "core/geometry.h"
#include "core/label_map.h"

namespace delineate::core {

// True when every voxel centre of `target` lies inside the space that `source`'s voxels cover (their boxes, with a
// thousandth of a voxel's tolerance for float32 headers), so that a nearest-neighbour resample invents nothing.
bool coversVoxelCentres(const Geometry& source, const Geometry& target);

// `source` resampled onto `target` by nearest neighbour; target voxels whose centre lies outside the source's space
// are background. Errors: an invalid target grid, or one too large to allocate.
Result<LabelMap> resampleNearest(const LabelMap& source, const Geometry& target);

}  // namespace delineate::core
