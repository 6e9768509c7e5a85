// DICOMweb (io/pacs/dicomweb_client.h) against a real Orthanc with its DICOMweb plugin: QIDO-RS, WADO-RS, STOW-RS,
// authentication, HTTPS, and the faults of issue 42 (server down, killed mid-retrieve, 1,000 studies).
#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "io/base/sealed_file.h"
#include "io/pacs/dicomweb_client.h"
#include "tests/pacs/dicomweb_fixtures.h"
#include "tests/common/sealed_files.h"
#include "tests/pacs/orthanc_server.h"
#include "tests/pacs/test_certificates.h"

namespace delineate::test {
namespace {
namespace fs = std::filesystem;
using io::QueryLevel;

const std::string kCrlmStudy = "1.3.6.1.4.1.14519.5.2.1.9203.8273.319461848560755521018609264462";
const std::string kCrlmSeries = "1.3.6.1.4.1.14519.5.2.1.9203.8273.254242588659825836950462054011";


io::DicomWebService serviceOf(const OrthancServer& orthanc) {
  io::DicomWebService s;
  s.baseUrl = orthanc.dicomWebUrl();
  s.connectTimeoutSeconds = 5;
  s.requestTimeoutSeconds = 60;
  return s;
}

std::string readBytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream b;
  b << in.rdbuf();
  return b.str();
}

std::vector<std::string> dcmFilesIn(const fs::path& folder) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(folder)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

// Each retrieved file has the bytes Orthanc holds for that instance (its REST API's /instances/{id}/file).
void checkSameAsOrthanc(const OrthancServer& orthanc, const fs::path& folder, std::size_t expected) {
  const auto list = nlohmann::json::parse(orthanc.get("/instances?expand"));
  std::size_t compared = 0;
  for (const auto& instance : list) {
    const std::string uid = instance["MainDicomTags"]["SOPInstanceUID"];
    const fs::path file = folder / (uid + ".dcm");
    if (!fs::exists(file)) continue;
    const std::string held = orthanc.get("/instances/" + instance["ID"].get<std::string>() + "/file");
    INFO(file);
    CHECK(readBytes(file) == held);
    CHECK((fs::status(file).permissions() & (fs::perms::group_all | fs::perms::others_all)) == fs::perms::none);
    ++compared;
  }
  CHECK(compared == expected);
  CHECK(dcmFilesIn(folder).size() == expected);  // nothing else: no duplicate, no leftover temporary file
}

// A sink that calls `onInstance(n)` after the n-th instance written.
class CountingSink final : public core::ProgressSink {
 public:
  std::function<void(int)> onInstance;
  void report(double fraction, const std::string& stage) override {
    if (stage == "retrieve" && fraction > 0 && fraction < 1.0 + 1e-9 && fraction != m_last) {
      m_last = fraction;
      if (onInstance) onInstance(++m_count);
    }
  }
  bool cancelled() const override { return false; }

 private:
  double m_last = 0;
  int m_count = 0;
};

}  // namespace

