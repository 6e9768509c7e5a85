#pragma once
// The workstation window: three slice views and a 3D view of one study, linked by a crosshair, with window/level
// presets, layouts, a cursor readout and the docks. It composes: the study lives in a StudyDocument that the views
// and docks observe; loading, exports and surfaces are their own objects; the docks reach the window only through
// the Workbench interface (views, messages, progress, the thread pool).

#include <QMainWindow>
#include <QString>
#include <QThreadPool>

#include <memory>

#include "app/gui/base/window_level.h"
#include "app/gui/base/workbench.h"
#include "core/geometry.h"

class QAction;
class QActionGroup;
class QDockWidget;
class QDragEnterEvent;
class QDropEvent;
class QGridLayout;
class QLabel;
class QMenu;
class QProgressBar;
class QPushButton;
class QTimer;

namespace delineate::app::gui {

class AiPanel;
class TrainingPanel;
class ModelRegistryDialog;
class ModelDownloadsDialog;
class PacsBrowserDialog;
class PacsSendDialog;
struct PacsOpenRequest;
class EditTools;
class LabelPanel;
class SessionFiles;
class ShareImporter;
class StudyDocument;
class StudyExports;
class StudyLoader;
class SurfaceBuilder;
class SurfacePanel;
class WelcomePanel;

enum class ViewLayout { OneByOne, TwoByTwo, OnePlusThree };

class MainWindow : public QMainWindow, public Workbench {
  Q_OBJECT

 public:
  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;

  StudyDocument& document() const { return *m_document; }
  StudyLoader& loader() const { return *m_loader; }
  StudyExports& exports() const { return *m_exports; }
  LabelPanel* labelPanel() const { return m_labels; }
  EditTools* editTools() const { return m_tools; }
  AiPanel* aiPanel() const { return m_ai; }
  TrainingPanel* trainingPanel() const { return m_training; }
  // AI > Model Registry: the share's trained models (made when first shown, then raised).
  ModelRegistryDialog* showModelRegistry();
  // AI > Get Models: known models, downloads and registered files (made when first shown, then raised; not modal).
  ModelDownloadsDialog* showModelDownloads();
  // File > Query/Retrieve from PACS: the PACS browser (made when first shown, then raised; not modal).
  PacsBrowserDialog* showPacsBrowser();
  // File > Send to PACS: the open study's SEG and SR to a PACS server (made when first shown, then raised).
  PacsSendDialog* showSendToPacs();
  SessionFiles* sessionFiles() const { return m_files; }
  ShareImporter& importer() const { return *m_importer; }
  SurfacePanel* surfacePanel() const { return m_surface; }
  // What builds the 3D view's surfaces (the detail they are meshed at).
  SurfaceBuilder& surfaceBuilder() const { return *m_surfaces; }

  // For automation and tests: no modal dialogs (errors go to the status bar and loadFailed).
  void setDialogsEnabled(bool enabled) { m_dialogs = enabled; }
  void cancelJob();

  // Workbench: what the docks use.
  bool dialogsEnabled() const override { return m_dialogs; }
  QWidget* widget() override { return this; }
  void reportError(const QString& message) override;
  void showStatus(const QString& message, int timeoutMs) override;
  std::shared_ptr<JobProgress> startProgress(const QString& what) override;
  bool finishProgress(const std::shared_ptr<JobProgress>& job) override;
  bool busy() const override;
  bool loading() const override;
  QThreadPool& workers() override { return m_workers; }
  bool openImage(const QString& imagePath) override;
  SlicePanel* slicePanel(viewer::SliceOrientation orientation) const override;
  void refreshViews() override;
  void setEditing(bool on) override;
  void setInputLocked(bool locked) override;
  void setClicking(bool on) override;

  WindowLevel windowLevel() const { return m_windowLevel; }
  void setWindowLevel(WindowLevel wl);
  void applyPreset(const QString& name);
  void setViewLayout(ViewLayout layout);
  ViewLayout viewLayout() const { return m_layout; }
  void setLabelOpacity(double opacity);
  void setLabelOutline(bool outline);
  void setCursor(const core::Vec3& lps);
  core::Vec3 cursor() const { return m_cursor; }
  QString readout() const;
  // The whole window as on screen, views included.
  QImage screenshot();
  // It written as a PNG to `path` (a path the user chose: io's Personal rule, never readable by others, written
  // atomically): an empty string, or why not, naming the file.
  QString saveScreenshot(const QString& path);

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
  void showEvent(QShowEvent* event) override;
  // Files and folders dropped on the window open as from a file manager (StudyLoader::openPath).
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dropEvent(QDropEvent* event) override;

