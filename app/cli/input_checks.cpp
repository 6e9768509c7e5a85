#include "app/cli/input_checks.h"

#include <algorithm>
#include <cmath>

namespace delineate::app::cli {

core::Status requireFiniteVoxels(const core::ImageVolume& image, const std::string& path) {
  const float* v = image.data();
  const std::size_t n = image.size();
  for (std::size_t i = 0; i < n; ++i)
    if (std::isfinite(v[i])) return core::Status::success();
  return core::makeError(core::ErrorCode::InvalidArgument, path,
                         "the image has no finite voxel (every value is NaN or infinite): nothing to compute on; "
                         "check the file's data type and scaling");
}

std::vector<core::Label> labelsPresent(const core::LabelMap& labels) {
  std::vector<bool> seen(65536, false);
  for (std::size_t i = 0; i < labels.size(); ++i) seen[labels[i]] = true;
  std::vector<core::Label> out;
  for (std::size_t l = 1; l < seen.size(); ++l)
    if (seen[l]) out.push_back(static_cast<core::Label>(l));
  return out;
}

core::Status requireLabels(const std::vector<core::Label>& present, const std::vector<core::Label>& wanted,
                           const std::string& path) {
  if (present.empty())
    return core::makeError(core::ErrorCode::InvalidArgument, path,
                           "no labels in " + path + ": every voxel is 0 (background), so there is nothing to "
                           "evaluate or export; is this the right label map, or an empty one saved before segmenting?");
  for (const core::Label l : wanted) {
    if (std::binary_search(present.begin(), present.end(), l)) continue;
    std::string list;
    const std::size_t shown = std::min<std::size_t>(present.size(), 40);
    for (std::size_t i = 0; i < shown; ++i) list += (i ? ", " : "") + std::to_string(present[i]);
    if (shown < present.size()) list += ", ... (" + std::to_string(present.size()) + " in all)";
    return core::makeError(core::ErrorCode::InvalidArgument, path,
                           "label " + std::to_string(l) + " is not in " + path + "; the labels present are " + list);
  }
  return core::Status::success();
}

}  // namespace delineate::app::cli
