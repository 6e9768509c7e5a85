// Saving to a share that hangs (issue 24, the save path's faults). Run only by tests/io/sshfs_share_suite.sh, which
// mounts a real sshfs share, points TMPDIR at it and names the sshfs process in DELINEATE_SSHFS_PID: the test stops
// that process (SIGSTOP), so every file operation on the mount blocks as on a network share whose server went
// silent, and continues it (SIGCONT) afterwards. The tag is hidden: a plain run of the suite has no such mount.
#include <catch2/catch.hpp>

#include <QPushButton>
#include <QSignalSpy>
#include <QTest>
#include <QStatusBar>
#include <QElapsedTimer>
#include <QTimer>

#include <csignal>
#include <cstdlib>
#include <cstdint>
#include <filesystem>

#include "app/gui/editing/edit_tools.h"
#include "app/gui/shell/main_window.h"
#include "app/gui/study/session_files.h"
#include "app/gui/views/surface_builder.h"
#include "core/label_patch.h"
#include "io/share/share_revisions.h"
#include "io/share/share_store.h"
#include "io/volume/image_file.h"
#include "tests/gui/gui_fixtures.h"
#include "tests/gui_support/gui_app.h"

using namespace delineate;
using app::gui::MainWindow;
using namespace delineate::test;

namespace {

// Continues the stopped sshfs whatever happens to the test: a stopped mount would hang the cleanup.
struct Resume {
  pid_t pid;
  ~Resume() { ::kill(pid, SIGCONT); }
};

}  // namespace

TEST_CASE("a save to a share that hangs keeps the window live and Cancel leaves no revision and the edits unsaved",
          "[.share-hang]") {
  const char* pidText = std::getenv("DELINEATE_SSHFS_PID");
  REQUIRE(pidText != nullptr);  // run through tests/io/sshfs_share_suite.sh
  const pid_t sshfs = static_cast<pid_t>(std::atol(pidText));
  REQUIRE(sshfs > 1);
  test::guiApp();
  test::ScratchDir dir("gui-save-hang");  // on the sshfs mount (TMPDIR)
  const std::filesystem::path root = dir / "share";
  std::filesystem::create_directories(root);
  REQUIRE(io::ShareStore::initialize(root.string()).ok());
  QuietWindow window;
  QSignalSpy loaded(&window, &MainWindow::studyLoaded);
  REQUIRE(window.loader().openImage(QString::fromStdString(test::kSampleCt)));
  REQUIRE(waitFor(loaded));
  // The edit's own work (the surfaces rebuilt, the views redrawn: about a second of llvmpipe on two cores) is done
  // before the share hangs, so the ticks below count the save's wait alone.
  QSignalSpy surfaces(&window.surfaceBuilder(), &app::gui::SurfaceBuilder::ready);
  {  // an edit to save
    core::LabelPatch patch;
    patch.box = core::IndexBox{{10, 10, 2}, {30, 30, 8}};
    patch.voxels.assign(static_cast<std::size_t>(patch.box.voxelCount()), 1);
    REQUIRE(window.editTools()->applyPatch(patch, "paint", true));
  }
  REQUIRE(window.document().session()->isDirty());
  REQUIRE(waitFor(surfaces));
  QTest::qWait(300);
  const app::gui::ShareTarget target{QString::fromStdString(root.string()), "hung", "labels", 0, {}};

  Resume resume{sshfs};
  REQUIRE(::kill(sshfs, SIGSTOP) == 0);
  // The user waits, sees the window alive, and presses Cancel in the status bar.
  int ticks = 0;
  QTimer ticker;
  QObject::connect(&ticker, &QTimer::timeout, [&ticks] { ++ticks; });
  ticker.start(20);
  auto* cancel = window.statusBar()->findChild<QPushButton*>("cancel-job");
  REQUIRE(cancel != nullptr);
  bool cancelShown = false, lockedMeanwhile = false;
  QTimer::singleShot(1500, &window, [&] {
    cancelShown = cancel->isVisible();
    lockedMeanwhile = !window.centralWidget()->isEnabled();
    cancel->click();
  });
  QElapsedTimer clock;
  clock.start();
  const bool saved = window.sessionFiles()->saveToShareAs(target, "while the share hangs");
  const qint64 waited = clock.elapsed();
  ticker.stop();
  INFO("waited " << waited << " ms, " << ticks << " timer ticks");
  CHECK_FALSE(saved);
  CHECK(cancelShown);
  CHECK(lockedMeanwhile);
  CHECK(waited >= 1400);
  CHECK(waited < 20000);
  CHECK(ticks >= 20);  // the GUI thread ran all along (75 ticks of 20 ms in 1.5 s when idle)
  CHECK(window.centralWidget()->isEnabled());  // unlocked again
  CHECK(window.statusBar()->currentMessage().contains("Save cancelled"));
  CHECK(window.document().session()->isDirty());  // the edits stay, unsaved

  // The share answers again: the worker finds the save cancelled before its claim and makes no revision.
  REQUIRE(::kill(sshfs, SIGCONT) == 0);
  REQUIRE(window.workers().waitForDone(60000));
  auto store = io::ShareStore::open(root.string());
  REQUIRE(store.ok());
  auto set = io::LabelSetRevisions::open(*store, "hung", "labels");
  REQUIRE(set.ok());
  auto list = set->list();
  REQUIRE(list.ok());
  CHECK(list->revisions.empty());
  CHECK(list->incomplete.empty());
  // And a save now works.
  REQUIRE(window.sessionFiles()->saveToShareAs(target, "after"));
  list = set->list();
  REQUIRE(list.ok());
  REQUIRE(list->revisions.size() == 1);
  CHECK(list->revisions[0].message == "after");
  CHECK_FALSE(window.document().session()->isDirty());
}