TEST_CASE("QIDO-RS finds studies, series and instances with wildcards, a date range and a modality",
          "[pacs][dicomweb]") {
  if (!orthancForTests()) return;
  const auto crlm = crlmSeriesFiles();
  if (crlm.empty()) return;
  OrthancServer orthanc;
  orthanc.start();
  orthanc.upload(crlm);
  ScratchDir dir("qido");
  std::vector<fs::path> tiny;
  const std::vector<std::pair<std::string, std::string>> dates = {{"20200101", "MR"}, {"20210615", "MR"},
                                                                  {"20220301", "SEG"}};
  for (std::size_t i = 0; i < dates.size(); ++i) {
    TinyInstance t;
    t.patientId = "WEBQ-" + std::to_string(i);
    t.patientName = "Query^Person" + std::to_string(i);
    t.studyDate = dates[i].first;
    t.modality = dates[i].second;
    t.studyDescription = "Study of " + t.patientId;
    tiny.push_back(dir / ("t" + std::to_string(i) + ".dcm"));
    writeTinyInstance(tiny.back(), t);
  }
  orthanc.upload(tiny);
  const auto service = serviceOf(orthanc);

  io::QueryKeys all;
  auto studies = io::dicomWebFind(service, QueryLevel::Study, all);
  REQUIRE(studies);
  CHECK(studies->size() == 4);

  io::QueryKeys wild;
  wild.patientId = "WEBQ-*";
  studies = io::dicomWebFind(service, QueryLevel::Study, wild);
  REQUIRE(studies);
  CHECK(studies->size() == 3);
  wild.patientId = "CRLM-CT-10?4";
  studies = io::dicomWebFind(service, QueryLevel::Study, wild);
  REQUIRE(studies);
  REQUIRE(studies->size() == 1);
  const io::QueryMatch& s = studies->front();
  CHECK(s.level == QueryLevel::Study);
  CHECK(s.studyInstanceUid == kCrlmStudy);
  CHECK(s.patientName == "CRLM-CT-1004");
  CHECK(s.studyDate == "19941122");
  CHECK(s.studySeries == 1);
  CHECK(s.instances == 41);
  CHECK(s.modalitiesInStudy == "CT");

  io::QueryKeys range;
  range.studyDate = "20210101-20211231";
  studies = io::dicomWebFind(service, QueryLevel::Study, range);
  REQUIRE(studies);
  REQUIRE(studies->size() == 1);
  CHECK(studies->front().patientId == "WEBQ-1");
  CHECK(studies->front().studyDescription == "Study of WEBQ-1");
  range.studyDate = "20210101-";
  studies = io::dicomWebFind(service, QueryLevel::Study, range);
  REQUIRE(studies);
  CHECK(studies->size() == 2);

  io::QueryKeys modality;
  modality.modality = "MR";
  studies = io::dicomWebFind(service, QueryLevel::Study, modality);
  REQUIRE(studies);
  CHECK(studies->size() == 2);
  auto series = io::dicomWebFind(service, QueryLevel::Series, modality);
  REQUIRE(series);
  CHECK(series->size() == 2);
  modality.modality = "CT";
  series = io::dicomWebFind(service, QueryLevel::Series, modality);
  REQUIRE(series);
  REQUIRE(series->size() == 1);
  CHECK(series->front().level == QueryLevel::Series);
  CHECK(series->front().seriesInstanceUid == kCrlmSeries);
  CHECK(series->front().modality == "CT");
  CHECK(series->front().instances == 41);

  io::QueryKeys inSeries;
  inSeries.studyInstanceUid = kCrlmStudy;
  inSeries.seriesInstanceUid = kCrlmSeries;
  auto instances = io::dicomWebFind(service, QueryLevel::Instance, inSeries);
  REQUIRE(instances);
  CHECK(instances->size() == 41);
  std::set<std::string> uids;
  for (const auto& m : *instances) {
    CHECK(m.level == QueryLevel::Instance);
    CHECK(io::isDicomUid(m.sopInstanceUid));
    CHECK(m.sopClassUid == "1.2.840.10008.5.1.4.1.1.2");
    CHECK_FALSE(m.instanceNumber.empty());
    uids.insert(m.sopInstanceUid);
  }
  CHECK(uids.size() == 41);
  inSeries.limit = 10;
  instances = io::dicomWebFind(service, QueryLevel::Instance, inSeries);
  REQUIRE(instances);
  CHECK(instances->size() == 10);

  // QIDO has no patients: studies grouped per patient.
  io::QueryKeys patients;
  patients.patientId = "WEBQ-*";
  auto found = io::dicomWebFind(service, QueryLevel::Patient, patients);
  REQUIRE(found);
  CHECK(found->size() == 3);
  CHECK(found->front().level == QueryLevel::Patient);

  // A UID that is not one never reaches a URL.
  io::QueryKeys bad;
  bad.studyInstanceUid = "../../system";
  auto refused = io::dicomWebFind(service, QueryLevel::Series, bad);
  REQUIRE_FALSE(refused);
  CHECK(refused.error().detail.find("not a DICOM UID") != std::string::npos);
}

