#!/usr/bin/env bash
# Installs the Debian packages that the test suite needs when they are missing:
# headless Chromium for the browser tests, PostgreSQL (initdb, pg_ctl) for the store
# tests, which start a throw-away cluster of their own (tests/pgserver.py); redis-server
# and HAProxy for the cluster tests, which start their own on free ports
# (tests/redisserver.py, tests/haproxyserver.py).
# CI runs as root on a fresh machine.
set -eu
need=()
[ -x /usr/bin/chromium ] || need+=(chromium)
compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null || command -v initdb >/dev/null || need+=(postgresql)
command -v redis-server >/dev/null || need+=(redis-server)
command -v haproxy >/dev/null || [ -x /usr/sbin/haproxy ] || need+=(haproxy)
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" fonts-dejavu-core >/dev/null
  else
    echo "missing Debian packages: ${need[*]} (run as root or: sudo apt-get install ${need[*]})" >&2
    exit 1
  fi
fi
