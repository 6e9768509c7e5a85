#pragma once
// The study catalogue on the share (issue 24, item 3): append-only records of what happened to studies, read by every
// client into a local index (io/studies/study_index.h) that catches up by reading only what is new.
//
// Why not walk studies/: a hospital share holds 100,000+ studies and is a network filesystem. Walking it costs several
// round trips per study (open the folder, list it, open each manifest), i.e. minutes behind a 2 ms RTT, on every
// start of every client. The catalogue turns that into a few large sequential reads.
//
// Layout:
//   catalogue/log/<YYYYMMDD>/<epoch-ms>-<host>-<pid>-<random>.jsonl   segments: one or more records, one JSON object
//          per line, published once through the verified write path under a new name and never changed. A day's
//          folder gets new names only; a reader remembers each day folder's modification time and lists only the
//          folders whose time changed since it last looked (a stat of the last few days' folders per refresh, of
//          all of them at a client's first refresh and hourly: a writer whose clock is behind writes into an old one).
//   catalogue/snapshots/<epoch-ms>-<host>-<pid>-<random>.jsonl.gz   compaction: the whole state as records, and the
//          segments (with their day folders' times) it covers. A new client reads the newest snapshot and then only
//          the segments it does not cover, instead of one file per import since the share began.
// Records ("kind" says which; all carry "time", UTC ISO 8601, and the writer's "user" and "host"):
//   series  a series imported into a study: its manifest's path and SHA-256, patient, date, modality, descriptions
//   labels  a label-set revision saved: study, labelSet, revision, author, bound series
//   review  a review step: study, labelSet, revision, action (submit / approve / reject)
//   lease   who edits a label set: study, labelSet, event (acquired / released / broken)
// Records are facts, never instructions: applying one twice, or a snapshot after the segments it covers, gives the
// same state, so a reader that crashed mid-refresh just reads again.
//
// The catalogue is an index of the studies/ folders, not their source of truth: a record that cannot be written
// (the share filled up after a save) leaves the save as it is and comes back to the caller as a warning, and
// `study reindex` rebuilds the records of every study from its folders (the upgrade path for shares written before
// the catalogue existed).

#include <cstdint>
#include <string>
#include <vector>

#include "core/error.h"
#include "io/share/share_store.h"

namespace delineate::io {

inline constexpr const char* kCatalogueLog = "catalogue/log";
inline constexpr const char* kCatalogueSnapshots = "catalogue/snapshots";

// Writes `records` (JSON object texts, one per record, each with a "kind") as one new segment. Records without
// "time", "user" or "host" get this process's. Returns the segment's path relative to the store.
core::Result<std::string> appendCatalogue(const ShareStore& store, const std::vector<std::string>& records);

// The same, for callers whose own write already succeeded (a save, a review step, a lease): the catalogue is an
// index, so a failure here must not undo or hide that write. Returns "" on success, else a warning for the user
// that names the record and tells how to repair the index.
std::string appendCatalogueOrWarn(const ShareStore& store, const std::string& record);

// Record builders (JSON object text).
std::string catalogueLabelsRecord(const std::string& study, const std::string& labelSet, int revision,
                                  const std::string& author, const std::string& time, const std::string& series);
std::string catalogueReviewRecord(const std::string& study, const std::string& labelSet, int revision,
                                  const std::string& action, const std::string& user, const std::string& time,
                                  int sequence);
std::string catalogueLeaseRecord(const std::string& study, const std::string& labelSet, const std::string& event,
                                 const std::string& user, const std::string& host);

// studies/<study>/labelsets/<set> -> (study, set); false for any other folder.
bool splitLabelSetFolder(const std::string& folder, std::string* study, std::string* labelSet);

// The day folders' names of catalogue/log, sorted (an empty list when the catalogue has no log yet): one listing.
core::Result<std::vector<std::string>> listCatalogueDayNames(const ShareStore& store);
// One day folder's modification time as the share reports it (a round trip on a network share).
core::Result<std::int64_t> catalogueDayTime(const ShareStore& store, const std::string& day);
// The segment names in one day folder, sorted; temporary files of writes in progress are left out.
core::Result<std::vector<std::string>> listCatalogueSegments(const ShareStore& store, const std::string& day);
// A segment's lines (size-capped; an unreadable segment is an error naming it).
core::Result<std::vector<std::string>> readCatalogueSegment(const ShareStore& store, const std::string& day,
                                                            const std::string& name);

struct CatalogueSnapshot {
  struct Covered {
    std::string day;
    std::int64_t mtimeNs = 0;
    bool confirmed = false;     // the writer's listing of the folder at that time is known to be complete
    std::vector<std::string> segments;
  };
  std::vector<Covered> covered;
  std::vector<std::string> records;
};
// Snapshot names, sorted (oldest first).
core::Result<std::vector<std::string>> listCatalogueSnapshots(const ShareStore& store);
core::Result<CatalogueSnapshot> readCatalogueSnapshot(const ShareStore& store, const std::string& name);
// Publishes a snapshot; returns its name, "<epoch-ms>-<host>-<pid>-<random>.<kind>.jsonl.gz". `kind`: "compact"
// (everything its writer's index knew: a reader needs only the newest) or "reindex" (records read from the study
// folders: every reader reads every one).
core::Result<std::string> writeCatalogueSnapshot(const ShareStore& store, const CatalogueSnapshot& snapshot,
                                                 const std::string& kind);

}  // namespace delineate::io
