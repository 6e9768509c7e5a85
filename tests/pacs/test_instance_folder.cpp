// The folder every retrieve and receive writes into (io/pacs/instance_folder.h), and the checks on what peers send.
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <filesystem>
#include <atomic>
#include <thread>

#include "io/pacs/instance_folder.h"
#include "io/pacs/pacs_types.h"
#include "tests/common/test_support.h"

namespace delineate::test {
namespace fs = std::filesystem;

TEST_CASE("a DICOM UID is digits and dots without leading zeros, anything that could be a path is not", "[pacs]") {
  CHECK(io::isDicomUid("1.2.840.10008.1.1"));
  CHECK(io::isDicomUid("1.3.6.1.4.1.14519.5.2.1.9203.8273.319461848560755521018609264462"));
  CHECK(io::isDicomUid("2.25.0"));
  CHECK_FALSE(io::isDicomUid(""));
  CHECK_FALSE(io::isDicomUid("../1.2"));
  CHECK_FALSE(io::isDicomUid("1.2/3"));
  CHECK_FALSE(io::isDicomUid("1..2"));
  CHECK_FALSE(io::isDicomUid(".1.2"));
  CHECK_FALSE(io::isDicomUid("1.2."));
  CHECK_FALSE(io::isDicomUid("1.02"));
  CHECK_FALSE(io::isDicomUid("1.2 "));
  CHECK_FALSE(io::isDicomUid(std::string(65, '1')));
  CHECK(io::isAeTitle("ORTHANC"));
  CHECK(io::isAeTitle("A B"));
  CHECK_FALSE(io::isAeTitle(""));
  CHECK_FALSE(io::isAeTitle("    "));
  CHECK_FALSE(io::isAeTitle("SEVENTEEN_CHARSXX"));
  CHECK_FALSE(io::isAeTitle("A\\B"));
  CHECK_FALSE(io::isAeTitle("A\nB"));
}

TEST_CASE("an instance folder keeps one owner-only file per UID, spots a duplicate and a clash, refuses a path", "[pacs]") {
  ScratchDir dir("instances");
  const fs::path folder = dir / "received";
  auto f = io::InstanceFolder::open(folder.string());
  REQUIRE(f.ok());
  const std::string dicm = std::string(128, '\0') + "DICM" + std::string(20, 'x');
  const std::string other = std::string(128, '\0') + "DICM" + std::string(20, 'y');
  auto first = f->store("1.2.3", dicm.data(), dicm.size());
  REQUIRE(first.ok());
  CHECK(*first == io::InstanceFolder::Stored::Written);
  struct stat st {};
  REQUIRE(::stat((folder / "1.2.3.dcm").c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
  REQUIRE(::stat(folder.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0700);
  auto same = f->store("1.2.3", dicm.data(), dicm.size());
  REQUIRE(same.ok());
  CHECK(*same == io::InstanceFolder::Stored::SameAlreadyHere);
  auto clash = f->store("1.2.3", other.data(), other.size());
  REQUIRE(clash.ok());
  CHECK(*clash == io::InstanceFolder::Stored::DifferentAlreadyHere);
  CHECK(readTextFile(folder / "1.2.3.dcm") == dicm);
  for (const char* hostile : {"../1.2.4", "1.2/../../x", "..", "/etc/passwd"}) {
    auto refused = f->store(hostile, "x", 1);
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().subject == folder.string());
    CHECK(refused.error().detail.find("is not a DICOM UID") != std::string::npos);
  }
  CHECK_FALSE(fs::exists(dir / "1.2.4.dcm"));
  // Reopened (a resumed retrieve), it knows what is there; a temporary file a killed write left is removed, and so
  // is a file a crash left empty (they are written without an fsync each).
  writeTextFile(folder / ".1.2.5.dcm.tmp-0123abcd", "half");
  writeTextFile(folder / "1.2.6.dcm", "");
  auto again = io::InstanceFolder::open(folder.string());
  REQUIRE(again.ok());
  CHECK(again->has("1.2.3"));
  CHECK(again->instances() == std::vector<std::string>{"1.2.3"});
  CHECK_FALSE(fs::exists(folder / ".1.2.5.dcm.tmp-0123abcd"));
  CHECK_FALSE(fs::exists(folder / "1.2.6.dcm"));
  // Many writers at once, some of one UID: each UID once, every writer told.
  std::vector<std::thread> writers;
  std::atomic<int> written{0}, duplicates{0};
  for (int t = 0; t < 8; ++t)
    writers.emplace_back([&, t] {
      for (int i = 0; i < 50; ++i) {
        const std::string uid = "1.9." + std::to_string((i * 7 + t) % 60 + 1);
        const std::string bytes = dicm + uid;
        auto r = again->store(uid, bytes.data(), bytes.size());
        if (r.ok() && *r == io::InstanceFolder::Stored::Written) ++written;
        else if (r.ok() && *r == io::InstanceFolder::Stored::SameAlreadyHere) ++duplicates;
      }
    });
  for (auto& w : writers) w.join();
  CHECK(written + duplicates == 400);
  CHECK(written == static_cast<int>(again->instances().size()) - 1);
}

}  // namespace delineate::test
