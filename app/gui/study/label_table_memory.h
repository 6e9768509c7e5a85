#pragma once
// Label tables follow the labels (issue 41, item 7): an atlas annotator opens subject after subject, each a label map
// without a table beside it, and had to import the atlas's table for every one. The window remembers the table last
// used (one that came beside a label map, with a share revision, was imported, or was saved with the labels), in the
// preferences ("labels/lastTable", "labels/lastTableFrom"), and a label map that brings no table of its own onto a
// study with none takes it, when it names every value the map holds; the status bar says whose table it is. A map
// with a value the table does not name takes nothing (issue 23: a CT engine's classes never name a mouse atlas).
// A share revision saved without a table (by the CLI, or before tables travelled) takes the table of the newest
// earlier revision of its label set that has one.

#include <QString>

#include <optional>

#include "core/label_map.h"
#include "core/label_table.h"

namespace delineate::app::gui {

struct RememberedTable {
  core::LabelTable table;
  QString from;  // where it came from (a file, a share revision), as said to the user
};

// An empty table is not remembered (nothing to name).
void rememberLabelTable(const core::LabelTable& table, const QString& from);
// The remembered table when `labels` holds label values and the table names every one of them.
std::optional<RememberedTable> rememberedTableFor(const core::LabelMap& labels);

}  // namespace delineate::app::gui
