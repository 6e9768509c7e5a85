// delineate-cli: the headless front end. Subcommands share the core, io and inference layers with the GUI.
//
// Exit codes: 0 success, 1 a file or engine error (printed as "error: <file>: <reason>"), 2 a usage error.

#include <cstdio>
#include <cstring>
#include <exception>
#include <new>
#include <string>
#include <vector>

#include "app/cli/commands.h"

namespace {

void printUsage(std::FILE* out) {
  std::fprintf(out,
               "usage: delineate-cli <command> [options]\n"
               "\n"
               "commands:\n"
               "  info IMAGE [--labels FILE] [--table FILE] [--segment ENGINE] [--format text|csv|json]\n"
               "      print the image geometry and, with labels (from FILE or computed by ENGINE), per-label\n"
               "      statistics: voxels, volume (mL), intensity mean/std/min/max, centroid (LPS mm), bounding box.\n"
               "      ENGINE: classic.threshold (CT tissue classes by Hounsfield window)\n"
               "  dicom-index FOLDER [--format text|json] [--threads N] [--no-recursive]\n"
               "      index a folder tree of DICOM files (headers only, in parallel) and list its patients, studies\n"
               "      and series with their geometry and issues (missing slices, irregular spacing, gantry tilt)\n"
               "  convert INPUT OUTPUT [--series KEY|NUMBER] [--allow-irregular] [--threads N]\n"
               "      convert a DICOM series (INPUT a folder or file) or a volume file to OUTPUT\n"
               "      (.nii, .nii.gz, .nrrd, .nhdr, .mha, .mhd); an irregular series needs --allow-irregular\n"
               "  version\n"
               "  help\n");
}

int run(std::vector<std::string> args);

}  // namespace

int main(int argc, char** argv) {
  // Lower layers report errors as values; anything thrown is a bug or an allocation failure, and still ends with a
  // message and exit code 1 instead of an abort.
  try {
    return run(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "error: out of memory\n");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: internal error: %s\n", e.what());
  }
  return 1;
}

namespace {

int run(std::vector<std::string> args) {
  if (args.empty()) {
    printUsage(stderr);
    return 2;
  }
  const std::string command = args.front();
  args.erase(args.begin());
  if (command == "help" || command == "--help" || command == "-h") {
    printUsage(stdout);
    return 0;
  }
  if (command == "version" || command == "--version") {
    std::printf("delineate-cli %s\n", DELINEATE_VERSION);
    return 0;
  }
  if (command == "info") return delineate::app::cli::runInfo(args);
  if (command == "dicom-index") return delineate::app::cli::runDicomIndex(args);
  if (command == "convert") return delineate::app::cli::runConvert(args);
  std::fprintf(stderr, "error: unknown command '%s'\n\n", command.c_str());
  printUsage(stderr);
  return 2;
}

}  // namespace
