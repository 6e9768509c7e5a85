#pragma once
// Small pieces the benchmarks share: the process's memory from /proc, percentiles of timings, and a command run as a
// whole process with its wall time and peak RSS.

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

namespace delineate::bench {

// A /proc/self/status field in bytes ("VmRSS:", "VmHWM:").
inline std::size_t statusBytes(const char* key) {
  std::ifstream f("/proc/self/status");
  std::string line;
  const std::string k = key;
  while (std::getline(f, line))
    if (line.rfind(k, 0) == 0) return static_cast<std::size_t>(std::atoll(line.c_str() + k.size())) * 1024;
  return 0;
}

// The q-quantile (0..1) of `v`, nearest rank below; 0 for none.
inline double percentile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[static_cast<std::size_t>(q * static_cast<double>(v.size() - 1))];
}

// What one command cost as a whole process: wall time, peak RSS (from wait4) and exit status (128: killed).
struct ProcessOutcome {
  double seconds = 0;
  long peakMb = 0;
  int status = -1;
};

// Runs `command` through /bin/sh in a child, its stdout and stderr to `logPath`.
inline ProcessOutcome runProcess(const std::string& command, const std::string& logPath) {
  std::fflush(stdout);
  const auto start = std::chrono::steady_clock::now();
  const pid_t pid = fork();
  if (pid == 0) {
    const std::string line = command + " >'" + logPath + "' 2>&1";
    execl("/bin/sh", "sh", "-c", line.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  ProcessOutcome o;
  int status = 0;
  struct rusage usage {};
  if (pid > 0 && wait4(pid, &status, 0, &usage) == pid) {
    o.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    o.peakMb = usage.ru_maxrss / 1024;
    o.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128;
  }
  return o;
}

}  // namespace delineate::bench
