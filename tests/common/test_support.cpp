#include "tests/common/test_support.h"

#include <catch2/catch.hpp>

#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace delineate::test {

bool runningInCi() {
  const char* ci = std::getenv("CI");
  return ci != nullptr && std::string(ci) == "true";
}

std::optional<std::filesystem::path> sharedFile(const std::string& relative) {
  const char* env = std::getenv("DELINEATE_SHARED_DIR");
  std::filesystem::path root = env ? env : DELINEATE_SOURCE_DIR "/../shared";
  std::filesystem::path p = root / relative;
  if (std::filesystem::exists(p)) return p;
  if (runningInCi()) FAIL("shared test data missing under CI: " << p);
  WARN("skipped: shared test data not found: " << p << " (set DELINEATE_SHARED_DIR)");
  return std::nullopt;
}

core::Mat3 rotationMatrix(double ax, double ay, double az) {
  core::Mat3 x, y, z;
  x.m = {1, 0, 0, 0, std::cos(ax), -std::sin(ax), 0, std::sin(ax), std::cos(ax)};
  y.m = {std::cos(ay), 0, std::sin(ay), 0, 1, 0, -std::sin(ay), 0, std::cos(ay)};
  z.m = {std::cos(az), -std::sin(az), 0, std::sin(az), std::cos(az), 0, 0, 0, 1};
  return z * y * x;
}

ScratchDir::ScratchDir(const std::string& tag) {
  // mkdtemp creates the folder exclusively: two test processes (ctest -j, or two checkouts testing at once) never
  // share one, which a name from a clock and a per-process counter did not promise.
  std::string pattern = (std::filesystem::temp_directory_path() / ("delineate-" + tag + "-XXXXXX")).string();
  if (::mkdtemp(pattern.data()) == nullptr)
    throw std::runtime_error("cannot create a scratch folder " + pattern + ": " + std::strerror(errno));
  m_path = pattern;
}

ScratchDir::~ScratchDir() {
  std::error_code ec;
  std::filesystem::remove_all(m_path, ec);
}

std::string readTextFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path.string());
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void writeTextFile(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out) throw std::runtime_error("cannot write " + path.string());
}

}  // namespace delineate::test
