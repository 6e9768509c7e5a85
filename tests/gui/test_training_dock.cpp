// The Training dock (issue 26, first part): a short atlas run on two mouse subjects started from the dock runs the
// real delineate-train as a child process, its progress and plots follow the JSON lines, the per-structure Dice table
// names the structures, the model lands on the share and the AI panel lists it; Stop saves and ends a run, Resume
// continues it from that checkpoint.
#include <catch2/catch.hpp>

#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QCoreApplication>
#include <QDockWidget>
#include <QLabel>
#include <QLineEdit>
#include <QLineSeries>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableWidget>
#include <QTest>
#include <QTimer>
#include <QInputDialog>
#include <QApplication>

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "app/gui/ai/ai_panel.h"
#include "app/gui/ai/model_registry.h"
#include "app/gui/editing/edit_tools.h"
#include "app/gui/shell/main_window.h"
#include "app/gui/training/training_panel.h"
#include "app/gui/training/training_run.h"
#include "io/base/sealed_file.h"
#include "io/base/sealed_stream.h"
#include "io/share/share_datasets.h"
#include "io/share/share_store.h"
#include "tests/common/test_support.h"
#include "tests/gui/gui_fixtures.h"
#include "tests/gui_support/gui_app.h"

using namespace delineate;
using test::QuietWindow;
using test::waitFor;
namespace fs = std::filesystem;

namespace {

QLineSeries* seriesOf(app::gui::TrainingPanel* panel, const char* name) {
  auto* view = panel->findChild<QChartView*>(name);
  REQUIRE(view != nullptr);
  REQUIRE(view->chart()->series().size() == 1);
  return qobject_cast<QLineSeries*>(view->chart()->series().front());
}

}  // namespace

