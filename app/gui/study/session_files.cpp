#include "app/gui/base/dialog_folders.h"
#include "app/gui/base/error_text.h"
#include "app/gui/base/job.h"
#include "app/gui/study/session_files.h"

#include "app/gui/base/author_name.h"

#include <QApplication>
#include <QDateTime>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QJsonDocument>
#include <QJsonObject>
#include <QHBoxLayout>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QSettings>
#include <QWidget>
#include <QCoreApplication>
#include <QEventLoop>
#include <QFutureWatcher>
#include <QTimer>
#include <QtConcurrent/QtConcurrent>

#include <new>
#include <optional>

#include "app/gui/base/workbench.h"
#include "app/gui/study/label_table_memory.h"
#include "app/gui/study/recent_studies.h"
#include "app/gui/study/share_import.h"
#include "app/gui/study/share_review.h"
#include "app/gui/study/study_document.h"
#include "io/labels/label_table_io.h"
#include "io/share/audit_log.h"
#include "io/share/share_revisions.h"
#include "io/studies/study_store.h"
#include "io/volume/image_file.h"

namespace delineate::app::gui {

namespace {


// Study names become folder names on the share: letters, digits, '-', '_' and '.' kept, other characters as '_'.
QString sanitisedStudyName(const QString& base) {
  QString out;
  for (QChar c : base) out += (c.isLetterOrNumber() && c.unicode() < 128) || c == '-' || c == '_' || c == '.' ? c : QChar('_');
  return out.isEmpty() ? QString("study") : out.left(128);
}

// Study names become folder names on the share: the image's file name without extensions, sanitised.
QString studyNameFor(const QString& imagePath) {
  QString base = QFileInfo(imagePath).fileName();
  for (const std::string& ext : io::readableImageExtensionList())
    if (base.endsWith(QString::fromStdString(ext), Qt::CaseInsensitive)) {
      base.chop(static_cast<int>(ext.size()));
      break;
    }
  return sanitisedStudyName(base);
}

// A DICOM study is named from its attributes (the folder's name says little: "CRLM-CT-1004 #2" became
// "CRLM-CT-1004__2"): patient, study date, series description and number, those present joined by '_'.
QString studyNameForSeries(const io::DicomSeries& series) {
  QStringList parts;
  for (const std::string* part : {&series.patientId, &series.studyDate, &series.seriesDescription, &series.seriesNumber}) {
    const QString text = QString::fromStdString(*part).simplified();
    if (!text.isEmpty()) parts << text;
  }
  return parts.isEmpty() ? QString() : sanitisedStudyName(parts.join('_'));
}

}  // namespace

QString defaultStudyName(const StudyDocument& document) {
  QString name = document.dicomSource() ? studyNameForSeries(*document.dicomSource()) : QString();
  return name.isEmpty() ? studyNameFor(document.source()) : name;
}

SessionFiles::SessionFiles(StudyDocument& document, Workbench& bench, QObject* parent)
    : QObject(parent), m_document(document), m_bench(bench) {
  m_review = new ShareReview(document, *this, bench, this);
  // The study that goes: its journal is removed when saved or discarded, else left for recovery.
  connect(&m_document, &StudyDocument::aboutToReplaceStudy, this, [this] {
    if (m_document.hasStudy()) closing(m_discardOnReplace);
    m_discardOnReplace = false;
  });
  connect(&m_document, &StudyDocument::studyReplaced, this, &SessionFiles::studyOpened);
  connect(&m_document, &StudyDocument::edited, this, &SessionFiles::noteEdit);
  connect(&m_document, &StudyDocument::labelsReplaced, this, &SessionFiles::noteEdit);
  connect(&m_document, &StudyDocument::shareTargetChanged, this, &SessionFiles::shareTargetChanged);
  QSettings settings;
  m_policy.intervalSeconds = std::max(1, settings.value("autosave/seconds", 30).toInt());
  m_autosaveTimer.setInterval(1000);
  connect(&m_autosaveTimer, &QTimer::timeout, this, &SessionFiles::tick);
  m_heartbeatTimer.setInterval(io::LeasePolicy{}.heartbeatSeconds * 1000);
  connect(&m_heartbeatTimer, &QTimer::timeout, this, &SessionFiles::heartbeat);
}

SessionFiles::~SessionFiles() {
  releaseLease();
  // A journal still open here belongs to unsaved edits (closing() removes it otherwise): left for recovery.
  if (m_journal) (void)m_journal->detach();
}

bool SessionFiles::ensureAuthor() { return gui::ensureAuthor(m_bench); }

void SessionFiles::studyOpened() {
  const QString source = m_document.source();
  const QString imagePath = QFileInfo::exists(source) ? QFileInfo(source).absoluteFilePath() : source;
  releaseLease();
  m_imagePath = imagePath;
  m_policy.intervalSeconds = std::max(1, QSettings().value("autosave/seconds", 30).toInt());
  if (m_pendingRecovery &&
      QFileInfo(imagePath).canonicalFilePath() !=
          QFileInfo(QString::fromStdString(m_pendingRecovery->info.context.imagePath)).canonicalFilePath())
    abandonPendingRecovery();  // another study opened: the recovered edits are not its
  if (m_pendingRecovery) {
    // The recovered journal becomes this study's: its edits stay protected until saved.
    auto pending = std::move(m_pendingRecovery);
    m_journal.emplace(std::move(pending->journal));
    const io::AutosaveContext& c = pending->info.context;
    if (!c.shareRoot.empty())
      m_document.setShareTarget({QString::fromStdString(c.shareRoot), QString::fromStdString(c.study),
                                 QString::fromStdString(c.labelSet), c.baseRevision, {}});
    if (applyRecoveredLabels(pending->labels)) Q_EMIT recovered();
    m_autosaveTimer.start();
    return;
  }
  if (m_journal) (void)m_journal->close();  // the previous study's journal (its edits were saved or discarded)
  m_journal.reset();
  openJournal();
  m_autosaveTimer.start();
}

bool SessionFiles::applyRecoveredLabels(const core::LabelMap& labels) {
  const core::AnnotationSession* session = m_document.session();
  if (!session) return false;
  if (!labels.geometry().isCloseTo(session->image().geometry())) {
    m_bench.reportError(tr("The recovered labels do not fit %1's grid").arg(m_bench.widget()->windowTitle()));
    return false;
  }
  // One undo step; the session stays dirty.
  if (core::Status s = m_document.replaceLabels(labels, "Recovered edits"); !s) {
    m_bench.reportError(fromError(s.error()));
    return false;
  }
  m_bench.showStatus(tr("Recovered the unsaved edits: save them to keep them"), 10000);
  return true;
}

bool SessionFiles::maybeFinishSession() {
  m_document.interruptEdits();
  m_discardOnReplace = false;
  // Without dialogs unsaved edits are never thrown away: the journal stays for recovery.
  if (!m_document.isDirty() || !m_bench.dialogsEnabled()) return true;
  const auto answer = QMessageBox::question(m_bench.widget(), tr("Unsaved Edits"),
                                            tr("The labels have unsaved edits. Save them to the share?"),
                                            QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel);
  if (answer == QMessageBox::Cancel) return false;
  if (answer == QMessageBox::Save && !saveToShare()) return false;
  m_discardOnReplace = answer == QMessageBox::Discard;
  return true;
}

void SessionFiles::openJournal() {
  auto root = io::defaultAutosaveRoot();
  if (!root) return;  // no HOME: nowhere to autosave (said once in the status bar)
  io::AutosaveContext context;
  context.imagePath = m_imagePath.toStdString();
  const ShareTarget& target = m_document.shareTarget();
  context.shareRoot = target.root.toStdString();
  context.study = target.study.toStdString();
  context.labelSet = target.labelSet.toStdString();
  context.baseRevision = target.baseRevision;
  context.description = QFileInfo(m_imagePath).fileName().toStdString();
  auto journal = io::AutosaveJournal::create(*root, context, m_policy);
  if (!journal) {
    m_bench.showStatus(tr("Autosave is off: %1").arg(fromError(journal.error())), 10000);
    return;
  }
  m_journal.emplace(std::move(journal).value());
}

void SessionFiles::shareTargetChanged() {
  // The lease belongs to one label set: labels that now belong to another give it up.
  const ShareTarget& target = m_document.shareTarget();
  if (m_lease && !target.sameLabelSet(m_leaseTarget)) releaseLease();
  if (m_journal) {
    io::AutosaveContext context = m_journal->context();
    context.shareRoot = target.root.toStdString();
    context.study = target.study.toStdString();
    context.labelSet = target.labelSet.toStdString();
    context.baseRevision = target.baseRevision;
    (void)m_journal->setContext(context);
  }
}

void SessionFiles::noteEdit() {
  if (m_journal) m_journal->noteEdit(std::chrono::steady_clock::now());
}

void SessionFiles::tick() {
  const core::AnnotationSession* session = m_document.session();
  if (!m_journal || !session || session->editInProgress()) return;
  if (m_journal->due(std::chrono::steady_clock::now(), session->isDirty())) autosaveNow();
}

bool SessionFiles::autosaveNow() {
  const core::AnnotationSession* session = m_document.session();
  if (!m_journal || !session) return false;
  if (core::Status s = m_journal->snapshot(session->labels()); !s) {
    m_bench.showStatus(tr("Autosave failed: %1").arg(fromError(s.error())), 10000);
    return false;
  }
  return true;
}

bool SessionFiles::saveWithDialog(const QString& message) {
  if (!m_bench.dialogsEnabled()) return false;
  const ShareTarget current = m_document.shareTarget();
  QDialog dialog(m_bench.widget());
  dialog.setObjectName("save-share-dialog");
  dialog.setWindowTitle(tr("Save to Share"));
  auto* form = new QFormLayout(&dialog);
  auto* root = new QLineEdit(current.root.isEmpty() ? QSettings().value("share/root").toString() : current.root, &dialog);
  root->setPlaceholderText(tr("a folder on the network share; Create Share makes a new one"));
  root->setMinimumWidth(root->fontMetrics().horizontalAdvance(root->placeholderText()) + 16);
  root->setObjectName("share-root");
  auto* browse = new QPushButton(tr("Browse..."), &dialog);
  // A folder becomes a share only when asked: a missing sentinel otherwise means "not mounted" (io/share).
  auto* create = new QPushButton(tr("Create Share"), &dialog);
  create->setObjectName("create-share");
  create->setToolTip(tr("Make this folder a new share store"));
  auto* rootRow = new QHBoxLayout();
  rootRow->addWidget(root, 1);
  rootRow->addWidget(browse);
  rootRow->addWidget(create);
  auto* study = new QLineEdit(current.study.isEmpty() ? defaultStudyName(m_document) : current.study, &dialog);
  study->setObjectName("share-study");
  auto* set = new QLineEdit(current.labelSet.isEmpty() ? QString("labels") : current.labelSet, &dialog);
  set->setObjectName("share-label-set");
  auto* state = new QLabel(&dialog);
  state->setObjectName("share-state");
  state->setWordWrap(true);
  form->addRow(tr("Share folder:"), rootRow);
  form->addRow(QString(), state);
  form->addRow(tr("Study:"), study);
  form->addRow(tr("Label set:"), set);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Save | QDialogButtonBox::Cancel, &dialog);
  form->addRow(buttons);
  connect(browse, &QPushButton::clicked, &dialog, [&] {
    const QString folder = QFileDialog::getExistingDirectory(&dialog, tr("Share Folder"), root->text());
    if (!folder.isEmpty()) root->setText(folder);
  });
  connect(create, &QPushButton::clicked, &dialog, [&] {
    QString folder = root->text().trimmed();
    if (folder.isEmpty()) {
      // No folder typed: pick one (the chooser can make a new folder too).
      folder = QFileDialog::getExistingDirectory(&dialog, tr("Folder for the New Share"), lastOpenFolder());
      if (folder.isEmpty()) {
        state->setText(tr("Choose a folder first."));
        return;
      }
      root->setText(folder);
    }
    const NewShareOutcome made = createShareIn(folder);  // as Import into Share and the share chooser do
    if (made.ok) state->setText(made.text);
    else m_bench.reportError(made.text);
  });
  // The dialog stays open until the save succeeds: a failed save is reported over it, the fields kept for another try.
  bool saved = false;
  connect(buttons, &QDialogButtonBox::accepted, &dialog, [&] {
    ShareTarget target{root->text().trimmed(), study->text().trimmed(), set->text().trimmed(), 0, {}};
    // The series the image came from stays known while the study is the same.
    if (target.root == current.root && target.study == current.study) target.series = current.series;
    // The same label set keeps its base revision; another one starts from none.
    if (target.sameLabelSet(current)) target.baseRevision = current.baseRevision;
    QSettings().setValue("share/root", target.root);
    if (!save(target, message)) return;
    saved = true;
    dialog.accept();
  });
  connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
  dialog.exec();
  return saved;
}

