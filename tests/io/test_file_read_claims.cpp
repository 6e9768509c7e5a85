// The mechanisms io's rooms share: the one bounded whole-file reader (io/base/file_read.h) and the one exclusive-claim
// loop of the share store (io/share/share_store.h: createExclusive, claimExclusively), which revisions, report
// folders and leases each run through.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "io/base/file_read.h"
#include "io/share/share_revisions.h"
#include "io/share/share_store.h"
#include "tests/common/test_support.h"

using namespace delineate;
using test::ScratchDir;
namespace fs = std::filesystem;

TEST_CASE("bounded read: a file comes back whole, byte for byte", "[io][file-read]") {
  ScratchDir dir("file-read");
  std::string bytes;
  for (int i = 0; i < 200000; ++i) bytes.push_back(static_cast<char>(i * 7));  // NULs and high bytes included
  test::writeTextFile(dir / "data.bin", bytes);
  auto text = io::readWholeFile((dir / "data.bin").string(), bytes.size(), "test file");
  REQUIRE(text.ok());
  CHECK(*text == bytes);
  test::writeTextFile(dir / "empty", "");
  auto empty = io::readWholeFile((dir / "empty").string(), 10, "test file");
  REQUIRE(empty.ok());
  CHECK(empty->empty());
}

TEST_CASE("bounded read: missing, a folder and a file over the cap are errors naming the file", "[io][file-read]") {
  ScratchDir dir("file-read-errors");
  const std::string missing = (dir / "nothing.json").string();
  auto a = io::readWholeFile(missing, 100, "record");
  REQUIRE_FALSE(a.ok());
  CHECK(a.error().code == core::ErrorCode::NotFound);
  CHECK(a.error().subject == missing);
  auto maybe = io::readWholeFileIfPresent(missing, 100, "record");
  REQUIRE(maybe.ok());
  CHECK_FALSE(maybe->has_value());

  auto folder = io::readWholeFile(dir.path().string(), 100, "record");
  REQUIRE_FALSE(folder.ok());
  CHECK(folder.error().code == core::ErrorCode::ReadFailed);
  CHECK(folder.error().detail.find("folder") != std::string::npos);

  test::writeTextFile(dir / "big.json", std::string(101, 'x'));
  auto big = io::readWholeFile((dir / "big.json").string(), 100, "record");
  REQUIRE_FALSE(big.ok());
  CHECK(big.error().code == core::ErrorCode::SizeLimit);
  CHECK(big.error().subject == (dir / "big.json").string());
  CHECK(big.error().detail.find("record") != std::string::npos);
  auto exact = io::readWholeFile((dir / "big.json").string(), 101, "record");
  REQUIRE(exact.ok());
  CHECK(exact->size() == 101);
}

TEST_CASE("bounded read: a device without end stops at the cap, a pipe nobody writes is not waited on", "[io][file-read]") {
  auto zero = io::readWholeFile("/dev/zero", 1 << 20, "record");
  REQUIRE_FALSE(zero.ok());
  CHECK(zero.error().code == core::ErrorCode::SizeLimit);

  ScratchDir dir("file-read-fifo");
  const std::string fifo = (dir / "pipe").string();
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  auto nobody = io::readWholeFile(fifo, 100, "record");  // returns at once: there is no writer
  REQUIRE(nobody.ok());
  CHECK(nobody->empty());
}

TEST_CASE("claims: a round that loses races looks again, an error ends the loop, endless losses end in an error",
          "[io][share]") {
  int rounds = 0;
  auto won = io::claimExclusively<int>("folder", "a number", [&](int attempt) -> core::Result<std::optional<int>> {
    ++rounds;
    if (attempt < 3) return std::optional<int>();
    return std::optional<int>(attempt * 10);
  });
  REQUIRE(won.ok());
  CHECK(*won == 30);
  CHECK(rounds == 4);

  rounds = 0;
  auto failed = io::claimExclusively<int>("folder", "a number", [&](int) -> core::Result<std::optional<int>> {
    ++rounds;
    return core::makeError(core::ErrorCode::WriteFailed, "x", "disk full");
  });
  REQUIRE_FALSE(failed.ok());
  CHECK(failed.error().detail == "disk full");
  CHECK(rounds == 1);

  rounds = 0;
  auto never = io::claimExclusively<int>("the/folder", "a number", [&](int) -> core::Result<std::optional<int>> {
    ++rounds;
    return std::optional<int>();
  });
  REQUIRE_FALSE(never.ok());
  CHECK(rounds == io::kClaimAttempts);
  CHECK(never.error().code == core::ErrorCode::WriteFailed);
  CHECK(never.error().subject == "the/folder");
  CHECK(never.error().detail.find("could not claim a number") != std::string::npos);
}

TEST_CASE("claims: createExclusive tells a name another writer took from a failure", "[share][share-suite]") {
  ScratchDir dir("share-claim");
  auto store = io::ShareStore::initialize(dir.path().string());
  REQUIRE(store.ok());
  const std::string first = "one\n";
  const std::string second = "two\n";
  auto a = store->createExclusive("studies/s/claim", first.data(), first.size());
  REQUIRE(a.ok());
  CHECK(*a == io::Claim::Created);
  auto b = store->createExclusive("studies/s/claim", second.data(), second.size());
  REQUIRE(b.ok());
  CHECK(*b == io::Claim::Taken);
  CHECK(test::readTextFile(dir / "studies/s/claim") == first);  // the loser never replaces the winner
  auto outside = store->createExclusive("../escape", first.data(), first.size());
  REQUIRE_FALSE(outside.ok());
}

TEST_CASE("claims: threads racing for revision numbers each get their own, none lost", "[share][share-suite]") {
  ScratchDir dir("share-claim-race");
  auto store = io::ShareStore::initialize(dir.path().string());
  REQUIRE(store.ok());
  constexpr int kWriters = 6;
  std::vector<int> numbers(kWriters, 0);
  std::vector<std::thread> writers;
  for (int w = 0; w < kWriters; ++w) {
    writers.emplace_back([&, w] {
      auto folder = io::ModelCheckpoints::open(*store, "model");
      if (!folder) return;
      const std::string content = "checkpoint " + std::to_string(w);
      io::SaveRequest request;
      request.author = "writer" + std::to_string(w);
      auto saved = folder->save(content.data(), content.size(), request);
      if (saved) numbers[static_cast<std::size_t>(w)] = saved->number;
    });
  }
  for (auto& t : writers) t.join();
  std::sort(numbers.begin(), numbers.end());
  for (int w = 0; w < kWriters; ++w) CHECK(numbers[static_cast<std::size_t>(w)] == w + 1);
}
