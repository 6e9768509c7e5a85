#pragma once
// The 3D view's label surfaces follow the study document: every label's surface when a study opens or its labels
// are replaced, only the changed labels' after an edit (edits in quick succession gathered into one rebuild: the
// worker's copy of the map is the costly part on a large study). Built on the thread pool; a newer rebuild cancels
// an older one and takes over the labels that one still owed.

#include <QObject>

#include <cstdint>
#include <memory>
#include <set>

#include "core/label_map.h"
#include "viewer/surface_scene.h"

class QThreadPool;
class QTimer;

namespace delineate::app::gui {

class JobProgress;
class StudyDocument;
class SurfacePanel;

// The detail the 3D view's surfaces are meshed at, from the preference "view/surfaceDetail": "full", "reduced", or
// "auto" (the default): reduced where the OpenGL renderer draws on the CPU, where full detail of a 512^3 study's
// surfaces costs about 300 MB more at the draw and slows every frame. Surface exports are meshed at full detail
// whatever this says, so the files do not depend on the graphics driver.
viewer::SurfaceDetail surfaceDetailSetting();

class SurfaceBuilder : public QObject {
  Q_OBJECT

 public:
  SurfaceBuilder(StudyDocument& document, SurfacePanel& panel, QThreadPool& workers, QObject* parent = nullptr);

  // Every label's surface, or (incremental) only those of `changed`. `source`: a map equal to the session's that
  // the worker may keep (saves it a copy), else it copies the session's.
  void rebuild(const std::set<core::Label>* changed = nullptr);
  // Stops a running rebuild (the window closes).
  void cancel();
  // The detail of the surfaces shown (or being built); settingsChanged() rebuilds them all when the preference now
  // asks for another.
  viewer::SurfaceDetail detail() const { return m_detail; }
  void settingsChanged();
  // The panel's status again in the language now installed.
  void retranslate();

 Q_SIGNALS:
  void ready();  // the surfaces shown are those of the labels now

 private:
  // The panel's title: the number of surfaces, and whether (and why, in its tooltip) a label was meshed coarser.
  void showStatus();

  StudyDocument& m_document;
  SurfacePanel& m_panel;
  QThreadPool& m_workers;
  QTimer* m_timer = nullptr;               // gathers edits for one rebuild
  std::set<core::Label> m_backlog;         // labels whose surfaces wait for m_timer
  std::shared_ptr<JobProgress> m_job;
  std::uint64_t m_generation = 0;
  std::set<core::Label> m_pending;         // labels a running incremental rebuild owes
  bool m_pendingAll = false;               // a full rebuild is running
  viewer::SurfaceDetail m_detail = viewer::SurfaceDetail::Full;  // chosen at each full rebuild, kept by incremental ones
};

}  // namespace delineate::app::gui
