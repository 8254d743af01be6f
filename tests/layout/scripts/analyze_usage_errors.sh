# pentago-analyze: bad commands and arguments exit 2 with one stderr line; --help of a command.
# Usage: sh analyze_usage_errors.sh PENTAGO_ANALYZE
. "$(dirname "$0")/../../lib/expect.sh"
analyze=$1
for args in '' 'bogus' 'counts --bad' 'sizes 1234' 'sizes 99000000' 'sizes 00000000 extra' \
    'ratio x' 'branch --json x'; do
  expect 2 "$analyze" $args
done
"$analyze" sizes --help | grep -q '^usage: pentago-analyze sizes' || { echo "FAIL sizes --help"; fail=1; }
exit $fail
