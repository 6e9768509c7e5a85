// The local autosave journal: real files, real locks, real crashes (fork + SIGKILL), no mocks.
#include <catch2/catch.hpp>

#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "core/edit_transaction.h"
#include "core/label_map.h"
#include "io/share/audit_log.h"
#include "io/autosave/autosave_journal.h"
#include "io/base/file_read.h"
#include "io/base/sealed_file.h"
#include "tests/common/byte_support.h"
#include "tests/common/test_support.h"

using namespace delineate;
using io::AutosaveJournal;
using test::ScratchDir;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

core::Geometry obliqueGeometry(core::Size3 dims = {23, 17, 11}) {
  return core::Geometry(dims, {0.7, 0.83, 2.5}, {-12.25, 30.5, 101.0}, test::rotationMatrix(0.3, -0.5, 1.1));
}

// Several labels written the only way voxels are written: boxes, brush dabs and single voxels above 255.
core::LabelMap paintedMap(const core::Geometry& g, int seed) {
  core::LabelMap map = core::LabelMap::create(g).value();
  core::EditTransaction tx(map, "Paint");
  tx.fillBox(core::IndexBox{{1, 1, 1}, {8, 6, 4}}, 1);
  tx.fillBox(core::IndexBox{{10, 2, 3}, {20, 15, 9}}, 2);
  tx.paintSphere(g.indexToLps(core::Vec3{12, 8, 5}), 3.0, 3);
  std::mt19937 rng(static_cast<unsigned>(seed));
  for (int i = 0; i < 200; ++i) {
    const core::Index3 ijk{std::int64_t(rng() % std::uint32_t(g.dimensions()[0])),
                           std::int64_t(rng() % std::uint32_t(g.dimensions()[1])),
                           std::int64_t(rng() % std::uint32_t(g.dimensions()[2]))};
    tx.set(ijk, static_cast<core::Label>(4 + rng() % 3 + (i % 5 == 0 ? 1000 : 0)));
  }
  REQUIRE(tx.commit().has_value());
  return map;
}

// Every voxel random in 0..maxLabel: a snapshot of predictable, hardly compressible size.
core::LabelMap randomMap(const core::Geometry& g, unsigned seed, unsigned maxLabel) {
  core::LabelMap map = core::LabelMap::create(g).value();
  auto v = core::Volume<core::Label>::create(g).value();
  std::mt19937 rng(seed);
  for (auto& x : v.buffer()) x = static_cast<core::Label>(rng() % (maxLabel + 1));
  core::EditTransaction tx(map, "Import");
  REQUIRE(tx.assignAll(v).ok());
  REQUIRE(tx.commit().has_value());
  return map;
}

// A different state of `map` (one more finished edit).
void editOnce(core::LabelMap& map, core::Label label) {
  core::EditTransaction tx(map, "Paint");
  tx.fillBox(core::IndexBox{{0, 0, 0}, {2, 2, 2}}, label);
  REQUIRE(tx.commit().has_value());
}

bool sameVoxels(const core::LabelMap& a, const core::LabelMap& b) { return a.voxels().buffer() == b.voxels().buffer(); }

io::AutosaveContext sampleContext(const std::string& image = "/data/ct/case 7.nii.gz") {
  io::AutosaveContext c;
  c.imagePath = image;
  c.shareRoot = "/mnt/share";
  c.study = "study-7";
  c.labelSet = "organs";
  c.baseRevision = 3;
  c.description = "liver refinement";
  return c;
}

std::vector<std::string> names(const fs::path& folder) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(folder)) out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

std::uint64_t folderBytes(const fs::path& folder) {
  std::uint64_t n = 0;
  for (const auto& e : fs::directory_iterator(folder))
    if (e.is_regular_file()) n += e.file_size();
  return n;
}

// Makes every file of a journal look last written `hours` ago.
void age(const fs::path& folder, int hours) {
  const auto t = fs::file_time_type::clock::now() - std::chrono::hours(hours);
  for (const auto& e : fs::directory_iterator(folder)) fs::last_write_time(e.path(), t);
}

const io::AutosaveJournalInfo* findIn(const std::vector<io::AutosaveJournalInfo>& list, const std::string& id) {
  for (const auto& i : list)
    if (i.journalId == id) return &i;
  return nullptr;
}

// --- child processes ------------------------------------------------------------------------------------------------

// A forked child running `body(fromParent, toParent)`; whatever happens it leaves through _exit (never through
// Catch2 or the parent's atexit handlers).
struct Child {
  pid_t pid = -1;
  int toChild = -1;
  int fromChild = -1;

