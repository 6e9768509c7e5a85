// The editing loop through the real window under Xvfb, driven by mouse and key events: paint, lock, undo/redo, flood
// fill, label table edits; AI click mode with the classic engine and Accept; saving to a share folder (revisions,
// conflicts, a share that went away); a killed process whose edits come back at the next start; the language switch.
#include <catch2/catch.hpp>

#include <QComboBox>
#include <QDockWidget>
#include <QLabel>
#include <QListWidget>
#include <QMenuBar>
#include <QProcess>
#include <QSettings>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTest>
#include <QTreeWidget>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <set>
#include <thread>


#include "app/gui/ai/ai_panel.h"
#include "app/gui/base/volume_text.h"
#include "app/gui/editing/edit_tools.h"
#include "app/gui/editing/label_panel.h"
#include "app/gui/shell/main_window.h"
#include "app/gui/shell/preferences.h"
#include "app/gui/study/session_files.h"
#include "app/gui/views/view_panels.h"
#include "core/edit_transaction.h"
#include "core/statistics.h"
#include "io/autosave/autosave_journal.h"
#include "io/dicom/dicom_seg.h"
#include "io/labels/label_table_io.h"
#include "io/share/share_lease.h"
#include "io/share/share_reviews.h"
#include "io/share/share_revisions.h"
#include "io/share/share_store.h"
#include "io/share/share_trust.h"
#include "io/trust/roster.h"
#include "io/trust/signing_key.h"
#include "io/volume/image_file.h"
#include "tests/gui/gui_fixtures.h"
#include "tests/gui_support/gui_app.h"

using namespace delineate;
using app::gui::EditTools;
using app::gui::LabelPanel;
using app::gui::MainWindow;
using app::gui::SessionFiles;
using app::gui::SlicePanel;
using test::QuietWindow;
using test::waitFor;
using viewer::SliceOrientation;

namespace {

std::vector<core::Label> voxels(const MainWindow& w) {
  const core::LabelMap& m = w.document().session()->labels();
  return {m.data(), m.data() + m.size()};
}

// A window on the sample CT with its classic labels, loaded.
void openSample(MainWindow& window, const test::ScratchDir& dir, bool withLabels = true) {
  QSignalSpy loaded(&window, &MainWindow::studyLoaded);
  const std::string labels = withLabels ? test::sampleLabels(dir) : std::string();
  REQUIRE(window.loader().openImage(QString::fromStdString(test::kSampleCt), QString::fromStdString(labels)));
  REQUIRE(waitFor(loaded));
  REQUIRE(window.document().hasStudy());
}

// The widget position (logical pixels, top-left origin) where a slice view shows an LPS point.
// Widget pixels (top-left origin) from the scene's display pixels (device, bottom-left origin).
QPoint widgetPoint(SlicePanel* panel, const core::Vec3& lps) {
  const auto d = panel->scene().displayPoint(lps);
  const double dpr = panel->view().devicePixelRatioF();
  return QPoint(static_cast<int>(std::lround(d[0] / dpr)), panel->view().height() - static_cast<int>(std::lround(d[1] / dpr)));
}

void drag(QWidget* view, QPoint from, QPoint to, Qt::KeyboardModifiers mods = Qt::NoModifier) {
  QTest::mousePress(view, Qt::LeftButton, mods, from);
  for (int i = 1; i <= 8; ++i) {
    const QPoint at = from + (to - from) * i / 8;
    QMouseEvent move(QEvent::MouseMove, QPointF(at), view->mapToGlobal(QPointF(at)), Qt::NoButton, Qt::LeftButton, mods);
    QApplication::sendEvent(view, &move);
  }
  QTest::mouseRelease(view, Qt::LeftButton, mods, to);
}

QTreeWidgetItem* row(QTreeWidget* tree, core::Label label) {
  for (int i = 0; i < tree->topLevelItemCount(); ++i)
    if (tree->topLevelItem(i)->data(LabelPanel::kId, Qt::UserRole).toInt() == label) return tree->topLevelItem(i);
  return nullptr;
}

// Every label's volume in the panel equals a fresh count of the map (the window keeps them from the edits' deltas).
void requirePanelVolumesCurrent(const MainWindow& window) {
  auto stats = core::computeLabelStatistics(window.document().session()->labels(), nullptr);
  REQUIRE(stats.ok());
  std::map<core::Label, QString> expected;
  for (const auto& st : *stats) expected[st.label] = app::gui::formatVolumeMl(st.volumeMl);
  QTreeWidget* tree = window.labelPanel()->tree();
  for (int i = 0; i < tree->topLevelItemCount(); ++i) {
    const auto label = static_cast<core::Label>(tree->topLevelItem(i)->data(LabelPanel::kId, Qt::UserRole).toInt());
    const auto e = expected.find(label);
    INFO("label " << label);
    REQUIRE(tree->topLevelItem(i)->text(LabelPanel::kVolume) == (e == expected.end() ? QString("-") : e->second));
  }
}

void activate(QWidget& window) {
  window.activateWindow();
  REQUIRE(QTest::qWaitForWindowActive(&window));
}

}  // namespace

