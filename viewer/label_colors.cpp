#include "viewer/label_colors.h"

#include <algorithm>

#include <vtkLookupTable.h>

namespace delineate::viewer {

vtkSmartPointer<vtkLookupTable> labelLookupTable(const core::LabelTable& table, const std::set<core::Label>& hidden,
                                                 core::Label maxId) {
  for (const auto& e : table.entries()) maxId = std::max(maxId, e.id);
  maxId = std::max<core::Label>(maxId, 1);
  auto lut = vtkSmartPointer<vtkLookupTable>::New();
  lut->SetNumberOfTableValues(static_cast<vtkIdType>(maxId) + 1);
  lut->SetTableRange(0, maxId);
  for (int id = 0; id <= maxId; ++id) {
    const auto label = static_cast<core::Label>(id);
    const core::LabelEntry* e = table.find(label);
    const core::Rgba c = e ? e->color : core::LabelTable::defaultColor(label);
    const bool shown = id != 0 && !hidden.count(label) && (!e || e->visible);
    lut->SetTableValue(id, c.r / 255.0, c.g / 255.0, c.b / 255.0, shown ? 1.0 : 0.0);
  }
  return lut;
}

}  // namespace delineate::viewer
