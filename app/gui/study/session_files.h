#pragma once
// Where the labels go and how they survive: saving to the share (every save a new revision on the revision it
// started from; the share store marks a save that raced another as a conflict and keeps both, and the user is told),
// the label set's lease (who else is editing it), Save As NIfTI/NRRD, the autosave journal of unsaved edits and the
// recovery offer at the next start after a crash.

#include <QFuture>
#include <QObject>
#include <QString>
#include <QTimer>

#include <memory>
#include <optional>
#include <vector>

#include "app/gui/study/study_document.h"
#include "core/label_table.h"
#include "io/autosave/autosave_journal.h"
#include "io/share/share_lease.h"
#include "io/share/share_revisions.h"
#include "io/share/share_store.h"

namespace delineate::app::gui {

class JobProgress;
class ShareReview;
class Workbench;
struct SaveOutcome;  // what a save's worker found (session_files.cpp)

// The name a study goes by on the share and in exported file names: a DICOM series' patient, study date, series
// description and number; else the image file's name without its extension; sanitised for a folder name.
QString defaultStudyName(const StudyDocument& document);

class SessionFiles : public QObject {
  Q_OBJECT

 public:
  enum class RecoveryAnswer { Ask, Recover, Discard, Ignore };

  // Saves and journals `document`'s labels; follows its studies and share target (the label set its labels belong
  // to: later saves go there, based on its revision).
  SessionFiles(StudyDocument& document, Workbench& bench, QObject* parent = nullptr);
  ~SessionFiles() override;

  const ShareTarget& shareTarget() const { return m_document.shareTarget(); }

  // Saves a new revision to the current target; the Save dialog asks for one when there is none (with dialogs off:
  // false). `message` is stored with the revision.
  // Saves run on a worker thread: the window keeps drawing and Cancel (status bar) works while a share is slow or
  // hung; edits are locked meanwhile (the revision holds the labels as they were when Save was chosen). Cancel before
  // the revision's number is claimed leaves no revision; a share that answers again after a Cancel finishes its
  // write on its own, and the window says so. Returns when the save ended or was cancelled.
  bool saveToShare(const QString& message = {});
  bool saveToShareAs(const ShareTarget& target, const QString& message = {});
  bool saveLabelsAs(const QString& path);
  bool saving() const { return m_saving; }
  // Save to Share As: the user picks the share folder (or creates a share there), study and label set; the dialog
  // stays open until the save succeeds or the user cancels (a failed save is reported over it). True when saved;
  // with dialogs off, false.
  bool saveWithDialog(const QString& message = {});

  // Every finished edit (commit, undo, redo): starts the autosave interval.
  void noteEdit();
  // Writes the snapshot now (true when written or nothing to write).
  bool autosaveNow();
  int autosaveIntervalSeconds() const { return m_policy.intervalSeconds; }

  // Crashed sessions' journals under the autosave root, newest first.
  std::vector<io::AutosaveJournalInfo> recoverable() const;
  // At start: offers the newest recoverable journal (a dialog, or `answer` when dialogs are off). True when edits
  // were recovered (the study then opens in the background, the edits are applied once it has loaded).
  bool offerRecovery(RecoveryAnswer answer = RecoveryAnswer::Ask);
  // Before replacing the study or its labels, or closing: asks to save unsaved edits (dialogs); false when the user
  // cancelled. Nothing is closed here: the journal ends only when a new study really replaces this one (kept for
  // recovery unless the user chose Discard), so a load that fails leaves the edits protected.
  bool maybeFinishSession();
  // The window closes: the journal ends as maybeFinishSession's answer says.
  void windowClosing() { closing(m_discardOnReplace); }
  // The window closes: with `discard` the journal is removed, else it is left for recovery if there are unsaved edits.
  void closing(bool discard);
  // The load a recovery started failed or was cancelled: the recovered journal is left for the next start.
  void abandonPendingRecovery();

  // The label table travels with each share revision (its "extra" JSON, as a Slicer CSV colour table), so names,
  // colours, locks and codes come back with the voxels. Empty when `extraJson` holds none or it does not parse.
  static std::optional<core::LabelTable> tableFromRevisionExtra(const std::string& extraJson);
  // Before the first save or review step: with no author name in the preferences, asks for one (prefilled with the
  // login name) and stores it there; false when the user gave none. With dialogs off the login name serves; with no
  // login either, false and said. Nothing is ever saved as "unknown".
  bool ensureAuthor();
  // Submit, approve and send back the open labels' revision.
  ShareReview& review() const { return *m_review; }

 Q_SIGNALS:
  void saved(QString revision);
  void recoveryOffered(QString description);
  void recovered();

 private:
  // A study was opened (its source may be a DICOM folder, then the journal names the folder).
  void studyOpened();
  bool applyRecoveredLabels(const core::LabelMap& labels);
  void shareTargetChanged();
  // A save's steps: the refusals said to the user, the worker's wait with input locked (true when the document
  // changed meanwhile), a cancelled save followed until the share answers, the label set's lease, the outcome said.
  bool save(const ShareTarget& target, const QString& message);
  bool canSave(const ShareTarget& target);
  bool waitForSave(const QFuture<std::shared_ptr<SaveOutcome>>& future, const std::shared_ptr<JobProgress>& job);
  void followCancelledSave(const QFuture<std::shared_ptr<SaveOutcome>>& future, const ShareTarget& target);
  QString takeLease(const ShareTarget& target, const io::ShareStore& store);
  void announceSaved(const ShareTarget& target, const io::RevisionInfo& info, bool editedMeanwhile,
                     const QString& leaseWarning, const QString& auditWarning);
  void openJournal();
  void tick();
  void heartbeat();
  void releaseLease();

  StudyDocument& m_document;
  Workbench& m_bench;
  ShareReview* m_review = nullptr;
  ShareTarget m_leaseTarget;  // the label set m_lease is for
  bool m_discardOnReplace = false;  // the user chose Discard for the edits the next study replaces
  bool m_saving = false;
  QString m_imagePath;
  io::AutosavePolicy m_policy;
  std::optional<io::AutosaveJournal> m_journal;
  std::optional<io::ShareStore> m_leaseStore;  // the lease points at its store: kept alive with it
  std::optional<io::ShareLease> m_lease;
  QTimer m_autosaveTimer;
  QTimer m_heartbeatTimer;
  // A recovery waiting for its study to load.
  std::shared_ptr<io::RecoveredSession> m_pendingRecovery;
};

}  // namespace delineate::app::gui