  template <class Body>
  static Child spawn(Body body) {
    int down[2], up[2];
    REQUIRE(::pipe(down) == 0);
    REQUIRE(::pipe(up) == 0);
    const pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      ::close(down[1]);
      ::close(up[0]);
      int code = 99;
      try {
        code = body(down[0], up[1]);
      } catch (...) {
      }
      ::_exit(code);
    }
    ::close(down[0]);
    ::close(up[1]);
    return Child{pid, down[1], up[0]};
  }

  // Reads exactly n bytes, waiting at most 20 s in all: a broken child fails the test instead of hanging it.
  std::string read(std::size_t n) const {
    std::string out;
    const auto deadline = Clock::now() + std::chrono::seconds(20);
    while (out.size() < n && Clock::now() < deadline) {
      pollfd p{fromChild, POLLIN, 0};
      if (::poll(&p, 1, 100) <= 0) continue;
      char buf[256];
      const ssize_t got = ::read(fromChild, buf, std::min(sizeof buf, n - out.size()));
      if (got <= 0) break;
      out.append(buf, static_cast<std::size_t>(got));
    }
    return out;
  }
  void send(char c) const { REQUIRE(::write(toChild, &c, 1) == 1); }
  void kill() const { ::kill(pid, SIGKILL); }
  int wait() {
    int status = 0;
    ::waitpid(pid, &status, 0);
    ::close(toChild);
    ::close(fromChild);
    pid = -1;
    return status;
  }
};

void writeAll(int fd, const std::string& s) {
  std::size_t done = 0;
  while (done < s.size()) {
    const ssize_t n = ::write(fd, s.data() + done, s.size() - done);
    if (n <= 0) ::_exit(98);
    done += static_cast<std::size_t>(n);
  }
}

char readOne(int fd) {
  char c = 0;
  return ::read(fd, &c, 1) == 1 ? c : '\0';
}

}  // namespace

TEST_CASE("autosave: snapshot then recover gives the exact voxels and geometry, and the recovered journal is live",
          "[autosave]") {
  ScratchDir root("autosave-rt");
  const core::Geometry g = obliqueGeometry();
  core::LabelMap map = paintedMap(g, 1);
  io::AutosaveContext context = sampleContext();
  context.description = std::string("odd bytes \xff\xfe kept");  // not UTF-8: stored losslessly

  auto journal = AutosaveJournal::create(root.path().string(), context);
  REQUIRE(journal.ok());
  const std::string id = journal->id();
  CHECK(AutosaveJournal::isValidJournalId(id));
  CHECK((fs::status(journal->folder()).permissions() & fs::perms::all) == fs::perms::owner_all);
  REQUIRE(journal->snapshot(map).ok());
  CHECK(names(journal->folder()) ==
        std::vector<std::string>{"labels-00000001.nii.gz", "owner.lock", "session.json", "snapshot.json"});
  REQUIRE(journal->lastSnapshot().has_value());
  CHECK(journal->lastSnapshot()->sequence == 1);
  CHECK(journal->lastSnapshot()->bytes == fs::file_size(journal->lastSnapshot()->file));
  REQUIRE(journal->detach().ok());
  CHECK_FALSE(journal->isOpen());

  auto scan = AutosaveJournal::findRecoverable(root.path().string());
  REQUIRE(scan.ok());
  CHECK(scan->live.empty());
  REQUIRE(scan->recoverable.size() == 1);
  const io::AutosaveJournalInfo& found = scan->recoverable[0];
  CHECK(found.journalId == id);
  CHECK(found.problem.empty());
  CHECK(found.context.imagePath == context.imagePath);
  CHECK(found.context.description == context.description);
  CHECK(found.context.baseRevision == 3);
  CHECK(found.pid == ::getpid());
  CHECK(found.host == io::localHostName());
  CHECK_FALSE(found.fromOtherHost);
  REQUIRE(found.snapshot.has_value());
  CHECK(found.snapshot->sequence == 1);

  auto recovered = AutosaveJournal::recover(root.path().string(), id);
  REQUIRE(recovered.ok());
  CHECK(sameVoxels(recovered->labels, map));
  CHECK(recovered->labels.geometry() == g);  // bit for bit, not just close
  CHECK(recovered->info.context.study == "study-7");
  CHECK(recovered->journal.context().labelSet == "organs");
  CHECK(recovered->journal.isOpen());

  // Recovered = adopted: a second instance now sees it as live and cannot take it too.
  scan = AutosaveJournal::findRecoverable(root.path().string());
  REQUIRE(scan.ok());
  CHECK(scan->recoverable.empty());
  REQUIRE(findIn(scan->live, id) != nullptr);
  auto again = AutosaveJournal::recover(root.path().string(), id);
  REQUIRE_FALSE(again.ok());
  CHECK(io::isJournalInUse(again.error()));
  CHECK(again.error().subject.find(id) != std::string::npos);
  auto discard = AutosaveJournal::discardRecoverable(root.path().string(), id);
  REQUIRE_FALSE(discard.ok());
  CHECK(io::isJournalInUse(discard.error()));

  // The untouched recovered map is already on disk; an edit makes a new snapshot that replaces the old file.
  AutosaveJournal& live = recovered->journal;
  REQUIRE(live.snapshot(recovered->labels).ok());
  CHECK(live.lastSnapshot()->sequence == 1);
  editOnce(recovered->labels, 9);
  REQUIRE(live.snapshot(recovered->labels).ok());
  CHECK(live.lastSnapshot()->sequence == 2);
  CHECK(names(live.folder()) ==
        std::vector<std::string>{"labels-00000002.nii.gz", "owner.lock", "session.json", "snapshot.json"});
  const std::string folder = live.folder();
  REQUIRE(live.close().ok());
  CHECK_FALSE(fs::exists(folder));
  CHECK(fs::is_empty(root.path()));
}

