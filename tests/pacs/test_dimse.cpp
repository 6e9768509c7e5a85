// DIMSE against a real Orthanc on loopback (io/pacs/dimse_client.h): echo, find at every level, get, store, and the
// failures a user meets (nobody listening, an AE the PACS does not know, a PACS that dies mid-retrieve).
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <set>
#include <thread>

#include "io/base/sealed_file.h"
#include "io/pacs/dimse_client.h"
#include "io/pacs/instance_folder.h"
#include "io/pacs/storage_scp.h"
#include "tests/common/sealed_files.h"
#include "tests/pacs/orthanc_server.h"
#include "tests/pacs/pacs_test_data.h"
#include "tests/pacs/test_certificates.h"

namespace delineate::test {
namespace fs = std::filesystem;

namespace {


std::set<std::string> filesIn(const fs::path& folder) {
  std::set<std::string> out;
  for (const auto& e : fs::directory_iterator(folder)) out.insert(e.path().filename().string());
  return out;
}

// Calls `onReport` at every progress report (on the thread that reports).
class Watch final : public core::ProgressSink {
 public:
  explicit Watch(std::function<void(double)> onReport) : m_onReport(std::move(onReport)) {}
  void report(double f, const std::string&) override { m_onReport(f); }
  bool cancelled() const override { return m_cancel; }
  std::atomic<bool> m_cancel{false};

