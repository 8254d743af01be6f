#!/usr/bin/env bash
# A run longer than its job's time limit: root 45510663 (slice 30, six slices of at most 14
# million positions) as one stage saving every slice at xz preset 3, with --time=2 (minutes) and
# the warning signal asked 120 s before the limit, so that Slurm sends it at its first look at the
# job, which comes at most 30 s after the start. Writing the slices makes the run about two
# minutes on two cores and a slice at most about 40 s with its file (slice 33), so the signal
# always comes before the run is done, and the slice in progress then ends well before the limit
# (at preset 0 the run took 28 s and a late signal found it done; with --time=1 a signal at 30 s
# that came just after a slice ended let slice 33 run past the limit). Each job checkpoints at the
# end of its slice and submits its continuation until the root is done; every slice is computed
# exactly once, in the directory of its own attempt, and the counts equal the published counts.
# Usage: slurm_walltime.sh REPO BIN DATA CLUSTER WORK
. "$(dirname "$0")/slurm_support.sh" "$@"
export STAGES="35-30:1" ROOT=45510663 SAVE=35 LEVEL=3 THREADS=3 CPUS_PER_TASK=1 MEMORY=1G
export TIME=2 CHECKPOINT_MARGIN=120 PENTAGO_RESEND=5 RUN_BASE=$WORK/walltime
out=$("$REPO/jobs/slurm/staged.sh" 2>&1) || { echo "$out"; fail "staged.sh failed"; }
wait_for_name pentago-stage-1 300
# The jobs' outputs in submission order, and the attempts' directories in order.
mapfile -t outputs < <(for f in "$RUN_BASE"/stage-1-*.out; do
  id=${f##*-}; echo "${id%.out} $f"; done | sort -n | cut -d' ' -f2-)
dirs=("$RUN_BASE/stage-1")
while [ -d "$RUN_BASE/stage-1.$((${#dirs[@]} + 1))" ]; do dirs+=("$RUN_BASE/stage-1.$((${#dirs[@]} + 1))"); done
[ ${#dirs[@]} -ge 2 ] || { cat "${outputs[@]}"; fail "the run finished in one job: no checkpoint, no continuation"; }
[ ${#outputs[@]} -eq ${#dirs[@]} ] || fail "${#outputs[@]} job outputs for ${#dirs[@]} attempts"
for ((a = 1; a < ${#dirs[@]}; a++)); do
  head -n 1 "${dirs[a]}/log" | grep -q -- "--restart ${dirs[a - 1]}/slice-[0-9]*.pentago" ||
    fail "attempt $((a + 1)) did not restart from attempt $a's checkpoint: $(head -n 1 "${dirs[a]}/log")"
  grep -q "signal received, asking every rank to checkpoint" "${outputs[a - 1]}" ||
    fail "job $a continued without a warning signal: $(tail -n 3 "${outputs[a - 1]}")"
done
grep -h "continues as job" "${outputs[@]}"
! grep -l "CANCELLED\|TIME LIMIT" "${outputs[@]}" || fail "a job was killed at its time limit"
each_slice_once 35 30 "${dirs[@]}"
check_published "${dirs[@]}"
echo "${#dirs[@]} jobs"
