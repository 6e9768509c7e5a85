#pragma once
// Preferences (kept with QSettings: language, author name for saves, autosave interval, VISTA-3D checkpoint and
// device) and the user interface language: the system locale's by default, or the one set in the preferences.
// Translations are Qt .ts files in translations/, compiled by lrelease into the program's resources.

#include <QDialog>
#include <QString>
#include <QStringList>

class QComboBox;
class QLineEdit;
class QSpinBox;
class QTabWidget;
class QWidget;

namespace delineate::app::gui {

class PacsServersPage;

// Language codes with a translation ("de", "fr", "zh_CN"); English is the source language.
QStringList availableLanguages();
// The language the preferences ask for ("" = the system locale's).
QString preferredLanguage();
// Installs the translation for `code` ("" = the system locale's; "en" or an unknown code: English) together with
// Qt's own strings, replacing any installed before; widgets receive LanguageChange. Returns the code now in use
// ("en" when none applies).
QString installLanguage(const QString& code);
QString currentLanguage();

class PreferencesDialog : public QDialog {
  Q_OBJECT

 public:
  explicit PreferencesDialog(QWidget* parent = nullptr);
  // Writes the settings, switches the language, and saves the PACS servers and their secrets (false, with the
  // PACS Servers tab shown, when the servers could not be saved).
  bool apply();
  QComboBox* languageBox() const { return m_language; }
  // Tabs: "General", "PACS Servers".
  QTabWidget* tabs() const { return m_tabs; }
  PacsServersPage* pacsPage() const { return m_pacs; }
  // Accepted when Apply was pressed before (the applied settings stay), else Rejected.
  void reject() override;

 private:
  bool m_applied = false;
  QTabWidget* m_tabs;
  PacsServersPage* m_pacs;
  QComboBox* m_language;
  QLineEdit* m_author;
  QSpinBox* m_autosave;
  QLineEdit* m_checkpoint;
  QComboBox* m_device;
  QComboBox* m_surfaceDetail;
};

// Help > Keyboard Shortcuts: every action of `window` that has a shortcut, and the mouse gestures.
void showShortcutsDialog(QWidget* window);
// The rows that dialog shows: (what, keys), the window's actions first.
QList<QPair<QString, QString>> shortcutRows(QWidget* window);

}  // namespace delineate::app::gui
