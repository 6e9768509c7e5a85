// The real main window driven as a user would (under Xvfb): open the bundled sample CT with a label map, scroll,
// change window/level, toggle a label, switch layouts, take a screenshot, close; and the failures a user meets
// (a missing file, a label map of another grid) reported without losing the open study.
#include <catch2/catch.hpp>

#include <limits>

#include <QAbstractButton>
#include <QDialog>
#include <QDialogButtonBox>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QSettings>
#include <QTimer>
#include <QTreeWidget>
#include <QSignalSpy>
#include <QTest>
#include <QWheelEvent>

#include <filesystem>
#include <set>

#include <sys/stat.h>

#include <vtkPolyData.h>

#include "app/gui/editing/edit_tools.h"
#include "app/gui/editing/label_panel.h"
#include "app/gui/shell/main_window.h"
#include "app/gui/study/session_files.h"
#include "app/gui/study/share_browser.h"
#include "app/gui/views/view_panels.h"
#include "core/edit_transaction.h"
#include "core/statistics.h"
#include "inference/engine.h"
#include "io/dicom/dicom.h"
#include "io/share/share_revisions.h"
#include "io/share/share_store.h"
#include "io/volume/image_file.h"
#include "tests/cli/cli_runner.h"
#include "tests/common/other_user.h"
#include "tests/common/test_support.h"
#include "tests/gui/gui_fixtures.h"
#include "tests/gui_support/gui_app.h"
#include "viewer/surface_scene.h"

using namespace delineate;
using app::gui::MainWindow;
using viewer::SliceOrientation;
using test::kSampleCt;
using test::QuietWindow;
using test::sampleLabels;
using test::waitFor;
using test::changedPixels;
using app::gui::LabelPanel;

namespace {
// Rows of the label panel whose label is present in the map (a volume shown; table-only rows show "-").
int presentLabels(QTreeWidget* tree) {
  int n = 0;
  for (int i = 0; i < tree->topLevelItemCount(); ++i) n += tree->topLevelItem(i)->text(LabelPanel::kVolume) != "-";
  return n;
}
}  // namespace


