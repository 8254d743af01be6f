# nginx in front of pentago-serve as a cache (the configuration docs/api.md gives): a repeated
# position query is answered by nginx without reaching pentago-serve (its access log and stats
# count one request), a midgame answer too, and errors are not kept; with --trusted-proxy the
# per-client solve limit counts the client nginx forwards.
# Usage: sh nginx_cache.sh PENTAGO_SERVE DATA_DIR WORK_DIR
serve=$1; data=$2; T=$3
. "$(dirname "$0")/../../lib/nginx.sh"
rm -rf "$T"; mkdir -p "$T/nginx/cache"
"$serve" --db "$data" --port 0 --log "$T/access.log" --trusted-proxy 127.0.0.1 \
  --midgame-per-client 1 > "$T/serve.out" 2>&1 &
serve_pid=$!
port=$(free_port)
N="$T/nginx"
nginx_pid=
trap 'kill $serve_pid $nginx_pid 2>/dev/null; wait 2>/dev/null' EXIT
for _ in $(seq 100); do grep -q 'listening' "$T/serve.out" && break; sleep 0.1; done
upstream=$(grep -o '127.0.0.1:[0-9]*' "$T/serve.out")
[ -n "$upstream" ] || { echo "FAIL pentago-serve did not start: $(cat "$T/serve.out")"; exit 1; }
start_nginx "$N" "$port" "  proxy_cache_path $N/cache levels=1:2 keys_zone=pentago:10m max_size=1g inactive=365d
                   use_temp_path=off;
  upstream pentago { server $upstream; keepalive 16; }
  server {
    listen 127.0.0.1:$port;
    location /api/v1/position/ {
      proxy_pass http://pentago;
      proxy_http_version 1.1;
      proxy_set_header Connection \"\";
      proxy_set_header X-Forwarded-For \$remote_addr;
      proxy_cache pentago;
      proxy_cache_lock on;
      proxy_cache_revalidate on;
      add_header X-Cache-Status \$upstream_cache_status;
    }
    location / {
      proxy_pass http://pentago;
      proxy_http_version 1.1;
      proxy_set_header Connection \"\";
    }
  }
"
fail=0
served() {  # requests pentago-serve logged for path $1 (a line follows its response: wait
  # a moment for one more than $2, which must not come)
  for _ in $(seq 10); do
    [ "$(grep -c " GET $1 " "$T/access.log")" -gt "${2:-1}" ] && break
    sleep 0.05
  done
  grep -c " GET $1 " "$T/access.log"
}
# A database position and a midgame position (18 stones), each asked three times.
for board in 0 _0010_0__1_0_1__101_01___01_____11_0; do
  path=/api/v1/position/$board
  for k in 1 2 3; do
    curl -s -D "$T/headers.$k" -o "$T/body.$k" "http://127.0.0.1:$port$path"
  done
  grep -q '"value"' "$T/body.3" || { echo "FAIL $board: no answer: $(head -c 200 "$T/body.3")"; fail=1; }
  cmp -s "$T/body.1" "$T/body.3" || { echo "FAIL $board: the cached body differs"; fail=1; }
  grep -qi '^X-Cache-Status: MISS' "$T/headers.1" || { echo "FAIL $board: first not a miss"; fail=1; }
  grep -qi '^X-Cache-Status: HIT' "$T/headers.3" || { echo "FAIL $board: third not a hit"; fail=1; }
  n=$(served "$path")
  [ "$n" = 1 ] || { echo "FAIL $board: pentago-serve answered $n of 3 requests"; fail=1; }
done
# Errors are not kept: each one reaches the server.
for k in 1 2; do curl -s -o /dev/null "http://127.0.0.1:$port/api/v1/position/12x"; done
n=$(served /api/v1/position/12x 2)
[ "$n" = 2 ] || { echo "FAIL an error was cached: the server saw $n of 2"; fail=1; }
queries=$(curl -s "http://127.0.0.1:$port/api/v1/stats" | python3 -c 'import json,sys; print(json.load(sys.stdin)["queries"])')
[ "$queries" = 2 ] || { echo "FAIL the engine answered $queries queries, not 2"; fail=1; }
# Behind the proxy the per-client limit counts the forwarded client: one client's second
# concurrent solve gets 429 while another client's runs.
slow1=101_0_011___0_011___0_1100_____1___0
slow2=1_10___11___11_00_____0_10_1_0_01_00
curl -s -o /dev/null -H "X-Forwarded-For: 192.0.2.1" "http://$upstream/api/v1/position/$slow1" &
first_pid=$!
sleep 0.5
second=$(curl -s -o /dev/null -w '%{http_code}' -H "X-Forwarded-For: 192.0.2.1" \
  "http://$upstream/api/v1/position/$slow2")
other=$(curl -s -o /dev/null -w '%{http_code}' -H "X-Forwarded-For: 192.0.2.2" \
  "http://$upstream/api/v1/position/$slow2")
wait $first_pid
[ "$second" = 429 ] || { echo "FAIL a forwarded client's second solve: $second, not 429"; fail=1; }
[ "$other" = 200 ] || { echo "FAIL another forwarded client's solve: $other, not 200"; fail=1; }
[ $fail = 0 ] && echo "nginx kept both answers: pentago-serve saw each once"
exit $fail
