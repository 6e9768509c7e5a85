// Issue 26's loop with the real programs, in one window: two mouse subjects' labels approved on a share, a dataset of
// them, a short atlas training started from the Training dock on that dataset, its model chosen in the AI panel, a
// third subject opened from the share and segmented with it, a correction painted, and the result saved as that
// subject's new label revision.
#include <catch2/catch.hpp>

#include <QComboBox>
#include <QCoreApplication>
#include <QDockWidget>
#include <QLabel>
#include <QLineEdit>
#include <QSettings>
#include <QSignalSpy>
#include <QPushButton>
#include <QSpinBox>
#include <QTableWidget>

#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <set>

#include "app/gui/ai/ai_panel.h"
#include "app/gui/ai/model_registry.h"
#include "app/gui/editing/edit_tools.h"
#include "app/gui/shell/main_window.h"
#include "app/gui/study/session_files.h"
#include "app/gui/study/study_browser.h"
#include "app/gui/study/study_document.h"
#include "app/gui/study/study_loader.h"
#include "app/gui/training/training_panel.h"
#include "app/gui/training/training_run.h"
#include "core/label_patch.h"
#include "io/base/process_info.h"
#include "io/share/share_revisions.h"
#include "io/share/share_store.h"
#include "tests/common/test_support.h"
#include "tests/gui/gui_fixtures.h"
#include "tests/gui_support/gui_app.h"

using namespace delineate;
using test::QuietWindow;
using test::waitFor;
namespace fs = std::filesystem;