TEST_CASE("editing: a brush stroke by mouse, a locked label kept, undo and redo restore the bytes exactly",
          "[gui][editing]") {
  test::guiApp();
  test::ScratchDir dir("gui-paint");
  QuietWindow window(QSize(1400, 900));
  openSample(window, dir);
  activate(window);
  const std::vector<core::Label> original = voxels(window);

  // A new label from the panel becomes the active one; bone (21) is locked through its check box.
  const core::Label lesion = window.labelPanel()->addLabel("lesion");
  REQUIRE(lesion != 0);
  CHECK(window.editTools()->activeLabel() == lesion);
  CHECK(window.document().session()->table().find(lesion)->name == "lesion");
  REQUIRE(row(window.labelPanel()->tree(), 21));
  row(window.labelPanel()->tree(), 21)->setCheckState(LabelPanel::kLocked, Qt::Checked);
  REQUIRE(window.document().session()->table().isLocked(21));
  const std::vector<core::Label> beforeStroke = voxels(window);

  // B picks the brush; a 25 mm disc dragged across the axial view's middle (the spine: bone under it).
  QTest::keyClick(&window, Qt::Key_B);
  REQUIRE(window.editTools()->tool() == EditTools::Tool::Brush);
  window.editTools()->setBrushRadius(25);
  SlicePanel* axial = window.slicePanel(SliceOrientation::Axial);
  const QPoint centre = widgetPoint(axial, window.cursor());
  QSignalSpy edited(&window, &MainWindow::labelsChanged);
  drag(&axial->view(), centre - QPoint(40, 0), centre + QPoint(40, 0));
  REQUIRE(edited.count() == 1);  // one stroke, one edit
  const std::vector<core::Label> afterStroke = voxels(window);
  std::size_t painted = 0, boneUnder = 0;
  const auto& g = window.document().session()->labels().geometry();
  const core::Index3 mid = g.lpsToNearestIndex(window.cursor());
  for (std::size_t i = 0; i < afterStroke.size(); ++i) {
    if (afterStroke[i] != beforeStroke[i]) {
      ++painted;
      REQUIRE(afterStroke[i] == lesion);
      REQUIRE(beforeStroke[i] != 21);  // the locked label was never overwritten
    }
    if (beforeStroke[i] == 21 && static_cast<std::int64_t>(i / (g.dimensions()[0] * g.dimensions()[1])) == mid[2]) {
      const auto x = static_cast<std::int64_t>(i % g.dimensions()[0]), y = static_cast<std::int64_t>((i / g.dimensions()[0]) % g.dimensions()[1]);
      const double dx = double(x - mid[0]) * g.spacingMm()[0], dy = double(y - mid[1]) * g.spacingMm()[1];
      boneUnder += dx * dx + dy * dy < 20.0 * 20.0;
    }
  }
  // The sample's voxels are about 3 mm: a 25 mm disc covers some 200 of them, the 80-pixel drag several discs.
  CHECK(painted > 400);
  CHECK(boneUnder > 5);  // the stroke did cross bone, which stayed
  // Only the slice under the cursor was painted (a 2D disc).
  for (std::size_t i = 0; i < afterStroke.size(); ++i)
    if (afterStroke[i] != beforeStroke[i]) REQUIRE(static_cast<std::int64_t>(i / (g.dimensions()[0] * g.dimensions()[1])) == mid[2]);
  CHECK(window.editTools()->undoAction()->text().contains("Paint"));
  requirePanelVolumesCurrent(window);

  // Ctrl+Z restores every byte; Ctrl+Shift+Z brings the stroke back exactly.
  QTest::keyClick(&window, Qt::Key_Z, Qt::ControlModifier);
  CHECK(voxels(window) == beforeStroke);
  requirePanelVolumesCurrent(window);
  CHECK(window.editTools()->redoAction()->isEnabled());
  QTest::keyClick(&window, Qt::Key_Z, Qt::ControlModifier | Qt::ShiftModifier);
  CHECK(voxels(window) == afterStroke);
  CHECK(window.document().session()->isDirty());

  // The eraser with "protect other labels" removes only the active label.
  window.editTools()->setProtectOtherLabels(true);
  QTest::keyClick(&window, Qt::Key_E);
  drag(&axial->view(), centre - QPoint(60, 0), centre + QPoint(60, 0));
  const std::vector<core::Label> erased = voxels(window);
  std::size_t removed = 0;
  for (std::size_t i = 0; i < erased.size(); ++i) {
    if (erased[i] != afterStroke[i]) {
      REQUIRE(afterStroke[i] == lesion);
      REQUIRE(erased[i] == 0);
      ++removed;
    }
  }
  CHECK(removed > 200);
  window.editTools()->setProtectOtherLabels(false);

  // Flood fill (F) on the body (200) in this slice: every 200 voxel of the slice connected to the click turns
  // lesion; other slices keep theirs.
  QTest::keyClick(&window, Qt::Key_F);
  const std::vector<core::Label> beforeFill = voxels(window);
  // A body voxel on this slice, a little in front of the spine.
  core::Index3 seed = mid;
  for (std::int64_t y = mid[1]; y >= 0; --y)
    if (window.document().session()->labels().at({mid[0], y, mid[2]}) == 200) {
      seed = {mid[0], y, mid[2]};
      break;
    }
  REQUIRE(window.document().session()->labels().at(seed) == 200);
  QTest::mouseClick(&axial->view(), Qt::LeftButton, Qt::NoModifier, widgetPoint(axial, g.indexToLps(seed)));
  const std::vector<core::Label> filled = voxels(window);
  std::size_t fillCount = 0;
  for (std::size_t i = 0; i < filled.size(); ++i)
    if (filled[i] != beforeFill[i]) {
      REQUIRE(beforeFill[i] == 200);
      REQUIRE(filled[i] == lesion);
      REQUIRE(static_cast<std::int64_t>(i / (g.dimensions()[0] * g.dimensions()[1])) == mid[2]);
      ++fillCount;
    }
  CHECK(fillCount > 300);
  requirePanelVolumesCurrent(window);
  // Three undos go back to the map as opened; the lock and the new label are steps too (issue 23), two more undos
  // take the table back to the one the map came with.
  QTest::keyClick(&window, Qt::Key_Z, Qt::ControlModifier);
  QTest::keyClick(&window, Qt::Key_Z, Qt::ControlModifier);
  QTest::keyClick(&window, Qt::Key_Z, Qt::ControlModifier);
  CHECK(voxels(window) == original);
  CHECK(window.editTools()->undoAction()->text().contains("Lock label"));
  QTest::keyClick(&window, Qt::Key_Z, Qt::ControlModifier);
  CHECK_FALSE(window.document().session()->table().isLocked(21));
  CHECK(window.editTools()->undoAction()->text().contains("Add label"));
  QTest::keyClick(&window, Qt::Key_Z, Qt::ControlModifier);
  CHECK_FALSE(window.document().session()->table().contains(lesion));
  CHECK(voxels(window) == original);
  CHECK_FALSE(window.editTools()->undoAction()->isEnabled());
  QTest::keyClick(&window, Qt::Key_N);
  CHECK(axial->interaction() == SlicePanel::Interaction::Navigate);
}

TEST_CASE("editing: rename, recolour-free table export and import, islands and hole filling on the active label",
          "[gui][editing][labels]") {
  test::guiApp();
  test::ScratchDir dir("gui-labels");
  QuietWindow window;
  openSample(window, dir);
  // Renaming in place (the name column) reaches the session's table and marks it dirty.
  QTreeWidgetItem* lung = row(window.labelPanel()->tree(), 201);
  REQUIRE(lung);
  const core::Terminology lungCodes = window.document().session()->table().find(201)->terminology;
  lung->setText(LabelPanel::kName, "left lung (edited)");
  CHECK(window.document().session()->table().find(201)->name == "left lung (edited)");
  CHECK(window.document().session()->table().find(201)->terminology == lungCodes);  // its codes stay
  // A label named like a known anatomical class gets that class's SNOMED CT codes (found walking the radiologist's
  // journey: a clicked liver named "liver" went to the DICOM SEG with a private code); other names get none.
  const core::Label spleen = window.labelPanel()->addLabel("Spleen");
  REQUIRE(spleen != 0);
  CHECK(window.document().session()->table().find(spleen)->terminology.type.value == "78961009");
  const core::Label mine = window.labelPanel()->addLabel("my structure");
  REQUIRE(mine != 0);
  CHECK(window.document().session()->table().find(mine)->terminology.empty());
  QTreeWidgetItem* renamed = row(window.labelPanel()->tree(), mine);
  REQUIRE(renamed);
  renamed->setText(LabelPanel::kName, " liver ");
  CHECK(window.document().session()->table().find(mine)->name == "liver");
  CHECK(window.document().session()->table().find(mine)->terminology.type.value == "10200004");
  CHECK(window.document().session()->table().find(mine)->terminology.type.scheme == "SCT");
  REQUIRE(window.editTools()->undo());  // the rename
  CHECK(window.document().session()->table().find(mine)->terminology.empty());
  REQUIRE(window.editTools()->undo());  // "my structure"
  REQUIRE(window.editTools()->undo());  // "Spleen"
  CHECK_FALSE(window.document().session()->table().contains(spleen));
  CHECK(window.document().session()->isDirty());
  // Export and import round trip through an ITK-SNAP label file.
  const QString file = QString::fromStdString((dir / "table.label").string());
  REQUIRE(window.labelPanel()->exportTable(file));
  core::LabelTable changed = window.document().session()->table();
  changed.remove(132);
  window.document().setLabelTable(changed, "Import label table");
  CHECK_FALSE(window.document().session()->table().contains(132));
  REQUIRE(window.labelPanel()->importTable(file));
  CHECK(window.document().session()->table().contains(132));
  CHECK(window.document().session()->table().find(201)->name == "left lung (edited)");
  QSignalSpy failed(&window, &MainWindow::loadFailed);
  CHECK_FALSE(window.labelPanel()->importTable(QString::fromStdString((dir / "missing.label").string())));
  REQUIRE(failed.count() == 1);
  CHECK(failed.front().at(0).toString().contains("missing.label"));

  // Islands: bone (21) has many pieces in the sample; keeping the largest leaves exactly one, as one undo step.
  window.labelPanel()->setActiveLabel(21);
  const std::vector<core::Label> before = voxels(window);
  REQUIRE(window.editTools()->keepLargestIsland());
  const std::vector<core::Label> after = voxels(window);
  std::size_t removed = 0;
  for (std::size_t i = 0; i < after.size(); ++i)
    if (after[i] != before[i]) {
      REQUIRE(before[i] == 21);
      REQUIRE(after[i] == 0);
      ++removed;
    }
  CHECK(removed > 0);
  CHECK(window.editTools()->undoAction()->text().contains("Keep largest island"));
  REQUIRE(window.editTools()->undo());
  CHECK(voxels(window) == before);
  // Filling the lung's holes (vessels the threshold left out) only turns background inside it into lung.
  window.labelPanel()->setActiveLabel(201);
  if (window.editTools()->fillHoles()) {
    const std::vector<core::Label> holes = voxels(window);
    for (std::size_t i = 0; i < holes.size(); ++i)
      if (holes[i] != before[i]) REQUIRE((before[i] == 0 && holes[i] == 201));
  }
}

