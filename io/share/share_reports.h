#pragma once
// Reports of a label-set revision kept on the share: the statistics, PDF, DICOM SEG and SR made from revision N of
// studies/<study>/labelsets/<set>/ are published next to nothing else, under
//   reports/<study>/<set>/r<NNNNNN>/<MMMM>/   one folder per publication, numbered 1, 2, ... (never overwritten)
//     .claim                                  the folder's number, taken with an exclusive create (link(2), NFS too)
//     <files>                                 each through the share's verified write path (io/share/share_store.h)
//     manifest.json                           written last: files with SHA-256 and size, author, time, revision,
//                                             de-identified or not, the message. A folder without it is incomplete
//                                             (a writer died): never listed as a report, shown in `incomplete`.
// Two publishers racing take different numbers; a failed publication leaves an incomplete folder and no manifest,
// and every error names the file. Publishing appends an "export" line to the share's audit log. The files are read
// whole before they are written (a report's files are megabytes; a file over 4 GiB is refused).

#include <cstdint>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/progress.h"
#include "io/share/share_store.h"

namespace delineate::io {

struct ReportFile {
  std::string name;       // file name in the report folder: letters, digits, '-', '_', '.', not starting with '.'
  std::string localPath;  // where it is now
};

struct PublishedFile {
  std::string name, sha256;
  std::uint64_t bytes = 0;
};

struct PublishedReport {
  int revision = 0;  // the label-set revision the report describes
  int number = 0;    // the publication's number under that revision
  std::string folder;  // relative to the share root
  std::string author, time, message;
  bool deidentified = false;
  std::vector<PublishedFile> files;
  // publishReport only: why the audit record could not be written (the report is published either way).
  std::string auditWarning;
};

struct ReportList {
  std::vector<PublishedReport> reports;  // by revision, then number
  std::vector<std::string> incomplete;   // folders (relative) without a manifest
  std::vector<core::Error> damaged;      // manifests that do not parse, naming the file and why
};

struct ReportPublishRequest {
  std::string study, labelSet;
  int revision = 0;  // must exist in the label set
  std::string author;
  std::string message;
  bool deidentified = false;
  std::vector<ReportFile> files;
  // Told after each file ("write"); a cancel before the manifest stops with ErrorCode::Cancelled and leaves an
  // incomplete folder (listed as such, never as a report).
  core::ProgressSink* progress = nullptr;
};

core::Result<PublishedReport> publishReport(const ShareStore& store, const ReportPublishRequest& request);
core::Result<ReportList> listReports(const ShareStore& store, const std::string& study, const std::string& labelSet);

}  // namespace delineate::io
