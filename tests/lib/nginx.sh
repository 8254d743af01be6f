# Sourced by the test scripts that put a real nginx in front of something (tests/*/scripts/*.sh):
#   free_port                  prints a free TCP port on 127.0.0.1
#   start_nginx DIR PORT HTTP  writes DIR/nginx.conf (in the foreground, no master process, its
#                              pid, temp folders and error log in DIR, the http block's own
#                              lines HTTP), starts nginx on it, sets nginx_pid and waits until
#                              PORT accepts; prints one FAIL line and exits 1 otherwise. The
#                              caller stops it (kill $nginx_pid) when it exits.
NGINX=/usr/sbin/nginx

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

start_nginx() {
  N=$1; nginx_port=$2
  [ -x $NGINX ] || { echo "FAIL nginx not installed (Debian nginx-light; scripts/setup installs it)"; exit 1; }
  mkdir -p "$N/tmp"
  cat > "$N/nginx.conf" <<CONF
daemon off;
master_process off;
worker_processes 1;
pid $N/nginx.pid;
error_log $N/error.log;
events { worker_connections 64; }
http {
  access_log off;
  client_body_temp_path $N/tmp; proxy_temp_path $N/tmp; fastcgi_temp_path $N/tmp;
  uwsgi_temp_path $N/tmp; scgi_temp_path $N/tmp;
$3
}
CONF
  $NGINX -p "$N" -e "$N/error.log" -c "$N/nginx.conf" > /dev/null 2>&1 &
  nginx_pid=$!
  for _ in $(seq 100); do
    python3 -c "import socket; socket.create_connection(('127.0.0.1', $nginx_port), 1)" 2>/dev/null &&
      return 0
    sleep 0.1
  done
  echo "FAIL nginx did not start: $(tail -n 3 "$N/error.log" 2>/dev/null)"
  exit 1
}
