// batch --slurm: the cohort as a Slurm job array; batch status | cancel | resubmit on its job folder.
//
// The job folder (on storage every node mounts, as the share is) holds job.json (what was asked, the engine setup's
// key, the job ids), studies.txt (the studies, fixed at submission so every task slices the same list), the batch
// script, logs/ (one per task) and results/ (each task's summary, written when it ends). Each task runs
// `delineate-cli batch ... --list studies.txt --slice slurm`: the studies whose position modulo the array's size is its
// index. The share decides what is done, so a task killed or requeued is redone by running the job again, and a
// study another task or a person holds (the label set's lease) is left to them.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <sys/stat.h>

#include "app/cli/batch.h"
#include "app/cli/commands.h"
#include "io/base/atomic_file.h"
#include "io/base/file_modes.h"
#include "io/base/process_info.h"
#include "io/cluster/process.h"
#include "io/cluster/slurm.h"
#include "io/share/share_store.h"
#include "io/studies/checkpoint_fetch.h"

namespace delineate::app::cli {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

core::Result<json> readJobFile(const std::string& jobDir) {
  const std::string path = (fs::path(jobDir) / batch::kJobFile).string();
  std::ifstream in(path);
  if (!in) return core::makeError(core::ErrorCode::NotFound, path, "no batch job here (written by batch --slurm)");
  std::stringstream text;
  text << in.rdbuf();
  json j = json::parse(text.str(), nullptr, false);
  if (!j.is_object() || !j.contains("jobs") || !j["jobs"].is_array() || j["jobs"].empty() || !j.contains("store") ||
      !j.contains("labelSet") || !j.contains("key"))
    return core::makeError(core::ErrorCode::ParseError, path, "not a batch job file (store, labelSet, key, jobs)");
  for (const auto& id : j["jobs"])
    if (!id.is_string() || id.get<std::string>().find_first_not_of("0123456789") != std::string::npos ||
        id.get<std::string>().empty())
      return core::makeError(core::ErrorCode::ParseError, path, "a job id is not a number");
  return j;
}

core::Status writeJobFile(const std::string& jobDir, const json& j) {
  const std::string text = j.dump(2) + "\n";
  return io::writeFileAtomically((fs::path(jobDir) / batch::kJobFile).string(), text.data(), text.size());
}

bool hasSpace(const std::string& s) { return s.find_first_of(" \t\r\n") != std::string::npos; }

}  // namespace

core::Result<batch::EngineIdentity> batchEngineIdentity(const BatchOptions& o, std::string& checkpointFile);

