#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "core/error.h"

namespace delineate::io {
struct DicomIndex;
struct DicomSeries;
}  // namespace delineate::io

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
int runExportDicom(const std::vector<std::string>& args);
int runSrShow(const std::vector<std::string>& args);
// share report / share reports (args after the subcommand).
int runShareReport(const std::vector<std::string>& args);
int runShareReports(const std::vector<std::string>& args);

// The image series of a DICOM folder's index to work on: the only one, or the one `seriesKey` names. On failure the
// choices are printed and the exit code returned (1 none or no such key, 2 several to pick from); 0 on success.
int chooseImageSeries(const io::DicomIndex& index, const std::string& input, const std::string& seriesKey,
                      const io::DicomSeries*& chosen);

// For option parsers: args[i] is an option that takes a value; moves i to the value and stores it in `target`, or
// says in `problem` that the value is missing and returns false.
inline bool optionValue(const std::vector<std::string>& args, std::size_t& i, std::string& target, std::string& problem) {
  if (i + 1 >= args.size()) {
    problem = args[i] + " needs a value";
    return false;
  }
  target = args[++i];
  return true;
}

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
