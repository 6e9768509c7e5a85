// delineate-train: trains an atlas network (SegResNetDS) from scratch or fine-tunes VISTA-3D on labelled cases, with
// checkpoints a Python torch / MONAI loads, optionally published to the share. A program of its own (as
// delineate-vista3d) so that delineate-cli and the window never load LibTorch; the window runs it as a child process
// and reads its --json lines.
// Exit codes: 0 done (or stopped early, or cancelled with its checkpoint saved), 1 a data, file or training error
// ("error: <subject>: <reason>"), 2 a usage error.
#include <nlohmann/json.hpp>

#include <dlfcn.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <set>
#include <string>
#include <vector>

#include "app/command_line/command_parser.h"
#include "app/train/rank.h"
#include "app/train/train_data.h"
#include "core/file_source.h"
#include "inference/checkpoint_engine.h"
#include "inference/training/case_cache.h"
#include "inference/training/checkpoint_file.h"
#include "inference/training/checkpoint_saver.h"
#include "inference/training/trainable.h"
#include "inference/training/trainer.h"
#include "inference/vista3d/checkpoint_reader.h"
#include "io/base/file_modes.h"
#include "io/base/process_info.h"
#include "io/base/atomic_file.h"
#include "io/base/scratch_cipher.h"
#include "io/base/sealed_file.h"
#include "io/base/sealed_stream.h"
#include "io/cluster/process.h"
#include "io/cluster/slurm.h"
#include "io/share/share_lease.h"
#include "io/share/share_revisions.h"
#include "io/share/share_store.h"
#include "io/studies/checkpoint_fetch.h"
#include "io/studies/dataset_fetch.h"

using namespace delineate;
using nlohmann::json;
namespace fs = std::filesystem;
namespace tr = inference::training;
using app::train::failRun;

namespace {

// inference's spill files encrypted by io's cipher (inference has none of its own).
class ScratchSpillCipher : public tr::SpillCipher {
 public:
  explicit ScratchSpillCipher(io::ScratchCipher cipher) : m_cipher(std::move(cipher)) {}
  core::Status apply(void* data, std::size_t n, std::uint64_t offset, std::uint32_t file) const override {
    return m_cipher.apply(data, n, offset, file);
  }

