# Shared helpers of the pentago job scripts (sourced by jobs/slurm/*.sbatch and jobs/pbs/*.pbs).
#
# They find the build, launch pentago-endgame under srun (Slurm) or mpiexec (PBS, or no
# scheduler), forward the scheduler's pre-deadline signal to every rank as SIGUSR1, wait for
# the solver, and read its log: a checkpointed run logs
#   checkpoint: slice N saved as DIR/slice-N.pentago
#   resume with: mpirun -n R pentago-endgame ... --restart DIR/slice-N.pentago
# and exits 0; the job scripts turn that into the matching sbatch / qsub command.
#
# Variables read (all optional): PENTAGO_REPO (repository root, or PREFIX/share/pentago of an
# installed copy), PENTAGO_BIN (folder of the executables, default: see pentago_bin), LAUNCH
# (mpiexec | srun; see pentago_launcher), MPIEXEC_FLAGS (mpiexec flags replacing the guessed
# placement flags), SRUN_MPI (srun --mpi plugin), CHECKPOINT_MARGIN (seconds; see
# pentago_signal_margin).

# The repository root: $PENTAGO_REPO, else the folder the job was submitted from, else the
# folder above jobs/ of the script being run.
pentago_repo() {
  local guess=${PENTAGO_REPO:-${SLURM_SUBMIT_DIR:-${PBS_O_WORKDIR:-$(cd "$(dirname "$0")/../.." && pwd)}}}
  if [ ! -f "$guess/jobs/lib/endgame-job.sh" ]; then
    echo "pentago job: $guess is not the pentago repository; submit from its root or set PENTAGO_REPO" >&2
    return 1
  fi
  echo "$guess"
}

# The folder of the executables: $PENTAGO_BIN if set, else $PENTAGO_REPO/build/bin if built,
# else PREFIX/bin when these scripts are the installed PREFIX/share/pentago/jobs, else the
# folder of pentago-endgame on PATH (else build/bin, which pentago_need then reports missing).
pentago_bin() {
  if [ -n "${PENTAGO_BIN:-}" ]; then echo "$PENTAGO_BIN"; return; fi
  if [ -d "$PENTAGO_REPO/build/bin" ]; then echo "$PENTAGO_REPO/build/bin"; return; fi
  local prefix_bin on_path
  prefix_bin=$(cd "$PENTAGO_REPO/../.." 2>/dev/null && pwd)/bin
  if [ -x "$prefix_bin/pentago-endgame" ]; then echo "$prefix_bin"; return; fi
  if on_path=$(command -v pentago-endgame); then dirname "$on_path"; return; fi
  echo "$PENTAGO_REPO/build/bin"
}

# Checks that an executable exists in $PENTAGO_BIN.
pentago_need() {
  if [ ! -x "$PENTAGO_BIN/$1" ]; then
    echo "pentago job: $PENTAGO_BIN/$1 not found; build first (cmake -S . -B build && cmake --build build) or set PENTAGO_BIN" >&2
    return 1
  fi
}

# The slice number of a slice file path (slice-17.pentago -> 17).
pentago_slice_of() {
  basename "$1" | sed -n 's/^slice-\([0-9]*\)\.pentago$/\1/p'
}

# The checkpoint file a finished run logged, if any.
pentago_checkpoint_of() {
  [ -f "$1/log" ] && sed -n 's/^checkpoint: slice [0-9]* saved as //p' "$1/log" | tail -n 1
}

# Placement flags for mpiexec: Open MPI wants --map-by, MPICH/Hydra and Cray PALS want -ppn
# (ranks per node) with the thread count as depth.
pentago_mpiexec_flags() {
  local per_node=$1 threads=$2
  if [ -n "${MPIEXEC_FLAGS+set}" ]; then
    echo "$MPIEXEC_FLAGS"
  elif mpiexec --version 2>&1 | grep -q "Open MPI"; then
    echo "--map-by ppr:$per_node:node:pe=$threads --bind-to core"
  elif [ -n "${PBS_NODEFILE:-}" ]; then
    echo "-ppn $per_node"
  else
    echo ""
  fi
}

