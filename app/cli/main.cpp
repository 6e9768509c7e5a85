// delineate-cli: the headless front end. Subcommands share the core, io and inference layers with the GUI.
//
// Every command's arguments and options are declared once, below, with their help text; `delineate-cli COMMAND
// --help` prints them and the README's CLI section is checked against those pages (tests/cli/test_cli_help.cpp).
// Exit codes: 0 success, 1 a file or engine error (printed as "error: <file>: <reason>"), 2 a usage error.

#include <cstdio>
#include <exception>
#include <functional>
#include <map>
#include <new>
#include <string>
#include <vector>

#include "app/cli/batch.h"
#include "app/cli/commands.h"
#include "app/command_line/command_parser.h"
#include "core/file_source.h"
#include "io/base/sealed_stream.h"

namespace delineate::app::cli {
namespace {

using command_line::checkedBy;
using command_line::commandPath;
using command_line::configureProgram;
using command_line::parseCommandLine;
using command_line::repeatable;
using command_line::selectedCommand;
using command_line::valueName;

std::optional<int> parseRevision(const std::string& text) {
  try {
    std::size_t used = 0;
    const int v = std::stoi(text, &used);
    if (used == text.size() && v >= 1 && v <= 999999) return v;
  } catch (const std::exception&) {
  }
  return std::nullopt;
}

const CLI::Range kRevisionRange(1, 999999);

class Program {
 public:
  Program() : m_app("The headless Delineate: statistics, segmentation, DICOM, the share store.", "delineate-cli") {
    configureProgram(m_app);
    // A repeated option keeps its last value, as before CLI11; repeatable options say TakeAll themselves.
    m_app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
    m_app.set_version_flag("--version", std::string("delineate-cli ") + DELINEATE_VERSION,
                           "print the version and exit");
    m_app.require_subcommand(1);
    addImageCommands();
    addDicomCommands();
    addShareCommands();
    addReviewCommands();
    addStudyCommands();
    addDatasetCommands();
    addCheckpointCommands();
    addModelCommands();
    addAuditCommands();
    addTrustCommands();
    addPacsCommands();
    addBatchCommands();
  }

  int run(std::vector<std::string> args) {
    if (args.empty()) {
      std::fputs(m_app.help().c_str(), stderr);
      return 2;
    }
    if (args.front() == "version") {
      std::printf("delineate-cli %s\n", DELINEATE_VERSION);
      return 0;
    }
    // "help [COMMAND...]" is "[COMMAND...] --help", as it always was for the program itself. CLI11 would answer a
    // misspelt command with help too, since help comes first there; that is a usage error.
    if (args.front() == "help") {
      args.erase(args.begin());
      const CLI::App* page = &m_app;
      for (const std::string& name : args) {
        const auto named = page->get_subcommands([&name](const CLI::App* c) { return c->get_name() == name; });
        if (named.empty()) {
          const std::string path = commandPath(*page);
          return usageError(path, "unknown " + (path.empty() ? std::string() : path + " ") + "command '" + name + "'");
        }
        page = named.front();
      }
      args.push_back("--help");
    }
    if (const std::optional<int> done = parseCommandLine(m_app, args)) return *done;
    const auto action = m_actions.find(&selectedCommand(m_app));
    if (action == m_actions.end()) return usageError(commandPath(selectedCommand(m_app)), "no such command");
    return action->second();
  }

 private:
  // A command that runs `action` when it is the one selected.
  CLI::App* command(CLI::App& parent, const std::string& name, const std::string& description,
                    std::function<int()> action) {
    CLI::App* c = parent.add_subcommand(name, description);
    m_actions[c] = std::move(action);
    return c;
  }

  // A group of commands (share, checkpoint, audit): one of them must follow.
  CLI::App* group(const std::string& name, const std::string& description) {
    CLI::App* g = m_app.add_subcommand(name, description);
    g->require_subcommand(1);
    return g;
  }

  static CLI::Option* positional(CLI::App* c, const std::string& name, std::string& target,
                                 const std::string& description) {
    return c->add_option(name, target, description)->required();
  }

  static CLI::Option* revision(CLI::App* c, const std::string& name, int& target, const std::string& description) {
    return c->add_option(name, target, description)->required()->check(kRevisionRange);
  }

  static CLI::Option* value(CLI::App* c, const std::string& name, std::string& target, const std::string& placeholder,
                            const std::string& description) {
    return valueName(c->add_option(name, target, description), placeholder);
  }

  static CLI::Option* labelIds(CLI::App* c, const std::string& name, std::vector<core::Label>& target,
                               const std::string& description) {
    return repeatable(valueName(c->add_option(name, target, description), "N"))->check(CLI::Range(1, 65535));
  }

  static void labelSet(CLI::App* c, LabelSetPath& target) {
    positional(c, "ROOT", target.root, "the share store (a folder, e.g. on a network share)");
    positional(c, "STUDY", target.study, "the study's name in the store");
    positional(c, "LABELSET", target.labelSet, "the label set's name within the study");
  }

  static void json(CLI::App* c, bool& target) { c->add_flag("--json", target, "print JSON instead of text"); }

  // --series, --allow-irregular and --allow-unreadable: an IMAGE that is a DICOM folder or file.
  void dicomInputOptions(CLI::App* c, DicomInput& d) {
    value(c, "--series", d.series, "KEY|NUMBER", "DICOM: the series when IMAGE holds several");
    c->add_flag("--allow-irregular", d.allowIrregular, "DICOM: load a series with missing slices, uneven gaps or gantry tilt");
    c->add_flag("--allow-unreadable", d.allowUnreadable, "DICOM: load a series without its unreadable files (named as warnings)");
  }

