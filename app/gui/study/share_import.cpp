#include "app/gui/study/share_import.h"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QFutureWatcher>
#include <QDir>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSettings>
#include <QtConcurrent/QtConcurrent>

#include <memory>

#include "app/gui/base/author_name.h"
#include "app/gui/base/dialog_folders.h"
#include "app/gui/base/error_text.h"
#include "app/gui/base/job.h"
#include "app/gui/base/workbench.h"
#include "io/share/audit_log.h"
#include "io/share/share_store.h"
#include "io/studies/study_import.h"

namespace delineate::app::gui {

ShareImportOutcome importIntoShareNow(const std::string& root, const std::vector<std::string>& inputs,
                                      io::StudyImportOptions options, const std::string& keyFile,
                                      const std::string& source) {
  ShareImportOutcome out{core::makeError(core::ErrorCode::ReadFailed, root, "not imported"), std::string()};
  auto share = io::ShareStore::open(root);
  if (!share) {
    out.report = share.error();
    return out;
  }
  if (!keyFile.empty()) {
    auto key = io::readImportKey(*share, keyFile);
    if (!key) {
      out.report = key.error();
      return out;
    }
    options.deidentify = std::move(key).value();
  }
  out.report = io::importStudies(*share, inputs, options);
  if (out.report)
    for (const auto& s : out.report->series) {
      io::AuditRecord record;
      record.action = "import";
      record.study = s.study;
      record.detail = "from " + source + ": series " + s.series + ", " + std::to_string(s.files) + " files (" +
                      std::to_string(s.copied) + " copied)";
      if (core::Status audited = io::appendStoreAudit(share->root(), record); !audited)
        out.auditWarning = audited.error().describe();
    }
  return out;
}

NewShareOutcome createShareIn(const QString& folderIn) {
  const QString folder = folderIn.trimmed();
  if (folder.isEmpty()) return {false, QCoreApplication::translate("delineate::app::gui::SessionFiles", "Choose a folder first.")};
  if (io::ShareStore::open(folder.toStdString()))
    return {true, QCoreApplication::translate("delineate::app::gui::SessionFiles", "%1 is a share already.").arg(folder)};
  if (!QDir().mkpath(folder))
    return {false, QCoreApplication::translate("delineate::app::gui::SessionFiles", "%1: the folder cannot be created").arg(folder)};
  auto store = io::ShareStore::initialize(folder.toStdString());
  if (!store)
    return {false, QCoreApplication::translate("delineate::app::gui::SessionFiles", "No share was created: %1")
                       .arg(fromError(store.error()))};
  return {true, QCoreApplication::translate("delineate::app::gui::SessionFiles", "Created a share in %1.").arg(folder)};
}

namespace {

// The share folder row of the import dialog and of the share chooser: the folder, Browse and Create Share, and a
// line under it saying what Create Share did; in the words of Save to Share As (one translation for all three).
QLineEdit* addShareRow(QDialog* dialog, QFormLayout* form, const QString& start, QLabel* state, QPushButton** createOut) {
  auto* root = new QLineEdit(start, dialog);
  root->setObjectName("share-root");
  root->setPlaceholderText(QCoreApplication::translate("delineate::app::gui::SessionFiles", "a folder on the network share; Create Share makes a new one"));
  root->setMinimumWidth(root->fontMetrics().horizontalAdvance(root->placeholderText()) + 16);
  auto* browse = new QPushButton(QCoreApplication::translate("delineate::app::gui::SessionFiles", "Browse..."), dialog);
  auto* create = new QPushButton(QCoreApplication::translate("delineate::app::gui::SessionFiles", "Create Share"), dialog);
  create->setObjectName("create-share");
  create->setToolTip(QCoreApplication::translate("delineate::app::gui::SessionFiles", "Make this folder a new share store"));
  auto* row = new QHBoxLayout;
  row->addWidget(root, 1);
  row->addWidget(browse);
  row->addWidget(create);
  form->addRow(QCoreApplication::translate("delineate::app::gui::SessionFiles", "Share folder:"), row);
  state->setWordWrap(true);
  form->addRow(QString(), state);
  QObject::connect(browse, &QPushButton::clicked, dialog, [dialog, root] {
    const QString f = QFileDialog::getExistingDirectory(dialog, QCoreApplication::translate("delineate::app::gui::SessionFiles", "Share Folder"),
                                                        root->text().isEmpty() ? lastShareFolder() : root->text());
    if (!f.isEmpty()) root->setText(f);
  });
  QObject::connect(create, &QPushButton::clicked, dialog, [dialog, root, state] {
    if (root->text().trimmed().isEmpty()) {
      // No folder typed: pick one (the chooser can make a new folder too).
      const QString f = QFileDialog::getExistingDirectory(dialog, QCoreApplication::translate("delineate::app::gui::SessionFiles", "Folder for the New Share"),
                                                          lastOpenFolder());
      if (f.isEmpty()) return;
      root->setText(f);
    }
    state->setText(createShareIn(root->text()).text);
  });
  if (createOut) *createOut = create;
  return root;
}

}  // namespace

QString chooseShareFolder(QWidget* parent, const QString& start) {
  QDialog dialog(parent);
  dialog.setObjectName("share-folder-dialog");
  dialog.setWindowTitle(QCoreApplication::translate("delineate::app::gui::SessionFiles", "Share Folder"));
  auto* form = new QFormLayout(&dialog);
  auto* state = new QLabel(&dialog);
  state->setObjectName("share-state");
  QLineEdit* root = addShareRow(&dialog, form, start, state, nullptr);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Open | QDialogButtonBox::Cancel, &dialog);
  form->addRow(buttons);
  QString chosen;
  QObject::connect(buttons, &QDialogButtonBox::accepted, &dialog, [&] {
    const QString folder = root->text().trimmed();
    auto store = io::ShareStore::open(folder.toStdString());
    if (!store) {  // said in the dialog, which stays: another folder, or Create Share
      state->setText(folder.isEmpty() ? QCoreApplication::translate("delineate::app::gui::SessionFiles", "Choose a folder first.") : fromError(store.error()));
      return;
    }
    chosen = folder;
    dialog.accept();
  });
  QObject::connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
  dialog.exec();
  return chosen;
}

