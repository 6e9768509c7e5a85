#include "io/share/audit_log.h"

#include "io/base/file_modes.h"
#include "io/base/posix_util.h"
#include "io/base/process_info.h"
#include "io/base/sha256.h"

#include <fcntl.h>
#include <pwd.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <exception>
#include <fstream>
#include <nlohmann/json.hpp>
#include <vector>

namespace delineate::io {
using detail::errnoText;

namespace {

using core::ErrorCode;
using core::makeError;
using json = nlohmann::json;

const std::string kZeroHash(64, '0');
// A tail longer than this cannot be a record we wrote; refusing it bounds what append reads.
constexpr std::size_t kMaxTailBytes = 4 * kMaxAuditLineBytes;


}  // namespace

namespace {

bool validHost(const std::string& host) {
  if (host.empty() || host.size() > 255 || host[0] == '.') return false;
  for (const char c : host) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
                    c == '_' || c == '.';
    if (!ok) return false;
  }
  return true;
}

json toJsonWithoutHash(const AuditRecord& r) {
  json j = json::object();
  j["seq"] = r.seq;
  j["time"] = r.time;
  j["user"] = r.user;
  j["host"] = r.host;
  j["action"] = r.action;
  j["study"] = r.study;
  j["labelSet"] = r.labelSet;
  j["revision"] = r.revision;
  j["detail"] = r.detail;
  j["prev"] = r.prev;
  return j;
}

struct FormattedLine {
  std::string line;
  std::string hash;
};

core::Result<FormattedLine> formatLine(const AuditRecord& record) {
  if (!isAuditAction(record.action))
    return makeError(ErrorCode::InvalidArgument, "audit record",
                     "unknown action '" + record.action + "' (expected " + [] {
                       std::string names;
                       for (const char* a : kAuditActions) names += (names.empty() ? "" : ", ") + std::string(a);
                       return names;
                     }() + ")");
  try {
    json j = toJsonWithoutHash(record);
    FormattedLine out;
    const std::string canonical = j.dump();
    out.hash = sha256Hex(canonical.data(), canonical.size());
    j["hash"] = out.hash;
    out.line = j.dump();
    return out;
  } catch (const json::exception&) {
    // dump() throws on strings that are not valid UTF-8: refuse rather than write a line readers cannot parse.
    return makeError(ErrorCode::InvalidArgument, "audit record", "a text field is not valid UTF-8");
  }
}

struct CheckedLine {
  std::int64_t seq = 0;
  std::string prev;
  std::string problem;  // empty: the line is a record whose own hash is right
};

// Checks one line on its own (JSON, fields, action, hash); the chain and seq order need the neighbours.
CheckedLine checkLine(const std::string& line, AuditRecord* parsed = nullptr) {
  CheckedLine out;
  try {
    json j = json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded() || !j.is_object()) {
      out.problem = "not JSON";
      return out;
    }
    const auto seqIt = j.find("seq");
    if (seqIt == j.end() || !seqIt->is_number_integer()) {
      out.problem = "missing or mistyped field 'seq'";
      return out;
    }
    out.seq = seqIt->get<std::int64_t>();
    for (const char* key : {"time", "user", "host", "action", "study", "labelSet", "detail", "prev", "hash"}) {
      const auto it = j.find(key);
      if (it == j.end() || !it->is_string()) {
        out.problem = std::string("missing or mistyped field '") + key + "'";
        return out;
      }
    }
    const auto revisionIt = j.find("revision");
    if (revisionIt == j.end() || !revisionIt->is_number_integer()) {
      out.problem = "missing or mistyped field 'revision'";
      return out;
    }
    const std::string action = j["action"].get<std::string>();
    if (!isAuditAction(action)) {
      out.problem = "unknown action '" + action + "'";
      return out;
    }
    out.prev = j["prev"].get<std::string>();
    const std::string stated = j["hash"].get<std::string>();
    j.erase("hash");
    const std::string canonical = j.dump();
    if (sha256Hex(canonical.data(), canonical.size()) != stated) out.problem = "hash mismatch";
    if (parsed && out.problem.empty()) {
      parsed->seq = out.seq;
      parsed->time = j["time"].get<std::string>();
      parsed->user = j["user"].get<std::string>();
      parsed->host = j["host"].get<std::string>();
      parsed->action = action;
      parsed->study = j["study"].get<std::string>();
      parsed->labelSet = j["labelSet"].get<std::string>();
      parsed->revision = static_cast<int>(j["revision"].get<std::int64_t>());
      parsed->detail = j["detail"].get<std::string>();
      parsed->prev = out.prev;
      parsed->hash = stated;
    }
  } catch (const std::exception& e) {
    out.problem = std::string("unreadable record: ") + e.what();
  }
  return out;
}