int runBatchSlurm(const BatchOptions& o, io::ShareStore& store, const std::vector<std::string>& studies) {
  if (o.jobDir.empty()) return usageError("batch", "--slurm needs --job-dir DIR (on storage every node mounts)");
  if (hasSpace(o.jobDir)) return usageError("batch", "--job-dir '" + o.jobDir + "': sbatch cannot take a path with spaces");
  for (const char* tool : {"sbatch", "squeue"})
    if (!io::programAvailable(tool))
      return fileError(core::makeError(core::ErrorCode::NotFound, tool, "not found: is this a Slurm login node?"));
  std::error_code ec;
  const fs::path dir = fs::absolute(o.jobDir, ec);
  if (fs::exists(dir / batch::kJobFile, ec))
    return fileError(core::makeError(core::ErrorCode::InvalidArgument, dir.string(),
                                     "holds a batch job already (batch status / resubmit work on it; a new job needs a "
                                     "new folder)"));
  // The job's folder names studies and holds their statistics and logs: the user's alone (0700 where it is made).
  for (const char* sub : {"logs", "results"})
    if (core::Status s = io::createFolders((dir / sub).string(), io::FileAccess::Private); !s) return fileError(s.error());
  if (studies.empty()) {
    std::fprintf(stderr, "batch: no studies to segment: nothing submitted\n");
    return batch::kComplete;
  }
  // The engine setup's key (so status can read what is done from the share); a checkpoint is fetched and hashed once.
  std::string checkpoint;
  auto identity = batchEngineIdentity(o, checkpoint);
  if (!identity) return fileError(identity.error());

  const int tasks = o.arrayTasks > 0 ? std::min<int>(o.arrayTasks, static_cast<int>(studies.size()))
                                     : std::min<int>(static_cast<int>(studies.size()), 100);
  std::string list;
  for (const auto& s : studies) list += s + "\n";
  if (core::Status s = io::writeFileAtomically((dir / batch::kJobStudies).string(), list.data(), list.size()); !s)
    return fileError(s.error());

  const std::string program = io::currentExecutablePath();
  if (program.empty())
    return fileError(core::makeError(core::ErrorCode::NotFound, "/proc/self/exe", "cannot tell where delineate-cli is"));
  io::SlurmJobRequest job;
  job.name = "delineate-batch-" + o.labelSet;
  job.arrayTasks = tasks;
  job.maxRunning = o.maxRunning;
  job.cpusPerTask = o.cpus;
  job.memory = o.memory;
  job.time = o.time;
  job.gpusPerNode = o.gpus;
  job.partition = o.partition;
  job.account = o.account;
  job.extraOptions = o.sbatchOptions;
  job.output = (dir / "logs" / "%A_%a.out").string();
  job.workDirectory = dir.string();
  // A requeued task (a preempted or failed node) does its slice again; what is done is skipped.
  job.requeue = true;
  job.appendOutput = true;
  job.command = {program, "batch", fs::absolute(store.root(), ec).string(), "--label-set", o.labelSet,
                 "--engine", checkpoint.empty() ? o.engine : fs::absolute(o.engine, ec).string(),
                 "--list", (dir / batch::kJobStudies).string(), "--slice", "slurm", "--job-dir", dir.string()};
  // A share reference stays one (each node fetches it into its own cache, verified).
  if (!checkpoint.empty() && io::parseCheckpointReference(o.engine)) job.command[6] = o.engine;
  if (o.device != "auto") job.command.insert(job.command.end(), {"--device", o.device});
  for (auto c : o.classes) job.command.insert(job.command.end(), {"--class", std::to_string(c)});
  if (o.alsoLabelled) job.command.push_back("--also-labelled");
  if (!o.modality.empty()) job.command.insert(job.command.end(), {"--modality", o.modality});
  if (!o.author.empty()) job.command.insert(job.command.end(), {"--author", o.author});
  if (!o.message.empty()) job.command.insert(job.command.end(), {"--message", o.message});
  if (o.cpus > 0) job.environment["OMP_NUM_THREADS"] = std::to_string(o.cpus);
  auto script = io::slurmBatchScript(job);
  if (!script) return fileError(script.error());
  const std::string scriptPath = (dir / "batch.sbatch").string();
  if (core::Status s = io::writeFileAtomically(scriptPath, script->data(), script->size()); !s) return fileError(s.error());
  ::chmod(scriptPath.c_str(), 0750);

  json j{{"store", fs::absolute(store.root(), ec).string()},
         {"labelSet", o.labelSet},
         {"engine", identity->record},
         {"key", identity->key},
         {"studies", studies.size()},
         {"arrayTasks", tasks},
         {"maxRunning", o.maxRunning},
         {"submittedBy", io::processUserName()},
         {"host", io::localHostName()},
         {"time", io::utcNowIso()},
         {"script", scriptPath},
         {"jobs", json::array()}};
  if (o.noSubmit) {
    if (core::Status s = writeJobFile(dir.string(), j); !s) return fileError(s.error());
    std::printf("wrote %s (%d tasks over %zu studies); not submitted: sbatch %s, then delineate-cli batch resubmit %s\n",
                scriptPath.c_str(), tasks, studies.size(), scriptPath.c_str(), dir.string().c_str());
    return 0;
  }
  auto id = io::submitSlurmJob(scriptPath);
  if (!id) return fileError(id.error());
  j["jobs"].push_back(*id);
  if (core::Status s = writeJobFile(dir.string(), j); !s) {
    std::fprintf(stderr, "warning: job %s was submitted but %s was not written: %s (scancel %s if unwanted)\n",
                 id->c_str(), batch::kJobFile, s.error().describe().c_str(), id->c_str());
    return 1;
  }
  std::printf("submitted job %s: %d array tasks%s over %zu studies, label set '%s' (key %s)\n", id->c_str(), tasks,
              o.maxRunning > 0 ? (" (" + std::to_string(o.maxRunning) + " at once)").c_str() : "", studies.size(),
              o.labelSet.c_str(), identity->key.c_str());
  std::printf("follow it: delineate-cli batch status %s\n", dir.string().c_str());
  if (o.json) std::printf("%s\n", json{{"event", "submitted"}, {"job", *id}, {"tasks", tasks}, {"jobDir", dir.string()}}.dump().c_str());
  return 0;
}

