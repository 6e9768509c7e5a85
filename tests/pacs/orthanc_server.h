#pragma once
// A real Orthanc PACS (Debian's orthanc + orthanc-dicomweb) for the pacs suite: each instance has its own
// configuration, storage folder and free loopback ports, is started by the test and stopped (or killed) by it.

#include <sys/types.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "io/pacs/pacs_types.h"
#include "tests/common/test_support.h"

namespace delineate::test {

// A loopback port nobody listens on right now (bound and released: a small window, fine on a test machine).
int freeLoopbackPort();

struct OrthancOptions {
  std::string aeTitle = "ORTHANC";
  // DICOM modalities Orthanc knows (name -> AE title, port on 127.0.0.1): C-FIND/C-GET/C-MOVE from an AE that is
  // not listed are refused, and C-MOVE destinations must be listed.
  std::map<std::string, std::pair<std::string, int>> modalities;
  // HTTP basic users (user -> password); none: no authentication.
  std::map<std::string, std::string> httpUsers;
  // "Latin1", "Utf8", "Japanese", "Chinese", ...: the character set of Orthanc's C-FIND answers.
  std::string defaultEncoding;
  // DICOM TLS (PEM files); empty certificate: plain DIMSE.
  std::string dicomTlsCertificate, dicomTlsKey, dicomTlsTrusted;
  bool dicomTlsRequireClientCertificate = false;
  // HTTPS: one PEM holding certificate and key; empty: plain HTTP.
  std::string httpsCertificateAndKey;
  // Storage commitment etc. are not needed; anything else goes in here verbatim (a JSON object's members).
  std::string extraJson;
};

class OrthancServer {
 public:
  explicit OrthancServer(OrthancOptions options = {});
  ~OrthancServer();
  OrthancServer(const OrthancServer&) = delete;
  OrthancServer& operator=(const OrthancServer&) = delete;

  // Whether Debian's Orthanc is installed; tests skip (fail under CI) without it.
  static bool available();

  void start();                // throws std::runtime_error with the log's tail when it does not come up
  void stop();                 // SIGTERM and wait
  void kill();                 // SIGKILL now (a PACS dying mid-transfer)
  void suspend(bool stopped);  // SIGSTOP / SIGCONT (a PACS that stops answering)
  bool running() const { return m_pid > 0; }

  int dicomPort() const { return m_dicomPort; }
  int httpPort() const { return m_httpPort; }
  const std::string& aeTitle() const { return m_options.aeTitle; }
  std::string httpUrl() const;  // "http://127.0.0.1:PORT" (https with TLS)
  std::string dicomWebUrl() const { return httpUrl() + "/dicom-web"; }
  const std::filesystem::path& folder() const { return m_dir.path(); }

  // Stores files through Orthanc's REST API (POST /instances), one request per file; throws on a refused file.
  void upload(const std::vector<std::filesystem::path>& files) const;
  // Stores a folder's files over DIMSE with DCMTK's storescu in one association (much faster than REST for
  // thousands of files; plain DIMSE only); throws on failure.
  void storeFolder(const std::filesystem::path& folder) const;
  // GET on the REST API (as the first HTTP user when there are users), the body; throws on a non-2xx answer.
  std::string get(const std::string& path) const;
  // POST on the REST API with `body` (as get), the answer's body; throws on a non-2xx answer.
  std::string post(const std::string& path, const std::string& body) const;
  // The log so far (for failure messages).
  std::string log() const;

 private:
  std::string curlAuthArgs() const;

  OrthancOptions m_options;
  ScratchDir m_dir;
  std::filesystem::path m_db;  // Orthanc's storage and index
  int m_dicomPort = 0, m_httpPort = 0;
  pid_t m_pid = -1;
};

// An Orthanc that knows us: AE title DELINEATE at 127.0.0.1:ourPort among its modalities (C-FIND, C-GET and C-MOVE
// from an AE it does not list are refused), as a hospital's PACS knows its workstations.
OrthancOptions knowsUs(int ourPort = 11112);
// The DIMSE peer for `o` on loopback, with short timeouts (a test's failure comes quickly).
io::DimseNode nodeOf(const OrthancServer& o);

// Whether Orthanc is installed: false after a warning (the test then returns, skipped), and a failed test under CI,
// where it must be (scripts/setup.sh installs it).
bool orthancForTests();

// The shared 41-slice TCIA CRLM CT series' files (skips the test where ../shared is absent, fails under CI).
std::vector<std::filesystem::path> crlmSeriesFiles();

// Runs a shell command, returning its exit status and (stdout+stderr) output.
int runCommand(const std::string& command, std::string* output = nullptr);

}  // namespace delineate::test