bool SessionFiles::saveToShare(const QString& message) {
  const ShareTarget current = m_document.shareTarget();
  if (!current.valid()) {
    if (!m_bench.dialogsEnabled()) {
      m_bench.reportError(tr("No share to save to: use Save to Share As"));
      return false;
    }
    return saveWithDialog(message);
  }
  return save(current, message);
}

bool SessionFiles::saveToShareAs(const ShareTarget& target, const QString& message) { return save(target, message); }

namespace {

// Where a save goes, as plain strings for the worker.
struct SaveWhere {
  std::string root, study, labelSet, series;
};

// What the window asks of the store: the author, the revision the labels started from, the message, and the label
// table riding along (names, colours, locks, codes) as a Slicer CSV colour table.
io::SaveRequest saveRequest(const core::AnnotationSession& session, const ShareTarget& target, const QString& message) {
  io::SaveRequest request;
  request.author = authorName().toStdString();
  request.baseRevision = target.baseRevision;
  request.message = message.toStdString();
  auto csv = io::writeLabelTableString(session.table(), io::LabelTableFormat::SlicerCsv);
  QJsonObject extra;
  if (csv) extra.insert("labelTable", QString::fromStdString(*csv));
  request.extraJson = QJsonDocument(extra).toJson(QJsonDocument::Compact).toStdString();
  return request;
}

}  // namespace