  void addImageCommands() {
    CLI::App* info = command(m_app, "info",
                             "print the image geometry and, with labels (from FILE or computed by ENGINE), per-label "
                             "statistics: voxels, volume (mL), intensity mean/std/min/max, centroid (LPS mm), "
                             "bounding box.",
                             [this] { return runInfo(m_info); });
    positional(info, "IMAGE", m_info.image,
               "the image (.nii, .nii.gz, .nrrd, .nhdr, .mha, .mhd; also .gipl, .gipl.gz, Analyze .hdr/.img, .vtk; "
               "or a DICOM folder or file)");
    value(info, "--series", m_info.series, "KEY|NUMBER", "DICOM: the series when IMAGE holds several");
    info->add_flag("--allow-irregular", m_info.allowIrregular,
                   "DICOM: load a series with missing slices, uneven gaps or gantry tilt");
    info->add_flag("--allow-unreadable", m_info.allowUnreadable,
                   "DICOM: load a series without its unreadable files (named as warnings)");
    CLI::Option* labels = value(info, "--labels", m_info.labels, "FILE", "a label map on the image's grid");
    value(info, "--table", m_info.table, "FILE",
          "label names and colours (ITK-SNAP, Slicer .txt/.ctbl/.csv, CSV/TSV, terminology JSON; default for "
          "--labels: the table beside the map, e.g. segment's OUTPUT.label)");
    CLI::Option* segment =
        value(info, "--segment", m_info.engine, "ENGINE",
              "compute the labels: classic (CT body, lungs, airways, bone; MR body) or classic.threshold (CT tissue "
              "classes by Hounsfield window)");
    labels->excludes(segment);
    value(info, "--format", m_info.format, "text|csv|json", "output format (csv: the label statistics only)")
        ->check(CLI::IsMember({"text", "csv", "json"}));
    info->add_option_function<std::string>(
            "--slices", [this](const std::string& text) { m_info.slices = parseSliceRange(text); },
            "statistics of these voxel slices only (axis i, j or k; LAST -1 = the last slice)")
        ->option_text("AXIS:FIRST:LAST")
        ->check(checkedBy([](const std::string& text) { return parseSliceRange(text).has_value(); },
                          "takes AXIS:FIRST:LAST (axis i, j or k; LAST -1 for the last slice)"));

    CLI::App* segmentCommand = command(m_app, "segment",
                                       "automatic segmentation written as a label file (classes by label id: 200 "
                                       "body, 201 left lung, 202 right lung, 132 airway, 21 bone), with the names of "
                                       "the labels it holds beside it (OUTPUT's name ending in .label, ITK-SNAP's "
                                       "format), which the window and info --labels read; a .label file of that name "
                                       "that segment did not write is left as it is, with a warning.",
                                       [this] { return runSegment(m_segment); });
    positional(segmentCommand, "IMAGE", m_segment.image, "the image to segment (a volume file, or a DICOM folder or file)");
    dicomInputOptions(segmentCommand, m_segment.dicom);
    positional(segmentCommand, "OUTPUT", m_segment.output, "the label file to write");
    value(segmentCommand, "--engine", m_segment.engine, "ID",
          "the engine: classic (default), classic.threshold, or a trained checkpoint (delineate-train's .pt with its "
          ".json sidecar: an atlas network or a fine-tuned VISTA-3D; a plain VISTA-3D checkpoint) as a file, as "
          "share:ROOT#MODEL[@REV] from a share's checkpoints, or as model:NAME from this machine's models");
    value(segmentCommand, "--device", m_segment.device, "auto|cpu|cuda",
          "where a checkpoint engine runs (default auto: CUDA when there; VISTA-3D runs on the CPU only when asked)");
    labelIds(segmentCommand, "--class", m_segment.classes, "a class to produce (default: every class)");

    CLI::App* clickEval =
        command(m_app, "click-eval",
                "simulated prompts (clicks: first at the deepest point of the object, then of the largest error; box: "
                "the object's bounding box on its largest axial slice, then clicks; scribble: strokes along the "
                "largest error's medial axis) with the classic engine, or edits of a start segmentation (--start) or "
                "of a trained model's own (--engine, model-guided): Dice after each prompt and per-prompt latency, per "
                "label, and how many prompts lowered Dice by more than 0.05 (and by more than 0.01).",
                [this] { return runClickEval(m_clickEval); });
    positional(clickEval, "IMAGE", m_clickEval.image, "the image (a volume file, or a DICOM folder or file)");
    dicomInputOptions(clickEval, m_clickEval.dicom);
    positional(clickEval, "LABELS", m_clickEval.labels, "the reference label map on the image's grid");
    labelIds(clickEval, "--label", m_clickEval.labelIds, "a label to evaluate (default: every label in LABELS)");
    valueName(clickEval->add_option("--clicks", m_clickEval.clicks, "clicks per object, 1..100 (default 10)"), "N")
        ->check(CLI::Range(1, 100));
    valueName(clickEval->add_option("--first", m_clickEval.first,
                                    "where the first click goes: deepest (the papers' protocol, default) or interior "
                                    "(where a user might click: a seeded draw among the voxels at least 0.3 of the "
                                    "deepest depth inside the object)"),
              "deepest|interior")
        ->check(CLI::IsMember({"deepest", "interior"}));
    valueName(clickEval->add_option("--seed", m_clickEval.seed, "the interior draw's seed (default 1)"), "N");
    valueName(clickEval->add_option("--prompts", m_clickEval.prompts,
                                    "what is given: clicks (default), box (a box, then --clicks clicks) or scribble"),
              "clicks|box|scribble")
        ->check(CLI::IsMember({"clicks", "box", "scribble"}));
    valueName(clickEval->add_option("--start", m_clickEval.start,
                                    "a label map on the image's grid (e.g. a model's output): each label's prompts "
                                    "correct its object there instead of starting from nothing"),
              "FILE");
    valueName(clickEval->add_option("--engine", m_clickEval.engine,
                                    "a trained atlas network (a checkpoint file, model:NAME or share:ROOT#MODEL[@REV]): "
                                    "it segments the image (the start, unless --start) and its probabilities guide "
                                    "the prompts"),
              "MODEL");
    value(clickEval, "--device", m_clickEval.device, "auto|cpu|cuda", "where --engine runs (default auto)");
    json(clickEval, m_clickEval.json);
  }

