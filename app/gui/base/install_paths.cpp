#include "app/gui/base/install_paths.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>

namespace delineate::app::gui {

namespace {

QString installedShare() { return QDir(QCoreApplication::applicationDirPath() + "/../share/delineate").absolutePath(); }

bool holdsTranslations(const QString& dir) {
  return !dir.isEmpty() && !QDir(dir).entryList({"delineate_*.qm"}, QDir::Files).isEmpty();
}

}  // namespace

bool runningFromBuildTree() {
#ifdef DELINEATE_BUILD_ROOT
  const QString root = QFileInfo(DELINEATE_BUILD_ROOT).canonicalFilePath();
  const QString program = QFileInfo(QCoreApplication::applicationFilePath()).canonicalFilePath();
  return !root.isEmpty() && program.startsWith(root + "/");
#else
  return false;
#endif
}

QString translationsDirectory() {
  const QString env = qEnvironmentVariable("DELINEATE_TRANSLATIONS");
  if (!env.isEmpty()) return env;
  const QString installed = installedShare() + "/translations";
  if (holdsTranslations(installed)) return installed;
#ifdef DELINEATE_TRANSLATIONS_BUILD_DIR
  if (runningFromBuildTree() && holdsTranslations(DELINEATE_TRANSLATIONS_BUILD_DIR)) return DELINEATE_TRANSLATIONS_BUILD_DIR;
#endif
  return {};
}

QString sampleStudyPath() {
  const QString installed = installedShare() + "/sample/example_ct.nii.gz";
  if (QFileInfo::exists(installed)) return installed;
#ifdef DELINEATE_SOURCE_ROOT
  const QString source = QString(DELINEATE_SOURCE_ROOT) + "/resources/sample/example_ct.nii.gz";
  if (runningFromBuildTree() && QFileInfo::exists(source)) return source;
#endif
  return {};
}

QString knownModelsPath() {
  const QString installed = installedShare() + "/models/known_models.json";
  if (QFileInfo::exists(installed)) return installed;
#ifdef DELINEATE_SOURCE_ROOT
  if (runningFromBuildTree()) return QString(DELINEATE_SOURCE_ROOT) + "/resources/models/known_models.json";
#endif
  return installed;
}

}  // namespace delineate::app::gui