// The last line of the open log (without its '\n'), read backwards from the end: appends stay cheap however long
// the log grows. A file not ending in '\n' is a torn append and is refused (see the header).
core::Result<std::string> readLastLine(int fd, const std::string& path, std::uint64_t size) {
  char last = 0;
  ssize_t n;
  do n = ::pread(fd, &last, 1, static_cast<off_t>(size - 1));
  while (n < 0 && errno == EINTR);
  if (n != 1)
    return makeError(ErrorCode::ReadFailed, path, "reading the end of the log: " + errnoText(n < 0 ? errno : EIO));
  if (last != '\n')
    return makeError(ErrorCode::Corrupt, path,
                     "the last line has no newline: a torn append (a crash or a full disk while writing); the log "
                     "is not continued until someone checks it (verify the log, then repair it by hand)");
  std::string tail;  // bytes before the final '\n', collected backwards chunk by chunk
  std::uint64_t end = size - 1;
  std::vector<char> chunk(4096);
  while (end > 0) {
    const std::uint64_t start = end > chunk.size() ? end - chunk.size() : 0;
    const std::size_t want = static_cast<std::size_t>(end - start);
    std::size_t got = 0;
    while (got < want) {
      const ssize_t r = ::pread(fd, chunk.data() + got, want - got, static_cast<off_t>(start + got));
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0)
        return makeError(ErrorCode::ReadFailed, path, "reading the end of the log: " + errnoText(r < 0 ? errno : EIO));
      got += static_cast<std::size_t>(r);
    }
    for (std::size_t i = want; i > 0; --i) {
      if (chunk[i - 1] == '\n') {
        tail.insert(0, chunk.data() + i, want - i);
        return tail;
      }
    }
    tail.insert(0, chunk.data(), want);
    if (tail.size() > kMaxTailBytes)
      return makeError(ErrorCode::Corrupt, path, "the last line is longer than any audit record can be");
    end = start;
  }
  return tail;  // the whole file is one line
}

}  // namespace

bool isAuditAction(const std::string& action) {
  for (const char* a : kAuditActions)
    if (action == a) return true;
  return false;
}

core::Result<std::string> formatAuditLine(const AuditRecord& record) {
  auto formatted = formatLine(record);
  if (!formatted) return formatted.error();
  return std::move(formatted->line);
}

core::Result<AuditLog> AuditLog::open(const std::string& folder, const std::string& host) {
  std::string name = host;
  if (name.empty()) {
    name = localHostName();
    if (name.empty())
      return makeError(ErrorCode::InvalidArgument, folder, "cannot read this machine's hostname: " + errnoText(errno));
  }
  if (!validHost(name))
    return makeError(ErrorCode::InvalidArgument, folder,
                     "host name '" + name + "' cannot name an audit log (letters, digits, '-', '_', '.' only)");
  struct stat st {};
  if (::stat(folder.c_str(), &st) != 0) {
    const int e = errno;
    return makeError(e == ENOENT ? ErrorCode::NotFound : ErrorCode::ReadFailed, folder,
                     "audit folder: " + errnoText(e));
  }
  if (!S_ISDIR(st.st_mode)) return makeError(ErrorCode::InvalidArgument, folder, "the audit folder is not a folder");
  std::string base = folder;
  while (base.size() > 1 && base.back() == '/') base.pop_back();
  return AuditLog((base == "/" ? "" : base) + "/audit-" + name + ".jsonl", name);
}