ShareImportDialog::ShareImportDialog(ShareImporter& importer, QWidget* parent) : QDialog(parent), m_importer(importer) {
  setWindowTitle(tr("Import into Share"));
  setObjectName("share-import-dialog");
  auto* form = new QFormLayout(this);
  m_inputs = new QLineEdit(this);
  m_inputs->setPlaceholderText(tr("DICOM folders or image files; several separated by ;"));
  m_inputs->setMinimumWidth(420);
  auto* folder = new QPushButton(tr("Folder..."), this);
  auto* files = new QPushButton(tr("Files..."), this);
  auto* inputRow = new QHBoxLayout;
  inputRow->addWidget(m_inputs, 1);
  inputRow->addWidget(folder);
  inputRow->addWidget(files);
  form->addRow(tr("Import:"), inputRow);
  m_state = new QLabel(this);
  m_state->setObjectName("import-state");
  m_root = addShareRow(this, form, QSettings().value("share/root").toString(), m_state, &m_create);
  m_study = new QLineEdit(this);
  m_study->setPlaceholderText(tr("from the files (a DICOM study's UID, a volume file's name)"));
  form->addRow(tr("Study name:"), m_study);
  m_deidentify = new QCheckBox(tr("De-identify DICOM (PS3.15 basic profile; pseudonyms from a key kept off the share)"), this);
  form->addRow(QString(), m_deidentify);
  m_key = new QLineEdit(this);
  m_key->setPlaceholderText(tr("key file (16+ bytes), not on the share"));
  m_key->setEnabled(false);
  auto* key = new QPushButton(tr("Browse..."), this);
  key->setEnabled(false);
  auto* keyRow = new QHBoxLayout;
  keyRow->addWidget(m_key, 1);
  keyRow->addWidget(key);
  form->addRow(tr("Key:"), keyRow);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
  m_import = buttons->button(QDialogButtonBox::Ok);
  m_import->setText(tr("Import"));
  form->addRow(buttons);

  const auto append = [this](const QStringList& paths) {
    QStringList all = m_inputs->text().isEmpty() ? QStringList() : m_inputs->text().split(';');
    all << paths;
    m_inputs->setText(all.join(';'));
  };
  connect(folder, &QPushButton::clicked, this, [this, append] {
    const QString f = rememberOpenFolder(QFileDialog::getExistingDirectory(this, tr("Import Folder"), lastOpenFolder()));
    if (!f.isEmpty()) append({f});
  });
  connect(files, &QPushButton::clicked, this, [this, append] {
    const QStringList f = QFileDialog::getOpenFileNames(this, tr("Import Files"), lastOpenFolder());
    if (!f.isEmpty()) {
      rememberOpenFolder(f.front());
      append(f);
    }
  });
  connect(key, &QPushButton::clicked, this, [this] {
    const QString f = QFileDialog::getOpenFileName(this, tr("De-identification Key"), lastOpenFolder());
    if (!f.isEmpty()) m_key->setText(f);
  });
  connect(m_deidentify, &QCheckBox::toggled, this, [this, key](bool on) {
    m_key->setEnabled(on);
    key->setEnabled(on);
  });
  // Import runs with the dialog open: it closes when the import succeeded; a failure is said in it, the fields kept.
  connect(buttons, &QDialogButtonBox::accepted, this, &ShareImportDialog::startImport);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  connect(&m_importer, &ShareImporter::finished, this, [this](bool ok, const QString& summary) {
    if (!m_import->isEnabled() && ok) {
      accept();
      return;
    }
    m_import->setEnabled(true);
    m_create->setEnabled(true);
    if (!ok) m_state->setText(summary);
  });
}

