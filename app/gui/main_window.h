#pragma once
// The workstation window: three slice views and a 3D view of one study, linked by a crosshair, with window/level
// presets, layouts, a label list (colour, visibility, opacity) and a cursor readout; studies open from files, DICOM
// folders or the recent list in the background, with progress and Cancel, so the window never freezes.

#include <QMainWindow>
#include <QString>
#include <QThreadPool>

#include <map>
#include <memory>
#include <optional>
#include <set>

#include "app/gui/window_level.h"
#include "io/dicom/dicom.h"
#include "core/annotation_session.h"
#include "core/statistics.h"
#include "viewer/slice_scene.h"

class QAction;
class QActionGroup;
class QDockWidget;
class QGridLayout;
class QLabel;
class QMenu;
class QTreeWidget;
class QProgressBar;
class QPushButton;
class QSlider;
class QTimer;

namespace delineate::app::gui {

class AiPanel;
class EditTools;
class JobProgress;
class LabelPanel;
class SessionFiles;
class SlicePanel;
class SurfacePanel;

enum class ViewLayout { OneByOne, TwoByTwo, OnePlusThree };

class MainWindow : public QMainWindow {
  Q_OBJECT

 public:
  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;

  // Starts loading in the background (an image file, optionally with a label map of the same grid). False, and
  // nothing started, while another load runs.
  bool openImage(const QString& imagePath, const QString& labelsPath = {});
  bool openLabels(const QString& labelsPath);
  // A DICOM SEG from any tool, placed on the open image's grid: its segments become labels (with names, colours and
  // codes) as one undo step. Overlapping segments are refused (never silently flattened) unless `allowOverlap`,
  // then the highest-numbered segment wins where they overlap and the window says how many voxels that took.
  bool openDicomSeg(const QString& segPath, bool allowOverlap = false);
  bool openDicomFolder(const QString& folder);
  // A label set revision from a share store (the session then counts as saved at that revision).
  bool openShareRevision(const QString& root, const QString& study, const QString& labelSet, int revision);
  // A load or an AI segmentation/click is running (a new study would pull the image from under it).
  bool busy() const;
  bool loading() const { return m_loading; }  // a study, label map or DICOM index is being read
  void cancelJob();

  // For automation and tests: no modal dialogs (errors go to the status bar and loadFailed).
  void setDialogsEnabled(bool enabled) { m_dialogs = enabled; }
  bool dialogsEnabled() const { return m_dialogs; }
  // An error for the user: the status bar, a dialog (when enabled) and loadFailed.
  void reportError(const QString& message) { fail(message); }