TEST_CASE("AI click mode with the classic engine: a click previews an object, Return accepts it into the active label",
          "[gui][ai]") {
  test::guiApp();
  test::ScratchDir dir("gui-ai");
  QuietWindow window(QSize(1400, 900));
  app::gui::AiPanel* ai = window.aiPanel();
  QSignalSpy engine(ai, &app::gui::AiPanel::engineChanged);
  openSample(window, dir, false);  // no labels: the object is all there is
  REQUIRE(waitFor(engine));
  REQUIRE(ai->engineReady());
  CHECK(ai->engineDescription().contains("classic"));
  CHECK(ai->engineDescription().contains("cpu"));
  activate(window);
  const core::Label liver = window.labelPanel()->addLabel("object");

  QTest::keyClick(&window, Qt::Key_A);
  REQUIRE(ai->clickMode());
  SlicePanel* axial = window.slicePanel(SliceOrientation::Axial);
  CHECK(axial->interaction() == SlicePanel::Interaction::Click);
  // A positive click under the starting cursor (the middle voxel: the spine and the soft tissue in front of it).
  const auto& g = window.document().session()->image().geometry();
  const core::Index3 seed = g.lpsToNearestIndex(window.cursor());
  QSignalSpy preview(ai, &app::gui::AiPanel::previewUpdated);
  QTest::mouseClick(&axial->view(), Qt::LeftButton, Qt::NoModifier, widgetPoint(axial, window.cursor()));
  REQUIRE(waitFor(preview));
  CHECK(ai->pointCount() == 1);
  const std::size_t object = ai->objectVoxels();
  CHECK(object > 100);
  CHECK(axial->scene().hasPreview());
  CHECK(ai->lastEngineMs() > 0);
  WARN("click to preview: engine " << ai->lastEngineMs() << " ms, display " << ai->lastDisplayMs() << " ms, object "
                                   << object << " voxels");
  // Nothing is written before Accept.
  const std::vector<core::Label> unchanged = voxels(window);
  CHECK(std::count(unchanged.begin(), unchanged.end(), liver) == 0);
  // A negative click (right button) on the far corner of the image shrinks nothing it does not hold, but counts.
  preview.clear();
  QTest::mouseClick(&axial->view(), Qt::RightButton, Qt::NoModifier, widgetPoint(axial, g.indexToLps(core::Index3{2, 2, seed[2]})));
  REQUIRE(waitFor(preview));
  CHECK(ai->pointCount() == 2);
  const std::size_t objectAfter = ai->objectVoxels();
  CHECK(objectAfter > 0);

  auto* aiStatus = ai->findChild<QLabel*>("ai-status");
  REQUIRE(aiStatus != nullptr);
  CHECK(aiStatus->text().startsWith("2 prompt"));
  QTest::keyClick(&window, Qt::Key_Return);
  const std::vector<core::Label> labels = voxels(window);
  CHECK(static_cast<std::size_t>(std::count(labels.begin(), labels.end(), liver)) == objectAfter);
  // The status no longer describes the object that went (issue 23 item 11: it went stale).
  INFO(aiStatus->text().toStdString());
  CHECK(aiStatus->text().startsWith("Accepted:"));
  CHECK_FALSE(axial->scene().hasPreview());
  CHECK(window.editTools()->undoAction()->text().contains("Accept AI object"));
  REQUIRE(window.editTools()->undo());
  const std::vector<core::Label> undone = voxels(window);
  CHECK(std::count(undone.begin(), undone.end(), liver) == 0);
  // Escape drops an object in progress without writing anything.
  preview.clear();
  QTest::mouseClick(&axial->view(), Qt::LeftButton, Qt::NoModifier, widgetPoint(axial, window.cursor()));
  REQUIRE(waitFor(preview));
  QTest::keyClick(&window, Qt::Key_Escape);
  CHECK(ai->pointCount() == 0);
  CHECK(voxels(window) == undone);
  QTest::keyClick(&window, Qt::Key_A);
  CHECK_FALSE(ai->clickMode());
  // N (navigate) ends click mode too, fully: the views take the crosshair again.
  QTest::keyClick(&window, Qt::Key_A);
  REQUIRE(ai->clickMode());
  QTest::keyClick(&window, Qt::Key_N);
  CHECK_FALSE(ai->clickMode());
  CHECK(axial->interaction() == SlicePanel::Interaction::Navigate);

  // Segment everything runs in the background; Escape (discard a click object) leaves it alone; its result is one
  // undo step with the engine's classes in the table.
  QSignalSpy segmented(ai, &app::gui::AiPanel::segmentationFinished);
  REQUIRE(ai->segmentEverything());
  QTest::keyClick(&axial->view(), Qt::Key_Escape);
  REQUIRE(waitFor(segmented));
  CHECK(segmented.front().at(0).toBool());
  const std::vector<core::Label> everything = voxels(window);
  CHECK(std::count(everything.begin(), everything.end(), core::Label(201)) > 1000);  // a lung
  CHECK(window.document().session()->table().contains(201));
  CHECK(window.editTools()->undoAction()->text().contains("Segment everything"));
}

TEST_CASE("opening a label map counts and says the values its table does not name", "[gui][labels]") {
  // Issue 24 (the save path's untested faults): label values a table does not name (255 left by another tool) are
  // counted and reported on load, not only listed unnamed.
  test::guiApp();
  test::ScratchDir dir("gui-unnamed-values");
  QuietWindow window;
  openSample(window, dir, false);
  const core::Geometry& g = window.document().session()->image().geometry();
  auto map = core::LabelMap::create(g);
  REQUIRE(map.ok());
  {
    core::EditTransaction t(*map, "paint");
    t.fillBox(core::IndexBox{{10, 10, 2}, {19, 19, 5}}, 1);     // 400 voxels, named
    t.fillBox(core::IndexBox{{30, 30, 2}, {34, 34, 3}}, 255);   // 50 voxels, not named
    t.fillBox(core::IndexBox{{40, 40, 2}, {40, 41, 2}}, 300);   // 2 voxels, not named
    REQUIRE(t.commit().has_value());
  }
  const std::filesystem::path file = dir / "atlas.nii.gz";
  REQUIRE(io::writeLabelFile(file.string(), *map).ok());
  core::LabelTable table;
  core::LabelEntry liver;
  liver.id = 1;
  liver.name = "liver";
  table.set(liver);
  REQUIRE(io::writeLabelTableFile((dir / "atlas.label").string(), table).ok());  // the table beside the map
  QSignalSpy labelsLoaded(&window, &MainWindow::labelsLoaded);
  REQUIRE(window.loader().openLabels(QString::fromStdString(file.string())));
  REQUIRE(waitFor(labelsLoaded));
  const QString said = window.statusBar()->currentMessage();
  INFO(said.toStdString());
  CHECK(said.contains("2 value(s) the table does not name: 255 (50 voxel(s)), 300 (2 voxel(s))"));
  CHECK(window.document().session()->table().find(1)->name == "liver");
  // A map whose table names every value says only where it came from.
  table.set(core::LabelEntry{255, "left over", {}, true, false, true, {}});
  table.set(core::LabelEntry{300, "other", {}, true, false, true, {}});
  REQUIRE(io::writeLabelTableFile((dir / "atlas.label").string(), table).ok());
  labelsLoaded.clear();
  REQUIRE(window.loader().openLabels(QString::fromStdString(file.string())));
  REQUIRE(waitFor(labelsLoaded));
  CHECK_FALSE(window.statusBar()->currentMessage().contains("does not name"));
}

