#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "core/error.h"

namespace delineate::app::cli {

// Each subcommand takes its arguments (without the command name) and returns the process exit code.
int runInfo(const std::vector<std::string>& args);
int runDicomIndex(const std::vector<std::string>& args);
int runConvert(const std::vector<std::string>& args);
int runShare(const std::vector<std::string>& args);
int runCheckpoint(const std::vector<std::string>& args);
int runAudit(const std::vector<std::string>& args);
int runClickEval(const std::vector<std::string>& args);
int runSegment(const std::vector<std::string>& args);

// Exit code 2 with "error: <message>" and a pointer to the help.
inline int usageError(const std::string& message) {
  std::fprintf(stderr, "error: %s\n(see 'delineate-cli help')\n", message.c_str());
  return 2;
}

// Exit code 1 with "error: <file>: <reason>".
inline int fileError(const core::Error& error) {
  std::fprintf(stderr, "error: %s\n", error.describe().c_str());
  return 1;
}

}  // namespace delineate::app::cli
