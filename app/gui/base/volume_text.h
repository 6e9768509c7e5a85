#pragma once
// How the window writes a volume, everywhere one is shown (labels dock, PDF report, status texts): the unit fits the
// size (mL from 1 mL up (what rounds to it), mm³ below it, so a mouse structure of 0.02 mL reads "20.0 mm³", not "0.0") with three
// significant digits. Files meant for programs (statistics CSV/JSON, DICOM SR) keep their fixed unit and full
// precision instead.

#include <QString>

namespace delineate::app::gui {

enum class VolumeUnit { Millilitre, CubicMillimetre };

// The unit a volume of `mm3` cubic millimetres is shown in.
VolumeUnit volumeUnitFor(double mm3);
// `mm3` in its unit with three significant digits and the unit's symbol ("1.25 mL", "20.0 mm³", "0 mm³").
QString formatVolumeMm3(double mm3);
inline QString formatVolumeMl(double ml) { return formatVolumeMm3(ml * 1000.0); }

}  // namespace delineate::app::gui
