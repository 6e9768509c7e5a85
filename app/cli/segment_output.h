#pragma once
// The end of a headless segmentation, shared by `delineate-cli segment` and `delineate-vista3d segment`: the engine's
// patch placed on the image grid, written as a label file, and one line per label on stdout.
#include <string>

#include "core/label_patch.h"
#include "core/volume.h"
#include "inference/engine.h"

namespace delineate::app::cli {

// Returns the exit code: 0, or 1 with "error: <file>: <reason>" when the labels cannot be written.
int writeSegmentation(const std::string& output, const core::ImageVolume& image, const core::LabelPatch& patch,
                      const inference::EngineInfo& engine, double seconds);

}  // namespace delineate::app::cli
