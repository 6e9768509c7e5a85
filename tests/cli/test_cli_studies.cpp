// `delineate-cli study ...` (issue 24, items 1-3 and 7) on the real CRLM CT: import (verified, again without copying,
// SIGKILLed and resumed), list and search through the local index, show, get, labels bound to the imported series,
// and a share written before studies held images, reindexed.
#include <catch2/catch.hpp>

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/common/test_support.h"

using namespace delineate;
using namespace delineate::test;
namespace fs = std::filesystem;

#include "tests/cli/cli_in_folder.h"

namespace {

const std::string& kStudy = kCrlmStudyUid;
const std::string& kSeries = kCrlmSeriesUid;



}  // namespace

TEST_CASE("study import, list, search, show and get on a real CT, and labels saved bind to the imported series",
          "[cli][share]") {
  auto ct = sharedFile("data/ct/tcia-crlm-ct-series/CRLM-CT-1004");
  if (!ct) return;
  ScratchDir dir("cli-study");
  const std::string root = quoted((dir / "share").string());
  fs::create_directories(dir / "share");
  REQUIRE(cli(dir, "share init " + root).exitCode == 0);

  auto imported = jsonOf(cli(dir, "study import " + root + " " + quoted(ct->string()) + " --json"));
  REQUIRE(imported["series"].size() == 1);
  CHECK(imported["series"][0]["study"] == kStudy);
  CHECK(imported["series"][0]["series"] == kSeries);
  CHECK(imported["series"][0]["files"] == 41);
  CHECK(imported["series"][0]["copied"] == 41);
  auto again = jsonOf(cli(dir, "study import " + root + " " + quoted(ct->string()) + " --json"));
  CHECK(again["series"][0]["copied"] == 0);
  CHECK(again["series"][0]["alreadyThere"] == 41);
  CHECK(again["series"][0]["importedBefore"] == true);

  auto list = jsonOf(cli(dir, "study list " + root + " --json"));
  REQUIRE(list["studies"].size() == 1);
  const auto& row = list["studies"][0];
  CHECK(row["study"] == kStudy);
  CHECK(row["patientId"] == "CRLM-CT-1004");
  CHECK(row["studyDate"] == "19941122");
  CHECK(row["modalities"] == "CT");
  CHECK(row["series"] == 1);
  CHECK(row["labelStatus"] == "none");
  const SplitRun text = cli(dir, "study list " + root);
  CHECK(text.exitCode == 0);
  CHECK(text.out.find("CRLM-CT-1004") != std::string::npos);
  CHECK(text.out.find("1994-11-22") != std::string::npos);

  // The series fetched back, verified, opens as the same CT.
  const SplitRun got = cli(dir, "study get " + root + " " + kStudy + " " + kSeries + " " + quoted((dir / "ct").string()));
  INFO(got.err);
  REQUIRE(got.exitCode == 0);
  CHECK(got.out.find("41 files verified") != std::string::npos);
  const SplitRun info = cli(dir, "info " + quoted((dir / "ct").string()));
  REQUIRE(info.exitCode == 0);
  CHECK(info.out.find("512 x 512 x 41") != std::string::npos);

  // Labels on that grid saved into the study bind to the series; the catalogue learns of the revision.
  REQUIRE(cli(dir, "segment " + quoted((dir / "ct").string()) + " " + quoted((dir / "labels.nii.gz").string())).exitCode == 0);
  REQUIRE(cli(dir, "share save " + root + " " + kStudy + " organs " + quoted((dir / "labels.nii.gz").string()) +
                       " --author ann")
              .exitCode == 0);
  auto show = jsonOf(cli(dir, "study show " + root + " " + kStudy + " --json"));
  REQUIRE(show["labelSets"].size() == 1);
  CHECK(show["labelSets"][0]["series"] == kSeries);
  CHECK(show["labelSets"][0]["latestRevision"] == 1);
  CHECK(show["series"][0]["size"] == nlohmann::json::array({512, 512, 41}));

  const auto count = [&](const std::string& args) {
    return jsonOf(cli(dir, "study search " + root + " " + args + " --json"))["studies"].size();
  };
  CHECK(count("--status revisions") == 1);
  CHECK(count("--status approved") == 0);
  CHECK(count("--from 1995-01-01") == 0);
  CHECK(count("--to 1995-01-01") == 1);
  CHECK(count("--modality MR") == 0);
  CHECK(count("crlm") == 1);
  REQUIRE(cli(dir, "review submit " + root + " " + kStudy + " organs 1 --user ann").exitCode == 0);
  REQUIRE(cli(dir, "review approve " + root + " " + kStudy + " organs 1 --user bob").exitCode == 0);
  CHECK(count("--status approved") == 1);
  const SplitRun bad = cli(dir, "study search " + root + " --from 26.11.2026");
  CHECK(bad.exitCode == 2);
  CHECK(bad.err.find("'26.11.2026' is not a date") != std::string::npos);
  // Labels on another grid named to the series: refused, naming it; nothing saved.
  REQUIRE(cli(dir, "segment " + kSample + " " + quoted((dir / "other.nii.gz").string())).exitCode == 0);
  const SplitRun refused = cli(dir, "share save " + root + " " + kStudy + " organs " +
                                        quoted((dir / "other.nii.gz").string()) + " --series " + kSeries);
  CHECK(refused.exitCode == 1);
  CHECK(refused.err.find("differs from series " + kSeries) != std::string::npos);
  CHECK(jsonOf(cli(dir, "share list " + root + " " + kStudy + " organs --json"))["revisions"].size() == 1);
}