TEST_CASE("AI: a segmentation that finds nothing says so and adds no undo step", "[gui][ai]") {
  // Issue 24 (the save path's untested faults): an engine result with no voxels. A block of water in air has no
  // lungs.
  test::guiApp();
  test::ScratchDir dir("gui-ai-empty");
  const core::Geometry g({48, 40, 12}, {2.0, 2.0, 3.0}, {0.0, 0.0, 0.0});
  auto image = core::ImageVolume::create(g, -1000.0f);
  REQUIRE(image.ok());
  for (std::int64_t z = 2; z < 10; ++z)
    for (std::int64_t y = 8; y < 32; ++y)
      for (std::int64_t x = 8; x < 40; ++x) image->at({x, y, z}) = 20.0f;
  const std::string path = (dir / "water.nii.gz").string();
  REQUIRE(io::writeImageFile(path, *image).ok());
  QuietWindow window;
  app::gui::AiPanel* ai = window.aiPanel();
  QSignalSpy engine(ai, &app::gui::AiPanel::engineChanged);
  QSignalSpy loaded(&window, &MainWindow::studyLoaded);
  REQUIRE(window.loader().openImage(QString::fromStdString(path)));
  REQUIRE(waitFor(loaded));
  REQUIRE(waitFor(engine));
  const std::vector<core::Label> before = voxels(window);
  QSignalSpy segmented(ai, &app::gui::AiPanel::segmentationFinished);
  REQUIRE(ai->segmentClasses({201}));
  REQUIRE(waitFor(segmented));
  auto* status = ai->findChild<QLabel*>("ai-status");
  REQUIRE(status != nullptr);
  INFO(status->text().toStdString());
  CHECK(status->text().contains("found nothing"));
  CHECK(voxels(window) == before);
  CHECK_FALSE(window.editTools()->undoAction()->isEnabled());
  CHECK_FALSE(window.document().session()->isDirty());
}

// Found walking the radiologist's journey: after Segment everything the labels list selects its first row (bone), and
// a liver clicked and accepted became bone. An object goes to a new label unless the user chose one.
TEST_CASE("AI click mode: an accepted object gets a new label unless the user chose one", "[gui][ai]") {
  test::guiApp();
  test::ScratchDir dir("gui-ai-target");
  QuietWindow window(QSize(1400, 900));
  app::gui::AiPanel* ai = window.aiPanel();
  QSignalSpy engine(ai, &app::gui::AiPanel::engineChanged);
  openSample(window, dir, false);
  REQUIRE(waitFor(engine));
  activate(window);
  QSignalSpy segmented(ai, &app::gui::AiPanel::segmentationFinished);
  REQUIRE(ai->segmentEverything());
  REQUIRE(waitFor(segmented));
  const core::Label defaultRow = window.editTools()->activeLabel();
  REQUIRE(defaultRow != 0);  // the list selected a row by itself
  CHECK(ai->acceptTarget() == 0);
  auto* target = ai->findChild<QComboBox*>("ai-target");
  REQUIRE(target != nullptr);
  CHECK(target->currentData().toInt() == 0);
  CHECK(target->count() == 1 + static_cast<int>(window.document().session()->table().size()));

  const std::vector<core::Label> before = voxels(window);
  const core::LabelTable tableBefore = window.document().session()->table();
  SlicePanel* axial = window.slicePanel(SliceOrientation::Axial);
  QTest::keyClick(&window, Qt::Key_A);
  REQUIRE(ai->clickMode());
  QSignalSpy preview(ai, &app::gui::AiPanel::previewUpdated);
  QTest::mouseClick(&axial->view(), Qt::LeftButton, Qt::NoModifier, widgetPoint(axial, window.cursor()));
  REQUIRE(waitFor(preview));
  const std::size_t object = ai->objectVoxels();
  REQUIRE(object > 0);
  QTest::keyClick(&window, Qt::Key_Return);
  const std::vector<core::Label> after = voxels(window);
  const core::LabelTable& table = window.document().session()->table();
  REQUIRE(table.size() == tableBefore.size() + 1);
  core::Label added = 0;
  for (const core::LabelEntry& e : table.entries())
    if (!tableBefore.contains(e.id)) added = e.id;
  REQUIRE(added != 0);
  CHECK(table.find(added)->name == "Label " + std::to_string(added));
  CHECK(static_cast<std::size_t>(std::count(after.begin(), after.end(), added)) == object);
  // Every other voxel kept its label: the default row's label did not grow.
  for (std::size_t i = 0; i < after.size(); ++i)
    if (after[i] != added) REQUIRE(after[i] == before[i]);
  CHECK(std::count(after.begin(), after.end(), defaultRow) <= std::count(before.begin(), before.end(), defaultRow));
  // The new label is the active one (the brush refines it), and the next object again gets a new label.
  CHECK(window.editTools()->activeLabel() == added);
  CHECK(ai->acceptTarget() == 0);
  // One undo takes back the voxels and the name.
  CHECK(window.editTools()->undoAction()->text().contains("Accept AI object"));
  REQUIRE(window.editTools()->undo());
  CHECK(voxels(window) == before);
  CHECK_FALSE(window.document().session()->table().contains(added));

  // A row the user picks in the labels list is where the next object goes.
  QTreeWidgetItem* lung = row(window.labelPanel()->tree(), 201);
  REQUIRE(lung);
  window.labelPanel()->tree()->setCurrentItem(lung);
  CHECK(ai->acceptTarget() == 201);
  CHECK(target->currentData().toInt() == 201);
  preview.clear();
  QTest::mouseClick(&axial->view(), Qt::LeftButton, Qt::NoModifier, widgetPoint(axial, window.cursor()));
  REQUIRE(waitFor(preview));
  const std::size_t second = ai->objectVoxels();
  QTest::keyClick(&window, Qt::Key_Return);
  const std::vector<core::Label> intoLung = voxels(window);
  CHECK(window.document().session()->table().size() == tableBefore.size());
  std::size_t lungNow = 0, objectInLung = 0;
  for (std::size_t i = 0; i < intoLung.size(); ++i) {
    if (intoLung[i] == 201) ++lungNow;
    if (intoLung[i] != before[i]) {
      REQUIRE(intoLung[i] == 201);
      ++objectInLung;
    }
  }
  CHECK(objectInLung > 0);
  CHECK(objectInLung <= second);
  CHECK(lungNow > static_cast<std::size_t>(std::count(before.begin(), before.end(), core::Label(201))));
}

TEST_CASE("the window's title names the share revision and its review state", "[gui][save]") {
  // Issue 24, item 4: the review state shown in the window's title (read from the share on a worker).
  test::guiApp();
  test::ScratchDir dir("gui-review-title");
  std::filesystem::create_directories(dir / "share");
  auto store = io::ShareStore::initialize((dir / "share").string());
  REQUIRE(store.ok());
  QuietWindow window;
  openSample(window, dir);
  CHECK(window.windowTitle() == "Delineate - example_ct.nii.gz");
  const app::gui::ShareTarget target{QString::fromStdString((dir / "share").string()), "sample-ct", "manual", 0, {}};
  REQUIRE(window.sessionFiles()->saveToShareAs(target, "first"));
  auto titled = [&window](const QString& text) {
    for (int i = 0; i < 200 && !window.windowTitle().contains(text); ++i) QTest::qWait(25);
    return window.windowTitle().contains(text);
  };
  INFO(window.windowTitle().toStdString());
  CHECK(titled(QString::fromUtf8("example_ct.nii.gz \u2014 sample-ct / manual r1 (not reviewed)")));
  auto set = io::LabelSetRevisions::open(*store, "sample-ct", "manual");
  REQUIRE(set.ok());
  const io::LabelSetReviews reviews(*set);
  REQUIRE(reviews.record(1, io::ReviewAction::Submit, "ann", "").ok());
  REQUIRE(reviews.record(1, io::ReviewAction::Approve, "carol", "").ok());
  QSignalSpy labelsLoaded(&window, &MainWindow::labelsLoaded);
  REQUIRE(window.loader().openShareRevision(target.root, "sample-ct", "manual", 1));
  REQUIRE(waitFor(labelsLoaded));
  CHECK(titled("r1 (approved by carol)"));
}

