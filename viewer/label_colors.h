#pragma once
// The colours labels are drawn in: one lookup table shared by slice overlays and surfaces, from a label table (ids
// without an entry get LabelTable::defaultColor), with hidden labels transparent.

#include <set>

#include <vtkSmartPointer.h>

#include "core/label_table.h"

class vtkLookupTable;

namespace delineate::viewer {

// A table indexed by label id over [0, maxId]: label 0 and hidden labels fully transparent.
vtkSmartPointer<vtkLookupTable> labelLookupTable(const core::LabelTable& table, const std::set<core::Label>& hidden,
                                                 core::Label maxId);

}  // namespace delineate::viewer