 private:
  std::function<void(double)> m_onReport;
};

}  // namespace

TEST_CASE("dimse: echo, and a PACS that is not there or refuses our AE title is named with the step and its answer",
          "[pacs][dimse]") {
  if (!orthancForTests()) return;
  OrthancOptions options = knowsUs();
  options.extraJson = "\"DicomCheckCalledAet\": true";
  OrthancServer orthanc(options);
  orthanc.start();
  const io::DimseNode node = nodeOf(orthanc);
  REQUIRE(io::dimseEcho(node, {}).ok());

  // The wrong called AE title: the association is rejected, and the reason is said.
  io::DimseNode wrongAe = node;
  wrongAe.aeTitle = "NOT_ORTHANC";
  auto rejected = io::dimseEcho(wrongAe, {});
  REQUIRE_FALSE(rejected.ok());
  CHECK(rejected.error().subject == wrongAe.describe());
  CHECK(rejected.error().detail.find("association: rejected") != std::string::npos);
  CHECK(rejected.error().detail.find("Called AE Title Not Recognized") != std::string::npos);

  // Nobody listening: a connect error naming host and port, promptly.
  orthanc.kill();
  auto down = io::dimseEcho(node, {});
  REQUIRE_FALSE(down.ok());
  CHECK(down.error().subject == "ORTHANC@127.0.0.1:" + std::to_string(node.port));
  INFO(down.error().describe());
  CHECK(down.error().detail.rfind("connect:", 0) == 0);

  // A PACS that accepts the connection and then says nothing: the ACSE timeout ends the wait.
  orthanc.start();
  orthanc.suspend(true);
  io::DimseNode patient = node;
  patient.acseTimeoutSeconds = 1;
  patient.connectTimeoutSeconds = 1;
  auto hung = io::dimseEcho(patient, {});
  orthanc.kill();  // a stopped Orthanc takes long to shut down gracefully
  REQUIRE_FALSE(hung.ok());
  CHECK(hung.error().subject == patient.describe());
}

TEST_CASE("dimse: C-FIND at patient, study, series and instance level, with wildcards, date ranges and a limit",
          "[pacs][dimse]") {
  if (!orthancForTests()) return;
  const auto sources = crlmSeriesFiles();
  if (sources.empty()) return;
  ScratchDir dir("dimse-find");
  StudySpec a;
  a.patientId = "FIND-001";
  a.patientName = "Doe^Jane";
  a.studyDate = "20230105";
  a.studyDescription = "CT abdomen";
  a.accessionNumber = "ACC1";
  a.instances = 3;
  StudySpec b = a;
  b.patientId = "FIND-002";
  b.patientName = "Roe^Richard";
  b.studyDate = "20240610";
  b.studyDescription = "CT thorax";
  b.accessionNumber = "ACC2";
  b.modality = "MR";
  const MadeStudy sa = makeStudy(sources, dir / "a", a);
  const MadeStudy sb = makeStudy(sources, dir / "b", b);
  OrthancServer orthanc(knowsUs());
  orthanc.start();
  orthanc.upload(sa.files);
  orthanc.upload(sb.files);
  const io::DimseNode node = nodeOf(orthanc);

  io::QueryKeys all;
  auto studies = io::dimseFind(node, {}, io::QueryLevel::Study, all);
  REQUIRE(studies.ok());
  REQUIRE(studies->size() == 2);

  io::QueryKeys byName;
  byName.patientName = "Doe*";
  studies = io::dimseFind(node, {}, io::QueryLevel::Study, byName);
  REQUIRE(studies.ok());
  REQUIRE(studies->size() == 1);
  const io::QueryMatch& m = studies->front();
  CHECK(m.studyInstanceUid == sa.studyUid);
  CHECK(m.patientId == "FIND-001");
  CHECK(m.patientName == "Doe^Jane");
  CHECK(m.studyDate == "20230105");
  CHECK(m.studyDescription == "CT abdomen");
  CHECK(m.accessionNumber == "ACC1");
  CHECK(m.instances == 3);
  CHECK(m.studySeries == 1);

  io::QueryKeys range;
  range.studyDate = "20240101-";
  studies = io::dimseFind(node, {}, io::QueryLevel::Study, range);
  REQUIRE(studies.ok());
  REQUIRE(studies->size() == 1);
  CHECK(studies->front().patientId == "FIND-002");
  range.studyDate = "20230101-20231231";
  studies = io::dimseFind(node, {}, io::QueryLevel::Study, range);
  REQUIRE(studies.ok());
  REQUIRE(studies->size() == 1);
  CHECK(studies->front().patientId == "FIND-001");

  io::QueryKeys byModality;
  byModality.modality = "MR";
  studies = io::dimseFind(node, {}, io::QueryLevel::Study, byModality);
  REQUIRE(studies.ok());
  REQUIRE(studies->size() == 1);
  CHECK(studies->front().studyInstanceUid == sb.studyUid);

  io::QueryKeys id;
  id.patientId = "FIND-00?";
  auto patients = io::dimseFind(node, {}, io::QueryLevel::Patient, id);
  REQUIRE(patients.ok());
  CHECK(patients->size() == 2);

  io::QueryKeys inStudy;
  inStudy.studyInstanceUid = sa.studyUid;
  auto series = io::dimseFind(node, {}, io::QueryLevel::Series, inStudy);
  REQUIRE(series.ok());
  REQUIRE(series->size() == 1);
  CHECK(series->front().seriesInstanceUid == sa.seriesUid);
  CHECK(series->front().modality == "CT");
  CHECK(series->front().instances == 3);

  inStudy.seriesInstanceUid = sa.seriesUid;
  auto instances = io::dimseFind(node, {}, io::QueryLevel::Instance, inStudy);
  REQUIRE(instances.ok());
  std::set<std::string> uids;
  for (const auto& i : *instances) uids.insert(i.sopInstanceUid);
  CHECK(uids == std::set<std::string>(sa.sopUids.begin(), sa.sopUids.end()));
  CHECK(instances->front().sopClassUid == "1.2.840.10008.5.1.4.1.1.2");

  io::QueryKeys limited;
  limited.limit = 1;
  studies = io::dimseFind(node, {}, io::QueryLevel::Study, limited);
  REQUIRE(studies.ok());
  CHECK(studies->size() == 1);

  // A UID key that is not a UID never reaches the PACS.
  io::QueryKeys hostile;
  hostile.studyInstanceUid = "1.2.3\\*";
  CHECK_FALSE(io::dimseFind(node, {}, io::QueryLevel::Series, hostile).ok());

  // An AE title the PACS does not know: its refusal is named.
  auto unknown = io::dimseFind(node, {"STRANGER"}, io::QueryLevel::Study, all);
  REQUIRE_FALSE(unknown.ok());
  CHECK(unknown.error().detail.rfind("C-FIND:", 0) == 0);
}

TEST_CASE("dimse: patient names in Latin-1, UTF-8, GB18030 and the ISO 2022 Japanese and Korean sets come back as UTF-8",
          "[pacs][dimse]") {
  if (!orthancForTests()) return;
  const auto sources = crlmSeriesFiles();
  if (sources.empty()) return;
  struct Case {
    const char* encoding;  // Orthanc's DefaultEncoding: the set of its C-FIND answers
    const char* name;      // UTF-8
  };
  const Case cases[] = {{"Latin1", "Müller^Zoë"},
                        {"Utf8", "Ωμέγα^Λάμδα"},
                        {"Chinese", "王^小明"},          // GB18030, multi-byte
                        {"JapaneseKanji", "山田^太郎"},  // ISO 2022 IR 87, code extensions
                        {"Korean", "홍^길동"}};          // ISO 2022 IR 149
  for (const Case& c : cases) {
    INFO(c.encoding);
    ScratchDir dir("dimse-charset");
    StudySpec spec;
    spec.patientId = "CHARSET";
    spec.patientName = c.name;
    spec.characterSet = "ISO_IR 192";
    spec.instances = 1;
    const MadeStudy made = makeStudy(sources, dir / "in", spec);
    OrthancOptions options = knowsUs();
    options.defaultEncoding = c.encoding;
    OrthancServer orthanc(options);
    orthanc.start();
    orthanc.upload(made.files);
    io::QueryKeys keys;
    keys.patientId = "CHARSET";
    auto found = io::dimseFind(nodeOf(orthanc), {}, io::QueryLevel::Study, keys);
    REQUIRE(found.ok());
    REQUIRE(found->size() == 1);
    CHECK(found->front().patientName == c.name);
    INFO("character set " << found->front().characterSet);
    if (std::string(c.encoding) != "Utf8") CHECK(found->front().characterSet.find("converted") != std::string::npos);
    // The name as a key, in UTF-8: the query goes out as ISO_IR 192.
    io::QueryKeys byName;
    byName.patientName = c.name;
    auto again = io::dimseFind(nodeOf(orthanc), {}, io::QueryLevel::Study, byName);
    REQUIRE(again.ok());
    CHECK(again->size() == 1);
  }
}

TEST_CASE("dimse: C-GET of a series, bit-exact pixels, owner-only, in one or four associations, resumed after a loss",
          "[pacs][dimse]") {
  if (!orthancForTests()) return;
  const auto sources = crlmSeriesFiles();
  if (sources.empty()) return;
  OrthancServer orthanc(knowsUs());
  orthanc.start();
  orthanc.upload(sources);
  const std::string study = [&] {
    io::QueryKeys k;
    auto s = io::dimseFind(nodeOf(orthanc), {}, io::QueryLevel::Study, k);
    REQUIRE(s.ok());
    REQUIRE(s->size() == 1);
    return s->front().studyInstanceUid;
  }();
  std::map<std::string, std::string> sourcePixels;
  for (const auto& f : sources) sourcePixels[sopInstanceUid(f)] = pixelBytes(f);
  ScratchDir dir("dimse-get");
  for (const int inFlight : {1, 4}) {
    INFO("in flight " << inFlight);
    const fs::path out = dir / ("get" + std::to_string(inFlight));
    io::RetrieveRequest request;
    request.studyInstanceUid = study;
    io::RetrieveOptions options;
    options.inFlight = inFlight;
    // One association into an empty folder asks for the study at once (no instance list): the progress then comes
    // from the PACS's own counts, and still runs to the end.
    struct Fractions final : core::ProgressSink {
      std::vector<double> seen;
      void report(double f, const std::string&) override { seen.push_back(f); }
      bool cancelled() const override { return false; }
    } fractions;
    auto got = io::dimseGet(nodeOf(orthanc), {}, request, out.string(), options, &fractions);
    REQUIRE(got.ok());
    REQUIRE(fractions.seen.size() >= 20);
    CHECK(fractions.seen.back() == Approx(1.0));
    CHECK(std::is_sorted(fractions.seen.begin(), fractions.seen.end()));
    CHECK(got->received == 41);
    CHECK(got->alreadyHere == 0);
    CHECK(got->failed == 0);
    CHECK(got->warnings.empty());
    REQUIRE(filesIn(out).size() == 41);
    for (const auto& [uid, pixels] : sourcePixels) {
      const fs::path file = out / (uid + ".dcm");
      REQUIRE(fs::exists(file));
      CHECK(pixelBytes(file) == pixels);
      struct stat st {};
      REQUIRE(::stat(file.c_str(), &st) == 0);
      CHECK((st.st_mode & 0777) == 0600);
    }
  }
  // Half the files lost: a second retrieve asks only for those, and nothing is duplicated.
  const fs::path out = dir / "get4";
  int removed = 0;
  for (const auto& name : filesIn(out))
    if (removed < 20 && fs::remove(out / name)) ++removed;
  io::RetrieveRequest request;
  request.studyInstanceUid = study;
  auto resumed = io::dimseGet(nodeOf(orthanc), {}, request, out.string());
  REQUIRE(resumed.ok());
  CHECK(resumed->received == 20);
  CHECK(resumed->alreadyHere == 21);
  CHECK(filesIn(out).size() == 41);
  auto nothingLeft = io::dimseGet(nodeOf(orthanc), {}, request, out.string());
  REQUIRE(nothingLeft.ok());
  CHECK(nothingLeft->received == 0);
  CHECK(nothingLeft->alreadyHere == 41);

  // A study the PACS does not hold, and a UID that would be a path.
  request.studyInstanceUid = "1.2.3.4.5.6.7";
  auto missing = io::dimseGet(nodeOf(orthanc), {}, request, (dir / "none").string());
  CHECK_FALSE(missing.ok());
  io::RetrieveOptions one;
  one.inFlight = 1;
  auto missingAtOnce = io::dimseGet(nodeOf(orthanc), {}, request, (dir / "none").string(), one);
  REQUIRE_FALSE(missingAtOnce.ok());
  CHECK(missingAtOnce.error().subject == nodeOf(orthanc).describe());
  request.studyInstanceUid = "../../etc";
  auto hostile = io::dimseGet(nodeOf(orthanc), {}, request, (dir / "none").string());
  REQUIRE_FALSE(hostile.ok());
  CHECK(hostile.error().detail.find("is not a Study Instance UID") != std::string::npos);
}

TEST_CASE("dimse: a PACS killed mid-retrieve gives a clear error, restarted, the retrieve resumes with nothing twice",
          "[pacs][dimse]") {
  if (!orthancForTests()) return;
  const auto sources = crlmSeriesFiles();
  if (sources.empty()) return;
  ScratchDir dir("dimse-kill");
  StudySpec spec;
  spec.instances = 120;
  const MadeStudy made = makeStudy(sources, dir / "in", spec);
  OrthancServer orthanc(knowsUs());
  orthanc.start();
  orthanc.upload(made.files);
  io::RetrieveRequest request;
  request.studyInstanceUid = made.studyUid;
  request.seriesInstanceUid = made.seriesUid;
  std::atomic<bool> killed{false};
  Watch watch([&](double f) {
    if (f > 0.2 && !killed.exchange(true)) orthanc.kill();
  });
  const fs::path out = dir / "out";
  io::RetrieveOptions one;
  one.inFlight = 1;
  auto broken = io::dimseGet(nodeOf(orthanc), {}, request, out.string(), one, &watch);
  REQUIRE(killed);
  REQUIRE_FALSE(broken.ok());
  CHECK(broken.error().subject == nodeOf(orthanc).describe());
  CHECK(broken.error().detail.rfind("C-GET", 0) == 0);
  const std::size_t partial = filesIn(out).size();
  CHECK(partial > 0);
  CHECK(partial < 120);
  for (const auto& name : filesIn(out)) CHECK(name.find(".tmp-") == std::string::npos);

  orthanc.start();  // the same storage: the study is still there
  auto resumed = io::dimseGet(nodeOf(orthanc), {}, request, out.string());
  REQUIRE(resumed.ok());
  CHECK(resumed->alreadyHere == static_cast<int>(partial));
  CHECK(resumed->received == 120 - static_cast<int>(partial));
  std::set<std::string> expected(made.sopUids.begin(), made.sopUids.end());
  std::set<std::string> got;
  for (const auto& name : filesIn(out)) got.insert(name.substr(0, name.size() - 4));
  CHECK(got == expected);
}

TEST_CASE("dimse: C-STORE of a SEG and an SR reaches the PACS, a file that is not DICOM is named", "[pacs][dimse]") {
  if (!orthancForTests()) return;
  auto seg = sharedFile("data/dicom-seg/highdicom/seg_image_ct_binary.dcm");
  auto sr = sharedFile("data/dicom-seg/highdicom/sr_document.dcm");
  if (!seg || !sr) return;
  OrthancServer orthanc(knowsUs());
  orthanc.start();
  auto stored = io::dimseStore(nodeOf(orthanc), {}, {seg->string(), sr->string()});
  REQUIRE(stored.ok());
  CHECK(stored->stored == 2);
  const std::string stats = orthanc.get("/statistics");
  CHECK(stats.find("\"CountInstances\" : 2") != std::string::npos);
  const std::string modalities = orthanc.get("/series?expand");
  CHECK(modalities.find("\"Modality\" : \"SEG\"") != std::string::npos);
  CHECK(modalities.find("\"Modality\" : \"SR\"") != std::string::npos);

  ScratchDir dir("dimse-store");
  writeTextFile(dir / "notes.txt", "not DICOM");
  auto refused = io::dimseStore(nodeOf(orthanc), {}, {(dir / "notes.txt").string()});
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().subject == (dir / "notes.txt").string());
  CHECK(refused.error().detail == "not a DICOM file");