TEST_CASE("main window: open the sample with labels, scroll, window/level, toggle a label, layouts, screenshot",
          "[gui][smoke]") {
  test::guiApp();
  test::ScratchDir dir("gui-smoke");
  const std::string labels = sampleLabels(dir);
  QuietWindow window(QSize(1200, 800));
  QSignalSpy loaded(&window, &MainWindow::studyLoaded), surfaces(&window, &MainWindow::surfacesReady),
      failed(&window, &MainWindow::loadFailed);
  REQUIRE(window.loader().openImage(QString::fromStdString(kSampleCt), QString::fromStdString(labels)));
  CHECK(window.busy());
  CHECK_FALSE(window.loader().openImage(QString::fromStdString(kSampleCt)));  // one load at a time
  REQUIRE(waitFor(loaded));
  CHECK(failed.count() == 0);
  REQUIRE(window.document().hasStudy());
  REQUIRE(waitFor(surfaces));
  CHECK(window.surfacePanel()->scene().surfaceCount() == 4);  // bone, body, both lungs

  // The cursor starts in the middle; the readout names voxel, HU and label.
  CHECK(window.readout().contains("voxel"));
  CHECK(window.readout().contains("HU"));

  // Scrolling the axial view with the wheel moves its slice and every view's crosshair.
  auto* axial = window.slicePanel(SliceOrientation::Axial);
  const auto before = axial->scene().sliceIndex().first;
  const core::Vec3 cursorBefore = window.cursor();
  const QImage axialBefore = axial->view().capture();
  const QPoint centre(axial->view().width() / 2, axial->view().height() / 2);
  for (int i = 0; i < 5; ++i) {
    QWheelEvent wheel(QPointF(centre), axial->view().mapToGlobal(QPointF(centre)), QPoint(), QPoint(0, -120),
                      Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase, false);
    QApplication::sendEvent(&axial->view(), &wheel);
  }
  CHECK(axial->scene().sliceIndex().first == before + 5);
  CHECK(window.cursor()[2] != Approx(cursorBefore[2]));
  CHECK(window.slicePanel(SliceOrientation::Coronal)->scene().cursor()[2] == Approx(window.cursor()[2]));
  const QImage axialScrolled = axial->view().capture();
  CHECK(changedPixels(axialBefore, axialScrolled) > 1000);

  // A click moves the crosshair to the clicked point.
  QTest::mouseClick(&axial->view(), Qt::LeftButton, Qt::NoModifier, centre + QPoint(30, 0));
  CHECK(window.cursor()[0] > cursorBefore[0] + 5);  // right of the centre on an axial view is the patient's left

  // Window/level: the lung preset (Ctrl+2) changes the picture; a right drag widens the window.
  window.activateWindow();  // shortcuts reach the active window only
  REQUIRE(QTest::qWaitForWindowActive(&window));
  QTest::keyClick(&window, Qt::Key_2, Qt::ControlModifier);
  CHECK(window.windowLevel().window == 1500);
  const QImage lung = axial->view().capture();
  CHECK(changedPixels(axialScrolled, lung) > 1000);
  QTest::mousePress(&axial->view(), Qt::RightButton, Qt::NoModifier, centre);
  QMouseEvent drag(QEvent::MouseMove, QPointF(centre + QPoint(40, 0)), axial->view().mapToGlobal(QPointF(centre + QPoint(40, 0))),
                   Qt::NoButton, Qt::RightButton, Qt::NoModifier);
  QApplication::sendEvent(&axial->view(), &drag);
  QTest::mouseRelease(&axial->view(), Qt::RightButton, Qt::NoModifier, centre + QPoint(40, 0));
  CHECK(window.windowLevel().window > 1500);

  // Toggling a label in the list hides it in the slices and in 3D.
  QTreeWidget* list = window.labelPanel()->tree();
  REQUIRE(presentLabels(list) == 4);
  auto boneItem = [&] {
    for (int i = 0; i < list->topLevelItemCount(); ++i)
      if (list->topLevelItem(i)->data(LabelPanel::kId, Qt::UserRole).toInt() == 21) return list->topLevelItem(i);
    return static_cast<QTreeWidgetItem*>(nullptr);
  };
  REQUIRE(boneItem());
  CHECK(window.surfacePanel()->scene().visibleSurfaceCount() == 4);
  boneItem()->setCheckState(LabelPanel::kVisible, Qt::Unchecked);
  CHECK_FALSE(window.document().isLabelVisible(21));
  CHECK(window.surfacePanel()->scene().visibleSurfaceCount() == 3);
  boneItem()->setCheckState(LabelPanel::kVisible, Qt::Checked);
  CHECK(window.document().isLabelVisible(21));

  // Outlines instead of filled labels: fewer overlay pixels, the same labels.
  const QImage filledView = axial->view().capture();
  window.setLabelOutline(true);
  CHECK(axial->scene().labelOutline());
  CHECK(changedPixels(filledView, axial->view().capture()) > 1000);
  window.setLabelOutline(false);

  // An edit (label 201, the left lung, erased through the session): the slices, the list and that label's surface
  // follow; the other surfaces are not rebuilt.
  vtkPolyData* boneMesh = window.surfacePanel()->scene().surface(21);
  REQUIRE(boneMesh);
  REQUIRE(window.surfacePanel()->scene().surface(201));
  {
    core::AnnotationSession* session = window.document().editableSession();
    auto edit = session->beginEdit("erase left lung");
    const auto& g = session->labels().geometry();
    const auto& d = g.dimensions();
    for (std::int64_t z = 0; z < d[2]; ++z)
      for (std::int64_t y = 0; y < d[1]; ++y)
        for (std::int64_t x = 0; x < d[0]; ++x)
          if (session->labels().at({x, y, z}) == 201) edit.set({x, y, z}, 0);
    REQUIRE(session->commit(edit));
  }
  surfaces.clear();
  window.document().labelsEdited({201});
  REQUIRE(waitFor(surfaces));
  CHECK(window.surfacePanel()->scene().surface(201) == nullptr);
  CHECK(window.surfacePanel()->scene().surface(21) == boneMesh);  // untouched
  CHECK(window.surfacePanel()->scene().surfaceCount() == 3);
  CHECK(presentLabels(list) == 3);

  // A new label painted off the centre: its surface is meshed from the box holding it (not a copy of the whole map)
  // and lies where the whole map's mesh of it lies.
  {
    core::AnnotationSession* session = window.document().editableSession();
    auto edit = session->beginEdit("block");
    const auto& d = session->labels().geometry().dimensions();
    const core::IndexBox block{{d[0] / 5, d[1] / 4, d[2] / 3}, {d[0] / 5 + 12, d[1] / 4 + 9, d[2] / 3 + 7}};
    REQUIRE(edit.fillBox(block, 7) > 0);
    REQUIRE(session->commit(edit));
  }
  surfaces.clear();
  window.document().labelsEdited({7});
  REQUIRE(waitFor(surfaces));
  vtkPolyData* blockMesh = window.surfacePanel()->scene().surface(7);
  REQUIRE(blockMesh);
  CHECK(window.surfacePanel()->scene().surface(21) == boneMesh);
  const std::set<core::Label> onlyBlock{7};
  auto whole = viewer::buildLabelSurfaces(window.document().session()->labels(), 15, nullptr, &onlyBlock);
  REQUIRE(whole.count(7));
  CHECK(blockMesh->GetNumberOfPoints() == whole[7]->GetNumberOfPoints());
  double a[6], b[6];
  blockMesh->GetBounds(a);
  whole[7]->GetBounds(b);
  for (int i = 0; i < 6; ++i) CHECK(a[i] == Approx(b[i]).margin(1e-3));

  // The label grown by an edit step (the document's box for it grows with the step; no recount): the rebuilt surface
  // still lies where the whole map's does.
  {
    core::AnnotationSession* session = window.document().editableSession();
    const auto& d = session->labels().geometry().dimensions();
    auto edit = session->beginEdit("grow");
    // In a corner (air: background only), so label 7 is the only label the step involves.
    REQUIRE(edit.fillBox(core::IndexBox{{1, 1, d[2] / 2}, {7, 7, d[2] / 2 + 4}}, 7) > 0);
    REQUIRE(session->commit(edit));
    surfaces.clear();
    REQUIRE(session->history().nextUndo()->labelChanges(session->labels().voxels()).involved == std::set<core::Label>{0, 7});
    window.document().labelsEdited(*session->history().nextUndo());  // as the edit tools report a step
    REQUIRE(waitFor(surfaces));
  }
  blockMesh = window.surfacePanel()->scene().surface(7);
  REQUIRE(blockMesh);
  auto grown = viewer::buildLabelSurfaces(window.document().session()->labels(), 15, nullptr, &onlyBlock);
  REQUIRE(grown.count(7));
  CHECK(blockMesh->GetNumberOfPoints() == grown[7]->GetNumberOfPoints());
  blockMesh->GetBounds(a);
  grown[7]->GetBounds(b);
  for (int i = 0; i < 6; ++i) CHECK(a[i] == Approx(b[i]).margin(1e-3));

  // Layouts.
  window.setViewLayout(app::gui::ViewLayout::OneByOne);
  QApplication::processEvents();
  CHECK(axial->isVisible());
  CHECK_FALSE(window.slicePanel(SliceOrientation::Sagittal)->isVisible());
  window.setViewLayout(app::gui::ViewLayout::OnePlusThree);
  QApplication::processEvents();
  CHECK(window.slicePanel(SliceOrientation::Sagittal)->isVisible());
  CHECK(axial->width() > 2 * window.slicePanel(SliceOrientation::Sagittal)->width());

  // A screenshot holds the rendered views (not a blank window).
  const QImage shot = window.screenshot();
  REQUIRE(!shot.isNull());
  const QPoint inAxial = axial->view().mapTo(&window, QPoint(axial->view().width() / 2, axial->view().height() / 2));
  int dark = 0;
  for (int dy = -20; dy <= 20; ++dy)
    for (int dx = -20; dx <= 20; ++dx) dark += qGray(shot.pixel(inAxial + QPoint(dx, dy))) < 200;
  CHECK(dark > 100);
  CHECK(shot.save(QString::fromStdString((dir / "window.png").string())));
  window.close();
}

