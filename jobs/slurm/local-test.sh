#!/bin/bash
# Not run in CI (it needs slurm-wlm and munge installed). Run successfully on 2026-11-22 on
# Debian 12 with slurm-wlm 22.05.8 as root: `jobs/slurm/local-test.sh` submitted test.sbatch
# unchanged (meaningless 5 on 2 ranks), the job passed its check, exit status 0.
#
# Starts a throwaway single-node Slurm cluster on this machine and submits the reduced test
# job jobs/slurm/test.sbatch to it, so the sbatch directives, srun/mpiexec launch, the
# --signal=B:USR1 forwarding and the checkpoint/resume path can be tried without a cluster.
#
# Needs Debian/Ubuntu packages (nothing else is installed or configured system-wide):
#   sudo apt-get install slurm-wlm munge
# and a build in build/ (cmake -S . -B build && cmake --build build).
#
# Everything runs as you: munged, slurmctld and slurmd use a generated minimal slurm.conf,
# a fresh MUNGE key, sockets, state and logs in one temporary directory, removed at exit
# (KEEP=1 keeps it). Nothing in /etc, /var or /run is touched, no service is started.
#
# Usage (from anywhere):
#   jobs/slurm/local-test.sh                                   # meaningless 5 on 2 ranks
#   jobs/slurm/local-test.sh --export=ALL,MODE=root            # root 44444554
#   jobs/slurm/local-test.sh --export=ALL,CHECKPOINT_TEST=1    # checkpoint + resume
# Extra arguments go to sbatch; their --export variables are merged with this script's own
# (LAUNCH, THREADS; jobs/lib/sbatch-exports.sh), a caller's value winning. Environment:
#   LAUNCH=mpiexec (default) | srun   how test.sbatch starts the ranks inside the allocation.
#       mpiexec works with any MPI (Hydra and Open MPI start their daemons through srun and
#       provide PMI themselves). srun needs a Slurm MPI plugin matching your MPI: set
#       MPI_DEFAULT=pmi2 or pmix as well (MpiDefault in slurm.conf; default none).
#   AS_ROOT=1   start slurmd with sudo. Slurm documents slurmd as a root daemon; if job steps
#       fail with "Operation not permitted" (setgroups/setuid in slurmstepd), use this.
#   PORT=N      slurmctld port (slurmd uses N+1); default a random port in 20000-29999.
#   KEEP=1      keep the temporary directory (config, logs, job output).
#   PRINT_SBATCH=1  print the sbatch command this would run (one word per line) and exit,
#       without Slurm (tests/mpi/slurm_exports_test.sh).
set -o pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=../lib/sbatch-exports.sh
. "$repo/jobs/lib/sbatch-exports.sh"
merge_sbatch_exports "ALL,LAUNCH=${LAUNCH:-mpiexec},THREADS=3" "$@" || exit 2
if [ "${PRINT_SBATCH:-0}" = 1 ]; then
  printf '%s\n' sbatch "--export=$MERGED_EXPORT" "${SBATCH_ARGS[@]}" jobs/slurm/test.sbatch
  exit 0
fi
for cmd in munged slurmctld slurmd sbatch sinfo scontrol; do
  command -v "$cmd" >/dev/null || {
    echo "local-test: $cmd not found; install with: sudo apt-get install slurm-wlm munge" >&2
    exit 2
  }
done
[ -x "$repo/build/bin/pentago-endgame" ] || {
  echo "local-test: build first: cmake -S $repo -B $repo/build && cmake --build $repo/build" >&2
  exit 2
}

tmp=$(mktemp -d /tmp/pentago-slurm.XXXXXX) || exit 1
chmod 700 "$tmp"
export SLURM_CONF=$tmp/slurm.conf
node=$(hostname -s)
port=${PORT:-$((20000 + RANDOM % 10000))}
sudo=
[ "${AS_ROOT:-0}" = 1 ] && sudo="sudo -E"

