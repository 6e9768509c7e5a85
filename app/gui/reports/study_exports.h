#pragma once
// File > Export on the open study: label statistics (CSV, JSON), surfaces (STL, OBJ), DICOM SEG with its TID 1500
// measurement report, the PDF report, and all of them published on the share for the revision the labels came
// from. Each export is a writer returning a Status (no words, no dialogs) and a wrapper that shows the wait cursor,
// then the result in the status bar or the error.

#include <QObject>
#include <QString>

#include <optional>
#include <vector>

#include "core/statistics.h"
#include "viewer/slice_scene.h"

class QMenu;

namespace delineate::io {
struct DicomSeries;
struct RtStructWriteInfo;
}

namespace delineate::app::gui {

class StudyDocument;
class Workbench;

class StudyExports : public QObject {
  Q_OBJECT

 public:
  StudyExports(StudyDocument& document, Workbench& bench, QObject* parent = nullptr);

  // Label statistics (with intensities; .csv or .json, de-identified: no file or series names). With `slices`, only
  // the voxels of those slices count (every figure, as delineate-cli info --slices). False (reported) on failure.
  bool exportStatistics(const QString& path, bool deidentified,
                        const std::optional<core::SliceRange>& slices = std::nullopt);
  // The voxel slices that slices `first`..`last` of a view cover (1-based, as the view's title counts them; the two
  // numberings can run opposite ways); nullopt without a study.
  std::optional<core::SliceRange> viewSliceRange(viewer::SliceOrientation view, std::int64_t first,
                                                 std::int64_t last) const;
  // One surface file per label (STL or OBJ, named label_<id>), meshed from the labels as they are, at full detail.
  bool exportSurfaces(const QString& folder, bool obj);
  // A DICOM SEG of the labels, referencing the DICOM series the study was opened from (false, reported, for studies
  // opened from image files: a SEG needs the source instances). BINARY, or LABELMAP (label ids kept as segment
  // numbers) when the setting "export/segLabelmap" is on (File > Export > Write SEG as Label Map). With `srPath`, a
  // TID 1500 measurement report referencing that SEG is written there too (volume and intensity statistics per
  // segment; observer: the author name of the preferences, else the device).
  bool exportDicomSeg(const QString& path, bool deidentified, const QString& srPath = {});
  // An RT Structure Set of the labels (io/dicom/dicom_rtstruct.h: one ROI per label, contours every voxel comes back
  // from), referencing the DICOM series the study was opened from; the author name of the preferences as its operator
  // and ROI interpreter. False (reported) for studies opened from image files, or when the writer refuses.
  bool exportRtStruct(const QString& path, bool deidentified);
  // The same with no words and no dialog (Send to PACS writes it to a private folder first).
  core::Status writeRtStructFile(const QString& path, bool deidentified, io::RtStructWriteInfo* info = nullptr) const;
  // File > Export > DICOM SEG and Measurement Report: one path chosen, the SEG's; the report goes beside it
  // (reportPathFor). A report file already there is replaced only with `replaceReport` (the SEG's own dialog asked
  // about the SEG); else refused, naming it, and nothing is written. Both or neither, the status names both.
  bool exportDicomSegAndReport(const QString& segPath, bool deidentified, bool replaceReport = false);
  // The SEG and its measurement report written to these paths, with no words and no dialog (Send to PACS writes them
  // to a private folder first). Errors: no study, a study not opened from DICOM, what the writer said.
  core::Status writeSegAndReport(const QString& segPath, const QString& srPath) const;
  // "<folder>/<seg name without .dcm>_sr.dcm".
  static QString reportPathFor(const QString& segPath);
  // A PDF report: statistics table, key images through each label, page numbers (de-identified: no names or dates).
  bool exportPdfReport(const QString& path, bool deidentified);
  // Where an export dialog starts: the last export folder (else the home folder) and the study's name with `suffix`
  // ("report.pdf" -> "<study>_report.pdf"), never the working directory. A de-identified export's name leaves the
  // study's name out ("deidentified_report.pdf"): a DICOM study is named from its patient id and date.
  QString suggestedPath(const QString& suffix, bool deidentified = false) const;
  // Statistics (CSV, JSON), the PDF and, for DICOM studies, the SEG and its measurement report, published on the
  // share for the revision the labels came from (io/share/share_reports.h). Refused (reported) with unsaved edits or labels
  // that did not come from the share: a report describes a saved revision. The files are made at once; the share's
  // writes run on a worker (progress, Cancel), reportPublished or an error tell the end. False when refused or busy.
  bool publishReportsToShare(bool deidentified, const QString& message = {});
  // File > Export's entries (study_exports_menu.cpp), built again when the language changes.
  void fillMenu(QMenu* menu);

 Q_SIGNALS:
  void reportPublished(QString folder);  // relative to the share root

 private:
  // A study must be open. The statistics are computed once by the caller and shared by every file made from them.
  core::Result<std::vector<core::LabelStatistics>> labelStatistics(
      const std::optional<core::SliceRange>& slices = std::nullopt) const;
  core::Status writeStatistics(const QString& path, bool deidentified, const std::vector<core::LabelStatistics>& stats,
                               const std::optional<core::SliceRange>& slices = std::nullopt) const;
  core::Status writeDicomSegAndReport(const QString& path, bool deidentified, const QString& srPath,
                                      const std::vector<core::LabelStatistics>& stats) const;
  core::Status writePdf(const QString& path, bool deidentified, const std::vector<core::LabelStatistics>& stats) const;
  // The PDF header's identification lines of a DICOM study (PdfReportInput).
  static QString pdfPatientTitle(const io::DicomSeries& series);
  static QString pdfStudyTitle(const io::DicomSeries& series);
  static QString pdfSeriesTitle(const io::DicomSeries& series);

  StudyDocument& m_document;
  Workbench& m_bench;
};

}  // namespace delineate::app::gui
