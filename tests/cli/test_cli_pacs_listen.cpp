// `delineate-cli pacs listen` (issue 42, item 4) as a child process: DCMTK's storescu sends the CRLM CT, the series
// reaches the share's catalogue once idle; SIGKILLed in the middle of an association it publishes nothing half, and
// restarted it completes the series from its spool plus a resend, imported once.
#include <catch2/catch.hpp>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/common/test_support.h"
#include "tests/pacs/test_certificates.h"

using namespace delineate;
using namespace delineate::test;
namespace fs = std::filesystem;

#include "tests/cli/background_cli.h"
#include "tests/cli/cli_in_folder.h"

namespace {

const std::string& kStudy = kCrlmStudyUid;
const std::string& kSeries = kCrlmSeriesUid;

bool haveStorescu() {
  if (std::system("command -v storescu >/dev/null 2>&1 && command -v dcmodify >/dev/null 2>&1") == 0) return true;
  if (runningInCi()) FAIL("DCMTK's storescu/dcmodify are not installed (Debian dcmtk)");
  WARN("DCMTK's storescu/dcmodify are not installed: skipped");
  return false;
}

int freePort() {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  REQUIRE(fd >= 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
  REQUIRE(::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0);
  ::close(fd);
  return ntohs(a.sin_port);
}



int countInstanceFiles(const fs::path& folder) {
  int n = 0;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec))
    n += it->path().extension() == ".dcm" ? 1 : 0;
  return n;
}

int auditLines(const fs::path& root, const std::string& action) {
  int n = 0;
  for (const auto& e : fs::directory_iterator(root / "audit")) {
    std::istringstream in(readTextFile(e.path()));
    for (std::string line; std::getline(in, line);) {
      auto j = nlohmann::json::parse(line, nullptr, false);
      n += (!j.is_discarded() && j.value("action", "") == action) ? 1 : 0;
    }
  }
  return n;
}

}  // namespace

TEST_CASE("pacs listen: storescu sends the CT, and once idle the series is in the share's catalogue, audited",
          "[cli][pacs]") {
  auto ct = sharedFile("data/ct/tcia-crlm-ct-series/CRLM-CT-1004");
  if (!ct || !haveStorescu()) return;
  ScratchDir dir("cli-listen");
  const fs::path root = dir / "share";
  fs::create_directories(root);
  REQUIRE(cli(dir, "share init " + quoted(root.string())).exitCode == 0);
  const int port = freePort();
  BackgroundCli listener(dir, "pacs listen " + quoted(root.string()) + " --port " + std::to_string(port) + " --bind 127.0.0.1 --idle 1 --spool " +
                             quoted((dir / "spool").string()),
                    "listen");
  REQUIRE(listener.waitFor("listening as DELINEATE on 127.0.0.1:" + std::to_string(port)));

  const SplitRun sent = runProgramSplit("storescu", "-aet SCANNER -aec DELINEATE 127.0.0.1 " + std::to_string(port) +
                                                        " +sd " + quoted(ct->string()));
  INFO(sent.out << sent.err);
  CHECK(sent.exitCode == 0);
  REQUIRE(listener.waitFor("imported 41 instances"));
  const std::string out = listener.output();
  INFO(out);
  CHECK(out.find("association from \"SCANNER\" at 127.0.0.1: 41 instances, released") != std::string::npos);
  CHECK(out.find("41 instances, released") != std::string::npos);

  auto list = jsonOf(cli(dir, "study list " + quoted(root.string()) + " --json"));
  REQUIRE(list["studies"].size() == 1);
  CHECK(list["studies"][0]["study"] == kStudy);
  auto show = jsonOf(cli(dir, "study show " + quoted(root.string()) + " " + kStudy + " --json"));
  REQUIRE(show["series"].size() == 1);
  CHECK(show["series"][0]["series"] == kSeries);
  CHECK(show["series"][0]["files"] == 41);
  CHECK(auditLines(root, "receive") == 1);
  CHECK(auditLines(root, "import") == 1);
  // The spool keeps nothing of an imported series.
  CHECK(countInstanceFiles(dir / "spool") == 0);
  CHECK_FALSE(fs::exists(dir / "spool" / kStudy));

  // A wrong called AE title: rejected, said and audited.
  const SplitRun wrong = runProgramSplit("storescu", "-aet SCANNER -aec NOTUS 127.0.0.1 " + std::to_string(port) + " " +
                                                         quoted((*ct / "1-01.dcm").string()));
  CHECK(wrong.exitCode != 0);
  CHECK(listener.waitFor("rejected: called AE title not recognised"));
  CHECK(listener.kill(SIGINT) == 0);
  CHECK(listener.output().find("stopped: 0 series left in the spool") != std::string::npos);
  CHECK(auditLines(root, "receive") == 2);
}

