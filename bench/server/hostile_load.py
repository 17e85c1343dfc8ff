#!/usr/bin/env python3
"""Issue 17's acceptance load against the real draforge-server (bench/server/hostile.sh runs it):

  1. /healthz latency, idle;
  2. N concurrent event streams from many 127.x source addresses: how many are accepted, server
     memory per stream ((RSS with them - RSS before) / N), and for each of 3 changes (a claim
     written into the server's --watch-dir) the time until every stream has its `change` event;
  3. /healthz latency and REST p99 under wrk (-c WRK_CONNECTIONS) with the streams open;
  4. SLOW slowloris connections on top (each sends one header line every 2 s and never ends its
     head; one the server closes at its head deadline is opened again, so SLOW stay open):
     /healthz latency and REST p99 under wrk again, beside the figures without them.

Usage: hostile_load.py PORT SERVER_PID WATCH_DIR N SLOW WRK_SECONDS WRK_CONNECTIONS
Prints one JSON object. (hostile_load.py --probe PORT COUNT: the /healthz prober it starts.)
"""
import asyncio
import json
import os
import re
import socket
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "proto"))
import sse_load  # noqa: E402  (the prototypes' load: the same source addresses and stream client)
from sse_load import rss_kib, source  # noqa: E402

if sys.argv[1] != "--probe":
    PORT, PID, WATCH = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    N, SLOW, WRK_SECONDS, WRK_CONNECTIONS = (int(a) for a in sys.argv[4:8])


class Stream(sse_load.Stream):
    """A client of the server's event stream; `arrivals` are its `change` events (the server sends
    no other event after `hello` here: heartbeats are comments)."""
    REQUEST = b"GET /api/v1/events HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream\r\n\r\n"

    def __init__(self):
        super().__init__()
        self.lost = False

    def connection_lost(self, exc):
        self.lost = True
        super().connection_lost(exc)


async def get(path):
    reader, writer = await asyncio.open_connection("127.0.0.1", PORT)
    t = time.monotonic()
    writer.write(b"GET %s HTTP/1.1\r\nHost: localhost\r\n\r\n" % path.encode())
    await writer.drain()
    status = await asyncio.wait_for(reader.readline(), 30)
    dt = time.monotonic() - t
    writer.close()
    return status, dt


def probe(port, count):
    """`count` /healthz requests one after the other, each on a new connection, blocking: run in a
    process of its own, so that the load generator's event loop does not delay the probes."""
    lat, bad = [], 0
    for _ in range(count):
        t = time.monotonic()
        with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
            s.sendall(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
            status = s.recv(64)
        lat.append((time.monotonic() - t) * 1000)
        bad += b" 200 " not in status
        time.sleep(0.01)
    lat.sort()
    return {"p50_ms": round(lat[len(lat) // 2], 2), "p99_ms": round(lat[int(len(lat) * 0.99)], 2),
            "max_ms": round(lat[-1], 2), "non_200": bad}


async def healthz_latency(count=300):
    proc = await asyncio.create_subprocess_exec(sys.executable, __file__, "--probe", str(PORT), str(count),
                                                stdout=asyncio.subprocess.PIPE)
    return json.loads((await proc.communicate())[0])


async def wrk(path):
    proc = await asyncio.create_subprocess_exec(
        "wrk", "-t2", "-c%d" % WRK_CONNECTIONS, "-d%ds" % WRK_SECONDS, "--latency",
        "http://127.0.0.1:%d%s" % (PORT, path), stdout=asyncio.subprocess.PIPE)
    out = (await proc.communicate())[0].decode()
    figures = {"path": path}
    for key, pattern in (("req_per_s", r"Requests/sec:\s+(\S+)"), ("p50", r"\n\s+50%\s+(\S+)"),
                         ("p99", r"\n\s+99%\s+(\S+)"), ("non_2xx", r"Non-2xx or 3xx responses: (\d+)"),
                         ("socket_errors", r"Socket errors: (.*)")):
        m = re.search(pattern, out)
        figures[key] = m.group(1) if m else None
    return figures


async def slowloris(i, stop, counts):
    """Keeps one slow head open until `stop`: a header line every 2 s; reopened when closed."""
    while not stop.is_set():
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", PORT, local_addr=(source(N + i), 0))
            writer.write(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\n")
            counts["opened"] += 1
            while not stop.is_set():
                try:
                    data = await asyncio.wait_for(reader.read(1), 2)
                except asyncio.TimeoutError:
                    writer.write(b"X-Slow: 1\r\n")
                    await writer.drain()
                    continue
                counts["closed_by_server"] += 1
                counts["answered"] += bool(data)
                break
            writer.close()
        except (ConnectionError, OSError):
            counts["closed_by_server"] += 1
            await asyncio.sleep(0.1)


async def main():
    loop = asyncio.get_running_loop()
    out = {"streams": N, "slowloris": SLOW}
    out["healthz_idle"] = await healthz_latency()
    # Before any other load: what the allocator keeps after wrk's 1,000 connections would hide the
    # streams' cost.
    base = rss_kib(PID)
    streams = []
    t0 = time.monotonic()
    for i in range(N):
        _, p = await loop.create_connection(Stream, "127.0.0.1", PORT, local_addr=(source(i), 0))
        streams.append(p)
    ok = await asyncio.gather(*(s.hello for s in streams))
    live = [s for s, good in zip(streams, ok) if good]
    out["accepted"] = len(live)
    out["connect_all_s"] = round(time.monotonic() - t0, 2)
    await asyncio.sleep(2)
    rss = rss_kib(PID)
    out.update(rss_idle_mib=round(base / 1024, 1), rss_with_streams_mib=round(rss / 1024, 1),
               kib_per_stream=round((rss - base) / max(1, len(live)), 2))
    deliveries = []
    for k in range(3):
        t = time.monotonic()
        with open(os.path.join(WATCH, "bench-%d.yaml" % k), "w") as f:
            f.write("apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: bench-%d, namespace: "
                    "default}\nspec: {devices: {requests: [{name: r, exactly: {deviceClassName: x}}]}}\n" % k)
        while any(len(s.arrivals) <= k for s in live) and time.monotonic() - t < 10:
            await asyncio.sleep(0.005)
        lat = [s.arrivals[k] - t for s in live if len(s.arrivals) > k]
        deliveries.append({"received": len(lat), "max_s": round(max(lat), 3) if lat else None,
                           "median_s": round(statistics.median(lat), 3) if lat else None})
        await asyncio.sleep(0.5)
    out["deliveries"] = deliveries
    out["healthz_with_streams"] = await healthz_latency()
    out["rest_with_streams"] = await wrk("/api/v1/summary")
    if SLOW:
        stop = asyncio.Event()
        counts = {"opened": 0, "closed_by_server": 0, "answered": 0}
        tasks = [asyncio.create_task(slowloris(i, stop, counts)) for i in range(SLOW)]
        await asyncio.sleep(5)
        out["healthz_with_slowloris"] = await healthz_latency()
        out["rest_with_slowloris"] = await wrk("/api/v1/summary")
        out["rss_with_slowloris_mib"] = round(rss_kib(PID) / 1024, 1)
        stop.set()
        await asyncio.gather(*tasks)
        out["slowloris_counts"] = counts
    out["streams_still_open"] = sum(1 for s in live if not s.lost)
    print(json.dumps(out), flush=True)


if sys.argv[1] == "--probe":
    print(json.dumps(probe(int(sys.argv[2]), int(sys.argv[3]))))
else:
    asyncio.run(main())
