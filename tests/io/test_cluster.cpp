// io/cluster: the batch scripts we hand to sbatch (every argument quoted, nothing that would break the script), the
// placement of a process from Slurm's or torchrun's variables, and running a program with a timeout.
#include <catch2/catch.hpp>

#include <map>
#include <string>

#include "io/cluster/process.h"
#include "io/cluster/slurm.h"
#include "tests/common/test_support.h"

using namespace delineate;
using namespace delineate::test;

TEST_CASE("slurm script: hostile arguments stay one word each when bash runs it, and broken fields are refused by name",
          "[cluster]") {
  ScratchDir dir("cluster-script");
  io::SlurmJobRequest r;
  r.name = "delineate-batch-auto";
  r.arrayTasks = 4;
  r.maxRunning = 2;
  r.cpusPerTask = 3;
  r.memory = "8G";
  r.time = "1:00:00";
  r.signalSecondsBeforeLimit = 120;
  r.requeue = true;
  const std::string hostile = "it's $(touch " + (dir / "pwned").string() + ") `id` \"q\" ;\n next";
  r.command = {"/bin/printf", "[%s]\\n", hostile, "two words"};
  auto script = io::slurmBatchScript(r);
  REQUIRE(script.ok());
  CHECK(script->find("#SBATCH --array=0-3%2\n") != std::string::npos);
  CHECK(script->find("#SBATCH --cpus-per-task=3\n") != std::string::npos);
  CHECK(script->find("#SBATCH --signal=B:TERM@120\n") != std::string::npos);
  CHECK(script->find("#SBATCH --requeue\n") != std::string::npos);
  writeTextFile(dir / "job.sh", *script);
  auto ran = io::runProcess({"bash", (dir / "job.sh").string()});
  REQUIRE(ran.ok());
  CHECK(ran->exitCode == 0);
  CHECK(ran->out == "[" + hostile + "]\n[two words]\n");
  CHECK_FALSE(std::filesystem::exists(dir / "pwned"));

  io::SlurmJobRequest bad = r;
  bad.partition = "gpu\n#SBATCH --uid=0";
  auto refused = io::slurmBatchScript(bad);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().detail.find("partition") != std::string::npos);
  bad = r;
  bad.command.clear();
  CHECK_FALSE(io::slurmBatchScript(bad).ok());
  bad = r;
  bad.environment["BAD NAME"] = "x";
  CHECK_FALSE(io::slurmBatchScript(bad).ok());
}

TEST_CASE("cluster placement: Slurm's variables, torchrun's winning over them, and impossible ranks refused",
          "[cluster]") {
  std::map<std::string, std::string> env;
  const auto get = [&](const char* name) -> const char* {
    auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
  };
  auto plain = io::clusterPlacementFromEnvironment(get);
  REQUIRE(plain.ok());
  CHECK(plain->source.empty());
  CHECK(plain->worldSize == 1);

  env = {{"SLURM_JOB_ID", "77"}, {"SLURM_ARRAY_JOB_ID", "70"}, {"SLURM_ARRAY_TASK_ID", "3"},
         {"SLURM_ARRAY_TASK_COUNT", "8"}, {"SLURM_PROCID", "1"}, {"SLURM_NTASKS", "4"}, {"SLURM_LOCALID", "1"},
         {"SLURM_JOB_NODELIST", "gpu[007-009,12],login1"}};
  auto slurm = io::clusterPlacementFromEnvironment(get);
  REQUIRE(slurm.ok());
  CHECK(slurm->source == "slurm");
  CHECK(slurm->jobId == "70");
  CHECK(slurm->arrayTask == 3);
  CHECK(slurm->arrayTaskCount == 8);
  CHECK(slurm->rank == 1);
  CHECK(slurm->worldSize == 4);
  CHECK(slurm->masterAddress == "gpu007");

  env["RANK"] = "2";
  env["WORLD_SIZE"] = "3";
  env["MASTER_ADDR"] = "10.0.0.5";
  env["MASTER_PORT"] = "29500";
  auto torchrun = io::clusterPlacementFromEnvironment(get);
  REQUIRE(torchrun.ok());
  CHECK(torchrun->source == "torchrun");
  CHECK(torchrun->rank == 2);
  CHECK(torchrun->worldSize == 3);
  CHECK(torchrun->masterAddress == "10.0.0.5");
  CHECK(torchrun->masterPort == 29500);

  env["RANK"] = "3";
  auto outside = io::clusterPlacementFromEnvironment(get);
  REQUIRE_FALSE(outside.ok());
  CHECK(outside.error().subject == "RANK");
  env["RANK"] = "two";
  auto word = io::clusterPlacementFromEnvironment(get);
  REQUIRE_FALSE(word.ok());
  CHECK(word.error().subject == "RANK");

  CHECK(io::firstSlurmHost("node1") == "node1");
  CHECK(io::firstSlurmHost("a[1-3],b") == "a1");
  CHECK(io::firstSlurmHost("x,y") == "x");
}

TEST_CASE("runProcess: output and exit code, a missing program named, a hung one killed at its timeout", "[cluster]") {
  auto ok = io::runProcess({"sh", "-c", "echo out; echo err >&2; exit 3"});
  REQUIRE(ok.ok());
  CHECK(ok->exitCode == 3);
  CHECK(ok->out == "out\n");
  CHECK(ok->err == "err\n");
  auto missing = io::runProcess({"no-such-program-delineate"});
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().subject == "no-such-program-delineate");
  auto hung = io::runProcess({"sleep", "30"}, 1);
  REQUIRE_FALSE(hung.ok());
  CHECK(hung.error().detail.find("within 1 s") != std::string::npos);
  CHECK(io::shellQuote("a'b") == "'a'\\''b'");
}
