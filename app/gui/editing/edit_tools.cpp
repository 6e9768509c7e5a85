#include "app/gui/editing/edit_tools.h"

#include <QAction>
#include <QApplication>
#include <QButtonGroup>
#include <QCheckBox>
#include <QComboBox>
#include <QCoreApplication>
#include <QDoubleSpinBox>
#include <QGridLayout>
#include <QGroupBox>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QSpinBox>
#include <QStatusBar>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <limits>

#include "app/gui/base/workbench.h"
#include "app/gui/study/study_document.h"
#include "app/gui/views/view_panels.h"

namespace delineate::app::gui {

namespace {

// Edit step names are stored in English (the undo history is core's) and shown translated.
const char* const kStepNames[] = {
    QT_TRANSLATE_NOOP("EditStep", "Paint"),
    QT_TRANSLATE_NOOP("EditStep", "Erase"),
    QT_TRANSLATE_NOOP("EditStep", "Flood fill"),
    QT_TRANSLATE_NOOP("EditStep", "Keep largest island"),
    QT_TRANSLATE_NOOP("EditStep", "Remove small islands"),
    QT_TRANSLATE_NOOP("EditStep", "Fill holes"),
    QT_TRANSLATE_NOOP("EditStep", "Smooth"),
    QT_TRANSLATE_NOOP("EditStep", "Interpolate slices"),
    QT_TRANSLATE_NOOP("EditStep", "Interpolate slices over other labels"),
    QT_TRANSLATE_NOOP("EditStep", "Open label map"),
    QT_TRANSLATE_NOOP("EditStep", "Segment everything"),
    QT_TRANSLATE_NOOP("EditStep", "Segment selected classes"),
    QT_TRANSLATE_NOOP("EditStep", "Accept AI object"),
    QT_TRANSLATE_NOOP("EditStep", "Recovered edits"),
    QT_TRANSLATE_NOOP("EditStep", "Add label"),
    QT_TRANSLATE_NOOP("EditStep", "Rename label"),
    QT_TRANSLATE_NOOP("EditStep", "Lock label"),
    QT_TRANSLATE_NOOP("EditStep", "Recolour label"),
    QT_TRANSLATE_NOOP("EditStep", "Import label table"),
    QT_TRANSLATE_NOOP("EditStep", "Label names"),
};

}  // namespace

QString editStepName(const std::string& name) {
  return QCoreApplication::translate("EditStep", name.c_str());
}

EditTools::EditTools(StudyDocument& document, Workbench& bench, QWidget* parent)
    : QWidget(parent), m_document(document), m_bench(bench) {
  setObjectName("edit-tools");
  (void)kStepNames;
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);

  auto* toolRow = new QHBoxLayout();
  auto* group = new QButtonGroup(this);
  const char* names[4] = {"tool-navigate", "tool-brush", "tool-eraser", "tool-flood"};
  const Qt::Key keys[4] = {Qt::Key_N, Qt::Key_B, Qt::Key_E, Qt::Key_F};
  for (int i = 0; i < 4; ++i) {
    auto* b = new QToolButton(this);
    b->setObjectName(names[i]);
    b->setCheckable(true);
    b->setToolButtonStyle(Qt::ToolButtonTextOnly);
    group->addButton(b, i);
    toolRow->addWidget(b);
    m_toolButtons[i] = b;
    auto* shortcut = new QAction(this);
    shortcut->setShortcut(QKeySequence(keys[i]));
    connect(shortcut, &QAction::triggered, this, [this, i] { setTool(static_cast<Tool>(i)); });
    m_bench.widget()->addAction(shortcut);
    m_toolActions[i] = shortcut;
  }
  m_toolButtons[0]->setChecked(true);
  connect(group, &QButtonGroup::idClicked, this, [this](int id) { setTool(static_cast<Tool>(id)); });
  layout->addLayout(toolRow);