core::Status AuditLog::append(AuditRecord record, AuditRecord* written) const {
  if (!isAuditAction(record.action))
    return makeError(ErrorCode::InvalidArgument, m_path,
                     "unknown action '" + record.action + "' (expected " + [] {
                       std::string names;
                       for (const char* a : kAuditActions) names += (names.empty() ? "" : ", ") + std::string(a);
                       return names;
                     }() + ")");
  if (record.host.empty()) record.host = m_host;
  if (record.host != m_host)
    return makeError(ErrorCode::InvalidArgument, m_path,
                     "a record for host '" + record.host + "' does not belong in this host's log");
  if (record.user.empty()) record.user = processUserName();
  // Text that cannot be written (not UTF-8) is refused before the file is touched, so a refused record leaves no
  // trace, not even an empty log.
  record.seq = 1;
  record.prev = kZeroHash;
  record.time = utcNowIso();
  if (auto trial = formatLine(record); !trial) return makeError(trial.error().code, m_path, trial.error().detail);

  // The share's append mode (io/base/file_modes.h): the umask may narrow it at creation, so it is set again before
  // the first line; never readable by others, as the log names patients' studies.
  const int fd = ::open(m_path.c_str(), O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, kShareAppendFileMode);
  if (fd < 0) {
    const int e = errno;
    return makeError(ErrorCode::WriteFailed, m_path, "cannot open the audit log: " + errnoText(e));
  }
  detail::FdGuard closer(fd);
  // Serialises read-tail + write between processes on this host. Where the file system has no locks at all the
  // append goes on unlocked: one file per host keeps that window to concurrent processes of one machine.
  int locked;
  do locked = ::flock(fd, LOCK_EX);
  while (locked != 0 && errno == EINTR);
  if (locked != 0 && errno != ENOLCK && errno != ENOSYS && errno != EOPNOTSUPP) {
    const int e = errno;
    return makeError(ErrorCode::WriteFailed, m_path, "cannot lock the audit log: " + errnoText(e));
  }

  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const int e = errno;
    return makeError(ErrorCode::ReadFailed, m_path, "cannot stat the audit log: " + errnoText(e));
  }
  const bool fresh = st.st_size == 0;
  if (fresh) {
    // Best effort (the creator may be another user of this host, and some shares ignore modes).
    if (st.st_uid == ::geteuid()) (void)::fchmod(fd, kShareAppendFileMode);
    record.seq = 1;
    record.prev = kZeroHash;
  } else {
    auto last = readLastLine(fd, m_path, static_cast<std::uint64_t>(st.st_size));
    if (!last) return last.error();
    const CheckedLine checked = checkLine(*last);
    if (!checked.problem.empty())
      return makeError(ErrorCode::Corrupt, m_path,
                       "the last line is not a valid record (" + checked.problem +
                           "); the log is not continued until someone checks it");
    record.seq = checked.seq + 1;
    record.prev = sha256Hex(last->data(), last->size());
  }
  record.time = utcNowIso();
  auto formatted = formatLine(record);
  if (!formatted) return makeError(formatted.error().code, m_path, formatted.error().detail);
  record.hash = formatted->hash;
  std::string& line = formatted->line;
  line += '\n';
  if (line.size() > kMaxAuditLineBytes)
    return makeError(ErrorCode::InvalidArgument, m_path,
                     "the record is " + std::to_string(line.size()) + " bytes, more than the " +
                         std::to_string(kMaxAuditLineBytes) + " an audit line may have");

  // One write(): with O_APPEND the line lands whole at the end or, if the OS cuts it short, as a torn last line
  // that verification and the next append both detect. Never a second write that could interleave.
  ssize_t n;
  do n = ::write(fd, line.data(), line.size());
  while (n < 0 && errno == EINTR);
  if (n < 0) {
    const int e = errno;
    return makeError(ErrorCode::WriteFailed, m_path, "appending to the audit log: " + errnoText(e));
  }
  if (static_cast<std::size_t>(n) != line.size())
    return makeError(ErrorCode::WriteFailed, m_path,
                     "only " + std::to_string(n) + " of " + std::to_string(line.size()) +
                         " bytes were appended; the log now ends in a torn line");
  if (::fsync(fd) != 0) {
    const int e = errno;
    return makeError(ErrorCode::WriteFailed, m_path, "flushing the audit log to disk: " + errnoText(e));
  }
  if (fresh) {
    // The file may have just been created: make its folder entry durable too (best effort, as in atomic_file).
    const std::string folder = m_path.substr(0, m_path.find_last_of('/'));
    const int dfd = ::open(folder.empty() ? "/" : folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
      (void)::fsync(dfd);
      ::close(dfd);
    }
  }
  if (written) *written = std::move(record);
  return core::Status::success();
}

