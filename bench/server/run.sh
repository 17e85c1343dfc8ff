#!/bin/sh
# draforge-server benchmark: REST latency under load (wrk) with and without many open SSE streams,
# and the number of concurrent SSE clients one server holds, with memory per client and delivery
# time of a change to all of them. Run side by side in one go on the same machine.
#
# Usage: bench/server/run.sh BUILD_DIR [SSE_CLIENTS] [WRK_SECONDS]
# SCENARIO=FILE serves that file instead of the demo (bench/server/gen_scenario.py writes big ones).
# Needs wrk (Debian package wrk) and python3. Results go to stdout; docs/server.md records them.
set -eu
BUILD=${1:?usage: run.sh BUILD_DIR [SSE_CLIENTS] [WRK_SECONDS]}
N=${2:-2000}
SECS=${3:-10}
HERE=$(cd "$(dirname "$0")" && pwd)
SERVER="$BUILD/examples/server/draforge-server"
WATCH=$(mktemp -d)
OUT=$(mktemp)
trap 'kill $PID 2>/dev/null || true; rm -rf "$WATCH" "$OUT"' EXIT

SOURCE="--demo"
[ -n "${SCENARIO:-}" ] && SOURCE="--scenario $SCENARIO"
# shellcheck disable=SC2086
"$SERVER" $SOURCE --port 0 --static-dir "" --rate-limit 0 --max-streams $((N + 100)) --watch-dir "$WATCH" >"$OUT" 2>&1 &
PID=$!
while ! grep -q listening "$OUT"; do sleep 0.1; done
URL=$(sed -n 's/.*listening on \(http:[^ ]*\).*/\1/p' "$OUT")
PORT=${URL##*:}
until curl -sf "$URL/readyz" >/dev/null; do sleep 0.1; done
echo "server $URL pid $PID, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), source: $SOURCE"
curl -s "$URL/api/v1/summary" | python3 -c 'import json,sys; c=json.load(sys.stdin)["counts"]; print("devices %d, claims %d, slices %d" % (c["devices"], c["claims"], c["resourceSlices"]))'
echo "== first (uncached) answer per endpoint"
for path in /api/v1/summary /api/v1/pools "/api/v1/devices?limit=10000" /api/v1/claims /api/v1/graph /api/v1/diagnostics; do
  printf '%-28s ' "$path"
  curl -s -o /dev/null -w "%{time_total} s  %{size_download} bytes\n" "$URL$path"
done

rest() {
  for path in /healthz /api/v1/summary /api/v1/devices /api/v1/claims /api/v1/graph /api/v1/diagnostics; do
    printf '%-22s ' "$path"
    wrk -t2 -c32 -d"${SECS}s" --latency "$URL$path" | awk '
      /Requests\/sec/ {rps=$2}
      /^ +50%/ {p50=$2} /^ +90%/ {p90=$2} /^ +99%/ {p99=$2}
      /Non-2xx/ {bad=$NF}
      END {printf "req/s %8s  p50 %8s  p90 %8s  p99 %8s  non-2xx %s\n", rps, p50, p90, p99, (bad==""?0:bad)}'
  done
}

echo "== REST latency, wrk -t2 -c32 -d${SECS}s, no SSE clients"
rest
echo "== SSE: $N concurrent clients (then REST again while they stay connected)"
python3 "$HERE/sse_clients.py" 127.0.0.1 "$PORT" "$PID" "$WATCH" "$N" 3 $((SECS * 6 + N / 100 + 40)) &
SSE=$!
# Wait for the clients to be connected and the deliveries measured.
sleep $((N / 100 + 15))
echo "== REST latency with $N SSE clients connected"
rest
wait $SSE