struct SaveOutcome {
  core::Result<io::RevisionInfo> info;
  std::optional<io::ShareStore> store;  // as the worker opened it: the GUI thread does not touch the share again
  QString auditWarning;
};

namespace {

// The save itself, on a worker: the revision, bound to the study's image series on the labels' grid, then its audit
// record (the revision is saved either way; a missing record or catalogue entry is told).
std::shared_ptr<SaveOutcome> saveOnWorker(const core::LabelMap& labels, const io::SaveRequest& request,
                                          const SaveWhere& where) {
  auto out = std::make_shared<SaveOutcome>(
      SaveOutcome{core::Error{core::ErrorCode::WriteFailed, where.root, "not saved"}, {}, {}});
  try {
    auto store = io::ShareStore::open(where.root);
    if (!store) {
      out->info = store.error();
      return out;
    }
    out->store = *store;
    auto set = io::LabelSetRevisions::open(*store, where.study, where.labelSet);
    if (!set) {
      out->info = set.error();
      return out;
    }
    // Bound to the study's image series (studies imported into the share), so opening the revision from the study
    // browser opens its image with it: the series opened, if known, else the one on the labels' grid.
    io::SaveRequest bound = request;
    auto image = io::seriesForLabels(*store, where.study, labels.geometry(), where.series);
    if (!image && !where.series.empty()) image = io::seriesForLabels(*store, where.study, labels.geometry(), "");
    if (image && *image) bound.extraJson = io::withLabelBinding(bound.extraJson, **image);
    out->info = set->saveLabels(labels, bound);
    if (!out->info) return out;
    // The window's saves are in the share's audit log as the CLI's are (the login name and host say who; the
    // author name of the preferences goes into the detail).
    io::AuditRecord record;
    record.action = "save";
    record.study = where.study;
    record.labelSet = where.labelSet;
    record.revision = out->info->number;
    record.detail = "from the window, author " + request.author + (out->info->conflict ? " (conflict)" : "");
    const core::Status audited = io::appendStoreAudit(store->root(), record);
    if (!audited)
      out->auditWarning =
          QCoreApplication::translate("delineate::app::gui::SessionFiles", "The audit record was not written: %1")
              .arg(fromError(audited.error()));
    if (!out->info->catalogueWarning.empty())
      out->auditWarning += (out->auditWarning.isEmpty() ? QString() : QStringLiteral("\n")) +
                           QString::fromStdString(out->info->catalogueWarning);
  } catch (const std::bad_alloc&) {
    out->info = core::Error{core::ErrorCode::OutOfMemory, where.root, "out of memory"};
  }
  return out;
}

}  // namespace

