# pentago-check's failures: a truncated slice file and one with bytes appended (exit 1, a line
# naming it) and bad usage
# (exit 2), each one line on stderr. Usage: sh check_cli_failures.sh PENTAGO_CHECK DATA_DIR WORK_DIR
. "$(dirname "$0")/../../lib/expect.sh"
check=$1; data=$2; d="$3/cli-truncated"
rm -rf "$d"; mkdir -p "$d" && cp "$data"/slice-2.pentago "$data"/counts-2.npy "$d" || exit 1
size=$(wc -c < "$d/slice-2.pentago") && head -c $((size / 2)) "$data/slice-2.pentago" > "$d/slice-2.pentago"
"$check" --threads 2 --no-record "$d" > /dev/null 2>&1; rc=$?
[ $rc -eq 1 ] || { echo "FAIL truncated slice file: exit $rc, expected 1"; fail=1; }
"$check" --threads 2 --no-record "$d" 2>&1 >/dev/null | grep -q '^pentago-check: .*slice-2.pentago' ||
  { echo "FAIL truncated slice file not named"; fail=1; }
# Bytes appended to a whole slice file: found without a run record to give its size.
cp "$data/slice-2.pentago" "$d/slice-2.pentago" && printf 'junk after the last block' >> "$d/slice-2.pentago"
"$check" --threads 2 --no-record "$d" 2>&1 >/dev/null | grep -q 'slice-2.pentago.*appended' ||
  { echo "FAIL junk appended to a slice file not found"; fail=1; }
cp "$data/slice-2.pentago" "$d/slice-2.pentago"
"$check" --threads 2 --no-record "$d" > /dev/null 2>&1; rc=$?
[ $rc -eq 0 ] || { echo "FAIL the whole published slice file: exit $rc, expected 0"; fail=1; }
expect 2 "$check"
expect 2 "$check" --bogus "$d"
expect 2 "$check" --fraction 2 --integrity 1 "$d"
expect 2 "$check" --fraction 0.5 "$d"
expect 2 "$check" --integrity 36 "$d"
expect 2 '~--data' "$check" --data "$3/no-such-data" "$d"
expect 2 '~takes no value' "$check" --no-record=yes "$d"
expect 1 "$check" "$3/cli-no-such-dir"
exit $fail