# Sets the array PENTAGO_LAUNCH to the command that starts RANKS ranks of THREADS threads each:
#   LAUNCH=mpiexec (default): `mpiexec -n RANKS` plus placement flags. Inside a Slurm allocation
#     MPICH's mpiexec (Hydra) and Open MPI's mpirun read the allocation and start their
#     per-node proxies through srun, so this works with any MPI and needs no Slurm PMI plugin.
#   LAUNCH=srun: `srun --ntasks=RANKS --cpus-per-task=CPUS_PER_TASK` (default THREADS), with
#     --mpi=$SRUN_MPI if set and --cpu-bind=cores only where the cluster's TaskPlugin can bind
#     (task/affinity or task/cgroup). Use it where the MPI is built against Slurm's PMI (Cray
#     MPICH, or MPICH/Open MPI with SRUN_MPI=pmi2 or pmix); Debian's MPICH is not, and under
#     plain srun every process would believe it is rank 0 of 1.
pentago_launcher() {
  local ranks=$1 threads=$2 per_node=${3:-$1}
  case ${LAUNCH:-mpiexec} in
    srun)
      PENTAGO_LAUNCH=(srun --ntasks="$ranks" --cpus-per-task="${CPUS_PER_TASK:-$threads}")
      [ -n "${SRUN_MPI:-}" ] && PENTAGO_LAUNCH+=(--mpi="$SRUN_MPI")
      if scontrol show config 2>/dev/null | grep -E '^TaskPlugin ' | grep -qE 'affinity|cgroup'; then
        PENTAGO_LAUNCH+=(--cpu-bind=cores)
      fi ;;
    mpiexec)
      local flags
      read -r -a flags <<< "$(pentago_mpiexec_flags "$per_node" "$threads")"
      PENTAGO_LAUNCH=(mpiexec -n "$ranks" "${flags[@]}") ;;
    *)
      echo "pentago job: LAUNCH must be mpiexec or srun, not '$LAUNCH'" >&2
      return 2 ;;
  esac
}

# Seconds before a job's time limit (LIMIT seconds) at which it should be asked to checkpoint:
# $CHECKPOINT_MARGIN if set, else a tenth of the limit, at least 60 s and at most 1800 s (so a
# 20-minute job is asked 2 minutes before its end, a 24-hour job 30 minutes before). The margin
# must hold the rest of the slice in progress and the writing of its checkpoint file.
pentago_signal_margin() {
  local limit=$1
  if [ -n "${CHECKPOINT_MARGIN:-}" ]; then
    echo "$CHECKPOINT_MARGIN"
    return
  fi
  local margin=$((limit / 10))
  [ "$margin" -lt 60 ] && margin=60
  [ "$margin" -gt 1800 ] && margin=1800
  echo "$margin"
}

# Runs "$@" (a launcher command line) in the background and waits for it. SIGUSR1 or SIGTERM
# sent to this shell (Slurm's --signal=B:USR1@T, a PBS timer, or a person) is forwarded to the
# launcher as SIGUSR1, which srun and mpiexec pass on to every rank, and then re-sent every
# PENTAGO_RESEND seconds (default 60) until the launcher exits: MPICH's mpiexec drops a signal
# that arrives before it has started the ranks, and pentago-endgame's handler only sets a
# flag, so repeats are harmless. (The ranks agree on that flag once per slice, after writing
# its counts, samples and any slice file it saves; a signal arriving later is honored at the
# end of the next slice.) Returns the launcher's exit status, with TERM ignored from then on
# (by the commands the caller runs too): a scheduler's TERM at the time limit reaches every
# process of the job some seconds before its KILL, and must not stop the caller's tail, which
# submits the continuation of a run that checkpointed just before the limit.
pentago_run_forwarding() {
  "$@" &
  local pid=$! resender=
  pentago_forward() {
    echo "$(date '+%F %T') pentago job: signal received, asking every rank to checkpoint"
    kill -USR1 "$pid" 2>/dev/null
    if [ -z "$resender" ]; then
      ( while sleep "${PENTAGO_RESEND:-60}" && kill -0 "$pid" 2>/dev/null; do
          kill -USR1 "$pid" 2>/dev/null
        done ) &
      resender=$!
    fi
  }
  trap pentago_forward USR1 TERM
  local status
  while :; do
    wait "$pid"
    status=$?
    # wait returns early (status > 128) when a trapped signal arrives; keep waiting.
    kill -0 "$pid" 2>/dev/null || break
  done
  trap - USR1
  trap '' TERM
  [ -n "$resender" ] && kill "$resender" 2>/dev/null
  return "$status"
}

# Sends SIGUSR1 to this shell `margin` seconds before `walltime` seconds have passed since
# `start` (epoch seconds): the PBS stand-in for Slurm's --signal. Prints the timer's pid.
pentago_signal_timer() {
  local walltime=$1 margin=$2 start=$3 shell=$$
  local delay=$(( start + walltime - margin - $(date +%s) ))
  [ "$delay" -lt 0 ] && delay=0
  ( sleep "$delay" && kill -USR1 "$shell" ) >/dev/null 2>&1 &
  echo $!
}

# "HH:MM:SS", "MM:SS" or seconds -> seconds.
pentago_seconds() {
  echo "$1" | awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; print s }'
}
