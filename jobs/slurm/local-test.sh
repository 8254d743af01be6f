#!/bin/bash
# Submits the reduced test job jobs/slurm/test.sbatch to a Slurm on this machine and waits for it:
# to a running throwaway cluster if SLURM_CLUSTER_DIR names one (jobs/slurm/local-cluster.sh),
# else to one it starts for the purpose (slurm-wlm and munge installed, run as root) and stops
# at exit. The job's output is printed; the exit status is the job's.
#
#   jobs/slurm/local-test.sh                                   # meaningless 5 on 2 ranks
#   jobs/slurm/local-test.sh --export=ALL,MODE=root            # root 44444554
#   jobs/slurm/local-test.sh --export=ALL,CHECKPOINT_TEST=1    # checkpoint + resume
# Extra arguments go to sbatch; their --export variables are merged with this script's own
# (LAUNCH, THREADS; jobs/lib/sbatch-exports.sh), a caller's value winning. Environment:
#   LAUNCH=mpiexec (default) | srun   how test.sbatch starts the ranks (jobs/lib/endgame-job.sh)
#   KEEP=1          keep the cluster directory this script started (config, logs)
#   PRINT_SBATCH=1  print the sbatch command this would run (one word per line) and exit
set -o pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=../lib/sbatch-exports.sh
. "$repo/jobs/lib/sbatch-exports.sh"
merge_sbatch_exports "ALL,LAUNCH=${LAUNCH:-mpiexec},THREADS=${THREADS:-2}" "$@" || exit 2
if [ "${PRINT_SBATCH:-0}" = 1 ]; then
  printf '%s\n' sbatch "--export=$MERGED_EXPORT" "${SBATCH_ARGS[@]}" jobs/slurm/test.sbatch
  exit 0
fi
[ -x "${PENTAGO_BIN:-$repo/build/bin}/pentago-endgame" ] || {
  echo "local-test: ${PENTAGO_BIN:-$repo/build/bin}/pentago-endgame not found: build first (scripts/build)" >&2
  exit 2
}

cluster=${SLURM_CLUSTER_DIR:-}
if [ -z "$cluster" ]; then
  cluster=$(mktemp -d /tmp/pentago-slurm.XXXXXX) || exit 1
  stop_cluster() {
    "$repo/jobs/slurm/local-cluster.sh" stop "$cluster" > /dev/null
    if [ "${KEEP:-0}" = 1 ]; then echo "local-test: kept $cluster"; else rm -rf "$cluster"; fi
  }
  trap stop_cluster EXIT
  "$repo/jobs/slurm/local-cluster.sh" start "$cluster" || exit 1
fi
[ -f "$cluster/env" ] || { echo "local-test: no cluster running in $cluster" >&2; exit 2; }
# shellcheck disable=SC1091
. "$cluster/env"

out=$(mktemp "$cluster/test-job-XXXXXX.out") || exit 1
cd "$repo" || exit 1
# One CPU per rank on the test cluster (its nodes claim one CPU each); THREADS oversubscribe.
sbatch --wait --chdir="$repo" --output="$out" --nodes=2 --ntasks-per-node=1 --cpus-per-task=1 \
  --export="$MERGED_EXPORT" "${SBATCH_ARGS[@]}" jobs/slurm/test.sbatch
status=$?
cat "$out"
echo "local-test: job exit status $status"
exit $status