 private:
  void buildMenus();  // main_window_menus.cpp
  void buildDocks();
  // At the first show: a window under 850 px high tabs Tools with AI (stacked they would each get a few hundred
  // pixels); one under 1100 px wide tabs Labels and Training with them too, so the views keep the width.
  void arrangeDocks();
  void observeDocument();  // main_window_labels.cpp
  void retranslate();
  void studyReplaced();
  // The title: the study's file, and the share revision the labels are (study / label set rN) with its review state,
  // read on a worker (a share can hang) and shown when it arrives.
  void updateTitle();
  void labelsRedrawn();  // the map changed: every slice overlay reslices
  void afterEdit();
  void modifiedInPlace(QObject* paintedIn);
  void recolourScenes();
  void updateReadout(const core::Vec3& lps);
  void addRecent(const QString& path);
  void openFromShare();  // File > Open from Share: the study browser
  void openFromPacs(const PacsOpenRequest& request);  // the PACS browser's Open
  void fillRecentMenu();

  // The study and the objects that work on it (children of the window).
  StudyDocument* m_document = nullptr;
  StudyLoader* m_loader = nullptr;
  StudyExports* m_exports = nullptr;
  SurfaceBuilder* m_surfaces = nullptr;
  SlicePanel* m_axial = nullptr;
  SlicePanel* m_coronal = nullptr;
  SlicePanel* m_sagittal = nullptr;
  SurfacePanel* m_surface = nullptr;
  QWidget* m_viewArea = nullptr;
  WelcomePanel* m_welcome = nullptr;  // over the views while no study is open
  QList<QAction*> m_openActions;      // File's ways to open a study (the welcome panel's buttons)
  QGridLayout* m_grid = nullptr;
  ViewLayout m_layout = ViewLayout::TwoByTwo;
  QWidget* m_maximized = nullptr;  // the view shown alone in 1x1
  WindowLevel m_windowLevel;
  core::Vec3 m_cursor{0, 0, 0};
  double m_opacity = 0.5;
  LabelPanel* m_labels = nullptr;
  EditTools* m_tools = nullptr;
  AiPanel* m_ai = nullptr;
  TrainingPanel* m_training = nullptr;
  QDockWidget* m_trainingDock = nullptr;
  ModelRegistryDialog* m_registry = nullptr;
  ModelDownloadsDialog* m_modelDownloads = nullptr;
  PacsBrowserDialog* m_pacsBrowser = nullptr;
  PacsSendDialog* m_pacsSend = nullptr;
  SessionFiles* m_files = nullptr;
  ShareImporter* m_importer = nullptr;
  QDockWidget* m_labelsDock = nullptr;
  QDockWidget* m_toolsDock = nullptr;
  QDockWidget* m_aiDock = nullptr;
  QLabel* m_readout = nullptr;
  QLabel* m_windowLevelText = nullptr;   // "W 400  L 40" in the status bar, always shown
  QActionGroup* m_presetGroup = nullptr;  // View > Window/Level: the preset in use is ticked (none when custom)
  QProgressBar* m_progressBar = nullptr;
  QPushButton* m_cancelButton = nullptr;
  QTimer* m_progressTimer = nullptr;
  QTimer* m_otherViewsTimer = nullptr;  // throttles the other views' redraws during a stroke
  QObject* m_paintedIn = nullptr;
  QMenu* m_recentMenu = nullptr;
  QActionGroup* m_layoutGroup = nullptr;
  std::shared_ptr<JobProgress> m_job;
  bool m_dialogs = true;
  bool m_docksArranged = false;
  WindowLevel m_automatic;  // the image's automatic range, computed once per study
  QString m_reviewText;          // " (approved by carol)" for the share revision in the title
  std::uint64_t m_titleGeneration = 0;
  QThreadPool m_workers;    // this window's background jobs (loads, surfaces, AI); the destructor waits for them
};

}  // namespace delineate::app::gui