TEST_CASE("QIDO-RS shows a patient name in ISO_IR 192 with Cyrillic and ideographic characters", "[pacs][dicomweb]") {
  if (!orthancForTests()) return;
  const auto crlm = crlmSeriesFiles();
  if (crlm.empty()) return;
  // Orthanc 1.10's DICOMweb plugin writes names through its DefaultEncoding (Latin1 unless set): a UTF-8 Orthanc.
  OrthancOptions options;
  options.defaultEncoding = "Utf8";
  OrthancServer orthanc(options);
  orthanc.start();
  ScratchDir dir("qido-utf8");
  const std::string name = "Иванов^Иван=伊万诺夫^伊万";
  writeRenamedCopy(crlm.front(), dir / "utf8.dcm", "WEB-UTF8", name, "ISO_IR 192");
  orthanc.upload({dir / "utf8.dcm"});
  io::QueryKeys keys;
  keys.patientId = "WEB-UTF8";
  for (const QueryLevel level : {QueryLevel::Study, QueryLevel::Series, QueryLevel::Instance}) {
    auto found = io::dicomWebFind(serviceOf(orthanc), level, keys);
    REQUIRE(found);
    REQUIRE(found->size() == 1);
    CHECK(found->front().patientName == name);
  }
  // (Matching on the non-Latin name itself is not tested: Orthanc 1.10 neither decodes percent-escapes in QIDO
  // values nor matches Cyrillic in its normalised name index.)
  auto found = io::dicomWebFind(serviceOf(orthanc), QueryLevel::Study, keys);
  REQUIRE(found);
  CHECK(found->front().characterSet == "ISO_IR 192");
}

TEST_CASE("WADO-RS retrieves the 41-slice CT series byte for byte with 1 and 4 requests in flight, and resumes",
          "[pacs][dicomweb]") {
  if (!orthancForTests()) return;
  const auto crlm = crlmSeriesFiles();
  if (crlm.empty()) return;
  OrthancServer orthanc;
  orthanc.start();
  orthanc.upload(crlm);
  const auto service = serviceOf(orthanc);
  ScratchDir dir("wado");
  io::RetrieveRequest request;
  request.studyInstanceUid = kCrlmStudy;
  request.seriesInstanceUid = kCrlmSeries;
  for (const int inFlight : {1, 4}) {
    DYNAMIC_SECTION("in flight: " << inFlight) {
      const fs::path folder = dir / ("f" + std::to_string(inFlight));
      io::RetrieveOptions options;
      options.inFlight = inFlight;
      auto result = io::dicomWebRetrieve(service, request, folder.string(), options);
      REQUIRE(result);
      CHECK(result->received == 41);
      CHECK(result->alreadyHere == 0);
      CHECK(result->failed == 0);
      CHECK(result->bytes > 20'000'000u);
      checkSameAsOrthanc(orthanc, folder, 41);

      // Resume: half the files gone, a retrieve fetches only those.
      auto names = dcmFilesIn(folder);
      for (std::size_t i = 0; i < names.size(); i += 2) fs::remove(folder / names[i]);
      auto again = io::dicomWebRetrieve(service, request, folder.string(), options);
      REQUIRE(again);
      CHECK(again->received == 21);
      CHECK(again->alreadyHere == 20);
      checkSameAsOrthanc(orthanc, folder, 41);
      // And nothing at all when everything is here.
      auto none = io::dicomWebRetrieve(service, request, folder.string(), options);
      REQUIRE(none);
      CHECK(none->received == 0);
      CHECK(none->alreadyHere == 41);
    }
  }
  SECTION("the whole study, and instances by UID") {
    io::RetrieveRequest study;
    study.studyInstanceUid = kCrlmStudy;
    auto result = io::dicomWebRetrieve(service, study, (dir / "study").string());
    REQUIRE(result);
    CHECK(result->received == 41);
    io::QueryKeys keys;
    keys.studyInstanceUid = kCrlmStudy;
    keys.seriesInstanceUid = kCrlmSeries;
    keys.limit = 3;
    auto three = io::dicomWebFind(service, QueryLevel::Instance, keys);
    REQUIRE(three);
    io::RetrieveRequest some = request;
    for (const auto& m : *three) some.sopInstanceUids.push_back(m.sopInstanceUid);
    auto picked = io::dicomWebRetrieve(service, some, (dir / "some").string());
    REQUIRE(picked);
    CHECK(picked->received == 3);
    CHECK(dcmFilesIn(dir / "some").size() == 3);
  }
  SECTION("a series that is not there is named") {
    io::RetrieveRequest missing = request;
    missing.seriesInstanceUid = "1.2.3.4";
    auto result = io::dicomWebRetrieve(service, missing, (dir / "missing").string());
    REQUIRE_FALSE(result);
    CHECK(result.error().detail.find("1.2.3.4") != std::string::npos);
  }
}