TEST_CASE("pacs listen SIGKILLed mid-association publishes no half series, and restarted, spool plus resend import it once",
          "[cli][pacs]") {
  auto ct = sharedFile("data/ct/tcia-crlm-ct-series/CRLM-CT-1004");
  if (!ct || !haveStorescu()) return;
  ScratchDir dir("cli-listen-kill");
  const fs::path root = dir / "share";
  fs::create_directories(root);
  REQUIRE(cli(dir, "share init " + quoted(root.string())).exitCode == 0);

  // 328 instances of one series: the CT's 41 files eight times, each copy with a new SOP Instance UID.
  const fs::path big = dir / "big";
  fs::create_directories(big);
  int n = 0;
  for (int copy = 0; copy < 8; ++copy)
    for (const auto& e : fs::directory_iterator(*ct))
      if (e.path().extension() == ".dcm") {
        const fs::path to = big / (std::to_string(n++) + ".dcm");
        fs::copy_file(e.path(), to);
        fs::permissions(to, fs::perms::owner_read | fs::perms::owner_write);
      }
  REQUIRE(n == 328);
  const Run modified = runShell("cd " + quoted(big.string()) + " && dcmodify -nb -gin *.dcm 2>&1");
  INFO(modified.out);
  REQUIRE(modified.exitCode == 0);

  const fs::path spool = dir / "spool";
  const int port = freePort();
  const std::string args = quoted(root.string()) + " --port " + std::to_string(port) +
                           " --bind 127.0.0.1 --idle 3 --json --spool " + quoted(spool.string());
  const std::string send = "storescu -aet SCANNER -aec DELINEATE 127.0.0.1 " + std::to_string(port) + " +sd " +
                           quoted(big.string());
  {
    BackgroundCli first(dir, "pacs listen " + args, "first");
    REQUIRE(first.waitFor("\"event\":\"listening\""));
    std::thread sender([&] { runShell(send + " >/dev/null 2>&1"); });
    // Killed once part of the series is spooled, while storescu is still sending.
    const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (countInstanceFiles(spool) < 60 && std::chrono::steady_clock::now() < end)
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    CHECK(first.kill(SIGKILL) == 128 + SIGKILL);
    sender.join();
  }
  const int spooled = countInstanceFiles(spool);
  INFO("spooled before the kill: " << spooled);
  CHECK(spooled >= 60);
  CHECK(spooled < 328);
  // Nothing on the share: no study listed, no series folder with a manifest.
  auto list = jsonOf(cli(dir, "study list " + quoted(root.string()) + " --json"));
  CHECK(list["studies"].empty());
  CHECK(auditLines(root, "import") == 0);

  BackgroundCli second(dir, "pacs listen " + args, "second");
  REQUIRE(second.waitFor("\"event\":\"listening\""));
  const auto started = jsonLines(second.output());
  REQUIRE_FALSE(started.empty());
  CHECK(started[0]["resumedSeries"] == 1);
  const Run resent = runShell(send + " 2>&1");
  INFO(resent.out);
  CHECK(resent.exitCode == 0);
  REQUIRE(second.waitFor("\"event\":\"series\"", 120));
  CHECK(second.kill(SIGTERM) == 0);
  int seriesEvents = 0;
  for (const auto& e : jsonLines(second.output())) {
    if (e["event"] == "association") {
      CHECK(e["accepted"] == true);
      CHECK(e["instances"] == 328);
      CHECK(e["reason"] == "released");
    }
    if (e["event"] != "series") continue;
    ++seriesEvents;
    CHECK(e["imported"] == true);
    CHECK(e["instances"] == 328);
    REQUIRE(e["series"].size() == 1);
    CHECK(e["series"][0]["files"] == 328);
    CHECK(e["series"][0]["importedBefore"] == false);
  }
  CHECK(seriesEvents == 1);
  auto show = jsonOf(cli(dir, "study show " + quoted(root.string()) + " " + kStudy + " --json"));
  REQUIRE(show["series"].size() == 1);
  CHECK(show["series"][0]["files"] == 328);
  CHECK(auditLines(root, "import") == 1);
  CHECK(countInstanceFiles(root / "studies" / kStudy) == 328);  // on the share once each
  CHECK(countInstanceFiles(spool) == 0);
}

