// Leases on real folders (and, through tests/io/sshfs_share_suite.sh, on a real sshfs mount): exclusive creation,
// heartbeats, expiry judged with an injected clock (no sleeping), audited breaks, and real processes racing to break
// one stale lease or dying while they hold one.
#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <memory>

#include "io/share/audit_log.h"
#include "io/share/share_lease.h"
#include "io/share/share_revisions.h"
#include "tests/common/test_support.h"

using namespace delineate;
using test::ScratchDir;
namespace fs = std::filesystem;
using Clock = std::chrono::system_clock;

namespace {

struct FakeClock {
  std::shared_ptr<Clock::time_point> t = std::make_shared<Clock::time_point>(Clock::now());
  std::function<Clock::time_point()> fn() const {
    auto p = t;
    return [p] { return *p; };
  }
  void advance(int seconds) { *t += std::chrono::seconds(seconds); }
};

io::LeasePolicy policyWith(const FakeClock& clock, int ttl = 120, int grace = 30) {
  io::LeasePolicy p;
  p.ttlSeconds = ttl;
  p.heartbeatSeconds = ttl / 4;
  p.skewGraceSeconds = grace;
  p.clock = clock.fn();
  return p;
}

struct Fixture {
  ScratchDir dir{"share-lease"};
  io::ShareStore store = io::ShareStore::initialize(dir.path().string()).value();
  std::string folder = io::LabelSetRevisions::open(store, "study-1", "organs").value().folder();
  fs::path abs(const std::string& name) const { return dir.path() / folder / name; }

  io::ShareLease lease(const std::string& user, const io::LeasePolicy& policy) const {
    auto l = io::ShareLease::prepare(store, folder, user, policy);
    REQUIRE(l.ok());
    return std::move(l).value();
  }
  std::vector<std::string> auditLines() const {
    std::vector<std::string> lines;
    for (const auto& e : fs::directory_iterator(dir / "audit")) {
      std::ifstream in(e.path());
      for (std::string line; std::getline(in, line);) lines.push_back(line);
    }
    return lines;
  }
};

}  // namespace

TEST_CASE("lease: a free lease is taken, a live one is reported with its holder, a released one is free again",
          "[share][share-suite][lease]") {
  Fixture f;
  FakeClock clock;
  auto alice = f.lease("alice", policyWith(clock));
  auto bob = f.lease("bob", policyWith(clock));
  REQUIRE(alice.current().ok());
  CHECK_FALSE(alice.current()->has_value());

  auto a = alice.acquire();
  REQUIRE(a.ok());
  CHECK(a->outcome == io::LeaseOutcome::Acquired);
  CHECK(alice.held());
  CHECK(fs::exists(f.abs("lease.json")));
  // Taking it again is fine (and is a heartbeat).
  REQUIRE(alice.acquire().ok());
  CHECK(alice.acquire()->outcome == io::LeaseOutcome::Acquired);

  clock.advance(100);
  auto b = bob.acquire();
  REQUIRE(b.ok());
  CHECK(b->outcome == io::LeaseOutcome::HeldByOther);
  REQUIRE(b->holder.has_value());
  CHECK(b->holder->user == "alice");
  CHECK(b->holder->host == io::localHostName());
  CHECK(b->holder->pid == ::getpid());
  CHECK_FALSE(b->holder->expired);
  CHECK_FALSE(bob.held());

  REQUIRE(alice.release().ok());
  CHECK_FALSE(alice.held());
  CHECK_FALSE(fs::exists(f.abs("lease.json")));
  auto b2 = bob.acquire();
  REQUIRE(b2.ok());
  CHECK(b2->outcome == io::LeaseOutcome::Acquired);
  // Alice releasing again does not touch Bob's lease.
  REQUIRE(alice.release().ok());
  REQUIRE(bob.current().ok());
  REQUIRE(bob.current()->has_value());
  CHECK((*bob.current())->user == "bob");
  CHECK(f.auditLines().empty());  // nothing was broken
}

