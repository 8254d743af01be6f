# pentago-check on a copy of the published slices 0-2 (no run: --no-record), with --opt=value;
# without --no-record it fails in one line that says how to check it anyway.
# Usage: sh check_cli_published.sh PENTAGO_CHECK DATA_DIR WORK_DIR
. "$(dirname "$0")/../../lib/expect.sh"
check=$1; data=$2; d="$3/cli-published"
rm -rf "$d"; mkdir -p "$d" &&
  cp "$data"/slice-[012].pentago "$data"/slice-[012].pentago.index "$data"/counts-[012].npy "$d" ||
  exit 1
out=$("$check" --threads=2 --no-record --integrity 1 "$d") || { echo "$out"; exit 1; }
echo "$out" | grep -q '^All checks passed$' &&
  echo "$out" | grep -q 'integrity 1 -> 2: 3 of 3 boards' || { echo "FAIL: $out"; fail=1; }
expect 1 '~no run.jsonl.*--no-record' "$check" --threads=2 "$d"
exit $fail
