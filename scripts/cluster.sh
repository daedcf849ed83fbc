#!/usr/bin/env bash
# `make cluster`: a whole cluster on this machine, from Debian and PyPI packages --
# redis-server, a throw-away PostgreSQL (tests/pgserver.py; or the database
# CAPICUA_DATABASE_URL names), two `capicua serve` processes, a `capicua worker`,
# and HAProxy in front (deploy/haproxy.cfg). Prints the URL; Ctrl-C (or
# `make cluster-stop` from another shell) stops them all: HAProxy first, then the
# servers drain (SIGTERM), then the worker, Redis and PostgreSQL.
#
# Settings (environment): CAPICUA_CLUSTER_PORT (8080, the balancer), the servers on
# the two ports after it, CAPICUA_CLUSTER_DIR (.cluster: logs, pids, configs),
# CAPICUA_DATABASE_URL, CAPICUA_BOT_DELAY.
# Several machines: docs/deploy.md.
set -euo pipefail
cd "$(dirname "$0")/.."
DIR=${CAPICUA_CLUSTER_DIR:-.cluster}
PORT=${CAPICUA_CLUSTER_PORT:-8080}
BIN=.venv/bin

if [ "${1:-}" = stop ]; then
  pid=$(cat "$DIR/cluster.pid" 2>/dev/null || true)
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid"
    # Its last act removes the pid file (the process may linger as a zombie of whoever started it).
    while [ -f "$DIR/cluster.pid" ] && kill -0 "$pid" 2>/dev/null; do sleep 0.2; done
    echo "cluster stopped"
  else
    echo "no cluster running (no live pid in $DIR/cluster.pid)"
  fi
  exit 0
fi

missing=()
command -v redis-server > /dev/null || missing+=(redis-server)
command -v haproxy > /dev/null || [ -x /usr/sbin/haproxy ] || missing+=(haproxy)
compgen -G "/usr/lib/postgresql/*/bin/initdb" > /dev/null || command -v initdb > /dev/null \
  || [ -n "${CAPICUA_DATABASE_URL:-}" ] || missing+=(postgresql)
if [ ${#missing[@]} -gt 0 ]; then
  echo "missing Debian packages: ${missing[*]} (sudo apt-get install ${missing[*]})" >&2
  exit 1
fi
PATH=$PATH:/usr/sbin
mkdir -p "$DIR"
if [ -f "$DIR/cluster.pid" ] && kill -0 "$(cat "$DIR/cluster.pid")" 2>/dev/null; then
  echo "a cluster is already running (pid $(cat "$DIR/cluster.pid")): make cluster-stop" >&2
  exit 1
fi
echo $$ > "$DIR/cluster.pid"

free_port() { "$BIN/python" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
pids=()         # started here, stopped in reverse order
serve_pids=()
stopping=0
stop_all() {
  [ "$stopping" = 1 ] && return
  stopping=1
  echo; echo "stopping the cluster…"
  [ -n "${HAPROXY_PID:-}" ] && kill -TERM "$HAPROXY_PID" 2>/dev/null || true
  for pid in "${serve_pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done  # they drain
  for pid in "${serve_pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  for ((i=${#pids[@]}-1; i>=0; i--)); do kill -TERM "${pids[$i]}" 2>/dev/null || true; done
  if [ -n "${PG_PID:-}" ]; then  # Enter: tests/pgserver.py stops its cluster and deletes it
    echo >&"$PG_FEED" || true
    wait "$PG_PID" 2>/dev/null || true
  fi
  wait 2>/dev/null || true
  rm -f "$DIR/cluster.pid"
  echo "stopped"
}
trap stop_all EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Redis: no persistence (nothing in it outlives a restart by design: docs/architecture.md).
REDIS_PORT=$(free_port)
redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --save "" --appendonly no --dir "$DIR" \
  --daemonize no --loglevel warning > "$DIR/redis.log" 2>&1 &
pids+=($!)
REDIS_URL="redis://127.0.0.1:$REDIS_PORT/0"

# PostgreSQL: the one named, or a throw-away one that lives while the cluster does.
if [ -n "${CAPICUA_DATABASE_URL:-}" ]; then
  DATABASE_URL=$CAPICUA_DATABASE_URL
else
  rm -f "$DIR/pg.in"; mkfifo "$DIR/pg.in"
  "$BIN/python" tests/pgserver.py < "$DIR/pg.in" > "$DIR/pg.out" 2>&1 &
  PG_PID=$!
  exec {PG_FEED}> "$DIR/pg.in"
  for _ in $(seq 300); do [ -s "$DIR/pg.out" ] && break; sleep 0.1; done
  DATABASE_URL=$(head -n1 "$DIR/pg.out")
  case "$DATABASE_URL" in postgresql*) ;; *) echo "PostgreSQL did not start: $(cat "$DIR/pg.out")" >&2; exit 1 ;; esac
fi

SERVER_PORTS=($((PORT + 1)) $((PORT + 2)))
for i in 0 1; do
  "$BIN/capicua" serve --port "${SERVER_PORTS[$i]}" --database "$DATABASE_URL" --redis "$REDIS_URL" \
    --node-id "$(hostname):s$((i + 1))" --trusted-proxies 127.0.0.1 ${CAPICUA_BOT_DELAY:+--bot-delay "$CAPICUA_BOT_DELAY"} \
    > "$DIR/s$((i + 1)).log" 2>&1 &
  serve_pids+=($!)
done
if "$BIN/capicua" worker --help > /dev/null 2>&1; then
  "$BIN/capicua" worker --redis "$REDIS_URL" > "$DIR/worker.log" 2>&1 &
  pids+=($!)
fi

"$BIN/python" tests/haproxyserver.py --render --port "$PORT" "${SERVER_PORTS[@]}" > "$DIR/haproxy.cfg"
haproxy -db -f "$DIR/haproxy.cfg" > "$DIR/haproxy.log" 2>&1 &
HAPROXY_PID=$!

URL="http://127.0.0.1:$PORT"
for _ in $(seq 600); do
  ready=0
  for p in "${SERVER_PORTS[@]}"; do
    curl -sf "http://127.0.0.1:$p/readyz" > /dev/null && ready=$((ready + 1))
  done
  if [ "$ready" = 2 ]; then  # and the balancer sends to both (its checks have seen them up)
    seen=$(for _ in 1 2 3 4; do curl -s -H 'connection: close' "$URL/readyz"; echo; done \
      | { grep -o '"node":"[^"]*"' || true; } | sort -u | wc -l)
    [ "$seen" = 2 ] && break
  fi
  for pid in "${serve_pids[@]}"; do
    kill -0 "$pid" 2>/dev/null || { echo "a server stopped; its log is in $DIR" >&2; exit 1; }
  done
  sleep 0.1
done
cat <<INFO
Capicúa cluster: $URL
  servers  http://127.0.0.1:${SERVER_PORTS[0]}  http://127.0.0.1:${SERVER_PORTS[1]}  (/readyz, /metrics)
  redis    $REDIS_URL
  database $DATABASE_URL
  logs     $DIR/*.log
Ctrl-C (or make cluster-stop) stops everything.
INFO
wait "$HAPROXY_PID"
