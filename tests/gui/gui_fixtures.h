#pragma once
// What the GUI tests share: the bundled sample CT, its classic-engine labels, the main window without modal dialogs
// and a wait for a signal.
#include <catch2/catch.hpp>

#include <QDockWidget>
#include <QSignalSpy>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include "app/gui/reports/study_exports.h"
#include "app/gui/shell/main_window.h"
#include "app/gui/study/study_document.h"
#include "app/gui/study/study_loader.h"
#include "core/volume.h"
#include "inference/engine.h"
#include "io/labels/label_table_io.h"
#include "io/share/share_store.h"
#include "io/volume/image_file.h"
#include "tests/common/test_support.h"

namespace delineate::test {

inline const std::string kSampleCt = DELINEATE_SOURCE_DIR "/resources/sample/example_ct.nii.gz";

// The classic engine's automatic labels of the sample (body, lungs, bone), written next to the test's scratch files.
inline std::string sampleLabels(const test::ScratchDir& dir) {
  auto image = io::readImageFile(kSampleCt);
  REQUIRE(image.ok());
  auto engine = inference::createEngine("classic");
  auto patch = engine->segment(*image, {}, nullptr);
  REQUIRE(patch.ok());
  auto voxels = core::Volume<core::Label>::create(image->geometry(), 0);
  REQUIRE(voxels.ok());
  std::copy(patch->voxels.begin(), patch->voxels.end(), voxels->data());  // the patch covers the image
  const std::string path = (dir / "labels.nii.gz").string();
  REQUIRE(io::writeLabelFile(path, core::LabelMap(std::move(voxels).value())).ok());
  // Their names beside them, as the window finds a map's own table (issue 23: never the engine's by default).
  REQUIRE(io::writeLabelTableFile(dir / "labels.label", engine->info().classes).ok());
  return path;
}

// The main window as the tests drive it: shown, errors reported through loadFailed instead of modal dialogs.
struct QuietWindow : app::gui::MainWindow {
  explicit QuietWindow(QSize size = {}) {
    setDialogsEnabled(false);
    if (size.isValid()) resize(size);
    show();
  }
};

// The dock a panel is shown in (its content sits in the dock's scroll area).
inline QDockWidget* enclosingDock(QWidget* w) {
  while (w && !qobject_cast<QDockWidget*>(w)) w = w->parentWidget();
  return qobject_cast<QDockWidget*>(w);
}

inline bool waitFor(QSignalSpy& spy, int timeoutMs = 60000) { return spy.count() > 0 || spy.wait(timeoutMs); }

// Opens a DICOM folder and then a SEG on it in `window`, waiting for both; false (with the reason in the test's
// output) when either fails.
inline bool openDicomWithSeg(app::gui::MainWindow& window, const std::string& folder, const std::string& seg) {
  QSignalSpy loaded(&window, &app::gui::MainWindow::studyLoaded), labels(&window, &app::gui::MainWindow::labelsLoaded);
  if (!window.loader().openDicomFolder(QString::fromStdString(folder)) || !waitFor(loaded)) return false;
  return window.loader().openDicomSeg(QString::fromStdString(seg)) && waitFor(labels);
}

// Non-background pixels that differ between two captures of a view.
inline int changedPixels(const QImage& a, const QImage& b) {
  int n = 0;
  for (int y = 0; y < std::min(a.height(), b.height()); ++y)
    for (int x = 0; x < std::min(a.width(), b.width()); ++x) n += a.pixel(x, y) != b.pixel(x, y);
  return n;
}


// Two mouse subjects of ../shared/data/mouse for training from the window (FVB1 trains, FVB2 validates) in
// DIR/cases.json, a new share store at DIR/share, and the atlas's label table; nullopt without the data.
struct MouseTraining {
  std::filesystem::path share, cases, table, base;
  std::string subject(const char* kind, int n) const {
    return (base / kind / ("FVB_NCrl_in_vivo_" + std::to_string(n) + ".nii.gz")).string();
  }
};
inline std::optional<MouseTraining> mouseTraining(const std::filesystem::path& dir) {
  const char* mouse = "data/mouse/fvb-ncrl-in-vivo";
  const auto image1 = sharedFile(std::string(mouse) + "/template/FVB_NCrl_in_vivo_1.nii.gz");
  const auto table = sharedFile(std::string(mouse) + "/structure_label_list_hemisphere_separated.csv");
  if (!image1 || !table) return std::nullopt;
  MouseTraining m{dir / "share", dir / "cases.json", *table, image1->parent_path().parent_path()};
  std::filesystem::create_directories(m.share);
  REQUIRE(io::ShareStore::initialize(m.share.string()).ok());
  std::string json = "{\"cases\": [";
  for (int i = 1; i <= 2; ++i)
    json += std::string(i > 1 ? ", " : "") + "{\"id\": \"FVB" + std::to_string(i) + "\", \"image\": \"" + m.subject("template", i) +
            "\", \"labels\": \"" + m.subject("label", i) + "\", \"split\": \"" + (i == 1 ? "train" : "validation") + "\"}";
  std::ofstream(m.cases) << json << "]}";
  return m;
}

}  // namespace delineate::test