cleanup() {
  local status=$?
  for daemon in slurmd slurmctld munged; do
    if [ -f "$tmp/$daemon.pid" ]; then
      local pid
      pid=$(cat "$tmp/$daemon.pid")
      if [ $daemon = slurmd ]; then $sudo kill "$pid" 2>/dev/null; else kill "$pid" 2>/dev/null; fi
    fi
  done
  sleep 1
  if [ $status -ne 0 ]; then
    for log in munged slurmctld slurmd; do
      [ -f "$tmp/$log.log" ] && { echo "---- $tmp/$log.log (last lines)"; tail -n 15 "$tmp/$log.log"; }
    done
  fi
  if [ "${KEEP:-0}" = 1 ]; then
    echo "local-test: kept $tmp"
  else
    $sudo rm -rf "$tmp"
  fi
  exit $status
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# 1. MUNGE, with its own key and socket.
dd if=/dev/urandom of="$tmp/munge.key" bs=1024 count=1 status=none && chmod 400 "$tmp/munge.key"
munged --force --key-file="$tmp/munge.key" --socket="$tmp/munge.socket" \
  --pid-file="$tmp/munged.pid" --log-file="$tmp/munged.log" --seed-file="$tmp/munged.seed" || {
  echo "local-test: munged did not start" >&2; exit 1; }

# 2. A minimal slurm.conf: one node (this machine, as slurmd -C describes it), one partition,
# no accounting, no cgroups, daemons running as you.
hardware=$(slurmd -C 2>/dev/null | head -n 1 | sed "s/^NodeName=[^ ]*/NodeName=$node/")
[ -n "$hardware" ] || hardware="NodeName=$node CPUs=$(nproc) RealMemory=$(awk '/MemTotal/ { print int($2 / 1024 * 0.9) }' /proc/meminfo)"
mkdir -p "$tmp/state" "$tmp/spool"
cat > "$SLURM_CONF" <<CONF
ClusterName=pentagolocal
SlurmctldHost=$node(127.0.0.1)
SlurmUser=$(id -un)
SlurmdUser=$([ -n "$sudo" ] && echo root || id -un)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$tmp/munge.socket
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/slurmctld.log
SlurmdLogFile=$tmp/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=${MPI_DEFAULT:-none}
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
KillWait=60
$hardware NodeAddr=127.0.0.1 State=UNKNOWN
PartitionName=local Nodes=$node Default=YES MaxTime=INFINITE State=UP
CONF

# 3. The daemons (both fork into the background and write their pid files).
slurmctld -c -f "$SLURM_CONF" || { echo "local-test: slurmctld did not start" >&2; exit 1; }
$sudo env SLURM_CONF="$SLURM_CONF" slurmd -f "$SLURM_CONF" -N "$node" || {
  echo "local-test: slurmd did not start (try AS_ROOT=1)" >&2; exit 1; }

# 4. Wait for the node to be idle (resume it if it came up drained).
state=
for _ in $(seq 60); do
  state=$(sinfo -h -N -n "$node" -o %T 2>/dev/null | head -n 1)
  case $state in
    idle*) break ;;
    drain*|down*) scontrol update NodeName="$node" State=RESUME 2>/dev/null ;;
  esac
  sleep 1
done
[[ $state == idle* ]] || { echo "local-test: node $node is '$state', not idle" >&2; sinfo -R; exit 1; }
echo "local-test: single-node Slurm up on $node (port $port), config $SLURM_CONF"

# 5. The reduced job, as on a cluster. It asks for 2 tasks x 3 CPUs; fewer CPUs here are
# fine (the threads oversubscribe them).
cpus=$(nproc)
per_task=$(( cpus >= 6 ? 3 : (cpus >= 2 ? cpus / 2 : 1) ))
cd "$repo" || exit 1
sbatch --wait --chdir="$repo" --output="$tmp/job-%j.out" --cpus-per-task="$per_task" --mem=0 \
  --export="$MERGED_EXPORT" "${SBATCH_ARGS[@]}" jobs/slurm/test.sbatch
status=$?
for out in "$tmp"/job-*.out; do
  [ -f "$out" ] && { echo "---- $out"; cat "$out"; }
done
echo "local-test: job exit status $status"
exit $status