TEST_CASE("study import SIGKILLed before a series is complete leaves it unlisted, and run again it finishes",
          "[cli][share][faults]") {
  auto ct = sharedFile("data/ct/tcia-crlm-ct-series/CRLM-CT-1004");
  if (!ct) return;
  ScratchDir dir("cli-study-kill");
  const std::string root = quoted((dir / "share").string());
  fs::create_directories(dir / "share");
  REQUIRE(cli(dir, "share init " + root).exitCode == 0);
  const std::string shim = "LD_PRELOAD='" DELINEATE_FS_FAULTS_PATH "' ";

  // Killed right after the first instance is published (others may be in flight), then before the manifest.
  const SplitRun first = cli(dir, "study import " + root + " " + quoted(ct->string()),
                             shim + "DELINEATE_FAULT_KILL=after:link:.dcm$");
  CHECK(first.exitCode != 0);
  auto show = jsonOf(cli(dir, "study show " + root + " " + kStudy + " --json"));
  CHECK(show["series"].empty());
  CHECK(show["seriesInProgress"] == nlohmann::json::array({kSeries}));
  // Copies in flight when it died are temporary files, listed apart, never series files.
  for (const auto& leftover : show["leftovers"]) CHECK(leftover.get<std::string>().find("/.") != std::string::npos);
  CHECK(jsonOf(cli(dir, "study list " + root + " --json"))["studies"].empty());

  const SplitRun second = cli(dir, "study import " + root + " " + quoted(ct->string()),
                              shim + "DELINEATE_FAULT_KILL=before:link:" + kSeries + ".json$");
  CHECK(second.exitCode != 0);
  show = jsonOf(cli(dir, "study show " + root + " " + kStudy + " --json"));
  CHECK(show["series"].empty());
  CHECK(jsonOf(cli(dir, "study list " + root + " --json"))["studies"].empty());

  auto resumed = jsonOf(cli(dir, "study import " + root + " " + quoted(ct->string()) + " --json"));
  CHECK(resumed["series"][0]["alreadyThere"] == 41);
  CHECK(resumed["series"][0]["copied"] == 0);
  auto list = jsonOf(cli(dir, "study list " + root + " --json"));
  REQUIRE(list["studies"].size() == 1);
  // What was stored is what was received: every file fetched back verified.
  const SplitRun got = cli(dir, "study get " + root + " " + kStudy + " " + kSeries + " " + quoted((dir / "ct").string()));
  CHECK(got.exitCode == 0);
}