  void addDicomCommands() {
    CLI::App* index = command(m_app, "dicom-index",
                              "index a folder tree of DICOM files (headers only, in parallel) and list its patients, "
                              "studies and series with their geometry and issues (missing slices, irregular spacing, "
                              "gantry tilt).",
                              [this] { return runDicomIndex(m_dicomIndex); });
    positional(index, "FOLDER", m_dicomIndex.folder, "the folder to index");
    value(index, "--format", m_dicomIndex.format, "text|json", "output format")->check(CLI::IsMember({"text", "json"}));
    threads(index, m_dicomIndex.threads);
    index->add_flag("--no-recursive", m_dicomIndex.noRecursive, "only the folder itself, not its subfolders");

    CLI::App* convert = command(m_app, "convert",
                                "convert a DICOM series (INPUT a folder or file) or a volume file (also .gipl, "
                                ".gipl.gz, Analyze .hdr/.img, .vtk) to OUTPUT (.nii, .nii.gz, .nrrd, .nhdr, .mha, "
                                ".mhd); an irregular series needs --allow-irregular, one with unreadable files "
                                "--allow-unreadable.",
                                [this] { return runConvert(m_convert); });
    positional(convert, "INPUT", m_convert.input, "a DICOM folder or file, or a volume file");
    positional(convert, "OUTPUT", m_convert.output, "the volume file to write");
    value(convert, "--series", m_convert.series, "KEY|NUMBER",
          "the series to convert when INPUT holds several (its key or series number)");
    convert->add_flag("--allow-irregular", m_convert.allowIrregular,
                      "load a series with missing slices, uneven gaps or gantry tilt (gaps stay at their true "
                      "positions)");
    convert->add_flag("--allow-unreadable", m_convert.allowUnreadable,
                      "load a series without its files that cannot be read (each named in a warning; a gap they leave "
                      "inside the stack also needs --allow-irregular)");
    threads(convert, m_convert.threads);

    CLI::App* exportDicom =
        command(m_app, "export-dicom",
                "a label map on a DICOM series as a DICOM SEG (BINARY, or LABELMAP keeping the label ids) and, with "
                "--sr, a TID 1500 measurement report referencing it: volume and intensity mean/std/min/max/median "
                "per segment.",
                [this] { return runExportDicom(m_exportDicom); });
    positional(exportDicom, "DICOM", m_exportDicom.dicom, "the DICOM folder of the image series");
    positional(exportDicom, "LABELS", m_exportDicom.labels, "the label map on that series' grid");
    value(exportDicom, "--seg", m_exportDicom.seg, "OUT.dcm", "the DICOM SEG to write")->required();
    value(exportDicom, "--sr", m_exportDicom.sr, "OUT.dcm", "also a TID 1500 measurement report on the SEG");
    value(exportDicom, "--table", m_exportDicom.table, "FILE", "label names, colours and codes");
    value(exportDicom, "--series", m_exportDicom.series, "KEY", "the series when the folder holds several");
    exportDicom->add_flag("--labelmap", m_exportDicom.labelmap, "a LABELMAP SEG (label ids kept) instead of BINARY");
    exportDicom->add_flag("--deidentify", m_exportDicom.deidentify, "PS3.15 basic profile: new UIDs, no names");
    value(exportDicom, "--observer", m_exportDicom.observer, "NAME", "the SR's person observer (default: the device)");

    CLI::App* srShow = command(m_app, "sr-show", "the measurement groups of a DICOM SR measurement report (TID 1500).",
                               [this] { return runSrShow(m_srShow); });
    positional(srShow, "FILE", m_srShow.file, "the SR file");
    json(srShow, m_srShow.json);

    CLI::App* exportRt =
        command(m_app, "export-rtstruct",
                "a label map on a DICOM series as an RT Structure Set: one ROI per label (ROI Number = label id), "
                "contours through the midpoints between labelled and unlabelled voxel centres, holes as their own "
                "contours, simplified within 0.25 pixel (read back, every voxel comes back).",
                [this] { return runExportRtStruct(m_exportRt); });
    positional(exportRt, "DICOM", m_exportRt.dicom, "the DICOM folder of the image series");
    positional(exportRt, "LABELS", m_exportRt.labels, "the label map on that series' grid");
    positional(exportRt, "OUTPUT", m_exportRt.output, "the structure set to write (.dcm)");
    value(exportRt, "--table", m_exportRt.table, "FILE", "ROI names and colours (default: the table beside LABELS)");
    value(exportRt, "--series", m_exportRt.series, "KEY", "the series when the folder holds several");
    value(exportRt, "--author", m_exportRt.author, "NAME", "Operators' Name and ROI Interpreter");
    value(exportRt, "--label", m_exportRt.label, "TEXT", "the Structure Set Label (16 characters)");
    valueName(exportRt->add_option("--type", m_exportRt.types, "an ROI's RT ROI Interpreted Type (default ORGAN)"),
              "ID=TYPE");
    exportRt->add_flag("--deidentify", m_exportRt.deidentify, "PS3.15 basic profile: new UIDs, no names");

    CLI::App* importRt =
        command(m_app, "import-rtstruct",
                "an RT Structure Set onto its DICOM series as a label map (label id = ROI Number, names beside it): "
                "a voxel is inside when its centre is, contours of one ROI on a slice combine even-odd (holes); "
                "where ROIs overlap the smallest wins, and the overlap is reported.",
                [this] { return runImportRtStruct(m_importRt); });
    positional(importRt, "DICOM", m_importRt.dicom, "the DICOM folder of the image series");
    positional(importRt, "RTSTRUCT", m_importRt.rtstruct, "the structure set (.dcm)");
    positional(importRt, "OUTPUT", m_importRt.output, "the label map to write (.nii.gz, .nrrd, .mha, ...)");
    value(importRt, "--series", m_importRt.series, "KEY", "the series when the folder holds several");
    value(importRt, "--masks", m_importRt.masks, "DIR", "also each ROI's own mask, roi-<number>.nii.gz");
    json(importRt, m_importRt.json);
  }

  static void threads(CLI::App* c, int& target) {
    valueName(c->add_option("--threads", target, "reader threads, 1..256 (default: enough for network latency)"), "N")
        ->check(CLI::Range(1, 256));
  }

  void addStudyCommands() {
    CLI::App* study = group("study",
                            "studies on a share store: images imported as received (verified, never changed), label "
                            "sets bound to them, and a catalogue searched through a local index.");
    CLI::App* import = command(*study, "import",
                               "copy DICOM folders/files and volume files (.nii, .nii.gz, .nrrd, .mha) into the share "
                               "as studies: verified, in parallel, resumable; identical files stored once.",
                               [this] { return runStudyImport(m_studyImport); });
    positional(import, "ROOT", m_studyImport.root, "the share store");
    import->add_option("INPUT", m_studyImport.inputs, "DICOM folders or files, volume files")->required();
    value(import, "--study", m_studyImport.study, "NAME",
          "the study to import into (default: a DICOM series' StudyInstanceUID, a volume file's name)");
    value(import, "--modality", m_studyImport.modality, "M", "volume files: the modality (CT, MR, ...)");
    value(import, "--description", m_studyImport.description, "D", "volume files: the study description");
    value(import, "--patient-id", m_studyImport.patientId, "ID", "volume files: the patient ID");
    valueName(import->add_option("--jobs", m_studyImport.jobs, "parallel copies, 1..64 (default: enough for network "
                                                               "latency)"),
              "N")
        ->check(CLI::Range(1, 64));
    import->add_flag("--deidentify", m_studyImport.deidentify,
                     "DICOM de-identified on the way in (PS3.15 basic profile, dates shifted per patient, consistent "
                     "pseudonyms keyed by --key-file)");
    value(import, "--key-file", m_studyImport.keyFile, "FILE",
          "the pseudonym key (16+ bytes, readable by its owner alone and kept off the share: the same key gives the "
          "same pseudonyms)");
    json(import, m_studyImport.json);

    const auto listing = [&](CLI::App* c, StudyOptions& o) {
      value(c, "--sort", o.sortBy, "KEY", "date (default), patient, study, modality, description or revision")
          ->check(CLI::IsMember({"date", "patient", "study", "modality", "description", "revision"}));
      valueName(c->add_option("--limit", o.limit, "at most N studies (default: all)"), "N")->check(CLI::Range(1, 100000000));
      json(c, o.json);
    };
    CLI::App* list = command(*study, "list", "the studies in the catalogue, newest first (the local index catches up "
                                             "with the share first).",
                             [this] { return runStudyList(m_studyList); });
    positional(list, "ROOT", m_studyList.root, "the share store");
    listing(list, m_studyList);

    CLI::App* search = command(*study, "search", "studies by text, patient, modality, date range, description and "
                                                 "label status.",
                               [this] { return runStudySearch(m_studySearch); });
    positional(search, "ROOT", m_studySearch.root, "the share store");
    search->add_option("TEXT", m_studySearch.text, "in patient ID or name, description or study name (any case)");
    value(search, "--patient", m_studySearch.patient, "P", "patient ID or name contains P");
    value(search, "--modality", m_studySearch.modality, "M", "a series of this modality (CT, MR, SEG, ...)");
    value(search, "--from", m_studySearch.dateFrom, "DATE", "study date on or after (YYYY-MM-DD)");
    value(search, "--to", m_studySearch.dateTo, "DATE", "study date on or before (YYYY-MM-DD)");
    value(search, "--description", m_studySearch.description, "D", "study description contains D");
    value(search, "--status", m_studySearch.status, "S", "label status: none, editing, revisions, submitted, approved")
        ->check(CLI::IsMember({"none", "editing", "revisions", "submitted", "approved"}));
    listing(search, m_studySearch);

    CLI::App* show = command(*study, "show", "one study from its folder: series, label sets (bound image, review, who "
                                             "is editing now).",
                             [this] { return runStudyShow(m_studyShow); });
    positional(show, "ROOT", m_studyShow.root, "the share store");
    positional(show, "STUDY", m_studyShow.study, "the study");
    json(show, m_studyShow.json);

    CLI::App* get = command(*study, "get", "a series copied to a local folder, every file's hash verified (prints what "
                                           "to open).",
                            [this] { return runStudyGet(m_studyGet); });
    positional(get, "ROOT", m_studyGet.root, "the share store");
    positional(get, "STUDY", m_studyGet.study, "the study");
    positional(get, "SERIES", m_studyGet.series, "the series");
    positional(get, "FOLDER", m_studyGet.output, "the local folder to fill");
    json(get, m_studyGet.json);

    CLI::App* reindex = command(*study, "reindex", "rebuild the catalogue from the study folders (once for a share "
                                                   "written before the catalogue; after a catalogue warning).",
                                [this] { return runStudyReindex(m_studyReindex); });
    positional(reindex, "ROOT", m_studyReindex.root, "the share store");
    json(reindex, m_studyReindex.json);
  }