bool SessionFiles::canSave(const ShareTarget& target) {
  const core::AnnotationSession* session = m_document.session();
  if (!session) return false;
  if (session->editInProgress()) {
    m_bench.reportError(tr("Finish the stroke before saving"));
    return false;
  }
  if (!io::isValidShareName(target.study.toStdString()) || !io::isValidShareName(target.labelSet.toStdString())) {
    m_bench.reportError(tr("%1 / %2: study and label set names may hold letters, digits, '-', '_' and '.' only")
                             .arg(target.study, target.labelSet));
    return false;
  }
  if (m_saving) return false;  // a shortcut during the save's own wait
  if (m_bench.busy()) {
    m_bench.reportError(tr("Wait for the running job to finish (or cancel it) before saving"));
    return false;
  }
  return true;
}

bool SessionFiles::save(const ShareTarget& target, const QString& message) {
  if (!canSave(target) || !ensureAuthor()) return false;
  io::SaveRequest request = saveRequest(*m_document.session(), target, message);
  // The worker saves a copy of the labels as they are now; the window stays live (a share can be slow, or hang),
  // edits are locked, and Cancel works until the revision's number is claimed.
  std::shared_ptr<const core::LabelMap> labels;
  try {
    labels = std::make_shared<const core::LabelMap>(m_document.session()->labels());
  } catch (const std::bad_alloc&) {
    m_bench.reportError(tr("Not saved: out of memory copying the labels for the save"));
    return false;
  }
  auto job = m_bench.startProgress(tr("Saving to the share"));
  request.progress = job.get();
  const SaveWhere where{target.root.toStdString(), target.study.toStdString(), target.labelSet.toStdString(),
                        target.series.toStdString()};
  const QFuture<std::shared_ptr<SaveOutcome>> future = QtConcurrent::run(
      &m_bench.workers(), [labels, request, job, where] { return saveOnWorker(*labels, request, where); });
  const bool editedMeanwhile = waitForSave(future, job);
  if (!future.isFinished()) {
    followCancelledSave(future, target);
    return false;
  }
  const std::shared_ptr<SaveOutcome> out = future.result();
  if (!out->info) {
    const core::Error& error = out->info.error();
    // The labels in memory are untouched and still unsaved; the autosave journal keeps them too.
    if (error.code == core::ErrorCode::Cancelled) m_bench.showStatus(tr("Save cancelled; no revision was made"), 8000);
    else m_bench.reportError(tr("Not saved: %1").arg(fromError(error)));
    return false;
  }
  // After the save (a failed Save As keeps the lease where the labels still belong): saving into another label set
  // gives up the lease of the one before.
  if (!target.sameLabelSet(m_document.shareTarget())) releaseLease();
  const QString leaseWarning = takeLease(target, *out->store);  // a saved revision had its store opened
  announceSaved(target, *out->info, editedMeanwhile, leaseWarning, out->auditWarning);
  return true;
}