core::Result<AuditVerifyReport> verifyAuditLog(const std::string& file) { return readAuditLog(file, nullptr); }

core::Result<AuditVerifyReport> readAuditLog(const std::string& file, std::vector<AuditRecord>* records) {
  try {
    errno = 0;
    std::ifstream in(file, std::ios::binary);
    if (!in) {
      const int e = errno;
      return makeError(e == ENOENT ? ErrorCode::NotFound : ErrorCode::ReadFailed, file,
                       "cannot open the audit log" + (e != 0 ? ": " + errnoText(e) : std::string()));
    }
    AuditVerifyReport report;
    std::string line;
    std::string previous;
    std::int64_t lastSeq = 0;
    int lineNo = 0;
    while (std::getline(in, line)) {
      ++lineNo;
      if (in.eof()) {  // getline stopped at the end of the file, not at a '\n'
        report.firstBad = AuditProblem{lineNo, 0, "torn last line"};
        break;
      }
      AuditRecord record;
      const CheckedLine checked = checkLine(line, records ? &record : nullptr);
      std::string problem = checked.problem;
      if (problem.empty()) {
        const std::string expected = lineNo == 1 ? kZeroHash : sha256Hex(previous.data(), previous.size());
        if (checked.prev != expected)
          problem = lineNo == 1 ? "chain broken: the first record's prev is not 64 zeros"
                                : "chain broken: prev does not match line " + std::to_string(lineNo - 1);
        else if (checked.seq != lastSeq + 1)
          problem = "seq not consecutive";
      }
      if (!problem.empty()) {
        report.firstBad = AuditProblem{lineNo, checked.seq, problem};
        break;
      }
      ++report.recordsChecked;
      if (records) records->push_back(std::move(record));
      lastSeq = checked.seq;
      previous.swap(line);
    }
    if (in.bad()) return makeError(ErrorCode::ReadFailed, file, "reading the audit log failed", lineNo);
    return report;
  } catch (const std::exception& e) {
    return makeError(ErrorCode::ReadFailed, file, std::string("verifying the audit log: ") + e.what());
  }
}

std::string localAuditFolder(const std::string& storeId) { return userCacheFolder() + "/audit/" + storeId; }

core::Status appendReadAudit(const std::string& storeRoot, const std::string& storeId, AuditRecord record,
                             std::string* where) {
  record.action = "read";
  const std::string shared = storeRoot + "/audit";
  // Whether the share takes this user's writes at all: a read-only mount, or a member with read access only.
  const auto refuses = [](const std::string& path) {
    return ::access(path.c_str(), W_OK) != 0 && (errno == EROFS || errno == EACCES || errno == EPERM);
  };
  auto log = AuditLog::open(shared);
  const bool local = refuses(shared) || (log && ::access(log->path().c_str(), F_OK) == 0 && refuses(log->path()));
  if (!local) {
    if (!log) return log.error();
    if (where) *where = log->path();
    return log->append(std::move(record));
  }
  const std::string folder = localAuditFolder(storeId);
  if (core::Status s = createFolders(folder, FileAccess::Private); !s) return s;
  auto mine = AuditLog::open(folder);
  if (!mine) return mine.error();
  if (where) *where = mine->path();
  return mine->append(std::move(record));
}

core::Status appendStoreAudit(const std::string& storeRoot, AuditRecord record) {
  auto log = AuditLog::open(storeRoot + "/audit");
  if (!log) return log.error();
  return log->append(std::move(record));
}

}  // namespace delineate::io
