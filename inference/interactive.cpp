#include "inference/interactive.h"

#include <algorithm>

namespace delineate::inference {

bool ObjectMask::contains(const core::Index3& ijk) const {
  if (!box.contains(ijk)) return false;
  const std::int64_t nx = box.max[0] - box.min[0] + 1, ny = box.max[1] - box.min[1] + 1;
  const std::int64_t i = ((ijk[2] - box.min[2]) * ny + (ijk[1] - box.min[1])) * nx + (ijk[0] - box.min[0]);
  return voxels[static_cast<std::size_t>(i)] != 0;
}

std::size_t ObjectMask::count() const {
  return static_cast<std::size_t>(std::count_if(voxels.begin(), voxels.end(), [](std::uint8_t v) { return v != 0; }));
}

core::Result<core::LabelPatch> InteractiveSession::accept(core::Label label) const {
  if (label == 0) return core::makeError(core::ErrorCode::InvalidArgument, "accept", "the object needs a label other than 0");
  const ObjectMask& m = mask();
  if (m.box.empty() || m.count() == 0)
    return core::makeError(core::ErrorCode::InvalidArgument, "accept", "there is no object to accept yet");
  core::LabelPatch patch;
  patch.box = m.box;
  patch.voxels.resize(m.voxels.size());
  std::transform(m.voxels.begin(), m.voxels.end(), patch.voxels.begin(),
                 [label](std::uint8_t v) { return v ? label : core::Label(0); });
  return patch;
}

}  // namespace delineate::inference
