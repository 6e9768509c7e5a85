// The command lines themselves: every command's --help, usage errors (exit 2, one line on stderr, nothing written),
// and the README's CLI section against the programs' help pages.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "tests/cli/cli_runner.h"
#include "tests/cli/readme_cli.h"
#include "tests/common/test_support.h"

using namespace delineate::test;
namespace fs = std::filesystem;

namespace {

struct CommandPage {
  std::string path;     // below the program
  std::string usage;    // how the page's usage line starts: the program, the path and the positionals
  std::vector<std::string> options;
};

// Every command of delineate-cli with its positionals and options, written out here independently of the program.
const std::vector<CommandPage> kCliCommands = {
    {"info",
     "info IMAGE",
     {"--series", "--allow-irregular", "--allow-unreadable", "--labels", "--table", "--segment", "--format", "--slices"}},
    {"segment", "segment IMAGE OUTPUT", {"--series", "--allow-irregular", "--allow-unreadable", "--engine", "--device", "--class"}},
    {"click-eval", "click-eval IMAGE LABELS",
     {"--series", "--allow-irregular", "--allow-unreadable", "--label", "--clicks", "--first", "--seed", "--prompts",
      "--start", "--engine", "--device", "--json"}},
    {"dicom-index", "dicom-index FOLDER", {"--format", "--threads", "--no-recursive"}},
    {"convert", "convert INPUT OUTPUT", {"--series", "--allow-irregular", "--allow-unreadable", "--threads"}},
    {"export-dicom",
     "export-dicom DICOM LABELS",
     {"--seg", "--sr", "--table", "--series", "--labelmap", "--deidentify", "--observer"}},
    {"sr-show", "sr-show FILE", {"--json"}},
    {"export-rtstruct", "export-rtstruct DICOM LABELS OUTPUT",
     {"--table", "--series", "--author", "--label", "--type", "--deidentify"}},
    {"import-rtstruct", "import-rtstruct DICOM RTSTRUCT OUTPUT", {"--series", "--masks", "--json"}},
    {"share init", "share init ROOT", {}},
    {"share save", "share save ROOT STUDY LABELSET LABELFILE", {"--base", "--message", "--author", "--series", "--json"}},
    {"share list", "share list ROOT STUDY LABELSET", {"--json"}},
    {"share show", "share show ROOT STUDY LABELSET REV", {"--json"}},
    {"share diff", "share diff ROOT STUDY LABELSET REV_A REV_B", {"--json"}},
    {"share get", "share get ROOT STUDY LABELSET REV OUTPUT", {}},
    {"share restore", "share restore ROOT STUDY LABELSET REV", {"--message", "--author"}},
    {"share lease", "share lease ROOT STUDY LABELSET", {}},
    {"share report",
     "share report ROOT STUDY LABELSET REV",
     {"--dicom", "--image", "--series", "--table", "--labelmap", "--deidentify", "--observer", "--message", "--author",
      "--json"}},
    {"share reports", "share reports ROOT STUDY LABELSET", {"--json"}},
    {"review submit", "review submit ROOT STUDY LABELSET REV", {"--user", "--comment", "--json"}},
    {"review approve", "review approve ROOT STUDY LABELSET REV", {"--user", "--comment", "--json"}},
    {"review reject", "review reject ROOT STUDY LABELSET REV", {"--user", "--comment", "--json"}},
    {"review show", "review show ROOT STUDY LABELSET", {"--json"}},
    {"study import", "study import ROOT INPUT",
     {"--study", "--modality", "--description", "--patient-id", "--jobs", "--deidentify", "--key-file", "--json"}},
    {"study list", "study list ROOT", {"--sort", "--limit", "--json"}},
    {"study search", "study search ROOT", {"--patient", "--modality", "--from", "--to", "--description", "--status", "--sort",
                                           "--limit", "--json"}},
    {"study show", "study show ROOT STUDY", {"--json"}},
    {"study get", "study get ROOT STUDY SERIES FOLDER", {"--json"}},
    {"study reindex", "study reindex ROOT", {"--json"}},
    {"dataset create", "dataset create ROOT NAME", {"--from-approved", "--split", "--seed", "--message", "--author", "--json"}},
    {"dataset add", "dataset add ROOT NAME STUDY LABELSET REV", {"--split", "--message", "--author", "--json"}},
    {"dataset show", "dataset show ROOT NAME", {"--json"}},
    {"dataset fetch", "dataset fetch ROOT NAME FOLDER", {"--revision", "--stop-on-bad-case", "--json"}},
    {"dataset list", "dataset list ROOT", {"--json"}},
    {"checkpoint put", "checkpoint put ROOT MODEL FILE", {"--sidecar", "--message", "--author"}},
    {"checkpoint get", "checkpoint get ROOT MODEL REV OUTPUT", {}},
    {"checkpoint list", "checkpoint list ROOT MODEL", {"--json"}},
    {"model list", "model list", {"--known", "--json"}},
    {"model fetch", "model fetch NAME|URL", {"--name", "--sha256", "--licence", "--yes", "--known", "--json"}},
    {"model register", "model register FILE", {"--name", "--sha256", "--licence", "--known", "--json"}},
    {"model path", "model path NAME", {}},
    {"audit verify", "audit verify LOGFILE|ROOT...", {}},
    {"audit show", "audit show ROOT", {"--study", "--user", "--action", "--from", "--to", "--json"}},
    {"trust keygen", "trust keygen", {"--key", "--json"}},
    {"trust key", "trust key", {"--key", "--json"}},
    {"trust init", "trust init ROOT", {"--user", "--role", "--key"}},
    {"trust add", "trust add ROOT USER PUBKEY", {"--box-key", "--role", "--key"}},
    {"trust remove", "trust remove ROOT USER", {"--key"}},
    {"trust encrypt", "trust encrypt ROOT", {"--key"}},
    {"trust show", "trust show ROOT", {"--json"}},
    {"trust verify", "trust verify ROOT", {"--json"}},
    {"pacs echo", "pacs echo", {"--peer", "--aet", "--tls", "--ca", "--cert", "--key", "--timeout"}},
    {"pacs find", "pacs find",
     {"--peer", "--url", "--credentials", "--aet", "--tls", "--ca", "--cert", "--key", "--timeout", "--level",
      "--patient-id", "--patient-name", "--birth-date", "--study-date", "--modality", "--description", "--accession",
      "--study", "--series", "--limit", "--json"}},
    {"pacs get", "pacs get",
     {"--peer", "--url", "--credentials", "--aet", "--tls", "--ca", "--cert", "--key", "--timeout", "--study",
      "--series", "--instance", "--out", "--share", "--deidentify", "--key-file", "--in-flight", "--json"}},
    {"pacs move", "pacs move",
     {"--peer", "--aet", "--tls", "--ca", "--cert", "--key", "--timeout", "--study", "--series", "--instance", "--out",
      "--share", "--deidentify", "--key-file", "--in-flight", "--json", "--move-aet", "--port"}},
    {"pacs store", "pacs store",
     {"--peer", "--url", "--credentials", "--aet", "--tls", "--ca", "--cert", "--key", "--timeout", "--json"}},
    {"pacs listen", "pacs listen ROOT",
     {"--aet", "--port", "--bind", "--accept", "--tls", "--ca", "--cert", "--key", "--idle", "--spool", "--deidentify",
      "--key-file", "--json"}},
    {"batch status", "batch status JOBDIR", {"--json"}},
    {"batch cancel", "batch cancel JOBDIR", {}},
    {"batch resubmit", "batch resubmit JOBDIR", {}},
};

// The leaf commands a program's help pages list, found by walking them from the program's own page.
std::vector<std::string> listedCommands(const std::string& program, const std::string& path = "") {
  const SplitRun r = runProgramSplit(program, path + " --help");
  REQUIRE(r.exitCode == 0);
  const std::vector<std::string> commands = helpCommands(r.out);
  if (commands.empty()) return {path};
  std::vector<std::string> out;
  for (const std::string& c : commands) {
    const auto below = listedCommands(program, path.empty() ? c : path + " " + c);
    out.insert(out.end(), below.begin(), below.end());
  }
  return out;
}

std::vector<std::string> filesUnder(const fs::path& root) {
  std::vector<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(root)) out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

std::optional<std::string> helpPage(const std::string& program, const std::string& path) {
  const std::string exe = program == "delineate-vista3d" ? DELINEATE_VISTA3D_PATH : DELINEATE_CLI_PATH;
  const SplitRun r = runProgramSplit(exe, path + " --help");
  if (r.exitCode != 0) return std::nullopt;
  return r.out;
}

}  // namespace

