# pentago-search: a finished game (five in a row, board not full) has its value by the rules,
# at once. Usage: sh search_finished_position.sh BIN_DIR
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