TEST_CASE("Training dock: an atlas run from the dock with live progress and plots, its model in the AI panel, "
          "Stop and Resume", "[gui][train]") {
  test::guiApp();
  test::ScratchDir dir("gui-training");
  const auto data = test::mouseTraining(dir.path());
  if (!data) return;
  const fs::path share = data->share;
  const auto table = std::optional<fs::path>(data->table);
  QSettings().setValue("share/root", QString::fromStdString(share.string()));
  QSettings().remove("ai/model");
  // The preferences' author: what the checkpoints the child process publishes name (issue 41), not the login.
  QSettings().setValue("user/name", "Ada Lovelace");
  {
    QuietWindow window(QSize(1500, 950));
    app::gui::TrainingPanel* panel = window.trainingPanel();
    REQUIRE(panel != nullptr);
    panel->findChild<QLineEdit*>("train-cases")->setText(QString::fromStdString((dir / "cases.json").string()));
    panel->findChild<QLineEdit*>("train-name")->setText("mouse-atlas");
    panel->findChild<QLineEdit*>("train-labels")->setText(QString::fromStdString(table->string()));
    panel->findChild<QSpinBox*>("train-iterations")->setValue(8);
    panel->findChild<QSpinBox*>("train-validation")->setValue(4);
    panel->findChild<QLineEdit*>("train-advanced")->setText("--init-filters 4 --patch 32,32,32 --threads 1 --seed 7");
    QSignalSpy progressed(&panel->run(), &app::gui::TrainingRun::progressed);
    QSignalSpy finished(panel, &app::gui::TrainingPanel::runFinished);
    QSignalSpy listed(window.aiPanel(), &app::gui::AiPanel::modelsListed);
    // The first validation alone on the plot is seen: a marker, in the series' colour (a line needs two points).
    auto* dock = test::enclosingDock(panel);
    REQUIRE(dock != nullptr);
    dock->raise();
    QCoreApplication::processEvents();
    int singlePointPixels = -1;
    QObject::connect(&panel->run(), &app::gui::TrainingRun::progressed, panel, [&] {
      if (singlePointPixels >= 0 || panel->run().state().validations.size() != 1) return;
      QLineSeries* dice = seriesOf(panel, "train-dice-chart");
      REQUIRE(dice->count() == 1);
      const QImage image = panel->findChild<QChartView*>("train-dice-chart")->grab().toImage();
      const QColor c = dice->color();
      singlePointPixels = 0;
      for (int y = 0; y < image.height(); ++y)
        for (int x = 0; x < image.width(); ++x) {
          const QColor p = image.pixelColor(x, y);
          singlePointPixels += std::abs(p.red() - c.red()) + std::abs(p.green() - c.green()) + std::abs(p.blue() - c.blue()) < 40;
        }
    });
    REQUIRE(panel->startRun());
    CHECK_FALSE(panel->findChild<QPushButton*>("train-start")->isEnabled());
    CHECK(panel->findChild<QPushButton*>("train-stop")->isEnabled());
    REQUIRE(waitFor(finished, 180000));
    INFO(panel->findChild<QLabel*>("train-status")->text().toStdString());
    REQUIRE(finished.first().at(0).toBool());
    const app::gui::TrainingState& s = panel->run().state();
    CHECK(s.outcome == "done");
    CHECK(s.iteration == 8);
    CHECK(s.device == "cpu");
    CHECK(progressed.count() >= 2);
    CHECK(s.labels.size() == 37);
    CHECK(panel->findChild<QLabel*>("train-status")->text().contains("done after 8 iterations"));
    // The plots and the table follow the run: every report's loss, both validations, every structure by name.
    CHECK(seriesOf(panel, "train-loss-chart")->count() == static_cast<int>(s.losses.size()));
    CHECK(seriesOf(panel, "train-loss-chart")->count() >= 2);
    CHECK(seriesOf(panel, "train-dice-chart")->count() == 2);
    CHECK(singlePointPixels > 10);
    auto* classes = panel->findChild<QTableWidget*>("train-classes");
    REQUIRE(classes->rowCount() == 37);
    CHECK(classes->item(0, 0)->text() == "1");
    CHECK(classes->item(0, 1)->text() == "Left Hippocampus");
    CHECK(classes->item(0, 2)->text().toDouble() >= 0);
    CHECK(panel->findChild<QPushButton*>("train-start")->isEnabled());
    // The model is on the share and the AI panel lists it.
    REQUIRE(waitFor(listed));
    while (listed.count() < 2 && listed.wait(10000)) {
    }
    QComboBox* chooser = window.aiPanel()->modelChooser();
    bool found = false;
    for (int i = 0; i < chooser->count(); ++i) found = found || chooser->itemText(i).startsWith("mouse-atlas r");
    CHECK(found);
    dock->raise();
    QCoreApplication::processEvents();
    window.screenshot().save(QString::fromStdString((dir / "training-dock.png").string()));
    if (const char* keep = std::getenv("DELINEATE_KEEP_SCREENSHOTS")) window.screenshot().save(QString(keep) + "/training-dock.png");

    // Issue 41: Resume with more iterations continues the plots and the table (its validations at 4 and 8 stay), Stop
    // says at once that it is stopping, and the weights it stops with, between validations, are validated before they
    // are saved: the registry credits that revision with its own Dice, under the preferences' author.
    {
      const auto before = s.validations;
      const auto losses = s.losses.size();
      panel->findChild<QSpinBox*>("train-iterations")->setValue(2000);
      panel->findChild<QSpinBox*>("train-validation")->setValue(1000);
      finished.clear();
      progressed.clear();
      REQUIRE(panel->startRun(true));
      CHECK(panel->run().state().validations == before);
      CHECK(seriesOf(panel, "train-dice-chart")->count() == 2);
      CHECK(seriesOf(panel, "train-loss-chart")->count() == static_cast<int>(losses));
      CHECK(classes->rowCount() == 37);
      INFO("resumed: " << panel->findChild<QLabel*>("train-status")->text().toStdString());
      REQUIRE(waitFor(progressed, 120000));
      panel->stopRun();
      auto* stop = panel->findChild<QPushButton*>("train-stop");
      CHECK_FALSE(stop->isEnabled());
      CHECK(stop->text() == "Stopping...");
      CHECK(panel->findChild<QLabel*>("train-status")->text().startsWith("Stopping"));
      REQUIRE(waitFor(finished, 120000));
      INFO("after Stop: " << panel->findChild<QLabel*>("train-status")->text().toStdString());
      REQUIRE(finished.first().at(0).toBool());
      const app::gui::TrainingState& r = panel->run().state();
      CHECK(r.outcome == "cancelled");
      const int stopped = r.iteration;
      REQUIRE(stopped > 8);
      REQUIRE(stopped < 1000);
      REQUIRE(r.validations.size() == 3);
      CHECK(r.validations[0] == before[0]);
      CHECK(r.validations[1] == before[1]);
      CHECK(r.validations[2].first == stopped);  // the stopped weights' own validation
      CHECK(seriesOf(panel, "train-dice-chart")->count() == 3);
      CHECK(seriesOf(panel, "train-loss-chart")->count() > static_cast<int>(losses));
      CHECK(stop->text() == "Stop");
      // Its sidecar says which weights the validation measured: these. The window's run folder is sealed at rest
      // (delineate-train --seal): weights and sidecars read as their content only through io.
      const std::string stem = panel->run().request().output.toStdString() + "/checkpoints/it" +
                               QString("%1").arg(stopped, 7, 10, QChar('0')).toStdString();
      CHECK(io::isSealedFile(stem + ".pt"));
      CHECK(io::isSealedFile(stem + ".json"));
      auto in = io::openContentStream(stem + ".json", "sidecar");
      REQUIRE(in.ok());
      const auto sidecar = nlohmann::json::parse(**in);
      CHECK(sidecar.at("iteration") == stopped);
      CHECK(sidecar.at("validatedIteration") == stopped);
      // The registry: the newest revision is the stopped one, with its own Dice, saved by the preferences' author.
      app::gui::ModelRegistryDialog* registry = window.showModelRegistry();
      QSignalSpy registryListed(registry, &app::gui::ModelRegistryDialog::listed);
      registry->refresh();
      REQUIRE(waitFor(registryListed, 30000));
      QTableWidget* models = registry->models();
      REQUIRE(models->rowCount() >= 2);
      CHECK(models->item(0, 0)->text() == "mouse-atlas");
      CHECK(models->item(0, 6)->text() == QString("%1/2000").arg(stopped));
      CHECK(models->item(0, 4)->text() == QString::number(r.validations[2].second, 'f', 3));
      CHECK(models->item(0, 7)->text() == "Ada Lovelace");
      models->selectRow(0);
      CHECK(registry->compare()->rowCount() == 37);
      registry->close();
    }

    // Stop saves and ends a longer run; Resume continues it from that checkpoint.
    panel->findChild<QLineEdit*>("train-name")->setText("mouse-atlas-long");
    panel->findChild<QSpinBox*>("train-iterations")->setValue(2000);
    panel->findChild<QSpinBox*>("train-validation")->setValue(1000);
    finished.clear();
    progressed.clear();
    REQUIRE(panel->startRun());
    REQUIRE(waitFor(progressed, 120000));
    panel->stopRun();
    REQUIRE(waitFor(finished, 120000));
    INFO("after Stop: " << panel->findChild<QLabel*>("train-status")->text().toStdString());
    CHECK(finished.first().at(0).toBool());
    CHECK(panel->run().state().outcome == "cancelled");
    const int stoppedAt = panel->run().state().iteration;
    CHECK(stoppedAt > 0);
    finished.clear();
    progressed.clear();
    REQUIRE(panel->startRun(true));
    REQUIRE(waitFor(progressed, 120000));
    CHECK(panel->run().state().iteration > stoppedAt);  // from the saved checkpoint, not from 0
    // The window closes and the run is kept: a process of its own, it goes on.
    panel->run().setKeepOnClose(true);
  }
  {
    // A new window follows it again: its log so far replayed, new progress read, and Stop still reaches it.
    QuietWindow window(QSize(1500, 950));
    app::gui::TrainingPanel* panel = window.trainingPanel();
    REQUIRE(panel->run().running());
    CHECK(panel->run().request().modelName == "mouse-atlas-long");
    CHECK(panel->findChild<QLineEdit*>("train-name")->text() == "mouse-atlas-long");
    CHECK_FALSE(panel->findChild<QPushButton*>("train-start")->isEnabled());
    QSignalSpy progressed(&panel->run(), &app::gui::TrainingRun::progressed);
    QSignalSpy finished(panel, &app::gui::TrainingPanel::runFinished);
    REQUIRE(waitFor(progressed, 120000));
    CHECK(panel->run().state().iterations == 2000);
    CHECK(panel->run().state().losses.size() >= 2);
    panel->stopRun();
    REQUIRE(waitFor(finished, 120000));
    CHECK(finished.first().at(0).toBool());
    CHECK(panel->run().state().outcome == "cancelled");
    CHECK_FALSE(panel->run().running());
  }
  CHECK(app::gui::TrainingRun::runningRuns().isEmpty());
  {
    // Ended while no window followed it: a new window shows that last run, its plots and outcome, nothing running.
    QuietWindow window(QSize(1500, 950));
    app::gui::TrainingPanel* panel = window.trainingPanel();
    CHECK_FALSE(panel->run().running());
    CHECK(panel->run().request().modelName == "mouse-atlas-long");
    CHECK(panel->run().state().outcome == "cancelled");
    CHECK(panel->run().state().iterations == 2000);
    CHECK(panel->findChild<QLabel*>("train-status")->text().startsWith("Last run mouse-atlas-long: stopped (checkpoint saved) after "));
    CHECK(seriesOf(panel, "train-loss-chart")->count() == static_cast<int>(panel->run().state().losses.size()));
    CHECK(seriesOf(panel, "train-loss-chart")->count() >= 2);
    CHECK(panel->run().state().residentBytes > 10e6);  // the training process's memory, reported with its progress
    CHECK(panel->run().state().deviceUsedBytes == 0);  // on the CPU
    CHECK(panel->findChild<QPushButton*>("train-start")->isEnabled());
  }
  QSettings().remove("ai/model");
  QSettings().remove("share/root");
  QSettings().remove("user/name");
}