TEST_CASE("autosave: a second journal in the same process sees the first as live, and scans never drop a lock",
          "[autosave]") {
  ScratchDir root("autosave-two");
  const core::LabelMap map = paintedMap(obliqueGeometry(), 2);
  auto first = AutosaveJournal::create(root.path().string(), sampleContext("/a.nii"));
  auto second = AutosaveJournal::create(root.path().string(), sampleContext("/b.nii"));
  REQUIRE(first.ok());
  REQUIRE(second.ok());
  CHECK(first->id() != second->id());
  REQUIRE(first->snapshot(map).ok());
  REQUIRE(second->snapshot(map).ok());
  for (int round = 0; round < 3; ++round) {  // a scan opens and closes descriptors of the lock files
    auto scan = AutosaveJournal::findRecoverable(root.path().string());
    REQUIRE(scan.ok());
    CHECK(scan->recoverable.empty());
    CHECK(scan->live.size() == 2);
  }
  auto stolen = AutosaveJournal::recover(root.path().string(), first->id());
  REQUIRE_FALSE(stolen.ok());
  CHECK(io::isJournalInUse(stolen.error()));

  const std::string secondId = second->id();
  REQUIRE(second->detach().ok());
  auto scan = AutosaveJournal::findRecoverable(root.path().string());
  REQUIRE(scan.ok());
  REQUIRE(scan->recoverable.size() == 1);
  CHECK(scan->recoverable[0].journalId == secondId);
  CHECK(scan->recoverable[0].context.imagePath == "/b.nii");
  REQUIRE(findIn(scan->live, first->id()) != nullptr);
  REQUIRE(AutosaveJournal::discardRecoverable(root.path().string(), secondId).ok());
  REQUIRE(first->close().ok());
  CHECK(fs::is_empty(root.path()));
}

TEST_CASE("autosave: close removes the journal, nothing is left to recover without a snapshot or after a save",
          "[autosave]") {
  ScratchDir root("autosave-close");
  const core::LabelMap map = paintedMap(obliqueGeometry(), 3);
  {
    auto j = AutosaveJournal::create(root.path().string(), sampleContext());
    REQUIRE(j.ok());
    REQUIRE(j->snapshot(map).ok());
    REQUIRE(j->close().ok());
    CHECK(fs::is_empty(root.path()));
    CHECK(j->close().ok());  // twice is harmless
  }
  {
    auto j = AutosaveJournal::create(root.path().string(), sampleContext());
    REQUIRE(j.ok());
    // Destroyed without a snapshot: nothing to recover, nothing left.
  }
  CHECK(fs::is_empty(root.path()));
  {
    auto j = AutosaveJournal::create(root.path().string(), sampleContext());
    REQUIRE(j.ok());
    REQUIRE(j->snapshot(map).ok());
    // Destroyed with a snapshot and no close(): an unwinding error path keeps the work for recovery.
  }
  auto scan = AutosaveJournal::findRecoverable(root.path().string());
  REQUIRE(scan.ok());
  REQUIRE(scan->recoverable.size() == 1);
  REQUIRE(AutosaveJournal::discardRecoverable(root.path().string(), scan->recoverable[0].journalId).ok());
  CHECK(fs::is_empty(root.path()));

  // Saved to the share: the snapshot goes, and a crash now offers nothing.
  auto j = AutosaveJournal::create(root.path().string(), sampleContext());
  REQUIRE(j.ok());
  REQUIRE(j->snapshot(map).ok());
  io::AutosaveContext saved = sampleContext();
  saved.baseRevision = 4;
  REQUIRE(j->setContext(saved).ok());
  REQUIRE(j->markSaved().ok());
  CHECK_FALSE(j->lastSnapshot().has_value());
  CHECK(names(j->folder()) == std::vector<std::string>{"owner.lock", "session.json"});
  const std::string id = j->id();
  auto held = AutosaveJournal::recover(root.path().string(), id);
  REQUIRE_FALSE(held.ok());
  CHECK(io::isJournalInUse(held.error()));
  // Released after the save: nothing was left to recover, so nothing is left on disk.
  REQUIRE(j->detach().ok());
  CHECK(fs::is_empty(root.path()));
}