TEST_CASE("on a signed share the window's revisions are signed, and a forged approval or an edited author is shown as such",
          "[gui][save][trust]") {
  // Issue 47, item 1: the title never shows an approval that does not count, and says when a record does not hold.
  test::guiApp();
  test::ScratchDir dir("gui-trust-title");
  const std::string root = (dir / "share").string();
  std::filesystem::create_directories(root);
  REQUIRE(io::ShareStore::initialize(root).ok());
  const auto keyOf = [&](const std::string& user) {
    const std::string path = (dir / user / "identity" / "ed25519.pem").string();
    auto key = io::SigningKey::generate();
    REQUIRE(key.ok());
    REQUIRE(key->saveNew(path).ok());
    return std::make_pair(path, *key);
  };
  const auto alice = keyOf("alice"), ann = keyOf("ann"), carol = keyOf("carol");
  const auto asUser = [&](const std::string& user, const std::string& keyPath) {
    ::setenv("DELINEATE_KEY_FILE", keyPath.c_str(), 1);
    ::setenv("XDG_CONFIG_HOME", (dir / user).c_str(), 1);
  };
  struct Restore {
    ~Restore() {
      ::unsetenv("DELINEATE_KEY_FILE");
      ::unsetenv("XDG_CONFIG_HOME");
    }
  } restore;
  {
    asUser("alice", alice.first);
    auto store = io::ShareStore::open(root).value();
    REQUIRE(io::createRoster(store, "alice", alice.second).ok());
    REQUIRE(io::updateRoster(store, alice.second, [&](io::Roster& r) {
              r.members.push_back({"ann", ann.second.publicKey().base64(), {"annotator"}, ann.second.boxPublicKey()});
              r.members.push_back({"carol", carol.second.publicKey().base64(), {"reviewer"}, carol.second.boxPublicKey()});
              return core::Status::success();
            }).ok());
  }
  asUser("ann", ann.first);  // the window's user
  QuietWindow window;
  openSample(window, dir);
  const app::gui::ShareTarget target{QString::fromStdString(root), "sample-ct", "manual", 0, {}};
  QSignalSpy failed(&window, &MainWindow::loadFailed);
  const bool saved = window.sessionFiles()->saveToShareAs(target, "first");
  INFO((failed.isEmpty() ? QString() : failed.back().value(0).toString()).toStdString());
  REQUIRE(saved);
  auto titled = [&window](const QString& text) {
    for (int i = 0; i < 200 && !window.windowTitle().contains(text); ++i) QTest::qWait(25);
    return window.windowTitle().contains(text);
  };
  INFO(window.windowTitle().toStdString());
  CHECK(titled("manual r1 (not reviewed)"));
  auto store = io::ShareStore::open(root).value();
  auto set = io::LabelSetRevisions::open(store, "sample-ct", "manual").value();
  auto listed = set.list();
  REQUIRE(listed.ok());
  CHECK(listed->revisions.front().author == "ann");  // the key's roster name, not the preferences' gui-tester
  CHECK(listed->revisions.front().trust.state == io::TrustState::Signed);
  REQUIRE(io::LabelSetReviews(set).record(1, io::ReviewAction::Submit, "", "").ok());

  // An approval written by hand, unsigned, in carol's name.
  std::ofstream(dir / "share" / set.folder() / "reviews" / "r000001-0002.json")
      << R"({"revision": 1, "sequence": 2, "action": "approve", "user": "carol", "host": "x", "time": "2026-11-28T10:00:00.000Z", "comment": ""})";
  QSignalSpy labelsLoaded(&window, &MainWindow::labelsLoaded);
  REQUIRE(window.loader().openShareRevision(target.root, "sample-ct", "manual", 1));
  REQUIRE(waitFor(labelsLoaded));
  CHECK(titled("r1 (submitted for review by ann) 1 review step(s) not counted"));
  CHECK_FALSE(window.windowTitle().contains("approved"));

  // carol's real approval counts.
  asUser("carol", carol.first);
  {
    auto cstore = io::ShareStore::open(root).value();
    auto cset = io::LabelSetRevisions::open(cstore, "sample-ct", "manual").value();
    REQUIRE(io::LabelSetReviews(cset).record(1, io::ReviewAction::Approve, "", "").ok());
  }
  // ann's revision record with its author changed by hand.
  const auto meta = dir / "share" / set.folder() / "r000001.json";
  std::string text;
  {
    std::ifstream in(meta);
    text.assign(std::istreambuf_iterator<char>(in), {});
  }
  const auto at = text.find("\"author\": \"ann\"");
  REQUIRE(at != std::string::npos);
  text.replace(at, 15, "\"author\": \"eve\"");
  std::ofstream(meta, std::ios::trunc) << text;
  asUser("ann", ann.first);
  labelsLoaded.clear();
  REQUIRE(window.loader().openShareRevision(target.root, "sample-ct", "manual", 1));
  REQUIRE(waitFor(labelsLoaded));
  CHECK(titled("r1 (approved by carol) NOT TRUSTED: the signature by ann's key does not match the record"));
}

TEST_CASE("saving to a share folder creates revisions, reports a conflict, and a share that went away loses nothing",
          "[gui][save]") {
  test::guiApp();
  test::ScratchDir dir("gui-save");
  std::filesystem::create_directories(dir / "share");
  auto store = io::ShareStore::initialize((dir / "share").string());
  REQUIRE(store.ok());
  QuietWindow window;
  openSample(window, dir);
  SessionFiles* files = window.sessionFiles();
  // No target yet and no dialogs: refused with a message.
  QSignalSpy failed(&window, &MainWindow::loadFailed);
  CHECK_FALSE(files->saveToShare());
  CHECK(failed.count() == 1);

  const app::gui::ShareTarget target{QString::fromStdString((dir / "share").string()), "sample-ct", "manual", 0, {}};
  QSignalSpy saved(files, &SessionFiles::saved);
  REQUIRE(files->saveToShareAs(target, "first"));
  REQUIRE(saved.count() == 1);
  CHECK(saved.front().at(0).toString() == "sample-ct/manual/r1");
  CHECK_FALSE(window.document().session()->isDirty());
  auto set = io::LabelSetRevisions::open(*store, "sample-ct", "manual");
  REQUIRE(set.ok());
  auto list = set->list();
  REQUIRE(list.ok());
  REQUIRE(list->revisions.size() == 1);
  CHECK(list->revisions[0].message == "first");
  // The save is in the share's audit log, as the CLI's are.
  {
    std::string audit;
    for (const auto& e : std::filesystem::directory_iterator(dir / "share" / "audit")) audit += test::readTextFile(e.path());
    CHECK(audit.find("\"action\":\"save\"") != std::string::npos);
    CHECK(audit.find("\"labelSet\":\"manual\"") != std::string::npos);
  }
  // The window holds the label set's lease now: another user sees who edits it.
  {
    auto other = io::ShareLease::prepare(*store, set->folder(), "colleague");
    REQUIRE(other.ok());
    auto holder = other->current();
    REQUIRE(holder.ok());
    REQUIRE(holder->has_value());
    CHECK((*holder)->pid == static_cast<long long>(QCoreApplication::applicationPid()));
    auto taken = other->acquire();
    REQUIRE(taken.ok());
    CHECK(taken->outcome == io::LeaseOutcome::HeldByOther);
  }
  auto stored = set->loadLabels(1);
  REQUIRE(stored.ok());
  CHECK(std::vector<core::Label>(stored->data(), stored->data() + stored->size()) == voxels(window));

  // An edit, then Ctrl+S: revision 2 on base 1.
  {
    auto tx = window.document().editableSession()->beginEdit("Paint");
    tx.paintSphere(window.cursor(), 10, 5);
    REQUIRE(window.document().editableSession()->commit(tx));
    window.document().labelsEdited({5});
  }
  CHECK(window.document().session()->isDirty());
  activate(window);
  QTest::keyClick(&window, Qt::Key_S, Qt::ControlModifier);
  REQUIRE(saved.count() == 2);
  list = set->list();
  REQUIRE(list->revisions.size() == 2);
  CHECK(list->revisions[1].base == 1);
  CHECK_FALSE(list->revisions[1].conflict);

  // Someone else saves revision 3 on 2; our next save, still based on 2, becomes revision 4 marked as a conflict
  // and the window says so.
  io::SaveRequest other;
  other.author = "colleague";
  other.baseRevision = 2;
  REQUIRE(set->saveLabels(window.document().session()->labels(), other).ok());
  {
    auto tx = window.document().editableSession()->beginEdit("Paint");
    tx.paintSphere(window.cursor(), 12, 6);
    REQUIRE(window.document().editableSession()->commit(tx));
    window.document().labelsEdited({6});
  }
  REQUIRE(files->saveToShare());
  list = set->list();
  REQUIRE(list->revisions.size() == 4);
  CHECK(list->revisions[3].conflict);
  CHECK(list->revisions[3].latestAtSave == 3);
  CHECK(window.statusBar()->currentMessage().contains("conflict"));

  // The share goes away (its sentinel is gone: not mounted): the save fails naming it, the edits stay in memory
  // and unsaved, and no revision appears.
  {
    auto tx = window.document().editableSession()->beginEdit("Paint");
    tx.paintSphere(window.cursor(), 8, 7);
    REQUIRE(window.document().editableSession()->commit(tx));
    window.document().labelsEdited({7});
  }
  const std::vector<core::Label> unsaved = voxels(window);
  std::filesystem::rename(dir / "share" / io::ShareStore::kSentinel, dir / "sentinel.away");
  failed.clear();
  CHECK_FALSE(files->saveToShare());
  REQUIRE(failed.count() == 1);
  CHECK(failed.front().at(0).toString().contains("share"));
  CHECK(window.document().session()->isDirty());
  CHECK(voxels(window) == unsaved);
  std::filesystem::rename(dir / "sentinel.away", dir / "share" / io::ShareStore::kSentinel);
  list = set->list();
  CHECK(list->revisions.size() == 4);
  // Back again: the same edits save.
  REQUIRE(files->saveToShare());
  CHECK_FALSE(window.document().session()->isDirty());

  // The label table travels with the revision: a renamed label comes back in another window.
  core::LabelEntry renamed = *window.document().session()->table().find(201);
  renamed.name = "left lung, renamed";
  window.document().setLabelEntry(renamed, "Rename label");
  REQUIRE(files->saveToShare());
  {
    QuietWindow second;
    openSample(second, dir, false);
    QSignalSpy labelsLoaded(&second, &MainWindow::labelsLoaded);
    const int latest = set->list()->latest();
    REQUIRE(second.loader().openShareRevision(target.root, "sample-ct", "manual", latest));
    REQUIRE(waitFor(labelsLoaded));
    REQUIRE(second.document().session()->table().find(201));
    CHECK(second.document().session()->table().find(201)->name == "left lung, renamed");
    CHECK_FALSE(second.document().session()->isDirty());
    CHECK(voxels(second) == voxels(window));
  }

  // Save Labels As NIfTI writes a file that reads back equal.
  const QString local = QString::fromStdString((dir / "copy.nii.gz").string());
  REQUIRE(files->saveLabelsAs(local));
  auto copy = io::readLabelFile(local.toStdString());
  REQUIRE(copy.ok());
  CHECK(std::vector<core::Label>(copy->data(), copy->data() + copy->size()) == voxels(window));
}