// Issue 41: the dock's form as a user meets it. Choosing a dataset of the share never moves the fields below under the
// pointer; the device says what its defaults are (64^3 patches on the CPU, which make CPU training feasible); letters
// typed into the dock's fields (and every text field and spin box of the window) stay there instead of switching
// tools (E was the eraser).
TEST_CASE("Training dock: a stable form, the device's defaults said, typed text kept from the window's shortcuts",
          "[gui][train]") {
  test::guiApp();
  test::ScratchDir dir("gui-training-form");
  fs::create_directories(dir.path() / "share");
  auto store = io::ShareStore::initialize((dir.path() / "share").string());
  REQUIRE(store.ok());
  {  // A dataset on the share, as Make Dataset saves one.
    auto set = io::DatasetRevisions::open(*store, "mice");
    REQUIRE(set.ok());
    io::Dataset d;
    d.source = "test";
    d.entries.push_back({"mouse1", "atlas", 1, std::string(64, 'a'), "train"});
    io::SaveRequest request;
    request.author = "ann";
    REQUIRE(set->saveDataset(d, request).ok());
  }
  QSettings().setValue("share/root", QString::fromStdString((dir.path() / "share").string()));
  QuietWindow window(QSize(1500, 950));
  app::gui::TrainingPanel* panel = window.trainingPanel();
  QSignalSpy datasets(panel, &app::gui::TrainingPanel::datasetsListed);
  REQUIRE(waitFor(datasets));
  auto* dock = test::enclosingDock(panel);
  REQUIRE(dock != nullptr);
  dock->raise();
  QCoreApplication::processEvents();

  // The fields below the data source keep their place when a dataset replaces the case list file.
  auto* dataset = panel->findChild<QComboBox*>("train-dataset");
  const int mice = dataset->findData("mice");
  REQUIRE(mice > 0);
  dataset->setCurrentIndex(0);
  QCoreApplication::processEvents();
  auto place = [panel](const char* name) { return panel->findChild<QWidget*>(name)->mapTo(panel, QPoint(0, 0)); };
  const QPoint name = place("train-name"), iterations = place("train-iterations"), start = place("train-start");
  dataset->setCurrentIndex(mice);
  QCoreApplication::processEvents();
  CHECK_FALSE(panel->findChild<QLineEdit*>("train-cases")->isVisible());
  CHECK(place("train-name") == name);
  CHECK(place("train-iterations") == iterations);
  CHECK(place("train-start") == start);
  // VISTA-3D's checkpoint field shows without moving them either.
  panel->findChild<QComboBox*>("train-model")->setCurrentIndex(1);
  QCoreApplication::processEvents();
  CHECK(panel->findChild<QLineEdit*>("train-checkpoint")->isVisible());
  CHECK(place("train-iterations") == iterations);
  panel->findChild<QComboBox*>("train-model")->setCurrentIndex(0);
  QCoreApplication::processEvents();

  // The device's defaults, said where it is chosen.
  auto* device = panel->findChild<QComboBox*>("train-device");
  auto* hint = panel->findChild<QLabel*>("train-device-hint");
  REQUIRE(hint != nullptr);
  device->setCurrentIndex(device->findData("cpu"));
  QCoreApplication::processEvents();
  CHECK(hint->text().contains("64x64x64"));
  CHECK(hint->text().contains("smaller patches make training on the CPU feasible"));
  CHECK(place("train-start") == start);
  device->setCurrentIndex(device->findData("cuda"));
  QCoreApplication::processEvents();
  CHECK(hint->text().contains("128"));
  CHECK(place("train-start") == start);  // the hint's two lines never push the buttons
  device->setCurrentIndex(device->findData("cpu"));

  // Letters typed into the dock's fields are text, never the window's one-key shortcuts.
  window.activateWindow();
  app::gui::EditTools* tools = window.editTools();
  tools->setTool(app::gui::EditTools::Tool::Navigate);
  for (const char* field : {"train-name", "train-advanced", "train-labels"}) {
    auto* edit = panel->findChild<QLineEdit*>(field);
    edit->clear();
    edit->setFocus();
    QCoreApplication::processEvents();
    QTest::keyClicks(edit, "Eben");
    CHECK(edit->text() == "Eben");
    CHECK(tools->tool() == app::gui::EditTools::Tool::Navigate);
  }
  auto* count = panel->findChild<QSpinBox*>("train-iterations");
  count->setFocus();
  QCoreApplication::processEvents();
  QTest::keyClick(count, Qt::Key_E);
  QTest::keyClick(count, Qt::Key_B);
  CHECK(tools->tool() == app::gui::EditTools::Tool::Navigate);
  // The shortcut itself still works where no text is typed (a window shortcut needs the window active: wait for it,
  // as the editing tests do, or the key can come before the activation and be lost).
  window.activateWindow();
  REQUIRE(QTest::qWaitForWindowActive(&window));
  window.setFocus();
  QCoreApplication::processEvents();
  QTest::keyClick(&window, Qt::Key_E);
  CHECK(tools->tool() == app::gui::EditTools::Tool::Eraser);
  tools->setTool(app::gui::EditTools::Tool::Navigate);
  QSettings().remove("share/root");
}

