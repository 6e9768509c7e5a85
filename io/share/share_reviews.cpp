#include "io/share/share_reviews.h"

#include "io/share/share_catalogue.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>

#include <nlohmann/json.hpp>

#include "io/base/file_read.h"
#include "io/base/process_info.h"
#include "io/share/share_trust.h"
#include "io/share/share_trust_internal.h"

namespace delineate::io {
namespace {

namespace fs = std::filesystem;
using core::ErrorCode;
using core::makeError;

std::string recordName(int revision, int sequence) {
  char name[32];
  std::snprintf(name, sizeof name, "r%06d-%04d.json", revision, sequence);
  return name;
}

// "r000003-0002.json" -> (3, 2); anything else (temporary files of an interrupted write) -> nothing.
std::optional<std::pair<int, int>> parseRecordName(const std::string& name) {
  int revision = 0, sequence = 0;
  char tail[8] = {};
  if (name.size() != 17 || std::sscanf(name.c_str(), "r%6d-%4d.%4s", &revision, &sequence, tail) != 3 ||
      std::string(tail) != "json" || revision <= 0 || sequence <= 0)
    return std::nullopt;
  return std::make_pair(revision, sequence);
}

const char* roleFor(ReviewAction action) { return action == ReviewAction::Submit ? "annotator" : "reviewer"; }

core::Result<ReviewRecord> readRecord(const ShareStore& store, const std::string& folder, const fs::path& file,
                                      int revision, int sequence) {
  auto text = readWholeFile(file.string(), kMaxRecordBytes, "review record");
  if (!text) return text.error();
  const auto j = nlohmann::json::parse(*text, nullptr, false);
  auto bad = [&](const std::string& why) { return makeError(ErrorCode::Corrupt, file.string(), "damaged review record: " + why); };
  if (j.is_discarded() || !j.is_object()) return bad("not a JSON object");
  if (!j.contains("action") || !j["action"].is_string()) return bad("no action");
  const auto action = reviewActionFromName(j["action"].get<std::string>());
  if (!action) return bad("unknown action '" + j["action"].get<std::string>() + "'");
  if (j.value("revision", 0) != revision || j.value("sequence", 0) != sequence)
    return bad("its revision or sequence differs from its file name");
  ReviewRecord r;
  r.revision = revision;
  r.sequence = sequence;
  r.action = *action;
  r.user = j.value("user", "");
  r.host = j.value("host", "");
  r.time = j.value("time", "");
  r.comment = j.value("comment", "");
  r.trust = verifyRecord(store, folder + "/" + recordName(revision, sequence), j, r.user, roleFor(r.action));
  return r;
}

// A signed store's state: the records that count, replayed by the rules; the others are marked with why not.
ReviewState replaySigned(const ShareStore& store, std::vector<ReviewRecord>& history, const std::string& author) {
  ReviewState state = ReviewState::None;
  std::string submitter;
  for (auto& r : history) {
    if (!recordCounts(store, r.trust)) {
      r.counted = false;
      r.notCounted = describeTrust(r.trust);
      continue;
    }
    const auto outOfTurn = [&](const std::string& why) {
      r.counted = false;
      r.notCounted = "out of turn: " + why;
    };
    switch (r.action) {
      case ReviewAction::Submit:
        if (state == ReviewState::None || state == ReviewState::Rejected) {
          state = ReviewState::Submitted;
          submitter = r.user;
        } else {
          outOfTurn(std::string("the revision was ") + reviewStateName(state));
        }
        break;
      case ReviewAction::Approve:
      case ReviewAction::Reject:
        if (state != ReviewState::Submitted)
          outOfTurn(std::string("the revision was ") + reviewStateName(state) + ", not submitted");
        else if (r.user == author)
          outOfTurn(r.user + " wrote the revision");
        else if (r.user == submitter)
          outOfTurn(r.user + " submitted the revision");
        else
          state = r.action == ReviewAction::Approve ? ReviewState::Approved : ReviewState::Rejected;
        break;
    }
  }
  return state;
}

ReviewState stateAfter(const std::vector<ReviewRecord>& history) {
  if (history.empty()) return ReviewState::None;
  switch (history.back().action) {
    case ReviewAction::Submit: return ReviewState::Submitted;
    case ReviewAction::Approve: return ReviewState::Approved;
    case ReviewAction::Reject: return ReviewState::Rejected;
  }
  return ReviewState::None;
}

}  // namespace

const char* reviewActionName(ReviewAction action) {
  switch (action) {
    case ReviewAction::Submit: return "submit";
    case ReviewAction::Approve: return "approve";
    case ReviewAction::Reject: return "reject";
  }
  return "submit";
}

std::optional<ReviewAction> reviewActionFromName(const std::string& name) {
  if (name == "submit") return ReviewAction::Submit;
  if (name == "approve") return ReviewAction::Approve;
  if (name == "reject") return ReviewAction::Reject;
  return std::nullopt;
}

const char* reviewStateName(ReviewState state) {
  switch (state) {
    case ReviewState::None: return "none";
    case ReviewState::Submitted: return "submitted";
    case ReviewState::Approved: return "approved";
    case ReviewState::Rejected: return "rejected";
  }
  return "none";
}

core::Result<std::vector<RevisionReview>> LabelSetReviews::read(int only, const RevisionList* known) const {
  auto dir = m_set->store().resolve(folder());
  if (!dir) return dir.error();
  std::map<int, std::vector<std::pair<int, fs::path>>> files;
  std::error_code ec;
  if (!fs::exists(*dir, ec)) return std::vector<RevisionReview>{};
  for (fs::directory_iterator it(*dir, ec), end; !ec && it != end; it.increment(ec)) {
    const auto parsed = parseRecordName(it->path().filename().string());
    if (parsed && (only == 0 || parsed->first == only)) files[parsed->first].push_back({parsed->second, it->path()});
  }
  if (ec) return makeError(ErrorCode::ReadFailed, *dir, "cannot list the review records: " + ec.message());
  std::vector<RevisionReview> out;
  const bool signedStore = shareTrust(m_set->store())->signedStore();
  RevisionList listedHere;
  const RevisionList* revisions = known;
  if (signedStore && !files.empty() && !revisions) {
    auto listed = m_set->list();
    if (!listed) return listed.error();
    listedHere = std::move(*listed);
    revisions = &listedHere;
  }
  for (auto& [revision, records] : files) {
    std::sort(records.begin(), records.end());
    RevisionReview review;
    review.revision = revision;
    for (const auto& [sequence, path] : records) {
      auto r = readRecord(m_set->store(), folder(), path, revision, sequence);
      if (!r) return r.error();
      review.history.push_back(std::move(r).value());
    }
    if (signedStore) {
      const RevisionInfo* info = revisions->find(revision);
      // A revision that is not there (or whose record is damaged) has no author to check against; its steps still
      // need signatures and turns.
      review.state = replaySigned(m_set->store(), review.history, info ? info->author : std::string());
    } else {
      review.state = stateAfter(review.history);
    }
    out.push_back(std::move(review));
  }
  return out;
}

core::Result<std::vector<RevisionReview>> LabelSetReviews::all(const RevisionList* revisions) const {
  return read(0, revisions);
}

core::Result<RevisionReview> LabelSetReviews::review(int revision) const {
  auto reviews = read(revision);  // only this revision's records are read
  if (!reviews) return reviews.error();
  if (!reviews->empty()) return std::move(reviews->front());
  RevisionReview none;
  none.revision = revision;
  return none;
}

core::Result<ReviewRecord> LabelSetReviews::record(int revision, ReviewAction action, const std::string& userIn,
                                                  const std::string& comment, const std::string& hostIn) const {
  // On a signed store the step is signed, and its user is the roster's name for this user's key.
  auto signer = recordSigner(m_set->store(), userIn, roleFor(action),
                             m_set->store().root() + "/" + m_set->folder() + " r" + std::to_string(revision));
  if (!signer) return signer.error();
  const std::string user = !signer->author.empty() ? signer->author : processUserName();
  const std::string host = hostIn.empty() ? localHostName() : hostIn;
  const std::string subject = m_set->folder() + " r" + std::to_string(revision);
  auto refuse = [&](const std::string& why) { return makeError(ErrorCode::InvalidArgument, subject, why); };
  if (action == ReviewAction::Reject && comment.empty())
    return refuse("a revision is sent back with a comment saying what to change");
  auto revisions = m_set->list();
  if (!revisions) return revisions.error();
  const RevisionInfo* info = revisions->find(revision);
  if (!info) return refuse("there is no such revision");
  // One round: the history as it stands, the rule, and the next sequence number claimed exclusively. A reviewer
  // who loses the race reads again and is judged against what the winner wrote.
  const auto round = [&](int) -> core::Result<std::optional<ReviewRecord>> {
    auto current = review(revision);
    if (!current) return current.error();
    const ReviewRecord* last = current->last();
    switch (action) {
      case ReviewAction::Submit:
        if (current->state == ReviewState::Submitted)
          return refuse("it is already submitted (by " + last->user + ", " + last->time + ")");
        if (current->state == ReviewState::Approved)
          return refuse("it is approved already (by " + last->user + ", " + last->time + "); a correction is a new revision");
        break;
      case ReviewAction::Approve:
      case ReviewAction::Reject: {
        if (current->state != ReviewState::Submitted)
          return refuse(std::string("it is ") + reviewStateName(current->state) +
                        (current->state == ReviewState::None ? " (never submitted for review)" : "") +
                        (last ? " (" + last->user + ", " + last->time + ")" : std::string()) +
                        ": only a submitted revision is approved or sent back");
        if (user == info->author)
          return refuse(user + " wrote this revision: another user reviews it");
        if (user == last->user) return refuse(user + " submitted this revision: another user reviews it");
        break;
      }
    }
    ReviewRecord r;
    r.revision = revision;
    r.sequence = current->history.empty() ? 1 : current->history.back().sequence + 1;
    if (r.sequence > 9999) return refuse("more than 9999 review steps");
    r.action = action;
    r.user = user;
    r.host = host;
    r.time = utcNowIso();
    r.comment = comment;
    nlohmann::json j{{"revision", r.revision}, {"sequence", r.sequence}, {"action", reviewActionName(action)},
                     {"user", r.user},         {"host", r.host},         {"time", r.time},
                     {"comment", r.comment}};
    signRecord(m_set->store(), *signer, folder() + "/" + recordName(revision, r.sequence), j);
    const std::string text = j.dump(2) + "\n";
    auto claimed = m_set->store().createExclusive(folder() + "/" + recordName(revision, r.sequence), text.data(), text.size());
    if (!claimed) return claimed.error();
    if (*claimed == Claim::Taken) return std::optional<ReviewRecord>();
    return std::optional<ReviewRecord>(r);
  };
  auto recorded = claimExclusively<ReviewRecord>(subject, "a review step", round);
  if (recorded)
    recorded->catalogueWarning = appendCatalogueOrWarn(
        m_set->store(), catalogueReviewRecord(m_set->study(), m_set->name(), recorded->revision,
                                              reviewActionName(recorded->action), recorded->user, recorded->time,
                                              recorded->sequence));
  return recorded;
}

}  // namespace delineate::io
