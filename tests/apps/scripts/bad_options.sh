# Every app: bad options and bad inputs exit 2 with exactly one stderr line (matching a pattern
# where given). Usage: sh bad_options.sh BIN_DIR WORK_DIR DATA_DIR
. "$(dirname "$0")/../../lib/expect.sh"
exec </dev/null
B=$1; T=$2; D=$3; rm -rf "$T"; mkdir -p "$T/dir"
for app in pentago-analyze pentago-check pentago-endgame pentago-endgame-local pentago-lookup \
           pentago-midgame-gpu pentago-predict pentago-search; do
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
# pentago-index refuses a file whose name gives another slice than it holds (exit 1).
mkdir -p "$T/idx" && cp "$D/slice-2.pentago" "$T/idx/slice-5.pentago"
expect 1 '~holds slice 2, not the slice 5' "$B/pentago-index" "$T/idx/slice-5.pentago"
[ -e "$T/idx/slice-5.pentago.index" ] && { echo "FAIL: a sidecar for a misnamed slice"; fail=1; }
expect 2 '~--cache' "$B/pentago-lookup" --db "$D" --cache 0x1G 0
expect 2 '~--midgame-memory' "$B/pentago-lookup" --midgame-memory lots 3086939205047555958
# A 17-stone board over a 100M workspace bound: one line naming the need and the limit.
expect 1 '~needs a workspace of 1.4 GiB for a 17-stone board, over the limit of 100.0 MiB' \
  "$B/pentago-lookup" --midgame-memory 100M 3086939205047555958
expect 2 '~no position' "$B/pentago-midgame-gpu"
expect 2 '~--stones' "$B/pentago-midgame-gpu" --check 1 --stones 10-20
expect 2 '~--stones' "$B/pentago-midgame-gpu" --check 1 --stones 20
expect 2 '~at least 12 stones' "$B/pentago-midgame-gpu" --reference 0
expect 2 '~--bench-only' "$B/pentago-midgame-gpu" --bench-only one,all
# No GPU in this build (or no device 7 in a CUDA one): one line naming CUDA, exit 1.
expect 1 '~CUDA' "$B/pentago-midgame-gpu" --device 7 274440791932540184
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
