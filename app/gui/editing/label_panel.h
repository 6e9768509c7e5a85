#pragma once
// The labels dock: every label of the table and every id present in the map, with colour, name, visibility, lock
// and volume. The current row is the active label (what the brush, flood fill and an accepted AI object write).
// Names are edited in place (double click), colours through a colour dialog, tables imported and exported in every
// format io/label_table_io reads and writes. Table edits go to the study document (they mark it dirty; visibility is
// view state and does not), and the rows follow the document's announcements.

#include <QWidget>

#include <map>
#include <vector>

#include "core/label_table.h"

class QSlider;
class QTreeWidget;
class QTreeWidgetItem;

namespace delineate::app::gui {

class StudyDocument;
class Workbench;

class LabelPanel : public QWidget {
  Q_OBJECT

 public:
  enum Column { kId = 0, kName, kVisible, kLocked, kVolume };

  // Follows `document` (table, visibility, counts); errors and dialogs go through `bench`.
  LabelPanel(StudyDocument& document, Workbench& bench, QWidget* parent = nullptr);

  // Rebuilds the rows from the document's table and voxel counts, keeping the active label.
  void refresh();
  // One row changed (never rebuilds the list: these run inside the list's own item signals).
  void updateEntry(const core::LabelEntry& entry);
  void updateVisibility(core::Label label, bool visible);
  QTreeWidget* tree() const { return m_tree; }
  QSlider* opacitySlider() const { return m_opacity; }

  // 0 when the study has no labels to write (no table entry and nothing chosen).
  core::Label activeLabel() const { return m_active; }
  void setActiveLabel(core::Label label);

  // Adds a new label (next free id, default colour) and makes it active; returns its id (0: none free).
  core::Label addLabel(const QString& name);
  bool importTable(const QString& path);
  bool exportTable(const QString& path);
  void retranslate();

 Q_SIGNALS:
  void activeLabelChanged(core::Label label);
  void labelChosen(core::Label label);  // by the user: a row clicked, a label added (not a default after a reload)
  void opacityChanged(double opacity);  // the overlay opacity slider, 0..1

 private:
  void onItemChanged(QTreeWidgetItem* item, int column);
  void recolour(core::Label label);
  QTreeWidgetItem* itemFor(core::Label label) const;

  StudyDocument& m_document;
  Workbench& m_bench;
  QTreeWidget* m_tree = nullptr;
  QSlider* m_opacity = nullptr;
  core::Label m_active = 0;
  bool m_filling = false;
  std::vector<QWidget*> m_buttons;
};

}  // namespace delineate::app::gui
