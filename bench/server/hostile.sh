#!/bin/sh
# Issue 17's acceptance, measured on the real draforge-server in one run (docs/performance.md has
# the figures): N concurrent event streams from many 127.x addresses (memory per stream, delivery
# of each change to all), /healthz latency and REST p99 under wrk with 1,000 connections, without
# and with SLOW slowloris connections open. Not part of the test suites: it takes minutes and
# measures time.
#
# Usage: bench/server/hostile.sh BUILD_DIR [N] [SLOW] [WRK_SECONDS]     default 10000 5000 10
# Needs wrk (Debian package wrk) and python3; about 2 x (N + SLOW) + 2,000 file descriptors.
set -eu
BUILD=${1:?usage: hostile.sh BUILD_DIR [N] [SLOW] [WRK_SECONDS]}
N=${2:-10000}
SLOW=${3:-5000}
SECS=${4:-10}
HERE=$(cd "$(dirname "$0")" && pwd)
SERVER="$BUILD/examples/server/draforge-server"
WATCH=$(mktemp -d)
OUT=$(mktemp)
trap 'kill $PID 2>/dev/null || true; rm -rf "$WATCH" "$OUT"' EXIT
ulimit -n "$(ulimit -Hn)"
"$SERVER" --demo --port 0 --static-dir "" --rate-limit 0 --max-streams $((N + 100)) --watch-dir "$WATCH" >"$OUT" 2>&1 &
PID=$!
while ! grep -q listening "$OUT"; do sleep 0.1; done
URL=$(sed -n 's/.*listening on \(http:[^ ]*\).*/\1/p' "$OUT")
until curl -sf "$URL/readyz" >/dev/null; do sleep 0.1; done
echo "draforge-server $URL pid $PID, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), open files $(ulimit -n)"
python3 "$HERE/hostile_load.py" "${URL##*:}" "$PID" "$WATCH" "$N" "$SLOW" "$SECS" 1000
