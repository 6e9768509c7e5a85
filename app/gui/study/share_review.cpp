#include "app/gui/study/share_review.h"

#include "app/gui/base/author_name.h"

#include <QEventLoop>
#include <QFutureWatcher>
#include <QInputDialog>
#include <QtConcurrent/QtConcurrent>

#include <memory>

#include "app/gui/base/error_text.h"
#include "app/gui/base/workbench.h"
#include "app/gui/study/session_files.h"
#include "app/gui/study/study_document.h"
#include "io/share/audit_log.h"
#include "io/share/share_reviews.h"
#include "io/share/share_store.h"

namespace delineate::app::gui {

namespace {

struct ReviewOutcome {
  core::Result<io::ReviewRecord> record = core::makeError(core::ErrorCode::WriteFailed, "", "not recorded");
  std::string auditWarning;
};

// One step on the share, on a worker: the label set opened, the step checked and recorded, then audited as the CLI's.
std::shared_ptr<ReviewOutcome> recordOnWorker(const ShareTarget& target, io::ReviewAction action, const std::string& user,
                                              const std::string& comment) {
  auto out = std::make_shared<ReviewOutcome>();
  auto store = io::ShareStore::open(target.root.toStdString());
  if (!store) {
    out->record = store.error();
    return out;
  }
  auto set = io::LabelSetRevisions::open(*store, target.study.toStdString(), target.labelSet.toStdString());
  if (!set) {
    out->record = set.error();
    return out;
  }
  out->record = io::LabelSetReviews(*set).record(target.baseRevision, action, user, comment);
  if (!out->record) return out;
  io::AuditRecord audit;
  audit.action = "review";
  audit.study = set->study();
  audit.labelSet = set->name();
  audit.revision = target.baseRevision;
  audit.detail = std::string(io::reviewActionName(action)) + " by " + out->record->user + " from the window" +
                 (comment.empty() ? std::string() : ": " + comment);
  if (core::Status s = io::appendStoreAudit(store->root(), audit); !s) out->auditWarning = s.error().describe();
  if (!out->record->catalogueWarning.empty())
    out->auditWarning += (out->auditWarning.empty() ? "" : "; ") + out->record->catalogueWarning;
  return out;
}

}  // namespace

ShareReview::ShareReview(StudyDocument& document, SessionFiles& files, Workbench& bench, QObject* parent)
    : QObject(parent), m_document(document), m_files(files), m_bench(bench) {}

bool ShareReview::submit() { return record(static_cast<int>(io::ReviewAction::Submit), {}); }

bool ShareReview::approve() { return record(static_cast<int>(io::ReviewAction::Approve), {}); }

bool ShareReview::sendBack(const QString& commentIn) {
  QString comment = commentIn.trimmed();
  if (comment.isEmpty() && m_bench.dialogsEnabled() && m_document.shareTarget().baseRevision > 0) {
    bool ok = false;
    comment = QInputDialog::getMultiLineText(m_bench.widget(), tr("Send Back"),
                                             tr("What should the author change? (stored with the review)"), {}, &ok)
                  .trimmed();
    if (!ok) return false;
  }
  if (comment.isEmpty()) {
    m_bench.reportError(tr("Not sent back: say what to change in a comment"));
    return false;
  }
  return record(static_cast<int>(io::ReviewAction::Reject), comment);
}

bool ShareReview::record(int actionValue, const QString& comment) {
  const auto action = static_cast<io::ReviewAction>(actionValue);
  const ShareTarget target = m_document.shareTarget();
  if (!m_document.hasStudy() || !target.valid() || target.baseRevision <= 0) {
    m_bench.reportError(tr("No share revision to review: open one from the share, or save the labels to the share "
                           "first"));
    return false;
  }
  if (m_document.isDirty()) {
    m_bench.reportError(tr("The labels have unsaved edits: a review is of revision %1 as it is on the share. Save "
                           "(a new revision) or undo the edits first.")
                            .arg(target.baseRevision));
    return false;
  }
  if (m_bench.busy()) {
    m_bench.reportError(tr("Wait for the running job to finish (or cancel it) first"));
    return false;
  }
  if (!m_files.ensureAuthor()) return false;
  const std::string user = authorName().toStdString(), text = comment.toStdString();
  QFutureWatcher<std::shared_ptr<ReviewOutcome>> watcher;
  QEventLoop wait;
  connect(&watcher, &QFutureWatcherBase::finished, &wait, &QEventLoop::quit);
  m_bench.setInputLocked(true);
  watcher.setFuture(QtConcurrent::run(&m_bench.workers(),
                                      [target, action, user, text] { return recordOnWorker(target, action, user, text); }));
  if (!watcher.isFinished()) wait.exec();
  m_bench.setInputLocked(false);
  const std::shared_ptr<ReviewOutcome> out = watcher.result();
  const QString revision =
      tr("%1 / %2 revision %3").arg(target.study, target.labelSet).arg(target.baseRevision);
  if (!out->record) {
    m_bench.reportError(tr("%1 not recorded: %2")
                            .arg(action == io::ReviewAction::Submit    ? tr("Submission")
                                 : action == io::ReviewAction::Approve ? tr("Approval")
                                                                       : tr("Sending back"),
                                 fromError(out->record.error())));
    return false;
  }
  QString said = action == io::ReviewAction::Submit    ? tr("%1 submitted for review by %2")
                 : action == io::ReviewAction::Approve ? tr("%1 approved by %2")
                                                       : tr("%1 sent back by %2");
  said = said.arg(revision, QString::fromStdString(out->record->user));
  if (!out->auditWarning.empty())
    said += "  " + tr("The audit record was not written: %1").arg(QString::fromStdString(out->auditWarning));
  m_bench.showStatus(said, 10000);
  // The title reads the new state from the share.
  m_document.setShareTarget(m_document.shareTarget());
  Q_EMIT reviewed(said);
  return true;
}

}  // namespace delineate::app::gui