TEST_CASE("autosave: due only after the interval since the first unsaved edit, idle sessions never write",
          "[autosave]") {
  ScratchDir root("autosave-due");
  io::AutosavePolicy policy;
  policy.intervalSeconds = 30;
  auto j = AutosaveJournal::create(root.path().string(), sampleContext(), policy);
  REQUIRE(j.ok());
  const Clock::time_point t0{};  // an injected clock: no sleeps
  using std::chrono::seconds;

  // Idle: never dirty, never due, however long it runs.
  CHECK_FALSE(j->due(t0 + seconds(3600), false));
  CHECK_FALSE(j->due(t0 + seconds(3600), true));  // dirty but no edit noted since the last snapshot

  j->noteEdit(t0 + seconds(10));
  CHECK_FALSE(j->due(t0 + seconds(39), true));
  CHECK(j->due(t0 + seconds(40), true));
  CHECK_FALSE(j->due(t0 + seconds(40), false));  // saved meanwhile: nothing to protect
  // Continuous painting does not push the autosave back: the interval runs from the first edit.
  for (int s = 11; s < 40; ++s) j->noteEdit(t0 + seconds(s));
  CHECK(j->due(t0 + seconds(40), true));

  core::LabelMap map = paintedMap(obliqueGeometry(), 4);
  REQUIRE(j->snapshot(map, t0 + seconds(40)).ok());
  CHECK_FALSE(j->due(t0 + seconds(500), true));
  j->noteEdit(t0 + seconds(100));
  CHECK_FALSE(j->due(t0 + seconds(129), true));
  CHECK(j->due(t0 + seconds(130), true));

  // A failed snapshot (here: an edit still open) leaves the map alone and is retried; a refused one backs off.
  {
    core::EditTransaction open(map, "Stroke");
    open.fillBox(core::IndexBox{{0, 0, 0}, {1, 1, 1}}, 7);
    auto busy = j->snapshot(map, t0 + seconds(130));
    REQUIRE_FALSE(busy.ok());
    CHECK(busy.error().code == core::ErrorCode::InvalidArgument);
    CHECK(j->lastSnapshot()->sequence == 1);
  }
  CHECK(j->due(t0 + seconds(131), true));
  REQUIRE(j->close().ok());
  CHECK_FALSE(j->due(t0 + seconds(1000), true));

  // A snapshot refused by the size bound is retried one interval later, not on every tick.
  policy.maxTotalBytes = 1;
  auto tight = AutosaveJournal::create(root.path().string(), sampleContext(), policy);
  REQUIRE(tight.ok());
  tight->noteEdit(t0);
  REQUIRE(tight->due(t0 + seconds(30), true));
  auto refused = tight->snapshot(map, t0 + seconds(30));
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().code == core::ErrorCode::SizeLimit);
  CHECK_FALSE(tight->lastSnapshot().has_value());
  CHECK_FALSE(tight->due(t0 + seconds(59), true));
  CHECK(tight->due(t0 + seconds(60), true));
  CHECK(names(tight->folder()) == std::vector<std::string>{"owner.lock", "session.json"});
}

