#pragma once
// Special files for bad-input tests: a named pipe, a socket, a character device (a link to /dev/zero, as stat sees
// it) and a folder, each with the words an error about it must use.

#include <filesystem>
#include <string>
#include <vector>

#include "tests/common/test_support.h"

namespace delineate::test {

struct SpecialFile {
  std::filesystem::path path;
  std::string kind;  // "named pipe (FIFO)", "socket", "character device", "folder"
};

// Binds (and closes) an AF_UNIX socket at `path`, leaving a socket file there.
void bindSocket(const std::filesystem::path& path);

// pipe<ext>, sock<ext>, zero<ext> and folder<ext> in `dir`.
std::vector<SpecialFile> makeSpecialFiles(const ScratchDir& dir, const std::string& extension);

}  // namespace delineate::test