TEST_CASE("cli help: every command's --help prints its usage and options on stdout and exits 0", "[cli][help]") {
  // The table above covers every command the program lists, so a new command cannot go without this check.
  std::vector<std::string> inTable;
  for (const CommandPage& c : kCliCommands) inTable.push_back(c.path);
  CHECK(listedCommands(DELINEATE_CLI_PATH) == inTable);

  for (const CommandPage& c : kCliCommands) {
    INFO(c.path);
    const SplitRun r = runCliSplit(c.path + " --help");
    INFO(r.out + r.err);
    CHECK(r.exitCode == 0);
    CHECK(r.err.empty());
    CHECK(r.out.rfind("usage: delineate-cli " + c.usage, 0) == 0);
    std::set<std::string> expected(c.options.begin(), c.options.end());
    expected.insert("--help");
    CHECK(helpOptions(r.out) == expected);
    // "help COMMAND" shows the same page, and -h is --help.
    CHECK(runCliSplit("help " + c.path).out == r.out);
    CHECK(runCliSplit(c.path + " -h").out == r.out);
  }
  // The groups and the program list their commands; the program's page lists every command with its synopsis.
  for (const std::string group : {"share", "checkpoint", "audit"}) {
    const SplitRun r = runCliSplit(group + " --help");
    CHECK(r.exitCode == 0);
    CHECK_FALSE(helpCommands(r.out).empty());
  }
  const SplitRun top = runCliSplit("--help");
  CHECK(top.exitCode == 0);
  CHECK(top.out.rfind("usage: delineate-cli <command>", 0) == 0);
  CHECK(top.out.find("share report ROOT STUDY LABELSET REV") != std::string::npos);
  CHECK(runCliSplit("help").out == top.out);
  CHECK(runCliSplit("--version").out == runCliSplit("version").out);

  const SplitRun vista = runProgramSplit(DELINEATE_VISTA3D_PATH, "segment --help");
  INFO(vista.out + vista.err);
  CHECK(vista.exitCode == 0);
  CHECK(vista.out.rfind("usage: delineate-vista3d segment IMAGE OUTPUT", 0) == 0);
  CHECK(helpOptions(vista.out) == std::set<std::string>{"--help", "--checkpoint", "--device", "--precision", "--batch",
                                                        "--class", "--point", "--roi", "--threads"});
  CHECK(runProgramSplit(DELINEATE_VISTA3D_PATH, "--help").exitCode == 0);

  const SplitRun train = runProgramSplit(DELINEATE_TRAIN_PATH, "--help");
  INFO(train.out + train.err);
  CHECK(train.exitCode == 0);
  CHECK(train.err.empty());
  CHECK(train.out.rfind("usage: delineate-train", 0) == 0);
  CHECK(helpOptions(train.out) ==
        std::set<std::string>{"--help", "--config", "--cases", "--dataset", "--dataset-revision", "--out", "--model",
                              "--checkpoint", "--labels", "--iterations", "--time-budget", "--validation-interval", "--patch", "--batch",
                              "--init-filters", "--learning-rate", "--device", "--precision", "--threads", "--workers",
                              "--seed", "--hold-out", "--memory-budget-mb", "--share", "--model-name", "--author", "--resume",
                              "--stop-on-bad-case", "--seal", "--json", "--evaluate", "--rank", "--label-set", "--studies",
                              "--slurm", "--job-dir", "--nodes", "--tasks-per-node", "--gpus-per-node",
                              "--cpus-per-task", "--mem", "--time", "--partition", "--account", "--signal-seconds",
                              "--sbatch-option"});
  // Usage errors: exit 2 and one line naming the problem.
  const SplitRun noOut = runProgramSplit(DELINEATE_TRAIN_PATH, "--cases x.json");
  CHECK(noOut.exitCode == 2);
  CHECK(noOut.err.find("no output folder (--out)") != std::string::npos);
  const SplitRun badModel = runProgramSplit(DELINEATE_TRAIN_PATH, "--model unet --out /tmp/x");
  CHECK(badModel.exitCode == 2);
}

