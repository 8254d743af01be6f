# A meaningless slice says in the plan what its synthesis costs.
# Usage: sh meaningless_plan_note.sh PENTAGO_ENDGAME_LOCAL WORK_DIR
local_exe=$1; d=$2
rm -rf "$d" && "$local_exe" --quiet --threads 2 --meaningless 5 --dir "$d" 00000000 &&
  grep -q '^  meaningless slice 5: [0-9]* nodes synthesized' "$d/log" || { cat "$d/log"; exit 1; }