// Issue 41 walk-through: a named model trained from a case list with no share open used to fail at once
// ("--model-name publishes to a share"); it trains, keeps its checkpoints in its run folder and the dock says so.
TEST_CASE("Training dock: with no share open a named model trains into its run folder and the dock says it is unpublished",
          "[gui][train]") {
  test::guiApp();
  test::ScratchDir dir("gui-training-noshare");
  const auto data = test::mouseTraining(dir.path());
  if (!data) return;
  QSettings().remove("share/root");
  QSettings().setValue("user/name", "Ada Lovelace");
  QuietWindow window(QSize(1500, 950));
  app::gui::TrainingPanel* panel = window.trainingPanel();
  panel->findChild<QLineEdit*>("train-cases")->setText(QString::fromStdString(data->cases.string()));
  panel->findChild<QLineEdit*>("train-name")->setText("no-share-model");
  panel->findChild<QSpinBox*>("train-iterations")->setValue(2);
  panel->findChild<QSpinBox*>("train-validation")->setValue(2);
  panel->findChild<QLineEdit*>("train-advanced")->setText("--init-filters 4 --patch 32,32,32 --threads 1 --seed 7");
  QSignalSpy finished(panel, &app::gui::TrainingPanel::runFinished);
  REQUIRE(panel->startRun(false));
  REQUIRE(test::waitFor(finished, 240000));
  INFO(panel->findChild<QLabel*>("train-status")->text().toStdString());
  CHECK(finished.front().front().toBool());
  const QString status = panel->findChild<QLabel*>("train-status")->text();
  CHECK(status.contains("not published"));
  CHECK(status.contains(panel->run().request().output));
  bool checkpoint = false;
  for (const auto& e : fs::recursive_directory_iterator(panel->run().request().output.toStdString()))
    checkpoint = checkpoint || e.path().extension() == ".pt";
  CHECK(checkpoint);
}