  void addDatasetCommands() {
    CLI::App* dataset = group("dataset",
                              "named, versioned lists of (study, label set, revision) with a train/validation/test "
                              "split, frozen by the label revisions' hashes: what training reads.");
    CLI::App* create = command(*dataset, "create",
                               "a new dataset version from the newest approved revision of a label set in every study.",
                               [this] { return runDatasetCreate(m_datasetCreate); });
    positional(create, "ROOT", m_datasetCreate.root, "the share store");
    positional(create, "NAME", m_datasetCreate.name, "the dataset's name");
    value(create, "--from-approved", m_datasetCreate.fromApproved, "LABELSET",
          "take each study's newest approved revision of this label set")
        ->required();
    value(create, "--split", m_datasetCreate.split, "T:V:S", "train:validation:test percentages (default 70:15:15)");
    value(create, "--seed", m_datasetCreate.seed, "KEY", "the split's key (default: the dataset's name)");
    value(create, "--message", m_datasetCreate.message, "M", "what this version is for");
    value(create, "--author", m_datasetCreate.author, "A", "who (default: $DELINEATE_AUTHOR, else this user)");
    json(create, m_datasetCreate.json);

    CLI::App* add = command(*dataset, "add", "a new dataset version with one entry added (or replaced).",
                            [this] { return runDatasetAdd(m_datasetAdd); });
    positional(add, "ROOT", m_datasetAdd.root, "the share store");
    positional(add, "NAME", m_datasetAdd.name, "the dataset's name");
    positional(add, "STUDY", m_datasetAdd.study, "the study");
    positional(add, "LABELSET", m_datasetAdd.labelSet, "the label set");
    revision(add, "REV", m_datasetAdd.revision, "the label revision");
    value(add, "--split", m_datasetAdd.entrySplit, "train|validation|test", "where the entry goes")->required();
    value(add, "--message", m_datasetAdd.message, "M", "why");
    value(add, "--author", m_datasetAdd.author, "A", "who (default: $DELINEATE_AUTHOR, else this user)");
    json(add, m_datasetAdd.json);

    CLI::App* show = command(*dataset, "show", "a dataset version's entries, each label revision's hash verified.",
                             [this] { return runDatasetShow(m_datasetShow); });
    positional(show, "ROOT", m_datasetShow.root, "the share store");
    positional(show, "NAME", m_datasetShow.name, "the dataset's name");
    show->add_option("REV", m_datasetShow.revision, "the dataset version (default: the newest)")->check(kRevisionRange);
    json(show, m_datasetShow.json);

    CLI::App* fetch = command(*dataset, "fetch",
                              "a dataset version's cases to a local folder: each label revision checked against the "
                              "hash the dataset names and its image series fetched, both verified; cases.json lists "
                              "them (what training reads) and the cases skipped, with the reason.",
                              [this] { return runDatasetFetch(m_datasetFetch); });
    positional(fetch, "ROOT", m_datasetFetch.root, "the share store");
    positional(fetch, "NAME", m_datasetFetch.name, "the dataset's name");
    positional(fetch, "FOLDER", m_datasetFetch.folder, "the local folder to fill");
    fetch->add_option("--revision", m_datasetFetch.revision, "the dataset version (default: the newest)")
        ->check(kRevisionRange)
        ->option_text("N");
    fetch->add_flag("--stop-on-bad-case", m_datasetFetch.stopOnBadCase,
                    "fail at the first case that cannot be used instead of skipping it");
    json(fetch, m_datasetFetch.json);

    CLI::App* list = command(*dataset, "list", "the datasets in the store with their newest version.",
                             [this] { return runDatasetList(m_datasetList); });
    positional(list, "ROOT", m_datasetList.root, "the share store");
    json(list, m_datasetList.json);
  }

  void addReviewCommands() {
    CLI::App* review = group("review",
                             "review state of label-set revisions: submitted, then approved or sent back by another "
                             "user (recorded on the share, audited).");
    const struct {
      const char* name;
      const char* what;
    } steps[] = {{"submit", "submit a revision for review (a new one, or one sent back)."},
                 {"approve", "approve a submitted revision (not its author's or submitter's own)."},
                 {"reject", "send a submitted revision back, with a --comment saying what to change."}};
    for (const auto& step : steps) {
      ReviewOptions& o = step.name[0] == 's' ? m_reviewSubmit : step.name[0] == 'a' ? m_reviewApprove : m_reviewReject;
      o.action = step.name;
      CLI::App* c = command(*review, step.name, step.what, [this, &o] { return runReview(o); });
      labelSet(c, o.set);
      revision(c, "REV", o.revision, "the revision number");
      value(c, "--user", o.user, "U", "who (default: $DELINEATE_AUTHOR, else this user)");
      CLI::Option* comment = value(c, "--comment", o.comment, "C", "a note; required to send a revision back");
      if (step.name[0] == 'r') comment->required();
      json(c, o.json);
    }
    CLI::App* show = command(*review, "show", "the review state and history of one revision, or of every reviewed one.",
                             [this] { return runReviewShow(m_reviewShow); });
    labelSet(show, m_reviewShow.set);
    show->add_option("REV", m_reviewShow.revision, "the revision number (default: every reviewed revision)")
        ->check(kRevisionRange);
    json(show, m_reviewShow.json);
  }

