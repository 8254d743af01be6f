# shellcheck shell=bash
# Shared steps of the tests that submit the job scripts to the throwaway Slurm of the ctest
# fixture (jobs/slurm/local-cluster.sh): arguments, the cluster's environment, waiting for jobs,
# and checking run directories against the published counts.
# Sourced with: REPO BIN DATA CLUSTER WORK (WORK is emptied first).
set -uo pipefail
REPO=$1 BIN=$2 DATA=$3 CLUSTER=$4 WORK=$5
fail() {
  echo "FAIL: $*"
  exit 1
}
[ -f "$CLUSTER/env" ] || fail "no Slurm cluster in $CLUSTER (the slurm_cluster fixture did not start)"
# shellcheck disable=SC1091
. "$CLUSTER/env"
rm -rf "$WORK" && mkdir -p "$WORK" || fail "cannot create $WORK"
export PENTAGO_BIN=$BIN PENTAGO_DATA=$DATA PENTAGO_REPO=$REPO

# The state of job ID (PENDING, RUNNING, COMPLETED, FAILED, CANCELLED, TIMEOUT, ...).
job_state() {
  scontrol show job -o "$1" 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p'
}

# Waits until no job named NAME is pending or running (at most SECONDS seconds).
wait_for_name() {
  local name=$1 limit=$2 start=$SECONDS
  while [ -n "$(squeue -h -n "$name" -o %i)" ]; do
    [ $((SECONDS - start)) -lt "$limit" ] || { squeue; fail "jobs named $name still queued after $limit s"; }
    sleep 1
  done
}

# Waits until job ID has ended and prints its final state.
wait_for_job() {
  local id=$1 limit=$2 start=$SECONDS state
  while :; do
    state=$(job_state "$id")
    case $state in PENDING | RUNNING | CONFIGURING | COMPLETING | SUSPENDED | REQUEUED) ;; *) break ;; esac
    [ $((SECONDS - start)) -lt "$limit" ] || { squeue; fail "job $id still $state after $limit s"; }
    sleep 1
  done
  echo "$state"
}

# pentago-check of run directories against the published counts; fails unless every counts row
# of every directory equals its published row.
check_published() {
  local out rows=0 equal=0 line
  out=$("$BIN/pentago-check" --threads 1 --data "$DATA" --search-max 64 "$@" 2>&1) ||
    { echo "$out"; fail "pentago-check $* failed"; }
  while read -r line; do
    [[ $line =~ ([0-9]+)\ counts\ rows\ \(([0-9]+)\ equal\ to\ the\ published\) ]] || continue
    rows=$((rows + BASH_REMATCH[1])) equal=$((equal + BASH_REMATCH[2]))
  done <<< "$out"
  [ "$rows" -gt 0 ] && [ "$equal" -eq "$rows" ] ||
    { echo "$out"; fail "$equal of $rows counts rows equal to the published"; }
  echo "pentago-check: $equal counts rows equal to the published"
}

# Fails unless each slice from TOP down to BOTTOM has exactly one counts-N.npy among DIRS (so no
# slice was computed twice and none is missing).
each_slice_once() {
  local top=$1 bottom=$2 n
  shift 2
  for ((n = top; n >= bottom; n--)); do
    local found
    found=$(ls "${@/%//counts-$n.npy}" 2>/dev/null | wc -l)
    [ "$found" -eq 1 ] || fail "slice $n has $found counts files in $*"
  done
}

# Runs jobs/slurm/staged.sh (its variables exported by the caller) and sets J1 and J2 to the job
# ids of its first two stages.
submit_two_stages() {
  local out
  out=$("$REPO/jobs/slurm/staged.sh" 2>&1) || { echo "$out"; fail "staged.sh failed"; }
  J1=$(echo "$out" | sed -n 's/^stage 1 .*: job \([0-9]*\)$/\1/p')
  J2=$(echo "$out" | sed -n "s/^stage 2 .*: job \([0-9]*\) after $J1\$/\1/p")
  [ -n "$J1" ] && [ -n "$J2" ] || { echo "$out"; fail "staged.sh did not submit two chained stages"; }
}