TEST_CASE("main window: a missing image and a label map of another grid are reported and the open study stays",
          "[gui][errors]") {
  test::guiApp();
  test::ScratchDir dir("gui-errors");
  QuietWindow window;
  QSignalSpy loaded(&window, &MainWindow::studyLoaded), failed(&window, &MainWindow::loadFailed);
  REQUIRE(window.loader().openImage(QString::fromStdString((dir / "missing.nii.gz").string())));
  REQUIRE(waitFor(failed));
  CHECK(failed.takeFirst().at(0).toString().contains("missing.nii.gz"));
  CHECK_FALSE(window.document().hasStudy());
  REQUIRE(window.loader().openImage(QString::fromStdString(kSampleCt)));
  REQUIRE(waitFor(loaded));
  REQUIRE(window.document().hasStudy());
  // A label map on a 10 x 10 x 10 grid does not fit the sample.
  const std::string other = (dir / "other.nii.gz").string();
  auto small = core::LabelMap::create(core::Geometry({10, 10, 10}, {1, 1, 1}, {0, 0, 0}));
  REQUIRE(small.ok());
  REQUIRE(io::writeLabelFile(other, *small).ok());
  QSignalSpy labelsLoaded(&window, &MainWindow::labelsLoaded);
  REQUIRE(window.loader().openLabels(QString::fromStdString(other)));
  REQUIRE(waitFor(failed));
  CHECK(failed.takeFirst().at(0).toString().contains("other.nii.gz"));
  CHECK(labelsLoaded.count() == 0);
  CHECK(window.document().hasStudy());
  CHECK(window.document().session()->image().geometry().dimensions()[0] > 10);
}

TEST_CASE("main window: an image opened with a label map of another grid stays open and the error names both grids",
          "[gui][errors][grid]") {
  // Issue 23 item 3: `delineate IMAGE --labels MAP` with MAP on another grid opened nothing at all.
  test::guiApp();
  test::ScratchDir dir("gui-other-grid");
  QuietWindow window;
  QSignalSpy loaded(&window, &MainWindow::studyLoaded), failed(&window, &MainWindow::loadFailed);
  const std::string other = (dir / "other.nii.gz").string();
  auto small = core::LabelMap::create(core::Geometry({10, 10, 10}, {1, 1, 1}, {0, 0, 0}));
  REQUIRE(small.ok());
  REQUIRE(io::writeLabelFile(other, *small).ok());
  auto sample = io::readImageFile(kSampleCt);
  REQUIRE(sample.ok());
  const core::Size3 n = sample->geometry().dimensions();
  const QString sampleSize = QString("%1 x %2 x %3 voxels").arg(n[0]).arg(n[1]).arg(n[2]);
  REQUIRE(window.loader().openImage(QString::fromStdString(kSampleCt), QString::fromStdString(other)));
  REQUIRE(waitFor(failed));
  REQUIRE(loaded.count() == 1);
  REQUIRE(window.document().hasStudy());
  CHECK(window.document().session()->image().geometry().dimensions() == n);
  QString message = failed.takeFirst().at(0).toString();
  CHECK(message.contains("other.nii.gz"));
  CHECK(message.contains("10 x 10 x 10 voxels, spacing 1 x 1 x 1 mm, origin (0, 0, 0) mm"));
  CHECK(message.contains(sampleSize));
  CHECK(message.contains("does not cover"));

  // A share revision on another grid is named with both grids too; the study stays.
  std::filesystem::create_directories(dir / "share");
  auto store = io::ShareStore::initialize((dir / "share").string());
  REQUIRE(store.ok());
  auto set = io::LabelSetRevisions::open(*store, "other", "organs");
  REQUIRE(set.ok());
  io::SaveRequest request;
  request.author = "tester";
  REQUIRE(set->saveLabels(*small, request).ok());
  REQUIRE(window.loader().openShareRevision(QString::fromStdString((dir / "share").string()), "other", "organs", 1));
  REQUIRE(waitFor(failed));
  message = failed.takeFirst().at(0).toString();
  CHECK(message.contains("other/organs revision 1"));
  CHECK(message.contains("10 x 10 x 10 voxels"));
  CHECK(message.contains(sampleSize));
  CHECK(window.document().hasStudy());
  CHECK(window.document().shareTarget().study.isEmpty());
}

