#pragma once
// Local autosave journal of unsaved label edits, and crash recovery on the next start (issue 4).
//
// Layout: one folder per editing session, "<root>/<journal-id>/" (mode 0700: label maps are patient data), holding
//   owner.lock               flock(LOCK_EX) held by the owning process for the journal's whole life. The kernel drops
//                            it when the process dies however it dies, so "lock free + folder present" is a crashed
//                            session and "lock held" is a running instance (a second Delineate never offers to
//                            recover the journal of a first one that is still editing). flock, not fcntl locks: a
//                            lock belongs to its open file description, so another descriptor of the same process
//                            conflicts too, and closing that descriptor does not drop the owner's lock.
//   session.json             who (host, pid, user, start time) and what (image, share, study, label set, base revision).
//   labels-<seq>.nii.gz      the latest snapshot (NIfTI-2, so the geometry is stored in doubles; gzip level 1).
//   snapshot.json            the commit record: which labels file, its size, SHA-256 and the exact geometry.
// A snapshot is written under a new name, hashed, and only then made current by replacing snapshot.json atomically;
// the previous labels file is removed afterwards. A crash at any moment therefore leaves snapshot.json naming one
// complete, hash-checked file. Journals are created as "<root>/.<id>.creating" and renamed into place once locked,
// and removed by renaming to "<root>/.<id>.removing" first, so no scanner ever sees a half-made or half-removed one.
//
// Size bound: AutosavePolicy::maxTotalBytes across every journal under the root. A snapshot that would push the total
// over it first evicts crashed (unlocked) journals of this host, the least recently written first; never a live one,
// never our own, never one written by another host (where a shared home folder's locks may not be trustworthy). When
// even evicting all of them would not be enough, nothing is evicted and the snapshot is refused (SizeLimit); the
// previous snapshot and the caller's in-memory edits are untouched. While a snapshot is being switched the old and
// the new labels file exist together, so the disk briefly holds one snapshot more than the bound.
//
// Not thread-safe: one thread uses a journal at a time, and the LabelMap passed to snapshot() must not change during
// the call (copy it to autosave from a worker thread).

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/label_map.h"

namespace delineate::io {

struct AutosavePolicy {
  // An autosave is due once there are unsaved edits and this long has passed since the first edit after the last
  // snapshot: an idle session writes nothing, continuous painting snapshots every interval, not every stroke.
  int intervalSeconds = 30;
  // Bound on all journals under the root together (see above).
  std::uint64_t maxTotalBytes = std::uint64_t(2) << 30;
};

// What the session was editing, so recovery can reopen it. Strings may be empty.
struct AutosaveContext {
  std::string imagePath;
  std::string shareRoot;
  std::string study;
  std::string labelSet;
  int baseRevision = 0;  // the share revision the edits started from; 0: none
  std::string description;
};

struct AutosaveSnapshotInfo {
  std::int64_t sequence = 0;  // 1 for the first snapshot of a journal
  std::string time;           // UTC ISO 8601 (io/base/process_info.h utcNowIso)
  std::string file;           // full path of the labels file
  std::uint64_t bytes = 0;    // its size
  std::string sha256;         // hex SHA-256 of its bytes
  // The map's contentRevision() in the process that wrote it. Revisions are per process, so this only tells that
  // process whether the map changed since; elsewhere it is for diagnostics.
  std::uint64_t contentRevision = 0;
};

// One journal folder found under a root.
struct AutosaveJournalInfo {
  std::string journalId;
  std::string folder;
  AutosaveContext context;
  std::string host;       // hostname of the process that wrote session.json
  std::string user;
  std::int64_t pid = 0;   // of that process (for messages only: the lock, not the pid, says whether it runs)
  std::string startedAt;  // UTC ISO 8601
  bool fromOtherHost = false;                 // host differs from this machine's (a shared home folder)
  std::optional<AutosaveSnapshotInfo> snapshot;  // none: it crashed before its first autosave; nothing to recover
  std::string problem;    // non-empty when session.json or snapshot.json cannot be used; recovery will fail
  std::uint64_t diskBytes = 0;  // everything in the folder
};

struct AutosaveScan {
  // Lock free: sessions that crashed or were killed (or detached). Newest activity first.
  std::vector<AutosaveJournalInfo> recoverable;
  // Lock held: another running instance is editing them (or recovering them right now). Never offer these; a
  // caller may say "another Delineate is editing <image>".
  std::vector<AutosaveJournalInfo> live;
};

// The detail of the error for a journal whose lock is held by someone else (recover, discardRecoverable).
inline constexpr const char* kJournalInUseDetail =
    "the autosave journal is in use by another running Delineate (editing it, or recovering it right now)";
inline bool isJournalInUse(const core::Error& e) {
  return e.code == core::ErrorCode::InvalidArgument && e.detail == kJournalInUseDetail;
}

struct RecoveredSession;

class AutosaveJournal {
 public:
  static constexpr int kFormatVersion = 1;

