# pentago-check on a run that reaches slice 0 (restarted from the published slice 2), then on
# copies with files deleted, then on a corpus of corrupted copies of its files: never a crash
# or a hang, and a corrupted slice or counts file is a failure.
# Usage: sh check_run_to_slice_0.sh BIN_DIR WORK_DIR DATA_DIR
fail=0
B=$1; T=$2; D=$3; rm -rf "$T"; mkdir -p "$T"
R="$T/run"
timeout 120 mpiexec -n 2 "$B/pentago-endgame" --threads 2 --restart "$D/slice-2.pentago" \
  --dir "$R" 00000000 > "$T/endgame.out" 2>&1 || { cat "$T/endgame.out"; exit 1; }
[ -f "$R/run.jsonl" ] || { echo "the run wrote no run.jsonl"; exit 1; }
out=$("$B/pentago-check" --threads 2 "$R" 2>&1) || { echo "slice 0 run: $out"; exit 1; }
echo "$out" | grep -q '^All checks passed$' || { echo "$out"; exit 1; }
err=$("$B/pentago-check" "$T/no-such-run" 2>&1 >/dev/null); rc=$?
[ $rc -eq 1 ] && echo "$err" | grep -q 'no-such-run: no such directory$' ||
  { echo "missing directory: exit $rc: $err"; fail=1; }
# Deleted files: each is one clear failure naming the file.
# (The run record lists a slice file's .index sidecar too: deleting both is two failures.)
for gone in slice-1.pentago "slice-1.pentago slice-1.pentago.index" "counts-1.npy sparse-1.npy" \
  counts-0.npy sparse-0.npy; do
  rm -rf "$T/cut"; cp -r "$R" "$T/cut"; (cd "$T/cut" && rm $gone)
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