  void addShareCommands() {
    CLI::App* share = group("share", "versioned label maps on a share store: nothing is ever overwritten.");

    CLI::App* init = command(*share, "init", "make ROOT (an existing folder, e.g. on a network share) a share store.",
                             [this] { return runShareInit(m_shareInit); });
    positional(init, "ROOT", m_shareInit.root, "the folder");

    CLI::App* save = command(*share, "save",
                             "store a label map as a new revision (never an overwrite); a save whose base is no longer "
                             "the newest is kept and marked as a CONFLICT (told on stderr).",
                             [this] { return runShareSave(m_shareSave); });
    labelSet(save, m_shareSave.set);
    positional(save, "LABELFILE", m_shareSave.labelFile, "the label map to store");
    save->add_option_function<std::string>(
            "--base",
            [this](const std::string& text) {
              if (text == "latest") m_shareSave.base.reset();
              else m_shareSave.base = text == "0" ? 0 : parseRevision(text).value_or(0);
            },
            "the revision the edit started from (0: none; default latest)")
        ->option_text("N|0|latest")
        ->check(checkedBy(
            [](const std::string& text) { return text == "latest" || text == "0" || parseRevision(text).has_value(); },
            "takes a revision number, 0 or 'latest'"));
    value(save, "--message", m_shareSave.message, "M", "what changed");
    value(save, "--author", m_shareSave.author, "A", "who saved (default: $DELINEATE_AUTHOR, else this user)");
    value(save, "--series", m_shareSave.series, "SERIES",
          "the study's image series the labels belong to (default: the one series on their grid)");
    json(save, m_shareSave.json);

    CLI::App* list = command(*share, "list", "the revisions with author, time, base, hash and conflicts.",
                             [this] { return runShareList(m_shareList); });
    labelSet(list, m_shareList.set);
    json(list, m_shareList.json);

    CLI::App* show = command(*share, "show", "one revision: metadata, voxels and mL per label (hash verified).",
                             [this] { return runShareShow(m_shareShow); });
    labelSet(show, m_shareShow.set);
    revision(show, "REV", m_shareShow.revision, "the revision number");
    json(show, m_shareShow.json);

    CLI::App* diff = command(*share, "diff", "changed voxels per label between two revisions.",
                             [this] { return runShareDiff(m_shareDiff); });
    labelSet(diff, m_shareDiff.set);
    revision(diff, "REV_A", m_shareDiff.revisionA, "the revision compared from");
    revision(diff, "REV_B", m_shareDiff.revisionB, "the revision compared to");
    json(diff, m_shareDiff.json);

    CLI::App* get = command(*share, "get", "a revision to a local label file (hash verified).",
                            [this] { return runShareGet(m_shareGet); });
    labelSet(get, m_shareGet.set);
    revision(get, "REV", m_shareGet.revision, "the revision number");
    positional(get, "OUTPUT", m_shareGet.output, "the label file to write (.nii.gz: the revision's own bytes)");

    CLI::App* restore = command(*share, "restore", "an old revision saved again as the newest.",
                                [this] { return runShareRestore(m_shareRestore); });
    labelSet(restore, m_shareRestore.set);
    revision(restore, "REV", m_shareRestore.revision, "the revision to restore");
    value(restore, "--message", m_shareRestore.message, "M", "the new revision's message (default: restore of rREV)");
    value(restore, "--author", m_shareRestore.author, "A", "who restored (default: $DELINEATE_AUTHOR, else this user)");

    CLI::App* lease = command(*share, "lease", "who is editing the label set.",
                              [this] { return runShareLease(m_shareLease); });
    labelSet(lease, m_shareLease);

    CLI::App* report = command(*share, "report",
                               "publish the revision's statistics (CSV, JSON) and, on a DICOM series, its DICOM SEG "
                               "and TID 1500 report on the share (reports/STUDY/LABELSET/rREV/N/, never overwritten, "
                               "audited). The image is --dicom FOLDER or --image FILE.",
                               [this] { return runShareReport(m_shareReport); });
    labelSet(report, m_shareReport.set);
    revision(report, "REV", m_shareReport.revision, "the revision to report on");
    CLI::Option* dicom = value(report, "--dicom", m_shareReport.dicom, "FOLDER", "the image as a DICOM series");
    CLI::Option* image = value(report, "--image", m_shareReport.image, "FILE", "the image as a volume file");
    dicom->excludes(image);
    value(report, "--series", m_shareReport.series, "KEY", "the series when the DICOM folder holds several");
    value(report, "--table", m_shareReport.table, "FILE",
          "label names and colours (default: the table saved with the revision)");
    report->add_flag("--labelmap", m_shareReport.labelmap, "a LABELMAP SEG (label ids kept) instead of BINARY");
    report->add_flag("--deidentify", m_shareReport.deidentify, "PS3.15 basic profile: new UIDs, no names");
    value(report, "--observer", m_shareReport.observer, "NAME", "the SR's person observer");
    value(report, "--message", m_shareReport.message, "M", "a note on the publication");
    value(report, "--author", m_shareReport.author, "A", "who published (default: $DELINEATE_AUTHOR, else this user)");
    json(report, m_shareReport.json);

    CLI::App* reports = command(*share, "reports", "the reports published for a label set, incomplete ones apart.",
                                [this] { return runShareReports(m_shareReports); });
    labelSet(reports, m_shareReports.set);
    json(reports, m_shareReports.json);
  }

  void addCheckpointCommands() {
    CLI::App* checkpoint = group("checkpoint", "model checkpoints on a share store: streamed, hash verified, with a "
                                               "JSON sidecar.");
    CLI::App* put = command(*checkpoint, "put",
                            "store a model checkpoint (a torch.save state_dict or safetensors file, checked) as a new "
                            "revision (streamed).",
                            [this] { return runCheckpointPut(m_checkpointPut); });
    positional(put, "ROOT", m_checkpointPut.root, "the share store");
    positional(put, "MODEL", m_checkpointPut.model, "the model's name in the store");
    positional(put, "FILE", m_checkpointPut.file, "the checkpoint (.pt, .safetensors, ...)");
    value(put, "--sidecar", m_checkpointPut.sidecar, "JSON", "a JSON object kept with it (architecture, metrics, ...)");
    value(put, "--message", m_checkpointPut.message, "M", "a note on the checkpoint");
    value(put, "--author", m_checkpointPut.author, "A", "who stored it (default: $DELINEATE_AUTHOR, else this user)");

    CLI::App* get = command(*checkpoint, "get", "copy a checkpoint revision out, hash verified.",
                            [this] { return runCheckpointGet(m_checkpointGet); });
    positional(get, "ROOT", m_checkpointGet.root, "the share store");
    positional(get, "MODEL", m_checkpointGet.model, "the model's name in the store");
    revision(get, "REV", m_checkpointGet.revision, "the revision number");
    positional(get, "OUTPUT", m_checkpointGet.output, "the file to write");

    CLI::App* list = command(*checkpoint, "list", "the checkpoint revisions of a model.",
                             [this] { return runCheckpointList(m_checkpointList); });
    positional(list, "ROOT", m_checkpointList.root, "the share store");
    positional(list, "MODEL", m_checkpointList.model, "the model's name in the store");
    json(list, m_checkpointList.json);
  }

  void addModelCommands() {
    CLI::App* model = group("model", "model weights on this machine: known public models, downloads (resumed, SHA-256 "
                                     "verified) and files you have, which engines take as model:NAME.");
    CLI::App* list = command(*model, "list", "the known public models (licence, where from) and this machine's.",
                             [this] { return runModelList(m_modelList); });
    value(list, "--known", m_modelList.known, "FILE", "the known-models list (default: the installed one)");
    json(list, m_modelList.json);

    CLI::App* fetch = command(*model, "fetch",
                              "download a model: a known one by name (its licence, size and hash shown first) or "
                              "a URL; a broken download resumes; the SHA-256 is checked before it counts.",
                              [this] { return runModelFetch(m_modelFetch); });
    positional(fetch, "NAME|URL", m_modelFetch.what, "a known model's name, or an http(s) URL");
    value(fetch, "--name", m_modelFetch.name, "NAME", "the name to keep it under (required with a URL)");
    value(fetch, "--sha256", m_modelFetch.sha256, "HEX", "the SHA-256 the file must have (a known model's by default)");
    value(fetch, "--licence", m_modelFetch.licence, "TEXT", "its licence, recorded with it (a URL's)");
    fetch->add_flag("--yes", m_modelFetch.yes, "accept the licence shown without asking");
    value(fetch, "--known", m_modelFetch.known, "FILE", "the known-models list (default: the installed one)");
    json(fetch, m_modelFetch.json);

    CLI::App* reg = command(*model, "register",
                            "record a model file you already have (its SHA-256 computed, checked against a known "
                            "model's or --sha256); the file stays where it is.",
                            [this] { return runModelRegister(m_modelRegister); });
    positional(reg, "FILE", m_modelRegister.file, "the weights (model.pt, .safetensors, a delineate-train .pt)");
    value(reg, "--name", m_modelRegister.name, "NAME", "the name engines find it by (model:NAME)")->required();
    value(reg, "--sha256", m_modelRegister.sha256, "HEX", "the SHA-256 the file must have");
    value(reg, "--licence", m_modelRegister.licence, "TEXT", "its licence (a known model's by default)");
    value(reg, "--known", m_modelRegister.known, "FILE", "the known-models list (default: the installed one)");
    json(reg, m_modelRegister.json);

    CLI::App* path = command(*model, "path", "the file of a model of this machine (what model:NAME stands for).",
                             [this] { return runModelPath(m_modelPath); });
    positional(path, "NAME", m_modelPath.name, "the model's name");
  }

