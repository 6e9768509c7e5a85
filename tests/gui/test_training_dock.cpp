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

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

#include "app/gui/ai/ai_panel.h"
#include "app/gui/shell/main_window.h"
#include "app/gui/training/training_panel.h"
#include "app/gui/training/training_run.h"
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
    auto* dock = test::enclosingDock(panel);
    REQUIRE(dock != nullptr);
    dock->raise();
    QCoreApplication::processEvents();
    window.screenshot().save(QString::fromStdString((dir / "training-dock.png").string()));
    if (const char* keep = std::getenv("DELINEATE_KEEP_SCREENSHOTS")) window.screenshot().save(QString(keep) + "/training-dock.png");

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
}
