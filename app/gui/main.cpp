// delineate: the workstation window.
//   delineate [IMAGE] [--labels FILE] [--dicom FOLDER] [--screenshot PNG] [--lang CODE]
// --screenshot renders the window once the study (and its surfaces) is loaded, writes the PNG and quits (for
// scripted checks and the headless smoke run under Xvfb). Exit codes: 0, 1 a file error, 2 a usage error.
// At start (not with --screenshot) the window offers to recover the unsaved edits of a session that crashed.
#include <QApplication>
#include <QCommandLineParser>
#include <QTimer>

#include <cstdio>

#include "app/gui/main_window.h"
#include "app/gui/study_loader.h"
#include "app/gui/preferences.h"
#include "app/gui/session_files.h"
#include "viewer/vtk_view.h"

using namespace delineate;

int main(int argc, char** argv) {
  viewer::VtkView::setDefaultSurfaceFormat();
  QApplication app(argc, argv);
  QApplication::setApplicationName("Delineate");
  QApplication::setOrganizationName("Delineate");
  QApplication::setApplicationVersion(DELINEATE_VERSION);
  QCommandLineParser parser;
  parser.setApplicationDescription("Delineate: 3D medical image segmentation and annotation");
  parser.addHelpOption();
  parser.addVersionOption();
  parser.addPositionalArgument("image", "an image file to open (NIfTI, NRRD, MetaImage)");
  QCommandLineOption labels("labels", "a label map to open with it (on another grid: both grids named, resampled if asked)", "file");
  QCommandLineOption dicom("dicom", "a DICOM folder to open", "folder");
  QCommandLineOption screenshot("screenshot", "write the window to this PNG once loaded, then quit", "png");
  QCommandLineOption lang("lang", "user interface language (de, fr, zh_CN, en); default: the preferences', else the "
                          "system's", "code");
  parser.addOptions({labels, dicom, screenshot, lang});
  parser.process(app);
  app::gui::installLanguage(parser.isSet(lang) ? parser.value(lang) : app::gui::preferredLanguage());
  const QStringList images = parser.positionalArguments();
  if (images.size() > 1) {
    std::fprintf(stderr, "error: one image at a time\n");
    return 2;
  }

  app::gui::MainWindow window;
  const QString shotPath = parser.value(screenshot);
  if (!shotPath.isEmpty()) window.setDialogsEnabled(false);
  window.show();
  int exitCode = 0;
  if (!shotPath.isEmpty()) {
    // The study's surfaces are the last thing a load reports (at once when it has no labels).
    QObject::connect(&window, &app::gui::MainWindow::surfacesReady, &app, [&] {
      QTimer::singleShot(200, &window, [&] {
        const bool ok = window.screenshot().save(shotPath);
        if (!ok) std::fprintf(stderr, "error: %s: cannot write the screenshot\n", qPrintable(shotPath));
        else std::printf("%s: %s\n", qPrintable(shotPath), qPrintable(window.readout()));
        exitCode = ok ? 0 : 1;
        app.quit();
      });
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
    window.loader().openImage(images.front(), parser.value(labels));
  } else if (parser.isSet(dicom)) {
    window.loader().openDicomFolder(parser.value(dicom));
  }
  const int rc = app.exec();
  return exitCode ? exitCode : rc;
}
