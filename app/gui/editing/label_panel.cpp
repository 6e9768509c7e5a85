#include "app/gui/base/dialog_folders.h"
#include "app/gui/base/known_classes.h"
#include "app/gui/editing/label_panel.h"

#include <QColorDialog>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QInputDialog>
#include <QLabel>
#include <QPainter>
#include <QPushButton>
#include <QSlider>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <map>

#include "app/gui/base/volume_text.h"
#include "app/gui/base/workbench.h"
#include "app/gui/study/label_table_memory.h"
#include "app/gui/study/study_document.h"
#include "io/labels/label_table_io.h"

namespace delineate::app::gui {

namespace {

QIcon swatch(const core::Rgba& c) {
  QPixmap pixmap(14, 14);
  pixmap.fill(QColor(c.r, c.g, c.b));
  QPainter painter(&pixmap);
  painter.setPen(Qt::black);
  painter.drawRect(0, 0, 13, 13);
  return QIcon(pixmap);
}

core::Label labelOf(const QTreeWidgetItem* item) {
  return item ? static_cast<core::Label>(item->data(LabelPanel::kId, Qt::UserRole).toInt()) : core::Label(0);
}

core::LabelEntry newEntry(core::Label id, std::string name) {
  core::LabelEntry e;
  e.id = id;
  e.name = std::move(name);
  e.color = core::LabelTable::defaultColor(id);
  return e;
}

const char* kTableFilter = QT_TRANSLATE_NOOP("delineate::app::gui::LabelPanel",
                                             "Label tables (*.label *.txt *.ctbl *.csv *.tsv *.json);;All files (*)");

}  // namespace

LabelPanel::LabelPanel(StudyDocument& document, Workbench& bench, QWidget* parent)
    : QWidget(parent), m_document(document), m_bench(bench) {
  setObjectName("label-panel");
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  m_tree = new QTreeWidget(this);
  m_tree->setObjectName("label-tree");
  m_tree->setRootIsDecorated(false);
  m_tree->setColumnCount(5);
  m_tree->setEditTriggers(QAbstractItemView::DoubleClicked | QAbstractItemView::EditKeyPressed);
  m_tree->header()->setSectionResizeMode(kName, QHeaderView::Stretch);
  m_tree->header()->setStretchLastSection(false);
  layout->addWidget(m_tree, 1);

  auto* opacityRow = new QHBoxLayout();
  auto* opacityLabel = new QLabel(this);
  opacityLabel->setObjectName("opacity-label");
  opacityRow->addWidget(opacityLabel);
  m_opacity = new QSlider(Qt::Horizontal, this);
  m_opacity->setObjectName("label-opacity");
  m_opacity->setRange(0, 100);
  m_opacity->setValue(50);
  opacityRow->addWidget(m_opacity, 1);
  layout->addLayout(opacityRow);

  auto* rowA = new QHBoxLayout();
  auto* rowB = new QHBoxLayout();
  auto button = [this](QHBoxLayout* row, const char* name) {
    auto* b = new QPushButton(this);
    b->setObjectName(name);
    row->addWidget(b);
    m_buttons.push_back(b);
    return b;
  };
  QPushButton* add = button(rowA, "label-add");
  QPushButton* colour = button(rowA, "label-colour");
  QPushButton* showAll = button(rowA, "label-show-all");
  QPushButton* hideAll = button(rowA, "label-hide-all");
  QPushButton* import = button(rowB, "label-import");
  QPushButton* exportButton = button(rowB, "label-export");
  layout->addLayout(rowA);
  layout->addLayout(rowB);
  retranslate();

  connect(m_opacity, &QSlider::valueChanged, this, [this](int v) { Q_EMIT opacityChanged(v / 100.0); });
  connect(m_tree, &QTreeWidget::itemChanged, this, &LabelPanel::onItemChanged);
  connect(m_tree, &QTreeWidget::currentItemChanged, this, [this](QTreeWidgetItem* current, QTreeWidgetItem*) {
    if (m_filling || !current) return;
    setActiveLabel(labelOf(current));
    Q_EMIT labelChosen(labelOf(current));
  });
  connect(m_tree, &QTreeWidget::itemDoubleClicked, this, [this](QTreeWidgetItem* item, int column) {
    if (column == kId) recolour(labelOf(item));
  });
  connect(add, &QPushButton::clicked, this, [this] {
    if (!m_document.session()) return;
    bool ok = true;
    QString name = tr("Label %1").arg(m_document.freeLabelId());
    if (m_bench.dialogsEnabled()) name = QInputDialog::getText(this, tr("Add Label"), tr("Name:"), QLineEdit::Normal, name, &ok);
    if (ok && !name.trimmed().isEmpty()) addLabel(name.trimmed());
  });
  connect(colour, &QPushButton::clicked, this, [this] { recolour(m_active); });
  auto setAll = [this](bool visible) {
    for (int i = 0; i < m_tree->topLevelItemCount(); ++i)
      m_document.setLabelVisible(labelOf(m_tree->topLevelItem(i)), visible);
  };
  connect(showAll, &QPushButton::clicked, this, [setAll] { setAll(true); });
  connect(hideAll, &QPushButton::clicked, this, [setAll] { setAll(false); });
  connect(import, &QPushButton::clicked, this, [this] {
    const QString path =
        rememberOpenFolder(QFileDialog::getOpenFileName(this, tr("Import Label Table"), lastOpenFolder(), tr(kTableFilter)));
    if (!path.isEmpty()) importTable(path);
  });
  connect(exportButton, &QPushButton::clicked, this, [this] {
    const QString path = QFileDialog::getSaveFileName(this, tr("Export Label Table"), "labels.label", tr(kTableFilter));
    if (!path.isEmpty()) exportTable(path);
  });

  connect(&m_document, &StudyDocument::studyReplaced, this, &LabelPanel::refresh);
  connect(&m_document, &StudyDocument::labelsReplaced, this, &LabelPanel::refresh);
  connect(&m_document, &StudyDocument::edited, this, &LabelPanel::refresh);
  connect(&m_document, &StudyDocument::tableChanged, this, &LabelPanel::refresh);
  connect(&m_document, &StudyDocument::labelEntryChanged, this, &LabelPanel::updateEntry);
  connect(&m_document, &StudyDocument::visibilityChanged, this, &LabelPanel::updateVisibility);
}

void LabelPanel::retranslate() {
  m_tree->setHeaderLabels({tr("Id"), tr("Name"), tr("Show"), tr("Lock"), tr("Volume")});
  if (auto* l = findChild<QLabel*>("opacity-label")) l->setText(tr("Opacity"));
  const std::map<QString, QString> texts = {
      {"label-add", tr("Add")},          {"label-colour", tr("Colour...")},     {"label-show-all", tr("Show all")},
      {"label-hide-all", tr("Hide all")}, {"label-import", tr("Import table...")}, {"label-export", tr("Export table...")}};
  for (QWidget* b : m_buttons) static_cast<QPushButton*>(b)->setText(texts.at(b->objectName()));
}

void LabelPanel::refresh() {
  const StudyDocument::Counts& counts = m_document.voxelCounts();
  m_filling = true;
  m_tree->clear();
  const core::AnnotationSession* session = m_document.session();
  if (session) {
    // Table entries first (by id), then ids in the map that the table does not know.
    const auto& sp = session->labels().geometry().spacingMm();
    const double mlPerVoxel = sp[0] * sp[1] * sp[2] / 1000.0;
    std::map<core::Label, double> volumes;
    for (const auto& [label, count] : counts) volumes[label] = double(count) * mlPerVoxel;
    std::map<core::Label, const core::LabelEntry*> rows;
    for (const auto& e : session->table().entries()) rows[e.id] = &e;
    for (const auto& [label, volume] : volumes) rows.emplace(label, nullptr);
    for (const auto& [label, entry] : rows) {
      if (label == 0) continue;
      auto* item = new QTreeWidgetItem(m_tree);
      item->setData(kId, Qt::UserRole, label);
      item->setData(kId, Qt::DisplayRole, static_cast<int>(label));  // a number: sorted 1, 2, 10, not 1, 10, 2
      item->setIcon(kId, swatch(entry ? entry->color : core::LabelTable::defaultColor(label)));
      item->setText(kName, entry ? QString::fromStdString(entry->name) : tr("label %1").arg(label));
      if (!entry) {  // no table names this id: shown as unnamed, never under another table's name
        QFont f = item->font(kName);
        f.setItalic(true);
        item->setFont(kName, f);
        item->setToolTip(kName, tr("Unnamed: the labels' table does not name id %1").arg(label));
      }
      item->setFlags(item->flags() | Qt::ItemIsUserCheckable | Qt::ItemIsEditable);
      item->setCheckState(kVisible, m_document.isLabelVisible(label) ? Qt::Checked : Qt::Unchecked);
      item->setCheckState(kLocked, entry && entry->locked ? Qt::Checked : Qt::Unchecked);
      const auto v = volumes.find(label);
      item->setText(kVolume, v == volumes.end() ? QString("-") : formatVolumeMl(v->second));
      item->setTextAlignment(kVolume, Qt::AlignRight | Qt::AlignVCenter);
    }
    for (int c : {kId, kVisible, kLocked, kVolume}) m_tree->resizeColumnToContents(c);
  }
  m_filling = false;
  if (!itemFor(m_active)) {
    // The active label went away (new study, another table): the first label, or none.
    setActiveLabel(m_tree->topLevelItemCount() ? labelOf(m_tree->topLevelItem(0)) : core::Label(0));
  } else {
    m_filling = true;
    m_tree->setCurrentItem(itemFor(m_active));
    m_filling = false;
  }
}

void LabelPanel::updateEntry(const core::LabelEntry& entry) {
  QTreeWidgetItem* item = itemFor(entry.id);
  if (!item) {  // a new label: a new row (never inside an item signal, since no row existed)
    item = new QTreeWidgetItem(m_tree);
    item->setData(kId, Qt::UserRole, entry.id);
    item->setData(kId, Qt::DisplayRole, static_cast<int>(entry.id));
    item->setText(kVolume, "-");
    item->setTextAlignment(kVolume, Qt::AlignRight | Qt::AlignVCenter);
    item->setFlags(item->flags() | Qt::ItemIsUserCheckable | Qt::ItemIsEditable);
    m_tree->sortItems(kId, Qt::AscendingOrder);
  }
  m_filling = true;
  item->setIcon(kId, swatch(entry.color));
  item->setText(kName, QString::fromStdString(entry.name));
  item->setCheckState(kVisible, m_document.isLabelVisible(entry.id) ? Qt::Checked : Qt::Unchecked);
  item->setCheckState(kLocked, entry.locked ? Qt::Checked : Qt::Unchecked);
  m_filling = false;
}

void LabelPanel::updateVisibility(core::Label label, bool visible) {
  if (QTreeWidgetItem* item = itemFor(label)) {
    m_filling = true;
    item->setCheckState(kVisible, visible ? Qt::Checked : Qt::Unchecked);
    m_filling = false;
  }
}

QTreeWidgetItem* LabelPanel::itemFor(core::Label label) const {
  for (int i = 0; i < m_tree->topLevelItemCount(); ++i)
    if (labelOf(m_tree->topLevelItem(i)) == label) return m_tree->topLevelItem(i);
  return nullptr;
}

void LabelPanel::setActiveLabel(core::Label label) {
  const bool changed = label != m_active;
  m_active = label;
  for (int i = 0; i < m_tree->topLevelItemCount(); ++i) {
    QTreeWidgetItem* item = m_tree->topLevelItem(i);
    QFont f = item->font(kName);
    f.setBold(labelOf(item) == label);
    m_filling = true;
    item->setFont(kName, f);
    m_filling = false;
  }
  if (QTreeWidgetItem* item = itemFor(label); item && m_tree->currentItem() != item) {
    m_filling = true;
    m_tree->setCurrentItem(item);
    m_filling = false;
  }
  if (changed) Q_EMIT activeLabelChanged(label);
}

void LabelPanel::onItemChanged(QTreeWidgetItem* item, int column) {
  if (m_filling || !m_document.session()) return;
  const core::Label label = labelOf(item);
  if (column == kVisible) {
    m_document.setLabelVisible(label, item->checkState(kVisible) == Qt::Checked);
    return;
  }
  const core::LabelEntry* known = m_document.session()->table().find(label);
  core::LabelEntry entry = known ? *known : newEntry(label, "");
  const char* step = "Rename label";
  if (column == kLocked) {
    entry.locked = item->checkState(kLocked) == Qt::Checked;
    step = "Lock label";
  } else if (column == kName) {
    const QString name = item->text(kName).trimmed();
    if (name.isEmpty()) {  // a label needs a name: put the old one back
      m_filling = true;
      item->setText(kName, QString::fromStdString(entry.name));
      m_filling = false;
      return;
    }
    entry.name = name.toStdString();
    // A label named like a known anatomical class gets its codes (the SEG and SR then say SNOMED CT "Liver", not
    // a private code); codes it already has stay.
    if (entry.terminology.empty()) entry.terminology = knownTerminology(entry.name);
  } else {
    return;
  }
  if (entry.name.empty()) entry.name = tr("label %1").arg(label).toStdString();
  m_document.setLabelEntry(entry, step);
}

void LabelPanel::recolour(core::Label label) {
  if (!m_document.session() || label == 0) return;
  const core::LabelEntry* known = m_document.session()->table().find(label);
  core::LabelEntry entry = known ? *known : newEntry(label, tr("label %1").arg(label).toStdString());
  const QColor chosen = QColorDialog::getColor(QColor(entry.color.r, entry.color.g, entry.color.b), this,
                                               tr("Colour of %1").arg(QString::fromStdString(entry.name)));
  if (!chosen.isValid()) return;
  entry.color = {static_cast<std::uint8_t>(chosen.red()), static_cast<std::uint8_t>(chosen.green()),
                 static_cast<std::uint8_t>(chosen.blue()), 255};
  m_document.setLabelEntry(entry, "Recolour label");
}

core::Label LabelPanel::addLabel(const QString& name) {
  if (!m_document.session()) return 0;
  // Free in the table and in the map: voxels that carry an id the table lacks must not become the new label.
  const core::Label id = m_document.freeLabelId();
  if (id == 0) {
    m_bench.reportError(tr("Every label id is in use"));
    return 0;
  }
  core::LabelEntry entry = newEntry(id, name.toStdString());
  // A colour far from those already in the table, so a new label never looks like another (issue 41).
  entry.color = m_document.session()->table().colorForNewLabel();
  entry.terminology = knownTerminology(entry.name);
  m_document.setLabelEntry(entry, "Add label");
  setActiveLabel(id);
  Q_EMIT labelChosen(id);
  return id;
}

bool LabelPanel::importTable(const QString& path) {
  if (!m_document.session()) return false;
  auto table = io::readLabelTableFile(path.toStdString());
  if (!table) {
    m_bench.reportError(QString::fromStdString(table.error().describe()));
    return false;
  }
  if (table->empty()) {
    m_bench.reportError(tr("%1: the file holds no labels").arg(path));
    return false;
  }
  rememberLabelTable(*table, QFileInfo(path).absoluteFilePath());  // the next subject's map finds it (issue 41)
  m_document.setLabelTable(std::move(table).value(), "Import label table");
  return true;
}

bool LabelPanel::exportTable(const QString& path) {
  if (!m_document.session()) return false;
  if (core::Status s = io::writeLabelTableFile(path.toStdString(), m_document.session()->table()); !s) {
    m_bench.reportError(QString::fromStdString(s.error().describe()));
    return false;
  }
  return true;
}

}  // namespace delineate::app::gui
