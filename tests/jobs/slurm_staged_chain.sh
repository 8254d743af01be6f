#!/usr/bin/env bash
# jobs/slurm/staged.sh through real sbatch: root 25263480 (slice 30) in two stages, 1 rank on 1
# node then 2 ranks on 2 nodes. Stage 2 is held by afterok until stage 1 succeeds, restarts from
# the slice file stage 1 saved, and the counts of both equal the published counts.
# Usage: slurm_staged_chain.sh REPO BIN DATA CLUSTER WORK
. "$(dirname "$0")/slurm_support.sh" "$@"
export STAGES="35-34:1 33-30:2:2" ROOT=25263480 SAVE=-1 THREADS=2 CPUS_PER_TASK=1 MEMORY=1G
export TIME=00:10:00 RUN_BASE=$WORK/chain
submit_two_stages
j1=$J1 j2=$J2
# Stage 2 waits for stage 1 (which takes seconds, so it cannot have finished yet).
held=$(squeue -h -j "$j2" -o "%T %r %E")
case $held in "PENDING Dependency afterok:$j1"*) ;; *) fail "stage 2 is '$held', not held by afterok:$j1" ;; esac
[ "$(wait_for_job "$j1" 120)" = COMPLETED ] || { cat "$RUN_BASE"/stage-1-*.out; fail "stage 1 did not complete"; }
[ "$(wait_for_job "$j2" 120)" = COMPLETED ] || { cat "$RUN_BASE"/stage-2-*.out; fail "stage 2 did not complete"; }
grep -q -- "--restart $RUN_BASE/stage-1/slice-34.pentago" "$RUN_BASE/stage-2/log" ||
  fail "stage 2 did not restart from stage 1's slice 34: $(head -n 1 "$RUN_BASE/stage-2/log")"
grep -q "ranks 2," "$RUN_BASE/stage-2/log" || fail "stage 2 did not run on 2 ranks"
grep -q "on pentago-\[1-2\]" "$RUN_BASE"/stage-2-*.out || fail "stage 2 did not run on both nodes"
each_slice_once 35 30 "$RUN_BASE/stage-1" "$RUN_BASE/stage-2"
check_published "$RUN_BASE/stage-1" "$RUN_BASE/stage-2"
