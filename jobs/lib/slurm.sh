# shellcheck shell=bash
# Slurm steps of the staged jobs (sourced by jobs/slurm/staged.sh and jobs/slurm/stage.sbatch,
# after jobs/lib/endgame-job.sh and jobs/lib/staged.sh): submitting one stage, and continuing a
# stage that reached its job's time limit in a new job that takes its place in the chain.

# A Slurm time limit ("MM", "MM:SS", "HH:MM:SS", "D-HH", "D-HH:MM", "D-HH:MM:SS") in seconds.
pentago_slurm_seconds() {
  local limit=$1 days=0
  case $limit in
    UNLIMITED | INFINITE | unlimited | infinite) echo 31536000; return ;;
  esac
  if [[ $limit == *-* ]]; then
    days=${limit%%-*} limit=${limit#*-}
    local -a parts
    IFS=: read -r -a parts <<< "$limit"
    while [ ${#parts[@]} -lt 3 ]; do parts+=(0); done
    echo $(( ((10#$days * 24 + 10#${parts[0]}) * 60 + 10#${parts[1]}) * 60 + 10#${parts[2]} ))
    return
  fi
  local -a parts
  IFS=: read -r -a parts <<< "$limit"
  case ${#parts[@]} in
    1) echo $(( 10#${parts[0]} * 60 )) ;;
    2) echo $(( 10#${parts[0]} * 60 + 10#${parts[1]} )) ;;
    *) echo $(( (10#${parts[0]} * 60 + 10#${parts[1]}) * 60 + 10#${parts[2]} )) ;;
  esac
}

# Submits attempt ATTEMPT of stage K (spec STAGE) as jobs/slurm/stage.sbatch and prints its job
# id. DEPENDENCY ("afterok:ID", "afterany:ID" or empty) holds it until its predecessor succeeds
# (or, afterany, ends), and a failed predecessor of an afterok cancels it
# (--kill-on-invalid-dep), so a broken chain stops instead of waiting.
# RESTART is the file an attempt after the first restarts from (its predecessor's checkpoint).
# The job asks Slurm for SIGUSR1 pentago_signal_margin seconds before its TIME (default
# 24:00:00); RUN_BASE, ROOT, THREADS, SAVE, KEY and the other exported variables travel with it.
pentago_sbatch_stage() {
  local k=$1 stage=$2 dependency=$3 attempt=$4 restart=$5
  local ranks nodes margin
  IFS=: read -r _ ranks nodes _ <<< "$stage"
  margin=$(pentago_signal_margin "$(pentago_slurm_seconds "${TIME:-24:00:00}")") || return 1
  local -a args=(--parsable --job-name="pentago-stage-$k" --nodes="$nodes" --ntasks="$ranks"
    --cpus-per-task="${CPUS_PER_TASK:-$THREADS}" --time="${TIME:-24:00:00}"
    --signal="B:USR1@$margin" --output="$RUN_BASE/stage-$k-%j.out")
  [ -n "$dependency" ] && args+=(--dependency="$dependency" --kill-on-invalid-dep=yes)
  local id
  # shellcheck disable=SC2086
  id=$(sbatch "${args[@]}" ${SBATCH_FLAGS:-} \
    --export="ALL,STAGE_INDEX=$k,STAGE=$stage,ATTEMPT=$attempt,RESTART=$restart" \
    "$PENTAGO_REPO/jobs/slurm/stage.sbatch") || return 1
  echo "${id%%;*}"
}

# Makes every pending job of this user that waits for job OLD (afterok) wait for job NEW instead.
pentago_repoint_dependents() {
  local old=$1 new=$2 id dependency
  while read -r id dependency; do
    [ "$id" = "$new" ] && continue
    case ",$dependency" in
      *",afterok:$old("* | *",afterok:$old,"* | *",afterok:$old")
        scontrol update JobId="$id" Dependency="afterok:$new" || return 1
        echo "pentago stage: job $id now waits for job $new" ;;
    esac
  done < <(squeue -h -u "$(id -un)" -t PENDING -o "%i %E")
}

# Called by a stage job whose run checkpointed before the stage's lowest slice (its time limit
# came first): submits the next attempt of the same stage from that checkpoint, after this job,
# and hands it this job's dependents, so the chain goes on by itself. The attempt waits for this
# job to end, not to succeed (afterany): its checkpoint is written and checked already, and a job
# that Slurm ends at its time limit a moment after this submission counts as failed.
pentago_continue_stage() {
  local k=$1 stage=$2 attempt=$3 checkpoint=$4 next
  next=$(pentago_sbatch_stage "$k" "$stage" "afterany:$SLURM_JOB_ID" $((attempt + 1)) "$checkpoint") || {
    echo "pentago stage $k: could not submit its continuation" >&2
    return 1
  }
  echo "$(date '+%F %T') pentago stage $k: continues as job $next (attempt $((attempt + 1))) from $checkpoint"
  pentago_repoint_dependents "$SLURM_JOB_ID" "$next"
}