TEST_CASE("cli help: usage errors exit 2 with one line on stderr naming the problem, and write nothing",
          "[cli][help]") {
  ScratchDir dir("cli-usage");
  const fs::path root = dir / "store";
  fs::create_directories(root);
  REQUIRE(runCli("share init " + quoted(root.string())).exitCode == 0);
  const std::string r = quoted(root.string());
  const std::string out = quoted((dir / "out.nii.gz").string());
  const std::vector<std::string> before = filesUnder(dir.path());

  struct Case {
    std::string args;
    std::string named;  // what the message must name
  };
  const std::vector<Case> cases = {
      {"frobnicate", "'frobnicate'"},                                         // unknown command
      {"share frobnicate " + r, "'frobnicate'"},                              // unknown nested command
      {"share", "init, save"},                                                // a group without its command
      {"info " + kSample + " --bogus", "--bogus"},                            // unknown option
      {"info", "IMAGE"},                                                      // missing positional
      {"info " + kSample + " --labels", "--labels"},                          // option without its value
      {"info " + kSample + " --format xml", "xml"},                           // bad --format
      {"dicom-index " + quoted(dir.path().string()) + " --format csv", "--format"},
      {"info " + kSample + " --slices k:1", "--slices"},
      {"info " + kSample + " --labels x.nii --segment classic", "--segment"},  // options that exclude each other
      {"segment " + kSample + " " + out + " --class 0", "--class"},
      {"segment " + kSample + " " + out + " --class 1 2", "'2'"},             // one value per --class
      {"segment " + kSample + " " + out + " extra", "'extra'"},
      {"convert " + kSample, "OUTPUT"},
      {"click-eval " + kSample + " x.nii --clicks 0", "--clicks"},
      {"export-dicom a b", "--seg"},
      {"share save " + r + " ct organs " + kSample + " --base x", "--base"},
      {"share show " + r + " ct organs five", "five"},
      {"share get " + r + " ct organs 1", "OUTPUT"},
      {"share get " + r + " ct organs 1 " + out + " --json", "--json"},  // an option of another command
      {"checkpoint get " + r + " model", "REV"},
      {"audit verify", "LOGFILE|ROOT"},
      {"trust add " + r + " bob", "PUBKEY"},
      {"trust add " + r + " bob AAAA --role superuser", "superuser"},
      {"help frobnicate", "'frobnicate'"},
      {"share frobnicate --help", "'frobnicate'"},  // help for a command that does not exist
  };
  for (const Case& c : cases) {
    const SplitRun run = runCliSplit(c.args);
    INFO(c.args << "\nstdout: " << run.out << "\nstderr: " << run.err);
    CHECK(run.exitCode == 2);
    CHECK(run.out.empty());
    CHECK(run.err.rfind("error: ", 0) == 0);
    CHECK(std::count(run.err.begin(), run.err.end(), '\n') == 1);
    CHECK(run.err.find(c.named) != std::string::npos);
    CHECK(run.err.find("--help'") != std::string::npos);
  }
  CHECK(filesUnder(dir.path()) == before);

  // No arguments at all: the program's page, on stderr.
  const SplitRun none = runCliSplit("");
  CHECK(none.exitCode == 2);
  CHECK(none.out.empty());
  CHECK(none.err.rfind("usage: delineate-cli", 0) == 0);

  const SplitRun vista = runProgramSplit(DELINEATE_VISTA3D_PATH, "segment a.nii b.nii --bogus");
  CHECK(vista.exitCode == 2);
  CHECK(vista.err == "error: unknown option --bogus (see 'delineate-vista3d segment --help')\n");
}

