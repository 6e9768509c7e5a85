#include "tests/gui_support/gui_app.h"

#include <QImage>
#include <QSettings>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

#include "viewer/vtk_view.h"

namespace delineate::test {
namespace {

pid_t g_xvfb = 0;

void stopXvfb() {
  if (g_xvfb > 0) {
    kill(g_xvfb, SIGTERM);
    waitpid(g_xvfb, nullptr, 0);
    g_xvfb = 0;
  }
}

// Starts Xvfb on a display it picks itself (-displayfd) and points DISPLAY at it.
void startXvfb() {
  int fds[2];
  if (pipe(fds) != 0) return;
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    const std::string fd = std::to_string(fds[1]);
    execlp("Xvfb", "Xvfb", "-displayfd", fd.c_str(), "-screen", "0", "1600x1000x24", "-nolisten", "tcp", "-noreset",
           static_cast<char*>(nullptr));
    _exit(127);
  }
  close(fds[1]);
  if (pid < 0) {
    close(fds[0]);
    return;
  }
  char buffer[32] = {0};
  std::size_t got = 0;
  while (got < sizeof(buffer) - 1) {
    const ssize_t n = read(fds[0], buffer + got, sizeof(buffer) - 1 - got);
    if (n <= 0) break;
    got += static_cast<std::size_t>(n);
    if (buffer[got - 1] == '\n') break;
  }
  close(fds[0]);
  if (got == 0) {
    kill(pid, SIGTERM);
    waitpid(pid, nullptr, 0);
    return;
  }
  g_xvfb = pid;
  std::atexit(stopXvfb);
  const std::string display = ":" + std::string(buffer, buffer + got - (buffer[got - 1] == '\n' ? 1 : 0));
  setenv("DISPLAY", display.c_str(), 1);
}

// Settings and autosave journals of the test process (and the programs it starts) live in a scratch folder, so a
// developer's own preferences (a language, a checkpoint) never change what the tests see, and journals left by one
// run are not offered for recovery in the next.
std::filesystem::path g_scratch;
void removeScratch() {
  std::error_code ec;
  if (!g_scratch.empty()) std::filesystem::remove_all(g_scratch, ec);
}
void isolateState() {
  if (std::getenv("DELINEATE_TEST_ISOLATED")) return;  // a child of an isolated test process: keep the parent's
  // The program's own state (settings, autosave journal, Qt's runtime folder) lies on a local disk, as a user's
  // does, also when TMPDIR points at a network mount for the share (tests/io/sshfs_share_suite.sh names the local
  // temporary folder in DELINEATE_LOCAL_TMPDIR): a share that hangs must not hang the settings too.
  const char* local = std::getenv("DELINEATE_LOCAL_TMPDIR");
  const std::filesystem::path base = local && *local ? std::filesystem::path(local) : std::filesystem::temp_directory_path();
  g_scratch = base / ("delineate-gui-tests-" + std::to_string(getpid()));
  std::filesystem::create_directories(g_scratch / "config");
  std::filesystem::create_directories(g_scratch / "autosave");
  std::filesystem::create_directories(g_scratch / "runtime");
  std::filesystem::create_directories(g_scratch / "cache");
  std::filesystem::permissions(g_scratch / "runtime", std::filesystem::perms::owner_all);
  setenv("XDG_CONFIG_HOME", (g_scratch / "config").c_str(), 1);
  setenv("XDG_CACHE_HOME", (g_scratch / "cache").c_str(), 1);  // study indexes and fetched series
  setenv("XDG_RUNTIME_DIR", (g_scratch / "runtime").c_str(), 0);
  setenv("DELINEATE_AUTOSAVE_DIR", (g_scratch / "autosave").c_str(), 1);
  setenv("DELINEATE_TEST_ISOLATED", "1", 1);
  std::atexit(removeScratch);
}

}  // namespace

QApplication& guiApp() {
  static QApplication* app = [] {
    isolateState();
    const char* display = std::getenv("DISPLAY");
    if (!display || !*display) startXvfb();
    setenv("QT_QPA_PLATFORM", "xcb", 0);
    viewer::VtkView::setDefaultSurfaceFormat();
    static int argc = 1;
    static char name[] = "delineate-tests";
    static char* argv[] = {name, nullptr};
    auto* a = new QApplication(argc, argv);
    QApplication::setOrganizationName("DelineateTests");  // QSettings of the tests stay apart from a user's
    QApplication::setApplicationName("DelineateTests");
    // An author for the tests' saves (the window asks for one, or refuses with dialogs off and no login: issue 41).
    if (QSettings().value("user/name").toString().isEmpty()) QSettings().setValue("user/name", "gui-tester");
    return a;
  }();
  return *app;
}

ImageComparison compareWithBaseline(const QImage& actualIn, const std::string& suite, const std::string& name,
                                    int pixelTolerance, double maxShare) {
  ImageComparison r;
  const QImage actual = actualIn.convertToFormat(QImage::Format_RGB32);
  const std::filesystem::path baseline =
      std::filesystem::path(DELINEATE_SOURCE_DIR) / "tests" / suite / "baselines" / (name + ".png");
  const std::filesystem::path outDir = std::filesystem::path(DELINEATE_BINARY_DIR) / "test-output";
  const bool update = std::getenv("DELINEATE_UPDATE_BASELINES") && std::string(std::getenv("DELINEATE_UPDATE_BASELINES")) == "1";
  QImage expected;
  if (!expected.load(QString::fromStdString(baseline.string()))) {
    if (update) {
      std::filesystem::create_directories(baseline.parent_path());
      r.ok = actual.save(QString::fromStdString(baseline.string()));
      r.message = "baseline written: " + baseline.string();
      return r;
    }
    std::filesystem::create_directories(outDir);
    actual.save(QString::fromStdString((outDir / (name + ".png")).string()));
    r.message = "no baseline " + baseline.string() + "; the actual image is " + (outDir / (name + ".png")).string() +
                " (DELINEATE_UPDATE_BASELINES=1 writes it)";
    return r;
  }
  expected = expected.convertToFormat(QImage::Format_RGB32);
  if (expected.size() != actual.size()) {
    r.share = 1;
  } else {
    std::size_t beyond = 0;
    for (int y = 0; y < actual.height(); ++y) {
      const auto* a = reinterpret_cast<const QRgb*>(actual.constScanLine(y));
      const auto* e = reinterpret_cast<const QRgb*>(expected.constScanLine(y));
      for (int x = 0; x < actual.width(); ++x) {
        const int d = std::max({std::abs(qRed(a[x]) - qRed(e[x])), std::abs(qGreen(a[x]) - qGreen(e[x])),
                                std::abs(qBlue(a[x]) - qBlue(e[x]))});
        beyond += d > pixelTolerance;
      }
    }
    r.share = static_cast<double>(beyond) / static_cast<double>(actual.width() * actual.height());
  }
  r.ok = r.share <= maxShare;
  if (!r.ok) {
    if (update) {
      r.ok = actual.save(QString::fromStdString(baseline.string()));
      r.message = "baseline rewritten: " + baseline.string();
      return r;
    }
    std::filesystem::create_directories(outDir);
    const auto out = outDir / (name + ".png");
    actual.save(QString::fromStdString(out.string()));
    r.message = "differs from " + baseline.string() + " in " + std::to_string(r.share * 100) +
                "% of pixels; the actual image is " + out.string();
  }
  return r;
}

}  // namespace delineate::test
