// Versioned label sets: revisions never overwritten, conflicts kept and marked, damage caught by hash, and a writer
// killed mid-save (a real SIGKILL of a child process) leaves every earlier revision loadable.
#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <thread>
#include <vector>

#include "io/share/share_revisions.h"
#include "tests/common/test_support.h"

using namespace delineate;
using test::ScratchDir;
namespace fs = std::filesystem;

namespace {

std::vector<std::uint8_t> content(int seed, std::size_t size = 1000) {
  std::vector<std::uint8_t> v(size);
  for (std::size_t i = 0; i < size; ++i) v[i] = std::uint8_t((i * 31 + std::size_t(seed) * 7) & 0xff);
  return v;
}

}  // namespace

TEST_CASE("revisions: each save is a new revision, and a save on an old base is kept and marked as a conflict",
          "[share][share-suite]") {
  ScratchDir dir("rev-basic");
  auto store = io::ShareStore::initialize(dir.path().string());
  REQUIRE(store.ok());
  auto set = io::LabelSetRevisions::open(*store, "study-1", "organs");
  REQUIRE(set.ok());
  const auto a = content(1), b = content(2), c = content(3), d = content(4);
  auto r1 = set->save(a.data(), a.size(), "alice", 0, "first");
  REQUIRE(r1.ok());
  CHECK(r1->number == 1);
  CHECK_FALSE(r1->conflict);
  auto r2 = set->save(b.data(), b.size(), "alice", 1, "second");
  REQUIRE(r2.ok());
  CHECK(r2->number == 2);
  CHECK_FALSE(r2->conflict);
  // Bob and Carol both opened revision 2; Bob saves first, Carol's save must not replace his.
  auto bob = set->save(c.data(), c.size(), "bob", 2, "bob's edit");
  auto carol = set->save(d.data(), d.size(), "carol", 2, "carol's edit");
  REQUIRE(bob.ok());
  REQUIRE(carol.ok());
  CHECK_FALSE(bob->conflict);
  CHECK(carol->conflict);
  CHECK(carol->latestAtSave == 3);
  CHECK(carol->number == 4);

  auto list = set->list();
  REQUIRE(list.ok());
  REQUIRE(list->revisions.size() == 4);
  CHECK(list->incomplete.empty());
  CHECK(list->revisions[3].author == "carol");
  CHECK(list->revisions[3].conflict);
  CHECK(list->revisions[3].base == 2);
  const std::vector<std::vector<std::uint8_t>> expected = {a, b, c, d};
  for (int n = 1; n <= 4; ++n) {
    auto loaded = set->load(n);
    REQUIRE(loaded.ok());
    CHECK(*loaded == expected[std::size_t(n - 1)]);
  }
  CHECK_FALSE(io::LabelSetRevisions::open(*store, "../x", "organs").ok());
  CHECK_FALSE(io::LabelSetRevisions::open(*store, "s", "a/b").ok());
}

TEST_CASE("revisions: a damaged or truncated revision is refused by hash, the others still load", "[share][share-suite]") {
  ScratchDir dir("rev-damage");
  auto store = io::ShareStore::initialize(dir.path().string());
  REQUIRE(store.ok());
  auto set = io::LabelSetRevisions::open(*store, "s", "l");
  REQUIRE(set.ok());
  for (int i = 1; i <= 3; ++i) {
    const auto v = content(i);
    REQUIRE(set->save(v.data(), v.size(), "a", i - 1, "").ok());
  }
  const fs::path two = dir / "studies/s/labelsets/l/r000002.nii.gz";
  {
    std::fstream f(two, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(500);
    f.put(char(0x5a));
  }
  auto flipped = set->load(2);
  REQUIRE_FALSE(flipped.ok());
  CHECK(flipped.error().code == core::ErrorCode::Corrupt);
  CHECK(flipped.error().subject == two.string());
  CHECK(flipped.error().detail.find("SHA-256") != std::string::npos);
  fs::resize_file(dir / "studies/s/labelsets/l/r000003.nii.gz", 10);
  auto cut = set->load(3);
  REQUIRE_FALSE(cut.ok());
  CHECK(cut.error().detail.find("truncated") != std::string::npos);
  auto one = set->load(1);
  REQUIRE(one.ok());
  CHECK(*one == content(1));
}

TEST_CASE("revisions: two processes saving from the same base at once get distinct numbers and lose nothing",
          "[share][share-suite]") {
  ScratchDir dir("rev-race");
  auto store = io::ShareStore::initialize(dir.path().string());
  REQUIRE(store.ok());
  constexpr int kEach = 15;
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    auto set = io::LabelSetRevisions::open(*store, "s", "race");
    int failures = 0;
    for (int i = 0; i < kEach; ++i) {
      const auto v = content(1000 + i);
      if (!set || !set->save(v.data(), v.size(), "child", 0, "").ok()) ++failures;
    }
    _exit(failures == 0 ? 0 : 1);
  }
  auto set = io::LabelSetRevisions::open(*store, "s", "race");
  REQUIRE(set.ok());
  int failures = 0;
  for (int i = 0; i < kEach; ++i) {
    const auto v = content(2000 + i);
    if (!set->save(v.data(), v.size(), "parent", 0, "").ok()) ++failures;
  }
  int status = 0;
  REQUIRE(waitpid(child, &status, 0) == child);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  CHECK(failures == 0);
  auto list = set->list();
  REQUIRE(list.ok());
  CHECK(list->incomplete.empty());
  REQUIRE(list->revisions.size() == std::size_t(2 * kEach));
  std::set<int> numbers;
  int unconflicted = 0;
  for (const auto& r : list->revisions) {
    numbers.insert(r.number);
    if (!r.conflict) ++unconflicted;
    CHECK(set->load(r.number).ok());
  }
  CHECK(numbers.size() == std::size_t(2 * kEach));
  CHECK(*numbers.rbegin() == 2 * kEach);
  CHECK(unconflicted == 1);  // only the first save on base 0 saw no newer revision
}

TEST_CASE("revisions: a writer killed mid-save leaves every listed revision loadable", "[share][share-suite]") {
  ScratchDir dir("rev-kill");
  auto store = io::ShareStore::initialize(dir.path().string());
  REQUIRE(store.ok());
  auto set = io::LabelSetRevisions::open(*store, "s", "kill");
  REQUIRE(set.ok());
  const auto first = content(7, 4 << 20);
  REQUIRE(set->save(first.data(), first.size(), "parent", 0, "before the crash").ok());
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    const auto big = content(9, 24 << 20);  // each save takes long enough to be killed in the middle
    for (int base = 1;; ++base) (void)set->save(big.data(), big.size(), "child", base, "");
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(700));
  REQUIRE(kill(child, SIGKILL) == 0);
  int status = 0;
  REQUIRE(waitpid(child, &status, 0) == child);
  CHECK(WIFSIGNALED(status));
  auto list = set->list();
  REQUIRE(list.ok());
  REQUIRE(!list->revisions.empty());
  CHECK(list->revisions.front().message == "before the crash");
  for (const auto& r : list->revisions) {
    INFO("revision " << r.number);
    CHECK(set->load(r.number).ok());
  }
  auto again = set->load(1);
  REQUIRE(again.ok());
  CHECK((*again == first));  // parenthesised: Catch would print 4 MiB on failure
  // The next save still works after the crash and takes a fresh number.
  const auto after = content(11);
  auto next = set->save(after.data(), after.size(), "parent", list->latest(), "after the crash");
  REQUIRE(next.ok());
  CHECK(next->number > list->latest());
}