  auto* options = new QGridLayout();
  int row = 0;
  auto label = [this, options, &row](const char* name) {
    auto* l = new QLabel(this);
    l->setObjectName(name);
    options->addWidget(l, row, 0);
    return l;
  };
  label("radius-label");
  m_radius = new QDoubleSpinBox(this);
  m_radius->setObjectName("brush-radius");
  m_radius->setRange(0.01, 100.0);
  m_radius->setDecimals(2);
  m_radius->setSingleStep(0.5);
  m_radius->setValue(4.0);
  m_radius->setSuffix(" mm");
  options->addWidget(m_radius, row++, 1);
  m_sphere = new QCheckBox(this);
  m_sphere->setObjectName("brush-sphere");
  options->addWidget(m_sphere, row++, 0, 1, 2);
  m_flood3d = new QCheckBox(this);
  m_flood3d->setObjectName("flood-3d");
  options->addWidget(m_flood3d, row++, 0, 1, 2);
  m_protect = new QCheckBox(this);
  m_protect->setObjectName("protect-labels");
  options->addWidget(m_protect, row++, 0, 1, 2);
  m_threshold = new QCheckBox(this);
  m_threshold->setObjectName("threshold-paint");
  options->addWidget(m_threshold, row++, 0, 1, 2);
  m_low = new QDoubleSpinBox(this);
  m_high = new QDoubleSpinBox(this);
  for (QDoubleSpinBox* box : {m_low, m_high}) {
    box->setRange(-100000, 100000);
    box->setDecimals(1);
    box->setEnabled(false);
  }
  m_low->setObjectName("threshold-low");
  m_high->setObjectName("threshold-high");
  m_low->setValue(-100);
  m_high->setValue(300);
  auto* range = new QHBoxLayout();
  range->addWidget(m_low);
  range->addWidget(m_high);
  options->addLayout(range, row++, 0, 1, 2);
  connect(m_threshold, &QCheckBox::toggled, m_low, &QWidget::setEnabled);
  connect(m_threshold, &QCheckBox::toggled, m_high, &QWidget::setEnabled);
  layout->addLayout(options);

  auto* ops = new QGroupBox(this);
  ops->setObjectName("label-operations");
  auto* opsLayout = new QGridLayout(ops);
  auto opButton = [this](const char* name, bool (EditTools::*fn)()) {
    auto* b = new QPushButton(this);
    b->setObjectName(name);
    connect(b, &QPushButton::clicked, this, [this, fn] { (this->*fn)(); });
    return b;
  };
  opsLayout->addWidget(opButton("op-largest", &EditTools::keepLargestIsland), 0, 0, 1, 2);
  opsLayout->addWidget(opButton("op-small-islands", &EditTools::removeSmallIslands), 1, 0);
  m_minIsland = new QSpinBox(this);
  m_minIsland->setObjectName("min-island");
  m_minIsland->setRange(1, 10000000);
  m_minIsland->setValue(100);
  opsLayout->addWidget(m_minIsland, 1, 1);
  opsLayout->addWidget(opButton("op-fill-holes", &EditTools::fillHoles), 2, 0, 1, 2);
  opsLayout->addWidget(opButton("op-smooth", &EditTools::smooth), 3, 0);
  m_smoothRadius = new QDoubleSpinBox(this);
  m_smoothRadius->setObjectName("smooth-radius");
  m_smoothRadius->setRange(0.5, 20);
  m_smoothRadius->setValue(1.5);
  m_smoothRadius->setSuffix(" mm");
  opsLayout->addWidget(m_smoothRadius, 3, 1);
  opsLayout->addWidget(opButton("op-interpolate", &EditTools::interpolate), 4, 0);
  m_interpolateAxis = new QComboBox(this);
  m_interpolateAxis->setObjectName("interpolate-view");
  m_interpolateAxis->addItems({QString(), QString(), QString()});
  opsLayout->addWidget(m_interpolateAxis, 4, 1);
  layout->addWidget(ops);
  layout->addStretch(1);