TEST_CASE("autosave: a bit-flipped, truncated or mis-described snapshot is refused naming the file", "[autosave]") {
  ScratchDir root("autosave-bad");
  const core::LabelMap map = paintedMap(obliqueGeometry(), 5);
  auto j = AutosaveJournal::create(root.path().string(), sampleContext());
  REQUIRE(j.ok());
  REQUIRE(j->snapshot(map).ok());
  const std::string id = j->id();
  const fs::path folder = j->folder();
  const fs::path labels = j->lastSnapshot()->file;
  REQUIRE(j->detach().ok());
  const auto original = test::readBytes(labels);
  // Sealed at rest (io/base/sealed_file.h): the record is edited as its content, and written back plain (a journal
  // written with sealing off, or by an earlier version, is plain).
  CHECK(io::looksSealed(original.data(), original.size()) == io::atRestSealingOn());
  CHECK(io::looksSealed(test::readTextFile(folder / "snapshot.json").data(), 8) == io::atRestSealingOn());
  auto recordText = io::readWholeFile((folder / "snapshot.json").string(), 1 << 20, "record");
  REQUIRE(recordText.ok());
  const std::string record = *recordText;

  SECTION("bit flip") {
    auto bytes = original;
    bytes[bytes.size() / 2] ^= 0x10;
    test::writeBytes(labels, bytes);
    auto r = AutosaveJournal::recover(root.path().string(), id);
    REQUIRE_FALSE(r.ok());
    INFO(r.error().describe());
    CHECK(r.error().code == core::ErrorCode::Corrupt);
    CHECK(r.error().subject == labels.string());
    CHECK(r.error().detail.find("SHA-256") != std::string::npos);
  }
  SECTION("truncated") {
    test::writeBytes(labels, std::vector<std::uint8_t>(original.begin(), original.begin() + 100));
    auto scan = AutosaveJournal::findRecoverable(root.path().string());
    REQUIRE(scan.ok());
    REQUIRE(scan->recoverable.size() == 1);
    CHECK(scan->recoverable[0].problem.find(labels.string()) != std::string::npos);
    auto r = AutosaveJournal::recover(root.path().string(), id);
    REQUIRE_FALSE(r.ok());
    INFO(r.error().describe());
    CHECK(r.error().code == core::ErrorCode::Corrupt);
    CHECK(r.error().subject == labels.string());
  }
  SECTION("snapshot.json that is not JSON") {
    test::writeTextFile(folder / "snapshot.json", record.substr(0, record.size() / 2));
    auto r = AutosaveJournal::recover(root.path().string(), id);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == core::ErrorCode::ParseError);
    CHECK(r.error().subject == (folder / "snapshot.json").string());
  }
  SECTION("snapshot.json naming a file outside the journal") {
    const auto at = record.find("labels-00000001.nii.gz");
    REQUIRE(at != std::string::npos);
    test::writeTextFile(folder / "snapshot.json", record.substr(0, at) + "../../etc/passwd" + record.substr(at + 22));
    auto r = AutosaveJournal::recover(root.path().string(), id);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == core::ErrorCode::ParseError);
    CHECK(r.error().describe().find("not a snapshot file name") != std::string::npos);
  }
  // A failed recovery leaves the journal exactly as it was, to be looked at or discarded.
  CHECK(fs::exists(labels));
  CHECK(fs::exists(folder / "session.json"));
  REQUIRE(AutosaveJournal::discardRecoverable(root.path().string(), id).ok());
  CHECK_FALSE(fs::exists(folder));
}

TEST_CASE("autosave: journal ids from outside are validated, unknown ones are NotFound", "[autosave]") {
  ScratchDir root("autosave-ids");
  fs::create_directories(root / "inner");
  for (const std::string bad : {"../inner", "/etc", "", "0123456789abcdef0123456789ABCDEF", ".", "inner"}) {
    INFO(bad);
    auto r = AutosaveJournal::recover((root / "inner").string(), bad);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == core::ErrorCode::InvalidArgument);
    CHECK(AutosaveJournal::discardRecoverable((root / "inner").string(), bad).error().code ==
          core::ErrorCode::InvalidArgument);
  }
  CHECK(fs::exists(root / "inner"));
  auto missing = AutosaveJournal::recover(root.path().string(), std::string(32, 'a'));
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().code == core::ErrorCode::NotFound);
  // Scanning a root that does not exist yet finds nothing and creates nothing.
  auto scan = AutosaveJournal::findRecoverable((root / "never").string());
  REQUIRE(scan.ok());
  CHECK(scan->recoverable.empty());
  CHECK_FALSE(fs::exists(root / "never"));
}

