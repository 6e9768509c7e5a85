#pragma once
// The dependency rules of ARCHITECTURE.md as data, and a scanner that checks every #include line of a source tree
// against them. Kept separate from the test so the checker itself can be tested on planted violations.
//
// The checker is the real guard: every layer's include directory is the source root and Debian installs torch,
// DCMTK, zlib and friends under /usr/include, so PRIVATE linking alone does not stop a forbidden header compiling.

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

namespace delineate::test {

struct LayerViolation {
  std::filesystem::path file;  // relative to the scanned root
  int line = 0;
  std::string include;         // what was included (relative quoted includes resolved to root-relative paths)
  std::string rule;            // why it is forbidden
};

struct LayeringReport {
  std::vector<LayerViolation> violations;
  std::size_t filesScanned = 0;
  std::size_t includesChecked = 0;
};

// Scans every C/C++ source and header (.h .hh .hpp .hxx .inl .ipp .tpp .txx .c .cc .cpp .cxx) under core, io,
// inference, viewer and app of `root`. Comments are ignored; quoted includes that resolve next to the including file
// are judged by their root-relative path.
LayeringReport checkLayering(const std::filesystem::path& root);

std::string describe(const LayerViolation& v);

}  // namespace delineate::test
