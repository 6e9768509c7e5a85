#pragma once
// The anatomical classes the program knows by name: VISTA-3D's 127 (resources/labels/vista3d.csv, with SNOMED CT
// codes). The engine itself knows ids only; a label the user names "Liver" gets the liver's codes, so the DICOM SEG
// and SR carry SNOMED CT 10200004 rather than a private code.

#include <string>

#include "core/label_table.h"

namespace delineate::app::gui {

// VISTA-3D's class table (read once from the program's resources; empty if they are missing).
const core::LabelTable& vista3dClasses();

// The coded terminology of the known class called `name` (letter case and surrounding spaces ignored), or an empty
// one when no class has that name.
core::Terminology knownTerminology(const std::string& name);

}  // namespace delineate::app::gui
