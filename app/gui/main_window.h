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
#include "core/annotation_session.h"
#include "core/statistics.h"
#include "viewer/slice_scene.h"

class QAction;
class QActionGroup;
class QGridLayout;
class QLabel;
class QListWidget;
class QListWidgetItem;
class QMenu;
class QProgressBar;
class QPushButton;
class QSlider;
class QTimer;

namespace delineate::io {
struct DicomSeries;
}

namespace delineate::app::gui {

class JobProgress;
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
  bool openDicomFolder(const QString& folder);
  // A label set revision from a share store (the session then counts as saved at that revision).
  bool openShareRevision(const QString& root, const QString& study, const QString& labelSet, int revision);
  bool busy() const;
  void cancelJob();

  // For automation and tests: no modal dialogs (errors go to the status bar and loadFailed).
  void setDialogsEnabled(bool enabled) { m_dialogs = enabled; }

  bool hasStudy() const { return m_session.has_value(); }
  const core::AnnotationSession* session() const { return m_session ? &*m_session : nullptr; }
  // For editing tools: the session to edit; after committing an edit (or undo/redo) call labelsEdited with the
  // labels whose voxels changed, so the slices, the label list and those labels' surfaces follow.
  core::AnnotationSession* editableSession() { return m_session ? &*m_session : nullptr; }
  void labelsEdited(const std::set<core::Label>& changed);
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
  QListWidget* labelList() const { return m_labelList; }
  QString readout() const;
  // The whole window as on screen, views included.
  QImage screenshot();

 Q_SIGNALS:
  void studyLoaded();
  void labelsLoaded();
  void loadFailed(QString message);
  void surfacesReady();

 protected:
  void closeEvent(QCloseEvent* event) override;

 private:
  struct Loaded;
  void buildMenus();
  void buildDocks();
  void startJob(const QString& what, std::function<std::shared_ptr<Loaded>(JobProgress&)> work);
  void finishJob(std::shared_ptr<Loaded> result);
  void setStudy(core::ImageVolume image, std::optional<core::LabelMap> labels, const QString& source);
  // False (reported) when the labels cannot replace the session's; the session is then as it was.
  bool setLabelMap(core::LabelMap labels);
  void refreshLabelList();
  // Every label's surface, or (incremental) only those of `changed`.
  // `source`: a map equal to the session's that the worker may keep (saves it a copy), else it copies the session's.
  void rebuildSurfaces(const std::set<core::Label>* changed = nullptr,
                       std::shared_ptr<const core::LabelMap> source = nullptr);
  void updateReadout(const core::Vec3& lps);
  void refreshViews();
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
  std::vector<core::LabelStatistics> m_labelStats;  // of the session's labels, as of the last refreshLabelList
  double m_opacity = 0.5;
  QListWidget* m_labelList = nullptr;
  QSlider* m_opacitySlider = nullptr;
  QLabel* m_readout = nullptr;
  QProgressBar* m_progressBar = nullptr;
  QPushButton* m_cancelButton = nullptr;
  QTimer* m_progressTimer = nullptr;
  QMenu* m_recentMenu = nullptr;
  QActionGroup* m_layoutGroup = nullptr;
  std::shared_ptr<JobProgress> m_job;
  std::shared_ptr<JobProgress> m_surfaceJob;
  std::uint64_t m_surfaceGeneration = 0;
  std::set<core::Label> m_pendingSurfaces;  // labels a running incremental rebuild owes
  bool m_pendingAll = false;                // a full rebuild is running
  bool m_dialogs = true;
  bool m_isCt = false;
  WindowLevel m_automatic;  // the image's automatic range, computed once per study
  QThreadPool m_workers;    // this window's background jobs (loads, surfaces); the destructor waits for them  // the open image looks like CT (HU readout, CT presets), decided once per study
  bool m_filling = false;
};

}  // namespace delineate::app::gui