TEST_CASE("cli help: the README's CLI section and the programs' help pages agree", "[cli][help]") {
  const std::string readme = readTextFile(fs::path(DELINEATE_SOURCE_DIR) / "README.md");
  const std::vector<std::string> programs = {"delineate-cli", "delineate-vista3d"};
  const std::vector<ReadmeCommand> commands = readmeCliCommands(readme, programs);
  REQUIRE(commands.size() >= kCliCommands.size());
  const std::vector<std::string> problems = readmeHelpDisagreements(commands, programs, helpPage);
  std::string all;
  for (const std::string& p : problems) all += p + "\n";
  INFO(all);
  CHECK(problems.empty());
}

TEST_CASE("cli help: the README comparison finds planted disagreements", "[cli][help]") {
  // A program with two commands, as help pages.
  const std::map<std::string, std::string> pages = {
      {"", "usage: tool <command> ...\n\ncommands:\n  info IMAGE [--json]\n      what\n  share init ROOT\n\n"},
      {"info", "usage: tool info IMAGE [--json]\n\noptions:\n  -h,--help     help\n  --json        json\n"},
      {"share", "usage: tool share <command> ...\n\ncommands:\n  init ROOT\n      make it\n"},
      {"share init", "usage: tool share init ROOT\n\noptions:\n  -h,--help     help\n"},
      // A program that answers a misspelt command's --help with its parent's page.
      {"share frab", "usage: tool share <command> ...\n\ncommands:\n  init ROOT\n      make it\n"},
  };
  const HelpPages help = [&pages](const std::string&, const std::string& path) -> std::optional<std::string> {
    const auto it = pages.find(path);
    return it == pages.end() ? std::nullopt : std::optional<std::string>(it->second);
  };
  const auto disagreements = [&](const std::string& readme) {
    return readmeHelpDisagreements(readmeCliCommands(readme, {"tool"}), {"tool"}, help);
  };
  const std::string good = "# T\n\n## CLI\n\n```\ntool info IMAGE [--json]   # stats\ntool share init ROOT\n```\n\n"
                           "## Other\n```\ntool info --not-in-cli-section\n```\n";
  CHECK(disagreements(good).empty());

  // An option the program does not have.
  auto problems = disagreements("## CLI\n```\ntool info IMAGE [--json] [--nonexistent N]\ntool share init ROOT\n```\n");
  REQUIRE(problems.size() == 1);
  CHECK(problems[0].find("--nonexistent") != std::string::npos);
  CHECK(problems[0].find("line 3") != std::string::npos);
  // ... also on a continuation line.
  problems = disagreements("## CLI\n```\ntool info IMAGE [--json]\n    [--nonexistent]\ntool share init ROOT\n```\n");
  REQUIRE(problems.size() == 1);
  CHECK(problems[0].find("--nonexistent") != std::string::npos);
  // A command the program does not have, and one of the program's commands missing from the README.
  problems = disagreements("## CLI\n```\ntool info IMAGE [--json]\ntool share frob ROOT\n```\n");
  REQUIRE(problems.size() == 2);
  CHECK(problems[0].find("'tool share frob' is not a command") != std::string::npos);
  CHECK(problems[1].find("'tool share init' is a command of the program but not in the README") != std::string::npos);
  problems = disagreements("## CLI\n```\ntool info IMAGE [--json]\ntool share init ROOT\ntool share frab\n```\n");
  REQUIRE(problems.size() == 1);
  CHECK(problems[0].find("'tool share frab' is not a command") != std::string::npos);
  // An option the program has that the README's line leaves out.
  problems = disagreements("## CLI\n```\ntool info IMAGE\ntool share init ROOT\n```\n");
  REQUIRE(problems.size() == 1);
  CHECK(problems[0].find("lacks --json") != std::string::npos);
  // "a|b" names both commands.
  const auto both = readmeCliCommands("## CLI\n```\ntool share init|list ROOT [--json]\n```\n", {"tool"});
  REQUIRE(both.size() == 2);
  CHECK(both[0].path == "share init");
  CHECK(both[1].path == "share list");
  CHECK(both[1].options == std::set<std::string>{"--json"});
}