namespace {

// delineate-cli with `args`: its exit code and stdout.
std::pair<int, std::string> cli(const std::string& args) {
  const std::string command = std::string(DELINEATE_CLI_PATH) + " " + args + " 2>&1";
  std::FILE* pipe = ::popen(command.c_str(), "r");
  std::string out;
  char buf[4096];
  for (std::size_t n; pipe && (n = std::fread(buf, 1, sizeof buf, pipe)) > 0;) out.append(buf, n);
  const int status = pipe ? ::pclose(pipe) : -1;
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

std::string q(const std::string& s) { return "'" + s + "'"; }

}  // namespace

TEST_CASE("Training loop in the window: approved labels, a dataset, training from the dock, the model segments a new "
          "subject, a correction saved as its next revision", "[gui][train][share]") {
  test::guiApp();
  test::ScratchDir dir("gui-training-loop");
  const auto data = test::mouseTraining(dir.path());
  if (!data) return;
  const std::string root = data->share.string();
  // The share: three subjects imported as studies, the first two with labels submitted by ann and approved by bob.
  for (int i = 1; i <= 3; ++i) {
    const auto r = cli("study import " + q(root) + " " + q(data->subject("template", i)) + " --study mouse" + std::to_string(i) +
                       " --modality MR");
    INFO(r.second);
    REQUIRE(r.first == 0);
  }
  for (int i = 1; i <= 2; ++i) {
    const std::string study = "mouse" + std::to_string(i);
    for (const std::string& args : {"share save " + q(root) + " " + study + " atlas " + q(data->subject("label", i)) + " --author ann",
                                    "review submit " + q(root) + " " + study + " atlas 1 --user ann",
                                    "review approve " + q(root) + " " + study + " atlas 1 --user bob"}) {
      const auto r = cli(args);
      INFO(args << "\n" << r.second);
      REQUIRE(r.first == 0);
    }
  }
  const auto shown = cli("study show " + q(root) + " mouse3 --json");
  REQUIRE(shown.first == 0);
  const std::string series3 = nlohmann::json::parse(shown.second).at("series").at(0).at("series").get<std::string>();

  QSettings().setValue("share/root", QString::fromStdString(root));
  QSettings().remove("ai/model");
  QSettings().setValue("user/name", "Grace Hopper");  // one author for the window and delineate-train (issue 41)
  {
    QuietWindow window(QSize(1500, 950));
    app::gui::TrainingPanel* panel = window.trainingPanel();
    QSignalSpy datasets(panel, &app::gui::TrainingPanel::datasetsListed);
    REQUIRE(waitFor(datasets));
    panel->findChild<QLineEdit*>("train-name")->clear();  // not the last run's (another test's, in one process)

    // The dataset from the study browser: all three subjects chosen, approved revisions only (mouse3 has none).
    {
      app::gui::StudyBrowserDialog browser(&window);
      QSignalSpy refreshed(&browser, &app::gui::StudyBrowserDialog::refreshed);
      REQUIRE(browser.setRoot(QString::fromStdString(root)));
      REQUIRE(waitFor(refreshed, 30000));
      while (browser.shownRows() < 3 && refreshed.wait(10000)) {
      }
      REQUIRE(browser.shownRows() == 3);
      CHECK_FALSE(browser.makeDatasetButton()->isEnabled());
      browser.table()->selectAll();
      CHECK(browser.selectedStudies() == QStringList({"mouse1", "mouse2", "mouse3"}));
      CHECK(browser.makeDatasetButton()->isEnabled());
      QSignalSpy saved(&browser, &app::gui::StudyBrowserDialog::datasetSaved);
      QSignalSpy listedAgain(panel, &app::gui::TrainingPanel::datasetsListed);
      QObject::connect(&browser, &app::gui::StudyBrowserDialog::datasetSaved, panel, [panel] { panel->refreshDatasets(); });
      REQUIRE(browser.makeDataset("mice", "atlas", true, 50));
      REQUIRE(waitFor(saved, 30000));
      INFO(browser.datasetMessage().toStdString());
      CHECK(saved.first().at(1).toInt() == 1);
      CHECK(browser.datasetMessage().contains("2 entries (1 train, 1 validation)"));
      CHECK(browser.datasetMessage().contains("mouse3: has no label set atlas"));
      REQUIRE(waitFor(listedAgain));
      // A study taken out of the choice with Ctrl+click stays current but not chosen: the next refill keeps it out.
      int row3 = -1;
      const int studyColumn = browser.table()->columnCount() - 1;
      for (int r = 0; r < browser.table()->rowCount(); ++r)
        if (browser.table()->item(r, studyColumn)->text() == "mouse3") row3 = r;
      REQUIRE(row3 >= 0);
      const QModelIndex third = browser.table()->model()->index(row3, 0);
      browser.table()->selectionModel()->setCurrentIndex(third, QItemSelectionModel::NoUpdate);
      browser.table()->selectionModel()->select(third, QItemSelectionModel::Deselect | QItemSelectionModel::Rows);
      CHECK(browser.selectedStudies() == QStringList({"mouse1", "mouse2"}));
      refreshed.clear();
      REQUIRE(waitFor(refreshed, 30000));
      CHECK(browser.selectedStudies() == QStringList({"mouse1", "mouse2"}));
    }
    // Saved as `dataset create --from-approved atlas --split 50:50:0` would have: the same entries and splits.
    const auto described = cli("dataset show " + q(root) + " mice --json");
    INFO(described.second);
    REQUIRE(described.first == 0);
    const auto entries = nlohmann::json::parse(described.second).at("entries");
    REQUIRE(entries.size() == 2);
    CHECK(entries.at(0).at("study") == "mouse1");
    CHECK(entries.at(1).at("study") == "mouse2");
    CHECK(entries.at(0).at("split") != entries.at(1).at("split"));
    auto* dataset = panel->findChild<QComboBox*>("train-dataset");
    const int mice = dataset->findData("mice");
    REQUIRE(mice > 0);
    dataset->setCurrentIndex(mice);
    CHECK(panel->findChild<QLineEdit*>("train-name")->text() == "mice-model");  // named after the dataset
    panel->findChild<QLineEdit*>("train-labels")->setText(QString::fromStdString(data->table.string()));
    panel->findChild<QSpinBox*>("train-iterations")->setValue(8);
    panel->findChild<QSpinBox*>("train-validation")->setValue(4);
    panel->findChild<QLineEdit*>("train-advanced")->setText("--init-filters 4 --patch 32,32,32 --threads 1 --seed 7");
    QSignalSpy trained(panel, &app::gui::TrainingPanel::runFinished);
    QSignalSpy listed(window.aiPanel(), &app::gui::AiPanel::modelsListed);
    REQUIRE(panel->startRun());
    REQUIRE(waitFor(trained, 180000));
    INFO(panel->findChild<QLabel*>("train-status")->text().toStdString());
    REQUIRE(trained.first().at(0).toBool());
    CHECK(panel->run().state().validations.size() == 2);  // on the dataset's validation case

    // The model in the AI panel's chooser and in the registry, with its metrics and the dataset it learnt from.
    listed.clear();
    REQUIRE(waitFor(listed));
    QComboBox* chooser = window.aiPanel()->modelChooser();
    int model = -1;
    for (int i = 0; i < chooser->count(); ++i)
      if (chooser->itemText(i).startsWith("mice-model r")) model = i;
    REQUIRE(model > 0);
    app::gui::ModelRegistryDialog* registry = window.showModelRegistry();
    QSignalSpy registryListed(registry, &app::gui::ModelRegistryDialog::listed);
    REQUIRE(waitFor(registryListed, 30000));
    QTableWidget* models = registry->models();
    REQUIRE(models->rowCount() >= 2);  // the best so far and the final revision, at least
    CHECK(models->item(0, 0)->text() == "mice-model");
    CHECK(models->item(0, 2)->text().startsWith("SegResNetDS (cpu"));
    CHECK(models->item(0, 5)->text() == "mice v1 (1 train, 1 validation)");
    CHECK(models->item(0, 7)->text() == "Grace Hopper");
    models->selectRow(0);
    CHECK(registry->compare()->rowCount() == 37);  // the best validation's structures
    CHECK(registry->summary()->text().startsWith("mice-model r"));
    // Two revisions compared structure by structure.
    models->setRangeSelected(QTableWidgetSelectionRange(0, 0, 1, models->columnCount() - 1), true);
    CHECK(registry->compare()->columnCount() == 5);
    CHECK(registry->summary()->text().startsWith("mice-model r2 against mice-model r1: "));
    CHECK(registry->compare()->horizontalHeaderItem(2)->text() == "mice-model r1");
    CHECK(registry->summary()->text().contains("structures better: "));
    CHECK_FALSE(registry->useButton()->isEnabled());  // one at a time

    // Next case: the model ranks the subjects without approved labels (mouse3 only) and the window opens it.
    QSignalSpy loaded(&window, &app::gui::MainWindow::studyLoaded);
    QSignalSpy engine(window.aiPanel(), &app::gui::AiPanel::engineChanged);
    QSignalSpy ranked(panel, &app::gui::TrainingPanel::ranked);
    REQUIRE(panel->rankNextCase());
    REQUIRE(waitFor(ranked, 120000));
    INFO(panel->findChild<QLabel*>("train-status")->text().toStdString());
    REQUIRE(ranked.first().at(0).toBool());
    REQUIRE(panel->rankedCases().size() == 1);
    CHECK(panel->rankedCases().front().study == "mouse3");
    CHECK(panel->rankedCases().front().score > 0);
    CHECK(panel->findChild<QTableWidget*>("train-ranking")->rowCount() == 1);
    REQUIRE(waitFor(loaded, 120000));
    CHECK(window.document().shareTarget().study == "mouse3");
    REQUIRE(waitFor(engine));
    // The newest revision chosen in the registry as the engine.
    engine.clear();
    models->clearSelection();
    models->selectRow(0);
    REQUIRE(registry->useButton()->isEnabled());
    registry->useButton()->click();
    REQUIRE(waitFor(engine, 120000));
    CHECK(window.aiPanel()->engineDescription().contains("atlas"));
    CHECK(chooser->currentData().toString() == registry->reference(0));
    registry->close();
    QSignalSpy segmented(window.aiPanel(), &app::gui::AiPanel::segmentationFinished);
    REQUIRE(window.aiPanel()->segmentEverything());
    REQUIRE(waitFor(segmented, 120000));
    REQUIRE(segmented.first().at(0).toBool());

    // A correction painted into the hippocampus (label 1): one undo step, as a brush stroke is.
    core::LabelPatch stroke;
    stroke.box = core::IndexBox{{50, 60, 36}, {57, 67, 39}};
    stroke.voxels.assign(static_cast<std::size_t>(stroke.box.voxelCount()), 1);
    REQUIRE(window.editTools()->applyPatch(stroke, "brush", false));
    REQUIRE(window.document().session()->isDirty());
    const core::LabelMap labels = window.document().session()->labels();

    // Saved as mouse3's next label revision, and read back from the share as it was in the window.
    REQUIRE(window.sessionFiles()->saveToShareAs(
        app::gui::ShareTarget{QString::fromStdString(root), "mouse3", "atlas", 0, QString::fromStdString(series3)}, "atlas model, corrected"));
    CHECK_FALSE(window.document().session()->isDirty());
    auto store = io::ShareStore::open(root);
    REQUIRE(store.ok());
    auto set = io::LabelSetRevisions::open(*store, "mouse3", "atlas");
    REQUIRE(set.ok());
    auto list = set->list();
    REQUIRE(list.ok());
    REQUIRE(list->revisions.size() == 1);
    CHECK(list->revisions.front().message == "atlas model, corrected");
    auto saved = set->loadLabels(1);
    REQUIRE(saved.ok());
    REQUIRE(saved->size() == labels.size());
    CHECK(std::equal(saved->data(), saved->data() + saved->size(), labels.data()));
    std::set<core::Label> ids(saved->data(), saved->data() + saved->size());
    CHECK(ids.size() > 2);  // the model's structures and the correction
    CHECK(saved->at({53, 63, 37}) == 1);
    if (const char* keep = std::getenv("DELINEATE_KEEP_SCREENSHOTS")) {
      window.screenshot().save(QString(keep) + "/training-loop.png");
      registry->show();
      models->setRangeSelected(QTableWidgetSelectionRange(0, 0, 1, models->columnCount() - 1), true);
      QCoreApplication::processEvents();
      registry->grab().save(QString(keep) + "/model-registry.png");
      if (auto* dock = test::enclosingDock(panel)) dock->raise();
      QCoreApplication::processEvents();
      panel->grab().save(QString(keep) + "/training-dock-next-case.png");
    }
  }
  QSettings().remove("ai/model");
  QSettings().remove("share/root");
  QSettings().remove("user/name");
}
