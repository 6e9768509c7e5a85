// The AI dock's prompt tools through the real window under Xvfb (issue 45): keys choose the tool, a box, a scribble
// and a lasso are drawn with the mouse in a slice view, shown at once, computed by the classic engine, undone like a
// point and accepted; the cursor's hint says what the next prompt means.
#include <catch2/catch.hpp>

#include <QApplication>
#include <QLabel>
#include <QMouseEvent>
#include <QSignalSpy>
#include <QTest>

#include <cmath>
#include <cstdlib>
#include <vector>

#include "app/gui/ai/ai_panel.h"
#include "app/gui/editing/edit_tools.h"
#include "app/gui/shell/main_window.h"
#include "app/gui/views/view_panels.h"
#include "inference/interactive.h"
#include "io/volume/image_file.h"
#include "tests/gui/gui_fixtures.h"
#include "tests/gui_support/gui_app.h"

using namespace delineate;
using app::gui::SlicePanel;
using test::QuietWindow;
using test::waitFor;
using viewer::SliceOrientation;

namespace {

QPoint widgetPoint(SlicePanel* panel, const core::Vec3& lps) {
  const auto d = panel->scene().displayPoint(lps);
  const double dpr = panel->view().devicePixelRatioF();
  return QPoint(static_cast<int>(std::lround(d[0] / dpr)), panel->view().height() - static_cast<int>(std::lround(d[1] / dpr)));
}

void move(QWidget* view, QPoint at, Qt::MouseButtons buttons, Qt::KeyboardModifiers mods) {
  QMouseEvent e(QEvent::MouseMove, QPointF(at), view->mapToGlobal(QPointF(at)), Qt::NoButton, buttons, mods);
  QApplication::sendEvent(view, &e);
}

// A left-button drag through `path` (press at the first point, release at the last).
void dragPath(QWidget* view, const std::vector<QPoint>& path, Qt::KeyboardModifiers mods = Qt::NoModifier) {
  QTest::mousePress(view, Qt::LeftButton, mods, path.front());
  for (std::size_t k = 1; k < path.size(); ++k) {
    const QPoint from = path[k - 1], to = path[k];
    for (int i = 1; i <= 6; ++i) move(view, from + (to - from) * i / 6, Qt::LeftButton, mods);
  }
  QTest::mouseRelease(view, Qt::LeftButton, mods, path.back());
}

std::size_t countLabel(const app::gui::MainWindow& w, core::Label label) {
  const core::LabelMap& m = w.document().session()->labels();
  return static_cast<std::size_t>(std::count(m.data(), m.data() + m.size(), label));
}

}  // namespace

