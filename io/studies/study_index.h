#pragma once
// The local index of a share's study catalogue (issue 24, item 3): SQLite on local disk (SQLite's own documentation
// warns against network filesystems), one file per store, that catches up with the catalogue
// (io/share/share_catalogue.h) by reading only what is new, and answers searches without touching the share.
//
// refresh(): reads unread snapshots (a new client: the newest compaction snapshot, then only the segments it does not
// cover), lists the catalogue's day folders, reads the modification times of the newest three (of all of them at the
// first refresh and hourly) and lists again only those whose time changed (or changed within the last minute: some
// shares keep times to the second), reads the segments it has not
// read, applies their records and recomputes the rows of the studies they touch, in one transaction. A segment or a
// line that cannot be read or parsed is recorded as a problem, named, and skipped; it hides nothing else. A series
// record of the log is applied only when the share holds its study's manifest of that series at the path and with
// the SHA-256 it names (one read each, 8 at a time; a refresh that checked 2,000 writes a compaction snapshot), else it
// is a problem, named and skipped: the catalogue never lists a study the share does not hold (issue 40). After
// kCompactAfter segments that no snapshot covers, it writes a compaction snapshot itself. Stats, listings and segment
// reads run 8 at a time (each is a round trip on a network share); records are applied in order on the caller's thread.
//
// Study rows: patient (ID, name), date (the earliest StudyDate of its series), modalities, description, series
// count, label sets, the newest label revision (set, number, author, time) and its review state, whether any
// revision was approved, and who is editing (the newest lease taken and not released, within kEditingHorizonHours:
// a crashed editor's lease leaves the catalogue saying so for at most that long; the window checks the live lease
// of the study it opens).

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/progress.h"
#include "io/share/share_store.h"

namespace delineate::io {

// Segments no snapshot covers before a client writes one: each costs a new client a round trip or two.
inline constexpr int kCompactAfter = 500;
inline constexpr int kEditingHorizonHours = 12;

struct StudyRow {
  std::string study;
  std::string patientId, patientName, studyDate, modalities, description;
  int seriesCount = 0;
  std::string labelSets;  // "liver, organs"
  std::string latestLabelSet;
  int latestRevision = 0;
  std::string latestAuthor, latestTime;
  std::string review;     // review state of the newest revision: none, submitted, approved, rejected
  bool approved = false;  // some revision of some label set is approved
  std::string editing;    // "user@host" while a lease is held (see the horizon above), else ""
  std::string editingSince;
  // none | editing | approved | revisions: what the study's labels are, for people and for the status filter
  std::string labelStatus() const;
};

struct StudyQuery {
  std::string text;         // any of patient ID, patient name, description, study name (substring, any case)
  std::string patient;      // patient ID or name (substring)
  std::string modality;     // exact, any case ("CT")
  std::string dateFrom, dateTo;  // YYYYMMDD or YYYY-MM-DD, inclusive
  std::string description;  // substring
  std::string status;       // "", none, editing, revisions (has any), approved, submitted
  // date, patient (name), patientId, study, modality, description, labels, revision (its time), review, editing
  std::string sortBy = "date";
  bool descending = true;
  int limit = 0;            // 0: all
};

struct CatalogueRefresh {
  int snapshotsRead = 0, segmentsRead = 0, recordsApplied = 0, daysListed = 0, studiesUpdated = 0;
  std::vector<std::string> newProblems;  // named: segment (and line) and reason
  std::string compactedInto;             // the snapshot written by this refresh, if any
  std::string compactWarning;            // a compaction that failed (the refresh itself stands)
};

class StudyIndex {
 public:
  // `indexPath` empty: defaultIndexPath(store). The folder is created.
  static core::Result<StudyIndex> open(const ShareStore& store, const std::string& indexPath = {});
  static std::string defaultIndexPath(const ShareStore& store);

  StudyIndex(StudyIndex&&) noexcept;
  StudyIndex& operator=(StudyIndex&&) noexcept;
  ~StudyIndex();

  core::Result<CatalogueRefresh> refresh(core::ProgressSink* progress = nullptr);
  core::Result<std::vector<StudyRow>> search(const StudyQuery& query) const;
  // How many studies match (limit ignored): "500 of 12,345 shown".
  core::Result<int> count(const StudyQuery& query) const;
  core::Result<std::optional<StudyRow>> find(const std::string& study) const;
  core::Result<int> studyCount() const;
  // Every problem recorded so far ("<segment>: <reason>").
  core::Result<std::vector<std::string>> problems() const;
  // Writes a compaction snapshot of everything read so far; returns its name.
  core::Result<std::string> compact();

  const std::string& path() const { return m_path; }
  // Where a damaged index file found at open() was moved before this one was built afresh ("" when none was).
  const std::string& setAside() const;

  struct Impl;  // (public for the file's own helpers; defined in study_index.cpp)

 private:
  StudyIndex(std::unique_ptr<Impl> impl, std::string path);
  std::unique_ptr<Impl> m_impl;
  std::string m_path;
};

// "2026-11-26" or "20261126" -> "20261126"; empty when it is neither.
std::string normalizeStudyDate(const std::string& text);

}  // namespace delineate::io
