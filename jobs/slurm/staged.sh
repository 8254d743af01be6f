#!/bin/bash
# Submits the staged plan of a run (pentago-predict --stages, issue 21) as a chain of Slurm jobs:
# stage K is jobs/slurm/stage.sbatch on its own node count, with --dependency=afterok on stage
# K-1, and restarts from the slice file stage K-1 wrote (RUN_BASE/stage-(K-1)/slice-N.pentago).
#
# Run on the login node from the repository root, after building:
#   NODE_MEMORY=256G CORES_PER_NODE=128 jobs/slurm/staged.sh            (root 00000000)
#   NODE_MEMORY=256G CORES_PER_NODE=128 ROOT=25263480 TIME=02:00:00 jobs/slurm/staged.sh
# STAGES="35-33:1 32-30:3" replaces the plan (slices:ranks per stage, 1 node each, MEMORY per
# rank). Without sbatch, or with LAUNCH=local, the stages run here one after another with
# mpiexec: the rehearsal (tests/mpi/cluster_test.cpp runs it on 25263480).
#
# A stage that checkpoints before its lowest slice (time limit) exits 3, so the stages after it
# stay pending (afterok); it prints how to continue: FIRST_STAGE=K RESTART=<its file> and a new
# RUN_BASE with the same command (cancel the pending ones first).
# Variables: see jobs/lib/staged.sh; TIME is each job's time limit (default 24:00:00),
# SBATCH_FLAGS more sbatch options (account, partition).

set -o pipefail
repo_guess=${PENTAGO_REPO:-$(cd "$(dirname "$0")/../.." && pwd)}
# shellcheck source=../lib/endgame-job.sh
source "$repo_guess/jobs/lib/endgame-job.sh" || exit 1
# shellcheck source=../lib/staged.sh
source "$repo_guess/jobs/lib/staged.sh" || exit 1
pentago_staged_start sbatch  # exits after running the stages here without sbatch
previous="" k=0
for stage in "${stages[@]}"; do
  k=$((k + 1))
  [ "$k" -lt "${FIRST_STAGE:-1}" ] && continue
  IFS=: read -r _range ranks nodes _rest <<< "$stage"
  dependency=()
  [ -n "$previous" ] && dependency=(--dependency="afterok:$previous")
  # shellcheck disable=SC2086
  previous=$(sbatch --parsable --job-name="pentago-stage-$k" --nodes="$nodes" --ntasks="$ranks" \
    --cpus-per-task="$THREADS" --time="${TIME:-24:00:00}" "${dependency[@]}" ${SBATCH_FLAGS:-} \
    --output="$RUN_BASE/stage-$k-%j.out" \
    --export="ALL,STAGE_INDEX=$k,STAGE=$stage" jobs/slurm/stage.sbatch) || exit 1
  previous=${previous%%;*}
  echo "stage $k ($stage): job $previous${dependency[0]:+ after ${dependency[0]#*:}}"
done
echo "submitted ${#stages[@]} stages; outputs in $RUN_BASE"
