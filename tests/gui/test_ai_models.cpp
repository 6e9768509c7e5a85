// The AI panel's model chooser (issue 25: a checkpoint is an engine): a model trained by the real delineate-train
// and published to a share appears in the chooser, becomes the engine, and segments the open study with its own
// classes and their names.
#include <catch2/catch.hpp>

#include <QApplication>
#include <QComboBox>
#include <QLabel>
#include <QListWidget>
#include <QSettings>
#include <QSignalSpy>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <vector>

#include "app/gui/ai/ai_panel.h"
#include "app/gui/shell/main_window.h"
#include "app/gui/study/study_document.h"
#include "io/share/share_store.h"
#include "tests/common/test_support.h"
#include "tests/gui/gui_fixtures.h"
#include "tests/gui_support/gui_app.h"

using namespace delineate;
using test::QuietWindow;
using test::waitFor;
namespace fs = std::filesystem;

TEST_CASE("AI panel: a model trained on the share is chosen in the panel and segments the open study with its classes",
          "[gui][ai][train]") {
  test::guiApp();
  test::ScratchDir dir("gui-ai-model");
  const auto data = test::mouseTraining(dir.path());
  if (!data) return;
  const fs::path share = data->share;
  const auto table = std::optional<fs::path>(data->table);
  auto subject = [&](const char* kind, int n) { return data->subject(kind, n); };

  // A small atlas network trained by delineate-train on two subjects, published to the share as "mouse-atlas".
  const nlohmann::json config = {{"cases", (dir / "cases.json").string()}, {"output", (dir / "run").string()}, {"iterations", 8},
                                 {"initFilters", 4}, {"patch", {32, 32, 32}}, {"validationWindow", {112, 128, 80}},
                                 {"validationInterval", 4}, {"seed", 7}, {"threads", 1}, {"labels", table->string()},
                                 {"share", share.string()}, {"modelName", "mouse-atlas"}};
  std::ofstream(dir / "config.json") << config.dump();
  const std::string train = std::string(DELINEATE_TRAIN_PATH) + " --config '" + (dir / "config.json").string() + "' > '" +
                            (dir / "train.log").string() + "' 2>&1";
  INFO(train);
  REQUIRE(std::system(train.c_str()) == 0);

  QSettings().setValue("share/root", QString::fromStdString(share.string()));
  QSettings().remove("ai/model");
  {
    QuietWindow window(QSize(1400, 900));
    app::gui::AiPanel* ai = window.aiPanel();
    QSignalSpy listed(ai, &app::gui::AiPanel::modelsListed);
    REQUIRE(waitFor(listed));
    QComboBox* chooser = ai->modelChooser();
    REQUIRE(chooser->count() == 2);
    CHECK(chooser->itemData(0).toString().isEmpty());  // the preferences' engine
    const QString entry = chooser->itemText(1);
    INFO(entry.toStdString());
    CHECK(entry.startsWith("mouse-atlas r"));
    CHECK(entry.contains("SegResNetDS"));
    CHECK(entry.contains("37 classes"));
    CHECK(chooser->itemData(1).toString().startsWith("share:" + QString::fromStdString(share.string()) + "#mouse-atlas@"));

    QSignalSpy loaded(&window, &app::gui::MainWindow::studyLoaded);
    QSignalSpy engine(ai, &app::gui::AiPanel::engineChanged);
    REQUIRE(window.loader().openImage(QString::fromStdString(subject("template", 3))));
    REQUIRE(waitFor(loaded));
    REQUIRE(waitFor(engine));  // the preferences' engine first (the classic one here)
    engine.clear();
    chooser->setCurrentIndex(1);
    Q_EMIT chooser->activated(1);
    REQUIRE(waitFor(engine, 120000));
    CHECK(QSettings().value("ai/model").toString() == chooser->itemData(1).toString());
    auto* description = ai->findChild<QLabel*>("ai-engine");
    REQUIRE(description != nullptr);
    INFO(description->text().toStdString());
    CHECK(description->text().contains("atlas network"));
    CHECK(ai->engineDescription().contains("atlas"));
    CHECK(ai->classList()->count() == 37);  // its classes, by the atlas's ids and names

    QSignalSpy segmented(ai, &app::gui::AiPanel::segmentationFinished);
    REQUIRE(ai->segmentEverything());
    REQUIRE(waitFor(segmented, 120000));
    CHECK(segmented.first().at(0).toBool());
    const core::AnnotationSession* session = window.document().session();
    REQUIRE(session != nullptr);
    std::set<core::Label> present;
    const core::LabelMap& labels = session->labels();
    for (std::size_t i = 0; i < labels.size(); ++i)
      if (labels.data()[i]) present.insert(labels.data()[i]);
    REQUIRE_FALSE(present.empty());
    for (const core::Label id : present) {
      INFO("label " << id);
      CHECK(((id >= 1 && id <= 21) || (id >= 23 && id <= 29) || (id >= 31 && id <= 36) || (id >= 38 && id <= 40)));
      const core::LabelEntry* e = session->table().find(id);
      REQUIRE(e != nullptr);
      CHECK((e->name.rfind("Left ", 0) == 0 || e->name.rfind("Right ", 0) == 0));  // the atlas table's names
    }
    // Issue 45: with one of the model's labels as the target, prompts edit that label through the network's
    // probabilities (model-guided), starting from the label as it is; a new label is grown by the classic engine.
    {
      core::Label target = 0;
      std::size_t most = 0;
      for (const core::Label id : present) {
        const auto n = static_cast<std::size_t>(std::count(labels.data(), labels.data() + labels.size(), id));
        if (n > most) most = n, target = id;
      }
      ai->setAcceptTarget(0);
      CHECK(ai->promptMode() == "classic");
      ai->setAcceptTarget(target);
      CHECK(ai->promptMode() == "model-guided");
      ai->setClickMode(true);
      REQUIRE(ai->clickMode());
      // A negative click on the label's voxel farthest inside it: the label loses voxels, nothing else changes.
      const core::Geometry& g = labels.geometry();
      core::Index3 inside{0, 0, 0};
      for (std::int64_t z = 0; z < g.dimensions()[2] && inside == core::Index3{0, 0, 0}; ++z)
        for (std::int64_t y = 0; y < g.dimensions()[1] && inside == core::Index3{0, 0, 0}; ++y)
          for (std::int64_t x = 0; x < g.dimensions()[0]; ++x)
            if (labels.at(core::Index3{x, y, z}) == target && labels.at(core::Index3{x + 1, y, z}) == target) {
              inside = core::Index3{x, y, z};
              break;
            }
      const std::vector<core::Label> before(labels.data(), labels.data() + labels.size());
      QSignalSpy preview(ai, &app::gui::AiPanel::previewUpdated);
      REQUIRE(ai->addPoint(g.indexToLps(inside), false));
      REQUIRE(waitFor(preview, 120000));
      CHECK(ai->promptMode() == "model-guided");
      const std::size_t object = ai->objectVoxels();
      INFO("label " << target << ": " << most << " voxels, after the negative click " << object);
      CHECK(object < most);
      REQUIRE(ai->acceptObject());
      const core::LabelMap& after = window.document().session()->labels();
      std::size_t changed = 0, wrong = 0;
      for (std::size_t i = 0; i < after.size(); ++i) {
        if (after.data()[i] == before[i]) continue;
        ++changed;
        if (!(before[i] == target && after.data()[i] == 0)) ++wrong;  // only removed from the target
      }
      CHECK(changed == most - object);
      CHECK(wrong == 0);
      ai->setClickMode(false);
    }
    auto* fitLabel = ai->findChild<QLabel*>("ai-fit");
    REQUIRE(fitLabel != nullptr);
    CHECK_FALSE(fitLabel->isVisibleTo(ai));  // an unseen mouse fits the mouse model: nothing to say
    window.screenshot().save(QString::fromStdString((dir / "ai-model.png").string()));
    if (const char* keep = std::getenv("DELINEATE_KEEP_SCREENSHOTS"))
      window.screenshot().save(QString(keep) + "/ai-model.png");

    // Issue 41: the mouse model still chosen, a human CT opened: Segment everything said "out of memory preparing
    // the image". Now the dock says why the model does not fit, and running it is refused naming why.
    QSignalSpy failed(&window, &app::gui::MainWindow::loadFailed);
    loaded.clear();
    REQUIRE(window.loader().openImage(QString::fromStdString(test::kSampleCt)));
    REQUIRE(waitFor(loaded));
    QApplication::processEvents();
    REQUIRE(ai->engineReady());
    INFO(fitLabel->text().toStdString());
    CHECK(fitLabel->isVisibleTo(ai));
    CHECK(fitLabel->text().contains("The model does not fit this study"));
    CHECK(fitLabel->text().contains("Model trained on 2 image"));
    CHECK(fitLabel->text().contains("field of view"));
    CHECK(fitLabel->text().contains("larger"));
    const std::size_t before = std::count_if(window.document().session()->labels().data(),
                                             window.document().session()->labels().data() + window.document().session()->labels().size(),
                                             [](core::Label v) { return v != 0; });
    CHECK_FALSE(ai->segmentEverything());
    REQUIRE(failed.count() >= 1);
    const QString refusal = failed.back().at(0).toString();
    INFO(refusal.toStdString());
    CHECK(refusal.startsWith("Segment everything: The model does not fit this study"));
    CHECK_FALSE(refusal.contains("out of memory"));
    CHECK_FALSE(ai->busy());
    CHECK(std::count_if(window.document().session()->labels().data(),
                        window.document().session()->labels().data() + window.document().session()->labels().size(),
                        [](core::Label v) { return v != 0; }) == static_cast<std::ptrdiff_t>(before));
    ai->setClickMode(true);
    CHECK_FALSE(ai->clickMode());  // click mode refused too
  }
  QSettings().remove("ai/model");
  QSettings().remove("share/root");
}