  m_undo = new QAction(this);
  m_undo->setObjectName("undo");
  m_undo->setShortcut(QKeySequence::Undo);
  connect(m_undo, &QAction::triggered, this, &EditTools::undo);
  m_redo = new QAction(this);
  m_redo->setObjectName("redo");
  m_redo->setShortcuts({QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Z), QKeySequence(Qt::CTRL | Qt::Key_Y)});
  connect(m_redo, &QAction::triggered, this, &EditTools::redo);

  m_grow = new QAction(this);
  m_grow->setShortcut(QKeySequence(Qt::Key_BracketRight));
  connect(m_grow, &QAction::triggered, this, [this] { setBrushRadius(brushRadius() * 1.25); });
  m_shrink = new QAction(this);
  m_shrink->setShortcut(QKeySequence(Qt::Key_BracketLeft));
  connect(m_shrink, &QAction::triggered, this, [this] { setBrushRadius(brushRadius() / 1.25); });
  m_bench.widget()->addAction(m_grow);
  m_bench.widget()->addAction(m_shrink);
  retranslate();
  updateUndoActions();

  // A stroke in progress writes the map that is about to go; undo texts follow every change of the labels.
  connect(&m_document, &StudyDocument::aboutToChange, this, &EditTools::cancelStroke);
  connect(&m_document, &StudyDocument::studyReplaced, this, &EditTools::updateUndoActions);
  // The brush starts at a size that fits the new image (4 mm was a quarter of a mouse brain).
  connect(&m_document, &StudyDocument::studyReplaced, this, [this] {
    const core::AnnotationSession* session = m_document.session();
    if (!session) return;
    const double radius = defaultBrushRadius(session->image().geometry());
    m_radius->setSingleStep(std::max(0.01, std::round(radius * 100.0 / 8.0) / 100.0));
    m_radius->setValue(radius);
  });
  connect(&m_document, &StudyDocument::labelsReplaced, this, &EditTools::updateUndoActions);
  connect(&m_document, &StudyDocument::edited, this, &EditTools::updateUndoActions);
  connect(&m_document, &StudyDocument::tableChanged, this, &EditTools::updateUndoActions);  // table edits are steps
  connect(&m_document, &StudyDocument::labelEntryChanged, this, &EditTools::updateUndoActions);
}

EditTools::~EditTools() = default;

void EditTools::retranslate() {
  const QString toolTexts[4] = {tr("Navigate"), tr("Brush"), tr("Eraser"), tr("Fill")};
  const QString toolTips[4] = {tr("Navigate: the crosshair, no editing (N)"), tr("Brush: paint the active label (B)"),
                               tr("Eraser: paint background (E)"),
                               tr("Flood fill: the connected region under the click (F)")};
  for (int i = 0; i < 4; ++i) {
    m_toolButtons[i]->setText(toolTexts[i]);
    m_toolButtons[i]->setToolTip(toolTips[i]);
    m_toolActions[i]->setText(toolTexts[i]);
  }
  m_grow->setText(tr("Larger brush"));
  m_shrink->setText(tr("Smaller brush"));
  findChild<QLabel*>("radius-label")->setText(tr("Brush radius"));
  m_radius->setToolTip(tr("[ and ] or Shift + wheel over a view"));
  m_sphere->setText(tr("3D brush (sphere)"));
  m_flood3d->setText(tr("3D flood fill"));
  m_protect->setText(tr("Protect other labels"));
  m_protect->setToolTip(tr("The brush paints only over background; the eraser removes only the active label"));
  m_threshold->setText(tr("Only intensities in range"));
  findChild<QGroupBox*>("label-operations")->setTitle(tr("Active label"));
  const std::pair<const char*, QString> ops[] = {{"op-largest", tr("Keep largest island")},
                                                 {"op-small-islands", tr("Remove islands under (voxels)")},
                                                 {"op-fill-holes", tr("Fill holes")},
                                                 {"op-smooth", tr("Smooth")},
                                                 {"op-interpolate", tr("Interpolate slices")}};
  for (const auto& [name, text] : ops) findChild<QPushButton*>(name)->setText(text);
  m_interpolateAxis->setItemText(0, tr("Axial"));
  m_interpolateAxis->setItemText(1, tr("Coronal"));
  m_interpolateAxis->setItemText(2, tr("Sagittal"));
  updateUndoActions();
}

