#pragma once
// What the window benchmarks (bench/window_edit.cpp, bench/large_volume.cpp) share in a slice view: a point in the
// widget for a patient position, a frame drawn and read back, and a timed brush stroke. Every latency includes its
// frame: a widget's repaint() need not draw under Xvfb, so the view is captured (rendered and read back) instead.

#include <QApplication>
#include <QElapsedTimer>
#include <QMouseEvent>
#include <QPoint>
#include <QTest>

#include <cmath>
#include <vector>

#include "app/gui/shell/main_window.h"
#include "app/gui/views/view_panels.h"
#include "core/geometry.h"
#include "viewer/vtk_view.h"

namespace delineate::bench {

// The window every benchmark measures: its settings under their own name (a user's are not touched), no dialogs
// (errors come back as signals), 1400 x 900, shown and laid out.
inline void nameBenchApplication() {
  QApplication::setOrganizationName("DelineateBench");
  QApplication::setApplicationName("DelineateBench");
}
inline void showBenchWindow(app::gui::MainWindow& window) {
  window.setDialogsEnabled(false);
  window.resize(1400, 900);
  window.show();
  QApplication::processEvents();
}

inline double msSince(const QElapsedTimer& t) { return static_cast<double>(t.nsecsElapsed()) / 1e6; }

// Widget pixels (top-left origin) from the scene's display pixels (device, bottom-left origin).
inline QPoint widgetPoint(app::gui::SlicePanel* panel, const core::Vec3& lps) {
  const auto d = panel->scene().displayPoint(lps);
  const double dpr = panel->view().devicePixelRatioF();
  return QPoint(static_cast<int>(std::lround(d[0] / dpr)), panel->view().height() - static_cast<int>(std::lround(d[1] / dpr)));
}

// The view drawn now and read back; false when no frame came.
inline bool drawFrame(app::gui::SlicePanel* panel) { return !panel->view().capture().isNull(); }

struct StrokeTimes {
  std::vector<double> press, move, release;  // ms; press and each move include the view's frame
};

// A brush stroke from `at`: press, ten moves (4, 2 px apart), release; false when a frame did not come.
inline bool timeStroke(app::gui::SlicePanel* panel, QPoint at, StrokeTimes& times) {
  QWidget* view = &panel->view();
  QElapsedTimer t;
  t.start();
  QTest::mousePress(view, Qt::LeftButton, Qt::NoModifier, at);
  if (!drawFrame(panel)) return false;
  times.press.push_back(msSince(t));
  for (int m = 1; m <= 10; ++m) {
    const QPoint p = at + QPoint(4 * m, 2 * m);
    QMouseEvent ev(QEvent::MouseMove, QPointF(p), view->mapToGlobal(QPointF(p)), Qt::NoButton, Qt::LeftButton,
                   Qt::NoModifier);
    t.restart();
    QApplication::sendEvent(view, &ev);
    if (!drawFrame(panel)) return false;
    times.move.push_back(msSince(t));
  }
  t.restart();
  QTest::mouseRelease(view, Qt::LeftButton, Qt::NoModifier, at + QPoint(40, 20));
  times.release.push_back(msSince(t));
  return true;
}

}  // namespace delineate::bench