  // A copy sealed at rest (as the series cache keeps files, io/base/sealed_file.h) is sent as its content.
  const std::string sealedSeg = (dir / "seg.dcm").string();
  REQUIRE(writeSealed(sealedSeg, readTextFile(*seg)).ok());
  REQUIRE(io::isSealedFile(sealedSeg));
  auto again = io::dimseStore(nodeOf(orthanc), {}, {sealedSeg});
  INFO((again ? std::string() : again.error().describe()));
  REQUIRE(again.ok());
  CHECK(again->stored == 1);
}

}  // namespace delineate::test

namespace delineate::test {

TEST_CASE("dimse: TLS to a PACS whose certificate chains to our CA works, the wrong CA is refused by name",
          "[pacs][dimse][tls]") {
  if (!orthancForTests()) return;
  const auto sources = crlmSeriesFiles();
  if (sources.empty()) return;
  ScratchDir dir("dimse-tls");
  const TestCertificates certs = makeTestCertificates(dir / "certs");
  OrthancOptions options = knowsUs();
  options.dicomTlsCertificate = certs.serverCert.string();
  options.dicomTlsKey = certs.serverKey.string();
  options.dicomTlsTrusted = certs.caCert.string();  // the clients it trusts
  options.dicomTlsRequireClientCertificate = true;
  OrthancServer orthanc(options);
  orthanc.start();
  orthanc.upload({sources.front()});
  io::DimseNode node = nodeOf(orthanc);
  node.tls.enabled = true;
  node.tls.caFile = certs.caCert.string();
  node.tls.certificateFile = certs.clientCert.string();
  node.tls.privateKeyFile = certs.clientKey.string();
  auto echo = io::dimseEcho(node, {});
  INFO(orthanc.log());
  REQUIRE(echo.ok());
  io::QueryKeys keys;
  auto found = io::dimseFind(node, {}, io::QueryLevel::Study, keys);
  REQUIRE(found.ok());
  CHECK(found->size() == 1);

  io::DimseNode wrongCa = node;
  wrongCa.tls.caFile = certs.otherCaCert.string();
  auto refused = io::dimseEcho(wrongCa, {});
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().subject == wrongCa.describe());
  CHECK(refused.error().detail.rfind("TLS:", 0) == 0);
  CHECK(refused.error().detail.find(certs.otherCaCert.string()) != std::string::npos);

