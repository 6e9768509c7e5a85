#include "app/gui/base/known_classes.h"

#include <QFile>
#include <QString>

#include "io/labels/label_table_io.h"

namespace delineate::app::gui {

const core::LabelTable& vista3dClasses() {
  static const core::LabelTable table = [] {
    QFile file(":/labels/vista3d.csv");
    if (!file.open(QIODevice::ReadOnly)) return core::LabelTable{};
    const QByteArray text = file.readAll();
    auto read = io::readSlicerCsvString(std::string_view(text.constData(), static_cast<std::size_t>(text.size())),
                                        "vista3d.csv");
    return read ? std::move(read).value() : core::LabelTable{};
  }();
  return table;
}

core::Terminology knownTerminology(const std::string& name) {
  const QString wanted = QString::fromStdString(name).trimmed();
  if (wanted.isEmpty()) return {};
  for (const core::LabelEntry& e : vista3dClasses().entries())
    if (QString::fromStdString(e.name).compare(wanted, Qt::CaseInsensitive) == 0) return e.terminology;
  return {};
}

}  // namespace delineate::app::gui
