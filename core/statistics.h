#pragma once
// Per-label statistics: voxel count, volume, intensity summary, bounding box and centroid.

#include <cstdint>
#include <vector>

#include "core/error.h"
#include "core/label_map.h"
#include "core/volume.h"

namespace delineate::core {

struct LabelStatistics {
  Label label = 0;
  std::uint64_t voxelCount = 0;
  double volumeMl = 0;  // voxelCount * voxel volume (mm^3) / 1000
  // Intensities of the image under the label, non-finite voxels left out (NaN when no image was given or none is
  // finite). stddev is the population value.
  double mean = 0, stddev = 0, min = 0, max = 0;
  IndexBox box;      // index bounding box
  Vec3 centroidLps{0, 0, 0};  // mean voxel centre, physical
};

struct StatisticsOptions {
  bool includeBackground = false;
};

// One entry per label present, sorted by label. `image` may be null; when given its grid must match the map's.
Result<std::vector<LabelStatistics>> computeLabelStatistics(const LabelMap& labels, const ImageVolume* image,
                                                            const StatisticsOptions& options = {});

}  // namespace delineate::core
