// A first start and what a file manager hands the window (issue 44, item 5 and the desktop entry's %f): with nothing
// open the window says how to open a study, its buttons are the File menu's actions, the sample opens from it; a
// DICOM file opens the series it belongs to (not the folder's first), a folder opens as a DICOM folder.
#include <catch2/catch.hpp>

#include <QAction>
#include <QCoreApplication>
#include <QLabel>
#include <QSignalSpy>
#include <QToolButton>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <utility>

#include "app/gui/base/install_paths.h"
#include "app/gui/shell/main_window.h"
#include "app/gui/shell/preferences.h"
#include "app/gui/study/study_document.h"
#include "app/gui/study/study_loader.h"
#include "io/base/sealed_file.h"
#include "io/dicom/dicom.h"
#include "tests/cli/cli_runner.h"
#include "tests/common/sealed_files.h"
#include "tests/common/test_support.h"
#include "tests/gui/gui_fixtures.h"
#include "tests/gui_support/gui_app.h"

using namespace delineate;
using app::gui::MainWindow;
using test::QuietWindow;
using test::waitFor;

TEST_CASE("first start: the window with nothing open says how to open a study and where models come from, and the "
          "sample opens from it",
          "[gui][first-start]") {
  test::guiApp();
  QuietWindow window(QSize(1200, 800));
  auto* welcome = window.findChild<QWidget*>("welcome");
  REQUIRE(welcome);
  CHECK(welcome->isVisible());
  // Its buttons are the File menu's own ways to open a study.
  QStringList shown;
  for (auto* button : welcome->findChildren<QToolButton*>()) {
    REQUIRE(button->defaultAction());
    shown << button->defaultAction()->objectName();
  }
  CHECK(shown.contains("open-image"));
  CHECK(shown.contains("open-dicom-folder"));
  CHECK(shown.contains("open-from-share"));
  CHECK(shown.contains("pacs-browser"));
  CHECK(shown.contains("open-sample"));
  auto* models = welcome->findChild<QLabel*>("welcome-models");
  REQUIRE(models);
  CHECK(models->text().contains("VISTA-3D"));
  CHECK(models->text().contains("classic engine"));
  // A program run from its build tree finds the source tree's sample; installed, ../share/delineate/sample.
  CHECK(app::gui::runningFromBuildTree());
  CHECK(app::gui::sampleStudyPath().endsWith("resources/sample/example_ct.nii.gz"));
  CHECK_FALSE(app::gui::translationsDirectory().isEmpty());

  auto* sample = welcome->findChild<QToolButton*>("welcome-open-sample");
  REQUIRE(sample);
  REQUIRE(sample->isEnabled());
  QSignalSpy loaded(&window, &MainWindow::studyLoaded);
  sample->click();
  REQUIRE(waitFor(loaded));
  CHECK(window.document().source().endsWith("example_ct.nii.gz"));
  CHECK_FALSE(welcome->isVisible());
  // Another language rebuilds the menus: the buttons follow the new actions (no dangling ones).
  app::gui::installLanguage("de");
  QCoreApplication::sendPostedEvents();
  QCoreApplication::processEvents();
  for (auto* button : welcome->findChildren<QToolButton*>()) REQUIRE(button->defaultAction());
  CHECK(welcome->findChild<QToolButton*>("welcome-open-sample")->text().contains("Beispielstudie"));
  app::gui::installLanguage("en");
  QCoreApplication::sendPostedEvents();
}

TEST_CASE("opening a path: a DICOM file opens its own series, a folder opens as a DICOM folder, a volume as an image",
          "[gui][first-start]") {
  test::guiApp();
  const auto ct = test::sharedFile("data/ct/tcia-crlm-ct-series/CRLM-CT-1004");
  if (!ct) return;
  // A folder with two series: the CT, and a copy of it as series 7 (new series and instance UIDs, DCMTK's dcmodify).
  test::ScratchDir dir("gui-open-path");
  namespace fs = std::filesystem;
  fs::create_directories(dir / "study" / "a");
  fs::create_directories(dir / "study" / "b");
  for (const auto& e : fs::directory_iterator(*ct)) {
    if (e.path().extension() != ".dcm") continue;
    fs::copy_file(e.path(), dir / "study" / "a" / e.path().filename());
    fs::copy_file(e.path(), dir / "study" / "b" / e.path().filename());
  }
  const std::string second = "2.25.44000000000000000000000001";
  const std::string modify = "dcmodify -nb -gin -m '(0020,000e)=" + second + "' -m '(0020,0011)=7' " +
                             test::quoted((dir / "study" / "b").string()) + "/*.dcm";
  REQUIRE(std::system(modify.c_str()) == 0);

  auto original = io::indexDicomFolder(ct->string());
  REQUIRE(original.ok());
  const std::string first = original->allSeries().front()->seriesInstanceUid;

  QuietWindow window;
  QSignalSpy loaded(&window, &MainWindow::studyLoaded);
  // A file of either series opens that series: the folder's first (what opens without a dialog) is one of them, so
  // one of the two would fail if the file were not followed.
  for (const auto& [sub, uid] : {std::pair<std::string, std::string>{"a", first}, {"b", second}}) {
    loaded.clear();
    REQUIRE(window.loader().openPath(QString::fromStdString((dir / "study" / sub / "1-10.dcm").string())));
    REQUIRE(waitFor(loaded));
    REQUIRE(window.document().dicomSource());
    CHECK(window.document().dicomSource()->seriesInstanceUid == uid);
    CHECK(window.document().dicomSource()->slices.size() == 41);
  }
  // The folder: indexed with its subfolders (a series chosen: without a dialog, the first).
  loaded.clear();
  REQUIRE(window.loader().openPath(QString::fromStdString((dir / "study").string())));
  REQUIRE(waitFor(loaded));
  REQUIRE(window.document().dicomSource());
  CHECK(window.document().source().contains("study"));
  CHECK(window.document().dicomSource()->slices.size() == 41);
  // The series sealed at rest (as the series cache keeps it, io/base/sealed_file.h): a file of it is recognised as
  // DICOM through its content and opens its series, voxel for voxel as the plain copy.
  fs::create_directories(dir / "sealed" / "c");
  for (const auto& e : fs::directory_iterator(*ct)) {
    if (e.path().extension() != ".dcm") continue;
    REQUIRE(test::writeSealed(dir / "sealed" / "c" / e.path().filename(), test::readTextFile(e.path())).ok());
  }
  REQUIRE(io::isSealedFile((dir / "sealed" / "c" / "1-10.dcm").string()));
  auto bytesOf = [](const core::ScalarImage& image) {
    return std::string(static_cast<const char*>(image.data()), image.byteSize());
  };
  const std::string plainVoxels = bytesOf(window.document().session()->image());
  loaded.clear();
  REQUIRE(window.loader().openPath(QString::fromStdString((dir / "sealed" / "c" / "1-10.dcm").string())));
  REQUIRE(waitFor(loaded));
  REQUIRE(window.document().dicomSource());
  CHECK(window.document().dicomSource()->seriesInstanceUid == first);
  CHECK(window.document().dicomSource()->slices.size() == 41);
  CHECK(bytesOf(window.document().session()->image()) == plainVoxels);
  // A volume file.
  loaded.clear();
  REQUIRE(window.loader().openPath(QString::fromStdString(test::kSampleCt)));
  REQUIRE(waitFor(loaded));
  CHECK_FALSE(window.document().dicomSource());
}