TEST_CASE("main window: a pipe as the image and an intensity image as the label map are refused, named",
          "[gui][errors][bad-input]") {
  test::guiApp();
  test::ScratchDir dir("gui-bad-input");
  QuietWindow window;
  QSignalSpy loaded(&window, &MainWindow::studyLoaded), failed(&window, &MainWindow::loadFailed);
  // A named pipe blocked the loading job for ever (issue 22 item 4): now it fails at once, naming its kind.
  const std::string fifo = (dir / "pipe.nii.gz").string();
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  REQUIRE(window.loader().openImage(QString::fromStdString(fifo)));
  REQUIRE(waitFor(failed));
  QString message = failed.takeFirst().at(0).toString();
  CHECK(message.contains("pipe.nii.gz"));
  CHECK(message.contains("named pipe (FIFO)"));
  REQUIRE(window.loader().openImage(QString::fromStdString(kSampleCt)));
  REQUIRE(waitFor(loaded));
  // Open Label Map with an image of whole numbers (1,500 values on every voxel): the likely swap is named (item 5).
  auto mr = core::Volume<core::Label>::create(window.document().session()->image().geometry(), 0);
  REQUIRE(mr.ok());
  for (std::size_t i = 0; i < mr->size(); ++i) (*mr)[i] = core::Label(1 + i % 1500);
  const std::string mrPath = (dir / "mr.nii.gz").string();
  REQUIRE(io::writeLabelFile(mrPath, core::LabelMap(std::move(mr).value())).ok());
  QSignalSpy labelsLoaded(&window, &MainWindow::labelsLoaded);
  REQUIRE(window.loader().openLabels(QString::fromStdString(mrPath)));
  REQUIRE(waitFor(failed));
  message = failed.takeFirst().at(0).toString();
  CHECK(message.contains("mr.nii.gz"));
  CHECK(message.contains("did you swap IMAGE and LABELS?"));
  CHECK(labelsLoaded.count() == 0);
  CHECK(window.document().hasStudy());
  // An image that is NaN everywhere (item 5) opened as black views without a word: now it is refused, named, and
  // the open study stays.
  auto nan = core::ImageVolume::create(core::Geometry({8, 8, 4}, {1, 1, 1}, {0, 0, 0}),
                                       std::numeric_limits<float>::quiet_NaN());
  REQUIRE(nan.ok());
  const std::string nanPath = (dir / "nan.nii.gz").string();
  REQUIRE(io::writeImageFile(nanPath, *nan).ok());
  const auto before = window.document().session()->image().geometry().dimensions();
  REQUIRE(window.loader().openImage(QString::fromStdString(nanPath)));
  REQUIRE(waitFor(failed));
  message = failed.takeFirst().at(0).toString();
  CHECK(message.contains("nan.nii.gz"));
  CHECK(message.contains("no finite voxel"));
  CHECK(window.document().session()->image().geometry().dimensions() == before);
}

TEST_CASE("main window: a label set revision opens from a share store, and a folder that is no share is refused",
          "[gui][share]") {
  test::guiApp();
  test::ScratchDir dir("gui-share");
  const std::string labels = sampleLabels(dir);
  std::filesystem::create_directories(dir / "share");
  auto store = io::ShareStore::initialize((dir / "share").string());
  REQUIRE(store.ok());
  auto set = io::LabelSetRevisions::open(*store, "sample-ct", "organs");
  REQUIRE(set.ok());
  auto map = io::readLabelFile(labels);
  REQUIRE(map.ok());
  io::SaveRequest request;
  request.author = "tester";
  request.message = "automatic labels";
  REQUIRE(set->saveLabels(*map, request).ok());
  REQUIRE(set->saveLabels(*map, request).ok());  // a second revision on the same base: listed newest first
  auto entries = app::gui::listShareRevisions((dir / "share").string());
  REQUIRE(entries.ok());
  REQUIRE(entries->size() == 2);
  CHECK(entries->front().info.number == 2);
  CHECK(entries->front().describe().find("sample-ct / organs  r2  (tester") == 0);
  CHECK_FALSE(app::gui::listShareRevisions((dir / "not-a-share").string()).ok());

  QuietWindow window;
  QSignalSpy loaded(&window, &MainWindow::studyLoaded), labelsLoaded(&window, &MainWindow::labelsLoaded),
      failed(&window, &MainWindow::loadFailed);
  CHECK_FALSE(window.loader().openShareRevision(QString::fromStdString((dir / "share").string()), "sample-ct", "organs", 1));
  REQUIRE(window.loader().openImage(QString::fromStdString(kSampleCt)));
  REQUIRE(waitFor(loaded));
  REQUIRE(window.loader().openShareRevision(QString::fromStdString((dir / "share").string()), "sample-ct", "organs", 1));
  REQUIRE(waitFor(labelsLoaded));
  CHECK(failed.count() == 0);
  CHECK(window.document().session()->baseRevision() == "sample-ct/organs/r1");
  CHECK_FALSE(window.document().session()->isDirty());
  CHECK(presentLabels(window.labelPanel()->tree()) == 4);
  // A revision that does not exist: reported, the labels stay.
  REQUIRE(window.loader().openShareRevision(QString::fromStdString((dir / "share").string()), "sample-ct", "organs", 7));
  REQUIRE(waitFor(failed));
  CHECK(presentLabels(window.labelPanel()->tree()) == 4);
}

