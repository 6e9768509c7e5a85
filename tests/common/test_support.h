#pragma once
// Helpers shared by the suites: locating ../shared data, scratch folders.

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>

#include "core/geometry.h"

namespace delineate::test {

// DELINEATE_SHARED_DIR (set by CTest from the CMake cache variable) joined with `relative`. When the file is missing
// the test is skipped with a warning, except under CI (CI=true), where missing data fails the test.
std::optional<std::filesystem::path> sharedFile(const std::string& relative);
// Use as: auto p = sharedFile("data/labels/x.txt"); if (!p) return;

bool runningInCi();

// Rotation by ax, ay, az radians about x, then y, then z: oblique direction matrices for geometry tests.
core::Mat3 rotationMatrix(double ax, double ay, double az);

// A fresh, empty folder under the system temp dir, removed when the object dies.
class ScratchDir {
 public:
  explicit ScratchDir(const std::string& tag);
  ~ScratchDir();
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::filesystem::path& path() const { return m_path; }
  std::filesystem::path operator/(const std::string& name) const { return m_path / name; }

 private:
  std::filesystem::path m_path;
};

// Sets an environment variable for a scope (keys, pins and caches are found through it, as in a user's session).
class EnvScope {
 public:
  EnvScope(const char* name, const std::string& value) : m_name(name) {
    if (const char* old = std::getenv(name)) m_old = old;
    ::setenv(name, value.c_str(), 1);
  }
  ~EnvScope() {
    if (m_old) ::setenv(m_name, m_old->c_str(), 1);
    else ::unsetenv(m_name);
  }
  EnvScope(const EnvScope&) = delete;
  EnvScope& operator=(const EnvScope&) = delete;

 private:
  const char* m_name;
  std::optional<std::string> m_old;
};

std::string readTextFile(const std::filesystem::path& path);
void writeTextFile(const std::filesystem::path& path, const std::string& text);

}  // namespace delineate::test
