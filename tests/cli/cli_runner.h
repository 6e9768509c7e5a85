#pragma once
// Runs delineate-cli (or another program CMake built) through the shell: arguments in, output and exit code out.

#include <catch2/catch.hpp>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

namespace delineate::test {

struct Run {
  int exitCode = -1;
  std::string out;  // stdout and stderr together
};

// Runs a shell command line; its stdout (and whatever the line redirects there) comes back.
inline Run runShell(const std::string& command) {
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

// Runs `program` (a path) with `args` (already quoted where needed).
inline Run runProgram(const std::string& program, const std::string& args) {
  return runShell("'" + program + "' " + args + " 2>&1");
}

inline Run runCli(const std::string& args) { return runProgram(DELINEATE_CLI_PATH, args); }

struct SplitRun {
  int exitCode = -1;
  std::string out;  // stdout
  std::string err;  // stderr
};

// As runProgram, with stdout and stderr kept apart (help belongs on stdout, errors on stderr).
inline SplitRun runProgramSplit(const std::string& program, const std::string& args) {
  char errPath[] = "/tmp/delineate-cli-stderr-XXXXXX";
  const int fd = mkstemp(errPath);
  REQUIRE(fd >= 0);
  close(fd);
  const Run r = runShell("'" + program + "' " + args + " 2>'" + std::string(errPath) + "'");
  SplitRun split;
  split.exitCode = r.exitCode;
  split.out = r.out;
  std::ifstream in(errPath, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  split.err = text.str();
  std::remove(errPath);
  return split;
}

inline SplitRun runCliSplit(const std::string& args) { return runProgramSplit(DELINEATE_CLI_PATH, args); }

inline std::string quoted(const std::string& s) { return "'" + s + "'"; }

const std::string kSample = quoted(std::string(DELINEATE_SOURCE_DIR) + "/resources/sample/example_ct.nii.gz");

}  // namespace delineate::test
