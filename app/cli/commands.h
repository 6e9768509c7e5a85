#pragma once
// The subcommands of delineate-cli. Their arguments are parsed once, in command_line.cpp (CLI11), into the option
// structs below; a run function gets arguments that already passed every check that needs no file, and returns the
// process exit code.

#include <cstdio>
#include <optional>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/error.h"
#include "core/label_map.h"
#include "core/progress.h"
#include "core/scalar_image.h"
#include "core/statistics.h"

namespace delineate::io {
struct DeidentifyKey;
struct StudyImportReport;
struct DicomIndex;
struct DicomSeries;
class ShareStore;
struct RecordTrust;
}  // namespace delineate::io

namespace delineate::app::cli {

struct InfoOptions {
  std::string image;
  std::string series;  // DICOM input: KEY or series number
  bool allowIrregular = false;
  bool allowUnreadable = false;
  std::string labels;
  std::string table;
  std::string engine;  // --segment
  std::string format = "text";
  std::optional<core::SliceRange> slices;  // voxel slices, inclusive; last -1 = to the end
};

// How a command reads a DICOM series given as its image (see readInputImage).
struct DicomInput {
  std::string series;  // KEY or series number
  bool allowIrregular = false;
  bool allowUnreadable = false;
};

struct SegmentOptions {
  std::string image, output;
  DicomInput dicom;
  std::string engine = "classic";
  std::string device = "auto";  // a checkpoint engine's device
  std::vector<core::Label> classes;
};

struct DicomIndexOptions {
  std::string folder;
  std::string format = "text";
  int threads = 0;  // 0: io's default
  bool noRecursive = false;
};

struct ConvertOptions {
  std::string input, output;
  std::string series;  // KEY or series number
  bool allowIrregular = false;
  bool allowUnreadable = false;
  int threads = 0;
};

struct ClickEvalOptions {
  std::string image, labels;
  DicomInput dicom;
  std::vector<core::Label> labelIds;  // empty: every label in LABELS
  int clicks = 10;
  std::string first = "deepest";  // where the first click goes: deepest | interior (inference/click_evaluator.h)
  std::uint64_t seed = 1;          // of the interior draw (each label draws with seed + label)
  std::string prompts = "clicks";  // clicks | box (a box, then the clicks) | scribble
  std::string start;               // a label map whose objects the prompts correct (a model's output)
  std::string engine;              // a trained model whose probabilities guide the prompts (model-guided)
  std::string device = "auto";
  bool json = false;
};

struct ExportDicomOptions {
  std::string dicom, labels, table, series, seg, sr, observer;
  bool labelmap = false;
  bool deidentify = false;
};

struct ExportRtStructOptions {
  std::string dicom, labels, output, table, series, author, label;
  std::vector<std::string> types;  // ID=TYPE
  bool deidentify = false;
};

struct ImportRtStructOptions {
  std::string dicom, rtstruct, output, series, masks;
  bool json = false;
};

struct SrShowOptions {
  std::string file;
  bool json = false;
};

// ROOT STUDY LABELSET, the start of every share command but init.
struct LabelSetPath {
  std::string root, study, labelSet;
};

struct ShareInitOptions {
  std::string root;
};

struct ShareSaveOptions {
  LabelSetPath set;
  std::string labelFile;
  std::optional<int> base;  // nullopt: the newest revision; 0: none
  std::string message, author;  // author empty: this process's user
  std::string series;           // the study's image series the labels are bound to (empty: the one on their grid)
  bool json = false;
};

struct ShareListOptions {  // share list, share reports
  LabelSetPath set;
  bool json = false;
};

struct ShareShowOptions {
  LabelSetPath set;
  int revision = 0;
  bool json = false;
};

struct ShareDiffOptions {
  LabelSetPath set;
  int revisionA = 0, revisionB = 0;
  bool json = false;
};

struct ShareGetOptions {
  LabelSetPath set;
  int revision = 0;
  std::string output;
};

struct ShareRestoreOptions {
  LabelSetPath set;
  int revision = 0;
  std::string message, author;  // message empty: "restore of rN"
};

struct StudyOptions {  // study import | list | search | show | get | reindex
  std::string root;
  std::vector<std::string> inputs;  // import
  std::string study, series, output;  // show, get; import: --study
  std::string modality, description, patientId;  // import (volume files); search: modality, description
  int jobs = 0;
  bool deidentify = false;  // import: PS3.15 basic profile, pseudonyms keyed by --key-file
  std::string keyFile;
  std::string text, patient, dateFrom, dateTo, status;  // search
  std::string sortBy = "date";
  int limit = 0;
  bool json = false;
};

// pacs echo | find | get | move | store | listen (pacs_commands.cpp; DICOMweb in pacs_web_commands.cpp, the listener
// in pacs_listen_command.cpp).
struct PacsOptions {
  // The peer: DIMSE (--peer AE@HOST:PORT) or DICOMweb (--url); find, get and store take either.
  std::string peer, url;
  std::string callingAe = "DELINEATE";
  bool tls = false;                       // DIMSE over TLS (https:// URLs always are)
  std::string caFile, certFile, tlsKeyFile;  // TLS: the CA the peer must chain to; our certificate and key
  std::string credentials;                // DICOMweb: a file only its owner can read: "basic USER:PASSWORD" or "bearer TOKEN"
  int timeout = 60;                       // seconds per DIMSE message or HTTP request; connect and ACSE: min(this, 30)
  // find
  std::string level = "study";
  std::string patientId, patientName, birthDate, studyDate, modality, description, accession, studyUid, seriesUid;
  int limit = 0;
  // get, move: what, and where it goes (a folder; --share ROOT imports it into the share's catalogue too)
  std::string study, series;
  std::vector<std::string> instances;
  std::string output, share;
  int inFlight = 4;
  bool deidentify = false;
  std::string pseudonymKeyFile;           // --deidentify: the pseudonym key
  std::string moveAe;                     // move: our storage SCP's AE title (the PACS must know it)
  int movePort = 0;                       // move: its port (0: any free one; the PACS must know it)
  // store
  std::vector<std::string> files;
  // listen
  int port = 11112;
  std::string bind = "0.0.0.0";
  std::vector<std::string> acceptAes;
  int idleSeconds = 30;                   // a series is complete after this long without a new instance
  std::string spool;                      // where received instances wait (default: under the user's cache)
  bool json = false;
};

struct ReviewOptions {  // review submit | approve | reject | show
  LabelSetPath set;
  int revision = 0;  // show: 0 = every reviewed revision
  std::string action;  // submit, approve, reject ("" for show)
  std::string user, comment;
  bool json = false;
};

struct DatasetOptions {  // dataset create | add | show | list
  std::string root, name;
  std::string fromApproved;  // create: the label set whose newest approved revisions it takes
  std::string split = "70:15:15";  // create: train:validation:test percentages
  std::string seed;          // create: the split's key (default: the dataset's name)
  std::string study, labelSet, entrySplit;  // add
  int revision = 0;          // add: the label revision; show, fetch: the dataset revision (0: newest)
  std::string message, author;
  std::string folder;        // fetch: where the cases go
  bool stopOnBadCase = false;  // fetch
  bool json = false;
};

struct ShareReportOptions {
  LabelSetPath set;
  int revision = 0;
  std::string dicom, series, image, table, message, author, observer;
  bool labelmap = false, deidentify = false, json = false;
};

struct CheckpointPutOptions {
  std::string root, model, file, sidecar, message, author;
};

struct CheckpointGetOptions {
  std::string root, model;
  int revision = 0;
  std::string output;
};

struct CheckpointListOptions {
  std::string root, model;
  bool json = false;
};

// model list / fetch / register / path (model_commands.cpp): model weights on this machine (io/models).
struct ModelListOptions {
  std::string known;  // the known-models list (default: the installed one)
  bool json = false;
};
struct ModelFetchOptions {
  std::string what;  // a known model's name or a URL
  std::string name, sha256, licence, known;
  bool yes = false, json = false;
};
struct ModelRegisterOptions {
  std::string file, name, sha256, licence, known;
  bool json = false;
};
struct ModelPathOptions {
  std::string name;
};

struct TrustOptions {
  std::string root, user, publicKey, boxKey, keyFile;
  std::vector<std::string> roles;
  bool json = false;
};

struct AuditVerifyOptions {
  std::vector<std::string> targets;  // log files or share-store roots
};
struct AuditShowOptions {
  std::string root, study, user, action, from, to;
  bool json = false;
};

int runInfo(const InfoOptions& options);
int runSegment(const SegmentOptions& options);
int runDicomIndex(const DicomIndexOptions& options);
int runConvert(const ConvertOptions& options);
int runClickEval(const ClickEvalOptions& options);
int runExportDicom(const ExportDicomOptions& options);
int runSrShow(const SrShowOptions& options);
int runExportRtStruct(const ExportRtStructOptions& options);
int runImportRtStruct(const ImportRtStructOptions& options);
int runShareInit(const ShareInitOptions& options);
int runShareSave(const ShareSaveOptions& options);
int runShareList(const ShareListOptions& options);
int runShareShow(const ShareShowOptions& options);
int runShareDiff(const ShareDiffOptions& options);
int runShareGet(const ShareGetOptions& options);
int runShareRestore(const ShareRestoreOptions& options);
int runShareLease(const LabelSetPath& options);
int runReview(const ReviewOptions& options);
// Appends an audit record to the store's log (study/labelSet empty where they do not apply); a failure is warned
// about on stderr, never turned into a failed command.
void audit(const io::ShareStore& store, const std::string& action, const std::string& study,
           const std::string& labelSet, int revision, const std::string& detail);
int runStudyImport(const StudyOptions& options);
// study import's path, for commands that end in an import (pacs get --share): opens the share at options.root, reads
// the pseudonym key (--deidentify with --key-file), imports options.inputs with Ctrl-C as cancel, warns about what was
// skipped and audits each series. 0 with `report` filled, or the exit code (the error printed; usage errors name
// `command`). importReportJson / printImportReport: the report as study import prints it.
int importIntoShare(const StudyOptions& options, const std::string& command, io::StudyImportReport& report);
std::string importReportJson(const io::StudyImportReport& report);
void printImportReport(const io::StudyImportReport& report);
// --deidentify with --key-file (study import, pacs listen): both or neither (else a usage error naming `command`);
// the key read and refused when it lies inside the share (io::readImportKey). 0, or the exit code.
int readDeidentifyOption(const io::ShareStore& store, bool deidentify, const std::string& keyFile,
                         const std::string& command, std::optional<io::DeidentifyKey>& key);
// One "import" audit record per imported series (`how`, when not empty, says where the files came from).
void auditImport(const io::ShareStore& store, const io::StudyImportReport& report, const std::string& how = {});
int runStudyList(const StudyOptions& options);
int runStudySearch(const StudyOptions& options);
int runStudyShow(const StudyOptions& options);
int runStudyGet(const StudyOptions& options);
int runStudyReindex(const StudyOptions& options);
int runDatasetCreate(const DatasetOptions& options);
int runDatasetAdd(const DatasetOptions& options);
int runDatasetShow(const DatasetOptions& options);
int runDatasetList(const DatasetOptions& options);
int runDatasetFetch(const DatasetOptions& options);
int runReviewShow(const ReviewOptions& options);
int runShareReport(const ShareReportOptions& options);
int runShareReports(const ShareListOptions& options);
int runCheckpointPut(const CheckpointPutOptions& options);
int runCheckpointGet(const CheckpointGetOptions& options);
int runCheckpointList(const CheckpointListOptions& options);
int runModelList(const ModelListOptions& options);
int runModelFetch(const ModelFetchOptions& options);
int runModelRegister(const ModelRegisterOptions& options);
int runModelPath(const ModelPathOptions& options);
int runAuditVerify(const AuditVerifyOptions& options);
int runAuditShow(const AuditShowOptions& options);
// On a signed share the record's author is its signer's roster name: said on stderr when --author/--user named
// someone else (trust_commands.cpp).
void warnSignedAuthor(const std::string& given, const std::string& recorded);
// A record's trust as JSON: {"state", "signer", "detail"} (trust_commands.cpp).
nlohmann::json recordTrustJson(const io::RecordTrust& trust);
int runTrustKeygen(const TrustOptions& options);
int runTrustKey(const TrustOptions& options);
int runTrustInit(const TrustOptions& options);
int runTrustAdd(const TrustOptions& options);
int runTrustRemove(const TrustOptions& options);
int runTrustEncrypt(const TrustOptions& options);
int runTrustShow(const TrustOptions& options);
int runTrustVerify(const TrustOptions& options);
int runPacsEcho(const PacsOptions& options);
int runPacsFind(const PacsOptions& options);
int runPacsGet(const PacsOptions& options);
int runPacsMove(const PacsOptions& options);
int runPacsStore(const PacsOptions& options);
int runPacsListen(const PacsOptions& options);
// The DICOMweb side of find, get and store (pacs_web_commands.cpp), when --url is given.
int runWebFind(const PacsOptions& options);
int runWebGet(const PacsOptions& options);
int runWebStore(const PacsOptions& options);

// "k:10:20" or "2:10:-1" (axis i/j/k or 0/1/2); nullopt when the text is not of that form.
std::optional<core::SliceRange> parseSliceRange(const std::string& text);

// The image series of a DICOM folder's index to work on: the only one, or the one `seriesKey` names. On failure the
// choices are printed and the exit code returned (1 none or no such key, 2 several to pick from); 0 on success.
int chooseImageSeries(const io::DicomIndex& index, const std::string& input, const std::string& seriesKey,
                      const io::DicomSeries*& chosen);

// A volume file, or the image series of a DICOM folder or file (`series`: its key or number when there are several),
// into `image`. A series with unreadable files is refused, each file named on its own "error: <file>: <reason>" line,
// unless allowUnreadable; the issues of what was loaded are printed as warnings. 0, or the exit code.
int readInputImage(const std::string& input, const std::string& series, bool allowIrregular, bool allowUnreadable,
                   int threads, core::ImageVolume& image);
// The same in the image's stored type (a DICOM series decoded straight into it, a volume file read in its type): for
// commands whose every reader takes a core::ImageView.
int readInputImage(const std::string& input, const std::string& series, bool allowIrregular, bool allowUnreadable,
                   int threads, core::ScalarImage& image);

// A usage error found after parsing (one that needs more than one option to see): exit code 2 with a one-line
// "error: <message>" and where the help of `command` (e.g. "info", "share report") is.
inline int usageError(const std::string& command, const std::string& message) {
  std::fprintf(stderr, "error: %s (see 'delineate-cli%s --help')\n", message.c_str(),
               command.empty() ? "" : (" " + command).c_str());
  return 2;
}

// Exit code 1 with "error: <file>: <reason>".
inline int fileError(const core::Error& error) {
  std::fprintf(stderr, "error: %s\n", error.describe().c_str());
  return 1;
}

// SIGINT and SIGTERM as a cancel request (study_commands.cpp): while one lives, the first such signal cancels the
// work it is given to (which stops between files and removes what it had not finished), a second ends the process
// as the signal would. interrupted(): whether a signal came; exitCode(): 128 + that signal (130 for Ctrl-C).
class InterruptSink final : public core::ProgressSink {
 public:
  InterruptSink();
  ~InterruptSink() override;
  InterruptSink(const InterruptSink&) = delete;
  InterruptSink& operator=(const InterruptSink&) = delete;
  void report(double, const std::string&) override {}
  bool cancelled() const override;
  int exitCode() const;
};

}  // namespace delineate::app::cli
