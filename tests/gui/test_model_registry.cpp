// AI > Model Registry (issue 26, item 4) on a share whose checkpoints are written here with the sidecars delineate-train
// writes (the training loop test runs the real program): every revision listed, one revision's Dice per structure,
// two compared structure by structure, the chosen one handed to the AI panel; no share, or a folder that is not one,
// said in the dialog.
#include <catch2/catch.hpp>

#include <QComboBox>
#include <QLabel>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QTableWidget>

#include <nlohmann/json.hpp>

#include <filesystem>

#include "app/gui/ai/ai_panel.h"
#include "app/gui/ai/model_registry.h"
#include "app/gui/shell/main_window.h"
#include "io/share/share_revisions.h"
#include "io/share/share_store.h"
#include "tests/common/test_support.h"
#include "tests/gui/gui_fixtures.h"
#include "tests/gui_support/gui_app.h"

using namespace delineate;
using nlohmann::json;
using test::QuietWindow;
using test::waitFor;
namespace fs = std::filesystem;

namespace {

json sidecar(int iteration, double dice1, double dice2, const char* dataset) {
  return {{"architecture", {{"name", "SegResNetDS"}}},
          {"labels", json::array({{{"class", 1}, {"id", 3}, {"name", "liver"}}, {{"class", 2}, {"id", 9}, {"name", "spleen"}}})},
          {"bestDice", (dice1 + dice2) / 2},
          {"iteration", iteration},
          {"training", {{"iterations", 200}, {"device", "cpu"}, {"precision", "fp32"}}},
          {"data", {{"dataset", dataset}, {"datasetRevision", 2}, {"cases", json::array({{{"split", "train"}}, {{"split", "validation"}}})}}},
          {"validations", json::array({{{"iteration", iteration}, {"meanDice", (dice1 + dice2) / 2},
                                        {"perClass", {{"1", dice1}, {"2", dice2}}}}})}};
}

}  // namespace

TEST_CASE("Model registry: every revision with its metrics, Dice per structure, two compared, one chosen as the engine",
          "[gui][train][share]") {
  test::guiApp();
  test::ScratchDir dir("gui-registry");
  fs::create_directories(dir.path() / "share");
  auto store = io::ShareStore::initialize((dir.path() / "share").string());
  REQUIRE(store.ok());
  test::writeTextFile(dir.path() / "w.pt", "weights");
  auto organs = io::ModelCheckpoints::open(*store, "organs");
  REQUIRE(organs.ok());
  REQUIRE(organs->saveFile((dir.path() / "w.pt").string(), io::SaveRequest{"ann", 0, "first", sidecar(100, 0.80, 0.50, "ct").dump()}, ".pt").ok());
  REQUIRE(organs->saveFile((dir.path() / "w.pt").string(), io::SaveRequest{"ann", 1, "final", sidecar(200, 0.85, 0.40, "ct").dump()}, ".pt").ok());
  auto other = io::ModelCheckpoints::open(*store, "abdomen");
  REQUIRE(other.ok());
  REQUIRE(other->saveFile((dir.path() / "w.pt").string(), io::SaveRequest{"bob", 0, "", sidecar(50, 0.60, 0.60, "abd").dump()}, ".pt").ok());

  QuietWindow window(QSize(1400, 900));
  {  // No share chosen: said, nothing listed.
    QSettings().remove("share/root");
    app::gui::ModelRegistryDialog* registry = window.showModelRegistry();
    QSignalSpy listed(registry, &app::gui::ModelRegistryDialog::listed);
    REQUIRE(waitFor(listed, 30000));
    CHECK(registry->models()->rowCount() == 0);
    CHECK(registry->summary()->text().startsWith("No share is open"));
    CHECK_FALSE(registry->useButton()->isEnabled());
    // A folder that is not a share: its path and the reason.
    QSettings().setValue("share/root", QString::fromStdString((dir.path() / "nothing").string()));
    listed.clear();
    registry->refresh();
    REQUIRE(waitFor(listed, 30000));
    CHECK(registry->models()->rowCount() == 0);
    CHECK(registry->summary()->text().contains("nothing"));
  }
  QSettings().setValue("share/root", QString::fromStdString((dir.path() / "share").string()));
  app::gui::ModelRegistryDialog* registry = window.showModelRegistry();  // the same dialog, listed again
  QSignalSpy listed(registry, &app::gui::ModelRegistryDialog::listed);
  REQUIRE(waitFor(listed, 30000));
  QTableWidget* models = registry->models();
  REQUIRE(models->rowCount() == 3);
  // By model name, newest revision first.
  CHECK(models->item(0, 0)->text() == "abdomen");
  CHECK(models->item(1, 0)->text() == "organs");
  CHECK(models->item(1, 1)->text() == "2");
  CHECK(models->item(2, 1)->text() == "1");
  CHECK(models->item(1, 4)->text() == "0.625");  // organs r2's own validation, not the run's best
  CHECK(models->item(1, 5)->text() == "ct v2 (1 train, 1 validation)");
  CHECK(models->item(1, 6)->text() == "200/200");
  CHECK(models->item(1, 7)->text() == "ann");
  CHECK(registry->reference(1) == "share:" + QString::fromStdString((dir.path() / "share").string()) + "#organs@2");

  // One revision: its structures by id and name.
  models->selectRow(1);
  QTableWidget* compare = registry->compare();
  REQUIRE(compare->rowCount() == 2);
  CHECK(compare->item(0, 0)->text() == "3");
  CHECK(compare->item(0, 1)->text() == "liver");
  CHECK(compare->item(0, 2)->text() == "0.850");
  CHECK(registry->summary()->text() == "organs r2: validation Dice 0.625 (structures: 2) at iteration 200; learnt from dataset ct "
                                       "version 2; saved by ann");
  CHECK(registry->useButton()->isEnabled());
  // Two revisions of one model: the older first, the difference the newer's gain, liver better and spleen worse.
  models->setRangeSelected(QTableWidgetSelectionRange(1, 0, 2, models->columnCount() - 1), true);
  REQUIRE(compare->columnCount() == 5);
  CHECK(compare->horizontalHeaderItem(2)->text() == "organs r1");
  CHECK(compare->horizontalHeaderItem(3)->text() == "organs r2");
  CHECK(compare->item(0, 4)->text() == "+0.050");
  CHECK(compare->item(1, 4)->text() == "-0.100");
  CHECK(compare->item(0, 4)->foreground().color() == QColor(0, 140, 0));
  CHECK(compare->item(1, 4)->foreground().color() == QColor(200, 0, 0));
  CHECK(registry->summary()->text() == "organs r2 against organs r1: validation Dice 0.625 and 0.650; structures better: 1, worse: 1");
  // Listed again (as when a run publishes): both stay chosen.
  listed.clear();
  registry->refresh();
  REQUIRE(waitFor(listed, 30000));
  CHECK(models->selectionModel()->selectedRows().size() == 2);
  CHECK(compare->columnCount() == 5);
  CHECK_FALSE(registry->useButton()->isEnabled());
  // Three: one or two, it says.
  models->selectAll();
  CHECK(compare->rowCount() == 0);
  CHECK(registry->summary()->text() == "Choose one revision, or two to compare");

  // Use as AI engine: the AI panel's model becomes that revision (listed even though it is not the newest).
  models->clearSelection();
  models->selectRow(2);
  QSignalSpy chosen(registry, &app::gui::ModelRegistryDialog::modelChosen);
  registry->useButton()->click();
  REQUIRE(chosen.count() == 1);
  CHECK(chosen.first().at(0).toString() == registry->reference(2));
  CHECK(QSettings().value("ai/model").toString() == registry->reference(2));
  CHECK(window.aiPanel()->modelChooser()->currentData().toString() == registry->reference(2));
  registry->close();
  QSettings().remove("ai/model");
  QSettings().remove("share/root");
}

