#pragma once
// What the docks need from the window besides the study document: the slice views, messages for the user, progress
// and Cancel for background work, and the thread pool that work runs on. The window implements it; docks include
// this header, never the window's, so a new dock adds a file and no method to the window.

#include <QString>

#include <memory>

#include "viewer/slice_scene.h"

class QThreadPool;
class QWidget;

namespace delineate::app::gui {

class JobProgress;
class SlicePanel;

class Workbench {
 public:
  virtual ~Workbench() = default;

  // Modal dialogs are off for automation and tests (errors then go to the status bar only).
  virtual bool dialogsEnabled() const = 0;
  // The window: the parent of docks' dialogs and the home of window-wide shortcuts.
  virtual QWidget* widget() = 0;
  // An error for the user: the status bar, a dialog (when enabled) and the window's loadFailed.
  virtual void reportError(const QString& message) = 0;
  virtual void showStatus(const QString& message, int timeoutMs) = 0;

  // Progress and Cancel in the status bar for work a dock runs (the returned sink goes to the worker).
  virtual std::shared_ptr<JobProgress> startProgress(const QString& what) = 0;
  // False when `job` is no longer the one shown (another replaced it): its result is stale.
  virtual bool finishProgress(const std::shared_ptr<JobProgress>& job) = 0;
  // A load or an AI segmentation/click is running (a new study would pull the image from under it).
  virtual bool busy() const = 0;
  // A study, label map or DICOM index is being read.
  virtual bool loading() const = 0;
  virtual QThreadPool& workers() = 0;
  // Starts loading an image in the background; false while another load runs.
  virtual bool openImage(const QString& imagePath) = 0;

  virtual SlicePanel* slicePanel(viewer::SliceOrientation orientation) const = 0;
  virtual void refreshViews() = 0;
  // Slice views' left button: paint/fill tools, AI points, or the crosshair.
  virtual void setEditing(bool on) = 0;
  virtual void setClicking(bool on) = 0;
  // Locks (or unlocks) everything that could change the study (menus, views, docks) while a save runs; the status
  // bar with its Cancel button stays live.
  virtual void setInputLocked(bool locked) { (void)locked; }

 protected:
  Workbench() = default;
  Workbench(const Workbench&) = default;
  Workbench& operator=(const Workbench&) = default;
};

}  // namespace delineate::app::gui
