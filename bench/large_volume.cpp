// A micro-CT scale study in the window (issue 27, item 4): a synthetic N x N x N uint16 volume (a mouse-sized body of
// soft tissue with a skeleton and noise, as a 16-bit micro-CT stores it) opened from an uncompressed NIfTI, then:
// time to first image, memory (RSS after opening, peak over the run, beside the raw data: 16-bit image + 16-bit
// labels), scrolling the axial view, brush dabs and strokes, undo of a stroke and of a whole-map import, and saving
// the labels to a share as a new revision. Run it at 1024 and at 512 (scripts/bench_large_volume.sh) to read the
// large case beside the window's latencies on a volume it already handled.
// Usage: bench_large_volume --make PATH --size N       (writes the volume; its own process, so it does not count)
//        bench_large_volume --open PATH --share DIR [--strokes N]
#include <QApplication>
#include <QElapsedTimer>
#include <QSignalSpy>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "app/gui/editing/edit_tools.h"
#include "app/gui/editing/label_panel.h"
#include "app/gui/shell/main_window.h"
#include "app/gui/study/session_files.h"
#include "app/gui/study/study_document.h"
#include "app/gui/study/study_loader.h"
#include "app/gui/views/view_panels.h"
#include "bench/bench_support.h"
#include "bench/bench_window_support.h"
#include "core/scalar_image.h"
#include "io/share/share_store.h"
#include "io/volume/image_file.h"
#include "viewer/vtk_view.h"

using namespace delineate;

namespace {

using bench::msSince;
using bench::widgetPoint;

[[noreturn]] void die(const std::string& m) {
  std::fprintf(stderr, "bench_large_volume: %s\n", m.c_str());
  std::exit(1);
}

void row(const char* what, const std::vector<double>& v) {
  std::printf("  %-40s p50 %8.2f   p95 %8.2f   max %8.2f ms\n", what, bench::percentile(v, 0.5), bench::percentile(v, 0.95), bench::percentile(v, 1.0));
}

// The view drawn now and read back: every latency below includes its frame.
void drawn(app::gui::SlicePanel* panel) {
  if (!bench::drawFrame(panel)) die("no frame");
}

// A mouse-like phantom on an n^3 grid of 25 um voxels: air ~ 0, an ellipsoid body ~ 1000, a spine and ribs ~ 3000,
// +-40 of noise; stored as uint16.
int make(const std::string& path, std::int64_t n) {
  const double mm = 0.025;
  auto volume = core::Volume<std::uint16_t>::create(core::Geometry({n, n, n}, {mm, mm, mm}, {0, 0, 0}));
  if (!volume) die(volume.error().describe());
  std::mt19937 rng(27);
  std::uniform_int_distribution<int> noise(-40, 40);
  const double c = static_cast<double>(n) / 2;
  std::uint16_t* v = volume->data();
  for (std::int64_t z = 0; z < n; ++z)
    for (std::int64_t y = 0; y < n; ++y)
      for (std::int64_t x = 0; x < n; ++x, ++v) {
        const double dx = (static_cast<double>(x) - c) / (0.30 * static_cast<double>(n));
        const double dy = (static_cast<double>(y) - c) / (0.22 * static_cast<double>(n));
        const double dz = (static_cast<double>(z) - c) / (0.45 * static_cast<double>(n));
        int value = 60;
        if (dx * dx + dy * dy + dz * dz < 1) {
          value = 1000;
          const double sx = static_cast<double>(x) - c, sy = static_cast<double>(y) - 1.25 * c;
          if (sx * sx + sy * sy < 0.0025 * static_cast<double>(n * n)) value = 3000;  // the spine
          if (std::fmod(static_cast<double>(z), 0.08 * static_cast<double>(n)) < 0.012 * static_cast<double>(n) &&
              std::fabs(dx * dx + dy * dy - 0.6) < 0.05)
            value = 2800;  // ribs
        }
        *v = static_cast<std::uint16_t>(std::max(0, value + noise(rng)));
      }
  if (core::Status s = io::writeImageFile(path, core::ScalarImage(std::move(*volume))); !s) die(s.error().describe());
  std::printf("wrote %s (%lld^3 uint16, %.0f MB)\n", path.c_str(), static_cast<long long>(n),
              static_cast<double>(n * n * n * 2) / 1e6);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string makePath, openPath, shareDir;
  std::int64_t size = 1024;
  int strokes = 20;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string { if (i + 1 >= argc) die(a + " needs a value"); return argv[++i]; };
    if (a == "--make") makePath = next();
    else if (a == "--size") size = std::atoll(next().c_str());
    else if (a == "--open") openPath = next();
    else if (a == "--share") shareDir = next();
    else if (a == "--strokes") strokes = std::atoi(next().c_str());
    else die("unknown option " + a);
  }
  if (!makePath.empty()) return make(makePath, size);
  if (openPath.empty() || shareDir.empty()) die("usage: bench_large_volume --make PATH --size N | --open PATH --share DIR");

  viewer::VtkView::setDefaultSurfaceFormat();
  QApplication app(argc, argv);
  bench::nameBenchApplication();
  const std::size_t rssBefore = bench::statusBytes("VmRSS:");
  app::gui::MainWindow window;
  bench::showBenchWindow(window);