TEST_CASE("study list on a share written before studies held images says how to catalogue it, and reindex does",
          "[cli][share]") {
  ScratchDir dir("cli-study-old");
  fs::copy(fs::path(DELINEATE_SOURCE_DIR) / "tests/data/share_layout_8376d1f", dir / "share", fs::copy_options::recursive);
  const std::string root = quoted((dir / "share").string());
  const SplitRun before = cli(dir, "study list " + root);
  CHECK(before.exitCode == 0);
  CHECK(before.err.find("1 study folders the catalogue does not list") != std::string::npos);
  CHECK(before.err.find("study reindex") != std::string::npos);
  auto reindexed = jsonOf(cli(dir, "study reindex " + root + " --json"));
  CHECK(reindexed["studies"] == 1);
  auto list = jsonOf(cli(dir, "study list " + root + " --json"));
  REQUIRE(list["studies"].size() == 1);
  CHECK(list["studies"][0]["study"] == "sample");
  CHECK(list["studies"][0]["labelStatus"] == "approved");
  // The old share's label sets, reviews and datasets work as before.
  CHECK(cli(dir, "dataset show " + root + " lungs").exitCode == 0);
  CHECK(cli(dir, "share get " + root + " sample organs 2 " + quoted((dir / "r2.nii.gz").string())).exitCode == 0);
}

TEST_CASE("study import --deidentify: pseudonyms in the catalogue, and a key on the share or too short is refused",
          "[cli][share]") {
  auto ct = sharedFile("data/ct/tcia-crlm-ct-series/CRLM-CT-1004");
  if (!ct) return;
  ScratchDir dir("cli-study-deid");
  const std::string root = quoted((dir / "share").string());
  fs::create_directories(dir / "share");
  REQUIRE(cli(dir, "share init " + root).exitCode == 0);
  writeTextFile(dir / "share" / "key", "0123456789abcdef0123456789abcdef");
  writeTextFile(dir / "short-key", "tiny");
  writeTextFile(dir / "key", "0123456789abcdef0123456789abcdef");
  // Keys are secrets: readable by their owner alone, or refused (tests/cli/test_cli_file_modes.cpp).
  fs::permissions(dir / "short-key", fs::perms::owner_read | fs::perms::owner_write);
  fs::permissions(dir / "key", fs::perms::owner_read | fs::perms::owner_write);
  const std::string input = quoted(ct->string());

  const SplitRun onShare = cli(dir, "study import " + root + " " + input + " --deidentify --key-file " +
                                        quoted((dir / "share" / "key").string()));
  CHECK(onShare.exitCode == 1);
  CHECK(onShare.err.find("lies on the share") != std::string::npos);
  const SplitRun shortKey =
      cli(dir, "study import " + root + " " + input + " --deidentify --key-file " + quoted((dir / "short-key").string()));
  CHECK(shortKey.exitCode == 1);
  CHECK(shortKey.err.find("at least 16 bytes") != std::string::npos);
  CHECK(cli(dir, "study import " + root + " " + input + " --deidentify").exitCode == 2);
  CHECK(jsonOf(cli(dir, "study list " + root + " --json"))["studies"].empty());  // nothing was imported

  auto imported = jsonOf(cli(dir, "study import " + root + " " + input + " --deidentify --key-file " +
                                      quoted((dir / "key").string()) + " --json"));
  REQUIRE(imported["series"].size() == 1);
  CHECK(imported["series"][0]["study"] != kStudy);
  auto list = jsonOf(cli(dir, "study list " + root + " --json"));
  REQUIRE(list["studies"].size() == 1);
  const std::string patient = list["studies"][0]["patientId"];
  CHECK(patient.rfind("ANON-", 0) == 0);
  CHECK(list["studies"][0]["patientName"] == patient);
  CHECK(list["studies"][0]["studyDate"] != "19941122");
  CHECK(list["studies"][0]["description"] == "");
  CHECK(jsonOf(cli(dir, "study search " + root + " CRLM --json"))["studies"].empty());
}

