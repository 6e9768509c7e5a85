#include "io/cluster/slurm.h"

#include <cctype>
#include <cstdlib>
#include <sstream>

#include "io/cluster/process.h"

namespace delineate::io {
namespace {

bool hasLineBreak(const std::string& s) { return s.find_first_of("\r\n") != std::string::npos; }

core::Error badField(const std::string& field, const std::string& why) {
  return core::makeError(core::ErrorCode::InvalidArgument, "the Slurm job", field + ": " + why);
}

std::string trim(const std::string& s) {
  std::size_t a = 0, b = s.size();
  while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
  while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
  return s.substr(a, b - a);
}

// The command's own words for a failure: its stderr, else its stdout, else the exit code.
std::string failureText(const std::string& program, const ProcessResult& r) {
  std::string text = trim(r.err.empty() ? r.out : r.err);
  if (text.size() > 600) text = text.substr(0, 600) + "...";
  return program + " failed (exit " + std::to_string(r.exitCode) + ")" + (text.empty() ? "" : ": " + text);
}

std::optional<int> parseInt(const char* text) {
  if (!text || !*text) return std::nullopt;
  char* end = nullptr;
  errno = 0;
  const long v = std::strtol(text, &end, 10);
  if (errno != 0 || *end != '\0' || v < -1000000000L || v > 1000000000L) return std::nullopt;
  return static_cast<int>(v);
}

}  // namespace

core::Result<std::string> slurmBatchScript(const SlurmJobRequest& r) {
  if (r.command.empty() || r.command[0].empty()) return badField("command", "nothing to run");
  const std::vector<std::pair<std::string, const std::string*>> texts = {
      {"name", &r.name}, {"memory", &r.memory}, {"time", &r.time}, {"partition", &r.partition},
      {"account", &r.account}, {"output", &r.output}, {"workDirectory", &r.workDirectory}};
  for (const auto& [field, value] : texts)
    if (hasLineBreak(*value)) return badField(field, "holds a line break");
  for (const auto& o : r.extraOptions)
    if (hasLineBreak(o) || o.empty()) return badField("option '" + o + "'", "empty or holds a line break");
  if (r.limitSignal.empty() || r.limitSignal.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") != std::string::npos)
    return badField("limitSignal", "'" + r.limitSignal + "' is not a signal name");
  for (const auto& a : r.command)
    if (a.find('\0') != std::string::npos) return badField("command", "an argument holds a NUL");
  for (const auto& [key, value] : r.environment) {
    if (key.empty() || !(std::isalpha(static_cast<unsigned char>(key[0])) || key[0] == '_'))
      return badField("environment", "'" + key + "' is not a variable name");
    for (char c : key)
      if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_'))
        return badField("environment", "'" + key + "' is not a variable name");
    (void)value;
  }
  if (r.arrayTasks < 0 || r.maxRunning < 0 || r.cpusPerTask < 0 || r.gpusPerNode < 0 || r.nodes < 0 ||
      r.tasksPerNode < 0 || r.signalSecondsBeforeLimit < 0)
    return badField("counts", "negative");

  std::ostringstream s;
  s << "#!/bin/bash\n";
  // sbatch reads "#SBATCH" lines up to the first command; the values are not shell-parsed there, but sbatch splits
  // each line at whitespace, so a value with spaces would break: names and paths are checked by the caller.
  s << "#SBATCH --job-name=" << (r.name.empty() ? "delineate" : r.name) << "\n";
  if (r.arrayTasks > 0) {
    s << "#SBATCH --array=0-" << (r.arrayTasks - 1);
    if (r.maxRunning > 0) s << "%" << r.maxRunning;
    s << "\n";
  }
  if (r.nodes > 0) s << "#SBATCH --nodes=" << r.nodes << "\n";
  if (r.tasksPerNode > 0) s << "#SBATCH --ntasks-per-node=" << r.tasksPerNode << "\n";
  if (r.cpusPerTask > 0) s << "#SBATCH --cpus-per-task=" << r.cpusPerTask << "\n";
  if (!r.memory.empty()) s << "#SBATCH --mem=" << r.memory << "\n";
  if (!r.time.empty()) s << "#SBATCH --time=" << r.time << "\n";
  if (r.gpusPerNode > 0) s << "#SBATCH --gres=gpu:" << r.gpusPerNode << "\n";
  if (!r.partition.empty()) s << "#SBATCH --partition=" << r.partition << "\n";
  if (!r.account.empty()) s << "#SBATCH --account=" << r.account << "\n";
  // B: to the batch shell too; the script execs the program (or srun), so the signal lands in our process.
  if (r.signalSecondsBeforeLimit > 0)
    s << "#SBATCH --signal=B:" << r.limitSignal << "@" << r.signalSecondsBeforeLimit << "\n";
  if (r.requeue) s << "#SBATCH --requeue\n";
  if (r.appendOutput) s << "#SBATCH --open-mode=append\n";
  if (!r.output.empty()) s << "#SBATCH --output=" << r.output << "\n";
  if (!r.workDirectory.empty()) s << "#SBATCH --chdir=" << r.workDirectory << "\n";
  for (const auto& o : r.extraOptions) s << "#SBATCH " << o << "\n";
  s << "# Written by Delineate; every argument below is quoted for the shell.\n";
  s << "set -e\n";
  for (const auto& [key, value] : r.environment) s << "export " << key << "=" << shellQuote(value) << "\n";
  s << "exec";
  if (r.srun) s << " srun --kill-on-bad-exit=1";
  for (const auto& a : r.command) s << " " << shellQuote(a);
  s << "\n";
  return s.str();
}

core::Result<std::string> submitSlurmJob(const std::string& scriptPath, int timeoutSeconds) {
  auto r = runProcess({"sbatch", "--parsable", scriptPath}, timeoutSeconds);
  if (!r) return r.error();
  if (r->exitCode != 0) return core::makeError(core::ErrorCode::WriteFailed, scriptPath, failureText("sbatch", *r));
  // "123" or "123;cluster".
  std::string id = trim(r->out);
  if (const auto semicolon = id.find(';'); semicolon != std::string::npos) id = id.substr(0, semicolon);
  if (id.empty() || id.find_first_not_of("0123456789") != std::string::npos)
    return core::makeError(core::ErrorCode::ParseError, scriptPath, "sbatch answered no job id: '" + trim(r->out) + "'");
  return id;
}

core::Result<std::vector<SlurmTaskState>> slurmJobState(const std::string& jobId, int timeoutSeconds) {
  if (jobId.empty() || jobId.find_first_not_of("0123456789") != std::string::npos)
    return core::makeError(core::ErrorCode::InvalidArgument, jobId, "not a Slurm job id");
  auto r = runProcess({"squeue", "-h", "-j", jobId, "-o", "%i|%T|%M|%R"}, timeoutSeconds);
  if (!r) return r.error();
  std::vector<SlurmTaskState> states;
  if (r->exitCode != 0) {
    // A job the controller has forgotten is not an error: it ended.
    if (r->err.find("Invalid job id") != std::string::npos) return states;
    return core::makeError(core::ErrorCode::ReadFailed, "job " + jobId, failureText("squeue", *r));
  }
  std::istringstream lines(r->out);
  std::string line;
  while (std::getline(lines, line)) {
    line = trim(line);
    if (line.empty()) continue;
    SlurmTaskState t;
    std::vector<std::string> f;
    std::size_t start = 0;
    for (;;) {
      const auto bar = line.find('|', start);
      f.push_back(line.substr(start, bar == std::string::npos ? std::string::npos : bar - start));
      if (bar == std::string::npos) break;
      start = bar + 1;
    }
    if (f.size() < 4) continue;
    t.id = f[0];
    t.state = f[1];
    t.elapsed = f[2];
    t.reason = f[3];
    if (const auto u = t.id.find('_'); u != std::string::npos) {
      if (auto task = parseInt(t.id.substr(u + 1).c_str())) t.arrayTask = *task;
    }
    states.push_back(std::move(t));
  }
  return states;
}

core::Status cancelSlurmJob(const std::string& jobId, int timeoutSeconds) {
  if (jobId.empty() || jobId.find_first_not_of("0123456789") != std::string::npos)
    return core::makeError(core::ErrorCode::InvalidArgument, jobId, "not a Slurm job id");
  auto r = runProcess({"scancel", jobId}, timeoutSeconds);
  if (!r) return r.error();
  if (r->exitCode != 0) return core::makeError(core::ErrorCode::WriteFailed, "job " + jobId, failureText("scancel", *r));
  return core::Status();
}

std::string firstSlurmHost(const std::string& nodeList) {
  // Up to the first comma outside brackets; a bracket range gives its first number, zero padding kept.
  std::string first;
  int depth = 0;
  for (char c : nodeList) {
    if (c == '[') ++depth;
    if (c == ']') --depth;
    if (c == ',' && depth == 0) break;
    first += c;
  }
  const auto open = first.find('[');
  if (open == std::string::npos) return trim(first);
  std::string range = first.substr(open + 1);
  if (const auto close = range.find(']'); close != std::string::npos) range = range.substr(0, close);
  const auto end = range.find_first_of(",-");
  return first.substr(0, open) + range.substr(0, end);
}

core::Result<ClusterPlacement> clusterPlacementFromEnvironment(const std::function<const char*(const char*)>& get) {
  const auto env = [&](const char* name) -> const char* { return get ? get(name) : std::getenv(name); };
  ClusterPlacement p;
  const auto number = [&](const char* name, int minimum) -> core::Result<std::optional<int>> {
    const char* text = env(name);
    if (!text || !*text) return std::optional<int>();
    auto v = parseInt(text);
    if (!v || *v < minimum)
      return core::makeError(core::ErrorCode::InvalidArgument, name, std::string("'") + text + "' is not a valid value");
    return std::optional<int>(*v);
  };
#define DELINEATE_READ(var, name, minimum)        \
  auto var = number(name, minimum);               \
  if (!var) return var.error();
  DELINEATE_READ(slurmProc, "SLURM_PROCID", 0)
  DELINEATE_READ(slurmTasks, "SLURM_NTASKS", 1)
  DELINEATE_READ(slurmLocal, "SLURM_LOCALID", 0)
  DELINEATE_READ(arrayTask, "SLURM_ARRAY_TASK_ID", 0)
  DELINEATE_READ(arrayCount, "SLURM_ARRAY_TASK_COUNT", 1)
  DELINEATE_READ(rank, "RANK", 0)
  DELINEATE_READ(world, "WORLD_SIZE", 1)
  DELINEATE_READ(localRank, "LOCAL_RANK", 0)
  DELINEATE_READ(masterPort, "MASTER_PORT", 1)
#undef DELINEATE_READ
  if (const char* job = env("SLURM_ARRAY_JOB_ID"); job && *job) p.jobId = job;
  else if (const char* j = env("SLURM_JOB_ID"); j && *j) p.jobId = j;
  p.arrayTask = *arrayTask;
  p.arrayTaskCount = *arrayCount;
  if (*rank || *world) {
    p.source = "torchrun";
    p.rank = rank->value_or(0);
    p.worldSize = world->value_or(1);
    p.localRank = localRank->value_or(p.rank);
  } else if (*slurmProc || *slurmTasks) {
    p.source = "slurm";
    p.rank = slurmProc->value_or(0);
    p.worldSize = slurmTasks->value_or(1);
    p.localRank = slurmLocal->value_or(0);
  } else if (!p.jobId.empty()) {
    p.source = "slurm";
  }
  if (p.rank >= p.worldSize)
    return core::makeError(core::ErrorCode::InvalidArgument, p.source == "torchrun" ? "RANK" : "SLURM_PROCID",
                           "rank " + std::to_string(p.rank) + " is not below the world size " +
                               std::to_string(p.worldSize));
  if (const char* addr = env("MASTER_ADDR"); addr && *addr) p.masterAddress = addr;
  else if (const char* nodes = env("SLURM_JOB_NODELIST"); nodes && *nodes && p.source == "slurm")
    p.masterAddress = firstSlurmHost(nodes);
  p.masterPort = masterPort->value_or(0);
  return p;
}

}  // namespace delineate::io
