#pragma once
// Studies and labels come in through here, read in the background with progress and Cancel so the window never
// freezes: an image file (optionally with a label map), a label map, a DICOM folder (its series listed, irregular
// ones only after a confirmation), a DICOM SEG from any tool, a label set revision from a share. What a job read
// becomes the study document's on the GUI thread; an error names the file and leaves the open study as it was.

#include <QObject>
#include <QString>

#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "core/geometry.h"
#include "io/dicom/dicom.h"
#include "io/dicom/dicom_rtstruct.h"

namespace delineate::app::gui {

class JobProgress;
class StudyDocument;
class Workbench;

class StudyLoader : public QObject {
  Q_OBJECT

 public:
  StudyLoader(StudyDocument& document, Workbench& bench, QObject* parent = nullptr);
  ~StudyLoader() override;

  // Starts loading in the background (an image file, optionally with a label map). False, and nothing started,
  // while another load runs. A label map (or share revision) on another grid never costs the image: both grids are
  // named, and a map that covers the image's space may be resampled onto it (nearest neighbour, one undo step).
  bool openImage(const QString& imagePath, const QString& labelsPath = {});
  bool openLabels(const QString& labelsPath);
  // A DICOM SEG from any tool, placed on the open image's grid: its segments become labels (with names, colours and
  // codes) as one undo step. Overlapping segments are refused (never silently flattened) unless `allowOverlap`,
  // then the highest-numbered segment wins where they overlap and the window says how many voxels that took.
  bool openDicomSeg(const QString& segPath, bool allowOverlap = false);
  // An RT Structure Set onto the open image's grid (io/dicom/dicom_rtstruct.h): its ROIs become labels (ROI Number as
  // id, names, colours) as one undo step. Where ROIs overlap each voxel goes to the smallest ROI, and the window says
  // how many voxels overlapped; contours it skipped (not closed, off the slices) are named in the status bar. A
  // structure set on another frame of reference than the open DICOM study is refused.
  bool openRtStruct(const QString& path);
  // A DICOM folder: the window picks the series (asking when there are several), then loads it, with `labelsPath`
  // as openImage opens its labels.
  // `seriesOf`: a file of the folder whose series is opened without asking.
  bool openDicomFolder(const QString& folder, const QString& labelsPath = {}, const QString& seriesOf = {});
  // What a file manager or a command line hands the window: a folder opens as a DICOM folder, a DICOM file (DICM at
  // byte 128; a DICOMDIR too) opens its folder with the series that file belongs to chosen, anything else as an image.
  bool openPath(const QString& path, const QString& labelsPath = {});
  // A label set revision from a share store (the session then counts as saved at that revision); `revision` 0: the
  // set's newest.
  bool openShareRevision(const QString& root, const QString& study, const QString& labelSet, int revision);
  // A study from a share store (File > Open from Share, a recent share study): the series is fetched into the local
  // cache (every file verified, progress and Cancel), opened, and with it the label set's revision (`revision` 0:
  // its newest) when one is named; saving then makes that set's next revision.
  // `rtStructSeries` (instead of a label set): an RT Structure Set series of the same study, opened onto the image
  // once it is open (openShareRtStruct).
  bool openShareStudy(const QString& root, const QString& study, const QString& series, const QString& labelSet = {},
                      int revision = 0, const QString& rtStructSeries = {});
  // An RT Structure Set series of a share study onto the open image, as openRtStruct: the series fetched into the
  // local cache (every file verified); a series of several structure sets is refused, naming them.
  bool openShareRtStruct(const QString& root, const QString& study, const QString& series);
  // A Recent Studies entry (recent_studies.h) reopened with `labels`, where its labels were last saved or opened (a
  // label file, or "share:ROOT#STUDY/SET" at its newest revision): with the study in one step where they belong to it
  // (a label file, the share study's own label set), else once the study has opened.
  bool openRecent(const QString& entry, const QString& labels);
  bool loading() const { return m_loading; }  // a study, label map or DICOM index is being read

 Q_SIGNALS:
  void studyLoaded();
  void labelsLoaded();
  void cancelled();  // the user cancelled a load
  // A share study opened: its recent-studies entry ("share:ROOT#STUDY/SERIES[/LABELSET]").
  void shareStudyOpened(const QString& recentEntry);

 private:
  struct Loaded;
  // The frame of reference and series of the open DICOM study, which a structure set must match.
  io::RtStructReadOptions rtStructOptions() const;
  void startJob(const QString& what, std::function<std::shared_ptr<Loaded>(JobProgress&)> work);
  void finishJob(std::shared_ptr<Loaded> result);
  void loadSeries(const Loaded& index);
  // The label map opened with a new study's image (openImage, openDicomFolder): read with its table; on another grid
  // the image opens all the same and the map is offered for resampling. False (the reason in `r.error`) when unreadable.
  static bool readLabelsWithImage(const std::string& labels, const core::Geometry& image, Loaded& r);
  void finishLabels(Loaded& result);
  void finishShareStudy(std::shared_ptr<Loaded> result);
  // What openRecent left to do once its study opened (nothing after a failure, a cancel or another open).
  void runAfterStudy();
  // A label map on another grid: both grids named; resampled onto the image's (one undo step) when it covers the
  // image's space and the user agrees, else refused.
  void offerResample(std::shared_ptr<Loaded> result);
  static QString gridText(const core::Geometry& grid);
  std::optional<const io::DicomSeries*> chooseSeries(const std::vector<const io::DicomSeries*>& series);

  StudyDocument& m_document;
  Workbench& m_bench;
  bool m_loading = false;
  std::function<void()> m_afterStudy;
};

}  // namespace delineate::app::gui
