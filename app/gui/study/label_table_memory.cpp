#include "app/gui/study/label_table_memory.h"

#include <QSettings>

#include <vector>

#include "io/labels/label_table_io.h"

namespace delineate::app::gui {

void rememberLabelTable(const core::LabelTable& table, const QString& from) {
  if (table.empty()) return;
  auto csv = io::writeLabelTableString(table, io::LabelTableFormat::SlicerCsv);
  if (!csv) return;
  QSettings settings;
  settings.setValue("labels/lastTable", QString::fromStdString(*csv));
  settings.setValue("labels/lastTableFrom", from);
}

std::optional<RememberedTable> rememberedTableFor(const core::LabelMap& labels) {
  const QSettings settings;
  const std::string csv = settings.value("labels/lastTable").toString().toStdString();
  if (csv.empty()) return std::nullopt;
  auto table = io::readSlicerCsvString(csv, "the label table last used");
  if (!table || table->empty()) return std::nullopt;
  std::vector<bool> seen(65536, false);
  bool any = false;
  const core::Label* voxels = labels.data();
  for (std::size_t i = 0; i < labels.size(); ++i) {
    const core::Label v = voxels[i];
    if (v == 0 || seen[v]) continue;
    seen[v] = true;
    any = true;
    if (!table->contains(v)) return std::nullopt;  // a value it does not name: not this table's map
  }
  if (!any) return std::nullopt;
  return RememberedTable{std::move(table).value(), settings.value("labels/lastTableFrom").toString()};
}

}  // namespace delineate::app::gui