bool SessionFiles::waitForSave(const QFuture<std::shared_ptr<SaveOutcome>>& future,
                               const std::shared_ptr<JobProgress>& job) {
  // Edits made meanwhile (none should get through the lock) would not be in the revision: never marked saved then.
  bool editedMeanwhile = false;
  const QMetaObject::Connection watchEdits =
      connect(&m_document, &StudyDocument::edited, this, [&editedMeanwhile] { editedMeanwhile = true; });
  const QMetaObject::Connection watchReplace =
      connect(&m_document, &StudyDocument::aboutToChange, this, [&editedMeanwhile] { editedMeanwhile = true; });
  m_saving = true;
  m_bench.setInputLocked(true);
  {
    QFutureWatcher<std::shared_ptr<SaveOutcome>> watcher;
    QEventLoop wait;
    connect(&watcher, &QFutureWatcherBase::finished, &wait, &QEventLoop::quit);
    QTimer poll;
    connect(&poll, &QTimer::timeout, &wait, [&wait, job] {
      if (job->cancelled()) wait.quit();
    });
    poll.start(50);
    watcher.setFuture(future);
    if (!future.isFinished()) wait.exec();
  }
  m_bench.setInputLocked(false);
  m_saving = false;
  disconnect(watchEdits);
  disconnect(watchReplace);
  m_bench.finishProgress(job);
  return editedMeanwhile;
}

void SessionFiles::followCancelledSave(const QFuture<std::shared_ptr<SaveOutcome>>& future, const ShareTarget& target) {
  // Cancelled while the share does not answer. The worker ends on its own when it does: before the claim it stops
  // (no revision), after it the revision is finished. Either way the window says what became of it.
  auto* late = new QFutureWatcher<std::shared_ptr<SaveOutcome>>(this);
  connect(late, &QFutureWatcherBase::finished, this, [this, late, target] {
    const auto out = late->result();
    late->deleteLater();
    if (out->info)
      m_bench.showStatus(tr("The cancelled save finished when the share answered: %1 / %2 revision %3 (the labels "
                            "in the window are still marked unsaved)")
                             .arg(target.study, target.labelSet)
                             .arg(out->info->number),
                         20000);
  });
  late->setFuture(future);
  m_bench.reportError(tr("Save cancelled: the share has not answered. The labels stay unsaved (and in the autosave "
                         "journal). If the share answers before the revision is made, none is made."));
}

