#include "io/studies/study_index.h"

#include <sqlite3.h>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <functional>
#include <mutex>
#include <optional>
#include <chrono>
#include <cstring>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "io/base/atomic_file.h"
#include "io/base/file_modes.h"
#include "io/base/file_read.h"
#include "io/base/parallel.h"
#include "io/base/posix_util.h"
#include "io/base/sealed_file.h"
#include "io/base/sha256.h"
#include "io/share/share_catalogue.h"
#include "io/share/share_revisions.h"
#include "io/studies/study_store.h"

namespace delineate::io {
namespace {

namespace fs = std::filesystem;
using core::ErrorCode;
using core::makeError;
using nlohmann::json;

constexpr int kSchemaVersion = 2;  // an index of another version is set aside and built again
// A day folder whose time is this close to when it was last listed is listed again: shares that keep modification
// times to the second (sshfs, SMB) show no change for a segment added in the same second as the previous one.
// A day folder's listing counts as complete once made this long after its time was last seen to change.
constexpr std::int64_t kConfirmAfterNs = std::int64_t(2) * 1000000000;
// Day folders stat'ed on every refresh (the newest); all are at a client's first refresh and every kSweepInterval.
constexpr std::size_t kRecentDays = 3;
constexpr std::int64_t kSweepIntervalNs = std::int64_t(3600) * 1000000000;
// Requests a refresh keeps in flight on the share (stats, listings, segment reads).
constexpr int kShareRequestsInFlight = 8;
// Series records checked in one refresh (a manifest read each) after which the refresh writes a compaction snapshot.
constexpr std::size_t kCompactAfterChecked = 2000;
// Series records a refresh checks one by one (their manifests read); past it, against one listing of studies/.
constexpr std::size_t kFullCheckLimit = 2000;

const char* const kSchema = R"sql(
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE IF NOT EXISTS days(day TEXT PRIMARY KEY, mtime INTEGER, listed INTEGER, confirmed INTEGER);
CREATE TABLE IF NOT EXISTS segments(day TEXT, name TEXT, covered INTEGER, PRIMARY KEY(day, name)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS snapshots(name TEXT PRIMARY KEY);
CREATE TABLE IF NOT EXISTS problems(source TEXT PRIMARY KEY, reason TEXT);
CREATE TABLE IF NOT EXISTS series(study TEXT, series TEXT, manifest TEXT, manifest_sha TEXT, patient_id TEXT,
  patient_name TEXT, study_date TEXT, modality TEXT, study_desc TEXT, series_desc TEXT, files INTEGER, bytes INTEGER,
  time TEXT, PRIMARY KEY(study, series)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS labelsets(study TEXT, label_set TEXT, revision INTEGER, author TEXT, time TEXT,
  series TEXT, PRIMARY KEY(study, label_set)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS reviews(study TEXT, label_set TEXT, revision INTEGER, state TEXT, user TEXT, time TEXT,
  seq INTEGER, PRIMARY KEY(study, label_set, revision)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS leases(study TEXT, label_set TEXT, event TEXT, user TEXT, host TEXT, time TEXT,
  PRIMARY KEY(study, label_set)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS studies(study TEXT PRIMARY KEY, patient_id TEXT, patient_name TEXT, study_date TEXT,
  modalities TEXT, description TEXT, series_count INTEGER, label_sets TEXT, latest_set TEXT, latest_revision INTEGER,
  latest_author TEXT, latest_time TEXT, review TEXT, approved INTEGER, editing TEXT, editing_time TEXT);
CREATE TEMP TABLE IF NOT EXISTS touched(study TEXT PRIMARY KEY);
)sql";

// The study rows of the touched studies, from the tables the records fill.
const char* const kRecompute = R"sql(
INSERT OR REPLACE INTO studies SELECT t.study,
  COALESCE((SELECT max(patient_id) FROM series s WHERE s.study = t.study), ''),
  COALESCE((SELECT max(patient_name) FROM series s WHERE s.study = t.study), ''),
  COALESCE((SELECT min(NULLIF(study_date, '')) FROM series s WHERE s.study = t.study), ''),
  COALESCE((SELECT group_concat(m, ',') FROM (SELECT DISTINCT modality AS m FROM series s
            WHERE s.study = t.study AND modality != '' ORDER BY modality)), ''),
  COALESCE((SELECT max(study_desc) FROM series s WHERE s.study = t.study), ''),
  (SELECT count(*) FROM series s WHERE s.study = t.study),
  COALESCE((SELECT group_concat(label_set, ', ') FROM (SELECT label_set FROM labelsets l WHERE l.study = t.study
            ORDER BY label_set)), ''),
  COALESCE(x.label_set, ''), COALESCE(x.revision, 0), COALESCE(x.author, ''), COALESCE(x.time, ''),
  COALESCE((SELECT state FROM reviews r WHERE r.study = t.study AND r.label_set = x.label_set
            AND r.revision = x.revision), 'none'),
  EXISTS(SELECT 1 FROM reviews r WHERE r.study = t.study AND r.state = 'approved'),
  COALESCE((SELECT user || '@' || host FROM leases e WHERE e.study = t.study AND e.event IN ('acquired', 'broke')
            ORDER BY time DESC LIMIT 1), ''),
  COALESCE((SELECT time FROM leases e WHERE e.study = t.study AND e.event IN ('acquired', 'broke')
            ORDER BY time DESC LIMIT 1), '')
FROM touched t LEFT JOIN (SELECT * FROM labelsets l1 WHERE l1.study IN (SELECT study FROM touched) AND NOT EXISTS (SELECT 1 FROM labelsets l2
  WHERE l2.study = l1.study AND (l2.time > l1.time OR (l2.time = l1.time AND l2.label_set > l1.label_set)))) x
  ON x.study = t.study;
DELETE FROM touched;
)sql";

std::string columnText(sqlite3_stmt* st, int i) {
  const unsigned char* t = sqlite3_column_text(st, i);
  return t ? reinterpret_cast<const char*>(t) : std::string();
}

class Statement {
 public:
  Statement(sqlite3* db, const char* sql) { m_rc = sqlite3_prepare_v2(db, sql, -1, &m_st, nullptr); }
  ~Statement() { sqlite3_finalize(m_st); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  bool ok() const { return m_rc == SQLITE_OK; }
  Statement& bind(int i, const std::string& v) {
    sqlite3_bind_text(m_st, i, v.c_str(), int(v.size()), SQLITE_TRANSIENT);
    return *this;
  }
  Statement& bind(int i, std::int64_t v) {
    sqlite3_bind_int64(m_st, i, v);
    return *this;
  }
  int step() { return sqlite3_step(m_st); }
  void reset() {
    sqlite3_reset(m_st);
    sqlite3_clear_bindings(m_st);
  }
  sqlite3_stmt* get() const { return m_st; }

 private:
  sqlite3_stmt* m_st = nullptr;
  int m_rc = SQLITE_ERROR;
};

std::int64_t nowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// "20261126" for a time in seconds since the epoch (UTC), as catalogue day folders are named.
std::string utcDayName(std::int64_t seconds) {
  const std::time_t t = static_cast<std::time_t>(seconds);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[16];
  std::strftime(buf, sizeof buf, "%Y%m%d", &tm);
  return buf;
}

std::string isoHoursAgo(int hours) {
  const std::time_t t = std::time(nullptr) - std::time_t(hours) * 3600;
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  return buf;
}

}  // namespace

std::string normalizeStudyDate(const std::string& text) {
  std::string digits;
  for (char c : text)
    if (c >= '0' && c <= '9') digits += c;
    else if (c != '-') return {};
  if (digits.size() != 8) return {};
  if (text.size() == 10 && (text[4] != '-' || text[7] != '-')) return {};
  if (text.size() != 8 && text.size() != 10) return {};
  return digits;
}

std::string StudyRow::labelStatus() const {
  if (!editing.empty()) return "editing";
  if (approved) return "approved";
  if (latestRevision > 0) return "revisions";
  return "none";
}

struct StudyIndex::Impl {
  explicit Impl(const ShareStore& s) : store(s) {}
  ShareStore store;  // the index keeps its own copy of the store's handle
  sqlite3* db = nullptr;
  std::string path;
  std::map<const char*, std::unique_ptr<Statement>> statements;
  std::string rebuiltFrom;  // a damaged index file set aside when this one was opened
  // Sealed at rest (io/base/sealed_file.h, unless $DELINEATE_AT_REST=plain): the database lives in memory, loaded
  // from the sealed file and saved to it, whole and atomically, after each change; writers of the file take turns
  // through an flock on "<index>.lock", and a change another process saved is loaded before this one writes.
  bool inMemory = false;
  struct FileId {
    dev_t dev = 0;
    ino_t ino = 0;
    std::int64_t mtimeNs = -1, size = -1;
    bool operator==(const FileId& o) const {
      return dev == o.dev && ino == o.ino && mtimeNs == o.mtimeNs && size == o.size;
    }
  } loaded;
  ~Impl() {
    statements.clear();  // finalized before the database closes
    if (db) sqlite3_close(db);
  }

  static FileId fileId(const std::string& file) {
    struct stat st {};
    FileId id;
    if (::stat(file.c_str(), &st) != 0) return id;
    id.dev = st.st_dev;
    id.ino = st.st_ino;
    id.mtimeNs = std::int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
    id.size = std::int64_t(st.st_size);
    return id;
  }
  // The file's content (unsealed) into the in-memory database; an empty or missing file leaves it as it is.
  core::Status load() {
    const FileId id = fileId(path);
    if (id.size <= 0) {
      loaded = id;
      return core::Status::success();
    }
    auto bytes = readWholeFile(path, std::uintmax_t(16) << 30, "study index");
    if (!bytes) return bytes.error();
    auto* buffer = static_cast<unsigned char*>(sqlite3_malloc64(bytes->size()));
    if (!buffer) return makeError(ErrorCode::ReadFailed, path, "no memory for the study index");
    std::memcpy(buffer, bytes->data(), bytes->size());
    // A plain index an earlier version wrote is in WAL mode (file format bytes 18 and 19 = 2), which a database in
    // memory cannot be: read as the rollback-journal database it is once its WAL was checkpointed.
    if (bytes->size() >= 100 && buffer[18] == 2 && buffer[19] == 2) buffer[18] = buffer[19] = 1;
    std::fill(bytes->begin(), bytes->end(), '\0');
    statements.clear();  // prepared for the database being replaced
    if (sqlite3_deserialize(db, "main", buffer, sqlite3_int64(bytes->size()), sqlite3_int64(bytes->size()),
                            SQLITE_DESERIALIZE_FREEONCLOSE | SQLITE_DESERIALIZE_RESIZEABLE) != SQLITE_OK)
      return sqlError("cannot load the study index");
    loaded = id;
    savedChanges = sqlite3_total_changes64(db);
    return core::Status::success();
  }
  // A copy another process saved since this one loaded or saved: loaded (it is at least as new as ours).
  core::Status reloadIfChanged() {
    if (!inMemory || fileId(path) == loaded) return core::Status::success();
    return load();
  }
  // The whole database, sealed, over the file, when it changed since it was loaded or saved (a refresh that found
  // nothing new writes nothing: the study browser refreshes every few seconds).
  std::int64_t savedChanges = 0;
  core::Status save(bool force = false) {
    if (!inMemory) return core::Status::success();
    const std::int64_t changes = sqlite3_total_changes64(db);
    if (!force && changes == savedChanges && loaded.size > 0) return core::Status::success();
    sqlite3_int64 size = 0;
    unsigned char* bytes = sqlite3_serialize(db, "main", &size, 0);
    if (!bytes) return sqlError("cannot save the study index");
    AtomicWriteOptions options;
    options.access = FileAccess::Sealed;  // patients' names and ids
    options.sync = false;                 // a cache: after a crash it is rebuilt from the share
    core::Status s = writeFileAtomically(path, bytes, std::size_t(size), options);
    std::memset(bytes, 0, std::size_t(size));
    sqlite3_free(bytes);
    if (s) {
      loaded = fileId(path);
      savedChanges = changes;
    }
    return s;
  }
  // Held while this process changes the index (in memory: reload, change, save).
  struct WriteTurn {
    int fd = -1;
    ~WriteTurn() {
      if (fd >= 0) ::close(fd);
    }
  };
  core::Result<std::unique_ptr<WriteTurn>> takeWriteTurn() {
    auto turn = std::make_unique<WriteTurn>();
    if (!inMemory) return turn;
    const std::string lock = path + ".lock";
    turn->fd = ::open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, fileModeFor(FileAccess::Private));
    if (turn->fd < 0)
      return makeError(ErrorCode::WriteFailed, lock, "cannot open the study index's lock: " + detail::errnoText(errno));
    while (::flock(turn->fd, LOCK_EX) != 0)
      if (errno != EINTR)
        return makeError(ErrorCode::WriteFailed, lock, "cannot lock the study index: " + detail::errnoText(errno));
    if (core::Status s = reloadIfChanged(); !s) return s.error();
    return turn;
  }
  // A prepared statement kept for the index's life (records are applied by the hundred thousand), reset for reuse.
  Statement& cached(const char* sql) {
    auto& st = statements[sql];
    if (!st) st = std::make_unique<Statement>(db, sql);
    else st->reset();
    return *st;
  }

  core::Error sqlError(const std::string& what) const {
    return makeError(ErrorCode::ReadFailed, path, what + ": " + (db ? sqlite3_errmsg(db) : "no database"));
  }
  core::Status exec(const char* sql) {
    char* message = nullptr;
    if (sqlite3_exec(db, sql, nullptr, nullptr, &message) != SQLITE_OK) {
      std::string m = message ? message : "error";
      sqlite3_free(message);
      return makeError(ErrorCode::WriteFailed, path, "the study index: " + m);
    }
    return core::Status::success();
  }

  // Applies one record; false (with a reason) when it is not a record this version understands.
  bool apply(const std::string& line, std::string* reason, std::set<std::string>& touched) {
    const json j = json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.is_object()) {
      *reason = "not a JSON object";
      return false;
    }
    const auto text = [&](const char* key) {
      return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : std::string();
    };
    const auto number = [&](const char* key) -> std::int64_t {
      return j.contains(key) && j[key].is_number_integer() ? j[key].get<std::int64_t>() : 0;
    };
    const std::string kind = text("kind"), study = text("study");
    if (study.empty() || !isValidShareName(study)) {
      *reason = "a record without a valid study";
      return false;
    }
    if (kind == "series") {
      const std::string series = text("series");
      if (series.empty()) {
        *reason = "a series record without its series";
        return false;
      }
      Statement& st = cached("INSERT OR REPLACE INTO series VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?)");
      st.bind(1, study).bind(2, series).bind(3, text("manifest")).bind(4, text("manifestSha256")).bind(5, text("patientId"));
      st.bind(6, text("patientName")).bind(7, text("studyDate")).bind(8, text("modality")).bind(9, text("studyDescription"));
      st.bind(10, text("seriesDescription")).bind(11, number("files")).bind(12, number("bytes")).bind(13, text("time"));
      if (st.step() != SQLITE_DONE) return *reason = sqlite3_errmsg(db), false;
    } else if (kind == "labels") {
      const std::string set = text("labelSet");
      if (set.empty() || number("revision") < 1) return *reason = "a labels record without label set or revision", false;
      Statement& st = cached(
                   "INSERT INTO labelsets VALUES(?,?,?,?,?,?) ON CONFLICT(study, label_set) DO UPDATE SET "
                   "revision = excluded.revision, author = excluded.author, time = excluded.time, series = excluded.series "
                   "WHERE excluded.revision > labelsets.revision");
      st.bind(1, study).bind(2, set).bind(3, number("revision")).bind(4, text("author")).bind(5, text("time")).bind(6, text("series"));
      if (st.step() != SQLITE_DONE) return *reason = sqlite3_errmsg(db), false;
    } else if (kind == "review") {
      const std::string set = text("labelSet"), action = text("action");
      const std::string state = action == "submit" ? "submitted" : action == "approve" ? "approved" : action == "reject" ? "rejected" : "";
      if (set.empty() || state.empty() || number("revision") < 1)
        return *reason = "a review record without label set, revision or a known action", false;
      // Approval is final; otherwise the later step (by its number, then its time) wins.
      Statement& st = cached(
                   "INSERT INTO reviews VALUES(?,?,?,?,?,?,?) ON CONFLICT(study, label_set, revision) DO UPDATE SET "
                   "state = excluded.state, user = excluded.user, time = excluded.time, seq = excluded.seq "
                   "WHERE reviews.state != 'approved' AND (excluded.state = 'approved' OR excluded.seq > reviews.seq OR "
                   "(excluded.seq = reviews.seq AND excluded.time >= reviews.time))");
      st.bind(1, study).bind(2, set).bind(3, number("revision")).bind(4, state).bind(5, text("user")).bind(6, text("time"));
      st.bind(7, number("sequence"));
      if (st.step() != SQLITE_DONE) return *reason = sqlite3_errmsg(db), false;
    } else if (kind == "lease") {
      const std::string set = text("labelSet"), event = text("event");
      if (set.empty() || (event != "acquired" && event != "released" && event != "broke"))
        return *reason = "a lease record without label set or a known event", false;
      Statement& st = cached(
                   "INSERT INTO leases VALUES(?,?,?,?,?,?) ON CONFLICT(study, label_set) DO UPDATE SET "
                   "event = excluded.event, user = excluded.user, host = excluded.host, time = excluded.time "
                   "WHERE excluded.time >= leases.time");
      st.bind(1, study).bind(2, set).bind(3, event).bind(4, text("user")).bind(5, text("host")).bind(6, text("time"));
      if (st.step() != SQLITE_DONE) return *reason = sqlite3_errmsg(db), false;
    } else {
      *reason = "unknown record kind \"" + kind + "\" (written by a newer version?)";
      return false;
    }
    touched.insert(study);
    return true;
  }

  void problem(const std::string& source, const std::string& reason, CatalogueRefresh& out) {
    Statement st(db, "INSERT OR IGNORE INTO problems VALUES(?, ?)");
    st.bind(1, source).bind(2, reason);
    if (st.step() == SQLITE_DONE && sqlite3_changes(db) > 0) out.newProblems.push_back(source + ": " + reason);
  }

  // `rejected(i)`: why line i is refused before it is applied (a series record the share contradicts), or null.
  void applyLines(const std::vector<std::string>& lines, const std::string& source, std::set<std::string>& touched,
                  CatalogueRefresh& out,
                  const std::function<const std::string*(std::size_t)>& rejected = nullptr) {
    for (std::size_t i = 0; i < lines.size(); ++i) {
      std::string reason;
      if (const std::string* why = rejected ? rejected(i) : nullptr) problem(source + ":" + std::to_string(i + 1), *why, out);
      else if (apply(lines[i], &reason, touched)) ++out.recordsApplied;
      else problem(source + ":" + std::to_string(i + 1), reason, out);
    }
  }

  core::Status recompute(const std::set<std::string>& touched) {
    Statement st(db, "INSERT OR IGNORE INTO touched VALUES(?)");
    for (const std::string& s : touched) {
      st.bind(1, s);
      if (st.step() != SQLITE_DONE) return sqlError("cannot update the study rows");
      st.reset();
    }
    return exec(kRecompute);
  }

  bool segmentKnown(const std::string& day, const std::string& name) {
    Statement& st = cached("SELECT 1 FROM segments WHERE day = ? AND name = ?");
    st.bind(1, day).bind(2, name);
    return st.step() == SQLITE_ROW;
  }
};

const std::string& StudyIndex::setAside() const { return m_impl->rebuiltFrom; }

StudyIndex::StudyIndex(std::unique_ptr<Impl> impl, std::string path) : m_impl(std::move(impl)), m_path(std::move(path)) {}
StudyIndex::StudyIndex(StudyIndex&&) noexcept = default;
StudyIndex& StudyIndex::operator=(StudyIndex&&) noexcept = default;
StudyIndex::~StudyIndex() = default;

std::string StudyIndex::defaultIndexPath(const ShareStore& store) {
  return userCacheFolder() + "/catalogue/" + store.id() + ".sqlite";
}

namespace {

// The index holds patients' names and ids: owner-only (io/base/file_modes.h) whatever the umask. SQLite creates its
// files 0644 narrowed by the umask and gives the -wal and -shm files the database file's mode, so the database file
// is created (or, when an older version left it readable by others, narrowed) before SQLite opens it. Best effort:
// where the file cannot be opened here SQLite reports why.
void makeIndexOwnerOnly(const std::string& path) {
  const mode_t mode = fileModeFor(FileAccess::Private);
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, mode);
  if (fd < 0) return;
  detail::FdGuard closer(fd);
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != ::geteuid()) return;
  if ((st.st_mode & 07777) != mode) (void)::fchmod(fd, mode);
  for (const char* suffix : {"-wal", "-shm"}) {
    const std::string companion = path + suffix;
    if (::stat(companion.c_str(), &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == ::geteuid() &&
        (st.st_mode & 07777) != mode)
      (void)::chmod(companion.c_str(), mode);
  }
}

// One attempt at opening the index file: the schema created, the store checked.
core::Result<std::unique_ptr<StudyIndex::Impl>> openIndexFile(const ShareStore& store, const std::string& path,
                                                              bool* damaged) {
  auto impl = std::make_unique<StudyIndex::Impl>(store);
  impl->path = path;
  *damaged = false;
  makeIndexOwnerOnly(path);
  impl->inMemory = atRestSealingOn();
  if (sqlite3_open_v2(impl->inMemory ? ":memory:" : path.c_str(), &impl->db,
                      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX, nullptr) != SQLITE_OK)
    return impl->sqlError("cannot open the study index");
  sqlite3_busy_timeout(impl->db, 10000);  // the window and a CLI refreshing the same index take turns
  core::Status s = core::Status::success();
  bool wasPlain = false;
  if (impl->inMemory) {
    // An index an earlier version (or sealing switched off) left plain, with its WAL companions, is read once and
    // replaced by the sealed one below: patients' names stay on disk in the clear no longer than that.
    char head[16] = {};
    if (const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC); fd >= 0) {
      wasPlain = ::pread(fd, head, sizeof head, 0) == ssize_t(sizeof head) && !looksSealed(head, sizeof head);
      ::close(fd);
    }
    s = impl->load();
    // A damaged sealed file, or one sealed under a key this user no longer has: set aside and rebuilt (a cache).
    if (!s && (s.error().code == ErrorCode::Corrupt || s.error().code == ErrorCode::InvalidArgument)) *damaged = true;
    if (!s) return s.error();
  } else {
    // WAL: readers (a search in the window) do not wait for a refresh; NORMAL sync: the index can always be rebuilt.
    s = impl->exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;");
  }
  if (s) s = impl->exec(kSchema);
  if (!s) {
    const int code = sqlite3_errcode(impl->db);
    *damaged = code == SQLITE_NOTADB || code == SQLITE_CORRUPT;
    return s.error();
  }
  std::string storeId, schema;
  {
    Statement st(impl->db, "SELECT (SELECT value FROM meta WHERE key = 'store'), (SELECT value FROM meta WHERE key = 'schema')");
    if (st.step() == SQLITE_ROW) {
      storeId = columnText(st.get(), 0);
      schema = columnText(st.get(), 1);
    }
  }
  if (!storeId.empty() && storeId != store.id())
    return makeError(ErrorCode::Corrupt, path, "this index belongs to another share store");
  if (!schema.empty() && schema != std::to_string(kSchemaVersion)) {
    *damaged = true;  // written by another version: set aside and built again, as a damaged one
    return makeError(ErrorCode::Unsupported, path, "an index of another version (" + schema + ")");
  }
  if (storeId.empty()) {  // a new index; an existing one is not written to on open (a refresh may hold it)
    auto turn = impl->takeWriteTurn();
    if (!turn) return turn.error();
    Statement put(impl->db, "INSERT OR REPLACE INTO meta VALUES('store', ?), ('schema', ?)");
    put.bind(1, store.id()).bind(2, std::to_string(kSchemaVersion));
    if (put.step() != SQLITE_DONE) return impl->sqlError("cannot write the study index");
    if (core::Status saved = impl->save(); !saved) return saved.error();
  } else if (wasPlain) {
    auto turn = impl->takeWriteTurn();
    if (!turn) return turn.error();
    if (core::Status saved = impl->save(true); !saved) return saved.error();
    std::error_code ec;
    for (const char* suffix : {"-wal", "-shm"}) fs::remove(path + suffix, ec);
  }
  return impl;
}

}  // namespace

core::Result<StudyIndex> StudyIndex::open(const ShareStore& store, const std::string& indexPath) {
  const std::string path = indexPath.empty() ? defaultIndexPath(store) : indexPath;
  if (core::Status s = createFolders(fs::path(path).parent_path().string(), FileAccess::Private); !s) return s.error();
  std::error_code ec;
  bool damaged = false;
  auto impl = openIndexFile(store, path, &damaged);
  if (!impl && damaged) {
    // The index is a cache of the share's catalogue: a damaged one (a disk error, a foreign file) is set aside, kept
    // for a look, and built again from the share.
    const std::string aside = path + ".damaged-" + std::to_string(std::time(nullptr));
    for (const char* suffix : {"", "-wal", "-shm"}) fs::rename(path + suffix, aside + suffix, ec);
    impl = openIndexFile(store, path, &damaged);
    if (impl) (*impl)->rebuiltFrom = aside;
  }
  if (!impl) return impl.error();
  StudyIndex index(std::move(impl).value(), path);
  return index;
}

namespace {

// A read that failed for good (the file is damaged or impossibly large) is recorded and never tried again; any other
// failure (the share did not answer, a stale handle) is tried again at the next refresh.
bool permanentFailure(const core::Error& e) {
  return e.code == ErrorCode::ParseError || e.code == ErrorCode::Corrupt || e.code == ErrorCode::SizeLimit ||
         e.code == ErrorCode::Unsupported;
}

bool isReindexSnapshot(const std::string& name) { return name.find(".compact.") == std::string::npos; }

// A series record of the log checked against the share: its study's manifest of that series exists, at the path the
// record names, with the SHA-256 it names. "" when it does; else why not (the record is skipped and named: the
// catalogue never lists a study the folders do not hold). nullopt: the share did not answer (try again later).
std::optional<std::string> checkSeriesRecord(const ShareStore& store, const std::string& line) {
  const json j = json::parse(line, nullptr, false);
  if (!j.is_object() || j.value("kind", json()) != "series") return std::string();
  const auto text = [&](const char* key) {
    return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : std::string();
  };
  const std::string study = text("study"), series = text("series");
  if (study.empty() || series.empty() || !isValidShareName(study) || !isValidShareName(series))
    return std::string();  // refused by apply() with its own reason
  SeriesManifest m;
  m.study = study;
  m.series = series;
  const std::string expected = m.path();
  if (text("manifest") != expected)
    return "a series record naming manifest '" + text("manifest") + "', not its series' " + expected + ": skipped";
  auto path = store.resolve(expected);
  if (!path) return "a series record whose manifest path cannot be used (" + path.error().describe() + "): skipped";
  auto content = readWholeFileIfPresent(*path, kMaxRecordBytes, "series manifest");
  if (!content) {
    if (content.error().code == ErrorCode::SizeLimit || content.error().code == ErrorCode::Corrupt)
      return "a series record whose manifest cannot be read (" + content.error().describe() + "): skipped";
    return std::nullopt;
  }
  if (!*content)
    return "a series record of study " + study + " whose manifest " + *path +
           " does not exist on the share (a study that is not there): skipped";
  const std::string sha = sha256Hex((*content)->data(), (*content)->size());
  if (sha != text("manifestSha256"))
    return "a series record whose manifest " + *path + " differs from the one it names (SHA-256 " + sha + ", the record says " +
           text("manifestSha256") + "): skipped";
  return std::string();
}

// Why each series record of the log's segments (null: a segment that could not be read) is refused, keyed by
// (segment, line): checked against the share's manifests (a read each, 8 at a time, once per client: segments are
// read once). Snapshots are not checked again: a compaction holds only what its writer's index took (checked so when
// read from the log), a reindex what was read from the folders. A new client catching up on a long log would pay a
// manifest read per record (282 s for 100,000 over sshfs at 2 ms RTT, measured): past kFullCheckLimit records the
// check is one listing of studies/ instead, and a record of a study the share does not hold is refused; its manifest
// hash is then not compared (said in the README). ReadFailed when the share did not answer (tried again later).
core::Result<std::map<std::pair<std::size_t, std::size_t>, std::string>> checkSeriesRecords(
    const ShareStore& store, const std::vector<const std::vector<std::string>*>& segments, std::size_t* checked) {
  struct SeriesCheck {
    std::size_t segment, line;
    std::optional<std::string> rejected;
  };
  std::vector<SeriesCheck> checks;
  for (std::size_t k = 0; k < segments.size(); ++k)
    if (segments[k])
      for (std::size_t i = 0; i < segments[k]->size(); ++i)
        if ((*segments[k])[i].find("\"series\"") != std::string::npos) checks.push_back({k, i, std::string()});
  *checked = checks.size();
  const std::size_t fullCheckLimit = [] {
    const char* v = std::getenv("DELINEATE_CATALOGUE_FULL_CHECK_LIMIT");  // tests take the bulk path with few records
    return v && *v ? std::size_t(std::strtoull(v, nullptr, 10)) : kFullCheckLimit;
  }();
  if (checks.size() <= fullCheckLimit) {
    const std::string thrown = parallelFor(checks.size(), kShareRequestsInFlight, [&](std::size_t i, int) {
      checks[i].rejected = checkSeriesRecord(store, (*segments[checks[i].segment])[checks[i].line]);
      return true;
    });
    if (!thrown.empty()) return makeError(ErrorCode::ReadFailed, store.root(), "the catalogue refresh failed: " + thrown);
  } else {
    auto studies = listStudyNames(store);
    if (!studies) return studies.error();
    const std::set<std::string> present(studies->begin(), studies->end());
    for (SeriesCheck& c : checks) {
      const json j = json::parse((*segments[c.segment])[c.line], nullptr, false);
      if (!j.is_object() || j.value("kind", json()) != "series" || !j.contains("study") || !j["study"].is_string())
        continue;  // refused by apply() with its own reason
      const std::string study = j["study"].get<std::string>();
      if (present.count(study) == 0)
        c.rejected = "a series record of study " + study + ", which the share's studies/ does not hold (a study that "
                     "is not there): skipped";
    }
  }
  std::map<std::pair<std::size_t, std::size_t>, std::string> rejected;
  for (const SeriesCheck& c : checks) {
    if (!c.rejected)  // the share did not answer: the refresh is tried again later, nothing half-applied
      return makeError(ErrorCode::ReadFailed, store.root(),
                       "the catalogue refresh could not check a series record against the share: try again");
    if (!c.rejected->empty()) rejected[{c.segment, c.line}] = *c.rejected;
  }
  return rejected;
}

}  // namespace

core::Result<CatalogueRefresh> StudyIndex::refresh(core::ProgressSink* progress) {
  Impl& d = *m_impl;
  if (core::Status s = d.store.checkMounted(); !s) return s.error();
  // What another process saved since (sealed, in memory) is where this refresh starts: it reads only what is newer.
  if (core::Status s = d.reloadIfChanged(); !s) return s.error();
  CatalogueRefresh out;
  const auto cancelled = [&] { return progress && progress->cancelled(); };
  const auto cancelError = [&] { return makeError(ErrorCode::Cancelled, d.store.root(), "the refresh was cancelled"); };

  // 1. Everything that waits on the share, outside any transaction of the index (a search, or another process
  // opening the index, never waits for the share). Each step runs several requests at a time: on a network share
  // their count, not their bytes, is what a refresh costs.
  // Snapshots: every reindex snapshot not read yet; of the compaction snapshots, only the newest not read yet, when
  // none newer was read (each holds everything its writer knew: the older ones are inside it or in the segments).
  auto snapshotNames = listCatalogueSnapshots(d.store);
  if (!snapshotNames) return snapshotNames.error();
  struct SnapshotRead {
    std::string name;
    core::Result<CatalogueSnapshot> content = CatalogueSnapshot{};
    bool read = false;  // false: known to add nothing, only marked as seen
  };
  std::vector<SnapshotRead> snapshots;
  std::string newestCompactKnown;
  {
    Statement st(d.db, "SELECT max(name) FROM snapshots WHERE name LIKE '%.compact.%'");
    if (st.step() == SQLITE_ROW) newestCompactKnown = columnText(st.get(), 0);
  }
  bool compactChosen = false;
  for (auto it = snapshotNames->rbegin(); it != snapshotNames->rend(); ++it) {
    Statement known(d.db, "SELECT 1 FROM snapshots WHERE name = ?");
    known.bind(1, *it);
    if (known.step() == SQLITE_ROW) continue;
    const bool read = isReindexSnapshot(*it) || (!compactChosen && *it > newestCompactKnown);
    if (!isReindexSnapshot(*it) && read) compactChosen = true;
    snapshots.push_back({*it, CatalogueSnapshot{}, read});
  }
  for (SnapshotRead& snap : snapshots)
    if (snap.read) snap.content = readCatalogueSnapshot(d.store, snap.name);
  if (cancelled()) return cancelError();

  // The log: day folders, the newest three stat'ed (all of them at the first refresh and hourly: a writer whose
  // clock is days behind), listed again when their time moved or their last listing is not known to be complete,
  // and only segments not read yet read.
  auto dayNames = listCatalogueDayNames(d.store);
  if (!dayNames) return dayNames.error();
  const std::int64_t listedAt = nowNs();
  std::int64_t lastSweep = 0;
  {
    Statement st(d.db, "SELECT value FROM meta WHERE key = 'lastSweep'");
    if (st.step() == SQLITE_ROW) lastSweep = std::stoll("0" + columnText(st.get(), 0));
  }
  const bool sweep = listedAt - lastSweep > kSweepIntervalNs || listedAt < lastSweep;
  struct DayState {
    std::string day;
    bool known = false, confirmed = false;
    std::int64_t mtime = 0, listed = 0;  // as the index has them
    std::int64_t now = 0;                // as the share says now
    bool stat = false, list = false;
    core::Result<std::vector<std::string>> names = std::vector<std::string>{};
  };
  std::vector<DayState> days;
  // Days a snapshot read now covers count as known with the snapshot's view of them.
  std::map<std::string, const CatalogueSnapshot::Covered*> coveredBySnapshot;
  for (const SnapshotRead& snap : snapshots)
    if (snap.read && snap.content)
      for (const auto& c : snap.content->covered) coveredBySnapshot[c.day] = &c;
  for (const std::string& name : *dayNames) {
    DayState day;
    day.day = name;
    Statement known(d.db, "SELECT mtime, listed, confirmed FROM days WHERE day = ?");
    known.bind(1, name);
    if (known.step() == SQLITE_ROW) {
      day.known = true;
      day.mtime = sqlite3_column_int64(known.get(), 0);
      day.listed = sqlite3_column_int64(known.get(), 1);
      day.confirmed = sqlite3_column_int64(known.get(), 2) != 0;
    } else if (auto c = coveredBySnapshot.find(name); c != coveredBySnapshot.end()) {
      day.known = true;
      day.mtime = c->second->mtimeNs;
      day.confirmed = c->second->confirmed;
    }
    days.push_back(std::move(day));
  }
  for (std::size_t i = 0; i < days.size(); ++i)
    days[i].stat = sweep || !days[i].known || !days[i].confirmed || i + kRecentDays >= days.size();
  std::vector<DayState*> toStat, toList;
  for (DayState& day : days)
    if (day.stat) toStat.push_back(&day);
  std::vector<std::optional<core::Error>> statErrors(toStat.size());
  std::string thrown = parallelFor(toStat.size(), kShareRequestsInFlight, [&](std::size_t i, int) {
    auto mtime = catalogueDayTime(d.store, toStat[i]->day);
    if (mtime) toStat[i]->now = *mtime;
    else statErrors[i] = mtime.error();
    return true;
  });
  if (!thrown.empty()) return makeError(ErrorCode::ReadFailed, d.store.root(), "the catalogue refresh failed: " + thrown);
  for (const auto& e : statErrors)
    if (e) return *e;
  for (DayState* day : toStat) {
    day->list = !day->known || day->mtime != day->now || !day->confirmed;
    if (day->list) toList.push_back(day);
  }
  if (cancelled()) return cancelError();
  thrown = parallelFor(toList.size(), kShareRequestsInFlight, [&](std::size_t i, int) {
    toList[i]->names = listCatalogueSegments(d.store, toList[i]->day);
    return true;
  });
  if (!thrown.empty()) return makeError(ErrorCode::ReadFailed, d.store.root(), "the catalogue refresh failed: " + thrown);
  std::set<std::pair<std::string, std::string>> coveredNow;
  for (const SnapshotRead& snap : snapshots)
    if (snap.read && snap.content)
      for (const auto& c : snap.content->covered)
        for (const auto& name : c.segments) coveredNow.insert({c.day, name});
  struct Segment {
    std::string day, name;
    core::Result<std::vector<std::string>> lines = std::vector<std::string>{};
  };
  std::vector<Segment> segments;
  for (DayState* day : toList) {
    if (!day->names) return day->names.error();
    for (const std::string& name : *day->names)
      if (!d.segmentKnown(day->day, name) && !coveredNow.count({day->day, name}))
        segments.push_back({day->day, name, std::vector<std::string>{}});
  }
  std::atomic<std::size_t> done{0};
  thrown = parallelFor(segments.size(), kShareRequestsInFlight, [&](std::size_t i, int) {
    if (cancelled()) return false;
    segments[i].lines = readCatalogueSegment(d.store, segments[i].day, segments[i].name);
    if (progress) progress->report(double(++done) / double(segments.size()), "catalogue");
    return true;
  });
  if (!thrown.empty()) return makeError(ErrorCode::ReadFailed, d.store.root(), "the catalogue refresh failed: " + thrown);
  if (cancelled()) return cancelError();
  std::vector<const std::vector<std::string>*> logLines;
  for (const Segment& segment : segments) logLines.push_back(segment.lines ? &*segment.lines : nullptr);
  std::size_t checked = 0;
  auto rejectedOrError = checkSeriesRecords(d.store, logLines, &checked);
  if (!rejectedOrError) return rejectedOrError.error();
  const auto& rejected = *rejectedOrError;

  // 2. What was read goes into the index in one transaction: records applied in order (snapshots, then segments by
  // day and name, the writers' time), on this thread.
  std::set<std::string> touched;
  // In memory (sealed at rest): this process's turn to write, with what another process saved meanwhile loaded.
  auto turn = d.takeWriteTurn();
  if (!turn) return turn.error();
  if (core::Status st = d.exec("BEGIN IMMEDIATE"); !st) return st.error();
  const auto fail = [&](core::Error e) -> core::Result<CatalogueRefresh> {
    (void)d.exec("ROLLBACK");  // the error that brought us here is the one to report
    return e;
  };
  Statement markSnapshot(d.db, "INSERT OR IGNORE INTO snapshots VALUES(?)");
  Statement cover(d.db, "INSERT INTO segments VALUES(?, ?, 1) ON CONFLICT(day, name) DO UPDATE SET covered = 1");
  Statement coverDay(d.db, "INSERT OR IGNORE INTO days VALUES(?, ?, 0, ?)");
  for (const SnapshotRead& snap : snapshots) {
    const std::string source = std::string(kCatalogueSnapshots) + "/" + snap.name;
    if (snap.read && !snap.content) {
      d.problem(source, snap.content.error().describe(), out);
      if (!permanentFailure(snap.content.error())) continue;  // tried again at the next refresh
    }
    markSnapshot.bind(1, snap.name);
    markSnapshot.step();
    markSnapshot.reset();
    if (!snap.read || !snap.content) continue;
    d.applyLines(snap.content->records, source, touched, out);
    for (const auto& c : snap.content->covered) {
      for (const auto& name : c.segments) {
        cover.bind(1, c.day).bind(2, name);
        if (cover.step() != SQLITE_DONE) return fail(d.sqlError("cannot record a segment"));
        cover.reset();
      }
      coverDay.bind(1, c.day).bind(2, c.mtimeNs).bind(3, std::int64_t(c.confirmed ? 1 : 0));
      coverDay.step();
      coverDay.reset();
    }
    ++out.snapshotsRead;
  }
  Statement seg(d.db, "INSERT OR IGNORE INTO segments VALUES(?, ?, 0)");
  std::set<std::string> incompleteDays;  // a segment of it could not be read this time
  for (std::size_t k = 0; k < segments.size(); ++k) {
    const Segment& segment = segments[k];
    const std::string source = std::string(kCatalogueLog) + "/" + segment.day + "/" + segment.name;
    if (segment.lines) {
      d.applyLines(*segment.lines, source, touched, out, [&](std::size_t line) -> const std::string* {
        const auto found = rejected.find({k, line});
        return found == rejected.end() ? nullptr : &found->second;
      });
    } else {
      d.problem(source, segment.lines.error().describe(), out);
      if (!permanentFailure(segment.lines.error())) {
        incompleteDays.insert(segment.day);
        continue;  // not recorded as read: tried again at the next refresh
      }
    }
    seg.bind(1, segment.day).bind(2, segment.name);
    if (seg.step() != SQLITE_DONE) return fail(d.sqlError("cannot record a segment"));
    seg.reset();
    ++out.segmentsRead;
  }
  // A listing is complete when it was made at least 2 s after the folder's time was last seen to change (shares
  // keep folder times to the second: a segment added in the second of a listing may be missing from it). Both times
  // compared are this machine's clock, so a server clock that differs does not matter.
  // A folder two days older than today (by this machine's UTC date) gets no more segments but from a writer whose
  // clock is days behind, which also moves its time: one listing of it is complete.
  const std::string oldBefore = utcDayName(listedAt / 1000000000 - 2 * 86400);
  Statement put(d.db, "INSERT OR REPLACE INTO days VALUES(?, ?, ?, ?)");
  for (const DayState* day : toList) {
    const bool confirmed = !incompleteDays.count(day->day) &&
                           (day->day < oldBefore || (day->known && day->mtime == day->now && day->listed > 0 &&
                                                     listedAt - day->listed >= kConfirmAfterNs));
    const std::int64_t listed = day->known && day->mtime == day->now && day->listed > 0 ? day->listed : listedAt;
    put.bind(1, day->day).bind(2, day->now).bind(3, confirmed ? listedAt : listed).bind(4, std::int64_t(confirmed ? 1 : 0));
    put.step();
    put.reset();
    ++out.daysListed;
  }
  if (sweep) {
    Statement meta(d.db, "INSERT OR REPLACE INTO meta VALUES('lastSweep', ?)");
    meta.bind(1, std::to_string(listedAt));
    meta.step();
  }
  if (core::Status st = d.recompute(touched); !st) return fail(st.error());
  out.studiesUpdated = int(touched.size());
  if (core::Status st = d.exec("COMMIT"); !st) return fail(st.error());
  if (core::Status st = d.save(); !st) return st.error();
  turn->reset();

  Statement uncovered(d.db, "SELECT count(*) FROM segments WHERE covered = 0");
  // Also after many series records were checked against the share: the next new client reads them in a snapshot
  // instead of checking each again.
  if ((uncovered.step() == SQLITE_ROW && sqlite3_column_int64(uncovered.get(), 0) >= kCompactAfter) ||
      checked >= kCompactAfterChecked) {
    auto name = compact();
    if (name) out.compactedInto = *name;
    else out.compactWarning = "could not write a catalogue snapshot (" + name.error().describe() +
                              "); every new client reads the catalogue segment by segment until one is written";
  }
  return out;
}

core::Result<std::string> StudyIndex::compact() {
  Impl& d = *m_impl;
  CatalogueSnapshot snapshot;
  {
    Statement st(d.db, "SELECT day, mtime, confirmed FROM days ORDER BY day");
    while (st.step() == SQLITE_ROW) {
      CatalogueSnapshot::Covered c;
      c.day = columnText(st.get(), 0);
      c.mtimeNs = sqlite3_column_int64(st.get(), 1);
      c.confirmed = sqlite3_column_int64(st.get(), 2) != 0;
      Statement seg(d.db, "SELECT name FROM segments WHERE day = ? ORDER BY name");
      seg.bind(1, c.day);
      while (seg.step() == SQLITE_ROW) c.segments.push_back(columnText(seg.get(), 0));
      snapshot.covered.push_back(std::move(c));
    }
  }
  {
    Statement st(d.db, "SELECT study, series, manifest, manifest_sha, patient_id, patient_name, study_date, modality, "
                       "study_desc, series_desc, files, bytes, time FROM series ORDER BY study, series");
    while (st.step() == SQLITE_ROW) {
      json j{{"kind", "series"}};
      const char* keys[] = {"study", "series", "manifest", "manifestSha256", "patientId", "patientName", "studyDate",
                            "modality", "studyDescription", "seriesDescription"};
      for (int i = 0; i < 10; ++i) j[keys[i]] = columnText(st.get(), i);
      j["files"] = sqlite3_column_int64(st.get(), 10);
      j["bytes"] = sqlite3_column_int64(st.get(), 11);
      j["time"] = columnText(st.get(), 12);
      snapshot.records.push_back(j.dump());
    }
  }
  {
    Statement st(d.db, "SELECT study, label_set, revision, author, time, series FROM labelsets ORDER BY study, label_set");
    while (st.step() == SQLITE_ROW)
      snapshot.records.push_back(catalogueLabelsRecord(columnText(st.get(), 0), columnText(st.get(), 1),
                                                       int(sqlite3_column_int64(st.get(), 2)), columnText(st.get(), 3),
                                                       columnText(st.get(), 4), columnText(st.get(), 5)));
  }
  {
    Statement st(d.db, "SELECT study, label_set, revision, state, user, time, seq FROM reviews "
                       "ORDER BY study, label_set, revision");
    while (st.step() == SQLITE_ROW) {
      const std::string state = columnText(st.get(), 3);
      const std::string action = state == "submitted" ? "submit" : state == "approved" ? "approve" : "reject";
      snapshot.records.push_back(catalogueReviewRecord(columnText(st.get(), 0), columnText(st.get(), 1),
                                                       int(sqlite3_column_int64(st.get(), 2)), action,
                                                       columnText(st.get(), 4), columnText(st.get(), 5),
                                                       int(sqlite3_column_int64(st.get(), 6))));
    }
  }
  {
    Statement st(d.db, "SELECT study, label_set, event, user, host, time FROM leases ORDER BY study, label_set");
    while (st.step() == SQLITE_ROW) {
      json j = json::parse(catalogueLeaseRecord(columnText(st.get(), 0), columnText(st.get(), 1), columnText(st.get(), 2),
                                                columnText(st.get(), 3), columnText(st.get(), 4)));
      j["time"] = columnText(st.get(), 5);
      snapshot.records.push_back(j.dump());
    }
  }
  auto name = writeCatalogueSnapshot(d.store, snapshot, "compact");
  if (!name) return name.error();
  auto turn = d.takeWriteTurn();
  if (!turn) return turn.error();
  if (core::Status s = d.exec("BEGIN IMMEDIATE"); !s) return s.error();
  Statement mark(d.db, "INSERT OR IGNORE INTO snapshots VALUES(?)");
  mark.bind(1, *name);
  mark.step();
  Statement cover(d.db, "UPDATE segments SET covered = 1 WHERE day = ? AND name = ?");
  for (const auto& c : snapshot.covered)
    for (const auto& s : c.segments) {
      cover.bind(1, c.day).bind(2, s);
      cover.step();
      cover.reset();
    }
  if (core::Status s = d.exec("COMMIT"); !s) return s.error();
  if (core::Status s = d.save(); !s) return s.error();
  return name;
}

namespace {

StudyRow rowFrom(sqlite3_stmt* st) {
  StudyRow r;
  r.study = columnText(st, 0);
  r.patientId = columnText(st, 1);
  r.patientName = columnText(st, 2);
  r.studyDate = columnText(st, 3);
  r.modalities = columnText(st, 4);
  r.description = columnText(st, 5);
  r.seriesCount = int(sqlite3_column_int64(st, 6));
  r.labelSets = columnText(st, 7);
  r.latestLabelSet = columnText(st, 8);
  r.latestRevision = int(sqlite3_column_int64(st, 9));
  r.latestAuthor = columnText(st, 10);
  r.latestTime = columnText(st, 11);
  r.review = columnText(st, 12);
  r.approved = sqlite3_column_int64(st, 13) != 0;
  r.editing = columnText(st, 14);
  r.editingSince = columnText(st, 15);
  return r;
}

constexpr const char* kRowColumns =
    "study, patient_id, patient_name, study_date, modalities, description, series_count, label_sets, latest_set, "
    "latest_revision, latest_author, latest_time, review, approved, "
    "CASE WHEN editing != '' AND editing_time >= ? THEN editing ELSE '' END, editing_time";

}  // namespace

namespace {

// The WHERE clause of a query and its arguments (the first argument is the editing horizon of kRowColumns).
core::Result<std::string> whereClause(const StudyQuery& q, std::vector<std::string>& args) {
  std::string sql = " WHERE 1";
  const auto like = [](const std::string& s) { return "%" + s + "%"; };
  if (!q.text.empty()) {
    sql += " AND (patient_id LIKE ? OR patient_name LIKE ? OR description LIKE ? OR study LIKE ?)";
    for (int i = 0; i < 4; ++i) args.push_back(like(q.text));
  }
  if (!q.patient.empty()) {
    sql += " AND (patient_id LIKE ? OR patient_name LIKE ?)";
    args.push_back(like(q.patient));
    args.push_back(like(q.patient));
  }
  if (!q.modality.empty()) {
    sql += " AND (',' || modalities || ',') LIKE ?";
    args.push_back("%," + q.modality + ",%");
  }
  for (auto [value, op] : {std::pair{&q.dateFrom, ">="}, {&q.dateTo, "<="}}) {
    if (value->empty()) continue;
    const std::string date = normalizeStudyDate(*value);
    if (date.empty()) return makeError(ErrorCode::InvalidArgument, *value, "not a date (YYYY-MM-DD or YYYYMMDD)");
    sql += std::string(" AND study_date != '' AND study_date ") + op + " ?";
    args.push_back(date);
  }
  if (!q.description.empty()) {
    sql += " AND description LIKE ?";
    args.push_back(like(q.description));
  }
  if (!q.status.empty()) {
    if (q.status == "none") sql += " AND latest_revision = 0";
    else if (q.status == "revisions") sql += " AND latest_revision > 0";
    else if (q.status == "approved") sql += " AND approved != 0";
    else if (q.status == "submitted") sql += " AND review = 'submitted'";
    else if (q.status == "editing") {
      sql += " AND editing != '' AND editing_time >= ?";
      args.push_back(isoHoursAgo(kEditingHorizonHours));
    } else
      return makeError(ErrorCode::InvalidArgument, q.status,
                       "not a label status (none, editing, revisions, submitted, approved)");
  }
  return sql;
}

}  // namespace

core::Result<std::vector<StudyRow>> StudyIndex::search(const StudyQuery& q) const {
  (void)m_impl->reloadIfChanged();  // another process's refresh, saved (in memory: else as it was)
  const Impl& d = *m_impl;
  std::vector<std::string> args{isoHoursAgo(kEditingHorizonHours)};
  auto where = whereClause(q, args);
  if (!where) return where.error();
  static const std::map<std::string, std::string> kSort = {
      {"date", "study_date"}, {"patient", "patient_name"}, {"patientId", "patient_id"}, {"study", "study"},
      {"modality", "modalities"}, {"description", "description"}, {"labels", "label_sets"},
      {"revision", "latest_time"}, {"review", "review"}, {"editing", "editing"}};
  const auto sort = kSort.find(q.sortBy);
  if (sort == kSort.end())
    return makeError(ErrorCode::InvalidArgument, q.sortBy,
                     "not a sort key (date, patient, patientId, study, modality, description, labels, revision, "
                     "review, editing)");
  std::string sql = std::string("SELECT ") + kRowColumns + " FROM studies" + *where + " ORDER BY " + sort->second +
                    (q.descending ? " DESC" : " ASC") + ", study";
  if (q.limit > 0) sql += " LIMIT " + std::to_string(q.limit);
  Statement st(d.db, sql.c_str());
  if (!st.ok()) return d.sqlError("cannot search the study index");
  for (std::size_t i = 0; i < args.size(); ++i) st.bind(int(i + 1), args[i]);
  std::vector<StudyRow> rows;
  int rc;
  while ((rc = st.step()) == SQLITE_ROW) rows.push_back(rowFrom(st.get()));
  if (rc != SQLITE_DONE) return d.sqlError("cannot search the study index");
  return rows;
}

core::Result<int> StudyIndex::count(const StudyQuery& q) const {
  (void)m_impl->reloadIfChanged();  // another process's refresh, saved (in memory: else as it was)
  std::vector<std::string> args;
  auto where = whereClause(q, args);
  if (!where) return where.error();
  Statement st(m_impl->db, ("SELECT count(*) FROM studies" + *where).c_str());
  if (!st.ok()) return m_impl->sqlError("cannot search the study index");
  for (std::size_t i = 0; i < args.size(); ++i) st.bind(int(i + 1), args[i]);
  if (st.step() != SQLITE_ROW) return m_impl->sqlError("cannot search the study index");
  return int(sqlite3_column_int64(st.get(), 0));
}

core::Result<std::optional<StudyRow>> StudyIndex::find(const std::string& study) const {
  (void)m_impl->reloadIfChanged();  // another process's refresh, saved (in memory: else as it was)
  Statement st(m_impl->db, (std::string("SELECT ") + kRowColumns + " FROM studies WHERE study = ?").c_str());
  st.bind(1, isoHoursAgo(kEditingHorizonHours)).bind(2, study);
  const int rc = st.step();
  if (rc == SQLITE_ROW) return std::optional<StudyRow>(rowFrom(st.get()));
  if (rc != SQLITE_DONE) return m_impl->sqlError("cannot read the study index");
  return std::optional<StudyRow>();
}

core::Result<int> StudyIndex::studyCount() const {
  (void)m_impl->reloadIfChanged();  // another process's refresh, saved (in memory: else as it was)
  Statement st(m_impl->db, "SELECT count(*) FROM studies");
  if (st.step() != SQLITE_ROW) return m_impl->sqlError("cannot read the study index");
  return int(sqlite3_column_int64(st.get(), 0));
}

core::Result<std::vector<std::string>> StudyIndex::problems() const {
  (void)m_impl->reloadIfChanged();  // another process's refresh, saved (in memory: else as it was)
  Statement st(m_impl->db, "SELECT source, reason FROM problems ORDER BY source");
  std::vector<std::string> out;
  while (st.step() == SQLITE_ROW) out.push_back(columnText(st.get(), 0) + ": " + columnText(st.get(), 1));
  return out;
}

}  // namespace delineate::io