TEST_CASE("AI prompts: a box, a scribble and a lasso drawn with the mouse are shown, computed, undone and accepted",
          "[gui][ai][prompt]") {
  test::guiApp();
  test::ScratchDir dir("gui-prompts");
  // The classic engine's left lung on the sample: the object the box is drawn around.
  auto reference = io::readLabelFile(test::sampleLabels(dir));
  REQUIRE(reference.ok());
  const core::Label lung = 201;
  const auto& g = reference->geometry();
  const auto d = g.dimensions();
  std::vector<std::size_t> perSlice(static_cast<std::size_t>(d[2]), 0);
  for (std::int64_t z = 0; z < d[2]; ++z)
    for (std::int64_t y = 0; y < d[1]; ++y)
      for (std::int64_t x = 0; x < d[0]; ++x)
        if (reference->at(core::Index3{x, y, z}) == lung) ++perSlice[static_cast<std::size_t>(z)];
  const auto slice = static_cast<std::int64_t>(std::max_element(perSlice.begin(), perSlice.end()) - perSlice.begin());
  REQUIRE(perSlice[static_cast<std::size_t>(slice)] > 100);
  core::IndexBox rect;
  for (std::int64_t y = 0; y < d[1]; ++y)
    for (std::int64_t x = 0; x < d[0]; ++x)
      if (reference->at(core::Index3{x, y, slice}) == lung) rect.include(core::Index3{x, y, slice});

  QuietWindow window(QSize(1400, 900));
  app::gui::AiPanel* ai = window.aiPanel();
  QSignalSpy loaded(&window, &app::gui::MainWindow::studyLoaded);
  QSignalSpy engine(ai, &app::gui::AiPanel::engineChanged);
  REQUIRE(window.loader().openImage(QString::fromStdString(test::kSampleCt)));
  REQUIRE(waitFor(loaded));
  REQUIRE((ai->engineReady() || waitFor(engine)));
  window.activateWindow();
  REQUIRE(QTest::qWaitForWindowActive(&window));
  window.setCursor(g.indexToLps(core::Index3{(rect.min[0] + rect.max[0]) / 2, (rect.min[1] + rect.max[1]) / 2, slice}));
  QApplication::processEvents();

  // X: the box tool, and click mode on; every slice view follows the tool.
  QTest::keyClick(&window, Qt::Key_X);
  REQUIRE(ai->clickMode());
  CHECK(ai->promptTool() == SlicePanel::PromptTool::Box);
  SlicePanel* axial = window.slicePanel(SliceOrientation::Axial);
  SlicePanel* sagittal = window.slicePanel(SliceOrientation::Sagittal);
  CHECK(axial->promptTool() == SlicePanel::PromptTool::Box);
  CHECK(sagittal->promptTool() == SlicePanel::PromptTool::Box);
  // The hint by the cursor says what the next prompt means, and its sign follows Shift.
  QWidget* view = &axial->view();
  move(view, QPoint(view->width() / 2, view->height() / 2), Qt::NoButton, Qt::NoModifier);
  INFO(axial->promptHint().toStdString());
  CHECK(axial->promptHint().startsWith("+ box"));
  move(view, QPoint(view->width() / 2, view->height() / 2), Qt::NoButton, Qt::ShiftModifier);
  CHECK(axial->promptHint().startsWith(QString::fromUtf8("\u2212 box")));

  // A box around the lung on its largest slice: drawn at once, then the object, all of it inside the rectangle.
  QSignalSpy preview(ai, &app::gui::AiPanel::previewUpdated);
  dragPath(view, {widgetPoint(axial, g.indexToLps(rect.min)), widgetPoint(axial, g.indexToLps(rect.max))});
  CHECK(axial->scene().shownPromptShapes() == 1);
  CHECK(sagittal->scene().shownPromptShapes() == 0);  // drawn in an axial plane: not in the sagittal one
  REQUIRE(waitFor(preview));
  CHECK(ai->pointCount() == 1);
  const std::size_t boxObject = ai->objectVoxels();
  CHECK(boxObject > 1000);
  CHECK(axial->scene().hasPreview());

  // Accepted alone: a new label, every voxel inside the rectangle in-plane (a 2D box says nothing of the slices).
  QTest::keyClick(&window, Qt::Key_Return);
  {
    const core::LabelMap& labels = window.document().session()->labels();
    std::size_t outside = 0, count = 0;
    for (std::int64_t z = 0; z < d[2]; ++z)
      for (std::int64_t y = 0; y < d[1]; ++y)
        for (std::int64_t x = 0; x < d[0]; ++x) {
          if (labels.at(core::Index3{x, y, z}) == 0) continue;
          ++count;
          if (x < rect.min[0] || x > rect.max[0] || y < rect.min[1] || y > rect.max[1]) ++outside;
        }
    CHECK(count == boxObject);
    CHECK(outside == 0);
  }
  REQUIRE(window.editTools()->undo());

  // Backspace removes a box like a point.
  preview.clear();
  dragPath(view, {widgetPoint(axial, g.indexToLps(rect.min)), widgetPoint(axial, g.indexToLps(rect.max))});
  REQUIRE(waitFor(preview));
  QTest::keyClick(&window, Qt::Key_Backspace);
  CHECK(ai->pointCount() == 0);
  CHECK(axial->scene().shownPromptShapes() == 0);

  // A box in the axial view and then one in the coronal view make one 3D box (the first taken back).
  SlicePanel* coronal = window.slicePanel(SliceOrientation::Coronal);
  const std::int64_t cy = (rect.min[1] + rect.max[1]) / 2;
  preview.clear();
  dragPath(view, {widgetPoint(axial, g.indexToLps(rect.min)), widgetPoint(axial, g.indexToLps(rect.max))});
  REQUIRE(waitFor(preview));
  preview.clear();
  dragPath(&coronal->view(), {widgetPoint(coronal, g.indexToLps(core::Index3{rect.min[0], cy, std::max<std::int64_t>(0, slice - 20)})),
                              widgetPoint(coronal, g.indexToLps(core::Index3{rect.max[0], cy, slice}))});
  REQUIRE(waitFor(preview));
  REQUIRE(ai->pointCount() == 1);
  const inference::Prompt& box3 = ai->prompts().front();
  CHECK(box3.kind == inference::Prompt::Kind::Box);
  CHECK(box3.normalLps == core::Vec3{0, 0, 0});
  const auto raster3 = inference::rasterizePrompt(box3, g);
  REQUIRE(raster3.ok());
  INFO("3D box " << raster3->box.min[0] << ".." << raster3->box.max[0] << ", " << raster3->box.min[1] << ".."
                 << raster3->box.max[1] << ", " << raster3->box.min[2] << ".." << raster3->box.max[2]);
  CHECK(raster3->box.max[2] - raster3->box.min[2] >= 15);  // the coronal box's extent across the axial slices
  CHECK(std::abs(raster3->box.min[1] - rect.min[1]) <= 1);  // the axial box's extent front to back
  CHECK(std::abs(raster3->box.max[1] - rect.max[1]) <= 1);
  QTest::keyClick(&window, Qt::Key_Escape);
  CHECK(ai->pointCount() == 0);

  // The box again, then a scribble and a lasso (S, L) inside the lung: three prompts, three shapes.
  preview.clear();
  dragPath(view, {widgetPoint(axial, g.indexToLps(rect.min)), widgetPoint(axial, g.indexToLps(rect.max))});
  REQUIRE(waitFor(preview));
  QTest::keyClick(&window, Qt::Key_S);
  CHECK(ai->promptTool() == SlicePanel::PromptTool::Scribble);
  const core::Index3 c{(rect.min[0] + rect.max[0]) / 2, (rect.min[1] + rect.max[1]) / 2, slice};
  auto at = [&](std::int64_t dx, std::int64_t dy) { return widgetPoint(axial, g.indexToLps(core::Index3{c[0] + dx, c[1] + dy, slice})); };
  preview.clear();
  dragPath(view, {at(-6, -10), at(0, 0), at(4, 10)});
  REQUIRE(waitFor(preview));
  CHECK(ai->pointCount() == 2);
  QTest::keyClick(&window, Qt::Key_L);
  preview.clear();
  dragPath(view, {at(-4, -4), at(4, -4), at(4, 4), at(-4, 4), at(-4, -3)});
  REQUIRE(waitFor(preview));
  CHECK(ai->pointCount() == 3);
  CHECK(axial->scene().shownPromptShapes() == 3);
  if (const char* keep = std::getenv("DELINEATE_KEEP_SCREENSHOTS")) {
    move(view, at(8, 8), Qt::NoButton, Qt::NoModifier);
    window.screenshot().save(QString(keep) + "/prompts-drawn.png");
  }
  // Positive prompts only add: the object holds at least the box's.
  CHECK(ai->objectVoxels() >= boxObject);
  // A drag too short for a lasso gives no prompt.
  dragPath(view, {at(0, 0), at(0, 0)});
  QApplication::processEvents();
  CHECK(ai->pointCount() == 3);

  // Accept: a new label with the object, one undo step.
  const std::size_t object = ai->objectVoxels();
  QTest::keyClick(&window, Qt::Key_Return);
  CHECK(ai->pointCount() == 0);
  CHECK(window.editTools()->undoAction()->text().contains("Accept AI object"));
  const core::LabelMap& labels = window.document().session()->labels();
  core::Label written = 0;
  for (std::size_t i = 0; i < labels.size() && written == 0; ++i) written = labels.data()[i];
  REQUIRE(written != 0);
  CHECK(countLabel(window, written) == object);
  // P: back to points.
  QTest::keyClick(&window, Qt::Key_P);
  CHECK(axial->promptTool() == SlicePanel::PromptTool::Point);
  move(view, QPoint(view->width() / 2, view->height() / 2), Qt::NoButton, Qt::NoModifier);
  CHECK(axial->promptHint().startsWith("+ point"));
  if (const char* keep = std::getenv("DELINEATE_KEEP_SCREENSHOTS")) window.screenshot().save(QString(keep) + "/prompts.png");
}
