#pragma once
// dicom3tools' dciodvfy as a test oracle for the DICOM objects io writes (SEG, SR): every Error line fails the test
// unless listed, every Warning line unless listed; each list entry is a substring, and callers say next to it why it
// is accepted.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace delineate::test {

// Runs a shell command, stdout and stderr together; *status is pclose's.
std::string runCommand(const std::string& command, int* status);

struct DciodvfyReport {
  std::string output;    // everything dciodvfy printed
  std::string errors;    // Error lines not accepted
  std::string warnings;  // Warning lines not accepted
};

// nullopt (with a WARN) where dciodvfy is not installed; a failure under CI=true, where scripts/setup.sh installs it.
std::optional<DciodvfyReport> runDciodvfy(const std::filesystem::path& file,
                                          const std::vector<std::string>& acceptedWarnings,
                                          const std::vector<std::string>& acceptedErrors = {});

// runDciodvfy, then CHECKs that no Error or Warning is left (the output goes into the failure message).
void requireDciodvfyClean(const std::filesystem::path& file, const std::vector<std::string>& acceptedWarnings,
                          const std::vector<std::string>& acceptedErrors = {});

}  // namespace delineate::test
