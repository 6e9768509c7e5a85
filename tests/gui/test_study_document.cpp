// The study document on its own: every change it makes is announced (a new study, edits, table edits, visibility,
// saves, the share target), and a dock works against the document and a stand-in workbench with no window at all.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>

#include <QAbstractButton>
#include <QApplication>
#include <QMessageBox>
#include <QSignalSpy>
#include <QTest>
#include <QThreadPool>
#include <QTimer>
#include <QTreeWidget>
#include <QWidget>

#include "app/gui/base/job.h"
#include "app/gui/base/workbench.h"
#include "app/gui/editing/edit_tools.h"
#include "app/gui/editing/label_panel.h"
#include "app/gui/study/study_document.h"
#include "app/gui/study/study_loader.h"
#include "core/annotation_session.h"
#include "inference/engine.h"
#include "io/report/statistics_report.h"
#include "io/volume/image_file.h"
#include "tests/common/test_support.h"
#include "tests/gui_support/gui_app.h"

using namespace delineate;
using app::gui::LabelPanel;
using app::gui::ShareTarget;
using app::gui::StudyDocument;

namespace {

// A 20^3 image (1 mm voxels) with a small table: label 1 "liver" (in the table), the map empty.
core::AnnotationSession smallSession() {
  const core::Geometry g({20, 20, 20}, {1, 1, 1}, {0, 0, 0});
  auto image = core::ImageVolume::create(g, 40.0f);
  REQUIRE(image.ok());
  core::LabelTable table;
  core::LabelEntry liver;
  liver.id = 1;
  liver.name = "liver";
  liver.color = core::LabelTable::defaultColor(1);
  table.set(liver);
  auto session = core::AnnotationSession::create(std::move(image).value(), table);
  REQUIRE(session.ok());
  return std::move(session).value();
}

// What a dock may ask of the window, answered without one: errors are collected, no views, no dialogs.
struct StandInBench : app::gui::Workbench {
  QWidget window;
  QThreadPool pool;
  QStringList errors;
  bool dialogsEnabled() const override { return false; }
  QWidget* widget() override { return &window; }
  void reportError(const QString& message) override { errors << message; }
  void showStatus(const QString&, int) override {}
  std::shared_ptr<app::gui::JobProgress> startProgress(const QString&) override {
    return std::make_shared<app::gui::JobProgress>();
  }
  bool finishProgress(const std::shared_ptr<app::gui::JobProgress>&) override { return true; }
  bool busy() const override { return false; }
  bool loading() const override { return false; }
  QThreadPool& workers() override { return pool; }
  bool openImage(const QString&) override { return false; }
  app::gui::SlicePanel* slicePanel(viewer::SliceOrientation) const override { return nullptr; }
  void refreshViews() override {}
  void setEditing(bool) override {}
  void setClicking(bool) override {}
};

// Opens `image` (with `labels`, if given) through the loader, as File > Open does; false with the errors in the output.
bool openThroughLoader(app::gui::StudyLoader& loader, StudyDocument& doc, StandInBench& bench, const std::string& image,
                       const std::string& labels = {}) {
  QSignalSpy loaded(&loader, &app::gui::StudyLoader::studyLoaded);
  if (!loader.openImage(QString::fromStdString(image), QString::fromStdString(labels))) return false;
  for (int i = 0; i < 1200 && bench.errors.isEmpty() && loaded.count() == 0; ++i) QTest::qWait(50);
  INFO(bench.errors.join("\n").toStdString());
  return loaded.count() == 1 && doc.hasStudy();
}

// Undo / redo as Edit > Undo does: the session's step, then the document follows it.
void undo(StudyDocument& doc) {
  REQUIRE(doc.editableSession()->undo());
  doc.labelsEdited(*doc.session()->history().nextRedo());
}
void redo(StudyDocument& doc) {
  REQUIRE(doc.editableSession()->redo());
  doc.labelsEdited(*doc.session()->history().nextUndo());
}

QTreeWidgetItem* row(QTreeWidget* tree, core::Label label) {
  for (int i = 0; i < tree->topLevelItemCount(); ++i)
    if (tree->topLevelItem(i)->text(LabelPanel::kId).toInt() == static_cast<int>(label)) return tree->topLevelItem(i);
  return nullptr;
}

// A copy of the DICOM series in `source` under `folder` whose first file (1-01.dcm) is cut to zero bytes; its path.
std::filesystem::path copySeriesWithEmptyFirstFile(const std::filesystem::path& source,
                                                   const std::filesystem::path& folder) {
  std::filesystem::create_directories(folder);
  for (const auto& e : std::filesystem::directory_iterator(source))
    std::filesystem::copy_file(e.path(), folder / e.path().filename());
  const std::filesystem::path broken = folder / "1-01.dcm";
  std::filesystem::resize_file(broken, 0);
  return broken;
}

// Answers every message box that opens Yes (or OK), keeping its text: the user who accepts each question.
struct YesToEveryBox {
  QStringList asked;
  QTimer timer;
  YesToEveryBox() {
    QObject::connect(&timer, &QTimer::timeout, [this] {
      if (auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget())) {
        asked << box->text();
        if (QAbstractButton* yes = box->button(QMessageBox::Yes)) yes->click();
        else box->accept();
      }
    });
    timer.start(20);
  }
};

}  // namespace

