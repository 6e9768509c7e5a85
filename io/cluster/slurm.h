#pragma once
// Slurm, the scheduler clusters already have, through its own client commands (sbatch, squeue, scancel): no daemon of
// ours. A job is a batch script we write (every argument shell-quoted), submitted with `sbatch --parsable`; its state
// is what squeue says (without accounting, a finished job leaves squeue after MinJobAge: the share holds the results,
// so callers read completion from there, never from the queue alone).

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/error.h"

namespace delineate::io {

struct SlurmJobRequest {
  std::string name = "delineate";
  int arrayTasks = 0;          // > 0: a job array of tasks 0..arrayTasks-1
  int maxRunning = 0;          // array: at most this many tasks at once (sbatch --array=0-N%M); 0: no limit
  int nodes = 0;               // 0: Slurm's default
  int tasksPerNode = 0;        // 0: Slurm's default (one task)
  int cpusPerTask = 0;
  std::string memory;          // per node, as sbatch takes it ("8G"); empty: the partition's default
  std::string time;            // wall-time limit ("1:00:00", "55"); empty: the partition's default
  int gpusPerNode = 0;         // --gres=gpu:N
  std::string partition, account;
  // --signal=B:<signal>@<seconds>: sent this many seconds before the wall-time limit to the batch shell (the script
  // execs the program or srun, which passes it to the tasks): a training run saves its checkpoint then. 0: none.
  int signalSecondsBeforeLimit = 0;
  std::string limitSignal = "TERM";
  bool requeue = false;        // --requeue: a preempted or failed node's job goes back to the queue
  bool appendOutput = false;   // --open-mode=append: a requeued job's log continues instead of starting again
  std::string output;          // the log file pattern (%A job, %a task, %j job id); empty: Slurm's default
  std::string workDirectory;   // --chdir
  std::vector<std::string> extraOptions;  // passed on as "#SBATCH <option>" lines, verbatim (the user's choice)
  std::map<std::string, std::string> environment;  // exported by the script before the command
  std::vector<std::string> command;  // argv of what each task runs (absolute program path)
  bool srun = false;           // run the command through srun (one process per task; multi-task jobs)
};

// The batch script: "#SBATCH" lines for the request, then the command (quoted), exec'd so that Slurm's signals reach
// it (under srun, srun passes them on). InvalidArgument naming the field for values that would break the script (a
// newline in an option, an empty command, an array without tasks).
core::Result<std::string> slurmBatchScript(const SlurmJobRequest& request);

// sbatch --parsable SCRIPT: the job id. Errors name sbatch and carry its message (no such partition, a limit).
core::Result<std::string> submitSlurmJob(const std::string& scriptPath, int timeoutSeconds = 60);

struct SlurmTaskState {
  std::string id;      // "123_4" (array task), "123_[5-9%2]" (pending array tasks), "123" (a plain job)
  int arrayTask = -1;  // the task's index when it is one task, else -1
  std::string state;   // PENDING, RUNNING, COMPLETING, ...
  std::string elapsed; // "0:12"
  std::string reason;  // the node list when running, else why it waits ("(Resources)")
};
// squeue for one job (array tasks one per line where Slurm lists them apart). Empty when the queue no longer knows
// the job (it ended). Errors: squeue missing or failing (the controller down: its message).
core::Result<std::vector<SlurmTaskState>> slurmJobState(const std::string& jobId, int timeoutSeconds = 30);

// scancel JOB (every task of an array). Errors name scancel and carry its message.
core::Status cancelSlurmJob(const std::string& jobId, int timeoutSeconds = 30);

// Where a process stands in a Slurm job or a torchrun launch, from the environment: array task and count, and for
// multi-process jobs the rank, world size and rendezvous (SLURM_PROCID/SLURM_NTASKS and the first node of
// SLURM_JOB_NODELIST, or torchrun's RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT; the latter win when both are set).
struct ClusterPlacement {
  std::string jobId;            // SLURM_ARRAY_JOB_ID or SLURM_JOB_ID
  std::optional<int> arrayTask; // SLURM_ARRAY_TASK_ID
  std::optional<int> arrayTaskCount;  // SLURM_ARRAY_TASK_COUNT
  int rank = 0, worldSize = 1, localRank = 0;
  std::string masterAddress;    // empty: not given
  int masterPort = 0;
  std::string source;           // "slurm", "torchrun" or "" (a plain process)
};
// `getenv` reads a variable (tests pass their own). Errors: variables set but not numbers or out of range (a rank not
// below the world size), naming the variable.
core::Result<ClusterPlacement> clusterPlacementFromEnvironment(
    const std::function<const char*(const char*)>& getenv = {});

// The first host of a Slurm node list ("node[03-05,7],gpu1" -> "node03").
std::string firstSlurmHost(const std::string& nodeList);

}  // namespace delineate::io
