#!/bin/bash
# `jobs/slurm/local-test.sh --export=ALL,CHECKPOINT_TEST=1` must keep the
# script's own exports (LAUNCH, THREADS) beside the caller's. Checks the merge function and the
# sbatch command local-test.sh builds (PRINT_SBATCH=1: no Slurm needed).
# Usage: slurm_exports_test.sh REPO
repo=$1
. "$repo/jobs/lib/sbatch-exports.sh" || exit 1
fail=0
check() {  # check EXPECTED_EXPORT EXPECTED_ARGS OWN ARGS...
  local want=$1 want_args=$2
  shift 2
  merge_sbatch_exports "$@"
  [ "$MERGED_EXPORT" = "$want" ] || { echo "FAIL $*: export '$MERGED_EXPORT', expected '$want'"; fail=1; }
  [ "${SBATCH_ARGS[*]}" = "$want_args" ] || { echo "FAIL $*: args '${SBATCH_ARGS[*]}', expected '$want_args'"; fail=1; }
}
own=ALL,LAUNCH=mpiexec,THREADS=2
check "$own" "" "$own"
check "ALL,LAUNCH=mpiexec,THREADS=2,CHECKPOINT_TEST=1" "" "$own" --export=ALL,CHECKPOINT_TEST=1
check "ALL,LAUNCH=mpiexec,THREADS=2,MODE=root" "--time=5" "$own" --time=5 --export=ALL,MODE=root
check "ALL,LAUNCH=srun,THREADS=2,A=1" "-p x" "$own" --export LAUNCH=srun,A=1 -p x --export=THREADS=2
check "NONE,LAUNCH=mpiexec,THREADS=2,B=2" "" "$own" --export=NONE,B=2
merge_sbatch_exports "$own" --export 2>/dev/null && { echo "FAIL: --export without a value accepted"; fail=1; }

# The command local-test.sh runs, for both documented variants.
out=$(PRINT_SBATCH=1 LAUNCH=mpiexec "$repo/jobs/slurm/local-test.sh" --export=ALL,CHECKPOINT_TEST=1) ||
  { echo "FAIL: local-test.sh exited $?"; fail=1; }
expected='sbatch
--export=ALL,LAUNCH=mpiexec,THREADS=2,CHECKPOINT_TEST=1
jobs/slurm/test.sbatch'
[ "$out" = "$expected" ] || { echo "FAIL: local-test.sh would run: $out"; fail=1; }
out=$(PRINT_SBATCH=1 LAUNCH=mpiexec "$repo/jobs/slurm/local-test.sh")
[ "$out" = "$(printf 'sbatch\n--export=ALL,LAUNCH=mpiexec,THREADS=2\njobs/slurm/test.sbatch')" ] ||
  { echo "FAIL: plain local-test.sh would run: $out"; fail=1; }
exit $fail
