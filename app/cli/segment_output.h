#pragma once
// What `delineate-cli segment` and `delineate-vista3d segment` share: the checkpoint an engine is given, resolved to a
// local file, and the end of a headless segmentation: the engine's patch placed on the image grid, written as a label
// file with its names beside it, and one line per label on stdout.
#include <memory>
#include <string>

#include "core/label_map.h"
#include "core/label_patch.h"
#include "core/label_table.h"
#include "core/geometry.h"
#include "core/volume.h"
#include "inference/engine.h"

namespace delineate::app::cli {

// The names of an engine's labels in every CLI output (segment's summary, info --segment's statistics table, CSV
// and JSON): the engine's classes, with the entries of a table the user gave (--table) taking precedence for the
// ids it has. One table, so one label is never 'bone' in one command and 'label 21' in another; printed through
// io::labelDisplayName, which says 'label N' only for an id neither knows.
core::LabelTable engineLabelTable(const inference::EngineInfo& engine, const core::LabelTable& given = {});

// A checkpoint given as a file, or as share:ROOT#MODEL[@REV] (fetched verified into the cache), replaced by the local
// file to load. A pinned revision taken from the cache because its share cannot be reached is said as a warning.
// Returns the exit code: 0, or 1 with "error: <file>: <reason>".
int resolveCheckpointArgument(std::string& checkpoint);

// The engine `engineArgument` names (a classic engine's id, a checkpoint file, share:ROOT#MODEL[@REV]) on `device`,
// never another in its place. `checkpointFile`: the local checkpoint it runs (empty for a classic engine). Returns the
// exit code: 0; 2 for an unknown engine (a usage error of `command`); 1 with "error: <file>: <reason>".
// `engineArgument` is taken by value: a caller may pass its `checkpointFile` (batch: a checkpoint resolved before),
// which is cleared here.
int createSegmentationEngine(std::string engineArgument, const std::string& device, const std::string& command,
                             std::unique_ptr<inference::SegmentationEngine>& engine, std::string& checkpointFile);

// The engine's patch on the grid `g` as a label map (InvalidArgument naming the engine when it does not fit).
core::Result<core::LabelMap> labelsOnGrid(const core::Geometry& g, const core::LabelPatch& patch,
                                          const std::string& engineId);

// The labels on the grid `g` of the image segmented. Returns the exit code: 0, or 1 with "error: <file>: <reason>"
// when the labels cannot be written.
int writeSegmentation(const std::string& output, const core::Geometry& g, const core::LabelPatch& patch,
                      const inference::EngineInfo& engine, double seconds);

}  // namespace delineate::app::cli