 private:
  io::ScratchCipher m_cipher;
};

std::atomic<bool> g_cancel{false};
std::atomic<bool> g_requeue{false};
void onSignal(int) { g_cancel.store(true); }
// SIGUSR1: Slurm's warning before the wall-time limit (--slurm asks for it): save, then requeue the job.
void onLimitSignal(int) {
  g_requeue.store(true);
  g_cancel.store(true);
}

std::string duration(double seconds) {
  char buf[32];
  const long s = static_cast<long>(seconds + 0.5);
  if (s >= 3600) std::snprintf(buf, sizeof buf, "%ldh%02ldm", s / 3600, (s / 60) % 60);
  else std::snprintf(buf, sizeof buf, "%ldm%02lds", s / 60, s % 60);
  return buf;
}

const auto g_processStart = std::chrono::steady_clock::now();

json budgetJson(const tr::BudgetFit& b) {
  return json{{"probeIterations", b.probeIterations}, {"secondsPerStep", b.secondsPerStep},
              {"validationSeconds", b.validationSeconds}, {"secondsLeft", b.secondsLeft},
              {"iterations", b.iterations}, {"budgetReached", b.budgetReached}};
}

json validationJson(const tr::Validation& v) { return json::parse(tr::validationJsonText(v)); }

// This process's resident memory (bytes), from /proc/self/statm; 0 where it cannot be read.
double residentBytes() {
  std::ifstream statm("/proc/self/statm");
  long long pages = 0, resident = 0;
  if (!(statm >> pages >> resident)) return 0;
  return static_cast<double>(resident) * static_cast<double>(::sysconf(_SC_PAGESIZE));
}

// The CUDA device's memory in use (bytes, every process's), through the driver (cuMemGetInfo on this thread's
// context, which LibTorch made current); 0 without a driver or a context.
double deviceUsedBytes() {
  using MemGetInfo = int (*)(std::size_t*, std::size_t*);
  static const MemGetInfo info = [] {
    void* lib = ::dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    return lib ? reinterpret_cast<MemGetInfo>(::dlsym(lib, "cuMemGetInfo_v2")) : nullptr;
  }();
  std::size_t freeBytes = 0, total = 0;
  if (!info || info(&freeBytes, &total) != 0) return 0;
  return static_cast<double>(total - freeBytes);
}

// Merges the flags given into the configuration (flags win).
struct Flags {
  std::string config, cases, out, model, checkpoint, device, precision, share, modelName, dataset, labels;
  std::optional<int> iterations, validationInterval, batch, threads, seed, holdOut, workers, datasetRevision, initFilters;
  std::optional<double> learningRate, memoryBudgetMB;
  std::vector<std::int64_t> patch;
  bool resume = false, jsonLines = false, stopOnBadCase = false, seal = false;
  std::string evaluate, timeBudget;
  std::string rank, labelSet;
  std::string author;
  std::vector<std::string> studies;
  // --slurm: the run submitted as a Slurm job of nodes x tasks (one rank each) instead of run here.
  bool slurm = false;
  std::string jobDir, memory, time, partition, account;
  int nodes = 1, tasksPerNode = 1, gpusPerNode = 0, cpusPerTask = 0, signalSeconds = 120;
  std::vector<std::string> sbatchOptions;
};

json mergedConfig(const Flags& f, json config) {
  auto set = [&](const char* key, const auto& v) { config[key] = v; };
  if (!f.cases.empty()) set("cases", f.cases);
  if (!f.out.empty()) set("output", f.out);
  if (!f.model.empty()) set("model", f.model);
  if (!f.checkpoint.empty()) set("checkpoint", f.checkpoint);
  if (!f.device.empty()) set("device", f.device);
  if (!f.precision.empty()) set("precision", f.precision);
  if (!f.share.empty()) set("share", f.share);
  if (!f.modelName.empty()) set("modelName", f.modelName);
  if (!f.labels.empty()) set("labels", f.labels);
  if (f.iterations) set("iterations", *f.iterations);
  if (f.validationInterval) set("validationInterval", *f.validationInterval);
  if (f.batch) set("batch", *f.batch);
  if (f.threads) set("threads", *f.threads);
  if (f.seed) set("seed", *f.seed);
  if (f.holdOut) set("holdOut", *f.holdOut);
  if (f.workers) set("workers", *f.workers);
  if (f.initFilters) set("initFilters", *f.initFilters);
  if (f.learningRate) set("learningRate", *f.learningRate);
  if (f.memoryBudgetMB) set("memoryBudgetMB", *f.memoryBudgetMB);
  if (!f.patch.empty()) set("patch", f.patch);
  if (f.stopOnBadCase) set("stopOnBadCase", true);
  if (!f.timeBudget.empty()) set("timeBudget", f.timeBudget);
  return config;
}

// The program's flags, declared on `app` (the help lists them in this order).
void declareFlags(CLI::App& app, Flags& f) {
  using app::command_line::valueName;
  valueName(app.add_option("--config", f.config, "the run's JSON configuration"), "FILE");
  valueName(app.add_option("--cases", f.cases, "cases.json from 'delineate-cli dataset fetch', or a JSON list of "
                                               "{image, labels, split} files"),
            "FILE");
  valueName(app.add_option("--dataset", f.dataset, "instead of --cases: this dataset of the share (--share) is fetched "
                                                   "to OUTPUT/data first"),
            "NAME");
  valueName(app.add_option("--dataset-revision", f.datasetRevision, "the dataset's version (default the newest)"), "N");
  valueName(app.add_option("--out", f.out, "the run's folder (checkpoints, fetched data, spill files)"), "FOLDER");
  valueName(app.add_option("--model", f.model, "segresnetds (an atlas network from scratch) or vista3d (fine-tuning)")
                ->check(CLI::IsMember({"segresnetds", "vista3d"})),
            "KIND");
  valueName(app.add_option("--checkpoint", f.checkpoint, "VISTA-3D: the checkpoint to fine-tune; SegResNetDS: initial "
                                                         "weights (a file, share:ROOT#MODEL[@REV] or model:NAME)"),
            "FILE");
  valueName(app.add_option("--labels", f.labels, "a label table (names, and for SegResNetDS the classes trained)"), "FILE");
  valueName(app.add_option("--iterations", f.iterations, "optimizer steps (default 1000)")->check(CLI::Range(1, 100000000)), "N");
  valueName(app.add_option("--time-budget", f.timeBudget, "train for this long (e.g. 55m, 1h30m, 600): a probe of the "
                                                         "first steps fits the iterations and the schedule into it"),
            "DURATION");
  valueName(app.add_option("--validation-interval", f.validationInterval, "validate every N iterations (default 100)")
                ->check(CLI::Range(0, 100000000)),
            "N");
  valueName(app.add_option("--patch", f.patch, "patch sides in voxels (default from the data)")->expected(3)->delimiter(','),
            "X,Y,Z");
  valueName(app.add_option("--batch", f.batch, "patches per step (default 1)"), "N");
  valueName(app.add_option("--init-filters", f.initFilters, "SegResNetDS width (default 16 on the CPU, 32 on CUDA)"), "N");
  valueName(app.add_option("--learning-rate", f.learningRate, "AdamW's peak learning rate"), "LR");
  valueName(app.add_option("--device", f.device, "cpu, cuda or cuda:N (default cpu)"), "DEVICE");
  valueName(app.add_option("--precision", f.precision, "fp32, bf16, or fp16 with a loss scale (CUDA)")
                ->check(CLI::IsMember({"fp32", "bf16", "fp16"})),
            "P");
  valueName(app.add_option("--threads", f.threads, "CPU threads for LibTorch (default: every core)"), "N");
  valueName(app.add_option("--workers", f.workers, "patch-making threads (default 2)"), "N");
  valueName(app.add_option("--seed", f.seed, "the run's seed (weights, patches, prompts)"), "N");
  valueName(app.add_option("--hold-out", f.holdOut, "validate on the last N cases (by id) not marked train or validation"), "N");
  valueName(app.add_option("--memory-budget-mb", f.memoryBudgetMB, "prepared cases kept in memory; the rest spill to "
                                                                   "OUTPUT (default 4096)"),
            "MB");
  valueName(app.add_option("--share", f.share, "a share store: where --dataset comes from and checkpoints go"), "ROOT");
  valueName(app.add_option("--author", f.author, "who the published checkpoints name as their author (default: "
                                                 "$DELINEATE_AUTHOR, else this user)"),
            "NAME");
  valueName(app.add_option("--model-name", f.modelName, "publish checkpoints (the best, and the last) as this model"), "NAME");
  app.add_flag("--resume", f.resume, "continue from the newest checkpoint in OUTPUT (weights, optimizer, schedule, "
                                     "iteration)");
  app.add_flag("--stop-on-bad-case", f.stopOnBadCase, "stop at the first unusable case instead of skipping it");
  app.add_flag("--seal", f.seal, "checkpoints, optimizer state and sidecars sealed at rest with this user's key, "
                                 "owner-only (what the window's own run folders get); default: plain files PyTorch loads");
  app.add_flag("--json", f.jsonLines, "progress as JSON lines on stdout (for the window)");
  valueName(app.add_option("--evaluate", f.evaluate, "no training: this checkpoint of the same configuration segments "
                                                     "every case (all splits) and the per-structure Dice is printed as "
                                                     "JSON"),
            "FILE");
  valueName(app.add_option("--rank", f.rank, "no training: rank the share's (--share) studies without an approved revision of "
                                             "--label-set by how unsure this atlas network (a file or share:ROOT#MODEL[@REV]) "
                                             "is of them, most uncertain first (active learning's next case)"),
            "MODEL");
  valueName(app.add_option("--label-set", f.labelSet, "with --rank: the label set whose approved revisions make a study "
                                                      "labelled (default: --dataset's, else any label set)"),
            "SET");
  valueName(app.add_option("--studies", f.studies, "with --rank: only these studies")->delimiter(','), "A,B,...");
  app.add_flag("--slurm", f.slurm, "submit this run to Slurm (sbatch; one rank per task, data parallel over them) "
                                   "instead of running it here; requeued when signalled, resumed from its checkpoint");
  valueName(app.add_option("--job-dir", f.jobDir, "--slurm: the job's folder (script, logs), on storage every node mounts"),
            "DIR");
  valueName(app.add_option("--nodes", f.nodes, "--slurm: nodes (default 1)")->check(CLI::Range(1, 10000)), "N");
  valueName(app.add_option("--tasks-per-node", f.tasksPerNode, "--slurm: ranks per node (default 1; one per GPU)")
                ->check(CLI::Range(1, 1024)),
            "N");
  valueName(app.add_option("--gpus-per-node", f.gpusPerNode, "--slurm: GPUs per node (--gres=gpu:N)")->check(CLI::Range(1, 64)),
            "N");
  valueName(app.add_option("--cpus-per-task", f.cpusPerTask, "--slurm: CPUs per rank")->check(CLI::Range(1, 4096)), "N");
  valueName(app.add_option("--mem", f.memory, "--slurm: memory per node (e.g. 32G)"), "SIZE");
  valueName(app.add_option("--time", f.time, "--slurm: the wall-time limit (e.g. 12:00:00)"), "LIMIT");
  valueName(app.add_option("--partition", f.partition, "--slurm: the partition"), "P");
  valueName(app.add_option("--account", f.account, "--slurm: the account"), "A");
  valueName(app.add_option("--signal-seconds", f.signalSeconds, "--slurm: SIGUSR1 this long before the limit, to save "
                                                                "and requeue (default 120)")
                ->check(CLI::Range(10, 86400)),
            "S");
  valueName(app.add_option("--sbatch-option", f.sbatchOptions, "--slurm: one more #SBATCH line, verbatim"), "OPTION");
}

// --slurm: the same command line (less the submission's own options) as a job: srun starts one rank per task, every
// rank resumes from OUTPUT's newest checkpoint when there is one (a requeued job), and a job signalled before its
// limit saves and requeues itself (DELINEATE_REQUEUE_ON_SIGNAL).
int submitToSlurm(const Flags& f, const std::vector<std::string>& args) {
  if (f.jobDir.empty()) {
    std::fprintf(stderr, "error: --slurm needs --job-dir DIR (see 'delineate-train --help')\n");
    return 2;
  }
  if (f.jobDir.find_first_of(" \t\n") != std::string::npos) {
    std::fprintf(stderr, "error: --job-dir '%s': sbatch cannot take a path with spaces\n", f.jobDir.c_str());
    return 2;
  }
  if (f.out.empty() && f.config.empty()) {
    std::fprintf(stderr, "error: no output folder (--out) (see 'delineate-train --help')\n");
    return 2;
  }
  const std::map<std::string, bool> own = {
      {"--slurm", false}, {"--job-dir", true}, {"--nodes", true}, {"--tasks-per-node", true},
      {"--gpus-per-node", true}, {"--cpus-per-task", true}, {"--mem", true}, {"--time", true},
      {"--partition", true}, {"--account", true}, {"--signal-seconds", true}, {"--sbatch-option", true}, {"--resume", false}};
  std::error_code ec;
  const std::string program = io::currentExecutablePath();
  std::vector<std::string> command{program};
  // Paths the job reads are made absolute (its folder is the job folder).
  const std::set<std::string> pathOptions = {"--config", "--cases", "--out", "--checkpoint", "--labels", "--share"};
  for (std::size_t i = 0; i < args.size(); ++i) {
    std::string a = args[i];
    std::string value;
    const auto eq = a.find('=');
    const std::string name = a.rfind("--", 0) == 0 && eq != std::string::npos ? a.substr(0, eq) : a;
    if (auto it = own.find(name); it != own.end()) {
      if (it->second && eq == std::string::npos) ++i;
      continue;
    }
    if (pathOptions.count(name)) {
      if (eq != std::string::npos) {
        value = a.substr(eq + 1);
      } else if (i + 1 < args.size()) {
        value = args[++i];
      }
      if (value.rfind("share:", 0) != 0) value = fs::absolute(value, ec).string();
      command.push_back(name);
      command.push_back(value);
      continue;
    }
    command.push_back(a);
  }
  command.push_back("--resume");
  const fs::path dir = fs::absolute(f.jobDir, ec);
  // Its logs hold what the run prints about the cases: the user's alone (0700 where it is made), as the run folder is.
  if (core::Status st = io::createFolders((dir / "logs").string(), io::FileAccess::Private); !st)
    return failRun(st.error(), false);
  io::SlurmJobRequest job;
  job.name = "delineate-train";
  job.nodes = f.nodes;
  job.tasksPerNode = f.tasksPerNode;
  job.cpusPerTask = f.cpusPerTask;
  job.gpusPerNode = f.gpusPerNode;
  job.memory = f.memory;
  job.time = f.time;
  job.partition = f.partition;
  job.account = f.account;
  job.extraOptions = f.sbatchOptions;
  job.signalSecondsBeforeLimit = f.signalSeconds;
  job.limitSignal = "USR1";
  job.requeue = true;
  job.appendOutput = true;
  job.output = (dir / "logs" / "%j.out").string();
  job.workDirectory = dir.string();
  job.srun = true;
  if (f.cpusPerTask > 0) job.environment["OMP_NUM_THREADS"] = std::to_string(f.cpusPerTask);
  job.command = command;
  auto script = io::slurmBatchScript(job);
  if (!script) return failRun(script.error(), false);
  const std::string scriptPath = (dir / "train.sbatch").string();
  if (core::Status st = io::writeFileAtomically(scriptPath, script->data(), script->size()); !st)
    return failRun(st.error(), false);
  auto id = io::submitSlurmJob(scriptPath);
  if (!id) return failRun(id.error(), false);
  std::printf("submitted job %s: %d node(s) x %d rank(s); logs in %s; it resumes from its checkpoints when requeued\n",
              id->c_str(), f.nodes, f.tasksPerNode, (dir / "logs").c_str());
  if (f.jsonLines) std::printf("%s\n", json{{"event", "submitted"}, {"job", *id}, {"script", scriptPath}}.dump().c_str());
  return 0;
}

// --rank: the share's unlabelled studies ranked by the model's uncertainty; no training.
int runRank(const Flags& f) {
  if (f.share.empty()) {
    std::fprintf(stderr, "error: --rank needs --share (see 'delineate-train --help')\n");
    return 2;
  }
  std::signal(SIGINT, onSignal);
  std::signal(SIGTERM, onSignal);
  app::train::RankOptions rank;
  rank.model = f.rank;
  rank.share = f.share;
  rank.labelSet = f.labelSet;
  rank.dataset = f.dataset;
  rank.studies = f.studies;
  rank.device = f.device.empty() ? "auto" : f.device;
  rank.threads = f.threads.value_or(0);
  rank.jsonLines = f.jsonLines;
  return app::train::runRanking(rank, g_cancel);
}

// One run of training (or of --evaluate), step by step. A step returns the exit code to stop with, or nothing to go
// on; the run's state lives here between the steps.
class Run {
 public:
  explicit Run(const Flags& flags) : m_f(flags) {}
  Run(const Run&) = delete;
  Run& operator=(const Run&) = delete;
  ~Run() {
    m_saver.reset();  // its background writes and publishes end before the model's lease is given up
    if (m_lease) (void)m_lease->release();
  }