QString SessionFiles::takeLease(const ShareTarget& target, const io::ShareStore& store) {
  // The lease says who else edits this label set; a save never depends on it (a race becomes a conflict revision).
  if (m_lease && m_lease->held()) return {};
  auto set = io::LabelSetRevisions::open(store, target.study.toStdString(), target.labelSet.toStdString());
  if (!set) return {};
  m_leaseStore.emplace(store);
  auto lease = io::ShareLease::prepare(*m_leaseStore, set->folder(), authorName().toStdString());
  if (!lease) return {};
  m_lease.emplace(std::move(lease).value());
  auto got = m_lease->acquire();
  QString warning;
  if (got && got->outcome == io::LeaseOutcome::HeldByOther && got->holder)
    warning = tr("%1 on %2 is editing this label set too (since %3).")
                  .arg(QString::fromStdString(got->holder->user), QString::fromStdString(got->holder->host),
                       QString::fromStdString(got->holder->acquiredIso));
  m_leaseTarget = target;
  if (m_lease->held()) m_heartbeatTimer.start();
  return warning;
}

void SessionFiles::announceSaved(const ShareTarget& target, const io::RevisionInfo& info, bool editedMeanwhile,
                                 const QString& leaseWarning, const QString& auditWarning) {
  const std::string revision =
      target.study.toStdString() + "/" + target.labelSet.toStdString() + "/r" + std::to_string(info.number);
  // Recent Studies reopens the study with this label set (its entry is the study's as it was opened).
  rememberRecentLabels(m_document, shareLabelSetLocation(target.root, target.study, target.labelSet));
  if (const core::AnnotationSession* session = m_document.session())  // the table saved with it is the one last used
    rememberLabelTable(session->table(), QString::fromStdString(revision));
  ShareTarget now = target;
  now.baseRevision = info.number;
  m_document.setShareTarget(now);  // the lease just taken stays
  QString text = tr("Saved %1 / %2 revision %3").arg(target.study, target.labelSet).arg(info.number);
  if (!editedMeanwhile) {
    m_document.markSaved(revision);
    if (m_journal) (void)m_journal->markSaved();
  } else {
    text += "  " + tr("Edits made during the save are not in it: the labels stay marked unsaved.");
  }
  if (info.conflict) {
    const QString conflict =
        tr("Revision %1 was saved by someone else after revision %2, which your edits started from. Your labels are "
           "saved as revision %3 and marked as a conflict; nothing was overwritten. Compare the two revisions before "
           "going on.")
            .arg(info.latestAtSave)
            .arg(info.base)
            .arg(info.number);
    m_bench.showStatus(conflict, 20000);
    if (m_bench.dialogsEnabled()) QMessageBox::warning(m_bench.widget(), tr("Saved as a conflict revision"), conflict);
  } else {
    if (!leaseWarning.isEmpty()) text += "  " + leaseWarning;
    if (!auditWarning.isEmpty()) text += "  " + auditWarning;
    m_bench.showStatus(text, 8000);
  }
  Q_EMIT saved(QString::fromStdString(revision));
}

bool SessionFiles::saveLabelsAs(const QString& path) {
  const core::AnnotationSession* session = m_document.session();
  if (!session) return false;
  QApplication::setOverrideCursor(Qt::WaitCursor);
  core::Status s = io::writeLabelFile(path.toStdString(), session->labels());
  QApplication::restoreOverrideCursor();
  if (!s) {
    m_bench.reportError(tr("Not saved: %1").arg(fromError(s.error())));
    return false;
  }
  // A local copy, not the share: the session stays dirty for the share, but the journal need not fear a loss.
  rememberRecentLabels(m_document, QFileInfo(path).absoluteFilePath());  // Recent Studies reopens the study with it
  m_bench.showStatus(tr("Labels written to %1").arg(path), 6000);
  return true;
}

