// Editing in the window (issue 8), under Xvfb + Mesa, on a CT and its label map (scripts/bench_window_edit.sh makes a
// 512 x 512 x 300 series and its classic labels):
//   1. brush dab latency as the user feels it: a mouse press/move event delivered to the axial view until it returns
//      with the dab painted and that view redrawn (disc r = 5 mm; the other two follow every 150 ms during a stroke),
//      and the release (commit, undo step,
//      label volumes, surfaces queued); the release beside the window's issue-7 way of refreshing after an edit (a
//      full recount of the map), measured in the same run on the same strokes;
//   2. click-to-preview in AI click mode with the classic engine: from the mouse click to the preview drawn in the
//      three views (engine time + display update, the window's own split), beside the engine alone on the same points
//      without the window.
// Usage: bench_window_edit IMAGE LABELS [--strokes N] [--clicks N]
#include <QApplication>
#include <QElapsedTimer>
#include <QMouseEvent>
#include <QSignalSpy>
#include <QTest>


#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "app/gui/ai/ai_panel.h"
#include "app/gui/editing/edit_tools.h"
#include "app/gui/editing/label_panel.h"
#include "app/gui/shell/main_window.h"
#include "app/gui/study/study_document.h"
#include "app/gui/study/study_loader.h"
#include "app/gui/views/view_panels.h"
#include "bench/bench_support.h"
#include "bench/bench_window_support.h"
#include "inference/engine.h"
#include "inference/interactive.h"
#include "viewer/vtk_view.h"

using namespace delineate;

namespace {

using bench::msSince;
using bench::widgetPoint;

[[noreturn]] void die(const std::string& m) {
  std::fprintf(stderr, "bench_window_edit: %s\n", m.c_str());
  std::exit(1);
}

using bench::percentile;

void row(const char* what, const std::vector<double>& ours, const std::vector<double>& peer, const char* peerName) {
  std::printf("%-34s %8.2f %8.2f %8.2f", what, percentile(ours, 0.5), percentile(ours, 0.95), percentile(ours, 1.0));
  if (!peer.empty())
    std::printf("   %-22s %8.2f %8.2f %8.2f   %5.2fx", peerName, percentile(peer, 0.5), percentile(peer, 0.95), percentile(peer, 1.0),
                percentile(peer, 0.5) / std::max(1e-9, percentile(ours, 0.5)));
  std::printf("\n");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) die("usage: bench_window_edit IMAGE LABELS [--strokes N] [--clicks N]");
  const QString image = argv[1], labels = argv[2];
  int strokes = 30, clicks = 20;
  for (int i = 3; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--strokes") strokes = std::atoi(argv[i + 1]);
    else if (a == "--clicks") clicks = std::atoi(argv[i + 1]);
    else die("unknown option " + a);
  }
  viewer::VtkView::setDefaultSurfaceFormat();
  QApplication app(argc, argv);
  bench::nameBenchApplication();
  app::gui::MainWindow window;
  bench::showBenchWindow(window);
  QSignalSpy loaded(&window, &app::gui::MainWindow::studyLoaded);
  QSignalSpy failed(&window, &app::gui::MainWindow::loadFailed);
  window.loader().openImage(image, labels);
  if (!loaded.wait(600000) || failed.count()) die("cannot open the study");
  QSignalSpy engineReady(window.aiPanel(), &app::gui::AiPanel::engineChanged);
  if (!window.aiPanel()->engineReady() && !engineReady.wait(60000)) die("no engine");
  QTest::qWait(500);
  const auto& g = window.document().session()->image().geometry();
  std::printf("study: %lld x %lld x %lld voxels, spacing %.2f x %.2f x %.2f mm; window 1400 x 900, three slice views\n",
              static_cast<long long>(g.dimensions()[0]), static_cast<long long>(g.dimensions()[1]),
              static_cast<long long>(g.dimensions()[2]), g.spacingMm()[0], g.spacingMm()[1], g.spacingMm()[2]);

  // 1. Brush strokes across the axial view, one slice down each time.
  app::gui::SlicePanel* axial = window.slicePanel(viewer::SliceOrientation::Axial);
  const core::Label label = window.labelPanel()->addLabel("bench");
  window.editTools()->setTool(app::gui::EditTools::Tool::Brush);
  window.editTools()->setBrushRadius(5);
  // The frame alone, no edit: what each press and move below pays for its view drawn and read back.
  std::vector<double> frameAlone;
  for (int f = 0; f < 20; ++f) {
    QElapsedTimer t;
    t.start();
    if (!bench::drawFrame(axial)) die("no frame");
    frameAlone.push_back(msSince(t));
  }
  bench::StrokeTimes stroke;
  std::vector<double> recount;
  std::mt19937 rng(5);
  for (int s = 0; s < strokes; ++s) {
    const core::Vec3 c = window.cursor();
    const QPoint at = widgetPoint(axial, c) + QPoint(static_cast<int>(rng() % 80) - 40, static_cast<int>(rng() % 80) - 40);
    if (!bench::timeStroke(axial, at, stroke)) die("no frame");
    QElapsedTimer t;
    // The issue-7 refresh of the same edit: every label recounted (no step handed over).
    t.start();
    window.document().labelsEdited({label});
    recount.push_back(msSince(t));
    axial->scene().scroll(1);
    window.setCursor(axial->scene().cursor());
    QApplication::processEvents();
  }
  std::printf("\nbrush (disc r = 5 mm), ms per event     p50      p95      max\n");
  row("press (dab + frame)", stroke.press, {}, "");
  row("drag move (dabs + frame)", stroke.move, {}, "");
  row("release (commit, volumes kept)", stroke.release, recount, "release, full recount");
  row("the axial frame alone (no edit)", frameAlone, {}, "");
  std::printf("(peer: the same edit refreshed as the issue-7 window did, by recounting every label of the map)\n");

