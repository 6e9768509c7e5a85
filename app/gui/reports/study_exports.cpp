#include "app/gui/reports/study_exports.h"

#include "app/gui/base/author_name.h"

#include <QApplication>
#include <QDir>
#include <QFileInfo>
#include <QSettings>
#include <QTemporaryDir>
#include <QFutureWatcher>
#include <QtConcurrent/QtConcurrent>

#include <memory>


#include "app/gui/base/error_text.h"
#include "app/gui/base/job.h"
#include "app/gui/base/workbench.h"
#include "app/gui/reports/pdf_report.h"
#include "app/gui/study/session_files.h"
#include "app/gui/study/study_document.h"
#include "app/gui/views/view_panels.h"
#include "core/statistics.h"
#include "io/dicom/dicom_rtstruct.h"
#include "io/dicom/dicom_sr.h"
#include "io/report/statistics_report.h"
#include "io/share/share_reports.h"
#include "viewer/mesh_export.h"
#include "viewer/surface_scene.h"

namespace delineate::app::gui {

namespace {

// Shows the wait cursor for the object's lifetime.
struct WaitCursor {
  WaitCursor() { QApplication::setOverrideCursor(Qt::WaitCursor); }
  ~WaitCursor() { QApplication::restoreOverrideCursor(); }
};

}  // namespace

QString StudyExports::pdfPatientTitle(const io::DicomSeries& series) {
  const QString name = QString::fromStdString(series.patientName).replace(QLatin1Char('^'), QLatin1Char(' ')).simplified();
  const QString id = QString::fromStdString(series.patientId).trimmed();
  if (id.isEmpty()) return name;
  return name.isEmpty() ? tr("ID %1").arg(id) : tr("%1, ID %2").arg(name, id);
}

QString StudyExports::pdfStudyTitle(const io::DicomSeries& series) {
  QStringList parts;
  if (!series.studyDescription.empty()) parts << QString::fromStdString(series.studyDescription).trimmed();
  if (!series.accessionNumber.empty()) parts << tr("accession %1").arg(QString::fromStdString(series.accessionNumber).trimmed());
  const std::string& d = series.studyDate;
  if (!d.empty()) parts << QString::fromStdString(d.size() == 8 ? d.substr(0, 4) + "-" + d.substr(4, 2) + "-" + d.substr(6, 2) : d);
  if (!series.studyInstanceUid.empty()) parts << tr("UID %1").arg(QString::fromStdString(series.studyInstanceUid));
  return parts.join(QStringLiteral(", "));
}

QString StudyExports::pdfSeriesTitle(const io::DicomSeries& series) {
  QStringList parts;
  QString head;
  if (!series.seriesNumber.empty()) head = tr("#%1").arg(QString::fromStdString(series.seriesNumber).trimmed());
  if (!series.seriesDescription.empty())
    head = (head.isEmpty() ? QString() : head + QLatin1Char(' ')) + QString::fromStdString(series.seriesDescription).trimmed();
  if (!head.isEmpty()) parts << head;
  if (!series.modality.empty()) parts << QString::fromStdString(series.modality);
  if (!series.seriesInstanceUid.empty()) parts << tr("UID %1").arg(QString::fromStdString(series.seriesInstanceUid));
  return parts.join(QStringLiteral(", "));
}

StudyExports::StudyExports(StudyDocument& document, Workbench& bench, QObject* parent)
    : QObject(parent), m_document(document), m_bench(bench) {}

core::Result<std::vector<core::LabelStatistics>> StudyExports::labelStatistics(
    const std::optional<core::SliceRange>& slices) const {
  core::StatisticsOptions options;
  options.slices = slices;
  return core::computeLabelStatistics(m_document.session()->labels(), &m_document.session()->image(), options);
}

core::Status StudyExports::writeStatistics(const QString& path, bool deidentified,
                                         const std::vector<core::LabelStatistics>& stats,
                                         const std::optional<core::SliceRange>& slices) const {
  io::StatisticsReportInfo info;
  info.image = m_document.source().toStdString();
  info.labelSource = m_document.session()->baseRevision();
  info.intensityUnit = m_document.isCt() ? "HU" : "";
  info.geometry = m_document.session()->image().geometry();
  info.deidentified = deidentified;
  info.slices = slices;
  return io::writeStatisticsFile(path.toStdString(), stats, m_document.session()->table(), info);
}

core::Status StudyExports::writeDicomSegAndReport(const QString& path, bool deidentified, const QString& srPath,
                                                const std::vector<core::LabelStatistics>& stats) const {
  io::SegWriteOptions options;
  options.deidentify = deidentified;
  options.encoding = QSettings().value("export/segLabelmap", false).toBool() ? io::SegEncoding::Labelmap
                                                                             : io::SegEncoding::Binary;
  io::SrWriteOptions sr;
  if (!deidentified) sr.observerName = QSettings().value("user/name").toString().toStdString();
  options.contentCreator = sr.observerName;  // the SEG names whom the SR names (the writer drops it when de-identifying)
  auto written = io::writeDicomSegAndSr(path.toStdString(), srPath.toStdString(), m_document.session()->labels(),
                                        m_document.session()->table(), *m_document.dicomSource(), stats, options, sr);
  return written ? core::Status::success() : core::Status(written.error());
}

core::Status StudyExports::writePdf(const QString& path, bool deidentified,
                                  const std::vector<core::LabelStatistics>& stats) const {
  PdfReportInput input;
  input.image = &m_document.session()->image();
  input.labels = &m_document.session()->labels();
  input.table = &m_document.session()->table();
  input.stats = stats;
  if (const io::DicomSeries* dicom = m_document.dicomSource()) {
    input.patientTitle = pdfPatientTitle(*dicom);
    input.studyTitle = pdfStudyTitle(*dicom);
    input.seriesTitle = pdfSeriesTitle(*dicom);
  } else {
    input.studyTitle = QFileInfo(m_document.source()).fileName();
  }
  input.isCt = m_document.isCt();
  input.deidentified = deidentified;
  return writePdfReport(path, input);
}

bool StudyExports::exportStatistics(const QString& path, bool deidentified, const std::optional<core::SliceRange>& slices) {
  if (!m_document.hasStudy()) return false;
  std::size_t count = 0;
  core::Status written = [&]() -> core::Status {
    WaitCursor wait;
    auto stats = labelStatistics(slices);
    if (!stats) return stats.error();
    count = stats->size();
    return writeStatistics(path, deidentified, *stats, slices);
  }();
  if (!written) {
    m_bench.reportError(fromError(written.error()));
    return false;
  }
  m_bench.showStatus(tr("Statistics of %n label(s) written to %1", nullptr, static_cast<int>(count)).arg(path), 6000);
  return true;
}

bool StudyExports::exportDicomSeg(const QString& path, bool deidentified, const QString& srPath) {
  if (!m_document.hasStudy()) return false;
  if (!m_document.dicomSource()) {
    m_bench.reportError(tr("A DICOM SEG references the DICOM series it was drawn on: open the study from its DICOM folder"));
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
    m_bench.reportError(fromError(written.error()));
    return false;
  }
  if (srPath.isEmpty()) m_bench.showStatus(tr("DICOM SEG written to %1").arg(path), 6000);
  else m_bench.showStatus(tr("DICOM SEG written to %1, measurement report to %2").arg(path, srPath), 6000);
  return true;
}

core::Status StudyExports::writeRtStructFile(const QString& path, bool deidentified, io::RtStructWriteInfo* info) const {
  if (!m_document.hasStudy()) return core::makeError(core::ErrorCode::InvalidArgument, "", "no study is open");
  if (!m_document.dicomSource())
    return core::makeError(core::ErrorCode::InvalidArgument, "",
                           "an RT Structure Set references the DICOM series it was drawn on: this study was not opened "
                           "from DICOM");
  io::RtStructWriteOptions options;
  options.deidentify = deidentified;
  if (!deidentified) options.author = authorName().toStdString();
  return io::writeRtStruct(path.toStdString(), m_document.session()->labels(), m_document.session()->table(),
                           *m_document.dicomSource(), options, info);
}

bool StudyExports::exportRtStruct(const QString& path, bool deidentified) {
  if (!m_document.hasStudy()) return false;
  if (!m_document.dicomSource()) {
    m_bench.reportError(tr("An RT Structure Set references the DICOM series it was drawn on: open the study from its DICOM folder"));
    return false;
  }
  io::RtStructWriteInfo info;
  core::Status written = [&]() -> core::Status {
    WaitCursor wait;
    return writeRtStructFile(path, deidentified, &info);
  }();
  if (!written) {
    m_bench.reportError(fromError(written.error()));
    return false;
  }
  m_bench.showStatus(tr("RT Structure Set written to %1: %2 ROIs, %3 contours").arg(path).arg(info.rois).arg(info.contours),
                     6000);
  return true;
}

core::Status StudyExports::writeSegAndReport(const QString& segPath, const QString& srPath) const {
  if (!m_document.hasStudy()) return core::makeError(core::ErrorCode::InvalidArgument, "", "no study is open");
  if (!m_document.dicomSource())
    return core::makeError(core::ErrorCode::InvalidArgument, "",
                           "a DICOM SEG references the DICOM series it was drawn on: this study was not opened from DICOM");
  auto stats = labelStatistics();
  if (!stats) return stats.error();
  return writeDicomSegAndReport(segPath, false, srPath, *stats);
}

QString StudyExports::reportPathFor(const QString& segPath) {
  const QFileInfo info(segPath);
  QString base = info.fileName();
  if (base.endsWith(QStringLiteral(".dcm"), Qt::CaseInsensitive)) base.chop(4);
  return info.dir().filePath(base + QStringLiteral("_sr.dcm"));
}

bool StudyExports::exportDicomSegAndReport(const QString& segPath, bool deidentified, bool replaceReport) {
  if (!m_document.hasStudy()) return false;
  const QString srPath = reportPathFor(segPath);
  const QFileInfo sr(srPath);
  if (sr.exists() && (sr.isDir() || !replaceReport)) {
    m_bench.reportError(sr.isDir() ? tr("Cannot write the measurement report %1: a folder of that name is there; "
                                        "nothing was written")
                                         .arg(srPath)
                                   : tr("The measurement report %1 already exists; nothing was written (choose another "
                                        "name for the SEG, or allow replacing the report)")
                                         .arg(srPath));
    return false;
  }
  return exportDicomSeg(segPath, deidentified, srPath);
}

bool StudyExports::exportPdfReport(const QString& path, bool deidentified) {
  if (!m_document.hasStudy()) return false;
  core::Status written = [&]() -> core::Status {
    WaitCursor wait;
    auto stats = labelStatistics();
    return stats ? writePdf(path, deidentified, *stats) : core::Status(stats.error());
  }();
  if (!written) {
    m_bench.reportError(fromError(written.error()));
    return false;
  }
  m_bench.showStatus(tr("Report written to %1").arg(path), 6000);
  return true;
}

bool StudyExports::publishReportsToShare(bool deidentified, const QString& message) {
  if (!m_document.hasStudy() || m_bench.busy()) return false;
  const ShareTarget& target = m_document.shareTarget();
  if (!target.valid() || target.baseRevision <= 0 || m_document.isDirty()) {
    m_bench.reportError(tr("A report on the share describes a saved revision: save the labels to the share first"));
    return false;
  }
  // The files are made here from the session (quick: seconds for a large study); the share's verified writes,
  // slow on a network share, run on a worker with progress and Cancel, the window busy meanwhile.
  auto temp = std::make_shared<QTemporaryDir>();
  if (!temp->isValid()) {
    m_bench.reportError(tr("Cannot make a temporary folder for the report: %1").arg(temp->errorString()));
    return false;
  }
  io::ReportPublishRequest request;
  request.study = target.study.toStdString();
  request.labelSet = target.labelSet.toStdString();
  request.revision = target.baseRevision;
  request.author = authorName().toStdString();
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
    if (m_document.dicomSource()) {
      const QString seg = temp->filePath("segmentation.dcm"), sr = temp->filePath("measurements.dcm");
      if (core::Status s = writeDicomSegAndReport(seg, deidentified, sr, *stats); !s) return s;
      request.files.push_back({"segmentation.dcm", seg.toStdString()});
      request.files.push_back({"measurements.dcm", sr.toStdString()});
    }
    return core::Status::success();
  }();
  if (!prepared) {
    m_bench.reportError(fromError(prepared.error()));
    return false;
  }

