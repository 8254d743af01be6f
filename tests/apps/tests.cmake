# Command-line behaviour shared by every app (apps/cli.h): a table of bad options and bad
# inputs, each of which must exit 2 with exactly one line on stderr (and, where given, a line
# matching a pattern); finished positions answered at once; pentago-check on a run that
# reaches slice 0, after files are deleted, and on a small corpus of corrupted files.
set(apps_tmp ${CMAKE_BINARY_DIR}/test-runs/apps)

# expect CODE [PATTERN] CMD...: CMD exits CODE and writes exactly one stderr line (matching the
# extended regex PATTERN if given; a PATTERN argument starts with '~').
set(apps_expect [[
expect() {
  want=$1; shift; pattern=
  case $1 in "~"*) pattern=${1#?}; shift;; esac
  err=$(timeout 60 "$@" 2>&1 >/dev/null </dev/null); rc=$?
  [ $rc -eq $want ] || { echo "FAIL $*: exit $rc, expected $want: $err"; fail=1; return; }
  [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] || { echo "FAIL $*: stderr not one line: $err"; fail=1; return; }
  [ -z "$pattern" ] || printf '%s\n' "$err" | grep -Eq -- "$pattern" ||
    { echo "FAIL $*: stderr '$err' does not match '$pattern'"; fail=1; }
}
fail=0
]])

set(apps_bad_options_script [[
B=$1; T=$2; D=$3; rm -rf "$T"; mkdir -p "$T/dir"
for app in pentago-analyze pentago-check pentago-endgame pentago-endgame-local pentago-lookup \
           pentago-predict pentago-search; do
  expect 2 "$B/$app" --no-such-option
done
expect 2 "$B/pentago-analyze"
expect 2 "$B/pentago-analyze" counts --json=1
expect 2 "$B/pentago-analyze" sizes 1234567x
expect 2 "$B/pentago-check"
expect 2 '~--threads' "$B/pentago-check" --threads 0x10 "$T/dir"
expect 2 '~--threads' "$B/pentago-check" --threads 010x "$T/dir"
expect 2 '~--cache' "$B/pentago-check" --cache 0x10G "$T/dir"
expect 2 '~--cache' "$B/pentago-check" --cache inf "$T/dir"
expect 2 '~--seed' "$B/pentago-check" --seed +5 "$T/dir"
expect 2 '~--threads' "$B/pentago-check" --threads=0x2 "$T/dir"
expect 2 '~--threads' "$B/pentago-endgame-local" --threads 0x10 --dir "$T/l" 44444554
expect 2 '~--memory' "$B/pentago-endgame-local" --memory 0x10G --dir "$T/l" 44444554
expect 2 '~--level' "$B/pentago-endgame-local" --level 25 --dir "$T/l" 44444554
expect 2 '~--threads' "$B/pentago-endgame" --threads 010x --dir "$T/e" 44444554
expect 2 '~--threads' "$B/pentago-endgame" --threads 0x10 --dir "$T/e" 44444554
expect 2 '~--memory' "$B/pentago-endgame" --memory 0x10G --dir "$T/e" 44444554
expect 2 '~--level' "$B/pentago-endgame" --level 25 --dir "$T/e" 44444554
expect 2 '~not from a meaningless run' "$B/pentago-endgame" --restart "$D/slice-2.pentago" \
  --meaningless 35 --dir "$T/e" 44444554
mkdir -p "$T/m" && cp "$D/slice-2.pentago" "$T/m/" && : > "$T/m/meaningless-6"
expect 2 '~add --meaningless 6|resume it with --meaningless 6' "$B/pentago-endgame" \
  --restart "$T/m/slice-2.pentago" --dir "$T/e" 00000000
expect 2 '~--trace' "$B/pentago-endgame" --trace "$T/no/such/folder/t.json" --dir "$T/e" 44444554
expect 2 '~no slice to restart' "$B/pentago-endgame" --stop-after 35 --restart "$D/slice-2.pentago" \
  --dir "$T/e" 44444554
expect 2 '~--memory' "$B/pentago-endgame" --memory 1M --dir "$T/e" 44444554
expect 2 '~slice 2' "$B/pentago-endgame" --restart "$D/slice-2.pentago" --dir "$T/e" 44444554
[ -e "$T/e" ] && { echo "FAIL: a refused run left $T/e behind"; fail=1; }
expect 2 '~--threads' "$B/pentago-lookup" --db "$D" --threads 0x10 0
expect 2 '~--cache' "$B/pentago-lookup" --db "$D" --cache 0x1G 0
expect 2 '~--ranks' "$B/pentago-predict" --ranks 0x2 --memory 4G 44444554
expect 2 '~--memory' "$B/pentago-predict" --ranks 2 --memory 0x10G 44444554
expect 2 "$B/pentago-search"
expect 2 "$B/pentago-search" 0 1
expect 2 '~--threads' "$B/pentago-search" --threads 010x 0
expect 2 '~--threads' "$B/pentago-search" --threads=0x2 0
expect 2 '~more than 4096 bytes' "$B/pentago-search" /dev/zero
expect 2 '~more than 4096 bytes' sh -c "exec '$B/pentago-search' - < /dev/zero"
expect 2 '~is a directory' "$B/pentago-search" "$T/dir"
expect 2 '~no such file' "$B/pentago-search" "$T/no-such-board"
printf 'f  ______\ne  ______\nd  ______\nc  ______\nb  ______\na  0_____\n' > "$T/reversed"
expect 2 '~labelled' "$B/pentago-search" "$T/reversed"
exit $fail
]])
add_test(NAME apps_bad_options COMMAND sh -c "${apps_expect}${apps_bad_options_script}" sh
  $<TARGET_FILE_DIR:pentago-search> ${apps_tmp}/bad-options ${PENTAGO_SHARED_DATA})