TEST_CASE("study document: a new study, an edit, table edits, visibility and a save are each announced",
          "[gui][document]") {
  test::guiApp();
  StudyDocument doc;
  QSignalSpy about(&doc, &StudyDocument::aboutToChange), replacing(&doc, &StudyDocument::aboutToReplaceStudy),
      replaced(&doc, &StudyDocument::studyReplaced), edited(&doc, &StudyDocument::edited),
      entry(&doc, &StudyDocument::labelEntryChanged), table(&doc, &StudyDocument::tableChanged),
      visibility(&doc, &StudyDocument::visibilityChanged), dirty(&doc, &StudyDocument::dirtyChanged),
      saved(&doc, &StudyDocument::saved), target(&doc, &StudyDocument::shareTargetChanged),
      labelsReplaced(&doc, &StudyDocument::labelsReplaced);
  CHECK_FALSE(doc.hasStudy());

  doc.setStudy(smallSession(), "small.nii.gz");
  REQUIRE(doc.hasStudy());
  CHECK(about.count() == 1);
  CHECK(replacing.count() == 1);
  CHECK(replaced.count() == 1);
  CHECK(doc.source() == "small.nii.gz");
  CHECK(doc.dicomSource() == nullptr);
  CHECK(doc.voxelCounts().empty());
  CHECK_FALSE(doc.isDirty());

  // An edit: the labels it changed and their volumes, from the step.
  {
    auto tx = doc.editableSession()->beginEdit("Paint");
    for (std::int64_t x = 2; x < 5; ++x) tx.set({x, 3, 3}, 1);
    REQUIRE(doc.editableSession()->commit(tx));
  }
  doc.labelsEdited(*doc.session()->history().nextUndo());
  REQUIRE(edited.count() == 1);
  CHECK(edited.at(0).at(0).value<std::set<core::Label>>() == std::set<core::Label>{0, 1});  // from background to 1
  CHECK(doc.voxelCounts().at(1) == 3);
  REQUIRE(dirty.count() >= 1);
  CHECK(dirty.last().at(0).toBool());
  CHECK(doc.isDirty());

  // Table edits: one entry, then entries; each is an undo step, and a change to nothing records nothing.
  core::LabelEntry renamed = *doc.session()->table().find(1);
  renamed.name = "liver (edited)";
  doc.setLabelEntry(renamed, "Rename label");
  REQUIRE(entry.count() == 1);
  CHECK(entry.at(0).at(0).value<core::LabelEntry>().name == "liver (edited)");
  CHECK(*doc.session()->history().nextUndoName() == "Rename label");
  core::LabelTable known;
  known.set(renamed);
  doc.setLabelEntries(known, "Label names");
  CHECK(table.count() == 0);  // nothing new
  core::LabelEntry spleen;
  spleen.id = 3;
  spleen.name = "spleen";
  known.set(spleen);
  doc.setLabelEntries(known, "Label names");
  CHECK(table.count() == 1);
  CHECK(doc.session()->table().contains(3));
  CHECK(doc.session()->table().find(1)->name == "liver (edited)");

  // Visibility is view state: announced, never dirty.
  const auto dirtyBefore = dirty.count();
  doc.setLabelVisible(1, false);
  REQUIRE(visibility.count() == 1);
  CHECK(visibility.at(0).at(0).value<core::Label>() == 1);
  CHECK_FALSE(visibility.at(0).at(1).toBool());
  CHECK_FALSE(doc.isLabelVisible(1));
  CHECK(doc.hiddenLabels() == std::set<core::Label>{1});
  CHECK(dirty.count() == dirtyBefore);

  // A save: the share target, then the revision; clean again.
  doc.setShareTarget(ShareTarget{"/share", "small", "organs", 1, {}});
  CHECK(target.count() == 1);
  CHECK(doc.shareTarget().baseRevision == 1);
  doc.markSaved("small/organs/r1");
  REQUIRE(saved.count() == 1);
  CHECK(saved.at(0).at(0).toString() == "small/organs/r1");
  CHECK_FALSE(doc.isDirty());
  CHECK_FALSE(dirty.last().at(0).toBool());
  CHECK(doc.session()->baseRevision() == "small/organs/r1");

  // Labels of another grid are refused and announce nothing; the session's stay.
  auto other = core::Volume<core::Label>::create(core::Geometry({10, 10, 10}, {1, 1, 1}, {0, 0, 0}), 1);
  REQUIRE(other.ok());
  CHECK_FALSE(doc.replaceLabels(core::LabelMap(std::move(other).value()), "Open label map").ok());
  CHECK(labelsReplaced.count() == 0);
  CHECK(doc.voxelCounts().at(1) == 3);

  // Labels of the same grid replace the map as one step: counted again, announced with the map.
  auto same = core::Volume<core::Label>::create(doc.session()->image().geometry(), 3);
  REQUIRE(same.ok());
  REQUIRE(doc.replaceLabels(core::LabelMap(std::move(same).value()), "Open label map").ok());
  REQUIRE(labelsReplaced.count() == 1);
  CHECK(doc.voxelCounts().at(3) == 20 * 20 * 20);
  CHECK_FALSE(doc.voxelCounts().count(1));
  CHECK(doc.isDirty());

  // A new study: the share target, visibility and counts start again.
  doc.setStudy(smallSession(), "again.nii.gz");
  CHECK(replaced.count() == 2);
  CHECK_FALSE(doc.shareTarget().valid());
  CHECK(doc.isLabelVisible(1));
  CHECK(doc.voxelCounts().empty());
  CHECK_FALSE(doc.isDirty());
}

