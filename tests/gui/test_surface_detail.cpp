// The 3D view's surface detail (issue 27): the preference "view/surfaceDetail" meshes large labels coarser or at full
// detail, "auto" follows the OpenGL renderer, the panel says when the detail is reduced, a changed preference
// rebuilds the view, and exported surface files are meshed at full detail from the labels as they are.
#include <catch2/catch.hpp>

#include <QApplication>
#include <QComboBox>
#include <QLabel>
#include <QSettings>
#include <QSignalSpy>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>

#include <vtkPolyData.h>

#include "app/gui/reports/study_exports.h"
#include "app/gui/shell/preferences.h"
#include "app/gui/views/surface_builder.h"
#include "app/gui/views/view_panels.h"
#include "core/label_map.h"
#include "io/volume/image_file.h"
#include "tests/common/test_support.h"
#include "tests/gui/gui_fixtures.h"
#include "tests/gui_support/gui_app.h"
#include "viewer/surface_scene.h"
#include "viewer/vtk_view.h"

using namespace delineate;
using app::gui::MainWindow;
using test::QuietWindow;
using test::waitFor;

namespace {

// Restores the preference whatever the test does.
struct DetailSetting {
  explicit DetailSetting(const char* value) { QSettings().setValue("view/surfaceDetail", value); }
  ~DetailSetting() { QSettings().remove("view/surfaceDetail"); }
};

std::uint32_t stlTriangles(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  char header[84] = {};
  in.read(header, 84);
  std::uint32_t n = 0;
  std::memcpy(&n, header + 80, 4);
  return n;
}

// The panel's title text and its tooltip.
QString panelTitle(app::gui::SurfacePanel* panel) {
  QString all;
  for (const QLabel* label : panel->findChildren<QLabel*>()) all += label->text() + "\n" + label->toolTip() + "\n";
  return all;
}

}  // namespace