// The process a crash test kills: opens the sample, paints one stroke with the mouse, waits until the autosave
// timer has written the journal's snapshot, writes the labels it holds for comparison, says "ready", then waits to
// be killed. Hidden ("[.]"): it only runs when the crash test starts it.
TEST_CASE("crash child: paint, autosave, wait to be killed", "[.crash-child]") {
  test::guiApp();
  const char* out = std::getenv("DELINEATE_CRASH_DIR");
  if (!out) return;  // only the crash test starts it (a filter such as "~[program]" selects hidden cases too)
  const std::filesystem::path dir(out);
  QSettings().setValue("autosave/seconds", 1);
  QuietWindow window(QSize(1400, 900));
  QSignalSpy loaded(&window, &MainWindow::studyLoaded);
  REQUIRE(window.loader().openImage(QString::fromStdString(test::kSampleCt)));
  REQUIRE(waitFor(loaded));
  activate(window);
  window.labelPanel()->addLabel("crash test");
  QTest::keyClick(&window, Qt::Key_B);
  window.editTools()->setBrushRadius(15);
  SlicePanel* axial = window.slicePanel(SliceOrientation::Axial);
  const QPoint centre = widgetPoint(axial, window.cursor());
  drag(&axial->view(), centre - QPoint(30, 10), centre + QPoint(30, 10));
  REQUIRE(window.document().session()->isDirty());
  // The journal's snapshot, written by the window's own timer.
  const std::string root = io::defaultAutosaveRoot().value();
  bool snapshot = false;
  for (int i = 0; i < 200 && !snapshot; ++i) {
    QTest::qWait(100);
    auto scan = io::AutosaveJournal::findRecoverable(root);
    snapshot = scan.ok() && scan->live.size() == 1 && scan->live[0].snapshot.has_value();
  }
  REQUIRE(snapshot);
  REQUIRE(io::writeLabelFile((dir / "expected.nii.gz").string(), window.document().session()->labels()).ok());
  std::ofstream(dir / "ready") << "ready\n";
  QTest::qWait(120000);  // killed long before
}

TEST_CASE("a killed process's edits are offered at the next start and come back exactly", "[gui][recovery]") {
  test::guiApp();
  test::ScratchDir dir("gui-recovery");
  std::filesystem::create_directories(dir / "autosave");
  const std::string previous = std::getenv("DELINEATE_AUTOSAVE_DIR") ? std::getenv("DELINEATE_AUTOSAVE_DIR") : "";
  setenv("DELINEATE_AUTOSAVE_DIR", (dir / "autosave").c_str(), 1);

  QProcess child;
  QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
  env.insert("DELINEATE_CRASH_DIR", QString::fromStdString(dir.path().string()));
  child.setProcessEnvironment(env);
  child.setProcessChannelMode(QProcess::MergedChannels);
  child.start(QCoreApplication::applicationFilePath(), {"[.crash-child]"});
  REQUIRE(child.waitForStarted());
  bool ready = false;
  for (int i = 0; i < 1200 && !ready && child.state() == QProcess::Running; ++i) {
    QTest::qWait(100);
    ready = std::filesystem::exists(dir / "ready");
  }
  INFO(child.readAll().toStdString());
  REQUIRE(ready);
  ::kill(static_cast<pid_t>(child.processId()), SIGKILL);  // no clean-up of any kind
  REQUIRE(child.waitForFinished(10000));
  CHECK(child.exitStatus() == QProcess::CrashExit);

  {
    QuietWindow window;
    SessionFiles* files = window.sessionFiles();
    REQUIRE(files->recoverable().size() == 1);
    QSignalSpy offered(files, &SessionFiles::recoveryOffered), recovered(files, &SessionFiles::recovered);
    REQUIRE(files->offerRecovery(SessionFiles::RecoveryAnswer::Recover));
    REQUIRE(offered.count() == 1);
    CHECK(offered.front().at(0).toString().contains("example_ct.nii.gz"));
    REQUIRE(waitFor(recovered));
    auto expected = io::readLabelFile((dir / "expected.nii.gz").string());
    REQUIRE(expected.ok());
    CHECK(std::vector<core::Label>(expected->data(), expected->data() + expected->size()) == voxels(window));
    CHECK(window.document().session()->isDirty());  // recovered, not saved
    // While this window holds the recovered journal, nothing is offered to another one.
    QuietWindow second;
    CHECK(second.sessionFiles()->recoverable().empty());
    CHECK_FALSE(second.sessionFiles()->offerRecovery(SessionFiles::RecoveryAnswer::Recover));
    // Closing with unsaved edits and no dialog keeps them for the next start.
    window.close();
  }
  {
    QuietWindow window;
    CHECK(window.sessionFiles()->recoverable().size() == 1);
    CHECK_FALSE(window.sessionFiles()->offerRecovery(SessionFiles::RecoveryAnswer::Discard));
    CHECK(window.sessionFiles()->recoverable().empty());  // declined: removed
  }
  if (previous.empty()) unsetenv("DELINEATE_AUTOSAVE_DIR");
  else setenv("DELINEATE_AUTOSAVE_DIR", previous.c_str(), 1);
}

