#pragma once
// Runs delineate-cli (or another program CMake built) through the shell: arguments in, output and exit code out.

#include <catch2/catch.hpp>

#include <array>
#include <cstdio>
#include <string>
#include <sys/wait.h>

namespace delineate::test {

struct Run {
  int exitCode = -1;
  std::string out;  // stdout and stderr together
};

// Runs `program` (a path) with `args` (already quoted where needed).
inline Run runProgram(const std::string& program, const std::string& args) {
  const std::string command = "'" + program + "' " + args + " 2>&1";
  Run r;
  FILE* pipe = popen(command.c_str(), "r");
  REQUIRE(pipe);
  std::array<char, 4096> buffer{};
  std::size_t n = 0;
  while ((n = fread(buffer.data(), 1, buffer.size(), pipe)) > 0) r.out.append(buffer.data(), n);
  const int status = pclose(pipe);
  r.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

inline Run runCli(const std::string& args) { return runProgram(DELINEATE_CLI_PATH, args); }

inline std::string quoted(const std::string& s) { return "'" + s + "'"; }

const std::string kSample = quoted(std::string(DELINEATE_SOURCE_DIR) + "/resources/sample/example_ct.nii.gz");

}  // namespace delineate::test