TEST_CASE("3D surface detail: the preference meshes large labels coarser or full, a change rebuilds the view, and "
          "surface exports are full detail whatever the view shows",
          "[gui][surfaces]") {
  test::guiApp();
  // The preferences dialog offers the three details and writes the one chosen.
  {
    const DetailSetting setting("auto");
    app::gui::PreferencesDialog prefs;
    auto* box = prefs.findChild<QComboBox*>("pref-surface-detail");
    REQUIRE(box);
    REQUIRE(box->count() == 3);
    CHECK(box->currentData().toString() == "auto");
    box->setCurrentIndex(box->findData("full"));
    prefs.apply();
    CHECK(QSettings().value("view/surfaceDetail").toString() == "full");
    CHECK(app::gui::surfaceDetailSetting() == viewer::SurfaceDetail::Full);
  }
  // "auto" follows the renderer the views get (under Xvfb, Mesa's llvmpipe: software).
  {
    const DetailSetting setting("auto");
    CHECK_FALSE(viewer::VtkView::openGlRenderer().isEmpty());
    CHECK(app::gui::surfaceDetailSetting() ==
          (viewer::VtkView::softwareRenderer() ? viewer::SurfaceDetail::Reduced : viewer::SurfaceDetail::Full));
  }
  test::ScratchDir dir("gui-surface-detail");
  const DetailSetting setting("reduced");
  QuietWindow window;
  QSignalSpy loaded(&window, &MainWindow::studyLoaded), labelsLoaded(&window, &MainWindow::labelsLoaded),
      surfaces(&window, &MainWindow::surfacesReady);
  // The bundled sample's labels are small enough for full detail within the reduced budget: nothing is said.
  REQUIRE(window.loader().openImage(QString::fromStdString(test::kSampleCt),
                                    QString::fromStdString(test::sampleLabels(dir))));
  REQUIRE(waitFor(surfaces));
  CHECK(window.surfacePanel()->scene().surfaceCount() == 4);
  CHECK_FALSE(panelTitle(window.surfacePanel()).contains("reduced detail"));
  CHECK_FALSE(panelTitle(window.surfacePanel()).contains("coarser"));

  const auto ct = test::sharedFile("data/ct/tcia-crlm-ct-series/CRLM-CT-1004");
  if (!ct) return;
  loaded.clear();
  REQUIRE(window.loader().openDicomFolder(QString::fromStdString(ct->string())));
  REQUIRE(waitFor(loaded));
  // Labels from the real CT: the body (above -400 HU) and dense bone (above 300 HU). The body's box (about 500 x 400 x
  // 41 voxels) is over the reduced budget, so its view surface is meshed on blocks.
  const core::ScalarImage& image = window.document().session()->image();
  auto voxels = core::Volume<core::Label>::create(image.geometry(), 0);
  REQUIRE(voxels.ok());
  for (std::size_t i = 0; i < image.size(); ++i) {
    const double hu = image.value(i);
    voxels->data()[i] = hu > 300 ? 2 : hu > -400 ? 1 : 0;
  }
  const core::LabelMap map(std::move(voxels).value());
  const std::string labelsPath = (dir / "labels.nii.gz").string();
  REQUIRE(io::writeLabelFile(labelsPath, map).ok());
  surfaces.clear();
  REQUIRE(window.loader().openLabels(QString::fromStdString(labelsPath)));
  REQUIRE(waitFor(labelsLoaded));
  REQUIRE(waitFor(surfaces));
  // The readout follows the map opened under the cursor (it used to wait for the mouse to move).
  const core::Label underCursor = map.at(map.geometry().lpsToNearestIndex(window.cursor()));
  REQUIRE(underCursor != 0);
  CHECK(window.readout().contains(QString("label %1").arg(underCursor)));

  const auto full = viewer::buildLabelSurfaces(map, 15, nullptr, nullptr, viewer::SurfaceDetail::Full);
  const auto reduced = viewer::buildLabelSurfaces(map, 15, nullptr, nullptr, viewer::SurfaceDetail::Reduced);
  REQUIRE(full.size() == 2);
  REQUIRE(reduced.size() == 2);
  CHECK(reduced.at(1)->GetNumberOfPolys() * 2 < full.at(1)->GetNumberOfPolys());
  // The view shows the reduced meshes, and says so.
  auto& scene = window.surfacePanel()->scene();
  CHECK(window.surfaceBuilder().detail() == viewer::SurfaceDetail::Reduced);
  for (const core::Label l : {core::Label(1), core::Label(2)}) {
    REQUIRE(scene.surface(l));
    CHECK(scene.surface(l)->GetNumberOfPolys() == reduced.at(l)->GetNumberOfPolys());
  }
  CHECK(panelTitle(window.surfacePanel()).contains("reduced detail"));
  CHECK(panelTitle(window.surfacePanel()).contains("as the preferences ask"));
  // A language change says it again in the new language (it used to reset the title to "3D").
  REQUIRE(app::gui::installLanguage("de") == "de");
  QApplication::processEvents();
  CHECK(panelTitle(window.surfacePanel()).contains(QString::fromUtf8("reduziertes Detail")));
  REQUIRE(app::gui::installLanguage("en") == "en");
  QApplication::processEvents();
  CHECK(panelTitle(window.surfacePanel()).contains("reduced detail"));

  // The export is meshed at full detail from the labels, not taken from the view.
  std::filesystem::create_directories(dir / "meshes");
  REQUIRE(window.exports().exportSurfaces(QString::fromStdString((dir / "meshes").string()), false));
  for (const core::Label l : {core::Label(1), core::Label(2)}) {
    INFO("label " << l);
    CHECK(stlTriangles(dir / "meshes" / ("label_" + std::to_string(l) + ".stl")) ==
          static_cast<std::uint32_t>(full.at(l)->GetNumberOfPolys()));
  }

  // Full detail asked for: the view is rebuilt with the full meshes and no longer says "reduced".
  QSettings().setValue("view/surfaceDetail", "full");
  surfaces.clear();
  window.surfaceBuilder().settingsChanged();
  REQUIRE(waitFor(surfaces));
  CHECK(window.surfaceBuilder().detail() == viewer::SurfaceDetail::Full);
  for (const core::Label l : {core::Label(1), core::Label(2)}) {
    REQUIRE(scene.surface(l));
    CHECK(scene.surface(l)->GetNumberOfPolys() == full.at(l)->GetNumberOfPolys());
  }
  CHECK_FALSE(panelTitle(window.surfacePanel()).contains("reduced detail"));
  // The same preference again: nothing to rebuild.
  surfaces.clear();
  window.surfaceBuilder().settingsChanged();
  CHECK_FALSE(surfaces.wait(1000));
}