QList<QAction*> EditTools::toolActions() const {
  return {m_toolActions[0], m_toolActions[1], m_toolActions[2], m_toolActions[3], m_grow, m_shrink};
}

void EditTools::attach(SlicePanel* panel) {
  m_panels.push_back(panel);
  connect(panel, &SlicePanel::paintPressed, this, [this, panel](core::Vec3 lps) {
    if (m_tool == Tool::FloodFill) floodFill(panel, lps);
    else beginStroke(panel, lps);
  });
  connect(panel, &SlicePanel::paintDragged, this, [this, panel](core::Vec3 from, core::Vec3 to) {
    if (m_stroke && panel == m_strokePanel) continueStroke(from, to);
  });
  connect(panel, &SlicePanel::paintReleased, this, [this] { endStroke(); });
  connect(panel, &SlicePanel::brushResizeRequested, this,
          [this](int steps) { setBrushRadius(brushRadius() * std::pow(1.1, steps)); });
  connect(panel, &SlicePanel::hovered, this, [this, panel](core::Vec3 lps) {
    if (m_tool == Tool::Brush || m_tool == Tool::Eraser) showBrush(panel, lps);
  });
}

void EditTools::setTool(Tool tool) {
  cancelStroke();
  m_tool = tool;
  m_toolButtons[static_cast<int>(tool)]->setChecked(true);
  m_bench.setEditing(tool != Tool::Navigate);
  if (tool != Tool::Brush && tool != Tool::Eraser)
    for (SlicePanel* p : m_panels) p->scene().setBrushOutline(std::nullopt, 0);
  m_bench.refreshViews();
}

double EditTools::brushRadius() const { return m_radius->value(); }

double EditTools::defaultBrushRadius(const core::Geometry& geometry) {
  const auto& sp = geometry.spacingMm();
  const auto& d = geometry.dimensions();
  if (geometry.voxelCount() == 0) return 4.0;
  const double finest = std::min({sp[0], sp[1], sp[2]});
  const double smallestExtent =
      std::min({sp[0] * double(d[0]), sp[1] * double(d[1]), sp[2] * double(d[2])});
  const double radius = std::max(finest, std::min(3.0 * finest, smallestExtent / 20.0));
  // Two significant digits (1.5 mm, 0.24 mm), within the spin box's range.
  const double step = std::pow(10.0, std::floor(std::log10(radius)) - 1);
  return std::clamp(std::round(radius / step) * step, 0.01, 100.0);
}
void EditTools::setBrushRadius(double mm) {
  m_radius->setValue(mm);
  m_bench.showStatus(tr("Brush radius %1 mm").arg(m_radius->value(), 0, 'g', 3), 2000);
}
void EditTools::setSphere(bool sphere) { m_sphere->setChecked(sphere); }
void EditTools::setFlood3d(bool threeD) { m_flood3d->setChecked(threeD); }
void EditTools::setProtectOtherLabels(bool protect) { m_protect->setChecked(protect); }
void EditTools::setIntensityRange(std::optional<core::IntensityRange> range) {
  m_threshold->setChecked(range.has_value());
  if (range) {
    m_low->setValue(range->low);
    m_high->setValue(range->high);
  }
}

core::BrushOptions EditTools::brushOptions(const SlicePanel* panel) const {
  core::BrushOptions o;
  o.radiusMm = m_radius->value();
  o.sphere = m_sphere->isChecked();
  if (const core::AnnotationSession* s = m_document.session())
    o.axis = core::sliceAxisFor(s->image().geometry(), const_cast<SlicePanel*>(panel)->scene().normal());
  if (m_threshold->isChecked())
    o.intensity = core::IntensityRange{static_cast<float>(m_low->value()), static_cast<float>(m_high->value())};
  return o;
}