// Issue 40: two files with one SOP Instance UID. Byte-identical: a copy, stored once and counted. Different bytes:
// which one is the instance cannot be told, so the series is refused (import, convert), naming both files.
TEST_CASE("study import and convert: a repeated instance is counted when identical, refuses its series when not",
          "[cli][share]") {
  auto ct = sharedFile("data/ct/tcia-crlm-ct-series/CRLM-CT-1004");
  if (!ct) return;
  ScratchDir dir("cli-study-dup");
  const fs::path input = dir / "in";
  fs::copy(*ct, input, fs::copy_options::recursive);
  fs::copy_file(input / "1-10.dcm", input / "copy-of-10.dcm");
  const std::string root = quoted((dir / "share").string());
  fs::create_directories(dir / "share");
  REQUIRE(cli(dir, "share init " + root).exitCode == 0);

  auto copies = jsonOf(cli(dir, "study import " + root + " " + quoted(input.string()) + " --json"));
  REQUIRE(copies["series"].size() == 1);
  CHECK(copies["series"][0]["files"] == 41);
  CHECK(copies["series"][0]["duplicates"] == 1);
  const SplitRun index = cli(dir, "dicom-index " + quoted(input.string()));
  CHECK(index.out.find((input / "copy-of-10.dcm").string() + " (a copy of " + (input / "1-10.dcm").string() + ")") !=
        std::string::npos);

  // One byte of slice 11's pixels changed in a second file of the same instance.
  std::string bytes = readTextFile(input / "1-11.dcm");
  bytes[bytes.size() - 100] = static_cast<char>(bytes[bytes.size() - 100] ^ 0xff);
  writeTextFile(input / "changed-11.dcm", bytes);
  const fs::path share2 = dir / "share2";
  fs::create_directories(share2);
  REQUIRE(cli(dir, "share init " + quoted(share2.string())).exitCode == 0);
  const SplitRun refused = cli(dir, "study import " + quoted(share2.string()) + " " + quoted(input.string()));
  INFO(refused.out << refused.err);
  CHECK(refused.exitCode == 1);
  const std::string pair = (input / "1-11.dcm").string() + " and " + (input / "changed-11.dcm").string() +
                           " carry SOPInstanceUID ";
  CHECK(refused.err.find(pair) != std::string::npos);
  CHECK(refused.err.find("with different bytes") != std::string::npos);
  CHECK_FALSE(fs::exists(share2 / "studies" / kStudy / "series" / kSeries));
  CHECK_FALSE(fs::exists(share2 / "studies" / kStudy / "series" / (kSeries + ".json")));

  const SplitRun conflict = cli(dir, "dicom-index " + quoted(input.string()));
  CHECK(conflict.out.find("conflicting instances") != std::string::npos);
  CHECK(conflict.out.find(pair) != std::string::npos);
  const SplitRun convert = cli(dir, "convert " + quoted(input.string()) + " " + quoted((dir / "ct.nii").string()) +
                                        " --allow-irregular --allow-unreadable");
  INFO(convert.err);
  CHECK(convert.exitCode == 1);
  CHECK(convert.err.find("error: " + (input / "1-11.dcm").string() + ": ") != std::string::npos);
  CHECK(convert.err.find(pair) != std::string::npos);
  CHECK_FALSE(fs::exists(dir / "ct.nii"));
}

namespace {

// The temporary files (".<name>.tmp-...") under `folder`, at any depth.
std::vector<fs::path> temporaryFiles(const fs::path& folder) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.size() > 1 && name[0] == '.' && name.find(".tmp-") != std::string::npos) out.push_back(it->path());
  }
  return out;
}

}  // namespace

