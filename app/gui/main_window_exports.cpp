// File > Export: statistics (CSV, JSON), DICOM SEG with its measurement report, the PDF report, and all of them
// published on the share for the revision the labels came from. Each export is a writer returning a Status (no
// words, no dialogs) and a wrapper that shows the wait cursor, the result or the error.
#include <QApplication>
#include <QDir>
#include <QFileInfo>
#include <QSettings>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QFutureWatcher>
#include <QtConcurrent/QtConcurrent>

#include <memory>


#include "app/gui/error_text.h"
#include "app/gui/job.h"
#include "app/gui/main_window.h"
#include "app/gui/pdf_report.h"
#include "app/gui/session_files.h"
#include "core/statistics.h"
#include "io/dicom/dicom_sr.h"
#include "io/share/share_reports.h"
#include "io/report/statistics_report.h"

namespace delineate::app::gui {

namespace {

// Shows the wait cursor for the object's lifetime.
struct WaitCursor {
  WaitCursor() { QApplication::setOverrideCursor(Qt::WaitCursor); }
  ~WaitCursor() { QApplication::restoreOverrideCursor(); }
};

}  // namespace

core::Result<std::vector<core::LabelStatistics>> MainWindow::labelStatistics(
    const std::optional<core::SliceRange>& slices) const {
  core::StatisticsOptions options;
  options.slices = slices;
  return core::computeLabelStatistics(m_session->labels(), &m_session->image(), options);
}

core::Status MainWindow::writeStatistics(const QString& path, bool deidentified,
                                         const std::vector<core::LabelStatistics>& stats,
                                         const std::optional<core::SliceRange>& slices) const {
  io::StatisticsReportInfo info;
  info.image = windowFilePath().toStdString();
  info.labelSource = m_session->baseRevision();
  info.intensityUnit = m_isCt ? "HU" : "";
  info.geometry = m_session->image().geometry();
  info.deidentified = deidentified;
  info.slices = slices;
  return io::writeStatisticsFile(path.toStdString(), stats, m_session->table(), info);
}

core::Status MainWindow::writeDicomSegAndReport(const QString& path, bool deidentified, const QString& srPath,
                                                const std::vector<core::LabelStatistics>& stats) const {
  io::SegWriteOptions options;
  options.deidentify = deidentified;
  options.encoding = QSettings().value("export/segLabelmap", false).toBool() ? io::SegEncoding::Labelmap
                                                                             : io::SegEncoding::Binary;
  io::SrWriteOptions sr;
  if (!deidentified) sr.observerName = QSettings().value("user/name").toString().toStdString();
  auto written = io::writeDicomSegAndSr(path.toStdString(), srPath.toStdString(), m_session->labels(),
                                        m_session->table(), *m_dicomSource, stats, options, sr);
  return written ? core::Status::success() : core::Status(written.error());
}

core::Status MainWindow::writePdf(const QString& path, bool deidentified,
                                  const std::vector<core::LabelStatistics>& stats) const {
  PdfReportInput input;
  input.image = &m_session->image();
  input.labels = &m_session->labels();
  input.table = &m_session->table();
  input.stats = stats;
  input.studyTitle = QFileInfo(windowFilePath()).fileName();
  if (m_dicomSource) input.seriesDescription = QString::fromStdString(m_dicomSource->seriesDescription);
  input.isCt = m_isCt;
  input.deidentified = deidentified;
  return writePdfReport(path, input);
}

bool MainWindow::exportStatistics(const QString& path, bool deidentified, const std::optional<core::SliceRange>& slices) {
  if (!m_session) return false;
  std::size_t count = 0;
  core::Status written = [&]() -> core::Status {
    WaitCursor wait;
    auto stats = labelStatistics(slices);
    if (!stats) return stats.error();
    count = stats->size();
    return writeStatistics(path, deidentified, *stats, slices);
  }();
  if (!written) {
    fail(fromError(written.error()));
    return false;
  }
  statusBar()->showMessage(tr("Statistics of %n label(s) written to %1", nullptr, static_cast<int>(count)).arg(path), 6000);
  return true;
}

bool MainWindow::exportDicomSeg(const QString& path, bool deidentified, const QString& srPath) {
  if (!m_session) return false;
  if (!m_dicomSource) {
    fail(tr("A DICOM SEG references the DICOM series it was drawn on: open the study from its DICOM folder"));
    return false;
  }
  core::Status written = [&]() -> core::Status {
    WaitCursor wait;
    // The report's figures are those of the statistics export and the PDF: the same computation on the same voxels.
    std::vector<core::LabelStatistics> stats;
    if (!srPath.isEmpty()) {
      auto computed = labelStatistics();
      if (!computed) return computed.error();
      stats = std::move(computed).value();
    }
    return writeDicomSegAndReport(path, deidentified, srPath, stats);
  }();
  if (!written) {
    // Both or neither: a failure leaves the previous files as they were.
    fail(fromError(written.error()));
    return false;
  }
  if (srPath.isEmpty()) statusBar()->showMessage(tr("DICOM SEG written to %1").arg(path), 6000);
  else statusBar()->showMessage(tr("DICOM SEG written to %1, measurement report to %2").arg(path, srPath), 6000);
  return true;
}

bool MainWindow::exportPdfReport(const QString& path, bool deidentified) {
  if (!m_session) return false;
  core::Status written = [&]() -> core::Status {
    WaitCursor wait;
    auto stats = labelStatistics();
    return stats ? writePdf(path, deidentified, *stats) : core::Status(stats.error());
  }();
  if (!written) {
    fail(fromError(written.error()));
    return false;
  }
  statusBar()->showMessage(tr("Report written to %1").arg(path), 6000);
  return true;
}

bool MainWindow::publishReportsToShare(bool deidentified, const QString& message) {
  if (!m_session || busy()) return false;
  const ShareTarget& target = m_files->shareTarget();
  if (!target.valid() || target.baseRevision <= 0 || m_session->isDirty()) {
    fail(tr("A report on the share describes a saved revision: save the labels to the share first"));
    return false;
  }
  // The files are made here from the session (quick: seconds for a large study); the share's verified writes,
  // slow on a network share, run on a worker with progress and Cancel, the window busy meanwhile.
  auto temp = std::make_shared<QTemporaryDir>();
  if (!temp->isValid()) {
    fail(tr("Cannot make a temporary folder for the report: %1").arg(temp->errorString()));
    return false;
  }
  io::ReportPublishRequest request;
  request.study = target.study.toStdString();
  request.labelSet = target.labelSet.toStdString();
  request.revision = target.baseRevision;
  request.author = m_files->userName().toStdString();
  request.message = message.toStdString();
  request.deidentified = deidentified;
  const core::Status prepared = [&]() -> core::Status {
    WaitCursor wait;
    auto stats = labelStatistics();  // once, for every file of the report
    if (!stats) return stats.error();
    for (const char* name : {"statistics.csv", "statistics.json"}) {
      const QString path = temp->filePath(name);
      if (core::Status s = writeStatistics(path, deidentified, *stats); !s) return s;
      request.files.push_back({name, path.toStdString()});
    }
    const QString pdf = temp->filePath("report.pdf");
    if (core::Status s = writePdf(pdf, deidentified, *stats); !s) return s;
    request.files.push_back({"report.pdf", pdf.toStdString()});
    if (m_dicomSource) {
      const QString seg = temp->filePath("segmentation.dcm"), sr = temp->filePath("measurements.dcm");
      if (core::Status s = writeDicomSegAndReport(seg, deidentified, sr, *stats); !s) return s;
      request.files.push_back({"segmentation.dcm", seg.toStdString()});
      request.files.push_back({"measurements.dcm", sr.toStdString()});
    }
    return core::Status::success();
  }();
  if (!prepared) {
    fail(fromError(prepared.error()));
    return false;
  }

  using Outcome = std::shared_ptr<core::Result<io::PublishedReport>>;
  auto job = startProgress(tr("Publishing the report to the share"));
  const std::string root = target.root.toStdString();
  const QString rootText = target.root;
  auto* watcher = new QFutureWatcher<Outcome>(this);
  connect(watcher, &QFutureWatcher<Outcome>::finished, this, [this, watcher, job, temp, rootText] {
    const Outcome outcome = watcher->result();
    watcher->deleteLater();
    finishProgress(job);
    const core::Result<io::PublishedReport>& published = *outcome;
    if (!published) {
      if (published.error().code == core::ErrorCode::Cancelled) statusBar()->showMessage(tr("Cancelled"), 4000);
      else fail(fromError(published.error()));
      return;
    }
    QString text = tr("Report %1 of revision %2 published on the share: %3")
                       .arg(published->number)
                       .arg(published->revision)
                       .arg(QDir(rootText).filePath(QString::fromStdString(published->folder)));
    if (!published->auditWarning.empty())
      text += tr(" (the audit record was not written: %1)").arg(QString::fromStdString(published->auditWarning));
    statusBar()->showMessage(text, 10000);
    Q_EMIT reportPublished(QString::fromStdString(published->folder));
  });
  watcher->setFuture(QtConcurrent::run(&m_workers, [request, root, job]() mutable -> Outcome {
    try {
      request.progress = job.get();
      auto store = io::ShareStore::open(root);
      if (!store) return std::make_shared<core::Result<io::PublishedReport>>(store.error());
      return std::make_shared<core::Result<io::PublishedReport>>(io::publishReport(*store, request));
    } catch (const std::bad_alloc&) {
      return std::make_shared<core::Result<io::PublishedReport>>(
          core::makeError(core::ErrorCode::OutOfMemory, root, "out of memory while publishing the report"));
    }
  }));
  return true;
}

}  // namespace delineate::app::gui
