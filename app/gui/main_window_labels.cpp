// The window's label state: counts kept from edits, the table (names, colours, locks), visibility and opacity,
// and what the views do when voxels change during a stroke and after it.
#include <QApplication>
#include <QFileInfo>
#include <QSettings>
#include <QSlider>
#include <QStatusBar>
#include <QTimer>

#include "app/gui/edit_tools.h"
#include "app/gui/label_panel.h"
#include "app/gui/main_window.h"
#include "app/gui/pdf_report.h"
#include "app/gui/session_files.h"
#include "app/gui/view_panels.h"
#include "core/statistics.h"
#include "io/dicom_seg_write.h"
#include "io/dicom_sr.h"
#include "io/statistics_report.h"
#include "viewer/mesh_export.h"
#include "viewer/surface_scene.h"

namespace delineate::app::gui {

namespace {
QString fromError(const core::Error& e) { return QString::fromStdString(e.describe()); }
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

bool MainWindow::exportStatistics(const QString& path, bool deidentified, const std::optional<core::SliceRange>& slices) {
  if (!m_session) return false;
  QApplication::setOverrideCursor(Qt::WaitCursor);
  core::StatisticsOptions options;
  options.slices = slices;
  auto stats = core::computeLabelStatistics(m_session->labels(), &m_session->image(), options);
  io::StatisticsReportInfo info;
  info.image = windowFilePath().toStdString();
  info.labelSource = m_session->baseRevision();
  info.intensityUnit = m_isCt ? "HU" : "";
  info.geometry = m_session->image().geometry();
  info.deidentified = deidentified;
  info.slices = slices;
  core::Status written = stats ? io::writeStatisticsFile(path.toStdString(), *stats, m_session->table(), info)
                               : core::Status(stats.error());
  QApplication::restoreOverrideCursor();
  if (!written) {
    fail(fromError(written.error()));
    return false;
  }
  statusBar()->showMessage(tr("Statistics of %n label(s) written to %1", nullptr, static_cast<int>(stats->size())).arg(path), 6000);
  return true;
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

bool MainWindow::exportDicomSeg(const QString& path, bool deidentified, const QString& srPath) {
  if (!m_session) return false;
  if (!m_dicomSource) {
    fail(tr("A DICOM SEG references the DICOM series it was drawn on: open the study from its DICOM folder"));
    return false;
  }
  io::SegWriteOptions options;
  options.deidentify = deidentified;
  options.algorithmName = "Delineate";
  options.algorithmType = "SEMIAUTOMATIC";
  const bool labelmap = QSettings().value("export/segLabelmap", false).toBool();
  options.encoding = labelmap ? io::SegEncoding::Labelmap : io::SegEncoding::Binary;
  QApplication::setOverrideCursor(Qt::WaitCursor);
  io::SegWriteInfo info;
  core::Status written =
      io::writeDicomSeg(path.toStdString(), m_session->labels(), m_session->table(), *m_dicomSource, options, &info);
  if (written && !srPath.isEmpty()) {
    // The report's figures are those of the statistics export and the PDF: the same computation on the same voxels.
    auto stats = core::computeLabelStatistics(m_session->labels(), &m_session->image());
    if (!stats) {
      written = core::Status(stats.error());
    } else {
      std::map<core::Label, const core::LabelStatistics*> byLabel;
      for (const auto& s : *stats) byLabel[s.label] = &s;
      std::vector<io::SrSegmentMeasurements> groups;
      for (const auto& [number, label] : info.segments)
        if (auto it = byLabel.find(label); it != byLabel.end())
          groups.push_back({number, io::srMeasurementsFor(*it->second, m_dicomSource->modality)});
      io::SrWriteOptions sr;
      sr.modality = m_dicomSource->modality;
      if (!deidentified) sr.observerName = QSettings().value("user/name").toString().toStdString();
      written = io::writeDicomSr(srPath.toStdString(), path.toStdString(), groups, sr);
    }
    if (!written) {
      QApplication::restoreOverrideCursor();
      fail(tr("The DICOM SEG was written to %1, the measurement report was not: %2").arg(path, fromError(written.error())));
      return false;
    }
  }
  QApplication::restoreOverrideCursor();
  if (!written) {
    fail(fromError(written.error()));
    return false;
  }
  if (srPath.isEmpty()) statusBar()->showMessage(tr("DICOM SEG written to %1").arg(path), 6000);
  else statusBar()->showMessage(tr("DICOM SEG written to %1, measurement report to %2").arg(path, srPath), 6000);
  return true;
}

bool MainWindow::exportPdfReport(const QString& path, bool deidentified) {
  if (!m_session) return false;
  QApplication::setOverrideCursor(Qt::WaitCursor);
  auto stats = core::computeLabelStatistics(m_session->labels(), &m_session->image());
  core::Status written = stats.ok() ? core::Status::success() : core::Status(stats.error());
  if (stats) {
    PdfReportInput input;
    input.image = &m_session->image();
    input.labels = &m_session->labels();
    input.table = &m_session->table();
    input.stats = std::move(stats).value();
    input.studyTitle = QFileInfo(windowFilePath()).fileName();
    if (m_dicomSource) input.seriesDescription = QString::fromStdString(m_dicomSource->seriesDescription);
    input.isCt = m_isCt;
    input.deidentified = deidentified;
    written = writePdfReport(path, input);
  }
  QApplication::restoreOverrideCursor();
  if (!written) {
    fail(fromError(written.error()));
    return false;
  }
  statusBar()->showMessage(tr("Report written to %1").arg(path), 6000);
  return true;
}

}  // namespace delineate::app::gui