  int exec() {
    if (Stop s = readSettings()) return *s;
    if (Stop s = prepareCases()) return *s;
    if (Stop s = buildModel()) return *s;
    if (!m_f.evaluate.empty()) return evaluate();
    if (Stop s = resumeFromCheckpoints()) return *s;
    if (Stop s = joinRanks()) return *s;
    if (m_rank == 0)
      if (Stop s = takeModelLease()) return *s;
    m_saver = std::make_unique<tr::CheckpointSaver>(m_checkpointFolder, m_sidecar.dump(), m_settings->keepLast, m_publish);
    m_saver->adopt(m_earlier);
    if (m_rank == 0) printStart();
    std::signal(SIGINT, onSignal);
    std::signal(SIGTERM, onSignal);
    std::signal(SIGUSR1, onLimitSignal);
    m_lastBeat = std::chrono::steady_clock::now();
    // A time budget is the whole process's (a Slurm job's wall time): reading and preparing the cases count.
    if (m_settings->trainer.timeBudgetSeconds > 0) {
      const double before = std::chrono::duration<double>(std::chrono::steady_clock::now() - g_processStart).count();
      m_settings->trainer.timeBudgetSeconds = std::max(1.0, m_settings->trainer.timeBudgetSeconds - before);
    }
    // Over processes rank 0 validates, writes the checkpoints and publishes; the others step and all-reduce.
    const std::vector<std::size_t> noCases;
    auto result = tr::train(*m_model, *m_cache, m_data->train, m_rank == 0 ? m_data->validation : noCases,
                            m_settings->trainer, [this](const tr::Progress& p) { if (m_rank == 0) report(p); },
                            m_rank == 0 ? m_saver.get() : nullptr, &g_cancel, m_resume);
    m_saver->flush();
    for (const auto& w : m_saver->takeWarnings()) std::fprintf(stderr, "warning: %s\n", w.c_str());
    if (!result) return failRun(result.error(), m_f.jsonLines && m_rank == 0);
    if (m_rank == 0) printSummary(*result);
    if (m_rank == 0 && result->cancelled) requeueIfAsked();
    return 0;
  }

