// SHA-256 beyond the short FIPS vectors (test_sha256.cpp): the long vector, padding boundaries, multi-block files.
// The audit log: appends across reopenings, and tampered copies that must be caught on the exact first bad line.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "io/share/audit_log.h"
#include "io/base/sha256.h"
#include "tests/common/test_support.h"

using namespace delineate;

namespace {

constexpr const char* kHost = "ws01";

std::vector<std::string> splitLines(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t nl = text.find('\n', at);
    if (nl == std::string::npos) {
      lines.push_back(text.substr(at));
      break;
    }
    lines.push_back(text.substr(at, nl - at));
    at = nl + 1;
  }
  return lines;
}

std::string joinLines(const std::vector<std::string>& lines) {
  std::string text;
  for (const auto& l : lines) text += l + '\n';
  return text;
}

io::AuditRecord record(const std::string& action, int n) {
  io::AuditRecord r;
  r.user = "alice";
  r.action = action;
  r.study = "CT-1004";
  r.labelSet = "organs";
  r.revision = n;
  r.detail = "note " + std::to_string(n);
  return r;
}

// Five records written through two reopenings of the log; returns the lines of the file.
std::vector<std::string> buildLog(const test::ScratchDir& dir) {
  {
    auto log = io::AuditLog::open(dir.path().string(), kHost);
    REQUIRE(log.ok());
    REQUIRE(log->append(record("open", 1)).ok());
    REQUIRE(log->append(record("save", 2)).ok());
  }
  {
    auto log = io::AuditLog::open(dir.path().string(), kHost);
    REQUIRE(log.ok());
    REQUIRE(log->append(record("inference", 3)).ok());
  }
  auto log = io::AuditLog::open(dir.path().string(), kHost);
  REQUIRE(log.ok());
  REQUIRE(log->append(record("save", 4)).ok());
  REQUIRE(log->append(record("export", 5)).ok());
  const auto lines = splitLines(test::readTextFile(log->path()));
  REQUIRE(lines.size() == 5);
  return lines;
}

// Writes `text` as the log of host ws01 in a fresh subfolder `name` of `dir`, so AuditLog can open the copy too.
std::string writeCopy(const test::ScratchDir& dir, const std::string& name, const std::string& text) {
  const auto folder = dir / name;
  std::filesystem::create_directories(folder);
  const auto file = folder / (std::string("audit-") + kHost + ".jsonl");
  test::writeTextFile(file, text);
  return file.string();
}

io::AuditVerifyReport verifyExpectingProblem(const std::string& file) {
  auto report = io::verifyAuditLog(file);
  REQUIRE(report.ok());
  REQUIRE(report->firstBad.has_value());
  return *report;
}

}  // namespace