TEST_CASE("a share lost in the middle of a multi-megabyte save leaves no revision, says so and keeps the edits",
          "[.share-hang]") {
  // sshfs is stopped while the revision's content is being written (its temporary file has reached the server and
  // is still growing), then killed: the mount is gone mid-write, as when a laptop leaves the network.
  const char* pidText = std::getenv("DELINEATE_SSHFS_PID");
  const char* exportText = std::getenv("DELINEATE_SSHFS_EXPORT");
  REQUIRE(pidText != nullptr);
  REQUIRE(exportText != nullptr);
  const pid_t sshfs = static_cast<pid_t>(std::atol(pidText));
  const std::filesystem::path exported(exportText);
  test::guiApp();
  test::ScratchDir dir("gui-save-lost");  // on the sshfs mount (TMPDIR)
  const std::filesystem::path root = dir / "share";
  std::filesystem::create_directories(root);
  REQUIRE(io::ShareStore::initialize(root.string()).ok());
  // The same folder as the server holds it: the mount's TMPDIR is the export folder seen through sshfs.
  const std::filesystem::path serverRoot =
      exported / std::filesystem::relative(root, std::filesystem::temp_directory_path());
  REQUIRE(std::filesystem::exists(serverRoot / io::ShareStore::kSentinel));
  const std::filesystem::path serverSet = serverRoot / "studies" / "lost" / "labelsets" / "labels";

  // A large image with labels that do not compress (random ids): about 16 MB of .nii.gz to write.
  const core::Geometry g({256, 256, 192}, {1.0, 1.0, 1.0}, {0.0, 0.0, 0.0});
  {
    auto image = core::ImageVolume::create(g, 0.0f);
    REQUIRE(image.ok());
    REQUIRE(io::writeImageFile((dir / "big.nii.gz").string(), *image).ok());
  }
  QuietWindow window;
  QSignalSpy loaded(&window, &MainWindow::studyLoaded);
  REQUIRE(window.loader().openImage(QString::fromStdString((dir / "big.nii.gz").string())));
  REQUIRE(waitFor(loaded));
  {
    core::LabelPatch patch;
    patch.box = core::IndexBox{{0, 0, 0}, {255, 255, 191}};
    patch.voxels.resize(static_cast<std::size_t>(patch.box.voxelCount()));
    std::uint32_t x = 12345;
    for (auto& v : patch.voxels) {
      x = x * 1664525u + 1013904223u;
      v = static_cast<core::Label>(1 + (x >> 24) % 200);
    }
    REQUIRE(window.editTools()->applyPatch(patch, "random", true));
  }
  REQUIRE(window.document().session()->isDirty());

  // Watch the server side: the moment the content's temporary file is there and growing, the share goes away.
  bool lost = false;
  std::uintmax_t sizeAtLoss = 0;
  QTimer watch;
  QObject::connect(&watch, &QTimer::timeout, [&] {
    if (lost) return;
    std::error_code ec;
    for (std::filesystem::directory_iterator it(serverSet, ec), end; !ec && it != end; it.increment(ec)) {
      const std::string name = it->path().filename().string();
      if (name.find(".nii.gz.tmp-") == std::string::npos) continue;
      const std::uintmax_t size = std::filesystem::file_size(it->path(), ec);
      if (ec || size == 0) continue;
      ::kill(sshfs, SIGSTOP);
      sizeAtLoss = std::filesystem::file_size(it->path(), ec);
      ::kill(sshfs, SIGKILL);
      lost = true;
      return;
    }
  });
  watch.start(1);
  QSignalSpy failed(&window, &MainWindow::loadFailed);
  const app::gui::ShareTarget target{QString::fromStdString(root.string()), "lost", "labels", 0, {}};
  const bool saved = window.sessionFiles()->saveToShareAs(target, "when the share went away");
  watch.stop();
  INFO("content bytes on the server when the share went: " << sizeAtLoss);
  REQUIRE(lost);  // the loss did hit the content's write
  CHECK_FALSE(saved);
  REQUIRE(failed.count() >= 1);
  CHECK(failed.back().at(0).toString().startsWith("Not saved"));
  CHECK(window.document().session()->isDirty());  // the edits stay
  CHECK(window.centralWidget()->isEnabled());
  // On the server: no revision, only what an interrupted save leaves (a claimed number, a temporary file).
  auto store = io::ShareStore::open(serverRoot.string());
  REQUIRE(store.ok());
  auto set = io::LabelSetRevisions::open(*store, "lost", "labels");
  REQUIRE(set.ok());
  auto list = set->list();
  REQUIRE(list.ok());
  CHECK(list->revisions.empty());
  CHECK(list->incomplete.size() == 1);
  CHECK_FALSE(list->leftovers.empty());
  // Mid-write: the content's temporary file had started, and the content itself never reached its name.
  CHECK(sizeAtLoss > 0);
  CHECK_FALSE(std::filesystem::exists(serverSet / "r000001.nii.gz"));
}
