# pentago-serve's command line: usage errors exit 2 and runtime errors 1, each with one line on
# stderr; --help exits 0; --gpu without a usable GPU says why in one stderr line and the CPU
# solver answers, named in the stats. Usage: sh serve_cli.sh PENTAGO_SERVE DATA_DIR [CUDA]
# (CUDA: 1 if built with it)
. "$(dirname "$0")/../../lib/expect.sh"
serve=$1; data=$2; cuda=${3:-0}
"$serve" --help | grep -q '^usage: pentago-serve' || { echo "FAIL --help"; fail=1; }
expect 2 "$serve"
expect 2 "$serve" --db "$data" --bogus
expect 2 "$serve" --db "$data" --port 70000
expect 2 "$serve" --db "$data" --port
expect 2 "$serve" --db "$data" --timeout 0
expect 2 "$serve" --db "$data" --cache lots
expect 2 "$serve" --db "$data" extra
expect 2 '~--midgame-per-client' "$serve" --db "$data" --midgame-per-client 0
expect 2 '~--max-per-client' "$serve" --db "$data" --max-per-client 0
expect 2 '~--trusted-proxy' "$serve" --db "$data" --trusted-proxy ""
"$serve" --help | grep -q -- '--midgame-per-client N' || { echo "FAIL --help lacks the per-client limit"; fail=1; }
timeout 60 "$serve" --db "$data/no-such-dir" --port 0 >/dev/null 2>&1 &&
  { echo "FAIL missing database accepted"; fail=1; }
expect 1 "$serve" --db "$data" --bind 203.0.113.1 --port 0
expect 2 '~--midgame-memory' "$serve" --db "$data" --midgame-memory lots
# A 17-stone board over a 100M workspace bound: 422 naming the need and the limit.
port_file=$(mktemp)
"$serve" --db "$data" --port 0 --midgame-memory 100M --log /dev/null > "$port_file" 2>&1 &
pid=$!
for _ in $(seq 50); do grep -q '[0-9]' "$port_file" && break; sleep 0.1; done
port=$(grep -o '[0-9][0-9]*' "$port_file" | tail -1)
body=$(curl -s -w ' %{http_code}' "http://127.0.0.1:$port/api/v1/position/3086939205047555958")
kill $pid; wait $pid 2>/dev/null; rm -f "$port_file"
case $body in *"needs a workspace of 1.4 GiB"*"limit of 100.0 MiB"*" 422") ;;
  *) echo "FAIL --midgame-memory 100M on 17 stones: $body"; fail=1 ;; esac
# --gpu: a 26-stone position to rotate (white wins in 5 turns) from the midgame solver; the
# stats name the device. Without CUDA: "cpu" and the reason, also the one line on stderr.
port_file=$(mktemp); err_file=$(mktemp)
"$serve" --db "$data" --port 0 --gpu --log /dev/null > "$port_file" 2> "$err_file" &
pid=$!
for _ in $(seq 50); do grep -q '[0-9]' "$port_file" && break; sleep 0.1; done
port=$(grep -o '[0-9][0-9]*' "$port_file" | tail -1)
answer=$(curl -s "http://127.0.0.1:$port/api/v1/position/01101001100110010101__10__1__0__1__0m")
stats=$(curl -s "http://127.0.0.1:$port/api/v1/stats")
kill $pid; wait $pid 2>/dev/null
err=$(cat "$err_file"); rm -f "$port_file" "$err_file"
case $answer in *'"stones":26,"to_move":"white","phase":"rotate","value":"win","distance":5,"source":"midgame"'*) ;;
  *) echo "FAIL --gpu answer: $answer"; fail=1 ;; esac
case $stats in *'"midgame_solves":1,'*) ;; *) echo "FAIL --gpu stats: $stats"; fail=1 ;; esac
no_cuda="this build has no CUDA (configure with -DPENTAGO_CUDA=ON)"
case $cuda:$err:$stats in
  0:"pentago-serve: --gpu: $no_cuda; the CPU midgame solver answers":*'"midgame_device":"cpu","midgame_gpu_unavailable":"'"$no_cuda"'"'*) ;;
  1::*'"midgame_device":"'*) case $stats in *'"midgame_device":"cpu"'*)
    echo "FAIL --gpu: a GPU and the CPU named: $stats"; fail=1 ;; esac ;;
  1:"pentago-serve: --gpu: "*"; the CPU midgame solver answers":*'"midgame_device":"cpu","midgame_gpu_unavailable":'*) ;;
  *) echo "FAIL --gpu (cuda $cuda): stderr '$err', stats $stats"; fail=1 ;;
esac
"$serve" --help | grep -q -- '--gpu ' || { echo "FAIL --help lacks --gpu"; fail=1; }
exit $fail
