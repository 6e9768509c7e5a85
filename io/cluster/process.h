#pragma once
// Running another program and reading what it printed: the Slurm client commands (sbatch, squeue, scancel) are the
// cluster's interface, so they are called as programs with an argument vector (never through a shell: a study list or
// a folder name is never parsed as shell text).

#include <string>
#include <vector>

#include "core/error.h"

namespace delineate::io {

struct ProcessResult {
  int exitCode = -1;       // the program's exit status; 128 + N when it was ended by signal N
  std::string out, err;    // what it wrote on stdout and stderr (each at most 4 MiB kept)
};

// Runs argv[0] (looked up in PATH) with `argv`, stdin from /dev/null, and waits at most `timeoutSeconds` (then the
// program is killed and the result is an error naming it). Errors: the program not found or not startable, the
// timeout. A program that ran and failed is a result with its exit code (the caller words it).
core::Result<ProcessResult> runProcess(const std::vector<std::string>& argv, int timeoutSeconds = 60);

// Whether `program` is found in PATH (or is an executable path).
bool programAvailable(const std::string& program);

// `text` quoted for a POSIX shell (single quotes; a quote inside becomes '\''): for scripts we write (sbatch).
std::string shellQuote(const std::string& text);

// The absolute path of the running program (/proc/self/exe); empty when it cannot be read.
std::string currentExecutablePath();

}  // namespace delineate::io