// Issue 41 walk-through: a run started with no author name published its checkpoints as "saved by unknown"; like a
// save, starting a run that publishes to the share asks for the name first, and the run carries it.
TEST_CASE("Training dock: starting a run that publishes with no author name asks for one and the run carries it",
          "[gui][train][author]") {
  test::guiApp();
  test::ScratchDir dir("gui-training-author");
  const QVariant previousAuthor = QSettings().value("user/name");
  const fs::path share = dir / "share";
  fs::create_directories(share);
  REQUIRE(io::ShareStore::initialize(share.string()).ok());
  QSettings().setValue("share/root", QString::fromStdString(share.string()));
  QSettings().remove("user/name");
  QuietWindow window(QSize(1500, 950));
  app::gui::TrainingPanel* panel = window.trainingPanel();
  panel->findChild<QLineEdit*>("train-cases")->setText(QString::fromStdString((dir / "missing-cases.json").string()));
  panel->findChild<QLineEdit*>("train-name")->setText("asked-model");

  window.setDialogsEnabled(true);
  bool asked = false;
  int answers = 0;
  QTimer driver;
  QObject::connect(&driver, &QTimer::timeout, [&] {
    QWidget* modal = QApplication::activeModalWidget();
    if (!modal) return;
    if (auto* ask = qobject_cast<QInputDialog*>(modal); ask && ask->objectName() == "author-dialog") {
      asked = true;
      ask->setTextValue(++answers == 1 ? "" : "Dr Trainer");  // an empty name first: refused, nothing started
      ask->accept();
      return;
    }
    if (auto* dialog = qobject_cast<QDialog*>(modal)) dialog->reject();
  });
  driver.start(30);
  CHECK_FALSE(panel->startRun(false));
  CHECK(asked);
  CHECK_FALSE(panel->run().running());
  CHECK(QSettings().value("user/name").toString().isEmpty());
  QSignalSpy finished(panel, &app::gui::TrainingPanel::runFinished);
  REQUIRE(panel->startRun(false));
  CHECK(panel->run().request().author == "Dr Trainer");
  CHECK(QSettings().value("user/name").toString() == "Dr Trainer");
  CHECK(test::waitFor(finished, 60000));  // the missing case list ends the run
  driver.stop();
  window.setDialogsEnabled(false);
  QSettings().setValue("user/name", previousAuthor);
}

