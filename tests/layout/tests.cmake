# Command-line tests of pentago-analyze: headline totals in the tables and JSON, and one-line
# usage errors with exit code 2. Each script gets the executable as $0.
set(analyze $<TARGET_FILE:pentago-analyze>)
add_test(NAME analyze_counts_total COMMAND sh -c [[
"$0" counts | grep -Eq '^all +24072650378629801 +3009081623421558 +12388893927697$'
]] ${analyze})
add_test(NAME analyze_sizes_total COMMAND sh -c [[
"$0" sizes | grep -Eq '^all +108204 +13540337135288 +3654002393 +996084744 +858413302$'
]] ${analyze})
add_test(NAME analyze_ratio COMMAND sh -c [[
out=$("$0" ratio --json) &&
echo "$out" | grep -q '"rotation": 1.0539950' &&
echo "$out" | grep -q '"sections": 1.0929416' &&
echo "$out" | grep -q '"total": 1.1519549'
]] ${analyze})
add_test(NAME analyze_branch COMMAND sh -c [[
"$0" branch | grep -Eq '^without rotations +12.16[0-9]* +12.2$' &&
"$0" branch --json | grep -q '"with_rotations": 97.3'
]] ${analyze})
add_test(NAME analyze_usage_errors COMMAND sh -c [[
for args in '' 'bogus' 'counts --bad' 'sizes 1234' 'sizes 99000000' 'sizes 00000000 extra' \
    'ratio x' 'branch --json x'; do
  err=$("$0" $args 2>&1 >/dev/null); rc=$?
  [ $rc -eq 2 ] || { echo "'$args': exit $rc, expected 2"; exit 1; }
  [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] || { echo "'$args': stderr not one line"; exit 1; }
done
"$0" sizes --help | grep -q '^usage: pentago-analyze sizes'
]] ${analyze})
set_tests_properties(analyze_counts_total analyze_sizes_total analyze_ratio analyze_branch
  analyze_usage_errors PROPERTIES LABELS layout)