  // Without TLS, a TLS-only PACS does not answer a plain association.
  io::DimseNode plain = nodeOf(orthanc);
  plain.acseTimeoutSeconds = 2;
  CHECK_FALSE(io::dimseEcho(plain, {}).ok());

  // A CA file that is not there is named as such, before any connection.
  io::DimseNode missing = node;
  missing.tls.caFile = (dir / "nope.pem").string();
  auto noFile = io::dimseEcho(missing, {});
  REQUIRE_FALSE(noFile.ok());
  CHECK(noFile.error().subject == missing.tls.caFile);
}

}  // namespace delineate::test

namespace delineate::test {

TEST_CASE("dimse: C-MOVE to our own storage SCP, resumed, and a destination the PACS does not know named",
          "[pacs][dimse][move]") {
  if (!orthancForTests()) return;
  const auto sources = crlmSeriesFiles();
  if (sources.empty()) return;
  const int ourPort = freeLoopbackPort();
  OrthancServer orthanc(knowsUs(ourPort));
  orthanc.start();
  orthanc.upload(sources);
  ScratchDir dir("dimse-move");
  auto folder = io::InstanceFolder::open((dir / "moved").string());
  REQUIRE(folder.ok());
  io::StorageScpSettings settings;
  settings.aeTitle = "DELINEATE";
  settings.port = ourPort;
  settings.bindAddress = "127.0.0.1";
  io::StorageScp::Handlers handlers;
  io::InstanceFolder* target = &*folder;
  handlers.route = [target](const std::string&, const std::string&, const std::string&) { return target; };
  auto scp = io::StorageScp::start(settings, handlers);
  REQUIRE(scp.ok());
  io::QueryKeys k;
  auto studies = io::dimseFind(nodeOf(orthanc), {}, io::QueryLevel::Study, k);
  REQUIRE(studies.ok());
  REQUIRE(studies->size() == 1);
  io::RetrieveRequest request;
  request.studyInstanceUid = studies->front().studyInstanceUid;
  // One association into the empty folder: the study asked for at once (no instance list first).
  io::RetrieveOptions one;
  one.inFlight = 1;
  auto moved = io::dimseMove(nodeOf(orthanc), {}, request, "DELINEATE", *folder, one);
  REQUIRE(moved.ok());
  CHECK(moved->received == 41);
  CHECK(moved->failed == 0);
  std::map<std::string, std::string> sourcePixels;
  for (const auto& f : sources) sourcePixels[sopInstanceUid(f)] = pixelBytes(f);
  for (const auto& [uid, pixels] : sourcePixels) CHECK(pixelBytes(dir / "moved" / (uid + ".dcm")) == pixels);

  // A few lost: only those are moved again.
  int removed = 0;
  for (const auto& name : filesIn(dir / "moved"))
    if (removed < 5 && fs::remove(dir / "moved" / name)) ++removed;
  auto reopened = io::InstanceFolder::open((dir / "moved").string());
  REQUIRE(reopened.ok());
  target = &*reopened;
  handlers.route = [&target](const std::string&, const std::string&, const std::string&) { return target; };
  (*scp)->stop();
  scp = io::StorageScp::start(settings, handlers);
  REQUIRE(scp.ok());
  auto resumed = io::dimseMove(nodeOf(orthanc), {}, request, "DELINEATE", *reopened);
  REQUIRE(resumed.ok());
  CHECK(resumed->received == 5);
  CHECK(resumed->alreadyHere == 36);
  CHECK(filesIn(dir / "moved").size() == 41);

  // A destination the PACS has no address for: its answer (0xA801) and what to do about it.
  // (With everything here nothing would be asked for: one is removed so that the PACS is asked.)
  fs::remove(dir / "moved" / *filesIn(dir / "moved").begin());
  auto again = io::InstanceFolder::open((dir / "moved").string());
  REQUIRE(again.ok());
  auto unknown = io::dimseMove(nodeOf(orthanc), {}, request, "NOBODY", *again);
  REQUIRE_FALSE(unknown.ok());
  INFO(unknown.error().describe());
  CHECK(unknown.error().detail.rfind("C-MOVE: the peer answered 0x", 0) == 0);
  CHECK(unknown.error().detail.find("NOBODY") != std::string::npos);
  CHECK(unknown.error().detail.find("list of DICOM modalities") != std::string::npos);
}

}  // namespace delineate::test