TEST_CASE("label panel: works against the study document alone (no window)", "[gui][document]") {
  test::guiApp();
  StudyDocument doc;
  StandInBench bench;
  LabelPanel panel(doc, bench);
  QTreeWidget* tree = panel.tree();
  CHECK(tree->topLevelItemCount() == 0);

  doc.setStudy(smallSession(), "small.nii.gz");
  REQUIRE(row(tree, 1));
  CHECK(row(tree, 1)->text(LabelPanel::kName) == "liver");
  CHECK(row(tree, 1)->text(LabelPanel::kVolume) == "-");  // in the table, not in the map

  // The document's changes reach the rows: an edit's volume, a rename, visibility.
  {
    auto tx = doc.editableSession()->beginEdit("Paint");
    for (std::int64_t x = 0; x < 10; ++x) tx.set({x, 0, 0}, 1);
    REQUIRE(doc.editableSession()->commit(tx));
  }
  doc.labelsEdited(*doc.session()->history().nextUndo());
  REQUIRE(row(tree, 1));
  CHECK(row(tree, 1)->text(LabelPanel::kVolume) != "-");
  core::LabelEntry renamed = *doc.session()->table().find(1);
  renamed.name = "hepar";
  doc.setLabelEntry(renamed, "Rename label");
  CHECK(row(tree, 1)->text(LabelPanel::kName) == "hepar");
  doc.setLabelVisible(1, false);
  CHECK(row(tree, 1)->checkState(LabelPanel::kVisible) == Qt::Unchecked);

  // The panel's edits go to the document: show, rename, add.
  row(tree, 1)->setCheckState(LabelPanel::kVisible, Qt::Checked);
  CHECK(doc.isLabelVisible(1));
  row(tree, 1)->setText(LabelPanel::kName, "liver again");
  CHECK(doc.session()->table().find(1)->name == "liver again");
  QSignalSpy active(&panel, &LabelPanel::activeLabelChanged);
  const core::Label added = panel.addLabel("lesion");
  REQUIRE(added != 0);
  CHECK(doc.session()->table().find(added)->name == "lesion");
  CHECK(panel.activeLabel() == added);
  CHECK(active.count() == 1);
  REQUIRE(row(tree, added));
  CHECK(doc.isDirty());
  CHECK(bench.errors.isEmpty());
}