core::EditPolicy EditTools::policy(core::Label writing) const {
  core::EditPolicy p;
  if (m_protect->isChecked()) p.overwriteOnly = writing == 0 ? m_active : core::Label(0);
  return p;
}

void EditTools::showBrush(SlicePanel* panel, const core::Vec3& lps) {
  for (SlicePanel* p : m_panels) p->scene().setBrushOutline(p == panel ? std::optional(lps) : std::nullopt, brushRadius());
  panel->view().update();
}

void EditTools::beginStroke(SlicePanel* panel, const core::Vec3& lps) {
  core::AnnotationSession* session = m_document.editableSession();
  if (!session || m_stroke) return;
  const core::Label label = m_tool == Tool::Eraser ? core::Label(0) : m_active;
  if (m_tool == Tool::Brush && label == 0) {
    m_bench.reportError(tr("Choose or add a label to paint with"));
    return;
  }
  m_stroke.emplace(session->beginEdit(m_tool == Tool::Eraser ? "Erase" : "Paint", policy(label)));
  if (!m_stroke->isOpen()) {
    m_stroke.reset();
    return;
  }
  m_strokePanel = panel;
  core::paintBrush(*m_stroke, lps, label, brushOptions(panel), &session->image());
  m_document.labelsModifiedInPlace(panel);
}

void EditTools::continueStroke(const core::Vec3& from, const core::Vec3& to) {
  const core::Label label = m_tool == Tool::Eraser ? core::Label(0) : m_active;
  core::paintStroke(*m_stroke, from, to, label, brushOptions(m_strokePanel), &m_document.session()->image());
  showBrush(m_strokePanel, to);
  m_document.labelsModifiedInPlace(m_strokePanel);
}

void EditTools::endStroke() {
  if (!m_stroke) return;
  core::EditTransaction tx = std::move(*m_stroke);
  m_stroke.reset();
  m_strokePanel = nullptr;
  commit(tx);
  if (m_pendingPatch) {
    const PendingPatch pending = std::move(*m_pendingPatch);
    m_pendingPatch.reset();
    applyPatch(pending.patch, pending.name, pending.keepBackground, pending.names ? &*pending.names : nullptr);
  }
}

void EditTools::cancelStroke() {
  m_pendingPatch.reset();  // the study or its labels are being replaced: an engine result for them is void too
  if (!m_stroke) return;
  m_stroke->rollback();
  m_stroke.reset();
  m_strokePanel = nullptr;
  m_document.labelsModifiedInPlace();
}

bool EditTools::commit(core::EditTransaction& tx, std::optional<core::LabelTable> table) {
  core::AnnotationSession* session = m_document.editableSession();
  if (!session->commit(tx, std::move(table))) {  // nothing changed (all locked, or painted over itself)
    m_document.labelsModifiedInPlace();
    updateUndoActions();
    return false;
  }
  m_document.labelsEdited(*session->history().nextUndo());
  updateUndoActions();
  return true;
}

void EditTools::floodFill(SlicePanel* panel, const core::Vec3& lps) {
  core::AnnotationSession* session = m_document.editableSession();
  if (!session || m_stroke) return;
  if (m_active == 0) {
    m_bench.reportError(tr("Choose or add a label to fill with"));
    return;
  }
  core::FloodOptions o;
  o.threeD = m_flood3d->isChecked();
  o.axis = core::sliceAxisFor(session->image().geometry(), panel->scene().normal());
  if (m_threshold->isChecked())
    o.intensity = core::IntensityRange{static_cast<float>(m_low->value()), static_cast<float>(m_high->value())};
  const core::Index3 seed = session->image().geometry().lpsToNearestIndex(lps);
  runOperation(
      "Flood fill",
      [&](core::EditTransaction& tx) { return core::floodFill(tx, session->labels(), seed, m_active, o, &session->image()); },
      policy(m_active));
}