TEST_CASE("the language switches to German, French and Chinese and back, menus and docks included",
          "[gui][i18n]") {
  test::guiApp();
  QuietWindow window;
  auto firstMenu = [&] { return window.menuBar()->actions().front()->text(); };
  auto dockTitle = [&] { return window.findChild<QDockWidget*>("tools-dock")->windowTitle(); };
  CHECK(firstMenu() == "&File");
  auto menuAction = [&](const char* name) -> QAction* {
    for (QAction* top : window.menuBar()->actions())
      if (top->menu())
        for (QAction* a : top->menu()->actions())
          if (a->objectName() == name) return a;
    return nullptr;
  };
  REQUIRE(menuAction("label-outline"));
  menuAction("label-outline")->trigger();  // outlines on: the rebuilt menus must still say so
  REQUIRE(menuAction("label-outline")->isChecked());
  // Through the preferences, as a user does: the setting persists and the menus change at once.
  app::gui::PreferencesDialog prefs(&window);
  prefs.languageBox()->setCurrentIndex(prefs.languageBox()->findData("de"));
  prefs.apply();
  CHECK(QSettings().value("language").toString() == "de");
  CHECK(app::gui::currentLanguage() == "de");
  QApplication::processEvents();  // LanguageChange reaches the widgets as a posted event
  CHECK(firstMenu() == "&Datei");
  CHECK(dockTitle() == "Werkzeuge");
  REQUIRE(menuAction("label-outline"));
  CHECK(menuAction("label-outline")->isChecked());
  CHECK(window.slicePanel(SliceOrientation::Axial)->scene().labelOutline());
  CHECK(window.editTools()->undoAction()->text() == "&R\u00fcckg\u00e4ngig");
  REQUIRE(app::gui::installLanguage("fr") == "fr");
  QApplication::processEvents();
  CHECK(firstMenu() == "&Fichier");
  REQUIRE(app::gui::installLanguage("zh_CN") == "zh_CN");
  QApplication::processEvents();
  CHECK(firstMenu().contains(QString::fromUtf8("\u6587\u4ef6")));
  // A window opened while a language is installed starts in it.
  {
    QuietWindow another;
    CHECK(another.menuBar()->actions().front()->text().contains(QString::fromUtf8("\u6587\u4ef6")));
  }
  CHECK(app::gui::installLanguage("en") == "en");
  QApplication::processEvents();
  CHECK(firstMenu() == "&File");
  QSettings().remove("language");
  // The shortcut list names the undo key and the tools.
  const auto rows = app::gui::shortcutRows(&window);
  bool undo = false, brush = false;
  for (const auto& r : rows) {
    undo |= r.first.startsWith("Undo") && r.second.contains("Ctrl+Z");
    brush |= r.first == "Brush" && r.second == "B";
  }
  CHECK(undo);
  CHECK(brush);
}

TEST_CASE("the AI dock says why its engine was chosen in the window's language (issue 41: it stayed English)",
          "[gui][i18n][ai]") {
  // The reason came from inference/ in English and was shown as it was; the window now words it itself.
  test::guiApp();
  test::ScratchDir dir("gui-engine-why");
  QSettings().remove("ai");
  QuietWindow window;
  app::gui::AiPanel* ai = window.aiPanel();
  QSignalSpy engine(ai, &app::gui::AiPanel::engineChanged);
  openSample(window, dir, false);
  REQUIRE(waitFor(engine));
  auto* label = ai->findChild<QLabel*>("ai-engine");
  REQUIRE(label != nullptr);
  CHECK(label->text().contains("classic engine: no VISTA-3D checkpoint is configured"));
  REQUIRE(app::gui::installLanguage("de") == "de");
  QApplication::processEvents();  // LanguageChange reaches the widgets as a posted event
  INFO(label->text().toStdString());
  CHECK(label->text().contains(QString::fromUtf8("klassische Engine: kein VISTA-3D-Checkpoint konfiguriert")));
  CHECK_FALSE(label->text().contains("no VISTA-3D checkpoint"));
  REQUIRE(app::gui::installLanguage("en") == "en");
  QApplication::processEvents();
  CHECK(label->text().contains("classic engine: no VISTA-3D checkpoint is configured"));
}

TEST_CASE("VISTA-3D reaches the window as a plugin: a checkpoint in the preferences, the engine on the CPU, a click",
          "[gui][ai][vista3d]") {
  test::guiApp();
  const auto checkpoint = test::sharedFile("reference/vista3d/tiny_state_dict.pt");
  if (!checkpoint) return;  // sharedFile has said why (a failure under CI)
  test::ScratchDir dir("gui-vista3d");
  QSettings settings;
  settings.setValue("ai/checkpoint", QString::fromStdString(checkpoint->string()));
  settings.setValue("ai/device", "cpu");
  settings.setValue("ai/roi", 64);  // the reference's tiny network was checked with 64^3 windows
  QuietWindow window(QSize(1400, 900));
  app::gui::AiPanel* ai = window.aiPanel();
  QSignalSpy engine(ai, &app::gui::AiPanel::engineChanged);
  openSample(window, dir, false);
  REQUIRE(waitFor(engine));
  settings.remove("ai");
  INFO(ai->engineDescription().toStdString());
  REQUIRE(ai->engineReady());
  CHECK(ai->engineDescription().contains("vista3d"));
  CHECK(ai->engineDescription().contains("cpu"));
  CHECK(ai->classList()->count() > 100);  // VISTA-3D's class table
  window.labelPanel()->addLabel("vista object");
  ai->setClickMode(true);
  REQUIRE(ai->clickMode());
  QSignalSpy preview(ai, &app::gui::AiPanel::previewUpdated);
  REQUIRE(ai->addPoint(window.cursor(), true));
  REQUIRE(waitFor(preview, 300000));
  CHECK(ai->pointCount() == 1);
  WARN("VISTA-3D (tiny reference network, CPU) click: engine " << ai->lastEngineMs() << " ms, object "
                                                              << ai->objectVoxels() << " voxels");
  // The engine goes back to the classic one when the preferences no longer name a checkpoint.
  engine.clear();
  ai->rebuildEngine();
  REQUIRE(waitFor(engine));
  CHECK(ai->engineDescription().contains("classic"));
}

TEST_CASE("every translation is complete: no unfinished message, the same placeholders as the English text",
          "[gui][i18n]") {
  for (const char* lang : {"de", "fr", "zh_CN"}) {
    const std::string path = std::string(DELINEATE_SOURCE_DIR) + "/translations/delineate_" + lang + ".ts";
    std::ifstream in(path);
    REQUIRE(in.good());
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    INFO(path);
    CHECK(text.find("type=\"unfinished\"") == std::string::npos);
    CHECK(text.find("type=\"vanished\"") == std::string::npos);
    // Each message: the placeholders %1..%9 of the source appear in every translation form.
    std::size_t at = 0, messages = 0;
    while ((at = text.find("<source>", at)) != std::string::npos) {
      const std::size_t end = text.find("</message>", at);
      const std::string message = text.substr(at, end - at);
      const std::string source = message.substr(8, message.find("</source>") - 8);
      const std::size_t t0 = message.find("<translation");
      REQUIRE(t0 != std::string::npos);
      const std::string translation = message.substr(t0);
      for (char d = '1'; d <= '9'; ++d) {
        const std::string ph = std::string("%") + d;
        if (source.find(ph) != std::string::npos) {
          INFO(source);
          CHECK(translation.find(ph) != std::string::npos);
        }
      }
      CHECK(translation.find("<translation></translation>") == std::string::npos);  // not empty
      CHECK(translation.find("<numerusform></numerusform>") == std::string::npos);
      ++messages;
      at = end;
    }
    CHECK(messages > 250);
  }
}

