// Our storage SCP (io/pacs/storage_scp.h) against DCMTK's storescu/echoscu and a real Orthanc pushing a study.
#include <catch2/catch.hpp>

#include <chrono>
#include <fstream>
#include <iterator>
#include <mutex>
#include <optional>
#include <thread>

#include "dcmtk/config/osconfig.h"
#include "dcmtk/dcmdata/dcdeftag.h"
#include "dcmtk/dcmdata/dcfilefo.h"
#include "io/pacs/instance_folder.h"
#include "io/pacs/storage_scp.h"
#include "tests/pacs/orthanc_server.h"
#include "tests/pacs/test_certificates.h"

namespace delineate::test {
namespace {
namespace fs = std::filesystem;

bool haveDcmtkTools() {
  if (runCommand("command -v storescu && command -v echoscu") == 0) return true;
  if (runningInCi()) FAIL("DCMTK's storescu/echoscu are not installed (Debian dcmtk)");
  WARN("DCMTK's storescu/echoscu are not installed: skipped");
  return false;
}

std::string fileBytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The bytes after a Part 10 file's meta header (preamble, "DICM", group 0002 by its group length).
std::string datasetBytes(const std::string& file) {
  REQUIRE(file.size() > 144);
  REQUIRE(file.compare(128, 4, "DICM") == 0);
  REQUIRE(file.compare(132, 4, std::string("\x02\x00\x00\x00", 4)) == 0);  // (0002,0000) comes first
  const auto* p = reinterpret_cast<const unsigned char*>(file.data()) + 140;
  const std::uint32_t groupLength = p[0] | (p[1] << 8) | (p[2] << 16) | (std::uint32_t(p[3]) << 24);
  return file.substr(144 + groupLength);
}

std::string pixelBytes(const fs::path& path, std::string* sopInstanceUid) {
  DcmFileFormat f;
  REQUIRE(f.loadFile(path.c_str()).good());
  OFString uid;
  f.getDataset()->findAndGetOFString(DCM_SOPInstanceUID, uid);
  *sopInstanceUid = uid.c_str();
  const Uint8* data = nullptr;
  unsigned long count = 0;
  REQUIRE(f.getDataset()->findAndGetUint8Array(DCM_PixelData, data, &count).good());
  return std::string(reinterpret_cast<const char*>(data), count);
}

// What the SCP reported, and the one folder everything goes to.
struct Receiver {
  explicit Receiver(const fs::path& folder) : instances(io::InstanceFolder::open(folder.string()).value()) {}
  io::InstanceFolder instances;
  std::mutex mutex;
  std::vector<io::AssociationEvent> events;
  std::vector<io::ReceivedInstance> received;
  std::vector<std::string> refused;