 private:
  using Stop = std::optional<int>;
  Stop fail(const core::Error& e) const { return failRun(e, m_f.jsonLines); }

  // The configuration file merged with the flags (flags win), checked; the output folder; the share, if any.
  Stop readSettings() {
    json config = json::object();
    if (!m_f.config.empty()) {
      std::ifstream in(m_f.config);
      if (!in) return fail(core::makeError(core::ErrorCode::NotFound, m_f.config, "cannot open the configuration"));
      std::stringstream text;
      text << in.rdbuf();
      config = json::parse(text.str(), nullptr, false);
      if (config.is_discarded() || !config.is_object())
        return fail(core::makeError(core::ErrorCode::ParseError, m_f.config, "the configuration must be a JSON object"));
    }
    m_config = mergedConfig(m_f, config);
    // Where this process stands (a rank of a data-parallel run, from torchrun's or Slurm's variables): read once.
    auto placement = io::clusterPlacementFromEnvironment();
    if (!placement) return fail(placement.error());
    m_placement = *placement;
    auto settings = app::train::readRunSettings(m_config);
    if (!settings) return fail(settings.error());
    m_settings = std::move(*settings);
    if (m_settings->output.empty()) {
      std::fprintf(stderr, "error: no output folder (--out) (see 'delineate-train --help')\n");
      return 2;
    }
    if (!tr::trainingAvailable())
      return fail(core::makeError(core::ErrorCode::Unsupported, "delineate-train", "this build has no LibTorch"));
    // A run folder holds what was learnt from patient data and the cases' paths: the user's alone (0700 when this
    // run creates it; io/base/file_modes.h).
    if (core::Status s = io::createFolders(m_settings->output, io::FileAccess::Private); !s) return fail(s.error());
    if (!m_settings->share.empty()) {
      auto opened = io::ShareStore::open(m_settings->share);
      if (!opened) return fail(opened.error());
      m_store = std::move(*opened);
    }
    m_checkpointFolder = (fs::path(m_settings->output) / "checkpoints").string();
    // Everything named by the user is checked before a case is read (reading them takes minutes on real data): the
    // model to publish to and the checkpoint to start from.
    if (!m_settings->modelName.empty()) {
      if (!m_store)
        return fail(core::makeError(core::ErrorCode::InvalidArgument, m_settings->modelName,
                                    "--model-name publishes to a share: give the share with --share ROOT"));
      if (auto checkpoints = io::ModelCheckpoints::open(*m_store, m_settings->modelName); !checkpoints)
        return fail(checkpoints.error());
    }
    if (!m_settings->checkpoint.empty()) {
      std::string note;
      auto file = io::resolveCheckpoint(m_settings->checkpoint, {}, &note);
      if (!file) return fail(file.error());
      if (!note.empty()) std::fprintf(stderr, "%s\n", note.c_str());
      auto ck = inference::vista3d::readCheckpoint(*file);  // its directory and tensor list: cheap
      if (!ck) return fail(ck.error());
      m_base = std::move(*ck);
    }
    return std::nullopt;
  }