bool EditTools::runOperation(const char* name,
                             const std::function<core::Result<std::size_t>(core::EditTransaction&)>& op,
                             core::EditPolicy policy) {
  core::AnnotationSession* session = m_document.editableSession();
  if (!session || m_stroke) return false;
  if (m_active == 0) {
    m_bench.reportError(tr("Choose a label first"));
    return false;
  }
  QApplication::setOverrideCursor(Qt::WaitCursor);
  core::EditTransaction tx = session->beginEdit(name, policy);
  core::Result<std::size_t> r = op(tx);
  QApplication::restoreOverrideCursor();
  if (!r) {
    tx.rollback();
    m_bench.reportError(tr("%1: %2").arg(editStepName(name), QString::fromStdString(r.error().describe())));
    return false;
  }
  const bool changed = commit(tx);
  m_bench.showStatus(changed ? tr("%1: %n voxel(s) changed", nullptr, static_cast<int>(*r)).arg(editStepName(name))
                                            : tr("%1: nothing to change").arg(editStepName(name)),
                                    4000);
  return changed;
}

bool EditTools::applyPatch(const core::LabelPatch& patch, const char* name, bool keepBackground,
                           const core::LabelTable* names) {
  core::AnnotationSession* session = m_document.editableSession();
  if (!session) return false;
  if (m_stroke) {  // the user is painting: the result waits for the stroke's end
    m_pendingPatch = PendingPatch{patch, name, keepBackground, names ? std::optional<core::LabelTable>(*names) : std::nullopt};
    return true;
  }
  std::optional<core::LabelTable> table;
  std::optional<core::LabelPatch> renumbered;
  if (names) {
    table = session->table();
    std::vector<bool> written(65536, false);
    for (core::Label v : patch.voxels) written[v] = true;
    std::set<core::Label> taken;  // ids voxels carry now or will carry
    for (const auto& [label, count] : m_document.voxelCounts()) taken.insert(label);
    for (std::uint32_t v = 1; v < 65536; ++v)
      if (written[v]) taken.insert(static_cast<core::Label>(v));
    std::vector<core::Label> to(65536);
    bool moved = false;
    for (std::uint32_t v = 0; v < 65536; ++v) {
      to[v] = static_cast<core::Label>(v);
      const core::LabelEntry* cls = v && written[v] ? names->find(static_cast<core::Label>(v)) : nullptr;
      if (!cls) continue;
      const core::LabelEntry* known = table->find(cls->id);
      if (known && known->name == cls->name) continue;  // the same class, written before
      core::LabelEntry entry = *cls;
      if (known || m_document.voxelCounts().count(cls->id)) {  // the id means something else here
        entry.id = table->nextFreeId(taken);
        if (entry.id == 0) {
          m_bench.reportError(tr("%1: every label id is in use").arg(editStepName(name)));
          return false;
        }
        taken.insert(entry.id);
        to[v] = entry.id;
        moved = true;
      }
      table->set(entry);
    }
    if (moved) {
      renumbered = patch;
      for (core::Label& v : renumbered->voxels) v = to[v];
    }
  }
  core::EditTransaction tx = session->beginEdit(name);
  auto written = tx.applyPatch(renumbered ? *renumbered : patch, keepBackground);
  if (!written) {
    tx.rollback();
    m_bench.reportError(tr("%1: %2").arg(editStepName(name), QString::fromStdString(written.error().describe())));
    return false;
  }
  return commit(tx, std::move(table));
}

bool EditTools::keepLargestIsland() {
  const core::LabelMap* map = m_document.session() ? &m_document.session()->labels() : nullptr;
  return runOperation("Keep largest island", [&](core::EditTransaction& tx) {
    return core::keepLargestIsland(tx, *map, m_active);
  });
}

bool EditTools::removeSmallIslands() {
  const core::LabelMap* map = m_document.session() ? &m_document.session()->labels() : nullptr;
  const auto minimum = static_cast<std::size_t>(m_minIsland->value());
  return runOperation("Remove small islands", [&](core::EditTransaction& tx) {
    return core::removeSmallIslands(tx, *map, m_active, minimum);
  });
}