namespace delineate::test {

TEST_CASE("dimse: a study of 2,000 instances comes whole, a query of 1,000 studies lists them all, Cancel stops a "
          "retrieve and keeps what came",
          "[pacs][dimse][large]") {
  if (!orthancForTests()) return;
  const auto sources = crlmSeriesFiles();
  if (sources.empty()) return;
  ScratchDir dir("dimse-large");
  StudySpec big;
  big.instances = 2000;
  big.tiny = true;
  const MadeStudy made = makeStudy(sources, dir / "big", big);
  for (int i = 0; i < 1000; ++i) {
    StudySpec one;
    one.patientId = "MANY-" + std::to_string(i);
    one.instances = 1;
    one.tiny = true;
    makeStudy(sources, dir / "many" / std::to_string(i), one);
  }
  OrthancServer orthanc(knowsUs());
  orthanc.start();
  orthanc.storeFolder(dir / "big");
  orthanc.storeFolder(dir / "many");
  const io::DimseNode node = nodeOf(orthanc);

  io::QueryKeys many;
  many.patientId = "MANY-*";
  auto studies = io::dimseFind(node, {}, io::QueryLevel::Study, many);
  REQUIRE(studies.ok());
  CHECK(studies->size() == 1000);

  io::RetrieveRequest request;
  request.studyInstanceUid = made.studyUid;
  auto got = io::dimseGet(node, {}, request, (dir / "got").string());
  REQUIRE(got.ok());
  CHECK(got->received == 2000);
  CHECK(got->failed == 0);
  CHECK(filesIn(dir / "got").size() == 2000);

  // Cancel once a quarter has come: C-CANCEL, a Cancelled error, what came stays and a rerun completes it.
  Watch watch([](double) {});
  Watch* w = &watch;
  Watch cancelling([w](double f) {
    if (f > 0.25) w->m_cancel = true;
  });
  struct Both final : core::ProgressSink {
    Watch* report_;
    Watch* flag;
    void report(double f, const std::string& s) override { report_->report(f, s); }
    bool cancelled() const override { return flag->cancelled(); }
  } both;
  both.report_ = &cancelling;
  both.flag = &watch;
  io::RetrieveOptions one;
  one.inFlight = 1;
  auto cancelled = io::dimseGet(node, {}, request, (dir / "cancelled").string(), one, &both);
  REQUIRE_FALSE(cancelled.ok());
  CHECK(cancelled.error().code == core::ErrorCode::Cancelled);
  const std::size_t kept = filesIn(dir / "cancelled").size();
  CHECK(kept >= 500);
  CHECK(kept < 2000);
  auto rest = io::dimseGet(node, {}, request, (dir / "cancelled").string());
  REQUIRE(rest.ok());
  CHECK(rest->alreadyHere == static_cast<int>(kept));
  CHECK(filesIn(dir / "cancelled").size() == 2000);

  // A PACS that went silent mid-retrieve (SIGSTOP) and a Cancel: the retrieve ends with Cancelled within seconds,
  // not after the DIMSE timeout (two minutes here), and what came stays.
  struct Silencing final : core::ProgressSink {
    OrthancServer* pacs = nullptr;
    std::atomic<bool> stop{false};
    void report(double f, const std::string&) override {
      if (f > 0.1 && !stop.exchange(true)) pacs->suspend(true);
    }
    bool cancelled() const override { return stop; }
  } silencing;
  silencing.pacs = &orthanc;
  io::DimseNode patient = node;
  patient.dimseTimeoutSeconds = 120;
  const auto start = std::chrono::steady_clock::now();
  auto silent = io::dimseGet(patient, {}, request, (dir / "silent").string(), one, &silencing);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  orthanc.suspend(false);
  REQUIRE_FALSE(silent.ok());
  CHECK(silent.error().code == core::ErrorCode::Cancelled);
  CHECK(seconds < 60);
  CHECK_FALSE(filesIn(dir / "silent").empty());
}

}  // namespace delineate::test