TEST_CASE("WADO-RS from an Orthanc killed mid-retrieve fails clearly, then resumes after its restart",
          "[pacs][dicomweb]") {
  if (!orthancForTests()) return;
  const auto crlm = crlmSeriesFiles();
  if (crlm.empty()) return;
  OrthancServer orthanc;
  orthanc.start();
  orthanc.upload(crlm);
  const auto service = serviceOf(orthanc);
  ScratchDir dir("wado-kill");
  io::RetrieveRequest request;
  request.studyInstanceUid = kCrlmStudy;
  request.seriesInstanceUid = kCrlmSeries;
  io::RetrieveOptions options;
  options.inFlight = 1;  // one series-level request: the kill cuts one long multipart answer
  CountingSink sink;
  sink.onInstance = [&](int n) {
    if (n == 3) orthanc.kill();
  };
  auto broken = io::dicomWebRetrieve(service, request, (dir / "f").string(), options, &sink);
  REQUIRE_FALSE(broken);
  INFO(broken.error().describe());
  CHECK(broken.error().subject.find(orthanc.dicomWebUrl()) == 0);
  CHECK(broken.error().detail.find("run the retrieve again to resume") != std::string::npos);
  const std::size_t before = dcmFilesIn(dir / "f").size();
  CHECK(before >= 3);
  CHECK(before < 41);

  orthanc.start();
  auto resumed = io::dicomWebRetrieve(service, request, (dir / "f").string(), options);
  REQUIRE(resumed);
  CHECK(resumed->alreadyHere == int(before));
  CHECK(resumed->received == int(41 - before));
  checkSameAsOrthanc(orthanc, dir / "f", 41);
}

TEST_CASE("STOW-RS stores a SEG, and a file that is not DICOM is refused by name", "[pacs][dicomweb]") {
  if (!orthancForTests()) return;
  const auto seg = sharedFile("data/dicom-seg/highdicom/seg_image_ct_binary.dcm");
  if (!seg) return;
  OrthancServer orthanc;
  orthanc.start();
  const auto service = serviceOf(orthanc);
  auto stored = io::dicomWebStore(service, {seg->string()});
  REQUIRE(stored);
  CHECK(stored->stored == 1);
  io::QueryKeys keys;
  keys.modality = "SEG";
  auto found = io::dicomWebFind(service, QueryLevel::Series, keys);
  REQUIRE(found);
  CHECK(found->size() == 1);

  ScratchDir dir("stow");
  writeTextFile(dir / "notes.txt", "not DICOM at all\n");
  auto refused = io::dicomWebStore(service, {seg->string(), (dir / "notes.txt").string()});
  REQUIRE_FALSE(refused);
  CHECK(refused.error().subject == (dir / "notes.txt").string());
  CHECK(refused.error().detail.find("not a DICOM file") != std::string::npos);

  // A copy sealed at rest (io/base/sealed_file.h) is sent as its content: its size and bytes, not the ciphertext's.
  const std::string sealedSeg = (dir / "seg.dcm").string();
  REQUIRE(writeSealed(sealedSeg, readTextFile(*seg)).ok());
  REQUIRE(io::isSealedFile(sealedSeg));
  auto again = io::dicomWebStore(service, {sealedSeg});
  INFO((again ? std::string() : again.error().describe()));
  REQUIRE(again);
  CHECK(again->stored == 1);
}

TEST_CASE("DICOMweb with basic authentication: the right password works, a wrong one is refused naming 401",
          "[pacs][dicomweb]") {
  if (!orthancForTests()) return;
  OrthancOptions options;
  options.httpUsers = {{"alice", "s3cret:with colon"}};
  OrthancServer orthanc(options);
  orthanc.start();
  auto service = serviceOf(orthanc);
  service.user = "alice";
  service.password = "s3cret:with colon";
  auto ok = io::dicomWebFind(service, QueryLevel::Study, {});
  REQUIRE(ok);
  CHECK(ok->empty());
  service.password = "wrong";
  auto refused = io::dicomWebFind(service, QueryLevel::Study, {});
  REQUIRE_FALSE(refused);
  INFO(refused.error().describe());
  CHECK(refused.error().detail.find("401: the user name or password was refused") == 0);
  CHECK(refused.error().subject.find(orthanc.dicomWebUrl()) == 0);
  CHECK(refused.error().describe().find("wrong") == std::string::npos);  // no password in the message
  service.user.clear();
  service.password.clear();
  refused = io::dicomWebFind(service, QueryLevel::Study, {});
  REQUIRE_FALSE(refused);
  CHECK(refused.error().detail.find("401") == 0);
}

