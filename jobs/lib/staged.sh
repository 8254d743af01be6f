# shellcheck shell=bash
# Shared steps of the staged jobs (jobs/slurm/staged.sh, jobs/pbs/staged.sh): the stage list
# from `pentago-predict --stages` (or STAGES), the one stage's solver run, and a rehearsal that
# runs every stage here, one after another, with mpiexec.
#
# A stage is "TOP-BOTTOM:RANKS:NODES:MEMORY:SAVE:LEVEL". Stage K writes RUN_BASE/stage-K; stage
# K+1 restarts from the slice-BOTTOM.pentago that stage K saves (its --save covers its lowest
# slice; --level 0 where that slice is a checkpoint only). A stage whose job reaches its time
# limit first checkpoints; its next attempt A (2, 3, ...) restarts from that checkpoint into
# RUN_BASE/stage-K.A, so no directory is ever written twice.
#
# Variables: ROOT (default 00000000), THREADS, SAVE (default 18), KEY (default 17), RUN_BASE,
# NODE_MEMORY and CORES_PER_NODE (for the plan), STAGES (a list of stages that replaces the
# plan, e.g. "35-33:1 32-30:4:2" for TOP-BOTTOM:RANKS[:NODES]; NODES defaults to 1, MEMORY,
# SAVE and LEVEL to the run's), PREDICT_ARGS (more pentago-predict options), FIRST_STAGE with
# RESTART (continue a chain at stage K from a checkpoint file), ATTEMPT (set on a stage's
# continuation).

# Prints the stages, one a line, from STAGES or from pentago-predict --stages.
pentago_stage_list() {
  : "${SAVE:?}" "${THREADS:?}" "${KEY:?}" "${ROOT:?}"
  if [ -n "${STAGES:-}" ]; then
    local spec range ranks nodes
    for spec in $STAGES; do
      IFS=: read -r range ranks nodes <<< "$spec"
      ranks=${ranks:-1} nodes=${nodes:-1}
      local top=${range%-*} bottom=${range#*-}
      local save=$SAVE level=${LEVEL:-6}
      # a stage that is not the last saves its lowest slice for the next one, as a checkpoint
      # only (fast xz) where the run would not save it
      if [ "$bottom" != "$(pentago_last_bottom)" ] && [ "$bottom" -gt "$SAVE" ]; then
        save=$bottom level=0
      fi
      echo "$top-$bottom:$ranks:$nodes:${MEMORY:-1G}:$save:$level"
    done
    return
  fi
  : "${NODE_MEMORY:?set NODE_MEMORY (e.g. 256G) and CORES_PER_NODE, or STAGES}"
  : "${CORES_PER_NODE:?set CORES_PER_NODE}"
  local plan
  # shellcheck disable=SC2086
  plan=$("$PENTAGO_BIN/pentago-predict" --stages --node-memory "$NODE_MEMORY" \
    --cores-per-node "$CORES_PER_NODE" --threads "$THREADS" --save "$SAVE" --randomize "$KEY" \
    ${PREDICT_ARGS:-} "$ROOT") || { echo "$plan" >&2; return 1; }
  echo "$plan" | sed -n '/^best plan/,/^best single/p' | sed '$d' >&2
  echo "$plan" | grep '^saving: ' >&2
  echo "$plan" | awk '/^job [0-9]+: /{
    for (i = 3; i < NF; i++) v[$i] = $(i + 1)
    top = v["--restart-slice"] < 0 ? 35 : v["--restart-slice"] - 1
    printf "%d-%d:%d:%d:%d:%d:%d\n", top, v["--stop-after"], v["--ranks"], v["--nodes"],
      v["--memory"], v["--save"], v["--level"] }'
}

# The lowest slice of the last stage in STAGES.
pentago_last_bottom() {
  local last
  for last in $STAGES; do :; done
  last=${last%%:*}
  echo "${last#*-}"
}

# The directory of attempt A (default 1) of stage K.
pentago_stage_dir() {
  local k=$1 attempt=${2:-1}
  if [ "$attempt" -le 1 ]; then echo "$RUN_BASE/stage-$k"; else echo "$RUN_BASE/stage-$k.$attempt"; fi
}

# The slice-N.pentago that stage K left for the next stage, in whichever attempt saved it.
pentago_stage_output() {
  local k=$1 n=$2 file
  for file in "$RUN_BASE/stage-$k/slice-$n.pentago" "$RUN_BASE/stage-$k".*/"slice-$n.pentago"; do
    [ -f "$file" ] && { echo "$file"; return 0; }
  done
  return 1
}

