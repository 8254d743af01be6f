#!/bin/bash
# Submits the staged plan of a run (pentago-predict --stages) as a chain of PBS jobs:
# stage K is jobs/pbs/stage.pbs on its own node count, with -W depend=afterok on stage K-1,
# and restarts from the slice file stage K-1 wrote. The same as jobs/slurm/staged.sh (see it
# and jobs/lib/staged.sh for the variables); WALLTIME is each job's limit (default 24:00:00),
# QSUB_FLAGS more qsub options. Without qsub, or with LAUNCH=local, the stages run here.
#   NODE_MEMORY=256G CORES_PER_NODE=128 jobs/pbs/staged.sh

set -o pipefail
repo_guess=${PENTAGO_REPO:-$(cd "$(dirname "$0")/../.." && pwd)}
# shellcheck source=../lib/endgame-job.sh
source "$repo_guess/jobs/lib/endgame-job.sh" || exit 1
# shellcheck source=../lib/staged.sh
source "$repo_guess/jobs/lib/staged.sh" || exit 1
pentago_staged_start qsub  # exits after running the stages here without qsub
submit_stage() {  # K STAGE PREVIOUS_JOB ATTEMPT RESTART
  local k=$1 stage=$2 previous=$3 attempt=$4 restart=$5 ranks nodes dependency=()
  IFS=: read -r _ ranks nodes _ <<< "$stage"
  local per_node=$(( (ranks + nodes - 1) / nodes ))
  [ -n "$previous" ] && dependency=(-W "depend=afterok:$previous")
  # shellcheck disable=SC2086
  qsub -N "pentago-stage-$k" \
    -l "select=$nodes:ncpus=$((per_node * THREADS)):mpiprocs=$per_node:ompthreads=$THREADS" \
    -l "walltime=${WALLTIME:-24:00:00}" "${dependency[@]}" ${QSUB_FLAGS:-} -j oe \
    -o "$RUN_BASE/stage-$k.out" \
    -v "STAGE_INDEX=$k,STAGE=$stage,ROOT=$ROOT,THREADS=$THREADS,SAVE=$SAVE,KEY=$KEY,RUN_BASE=$RUN_BASE,PENTAGO_REPO=$PENTAGO_REPO,PENTAGO_BIN=$PENTAGO_BIN,RESTART=$restart,ATTEMPT=$attempt,FIRST_STAGE=${FIRST_STAGE:-1},PER_NODE=$per_node" \
    jobs/pbs/stage.pbs
}
pentago_submit_stages submit_stage
