#pragma once
// A delineate-cli command run in the background by a test, killed when the test ends.

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/common/test_support.h"

namespace delineate::test {

// A delineate-cli command in the background (`pacs listen`, `batch --watch`): its stdout and stderr in files, read
// as they grow; its local index and cache in the test's folder.
class BackgroundCli {
 public:
  // `cacheFolder`: the XDG cache under `dir` (two of them stand for two machines).
  BackgroundCli(const ScratchDir& dir, const std::string& args, const std::string& name,
                const std::string& cacheFolder = "cache")
      : m_out(dir / (name + ".out")), m_err(dir / (name + ".err")) {
    const std::filesystem::path& err = m_err;
    const std::string cache = (dir / cacheFolder).string();
    m_pid = ::fork();
    REQUIRE(m_pid >= 0);
    if (m_pid == 0) {
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // never outlive the test
      ::setenv("XDG_CACHE_HOME", cache.c_str(), 1);
      const std::string line = "exec '" + std::string(DELINEATE_CLI_PATH) + "' " + args + " >'" +
                               m_out.string() + "' 2>'" + err.string() + "'";
      ::execl("/bin/sh", "sh", "-c", line.c_str(), static_cast<char*>(nullptr));
      ::_exit(127);
    }
  }
  ~BackgroundCli() { kill(SIGKILL); }

  std::string output() const { return readTextFile(m_out); }
  std::string errors() const { return std::filesystem::exists(m_err) ? readTextFile(m_err) : std::string(); }
  // Waits (up to `seconds`) for stdout to hold `text`.
  bool waitFor(const std::string& text, int seconds = 30) const {
    const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
    while (std::chrono::steady_clock::now() < end) {
      if (std::filesystem::exists(m_out) && output().find(text) != std::string::npos) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return false;
  }
  // Sends `signal` and waits for the end (SIGKILL after 20 s); the exit code, or 128 + the signal that ended it.
  int kill(int signal) {
    if (m_pid <= 0) return -1;
    ::kill(m_pid, signal);
    int status = 0;
    for (int i = 0; i < 400; ++i) {
      if (::waitpid(m_pid, &status, WNOHANG) == m_pid) {
        m_pid = -1;
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    ::kill(m_pid, SIGKILL);
    ::waitpid(m_pid, &status, 0);
    m_pid = -1;
    return -1;
  }

 private:
  std::filesystem::path m_out, m_err;
  pid_t m_pid = -1;
};

inline std::vector<nlohmann::json> jsonLines(const std::string& text) {
  std::vector<nlohmann::json> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    auto j = nlohmann::json::parse(line, nullptr, false);
    if (!j.is_discarded()) out.push_back(j);
  }
  return out;
}


}  // namespace delineate::test