TEST_CASE("Training dock: a run for a Slurm cluster asks for a folder the nodes mount before anything is submitted",
          "[gui][train]") {
  test::guiApp();
  test::ScratchDir dir("gui-training-slurm-folder");
  QSettings().remove("training/clusterFolder");
  QuietWindow window(QSize(1500, 950));
  app::gui::TrainingPanel* panel = window.trainingPanel();
  REQUIRE(panel != nullptr);
  auto* where = panel->findChild<QComboBox*>("train-where");
  REQUIRE(where != nullptr);
  auto* folder = panel->findChild<QLineEdit*>("train-cluster-folder");
  auto* slurm = panel->findChild<QLineEdit*>("train-slurm");
  REQUIRE(folder != nullptr);
  REQUIRE(slurm != nullptr);
  auto* dock = test::enclosingDock(panel);
  REQUIRE(dock != nullptr);
  dock->raise();
  QCoreApplication::processEvents();
  CHECK_FALSE(folder->isVisible());  // only for a cluster run
  where->setCurrentIndex(where->findData("slurm"));
  QCoreApplication::processEvents();
  CHECK(folder->isVisible());
  CHECK(slurm->isVisible());
  panel->findChild<QLineEdit*>("train-cases")->setText(QString::fromStdString((dir / "cases.json").string()));
  folder->setText("relative/folder");
  CHECK_FALSE(panel->startRun());
  CHECK(panel->findChild<QLabel*>("train-status")->text().contains("every cluster node mounts"));
  CHECK_FALSE(panel->run().running());
}