TEST_CASE("study loader: a DICOM series with an unreadable file is refused, the file named", "[gui][document]") {
  // Issue 22: the window used to open the other 40 slices as if they were the whole series.
  auto source = test::sharedFile("data/ct/tcia-crlm-ct-series/CRLM-CT-1004");
  if (!source) return;
  test::guiApp();
  test::ScratchDir scratch("gui-unreadable");
  const std::filesystem::path folder = scratch / "series";
  const std::filesystem::path broken = copySeriesWithEmptyFirstFile(*source, folder);

  StudyDocument doc;
  StandInBench bench;
  app::gui::StudyLoader loader(doc, bench);
  REQUIRE(loader.openDicomFolder(QString::fromStdString(folder.string())));
  for (int i = 0; i < 1200 && bench.errors.isEmpty() && !doc.hasStudy(); ++i) QTest::qWait(50);
  INFO(bench.errors.join("\n").toStdString());
  REQUIRE(bench.errors.size() == 1);
  CHECK(bench.errors.front().contains(QString::fromStdString(broken.string())));
  CHECK_FALSE(doc.hasStudy());
}

TEST_CASE("study loader: the readable files of an incomplete series load when the user says so", "[gui][document]") {
  // The window refused an incomplete series outright; the CLI had --allow-unreadable. Now the warning names the file
  // and asks; answered Yes, the other 40 slices open.
  auto source = test::sharedFile("data/ct/tcia-crlm-ct-series/CRLM-CT-1004");
  if (!source) return;
  test::guiApp();
  test::ScratchDir scratch("gui-unreadable-yes");
  const std::filesystem::path folder = scratch / "series";
  const std::filesystem::path broken = copySeriesWithEmptyFirstFile(*source, folder);

  struct AskingBench : StandInBench {
    bool dialogsEnabled() const override { return true; }
  };
  StudyDocument doc;
  AskingBench bench;
  app::gui::StudyLoader loader(doc, bench);
  YesToEveryBox answer;  // keeps each box's text in answer.asked
  QStringList& asked = answer.asked;
  REQUIRE(loader.openDicomFolder(QString::fromStdString(folder.string())));
  for (int i = 0; i < 1200 && bench.errors.isEmpty() && !doc.hasStudy(); ++i) QTest::qWait(50);
  INFO(bench.errors.join("\n").toStdString());
  REQUIRE(asked.size() == 1);
  CHECK(asked.front().contains(QString::fromStdString(broken.string())));
  CHECK(asked.front().contains("Load the readable files anyway?"));
  REQUIRE(doc.hasStudy());
  CHECK(doc.session()->image().geometry().dimensions() == core::Size3{512, 512, 40});
  CHECK(bench.errors.isEmpty());
}