  using Outcome = std::shared_ptr<core::Result<io::PublishedReport>>;
  auto job = m_bench.startProgress(tr("Publishing the report to the share"));
  const std::string root = target.root.toStdString();
  const QString rootText = target.root;
  auto* watcher = new QFutureWatcher<Outcome>(this);
  connect(watcher, &QFutureWatcher<Outcome>::finished, this, [this, watcher, job, temp, rootText] {
    const Outcome outcome = watcher->result();
    watcher->deleteLater();
    m_bench.finishProgress(job);
    const core::Result<io::PublishedReport>& published = *outcome;
    if (!published) {
      if (published.error().code == core::ErrorCode::Cancelled) m_bench.showStatus(tr("Cancelled"), 4000);
      else m_bench.reportError(fromError(published.error()));
      return;
    }
    QString text = tr("Report %1 of revision %2 published on the share: %3")
                       .arg(published->number)
                       .arg(published->revision)
                       .arg(QDir(rootText).filePath(QString::fromStdString(published->folder)));
    if (!published->auditWarning.empty())
      text += tr(" (the audit record was not written: %1)").arg(QString::fromStdString(published->auditWarning));
    m_bench.showStatus(text, 10000);
    Q_EMIT reportPublished(QString::fromStdString(published->folder));
  });
  watcher->setFuture(QtConcurrent::run(&m_bench.workers(), [request, root, job]() mutable -> Outcome {
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

std::optional<core::SliceRange> StudyExports::viewSliceRange(viewer::SliceOrientation view, std::int64_t first,
                                                           std::int64_t last) const {
  if (!m_document.hasStudy()) return std::nullopt;
  const viewer::SliceScene& scene = m_bench.slicePanel(view)->scene();
  const auto [axis, a] = scene.voxelSlice(first - 1);
  const auto [axisLast, b] = scene.voxelSlice(last - 1);
  (void)axisLast;  // the same axis: it depends only on the view's normal
  return core::SliceRange{axis, std::min(a, b), std::max(a, b)};
}

bool StudyExports::exportSurfaces(const QString& folder, bool obj) {
  if (!m_document.hasStudy()) return false;
  // Meshed here from the labels as they are now, at full detail: not the 3D view's surfaces, which may be a rebuild
  // behind the last edit or meshed coarser for a software renderer (surfaceDetailSetting).
  std::map<core::Label, vtkSmartPointer<vtkPolyData>> surfaces;
  {
    WaitCursor wait;
    try {
      surfaces = viewer::buildLabelSurfaces(m_document.session()->labels(), 15, nullptr, nullptr,
                                            viewer::SurfaceDetail::Full);
    } catch (const std::bad_alloc&) {
      m_bench.reportError(tr("Not enough memory to mesh the label surfaces for export"));
      return false;
    }
  }
  if (surfaces.empty()) {
    m_bench.reportError(tr("No label surfaces to export: the map holds no labels"));
    return false;
  }
  auto paths = viewer::writeMeshes(folder.toStdString(), surfaces, obj ? viewer::MeshFormat::Obj : viewer::MeshFormat::StlBinary);
  if (!paths) {
    m_bench.reportError(fromError(paths.error()));
    return false;
  }
  m_bench.showStatus(tr("%n surface file(s) written to %1", nullptr, static_cast<int>(paths->size())).arg(folder), 6000);
  return true;
}

}  // namespace delineate::app::gui