TEST_CASE("autosave: a killed editor's journal is live while it runs and recoverable once it is dead", "[autosave]") {
  ScratchDir root("autosave-crash");
  const core::LabelMap map = paintedMap(obliqueGeometry(), 6);
  Child child = Child::spawn([&](int in, int out) {
    auto j = AutosaveJournal::create(root.path().string(), sampleContext("/child.nii.gz"));
    if (!j || !j->snapshot(map)) return 1;
    writeAll(out, j->id());
    readOne(in);  // blocks until killed
    return 2;
  });
  const std::string id = child.read(32);
  REQUIRE(id.size() == 32);

  // A second running instance: not a crash.
  auto scan = AutosaveJournal::findRecoverable(root.path().string());
  REQUIRE(scan.ok());
  CHECK(scan->recoverable.empty());
  const io::AutosaveJournalInfo* live = findIn(scan->live, id);
  REQUIRE(live != nullptr);
  CHECK(live->context.imagePath == "/child.nii.gz");
  CHECK(live->pid == child.pid);
  CHECK(io::isJournalInUse(AutosaveJournal::recover(root.path().string(), id).error()));
  CHECK(io::isJournalInUse(AutosaveJournal::discardRecoverable(root.path().string(), id).error()));

  const pid_t childPid = child.pid;
  child.kill();
  const int status = child.wait();
  CHECK(WIFSIGNALED(status));

  scan = AutosaveJournal::findRecoverable(root.path().string());
  REQUIRE(scan.ok());
  CHECK(scan->live.empty());
  const io::AutosaveJournalInfo* crashed = findIn(scan->recoverable, id);
  REQUIRE(crashed != nullptr);
  CHECK(crashed->pid == childPid);
  auto recovered = AutosaveJournal::recover(root.path().string(), id);
  REQUIRE(recovered.ok());
  CHECK(sameVoxels(recovered->labels, map));
  CHECK(recovered->labels.geometry() == map.geometry());
  REQUIRE(recovered->journal.close().ok());

  // Killed before its first autosave: listed, with nothing to recover, and discardable.
  Child early = Child::spawn([&](int in, int out) {
    auto j = AutosaveJournal::create(root.path().string(), sampleContext());
    if (!j) return 1;
    writeAll(out, j->id());
    readOne(in);
    return 2;
  });
  const std::string earlyId = early.read(32);
  REQUIRE(earlyId.size() == 32);
  early.kill();
  early.wait();
  scan = AutosaveJournal::findRecoverable(root.path().string());
  REQUIRE(scan.ok());
  const io::AutosaveJournalInfo* empty = findIn(scan->recoverable, earlyId);
  REQUIRE(empty != nullptr);
  CHECK_FALSE(empty->snapshot.has_value());
  CHECK(empty->problem.empty());
  auto nothing = AutosaveJournal::recover(root.path().string(), earlyId);
  REQUIRE_FALSE(nothing.ok());
  CHECK(nothing.error().code == core::ErrorCode::NotFound);
  CHECK(nothing.error().detail.find("nothing to recover") != std::string::npos);
  REQUIRE(AutosaveJournal::discardRecoverable(root.path().string(), earlyId).ok());
  CHECK(fs::is_empty(root.path()));
}

TEST_CASE("autosave: a crash in the middle of a snapshot leaves the previous one recoverable", "[autosave]") {
  ScratchDir root("autosave-midwrite");
  const core::Geometry g = obliqueGeometry({96, 96, 40});
  const core::LabelMap a = randomMap(g, 11, 65535), b = randomMap(g, 12, 65535);
  int hitMidWrite = 0;
  for (const double fraction : {0.1, 0.35, 0.6, 0.85}) {
    INFO("killed at " << fraction << " of a snapshot");
    Child child = Child::spawn([&](int, int out) {
      auto j = AutosaveJournal::create(root.path().string(), sampleContext());
      if (!j) return 1;
      writeAll(out, j->id());
      for (int i = 0;; ++i) {
        if (!j->snapshot(i % 2 == 0 ? a : b)) return 3;
        writeAll(out, "s");
      }
    });
    const std::string id = child.read(32);
    REQUIRE(id.size() == 32);
    REQUIRE(child.read(1) == "s");
    const auto t1 = Clock::now();
    REQUIRE(child.read(1) == "s");
    const auto oneSnapshot = Clock::now() - t1;
    REQUIRE(child.read(1) == "s");
    std::this_thread::sleep_for(std::chrono::duration_cast<std::chrono::microseconds>(oneSnapshot * fraction));
    child.kill();
    child.wait();

    const fs::path folder = root / id;
    int temporaries = 0, labelFiles = 0;
    for (const auto& n : names(folder)) {
      temporaries += n.find(".tmp-") != std::string::npos;
      labelFiles += n.rfind("labels-", 0) == 0;
    }
    hitMidWrite += temporaries > 0 || labelFiles > 1;
    auto recovered = AutosaveJournal::recover(root.path().string(), id);
    REQUIRE(recovered.ok());
    CHECK(recovered->info.snapshot->sequence >= 3);
    CHECK((sameVoxels(recovered->labels, a) || sameVoxels(recovered->labels, b)));
    CHECK(recovered->labels.geometry() == g);
    // Adopting cleaned up what the dead writer left half done.
    CHECK(names(folder).size() == 4);
    REQUIRE(recovered->journal.close().ok());
  }
  // Not a requirement (timing), but tells whether the kills really landed inside a write.
  WARN(hitMidWrite << " of 4 kills landed inside a snapshot (a temporary or a second labels file was left)");
}

