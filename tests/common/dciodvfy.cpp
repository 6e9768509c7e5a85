#include "tests/common/dciodvfy.h"

#include <catch2/catch.hpp>

#include <cstdio>
#include <sstream>

#include "tests/common/test_support.h"

namespace delineate::test {

std::string runCommand(const std::string& command, int* status) {
  std::string out;
  FILE* p = popen((command + " 2>&1").c_str(), "r");
  REQUIRE(p != nullptr);
  char buf[4096];
  while (std::fgets(buf, sizeof buf, p) != nullptr) out += buf;
  *status = pclose(p);
  return out;
}

std::optional<DciodvfyReport> runDciodvfy(const std::filesystem::path& file,
                                          const std::vector<std::string>& acceptedWarnings,
                                          const std::vector<std::string>& acceptedErrors) {
  int status = 0;
  runCommand("command -v dciodvfy", &status);
  if (status != 0) {
    if (runningInCi()) FAIL("dciodvfy (dicom3tools) is missing under CI: scripts/setup.sh installs it");
    WARN("skipped: dciodvfy (dicom3tools) not installed");
    return std::nullopt;
  }
  DciodvfyReport report;
  report.output = runCommand("dciodvfy '" + file.string() + "'", &status);
  auto listed = [](const std::string& line, const std::vector<std::string>& accepted) {
    for (const auto& a : accepted)
      if (line.find(a) != std::string::npos) return true;
    return false;
  };
  std::istringstream lines(report.output);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.find("Error") != std::string::npos && !listed(line, acceptedErrors)) report.errors += line + "\n";
    if (line.find("Warning") != std::string::npos && !listed(line, acceptedWarnings)) report.warnings += line + "\n";
  }
  return report;
}

void requireDciodvfyClean(const std::filesystem::path& file, const std::vector<std::string>& acceptedWarnings,
                          const std::vector<std::string>& acceptedErrors) {
  auto report = runDciodvfy(file, acceptedWarnings, acceptedErrors);
  if (!report) return;
  INFO("dciodvfy output:\n" << report->output);
  CHECK(report->errors.empty());
  CHECK(report->warnings.empty());
}

}  // namespace delineate::test