TEST_CASE("lease: heartbeats keep a lease alive, only after ttl + grace is it broken, audited, and the old holder is "
          "told at its next heartbeat",
          "[share][share-suite][lease]") {
  Fixture f;
  FakeClock clock;
  auto alice = f.lease("alice", policyWith(clock, 120, 30));
  auto bob = f.lease("bob", policyWith(clock, 120, 30));
  REQUIRE(alice.acquire()->outcome == io::LeaseOutcome::Acquired);

  clock.advance(149);  // ttl passed, grace not
  CHECK(bob.acquire()->outcome == io::LeaseOutcome::HeldByOther);
  REQUIRE(alice.heartbeat().ok());
  clock.advance(149);  // 149 s after the heartbeat: still alive
  auto held = bob.acquire();
  REQUIRE(held.ok());
  CHECK(held->outcome == io::LeaseOutcome::HeldByOther);
  CHECK_FALSE(held->holder->expired);

  clock.advance(2);  // 151 s of silence: expired
  auto broke = bob.acquire();
  REQUIRE(broke.ok());
  CHECK(broke->outcome == io::LeaseOutcome::Broke);
  REQUIRE(broke->holder.has_value());
  CHECK(broke->holder->user == "alice");
  CHECK(bob.held());
  CHECK_FALSE(fs::exists(f.abs("lease.breaking")));
  bool evidence = false;
  for (const auto& e : fs::directory_iterator(f.dir / f.folder))
    evidence |= e.path().filename().string().rfind("lease-broken-", 0) == 0;
  CHECK(evidence);

  // The break is in the audit log, and the log verifies.
  const auto lines = f.auditLines();
  REQUIRE(lines.size() == 1);
  CHECK(lines[0].find("\"action\":\"lease-break\"") != std::string::npos);
  CHECK(lines[0].find("\"user\":\"bob\"") != std::string::npos);
  CHECK(lines[0].find("alice@") != std::string::npos);
  CHECK(lines[0].find("\"study\":\"study-1\"") != std::string::npos);
  for (const auto& e : fs::directory_iterator(f.dir / "audit")) {
    auto report = io::verifyAuditLog(e.path().string());
    REQUIRE(report.ok());
    CHECK(report->ok());
  }

  // Alice finds out; her release leaves Bob's lease alone.
  auto beat = alice.heartbeat();
  REQUIRE_FALSE(beat.ok());
  INFO(beat.error().describe());
  CHECK(beat.error().describe().find("broken") != std::string::npos);
  CHECK(beat.error().describe().find("bob@") != std::string::npos);
  CHECK(beat.error().subject.find("lease.json") != std::string::npos);
  CHECK_FALSE(alice.held());
  REQUIRE(alice.release().ok());
  CHECK((*bob.current())->user == "bob");
  // And Alice cannot take it back while Bob's lease lives.
  CHECK(alice.acquire()->outcome == io::LeaseOutcome::HeldByOther);
}

TEST_CASE("lease: a damaged lease file expires by its modification time, a fresh break marker holds others off, a "
          "stale one does not",
          "[share][share-suite][lease]") {
  Fixture f;
  FakeClock clock;
  fs::create_directories(f.dir / f.folder);
  test::writeTextFile(f.abs("lease.json"), "{not json");
  auto bob = f.lease("bob", policyWith(clock, 60, 0));
  auto r = bob.acquire();
  REQUIRE(r.ok());
  CHECK(r->outcome == io::LeaseOutcome::HeldByOther);
  CHECK(r->holder->token == "unreadable");

  clock.advance(61);
  // Someone is breaking it right now (a marker written a moment ago by that breaker's clock).
  const auto nowMs = std::chrono::duration_cast<std::chrono::milliseconds>(clock.t->time_since_epoch()).count();
  test::writeTextFile(f.abs("lease.breaking"), "{\"ms\":" + std::to_string(nowMs - 5000) + "}");
  CHECK(bob.acquire()->outcome == io::LeaseOutcome::HeldByOther);
  CHECK(fs::exists(f.abs("lease.breaking")));
  // That breaker died: its marker is stale after kBreakMarkerStaleSeconds.
  clock.advance(io::kBreakMarkerStaleSeconds);
  auto broke = bob.acquire();
  REQUIRE(broke.ok());
  CHECK(broke->outcome == io::LeaseOutcome::Broke);
  CHECK_FALSE(fs::exists(f.abs("lease.breaking")));
  CHECK((*bob.current())->user == "bob");
}

// A child process that takes the lease as `user` and then waits (until killChild): a holder on this machine that can be
// made to vanish.
pid_t holdLeaseInChild(const Fixture& f, const std::string& user) {
  int ready[2];
  REQUIRE(::pipe(ready) == 0);
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    ::close(ready[0]);
    auto l = io::ShareLease::prepare(f.store, f.folder, user, {});
    const char c = (l && l->acquire() && l->held()) ? 'y' : 'n';
    (void)!::write(ready[1], &c, 1);
    for (;;) ::pause();
  }
  ::close(ready[1]);
  char c = 0;
  const bool told = ::read(ready[0], &c, 1) == 1;
  ::close(ready[0]);
  if (!told || c != 'y') {
    ::kill(child, SIGKILL);
    ::waitpid(child, nullptr, 0);
  }
  REQUIRE(told);
  REQUIRE(c == 'y');
  return child;
}