  void addAuditCommands() {
    CLI::App* audit = group("audit", "the share store's append-only audit logs.");
    CLI::App* verify = command(*audit, "verify",
                               "check the audit logs' hash chains; reports the first tampered or damaged line "
                               "(exit 1).",
                               [this] { return runAuditVerify(m_auditVerify); });
    verify->add_option("LOGFILE|ROOT", m_auditVerify.targets, "audit log files, or share stores (all their logs)")
        ->required()
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
    CLI::App* show = command(*audit, "show",
                             "who did what, and who read what, on the share: every host's log merged by time and "
                             "filtered; each log's chain is checked (exit 1 when one is broken).",
                             [this] { return runAuditShow(m_auditShow); });
    positional(show, "ROOT", m_auditShow.root, "the share store");
    value(show, "--study", m_auditShow.study, "S", "records of this study only");
    value(show, "--user", m_auditShow.user, "U", "records of this user only");
    value(show, "--action", m_auditShow.action, "A", "records of this action only (read, save, review, ...)");
    value(show, "--from", m_auditShow.from, "TIME", "from this UTC time on (2026-11-28 or 2026-11-28T10:00)");
    value(show, "--to", m_auditShow.to, "TIME", "up to this UTC time (the whole day or minute given)");
    json(show, m_auditShow.json);
  }

  void addTrustCommands() {
    CLI::App* trust = group("trust", "signing keys and the share's roster: who may sign what (annotator, reviewer, "
                                     "trainer, admin); every signed record checked.");
    const auto keyOption = [&](CLI::App* c) {
      value(c, "--key", m_trust.keyFile, "FILE",
            "the signing key (default: $DELINEATE_KEY_FILE, else ~/.config/delineate/identity/ed25519.pem)");
    };
    const auto roles = [&](CLI::App* c, bool required) {
      CLI::Option* o = repeatable(valueName(
          c->add_option("--role", m_trust.roles, "a role: annotator, reviewer, trainer or admin (repeatable)"), "R"));
      o->check(CLI::IsMember({"annotator", "reviewer", "trainer", "admin"}));
      if (required) o->required();
    };
    CLI::App* keygen = command(*trust, "keygen", "create this user's Ed25519 signing key (owner-only; never replaced).",
                               [this] { return runTrustKeygen(m_trust); });
    keyOption(keygen);
    json(keygen, m_trust.json);
    CLI::App* key = command(*trust, "key", "this user's public key and fingerprint (what an admin adds).",
                            [this] { return runTrustKey(m_trust); });
    keyOption(key);
    json(key, m_trust.json);
    CLI::App* init = command(*trust, "init", "give an unsigned share its roster, with this user's key as its admin.",
                             [this] { return runTrustInit(m_trust); });
    positional(init, "ROOT", m_trust.root, "the share store");
    value(init, "--user", m_trust.user, "NAME", "the admin's name on the roster (default: this login)");
    roles(init, false);
    keyOption(init);
    CLI::App* add = command(*trust, "add", "add a member to the roster, or change a member's key and roles (admins).",
                            [this] { return runTrustAdd(m_trust); });
    positional(add, "ROOT", m_trust.root, "the share store");
    positional(add, "USER", m_trust.user, "the member's name (their login)");
    positional(add, "PUBKEY", m_trust.publicKey, "their public key, as 'trust key' prints it");
    value(add, "--box-key", m_trust.boxKey, "BOXKEY",
          "their box key, as 'trust key' prints it: the share's content key is wrapped for it (needed where the "
          "share encrypts its content)");
    roles(add, true);
    keyOption(add);
    CLI::App* remove = command(*trust, "remove", "remove a member: nothing they signed counts any more (admins).",
                               [this] { return runTrustRemove(m_trust); });
    positional(remove, "ROOT", m_trust.root, "the share store");
    positional(remove, "USER", m_trust.user, "the member's name");
    keyOption(remove);
    CLI::App* encrypt = command(*trust, "encrypt", "encrypt the share's content files from now on (label revisions, "
                                                   "checkpoints, datasets, imported series) under a content key "
                                                   "wrapped for each member; removing a member changes the key (admins).",
                                [this] { return runTrustEncrypt(m_trust); });
    positional(encrypt, "ROOT", m_trust.root, "the share store");
    keyOption(encrypt);
    CLI::App* show = command(*trust, "show", "the roster as this machine trusts it (pinned on first use); exit 1 when "
                                             "it is not trusted.",
                             [this] { return runTrustShow(m_trust); });
    positional(show, "ROOT", m_trust.root, "the share store");
    json(show, m_trust.json);
    CLI::App* verify = command(*trust, "verify", "check every signed record of the share: label revisions, review "
                                                 "steps, datasets, checkpoints; exit 1 on a forged, unknown-key or "
                                                 "out-of-role record.",
                               [this] { return runTrustVerify(m_trust); });
    positional(verify, "ROOT", m_trust.root, "the share store");
    json(verify, m_trust.json);
  }

