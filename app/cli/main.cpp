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
               "       [--slices AXIS:FIRST:LAST]   statistics of these voxel slices only (axis i, j, k; LAST -1 = end)\n"
               "      print the image geometry and, with labels (from FILE or computed by ENGINE), per-label\n"
               "      statistics: voxels, volume (mL), intensity mean/std/min/max, centroid (LPS mm), bounding box.\n"
               "      ENGINE: classic (CT body, lungs, airways, bone; MR body) or classic.threshold (CT tissue\n"
               "      classes by Hounsfield window)\n"
               "  segment IMAGE OUTPUT [--engine ID] [--class N]...\n"
               "      automatic segmentation written as a label file (engine classic by default; classes by label\n"
               "      id: 200 body, 201 left lung, 202 right lung, 132 airway, 21 bone)\n"
               "  dicom-index FOLDER [--format text|json] [--threads N] [--no-recursive]\n"
               "      index a folder tree of DICOM files (headers only, in parallel) and list its patients, studies\n"
               "      and series with their geometry and issues (missing slices, irregular spacing, gantry tilt)\n"
               "  convert INPUT OUTPUT [--series KEY|NUMBER] [--allow-irregular] [--threads N]\n"
               "      convert a DICOM series (INPUT a folder or file) or a volume file to OUTPUT\n"
               "      (.nii, .nii.gz, .nrrd, .nhdr, .mha, .mhd); an irregular series needs --allow-irregular\n"
               "  export-dicom DICOM LABELS --seg OUTPUT [--sr OUTPUT] [--table FILE] [--series KEY] [--labelmap]\n"
               "       [--deidentify] [--observer NAME]\n"
               "      a label map on a DICOM series as a DICOM SEG (BINARY, or LABELMAP keeping the label ids) and,\n"
               "      with --sr, a TID 1500 measurement report referencing it: volume and intensity mean/std/min/\n"
               "      max/median per segment; --deidentify: PS3.15 basic profile, new UIDs, no names\n"
               "  sr-show FILE [--json]\n"
               "      the measurement groups of a DICOM SR measurement report (TID 1500)\n"
               "  share init ROOT\n"
               "      make ROOT (an existing folder, e.g. on a network share) a share store\n"
               "  share save ROOT STUDY LABELSET LABELFILE [--base N|0|latest] [--message M] [--author A] [--json]\n"
               "      store a label map as a new revision (never an overwrite); a save whose base is no longer the\n"
               "      newest is kept and marked as a CONFLICT (told on stderr)\n"
               "  share list ROOT STUDY LABELSET [--json]        revisions with author, time, base, hash, conflicts\n"
               "  share show ROOT STUDY LABELSET REV [--json]    one revision: metadata, voxels and mL per label\n"
               "  share diff ROOT STUDY LABELSET REV_A REV_B [--json]   changed voxels per label\n"
               "  share get ROOT STUDY LABELSET REV OUTPUT       a revision to a local label file (hash verified)\n"
               "  share restore ROOT STUDY LABELSET REV [--message M]   an old revision saved again as the newest\n"
               "  share lease ROOT STUDY LABELSET                who is editing the label set\n"
               "  share report ROOT STUDY LABELSET REV (--dicom FOLDER [--series KEY] | --image FILE) [--table FILE]\n"
               "       [--labelmap] [--deidentify] [--observer NAME] [--message M] [--author A] [--json]\n"
               "      publish the revision's statistics (CSV, JSON) and, on a DICOM series, its DICOM SEG and TID 1500\n"
               "      report on the share (reports/STUDY/LABELSET/rREV/N/, never overwritten, audited)\n"
               "  share reports ROOT STUDY LABELSET [--json]     the reports published for a label set\n"
               "  checkpoint put ROOT MODEL FILE [--sidecar JSON] [--message M]   store a model checkpoint (streamed)\n"
               "  checkpoint get ROOT MODEL REV OUTPUT           copy a checkpoint out, hash verified\n"
               "  checkpoint list ROOT MODEL [--json]\n"
               "  audit verify LOGFILE|ROOT ...\n"
               "      check the audit logs' hash chains; reports the first tampered or damaged line (exit 1)\n"
               "  click-eval IMAGE LABELS [--label N]... [--clicks N] [--json]\n"
               "      simulated clicks (first at the deepest point of the object, then of the largest error) with the\n"
               "      classic click engine: Dice after each click and per-click latency, per label (default: all)\n"
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
  if (command == "share") return delineate::app::cli::runShare(args);
  if (command == "checkpoint") return delineate::app::cli::runCheckpoint(args);
  if (command == "audit") return delineate::app::cli::runAudit(args);
  if (command == "click-eval") return delineate::app::cli::runClickEval(args);
  if (command == "segment") return delineate::app::cli::runSegment(args);
  if (command == "export-dicom") return delineate::app::cli::runExportDicom(args);
  if (command == "sr-show") return delineate::app::cli::runSrShow(args);
  std::fprintf(stderr, "error: unknown command '%s'\n\n", command.c_str());
  printUsage(stderr);
  return 2;
}

}  // namespace