int runBatchStatus(const BatchJobOptions& o) {
  auto job = readJobFile(o.jobDir);
  if (!job) return fileError(job.error());
  const std::string jobId = (*job)["jobs"].back().get<std::string>();
  auto store = io::ShareStore::open((*job)["store"].get<std::string>());
  if (!store) return fileError(store.error());
  const std::string labelSet = (*job)["labelSet"], key = (*job)["key"];
  std::vector<std::string> studies;
  if (int code = batch::readStudyList((fs::path(o.jobDir) / batch::kJobStudies).string(), studies); code != 0) return code;

  // The queue: which tasks still run or wait (an ended job is no longer listed; accounting may be off).
  std::vector<io::SlurmTaskState> tasks;
  std::string queueError;
  if (auto q = io::slurmJobState(jobId); q) tasks = std::move(*q);
  else queueError = q.error().describe();
  std::map<std::string, int> states;
  for (const auto& t : tasks) ++states[t.state];

  // What each ended task said (its summary), for the failures and their reasons.
  std::map<std::string, std::string> failures;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(fs::path(o.jobDir) / "results", ec)) {
    std::ifstream in(e.path());
    std::stringstream text;
    text << in.rdbuf();
    const json s = json::parse(text.str(), nullptr, false);
    if (!s.is_object() || !s.contains("studies")) continue;
    for (const auto& r : s["studies"])
      if (r.value("status", "") == "failed") failures[r.value("study", "")] = r.value("reason", "");
  }
  // The share decides what is done.
  std::vector<std::string> done, todo, failed;
  for (const auto& study : studies) {
    if (batch::doneRevision(*store, study, labelSet, key) > 0) done.push_back(study);
    else if (failures.count(study)) failed.push_back(study);
    else todo.push_back(study);
  }
  const bool running = !tasks.empty();
  if (o.json) {
    json t = json::array();
    for (const auto& x : tasks) t.push_back({{"id", x.id}, {"state", x.state}, {"elapsed", x.elapsed}, {"reason", x.reason}});
    json f = json::object();
    for (const auto& s : failed) f[s] = failures[s];
    std::printf("%s\n", json{{"job", jobId}, {"jobs", (*job)["jobs"]}, {"queue", t}, {"queueError", queueError},
                             {"studies", studies.size()}, {"done", done}, {"failed", f}, {"toDo", todo},
                             {"running", running}}
                            .dump(2)
                            .c_str());
    return 0;
  }
  std::printf("job %s (%s): label set '%s' on %s\n", jobId.c_str(), o.jobDir.c_str(), labelSet.c_str(),
              (*job)["store"].get<std::string>().c_str());
  if (!queueError.empty()) std::printf("  queue: cannot be read: %s\n", queueError.c_str());
  else if (tasks.empty()) std::printf("  queue: the job is no longer queued (ended)\n");
  else {
    std::string line;
    for (const auto& [state, n] : states) line += (line.empty() ? "" : ", ") + std::to_string(n) + " " + state;
    std::printf("  queue: %s\n", line.c_str());
    for (const auto& t : tasks)
      std::printf("    %-16s %-11s %8s  %s\n", t.id.c_str(), t.state.c_str(), t.elapsed.c_str(), t.reason.c_str());
  }
  std::printf("  studies: %zu, %zu done (on the share), %zu failed, %zu to do\n", studies.size(), done.size(),
              failed.size(), todo.size());
  for (const auto& s : failed) std::printf("    failed: %s: %s\n", s.c_str(), failures[s].c_str());
  if (!running && !todo.empty())
    std::printf("  %zu studies were not done (their task was cancelled, killed or timed out): delineate-cli batch "
                "resubmit %s\n",
                todo.size(), o.jobDir.c_str());
  return 0;
}

int runBatchCancel(const BatchJobOptions& o) {
  auto job = readJobFile(o.jobDir);
  if (!job) return fileError(job.error());
  const std::string jobId = (*job)["jobs"].back().get<std::string>();
  if (core::Status s = io::cancelSlurmJob(jobId); !s) return fileError(s.error());
  std::printf("cancelled job %s; studies already saved stay; a study being segmented leaves no revision (its lease "
              "expires)\n",
              jobId.c_str());
  return 0;
}

int runBatchResubmit(const BatchJobOptions& o) {
  auto job = readJobFile(o.jobDir);
  if (!job) return fileError(job.error());
  const std::string previous = (*job)["jobs"].back().get<std::string>();
  if (auto q = io::slurmJobState(previous); q && !q->empty())
    return fileError(core::makeError(core::ErrorCode::InvalidArgument, "job " + previous,
                                     "is still queued or running: cancel it first (batch cancel)"));
  auto id = io::submitSlurmJob((*job)["script"].get<std::string>());
  if (!id) return fileError(id.error());
  (*job)["jobs"].push_back(*id);
  if (core::Status s = writeJobFile(o.jobDir, *job); !s) return fileError(s.error());
  std::printf("submitted job %s again as %s: studies done are skipped\n", previous.c_str(), id->c_str());
  return 0;
}

}  // namespace delineate::app::cli
