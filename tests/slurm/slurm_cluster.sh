#!/usr/bin/env bash
# Runs a command beside a real one-node Slurm cluster of its own: a private munge daemon, slurmctld and slurmd 22.05
# (Debian's slurm-wlm) with a configuration in a fresh temporary folder, on loopback ports found free. The machine's
# own Slurm (if any), its /etc/slurm and /etc/munge are neither read nor changed: SLURM_CONF points the client commands
# (sbatch, squeue, scancel, scontrol, srun) at the private configuration.
#
# Usage: slurm_cluster.sh COMMAND [ARGS...]      e.g.  slurm_cluster.sh build/tests/test_cli "[.slurm]"
#
# The command runs with SLURM_CONF set and DELINEATE_TEST_SLURM=1 (the tests tagged [.slurm] check it: they need this
# cluster). Exit status: the command's own; 77 (CTest SKIP_RETURN_CODE) with "SKIPPED: <reason>" when Slurm or munge is
# not installed or this is not root (slurmd runs as root here), except under CI=true, where that is a failure (exit 1).
# KEEP=1 keeps the folder (logs: slurmctld.log, slurmd.log, munged.log).
set -euo pipefail

if [ $# -lt 1 ]; then
  echo "usage: $0 COMMAND [ARGS...]" >&2
  exit 2
fi

source "$(dirname "${BASH_SOURCE[0]}")/../common/skip_or_fail.sh"

for tool in munged slurmctld slurmd sbatch squeue scancel scontrol srun; do
  command -v "$tool" >/dev/null || skip "$tool not found (Debian: bash scripts/setup.sh installs slurm-wlm and munge)"
done
[ "$(id -u)" -eq 0 ] || skip "slurmd must run as root for a one-node cluster of its own (this is uid $(id -u))"

work="$(mktemp -d "${TMPDIR:-/tmp}/slurm_cluster.XXXXXX")"
chmod 755 "$work"
pids=()
cleanup() {
  local status=$?
  # slurmd first (it ends the job steps it runs), then the controller, then munge.
  for ((i = ${#pids[@]} - 1; i >= 0; i--)); do kill -TERM "${pids[$i]}" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
  done
  # Job processes slurmd started and did not reap (a killed slurmd leaves its slurmstepd behind).
  pkill -KILL -f "slurmstepd.*$work" 2>/dev/null || true
  if [ "${KEEP:-0}" = 1 ] || { [ "$status" -ne 0 ] && [ "${KEEP_ON_FAILURE:-1}" = 1 ] && [ -z "${CI:-}" ]; }; then
    echo "slurm_cluster: kept $work"
  else
    rm -rf "$work"
  fi
  exit "$status"
}
trap cleanup EXIT

# A free loopback port: one nobody answers on (bash's /dev/tcp, no extra tool).
free_port() {
  local p
  for _ in $(seq 1 200); do
    p=$((20000 + RANDOM % 30000))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then echo "$p"; return; fi
  done
  echo "no free port" >&2
  return 1
}

mkdir -p "$work/munge" "$work/state" "$work/spool" "$work/run"
chmod 755 "$work/munge"
head -c 1024 /dev/urandom >"$work/munge/munge.key"
chmod 600 "$work/munge/munge.key"
socket="$work/munge/munge.socket"
munged --foreground --force --key-file "$work/munge/munge.key" --socket "$socket" \
  --pid-file "$work/munge/munged.pid" --log-file "$work/munged.log" --seed-file "$work/munge/munge.seed" \
  >>"$work/munged.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 100); do [ -S "$socket" ] && break; sleep 0.05; done
[ -S "$socket" ] || { echo "munged did not start:"; cat "$work/munged.log"; exit 1; }

node="$(hostname -s)"
# The node as slurmd -C sees it, so the controller never marks it invalid for claiming more than it has.
cpus="$(slurmd -C | sed -n 's/.*CPUs=\([0-9]*\).*/\1/p' | head -1)"
memory="$(slurmd -C | sed -n 's/.*RealMemory=\([0-9]*\).*/\1/p' | head -1)"
ctld_port="$(free_port)"
slurmd_port="$(free_port)"
while [ "$slurmd_port" = "$ctld_port" ]; do slurmd_port="$(free_port)"; done
cat >"$work/slurm.conf" <<EOF
ClusterName=delineate-test
SlurmctldHost=localhost
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$socket,cred_expire=10
CredType=cred/munge
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/run/slurmctld.pid
SlurmdPidFile=$work/run/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
SchedulerType=sched/backfill
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
ReturnToService=2
MpiDefault=none
MinJobAge=30
KillWait=5
SchedulerParameters=sched_interval=1
MessageTimeout=10
NodeName=$node NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$memory State=UNKNOWN
PartitionName=test Nodes=$node Default=YES MaxTime=INFINITE State=UP OverSubscribe=NO
EOF
# cred_expire: a requeued job may start again only after the job credentials of its last start expired (Slurm holds it
# back by that long, 120 s by default); the test requeues jobs and need not wait two minutes.
# slurmd 22.05 initialises cgroups even with proctrack/linuxproc; this machine mounts the v1 controllers.
if [ -d /sys/fs/cgroup/cpu ] && [ ! -f /sys/fs/cgroup/cgroup.controllers ]; then
  echo "CgroupPlugin=cgroup/v1" >"$work/cgroup.conf"
else
  echo "CgroupPlugin=autodetect" >"$work/cgroup.conf"
fi
export SLURM_CONF="$work/slurm.conf"

slurmctld -D -i -f "$SLURM_CONF" >"$work/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D -f "$SLURM_CONF" -N "$node" >"$work/slurmd.out" 2>&1 &
pids+=($!)

# Ready when the node is idle (or mixed): the controller answers and the node registered.
ready=0
for _ in $(seq 1 300); do
  state="$(sinfo -h -N -o %t 2>/dev/null | head -1 || true)"
  case "$state" in idle|mix|alloc) ready=1; break ;; esac
  sleep 0.1
done
if [ "$ready" != 1 ]; then
  echo "the Slurm cluster did not come up (node state '${state:-none}'):"
  tail -20 "$work/slurmctld.log" "$work/slurmd.log" "$work/slurmctld.out" "$work/slurmd.out" 2>/dev/null || true
  exit 1
fi

set +e
DELINEATE_TEST_SLURM=1 "$@"
status=$?
set -e
if [ "$status" -ne 0 ]; then
  echo "--- slurmctld.log (tail)"; tail -30 "$work/slurmctld.log" 2>/dev/null || true
  echo "--- slurmd.log (tail)"; tail -30 "$work/slurmd.log" 2>/dev/null || true
fi
exit "$status"