bool EditTools::fillHoles() {
  const core::LabelMap* map = m_document.session() ? &m_document.session()->labels() : nullptr;
  return runOperation("Fill holes", [&](core::EditTransaction& tx) { return core::fillHoles(tx, *map, m_active); });
}

bool EditTools::smooth() {
  const core::LabelMap* map = m_document.session() ? &m_document.session()->labels() : nullptr;
  const double radius = m_smoothRadius->value();
  return runOperation("Smooth", [&](core::EditTransaction& tx) { return core::smoothLabel(tx, *map, m_active, radius); });
}

bool EditTools::interpolate() {
  core::ToolWork work;
  const bool changed = runInterpolation(false, work);
  if (work.heldByOtherLabels == 0) return changed;
  // Interpolation fills only unlabelled voxels; inside a parcellated atlas the voxels between the slices all belong
  // to some label, and "nothing to change" alone does not say why.
  const int held = static_cast<int>(std::min<std::size_t>(work.heldByOtherLabels, std::numeric_limits<int>::max()));
  const QString why =
      tr("Interpolate slices: %n voxel(s) between the slices belong to other labels and were left as they are "
         "(interpolation fills only unlabelled voxels)",
         nullptr, held);
  if (changed || !m_bench.dialogsEnabled() ||
      QMessageBox::question(m_bench.widget(), tr("Interpolate Slices"),
                            why + "\n\n" + tr("Interpolate over the other labels? Locked labels stay as they are; "
                                               "Undo takes it back in one step."),
                            QMessageBox::Yes | QMessageBox::No, QMessageBox::No) != QMessageBox::Yes) {
    m_bench.showStatus(why, 8000);
    return changed;
  }
  return interpolateOverOtherLabels();
}

bool EditTools::interpolateOverOtherLabels() {
  core::ToolWork work;
  return runInterpolation(true, work);
}

bool EditTools::runInterpolation(bool overOtherLabels, core::ToolWork& work) {
  const core::AnnotationSession* session = m_document.session();
  if (!session) return false;
  const viewer::SliceOrientation views[3] = {viewer::SliceOrientation::Axial, viewer::SliceOrientation::Coronal,
                                             viewer::SliceOrientation::Sagittal};
  const int axis = core::sliceAxisFor(session->image().geometry(),
                                      m_bench.slicePanel(views[m_interpolateAxis->currentIndex()])->scene().normal());
  return runOperation(overOtherLabels ? "Interpolate slices over other labels" : "Interpolate slices",
                      [&](core::EditTransaction& tx) {
                        return core::interpolateSlices(tx, session->labels(), m_active, axis, work, overOtherLabels);
                      });
}

bool EditTools::undo() {
  core::AnnotationSession* session = m_document.editableSession();
  if (!session || m_stroke) return false;
  const auto name = session->undo();
  if (!name) return false;
  m_document.labelsEdited(*session->history().nextRedo());  // the step just undone
  m_bench.showStatus(tr("Undone: %1").arg(editStepName(*name)), 3000);
  updateUndoActions();
  return true;
}

bool EditTools::redo() {
  core::AnnotationSession* session = m_document.editableSession();
  if (!session || m_stroke) return false;
  const auto name = session->redo();
  if (!name) return false;
  m_document.labelsEdited(*session->history().nextUndo());
  m_bench.showStatus(tr("Redone: %1").arg(editStepName(*name)), 3000);
  updateUndoActions();
  return true;
}

void EditTools::updateUndoActions() {
  const core::AnnotationSession* session = m_document.session();
  const std::string* undoName = session ? session->history().nextUndoName() : nullptr;
  const std::string* redoName = session ? session->history().nextRedoName() : nullptr;
  m_undo->setEnabled(undoName != nullptr);
  m_redo->setEnabled(redoName != nullptr);
  m_undo->setText(undoName ? tr("&Undo %1").arg(editStepName(*undoName)) : tr("&Undo"));
  m_redo->setText(redoName ? tr("&Redo %1").arg(editStepName(*redoName)) : tr("&Redo"));
}

}  // namespace delineate::app::gui
