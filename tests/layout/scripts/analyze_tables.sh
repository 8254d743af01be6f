# pentago-analyze's headline figures: TEST is one of counts, sizes, ratio, branch.
# Usage: sh analyze_tables.sh TEST PENTAGO_ANALYZE
test=$1; analyze=$2
case $test in
  counts)
    "$analyze" counts | grep -Eq '^all +24072650378629801 +3009081623421558 +12388893927697$';;
  sizes)
    "$analyze" sizes |
      grep -Eq '^all +108204 +13540337135288 +3654002393 +996084744 +858413302$';;
  ratio)
    out=$("$analyze" ratio --json) &&
      echo "$out" | grep -q '"rotation": 1.0539950' &&
      echo "$out" | grep -q '"sections": 1.0929416' &&
      echo "$out" | grep -q '"total": 1.1519549';;
  branch)
    "$analyze" branch | grep -Eq '^without rotations +12.16[0-9]* +12.2$' &&
      "$analyze" branch --json | grep -q '"with_rotations": 97.3';;
  *) echo "unknown test $test"; exit 2;;
esac