  // 2. Click-to-preview: points on labelled structures of the middle slice, alternating objects.
  window.editTools()->setTool(app::gui::EditTools::Tool::Navigate);
  window.aiPanel()->setClickMode(true);
  const core::LabelMap& map = window.document().session()->labels();
  std::vector<core::Vec3> points;
  const std::int64_t z = g.dimensions()[2] / 2;
  for (std::int64_t y = 0; y < g.dimensions()[1] && static_cast<int>(points.size()) < clicks * 8; y += 7)
    for (std::int64_t x = 0; x < g.dimensions()[0]; x += 7)
      if (map.at({x, y, z}) != 0 && map.at({x, y, z}) != label) points.push_back(g.indexToLps(core::Index3{x, y, z}));
  if (points.empty()) die("no labelled voxel on the middle slice to click on");
  std::shuffle(points.begin(), points.end(), rng);
  points.resize(std::min<std::size_t>(points.size(), static_cast<std::size_t>(clicks)));
  axial->scene().setCursor(points.front());
  window.setCursor(points.front());
  QApplication::processEvents();
  std::vector<double> wall, engineMs, displayMs, alone;
  QSignalSpy preview(window.aiPanel(), &app::gui::AiPanel::previewUpdated);
  for (const core::Vec3& p : points) {
    window.aiPanel()->discardObject();  // each click starts an object, as a first click does
    preview.clear();
    QElapsedTimer t;
    t.start();
    QTest::mouseClick(&axial->view(), Qt::LeftButton, Qt::NoModifier, widgetPoint(axial, p));
    if (!preview.wait(60000)) die("no preview");
    wall.push_back(msSince(t));
    engineMs.push_back(window.aiPanel()->lastEngineMs());
    displayMs.push_back(window.aiPanel()->lastDisplayMs());
  }
  window.aiPanel()->discardObject();
  // The engine alone, same image, same points, no window.
  auto engine = inference::createEngine("classic");
  for (const core::Vec3& p : points) {
    QElapsedTimer t;
    t.start();
    auto session = engine->beginSession(window.document().session()->image());
    if (!session || !(*session)->addPoint({p, true})) die("engine alone failed");
    alone.push_back(msSince(t));
  }
  std::printf("\nclick-to-preview (classic engine), ms  p50      p95      max\n");
  row("click to preview drawn", wall, alone, "engine alone");
  row("  of which engine (worker)", engineMs, {}, "");
  row("  of which display (3 views)", displayMs, {}, "");
  std::printf("(%zu clicks, each a new object; the window adds its queueing, the worker hand-off and the redraw)\n",
              points.size());

  // 3. The engines on the image as the window holds it (its stored type) beside a float32 copy (what it held before
  // issue 27): the same clicks, and one automatic segmentation each.
  const core::ScalarImage& held = window.document().session()->image();
  auto asFloat = held.toFloat();
  if (!asFloat) die(asFloat.error().describe());
  std::vector<double> clickTyped, clickFloat;
  for (const core::Vec3& p : points)
    for (int which = 0; which < 2; ++which) {
      QElapsedTimer t;
      t.start();
      auto session = which == 0 ? engine->beginSession(held) : engine->beginSession(*asFloat);
      if (!session || !(*session)->addPoint({p, true})) die("engine alone failed");
      (which == 0 ? clickTyped : clickFloat).push_back(msSince(t));
    }
  double autoMs[2] = {0, 0};
  for (int which = 0; which < 2; ++which) {
    QElapsedTimer t;
    t.start();
    auto patch = which == 0 ? engine->segment(held, {}, nullptr) : engine->segment(*asFloat, {}, nullptr);
    if (!patch) die(patch.error().describe());
    autoMs[which] = msSince(t);
  }
  std::printf("\nengines on the window's image (%s) beside a float32 copy of it, ms  p50      p95      max\n",
              core::scalarTypeName(held.type()));
  row("click (classic, new object)", clickTyped, clickFloat, "float32 image");
  std::printf("automatic segmentation (classic, every class): %.0f ms from %s, %.0f ms from float32\n", autoMs[0],
              core::scalarTypeName(held.type()), autoMs[1]);
  window.close();
  return 0;
}
