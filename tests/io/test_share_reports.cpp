// Reports on the share (io/share/share_reports.h): published per label-set revision, never overwritten, racing publishers
// take different numbers, incomplete publications are told apart, and every publication is in the audit log.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <set>
#include <thread>
#include <vector>

#include "io/base/sha256.h"
#include "io/share/share_reports.h"
#include "io/share/share_revisions.h"
#include "tests/common/test_support.h"

using namespace delineate;
using test::ScratchDir;
namespace fs = std::filesystem;

namespace {

// A share with study-1/organs at revision 1, and two local report files.
io::ShareStore shareWithRevision(const ScratchDir& dir) {
  fs::create_directories(dir / "share");
  auto store = io::ShareStore::initialize((dir / "share").string());
  REQUIRE(store.ok());
  auto set = io::LabelSetRevisions::open(*store, "study-1", "organs");
  REQUIRE(set.ok());
  const std::vector<std::uint8_t> labels(2000, 7);
  REQUIRE(set->save(labels.data(), labels.size(), "alice", 0, "first").ok());
  test::writeTextFile(dir / "statistics.csv", "label,name,voxels\n1,Liver,1234\n");
  test::writeTextFile(dir / "seg.dcm", std::string(5000, '\x42'));
  return std::move(store).value();
}

io::ReportPublishRequest request(const ScratchDir& dir) {
  io::ReportPublishRequest r;
  r.study = "study-1";
  r.labelSet = "organs";
  r.revision = 1;
  r.author = "alice";
  r.message = "tumour board";
  r.files = {{"statistics.csv", (dir / "statistics.csv").string()}, {"seg.dcm", (dir / "seg.dcm").string()}};
  return r;
}

}  // namespace

TEST_CASE("share reports: each publication is a new numbered folder with a manifest, listed and audited",
          "[share][share-suite][share-reports]") {
  ScratchDir dir("reports-basic");
  const io::ShareStore store = shareWithRevision(dir);
  auto first = io::publishReport(store, request(dir));
  if (!first) FAIL(first.error().describe());
  CHECK(first->number == 1);
  CHECK(first->folder == "reports/study-1/organs/r000001/0001");
  CHECK(first->auditWarning.empty());
  REQUIRE(first->files.size() == 2);
  const fs::path published = fs::path(store.root()) / first->folder;
  CHECK(test::readTextFile(published / "statistics.csv") == test::readTextFile(dir / "statistics.csv"));
  CHECK(test::readTextFile(published / "seg.dcm") == test::readTextFile(dir / "seg.dcm"));
  const std::string seg = test::readTextFile(dir / "seg.dcm");
  CHECK(first->files[1].sha256 == io::sha256Hex(seg.data(), seg.size()));
  CHECK(first->files[1].bytes == 5000);

  auto req = request(dir);
  req.deidentified = true;
  auto second = io::publishReport(store, req);
  REQUIRE(second.ok());
  CHECK(second->number == 2);  // never over the first

  auto list = io::listReports(store, "study-1", "organs");
  REQUIRE(list.ok());
  REQUIRE(list->reports.size() == 2);
  CHECK(list->incomplete.empty());
  CHECK(list->reports[0].number == 1);
  CHECK(list->reports[0].revision == 1);
  CHECK(list->reports[0].author == "alice");
  CHECK(list->reports[0].message == "tumour board");
  CHECK_FALSE(list->reports[0].deidentified);
  CHECK(list->reports[1].deidentified);
  CHECK(list->reports[1].files.size() == 2);
  CHECK(list->reports[1].files[0].sha256 == first->files[0].sha256);

  // The audit log holds one export line per publication, naming the folder.
  std::string audit;
  for (const auto& e : fs::directory_iterator(fs::path(store.root()) / "audit")) audit += test::readTextFile(e.path());
  CHECK(audit.find("reports/study-1/organs/r000001/0001") != std::string::npos);
  CHECK(audit.find("reports/study-1/organs/r000001/0002") != std::string::npos);
  CHECK(audit.find("\"export\"") != std::string::npos);
}