TEST_CASE("delineate (the program) opens an image with labels and writes its screenshot, and a missing file exits 1",
          "[gui][program]") {
  test::guiApp();  // a display for the child process too (DISPLAY is inherited)
  test::ScratchDir dir("gui-program");
  const std::string labels = sampleLabels(dir);
  const auto shot = dir / "shot.png";
  const auto r = test::runProgram(DELINEATE_GUI_PATH, test::quoted(kSampleCt) + " --labels " + test::quoted(labels) +
                                                          " --screenshot " + test::quoted(shot.string()));
  INFO(r.out);
  REQUIRE(r.exitCode == 0);
  CHECK(r.out.find("HU") != std::string::npos);  // the readout at the cursor
  QImage image;
  REQUIRE(image.load(QString::fromStdString(shot.string())));
  CHECK(image.width() >= 800);
  // A picture of the patient's images: never readable by others, whatever the umask (io's Personal rule; QImage::save
  // left it to the umask).
  CHECK((test::modeOf(shot) & 07) == 0);
  {
    const auto again = test::runProgram("/bin/sh", "-c " + test::quoted("umask 000; exec '" + std::string(DELINEATE_GUI_PATH) +
                                                                   "' " + test::quoted(kSampleCt) + " --screenshot " +
                                                                   test::quoted((dir / "open.png").string())));
    INFO(again.out);
    REQUIRE(again.exitCode == 0);
    CHECK((test::modeOf(dir / "open.png") & 07) == 0);
  }
  const auto missing = test::runProgram(DELINEATE_GUI_PATH, test::quoted((dir / "none.nii.gz").string()) +
                                                             " --screenshot " + test::quoted(shot.string()));
  CHECK(missing.exitCode == 1);
  CHECK(missing.out.find("none.nii.gz") != std::string::npos);
  CHECK(test::runProgram(DELINEATE_GUI_PATH, "a.nii b.nii").exitCode == 2);
}

TEST_CASE("delineate --dicom FOLDER --labels MAP opens the labels with the series before its screenshot, and a missing "
          "map exits 1 naming it",
          "[gui][program]") {
  // Found running the program as a user: --labels was dropped without a word when the study came from --dicom.
  test::guiApp();
  const auto ct = test::sharedFile("data/ct/tcia-crlm-ct-series/CRLM-CT-1004");
  if (!ct) return;
  test::ScratchDir dir("gui-program-dicom");
  auto index = io::indexDicomFolder(ct->string());
  REQUIRE(index.ok());
  auto series = io::loadDicomSeriesTyped(*index->allSeries().front());
  REQUIRE(series.ok());
  // Label 7 on a central block of every slice: the cursor starts at the study's centre, inside it.
  const core::Geometry& g = series->image.geometry();
  auto voxels = core::Volume<core::Label>::create(g, 0);
  REQUIRE(voxels.ok());
  const auto& d = g.dimensions();
  for (std::int64_t z = 0; z < d[2]; ++z)
    for (std::int64_t y = d[1] / 4; y < d[1] * 3 / 4; ++y)
      for (std::int64_t x = d[0] / 4; x < d[0] * 3 / 4; ++x) voxels->at({x, y, z}) = 7;
  const std::string labels = (dir / "block.nii.gz").string();
  REQUIRE(io::writeLabelFile(labels, core::LabelMap(std::move(voxels).value())).ok());
  const auto shot = dir / "shot.png";
  const auto r = test::runProgram(DELINEATE_GUI_PATH, "--dicom " + test::quoted(ct->string()) + " --labels " +
                                                          test::quoted(labels) + " --screenshot " +
                                                          test::quoted(shot.string()));
  INFO(r.out);
  REQUIRE(r.exitCode == 0);
  CHECK(r.out.find("label 7") != std::string::npos);  // the readout at the cursor names the label under it
  QImage image;
  REQUIRE(image.load(QString::fromStdString(shot.string())));
  const auto missing = test::runProgram(DELINEATE_GUI_PATH, "--dicom " + test::quoted(ct->string()) + " --labels " +
                                                                test::quoted((dir / "none.nii.gz").string()) +
                                                                " --screenshot " + test::quoted(shot.string()));
  CHECK(missing.exitCode == 1);
  CHECK(missing.out.find("none.nii.gz") != std::string::npos);
}

