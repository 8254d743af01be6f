# sbatch --export merging for jobs/slurm/local-test.sh (sourced; bash).
#
# sbatch keeps only the last --export option, so a caller's `--export=ALL,CHECKPOINT_TEST=1`
# would replace the script's own `--export=ALL,LAUNCH=...,THREADS=2`. merge_sbatch_exports
# takes the script's list and the caller's sbatch arguments and sets
#   MERGED_EXPORT   one --export value: the script's variables, then the caller's (a caller's
#                   NAME=VALUE replaces the script's NAME; the caller's ALL or NONE keyword, if
#                   any, replaces the script's)
#   SBATCH_ARGS     the caller's arguments without their --export options (array)
# Accepts `--export=LIST` and `--export LIST`, any number of times.
merge_sbatch_exports() {
  local own=$1
  shift
  local -a caller=()
  SBATCH_ARGS=()
  while [ $# -gt 0 ]; do
    case $1 in
      --export=*) caller+=("${1#--export=}") ;;
      --export)
        [ $# -ge 2 ] || { echo "sbatch-exports: --export needs a value" >&2; return 2; }
        shift
        caller+=("$1")
        ;;
      *) SBATCH_ARGS+=("$1") ;;
    esac
    shift
  done
  local keyword= names=() values=() item name i found
  local -a items
  for list in "$own" "${caller[@]}"; do
    IFS=, read -ra items <<< "$list"
    for item in "${items[@]}"; do
      case $item in
        '') ;;
        ALL | NONE | NIL) keyword=$item ;;
        *=*)
          name=${item%%=*}
          found=
          for i in "${!names[@]}"; do
            if [ "${names[$i]}" = "$name" ]; then values[$i]=$item; found=1; fi
          done
          [ -n "$found" ] || { names+=("$name"); values+=("$item"); }
          ;;
        *)
          # A bare NAME exports that variable from the caller's environment.
          name=$item
          found=
          for i in "${!names[@]}"; do
            if [ "${names[$i]}" = "$name" ]; then values[$i]=$item; found=1; fi
          done
          [ -n "$found" ] || { names+=("$name"); values+=("$item"); }
          ;;
      esac
    done
  done
  MERGED_EXPORT=$keyword
  for item in "${values[@]}"; do
    MERGED_EXPORT=${MERGED_EXPORT:+$MERGED_EXPORT,}$item
  done
}