  // The cases: a case list, or a dataset of the share fetched first; read and prepared into the cache.
  Stop prepareCases() {
    std::string casesPath = m_config.value("cases", std::string());
    if (!m_f.dataset.empty()) {
      if (!m_store) {
        std::fprintf(stderr, "error: --dataset needs --share (see 'delineate-train --help')\n");
        return 2;
      }
      auto fetched = io::fetchDataset(*m_store, m_f.dataset, m_f.datasetRevision.value_or(0),
                                      (fs::path(m_settings->output) / "data").string(), m_settings->stopOnBadCase);
      if (!fetched) return fail(fetched.error());
      for (const auto& s : fetched->skipped) std::fprintf(stderr, "warning: case skipped: %s\n", s.c_str());
      casesPath = fetched->casesJson;
    }
    if (casesPath.empty()) {
      std::fprintf(stderr, "error: no cases (--cases FILE, or --share ROOT --dataset NAME) (see 'delineate-train --help')\n");
      return 2;
    }
    auto list = app::train::readCaseList(casesPath);
    if (!list) return fail(list.error());
    m_list = std::move(*list);
    const auto t0 = std::chrono::steady_clock::now();
    // Over processes each rank keeps its own spill files, and draws its own samples of each global batch.
    const int rank = m_placement.worldSize > 1 ? m_placement.rank : 0;
    m_settings->trainer.patches.sampleOffset = rank * std::max(1, m_settings->trainer.patches.batch);
    // Spill files hold voxels of patients' images: encrypted under a key that lives in this process alone (issue 47).
    std::shared_ptr<const tr::SpillCipher> spillCipher;
    if (io::atRestSealingOn()) {
      auto cipher = io::ScratchCipher::create();
      if (!cipher) return fail(cipher.error());
      spillCipher = std::make_shared<const ScratchSpillCipher>(std::move(*cipher));
    }
    m_cache = std::make_unique<tr::CaseCache>(
        m_settings->memoryBudgetBytes,
        (fs::path(m_settings->output) / (rank == 0 ? std::string("spill") : "spill-rank" + std::to_string(rank))).string(),
        spillCipher);
    auto data = app::train::loadCases(*m_list, *m_settings, *m_cache, false);
    if (!data) return fail(data.error());
    m_data = std::move(*data);
    m_prepareSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return std::nullopt;
  }

  // The network: from scratch or from a checkpoint (a file, or share:ROOT#MODEL[@REV] fetched verified into the
  // cache first), frozen where asked, on its device, with its optimizer; and the sidecar every checkpoint starts from.
  Stop buildModel() {
    inference::vista3d::Vista3dModel::setCpuThreads(std::max(0, m_settings->threads));  // 0: every core
    tr::seedTorch(m_settings->trainer.patches.seed);
    const std::optional<inference::vista3d::Checkpoint>& base = m_base;  // read by readSettings
    auto model = m_settings->model == "vista3d"
                     ? tr::TrainableModel::vista3d(*base)
                     : tr::TrainableModel::segResNetDS(m_settings->network, base ? &*base : nullptr,
                                                       m_settings->trainer.patches.seed);
    if (!model) return fail(model.error());
    m_model = std::move(*model);
    if (!m_settings->freeze.empty())
      if (core::Status s = m_model->freeze(m_settings->freeze); !s) return fail(s.error());
    const auto precision = inference::vista3d::parsePrecision(m_settings->precision);
    if (!precision) return fail(precision.error());
    if (core::Status s = m_model->setDevice(m_settings->device, *precision); !s) return fail(s.error());
    m_model->setOptimizer(m_settings->trainer.optimizer);
    m_sidecar = app::train::sidecarBase(*m_settings, *m_list, *m_data, m_model->parameterCount());
    return std::nullopt;
  }

  // A checkpoint is read with the classes it was trained with: its sidecar's labels must be this run's.
  core::Status sameLabels(const std::string& sidecarPath) const {
    std::error_code ec;
    if (!std::filesystem::exists(sidecarPath, ec)) return core::Status::success();  // no sidecar: nothing to compare
    auto text = core::readInputFile(sidecarPath);  // a sealed run's sidecar reads as its content
    if (!text) return text.error();
    const json other = json::parse(*text, nullptr, false);
    if (other.is_discarded() || !other.is_object() || !other.contains("labels")) return core::Status::success();
    if (other.at("labels") != m_sidecar.at("labels"))
      return core::makeError(core::ErrorCode::InvalidArgument, sidecarPath,
                             "its labels (classes and ids) differ from this run's: the cases or the label table changed");
    return core::Status::success();
  }