  // Time to first image: Open Image until the axial view has drawn the study.
  QSignalSpy loaded(&window, &app::gui::MainWindow::studyLoaded), failed(&window, &app::gui::MainWindow::loadFailed);
  QElapsedTimer clock;
  clock.start();
  window.loader().openImage(QString::fromStdString(openPath));
  while (loaded.isEmpty() && failed.isEmpty()) loaded.wait(100);
  if (!failed.isEmpty()) die(failed.front().at(0).toString().toStdString());
  app::gui::SlicePanel* axial = window.slicePanel(viewer::SliceOrientation::Axial);
  axial->view().repaint();
  const double firstImage = msSince(clock) / 1000;
  const core::ScalarImage& image = window.document().session()->image();
  const auto& g = image.geometry();
  const double voxels = static_cast<double>(g.voxelCount());
  const double raw = voxels * (2 + 2);  // 16-bit image + 16-bit labels
  QTest::qWait(300);
  const std::size_t rssOpen = bench::statusBytes("VmRSS:");
  std::printf("study: %lld x %lld x %lld %s voxels (%.0f M), %s\n", static_cast<long long>(g.dimensions()[0]),
              static_cast<long long>(g.dimensions()[1]), static_cast<long long>(g.dimensions()[2]),
              core::scalarTypeName(image.type()), voxels / 1e6, openPath.c_str());
  std::printf("time to first image (Open Image -> axial view drawn): %.2f s\n", firstImage);
  std::printf("RSS with the study open: %.0f MB (process before the window %.0f MB; image %.0f MB)\n",
              static_cast<double>(rssOpen) / 1e6, static_cast<double>(rssBefore) / 1e6,
              static_cast<double>(image.byteSize()) / 1e6);

  // Scrolling: one slice per frame in the axial view, each frame drawn.
  std::vector<double> scroll;
  for (int f = 0; f < 40; ++f) {
    QElapsedTimer t;
    t.start();
    axial->scene().scroll(f % 2 ? 1 : 2);
    drawn(axial);
    scroll.push_back(msSince(t));
  }

  // Brush strokes in the axial view (disc r = 0.5 mm: 20 voxels of 25 um), one slice further each time.
  const core::Label label = window.labelPanel()->addLabel("bench");
  window.editTools()->setTool(app::gui::EditTools::Tool::Brush);
  window.editTools()->setBrushRadius(0.5);
  bench::StrokeTimes stroke;
  std::vector<double> undo;
  std::mt19937 rng(5);
  for (int s = 0; s < strokes; ++s) {
    const QPoint at = widgetPoint(axial, window.cursor()) +
                      QPoint(static_cast<int>(rng() % 80) - 40, static_cast<int>(rng() % 80) - 40);
    if (!bench::timeStroke(axial, at, stroke)) die("no frame");
    if (s % 2 == 1) {  // every other stroke undone: the step back and the views redrawn
      QElapsedTimer t;
      t.start();
      if (!window.editTools()->undo()) die("undo refused");
      drawn(axial);
      undo.push_back(msSince(t));
    }
    axial->scene().scroll(1);
    window.setCursor(axial->scene().cursor());
    QApplication::processEvents();
  }
  std::printf("\nin the window, %d strokes of 10 moves; each figure includes the axial view's frame drawn and read "
              "back (Mesa llvmpipe, 2 cores)\n",
              strokes);
  row("scroll one slice", scroll);
  row("brush press (dab)", stroke.press);
  row("brush drag move (dabs)", stroke.move);
  row("brush release (commit, undo step; no frame)", stroke.release);
  row("undo of a stroke", undo);

  // A whole-map import (a box of the label over a quarter of the volume) over the painted strokes: the map is not
  // background only, so it is copied through the transaction as one undo step; then undone.
  {
    auto map = core::Volume<core::Label>::create(g).value();
    const auto& d = g.dimensions();
    for (std::int64_t z = d[2] / 4; z < d[2] / 2; ++z)
      for (std::int64_t y = d[1] / 4; y < 3 * d[1] / 4; ++y)
        std::fill_n(map.data() + (z * d[1] + y) * d[0] + d[0] / 4, d[0] / 2, label);
    QElapsedTimer t;
    t.start();
    if (!window.document().replaceLabels(core::LabelMap(std::move(map)), "Import").ok()) die("import refused");
    const double importMs = msSince(t);
    t.restart();
    if (!window.editTools()->undo()) die("undo of the import refused");
    const double undoImportMs = msSince(t);
    std::printf("  %-40s %8.0f ms\n", "whole-map import (one undo step)", importMs);
    std::printf("  %-40s %8.0f ms\n", "undo of the import", undoImportMs);
  }

  // Save to a share: a new revision of the labels, as File > Save to Share does (on its worker; returns when saved).
  std::filesystem::remove_all(shareDir);
  std::filesystem::create_directories(shareDir);
  if (!io::ShareStore::initialize(shareDir).ok()) die("cannot make a share in " + shareDir);
  const app::gui::ShareTarget target{QString::fromStdString(shareDir), "mouse", "atlas", 0, {}};
  clock.restart();
  if (!window.sessionFiles()->saveToShareAs(target, "bench")) die("the save failed");
  const double saveS = msSince(clock) / 1000;
  std::printf("  %-40s %8.2f s\n", "save to the share (new revision)", saveS);

  const std::size_t peak = bench::statusBytes("VmHWM:");
  std::printf("\npeak RSS over the run: %.0f MB; raw data (16-bit image + 16-bit labels) %.0f MB; ratio %.2f "
              "(goal < 1.5 for a CT with labels and surfaces)\n",
              static_cast<double>(peak) / 1e6, raw / 1e6, static_cast<double>(peak) / raw);
  return 0;
}
