# pentago-lookup on the published slices 0-2: text, picture, JSON, rotations, finished and
# midgame positions, --gpu (without a usable GPU: one stderr line naming why, and the CPU
# solver's answer); errors exit 1 (no value) or 2 (usage) with one stderr line.
# Usage: sh lookup_cli.sh PENTAGO_LOOKUP DATA_DIR OUT_PREFIX [CUDA]  (CUDA: 1 if built with it)
. "$(dirname "$0")/../../lib/expect.sh"
lookup=$1; data=$2; out_file=$3; cuda=${4:-0}
mkdir -p "$(dirname "$out_file")" || exit 1
out=$("$lookup" --db "$data" 0) || exit 1
echo "$out" | grep -q '^board 0: 0 stones, black to place: win for black (database slice 1)$' &&
  echo "$out" | grep -q '^36 placements: ' || { echo "$out"; exit 1; }
pic='a  ______
b  ______
c  ______
d  ______
e  ______
f  0_____'
printf '%s\n' "$pic" | "$lookup" --db "$data" - | grep -q '^board 1: 1 stones, white to place: ' || exit 1
"$lookup" --db "$data" --no-moves 1 | grep -q 'placements' && exit 1
"$lookup" --db "$data" 1m | grep -q '^8 rotations: ' || exit 1
"$lookup" --db "$data" --json 1 | grep -q '^{"board":"1","stones":1,"to_move":"white","phase":"place",' || exit 1
five=00000_1111__________________________
"$lookup" "$five" | grep -q 'loss for white (rules)$' || exit 1
"$lookup" --threads 2 010101101010010101101010____________ > "$out_file.mid" || exit 1
grep -q '^board [0-9]*: 24 stones, black to place: ' "$out_file.mid" &&
  grep -q ' (midgame)$' "$out_file.mid" || { cat "$out_file.mid"; exit 1; }
# --gpu answers as the CPU solver does. Without CUDA it says so in one stderr line; with CUDA
# it says nothing (a device) or names why there is none.
"$lookup" --help | grep -q -- '--gpu ' || { echo "FAIL --help lacks --gpu"; fail=1; }
for b in 011010011001100101011___0___1___0___ 01101001100110010101__10__1__0__1__0m; do
  "$lookup" --threads 2 "$b" > "$out_file.cpu" || exit 1
  "$lookup" --threads 2 --gpu "$b" > "$out_file.gpu" 2> "$out_file.gpu-err" || exit 1
  grep -q ' (midgame solver)$' "$out_file.cpu" && cmp -s "$out_file.cpu" "$out_file.gpu" ||
    { echo "FAIL --gpu $b answers differently"; diff "$out_file.cpu" "$out_file.gpu"; fail=1; }
  err=$(cat "$out_file.gpu-err")
  case $cuda:$err in
    0:"pentago-lookup: --gpu: this build has no CUDA (configure with -DPENTAGO_CUDA=ON); the CPU midgame solver answers") ;;
    1:) ;;
    1:"pentago-lookup: --gpu: "*"; the CPU midgame solver answers") ;;
    *) echo "FAIL --gpu $b stderr (cuda $cuda): '$err'"; fail=1 ;;
  esac
  [ "$(wc -l < "$out_file.gpu-err")" -le 1 ] || { echo "FAIL --gpu: stderr not one line"; fail=1; }
done
expect 1 "$lookup" 0
expect 1 "$lookup" --db "$data" 000_111_____________________________
expect 1 "$lookup" --db http://127.0.0.1:1 0
expect 2 "$lookup" --db "$data"
expect 2 "$lookup" --db "$data" 12x
expect 2 "$lookup" --db "$data" 12
expect 2 "$lookup" --db "$data" 0m
expect 2 "$lookup" --db "$data" --bogus 0
expect 2 "$lookup" --db "$data" --distance-from 14 0
expect 2 "$lookup" --db "$data" --distance-from 37 0
expect 2 "$lookup" --db "$data/no-such-dir" 0
expect 2 "$lookup" --db "$data" - < /dev/zero
"$lookup" --db "$data" "$data/no-such-board-file" 2>&1 | grep -q 'no such file' ||
  { echo "FAIL missing board file"; fail=1; }
exit $fail