# Runs stage K (1-based) of the list in $2 with the launcher "${@:3}" ("srun ..." or
# "mpiexec -n R ..."): pentago-endgame from RESTART if set (required for an attempt after the
# first; callers set it per stage, pentago_stage_start) or else the previous stage's file, into
# pentago_stage_dir K ATTEMPT. Returns 0 only if the stage reached
# its lowest slice and saved what the next stage reads; 3 if it checkpointed before it (the
# file then in stage_checkpoint).
pentago_run_stage() {
  local k=$1 stage=$2
  shift 2
  local range=${stage%%:*} rest=${stage#*:} attempt=${ATTEMPT:-1}
  local top=${range%-*} bottom=${range#*-}
  IFS=: read -r _ranks _nodes memory save level <<< "$rest"
  local dir file="" restart_args=()
  dir=$(pentago_stage_dir "$k" "$attempt")
  if [ "$attempt" -gt 1 ] || [ -n "${RESTART:-}" ]; then
    file=${RESTART:?an attempt after the first needs RESTART}
  elif [ "$top" -lt 35 ]; then
    file=$(pentago_stage_output $((k - 1)) $((top + 1))) || {
      echo "pentago stage $k: stage $((k - 1)) left no slice-$((top + 1)).pentago in $RUN_BASE/stage-$((k - 1))*" >&2
      return 2
    }
  fi
  if [ -n "$file" ]; then
    [ -f "$file" ] || { echo "pentago stage $k: restart file $file is missing" >&2; return 2; }
    restart_args=(--restart "$file")
  fi
  echo "$(date '+%F %T') pentago stage $k (attempt $attempt): slices $top-$bottom, dir $dir${file:+, restart $file}"
  pentago_run_forwarding "$@" "$PENTAGO_BIN/pentago-endgame" --threads "$THREADS" --dir "$dir" \
    --memory "$memory" --save "$save" --level "$level" --randomize "$KEY" --stop-after "$bottom" \
    "${restart_args[@]}" "$ROOT"
  local status=$?
  echo "$(date '+%F %T') pentago stage $k: pentago-endgame exited with status $status"
  [ $status -eq 0 ] || return $status
  stage_checkpoint=$(pentago_checkpoint_of "$dir")
  if [ -n "$stage_checkpoint" ]; then
    echo "pentago stage $k checkpointed at $stage_checkpoint before slice $bottom"
    return 3
  fi
  if [ "$bottom" -le "$save" ] && [ ! -f "$dir/slice-$bottom.pentago" ]; then
    echo "pentago stage $k: $dir/slice-$bottom.pentago was not written" >&2
    return 1
  fi
  return 0
}

# How to continue attempt A of stage K by hand after pentago_run_stage returned 3 (PBS, the
# local rehearsal, or Slurm with RESUBMIT=0): the same staged command, from that checkpoint.
pentago_continue_hint() {
  echo "continue the chain with: FIRST_STAGE=$1 ATTEMPT=$(($2 + 1))" \
    "RESTART=$stage_checkpoint RUN_BASE=$RUN_BASE <the same staged.sh command>" >&2
}

# Sets stage_attempt and stage_restart for stage K of a chain started at FIRST_STAGE: a
# continued chain's first stage takes ATTEMPT and RESTART, every later stage starts afresh.
pentago_stage_start() {
  stage_attempt=1 stage_restart=""
  if [ "$1" = "${FIRST_STAGE:-1}" ]; then stage_attempt=${ATTEMPT:-1} stage_restart=${RESTART:-}; fi
}

# Runs every stage here, in order, with mpiexec (no scheduler): the rehearsal of a chain.
pentago_run_stages_here() {
  local stages k=0 stage ranks
  mapfile -t stages < <(pentago_stage_list) || return 1
  [ ${#stages[@]} -gt 0 ] || { echo "pentago staged: no stages" >&2; return 1; }
  for stage in "${stages[@]}"; do
    k=$((k + 1))
    [ "$k" -lt "${FIRST_STAGE:-1}" ] && continue
    ranks=$(echo "$stage" | cut -d: -f2)
    pentago_stage_start "$k"
    ATTEMPT=$stage_attempt RESTART=$stage_restart pentago_run_stage "$k" "$stage" mpiexec -n "$ranks"
    local status=$?
    [ $status -eq 3 ] && pentago_continue_hint "$k" "$stage_attempt"
    [ $status -eq 0 ] || return $status
  done
  echo "pentago staged: $k stages done in $RUN_BASE/stage-*"
}

# The common start of jobs/slurm/staged.sh and jobs/pbs/staged.sh: the repository, the binaries,
# the run's variables and RUN_BASE. Without the scheduler command $1 (or with LAUNCH=local) it
# runs every stage here and exits; otherwise it sets the array `stages` to the list to submit.
pentago_staged_start() {
  local scheduler=$1
  PENTAGO_REPO=$(pentago_repo) || exit 1
  PENTAGO_BIN=${PENTAGO_BIN:-$PENTAGO_REPO/build/bin}
  cd "$PENTAGO_REPO" || exit 1
  pentago_need pentago-endgame && pentago_need pentago-predict || exit 1
  export ROOT=${ROOT:-00000000} THREADS=${THREADS:-8} SAVE=${SAVE:-18} KEY=${KEY:-17}
  export RUN_BASE=${RUN_BASE:-runs/staged-$(date +%Y%m%d-%H%M%S)} PENTAGO_BIN PENTAGO_REPO
  mkdir -p "$RUN_BASE" && RUN_BASE=$(cd "$RUN_BASE" && pwd) || exit 1
  if [ "${LAUNCH:-}" = local ] || ! command -v "$scheduler" > /dev/null; then
    pentago_run_stages_here
    exit $?
  fi
  mapfile -t stages < <(pentago_stage_list) || exit 1
  [ ${#stages[@]} -gt 0 ] || { echo "pentago staged: no stages" >&2; exit 1; }
}

# Submits every stage of the array `stages` from FIRST_STAGE on, each after the one before:
# "$1 K STAGE PREVIOUS_JOB ATTEMPT RESTART" submits one and prints its job id (PREVIOUS_JOB is
# empty for the first; ATTEMPT and RESTART are those of a continued chain's first stage).
pentago_submit_stages() {
  local submit=$1 previous="" k=0 stage job
  for stage in "${stages[@]}"; do
    k=$((k + 1))
    [ "$k" -lt "${FIRST_STAGE:-1}" ] && continue
    pentago_stage_start "$k"
    job=$("$submit" "$k" "$stage" "$previous" "$stage_attempt" "$stage_restart") || return 1
    echo "stage $k ($stage): job $job${previous:+ after $previous}"
    previous=$job
  done
  echo "submitted ${#stages[@]} stages; outputs in $RUN_BASE"
}
