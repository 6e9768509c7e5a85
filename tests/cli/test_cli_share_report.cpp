// share report / share reports through the real binary: a revision of dcmqi's liver/spine labels on its CT published
// on a share as statistics, DICOM SEG and measurement report, listed, de-identified, audited.
#include <catch2/catch.hpp>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "io/dicom/dicom_seg.h"
#include "io/dicom/dicom_sr.h"
#include "tests/cli/cli_runner.h"
#include "tests/common/test_support.h"

using namespace delineate;
using namespace delineate::test;
namespace fs = std::filesystem;

TEST_CASE("share report publishes a revision's statistics, SEG and SR on the share, and share reports lists them",
          "[cli][share][dicom-sr]") {
  auto ct = sharedFile("data/dicom-seg/dcmqi/segmentations/ct-3slice");
  auto labels = sharedFile("data/dicom-seg/dcmqi/segmentations/liver_spine_seg.nrrd");
  if (!ct || !labels) return;
  ScratchDir dir("cli-share-report");
  const fs::path root = dir / "share";
  fs::create_directories(root);
  REQUIRE(runCli("share init " + quoted(root.string())).exitCode == 0);
  Run r = runCli("share save " + quoted(root.string()) + " ct3 organs " + quoted(labels->string()) + " --author ann");
  INFO(r.out);
  REQUIRE(r.exitCode == 0);

  r = runCli("share report " + quoted(root.string()) + " ct3 organs 1 --dicom " + quoted(ct->string()) +
             " --message 'board' --author ann --observer 'Ann^Reader' --json");
  INFO(r.out);
  REQUIRE(r.exitCode == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["number"] == 1);
  CHECK(j["revision"] == 1);
  REQUIRE(j["files"].size() == 4);
  const fs::path folder = root / j["folder"].get<std::string>();
  for (const char* name : {"statistics.csv", "statistics.json", "segmentation.dcm", "measurements.dcm"})
    CHECK(fs::exists(folder / name));
  auto seg = io::readDicomSeg((folder / "segmentation.dcm").string());
  REQUIRE(seg.ok());
  CHECK(seg->segments.size() == 2);
  auto sr = io::readDicomSr((folder / "measurements.dcm").string());
  REQUIRE(sr.ok());
  REQUIRE(sr->groups.size() == 2);
  CHECK(sr->observerName == "Ann^Reader");
  CHECK(sr->patientName == "JANCT000");
  const std::string json = readTextFile(folder / "statistics.json");
  CHECK(json.find("ct3/organs r1") != std::string::npos);

  // A second, de-identified publication of the same revision: a new folder, nothing of the patient in it.
  r = runCli("share report " + quoted(root.string()) + " ct3 organs 1 --dicom " + quoted(ct->string()) +
             " --deidentify --labelmap");
  INFO(r.out);
  REQUIRE(r.exitCode == 0);
  CHECK(r.out.find("published report 2 of r1") != std::string::npos);
  const fs::path second = root / "reports/ct3/organs/r000001/0002";
  for (const char* name : {"statistics.csv", "statistics.json", "segmentation.dcm", "measurements.dcm"}) {
    INFO(name);
    const std::string bytes = readTextFile(second / name);
    CHECK(bytes.find("JANCT000") == std::string::npos);
    CHECK(bytes.find(ct->string()) == std::string::npos);
  }

  r = runCli("share reports " + quoted(root.string()) + " ct3 organs --json");
  REQUIRE(r.exitCode == 0);
  const auto list = nlohmann::json::parse(r.out);
  REQUIRE(list["reports"].size() == 2);
  CHECK(list["reports"][0]["message"] == "board");
  CHECK(list["reports"][1]["deidentified"] == true);
  CHECK(list["incomplete"].empty());
  // The audit chain holds the exports and is intact.
  r = runCli("audit verify " + quoted(root.string()));
  INFO(r.out);
  CHECK(r.exitCode == 0);

  // Errors: a revision that does not exist, the image given twice or not at all.
  r = runCli("share report " + quoted(root.string()) + " ct3 organs 9 --dicom " + quoted(ct->string()));
  CHECK(r.exitCode == 1);
  CHECK(r.out.find("no revision 9") != std::string::npos);
  r = runCli("share report " + quoted(root.string()) + " ct3 organs 1");
  CHECK(r.exitCode == 2);
  r = runCli("share report " + quoted(root.string()) + " ct3 organs 1 --dicom " + quoted(ct->string()) + " --image " +
             kSample);
  CHECK(r.exitCode == 2);
  // Statistics only, from a volume file on another grid: refused, naming the reason; nothing published.
  r = runCli("share report " + quoted(root.string()) + " ct3 organs 1 --image " + kSample);
  INFO(r.out);
  CHECK(r.exitCode == 1);
  CHECK(r.out.find("grid") != std::string::npos);
  r = runCli("share reports " + quoted(root.string()) + " ct3 organs --json");
  CHECK(nlohmann::json::parse(r.out)["reports"].size() == 2);
}