TEST_CASE("study loader: an image opened with a label map on a coarser grid stays open, names both grids and "
          "resamples the map as one undo step when the user says so",
          "[gui][document][grid]") {
  // Issue 23 item 3: image + label map of another grid failed as a whole (no image) and named no sizes.
  test::guiApp();
  test::ScratchDir scratch("gui-resample-yes");
  // The image: 20 x 20 x 10 at 1 x 1 x 2 mm, stored RAS-style (i, j reversed) to exercise the directions.
  core::Mat3 flip;
  flip(0, 0) = -1;
  flip(1, 1) = -1;
  const core::Geometry grid({20, 20, 10}, {1, 1, 2}, {19, 19, 0}, flip);
  auto image = core::ImageVolume::create(grid, 40.0f);
  REQUIRE(image.ok());
  const std::string imagePath = (scratch / "image.nii.gz").string();
  REQUIRE(io::writeImageFile(imagePath, *image).ok());
  // The label map: 10 x 10 x 5 at 2 x 2 x 4 mm over the same space, LPS-ordered; label 1 in one octant.
  const core::Geometry coarse({10, 10, 5}, {2, 2, 4}, {0.5, 0.5, 1}, core::Mat3::identity());
  auto voxels = core::Volume<core::Label>::create(coarse, 0);
  REQUIRE(voxels.ok());
  for (std::int64_t k = 0; k < 5; ++k)
    for (std::int64_t j = 0; j < 5; ++j)
      for (std::int64_t i = 0; i < 5; ++i) voxels->at({i, j, k}) = 1;
  const core::LabelMap coarseMap(std::move(voxels).value());
  const std::string labelsPath = (scratch / "coarse.nii.gz").string();
  REQUIRE(io::writeLabelFile(labelsPath, coarseMap).ok());

  struct AskingBench : StandInBench {
    bool dialogsEnabled() const override { return true; }
  };
  StudyDocument doc;
  AskingBench bench;
  app::gui::StudyLoader loader(doc, bench);
  QSignalSpy labelsLoaded(&loader, &app::gui::StudyLoader::labelsLoaded);
  YesToEveryBox answer;
  QStringList& asked = answer.asked;
  REQUIRE(loader.openImage(QString::fromStdString(imagePath), QString::fromStdString(labelsPath)));
  for (int i = 0; i < 600 && bench.errors.isEmpty() && labelsLoaded.count() == 0; ++i) QTest::qWait(50);
  INFO(bench.errors.join("\n").toStdString());
  REQUIRE(doc.hasStudy());
  CHECK(doc.session()->image().geometry().isCloseTo(grid));
  REQUIRE(asked.size() == 1);
  CHECK(asked.front().contains("coarse.nii.gz"));
  CHECK(asked.front().contains("10 x 10 x 5 voxels, spacing 2 x 2 x 4 mm, origin (0.5, 0.5, 1) mm"));
  CHECK(asked.front().contains("20 x 20 x 10 voxels, spacing 1 x 1 x 2 mm, origin (19, 19, 0) mm"));
  REQUIRE(labelsLoaded.count() == 1);
  CHECK(bench.errors.isEmpty());
  // Every image voxel has its parent's label: the octant x, y < 10 mm, z < 20 mm is label 1 (1000 voxels).
  const core::LabelMap& labels = doc.session()->labels();
  CHECK(labels.geometry().isCloseTo(grid));
  const auto labelOne = [&] { return doc.voxelCounts().count(1) ? doc.voxelCounts().at(1) : 0; };
  CHECK(labelOne() == 10 * 10 * 10);
  for (std::int64_t k = 0; k < 10; ++k)
    for (std::int64_t j = 0; j < 20; ++j)
      for (std::int64_t i = 0; i < 20; ++i) {
        const core::Vec3 p = grid.indexToLps(core::Index3{i, j, k});
        REQUIRE(labels.at({i, j, k}) == (p[0] < 10 && p[1] < 10 && p[2] < 20 ? 1 : 0));
      }
  // One undo step takes the resampled labels back.
  REQUIRE(doc.session()->history().undoCount() == 1);
  CHECK(*doc.session()->history().nextUndoName() == "Resample label map");

  // A map that leaves part of the image uncovered is refused with both grids named; the study and labels stay.
  const core::Geometry half({10, 20, 10}, {1, 1, 2}, {0, 0, 0});
  auto small = core::LabelMap::create(half);
  REQUIRE(small.ok());
  const std::string halfPath = (scratch / "half.nii.gz").string();
  REQUIRE(io::writeLabelFile(halfPath, *small).ok());
  asked.clear();
  REQUIRE(loader.openLabels(QString::fromStdString(halfPath)));
  for (int i = 0; i < 600 && bench.errors.isEmpty(); ++i) QTest::qWait(50);
  REQUIRE(bench.errors.size() == 1);
  CHECK(asked.isEmpty());
  CHECK(bench.errors.front().contains("half.nii.gz"));
  CHECK(bench.errors.front().contains("10 x 20 x 10 voxels"));
  CHECK(bench.errors.front().contains("20 x 20 x 10 voxels"));
  CHECK(bench.errors.front().contains("does not cover"));
  CHECK(labelOne() == 1000);
}

