#include "app/gui/volume_text.h"

#include <QCoreApplication>

#include <algorithm>
#include <cmath>

namespace delineate::app::gui {

VolumeUnit volumeUnitFor(double mm3) {
  return std::fabs(mm3) >= 999.5 ? VolumeUnit::Millilitre : VolumeUnit::CubicMillimetre;
}

QString formatVolumeMm3(double mm3) {
  if (!std::isfinite(mm3)) return QStringLiteral("\u2013");
  const VolumeUnit unit = volumeUnitFor(mm3);
  const double value = unit == VolumeUnit::Millilitre ? mm3 / 1000.0 : mm3;
  // Three significant digits, never fewer decimals than none and never more than six (a single 10 µm voxel).
  int decimals = 0;
  if (value != 0.0) {
    const int magnitude = static_cast<int>(std::floor(std::log10(std::fabs(value))));
    decimals = std::clamp(2 - magnitude, 0, 6);
    // Rounding can carry into the next digit (99.96 -> "100.0"): one decimal fewer then.
    const double rounded = std::round(std::fabs(value) * std::pow(10.0, decimals)) / std::pow(10.0, decimals);
    if (decimals > 0 && static_cast<int>(std::floor(std::log10(rounded))) > magnitude) --decimals;
  }
  const QString number = QString::number(value, 'f', decimals);
  return unit == VolumeUnit::Millilitre
             ? QCoreApplication::translate("delineate::app::gui::VolumeText", "%1 mL").arg(number)
             : QCoreApplication::translate("delineate::app::gui::VolumeText", "%1 mm\u00b3").arg(number);
}

}  // namespace delineate::app::gui
