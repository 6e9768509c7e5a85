// delineate: the workstation window.
//   delineate [IMAGE|DICOM FILE|FOLDER] [--labels FILE] [--dicom FOLDER] [--screenshot PNG] [--size WxH] [--lang CODE]
// --screenshot renders the window once the study (and its surfaces) is loaded, or a second after the window shows
// when nothing is opened, writes the PNG and quits (for scripted checks and the headless smoke run under Xvfb). Exit codes: 0, 1 a file error, 2 a usage error.
// At start (not with --screenshot) the window offers to recover the unsaved edits of a session that crashed.
#include <QApplication>
#include <QCommandLineParser>
#include <QSize>
#include <QTimer>

#include <cstdio>

#include "app/gui/shell/main_window.h"
#include "app/gui/shell/preferences.h"
#include "app/gui/study/session_files.h"
#include "app/gui/study/study_loader.h"
#include "viewer/vtk_view.h"

using namespace delineate;

int main(int argc, char** argv) {
  QApplication::setApplicationName("Delineate");
  QApplication::setOrganizationName("Delineate");
  QApplication::setApplicationVersion(DELINEATE_VERSION);
  QCommandLineParser parser;
  parser.setApplicationDescription("Delineate: 3D medical image segmentation and annotation");
  const QCommandLineOption help = parser.addHelpOption();
  const QCommandLineOption version = parser.addVersionOption();
  parser.addPositionalArgument("image", "an image file to open (NIfTI, NRRD, MetaImage, GIPL, Analyze, VTK), a DICOM "
                               "file (its series opens) or a DICOM folder");
  QCommandLineOption labels("labels", "a label map to open with it (on another grid: both grids named, resampled if asked)", "file");
  QCommandLineOption dicom("dicom", "a DICOM folder to open", "folder");
  QCommandLineOption screenshot("screenshot", "write the window to this PNG once loaded (with no study: once shown), "
                                "then quit", "png");
  QCommandLineOption lang("lang", "user interface language (de, fr, zh_CN, en); default: the preferences', else the "
                          "system's", "code");
  QCommandLineOption size("size", "the window's size in pixels, e.g. 1024x768 (default 1400x900, within the screen)",
                          "WxH");
  parser.addOptions({labels, dicom, screenshot, lang, size});
  // Parsed before the application exists: --help, --version and usage errors need no display (Qt aborts the
  // process when it finds none).
  QStringList arguments;
  for (int i = 0; i < argc; ++i) arguments << QString::fromLocal8Bit(argv[i]);
  // Without an application Qt names the program "<executable_name>".
  const QString helpText = parser.helpText().replace("<executable_name>", "delineate");
  if (!parser.parse(arguments)) {
    std::fprintf(stderr, "error: %s\n%s", qPrintable(parser.errorText()), qPrintable(helpText));
    return 2;
  }
  if (parser.isSet(help) || parser.isSet("help-all")) {
    std::printf("%s", qPrintable(helpText));
    return 0;
  }
  if (parser.isSet(version)) {
    std::printf("%s %s\n", qPrintable(QApplication::applicationName()), DELINEATE_VERSION);
    return 0;
  }
  QSize windowSize;
  if (parser.isSet(size)) {
    const QStringList parts = parser.value(size).split('x');
    bool okW = false, okH = false;
    if (parts.size() == 2) windowSize = QSize(parts[0].toInt(&okW), parts[1].toInt(&okH));
    if (!okW || !okH || windowSize.width() < 320 || windowSize.height() < 240 || windowSize.width() > 16384 ||
        windowSize.height() > 16384) {
      std::fprintf(stderr, "error: --size %s: expected WIDTHxHEIGHT in pixels, 320x240 to 16384x16384\n",
                   qPrintable(parser.value(size)));
      return 2;
    }
  }
  const QStringList images = parser.positionalArguments();
  if (images.size() > 1) {
    std::fprintf(stderr, "error: one image at a time\n");
    return 2;
  }
  if (qEnvironmentVariableIsEmpty("DISPLAY") && qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY") &&
      qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) {
    std::fprintf(stderr,
                 "error: no display (DISPLAY and WAYLAND_DISPLAY are unset): run the window under a desktop session "
                 "or `xvfb-run -a delineate ...`; delineate-cli does the same work headless\n");
    return 1;
  }
  viewer::VtkView::setDefaultSurfaceFormat();
  QApplication app(argc, argv);
  app::gui::installLanguage(parser.isSet(lang) ? parser.value(lang) : app::gui::preferredLanguage());

  app::gui::MainWindow window;
  const QString shotPath = parser.value(screenshot);
  if (!shotPath.isEmpty()) window.setDialogsEnabled(false);
  if (windowSize.isValid()) window.resize(windowSize);
  window.show();
  int exitCode = 0;
  const auto writeShot = [&] {
    const QString why = window.saveScreenshot(shotPath);
    const bool ok = why.isEmpty();
    if (!ok) std::fprintf(stderr, "error: %s\n", qPrintable(why));
    else std::printf("%s: %s\n", qPrintable(shotPath), qPrintable(window.readout()));
    exitCode = ok ? 0 : 1;
    app.quit();
  };
  if (!shotPath.isEmpty()) {
    // The study's surfaces are the last thing a load reports (at once when it has no labels).
    QObject::connect(&window, &app::gui::MainWindow::surfacesReady, &app, [&] {
      QTimer::singleShot(200, &window, writeShot);
    });
    QObject::connect(&window, &app::gui::MainWindow::loadFailed, &app, [&](const QString& message) {
      std::fprintf(stderr, "error: %s\n", qPrintable(message));
      exitCode = 1;
      app.quit();
    });
  }
  const bool recovering = shotPath.isEmpty() && window.sessionFiles()->offerRecovery();
  if (recovering) {
    // The recovered study opens instead of the one on the command line.
  } else if (!images.isEmpty()) {
    window.loader().openPath(images.front(), parser.value(labels));
  } else if (parser.isSet(dicom)) {
    window.loader().openDicomFolder(parser.value(dicom), parser.value(labels));
  } else if (!shotPath.isEmpty()) {
    // Nothing to open: the window as a first start shows it.
    QTimer::singleShot(1000, &window, writeShot);
  }
  const int rc = app.exec();
  return exitCode ? exitCode : rc;
}