namespace {

// tests/pacs/tls_proxy.py in front of a plain Orthanc (Orthanc's own HTTPS crashes on its first TLS connection with
// Debian's 1.10.1 on OpenSSL 3), stopped with the test. `extra`: its --client-ca / --bearer options.
struct TlsProxy {
  int port = freeLoopbackPort();
  std::string pidFile;
  TlsProxy(const ScratchDir& dir, const TestCertificates& certs, const OrthancServer& orthanc,
           const std::string& extra = {}) {
    const std::string d = dir.path().string(), tag = std::to_string(port);
    pidFile = d + "/proxy" + tag + ".pid";
    REQUIRE(runCommand("/usr/bin/python3 '" + std::string(DELINEATE_SOURCE_DIR) + "/tests/pacs/tls_proxy.py' '" +
                       certs.serverCert.string() + "' '" + certs.serverKey.string() + "' " + tag + " " +
                       std::to_string(orthanc.httpPort()) + " " + extra + " > '" + d + "/proxy" + tag +
                       ".log' 2>&1 & echo $! > '" + pidFile + "'") == 0);
    // Wait for it to listen (a connect, no request).
    for (int i = 0; i < 100; ++i) {
      std::string o;
      if (runCommand("bash -c 'exec 3<>/dev/tcp/127.0.0.1/" + tag + "'", &o) == 0) break;
      ::usleep(100000);
    }
  }
  ~TlsProxy() {
    const std::string pid = readTextFile(pidFile);
    if (std::atoi(pid.c_str()) > 0) ::kill(std::atoi(pid.c_str()), SIGTERM);
  }
  std::string url() const { return "https://127.0.0.1:" + std::to_string(port) + "/dicom-web"; }
};

}  // namespace

TEST_CASE("DICOMweb over HTTPS: verified against the right CA, refused with a wrong CA naming the verification",
          "[pacs][dicomweb]") {
  if (!orthancForTests()) return;
  ScratchDir dir("https");
  const TestCertificates certs = makeTestCertificates(dir / "certs");
  // Orthanc's own HTTPS (SslEnabled) crashes on its first TLS connection with Debian's 1.10.1 on OpenSSL 3: TLS is
  // terminated by a small proxy in front of a plain Orthanc (tests/pacs/tls_proxy.py).
  OrthancServer orthanc;
  orthanc.start();
  TlsProxy proxy(dir, certs, orthanc);
  const int port = proxy.port;
  auto service = serviceOf(orthanc);
  service.baseUrl = proxy.url();
  service.tls.caFile = certs.caCert.string();
  auto ok = io::dicomWebFind(service, QueryLevel::Study, {});
  INFO((ok ? std::string() : ok.error().describe()));
  REQUIRE(ok);
  service.tls.caFile = certs.otherCaCert.string();
  auto refused = io::dicomWebFind(service, QueryLevel::Study, {});
  REQUIRE_FALSE(refused);
  INFO(refused.error().describe());
  CHECK(refused.error().detail.find("TLS verification failed") == 0);
  CHECK(refused.error().detail.find(certs.otherCaCert.string()) != std::string::npos);
  CHECK(refused.error().subject.find("https://127.0.0.1:" + std::to_string(port) + "/dicom-web") == 0);
  // Without a CA file, the system's store: our test CA is not in it.
  service.tls.caFile.clear();
  refused = io::dicomWebFind(service, QueryLevel::Study, {});
  REQUIRE_FALSE(refused);
  CHECK(refused.error().detail.find("TLS verification failed") == 0);
}

