#include "app/gui/shell/preferences.h"

#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLibraryInfo>
#include <QLineEdit>
#include <QLocale>
#include <QPushButton>
#include <QRegularExpression>
#include <QSettings>
#include <QSpinBox>
#include <QTabWidget>
#include <QTableWidget>
#include <QTranslator>
#include <QVBoxLayout>

#include <memory>

#include "app/gui/base/install_paths.h"
#include "app/gui/base/workbench.h"
#include "app/gui/pacs/pacs_servers_page.h"

namespace delineate::app::gui {

namespace {

std::unique_ptr<QTranslator> g_app, g_qt;
QString g_current = "en";

// Stripped from action texts for the shortcut list ("&Open Image..." -> "Open Image").
QString plain(QString text) {
  // Chinese menus put the accelerator in brackets at the end: "打开图像(&O)...".
  text.remove(QRegularExpression("\\(&.\\)"));
  text.remove('&');
  if (text.endsWith("...")) text.chop(3);
  return text;
}

}  // namespace

// The translations that are installed (delineate-l10n; in a build tree, the build's): English always is.
QStringList availableLanguages() {
  QStringList out;
  const QString dir = translationsDirectory();
  if (dir.isEmpty()) return out;
  for (const QString& code : {QStringLiteral("de"), QStringLiteral("fr"), QStringLiteral("zh_CN")})
    if (QFileInfo::exists(dir + "/delineate_" + code + ".qm")) out << code;
  return out;
}

QString preferredLanguage() { return QSettings().value("language").toString(); }

QString currentLanguage() { return g_current; }

QString installLanguage(const QString& code) {
  if (g_app) QCoreApplication::removeTranslator(g_app.get());
  if (g_qt) QCoreApplication::removeTranslator(g_qt.get());
  g_app.reset();
  g_qt.reset();
  g_current = "en";
  QString wanted = code;
  if (wanted.isEmpty()) {
    // The system locale: the first of its UI languages we have ("de-CH" -> "de", "zh-Hans-CN" -> "zh_CN").
    for (QString l : QLocale::system().uiLanguages()) {
      l.replace('-', '_');
      if (l.startsWith("zh")) l = "zh_CN";
      else l = l.section('_', 0, 0);
      if (availableLanguages().contains(l) || l == "en") {
        wanted = l;
        break;
      }
    }
  }
  // English: removing the translators above already told every widget (LanguageChange).
  if (!availableLanguages().contains(wanted)) return g_current;
  auto app = std::make_unique<QTranslator>();
  if (!app->load("delineate_" + wanted, translationsDirectory())) return g_current;
  auto qt = std::make_unique<QTranslator>();
  if (qt->load("qtbase_" + wanted, QLibraryInfo::path(QLibraryInfo::TranslationsPath))) {
    QCoreApplication::installTranslator(qt.get());
    g_qt = std::move(qt);
  }
  QCoreApplication::installTranslator(app.get());  // sends LanguageChange to every widget
  g_app = std::move(app);
  g_current = wanted;
  return g_current;
}

PreferencesDialog::PreferencesDialog(QWidget* parent) : QDialog(parent) {
  setObjectName("preferences");
  setWindowTitle(tr("Preferences"));
  QSettings settings;
  auto* layout = new QVBoxLayout(this);
  m_tabs = new QTabWidget(this);
  m_tabs->setObjectName("preferences-tabs");
  layout->addWidget(m_tabs);
  auto* general = new QWidget(m_tabs);
  general->setObjectName("preferences-general");
  m_tabs->addTab(general, tr("General"));
  // Test runs on the window's worker pool where the dialog belongs to the window.
  auto* bench = dynamic_cast<Workbench*>(parent);
  m_pacs = new PacsServersPage(m_tabs, bench ? &bench->workers() : nullptr);
  m_tabs->addTab(m_pacs, tr("PACS Servers"));
  auto* form = new QFormLayout(general);
  m_language = new QComboBox(this);
  m_language->setObjectName("pref-language");
  m_language->addItem(tr("System default"), QString());
  m_language->addItem("English", "en");
  m_language->addItem("Deutsch", "de");
  m_language->addItem(QString::fromUtf8("Fran\u00e7ais"), "fr");
  m_language->addItem(QString::fromUtf8("\u7b80\u4f53\u4e2d\u6587"), "zh_CN");
  m_language->setCurrentIndex(std::max(0, m_language->findData(preferredLanguage())));
  form->addRow(tr("Language:"), m_language);
  m_author = new QLineEdit(settings.value("user/name").toString(), this);
  m_author->setPlaceholderText(qEnvironmentVariable("USER"));
  form->addRow(tr("Author name for saves:"), m_author);
  m_autosave = new QSpinBox(this);
  m_autosave->setRange(5, 3600);
  m_autosave->setSuffix(tr(" s"));
  m_autosave->setValue(settings.value("autosave/seconds", 30).toInt());
  form->addRow(tr("Autosave unsaved edits every:"), m_autosave);
  m_checkpoint = new QLineEdit(settings.value("ai/checkpoint").toString(), this);
  m_checkpoint->setPlaceholderText(tr("none: the classic CPU engine"));
  auto* browse = new QPushButton(tr("Browse..."), this);
  auto* row = new QHBoxLayout();
  row->addWidget(m_checkpoint, 1);
  row->addWidget(browse);
  form->addRow(tr("VISTA-3D checkpoint:"), row);
  m_device = new QComboBox(this);
  for (const char* d : {"auto", "cuda", "cpu"}) m_device->addItem(d, d);
  m_device->setCurrentIndex(std::max(0, m_device->findData(settings.value("ai/device", "auto").toString())));
  form->addRow(tr("AI device:"), m_device);
  m_surfaceDetail = new QComboBox(this);
  m_surfaceDetail->setObjectName("pref-surface-detail");
  m_surfaceDetail->addItem(tr("Automatic (reduced on software OpenGL)"), "auto");
  m_surfaceDetail->addItem(tr("Full"), "full");
  m_surfaceDetail->addItem(tr("Reduced"), "reduced");
  m_surfaceDetail->setCurrentIndex(
      std::max(0, m_surfaceDetail->findData(settings.value("view/surfaceDetail", "auto").toString())));
  m_surfaceDetail->setToolTip(tr("How finely the 3D view meshes large labels. Exported surface files are always "
                                 "meshed at full detail."));
  form->addRow(tr("3D surface detail:"), m_surfaceDetail);
  auto* buttons =
      new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Apply | QDialogButtonBox::Cancel, this);
  layout->addWidget(buttons);
  connect(browse, &QPushButton::clicked, this, [this] {
    const QString path = QFileDialog::getOpenFileName(this, tr("VISTA-3D Checkpoint"), {},
                                                      tr("Checkpoints (*.pt *.pth *.safetensors);;All files (*)"));
    if (!path.isEmpty()) m_checkpoint->setText(path);
  });
  connect(buttons, &QDialogButtonBox::accepted, this, [this] {
    // A secret kept for this session only is said on the PACS Servers page, so the dialog stays open to show it
    // (OK again closes it: nothing is left to save).
    if (apply() && !m_pacs->secretsSessionOnly()) accept();
  });
  connect(buttons->button(QDialogButtonBox::Apply), &QPushButton::clicked, this, [this] {
    apply();
    m_applied = true;
  });
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
}