// Issue 40: an import or a `study get` interrupted (Ctrl-C, SIGTERM) stops, leaves no temporary file, and `study get`
// no part of a series; a SIGKILLed one's temporary files are removed by the next run (an import's once an hour old,
// as another importer may be writing; a fetch's at once, as it holds the folder's lock).
TEST_CASE("study import and study get interrupted leave no temporary or partial files", "[cli][share][faults]") {
  auto ct = sharedFile("data/ct/tcia-crlm-ct-series/CRLM-CT-1004");
  if (!ct) return;
  ScratchDir dir("cli-study-interrupt");
  const fs::path share = dir / "share";
  const std::string root = quoted(share.string());
  fs::create_directories(share);
  REQUIRE(cli(dir, "share init " + root).exitCode == 0);
  const std::string shim = "LD_PRELOAD='" DELINEATE_FS_FAULTS_PATH "' ";
  const fs::path seriesFolder = share / "studies" / kStudy / "series" / kSeries;

  // Interrupted while the first instance is being written: stops between files, no temporary file, nothing listed;
  // the files it finished stay for the next run to reuse.
  for (const char* signal : {"INT", "TERM"}) {
    const SplitRun stopped = cli(dir, "study import " + root + " " + quoted(ct->string()),
                                 shim + "DELINEATE_FAULT_KILL=before:fsync:.dcm.tmp- DELINEATE_FAULT_KILL_SIGNAL=" + signal);
    INFO(signal << ": " << stopped.out << stopped.err);
    CHECK(stopped.exitCode == (std::string(signal) == "INT" ? 130 : 143));
    CHECK(stopped.err.find("cancelled") != std::string::npos);
    CHECK(temporaryFiles(share).empty());
    CHECK_FALSE(fs::exists(share / "studies" / kStudy / "series" / (kSeries + ".json")));
  }
  // SIGKILLed: its temporary file stays (it could not clean up); an hour later the next import removes it, says so,
  // and finishes the series.
  const SplitRun killed = cli(dir, "study import " + root + " " + quoted(ct->string()),
                              shim + "DELINEATE_FAULT_KILL=before:fsync:.dcm.tmp-");
  CHECK(killed.exitCode != 0);
  const auto left = temporaryFiles(share);
  REQUIRE_FALSE(left.empty());
  for (const fs::path& p : left) fs::last_write_time(p, fs::file_time_type::clock::now() - std::chrono::hours(2));
  const SplitRun resumed = cli(dir, "study import " + root + " " + quoted(ct->string()));
  INFO(resumed.err);
  REQUIRE(resumed.exitCode == 0);
  CHECK(resumed.err.find("warning: removed " + left.front().string() + ", a temporary file an interrupted import left") !=
        std::string::npos);
  CHECK(temporaryFiles(share).empty());

  // `study get` interrupted: the folder it made is gone (no part of a series to open as if whole), no temporary file.
  const fs::path out = dir / "out";
  for (const char* signal : {"INT", "TERM"}) {
    const SplitRun stopped = cli(dir, "study get " + root + " " + kStudy + " " + kSeries + " " + quoted(out.string()),
                                 shim + "DELINEATE_FAULT_KILL=before:fsync:.dcm.tmp- DELINEATE_FAULT_KILL_SIGNAL=" + signal);
    INFO(signal << ": " << stopped.out << stopped.err);
    CHECK(stopped.exitCode == (std::string(signal) == "INT" ? 130 : 143));
    CHECK_FALSE(fs::exists(out));
  }
  // Run again to its end, it fetches the whole series.
  REQUIRE(cli(dir, "study get " + root + " " + kStudy + " " + kSeries + " " + quoted(out.string())).exitCode == 0);
  // SIGKILLed into a new folder: the next fetch into it removes the temporary file and completes the series.
  const fs::path out2 = dir / "out2";
  const SplitRun killedGet = cli(dir, "study get " + root + " " + kStudy + " " + kSeries + " " + quoted(out2.string()),
                                 shim + "DELINEATE_FAULT_KILL=before:fsync:.dcm.tmp-");
  CHECK(killedGet.exitCode != 0);
  CHECK_FALSE(temporaryFiles(out2).empty());
  const SplitRun again = cli(dir, "study get " + root + " " + kStudy + " " + kSeries + " " + quoted(out2.string()));
  INFO(again.err);
  CHECK(again.exitCode == 0);
  CHECK(again.out.find("41 files verified") != std::string::npos);
  CHECK(temporaryFiles(out2).empty());
  CHECK(cli(dir, "info " + quoted(out2.string())).exitCode == 0);
}

