#!/bin/sh
# A fresh run's saved slices served by a plain HTTP server: pentago-endgame restarts from the
# published slice 2 of the full game and saves slices 1 and 0 with their .index sidecars; nginx
# serves the run directory; pentago-lookup gives the same answers through the URL as from the
# directory (and as from the published data). Also: pentago-index writes the same sidecar again.
# Then the same for a run from root 27724444 saving its partial slices 34 and 35 (small, xz
# preset 0): their sidecars have the partial layout (the file's sections only), and lookups of
# sampled boards reading both slices agree through the URL and the directory.
# Usage: serve_saved_run.sh BIN_DIR WORK_DIR DATA_DIR
B=$1; T=$2; D=$3
. "$(dirname "$0")/../../lib/nginx.sh"
rm -rf "$T"; mkdir -p "$T"
# Every sidecar of run directory $1 for slices $2...: present, and what pentago-index writes.
check_sidecars() {
  dir=$1; shift
  for n in "$@"; do
    [ -f "$dir/slice-$n.pentago.index" ] || { echo "no $dir/slice-$n.pentago.index"; ls "$dir"; exit 1; }
    cp "$dir/slice-$n.pentago" "$T/copy.pentago" && rm -f "$T/copy.pentago.index"
    "$B/pentago-index" "$T/copy.pentago" > /dev/null || exit 1
    cmp "$T/copy.pentago.index" "$dir/slice-$n.pentago.index" ||
      { echo "pentago-index differs for $dir/slice-$n"; exit 1; }
  done
}
R="$T/run"
timeout 120 mpiexec -n 2 "$B/pentago-endgame" --threads 2 --restart "$D/slice-2.pentago" \
  --dir "$R" 00000000 > "$T/endgame.out" 2>&1 || { cat "$T/endgame.out"; exit 1; }
check_sidecars "$R" 0 1
"$B/pentago-index" "$T/copy.pentago" 2> /dev/null && { echo "pentago-index overwrote"; exit 1; }
P="$T/partial"
timeout 200 mpiexec -n 2 "$B/pentago-endgame" --threads 2 --save 35 --level 0 --dir "$P" 27724444 \
  > "$T/partial.out" 2>&1 || { cat "$T/partial.out"; exit 1; }
check_sidecars "$P" 34 35

# nginx in the foreground on a free loopback port, serving the run directory.
port=$(free_port)
trap 'kill $nginx_pid 2>/dev/null; wait $nginx_pid 2>/dev/null' EXIT
start_nginx "$T/nginx" "$port" "  server { listen 127.0.0.1:$port; root $T; }"
fail=0
# The answer without its timing.
lookup() { "$B/pentago-lookup" --json "$@" 2>&1 | sed 's/,"elapsed_ms":[^,}]*//'; }
# The empty board (its moves read slice 1) and a one-stone board to rotate (slice 1).
for board in 0 ______________0_____________________m; do
  local_answer=$(lookup --db "$R" "$board")
  remote_answer=$(lookup --db "http://127.0.0.1:$port/run" "$board")
  published_answer=$(lookup --db "$D" "$board")
  [ "$local_answer" = "$remote_answer" ] ||
    { echo "$board: local and remote answers differ: $local_answer | $remote_answer" | cut -c1-600; fail=1; }
  [ "$local_answer" = "$published_answer" ] ||
    { echo "$board: run and published answers differ: $local_answer | $published_answer" | cut -c1-600; fail=1; }
  echo "$remote_answer" | grep -q '"value"' || { echo "$board: no value in $remote_answer"; fail=1; }
done
# Partial slices through their partial sidecars: sampled boards of slice 34, to place (their
# moves read slice 35's two sections) and to rotate (their values read slice 34). Many samples
# are finished games (valued by the rules): at least one of each kind must reach the database.
boards=$(python3 -c "
import struct
d = open('$P/sparse-34.npy', 'rb').read()
start = 10 + struct.unpack('<H', d[8:10])[0]
for k in range(min(20, (len(d) - start) // 72)):
    print(struct.unpack('<Q', d[start + 72 * k:start + 72 * k + 8])[0])")
[ -n "$boards" ] || { echo "no sampled boards"; exit 1; }
placed=0; rotated=0
for board in $boards; do
  for b in "$board" "${board}m"; do
    local_answer=$(lookup --db "$P" "$b")
    remote_answer=$(lookup --db "http://127.0.0.1:$port/partial" "$b")
    [ "$local_answer" = "$remote_answer" ] ||
      { echo "$b: partial local and remote answers differ: $local_answer | $remote_answer" | cut -c1-600; fail=1; }
    case "$remote_answer" in *'"source":"database"'*)
      [ "$b" = "$board" ] && placed=$((placed + 1)) || rotated=$((rotated + 1)) ;;
    esac
  done
done
[ $placed -gt 0 ] && [ $rotated -gt 0 ] ||
  { echo "partial run: $placed boards to place, $rotated to rotate read the database (need 1 each)"; fail=1; }
echo "partial run: $placed boards to place and $rotated to rotate answered from the database"
exit $fail
