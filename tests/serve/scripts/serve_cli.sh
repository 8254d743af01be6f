# pentago-serve's command line: usage errors exit 2 and runtime errors 1, each with one line on
# stderr; --help exits 0. Usage: sh serve_cli.sh PENTAGO_SERVE DATA_DIR
. "$(dirname "$0")/../../lib/expect.sh"
serve=$1; data=$2
"$serve" --help | grep -q '^usage: pentago-serve' || { echo "FAIL --help"; fail=1; }
expect 2 "$serve"
expect 2 "$serve" --db "$data" --bogus
expect 2 "$serve" --db "$data" --port 70000
expect 2 "$serve" --db "$data" --port
expect 2 "$serve" --db "$data" --timeout 0
expect 2 "$serve" --db "$data" --cache lots
expect 2 "$serve" --db "$data" extra
timeout 60 "$serve" --db "$data/no-such-dir" --port 0 >/dev/null 2>&1 &&
  { echo "FAIL missing database accepted"; fail=1; }
expect 1 "$serve" --db "$data" --bind 203.0.113.1 --port 0
exit $fail