  io::StorageScp::Handlers handlers() {
    io::StorageScp::Handlers h;
    h.route = [this](const std::string&, const std::string&, const std::string&) { return &instances; };
    h.received = [this](const io::ReceivedInstance& r) {
      std::lock_guard<std::mutex> lock(mutex);
      received.push_back(r);
    };
    h.association = [this](const io::AssociationEvent& e) {
      std::lock_guard<std::mutex> lock(mutex);
      events.push_back(e);
    };
    h.refused = [this](const io::ReceivedInstance&, std::uint16_t, const std::string& reason) {
      std::lock_guard<std::mutex> lock(mutex);
      refused.push_back(reason);
    };
    return h;
  }
  // The events once an association has ended or been rejected (the SCP reports just after the peer is answered).
  std::vector<io::AssociationEvent> settled(std::size_t count) {
    for (int i = 0; i < 500; ++i) {
      {
        std::lock_guard<std::mutex> lock(mutex);
        std::size_t done = 0;
        for (const auto& e : events) done += (e.ended || !e.accepted) ? 1 : 0;
        if (done >= count) return events;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    std::lock_guard<std::mutex> lock(mutex);
    return events;
  }
};

std::unique_ptr<io::StorageScp> startScp(Receiver& receiver, io::StorageScpSettings settings = {}) {
  settings.port = 0;
  settings.bindAddress = "127.0.0.1";
  auto scp = io::StorageScp::start(settings, receiver.handlers());
  if (!scp) FAIL(scp.error().describe());
  return std::move(*scp);
}

std::string storescu(const io::StorageScp& scp, const std::string& callingAe, const std::string& calledAe,
                     const std::vector<fs::path>& files, const std::string& extra = "") {
  std::string command = "storescu " + extra + " -aet " + callingAe + " -aec " + calledAe + " 127.0.0.1 " +
                        std::to_string(scp.port());
  for (const auto& f : files) command += " '" + f.string() + "'";
  std::string out;
  runCommand(command, &out);
  return out;
}

}  // namespace

TEST_CASE("storescu sends the CT series to our SCP: 41 instances, each dataset byte-identical", "[pacs][scp]") {
  if (!haveDcmtkTools()) return;
  const auto files = crlmSeriesFiles();
  if (files.empty()) return;
  ScratchDir dir("scp");
  Receiver receiver(dir / "in");
  auto scp = startScp(receiver);
  CHECK(scp->port() > 0);
  const std::string out = storescu(*scp, "SENDER", "DELINEATE", files);
  const auto events = receiver.settled(1);
  INFO(out);
  REQUIRE(events.size() == 2);
  CHECK(events[0].accepted);
  CHECK(events[0].callingAeTitle == "SENDER");
  CHECK(events[1].ended);
  CHECK(events[1].reason == "released");
  CHECK(events[1].instances == 41);
  CHECK(events[1].peerHost == "127.0.0.1");
  CHECK(receiver.instances.instances().size() == 41);
  CHECK(receiver.received.size() == 41);
  int wholeFilesIdentical = 0;
  for (const auto& source : files) {
    std::string uid;
    const std::string sourcePixels = pixelBytes(source, &uid);
    REQUIRE(receiver.instances.has(uid));
    const fs::path stored = receiver.instances.pathOf(uid);
    std::string storedUid;
    CHECK(pixelBytes(stored, &storedUid) == sourcePixels);
    CHECK(storedUid == uid);
    const std::string a = fileBytes(source), b = fileBytes(stored);
    wholeFilesIdentical += a == b ? 1 : 0;
    // storescu sends the dataset as DCMTK writes it (sequences with explicit lengths: the source's undefined lengths
    // are re-encoded by the sender, not by us), so that encoding of the source is what must arrive unchanged.
    DcmFileFormat sent;
    REQUIRE(sent.loadFile(source.c_str()).good());
    const fs::path sentPath = dir / "sent.dcm";
    REQUIRE(sent.saveFile(sentPath.c_str(), EXS_LittleEndianExplicit, EET_ExplicitLength).good());
    CHECK(datasetBytes(fileBytes(sentPath)) == datasetBytes(b));  // bit-preserving: the dataset as it was sent
    CHECK((fs::status(stored).permissions() & (fs::perms::group_all | fs::perms::others_all)) == fs::perms::none);
  }
  // The meta header is ours (implementation UID, source AE title) and storescu re-encodes sequences, so the whole
  // files differ from the sources; what arrived is stored unchanged.
  CHECK(wholeFilesIdentical == 0);
  scp->stop();
}

TEST_CASE("Our SCP rejects an unknown calling AE title and a wrong called one, and answers C-ECHO", "[pacs][scp]") {
  if (!haveDcmtkTools()) return;
  const auto files = crlmSeriesFiles();
  if (files.empty()) return;
  ScratchDir dir("scp");
  Receiver receiver(dir / "in");
  io::StorageScpSettings settings;
  settings.acceptedCallingAeTitles = {"ORTHANC", "MODALITY1"};
  auto scp = startScp(receiver, settings);

  std::string out = storescu(*scp, "STRANGER", "DELINEATE", {files[0]});
  auto events = receiver.settled(1);
  REQUIRE(events.size() == 1);
  CHECK_FALSE(events[0].accepted);
  CHECK(events[0].callingAeTitle == "STRANGER");
  CHECK(events[0].reason.find("calling AE title not recognised") != std::string::npos);
  CHECK(out.find("Calling AE Title Not Recognized") != std::string::npos);

  out = storescu(*scp, "MODALITY1", "SOMEONE", {files[0]});
  events = receiver.settled(2);
  REQUIRE(events.size() == 2);
  CHECK_FALSE(events[1].accepted);
  CHECK(events[1].reason.find("called AE title not recognised") != std::string::npos);
  CHECK(out.find("Called AE Title Not Recognized") != std::string::npos);
  CHECK(receiver.instances.instances().empty());

  CHECK(runCommand("echoscu -aet MODALITY1 -aec DELINEATE 127.0.0.1 " + std::to_string(scp->port()), &out) == 0);
  INFO(out);
  events = receiver.settled(3);
  REQUIRE(events.size() == 4);
  CHECK(events[2].accepted);
  CHECK(events[3].reason == "released");
  CHECK(events[3].instances == 0);

  // stop() returns promptly when idle (no association: the accept loop polls).
  const auto t0 = std::chrono::steady_clock::now();
  scp->stop();
  INFO("stop took " << std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() << " s");
}

TEST_CASE("A SOP Instance UID that is not a UID is refused with a failure status and never names a file", "[pacs][scp]") {
  if (!haveDcmtkTools()) return;
  const auto files = crlmSeriesFiles();
  if (files.empty()) return;
  ScratchDir dir("scp");
  const fs::path hostile = dir / "hostile.dcm";
  {
    DcmFileFormat f;
    REQUIRE(f.loadFile(files[0].c_str()).good());
    REQUIRE(f.getDataset()->putAndInsertString(DCM_SOPInstanceUID, "../../x").good());
    REQUIRE(f.saveFile(hostile.c_str(), EXS_LittleEndianExplicit).good());
  }
  const fs::path folder = dir / "a" / "b" / "in";
  Receiver receiver(folder);
  auto scp = startScp(receiver);
  const std::string out = storescu(*scp, "SENDER", "DELINEATE", {hostile, files[1]}, "--no-halt");
  INFO(out);
  const auto events = receiver.settled(1);
  REQUIRE(events.size() == 2);
  CHECK(events[1].instances == 1);  // the good one
  REQUIRE(receiver.refused.size() == 1);
  CHECK(receiver.refused[0].find("is not a UID") != std::string::npos);
  CHECK(receiver.refused[0].find("0xC000") != std::string::npos);
  // Nothing anywhere but the good instance in its folder.
  std::vector<fs::path> written;
  for (const auto& e : fs::recursive_directory_iterator(dir.path()))
    if (e.is_regular_file() && e.path() != hostile) written.push_back(e.path());
  REQUIRE(written.size() == 1);
  CHECK(written[0].parent_path() == folder);
  scp->stop();
}

TEST_CASE("Orthanc pushes a study to our SCP (C-STORE from the PACS)", "[pacs][scp]") {
  if (!orthancForTests()) return;
  const auto files = crlmSeriesFiles();
  if (files.empty()) return;
  ScratchDir dir("scp");
  Receiver receiver(dir / "in");
  io::StorageScpSettings settings;
  settings.acceptedCallingAeTitles = {"ORTHANC"};
  auto scp = startScp(receiver, settings);
  OrthancOptions options;
  options.modalities["delineate"] = {"DELINEATE", scp->port()};
  OrthancServer orthanc(options);
  orthanc.start();
  orthanc.upload(files);
  const std::string studies = orthanc.get("/studies");  // ["<id>"]
  const auto open = studies.find('"'), close = studies.find('"', open + 1);
  REQUIRE(close != std::string::npos);
  orthanc.post("/modalities/delineate/store", studies.substr(open + 1, close - open - 1));
  const auto events = receiver.settled(1);
  REQUIRE(events.size() >= 2);
  CHECK(events.front().callingAeTitle == "ORTHANC");
  CHECK(events.back().ended);
  CHECK(events.back().instances == 41);
  CHECK(receiver.instances.instances().size() == 41);
  scp->stop();
}

TEST_CASE("Our SCP over TLS (BCP 195): a client certificate from our CA is accepted, one from another CA refused",
          "[pacs][scp]") {
  if (!haveDcmtkTools()) return;
  const auto files = crlmSeriesFiles();
  if (files.empty()) return;
  ScratchDir dir("scp-tls");
  const std::string d = dir.path().string();
  const TestCertificates certs = makeTestCertificates(dir / "certs");

  Receiver receiver(dir / "in");
  io::StorageScpSettings settings;
  settings.tls.enabled = true;
  settings.tls.certificateFile = certs.serverCert.string();
  settings.tls.privateKeyFile = certs.serverKey.string();
  settings.tls.caFile = certs.caCert.string();
  auto scp = startScp(receiver, settings);

  std::string out = storescu(*scp, "SENDER", "DELINEATE", {files[0], files[1]},
                             "+tls '" + certs.clientKey.string() + "' '" + certs.clientCert.string() + "' +cf '" + certs.caCert.string() + "'");
  auto events = receiver.settled(1);
  INFO(out);
  REQUIRE(events.size() == 2);
  CHECK(events[1].instances == 2);
  CHECK(receiver.instances.instances().size() == 2);

  out = storescu(*scp, "SENDER", "DELINEATE", {files[2]},
                 "+tls '" + certs.strangerKey.string() + "' '" + certs.strangerCert.string() + "' +cf '" + certs.caCert.string() + "'");
  events = receiver.settled(2);
  INFO(out);
  REQUIRE(events.size() == 3);
  CHECK_FALSE(events[2].accepted);
  CHECK(events[2].reason.find("TLS") != std::string::npos);
  CHECK(receiver.instances.instances().size() == 2);
  scp->stop();
}

}  // namespace delineate::test
