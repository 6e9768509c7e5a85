#pragma once
// The colours labels are drawn in: one lookup table shared by slice overlays and surfaces, from a label table (ids
// without an entry get LabelTable::defaultColor), with hidden labels transparent.

#include <set>
#include <vector>

#include <vtkSmartPointer.h>

#include "core/label_table.h"

class vtkLookupTable;

namespace delineate::viewer {

// A table indexed by label id over [0, maxId]: label 0 and hidden labels fully transparent.
vtkSmartPointer<vtkLookupTable> labelLookupTable(const core::LabelTable& table, const std::set<core::Label>& hidden,
                                                 core::Label maxId);

// Hue in degrees [0, 360) of a colour (0 for greys).
double hueDegrees(core::Rgba color);
// The colour a candidate object (an AI click preview) is drawn in over labels of colours `under`: of yellow, cyan,
// magenta and green (yellow first, when nothing is under it), the one whose hue lies farthest from every colour under
// it, so the preview never blends into the label it covers (yellow over red read as orange).
core::Rgba contrastingPreviewColor(const std::vector<core::Rgba>& under);

}  // namespace delineate::viewer