  void addPacsCommands() {
    CLI::App* pacs = group("pacs", "a PACS over DIMSE (C-ECHO, C-FIND, C-GET, C-MOVE, C-STORE, a storage SCP) or "
                                   "DICOMweb (QIDO-RS, WADO-RS, STOW-RS).");
    const auto peer = [&](CLI::App* c, PacsOptions& o, bool web) {
      value(c, "--peer", o.peer, "AE@HOST:PORT", "the PACS over DIMSE: its AE title, host and port");
      if (web) {
        CLI::Option* url = value(c, "--url", o.url, "URL", "the PACS over DICOMweb: its root (https://host/dicom-web)");
        url->excludes(c->get_option("--peer"));
        value(c, "--credentials", o.credentials, "FILE",
              "DICOMweb: 'basic USER:PASSWORD' or 'bearer TOKEN' in a file only its owner can read");
      }
      value(c, "--aet", o.callingAe, "AE", "DIMSE: our calling AE title (default DELINEATE)");
      c->add_flag("--tls", o.tls, "DIMSE over TLS (BCP 195), the peer's certificate verified against --ca");
      value(c, "--ca", o.caFile, "FILE", "TLS: the certificate authorities (PEM) the peer's certificate must chain to");
      value(c, "--cert", o.certFile, "FILE", "TLS: our certificate (PEM), when the peer asks for one");
      value(c, "--key", o.tlsKeyFile, "FILE", "TLS: our private key (PEM)");
      valueName(c->add_option("--timeout", o.timeout, "seconds to wait for each answer, 1..3600 (default 60)"), "S")
          ->check(CLI::Range(1, 3600));
    };
    const auto what = [&](CLI::App* c, PacsOptions& o) {
      value(c, "--study", o.study, "UID", "the study's Study Instance UID")->required();
      value(c, "--series", o.series, "UID", "one series of it (default: the whole study)");
      repeatable(valueName(c->add_option("--instance", o.instances, "only these instances of the series"), "UID"));
      value(c, "--out", o.output, "FOLDER", "where the instances go (one owner-only file per instance; a rerun resumes)")
          ->required();
      value(c, "--share", o.share, "ROOT", "then import them into this share's study catalogue (verified)");
      c->add_flag("--deidentify", o.deidentify, "with --share: de-identified on the way in (as study import)");
      value(c, "--key-file", o.pseudonymKeyFile, "FILE", "with --deidentify: the pseudonym key (as study import)");
      valueName(c->add_option("--in-flight", o.inFlight, "associations or requests at once, 1..32 (default 4)"), "N")
          ->check(CLI::Range(1, 32));
      json(c, o.json);
    };

    CLI::App* echo = command(*pacs, "echo", "C-ECHO: is the PACS there and does it accept us?",
                             [this] { return runPacsEcho(m_pacs); });
    peer(echo, m_pacs, false);

    CLI::App* find = command(*pacs, "find", "C-FIND or QIDO-RS: patients, studies, series or instances that match.",
                             [this] { return runPacsFind(m_pacs); });
    peer(find, m_pacs, true);
    value(find, "--level", m_pacs.level, "LEVEL", "patient, study (default), series or instance")
        ->check(CLI::IsMember({"patient", "study", "series", "instance"}));
    value(find, "--patient-id", m_pacs.patientId, "ID", "Patient ID (wildcards * and ?)");
    value(find, "--patient-name", m_pacs.patientName, "NAME", "Patient's Name (wildcards * and ?)");
    value(find, "--birth-date", m_pacs.birthDate, "DATE", "YYYYMMDD or a range YYYYMMDD-YYYYMMDD");
    value(find, "--study-date", m_pacs.studyDate, "DATE", "YYYYMMDD or a range YYYYMMDD-YYYYMMDD (either end open)");
    value(find, "--modality", m_pacs.modality, "M", "CT, MR, SEG, ...");
    value(find, "--description", m_pacs.description, "TEXT", "study description (series description at series level)");
    value(find, "--accession", m_pacs.accession, "A", "Accession Number");
    value(find, "--study", m_pacs.studyUid, "UID", "within this study (series and instance levels)");
    value(find, "--series", m_pacs.seriesUid, "UID", "within this series (instance level)");
    valueName(find->add_option("--limit", m_pacs.limit, "at most N matches (default: all)"), "N")
        ->check(CLI::Range(1, 10000000));
    json(find, m_pacs.json);

    CLI::App* get = command(*pacs, "get", "C-GET or WADO-RS: a study, series or instances into a folder.",
                            [this] { return runPacsGet(m_pacs); });
    peer(get, m_pacs, true);
    what(get, m_pacs);

    CLI::App* move = command(*pacs, "move",
                             "C-MOVE to our own storage SCP, started for the transfer (the PACS must know its AE "
                             "title, host and port).",
                             [this] { return runPacsMove(m_pacs); });
    peer(move, m_pacs, false);
    what(move, m_pacs);
    value(move, "--move-aet", m_pacs.moveAe, "AE", "our storage SCP's AE title (default: --aet)");
    valueName(move->add_option("--port", m_pacs.movePort, "our storage SCP's port (default 11112)"), "PORT")
        ->check(CLI::Range(1, 65535));

    CLI::App* store = command(*pacs, "store", "C-STORE or STOW-RS: DICOM files (our SEG and SR, or any) to the PACS.",
                              [this] { return runPacsStore(m_pacs); });
    peer(store, m_pacs, true);
    store->add_option("FILE", m_pacs.files, "DICOM files or folders of them")->required();
    json(store, m_pacs.json);

    CLI::App* listen = command(*pacs, "listen",
                               "a storage SCP: what a PACS sends is imported into the share's catalogue, a series "
                               "once complete; runs until interrupted.",
                               [this] { return runPacsListen(m_pacs); });
    positional(listen, "ROOT", m_pacs.share, "the share store");
    value(listen, "--aet", m_pacs.callingAe, "AE", "our AE title (default DELINEATE)");
    valueName(listen->add_option("--port", m_pacs.port, "the port to listen on (default 11112)"), "PORT")
        ->check(CLI::Range(1, 65535));
    value(listen, "--bind", m_pacs.bind, "ADDRESS", "the address to listen on (default 0.0.0.0)");
    repeatable(valueName(listen->add_option("--accept", m_pacs.acceptAes, "a calling AE title accepted (default: any)"), "AE"));
    listen->add_flag("--tls", m_pacs.tls, "TLS (BCP 195): needs --cert and --key; --ca: clients must present one");
    value(listen, "--ca", m_pacs.caFile, "FILE", "TLS: require client certificates chaining to these CAs (PEM)");
    value(listen, "--cert", m_pacs.certFile, "FILE", "TLS: our certificate (PEM)");
    value(listen, "--key", m_pacs.tlsKeyFile, "FILE", "TLS: our private key (PEM)");
    valueName(listen->add_option("--idle", m_pacs.idleSeconds,
                                 "seconds without a new instance after which a series is complete (default 30)"),
              "S")
        ->check(CLI::Range(1, 86400));
    value(listen, "--spool", m_pacs.spool, "FOLDER", "where instances wait until their series is complete (default: "
                                                     "the user's cache)");
    listen->add_flag("--deidentify", m_pacs.deidentify, "de-identified on the way in (as study import)");
    value(listen, "--key-file", m_pacs.pseudonymKeyFile, "FILE", "with --deidentify: the pseudonym key (as study import)");
    json(listen, m_pacs.json);
  }

