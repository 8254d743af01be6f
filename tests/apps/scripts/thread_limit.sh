# pentago-lookup --threads past the task limit (RLIMIT_NPROC of an unprivileged user: root
# runs it as nobody) exits 1 at once with one line naming the threads, instead of hanging.
# Usage: sh thread_limit.sh BIN_DIR
lookup=$1/pentago-lookup
board=101_0_011___0_011___0_1100_____1___0  # 18 stones: the midgame solver's threads
if [ "$(id -u)" = 0 ]; then
  as_user="setpriv --reuid=65534 --regid=65534 --clear-groups"
else
  as_user=
fi
err=$(mktemp)
timeout 30 prlimit --nproc=60 $as_user "$lookup" --threads 1000 --no-moves "$board" 2> "$err" > /dev/null
rc=$?
fail=0
[ $rc = 1 ] || { echo "FAIL --threads 1000 under a 60-task limit: exit $rc (124: hung)"; fail=1; }
[ "$(wc -l < "$err")" = 1 ] && grep -q 'cannot start 999 threads' "$err" ||
  { echo "FAIL not one line naming the threads: $(cat "$err")"; fail=1; }
rm -f "$err"
exit $fail