TEST_CASE("share reports: bad requests fail before anything is claimed, naming what is wrong",
          "[share][share-suite][share-reports]") {
  ScratchDir dir("reports-errors");
  const io::ShareStore store = shareWithRevision(dir);
  const fs::path reports = fs::path(store.root()) / "reports";
  auto expectError = [&](const io::ReportPublishRequest& r, core::ErrorCode code, const std::string& named) {
    auto published = io::publishReport(store, r);
    REQUIRE_FALSE(published.ok());
    CHECK(published.error().code == code);
    CHECK(published.error().describe().find(named) != std::string::npos);
  };
  auto r = request(dir);
  r.revision = 5;
  expectError(r, core::ErrorCode::NotFound, "no revision 5");
  r = request(dir);
  r.files[1].localPath = (dir / "gone.dcm").string();
  expectError(r, core::ErrorCode::NotFound, "gone.dcm");
  r = request(dir);
  r.files[0].name = "../escape.csv";
  expectError(r, core::ErrorCode::InvalidArgument, "../escape.csv");
  r = request(dir);
  r.files[0].name = "manifest.json";
  expectError(r, core::ErrorCode::InvalidArgument, "manifest.json");
  r = request(dir);
  r.files[0].name = "Manifest.JSON";  // the same file on a case-insensitive (SMB) share
  expectError(r, core::ErrorCode::InvalidArgument, "Manifest.JSON");
  r = request(dir);
  r.files[1].name = r.files[0].name;
  expectError(r, core::ErrorCode::InvalidArgument, "named twice");
  r = request(dir);
  r.study = "../other";
  expectError(r, core::ErrorCode::InvalidArgument, "../other");
  r = request(dir);
  r.files.clear();
  expectError(r, core::ErrorCode::InvalidArgument, "at least one file");
  // None of them left a folder behind.
  std::error_code ec;
  CHECK((!fs::exists(reports / "study-1") || fs::is_empty(reports / "study-1" / "organs" / "r000001", ec)));
}

TEST_CASE("share reports: an interrupted publication is incomplete, and racing publishers take different numbers",
          "[share][share-suite][share-reports]") {
  ScratchDir dir("reports-race");
  const io::ShareStore store = shareWithRevision(dir);
  // A publisher that died after claiming 0001 and writing one file: no manifest.
  const fs::path dead = fs::path(store.root()) / "reports/study-1/organs/r000001/0001";
  fs::create_directories(dead);
  test::writeTextFile(dead / ".claim", "1\n");
  test::writeTextFile(dead / "statistics.csv", "partial");
  auto list = io::listReports(store, "study-1", "organs");
  REQUIRE(list.ok());
  CHECK(list->reports.empty());
  REQUIRE(list->incomplete.size() == 1);
  CHECK(list->incomplete[0] == "reports/study-1/organs/r000001/0001");

  // A publication cancelled before its manifest is incomplete, never a report.
  {
    core::CancelFlag cancel;
    cancel.cancel();
    auto r = request(dir);
    r.progress = &cancel;
    auto cancelled = io::publishReport(store, r);
    REQUIRE_FALSE(cancelled.ok());
    CHECK(cancelled.error().code == core::ErrorCode::Cancelled);
    auto after = io::listReports(store, "study-1", "organs");
    REQUIRE(after.ok());
    CHECK(after->reports.empty());
    CHECK(after->incomplete.size() == 2);
    fs::remove_all(fs::path(store.root()) / after->incomplete.back());  // keep the count below as it was
  }

  // Four publishers at once.
  std::vector<std::thread> threads;
  std::vector<int> numbers(4, 0);
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      auto published = io::publishReport(store, request(dir));
      if (published) numbers[std::size_t(t)] = published->number;
    });
  for (auto& t : threads) t.join();
  const std::set<int> distinct(numbers.begin(), numbers.end());
  CHECK(distinct.size() == 4);
  CHECK(distinct.count(0) == 0);
  CHECK(distinct.count(1) == 0);  // the dead publisher's number is never reused
  list = io::listReports(store, "study-1", "organs");
  REQUIRE(list.ok());
  CHECK(list->reports.size() == 4);
  CHECK(list->incomplete.size() == 1);
  CHECK(test::readTextFile(dead / "statistics.csv") == "partial");

  // A damaged manifest is listed apart with its reason; the other reports stay listed.
  const fs::path damaged = fs::path(store.root()) / list->reports[1].folder / "manifest.json";
  test::writeTextFile(damaged, "{ not json");
  list = io::listReports(store, "study-1", "organs");
  REQUIRE(list.ok());
  CHECK(list->reports.size() == 3);
  REQUIRE(list->damaged.size() == 1);
  CHECK(list->damaged[0].describe().find(damaged.string()) != std::string::npos);
}