// Issue 41: a revision saved between validations (stopped at 28, validated last at 20, by a delineate-train that did
// not validate when stopping) is listed as not validated, never with iteration 20's Dice or structures.
TEST_CASE("Model registry: weights saved between validations are not credited with an earlier validation",
          "[gui][train][share]") {
  test::guiApp();
  test::ScratchDir dir("gui-registry-unvalidated");
  fs::create_directories(dir.path() / "share");
  auto store = io::ShareStore::initialize((dir.path() / "share").string());
  REQUIRE(store.ok());
  test::writeTextFile(dir.path() / "w.pt", "weights");
  auto mice = io::ModelCheckpoints::open(*store, "mice");
  REQUIRE(mice.ok());
  REQUIRE(mice->saveFile((dir.path() / "w.pt").string(), io::SaveRequest{"ann", 0, "iteration 20 (best so far)", sidecar(20, 0.010, 0.006, "m").dump()}, ".pt").ok());
  json stopped = sidecar(20, 0.010, 0.006, "m");
  stopped["iteration"] = 28;
  stopped["training"]["iterations"] = 60;
  REQUIRE(mice->saveFile((dir.path() / "w.pt").string(), io::SaveRequest{"ann", 1, "iteration 28 (final)", stopped.dump()}, ".pt").ok());
  QSettings().setValue("share/root", QString::fromStdString((dir.path() / "share").string()));
  QuietWindow window(QSize(1400, 900));
  app::gui::ModelRegistryDialog* registry = window.showModelRegistry();
  QSignalSpy listed(registry, &app::gui::ModelRegistryDialog::listed);
  REQUIRE(waitFor(listed, 30000));
  while (registry->models()->rowCount() < 2 && listed.wait(10000)) {
  }
  QTableWidget* models = registry->models();
  REQUIRE(models->rowCount() == 2);
  CHECK(models->item(0, 1)->text() == "2");
  CHECK(models->item(0, 6)->text() == "28/60");
  CHECK(models->item(0, 4)->text() == "not validated");
  CHECK(models->item(0, 4)->toolTip().contains("the last validation, at iteration 20, measured earlier weights"));
  CHECK(models->item(1, 4)->text() == "0.008");  // r1: its own validation
  CHECK(models->item(1, 4)->toolTip().contains("Validated at iteration 20"));
  models->selectRow(0);
  CHECK(registry->compare()->rowCount() == 0);  // no structure table borrowed from r1
  CHECK(registry->summary()->text() ==
        "mice r2: not validated (iteration 28; the last validation, at iteration 20, measured earlier weights); learnt "
        "from dataset m version 2; saved by ann");
  models->clearSelection();
  models->setRangeSelected(QTableWidgetSelectionRange(0, 0, 1, models->columnCount() - 1), true);
  CHECK(registry->summary()->text() == "mice r2 against mice r1: validation Dice none (not validated) and 0.008; structures better: 0, worse: 0");
  registry->close();
  QSettings().remove("share/root");
}
