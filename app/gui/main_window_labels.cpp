// The window's label state: counts kept from edits, the table (names, colours, locks), visibility and opacity,
// and what the views do when voxels change during a stroke and after it.
#include <QApplication>
#include <QFileInfo>
#include <QSettings>
#include <QSlider>
#include <QStatusBar>
#include <QTimer>

#include "app/gui/error_text.h"
#include "app/gui/edit_tools.h"
#include "app/gui/label_panel.h"
#include "app/gui/main_window.h"
#include "app/gui/pdf_report.h"
#include "app/gui/session_files.h"
#include "app/gui/view_panels.h"
#include "core/statistics.h"
#include "io/dicom/dicom_seg_write.h"
#include "io/dicom/dicom_sr.h"
#include "io/report/statistics_report.h"
#include "viewer/mesh_export.h"
#include "viewer/surface_scene.h"

namespace delineate::app::gui {

namespace {
}  // namespace

void MainWindow::refreshLabelList() {
  m_counts.clear();
  if (m_session) {
    // Counts come from core's statistics (no image: no intensity pass); edits then keep them from their steps.
    core::StatisticsOptions countsOnly;  // the panel shows volumes only
    countsOnly.median = false;
    countsOnly.diameter = false;
    auto stats = core::computeLabelStatistics(m_session->labels(), nullptr, countsOnly);
    if (stats)
      for (const core::LabelStatistics& st : *stats) m_counts[st.label] = st.voxelCount;
  }
  m_labels->refresh(m_counts);
}

void MainWindow::labelsEdited(const std::set<core::Label>& changed) {
  if (!m_session) return;
  refreshLabelList();
  afterEdit(changed);
}

void MainWindow::labelsEdited(const core::EditStep& step) {
  if (!m_session) return;
  const core::EditStep::LabelChanges changes = step.labelChanges(m_session->labels().voxels());
  for (const auto& [label, delta] : changes.delta) {
    if (label == 0) continue;
    const std::int64_t now = static_cast<std::int64_t>(m_counts[label]) + delta;
    if (now > 0) m_counts[label] = static_cast<std::uint64_t>(now);
    else m_counts.erase(label);
  }
  m_labels->refresh(m_counts);
  afterEdit(changes.involved);
}

void MainWindow::afterEdit(const std::set<core::Label>& changed) {
  for (SlicePanel* p : {m_axial, m_sagittal, m_coronal}) p->scene().labelsModified();
  m_otherViewsTimer->stop();
  m_paintedIn = nullptr;
  if (!changed.empty()) {
    m_surfaceBacklog.insert(changed.begin(), changed.end());
    m_surfaceTimer->start();
  }
  refreshViews();
  updateReadout(m_cursor);
  m_files->noteEdit();
  m_tools->updateUndoActions();
  Q_EMIT labelsChanged();
}

void MainWindow::labelsModifiedInPlace(SlicePanel* paintedIn) {
  m_paintedIn = paintedIn;
  for (SlicePanel* p : {m_axial, m_sagittal, m_coronal}) {
    if (paintedIn && p != paintedIn) continue;
    p->scene().labelsModified();
    p->view().repaint();  // now: a stroke's dabs show as the mouse moves, not when the event queue drains
  }
  if (paintedIn && !m_otherViewsTimer->isActive()) m_otherViewsTimer->start();
}

void MainWindow::recolourScenes() {
  if (!m_session) return;
  for (SlicePanel* p : {m_axial, m_sagittal, m_coronal}) p->scene().setLabelColors(m_session->table(), m_hidden);
  m_surface->scene().setLabelColors(m_session->table(), m_hidden);
  refreshViews();
  m_surface->refresh();
}

void MainWindow::setLabelEntry(const core::LabelEntry& entry) {
  if (!m_session) return;
  m_session->setLabelEntry(entry);
  recolourScenes();
  m_labels->updateEntry(entry);
}

void MainWindow::setLabelTable(core::LabelTable table) {
  if (!m_session) return;
  m_session->setTable(std::move(table));
  recolourScenes();
  m_labels->refresh(m_counts);
}

void MainWindow::mergeLabelTable(const core::LabelTable& classes) {
  if (!m_session) return;
  bool added = false;
  for (const core::LabelEntry& e : classes.entries())
    if (!m_session->table().contains(e.id)) {
      m_session->setLabelEntry(e);
      added = true;
    }
  if (added) {
    recolourScenes();
    m_labels->refresh(m_counts);
  }
}

bool MainWindow::applyRecoveredLabels(const core::LabelMap& labels) {
  if (!m_session) return false;
  if (!labels.geometry().isCloseTo(m_session->image().geometry())) {
    fail(tr("The recovered labels do not fit %1's grid").arg(windowTitle()));
    return false;
  }
  m_tools->cancelStroke();
  if (core::Status s = m_session->replaceLabels(labels.voxels(), "Recovered edits"); !s) {
    fail(fromError(s.error()));
    return false;
  }
  for (SlicePanel* p : {m_axial, m_sagittal, m_coronal}) p->scene().labelsModified();
  refreshLabelList();
  rebuildSurfaces();
  refreshViews();
  m_tools->updateUndoActions();
  statusBar()->showMessage(tr("Recovered the unsaved edits: save them to keep them"), 10000);
  return true;
}

void MainWindow::setLabelVisible(core::Label label, bool visible) {
  if (visible) m_hidden.erase(label);
  else m_hidden.insert(label);
  if (!m_session) return;
  for (SlicePanel* p : {m_axial, m_sagittal, m_coronal}) p->scene().setLabelColors(m_session->table(), m_hidden);
  m_surface->scene().setLabelColors(m_session->table(), m_hidden);
  m_labels->updateVisibility(label, visible);
  refreshViews();
  m_surface->refresh();
}

void MainWindow::setLabelOpacity(double opacity) {
  m_opacity = std::clamp(opacity, 0.0, 1.0);
  for (SlicePanel* p : {m_axial, m_sagittal, m_coronal}) p->scene().setLabelOpacity(m_opacity);
  QSlider* slider = m_labels->opacitySlider();
  if (slider->value() != static_cast<int>(std::lround(m_opacity * 100)))
    slider->setValue(static_cast<int>(std::lround(m_opacity * 100)));
  refreshViews();
}

void MainWindow::setLabelOutline(bool outline) {
  for (SlicePanel* p : {m_axial, m_sagittal, m_coronal}) p->scene().setLabelOutline(outline);
  refreshViews();
}

std::optional<core::SliceRange> MainWindow::viewSliceRange(viewer::SliceOrientation view, std::int64_t first,
                                                           std::int64_t last) const {
  if (!m_session) return std::nullopt;
  const viewer::SliceScene& scene = slicePanel(view)->scene();
  const auto [axis, a] = scene.voxelSlice(first - 1);
  const auto [axisLast, b] = scene.voxelSlice(last - 1);
  (void)axisLast;  // the same axis: it depends only on the view's normal
  return core::SliceRange{axis, std::min(a, b), std::max(a, b)};
}

bool MainWindow::exportSurfaces(const QString& folder, bool obj) {
  if (!m_session) return false;
  const auto surfaces = m_surface->scene().surfaces();
  if (surfaces.empty()) {
    fail(tr("No label surfaces to export (the map holds no labels, or they are still being built)"));
    return false;
  }
  auto paths = viewer::writeMeshes(folder.toStdString(), surfaces, obj ? viewer::MeshFormat::Obj : viewer::MeshFormat::StlBinary);
  if (!paths) {
    fail(fromError(paths.error()));
    return false;
  }
  statusBar()->showMessage(tr("%n surface file(s) written to %1", nullptr, static_cast<int>(paths->size())).arg(folder), 6000);
  return true;
}

}  // namespace delineate::app::gui
