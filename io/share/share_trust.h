#pragma once
// Signed records on the share (issue 47, item 1): the store's roster, the records signed as they are written, and
// what each record read back is worth.
//
// Layout: ROOT/trust/roster/r<NNNNNN>.roster.json, with its revision metadata: each version of the roster
// (io/trust/roster.h), a revision like any other, never overwritten; version N is revision N.
//
// Rules:
// - A store without a roster is unsigned (every store before issue 47): nothing is signed, every record reads as
//   "unsigned", and review states count as they always did. Once a store has a roster, every record a client writes
//   is signed with that user's key (io/trust/signing_key.h), and a write is refused, naming the reason, when the user
//   has no key, is not on the roster, or lacks the role the record needs: label revisions and review submissions
//   "annotator", approvals and rejections "reviewer", dataset versions and checkpoints "trainer", the roster "admin".
//   The record's author is the roster's name for the key, whatever name the caller gave (a preferences name, --author):
//   identity is the key, which the operating-system account holds; callers tell the user when the names differ.
// - Readers verify every record against the roster chain (trusted on first use and never rolled back:
//   checkRosterPin). On a signed store only records signed by a current member with the right role count: an
//   unsigned, forged (changed after signing, or signed by someone else than its author), unknown-key, removed-member
//   or out-of-role approval is listed as such and never makes a revision approved.
// - A roster that does not verify, is not the pinned one, was rolled back, or has vanished after this user pinned it
//   makes every signed record "untrusted-roster": nothing counts, nothing is signed, and writes are refused.

#include <functional>
#include <string>
#include <vector>

#include "core/error.h"
#include "io/share/share_store.h"
#include "io/trust/roster.h"

namespace delineate::io {

struct ShareTrustStatus {
  bool hasRoster = false;  // false and no problem: an unsigned store
  std::string problem;     // the roster (or its pin) is not trusted: why
  bool pinnedNow = false;  // this read pinned the roster (first use)
  int version = 0;
  std::string rootFingerprint;
  std::vector<RosterMember> members;
  struct Former {
    std::string user;
    int removedIn = 0;  // the version that no longer lists them
  };
  std::vector<Former> removed;  // users an earlier version listed and the current one does not
  // Content encryption (io/trust/content_key.h): the current key generation (0: the share's content files are not
  // encrypted), the members it is wrapped for, and what this user holds.
  int contentGeneration = 0;
  std::vector<std::string> contentReaders;
  bool thisUserReadsContent = false;
  std::string contentProblem;  // why this user cannot read or write new content
};

// Whether the store signs its records (has a roster, or had one this user pinned), as the store object read it.
bool storeIsSigned(const ShareStore& store);

// The store's roster read and checked now (not the store object's cached reading).
ShareTrustStatus readShareTrust(const ShareStore& store);

// Version 1 of the roster: `admin` holding `key` with the roles admin plus `roles`. Refused when the store has a
// roster already. Pins it for this user.
core::Result<int> createRoster(const ShareStore& store, const std::string& admin, const SigningKey& key,
                               const std::vector<std::string>& roles = {});
// The next version: the current one changed by `change`, signed by `key`, which must be an admin's now. Refused when
// the current roster is not trusted, when `change` refuses, when no admin would be left, or when another admin
// published a version meanwhile (Conflict: read it again). Returns the new version.
core::Result<int> updateRoster(const ShareStore& store, const SigningKey& key,
                               const std::function<core::Status(Roster&)>& change);

// Turns on encryption of the store's content files (io/trust/content_key.h): a new roster version whose content key
// (generation 1) is wrapped for every member. Admins only (`key`); refused when a member has no box key (they could
// not read the content: re-add them with theirs, or remove them) or when it is on already. From then on label
// revisions, checkpoints, dataset versions and imported series are sealed as they are written; what was written
// before stays as it is. `updateRoster` keeps the key: a member added gets it wrapped for them; a member
// removed, or whose keys change, makes a new generation that the members left get (the removed one cannot read
// what is written afterwards).
core::Result<int> encryptShareContent(const ShareStore& store, const SigningKey& key);

// What a record is worth, in words ("signed by alice", "unsigned", the reason it is not trusted).
std::string describeTrust(const RecordTrust& trust);

// Every signed-record kind in the store checked at once (`delineate-cli trust verify`): label revisions, review
// steps, dataset versions and checkpoints.
struct CheckedRecord {
  std::string path;   // relative to the store
  std::string kind;   // "labels", "review", "dataset", "checkpoint"
  std::string author; // as the record names it
  RecordTrust trust;
  bool counted = true;     // review steps: whether it counts towards the state
  std::string notCounted;  // why not
};
struct ShareRecordsReport {
  std::vector<CheckedRecord> records;  // by path
  std::vector<std::string> problems;   // folders or records that could not be read, each naming its file
  std::size_t count(TrustState state) const;
};
// `threads`: folders checked at once (0: the hardware's count).
core::Result<ShareRecordsReport> checkShareRecords(const ShareStore& store, int threads = 0);

}  // namespace delineate::io