TEST_CASE("DICOMweb over HTTPS with a client certificate and a bearer token: the right ones work, a missing or "
          "foreign certificate and a wrong token are refused by name",
          "[pacs][dicomweb]") {
  if (!orthancForTests()) return;
  const auto sources = crlmSeriesFiles();
  if (sources.empty()) return;
  ScratchDir dir("https-bearer");
  const TestCertificates certs = makeTestCertificates(dir / "certs");
  OrthancServer orthanc;
  orthanc.start();
  orthanc.upload({sources.begin(), sources.begin() + 3});
  TlsProxy proxy(dir, certs, orthanc, "--client-ca '" + certs.caCert.string() + "' --bearer s3cret-token");
  auto service = serviceOf(orthanc);
  service.baseUrl = proxy.url();
  service.tls.caFile = certs.caCert.string();
  service.tls.certificateFile = certs.clientCert.string();
  service.tls.privateKeyFile = certs.clientKey.string();
  service.bearerToken = "s3cret-token";
  // Every request carries the token (the proxy checks each one): a query, and a retrieve of several requests.
  auto found = io::dicomWebFind(service, QueryLevel::Study, {});
  INFO((found ? std::string() : found.error().describe()));
  REQUIRE(found);
  REQUIRE(found->size() == 1);
  io::RetrieveRequest request;
  request.studyInstanceUid = found->front().studyInstanceUid;
  io::RetrieveOptions options;
  options.inFlight = 3;
  auto got = io::dicomWebRetrieve(service, request, (dir / "got").string(), options);
  INFO((got ? std::string() : got.error().describe()));
  REQUIRE(got);
  CHECK(got->received == 3);

  auto wrongToken = service;
  wrongToken.bearerToken = "not-the-token";
  auto refused = io::dicomWebFind(wrongToken, QueryLevel::Study, {});
  REQUIRE_FALSE(refused);
  INFO(refused.error().describe());
  CHECK(refused.error().detail.find("401") != std::string::npos);
  CHECK(refused.error().describe().find("not-the-token") == std::string::npos);  // a secret is never printed

  auto noCertificate = service;
  noCertificate.tls.certificateFile.clear();
  noCertificate.tls.privateKeyFile.clear();
  auto anonymous = io::dicomWebFind(noCertificate, QueryLevel::Study, {});
  REQUIRE_FALSE(anonymous);
  INFO(anonymous.error().describe());
  CHECK(anonymous.error().subject.find(proxy.url()) == 0);
  // The alert, or (when the server closes first) the broken connection with what may be the reason.
  CHECK((anonymous.error().detail.find("TLS: the server requires a client certificate and none is set") !=
             std::string::npos ||
         anonymous.error().detail.find("if the server requires a client certificate: none is set") != std::string::npos));

  auto stranger = service;
  stranger.tls.certificateFile = certs.strangerCert.string();
  stranger.tls.privateKeyFile = certs.strangerKey.string();
  auto foreign = io::dicomWebFind(stranger, QueryLevel::Study, {});
  REQUIRE_FALSE(foreign);
  INFO(foreign.error().describe());
  CHECK(foreign.error().subject.find(proxy.url()) == 0);
  CHECK((foreign.error().detail.find("TLS: the server refused our client certificate " + certs.strangerCert.string()) !=
             std::string::npos ||
         foreign.error().detail.find("it may have refused ours (" + certs.strangerCert.string() + ")") !=
             std::string::npos));
}

TEST_CASE("DICOMweb to a server that is down: an error naming the URL, no hang", "[pacs][dicomweb]") {
  io::DicomWebService service;
  service.baseUrl = "http://user:pw@127.0.0.1:" + std::to_string(freeLoopbackPort()) + "/dicom-web";
  service.connectTimeoutSeconds = 3;
  auto found = io::dicomWebFind(service, QueryLevel::Study, {});
  REQUIRE_FALSE(found);
  INFO(found.error().describe());
  CHECK(found.error().subject.find("http://127.0.0.1:") == 0);  // credentials never shown
  CHECK(found.error().detail.find("cannot connect") == 0);
  ScratchDir dir("down");
  io::RetrieveRequest request;
  request.studyInstanceUid = kCrlmStudy;
  auto retrieved = io::dicomWebRetrieve(service, request, (dir / "f").string());
  REQUIRE_FALSE(retrieved);
  CHECK(retrieved.error().detail.find("cannot connect") == 0);
}

TEST_CASE("QIDO-RS of 1,000 studies returns all of them, paged", "[pacs][dicomweb]") {
  if (!orthancForTests()) return;
  OrthancServer orthanc;
  orthanc.start();
  ScratchDir dir("qido-1000");
  std::vector<fs::path> files;
  for (int i = 0; i < 1000; ++i) {
    TinyInstance t;
    t.patientId = "MANY-" + std::to_string(i);
    t.patientName = "Many^" + std::to_string(i);
    files.push_back(dir / ("m" + std::to_string(i) + ".dcm"));
    writeTinyInstance(files.back(), t);
  }
  orthanc.upload(files);
  io::QueryKeys keys;
  keys.patientId = "MANY-*";
  auto found = io::dicomWebFind(serviceOf(orthanc), QueryLevel::Study, keys);
  REQUIRE(found);
  CHECK(found->size() == 1000);
  std::set<std::string> ids;
  for (const auto& m : *found) ids.insert(m.patientId);
  CHECK(ids.size() == 1000);
  keys.limit = 750;
  found = io::dicomWebFind(serviceOf(orthanc), QueryLevel::Study, keys);
  REQUIRE(found);
  CHECK(found->size() == 750);
}

}  // namespace delineate::test