void ShareImportDialog::startImport() {
  m_import->setEnabled(false);
  m_create->setEnabled(false);
  m_state->setText(tr("Importing into %1...").arg(m_root->text().trimmed()));
  m_importer.start(request());  // a refusal comes back through finished, said above
}

void ShareImportDialog::reject() {
  // Cancel while importing stops the import (what was copied stays); the dialog closes.
  if (m_importer.running()) m_importer.cancel();
  QDialog::reject();
}

ShareImportRequest ShareImportDialog::request() const {
  ShareImportRequest r;
  for (const QString& p : m_inputs->text().split(';', Qt::SkipEmptyParts))
    if (!p.trimmed().isEmpty()) r.inputs << p.trimmed();
  r.root = m_root->text().trimmed();
  r.study = m_study->text().trimmed();
  r.deidentify = m_deidentify->isChecked();
  r.keyFile = m_key->text().trimmed();
  return r;
}

ShareImporter::ShareImporter(Workbench& bench, QObject* parent) : QObject(parent), m_bench(bench) {}

void ShareImporter::cancel() {
  if (auto job = m_job.lock()) job->cancel();
}

bool ShareImporter::start(const ShareImportRequest& request) {
  const auto refuse = [this](const QString& why) {
    m_bench.reportError(why);
    Q_EMIT finished(false, why);
    return false;
  };
  if (m_running) return refuse(tr("An import is already running"));
  if (request.inputs.isEmpty()) return refuse(tr("Nothing to import: choose DICOM folders or image files"));
  if (request.root.isEmpty()) return refuse(tr("Choose the share to import into"));
  if (request.deidentify && request.keyFile.isEmpty())
    return refuse(tr("De-identification needs a key file (kept off the share)"));
  if (!ensureAuthor(m_bench)) return refuse(tr("No author name: the import was not started"));
  // Everything that reads the share (its sentinel, where the key lies against it) happens on the worker: a hung
  // mount never freezes the window.
  io::StudyImportOptions options;
  options.study = request.study.toStdString();
  options.author = authorName().toStdString();
  const std::string keyFile = request.deidentify ? request.keyFile.toStdString() : std::string();
  QSettings().setValue("share/root", request.root);
  std::vector<std::string> inputs;
  for (const QString& p : request.inputs) inputs.push_back(p.toStdString());
  auto job = m_bench.startProgress(tr("Importing into %1").arg(request.root));
  options.progress = job.get();
  m_job = job;
  m_running = true;
  using Outcome = ShareImportOutcome;
  auto* watcher = new QFutureWatcher<std::shared_ptr<Outcome>>(this);
  connect(watcher, &QFutureWatcher<std::shared_ptr<Outcome>>::finished, this, [this, watcher, job] {
    const std::shared_ptr<Outcome> result = watcher->result();
    const core::Result<io::StudyImportReport>* outcome = &result->report;
    watcher->deleteLater();
    m_running = false;
    m_bench.finishProgress(job);
    if (!*outcome) {
      const QString why = outcome->error().code == core::ErrorCode::Cancelled
                              ? tr("Import cancelled: what was copied stays, importing again finishes it")
                              : tr("Import failed: %1").arg(fromError(outcome->error()));
      m_bench.reportError(why);
      Q_EMIT finished(false, why);
      return;
    }
    const io::StudyImportReport& report = **outcome;
    int copied = 0, there = 0;
    for (const auto& s : report.series) {
      copied += s.copied;
      there += s.alreadyThere;
    }
    QString summary = tr("%n series imported: %1 files copied, %2 already on the share", nullptr, int(report.series.size()))
                          .arg(copied)
                          .arg(there);
    if (!report.skipped.empty())
      summary += "\n" + tr("Not imported: %1").arg(QString::fromStdString(report.skipped.front())) +
                 (report.skipped.size() > 1 ? tr(" (and %1 more)").arg(report.skipped.size() - 1) : QString());
    for (const auto& w : report.warnings) summary += "\n" + QString::fromStdString(w);
    if (!result->auditWarning.empty())
      summary += "\n" + tr("The audit record was not written: %1").arg(QString::fromStdString(result->auditWarning));
    m_bench.showStatus(summary.section('\n', 0, 0), 15000);
    Q_EMIT finished(true, summary);
  });
  const std::string root = request.root.toStdString();
  watcher->setFuture(QtConcurrent::run(&m_bench.workers(), [root, inputs, options, keyFile] {
    return std::make_shared<Outcome>(importIntoShareNow(root, inputs, options, keyFile, "the window"));
  }));
  return true;
}

}  // namespace delineate::app::gui
