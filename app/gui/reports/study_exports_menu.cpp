// File > Export's entries: each asks for its file (or folder) and runs the export.
#include <QAction>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QInputDialog>
#include <QLineEdit>
#include <QMenu>
#include <QMessageBox>
#include <QSettings>

#include <array>

#include "app/gui/base/workbench.h"
#include "app/gui/reports/slice_range_dialog.h"
#include "app/gui/reports/study_exports.h"
#include "app/gui/study/session_files.h"
#include "app/gui/study/study_document.h"
#include "app/gui/views/view_panels.h"

namespace delineate::app::gui {
namespace {
constexpr const char* kLastFolderKey = "export/lastFolder";

// A chosen export path: its folder is where the next export dialog starts.
QString remembered(const QString& path) {
  if (!path.isEmpty()) QSettings().setValue(kLastFolderKey, QFileInfo(path).absolutePath());
  return path;
}
}  // namespace

QString StudyExports::suggestedPath(const QString& suffix, bool deidentified) const {
  QString folder = QSettings().value(kLastFolderKey).toString();
  if (folder.isEmpty() || !QFileInfo(folder).isDir()) folder = QDir::homePath();
  if (deidentified) return QDir(folder).filePath("deidentified_" + suffix);
  const QString study = m_document.hasStudy() ? defaultStudyName(m_document) : QString();
  return QDir(folder).filePath(study.isEmpty() ? suffix : study + "_" + suffix);
}

void StudyExports::fillMenu(QMenu* menu) {
  QWidget* parent = m_bench.widget();
  menu->addAction(tr("Label &Statistics (CSV, JSON)..."), this, [this, parent] {
    const QString path = remembered(QFileDialog::getSaveFileName(parent, tr("Export Label Statistics"), suggestedPath("statistics.csv"),
                                                      tr("CSV (*.csv);;JSON (*.json)")));
    if (!path.isEmpty()) exportStatistics(path, false);
  });
  menu->addAction(tr("Label Statistics, &De-identified..."), this, [this, parent] {
    const QString path = remembered(QFileDialog::getSaveFileName(parent, tr("Export Label Statistics"), suggestedPath("statistics.csv", true),
                                                      tr("CSV (*.csv);;JSON (*.json)")));
    if (!path.isEmpty()) exportStatistics(path, true);
  });
  menu->addAction(tr("Label Statistics of a Slice &Range..."), this, [this, parent] {
    if (!m_document.hasStudy()) return;
    std::array<std::pair<std::int64_t, std::int64_t>, 3> slices{};
    const std::array<viewer::SliceOrientation, 3> views{viewer::SliceOrientation::Axial, viewer::SliceOrientation::Coronal,
                                                        viewer::SliceOrientation::Sagittal};
    for (std::size_t i = 0; i < views.size(); ++i) slices[i] = m_bench.slicePanel(views[i])->scene().sliceIndex();
    SliceRangeDialog dialog(slices, parent);
    if (dialog.exec() != QDialog::Accepted) return;
    const ViewSliceRange chosen = dialog.range();
    // Named after the range, so that it does not replace the whole study's statistics.
    const QString suffix =
        QString("statistics_%1_%2-%3.csv").arg(viewer::orientationName(chosen.view)).arg(chosen.first).arg(chosen.last);
    const QString path = remembered(QFileDialog::getSaveFileName(parent, tr("Export Label Statistics"), suggestedPath(suffix),
                                                      tr("CSV (*.csv);;JSON (*.json)")));
    if (!path.isEmpty()) exportStatistics(path, false, viewSliceRange(chosen.view, chosen.first, chosen.last));
  });
  menu->addAction(tr("&PDF Report..."), this, [this, parent] {
    const QString path = remembered(QFileDialog::getSaveFileName(parent, tr("Export PDF Report"), suggestedPath("report.pdf"), tr("PDF (*.pdf)")));
    if (!path.isEmpty()) exportPdfReport(path, false);
  });
  menu->addAction(tr("PDF Report, De-identified..."), this, [this, parent] {
    const QString path = remembered(QFileDialog::getSaveFileName(parent, tr("Export PDF Report"), suggestedPath("report.pdf", true), tr("PDF (*.pdf)")));
    if (!path.isEmpty()) exportPdfReport(path, true);
  });
  menu->addAction(tr("DICOM S&EG..."), this, [this, parent] {
    const QString path = remembered(QFileDialog::getSaveFileName(parent, tr("Export DICOM SEG"), suggestedPath("seg.dcm"), tr("DICOM (*.dcm)")));
    if (!path.isEmpty()) exportDicomSeg(path, false);
  });
  menu->addAction(tr("DICOM SEG, De-identified..."), this, [this, parent] {
    const QString path = remembered(QFileDialog::getSaveFileName(parent, tr("Export DICOM SEG"), suggestedPath("seg.dcm", true), tr("DICOM (*.dcm)")));
    if (!path.isEmpty()) exportDicomSeg(path, true);
  });
  QAction* rt = menu->addAction(tr("&RT Structure Set..."), this, [this, parent] {
    const QString path = remembered(QFileDialog::getSaveFileName(parent, tr("Export RT Structure Set"),
                                                                 suggestedPath("rtstruct.dcm"), tr("DICOM (*.dcm)")));
    if (!path.isEmpty()) exportRtStruct(path, false);
  });
  rt->setObjectName("export-rtstruct");
  menu->addAction(tr("RT Structure Set, De-identified..."), this, [this, parent] {
    const QString path = remembered(QFileDialog::getSaveFileName(parent, tr("Export RT Structure Set"),
                                                                 suggestedPath("rtstruct.dcm", true), tr("DICOM (*.dcm)")));
    if (!path.isEmpty()) exportRtStruct(path, true);
  });
  // The SR references the SEG, so both are written together: one dialog for the SEG, the report beside it
  // (NAME_sr.dcm); the dialog asked about replacing the SEG, a question here about replacing the report.
  auto exportSegAndReport = [this, parent](bool deidentified) {
    const QString seg = remembered(QFileDialog::getSaveFileName(
        parent, tr("Export DICOM SEG and Measurement Report (the report is written beside it as NAME_sr.dcm)"),
        suggestedPath("seg.dcm", deidentified), tr("DICOM (*.dcm)")));
    if (seg.isEmpty()) return;
    const QString sr = reportPathFor(seg);
    bool replace = false;
    if (QFileInfo(sr).isFile() && m_bench.dialogsEnabled()) {
      if (QMessageBox::question(parent, tr("Replace Measurement Report"),
                                tr("The measurement report %1 already exists. Replace it?").arg(sr)) != QMessageBox::Yes)
        return;
      replace = true;
    }
    exportDicomSegAndReport(seg, deidentified, replace);
  };
  menu->addAction(tr("DICOM SEG and &Measurement Report (SR)..."), this, [exportSegAndReport] { exportSegAndReport(false); });
  menu->addAction(tr("DICOM SEG and Measurement Report, De-identified..."), this,
                        [exportSegAndReport] { exportSegAndReport(true); });
  QAction* labelmap = menu->addAction(tr("Write DICOM SEG as &Label Map (keeps label ids)"));
  labelmap->setCheckable(true);
  labelmap->setChecked(QSettings().value("export/segLabelmap", false).toBool());
  connect(labelmap, &QAction::toggled, this, [](bool on) { QSettings().setValue("export/segLabelmap", on); });
  menu->addSeparator();
  auto publish = [this, parent](bool deidentified) {
    bool ok = true;
    const QString message =
        m_bench.dialogsEnabled() ? QInputDialog::getText(parent, tr("Publish Report to Share"), tr("Message (optional):"), QLineEdit::Normal, {}, &ok)
                  : QString();
    if (ok) publishReportsToShare(deidentified, message);
  };
  menu->addAction(tr("Publish Report to S&hare..."), this, [publish] { publish(false); });
  menu->addAction(tr("Publish Report to Share, De-identified..."), this, [publish] { publish(true); });
  menu->addSeparator();
  menu->addAction(tr("Label Su&rfaces (STL)..."), this, [this, parent] {
    const QString folder = QFileDialog::getExistingDirectory(parent, tr("Export Surfaces to Folder"),
                                                             QFileInfo(suggestedPath("surfaces")).absolutePath());
    if (!folder.isEmpty()) QSettings().setValue(kLastFolderKey, folder);
    if (!folder.isEmpty()) exportSurfaces(folder, false);
  });
  menu->addAction(tr("Label Surfaces (&OBJ)..."), this, [this, parent] {
    const QString folder = QFileDialog::getExistingDirectory(parent, tr("Export Surfaces to Folder"),
                                                             QFileInfo(suggestedPath("surfaces")).absolutePath());
    if (!folder.isEmpty()) QSettings().setValue(kLastFolderKey, folder);
    if (!folder.isEmpty()) exportSurfaces(folder, true);
  });
}

}  // namespace delineate::app::gui