TEST_CASE("autosave: the size bound evicts crashed journals oldest first, never a live or foreign one, and refuses "
          "a snapshot that cannot fit",
          "[autosave]") {
  ScratchDir root("autosave-bound");
  ScratchDir probeRoot("autosave-probe");
  const core::Geometry g = obliqueGeometry({64, 64, 32});
  const core::LabelMap small = paintedMap(obliqueGeometry({64, 64, 32}), 7);
  auto crashedJournal = [&](unsigned seed, int hours) {
    auto j = AutosaveJournal::create(root.path().string(), sampleContext());
    REQUIRE(j.ok());
    REQUIRE(j->snapshot(randomMap(g, seed, 255)).ok());
    const fs::path folder = j->folder();
    REQUIRE(j->detach().ok());
    age(folder, hours);
    return folder;
  };
  const fs::path a = crashedJournal(1, 3), b = crashedJournal(2, 2), c = crashedJournal(3, 1);
  // Another host's journal in a shared home folder: its lock may mean nothing there, so it is never evicted.
  const fs::path foreign = crashedJournal(4, 10);
  auto sessionText = io::readWholeFile((foreign / "session.json").string(), 1 << 20, "record");  // sealed at rest
  REQUIRE(sessionText.ok());
  std::string session = *sessionText;
  const std::string hostField = "\"host\": \"" + io::localHostName() + "\"";
  REQUIRE(session.find(hostField) != std::string::npos);
  session.replace(session.find(hostField), hostField.size(), "\"host\": \"another-workstation\"");
  test::writeTextFile(foreign / "session.json", session);
  age(foreign, 10);
  // A running instance whose journal is the oldest of all.
  auto live = AutosaveJournal::create(root.path().string(), sampleContext());
  REQUIRE(live.ok());
  REQUIRE(live->snapshot(randomMap(g, 5, 255)).ok());
  age(live->folder(), 20);

  // What the new journal will weigh with the small snapshot, measured on a journal elsewhere.
  std::uint64_t smallJournal = 0;
  {
    auto probe = AutosaveJournal::create(probeRoot.path().string(), sampleContext());
    REQUIRE(probe.ok());
    REQUIRE(probe->snapshot(small).ok());
    smallJournal = folderBytes(probe->folder());
  }
  io::AutosavePolicy policy;
  policy.maxTotalBytes = folderBytes(live->folder()) + folderBytes(foreign) + folderBytes(b) + folderBytes(c) +
                         smallJournal + 4096;
  REQUIRE(folderBytes(a) > 8192);

  auto editor = AutosaveJournal::create(root.path().string(), sampleContext(), policy);
  REQUIRE(editor.ok());
  REQUIRE(editor->snapshot(small).ok());
  CHECK_FALSE(fs::exists(a));  // the oldest crashed journal of this host went
  CHECK(fs::exists(b));
  CHECK(fs::exists(c));
  CHECK(fs::exists(foreign));
  CHECK(fs::exists(live->folder()));

  // Larger than everything that could be evicted: refused, and nothing is evicted for nothing.
  const core::LabelMap huge = randomMap(obliqueGeometry({64, 64, 96}), 8, 65535);
  auto refused = editor->snapshot(huge);
  REQUIRE_FALSE(refused.ok());
  INFO(refused.error().describe());
  CHECK(refused.error().code == core::ErrorCode::SizeLimit);
  CHECK(refused.error().subject.find(editor->folder()) == 0);
  CHECK(fs::exists(b));
  CHECK(fs::exists(c));
  CHECK(editor->lastSnapshot()->sequence == 1);
  CHECK(names(editor->folder()) ==
        std::vector<std::string>{"labels-00000001.nii.gz", "owner.lock", "session.json", "snapshot.json"});

  // A snapshot that fits once the oldest remaining crashed journal goes.
  const core::LabelMap medium = randomMap(g, 9, 255);
  REQUIRE(editor->snapshot(medium).ok());
  CHECK_FALSE(fs::exists(b));
  CHECK(fs::exists(c));
  CHECK(fs::exists(foreign));
  CHECK(fs::exists(live->folder()));
  CHECK(editor->lastSnapshot()->sequence == 2);

  // The refused attempt left the previous snapshot whole: it is what a crash now recovers.
  const std::string id = editor->id();
  REQUIRE(editor->detach().ok());
  auto recovered = AutosaveJournal::recover(root.path().string(), id);
  REQUIRE(recovered.ok());
  CHECK(sameVoxels(recovered->labels, medium));
  REQUIRE(recovered->journal.close().ok());
  REQUIRE(live->close().ok());
}

