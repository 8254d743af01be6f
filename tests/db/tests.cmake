# Command-line tests of the database tools (pentago-check, pentago-lookup, pentago-predict):
# exit codes (0 ok, 1 failure or mismatch, 2 usage), one-line errors on stderr, and results on
# the published slices 0-2. Each script gets the executable as $0 and the data folder as $1.
set(check_exe $<TARGET_FILE:pentago-check>)
set(lookup_exe $<TARGET_FILE:pentago-lookup>)
set(predict_exe $<TARGET_FILE:pentago-predict>)
set(tools_tmp ${CMAKE_BINARY_DIR}/test-runs)

# Fails unless "$@" exits with code $1 and writes exactly one line to stderr.
set(expect_exit [[
expect() {
  want=$1; shift
  err=$("$@" 2>&1 >/dev/null); rc=$?
  [ $rc -eq $want ] || { echo "$*: exit $rc, expected $want"; exit 1; }
  [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] || { echo "$*: stderr not one line: $err"; exit 1; }
}
]])

set(check_cli_published_script [[
d="$2/cli-published"; rm -rf "$d"; mkdir -p "$d" &&
cp "$1"/slice-[012].pentago "$1"/slice-[012].pentago.index "$1"/counts-[012].npy "$d" &&
out=$("$0" --threads=2 --no-record --integrity 1 "$d") || { echo "$out"; exit 1; }
echo "$out" | grep -q '^All checks passed$' &&
echo "$out" | grep -q 'integrity 1 -> 2: 3 of 3 boards' || { echo "$out"; exit 1; }
expect 1 "$0" --threads=2 "$d"
"$0" --threads 2 "$d" 2>&1 >/dev/null | grep -q 'no run.jsonl.*--no-record' || exit 1
]])
add_test(NAME check_cli_published COMMAND sh -c "${expect_exit}${check_cli_published_script}" ${check_exe} ${PENTAGO_SHARED_DATA} ${tools_tmp})

set(check_cli_failures_script [[
d="$2/cli-truncated"; rm -rf "$d"; mkdir -p "$d" &&
cp "$1"/slice-2.pentago "$1"/counts-2.npy "$d" &&
size=$(wc -c < "$d/slice-2.pentago") && head -c $((size / 2)) "$1/slice-2.pentago" > "$d/slice-2.pentago" &&
"$0" --threads 2 "$d" > /dev/null 2>&1; rc=$?
[ $rc -eq 1 ] || { echo "truncated slice file: exit $rc, expected 1"; exit 1; }
"$0" --threads 2 "$d" 2>&1 >/dev/null | grep -q '^pentago-check: .*slice-2.pentago' || exit 1
expect 2 "$0"
expect 2 "$0" --bogus "$d"
expect 2 "$0" --fraction 2 --integrity 1 "$d"
expect 2 "$0" --fraction 0.5 "$d"
expect 2 "$0" --integrity 36 "$d"
expect 1 "$0" "$2/cli-no-such-dir"
]])
add_test(NAME check_cli_failures COMMAND sh -c "${expect_exit}${check_cli_failures_script}" ${check_exe} ${PENTAGO_SHARED_DATA} ${tools_tmp})

set(lookup_cli_script [[
mkdir -p "$(dirname "$2")" || exit 1
out=$("$0" --db "$1" 0) || exit 1
echo "$out" | grep -q '^board 0: 0 stones, black to place: win for black (database slice 1)$' &&
echo "$out" | grep -q '^36 placements: ' || { echo "$out"; exit 1; }
pic='a  ______
b  ______
c  ______
d  ______
e  ______
f  0_____'
printf '%s\n' "$pic" | "$0" --db "$1" - | grep -q '^board 1: 1 stones, white to place: ' || exit 1
"$0" --db "$1" --no-moves 1 | grep -q 'placements' && exit 1
"$0" --db "$1" 1m | grep -q '^8 rotations: ' || exit 1
"$0" --db "$1" --json 1 | grep -q '^{"board":"1","stones":1,"to_move":"white","phase":"place",' || exit 1
five=00000_1111__________________________
"$0" "$five" | grep -q 'loss for white (rules)$' || exit 1
"$0" --threads 2 010101101010010101101010____________ > "$2.mid" || exit 1
grep -q '^board [0-9]*: 24 stones, black to place: ' "$2.mid" && grep -q ' (midgame)$' "$2.mid" || { cat "$2.mid"; exit 1; }
expect 1 "$0" 0
expect 1 "$0" --db "$1" 000_111_____________________________
expect 1 "$0" --db http://127.0.0.1:1 0
expect 2 "$0" --db "$1"
expect 2 "$0" --db "$1" 12x
expect 2 "$0" --db "$1" 12
expect 2 "$0" --db "$1" 0m
expect 2 "$0" --db "$1" --bogus 0
expect 2 "$0" --db "$1/no-such-dir" 0
expect 2 "$0" --db "$1" - < /dev/zero
"$0" --db "$1" "$1/no-such-board-file" 2>&1 | grep -q 'no such file' || exit 1
]])
add_test(NAME lookup_cli COMMAND sh -c "${expect_exit}${lookup_cli_script}" ${lookup_exe} ${PENTAGO_SHARED_DATA} ${tools_tmp}/lookup-cli-out)

set(predict_cli_script [[
out=$("$0" --ranks 2 --threads 3 --memory 4G --save 34 44444554) || { echo "$out"; exit 1; }
echo "$out" | grep -q '^fits in 4.00 GiB per rank$' || { echo "$out"; exit 1; }
expect 1 "$0" --ranks 2 --threads 3 --memory 1M 44444554
expect 2 "$0" --memory 4G 44444554
expect 2 "$0" --ranks 2 44444554
expect 2 "$0" --ranks 2 --memory 4G
expect 2 "$0" --ranks 2 --memory 4G --threads 1 44444554
expect 2 "$0" --ranks 2 --memory 4G --slices 30 44444554
expect 2 "$0" --ranks x --memory 4G 44444554
]])
add_test(NAME predict_cli COMMAND sh -c "${expect_exit}${predict_cli_script}" ${predict_exe})

set_tests_properties(check_cli_published check_cli_failures lookup_cli predict_cli
  PROPERTIES LABELS db)

# The midgame solver against slices saved by the backward engine (mid is not below db).
target_link_libraries(midgame_vs_engine_test PRIVATE pentago_mid)
