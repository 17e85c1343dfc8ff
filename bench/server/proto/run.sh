#!/bin/sh
# The measurement behind docs/adr/0001-server-http-layer.md: the same SSE prototype on
# Boost.Beast/Asio (beast_sse.cc) and on libmicrohttpd (mhd_sse.cc), side by side in one run, each
# with N idle streams for every N given (from many 127.x source addresses) and SLOW slowloris
# connections: memory per stream, delivery of a change to all streams, /healthz latency; first,
# /healthz under wrk with 1,000 connections (wrk: Debian package wrk).
#
# Usage: bench/server/proto/run.sh [SLOW] [N...]      default: 5000 2000 5000 10000
# SERVERS="beast_sse mhd_sse layer_sse" picks which run (layer_sse: the same server on
# examples/common/http's HttpListener, compiled from the tree).
# Needs Debian's libboost1.74-dev and libmicrohttpd-dev (headers; not build dependencies of
# DRAForge), g++ and python3. Prints one JSON line per server and N.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
SLOW=${1:-5000}
[ $# -gt 0 ] && shift
SIZES=${*:-2000 5000 10000}
for h in /usr/include/boost/beast.hpp /usr/include/microhttpd.h; do
  [ -f "$h" ] || { echo "missing $h: apt-get install libboost1.74-dev libmicrohttpd-dev" >&2; exit 2; }
done
OUT=$(mktemp -d)
trap 'kill $PID 2>/dev/null || true; rm -rf "$OUT"' EXIT
PID=
g++ -std=c++17 -O2 -o "$OUT/beast_sse" "$HERE/beast_sse.cc" -lpthread
g++ -std=c++17 -O2 -o "$OUT/mhd_sse" "$HERE/mhd_sse.cc" -lmicrohttpd
ROOT=$(cd "$HERE/../../.." && pwd)
# The layer includes draforge/draforge.hpp; draforge/version.h is generated, so a configured build
# tree is needed (BUILD, default ROOT/build).
g++ -std=c++20 -O2 -o "$OUT/layer_sse" -I"$ROOT/include" -I"${BUILD:-$ROOT/build}/include" -I"$ROOT/examples/common/http" \
  "$HERE/layer_sse.cc" "$ROOT/examples/common/http/http_listener.cc" -lpthread
# Streams, slowloris connections and the client's own sockets all need descriptors.
ulimit -n 20000
echo "$(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $(g++ --version | head -1)"
PORT=18600
for n in $SIZES; do
  for server in ${SERVERS:-beast_sse mhd_sse layer_sse}; do
    PORT=$((PORT + 1))
    "$OUT/$server" $PORT 2 >"$OUT/$server.log" 2>&1 &
    PID=$!
    while ! grep -qs listening "$OUT/$server.log"; do sleep 0.1; done
    printf '%s wrk -t2 -c1000 -d5s /healthz: ' "$server"
    wrk -t2 -c1000 -d5s --latency "http://127.0.0.1:$PORT/healthz" | awk '
      /Requests\/sec/ {rps=$2} /^ +50%/ {p50=$2} /^ +99%/ {p99=$2} /Non-2xx|errors/ {bad=bad " " $0}
      END {printf "req/s %s p50 %s p99 %s%s\n", rps, p50, p99, bad}'
    printf '%s ' "$server"
    python3 "$HERE/sse_load.py" $PORT $PID "$n" "$SLOW"
    kill $PID
    wait $PID 2>/dev/null || true
  done
done