// Issue 40: the catalogue lists only studies the share holds. A forged series record (a study with no folder, or a
// manifest other than the one on the share) is named as skipped and listed nowhere; the real study stays.
TEST_CASE("study list: a forged catalogue record of a study that does not exist is named and skipped", "[cli][share]") {
  auto ct = sharedFile("data/ct/tcia-crlm-ct-series/CRLM-CT-1004");
  if (!ct) return;
  ScratchDir dir("cli-study-forged");
  const fs::path share = dir / "share";
  const std::string root = quoted(share.string());
  fs::create_directories(share);
  REQUIRE(cli(dir, "share init " + root).exitCode == 0);
  REQUIRE(cli(dir, "study import " + root + " " + quoted(ct->string())).exitCode == 0);
  // Records as an importer writes them, one segment of the catalogue's log: a study that was never imported, and the
  // real series with a manifest hash that is not its manifest's.
  const std::string forged =
      R"({"kind":"series","study":"2.25.666","series":"2.25.666.1","manifest":"studies/2.25.666/series/2.25.666.1.json",)"
      R"("manifestSha256":")" + std::string(64, 'a') + R"(","patientId":"FORGED","modality":"CT","time":"2026-11-27T00:00:00Z"})";
  const std::string wrongHash =
      R"({"kind":"series","study":")" + kStudy + R"(","series":")" + kSeries + R"(","manifest":"studies/)" + kStudy +
      "/series/" + kSeries + R"(.json","manifestSha256":")" + std::string(64, 'b') + R"(","patientId":"CHANGED"})";
  const fs::path day = share / "catalogue" / "log" / "20261127";
  fs::create_directories(day);
  writeTextFile(day / "1790000000000-forger-1-deadbeef.jsonl", forged + "\n" + wrongHash + "\n");

  const SplitRun listed = cli(dir, "study list " + root + " --json");
  INFO(listed.out << listed.err);
  REQUIRE(listed.exitCode == 0);
  const auto studies = nlohmann::json::parse(listed.out)["studies"];
  REQUIRE(studies.size() == 1);
  CHECK(studies[0]["study"] == kStudy);
  CHECK(studies[0]["patientId"] == "CRLM-CT-1004");
  CHECK(listed.err.find("warning: skipped: catalogue/log/20261127/1790000000000-forger-1-deadbeef.jsonl:1: a series "
                        "record of study 2.25.666 whose manifest ") != std::string::npos);
  CHECK(listed.err.find("does not exist on the share") != std::string::npos);
  CHECK(listed.err.find("1790000000000-forger-1-deadbeef.jsonl:2: a series record whose manifest ") != std::string::npos);
  CHECK(jsonOf(cli(dir, "study search " + root + " FORGED --json"))["studies"].empty());

  // A new client catching up on a long log checks the records against one listing of studies/ (here forced with a
  // limit of 0): the study that is not there is still named and skipped.
  fs::remove_all(dir / "cache");
  const SplitRun bulk = cli(dir, "study list " + root + " --json", "DELINEATE_CATALOGUE_FULL_CHECK_LIMIT=0");
  INFO(bulk.out << bulk.err);
  REQUIRE(bulk.exitCode == 0);
  const auto bulkStudies = nlohmann::json::parse(bulk.out)["studies"];
  REQUIRE(bulkStudies.size() == 1);
  CHECK(bulkStudies[0]["study"] == kStudy);
  CHECK(bulk.err.find("1790000000000-forger-1-deadbeef.jsonl:1: a series record of study 2.25.666, which the share's "
                      "studies/ does not hold") != std::string::npos);
}