TEST_CASE("File > Export writes label statistics (CSV, JSON, de-identified) and one surface file per label",
          "[gui][export]") {
  test::guiApp();
  test::ScratchDir dir("gui-export");
  QuietWindow window;
  QSignalSpy surfaces(&window, &MainWindow::surfacesReady);
  openSample(window, dir);
  REQUIRE(waitFor(surfaces));
  const QString csv = QString::fromStdString((dir / "stats.csv").string());
  REQUIRE(window.exports().exportStatistics(csv, false));
  std::ifstream in(csv.toStdString());
  std::string header, row;
  std::getline(in, header);
  CHECK(header.rfind("label,name,voxels,volume_ml,mean,std,min,max,median,longest_diameter_mm", 0) == 0);
  int rows = 0;
  while (std::getline(in, row)) ++rows;
  CHECK(rows == 4);  // bone, body, two lungs
  const QString json = QString::fromStdString((dir / "stats.json").string());
  REQUIRE(window.exports().exportStatistics(json, true));
  std::ifstream jin(json.toStdString());
  const std::string text((std::istreambuf_iterator<char>(jin)), std::istreambuf_iterator<char>());
  CHECK(text.find("example_ct") == std::string::npos);  // de-identified: no file name
  CHECK(text.find("\"intensity_unit\": \"HU\"") != std::string::npos);
  CHECK(text.find("\"longest_diameter_mm\"") != std::string::npos);
  // The PDF report from the window (the report itself is tested in test_pdf_report.cpp).
  const QString pdf = QString::fromStdString((dir / "report.pdf").string());
  REQUIRE(window.exports().exportPdfReport(pdf, true));
  std::ifstream pin(pdf.toStdString(), std::ios::binary);
  const std::string pdfBytes((std::istreambuf_iterator<char>(pin)), std::istreambuf_iterator<char>());
  CHECK(pdfBytes.rfind("%PDF-", 0) == 0);
  CHECK(pdfBytes.size() > 50000);  // key images inside
  CHECK(pdfBytes.find("example_ct") == std::string::npos);
  // Surfaces: one STL per label, named by id only.
  std::filesystem::create_directories(dir / "meshes");
  REQUIRE(window.exports().exportSurfaces(QString::fromStdString((dir / "meshes").string()), false));
  std::set<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(dir / "meshes")) names.insert(e.path().filename().string());
  CHECK(names == std::set<std::string>{"label_21.stl", "label_200.stl", "label_201.stl", "label_202.stl"});
  // A folder that does not exist: an error naming it.
  QSignalSpy failed(&window, &MainWindow::loadFailed);
  CHECK_FALSE(window.exports().exportSurfaces(QString::fromStdString((dir / "none").string()), true));
  REQUIRE(failed.count() == 1);
  CHECK(failed.front().at(0).toString().contains("none"));
}

TEST_CASE("File > Open DICOM SEG: another tool's SEG lands on the open series as labels, overlaps are refused unless "
          "allowed",
          "[gui][dicom-seg]") {
  test::guiApp();
  const auto ct = test::sharedFile("data/dicom-seg/dcmqi/segmentations/ct-3slice");
  const auto seg = test::sharedFile("data/dicom-seg/dcmqi/segmentations/liver.dcm");
  const auto nrrd = test::sharedFile("data/dicom-seg/dcmqi/segmentations/liver_seg.nrrd");
  const auto overlap = test::sharedFile("data/dicom-seg/dcmqi/segmentations/partial_overlaps.dcm");
  if (!ct || !seg || !nrrd || !overlap) return;
  QuietWindow window;
  QSignalSpy labelsLoaded(&window, &MainWindow::labelsLoaded), failed(&window, &MainWindow::loadFailed);
  REQUIRE(test::openDicomWithSeg(window, ct->string(), seg->string()));
  REQUIRE(failed.count() == 0);
  auto expected = io::readLabelFile(nrrd->string());
  REQUIRE(expected.ok());
  const std::vector<core::Label> got = voxels(window);
  REQUIRE(got.size() == expected->size());
  for (std::size_t i = 0; i < got.size(); ++i) REQUIRE((got[i] == 1) == (expected->data()[i] == 1));
  CHECK(std::count(got.begin(), got.end(), core::Label(1)) > 1000);
  REQUIRE(window.document().session()->table().find(1));
  CHECK(window.document().session()->table().find(1)->terminology.type.meaning == "Liver");
  CHECK(window.editTools()->undoAction()->text().contains("Open label map"));
  // Overlapping segments: refused by default (naming the file), loaded on request with the count said.
  REQUIRE(window.loader().openDicomSeg(QString::fromStdString(overlap->string())));
  REQUIRE(waitFor(failed));
  CHECK(failed.front().at(0).toString().contains("partial_overlaps.dcm"));
  CHECK(voxels(window) == got);  // the labels in the window stay
  labelsLoaded.clear();
  REQUIRE(window.loader().openDicomSeg(QString::fromStdString(overlap->string()), true));
  REQUIRE(waitFor(labelsLoaded));
  CHECK(window.statusBar()->currentMessage().contains("more than one segment"));

  // File > Export > DICOM SEG: the labels as a SEG referencing the series they were drawn on, read back equal.
  REQUIRE((window.document().dicomSource() != nullptr));
  test::ScratchDir dir("gui-seg-export");
  const QString out = QString::fromStdString((dir / "seg.dcm").string());
  REQUIRE(window.exports().exportDicomSeg(out, true));
  auto doc = io::readDicomSeg(out.toStdString(), window.document().session()->image().geometry());
  REQUIRE(doc.ok());
  auto back = io::segToLabelMap(*doc, false);
  REQUIRE(back.ok());
  // Segments are numbered 1..n in increasing label order: compare the partition, label by label.
  const std::vector<core::Label> now = voxels(window);
  std::map<core::Label, core::Label> segmentOf;
  for (std::size_t i = 0; i < now.size(); ++i) {
    const core::Label number = back->first.data()[i];
    REQUIRE((now[i] == 0) == (number == 0));
    if (now[i] == 0) continue;
    const auto [it, inserted] = segmentOf.emplace(now[i], number);
    REQUIRE(it->second == number);
  }
  CHECK(segmentOf.size() >= 2);
  // A study from an image file has no DICOM instances to reference: refused with a reason.
  QuietWindow fromFile;
  openSample(fromFile, dir);
  QSignalSpy refused(&fromFile, &MainWindow::loadFailed);
  CHECK_FALSE(fromFile.exports().exportDicomSeg(out, false));
  REQUIRE(refused.count() == 1);
  CHECK(refused.front().at(0).toString().contains("DICOM folder"));
}

TEST_CASE("interpolating slices inside a parcellated map says why nothing changed and can write over other labels",
          "[gui][edit]") {
  // Issue 23 item 9: in an atlas every voxel between two annotated slices belongs to some label, so interpolation
  // (which fills only unlabelled voxels) said "nothing to change" without saying why.
  test::guiApp();
  test::ScratchDir dir("gui-interpolate-atlas");
  QuietWindow window;
  openSample(window, dir, false);
  const core::Geometry& g = window.document().session()->image().geometry();
  auto map = core::Volume<core::Label>::create(g, 0).value();
  const auto d = g.dimensions();
  const std::int64_t k0 = d[2] / 2 - 2, k1 = k0 + 4;
  const double cx = static_cast<double>(d[0]) / 2, cy = static_cast<double>(d[1]) / 2, r = static_cast<double>(d[0]) / 8;
  for (std::int64_t k = k0; k <= k1; ++k)
    for (std::int64_t j = 0; j < d[1]; ++j)
      for (std::int64_t i = 0; i < d[0]; ++i) {
        const double x = static_cast<double>(i) - cx, y = static_cast<double>(j) - cy;
        const bool inDisc = x * x + y * y <= r * r;
        if (k == k0 || k == k1) {
          if (inDisc) map.at({i, j, k}) = 7;
        } else {
          map.at({i, j, k}) = 9;  // a neighbouring structure holds the whole gap
        }
      }
  const std::string path = (dir / "atlas.nii.gz").string();
  REQUIRE(io::writeLabelFile(path, core::LabelMap(std::move(map))).ok());
  QSignalSpy labelsLoaded(&window, &MainWindow::labelsLoaded);
  REQUIRE(window.loader().openLabels(QString::fromStdString(path)));
  REQUIRE(waitFor(labelsLoaded));
  window.labelPanel()->setActiveLabel(7);
  const std::vector<core::Label> before = voxels(window);
  // Axial: across the third axis of the sample.
  CHECK_FALSE(window.editTools()->interpolate());
  CHECK(voxels(window) == before);
  INFO(window.statusBar()->currentMessage().toStdString());
  CHECK(window.statusBar()->currentMessage().contains("belong to other labels"));
  // Over the other labels: the gap gets the morphed disc, in one undo step.
  REQUIRE(window.editTools()->interpolateOverOtherLabels());
  const std::vector<core::Label> after = voxels(window);
  std::size_t taken = 0;
  for (std::size_t i = 0; i < after.size(); ++i)
    if (after[i] != before[i]) {
      REQUIRE(before[i] == 9);
      REQUIRE(after[i] == 7);
      ++taken;
    }
  CHECK(taken > 3 * 100);
  CHECK(window.editTools()->undoAction()->text().contains("Interpolate slices over other labels"));
  REQUIRE(window.editTools()->undo());
  CHECK(voxels(window) == before);
}
