# Sourced by the command-line test scripts (tests/<layer>/scripts/*.sh):
#   expect CODE [~PATTERN] CMD...
# runs CMD (at most 60 s, standard input as the caller's) and requires exit code CODE and
# exactly one line on stderr, matching the extended regex PATTERN if one is given. A mismatch
# prints one FAIL line and sets fail=1; the script goes on and ends with `exit $fail`.
fail=0
expect() {
  want=$1; shift; pattern=
  case $1 in "~"*) pattern=${1#?}; shift;; esac
  err=$(timeout 60 "$@" 2>&1 >/dev/null); rc=$?
  [ $rc -eq $want ] || { echo "FAIL $*: exit $rc, expected $want: $err"; fail=1; return; }
  [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] || { echo "FAIL $*: stderr not one line: $err"; fail=1; return; }
  [ -z "$pattern" ] || printf '%s\n' "$err" | grep -Eq -- "$pattern" ||
    { echo "FAIL $*: stderr '$err' does not match '$pattern'"; fail=1; }
}