TEST_CASE("autosave: two instances starting at once recover a journal once", "[autosave]") {
  ScratchDir root("autosave-race");
  const core::LabelMap map = paintedMap(obliqueGeometry(), 8);
  std::string id;
  {
    auto j = AutosaveJournal::create(root.path().string(), sampleContext());
    REQUIRE(j.ok());
    REQUIRE(j->snapshot(map).ok());
    id = j->id();
    REQUIRE(j->detach().ok());
  }
  for (int round = 0; round < 4; ++round) {
    INFO("round " << round);
    Child child = Child::spawn([&](int in, int out) {
      readOne(in);  // start together
      auto r = AutosaveJournal::recover(root.path().string(), id);
      const bool good = r.ok() && sameVoxels(r->labels, map);
      writeAll(out, r.ok() ? (good ? "o" : "x") : (io::isJournalInUse(r.error()) ? "u" : "e"));
      readOne(in);  // hold the recovered journal until the parent has tried too
      return 0;     // _exit: the journal stays, as after a crash
    });
    child.send('g');
    auto mine = AutosaveJournal::recover(root.path().string(), id);
    const std::string theirs = child.read(1);
    child.send('q');
    child.wait();
    if (mine.ok()) {
      CHECK(sameVoxels(mine->labels, map));
      CHECK(theirs == "u");
      REQUIRE(mine->journal.detach().ok());  // leave it for the next round
    } else {
      CHECK(io::isJournalInUse(mine.error()));
      CHECK(theirs == "o");
    }
  }
  REQUIRE(AutosaveJournal::discardRecoverable(root.path().string(), id).ok());
}

TEST_CASE("autosave: the default root follows DELINEATE_AUTOSAVE_DIR, then XDG_STATE_HOME, then HOME", "[autosave]") {
  struct Saved {
    const char* name;
    std::optional<std::string> value;
  };
  std::vector<Saved> saved;
  for (const char* name : {"DELINEATE_AUTOSAVE_DIR", "XDG_STATE_HOME", "HOME"}) {
    const char* v = std::getenv(name);
    saved.push_back({name, v ? std::optional<std::string>(v) : std::nullopt});
  }
  ::setenv("DELINEATE_AUTOSAVE_DIR", "/var/tmp/as", 1);
  ::setenv("XDG_STATE_HOME", "/home/u/.state", 1);
  ::setenv("HOME", "/home/u", 1);
  CHECK(*io::defaultAutosaveRoot() == "/var/tmp/as");
  ::unsetenv("DELINEATE_AUTOSAVE_DIR");
  CHECK(*io::defaultAutosaveRoot() == "/home/u/.state/delineate/autosave");
  ::setenv("XDG_STATE_HOME", "relative/state", 1);  // the XDG spec: relative paths are ignored
  CHECK(*io::defaultAutosaveRoot() == "/home/u/.local/state/delineate/autosave");
  ::unsetenv("XDG_STATE_HOME");
  CHECK(*io::defaultAutosaveRoot() == "/home/u/.local/state/delineate/autosave");
  ::unsetenv("HOME");
  auto none = io::defaultAutosaveRoot();
  CHECK_FALSE(none.ok());
  for (const auto& s : saved) {
    if (s.value) ::setenv(s.name, s.value->c_str(), 1);
    else ::unsetenv(s.name);
  }
}