  bool hasStudy() const { return m_session.has_value(); }
  const core::AnnotationSession* session() const { return m_session ? &*m_session : nullptr; }
  // For editing tools: the session to edit; after committing an edit (or undo/redo) call labelsEdited with the
  // labels whose voxels changed, so the slices, the label list and those labels' surfaces follow.
  core::AnnotationSession* editableSession() { return m_session ? &*m_session : nullptr; }
  // Without a step the whole map is recounted.
  void labelsEdited(const std::set<core::Label>& changed);
  // After the recorded `step` (the one just committed, undone or redone): the labels it changed between and their
  // volumes come from one pass over the step, not the map.
  void labelsEdited(const core::EditStep& step);
  // During a stroke: the voxels changed in place (slices only; the list and surfaces follow at labelsEdited). The
  // view painted in is redrawn now; the other slice views at most every 150 ms while the stroke goes on (each redraw
  // reslices their overlay), and all of them at labelsEdited.
  void labelsModifiedInPlace(SlicePanel* paintedIn = nullptr);
  // Table edits (rename, recolour, lock; an imported table; the classes an engine adds): the session's table
  // changes (dirty), the scenes recolour.
  void setLabelEntry(const core::LabelEntry& entry);
  void setLabelTable(core::LabelTable table);
  void mergeLabelTable(const core::LabelTable& classes);  // adds the ids the session's table lacks
  // Recovered autosave labels replace the session's (one undo step; the session stays dirty).
  bool applyRecoveredLabels(const core::LabelMap& labels);
  // Slice views' left button: tools (paint/fill) or AI points instead of the crosshair.
  void setEditing(bool on);
  void setClicking(bool on);
  QThreadPool& workers() { return m_workers; }
  // Progress and Cancel in the status bar for work a panel runs (the returned sink goes to the worker).
  std::shared_ptr<JobProgress> startProgress(const QString& what);
  void finishProgress(const std::shared_ptr<JobProgress>& job);
  LabelPanel* labelPanel() const { return m_labels; }
  EditTools* editTools() const { return m_tools; }
  AiPanel* aiPanel() const { return m_ai; }
  SessionFiles* sessionFiles() const { return m_files; }
  WindowLevel windowLevel() const { return m_windowLevel; }
  void setWindowLevel(WindowLevel wl);
  void applyPreset(const QString& name);
  void setViewLayout(ViewLayout layout);
  ViewLayout viewLayout() const { return m_layout; }
  void setLabelVisible(core::Label label, bool visible);
  bool isLabelVisible(core::Label label) const { return !m_hidden.count(label); }
  void setLabelOpacity(double opacity);
  void setLabelOutline(bool outline);
  void setCursor(const core::Vec3& lps);
  core::Vec3 cursor() const { return m_cursor; }
  SlicePanel* slicePanel(viewer::SliceOrientation orientation) const;
  SurfacePanel* surfacePanel() const { return m_surface; }
  QTreeWidget* labelTree() const;
  QString readout() const;
  // The whole window as on screen, views included.
  QImage screenshot();
  // File > Export: label statistics (with intensities; .csv or .json, de-identified: no file or series names) and
  // one surface file per label (STL or OBJ, named label_<id>). False (reported) on failure.
  // With `slices`, only the voxels of those slices count (every figure, as delineate-cli info --slices).
  bool exportStatistics(const QString& path, bool deidentified,
                        const std::optional<core::SliceRange>& slices = std::nullopt);
  // The voxel slices that slices `first`..`last` of a view cover (1-based, as the view's title counts them; the two
  // numberings can run opposite ways); nullopt without a study.
  std::optional<core::SliceRange> viewSliceRange(viewer::SliceOrientation view, std::int64_t first,
                                                 std::int64_t last) const;
  bool exportSurfaces(const QString& folder, bool obj);
  // A DICOM SEG of the labels, referencing the DICOM series the study was opened from (false, reported, for studies
  // opened from image files: a SEG needs the source instances). BINARY, or LABELMAP (label ids kept as segment
  // numbers) when the setting "export/segLabelmap" is on (File > Export > Write SEG as Label Map). With `srPath`, a
  // TID 1500 measurement report referencing that SEG is written there too (volume and intensity statistics per
  // segment; observer: the author name of the preferences, else the device).
  bool exportDicomSeg(const QString& path, bool deidentified, const QString& srPath = {});
  // A PDF report: statistics table, key images through each label, page numbers (de-identified: no names or dates).
  bool exportPdfReport(const QString& path, bool deidentified);
  // File > Export > Publish Report to Share: statistics (CSV, JSON), the PDF and, for DICOM studies, the SEG and its
  // measurement report, published on the share for the revision the labels came from (io/share/share_reports.h). Refused
  // (reported) with unsaved edits or labels that did not come from the share: a report describes a saved revision.
  // The files are made at once; the share's writes run on a worker (progress, Cancel), reportPublished or
  // loadFailed tell the end. False when refused or busy.
  bool publishReportsToShare(bool deidentified, const QString& message = {});
  bool hasDicomSource() const { return m_dicomSource.has_value(); }
  void refreshViews();
  // Before replacing the study or its labels: asks to save unsaved edits (dialogs); false when the user cancelled.
  // Nothing is closed here: the autosave journal ends only when a new study really replaces this one (kept for
  // recovery unless the user chose Discard), so a load that fails leaves the edits protected.
  bool maybeFinishSession();

 Q_SIGNALS:
  void reportPublished(QString folder);  // relative to the share root
  void studyLoaded();
  void labelsLoaded();
  void loadFailed(QString message);
  void surfacesReady();
  void labelsChanged();  // after every finished edit, undo or redo

 protected:
  void closeEvent(QCloseEvent* event) override;
  void changeEvent(QEvent* event) override;