TEST_CASE("label panel: Add takes an id that neither the table nor the voxels carry, and is an undo step",
          "[gui][document][labels]") {
  // Issue 23 item 1: the mouse atlas carries ids 21-40 (left hemisphere); its imported structure list names only
  // 1-20. Add created label 21, so the left hippocampus's voxels silently became the new label, beyond undo.
  auto image = test::sharedFile("data/mouse/fvb-ncrl-in-vivo/template/FVB_NCrl_in_vivo_1.nii.gz");
  auto atlas = test::sharedFile("data/mouse/fvb-ncrl-in-vivo/label/FVB_NCrl_in_vivo_1.nii.gz");
  auto list = test::sharedFile("data/mouse/fvb-ncrl-in-vivo/structure_label_list.csv");
  if (!image || !atlas || !list) return;
  test::guiApp();
  StudyDocument doc;
  StandInBench bench;
  LabelPanel panel(doc, bench);
  app::gui::StudyLoader loader(doc, bench);
  REQUIRE(openThroughLoader(loader, doc, bench, image->string(), atlas->string()));
  REQUIRE(panel.importTable(QString::fromStdString(list->string())));
  const core::LabelTable imported = doc.session()->table();
  REQUIRE(imported.contains(20));
  REQUIRE_FALSE(imported.contains(21));
  REQUIRE(doc.voxelCounts().count(21));
  const StudyDocument::Counts countsBefore = doc.voxelCounts();

  const core::Label added = panel.addLabel("lesion");
  REQUIRE(added != 0);
  CHECK(added != 21);
  CHECK_FALSE(countsBefore.count(added));  // no voxel carries the new id
  CHECK_FALSE(imported.contains(added));
  CHECK(doc.voxelCounts() == countsBefore);  // the voxels still mean what they meant
  CHECK(doc.session()->table().find(added)->name == "lesion");
  CHECK_FALSE(doc.session()->table().contains(21));
  CHECK(panel.activeLabel() == added);
  // The list stays in numeric order after Add (item 11: it sorted as text, 1, 10, 19, 2).
  std::vector<int> order;
  for (int i = 0; i < panel.tree()->topLevelItemCount(); ++i)
    order.push_back(panel.tree()->topLevelItem(i)->text(LabelPanel::kId).toInt());
  CHECK(std::is_sorted(order.begin(), order.end()));
  REQUIRE(row(panel.tree(), 21));
  CHECK(row(panel.tree(), 21)->text(LabelPanel::kName) != "lesion");

  // Adding a label and importing a table are undo steps: undone, the table is as it was; redone, back again.
  REQUIRE(doc.session()->history().nextUndoName());
  CHECK(*doc.session()->history().nextUndoName() == "Add label");
  undo(doc);
  CHECK(doc.session()->table() == imported);
  CHECK_FALSE(row(panel.tree(), added));  // no name, no voxels: no row
  REQUIRE(doc.session()->history().nextUndoName());
  CHECK(*doc.session()->history().nextUndoName() == "Import label table");
  undo(doc);
  CHECK(doc.session()->table().empty());  // the atlas came without a table
  redo(doc);
  redo(doc);
  CHECK(doc.session()->table().find(added)->name == "lesion");
  REQUIRE(row(panel.tree(), added));
  CHECK(row(panel.tree(), added)->text(LabelPanel::kName) == "lesion");
  CHECK(doc.voxelCounts() == countsBefore);
  CHECK(bench.errors.isEmpty());
}