TEST_CASE("delineate on a high-DPI screen (device pixel ratio 2) renders its views at the full device resolution",
          "[gui][program][hidpi]") {
  test::guiApp();
  test::ScratchDir dir("gui-hidpi");
  QImage shots[2];
  for (int scale = 1; scale <= 2; ++scale) {
    const auto path = dir / ("shot" + std::to_string(scale) + ".png");
    const auto r = test::runProgram("/usr/bin/env", "QT_SCALE_FACTOR=" + std::to_string(scale) + " " +
                                                        test::quoted(DELINEATE_GUI_PATH) + " " + test::quoted(kSampleCt) +
                                                        " --screenshot " + test::quoted(path.string()) +
                                                        " --size 1400x900");  // as large as at scale 1: the window
                                                                              // otherwise fits the halved screen
    INFO(r.out);
    REQUIRE(r.exitCode == 0);
    REQUIRE(shots[scale - 1].load(QString::fromStdString(path.string())));
  }
  CHECK(shots[1].width() == 2 * shots[0].width());
  // The axial view's middle (the top-left view; the window is 1400 x 900 logical pixels) shows the same anatomy at
  // both scales: were VTK to render at logical size, its frame would fill only a quarter of the view.
  const auto meanGrey = [](const QImage& img, QPoint centre) {
    double sum = 0;
    int n = 0;
    for (int dy = -10; dy <= 10; ++dy)
      for (int dx = -10; dx <= 10; ++dx, ++n) sum += qGray(img.pixel(centre + QPoint(dx, dy)));
    return sum / n;
  };
  for (const QPoint logical : {QPoint(200, 200), QPoint(280, 250), QPoint(400, 300)}) {
    INFO("at " << logical.x() << ", " << logical.y());
    const double one = meanGrey(shots[0], logical), two = meanGrey(shots[1], logical * 2);
    CHECK(std::fabs(one - two) < 25);
  }
  CHECK(meanGrey(shots[1], QPoint(560, 500)) > 30);  // not black: the CT body
}

TEST_CASE("main window: closing while a study loads or its surfaces build leaves nothing running and crashes nothing",
          "[gui][lifetime]") {
  test::guiApp();
  test::ScratchDir dir("gui-lifetime");
  const std::string labels = sampleLabels(dir);
  {
    QuietWindow window;
    REQUIRE(window.loader().openImage(QString::fromStdString(kSampleCt), QString::fromStdString(labels)));
    window.close();
  }  // destroyed with the load in flight: the destructor waits for the worker, whose result goes nowhere
  {
    QuietWindow window;
    QSignalSpy loaded(&window, &MainWindow::studyLoaded);
    REQUIRE(window.loader().openImage(QString::fromStdString(kSampleCt), QString::fromStdString(labels)));
    REQUIRE(waitFor(loaded));
    window.cancelJob();  // nothing to cancel: harmless
  }  // destroyed while the surfaces build
  // A cancelled load leaves no study and reports nothing as failed.
  QuietWindow window;
  QSignalSpy loaded(&window, &MainWindow::studyLoaded), failed(&window, &MainWindow::loadFailed);
  REQUIRE(window.loader().openImage(QString::fromStdString(kSampleCt)));
  window.cancelJob();
  QTest::qWait(1500);
  CHECK_FALSE(window.busy());
  CHECK(loaded.count() == 0);
  CHECK(failed.count() == 0);
  CHECK_FALSE(window.document().hasStudy());
}

TEST_CASE("delineate --help and --version and usage errors need no display and without one the window says so", "[gui][program]") {
  // Issue 23: `delineate --help` aborted (SIGABRT) without a display, because Qt found no platform to open.
  const std::string noDisplay = "env -u DISPLAY -u WAYLAND_DISPLAY -u QT_QPA_PLATFORM ";
  const auto help = test::runShell(noDisplay + test::quoted(DELINEATE_GUI_PATH) + " --help 2>&1");
  INFO(help.out);
  CHECK(help.exitCode == 0);
  CHECK(help.out.find("Usage: delineate [options] image") != std::string::npos);
  CHECK(help.out.find("--screenshot") != std::string::npos);
  const auto version = test::runShell(noDisplay + test::quoted(DELINEATE_GUI_PATH) + " --version 2>&1");
  CHECK(version.exitCode == 0);
  CHECK(version.out.find("Delineate") != std::string::npos);
  CHECK(test::runShell(noDisplay + test::quoted(DELINEATE_GUI_PATH) + " --bogus 2>&1").exitCode == 2);
  const auto window = test::runShell(noDisplay + test::quoted(DELINEATE_GUI_PATH) + " " + test::quoted(kSampleCt) + " 2>&1");
  INFO(window.out);
  CHECK(window.exitCode == 1);
  CHECK(window.out.find("no display") != std::string::npos);
}

