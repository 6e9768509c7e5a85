#pragma once
// Where the open dialogs start: the folder of the last file or folder opened (images, DICOM folders, label maps,
// SEGs, label tables), else the home folder; never the working directory the program happened to start in.

#include <QDir>
#include <QFileInfo>
#include <QSettings>
#include <QString>

namespace delineate::app::gui {

inline QString lastOpenFolder() {
  const QString folder = QSettings().value("open/lastFolder").toString();
  return !folder.isEmpty() && QFileInfo(folder).isDir() ? folder : QDir::homePath();
}

// Remembers where `path` (a chosen file, or a chosen folder such as a DICOM series) lies: the next dialog starts in
// its parent folder, beside it. Returns `path`.
inline QString rememberOpenFolder(const QString& path) {
  if (!path.isEmpty()) QSettings().setValue("open/lastFolder", QFileInfo(path).absolutePath());
  return path;
}

// The share folder dialog: the last share used (saved to or opened), else the last open folder.
inline QString lastShareFolder() {
  const QString root = QSettings().value("share/root").toString();
  return !root.isEmpty() && QFileInfo(root).isDir() ? root : lastOpenFolder();
}

}  // namespace delineate::app::gui
