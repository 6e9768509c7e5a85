#pragma once
// The one author of everything the window writes and of everything the programs it runs write (label revisions,
// SEG and SR, datasets, imports, trained checkpoints): the preferences' author name (user/name), else the login
// ($USER), else "unknown". A child process (delineate-train) is given it as --author and as $DELINEATE_AUTHOR, which
// delineate-train and delineate-cli honour (io::authorName()), so a checkpoint is never "saved by" another name.

#include <QProcessEnvironment>
#include <QSettings>
#include <QString>

namespace delineate::app::gui {

class Workbench;

// Before the first thing written under the author's name (a save, a review step, a training run that publishes its
// checkpoints): with no name in the preferences, asks for one (prefilled with the login) and stores it; without
// dialogs (tests, scripted runs) the login serves, and with no login either it is refused with the reason. False:
// nothing may be written.
bool ensureAuthor(Workbench& bench);

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