TEST_CASE("study loader: a label map is named by its own table only, never by the CT engine's classes",
          "[gui][document][labels]") {
  // Issue 23 item 2: every study started with the classic engine's CT classes, so the mouse atlas's id 21 (left
  // hippocampus) was called "bone" in the panel, the PDF, the CSV and the SEG.
  auto image = test::sharedFile("data/mouse/fvb-ncrl-in-vivo/template/FVB_NCrl_in_vivo_1.nii.gz");
  auto atlas = test::sharedFile("data/mouse/fvb-ncrl-in-vivo/label/FVB_NCrl_in_vivo_1.nii.gz");
  auto list = test::sharedFile("data/mouse/fvb-ncrl-in-vivo/structure_label_list_hemisphere_separated.csv");
  if (!image || !atlas || !list) return;
  test::guiApp();
  test::ScratchDir scratch("gui-label-names");
  StudyDocument doc;
  StandInBench bench;
  LabelPanel panel(doc, bench);
  app::gui::StudyLoader loader(doc, bench);

  // No table comes with the atlas: its ids are unnamed, nothing else is listed.
  REQUIRE(openThroughLoader(loader, doc, bench, image->string(), atlas->string()));
  REQUIRE(doc.voxelCounts().count(21));
  CHECK(doc.session()->table().empty());
  CHECK(io::labelDisplayName(doc.session()->table(), 21) == "label 21");  // what the CSV, PDF and SEG would say
  REQUIRE(row(panel.tree(), 21));
  CHECK(row(panel.tree(), 21)->text(LabelPanel::kName) == "label 21");
  CHECK(row(panel.tree(), 21)->font(LabelPanel::kName).italic());  // shown as unnamed
  CHECK(panel.tree()->topLevelItemCount() == static_cast<int>(doc.voxelCounts().size()));  // no CT rows
  for (core::Label ct : {core::Label(132), core::Label(200), core::Label(201), core::Label(202)})
    CHECK_FALSE(row(panel.tree(), ct));  // (the atlas carries no such id)

  // A table beside the map (same name) names it, in the same undo step as the voxels.
  const std::filesystem::path beside = scratch / "atlas.nii.gz";
  std::filesystem::copy_file(*atlas, beside);
  std::filesystem::copy_file(*list, scratch / "atlas.csv");
  QSignalSpy labelsLoaded(&loader, &app::gui::StudyLoader::labelsLoaded);
  REQUIRE(loader.openLabels(QString::fromStdString(beside.string())));
  for (int i = 0; i < 1200 && bench.errors.isEmpty() && labelsLoaded.count() == 0; ++i) QTest::qWait(50);
  INFO(bench.errors.join("\n").toStdString());
  REQUIRE(labelsLoaded.count() == 1);
  REQUIRE(doc.session()->table().contains(21));
  CHECK(doc.session()->table().find(21)->name == "Right Hippocampus");
  CHECK(row(panel.tree(), 21)->text(LabelPanel::kName) == "Right Hippocampus");
  CHECK(*doc.session()->history().nextUndoName() == "Open label map");
  undo(doc);
  CHECK(doc.session()->table().empty());

  // A fresh CT with no labels starts with no names at all; a TotalSegmentator map without its table too.
  auto ct = test::sharedFile("data/ct/totalseg-example/example_ct_sm.nii.gz");
  auto seg = test::sharedFile("data/ct/totalseg-example/example_seg.nii.gz");
  if (!ct || !seg) return;
  REQUIRE(openThroughLoader(loader, doc, bench, ct->string()));
  CHECK(doc.session()->table().empty());
  CHECK(panel.tree()->topLevelItemCount() == 0);
  REQUIRE(openThroughLoader(loader, doc, bench, ct->string(), seg->string()));
  CHECK(doc.session()->table().empty());
  CHECK(panel.tree()->topLevelItemCount() == static_cast<int>(doc.voxelCounts().size()));
  CHECK(bench.errors.isEmpty());
}

