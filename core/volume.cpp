#include "core/volume.h"

#include <cmath>

namespace delineate::core {

Status requireFiniteVoxels(const ImageVolume& image, const std::string& source) {
  const float* v = image.data();
  const std::size_t n = image.size();
  for (std::size_t i = 0; i < n; ++i)
    if (std::isfinite(v[i])) return Status::success();
  return makeError(ErrorCode::InvalidArgument, source,
                   "the image has no finite voxel (every value is NaN or infinite): nothing to view or compute on; "
                   "check the file's data type and scaling");
}

}  // namespace delineate::core