TEST_CASE("main window: Save to Share As creates a share from the dialog, stays open after a failed save and names a "
          "DICOM study from its attributes",
          "[gui][share][save-dialog]") {
  // Issue 23 item 10: only the CLI could make a share; a save error closed the dialog; a DICOM study's share name
  // came out as "CRLM-CT-1004__2" (the folder's name and "#2").
  auto source = test::sharedFile("data/ct/tcia-crlm-ct-series/CRLM-CT-1004");
  if (!source) return;
  test::guiApp();
  test::ScratchDir dir("gui-save-dialog");
  QuietWindow window;
  QSignalSpy loaded(&window, &MainWindow::studyLoaded);
  REQUIRE(window.loader().openDicomFolder(QString::fromStdString(source->string())));
  REQUIRE(waitFor(loaded, 120000));
  const io::DicomSeries* series = window.document().dicomSource();
  REQUIRE(series);
  REQUIRE_FALSE(series->patientId.empty());

  const QString share = QString::fromStdString((dir / "new-share").string());
  QSettings().setValue("user/name", "ann");  // the first save would ask for an author otherwise (issue 41)
  window.setDialogsEnabled(true);
  // Drives the dialog: Save into a folder that is no share (refused, reported over the dialog), Create Share, Save.
  // Clicks are queued so that the message box a click opens is answered by a later tick, not inside this one.
  QStringList warnings;
  QString studyName, createdText;
  bool stayedOpen = false, hadCreateButton = false;
  int step = 0;
  QTimer driver;
  QObject::connect(&driver, &QTimer::timeout, [&] {
    QWidget* modal = QApplication::activeModalWidget();
    if (auto* box = qobject_cast<QMessageBox*>(modal)) {
      warnings << box->text();
      box->accept();
      return;
    }
    auto* dialog = qobject_cast<QDialog*>(modal);
    if (!dialog || dialog->objectName() != "save-share-dialog") return;
    auto* save = dialog->findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Save);
    auto* create = dialog->findChild<QPushButton*>("create-share");
    auto click = [](QAbstractButton* b) { QMetaObject::invokeMethod(b, "click", Qt::QueuedConnection); };
    switch (step++) {
      case 0:
        studyName = dialog->findChild<QLineEdit*>("share-study")->text();
        dialog->findChild<QLineEdit*>("share-root")->setText(share);
        dialog->findChild<QLineEdit*>("share-label-set")->setText("organs");
        click(save);
        break;
      case 1:
        // The save runs on a worker: until its failure is told, the dialog waits (look again at the next tick).
        if (warnings.isEmpty()) {
          --step;
          break;
        }
        stayedOpen = warnings.size() == 1;  // the failed save was told and the dialog is still here
        hadCreateButton = create != nullptr;
        if (create) click(create);
        else dialog->reject();
        break;
      case 2:
        createdText = dialog->findChild<QLabel*>("share-state")->text();
        click(save);
        break;
      default:
        dialog->reject();  // never hang on a dialog that does not close
    }
  });
  driver.start(30);
  const bool saved = window.sessionFiles()->saveWithDialog();
  driver.stop();
  window.setDialogsEnabled(false);
  INFO(warnings.join("\n").toStdString());

  // The study's name comes from the DICOM attributes, sanitised as file names' are.
  QStringList expected;
  for (const std::string& part : {series->patientId, series->studyDate, series->seriesDescription, series->seriesNumber})
    if (!QString::fromStdString(part).simplified().isEmpty()) expected << QString::fromStdString(part).simplified();
  QString expectedName = expected.join('_');
  for (QChar& c : expectedName)
    if (!((c.isLetterOrNumber() && c.unicode() < 128) || c == '-' || c == '_' || c == '.')) c = '_';
  CHECK(studyName == expectedName);
  CHECK(studyName.startsWith(QString::fromStdString(series->patientId)));
  CHECK_FALSE(studyName.contains("__"));

  REQUIRE(warnings.size() >= 1);
  CHECK(warnings.front().contains("new-share"));
  CHECK(stayedOpen);
  CHECK(hadCreateButton);
  CHECK(createdText.contains("new-share"));
  REQUIRE(saved);
  CHECK(warnings.size() == 1);
  // The share exists now and holds the saved revision under the DICOM study's name.
  auto store = io::ShareStore::open(share.toStdString());
  REQUIRE(store.ok());
  auto set = io::LabelSetRevisions::open(*store, studyName.toStdString(), "organs");
  REQUIRE(set.ok());
  auto list = set->list();
  REQUIRE(list.ok());
  CHECK(list->latest() == 1);
  CHECK(window.document().shareTarget().study == studyName);
  CHECK_FALSE(window.document().isDirty());
}

TEST_CASE("main window: Recent Studies lists a DICOM series and reopens it from its folder", "[gui][recent]") {
  // Issue 23 item 11: DICOM studies were recorded but never listed.
  auto ct = test::sharedFile("data/ct/tcia-crlm-ct-series/CRLM-CT-1004");
  if (!ct) return;
  test::guiApp();
  QSettings().remove("recentStudies");
  QuietWindow window;
  QSignalSpy loaded(&window, &MainWindow::studyLoaded);
  REQUIRE(window.loader().openDicomFolder(QString::fromStdString(ct->string())));
  REQUIRE(waitFor(loaded));
  QMenu* recent = nullptr;
  for (QMenu* m : window.menuBar()->findChildren<QMenu*>())
    if (m->title() == "Recent Studies") recent = m;
  REQUIRE(recent != nullptr);
  QAction* entry = nullptr;
  for (QAction* a : recent->actions())
    if (a->text().contains("(DICOM series")) entry = a;
  REQUIRE(entry != nullptr);
  CHECK(entry->text().startsWith(QString::fromStdString(ct->string())));
  QSignalSpy reloaded(&window, &MainWindow::studyLoaded);
  entry->trigger();
  REQUIRE(waitFor(reloaded));
  CHECK(window.document().dicomSource() != nullptr);
  QSettings().remove("recentStudies");
}

