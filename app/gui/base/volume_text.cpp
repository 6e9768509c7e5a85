#include "app/gui/base/volume_text.h"

#include <QCoreApplication>

#include <cmath>

#include "core/statistics.h"

namespace delineate::app::gui {

VolumeUnit volumeUnitFor(double mm3) {
  return core::volumeText(mm3).millilitres ? VolumeUnit::Millilitre : VolumeUnit::CubicMillimetre;
}

QString formatVolumeMm3(double mm3) {
  if (!std::isfinite(mm3)) return QStringLiteral("\u2013");
  const core::VolumeText text = core::volumeText(mm3);
  const QString number = QString::number(text.value, 'f', text.decimals);
  return text.millilitres
             ? QCoreApplication::translate("delineate::app::gui::VolumeText", "%1 mL").arg(number)
             : QCoreApplication::translate("delineate::app::gui::VolumeText", "%1 mm\u00b3").arg(number);
}

}  // namespace delineate::app::gui