TEST_CASE("pacs listen over TLS with client certificates and de-identification: our CA's sender is imported under "
          "pseudonyms, a sender without TLS or with a foreign certificate is refused",
          "[cli][pacs]") {
  auto ct = sharedFile("data/ct/tcia-crlm-ct-series/CRLM-CT-1004");
  if (!ct || !haveStorescu()) return;
  ScratchDir dir("cli-listen-tls");
  const TestCertificates certs = makeTestCertificates(dir / "certs");
  const fs::path root = dir / "share";
  fs::create_directories(root);
  REQUIRE(cli(dir, "share init " + quoted(root.string())).exitCode == 0);
  const fs::path key = dir / "pseudonym.key";
  writeTextFile(key, "0123456789abcdef0123456789abcdef");
  fs::permissions(key, fs::perms::owner_read | fs::perms::owner_write);
  const int port = freePort();
  BackgroundCli listener(dir,
                    "pacs listen " + quoted(root.string()) + " --port " + std::to_string(port) + " --bind 127.0.0.1 --idle 1 --spool " +
                        quoted((dir / "spool").string()) + " --tls --cert " + quoted(certs.serverCert.string()) +
                        " --key " + quoted(certs.serverKey.string()) + " --ca " + quoted(certs.caCert.string()) +
                        " --deidentify --key-file " + quoted(key.string()),
                    "listen");
  REQUIRE(listener.waitFor("listening as DELINEATE on 127.0.0.1:" + std::to_string(port)));
  const std::string target = " -aet SCANNER -aec DELINEATE 127.0.0.1 " + std::to_string(port) + " ";

  // Without TLS, and with a certificate our CA did not sign: refused, nothing imported.
  const SplitRun plain = runProgramSplit("storescu", target + quoted((*ct / "1-01.dcm").string()));
  CHECK(plain.exitCode != 0);
  const SplitRun foreign = runProgramSplit(
      "storescu", "+tls " + quoted(certs.strangerKey.string()) + " " + quoted(certs.strangerCert.string()) + " +cf " +
                      quoted(certs.caCert.string()) + target + quoted((*ct / "1-01.dcm").string()));
  INFO(foreign.out << foreign.err);
  CHECK(foreign.exitCode != 0);

  // Our CA's client: the whole series, de-identified on its way into the share.
  const SplitRun sent = runProgramSplit(
      "storescu", "+tls " + quoted(certs.clientKey.string()) + " " + quoted(certs.clientCert.string()) + " +cf " +
                      quoted(certs.caCert.string()) + target + "+sd " + quoted(ct->string()));
  INFO(sent.out << sent.err);
  CHECK(sent.exitCode == 0);
  REQUIRE(listener.waitFor("imported 41 instances"));
  CHECK(listener.kill(SIGINT) == 0);
  INFO(listener.output());

  auto list = jsonOf(cli(dir, "study list " + quoted(root.string()) + " --json"));
  REQUIRE(list["studies"].size() == 1);
  const std::string study = list["studies"][0]["study"];
  CHECK(study != kStudy);  // named by its pseudonym UID
  int files = 0;
  for (const auto& e : fs::recursive_directory_iterator(root / "studies" / study)) {
    if (!e.is_regular_file()) continue;
    const std::string bytes = readTextFile(e.path());
    INFO(e.path().string());
    CHECK(bytes.find("CRLM-CT-1004") == std::string::npos);  // the patient's name and ID
    CHECK(bytes.find(kStudy) == std::string::npos);
    ++files;
  }
  CHECK(files >= 41);
  CHECK(auditLines(root, "receive") >= 1);
}
