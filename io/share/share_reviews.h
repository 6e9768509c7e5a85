#pragma once
// Review state of label-set revisions: a revision is submitted for review, then approved or sent back (rejected, with
// a comment) by another user. Ground truth for training and datasets is "approved" (issue 24, item 4).
//
// Files, in the label set's folder of the store:
//   reviews/r<NNNNNN>-<SSSS>.json   one record per step of revision NNNNNN: sequence SSSS (from 1), action (submit,
//                                   approve, reject), user, host, time (UTC), comment. Created exclusively through the
//                                   store's write path and never changed: the records are the history, and the state is
//                                   the last record's action.
// Rules (checked against the history as read in the same claim round, so two reviewers acting at once cannot both
// win: the second finds the sequence number taken, reads again and is refused if its step no longer applies):
//   - submit: the revision exists, and it has no review yet or was rejected (a resubmission).
//   - approve, reject: the revision is submitted; the reviewer is neither the revision's author nor its submitter
//     (a second pair of eyes). reject needs a comment (what to change).
//   - nothing follows an approval: an approved revision stays approved (a correction is a new revision).
// Every step is also written to the store's audit log (action "review") by the caller that made it.
// On a signed store (io/share/share_trust.h) every step is signed by its user (submit: an annotator; approve,
// reject: a reviewer), and the state is replayed from the records that count: signed by a current member in role,
// in turn by the rules above (an approval by the revision's own author, or one never submitted, counts for nothing
// even when signed). A record that does not count stays in the history, marked with the reason.

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "core/error.h"
#include "io/share/share_revisions.h"

namespace delineate::io {

enum class ReviewAction { Submit, Approve, Reject };
const char* reviewActionName(ReviewAction action);                 // "submit", "approve", "reject"
std::optional<ReviewAction> reviewActionFromName(const std::string& name);

struct ReviewRecord {
  int revision = 0;
  int sequence = 0;
  ReviewAction action = ReviewAction::Submit;
  std::string user;
  std::string host;
  std::string time;  // UTC, ISO 8601
  std::string comment;
  // Not stored: what the record's signature is worth, and whether it counts towards the state (on a signed store
  // only records signed by a current member in role count, and only where the rules above allow the step); why not.
  RecordTrust trust;
  bool counted = true;
  std::string notCounted;
  // Not stored: set by record() when the step is on the share but its study-catalogue record could not be written.
  std::string catalogueWarning;
};

// The state of one revision: none (never submitted), submitted, approved or rejected, with the record that made it.
enum class ReviewState { None, Submitted, Approved, Rejected };
const char* reviewStateName(ReviewState state);  // "none", "submitted", "approved", "rejected"

struct RevisionReview {
  int revision = 0;
  ReviewState state = ReviewState::None;
  std::vector<ReviewRecord> history;  // by sequence, counted or not
  // The newest record that counted: the one that made the state (nullptr when none did).
  const ReviewRecord* last() const {
    for (auto it = history.rbegin(); it != history.rend(); ++it)
      if (it->counted) return &*it;
    return nullptr;
  }
  // Records that are on the share but do not count (unsigned, forged, out of role, removed member, out of turn).
  std::size_t notCounted() const {
    return static_cast<std::size_t>(std::count_if(history.begin(), history.end(), [](const ReviewRecord& r) { return !r.counted; }));
  }
};

class LabelSetReviews {
 public:
  explicit LabelSetReviews(const LabelSetRevisions& set) : m_set(&set) {}

  // The review of one revision (state None and no history when nothing was recorded). A record that cannot be read
  // is an error naming its file: review state decides what becomes ground truth, so it is never guessed.
  core::Result<RevisionReview> review(int revision) const;
  // Every revision's review that has at least one record, by revision. `revisions`: the label set's listing when the
  // caller has it already (a signed store's rules need each revision's author; without it the folder is listed again).
  core::Result<std::vector<RevisionReview>> all(const RevisionList* revisions = nullptr) const;

  // Records one step by `user` (empty: the login name) on `host` (empty: this machine), after checking the rules
  // above against the history as it stands; InvalidArgument naming the revision when a rule refuses it.
  core::Result<ReviewRecord> record(int revision, ReviewAction action, const std::string& user,
                                    const std::string& comment, const std::string& host = {}) const;

 private:
  std::string folder() const { return m_set->folder() + "/reviews"; }
  // The reviews of revision `only` (0: of every revision), each history read from its records.
  core::Result<std::vector<RevisionReview>> read(int only, const RevisionList* known = nullptr) const;
  const LabelSetRevisions* m_set;
};

}  // namespace delineate::io
