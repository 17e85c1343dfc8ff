#!/usr/bin/env python3
"""Load for the SSE prototypes (beast_sse, mhd_sse): N idle event streams from many 127.x source
addresses, then per-stream memory, delivery of broadcasts to all, and /healthz latency, also with
SLOW slowloris connections open (each sends one header line every 2 s and never ends its head).

Usage: sse_load.py PORT SERVER_PID N [SLOW]        prints one JSON object
"""
import asyncio
import json
import statistics
import sys
import time

PER_SOURCE = 200  # streams per 127.x.y.z source address


def source(i):
    return "127.%d.%d.%d" % (1 + i // (PER_SOURCE * 250), (i // PER_SOURCE) % 250, 1 + i % PER_SOURCE)


def rss_kib(pid):
    with open("/proc/%d/status" % pid) as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))


class Stream(asyncio.Protocol):
    """One event stream; `arrivals` has the arrival time of each event after the first."""
    REQUEST = b"GET /events HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream\r\n\r\n"

    def __init__(self):
        self.events = 0
        self.hello = asyncio.get_running_loop().create_future()
        self.arrivals = []

    def connection_made(self, transport):
        transport.write(self.REQUEST)

    def data_received(self, data):
        n = data.count(b"event: ")
        if n and not self.hello.done():
            self.hello.set_result(True)
            n -= 1
        for _ in range(n):
            self.arrivals.append(time.monotonic())

    def connection_lost(self, exc):
        if not self.hello.done():
            self.hello.set_result(False)


async def get(path, src="127.0.0.1"):
    reader, writer = await asyncio.open_connection("127.0.0.1", PORT, local_addr=(src, 0))
    t = time.monotonic()
    writer.write(b"GET %s HTTP/1.1\r\nHost: localhost\r\n\r\n" % path.encode())
    await writer.drain()
    status = await asyncio.wait_for(reader.readline(), 30)
    dt = time.monotonic() - t
    writer.close()
    return status, dt


async def healthz_latency(count=200):
    lat = []
    for _ in range(count):
        _, dt = await get("/healthz")
        lat.append(dt * 1000)
    lat.sort()
    return {"p50_ms": round(lat[len(lat) // 2], 2), "p99_ms": round(lat[int(len(lat) * 0.99)], 2)}


async def slowloris(i, stop):
    """One connection that sends a header line every 2 s until `stop`; says whether the server
    closed it by then (a head deadline) or still holds it open."""
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", PORT, local_addr=(source(N + i), 0))
        writer.write(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\n")
        while not stop.is_set():
            await asyncio.sleep(2)
            writer.write(b"X-Slow: 1\r\n")
            await writer.drain()
        data = await asyncio.wait_for(reader.read(1), 0.5)
        writer.close()
        return "closed" if data == b"" else "answered"
    except asyncio.TimeoutError:  # before OSError: TimeoutError is one
        writer.close()
        return "open"
    except (ConnectionError, OSError):
        return "closed"


async def main():
    loop = asyncio.get_running_loop()
    out = {"clients": N}
    out["healthz_idle"] = await healthz_latency()
    base = rss_kib(PID)
    streams = []
    t0 = time.monotonic()
    for i in range(N):
        _, p = await loop.create_connection(Stream, "127.0.0.1", PORT, local_addr=(source(i), 0))
        streams.append(p)
    ok = await asyncio.gather(*(s.hello for s in streams))
    out["connected"] = sum(ok)
    out["connect_all_s"] = round(time.monotonic() - t0, 2)
    await asyncio.sleep(2)
    rss = rss_kib(PID)
    out.update(rss_idle_mib=round(base / 1024, 1), rss_with_streams_mib=round(rss / 1024, 1),
               kib_per_stream=round((rss - base) / max(1, sum(ok)), 2))
    deliveries = []
    for k in range(3):
        t = time.monotonic()
        await get("/publish")
        while any(len(s.arrivals) <= k for s in streams if s.hello.result()) and time.monotonic() - t < 10:
            await asyncio.sleep(0.005)
        lat = [s.arrivals[k] - t for s in streams if len(s.arrivals) > k]
        deliveries.append({"received": len(lat), "max_s": round(max(lat), 3), "median_s": round(statistics.median(lat), 3)})
        await asyncio.sleep(0.5)
    out["deliveries"] = deliveries
    out["healthz_with_streams"] = await healthz_latency()
    if SLOW:
        stop = asyncio.Event()
        tasks = [asyncio.create_task(slowloris(i, stop)) for i in range(SLOW)]
        await asyncio.sleep(12)  # past a 10 s head deadline
        out["healthz_with_slowloris"] = await healthz_latency()
        out["rss_with_slowloris_mib"] = round(rss_kib(PID) / 1024, 1)
        stop.set()
        results = await asyncio.gather(*tasks)
        out["slowloris"] = {r: results.count(r) for r in sorted(set(results))}
    print(json.dumps(out), flush=True)


if __name__ == "__main__":
    PORT, PID, N = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
    SLOW = int(sys.argv[4]) if len(sys.argv) > 4 else 0
    asyncio.run(main())