TEST_CASE("sha256: the 896-bit FIPS vector and every length around the padding boundary, whole and bytewise",
          "[sha256]") {
  const std::string four = "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmn"
                           "opqrsmnopqrstnopqrstu";
  CHECK(io::sha256Hex(four.data(), four.size()) == "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
  std::string message;
  for (int i = 0; i < 200; ++i) message += static_cast<char>('A' + i % 53);
  for (std::size_t length = 0; length <= message.size(); ++length) {
    INFO(length);
    io::Sha256 h;
    for (std::size_t i = 0; i < length; ++i) h.update(message.data() + i, 1);
    CHECK(io::toHex(h.finish()) == io::sha256Hex(message.data(), length));
  }
  // finish() resets: the same object hashes a second message from scratch.
  io::Sha256 h;
  h.update("xyz", 3);
  (void)h.finish();
  h.update("abc", 3);
  CHECK(io::toHex(h.finish()) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST_CASE("sha256: a file of several 1 MiB blocks hashes as the same bytes in memory", "[sha256]") {
  std::string bytes((std::size_t(3) << 20) + 17, '\0');
  std::uint32_t x = 12345;
  for (auto& c : bytes) {
    x = x * 1664525u + 1013904223u;
    c = static_cast<char>(x >> 24);
  }
  test::ScratchDir dir("sha256-file");
  test::writeTextFile(dir / "blob.bin", bytes);
  auto fromFile = io::sha256OfFile((dir / "blob.bin").string());
  REQUIRE(fromFile.ok());
  CHECK(*fromFile == io::sha256Hex(bytes.data(), bytes.size()));

  auto folder = io::sha256OfFile(dir.path().string());  // opens, but read() fails: a folder
  REQUIRE_FALSE(folder.ok());
  CHECK(folder.error().describe().find(dir.path().string()) != std::string::npos);
}

TEST_CASE("audit: records appended across reopenings chain from the file and verify", "[audit][share-suite]") {
  test::ScratchDir dir("audit-chain");
  const auto lines = buildLog(dir);
  const std::string file = (dir / "audit-ws01.jsonl").string();
  REQUIRE(std::filesystem::exists(file));
  CHECK(lines[0].find("\"prev\":\"" + std::string(64, '0') + "\"") != std::string::npos);
  for (std::size_t i = 1; i < lines.size(); ++i)
    CHECK(lines[i].find("\"prev\":\"" + io::sha256Hex(lines[i - 1].data(), lines[i - 1].size()) + "\"") !=
          std::string::npos);

  auto report = io::verifyAuditLog(file);
  REQUIRE(report.ok());
  CHECK(report->ok());
  CHECK(report->recordsChecked == 5);

  // Awkward text stays on one line and round-trips through the hash; the written record carries what was filled in.
  auto log = io::AuditLog::open(dir.path().string() + "/", kHost);
  REQUIRE(log.ok());
  CHECK(log->path() == file);
  io::AuditRecord r = record("lease-break", 6);
  r.user.clear();
  r.detail = "two\nlines, \"quotes\", tab\t and \xc3\xa9";
  io::AuditRecord written;
  REQUIRE(log->append(r, &written).ok());
  CHECK(written.seq == 6);
  CHECK(written.host == kHost);
  CHECK_FALSE(written.user.empty());
  CHECK(written.prev == io::sha256Hex(lines[4].data(), lines[4].size()));
  REQUIRE(written.time.size() == 24);  // 2026-11-22T03:15:10.123Z
  CHECK(written.time[10] == 'T');
  CHECK(written.time[19] == '.');
  CHECK(written.time.back() == 'Z');
  const auto after = splitLines(test::readTextFile(file));
  REQUIRE(after.size() == 6);
  CHECK(after[5].find("\"hash\":\"" + written.hash + "\"") != std::string::npos);
  auto again = io::verifyAuditLog(file);
  REQUIRE(again.ok());
  CHECK(again->ok());
  CHECK(again->recordsChecked == 6);
}

TEST_CASE("audit: one changed character in a middle record's detail is a hash mismatch on that line", "[audit][share-suite]") {
  test::ScratchDir dir("audit-edit");
  auto lines = buildLog(dir);
  const auto at = lines[2].find("note 3");
  REQUIRE(at != std::string::npos);
  lines[2][at + 5] = '4';
  const auto report = verifyExpectingProblem(writeCopy(dir, "edited", joinLines(lines)));
  CHECK(report.firstBad->line == 3);
  CHECK(report.firstBad->seq == 3);
  CHECK(report.firstBad->reason == "hash mismatch");
  CHECK(report.recordsChecked == 2);
}

TEST_CASE("audit: a deleted middle line breaks the chain at the line after the gap", "[audit][share-suite]") {
  test::ScratchDir dir("audit-delete");
  auto lines = buildLog(dir);
  lines.erase(lines.begin() + 2);
  const auto report = verifyExpectingProblem(writeCopy(dir, "deleted", joinLines(lines)));
  CHECK(report.firstBad->line == 3);
  CHECK(report.firstBad->seq == 4);
  CHECK(report.firstBad->reason == "chain broken: prev does not match line 2");
}

TEST_CASE("audit: two swapped lines break the chain at the first of them", "[audit][share-suite]") {
  test::ScratchDir dir("audit-swap");
  auto lines = buildLog(dir);
  std::swap(lines[1], lines[2]);
  const auto report = verifyExpectingProblem(writeCopy(dir, "swapped", joinLines(lines)));
  CHECK(report.firstBad->line == 2);
  CHECK(report.firstBad->seq == 3);
  CHECK(report.firstBad->reason == "chain broken: prev does not match line 1");
  CHECK(report.recordsChecked == 1);
}

TEST_CASE("audit: a line that is not JSON is reported on its line", "[audit][share-suite]") {
  test::ScratchDir dir("audit-garbage");
  auto lines = buildLog(dir);
  lines.insert(lines.begin() + 3, "{\"seq\": 4, oops");
  const auto report = verifyExpectingProblem(writeCopy(dir, "garbage", joinLines(lines)));
  CHECK(report.firstBad->line == 4);
  CHECK(report.firstBad->seq == 0);
  CHECK(report.firstBad->reason == "not JSON");
  CHECK(report.recordsChecked == 3);
}

TEST_CASE("audit: a gap in seq under an intact chain is reported", "[audit][share-suite]") {
  test::ScratchDir dir("audit-seq");
  const auto lines = buildLog(dir);
  io::AuditRecord r = record("training", 9);
  r.host = kHost;
  r.time = "2026-01-01T00:00:00.000Z";
  r.seq = 7;  // the file ends at 5
  r.prev = io::sha256Hex(lines[4].data(), lines[4].size());
  auto extra = io::formatAuditLine(r);
  REQUIRE(extra.ok());
  auto withGap = lines;
  withGap.push_back(*extra);
  const auto report = verifyExpectingProblem(writeCopy(dir, "gap", joinLines(withGap)));
  CHECK(report.firstBad->line == 6);
  CHECK(report.firstBad->seq == 7);
  CHECK(report.firstBad->reason == "seq not consecutive");
  CHECK(report.recordsChecked == 5);
}

TEST_CASE("audit: a torn last line is reported and appending to that log is refused", "[audit][share-suite]") {
  test::ScratchDir dir("audit-torn");
  const auto lines = buildLog(dir);
  const std::string text = joinLines(lines) + lines[4].substr(0, lines[4].size() / 2);
  const std::string file = writeCopy(dir, "torn", text);
  const auto report = verifyExpectingProblem(file);
  CHECK(report.firstBad->line == 6);
  CHECK(report.firstBad->reason == "torn last line");
  CHECK(report.recordsChecked == 5);

  auto log = io::AuditLog::open((dir / "torn").string(), kHost);
  REQUIRE(log.ok());
  const core::Status refused = log->append(record("save", 6));
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().code == core::ErrorCode::Corrupt);
  CHECK(refused.error().describe().find(file) != std::string::npos);
  CHECK(refused.error().describe().find("torn") != std::string::npos);
  CHECK(test::readTextFile(file) == text);  // nothing was added
}

TEST_CASE("audit: a last record whose hash is wrong is not continued", "[audit][share-suite]") {
  test::ScratchDir dir("audit-badtail");
  auto lines = buildLog(dir);
  const auto at = lines[4].find("note 5");
  REQUIRE(at != std::string::npos);
  lines[4][at] = 'N';
  const std::string file = writeCopy(dir, "badtail", joinLines(lines));
  auto log = io::AuditLog::open((dir / "badtail").string(), kHost);
  REQUIRE(log.ok());
  const core::Status refused = log->append(record("save", 6));
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().code == core::ErrorCode::Corrupt);
  CHECK(refused.error().describe().find("hash mismatch") != std::string::npos);
  CHECK(test::readTextFile(file) == joinLines(lines));
}

TEST_CASE("audit: an invalid action, a foreign host or a bad host name is refused and nothing is written",
          "[audit][share-suite]") {
  test::ScratchDir dir("audit-invalid");
  auto log = io::AuditLog::open(dir.path().string(), kHost);
  REQUIRE(log.ok());
  const core::Status badAction = log->append(record("delete-everything", 1));
  REQUIRE_FALSE(badAction.ok());
  CHECK(badAction.error().code == core::ErrorCode::InvalidArgument);
  CHECK(badAction.error().describe().find("delete-everything") != std::string::npos);
  CHECK(badAction.error().describe().find(log->path()) != std::string::npos);

  io::AuditRecord foreign = record("open", 1);
  foreign.host = "ws02";
  CHECK_FALSE(log->append(foreign).ok());
  io::AuditRecord notUtf8 = record("open", 1);
  notUtf8.detail = "bad \xff byte";
  CHECK_FALSE(log->append(notUtf8).ok());
  CHECK_FALSE(std::filesystem::exists(log->path()));

  CHECK_FALSE(io::AuditLog::open(dir.path().string(), "../escape").ok());
  CHECK_FALSE(io::AuditLog::open(dir.path().string(), ".hidden").ok());
  CHECK_FALSE(io::isAuditAction(""));
  CHECK(io::isAuditAction("lease-break"));
}

TEST_CASE("audit: a missing folder or log is an error naming it, an empty log verifies with no records", "[audit][share-suite]") {
  test::ScratchDir dir("audit-missing");
  const std::string folder = (dir / "nope").string();
  auto log = io::AuditLog::open(folder, kHost);
  REQUIRE_FALSE(log.ok());
  CHECK(log.error().code == core::ErrorCode::NotFound);
  CHECK(log.error().describe().find(folder) != std::string::npos);

  const std::string file = (dir / "audit-none.jsonl").string();
  auto missing = io::verifyAuditLog(file);
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().code == core::ErrorCode::NotFound);
  CHECK(missing.error().describe().find(file) != std::string::npos);

  test::writeTextFile(dir / "audit-empty.jsonl", "");
  auto empty = io::verifyAuditLog((dir / "audit-empty.jsonl").string());
  REQUIRE(empty.ok());
  CHECK(empty->ok());
  CHECK(empty->recordsChecked == 0);

  auto defaultHost = io::AuditLog::open(dir.path().string());
  REQUIRE(defaultHost.ok());
  CHECK_FALSE(defaultHost->host().empty());
}
