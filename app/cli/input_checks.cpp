#include "app/cli/input_checks.h"

#include <algorithm>
#include <cmath>

namespace delineate::app::cli {

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
