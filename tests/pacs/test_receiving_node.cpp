// The receiving node (io/pacs/receiving_node.h) behind `pacs listen`: what becomes of a series sent again in part, of
// an instance added to a series already on the share, and of the spool at a restart.
#include <catch2/catch.hpp>

#include <chrono>
#include <thread>

#include "dcmtk/config/osconfig.h"
#include "dcmtk/dcmdata/dcdeftag.h"
#include "dcmtk/dcmdata/dcfilefo.h"
#include "dcmtk/dcmdata/dcuid.h"
#include "io/pacs/receiving_node.h"
#include "io/share/share_store.h"
#include "io/studies/study_store.h"
#include "tests/pacs/orthanc_server.h"

namespace delineate::test {
namespace {
namespace fs = std::filesystem;

const std::string kStudy = "1.3.6.1.4.1.14519.5.2.1.9203.8273.319461848560755521018609264462";
const std::string kSeries = "1.3.6.1.4.1.14519.5.2.1.9203.8273.254242588659825836950462054011";

int spooledFiles(const fs::path& spool) {
  int n = 0;
  for (const auto& e : fs::recursive_directory_iterator(spool)) n += e.path().extension() == ".dcm" ? 1 : 0;
  return n;
}

}  // namespace

TEST_CASE("Receiving node: a partial resend of an imported series is recognised, an added instance kept and said",
          "[pacs][scp]") {
  if (runCommand("command -v storescu") != 0) {
    if (runningInCi()) FAIL("DCMTK's storescu is not installed (Debian dcmtk)");
    WARN("DCMTK's storescu is not installed: skipped");
    return;
  }
  const auto files = crlmSeriesFiles();
  if (files.empty()) return;
  ScratchDir dir("receiving-node");
  fs::create_directories(dir / "share");
  auto store = io::ShareStore::initialize((dir / "share").string());
  REQUIRE(store);
  io::ReceivingNodeSettings settings;
  settings.scp.port = 0;
  settings.scp.bindAddress = "127.0.0.1";
  settings.spoolFolder = (dir / "spool").string();
  settings.idleSeconds = 1;
  std::vector<io::SpooledSeriesImport> events;
  io::ReceivingNode::Handlers handlers;
  handlers.series = [&](const io::SpooledSeriesImport& s) { events.push_back(s); };
  auto node = io::ReceivingNode::start(*store, settings, handlers);
  REQUIRE(node);
  const auto send = [&](const std::vector<fs::path>& which) {
    std::string command = "storescu -aec DELINEATE 127.0.0.1 " + std::to_string((*node)->port());
    for (const auto& f : which) command += " '" + f.string() + "'";
    REQUIRE(runCommand(command) == 0);
  };
  const auto nextEvent = [&]() -> io::SpooledSeriesImport {
    const std::size_t before = events.size();
    for (int i = 0; i < 300 && events.size() == before; ++i) {
      (*node)->importComplete();
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    REQUIRE(events.size() == before + 1);
    return events.back();
  };

  send(files);
  auto first = nextEvent();
  CHECK(first.imported);
  CHECK(first.instances == 41);
  CHECK(spooledFiles(dir / "spool") == 0);

  // Ten of them again (a PACS resending part of the series): all on the share already, nothing to import.
  send({files.begin(), files.begin() + 10});
  auto resend = nextEvent();
  CHECK_FALSE(resend.imported);
  CHECK(resend.alreadyOnShare);
  CHECK(resend.instances == 10);
  CHECK(spooledFiles(dir / "spool") == 0);

  // An instance added to the series: the share keeps its series unchanged; the instance stays in the spool, said.
  const fs::path added = dir / "added.dcm";
  {
    DcmFileFormat f;
    REQUIRE(f.loadFile(files[0].c_str()).good());
    char uid[100];
    REQUIRE(f.getDataset()->putAndInsertString(DCM_SOPInstanceUID, dcmGenerateUniqueIdentifier(uid)).good());
    REQUIRE(f.saveFile(added.c_str(), EXS_LittleEndianExplicit).good());
  }
  send({added});
  auto more = nextEvent();
  CHECK_FALSE(more.imported);
  CHECK_FALSE(more.willRetry);
  CHECK(more.error.find("was imported before") != std::string::npos);
  CHECK(spooledFiles(dir / "spool") == 1);
  auto manifest = io::readSeriesManifest(*store, kStudy, kSeries);
  REQUIRE(manifest);
  CHECK(manifest->files.size() == 41);
  // Not tried again while nothing new arrives.
  for (int i = 0; i < 15; ++i) {
    (*node)->importComplete();
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  CHECK(events.size() == 3);

  // A second node on the same spool is refused while the first runs; after it, the spool is resumed.
  auto second = io::ReceivingNode::start(*store, settings, {});
  REQUIRE_FALSE(second);
  CHECK(second.error().detail.find("another listener") != std::string::npos);
  node->reset();
  auto third = io::ReceivingNode::start(*store, settings, {});
  REQUIRE(third);
  CHECK((*third)->resumedSeries() == 1);
}

}  // namespace delineate::test
