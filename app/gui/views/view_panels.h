#pragma once
// The four views of the main window: three slice panels and the 3D panel, each a VtkView under a title line. A
// panel turns mouse and keys into navigation and tells the window what changed; the window keeps the views in step.
//
// Slice panels: left click or drag = move the crosshair (every view follows); wheel or Up/Down/PageUp/PageDown =
// scroll slices; right drag = window (horizontal) and level (vertical); middle drag or Shift + left drag = pan;
// Ctrl + wheel = zoom; R = reset; double click = this view alone (1x1) and back.
// Paint mode (brush, eraser, flood fill): left press/drag/release go to the tool instead of the crosshair,
// Shift + wheel resizes the brush. Click mode (AI points): left click = positive point, Shift + left or right
// click = negative point.
// 3D panel: left drag = rotate, wheel = zoom, R = reset.

#include <QFrame>
#include <QPointF>

#include <memory>

#include "core/geometry.h"
#include "viewer/slice_scene.h"
#include "viewer/surface_scene.h"
#include "viewer/vtk_view.h"

class QLabel;

namespace delineate::app::gui {

class SlicePanel : public QFrame {
  Q_OBJECT

 public:
  enum class Interaction { Navigate, Paint, Click };

  SlicePanel(viewer::SliceOrientation orientation, QWidget* parent = nullptr);
  void setInteraction(Interaction mode);
  Interaction interaction() const { return m_interaction; }
  viewer::SliceScene& scene() { return *m_scene; }
  viewer::VtkView& view() { return *m_view; }
  void refresh();  // title (slice number) and a render

 Q_SIGNALS:
  void cursorRequested(core::Vec3 lps);  // the user moved the crosshair here
  void hovered(core::Vec3 lps);
  void windowLevelDragged(double dWindow, double dLevel);
  void maximizeToggled();
  // Paint mode: a stroke starts, continues (from the previous point) and ends.
  void paintPressed(core::Vec3 lps);
  void paintDragged(core::Vec3 fromLps, core::Vec3 toLps);
  void paintReleased();
  void brushResizeRequested(int steps);
  // Click mode.
  void pointClicked(core::Vec3 lps, bool positive);

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  void onPress(QPointF pos, Qt::MouseButton button, Qt::KeyboardModifiers modifiers);
  void onMove(QPointF pos, Qt::MouseButtons buttons, Qt::KeyboardModifiers modifiers);
  void onWheel(QPointF pos, int steps, Qt::KeyboardModifiers modifiers);
  void onKey(int key, Qt::KeyboardModifiers modifiers);

  viewer::VtkView* m_view;
  QLabel* m_title;
  std::unique_ptr<viewer::SliceScene> m_scene;
  QPointF m_last;
  enum class Drag { None, Cursor, Pan, WindowLevel, Paint } m_drag = Drag::None;
  Interaction m_interaction = Interaction::Navigate;
  core::Vec3 m_lastPaint{0, 0, 0};
};

class SurfacePanel : public QFrame {
  Q_OBJECT

 public:
  explicit SurfacePanel(QWidget* parent = nullptr);
  viewer::SurfaceScene& scene() { return *m_scene; }
  viewer::VtkView& view() { return *m_view; }
  // The title's text after "3D" and its tooltip.
  void setStatus(const QString& text, const QString& toolTip = {});
  void refresh();

 Q_SIGNALS:
  void maximizeToggled();

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  viewer::VtkView* m_view;
  QLabel* m_title;
  std::unique_ptr<viewer::SurfaceScene> m_scene;
  QPointF m_last;
  bool m_rotating = false;
};

}  // namespace delineate::app::gui
