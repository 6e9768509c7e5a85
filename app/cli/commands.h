#pragma once

#include <string>
#include <vector>

namespace delineate::app::cli {

// Each subcommand takes its arguments (without the command name) and returns the process exit code.
int runInfo(const std::vector<std::string>& args);

}  // namespace delineate::app::cli