void killChild(pid_t child) {
  ::kill(child, SIGKILL);
  int status = 0;
  ::waitpid(child, &status, 0);
}

TEST_CASE("lease: the holder killed with SIGKILL leaves a lease that others see as held until it expires",
          "[share][share-suite][lease]") {
  Fixture f;
  const pid_t child = holdLeaseInChild(f, "crasher");
  killChild(child);

  FakeClock clock;
  auto next = f.lease("next", policyWith(clock, 120, 30));
  auto r = next.acquire();
  REQUIRE(r.ok());
  CHECK(r->outcome == io::LeaseOutcome::HeldByOther);
  CHECK(r->holder->user == "crasher");
  CHECK(r->holder->pid == child);
  clock.advance(120 + 30 + 5);
  auto broke = next.acquire();
  REQUIRE(broke.ok());
  CHECK(broke->outcome == io::LeaseOutcome::Broke);
  CHECK(broke->holder->user == "crasher");
}

TEST_CASE("lease: with breakWhenHolderGone, a holder on this machine whose process is gone is broken at once, audited "
          "as such, and a live holder is not",
          "[share][lease]") {
  Fixture f;
  const pid_t child = holdLeaseInChild(f, "batch-task");
  io::LeasePolicy policy;
  policy.breakWhenHolderGone = true;
  auto next = io::ShareLease::prepare(f.store, f.folder, "rerun", policy);
  REQUIRE(next.ok());
  auto alive = next->acquire();  // its holder still runs
  REQUIRE(alive.ok());
  CHECK(alive->outcome == io::LeaseOutcome::HeldByOther);
  killChild(child);
  auto broke = next->acquire();
  REQUIRE(broke.ok());
  CHECK(broke->outcome == io::LeaseOutcome::Broke);
  CHECK(broke->holder->user == "batch-task");
  CHECK(broke->holder->processGone);
  bool audited = false;
  for (const auto& line : f.auditLines())
    if (line.find("lease-break") != std::string::npos && line.find("a process that is gone") != std::string::npos)
      audited = true;
  CHECK(audited);
}

TEST_CASE("lease: eight processes breaking the same expired lease at once: exactly one gets it",
          "[share][share-suite][lease]") {
  Fixture f;
  FakeClock clock;
  auto old = f.lease("old", policyWith(clock, 60, 0));
  REQUIRE(old.acquire()->outcome == io::LeaseOutcome::Acquired);
  clock.advance(3600);  // every racer judges the lease expired

  constexpr int kRacers = 8;
  int go[2];
  REQUIRE(::pipe(go) == 0);
  std::vector<pid_t> children;
  for (int i = 0; i < kRacers; ++i) {
    const pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      ::close(go[1]);
      char c;
      (void)!::read(go[0], &c, 1);  // all start together when the pipe closes
      auto l = io::ShareLease::prepare(f.store, f.folder, "racer" + std::to_string(i), policyWith(clock, 60, 0));
      if (!l) ::_exit(10);
      auto r = l->acquire();
      if (!r) ::_exit(11);
      ::_exit(r->outcome == io::LeaseOutcome::Broke ? 0 : r->outcome == io::LeaseOutcome::Acquired ? 1 : 2);
    }
    children.push_back(pid);
  }
  ::close(go[0]);
  ::close(go[1]);
  int broke = 0, acquired = 0, held = 0, failed = 0;
  for (pid_t pid : children) {
    int status = 0;
    ::waitpid(pid, &status, 0);
    const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 99;
    broke += code == 0;
    acquired += code == 1;
    held += code == 2;
    failed += code > 2;
  }
  CHECK(failed == 0);
  CHECK(broke == 1);  // the stale lease is replaced in one rename: nobody finds the label set without a lease
  CHECK(acquired == 0);
  CHECK(held == kRacers - 1);
  // One lease, held by the racer that broke it, and one audited break.
  auto now = old.current();
  REQUIRE(now.ok());
  REQUIRE(now->has_value());
  CHECK((*now)->user.rfind("racer", 0) == 0);
  CHECK(f.auditLines().size() == 1);
  CHECK_FALSE(old.heartbeat().ok());
}