 private:
  // The exports' writers: no dialogs, no words (main_window_exports.cpp). A study must be open. The statistics are
  // computed once by the caller and shared by every file made from them.
  core::Result<std::vector<core::LabelStatistics>> labelStatistics(
      const std::optional<core::SliceRange>& slices = std::nullopt) const;
  core::Status writeStatistics(const QString& path, bool deidentified, const std::vector<core::LabelStatistics>& stats,
                               const std::optional<core::SliceRange>& slices = std::nullopt) const;
  core::Status writeDicomSegAndReport(const QString& path, bool deidentified, const QString& srPath,
                                      const std::vector<core::LabelStatistics>& stats) const;
  core::Status writePdf(const QString& path, bool deidentified, const std::vector<core::LabelStatistics>& stats) const;
  struct Loaded;
  void buildMenus();  // main_window_menus.cpp
  void buildDocks();
  void retranslate();
  void startJob(const QString& what, std::function<std::shared_ptr<Loaded>(JobProgress&)> work);
  void finishJob(std::shared_ptr<Loaded> result);
  bool setStudy(core::ImageVolume image, std::optional<core::LabelMap> labels, const QString& source);
  // False (reported) when the labels cannot replace the session's; the session is then as it was.
  bool setLabelMap(core::LabelMap labels);
  void refreshLabelList();
  // Every label's surface, or (incremental) only those of `changed`.
  // `source`: a map equal to the session's that the worker may keep (saves it a copy), else it copies the session's.
  void rebuildSurfaces(const std::set<core::Label>* changed = nullptr,
                       std::shared_ptr<const core::LabelMap> source = nullptr);
  void updateReadout(const core::Vec3& lps);
  void recolourScenes();
  void afterEdit(const std::set<core::Label>& changed);  // views, surfaces, autosave, undo texts after an edit
  void addRecent(const QString& path);
  void fillRecentMenu();
  void fail(const QString& message);
  std::optional<const io::DicomSeries*> chooseSeries(const std::vector<const io::DicomSeries*>& series);

  std::optional<core::AnnotationSession> m_session;
  SlicePanel* m_axial = nullptr;
  SlicePanel* m_coronal = nullptr;
  SlicePanel* m_sagittal = nullptr;
  SurfacePanel* m_surface = nullptr;
  QWidget* m_viewArea = nullptr;
  QGridLayout* m_grid = nullptr;
  ViewLayout m_layout = ViewLayout::TwoByTwo;
  QWidget* m_maximized = nullptr;  // the view shown alone in 1x1
  WindowLevel m_windowLevel;
  core::Vec3 m_cursor{0, 0, 0};
  std::set<core::Label> m_hidden;
  std::map<core::Label, std::uint64_t> m_counts;  // voxels per label (background left out), kept across edits
  double m_opacity = 0.5;
  LabelPanel* m_labels = nullptr;
  EditTools* m_tools = nullptr;
  AiPanel* m_ai = nullptr;
  SessionFiles* m_files = nullptr;
  QDockWidget* m_labelsDock = nullptr;
  QDockWidget* m_toolsDock = nullptr;
  QDockWidget* m_aiDock = nullptr;
  QLabel* m_readout = nullptr;
  QProgressBar* m_progressBar = nullptr;
  QPushButton* m_cancelButton = nullptr;
  QTimer* m_progressTimer = nullptr;
  QTimer* m_otherViewsTimer = nullptr;  // throttles the other views' redraws during a stroke
  QTimer* m_surfaceTimer = nullptr;     // gathers edits for one surface rebuild
  SlicePanel* m_paintedIn = nullptr;
  std::set<core::Label> m_surfaceBacklog;  // labels whose surfaces wait for m_surfaceTimer
  QMenu* m_recentMenu = nullptr;
  QActionGroup* m_layoutGroup = nullptr;
  std::shared_ptr<JobProgress> m_job;
  std::shared_ptr<JobProgress> m_surfaceJob;
  std::uint64_t m_surfaceGeneration = 0;
  std::set<core::Label> m_pendingSurfaces;  // labels a running incremental rebuild owes
  bool m_pendingAll = false;                // a full rebuild is running
  bool m_dialogs = true;
  bool m_loading = false;
  std::optional<io::DicomSeries> m_dicomSource;  // the series the open study was loaded from, if DICOM
  bool m_discardOnReplace = false;  // the user chose Discard for the edits the next study replaces
  bool m_isCt = false;
  WindowLevel m_automatic;  // the image's automatic range, computed once per study
  QThreadPool m_workers;    // this window's background jobs (loads, surfaces, AI); the destructor waits for them
};

}  // namespace delineate::app::gui
