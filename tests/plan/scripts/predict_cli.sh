# pentago-predict: a plan that fits, one that does not (exit 1), and usage errors (exit 2).
# Usage: sh predict_cli.sh PENTAGO_PREDICT
. "$(dirname "$0")/../../lib/expect.sh"
predict=$1
out=$("$predict" --ranks 2 --threads 3 --memory 4G --save 34 44444554) || { echo "$out"; exit 1; }
echo "$out" | grep -q '^fits in 4.00 GiB per rank$' || { echo "$out"; exit 1; }
expect 1 "$predict" --ranks 2 --threads 3 --memory 1M 44444554
expect 2 "$predict" --memory 4G 44444554
expect 2 "$predict" --ranks 2 44444554
expect 2 "$predict" --ranks 2 --memory 4G
expect 2 "$predict" --ranks 2 --memory 4G --threads 1 44444554
expect 2 "$predict" --ranks 2 --memory 4G --slices 30 44444554
expect 2 "$predict" --ranks x --memory 4G 44444554
exit $fail
