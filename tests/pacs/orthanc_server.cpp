#include "tests/pacs/orthanc_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include <catch2/catch.hpp>


namespace delineate::test {
namespace fs = std::filesystem;

namespace {
constexpr const char* kOrthanc = "/usr/sbin/Orthanc";
constexpr const char* kDicomWebPlugin = "/usr/share/orthanc/plugins/libOrthancDicomWeb.so";

std::string jsonString(const std::string& s) {
  std::string out = "\"";
  for (const char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

bool portAnswers(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<std::uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  const bool ok = ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
  ::close(fd);
  return ok;
}
}  // namespace

int freeLoopbackPort() {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) throw std::runtime_error("socket() failed");
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = 0;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
    ::close(fd);
    throw std::runtime_error("cannot find a free port");
  }
  ::close(fd);
  return ntohs(a.sin_port);
}

int runCommand(const std::string& command, std::string* output) {
  FILE* p = ::popen((command + " 2>&1").c_str(), "r");
  if (!p) return -1;
  std::string out;
  char buffer[4096];
  std::size_t n;
  while ((n = std::fread(buffer, 1, sizeof buffer, p)) > 0) out.append(buffer, n);
  const int status = ::pclose(p);
  if (output) *output = out;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

bool OrthancServer::available() { return fs::exists(kOrthanc) && fs::exists(kDicomWebPlugin); }

OrthancServer::OrthancServer(OrthancOptions options) : m_options(std::move(options)), m_dir("orthanc") {
  m_db = m_dir.path() / "db";
  m_dicomPort = freeLoopbackPort();
  m_httpPort = freeLoopbackPort();
  while (m_httpPort == m_dicomPort) m_httpPort = freeLoopbackPort();
  std::ostringstream cfg;
  cfg << "{\n  \"Name\": \"delineate-test\",\n"
      << "  \"StorageDirectory\": " << jsonString(m_db.string()) << ",\n"
      << "  \"IndexDirectory\": " << jsonString(m_db.string()) << ",\n"
      << "  \"HttpPort\": " << m_httpPort << ", \"DicomPort\": " << m_dicomPort << ",\n"
      << "  \"DicomAet\": " << jsonString(m_options.aeTitle) << ",\n"
      << "  \"RemoteAccessAllowed\": false,\n"
      << "  \"HttpCompressionEnabled\": false,\n"
      << "  \"Plugins\": [" << jsonString(kDicomWebPlugin) << "],\n"
      << "  \"DicomWeb\": {\"Enable\": true, \"Root\": \"/dicom-web/\"},\n";
  if (!m_options.defaultEncoding.empty()) cfg << "  \"DefaultEncoding\": " << jsonString(m_options.defaultEncoding) << ",\n";
  cfg << "  \"DicomModalities\": {";
  bool first = true;
  for (const auto& [name, ae] : m_options.modalities) {
    cfg << (first ? "" : ", ") << jsonString(name) << ": [" << jsonString(ae.first) << ", \"127.0.0.1\", " << ae.second
        << "]";
    first = false;
  }
  cfg << "},\n";
  if (m_options.httpUsers.empty()) {
    cfg << "  \"AuthenticationEnabled\": false,\n";
  } else {
    cfg << "  \"AuthenticationEnabled\": true, \"RegisteredUsers\": {";
    first = true;
    for (const auto& [user, password] : m_options.httpUsers) {
      cfg << (first ? "" : ", ") << jsonString(user) << ": " << jsonString(password);
      first = false;
    }
    cfg << "},\n";
  }
  if (!m_options.dicomTlsCertificate.empty()) {
    cfg << "  \"DicomTlsEnabled\": true,\n"
        << "  \"DicomTlsCertificate\": " << jsonString(m_options.dicomTlsCertificate) << ",\n"
        << "  \"DicomTlsPrivateKey\": " << jsonString(m_options.dicomTlsKey) << ",\n"
        << "  \"DicomTlsTrustedCertificates\": " << jsonString(m_options.dicomTlsTrusted) << ",\n"
        << "  \"DicomTlsRemoteCertificateRequired\": "
        << (m_options.dicomTlsRequireClientCertificate ? "true" : "false") << ",\n";
  }
  if (!m_options.httpsCertificateAndKey.empty())
    cfg << "  \"SslEnabled\": true, \"SslCertificate\": " << jsonString(m_options.httpsCertificateAndKey) << ",\n";
  if (!m_options.extraJson.empty()) cfg << "  " << m_options.extraJson << ",\n";
  cfg << "  \"DicomAlwaysAllowEcho\": true\n}\n";
  writeTextFile(m_dir.path() / "orthanc.json", cfg.str());
}

OrthancServer::~OrthancServer() {
  // Killed rather than stopped: a graceful stop takes Orthanc about 3 s, and its storage is thrown away anyway.
  kill();
}

void OrthancServer::start() {
  if (m_pid > 0) return;
  const std::string logPath = (m_dir.path() / "orthanc.log").string();
  const std::string cfgPath = (m_dir.path() / "orthanc.json").string();
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // never outlive the test
    const int fd = ::open(logPath.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0600);
    if (fd >= 0) {
      ::dup2(fd, 1);
      ::dup2(fd, 2);
    }
    // Orthanc's DIMSE runs on DCMTK, which leaves Nagle's algorithm on unless told: each small answer then waits for
    // our delayed ACK (40 ms), and the tests' 3,000 instances took minutes to store and list. A PACS tuned as this
    // one is; bench_pacs.sh measures an untuned one.
    ::setenv("TCP_NODELAY", "1", 1);
    ::execl(kOrthanc, kOrthanc, cfgPath.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  m_pid = pid;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (std::chrono::steady_clock::now() < deadline) {
    int status = 0;
    if (::waitpid(m_pid, &status, WNOHANG) == m_pid) {
      m_pid = -1;
      throw std::runtime_error("Orthanc exited at start:\n" + log());
    }
    if (portAnswers(m_httpPort) && portAnswers(m_dicomPort)) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  kill();
  throw std::runtime_error("Orthanc did not start within 30 s:\n" + log());
}

void OrthancServer::stop() {
  if (m_pid <= 0) return;
  ::kill(m_pid, SIGTERM);
  for (int i = 0; i < 500; ++i) {
    if (::waitpid(m_pid, nullptr, WNOHANG) == m_pid) {
      m_pid = -1;
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  kill();
}

void OrthancServer::kill() {
  if (m_pid <= 0) return;
  ::kill(m_pid, SIGKILL);
  ::waitpid(m_pid, nullptr, 0);
  m_pid = -1;
}

void OrthancServer::suspend(bool stopped) {
  if (m_pid > 0) ::kill(m_pid, stopped ? SIGSTOP : SIGCONT);
}

std::string OrthancServer::httpUrl() const {
  return std::string(m_options.httpsCertificateAndKey.empty() ? "http" : "https") + "://127.0.0.1:" +
         std::to_string(m_httpPort);
}

std::string OrthancServer::curlAuthArgs() const {
  std::string args = m_options.httpsCertificateAndKey.empty() ? "" : " -k";
  if (!m_options.httpUsers.empty())
    args += " -u '" + m_options.httpUsers.begin()->first + ":" + m_options.httpUsers.begin()->second + "'";
  return args;
}

void OrthancServer::upload(const std::vector<fs::path>& files) const {
  // One curl process for many files (-Z: in parallel), each its own POST (--next: options apply per request).
  for (std::size_t start = 0; start < files.size(); start += 200) {
    std::string command = "curl -Z --parallel-max 4";
    for (std::size_t i = start; i < std::min(files.size(), start + 200); ++i)
      command += std::string(i == start ? "" : " --next") + " -sS -f" + curlAuthArgs() + " --data-binary @'" +
                 files[i].string() + "' " + httpUrl() + "/instances -o /dev/null";
    std::string out;
    if (runCommand(command, &out) != 0) throw std::runtime_error("upload to Orthanc failed: " + out + "\n" + log());
  }
}

void OrthancServer::storeFolder(const fs::path& folder) const {
  std::string out;
  const std::string command = "TCP_NODELAY=1 storescu -aet LOADER -aec " + m_options.aeTitle + " +sd +r 127.0.0.1 " +
                              std::to_string(m_dicomPort) + " '" + folder.string() + "'";
  if (runCommand(command, &out) != 0) throw std::runtime_error("storescu to Orthanc failed: " + out + "\n" + log());
}

std::string OrthancServer::get(const std::string& path) const {
  std::string out;
  if (runCommand("curl -sS -f" + curlAuthArgs() + " '" + httpUrl() + path + "'", &out) != 0)
    throw std::runtime_error("GET " + path + " failed: " + out);
  return out;
}

std::string OrthancServer::post(const std::string& path, const std::string& body) const {
  // The body through a file: it may hold anything a shell would read.
  const fs::path bodyFile = m_dir.path() / "post-body";
  writeTextFile(bodyFile, body);
  std::string out;
  if (runCommand("curl -sS -f" + curlAuthArgs() + " -X POST --data-binary @'" + bodyFile.string() + "' '" + httpUrl() +
                     path + "'",
                 &out) != 0)
    throw std::runtime_error("POST " + path + " failed: " + out + "\n" + log());
  return out;
}

std::string OrthancServer::log() const {
  std::string text;
  std::ifstream in(m_dir.path() / "orthanc.log");
  std::stringstream b;
  b << in.rdbuf();
  text = b.str();
  return text.size() > 4000 ? text.substr(text.size() - 4000) : text;
}

OrthancOptions knowsUs(int ourPort) {
  OrthancOptions o;
  o.modalities["delineate"] = {"DELINEATE", ourPort};
  return o;
}

io::DimseNode nodeOf(const OrthancServer& o) {
  io::DimseNode n;
  n.aeTitle = o.aeTitle();
  n.host = "127.0.0.1";
  n.port = o.dicomPort();
  n.connectTimeoutSeconds = 5;
  n.acseTimeoutSeconds = 10;
  n.dimseTimeoutSeconds = 20;
  return n;
}

bool orthancForTests() {
  if (OrthancServer::available()) return true;
  if (runningInCi()) FAIL("Orthanc (Debian orthanc, orthanc-dicomweb) is not installed: run scripts/setup.sh");
  WARN("Orthanc is not installed: skipped");
  return false;
}

std::vector<fs::path> crlmSeriesFiles() {
  auto dir = sharedFile("data/ct/tcia-crlm-ct-series/CRLM-CT-1004");
  if (!dir) return {};
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(*dir))
    if (e.path().extension() == ".dcm") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace delineate::test