  // --evaluate: the checkpoint segments every case (all splits); per-case and per-structure Dice as JSON.
  int evaluate() {
    if (core::Status s = sameLabels(inference::checkpointSidecarPath(m_f.evaluate)); !s) return *fail(s.error());
    auto weights = tr::readStateDict(m_f.evaluate);
    if (!weights) return *fail(weights.error());
    if (core::Status s = m_model->loadStateDict(*weights); !s)
      return *fail(core::makeError(core::ErrorCode::ParseError, m_f.evaluate,
                                   "does not fit this configuration's network: " + s.error().describe()));
    json cases = json::object();
    std::map<std::int64_t, std::pair<double, int>> perClass;
    const auto start = std::chrono::steady_clock::now();
    for (std::size_t k = 0; k < m_cache->size(); ++k) {
      auto dice = tr::validateCase(*m_model, *m_cache, k, m_settings->trainer);
      if (!dice) return *fail(dice.error());
      json c = json::object();
      double sum = 0;
      for (const auto& [cls, d] : *dice) {
        // Reported by the source label id (the class's id in the cases' own labels).
        std::int64_t id = cls;
        for (const auto& [from, to] : m_settings->prepare.labelMap)
          if (to == cls) id = from;
        c[std::to_string(id)] = d;
        sum += d;
        perClass[id].first += d;
        ++perClass[id].second;
      }
      cases[m_cache->info(k).id] = {{"split", m_cache->info(k).split},
                                    {"meanDice", dice->empty() ? 0.0 : sum / static_cast<double>(dice->size())},
                                    {"perStructure", c}};
    }
    json mean = json::object();
    for (const auto& [id, p] : perClass) {
      const auto* entry = m_settings->labelTable.find(static_cast<core::Label>(id));
      mean[std::to_string(id)] = {{"name", entry ? entry->name : std::string()}, {"dice", p.first / p.second}};
    }
    std::printf("%s\n", json{{"checkpoint", m_f.evaluate}, {"cases", cases}, {"perStructure", mean},
                             {"seconds", std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()}}
                            .dump(1)
                            .c_str());
    return 0;
  }

  // --resume: weights, optimizer and the trainer's place from the newest complete checkpoint that loads.
  Stop resumeFromCheckpoints() {
    if (!m_f.resume) return std::nullopt;
    auto found = tr::findCheckpoints(m_checkpointFolder);
    if (!found) return fail(found.error());
    const auto initial = m_model->stateDict();  // put back if a checkpoint fails halfway through loading
    bool resumed = false;
    for (const auto& c : *found) {
      if (core::Status s = sameLabels(c.files.sidecar); !s) return fail(s.error());
      auto weights = tr::readStateDict(c.files.weights);
      auto optimizer =
          weights ? tr::readStateDict(c.files.optimizer) : core::Result<std::vector<tr::NamedTensor>>(weights.error());
      core::Status loaded = !weights     ? core::Status(weights.error())
                            : !optimizer ? core::Status(optimizer.error())
                                         : m_model->loadStateDict(*weights);
      if (loaded) loaded = m_model->loadOptimizerState(*optimizer);
      if (!loaded) {  // a damaged or foreign checkpoint: say so and try the one before
        std::fprintf(stderr, "warning: cannot resume from %s: %s\n", c.files.weights.c_str(),
                     loaded.error().describe().c_str());
        if (core::Status s = m_model->loadStateDict(initial); !s) return fail(s.error());
        m_model->setOptimizer(m_settings->trainer.optimizer);
        continue;
      }
      m_resume = c.resume;
      std::fprintf(stderr, "resuming from %s (iteration %d)\n", c.files.weights.c_str(), m_resume.iteration);
      resumed = true;
      break;
    }
    if (!resumed)
      std::fprintf(stderr, "warning: nothing to resume in %s: starting at iteration 0\n", m_checkpointFolder.c_str());
    for (const auto& c : *found) m_earlier.push_back(c.files);
    return std::nullopt;
  }

  // With --share and --model-name: the run's lease on the model's folder (another run publishing to the same model
  // is refused, naming who trains it, and other users see the run: checkpoint list, the window's model chooser),
  // renewed with the progress reports and given up when the run ends (a crashed run's lease runs out on its own);
  // and the publisher of the best and the last checkpoints.
  Stop takeModelLease() {
    if (!m_store || m_settings->modelName.empty()) return std::nullopt;
    auto checkpoints = io::ModelCheckpoints::open(*m_store, m_settings->modelName);
    if (!checkpoints) return fail(checkpoints.error());
    (void)m_store->makeFolder(checkpoints->folder());  // the lease below reports a folder that cannot be made
    auto prepared = io::ShareLease::prepare(*m_store, checkpoints->folder(), m_author);
    if (!prepared) return fail(prepared.error());
    auto taken = prepared->acquire();
    if (!taken) return fail(taken.error());
    if (taken->outcome == io::LeaseOutcome::HeldByOther) {
      const io::LeaseHolder holder = taken->holder.value_or(io::LeaseHolder{});
      std::string detail = "model '" + m_settings->modelName + "' is being trained by " + holder.user + " on " +
                           holder.host + " (process " + std::to_string(holder.pid) + ", since " + holder.acquiredIso + ")";
      char host[256] = {0};
      if (::gethostname(host, sizeof host - 1) == 0 && holder.host == host && holder.pid > 0 &&
          ::kill(static_cast<pid_t>(holder.pid), 0) != 0 && errno == ESRCH)
        detail += "; that process has ended without giving the lease up (killed): it runs out " +
                  std::to_string(holder.ttlSeconds + io::LeasePolicy{}.skewGraceSeconds) +
                  " s after its last sign of life, then this run can start";
      return fail(core::makeError(core::ErrorCode::InvalidArgument, m_store->root() + "/" + checkpoints->folder(), detail));
    }
    m_lease = std::move(*prepared);
    m_publish = [this, checkpoints = *checkpoints](const tr::SavedCheckpoint& c) -> core::Status {
      if (!c.best && !c.final) return core::Status::success();
      auto text = core::readInputFile(c.sidecar);
      if (!text) return text.error();
      const json extra = json::parse(*text, nullptr, false);
      if (extra.is_discarded()) return core::makeError(core::ErrorCode::ParseError, c.sidecar, "not JSON");
      auto revisions = checkpoints.list();
      if (!revisions) return revisions.error();
      const std::string message = "iteration " + std::to_string(c.iteration) + (c.best ? " (best so far)" : "") +
                                  (c.final ? " (final)" : "");
      auto saved = checkpoints.saveFile(c.weights, io::SaveRequest{m_author, revisions->latest(), message, extra.dump()},
                                        ".pt");
      if (!saved) return saved.error();
      return core::Status::success();
    };
    return std::nullopt;
  }

