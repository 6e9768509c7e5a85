#pragma once
// delineate-cli batch: an engine over a cohort of studies on a share store (batch_command.cpp), as they arrive
// (--watch), or as a Slurm job array (batch_slurm.cpp). What is done is decided from the share alone: a study is done
// when its label set holds a revision this very engine setup wrote (the "batch key" in the revision's extra, bound to
// the same image series), so a rerun, a requeued array task or a restarted watcher never segments a study twice,
// and no local file can disagree with the share.

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/label_map.h"

namespace delineate::io {
class ShareStore;
struct RevisionInfo;
struct RevisionList;
struct StudyQuery;
struct SeriesManifest;
}  // namespace delineate::io

namespace delineate::app::cli {

struct BatchOptions {
  std::string root, labelSet;
  // Which studies (one source; the catalogue filters are a source of their own, --all is the catalogue unfiltered).
  std::string dataset;            // NAME or NAME@REV
  std::vector<std::string> studies;
  std::string listFile, folder;
  bool all = false;
  std::string text, modality, patient, dateFrom, dateTo;  // catalogue filters (modality also picks the series)
  // The engine.
  std::string engine = "classic", device = "auto";
  std::vector<core::Label> classes;
  // What counts.
  bool alsoLabelled = false;      // also segment studies whose label set holds revisions this setup did not write
  std::string author, message;
  std::string summary, statistics;  // files: the summary (.csv or .json) and per-label statistics (.csv)
  bool json = false;              // one JSON line per event on stdout
  int sliceIndex = 0, sliceCount = 1;  // --slice K/N: the studies whose position modulo N is K
  bool sliceFromSlurm = false;         // --slice slurm: K and N from the array task
  // --watch
  bool watch = false;
  double pollSeconds = 10;
  // --slurm
  bool slurm = false, noSubmit = false;
  std::string jobDir;
  int arrayTasks = 0, maxRunning = 0, cpus = 0, gpus = 0;
  std::string memory, time, partition, account;
  std::vector<std::string> sbatchOptions;
};

struct BatchJobOptions {  // batch status | cancel
  std::string jobDir;
  bool json = false;
};

int runBatch(const BatchOptions& options);
int runBatchStatus(const BatchJobOptions& options);
int runBatchCancel(const BatchJobOptions& options);
int runBatchResubmit(const BatchJobOptions& options);

// The parts batch_slurm.cpp shares with the run itself.
namespace batch {

// Exit codes: every study done (now or before) or rightly skipped; some failed and others done; none could be done.
inline constexpr int kComplete = 0, kFailed = 1, kPartial = 3;

// The studies the options name, in a stable order (sorted by name, duplicates once), before any slice. A folder is
// imported first (each volume file a study named by its stem, each DICOM folder by its UIDs). Errors name the source.
// Returns the exit code (0: `studies` filled).
int resolveStudies(const BatchOptions& options, io::ShareStore& store, std::vector<std::string>& studies);

// Study names from a list file (one per line, '#' comments); a line that is not a share name is refused with its
// line number. Returns the exit code (the error printed).
int readStudyList(const std::string& file, std::vector<std::string>& studies);

// The catalogue search the filters make (sorted by study name).
io::StudyQuery catalogueQuery(const BatchOptions& options);

// The engine setup's identity: the key that marks its revisions, and what the revision records of it.
struct EngineIdentity {
  std::string key;          // 16 hex digits of SHA-256 over the canonical setup
  nlohmann::json record;    // engine id, model file and SHA-256, classes
};

// The job folder of a submitted array: job.json (what was asked, the job id) and studies.txt.
inline constexpr const char* kJobFile = "job.json";
inline constexpr const char* kJobStudies = "studies.txt";

// The newest revision of `list` written by the engine setup `key` and bound to `series` (any series when empty);
// null when there is none.
const io::RevisionInfo* batchRevision(const io::RevisionList& list, const std::string& key, const std::string& series);
// Whether `study`'s label set holds such a revision (its number, 0 when not or when the share cannot say).
int doneRevision(const io::ShareStore& store, const std::string& study, const std::string& labelSet,
                 const std::string& key);

}  // namespace batch
}  // namespace delineate::app::cli