TEST_CASE("engine results name only the labels they write, never over another label's name or voxels",
          "[gui][document][labels]") {
  // Issue 23 item 2: an engine's classes were merged into every table whether written or not, under ids the
  // labels already used for something else. Here id 21 is a mouse structure and id 200 carries voxels unnamed.
  test::guiApp();
  StudyDocument doc;
  StandInBench bench;
  doc.setStudy(smallSession(), "small.nii.gz");
  core::LabelEntry hippocampus;
  hippocampus.id = 21;
  hippocampus.name = "Right Hippocampus";
  doc.setLabelEntry(hippocampus, "Rename label");
  {
    auto tx = doc.editableSession()->beginEdit("Paint");
    for (std::int64_t x = 0; x < 5; ++x) tx.set({x, 0, 0}, 21);
    for (std::int64_t x = 0; x < 5; ++x) tx.set({x, 1, 0}, 200);
    REQUIRE(doc.editableSession()->commit(tx));
  }
  doc.labelsEdited(*doc.session()->history().nextUndo());
  const core::LabelTable before = doc.session()->table();

  // The classic engine's classes; a result that writes "bone" (21) and "left lung" (201) on background.
  auto engine = inference::createEngine("classic");
  REQUIRE(engine);
  const core::LabelTable& classes = engine->info().classes;
  REQUIRE(classes.contains(21));
  REQUIRE(classes.contains(201));
  REQUIRE(classes.contains(200));
  core::LabelPatch patch;
  patch.box = doc.session()->labels().geometry().fullBox();
  patch.voxels.assign(static_cast<std::size_t>(patch.box.voxelCount()), 0);
  for (std::int64_t x = 0; x < 4; ++x) patch.voxels[static_cast<std::size_t>(x + 20 * 10)] = 21;   // row y = 10
  for (std::int64_t x = 0; x < 3; ++x) patch.voxels[static_cast<std::size_t>(x + 20 * 12)] = 201;  // row y = 12

  app::gui::EditTools tools(doc, bench);
  REQUIRE(tools.applyPatch(patch, "Segment everything", true, &classes));
  const core::LabelTable& after = doc.session()->table();
  CHECK(after.find(21)->name == "Right Hippocampus");  // never renamed
  CHECK(doc.voxelCounts().at(21) == 5);                // nor given the engine's voxels
  CHECK_FALSE(after.contains(200));                    // not written: not named, still unnamed
  CHECK(doc.voxelCounts().at(200) == 5);
  CHECK_FALSE(after.contains(132));
  CHECK_FALSE(after.contains(202));
  REQUIRE(after.contains(201));
  CHECK(after.find(201)->name == classes.find(201)->name);
  CHECK(doc.voxelCounts().at(201) == 3);
  REQUIRE(after.findByName(classes.find(21)->name));
  const core::Label bone = after.findByName(classes.find(21)->name)->id;
  CHECK(bone != 21);
  CHECK(doc.voxelCounts().at(bone) == 4);
  CHECK(*doc.session()->history().nextUndoName() == "Segment everything");
  undo(doc);  // names and voxels go together
  CHECK(doc.session()->table() == before);
  CHECK_FALSE(doc.voxelCounts().count(bone));
  CHECK(bench.errors.isEmpty());
}
