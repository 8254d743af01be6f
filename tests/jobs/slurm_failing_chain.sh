#!/usr/bin/env bash
# A chain whose first stage fails (too little memory for the plan): the job fails with the
# solver's own reason in its output, and the dependent stage never runs (Slurm cancels it).
# Usage: slurm_failing_chain.sh REPO BIN DATA CLUSTER WORK
. "$(dirname "$0")/slurm_support.sh" "$@"
export STAGES="35-34:1 33-33:1" ROOT=25263480 SAVE=-1 THREADS=2 CPUS_PER_TASK=1 MEMORY=20M
export TIME=00:05:00 RUN_BASE=$WORK/failing
submit_two_stages
j1=$J1 j2=$J2
state=$(wait_for_job "$j1" 120)
[ "$state" = FAILED ] || fail "stage 1 ended $state, not FAILED"
grep -q "memory plan needs about .* but --memory is 20.00 MiB" "$RUN_BASE"/stage-1-*.out ||
  { cat "$RUN_BASE"/stage-1-*.out; fail "stage 1's output does not name the cause"; }
state=$(wait_for_job "$j2" 60)
reason=$(scontrol show job -o "$j2" | sed -n 's/.*Reason=\([^ ]*\).*/\1/p')
[ "$state" = CANCELLED ] || fail "stage 2 ended $state ($reason), not CANCELLED"
[ ! -e "$RUN_BASE/stage-2" ] && ! ls "$RUN_BASE"/stage-2-*.out 2> /dev/null ||
  fail "stage 2 ran although stage 1 failed"
echo "stage 1 $j1 FAILED, stage 2 $j2 CANCELLED ($reason)"
