#pragma once
// Small pieces the window benchmarks share: the process's memory from /proc and percentiles of timings.

#include <algorithm>
#include <cstddef>
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

}  // namespace delineate::bench
