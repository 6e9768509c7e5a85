#pragma once
// Append-only audit log of who did what to which study: one file per host, "<folder>/audit-<host>.jsonl", one JSON
// object per line, chained by SHA-256 so that an edited, deleted, reordered or inserted line is detected.
//
// Rules (the format is the contract; readers on other hosts and later versions rely on it):
// - Fields: seq (1-based, consecutive), time (UTC, ISO 8601 with milliseconds, "2026-11-22T03:15:10.123Z"), user,
//   host, action (one of kAuditActions), study, labelSet, revision (integer, 0: none), detail (free text),
//   prev, hash. Further fields written by a later version are covered by the hash and kept by verification.
// - prev: hex SHA-256 of the previous record's exact line bytes, without its terminating '\n'; 64 zeros for seq 1.
// - hash: hex SHA-256 of the record's canonical JSON. Canonical = nlohmann::json::dump() (no indent, UTF-8 as is,
//   nlohmann's escaping) of the object without its "hash" member; nlohmann's default object is a std::map, so keys
//   are in byte order. The line itself is dump() of the object with "hash" (also sorted), so as written a line is its
//   canonical JSON with the hash inserted; verification re-dumps the parsed values, so it does not depend on that.
// - Every line ends with '\n'. A last line without one is a torn append (the writer died or the disk filled mid
//   write). Appending refuses to continue such a log (Corrupt, naming the file): chaining onto garbage would either
//   hide the damage or make every later record unverifiable. Someone has to look at the file, and the chain up to the
//   torn line still verifies. The same holds when the last line is not a record whose own hash is right.
// - Appends take an exclusive flock on the file for the read-tail + write, so processes on one host never race for a
//   seq; hosts never share a file. The line goes out with one write() on an O_APPEND descriptor, then fsync.
// - A line is at most kMaxAuditLineBytes; longer details are refused rather than split.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/error.h"
#include "io/base/process_info.h"  // utcNowIso, processUserName, localHostName: what every record states

namespace delineate::io {

inline constexpr const char* kAuditActions[] = {"open", "save", "export", "inference", "training", "lease-break",
                                                "restore", "review", "dataset", "import", "reindex",
                                                "receive", "trust", "read"};
inline constexpr std::size_t kMaxAuditLineBytes = 64 * 1024;

bool isAuditAction(const std::string& action);


struct AuditRecord {
  std::int64_t seq = 0;  // set by append
  std::string time;      // set by append (the current UTC time)
  std::string user;      // empty: append fills in the login name of the process
  std::string host;      // empty: append fills in the log's host; another host is refused
  std::string action;    // one of kAuditActions
  std::string study;
  std::string labelSet;
  int revision = 0;
  std::string detail;
  std::string prev;  // set by append
  std::string hash;  // set by append
};

// The line for `record` as given (seq, time and prev included), with its hash computed; no trailing '\n'.
// InvalidArgument for an unknown action or text that is not valid UTF-8.
core::Result<std::string> formatAuditLine(const AuditRecord& record);

class AuditLog {
 public:
  // `folder` must exist (it is not created). `host` names the file: letters, digits, '-', '_', '.', not starting
  // with '.'; empty means this machine's hostname. The file is created by the first append.
  static core::Result<AuditLog> open(const std::string& folder, const std::string& host = {});

  // Fills seq, time, prev (and user/host when empty), then appends one line. The record that was written is
  // returned through `written` when given.
  core::Status append(AuditRecord record, AuditRecord* written = nullptr) const;

  const std::string& path() const { return m_path; }
  const std::string& host() const { return m_host; }

 private:
  AuditLog(std::string path, std::string host) : m_path(std::move(path)), m_host(std::move(host)) {}
  std::string m_path;
  std::string m_host;
};

// Appends `record` to this host's log of the share store at `storeRoot` (its audit/ folder): what every writer on a
// store (saves, reports, lease breaks, reviews, datasets; the CLI and the window alike) records its action through,
// and every reader of patient data ("read": label revisions, checkpoints and datasets loaded or copied out, series
// fetched; io records these itself, before the data is read, and refuses the read when the record cannot be written).
core::Status appendStoreAudit(const std::string& storeRoot, AuditRecord record);

// A read's record (action "read"), written before the read. On the share's log; where the share refuses this user's
// writes by design (mounted read-only, or a member allowed to read only), in this user's own log of that share,
// localAuditFolder(storeId) (owner-only, the same format, shown by `audit show`), and `where` names it. Any other
// failure (a damaged log, a full disk) is an error, and the caller does not read.
core::Status appendReadAudit(const std::string& storeRoot, const std::string& storeId, AuditRecord record,
                             std::string* where = nullptr);
// <userCacheFolder>/audit/<storeId>: this user's record of reads on a share that took no writes from them.
std::string localAuditFolder(const std::string& storeId);

struct AuditProblem {
  int line = 0;           // 1-based line number in the file
  std::int64_t seq = 0;   // the record's seq where it could be read, else 0
  std::string reason;     // "hash mismatch", "chain broken: prev does not match line N", "seq not consecutive",
                          // "not JSON", "torn last line", "missing or mistyped field 'x'", "unknown action 'x'"
};

struct AuditVerifyReport {
  std::size_t recordsChecked = 0;         // records that verified, in order, before the first problem
  std::optional<AuditProblem> firstBad;   // verification stops here: later lines cannot be trusted to chain
  bool ok() const { return !firstBad.has_value(); }
};

// Reads every line of `file`. An error (naming the file) only when it cannot be read; a damaged log is a report
// with firstBad set. Never throws.
core::Result<AuditVerifyReport> verifyAuditLog(const std::string& file);
// As verifyAuditLog, and every record that verified (in order, up to the first problem) appended to `records`.
core::Result<AuditVerifyReport> readAuditLog(const std::string& file, std::vector<AuditRecord>* records);

}  // namespace delineate::io