TEST_CASE("main window: the window/level values are shown and the preset in use is ticked", "[gui][window-level]") {
  // Issue 23 item 11: the values were shown nowhere and no preset was ticked.
  test::guiApp();
  QuietWindow window;
  QSignalSpy loaded(&window, &MainWindow::studyLoaded);
  REQUIRE(window.loader().openImage(QString::fromStdString(kSampleCt)));
  REQUIRE(waitFor(loaded));
  auto* text = window.findChild<QLabel*>("window-level");
  REQUIRE(text != nullptr);
  QMenu* presets = nullptr;
  for (QMenu* m : window.menuBar()->findChildren<QMenu*>())
    if (m->title() == "Window/Level") presets = m;
  REQUIRE(presets != nullptr);
  auto ticked = [&] {
    QStringList names;
    for (QAction* a : presets->actions())
      if (a->isChecked()) names << a->data().toString();
    return names;
  };
  // A CT opens in the soft-tissue window.
  CHECK(text->text() == "W 400  L 40");
  CHECK(ticked() == QStringList{"Soft tissue"});
  window.applyPreset("Lung");
  CHECK(text->text() == "W 1500  L -600");
  CHECK(ticked() == QStringList{"Lung"});
  // A window of the user's own: its values, and no preset ticked.
  window.setWindowLevel({333, 77});
  CHECK(text->text() == "W 333  L 77");
  CHECK(ticked().isEmpty());
  window.applyPreset("Automatic");
  CHECK(ticked() == QStringList{"Automatic"});
}

TEST_CASE("main window: a CT series is held as int16 HU, shown, read out and measured as the float32 load would be",
          "[gui][typed]") {
  // Issue 27: the window keeps the image in its stored type (half of float32 for CT).
  auto ct = test::sharedFile("data/ct/tcia-crlm-ct-series/CRLM-CT-1004");
  if (!ct) return;
  test::guiApp();
  QuietWindow window;
  QSignalSpy loaded(&window, &MainWindow::studyLoaded);
  REQUIRE(window.loader().openDicomFolder(QString::fromStdString(ct->string())));
  REQUIRE(waitFor(loaded));
  const core::ScalarImage& image = window.document().session()->image();
  CHECK(image.type() == core::ScalarType::Int16);
  CHECK(image.byteSize() == image.size() * 2);

  // The same series as float32, read by io alone: the readout shows its value at the cursor's voxel.
  auto index = io::indexDicomFolder(ct->string());
  REQUIRE(index.ok());
  auto floats = io::loadDicomSeries(*index->allSeries().front());
  REQUIRE(floats.ok());
  const core::Index3 ijk = image.geometry().lpsToNearestIndex(window.cursor());
  CHECK(window.readout().contains(QString("HU %1").arg(double(floats->image.at(ijk)), 0, 'f', 1)));

  // The axial view draws the int16 voxels: body and air differ on screen.
  auto* axial = window.slicePanel(SliceOrientation::Axial);
  const QImage frame = axial->view().capture();
  REQUIRE_FALSE(frame.isNull());
  int darkest = 255, brightest = 0;
  for (int y = 0; y < frame.height(); y += 4)
    for (int x = 0; x < frame.width(); x += 4) {
      const int g = qGray(frame.pixel(x, y));
      darkest = std::min(darkest, g);
      brightest = std::max(brightest, g);
    }
  CHECK(brightest - darkest > 100);

  // Statistics of a labelled region are those of the float32 image.
  auto map = core::LabelMap::create(image.geometry()).value();
  {
    core::EditTransaction tx(map, "box");
    tx.fillBox(core::IndexBox{{200, 200, 10}, {300, 300, 30}}, 4);
    REQUIRE(tx.commit());
  }
  REQUIRE(window.document().replaceLabels(map, "box").ok());
  const core::AnnotationSession* session = window.document().session();
  auto typedStats = core::computeLabelStatistics(session->labels(), session->image());  // as the labels dock and reports
  auto floatStats = core::computeLabelStatistics(session->labels(), floats->image);
  REQUIRE(typedStats.ok());
  REQUIRE(floatStats.ok());
  REQUIRE(typedStats->size() == 1);
  REQUIRE(floatStats->size() == 1);
  CHECK(typedStats->front().mean == floatStats->front().mean);
  CHECK(typedStats->front().median == floatStats->front().median);
  CHECK(typedStats->front().max == floatStats->front().max);
}

TEST_CASE("surfaces from the run snapshot the window meshes are those of the map, on a real multi-organ segmentation",
          "[gui][surfaces]") {
  // Issue 27: the window's worker meshes the map's runs (a few MB) instead of a copy of the map.
  auto path = test::sharedFile("data/ct/totalseg-example/example_seg.nii.gz");
  if (!path) return;
  auto labels = io::readLabelFile(path->string());
  REQUIRE(labels.ok());
  auto runs = core::LabelRuns::encode(*labels, labels->size() * sizeof(core::Label) / 2);
  REQUIRE(runs);
  CHECK(runs->byteSize() * 4 < labels->size() * sizeof(core::Label));
  const auto fromMap = viewer::buildLabelSurfaces(*labels);
  const auto fromRuns = viewer::buildLabelSurfaces(*runs);
  REQUIRE(fromMap.size() >= 10);
  REQUIRE(fromRuns.size() == fromMap.size());
  for (const auto& [label, mesh] : fromMap) {
    INFO("label " << label);
    REQUIRE(fromRuns.count(label));
    const auto& other = fromRuns.at(label);
    CHECK(other->GetNumberOfPoints() == mesh->GetNumberOfPoints());
    CHECK(other->GetNumberOfPolys() == mesh->GetNumberOfPolys());
    double a[6], b[6];
    mesh->GetBounds(a);
    other->GetBounds(b);
    for (int i = 0; i < 6; ++i) CHECK(a[i] == b[i]);
  }
}