void PreferencesDialog::reject() {
  // Cancel after Apply keeps what was applied: the window must still pick it up (engine, surfaces), as after OK.
  if (m_applied) done(QDialog::Accepted);
  else QDialog::reject();
}

bool PreferencesDialog::apply() {
  QSettings settings;
  const QString language = m_language->currentData().toString();
  const bool languageChanged = language != preferredLanguage();
  settings.setValue("language", language);
  settings.setValue("user/name", m_author->text().trimmed());
  settings.setValue("autosave/seconds", m_autosave->value());
  settings.setValue("ai/checkpoint", m_checkpoint->text().trimmed());
  settings.setValue("ai/device", m_device->currentData().toString());
  settings.setValue("view/surfaceDetail", m_surfaceDetail->currentData().toString());
  if (languageChanged) installLanguage(language);
  const bool pacsSaved = m_pacs->apply();
  if (!pacsSaved || m_pacs->secretsSessionOnly()) m_tabs->setCurrentWidget(m_pacs);
  return pacsSaved;
}

QList<QPair<QString, QString>> shortcutRows(QWidget* window) {
  QList<QPair<QString, QString>> rows;
  for (QAction* a : window->findChildren<QAction*>()) {
    if (a->shortcuts().isEmpty() || a->text().isEmpty()) continue;
    QStringList keys;
    for (const QKeySequence& k : a->shortcuts()) keys << k.toString(QKeySequence::NativeText);
    rows.append({plain(a->text()), keys.join(", ")});
  }
  std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  const QPair<QString, QString> mouse[] = {
      {QApplication::translate("Shortcuts", "Move the crosshair"), QApplication::translate("Shortcuts", "Left click or drag (Navigate)")},
      {QApplication::translate("Shortcuts", "Paint / erase / fill"), QApplication::translate("Shortcuts", "Left drag (Brush, Eraser, Fill)")},
      {QApplication::translate("Shortcuts", "Brush size"), QApplication::translate("Shortcuts", "[ and ], or Shift + wheel")},
      {QApplication::translate("Shortcuts", "Positive AI point"), QApplication::translate("Shortcuts", "Left click (click mode)")},
      {QApplication::translate("Shortcuts", "Negative AI point"), QApplication::translate("Shortcuts", "Shift + left click or right click (click mode)")},
      {QApplication::translate("Shortcuts", "AI box, scribble or lasso"),
       QApplication::translate("Shortcuts", "Left drag; negative: Shift + left drag or right drag (its tool chosen)")},
      {QApplication::translate("Shortcuts", "Scroll slices"), QApplication::translate("Shortcuts", "Wheel, Up/Down, PageUp/PageDown")},
      {QApplication::translate("Shortcuts", "Zoom"), QApplication::translate("Shortcuts", "Ctrl + wheel, + and -")},
      {QApplication::translate("Shortcuts", "Pan"), QApplication::translate("Shortcuts", "Middle drag or Shift + left drag")},
      {QApplication::translate("Shortcuts", "Window / level"), QApplication::translate("Shortcuts", "Right drag (not in click mode)")},
      {QApplication::translate("Shortcuts", "One view alone and back"), QApplication::translate("Shortcuts", "Double click")},
      {QApplication::translate("Shortcuts", "Reset the view"), QApplication::translate("Shortcuts", "R")},
      {QApplication::translate("Shortcuts", "Rotate the 3D view"), QApplication::translate("Shortcuts", "Left drag in 3D")},
      {QApplication::translate("Shortcuts", "Rename a label"), QApplication::translate("Shortcuts", "Double click its name")},
      {QApplication::translate("Shortcuts", "Recolour a label"), QApplication::translate("Shortcuts", "Double click its id")},
  };
  for (const auto& m : mouse) rows.append(m);
  return rows;
}

void showShortcutsDialog(QWidget* window) {
  QDialog dialog(window);
  dialog.setWindowTitle(QApplication::translate("Shortcuts", "Keyboard Shortcuts and Mouse"));
  dialog.resize(620, 640);
  auto* layout = new QVBoxLayout(&dialog);
  const auto rows = shortcutRows(window);
  auto* table = new QTableWidget(static_cast<int>(rows.size()), 2, &dialog);
  table->setObjectName("shortcut-table");
  table->setHorizontalHeaderLabels(
      {QApplication::translate("Shortcuts", "Action"), QApplication::translate("Shortcuts", "Keys or mouse")});
  table->verticalHeader()->hide();
  table->setEditTriggers(QAbstractItemView::NoEditTriggers);
  for (int i = 0; i < rows.size(); ++i) {
    table->setItem(i, 0, new QTableWidgetItem(rows[i].first));
    table->setItem(i, 1, new QTableWidgetItem(rows[i].second));
  }
  table->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
  table->resizeColumnToContents(1);
  layout->addWidget(table);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, &dialog);
  QObject::connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
  layout->addWidget(buttons);
  dialog.exec();
}

}  // namespace delineate::app::gui
