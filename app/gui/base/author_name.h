#pragma once
// The one author of everything the window writes and of everything the programs it runs write (label revisions,
// SEG and SR, datasets, imports, trained checkpoints): the preferences' author name (user/name), else the login
// ($USER), else "unknown". A child process (delineate-train) is given it as --author and as $DELINEATE_AUTHOR, which
// delineate-train and delineate-cli honour (io::authorName()), so a checkpoint is never "saved by" another name.

#include <QProcessEnvironment>
#include <QSettings>
#include <QString>

namespace delineate::app::gui {

inline QString authorName() {
  const QString configured = QSettings().value("user/name").toString().trimmed();
  if (!configured.isEmpty()) return configured;
  const QString login = qEnvironmentVariable("USER");
  return login.isEmpty() ? QString("unknown") : login;
}

// This process's environment with $DELINEATE_AUTHOR set to authorName(): for the programs the window runs.
inline QProcessEnvironment authorEnvironment() {
  QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
  env.insert("DELINEATE_AUTHOR", authorName());
  return env;
}

}  // namespace delineate::app::gui