  // Makes "<root>/<new id>/" (creating the root if needed: it is local state), takes the lock, writes session.json.
  static core::Result<AutosaveJournal> create(const std::string& root, const AutosaveContext& context,
                                              const AutosavePolicy& policy = {});

  // Lists the journals under `root`, split into recoverable and live ones; a missing root is an empty scan.
  // Read-only: it only takes each lock briefly in shared mode (which never disturbs an owner).
  static core::Result<AutosaveScan> findRecoverable(const std::string& root);

  // Takes the journal's lock, verifies its latest snapshot (size, SHA-256, readable NIfTI, geometry against
  // snapshot.json) and returns the label map with the exact geometry that was saved. The journal then becomes this
  // process's live journal (`journal` in the result, lock held), so a second instance starting at the same time
  // gets kJournalInUseDetail instead of recovering it too, and the recovered edits stay protected until the user
  // saves them (then close() it). A journal without a snapshot is NotFound; a damaged one is Corrupt naming the file.
  static core::Result<RecoveredSession> recover(const std::string& root, const std::string& journalId,
                                                const AutosavePolicy& policy = {});

  // Removes a crashed journal (the user declined to recover it). Refuses a live one (kJournalInUseDetail).
  static core::Status discardRecoverable(const std::string& root, const std::string& journalId);

  // 32 lowercase hex digits: what create() makes, and all that a journal id passed in may be (no path tricks).
  static bool isValidJournalId(const std::string& id);

  AutosaveJournal(AutosaveJournal&& other) noexcept;
  AutosaveJournal& operator=(AutosaveJournal&& other) noexcept;
  AutosaveJournal(const AutosaveJournal&) = delete;
  AutosaveJournal& operator=(const AutosaveJournal&) = delete;
  // detach(), not close(): a journal is only deleted when the caller says the edits are saved or discarded, so an
  // unwinding error path never throws away the only copy of unsaved work.
  ~AutosaveJournal();

  // Call after every finished edit (commit, undo, redo); starts the interval when none is running.
  void noteEdit(std::chrono::steady_clock::time_point now);
  // True when `dirty` and policy.intervalSeconds have passed since the first edit after the last snapshot.
  bool due(std::chrono::steady_clock::time_point now, bool dirty) const;

  // Writes `labels` as the new snapshot now (see the layout and size bound above). Nothing is written when the map's
  // contentRevision() equals the last snapshot's. Refused while a transaction writes the map (a half stroke is not a
  // state to recover to). After a failure the next attempt is due one interval after `now`, so a full disk is not
  // hammered on every tick.
  core::Status snapshot(const core::LabelMap& labels,
                        std::chrono::steady_clock::time_point now = std::chrono::steady_clock::now());

  // Replaces the context in session.json (e.g. the user saved as a new revision or into another label set).
  core::Status setContext(const AutosaveContext& context);
  // The edits reached the share: the snapshot is removed (nothing left to recover) and the interval restarts.
  core::Status markSaved();

  // Clean end (the user saved or discarded): removes the journal folder and releases the lock.
  core::Status close();
  // Releases the lock and leaves the journal for recovery at the next start (e.g. the desktop session is ending
  // with unsaved edits; snapshot() first). A journal with no snapshot is removed: there is nothing to recover.
  core::Status detach();

  bool isOpen() const { return m_lockFd >= 0; }
  const std::string& id() const { return m_id; }
  const std::string& folder() const { return m_folder; }
  const AutosaveContext& context() const { return m_context; }
  const AutosavePolicy& policy() const { return m_policy; }
  const std::optional<AutosaveSnapshotInfo>& lastSnapshot() const { return m_snapshot; }

 private:
  AutosaveJournal() = default;
  core::Status writeSession() const;
  core::Status enforceBound(std::uint64_t ownBytesAfter, const std::string& newFile) const;
  void removeStaleSnapshots(const std::string& keepName) const;
  void release();

  std::string m_root;
  std::string m_id;
  std::string m_folder;
  int m_lockFd = -1;
  AutosaveContext m_context;
  AutosavePolicy m_policy;
  std::string m_startedAt;
  std::optional<AutosaveSnapshotInfo> m_snapshot;
  std::int64_t m_sequence = 0;  // of the last snapshot written, kept across markSaved so names never repeat
  std::optional<std::chrono::steady_clock::time_point> m_pendingSince;  // first edit after the last snapshot
};

struct RecoveredSession {
  AutosaveJournal journal;  // now this process's live journal
  core::LabelMap labels;
  AutosaveJournalInfo info;  // as found: the crashed session's context, owner and snapshot
};

// $DELINEATE_AUTOSAVE_DIR if set, else $XDG_STATE_HOME/delineate/autosave (when absolute, as the XDG spec asks),
// else $HOME/.local/state/delineate/autosave. NotFound when none of them is set. Local state, never the share.
core::Result<std::string> defaultAutosaveRoot();

}  // namespace delineate::io
