#!/usr/bin/env bash
# jobs/slurm/test.sbatch through real sbatch (jobs/slurm/local-test.sh on the fixture's cluster),
# root mode on the 27-stone root 72364500, two ranks on two nodes. The caller's
# --export=ALL,MODE=...,ROOT=... must keep local-test.sh's own exports (LAUNCH, THREADS), and
# every counts file must equal the published counts.
# Usage: slurm_test_job.sh REPO BIN DATA CLUSTER WORK
. "$(dirname "$0")/slurm_support.sh" "$@"
out=$(SLURM_CLUSTER_DIR=$CLUSTER "$REPO/jobs/slurm/local-test.sh" \
  --export=ALL,MODE=root,ROOT=72364500,RUN_BASE="$WORK/test" 2>&1) ||
  { echo "$out"; fail "the test job failed"; }
echo "$out" | grep -q "pentago test (root): 2 ranks x 2 threads" ||
  { echo "$out"; fail "the job did not get MODE from the caller and THREADS from local-test.sh"; }
echo "$out" | grep -q "launcher mpiexec" || { echo "$out"; fail "the job did not get LAUNCH"; }
echo "$out" | grep -q "pentago test passed" || { echo "$out"; fail "the job did not pass its check"; }
dirs=("$WORK"/test-*)
[ ${#dirs[@]} -eq 1 ] && [ -d "${dirs[0]}" ] || fail "expected one run directory, got ${dirs[*]}"
grep -q "ranks 2," "${dirs[0]}/log" || fail "the run did not have 2 ranks"
each_slice_once 35 27 "${dirs[0]}"
check_published "${dirs[0]}"
