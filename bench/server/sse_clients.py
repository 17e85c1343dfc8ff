#!/usr/bin/env python3
"""Opens N concurrent Server-Sent Events clients against draforge-server and measures:
  - whether all N streams are accepted (hello event received),
  - the server's resident memory before and with the N clients (per-client cost),
  - for each of K changes (a file written into the server's --watch-dir), the time until every
    client has received the `change` event (max and median over clients).

Usage: sse_clients.py HOST PORT SERVER_PID WATCH_DIR N [K] [HOLD_SECONDS]
Prints one JSON object, then keeps the clients connected HOLD_SECONDS (default 0) so that other
load can run beside them.
"""
import asyncio
import json
import os
import statistics
import sys
import time

HOST, PORT, PID, WATCH, N = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], int(sys.argv[5])
K = int(sys.argv[6]) if len(sys.argv) > 6 else 3
HOLD = float(sys.argv[7]) if len(sys.argv) > 7 else 0


def rss_kib(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def threads(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("Threads:"):
                return int(line.split()[1])
    return 0


class Client:
    def __init__(self):
        self.hello = asyncio.Event()
        self.changes = {}  # event id -> arrival time
        self.error = None

    async def run(self):
        try:
            reader, writer = await asyncio.open_connection(HOST, PORT, limit=1 << 20)
            writer.write(b"GET /api/v1/events HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream\r\n\r\n")
            await writer.drain()
            status = await reader.readline()
            if b" 200 " not in status:
                self.error = status.decode().strip()
                self.hello.set()
                return
            while (await reader.readline()) not in (b"\r\n", b""):
                pass
            event, ident = None, None
            while True:
                line = await reader.readline()
                if not line:
                    return
                line = line.strip()
                if line.startswith(b"event: "):
                    event = line[7:].decode()
                elif line.startswith(b"id: "):
                    ident = line[4:].decode()
                elif line.startswith(b"data: "):
                    if event == "hello":
                        self.hello.set()
                    elif event == "change":
                        self.changes[ident] = time.monotonic()
        except Exception as e:  # noqa: BLE001 - reported in the summary
            self.error = repr(e)
            self.hello.set()


async def main():
    base_rss, base_threads = rss_kib(PID), threads(PID)
    clients = [Client() for _ in range(N)]
    tasks = []
    t0 = time.monotonic()
    for i, c in enumerate(clients):
        tasks.append(asyncio.create_task(c.run()))
        if i % 100 == 99:
            await asyncio.sleep(0.05)  # the listen backlog is small; pace the connects
    await asyncio.wait_for(asyncio.gather(*(c.hello.wait() for c in clients)), timeout=120)
    connect_s = time.monotonic() - t0
    ok = [c for c in clients if c.error is None]
    await asyncio.sleep(1)
    rss, nthreads = rss_kib(PID), threads(PID)
    deliveries = []
    for k in range(K):
        before = {id(c): set(c.changes) for c in ok}
        t = time.monotonic()
        with open(os.path.join(WATCH, "bench-%d.yaml" % k), "w") as f:
            f.write("apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: bench-%d, namespace: "
                    "default}\nspec: {devices: {requests: [{name: r, exactly: {deviceClassName: x}}]}}\n" % k)
        deadline = t + 10
        while time.monotonic() < deadline:
            if all(len(c.changes) > len(before[id(c)]) for c in ok):
                break
            await asyncio.sleep(0.01)
        lat = []
        for c in ok:
            new = [v for key, v in c.changes.items() if key not in before[id(c)]]
            if new:
                lat.append(min(new) - t)
        deliveries.append({"received": len(lat), "max_s": round(max(lat), 3) if lat else None,
                           "median_s": round(statistics.median(lat), 3) if lat else None})
        await asyncio.sleep(0.5)
    for k in range(K):
        os.remove(os.path.join(WATCH, "bench-%d.yaml" % k))
    print(json.dumps({
        "clients": N, "accepted": len(ok), "errors": sorted({c.error for c in clients if c.error})[:3],
        "connect_all_s": round(connect_s, 2),
        "rss_base_mib": round(base_rss / 1024, 1), "rss_with_clients_mib": round(rss / 1024, 1),
        "rss_per_client_kib": round((rss - base_rss) / max(1, len(ok)), 1),
        "threads_base": base_threads, "threads_with_clients": nthreads,
        "deliveries": deliveries}), flush=True)
    await asyncio.sleep(HOLD)
    still = sum(1 for t in tasks if not t.done())
    print(json.dumps({"still_connected_after_hold": still}), flush=True)
    for t in tasks:
        t.cancel()


asyncio.run(main())
