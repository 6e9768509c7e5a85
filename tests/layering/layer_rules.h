#pragma once
// The dependency rules of ARCHITECTURE.md as data, and a scanner that checks every #include line of a source tree
// against them. Kept separate from the test so the checker itself can be tested on planted violations.

#include <filesystem>
#include <string>
#include <vector>

namespace delineate::test {

struct LayerViolation {
  std::filesystem::path file;  // relative to the scanned root
  int line = 0;
  std::string include;         // what was included
  std::string rule;            // why it is forbidden
};

// Scans *.h, *.hpp, *.cpp, *.cc under the layer folders of `root` (core, io, inference, viewer, app/gui, app/cli).
std::vector<LayerViolation> checkLayering(const std::filesystem::path& root);

std::string describe(const LayerViolation& v);

}  // namespace delineate::test