# A finished game (five in a row, board not full) has its value by the rules: no search.
set(apps_search_finished_script [[
B=$1
for case in '00000_ 1111__ loses' '11111_ 0000_0 loses' '00000_ 11111_ ties'; do
  set -- $case
  pic="a  $1
b  $2
c  ______
d  ______
e  ______
f  ______"
  out=$(printf '%s\n' "$pic" | timeout 10 "$B/pentago-search" -) || { echo "exit $?: $out"; exit 1; }
  echo "$out" | grep -q "$3 by the rules" || { echo "$out"; exit 1; }
done
]])
add_test(NAME apps_search_finished_position COMMAND sh -c "${apps_search_finished_script}" sh
  $<TARGET_FILE_DIR:pentago-search>)

# pentago-check on a run that reaches slice 0 (restarted from the published slice 2), then on
# copies with files deleted, then on a corpus of corrupted copies of its files.
set(apps_check_run_script [[
B=$1; T=$2; D=$3; rm -rf "$T"; mkdir -p "$T"
R="$T/run"
timeout 120 mpiexec -n 2 "$B/pentago-endgame" --threads 2 --restart "$D/slice-2.pentago" \
  --dir "$R" 00000000 > "$T/endgame.out" 2>&1 || { cat "$T/endgame.out"; exit 1; }
out=$("$B/pentago-check" --threads 2 "$R" 2>&1) || { echo "slice 0 run: $out"; exit 1; }
echo "$out" | grep -q '^All checks passed$' || { echo "$out"; exit 1; }
err=$("$B/pentago-check" "$T/no-such-run" 2>&1 >/dev/null); rc=$?
[ $rc -eq 1 ] && echo "$err" | grep -q 'no-such-run: no such directory$' ||
  { echo "missing directory: exit $rc: $err"; fail=1; }
# Deleted files: each is one clear failure naming the file.
for gone in slice-1.pentago "counts-1.npy sparse-1.npy" counts-0.npy sparse-0.npy; do
  # A slice file goes with its .index sidecar (runs write both).
  rm -rf "$T/cut"; cp -r "$R" "$T/cut"; (cd "$T/cut" && rm $gone && for f in $gone; do rm -f "$f.index"; done)
  err=$("$B/pentago-check" --threads 2 "$T/cut" 2>&1 >/dev/null); rc=$?
  [ $rc -eq 1 ] || { echo "deleted $gone: exit $rc, expected 1"; fail=1; continue; }
  for f in $gone; do
    echo "$err" | grep -q "$f is missing" || { echo "deleted $gone: $err"; fail=1; }
  done
  n=$(printf '%s\n' "$err" | wc -l); words=$(echo $gone | wc -w)
  [ "$n" -eq "$words" ] || { echo "deleted $gone: $n lines, expected $words: $err"; fail=1; }
done
# Corrupted copies: never a crash or hang; a corrupted slice or counts file is a failure.
i=0
for f in slice-1.pentago counts-1.npy sparse-0.npy; do
  size=$(wc -c < "$R/$f"); last=$((size - 3))
  # A slice file ends with zero padding after its last xz stream: corrupt the stream's "YZ".
  case $f in *.pentago) last=$(($(grep -obUa YZ "$R/$f" | tail -n 1 | cut -d: -f1) + 1));; esac
  for at in 0 8 $((size / 3)) $((size / 2)) $((size - 9)) $last; do
    for how in flip cut; do
      i=$((i + 1)); c="$T/bad-$i"; rm -rf "$c"; cp -r "$R" "$c"
      if [ $how = flip ]; then
        byte=$(od -An -tu1 -j "$at" -N1 "$R/$f" | tr -d ' ')
        printf "$(printf '\\%03o' $(( (byte + 128) % 256 )))" |
          dd of="$c/$f" bs=1 seek="$at" conv=notrunc 2>/dev/null
      else
        head -c "$at" "$R/$f" > "$c/$f"
      fi
      timeout 60 "$B/pentago-check" --threads 2 "$c" > "$c.out" 2>&1; rc=$?
      [ $rc -le 1 ] || { echo "$f $how at $at: exit $rc"; cat "$c.out"; fail=1; }
      if [ $rc -eq 0 ] && ! cmp -s "$c/$f" "$R/$f" && [ $f != sparse-0.npy ]; then
        echo "$f $how at $at: corrupted file passed"; fail=1
      fi
      rm -rf "$c" "$c.out"
    done
  done
done
exit $fail
]])
add_test(NAME apps_check_run_to_slice_0 COMMAND sh -c "fail=0; ${apps_check_run_script}" sh
  $<TARGET_FILE_DIR:pentago-check> ${apps_tmp}/check-run ${PENTAGO_SHARED_DATA})

set_tests_properties(apps_bad_options apps_search_finished_position apps_check_run_to_slice_0
  PROPERTIES LABELS apps)

# A meaningless slice says in the plan what its synthesis costs.
add_test(NAME apps_meaningless_plan_note COMMAND sh -c [[
rm -rf "$1" && "$0" --quiet --threads 2 --meaningless 5 --dir "$1" 00000000 &&
grep -q '^  meaningless slice 5: [0-9]* nodes synthesized' "$1/log" || { cat "$1/log"; exit 1; }
]] $<TARGET_FILE:pentago-endgame-local> ${apps_tmp}/meaningless-note)
set_tests_properties(apps_meaningless_plan_note PROPERTIES LABELS apps)