TEST_CASE("Training dock: a run submitted to a real Slurm is followed through its log to the end, with its plots, "
          "and its model published",
          "[.slurm][gui][train]") {
  if (!std::getenv("DELINEATE_TEST_SLURM"))
    FAIL("needs the test Slurm cluster: run through tests/slurm/slurm_cluster.sh (ctest: 'gui: training on a real Slurm')");
  test::guiApp();
  test::ScratchDir dir("gui-training-slurm");
  const auto data = test::mouseTraining(dir.path());
  if (!data) return;
  QSettings().setValue("share/root", QString::fromStdString(data->share.string()));
  QSettings().setValue("user/name", "Ada Lovelace");
  QuietWindow window(QSize(1500, 950));
  app::gui::TrainingPanel* panel = window.trainingPanel();
  REQUIRE(panel != nullptr);
  panel->findChild<QLineEdit*>("train-cases")->setText(QString::fromStdString((dir / "cases.json").string()));
  panel->findChild<QLineEdit*>("train-name")->setText("mouse-atlas-slurm");
  panel->findChild<QLineEdit*>("train-labels")->setText(QString::fromStdString(data->table.string()));
  panel->findChild<QSpinBox*>("train-iterations")->setValue(8);
  panel->findChild<QSpinBox*>("train-validation")->setValue(4);
  panel->findChild<QLineEdit*>("train-advanced")->setText("--init-filters 4 --patch 32,32,32 --threads 1 --seed 7");
  auto* where = panel->findChild<QComboBox*>("train-where");
  where->setCurrentIndex(where->findData("slurm"));
  const fs::path cluster = dir / "cluster";
  fs::create_directories(cluster);
  panel->findChild<QLineEdit*>("train-cluster-folder")->setText(QString::fromStdString(cluster.string()));
  panel->findChild<QLineEdit*>("train-slurm")->setText("--cpus-per-task 1 --time 10:00");
  QSignalSpy progressed(&panel->run(), &app::gui::TrainingRun::progressed);
  QSignalSpy finished(panel, &app::gui::TrainingPanel::runFinished);
  REQUIRE(panel->startRun());
  const QString job = panel->run().slurmJob();
  CHECK_FALSE(job.isEmpty());
  CHECK(panel->findChild<QLabel*>("train-status")->text().contains(job));
  REQUIRE(waitFor(finished, 240000));
  INFO(panel->findChild<QLabel*>("train-status")->text().toStdString());
  REQUIRE(finished.first().at(0).toBool());
  const app::gui::TrainingState& s = panel->run().state();
  CHECK(s.outcome == "done");
  CHECK(s.iteration == 8);
  CHECK(progressed.count() >= 2);
  CHECK(seriesOf(panel, "train-dice-chart")->count() == 2);
  // The run's folder is on the cluster's storage: its checkpoints, its job script and log.
  CHECK(fs::exists(cluster / "mouse-atlas-slurm" / "checkpoints"));
  CHECK(fs::exists(cluster / "mouse-atlas-slurm" / "slurm" / "train.sbatch"));
  CHECK(fs::exists(cluster / "mouse-atlas-slurm" / "slurm" / "logs" / (job.toStdString() + ".out")));
  // Published to the share, as a local run is.
  auto store = io::ShareStore::open(data->share.string());
  REQUIRE(store.ok());
  CHECK(fs::exists(data->share / "checkpoints" / "mouse-atlas-slurm"));
}