  void printStart() const {
    const int trainCount = static_cast<int>(m_data->train.size());
    const int validationCount = static_cast<int>(m_data->validation.size());
    const auto& patch = m_settings->trainer.patches.patch;
    if (m_f.jsonLines) {
      std::printf("%s\n", json{{"event", "start"}, {"model", m_settings->model}, {"device", m_model->device()},
                               {"precision", m_settings->precision}, {"trainCases", trainCount},
                               {"validationCases", validationCount}, {"skippedCases", m_data->skipped},
                               {"patch", patch}, {"iterations", m_settings->trainer.iterations},
                               {"startIteration", m_resume.iteration}, {"parameters", m_model->parameterCount()},
                               {"prepareSeconds", m_prepareSeconds}, {"cacheResidentBytes", m_cache->residentBytes()},
                               {"cacheSpilledBytes", m_cache->spilledBytes()}, {"labels", m_sidecar.at("labels")}}
                              .dump()
                              .c_str());
    } else {
      std::printf("%s: %d training and %d validation case(s)%s, prepared in %.1f s (%.0f MB in memory, %.0f MB "
                  "spilled), patch %lldx%lldx%lld, %lld parameters, %s %s\n",
                  m_settings->model.c_str(), trainCount, validationCount,
                  m_data->skipped.empty() ? "" : (", " + std::to_string(m_data->skipped.size()) + " skipped").c_str(),
                  m_prepareSeconds, static_cast<double>(m_cache->residentBytes()) / 1048576.0,
                  static_cast<double>(m_cache->spilledBytes()) / 1048576.0, static_cast<long long>(patch[0]),
                  static_cast<long long>(patch[1]), static_cast<long long>(patch[2]),
                  static_cast<long long>(m_model->parameterCount()), m_model->device().c_str(),
                  m_settings->precision.c_str());
    }
    std::fflush(stdout);
  }

  // A warning on stderr, and as a JSON line for the window.
  void warn(const std::string& message) const {
    std::fprintf(stderr, "warning: %s\n", message.c_str());
    if (m_f.jsonLines) std::printf("%s\n", json{{"event", "warning"}, {"message", message}}.dump().c_str());
  }

  // Each progress report: the lease renewed, the saver's warnings, a line (or a JSON line).
  void report(const tr::Progress& p) {
    if (m_lease && m_lease->held() &&
        std::chrono::steady_clock::now() - m_lastBeat > std::chrono::seconds(io::LeasePolicy{}.heartbeatSeconds)) {
      m_lastBeat = std::chrono::steady_clock::now();
      if (core::Status s = m_lease->heartbeat(); !s) warn(s.error().describe());
    }
    for (const auto& w : m_saver->takeWarnings()) warn(w);
    if (m_f.jsonLines) {
      json j{{"event", "progress"}, {"iteration", p.iteration}, {"iterations", p.iterations}, {"loss", p.loss},
             {"learningRate", p.learningRate}, {"iterationsPerSecond", p.iterationsPerSecond},
             {"elapsedSeconds", p.elapsedSeconds}, {"etaSeconds", p.etaSeconds},
             {"dataWaitFraction", p.dataWaitFraction}, {"lastCheckpoint", p.lastCheckpoint},
             {"skippedSteps", p.skippedSteps}, {"residentBytes", residentBytes()}};
      if (m_world > 1) j["allReduceFraction"] = p.allReduceFraction;
      if (m_model->device().rfind("cuda", 0) == 0) j["deviceUsedBytes"] = deviceUsedBytes();
      if (p.validation) j["validation"] = validationJson(*p.validation);
      if (p.budget) j["budget"] = budgetJson(*p.budget);
      std::printf("%s\n", j.dump().c_str());
    } else {
      std::printf("it %d/%d  loss %.4f  lr %.2e  %.2f it/s  ETA %s  data wait %.1f%%", p.iteration, p.iterations, p.loss,
                  p.learningRate, p.iterationsPerSecond, duration(p.etaSeconds).c_str(), 100 * p.dataWaitFraction);
      if (p.validation) std::printf("  val Dice %.4f (%.1f s)", p.validation->meanDice, p.validation->seconds);
      if (!p.lastCheckpoint.empty()) std::printf("  last %s", fs::path(p.lastCheckpoint).filename().c_str());
      std::printf("\n");
      if (p.budget)
        std::printf("time budget: %.2f s per step over the %d-step probe, %.1f s per validation: %d iterations fit the "
                    "%s left\n",
                    p.budget->secondsPerStep, p.budget->probeIterations, p.budget->validationSeconds,
                    p.budget->iterations, duration(p.budget->secondsLeft).c_str());
    }
    std::fflush(stdout);
  }

  // A Slurm job warned of its wall-time limit (delineate-train --slurm asks for SIGUSR1 before it) goes back to the
  // queue once its checkpoint is saved; the next start resumes. SIGTERM (the user's scancel, the window's Stop) only
  // stops; a preempted job is requeued by Slurm itself.
  void requeueIfAsked() const {
    const char* job = std::getenv("SLURM_JOB_ID");
    if (!g_requeue.load() || !job || !*job) return;
    auto r = io::runProcess({"scontrol", "requeue", job});
    if (!r) warn("the job was not requeued: " + r.error().describe());
    else if (r->exitCode != 0) warn("the job was not requeued: scontrol: " + r->err);
    else std::fprintf(stderr, "requeued job %s: it resumes from the checkpoint just saved\n", job);
  }