  void addBatchCommands() {
    BatchOptions& o = m_batch;
    CLI::App* b = command(m_app, "batch",
                          "an engine over a cohort of studies on a share store, each result a new label-set revision; "
                          "resumable (what is done is read from the share), as a Slurm job array (--slurm) or as studies "
                          "arrive (--watch). Exit 0: complete; 3: partial (some failed, named); 1: failed.",
                          [this] { return runBatch(m_batch); });
    b->require_subcommand(0, 1);
    b->add_option("ROOT", o.root, "the share store");
    value(b, "--label-set", o.labelSet, "NAME", "the label set the results are saved to (required)");
    value(b, "--engine", o.engine, "ID", "classic (default), classic.threshold, a checkpoint file, share:ROOT#MODEL[@REV] or model:NAME");
    value(b, "--device", o.device, "auto|cpu|cuda", "a checkpoint engine's device");
    labelIds(b, "--class", o.classes, "a class to produce (default: every class the engine has)");
    CLI::Option* dataset = value(b, "--dataset", o.dataset, "NAME[@REV]", "the studies of a dataset (its newest version)");
    CLI::Option* studies = repeatable(valueName(b->add_option("--studies", o.studies, "these studies")->delimiter(','), "A,B"));
    CLI::Option* list = value(b, "--list", o.listFile, "FILE", "the studies named in FILE, one per line ('#' comments)");
    CLI::Option* folder = value(b, "--folder", o.folder, "DIR",
                                "import DIR's volume files (a study each, named by the file) and DICOM folders first");
    CLI::Option* all = b->add_flag("--all", o.all, "every study in the catalogue (the default without another source)");
    const std::vector<CLI::Option*> sources{dataset, studies, list, folder, all};
    for (auto* x : sources)
      for (auto* y : sources)
        if (x != y) x->excludes(y);
    value(b, "--text", o.text, "T", "catalogue: patient ID or name, description or study name contains T");
    value(b, "--patient", o.patient, "P", "catalogue: patient ID or name contains P");
    value(b, "--modality", o.modality, "M", "catalogue: a series of this modality; and the series segmented");
    value(b, "--from", o.dateFrom, "DATE", "catalogue: study date on or after (YYYY-MM-DD)");
    value(b, "--to", o.dateTo, "DATE", "catalogue: study date on or before (YYYY-MM-DD)");
    b->add_flag("--also-labelled", o.alsoLabelled,
                "also segment studies whose label set holds revisions by others (a new revision on top)");
    value(b, "--author", o.author, "NAME", "the revisions' author (default: $DELINEATE_AUTHOR or the login)");
    value(b, "--message", o.message, "TEXT", "the revisions' message (default: 'batch: ENGINE')");
    value(b, "--summary", o.summary, "FILE", "the summary table: .csv (a row per study) or .json (everything)");
    value(b, "--statistics", o.statistics, "FILE", "per-label statistics as CSV (a row per study and label)");
    json(b, o.json);
    b->add_option_function<std::string>(
         "--slice",
         [&o](const std::string& text) {
           if (text == "slurm") {
             o.sliceFromSlurm = true;
             return;
           }
           const auto slash = text.find('/');
           try {
             if (slash == std::string::npos) throw std::invalid_argument(text);
             std::size_t used = 0;
             o.sliceIndex = std::stoi(text.substr(0, slash), &used);
             if (used != slash) throw std::invalid_argument(text);
             o.sliceCount = std::stoi(text.substr(slash + 1), &used);
             if (used != text.size() - slash - 1) throw std::invalid_argument(text);
           } catch (const std::exception&) {
             throw CLI::ValidationError("--slice", "expected K/N (e.g. 2/8) or 'slurm', got '" + text + "'");
           }
         },
         "K/N: only the studies whose position modulo N is K; 'slurm': this array task's share")
        ->option_text("K/N|slurm");
    b->add_flag("--watch", o.watch, "keep running: segment the catalogue's studies that match as they arrive (SIGTERM "
                                    "stops after the current study)");
    valueName(b->add_option("--poll", o.pollSeconds, "--watch: seconds between looks at the catalogue (default 10)")
        ->check(CLI::Range(0.2, 3600.0)), "S");
    b->add_flag("--slurm", o.slurm, "submit the batch as a Slurm job array instead of running it here");
    value(b, "--job-dir", o.jobDir, "DIR", "--slurm: the job's folder (script, study list, logs, results), on storage "
                                          "every node mounts");
    valueName(b->add_option("--array-tasks", o.arrayTasks, "--slurm: array tasks (default: one per study, at most 100)")
        ->check(CLI::Range(1, 100000)), "N");
    valueName(b->add_option("--max-running", o.maxRunning, "--slurm: at most this many tasks at once (sbatch --array=...%M)")
        ->check(CLI::Range(1, 100000)), "M");
    valueName(b->add_option("--cpus", o.cpus, "--slurm: CPUs per task")->check(CLI::Range(1, 4096)), "N");
    value(b, "--mem", o.memory, "SIZE", "--slurm: memory per task's node (e.g. 8G)");
    value(b, "--time", o.time, "LIMIT", "--slurm: wall-time limit per task (e.g. 1:00:00)");
    valueName(b->add_option("--gpus", o.gpus, "--slurm: GPUs per task (--gres=gpu:N)")->check(CLI::Range(1, 64)), "N");
    value(b, "--partition", o.partition, "P", "--slurm: the partition");
    value(b, "--account", o.account, "A", "--slurm: the account");
    repeatable(valueName(b->add_option("--sbatch-option", o.sbatchOptions, "--slurm: one more #SBATCH line, verbatim"),
                         "OPTION"));
    b->add_flag("--no-submit", o.noSubmit, "--slurm: write the job folder and script, do not submit");

    const auto jobCommand = [&](const std::string& name, const std::string& what, BatchJobOptions& target,
                                int (*action)(const BatchJobOptions&)) {
      CLI::App* c = command(*b, name, what, [action, &target] { return action(target); });
      positional(c, "JOBDIR", target.jobDir, "the job's folder (batch --slurm --job-dir)");
      return c;
    };
    json(jobCommand("status", "a submitted batch: its tasks in the queue, and per study done (read from the share), "
                              "failed (with the reason) or to do.",
                    m_batchStatus, runBatchStatus),
         m_batchStatus.json);
    jobCommand("cancel", "scancel the batch's job (saved revisions stay).", m_batchCancel, runBatchCancel);
    jobCommand("resubmit", "submit the batch's script again (after a cancel or a failure): done studies are skipped.",
               m_batchResubmit, runBatchResubmit);
  }

  CLI::App m_app;
  std::map<const CLI::App*, std::function<int()>> m_actions;
  BatchOptions m_batch;
  BatchJobOptions m_batchStatus, m_batchCancel, m_batchResubmit;
  InfoOptions m_info;
  SegmentOptions m_segment;
  ClickEvalOptions m_clickEval;
  DicomIndexOptions m_dicomIndex;
  ConvertOptions m_convert;
  ExportDicomOptions m_exportDicom;
  SrShowOptions m_srShow;
  ExportRtStructOptions m_exportRt;
  ImportRtStructOptions m_importRt;
  ShareInitOptions m_shareInit;
  ShareSaveOptions m_shareSave;
  ShareListOptions m_shareList;
  ReviewOptions m_reviewSubmit, m_reviewApprove, m_reviewReject, m_reviewShow;
  StudyOptions m_studyImport, m_studyList, m_studySearch, m_studyShow, m_studyGet, m_studyReindex;
  DatasetOptions m_datasetCreate, m_datasetAdd, m_datasetShow, m_datasetList, m_datasetFetch;
  ShareShowOptions m_shareShow;
  ShareDiffOptions m_shareDiff;
  ShareGetOptions m_shareGet;
  ShareRestoreOptions m_shareRestore;
  LabelSetPath m_shareLease;
  ShareReportOptions m_shareReport;
  ShareListOptions m_shareReports;
  ModelListOptions m_modelList;
  ModelFetchOptions m_modelFetch;
  ModelRegisterOptions m_modelRegister;
  ModelPathOptions m_modelPath;
  CheckpointPutOptions m_checkpointPut;
  CheckpointGetOptions m_checkpointGet;
  CheckpointListOptions m_checkpointList;
  AuditVerifyOptions m_auditVerify;
  AuditShowOptions m_auditShow;
  TrustOptions m_trust;
  PacsOptions m_pacs;
};

}  // namespace
}  // namespace delineate::app::cli

int main(int argc, char** argv) {
  // Lower layers report errors as values; anything thrown is a bug or an allocation failure, and still ends with a
  // message and exit code 1 instead of an abort.
  try {
    // Engines read checkpoints through io: a sealed copy (the checkpoint cache, a delineate-train run) reads as its
    // content.
    delineate::core::setFileSource(delineate::io::atRestFileSource());
    delineate::app::cli::Program program;
    return program.run(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "error: out of memory\n");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: internal error: %s\n", e.what());
  }
  return 1;
}
