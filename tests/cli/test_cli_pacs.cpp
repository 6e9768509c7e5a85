// delineate-cli pacs over DIMSE against a real Orthanc on loopback: the program as the harness.
#include <catch2/catch.hpp>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "tests/cli/cli_runner.h"
#include "tests/pacs/orthanc_server.h"
#include "tests/pacs/pacs_test_data.h"

namespace delineate::test {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::string peerOf(const OrthancServer& o) { return "--peer " + o.aeTitle() + "@127.0.0.1:" + std::to_string(o.dicomPort()); }

std::size_t filesIn(const fs::path& folder) {
  std::size_t n = 0;
  for (const auto& e : fs::directory_iterator(folder)) n += e.is_regular_file();
  return n;
}
}  // namespace

TEST_CASE("cli pacs: echo, find, get into the share and store over DIMSE, and a PACS that is down named", "[cli][pacs]") {
  if (!orthancForTests()) return;
  const auto sources = crlmSeriesFiles();
  auto seg = sharedFile("data/dicom-seg/highdicom/seg_image_ct_binary.dcm");
  if (sources.empty() || !seg) return;
  OrthancOptions options;
  options.modalities["delineate"] = {"DELINEATE", 11112};
  OrthancServer orthanc(options);
  orthanc.start();
  orthanc.upload(sources);
  const std::string peer = peerOf(orthanc);

  const Run echo = runCli("pacs echo " + peer);
  INFO(echo.out);
  CHECK(echo.exitCode == 0);
  CHECK(echo.out.find("C-ECHO answered") != std::string::npos);

  const SplitRun find = runCliSplit("pacs find " + peer + " --patient-id 'CRLM*' --json");
  INFO(find.err);
  REQUIRE(find.exitCode == 0);
  const json studies = json::parse(find.out);
  REQUIRE(studies.size() == 1);
  CHECK(studies[0]["patientId"] == "CRLM-CT-1004");
  CHECK(studies[0]["instances"] == 41);
  const std::string study = studies[0]["studyInstanceUid"];

  const SplitRun series = runCliSplit("pacs find " + peer + " --level series --study " + study);
  CHECK(series.exitCode == 0);
  CHECK(series.out.find("1 match\n") != std::string::npos);

  ScratchDir dir("cli-pacs");
  const fs::path root = dir / "share";
  fs::create_directories(root);
  REQUIRE(runCli("share init " + quoted(root.string())).exitCode == 0);
  const std::string out = quoted((dir / "retrieved").string());
  const SplitRun get = runCliSplit("pacs get " + peer + " --study " + study + " --out " + out + " --share " +
                                   quoted(root.string()) + " --json");
  INFO(get.err);
  REQUIRE(get.exitCode == 0);
  const json got = json::parse(get.out);
  CHECK(got["retrieve"]["received"] == 41);
  CHECK(got["import"]["series"].size() == 1);
  CHECK(got["import"]["series"][0]["files"] == 41);
  CHECK(filesIn(dir / "retrieved") == 41);
  const SplitRun list = runCliSplit("study list " + quoted(root.string()) + " --json");
  REQUIRE(list.exitCode == 0);
  REQUIRE(json::parse(list.out)["studies"].size() == 1);
  CHECK(json::parse(list.out)["studies"][0]["patientId"] == "CRLM-CT-1004");
  // Again: nothing is asked for twice, and the share already has it.
  const SplitRun again = runCliSplit("pacs get " + peer + " --study " + study + " --out " + out + " --json");
  REQUIRE(again.exitCode == 0);
  CHECK(json::parse(again.out)["retrieve"]["received"] == 0);
  CHECK(json::parse(again.out)["retrieve"]["alreadyHere"] == 41);

  const Run store = runCli("pacs store " + peer + " " + quoted(seg->string()));
  INFO(store.out);
  CHECK(store.exitCode == 0);
  CHECK(store.out.find("1 file(s) stored") != std::string::npos);
  CHECK(orthanc.get("/statistics").find("\"CountInstances\" : 42") != std::string::npos);

  // Usage errors never reach the network; a PACS that is down is exit 1 naming it.
  CHECK(runCli("pacs echo --peer nowhere").exitCode == 2);
  CHECK(runCli("pacs echo --peer ORTHANC@127.0.0.1:99999").exitCode == 2);
  CHECK(runCli("pacs echo " + peer + " --tls").exitCode == 2);
  orthanc.kill();
  const SplitRun down = runCliSplit("pacs echo " + peer + " --timeout 3");
  CHECK(down.exitCode == 1);
  CHECK(down.err.rfind("error: ORTHANC@127.0.0.1:" + std::to_string(orthanc.dicomPort()), 0) == 0);
  CHECK(down.err.find("connect:") != std::string::npos);
}

}  // namespace delineate::test

namespace delineate::test {

TEST_CASE("cli pacs move: the series comes to the storage SCP the command starts, and into the share", "[cli][pacs]") {
  if (!orthancForTests()) return;
  const auto sources = crlmSeriesFiles();
  if (sources.empty()) return;
  const int ourPort = freeLoopbackPort();
  OrthancOptions options;
  options.modalities["delineate"] = {"DELINEATE", ourPort};
  OrthancServer orthanc(options);
  orthanc.start();
  orthanc.upload(sources);
  ScratchDir dir("cli-pacs-move");
  const fs::path root = dir / "share";
  fs::create_directories(root);
  REQUIRE(runCli("share init " + quoted(root.string())).exitCode == 0);
  const std::string study = json::parse(runCliSplit("pacs find " + peerOf(orthanc) + " --json").out)[0]["studyInstanceUid"];
  const SplitRun move = runCliSplit("pacs move " + peerOf(orthanc) + " --port " + std::to_string(ourPort) + " --study " +
                                    study + " --out " + quoted((dir / "moved").string()) + " --share " +
                                    quoted(root.string()) + " --json");
  INFO(move.err);
  REQUIRE(move.exitCode == 0);
  const json moved = json::parse(move.out);
  CHECK(moved["retrieve"]["received"] == 41);
  CHECK(moved["import"]["series"][0]["files"] == 41);
  CHECK(filesIn(dir / "moved") == 41);
  // To a port the PACS does not have for us: nothing arrives, and the command says why instead of waiting.
  const SplitRun wrong = runCliSplit("pacs move " + peerOf(orthanc) + " --move-aet ELSEWHERE --port " +
                                     std::to_string(freeLoopbackPort()) + " --study " + study + " --out " +
                                     quoted((dir / "elsewhere").string()));
  CHECK(wrong.exitCode == 1);
  CHECK(wrong.err.find("ELSEWHERE") != std::string::npos);
}

}  // namespace delineate::test
