#pragma once
// A small HTTP server on loopback for download tests (tests/cli/http_range_server.py: byte ranges, a connection
// broken mid-file, 404), killed when the test ends; and a file of random bytes to serve.
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <thread>

#include "io/base/sha256.h"
#include "tests/common/test_support.h"

namespace delineate::test {

inline std::string rangeServerQuoted(const std::string& s) { return "'" + s + "'"; }

// The range server, killed when the test ends.
class RangeServer {
 public:
  RangeServer(const ScratchDir& dir, const std::filesystem::path& folder, const std::string& options,
              const std::string& tag)
      : m_log(dir / (tag + ".log")) {
    const std::filesystem::path out = dir / (tag + ".out");
    m_pid = ::fork();
    REQUIRE(m_pid >= 0);
    if (m_pid == 0) {
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      const std::string script = std::string(DELINEATE_SOURCE_DIR) + "/tests/cli/http_range_server.py";
      const std::string line = "exec python3 " + rangeServerQuoted(script) + " " + rangeServerQuoted(folder.string()) +
                               " --log " + rangeServerQuoted(m_log.string()) + " " + options + " >" +
                               rangeServerQuoted(out.string()) + " 2>&1";
      ::execl("/bin/sh", "sh", "-c", line.c_str(), static_cast<char*>(nullptr));
      ::_exit(127);
    }
    for (int i = 0; i < 200 && m_port == 0; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      std::ifstream in(out);
      std::string first;
      if (std::getline(in, first) && !first.empty() && first.back() != '\r') m_port = std::atoi(first.c_str());
    }
    REQUIRE(m_port > 0);
  }
  ~RangeServer() {
    ::kill(m_pid, SIGKILL);
    ::waitpid(m_pid, nullptr, 0);
  }
  std::string url(const std::string& name) const { return "http://127.0.0.1:" + std::to_string(m_port) + "/" + name; }
  std::string log() const { return std::filesystem::exists(m_log) ? readTextFile(m_log) : std::string(); }

 private:
  std::filesystem::path m_log;
  pid_t m_pid = -1;
  int m_port = 0;
};

// `size` random bytes (from `seed`) written to `path`; their SHA-256.
inline std::string writeRandomFile(const std::filesystem::path& path, std::size_t size, unsigned seed) {
  std::mt19937 rng(seed);
  std::string bytes(size, '\0');
  for (char& c : bytes) c = static_cast<char>(rng() & 0xff);
  std::ofstream(path, std::ios::binary) << bytes;
  return io::sha256Hex(bytes.data(), bytes.size());
}

}  // namespace delineate::test
