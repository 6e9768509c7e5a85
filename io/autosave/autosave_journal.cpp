#include "io/autosave/autosave_journal.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <new>
#include <random>
#include <sstream>
#include <thread>
#include <utility>

#include <nlohmann/json.hpp>

#include "io/base/atomic_file.h"
#include "io/base/file_read.h"
#include "io/base/process_info.h"
#include "io/volume/nifti.h"
#include "io/base/posix_util.h"
#include "io/base/sha256.h"

namespace delineate::io {
using detail::errnoText;
using detail::FdGuard;
using detail::syncFolder;

namespace {

namespace fs = std::filesystem;
using core::ErrorCode;
using core::makeError;
using core::Result;
using core::Status;
using Json = nlohmann::json;

constexpr const char* kLockName = "owner.lock";
constexpr const char* kSessionName = "session.json";
constexpr const char* kSnapshotName = "snapshot.json";
constexpr const char* kLabelsPrefix = "labels-";
constexpr const char* kLabelsSuffix = ".nii.gz";
constexpr std::uintmax_t kMaxJsonBytes = 1 << 20;  // our records are a few hundred bytes; more is not ours
// A ".<id>.creating" folder younger than this may belong to a create() between mkdir and flock; never touch it.
constexpr auto kStagingGrace = std::chrono::seconds(60);

std::string join(const std::string& folder, const std::string& name) { return (fs::path(folder) / name).string(); }



// --- locks -------------------------------------------------------------------------------------------------------

enum class LockState { Acquired, Held, Missing, Failed };

struct LockAttempt {
  LockState state = LockState::Failed;
  int fd = -1;  // open and locked when Acquired
  int error = 0;
};

// Shared locks are what scans take, so an owner (exclusive, for life) always wins and scanners never block each
// other; an exclusive taker retries briefly so a concurrent scan's moment of holding the lock is not mistaken for a
// live owner.
LockAttempt lockJournal(const std::string& folder, bool exclusive, bool createLockFile) {
  const std::string path = join(folder, kLockName);
  LockAttempt a;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | (createLockFile ? O_CREAT : 0), 0600);
  if (fd < 0) {
    a.error = errno;
    a.state = a.error == ENOENT ? LockState::Missing : LockState::Failed;
    return a;
  }
  FdGuard guard(fd);
  for (int attempt = 0;; ++attempt) {
    if (::flock(fd, (exclusive ? LOCK_EX : LOCK_SH) | LOCK_NB) == 0) break;
    const int e = errno;
    if (e == EINTR) continue;
    if (e != EWOULDBLOCK) {
      a.error = e;
      a.state = LockState::Failed;
      return a;
    }
    if (!exclusive || attempt >= 20) {
      a.state = LockState::Held;
      return a;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  // The journal may have been removed between our open and our flock (its remover held the lock then): a lock on an
  // unlinked file guards nothing.
  struct stat held {}, named {};
  if (::fstat(fd, &held) != 0 || held.st_nlink == 0 || ::stat(path.c_str(), &named) != 0 ||
      named.st_ino != held.st_ino || named.st_dev != held.st_dev) {
    a.state = LockState::Missing;
    return a;
  }
  a.state = LockState::Acquired;
  a.fd = guard.release();
  return a;
}

// --- JSON files ----------------------------------------------------------------------------------------------------

Result<Json> readJsonFile(const std::string& path) {
  auto text = readWholeFile(path, kMaxJsonBytes, "autosave record");
  if (!text) return text.error();
  Json j = Json::parse(*text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return makeError(ErrorCode::ParseError, path, "not a JSON object");
  return j;
}

Status writeJsonFile(const std::string& path, const Json& j) {
  std::string text;
  try {
    text = j.dump(2) + "\n";
  } catch (const Json::exception& e) {
    return makeError(ErrorCode::InvalidArgument, path, std::string("cannot encode the record: ") + e.what());
  }
  AtomicWriteOptions options;
  options.access = FileAccess::Sealed;  // the journal is one user's local copy of patient data: sealed at rest
  return writeFileAtomically(path, text.data(), text.size(), options);
}

// Paths on Linux are bytes, JSON strings are UTF-8: text that is not valid UTF-8 is kept losslessly as hex under
// "<key>Hex", so an odd image path never stops autosave and is reopened exactly.
void putText(Json& j, const std::string& key, const std::string& value) {
  try {
    (void)Json(value).dump();
    j[key] = value;
  } catch (const Json::exception&) {
    static const char* digits = "0123456789abcdef";
    std::string hex;
    for (const unsigned char c : value) {
      hex += digits[c >> 4];
      hex += digits[c & 15];
    }
    j[key + "Hex"] = hex;
  }
}

std::string getText(const Json& j, const std::string& key) {
  const auto hex = j.find(key + "Hex");
  if (hex != j.end() && hex->is_string()) {
    const std::string h = hex->get<std::string>();
    auto nibble = [](char c) {
      return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : 0;
    };
    std::string out;
    for (std::size_t i = 0; i + 1 < h.size(); i += 2) out += static_cast<char>(nibble(h[i]) * 16 + nibble(h[i + 1]));
    return out;
  }
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

Json geometryJson(const core::Geometry& g) {
  Json j;
  j["dimensions"] = g.dimensions();
  j["spacingMm"] = g.spacingMm();
  j["originLps"] = g.originLps();
  j["direction"] = g.direction().m;
  return j;
}

Result<core::Geometry> geometryFromJson(const Json& j, const std::string& subject) {
  try {
    const auto dims = j.at("dimensions").get<core::Size3>();
    const auto spacing = j.at("spacingMm").get<core::Vec3>();
    const auto origin = j.at("originLps").get<core::Vec3>();
    core::Mat3 direction;
    direction.m = j.at("direction").get<std::array<double, 9>>();
    if (Status s = core::Geometry::validate(dims, spacing, origin, direction, subject); !s) return s.error();
    return core::Geometry(dims, spacing, origin, direction);
  } catch (const Json::exception& e) {
    return makeError(ErrorCode::ParseError, subject, std::string("geometry field missing or wrong: ") + e.what());
  }
}

bool isLabelsFileName(const std::string& name) {
  const std::size_t p = std::strlen(kLabelsPrefix), s = std::strlen(kLabelsSuffix);
  if (name.size() <= p + s || name.compare(0, p, kLabelsPrefix) != 0 ||
      name.compare(name.size() - s, s, kLabelsSuffix) != 0)
    return false;
  return std::all_of(name.begin() + static_cast<std::ptrdiff_t>(p), name.end() - static_cast<std::ptrdiff_t>(s),
                     [](char c) { return c >= '0' && c <= '9'; });
}

std::string labelsFileName(std::int64_t sequence) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%s%08lld%s", kLabelsPrefix, static_cast<long long>(sequence), kLabelsSuffix);
  return buf;
}

struct SnapshotRecord {
  AutosaveSnapshotInfo info;
  std::string fileName;
  core::Geometry geometry;
};

// snapshot.json, or nothing when there is none (the session never autosaved).
Result<std::optional<SnapshotRecord>> readSnapshotRecord(const std::string& folder) {
  const std::string path = join(folder, kSnapshotName);
  auto j = readJsonFile(path);
  if (!j) {
    if (j.error().code == ErrorCode::NotFound) return std::optional<SnapshotRecord>();
    return j.error();
  }
  SnapshotRecord r;
  try {
    if (j->at("format").get<int>() > AutosaveJournal::kFormatVersion)
      return makeError(ErrorCode::Unsupported, path, "written by a newer Delineate (format " +
                                                         std::to_string(j->at("format").get<int>()) + ")");
    r.info.sequence = j->at("sequence").get<std::int64_t>();
    r.info.time = j->at("time").get<std::string>();
    r.fileName = j->at("file").get<std::string>();
    r.info.bytes = j->at("bytes").get<std::uint64_t>();
    r.info.sha256 = j->at("sha256").get<std::string>();
    r.info.contentRevision = j->value("contentRevision", std::uint64_t(0));
  } catch (const Json::exception& e) {
    return makeError(ErrorCode::ParseError, path, std::string("snapshot field missing or wrong: ") + e.what());
  }
  // The name comes from a file: it must be one we write, never a path elsewhere.
  if (!isLabelsFileName(r.fileName))
    return makeError(ErrorCode::ParseError, path, "names '" + r.fileName + "', which is not a snapshot file name");
  if (r.info.sha256.size() != 64) return makeError(ErrorCode::ParseError, path, "sha256 is not 64 hex digits");
  auto g = geometryFromJson(j->value("geometry", Json::object()), path);
  if (!g) return g.error();
  r.geometry = *g;
  r.info.file = join(folder, r.fileName);
  return std::optional<SnapshotRecord>(std::move(r));
}

// Reads session.json into `info` (context and owner).
Status readSessionInto(const std::string& folder, AutosaveJournalInfo& info) {
  const std::string path = join(folder, kSessionName);
  auto j = readJsonFile(path);
  if (!j) return j.error();
  try {
    if (j->at("format").get<int>() > AutosaveJournal::kFormatVersion)
      return makeError(ErrorCode::Unsupported, path, "written by a newer Delineate (format " +
                                                         std::to_string(j->at("format").get<int>()) + ")");
    info.host = j->at("host").get<std::string>();
    info.user = j->at("user").get<std::string>();
    info.pid = j->at("pid").get<std::int64_t>();
    info.startedAt = j->at("startedAt").get<std::string>();
    const Json& c = j->at("context");
    info.context.imagePath = getText(c, "imagePath");
    info.context.shareRoot = getText(c, "shareRoot");
    info.context.study = getText(c, "study");
    info.context.labelSet = getText(c, "labelSet");
    info.context.baseRevision = c.value("baseRevision", 0);
    info.context.description = getText(c, "description");
  } catch (const Json::exception& e) {
    return makeError(ErrorCode::ParseError, path, std::string("session field missing or wrong: ") + e.what());
  }
  const std::string here = localHostName();
  info.fromOtherHost = !info.host.empty() && !here.empty() && info.host != here;
  return Status::success();
}

// --- folders -------------------------------------------------------------------------------------------------------

struct FolderStats {
  std::uint64_t bytes = 0;
  fs::file_time_type lastWrite{};  // newest file: the journal's last activity
};

FolderStats folderStats(const std::string& folder) {
  FolderStats s;
  std::error_code ec;
  bool any = false;
  for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code fec;
    const auto status = it->symlink_status(fec);
    if (fec || !fs::is_regular_file(status)) continue;
    const auto size = it->file_size(fec);
    if (!fec) s.bytes += size;
    const auto t = it->last_write_time(fec);
    if (!fec && (!any || t > s.lastWrite)) s.lastWrite = t, any = true;
  }
  if (!any) s.lastWrite = fs::last_write_time(folder, ec);
  return s;
}

struct JournalEntry {
  std::string id;
  std::string folder;
  bool leftover = false;  // ".<id>.creating" / ".<id>.removing": an interrupted create or removal
  bool staging = false;   // ".<id>.creating"
};

// Our folders under `root`; anything else there is not ours and is left alone.
Result<std::vector<JournalEntry>> listJournals(const std::string& root) {
  std::vector<JournalEntry> out;
  std::error_code ec;
  for (fs::directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code sec;
    if (!it->is_directory(sec) || it->is_symlink(sec)) continue;
    const std::string name = it->path().filename().string();
    if (AutosaveJournal::isValidJournalId(name)) {
      out.push_back({name, it->path().string(), false, false});
    } else if (name.size() > 34 && name[0] == '.' && name[33] == '.' &&
               AutosaveJournal::isValidJournalId(name.substr(1, 32))) {
      const std::string tail = name.substr(34);
      if (tail == "creating" || tail == "removing")
        out.push_back({name.substr(1, 32), it->path().string(), true, tail == "creating"});
    }
  }
  if (ec) return makeError(ErrorCode::ReadFailed, root, "cannot list the autosave journals: " + ec.message());
  return out;
}


// Removes a journal whose lock the caller holds. Renamed out of sight first, so a scan never lists a half-removed
// journal and an interrupted removal is recognisable as leftover.
Status removeJournalFolder(const std::string& root, const JournalEntry& entry) {
  std::error_code ec;
  std::string doomed = entry.folder;
  if (!entry.leftover) {
    doomed = join(root, "." + entry.id + ".removing");
    fs::remove_all(doomed, ec);  // an earlier removal of the same id that was interrupted
    ec.clear();
    fs::rename(entry.folder, doomed, ec);
    if (ec) {
      if (ec == std::errc::no_such_file_or_directory) return Status::success();
      return makeError(ErrorCode::WriteFailed, entry.folder, "cannot remove the autosave journal: " + ec.message());
    }
  }
  fs::remove_all(doomed, ec);
  if (ec) return makeError(ErrorCode::WriteFailed, doomed, "cannot remove the autosave journal: " + ec.message());
  return Status::success();
}

bool stagingTooYoung(const JournalEntry& e) {
  std::error_code ec;
  const auto t = fs::last_write_time(e.folder, ec);
  return !ec && fs::file_time_type::clock::now() - t < kStagingGrace;
}

// Best effort: leftovers of interrupted creations and removals whose owner is gone.
void removeLeftovers(const std::string& root) {
  auto entries = listJournals(root);
  if (!entries) return;
  for (const auto& e : *entries) {
    if (!e.leftover || (e.staging && stagingTooYoung(e))) continue;
    const LockAttempt lock = lockJournal(e.folder, true, false);
    if (lock.state == LockState::Held || lock.state == LockState::Failed) continue;
    FdGuard guard(lock.fd);
    (void)removeJournalFolder(root, e);
  }
}

Result<AutosaveJournalInfo> describeJournal(const JournalEntry& e) {
  AutosaveJournalInfo info;
  info.journalId = e.id;
  info.folder = e.folder;
  const FolderStats stats = folderStats(e.folder);
  info.diskBytes = stats.bytes;
  if (Status s = readSessionInto(e.folder, info); !s) info.problem = s.error().describe();
  auto snap = readSnapshotRecord(e.folder);
  if (!snap) {
    if (info.problem.empty()) info.problem = snap.error().describe();
    return info;
  }
  if (*snap) {
    info.snapshot = (*snap)->info;
    std::error_code ec;
    const auto size = fs::file_size(info.snapshot->file, ec);
    if (info.problem.empty() && ec)
      info.problem = info.snapshot->file + ": the snapshot file is missing: " + ec.message();
    else if (info.problem.empty() && size != info.snapshot->bytes)
      info.problem = info.snapshot->file + ": the snapshot holds " + std::to_string(size) + " bytes, " +
                     std::to_string(info.snapshot->bytes) + " were written";
  }
  return info;
}

// Reads and checks the snapshot `record` names; the map gets the exact geometry snapshot.json recorded (NIfTI
// stores the affine, from which spacing and direction come back only to rounding).
Result<core::LabelMap> readVerifiedSnapshot(const SnapshotRecord& record) {
  const std::string& file = record.info.file;
  std::error_code ec;
  const auto size = fs::file_size(file, ec);
  if (ec)
    return makeError(ec == std::errc::no_such_file_or_directory ? ErrorCode::NotFound : ErrorCode::ReadFailed, file,
                     "the autosave snapshot cannot be read: " + ec.message());
  if (size != record.info.bytes)
    return makeError(ErrorCode::Corrupt, file,
                     "the autosave snapshot is damaged: it holds " + std::to_string(size) + " bytes, " +
                         std::to_string(record.info.bytes) + " were written");
  auto hash = sha256OfFile(file);
  if (!hash) return hash.error();
  if (*hash != record.info.sha256)
    return makeError(ErrorCode::Corrupt, file, "the autosave snapshot is damaged: its SHA-256 is " + *hash +
                                                   ", " + record.info.sha256 + " was written");
  auto labels = readNiftiLabels(file);
  if (!labels) return labels.error();
  const core::Geometry& stored = record.geometry;
  if (labels->geometry() == stored) return labels;
  if (labels->geometry().dimensions() != stored.dimensions() || !labels->geometry().isCloseTo(stored))
    return makeError(ErrorCode::Corrupt, file, "the snapshot's grid disagrees with the geometry in snapshot.json");
  auto buffer = labels->voxels().buffer();
  auto exact = core::Volume<core::Label>::adopt(stored, std::move(buffer), file);
  if (!exact) return exact.error();
  return core::LabelMap(std::move(exact).value());
}

}  // namespace

// --- AutosaveJournal ---------------------------------------------------------------------------------------------

bool AutosaveJournal::isValidJournalId(const std::string& id) {
  return id.size() == 32 &&
         std::all_of(id.begin(), id.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

AutosaveJournal::AutosaveJournal(AutosaveJournal&& o) noexcept
    : m_root(std::move(o.m_root)),
      m_id(std::move(o.m_id)),
      m_folder(std::move(o.m_folder)),
      m_lockFd(std::exchange(o.m_lockFd, -1)),
      m_context(std::move(o.m_context)),
      m_policy(o.m_policy),
      m_startedAt(std::move(o.m_startedAt)),
      m_snapshot(std::move(o.m_snapshot)),
      m_sequence(o.m_sequence),
      m_pendingSince(o.m_pendingSince) {}

AutosaveJournal& AutosaveJournal::operator=(AutosaveJournal&& o) noexcept {
  if (this != &o) {
    if (isOpen()) (void)detach();
    m_root = std::move(o.m_root);
    m_id = std::move(o.m_id);
    m_folder = std::move(o.m_folder);
    m_lockFd = std::exchange(o.m_lockFd, -1);
    m_context = std::move(o.m_context);
    m_policy = o.m_policy;
    m_startedAt = std::move(o.m_startedAt);
    m_snapshot = std::move(o.m_snapshot);
    m_sequence = o.m_sequence;
    m_pendingSince = o.m_pendingSince;
  }
  return *this;
}

AutosaveJournal::~AutosaveJournal() {
  if (isOpen()) (void)detach();
}

void AutosaveJournal::release() {
  if (m_lockFd >= 0) ::close(m_lockFd);
  m_lockFd = -1;
}

Result<AutosaveJournal> AutosaveJournal::create(const std::string& root, const AutosaveContext& context,
                                                const AutosavePolicy& policy) {
  if (root.empty()) return makeError(ErrorCode::InvalidArgument, root, "no autosave folder given");
  if (policy.intervalSeconds < 0 || policy.maxTotalBytes == 0)
    return makeError(ErrorCode::InvalidArgument, root, "autosave policy needs an interval >= 0 and a bound > 0");
  try {
    std::error_code ec;
    if (Status s = createFolders(root, FileAccess::Private); !s) return s.error();
    if (!fs::is_directory(root, ec)) return makeError(ErrorCode::WriteFailed, root, "the autosave root is not a folder");
    removeLeftovers(root);

    AutosaveJournal j;
    j.m_root = root;
    j.m_context = context;
    j.m_policy = policy;
    j.m_startedAt = utcNowIso();
    std::string staging;
    for (int attempt = 0; attempt < 8 && staging.empty(); ++attempt) {
      j.m_id = detail::randomHex(16);
      if (fs::exists(join(root, j.m_id), ec)) continue;
      const std::string candidate = join(root, "." + j.m_id + ".creating");
      // 0700: the folder will hold patient data.
      if (::mkdir(candidate.c_str(), 0700) == 0) {
        staging = candidate;
      } else if (errno != EEXIST) {
        const int e = errno;
        return makeError(ErrorCode::WriteFailed, candidate, "cannot create the autosave journal: " + errnoText(e));
      }
    }
    if (staging.empty()) return makeError(ErrorCode::WriteFailed, root, "could not pick an unused journal id");
    JournalEntry stagingEntry{j.m_id, staging, true, true};
    j.m_folder = staging;
    const std::string lockPath = join(staging, kLockName);
    const int fd = ::open(lockPath.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) {
      const int e = errno;
      (void)removeJournalFolder(root, stagingEntry);
      return makeError(ErrorCode::WriteFailed, lockPath, "cannot create the journal lock: " + errnoText(e));
    }
    j.m_lockFd = fd;
    int locked;
    do locked = ::flock(fd, LOCK_EX | LOCK_NB);
    while (locked != 0 && errno == EINTR);
    if (locked != 0) {
      const int e = errno;
      (void)removeJournalFolder(root, stagingEntry);
      j.release();
      // Without a lock a running session and a crashed one look the same; better no autosave than a false recovery.
      return makeError(ErrorCode::Unsupported, lockPath,
                       "cannot lock the journal (" + errnoText(e) + "); choose a local autosave folder");
    }
    if (Status s = j.writeSession(); !s) {
      (void)removeJournalFolder(root, stagingEntry);
      j.release();
      return s.error();
    }
    const std::string final = join(root, j.m_id);
    fs::rename(staging, final, ec);
    if (ec) {
      (void)removeJournalFolder(root, stagingEntry);
      j.release();
      return makeError(ErrorCode::WriteFailed, final, "cannot publish the autosave journal: " + ec.message());
    }
    j.m_folder = final;
    syncFolder(root);
    return j;
  } catch (const std::bad_alloc&) {
    return makeError(ErrorCode::OutOfMemory, root, "out of memory creating the autosave journal");
  }
}

Status AutosaveJournal::writeSession() const {
  try {
    Json c = Json::object();
    putText(c, "imagePath", m_context.imagePath);
    putText(c, "shareRoot", m_context.shareRoot);
    putText(c, "study", m_context.study);
    putText(c, "labelSet", m_context.labelSet);
    c["baseRevision"] = m_context.baseRevision;
    putText(c, "description", m_context.description);
    Json j = Json::object();
    j["format"] = kFormatVersion;
    j["journalId"] = m_id;
    putText(j, "host", localHostName());
    putText(j, "user", processUserName());
    j["pid"] = static_cast<std::int64_t>(::getpid());
    j["startedAt"] = m_startedAt;
    j["context"] = std::move(c);
    return writeJsonFile(join(m_folder, kSessionName), j);
  } catch (const std::bad_alloc&) {
    return makeError(ErrorCode::OutOfMemory, join(m_folder, kSessionName), "out of memory writing the session");
  }
}

void AutosaveJournal::noteEdit(std::chrono::steady_clock::time_point now) {
  if (!m_pendingSince) m_pendingSince = now;
}

bool AutosaveJournal::due(std::chrono::steady_clock::time_point now, bool dirty) const {
  return isOpen() && dirty && m_pendingSince && now - *m_pendingSince >= std::chrono::seconds(m_policy.intervalSeconds);
}

Status AutosaveJournal::snapshot(const core::LabelMap& labels, std::chrono::steady_clock::time_point now) {
  if (!isOpen()) return makeError(ErrorCode::InvalidArgument, m_folder, "the autosave journal is closed");
  if (labels.hasOpenTransaction())
    return makeError(ErrorCode::InvalidArgument, m_folder, "an edit is in progress; autosave once it is committed");
  if (m_snapshot && m_snapshot->contentRevision == labels.contentRevision()) {
    m_pendingSince.reset();  // already on disk
    return Status::success();
  }
  const std::string name = labelsFileName(m_sequence + 1);
  const std::string file = join(m_folder, name);
  auto fail = [&](core::Error e) -> Status {
    std::error_code ec;
    fs::remove(file, ec);  // never half a switch: the previous snapshot stays current
    m_pendingSince = now;
    return e;
  };
  try {
    NiftiWriteOptions options;
    options.gzipLevel = 1;  // fast; label maps are mostly runs of zeros
    options.format = NiftiFormat::Nifti2;  // doubles in the header
    options.access = FileAccess::Sealed;  // the user's own local copy of patient data: sealed at rest
    if (Status s = writeNiftiLabels(file, labels, options); !s) return fail(s.error());
    std::error_code ec;
    const auto bytes = fs::file_size(file, ec);
    if (ec) return fail(makeError(ErrorCode::ReadFailed, file, "cannot read back the snapshot: " + ec.message()));
    auto hash = sha256OfFile(file);
    if (!hash) return fail(hash.error());

    std::uint64_t ownAfter = folderStats(m_folder).bytes;
    if (m_snapshot) ownAfter -= std::min<std::uint64_t>(ownAfter, m_snapshot->bytes);  // removed after the switch
    if (Status s = enforceBound(ownAfter, file); !s) return fail(s.error());

    AutosaveSnapshotInfo info;
    info.sequence = m_sequence + 1;
    info.time = utcNowIso();
    info.file = file;
    info.bytes = bytes;
    info.sha256 = *hash;
    info.contentRevision = labels.contentRevision();
    const Json record{{"format", kFormatVersion},   {"journalId", m_id},         {"sequence", info.sequence},
                      {"time", info.time},          {"file", name},              {"bytes", info.bytes},
                      {"sha256", info.sha256},      {"contentRevision", info.contentRevision},
                      {"geometry", geometryJson(labels.geometry())}};
    // The commit point: until snapshot.json is replaced, the previous snapshot is the current one.
    if (Status s = writeJsonFile(join(m_folder, kSnapshotName), record); !s) return fail(s.error());
    m_sequence = info.sequence;
    m_snapshot = info;
    m_pendingSince.reset();
    removeStaleSnapshots(name);
    return Status::success();
  } catch (const std::bad_alloc&) {
    return fail(makeError(ErrorCode::OutOfMemory, file, "out of memory writing the autosave snapshot"));
  }
}

Status AutosaveJournal::enforceBound(std::uint64_t ownBytesAfter, const std::string& newFile) const {
  auto entries = listJournals(m_root);
  if (!entries) return entries.error();
  struct Candidate {
    JournalEntry entry;
    std::uint64_t bytes;
    fs::file_time_type lastWrite;
  };
  std::vector<Candidate> candidates;
  std::uint64_t total = ownBytesAfter, evictable = 0;
  for (const auto& e : *entries) {
    if (e.id == m_id) continue;
    const FolderStats stats = folderStats(e.folder);
    total += stats.bytes;
    if (e.staging && stagingTooYoung(e)) continue;
    // A scan's shared lock tells live from crashed without disturbing anyone; eviction re-checks exclusively.
    const LockAttempt probe = lockJournal(e.folder, false, false);
    if (probe.state == LockState::Held || probe.state == LockState::Failed) continue;
    FdGuard guard(probe.fd);
    if (!e.leftover) {
      AutosaveJournalInfo owner;
      if (readSessionInto(e.folder, owner) && owner.fromOtherHost) continue;
    }
    evictable += stats.bytes;
    candidates.push_back({e, stats.bytes, stats.lastWrite});
  }
  if (total <= m_policy.maxTotalBytes) return Status::success();
  auto refuse = [&](std::uint64_t now) -> Status {
    return makeError(ErrorCode::SizeLimit, newFile,
                     "with this snapshot the autosave journals under " + m_root + " would take " +
                         std::to_string(now) + " bytes, over the bound of " + std::to_string(m_policy.maxTotalBytes) +
                         " (journals of running instances and other hosts are never removed); the previous "
                         "snapshot is kept");
  };
  // Evicting sessions and then refusing anyway would lose them for nothing.
  if (total - evictable > m_policy.maxTotalBytes) return refuse(total);
  std::sort(candidates.begin(), candidates.end(), [](const Candidate& a, const Candidate& b) {
    return a.entry.leftover != b.entry.leftover ? a.entry.leftover : a.lastWrite < b.lastWrite;
  });
  for (const auto& c : candidates) {
    if (total <= m_policy.maxTotalBytes) break;
    const LockAttempt lock = lockJournal(c.entry.folder, true, false);
    if (lock.state == LockState::Held || lock.state == LockState::Failed) continue;  // came alive meanwhile
    FdGuard guard(lock.fd);
    if (removeJournalFolder(m_root, c.entry)) total -= std::min(total, c.bytes);
  }
  if (total > m_policy.maxTotalBytes) return refuse(total);
  return Status::success();
}

void AutosaveJournal::removeStaleSnapshots(const std::string& keepName) const {
  // Superseded snapshots and temporaries of writes that died with an earlier owner. Only ever in our own folder,
  // whose lock we hold.
  std::error_code ec;
  std::vector<fs::path> stale;
  for (fs::directory_iterator it(m_folder, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if ((isLabelsFileName(name) && name != keepName) || isAtomicTempFileName(name)) stale.push_back(it->path());
  }
  for (const auto& p : stale) fs::remove(p, ec);
}

Status AutosaveJournal::setContext(const AutosaveContext& context) {
  if (!isOpen()) return makeError(ErrorCode::InvalidArgument, m_folder, "the autosave journal is closed");
  AutosaveContext previous = std::move(m_context);
  m_context = context;
  Status s = writeSession();
  if (!s) m_context = std::move(previous);  // memory says what the disk says
  return s;
}

Status AutosaveJournal::markSaved() {
  if (!isOpen()) return makeError(ErrorCode::InvalidArgument, m_folder, "the autosave journal is closed");
  m_pendingSince.reset();
  if (!m_snapshot) return Status::success();
  // Removing the commit record first makes "nothing to recover" true at once; the labels file follows.
  const std::string record = join(m_folder, kSnapshotName);
  std::error_code ec;
  fs::remove(record, ec);
  if (ec) return makeError(ErrorCode::WriteFailed, record, "cannot remove the saved snapshot: " + ec.message());
  m_snapshot.reset();
  removeStaleSnapshots({});
  return Status::success();
}

Status AutosaveJournal::close() {
  if (!isOpen()) return Status::success();
  Status s = removeJournalFolder(m_root, JournalEntry{m_id, m_folder, false, false});
  release();
  m_snapshot.reset();
  m_pendingSince.reset();
  return s;
}

Status AutosaveJournal::detach() {
  if (!isOpen()) return Status::success();
  Status s;
  if (!m_snapshot) s = removeJournalFolder(m_root, JournalEntry{m_id, m_folder, false, false});
  release();
  return s;
}

// --- scanning and recovery -------------------------------------------------------------------------------------

Result<AutosaveScan> AutosaveJournal::findRecoverable(const std::string& root) {
  try {
    AutosaveScan scan;
    std::error_code ec;
    if (!fs::exists(root, ec)) return scan;
    auto entries = listJournals(root);
    if (!entries) return entries.error();
    std::vector<std::pair<fs::file_time_type, AutosaveJournalInfo>> recoverable;
    for (const auto& e : *entries) {
      if (e.leftover) continue;
      const LockAttempt lock = lockJournal(e.folder, false, false);
      FdGuard guard(lock.fd);
      if (lock.state == LockState::Missing && !fs::exists(e.folder, ec)) continue;  // removed while we looked
      auto info = describeJournal(e);
      if (!info) return info.error();
      if (lock.state == LockState::Held) {
        scan.live.push_back(std::move(*info));
        continue;
      }
      if (lock.state == LockState::Missing && info->problem.empty())
        info->problem = join(e.folder, kLockName) + ": the lock file is missing";
      else if (lock.state == LockState::Failed && info->problem.empty())
        info->problem = join(e.folder, kLockName) + ": cannot test the lock: " + errnoText(lock.error);
      recoverable.emplace_back(folderStats(e.folder).lastWrite, std::move(*info));
    }
    std::stable_sort(recoverable.begin(), recoverable.end(),
                     [](const auto& a, const auto& b) { return a.first > b.first; });
    for (auto& r : recoverable) scan.recoverable.push_back(std::move(r.second));
    return scan;
  } catch (const std::bad_alloc&) {
    return makeError(ErrorCode::OutOfMemory, root, "out of memory listing the autosave journals");
  }
}

namespace {

// The journal folder for an id passed in, with the error a caller can show.
Result<JournalEntry> existingJournal(const std::string& root, const std::string& journalId) {
  if (!AutosaveJournal::isValidJournalId(journalId))
    return makeError(ErrorCode::InvalidArgument, journalId, "not an autosave journal id (32 lowercase hex digits)");
  const std::string folder = join(root, journalId);
  std::error_code ec;
  if (!fs::is_directory(folder, ec)) return makeError(ErrorCode::NotFound, folder, "no such autosave journal");
  return JournalEntry{journalId, folder, false, false};
}

Result<int> takeJournal(const JournalEntry& e) {
  const LockAttempt lock = lockJournal(e.folder, true, true);
  switch (lock.state) {
    case LockState::Acquired: return lock.fd;
    case LockState::Held: return makeError(ErrorCode::InvalidArgument, e.folder, kJournalInUseDetail);
    case LockState::Missing: return makeError(ErrorCode::NotFound, e.folder, "the autosave journal was just removed");
    case LockState::Failed: break;
  }
  return makeError(ErrorCode::ReadFailed, join(e.folder, kLockName),
                   "cannot lock the autosave journal: " + errnoText(lock.error));
}

}  // namespace

Result<RecoveredSession> AutosaveJournal::recover(const std::string& root, const std::string& journalId,
                                                  const AutosavePolicy& policy) {
  try {
    auto entry = existingJournal(root, journalId);
    if (!entry) return entry.error();
    auto fd = takeJournal(*entry);
    if (!fd) return fd.error();
    // Until the end the lock is only guarded, not owned by a journal object: a journal's destructor may remove a
    // folder it thinks holds nothing, and a failed recovery must leave the journal exactly as it was.
    FdGuard guard(*fd);

    AutosaveJournalInfo info;
    info.journalId = journalId;
    info.folder = entry->folder;
    info.diskBytes = folderStats(entry->folder).bytes;
    if (Status s = readSessionInto(entry->folder, info); !s) return s.error();
    auto record = readSnapshotRecord(entry->folder);
    if (!record) return record.error();
    if (!*record)
      return makeError(ErrorCode::NotFound, entry->folder,
                       "nothing to recover: the session ended before its first autosave");
    info.snapshot = (*record)->info;
    auto labels = readVerifiedSnapshot(**record);
    if (!labels) return labels.error();

    AutosaveJournal j;
    j.m_root = root;
    j.m_id = journalId;
    j.m_folder = entry->folder;
    j.m_policy = policy;
    j.m_context = info.context;
    j.m_startedAt = info.startedAt;
    j.m_sequence = (*record)->info.sequence;
    j.m_snapshot = (*record)->info;
    // In this process's revision terms, so snapshot() of the untouched recovered map writes nothing.
    j.m_snapshot->contentRevision = labels->contentRevision();
    j.m_lockFd = guard.release();
    // The owner fields now name this process. Diagnostic only: the lock is what protects the journal, so a failure
    // here does not undo a good recovery.
    (void)j.writeSession();
    j.removeStaleSnapshots((*record)->fileName);
    return RecoveredSession{std::move(j), std::move(labels).value(), std::move(info)};
  } catch (const std::bad_alloc&) {
    return makeError(ErrorCode::OutOfMemory, join(root, journalId), "out of memory recovering the autosave journal");
  }
}

Status AutosaveJournal::discardRecoverable(const std::string& root, const std::string& journalId) {
  try {
    auto entry = existingJournal(root, journalId);
    if (!entry) return entry.error();
    auto fd = takeJournal(*entry);
    if (!fd) return fd.error();
    FdGuard guard(*fd);
    return removeJournalFolder(root, *entry);
  } catch (const std::bad_alloc&) {
    return makeError(ErrorCode::OutOfMemory, join(root, journalId), "out of memory discarding the autosave journal");
  }
}

Result<std::string> defaultAutosaveRoot() {
  auto env = [](const char* name) {
    const char* v = std::getenv(name);
    return v ? std::string(v) : std::string();
  };
  if (std::string dir = env("DELINEATE_AUTOSAVE_DIR"); !dir.empty()) return dir;
  if (std::string state = env("XDG_STATE_HOME"); !state.empty() && state[0] == '/')
    return (fs::path(state) / "delineate" / "autosave").string();
  if (std::string home = env("HOME"); !home.empty())
    return (fs::path(home) / ".local" / "state" / "delineate" / "autosave").string();
  return makeError(ErrorCode::NotFound, "$HOME",
                   "no autosave folder: none of DELINEATE_AUTOSAVE_DIR, XDG_STATE_HOME, HOME is set");
}

}  // namespace delineate::io
