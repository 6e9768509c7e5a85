// `delineate-cli pacs find|get|store --url` (DICOMweb) against a real Orthanc: find --json, get --out (and --share),
// store, and a credentials file that others may read, refused.
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/cli/cli_in_folder.h"
#include "tests/common/test_support.h"
#include "tests/pacs/orthanc_server.h"

using namespace delineate::test;
namespace fs = std::filesystem;

namespace {

const std::string& kStudy = kCrlmStudyUid;
const std::string& kSeries = kCrlmSeriesUid;




}  // namespace

TEST_CASE("pacs find, get and store over DICOMweb with credentials from an owner-only file", "[cli][pacs]") {
  if (!orthancForTests()) return;
  const auto files = crlmSeriesFiles();
  if (files.empty()) return;
  auto seg = sharedFile("data/dicom-seg/highdicom/seg_image_ct_binary.dcm");
  if (!seg) return;
  OrthancOptions options;
  options.httpUsers = {{"bob", "pw-of-bob"}};
  OrthancServer orthanc(options);
  orthanc.start();
  orthanc.upload(files);
  ScratchDir dir("cli-pacs-web");
  const std::string credentials = (dir / "credentials").string();
  writeTextFile(credentials, "basic bob:pw-of-bob\n");
  ::chmod(credentials.c_str(), 0600);
  const std::string url = " --url " + quoted(orthanc.dicomWebUrl()) + " --credentials " + quoted(credentials);

  auto studies = jsonOf(cli(dir, "pacs find --patient-id 'CRLM*' --json" + url));
  REQUIRE(studies.size() == 1);
  CHECK(studies[0]["level"] == "STUDY");
  CHECK(studies[0]["studyInstanceUid"] == kStudy);
  CHECK(studies[0]["patientId"] == "CRLM-CT-1004");
  CHECK(studies[0]["instances"] == 41);
  auto series = jsonOf(cli(dir, "pacs find --level series --study " + kStudy + " --json" + url));
  REQUIRE(series.size() == 1);
  CHECK(series[0]["level"] == "SERIES");
  CHECK(series[0]["seriesInstanceUid"] == kSeries);
  const auto text = cli(dir, "pacs find --level series --modality CT" + url);
  CHECK(text.exitCode == 0);
  CHECK(text.out.find(kSeries) != std::string::npos);
  CHECK(text.out.find("1 match") != std::string::npos);

  const fs::path out = dir / "out";
  auto got = jsonOf(cli(dir, "pacs get --study " + kStudy + " --series " + kSeries + " --out " + quoted(out.string()) +
                                 " --in-flight 3 --json" + url));
  CHECK(got["retrieve"]["received"] == 41);
  std::size_t n = 0;
  for (const auto& e : fs::directory_iterator(out)) n += e.path().extension() == ".dcm";
  CHECK(n == 41);
  auto again = cli(dir, "pacs get --study " + kStudy + " --out " + quoted(out.string()) + url);
  CHECK(again.exitCode == 0);
  CHECK(again.out.find("retrieved 0 instance(s)") != std::string::npos);
  CHECK(again.out.find("41 already there") != std::string::npos);

  // Into a share's catalogue through study import's path.
  const std::string root = quoted((dir / "share").string());
  fs::create_directories(dir / "share");
  REQUIRE(cli(dir, "share init " + root).exitCode == 0);
  auto imported = jsonOf(cli(dir, "pacs get --study " + kStudy + " --out " + quoted(out.string()) + " --share " + root +
                                      " --json" + url));
  REQUIRE(imported["import"]["series"].size() == 1);
  CHECK(imported["import"]["series"][0]["files"] == 41);

  auto stored = jsonOf(cli(dir, "pacs store " + quoted(seg->string()) + " --json" + url));
  CHECK(stored["stored"] == 1);
  auto segs = jsonOf(cli(dir, "pacs find --level series --modality SEG --json" + url));
  CHECK(segs.size() == 1);
  writeTextFile(dir / "notes.txt", "not DICOM\n");
  auto refused = cli(dir, "pacs store " + quoted((dir / "notes.txt").string()) + url);
  CHECK(refused.exitCode == 1);
  CHECK(refused.err.find("notes.txt") != std::string::npos);
  CHECK(refused.err.find("not a DICOM file") != std::string::npos);

  SECTION("a credentials file readable by group is refused, naming it") {
    ::chmod(credentials.c_str(), 0640);
    auto r = cli(dir, "pacs find --json" + url);
    CHECK(r.exitCode == 1);
    CHECK(r.err.find(credentials) != std::string::npos);
    CHECK(r.err.find("readable or writable by group or others") != std::string::npos);
    CHECK(r.err.find("pw-of-bob") == std::string::npos);
  }
  SECTION("a wrong password names 401") {
    writeTextFile(credentials, "basic bob:wrong\n");
    ::chmod(credentials.c_str(), 0600);
    auto r = cli(dir, "pacs find" + url);
    CHECK(r.exitCode == 1);
    CHECK(r.err.find("401: the user name or password was refused") != std::string::npos);
  }
}