std::vector<io::AutosaveJournalInfo> SessionFiles::recoverable() const {
  auto root = io::defaultAutosaveRoot();
  if (!root) return {};
  auto scan = io::AutosaveJournal::findRecoverable(*root);
  if (!scan) return {};
  std::vector<io::AutosaveJournalInfo> out;
  // Journals written on another host (a shared home folder) are never offered: their lock cannot be trusted, so the
  // session may be alive there.
  for (auto& j : scan->recoverable)
    if (j.snapshot && j.problem.empty() && !j.fromOtherHost) out.push_back(std::move(j));
  return out;
}

bool SessionFiles::offerRecovery(RecoveryAnswer answer) {
  const auto candidates = recoverable();
  if (candidates.empty()) return false;
  const io::AutosaveJournalInfo& newest = candidates.front();
  const QString image = QString::fromStdString(newest.context.imagePath);
  const QString description =
      tr("Delineate stopped on %1 with unsaved label edits of %2 (autosaved %3). Recover them?")
          .arg(QString::fromStdString(newest.host), image.isEmpty() ? QString::fromStdString(newest.context.description) : image,
               QString::fromStdString(newest.snapshot->time));
  Q_EMIT recoveryOffered(description);
  if (answer == RecoveryAnswer::Ask) {
    if (!m_bench.dialogsEnabled()) return false;
    const auto button = QMessageBox::question(m_bench.widget(), tr("Recover Unsaved Edits"), description,
                                              QMessageBox::Yes | QMessageBox::No | QMessageBox::Ignore);
    answer = button == QMessageBox::Yes ? RecoveryAnswer::Recover
             : button == QMessageBox::No ? RecoveryAnswer::Discard : RecoveryAnswer::Ignore;
  }
  auto root = io::defaultAutosaveRoot();
  if (!root || answer == RecoveryAnswer::Ignore) return false;  // asked again at the next start
  if (answer == RecoveryAnswer::Discard) {
    (void)io::AutosaveJournal::discardRecoverable(*root, newest.journalId);
    return false;
  }
  if (image.isEmpty() || !QFileInfo::exists(image)) {
    m_bench.reportError(tr("Cannot recover: the image %1 is not there any more; the edits stay in %2")
                             .arg(image, QString::fromStdString(newest.folder)));
    return false;
  }
  auto recovered = io::AutosaveJournal::recover(*root, newest.journalId, m_policy);
  if (!recovered) {
    m_bench.reportError(tr("Cannot recover: %1").arg(fromError(recovered.error())));
    return false;
  }
  m_pendingRecovery = std::make_shared<io::RecoveredSession>(std::move(recovered).value());
  if (!m_bench.openImage(image)) {
    (void)m_pendingRecovery->journal.detach();  // left for the next start
    m_pendingRecovery.reset();
    return false;
  }
  return true;
}

void SessionFiles::abandonPendingRecovery() {
  if (!m_pendingRecovery) return;
  (void)m_pendingRecovery->journal.detach();
  m_pendingRecovery.reset();
}

std::optional<core::LabelTable> SessionFiles::tableFromRevisionExtra(const std::string& extraJson) {
  const QJsonDocument doc = QJsonDocument::fromJson(QByteArray::fromStdString(extraJson));
  const QString csv = doc.object().value("labelTable").toString();
  if (csv.isEmpty()) return std::nullopt;
  const std::string text = csv.toStdString();
  auto table = io::readSlicerCsvString(text, "revision label table");
  if (!table) return std::nullopt;
  return std::move(table).value();
}

void SessionFiles::closing(bool discard) {
  m_autosaveTimer.stop();
  releaseLease();
  if (!m_journal) return;
  const core::AnnotationSession* session = m_document.session();
  if (discard || !session || !session->isDirty()) {
    (void)m_journal->close();
  } else {
    autosaveNow();
    (void)m_journal->detach();
  }
  m_journal.reset();
}

void SessionFiles::heartbeat() {
  if (!m_lease || !m_lease->held()) return;
  if (core::Status s = m_lease->heartbeat(); !s) {
    m_heartbeatTimer.stop();
    m_bench.showStatus(tr("The label set's lease was lost (%1): another user may be editing it; your "
                                         "next save may become a conflict revision")
                                          .arg(fromError(s.error())),
                                      20000);
  }
}

void SessionFiles::releaseLease() {
  m_heartbeatTimer.stop();
  if (m_lease) (void)m_lease->release();
  m_lease.reset();
  m_leaseStore.reset();
}

}  // namespace delineate::app::gui