  // Data parallel: rank, world and rendezvous from torchrun's or Slurm's variables; every rank joins here, after
  // its own resume (all read the same checkpoint), and takes rank 0's weights.
  Stop joinRanks() {
    const io::ClusterPlacement& placement = m_placement;
    if (placement.worldSize < 2) return std::nullopt;
    if (m_settings->model == "vista3d")
      return fail(core::makeError(core::ErrorCode::Unsupported, "delineate-train",
                                  "VISTA-3D fine-tuning runs in one process for now (a step without a prompt would "
                                  "leave the other ranks waiting); SegResNetDS trains over processes"));
    tr::DataParallelSettings dp;
    dp.rank = placement.rank;
    dp.worldSize = placement.worldSize;
    dp.masterAddress = placement.masterAddress.empty() ? "127.0.0.1" : placement.masterAddress;
    dp.masterPort = placement.masterPort;
    // Under Slurm without MASTER_PORT: one port per job, the same on every rank.
    if (dp.masterPort == 0 && !placement.jobId.empty() &&
        placement.jobId.find_first_not_of("0123456789") == std::string::npos && placement.jobId.size() < 18)
      dp.masterPort = 20000 + static_cast<int>(std::stoll(placement.jobId) % 20000);
    if (const char* ifname = std::getenv("DELINEATE_GLOO_IFNAME")) dp.interfaceName = ifname;
    if (core::Status s = m_model->joinDataParallel(dp); !s) return fail(s.error());
    m_rank = dp.rank;
    m_world = dp.worldSize;
    if (m_rank == 0)
      std::fprintf(stderr, "data parallel: %d ranks (%s), rendezvous %s:%d, batch %d per rank\n", m_world,
                   placement.source.c_str(), dp.masterAddress.c_str(), dp.masterPort,
                   m_settings->trainer.patches.batch);
    return std::nullopt;
  }

  void printSummary(const tr::TrainResult& result) const {
    const auto saved = m_saver->saved();
    json summary{{"event", "done"}, {"iterations", result.iterations}, {"bestDice", result.bestDice},
                 {"earlyStopped", result.earlyStopped}, {"cancelled", result.cancelled},
                 {"wallSeconds", result.wallSeconds}, {"dataWaitSeconds", result.dataWaitSeconds},
                 {"unpublished", m_saver->pendingPublishes()}};
    json files = json::array();
    for (const auto& c : saved)
      files.push_back({{"iteration", c.iteration}, {"best", c.best}, {"weights", c.weights}, {"writeSeconds", c.writeSeconds}});
    summary["checkpoints"] = files;
    if (!result.validations.empty()) summary["lastValidation"] = validationJson(result.validations.back());
    if (result.budget.fitted) summary["budget"] = budgetJson(result.budget);
    if (m_world > 1)
      summary["dataParallel"] = {{"ranks", m_world}, {"allReduceSeconds", result.allReduceSeconds},
                                 {"allReduceSteps", result.allReduceSteps},
                                 {"allReduceFraction", result.wallSeconds > 0 ? result.allReduceSeconds / result.wallSeconds : 0.0}};
    if (m_f.jsonLines) {
      std::printf("%s\n", summary.dump().c_str());
      return;
    }
    const std::string best = result.validations.empty()
                                 ? "no validation case"
                                 : "best validation Dice " + std::to_string(result.bestDice).substr(0, 6);
    std::printf("%s after %d iteration(s) in %s; %s; the device waited for data %.1f%% of the time\n",
                result.cancelled ? "cancelled" : result.earlyStopped ? "stopped early" : "done", result.iterations,
                duration(result.wallSeconds).c_str(), best.c_str(),
                result.wallSeconds > 0 ? 100 * result.dataWaitSeconds / result.wallSeconds : 0.0);
    for (const auto& c : saved) std::printf("checkpoint %s%s\n", c.weights.c_str(), c.best ? " (best)" : "");
    if (m_saver->pendingPublishes())
      std::printf("warning: %zu checkpoint(s) not published to the share\n", m_saver->pendingPublishes());
  }

  const Flags& m_f;
  json m_config;
  std::optional<app::train::RunSettings> m_settings;
  std::optional<io::ShareStore> m_store;  // before the lease, which points at it
  std::optional<app::train::CaseList> m_list;
  std::unique_ptr<tr::CaseCache> m_cache;
  std::optional<app::train::PreparedData> m_data;
  double m_prepareSeconds = 0;
  std::unique_ptr<tr::TrainableModel> m_model;
  json m_sidecar;
  std::string m_checkpointFolder;
  std::optional<inference::vista3d::Checkpoint> m_base;  // the checkpoint to start from, if any
  tr::ResumePoint m_resume;
  std::vector<tr::SavedCheckpoint> m_earlier;
  const std::string m_author = m_f.author.empty() ? io::authorName() : m_f.author;
  std::optional<io::ShareLease> m_lease;
  tr::PublishFn m_publish;
  io::ClusterPlacement m_placement;
  int m_rank = 0, m_world = 1;
  std::unique_ptr<tr::CheckpointSaver> m_saver;
  std::chrono::steady_clock::time_point m_lastBeat;
};

}  // namespace

int main(int argc, char** argv) {
  Flags f;
  CLI::App app(
      "Trains a segmentation network on labelled cases: an atlas network (MONAI's SegResNetDS) from scratch, or "
      "VISTA-3D fine-tuned from a checkpoint. Checkpoints (torch.save state_dicts that PyTorch and MONAI load, with "
      "a JSON sidecar) go to OUTPUT and, with --share and --model-name, to the share's checkpoints/<name>/. Settings "
      "come from a JSON configuration (README, \"Training\") and the flags below, which override it; what is not "
      "set is chosen from the data (spacing, intensity normalisation, patch, width).",
      "delineate-train");
  app::command_line::configureProgram(app);
  declareFlags(app, f);
  const std::vector<std::string> args(argv + 1, argv + argc);
  if (const std::optional<int> done = app::command_line::parseCommandLine(app, args)) return *done;
  // What the run reads (initial weights from the sealed checkpoint cache, a sealed run resumed) reads as its content;
  // with --seal its checkpoints, optimizer state and sidecars are sealed at rest (owner-only, this user's key).
  core::setFileSource(io::atRestFileSource(f.seal ? io::OutputFiles::Sealed : io::OutputFiles::Personal));
  if (!f.rank.empty()) return runRank(f);
  if (f.slurm) return submitToSlurm(f, args);
  Run run(f);
  return run.exec();
}
