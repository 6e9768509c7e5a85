#pragma once
// Checks on degenerate inputs that the commands share (click-eval, info, segment, export-dicom), so each says what
// is wrong and exits non-zero where nothing sensible can be computed, rather than printing zeros. The refusals that
// hold for every caller (an intensity image as a label map, a pipe or device as a file) live in io/ instead.

#include <string>
#include <vector>

#include "core/error.h"
#include "core/label_map.h"
#include "core/volume.h"

namespace delineate::app::cli {

// The non-zero ids in `labels`, ascending.
std::vector<core::Label> labelsPresent(const core::LabelMap& labels);

// "no labels in <file>" for an empty map (every voxel 0), with the likely mistake; otherwise every id in `wanted`
// must be present, else an error naming the absent id and listing those present.
core::Status requireLabels(const std::vector<core::Label>& present, const std::vector<core::Label>& wanted,
                           const std::string& path);

}  // namespace delineate::app::cli
