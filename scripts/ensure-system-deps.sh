#!/usr/bin/env bash
# Installs the Debian packages that the test suite needs (headless Chromium for the
# browser tests) when they are missing. CI runs as root on a fresh machine.
set -eu
need=()
[ -x /usr/bin/chromium ] || need+=(chromium)
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" fonts-dejavu-core >/dev/null
  else
    echo "missing Debian packages: ${need[*]} (run as root or: sudo apt-get install ${need[*]})" >&2
    exit 1
  fi
fi
