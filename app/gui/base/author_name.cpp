#include "app/gui/base/author_name.h"

#include <QCoreApplication>
#include <QInputDialog>
#include <QLabel>

#include "app/gui/base/workbench.h"

namespace delineate::app::gui {

namespace {
struct AuthorPrompt {
  Q_DECLARE_TR_FUNCTIONS(AuthorPrompt)
};
}  // namespace

bool ensureAuthor(Workbench& bench) {
  if (!QSettings().value("user/name").toString().trimmed().isEmpty()) return true;
  const QString login = qEnvironmentVariable("USER");
  if (!bench.dialogsEnabled()) {
    if (!login.isEmpty()) return true;
    bench.reportError(AuthorPrompt::tr("No author name: set yours in File > Preferences (it is stored with every revision)"));
    return false;
  }
  QInputDialog ask(bench.widget());
  ask.setObjectName("author-dialog");
  ask.setWindowTitle(AuthorPrompt::tr("Author Name"));
  ask.setLabelText(AuthorPrompt::tr("Your name, stored with every revision you save, every review step and every model "
                                    "you train (File > Preferences changes it):"));
  if (auto* label = ask.findChild<QLabel*>()) label->setWordWrap(true);  // one long line otherwise
  ask.setTextValue(login);
  if (ask.exec() != QDialog::Accepted || ask.textValue().trimmed().isEmpty()) {
    bench.showStatus(AuthorPrompt::tr("No author name given: nothing was saved or recorded"), 8000);
    return false;
  }
  QSettings().setValue("user/name", ask.textValue().trimmed());
  return true;
}

}  // namespace delineate::app::gui
