#pragma once
// The four views of the main window: three slice panels and the 3D panel, each a VtkView under a title line. A
// panel turns mouse and keys into navigation and tells the window what changed; the window keeps the views in step.
//
// Slice panels: left click or drag = move the crosshair (every view follows); wheel or Up/Down/PageUp/PageDown =
// scroll slices; right drag = window (horizontal) and level (vertical); middle drag or Shift + left drag = pan;
// Ctrl + wheel = zoom; R = reset; double click = this view alone (1x1) and back.
// Paint mode (brush, eraser, flood fill): left press/drag/release go to the tool instead of the crosshair,
// Shift + wheel resizes the brush. Click mode (AI prompts), by the prompt tool: point: left click = positive point,
// Shift + left or right click = negative point; box, scribble, lasso: a drag with the left button (positive) or with
// Shift or the right button (negative) draws it, drawn as it goes, and the release gives it. A line by the cursor
// says what the next prompt means.
// 3D panel: left drag = rotate, wheel = zoom, R = reset.

#include <QFrame>
#include <QPointF>

#include <memory>
#include <vector>

#include "core/geometry.h"
#include "viewer/slice_scene.h"
#include "viewer/surface_scene.h"
#include "viewer/vtk_view.h"

class QLabel;

namespace delineate::app::gui {

// The four corners of a box drawn in a view whose normal is `normalLps` (an LPS axis: views are resliced in patient
// space) from two opposite corners.
std::vector<core::Vec3> boxCorners(const core::Vec3& a, const core::Vec3& b, const core::Vec3& normalLps);

class SlicePanel : public QFrame {
  Q_OBJECT

 public:
  enum class Interaction { Navigate, Paint, Click };
  enum class PromptTool { Point, Box, Scribble, Lasso };

  SlicePanel(viewer::SliceOrientation orientation, QWidget* parent = nullptr);
  void setInteraction(Interaction mode);
  Interaction interaction() const { return m_interaction; }
  void setPromptTool(PromptTool tool);
  PromptTool promptTool() const { return m_tool; }
  // A second line for the cursor's hint (e.g. which label model-guided prompts edit); empty for none.
  void setPromptContext(const QString& text);
  // The hint shown by the cursor now (empty when hidden), for tests.
  QString promptHint() const;
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
  // A box (its two corners), scribble or lasso drawn in this view's plane, whose normal is `normalLps`.
  void promptDrawn(delineate::app::gui::SlicePanel::PromptTool tool, std::vector<core::Vec3> pointsLps,
                   core::Vec3 normalLps, bool positive);

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  void onPress(QPointF pos, Qt::MouseButton button, Qt::KeyboardModifiers modifiers);
  void onMove(QPointF pos, Qt::MouseButtons buttons, Qt::KeyboardModifiers modifiers);
  void onWheel(QPointF pos, int steps, Qt::KeyboardModifiers modifiers);
  void onKey(int key, Qt::KeyboardModifiers modifiers);
  void updateHint(const QPoint& widgetPos, Qt::KeyboardModifiers modifiers);
  // The shape being drawn, as the scene draws it (a box as its rectangle in the view's plane).
  viewer::SliceScene::PromptShape draftShape() const;

  viewer::VtkView* m_view;
  QLabel* m_title;
  std::unique_ptr<viewer::SliceScene> m_scene;
  QPointF m_last;
  enum class Drag { None, Cursor, Pan, WindowLevel, Paint, Prompt } m_drag = Drag::None;
  Interaction m_interaction = Interaction::Navigate;
  PromptTool m_tool = PromptTool::Point;
  std::vector<core::Vec3> m_stroke;  // the prompt being drawn (a box: its first corner and the current one)
  QPointF m_strokeLast;              // display position of its last point
  bool m_strokePositive = true;
  QLabel* m_hint = nullptr;
  QString m_promptContext;
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
