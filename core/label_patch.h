#pragma once
// What an engine returns: labels for a box of the image grid. The session writes it through an EditTransaction.

#include <cstddef>
#include <vector>

#include "core/geometry.h"
#include "core/label_map.h"

namespace delineate::core {

struct LabelPatch {
  IndexBox box;               // on the image grid
  std::vector<Label> voxels;  // box.voxelCount() values, x fastest

  bool valid() const { return !box.empty() && voxels.size() == static_cast<std::size_t>(box.voxelCount()); }
};

}  // namespace delineate::core
