#!/usr/bin/env python3
"""draforge-server against the hostile clients of issue 17, rows 1 and 2, on the real binary.

Row 1: 4,000 header lines of 8 KB on one connection were 32 MB accepted, and three such
connections took the server from 68 MB to 1.9 GB. Now the head stops at 8 KiB with 431, the
connection is closed, and the server's memory does not follow the flood.
Row 2: 3,000 connections that each send one header line every 2 s held every thread, and every
/healthz probe failed. Now probes are answered meanwhile, and each trickling connection is closed
once its head deadline (10 s) passes, whatever it keeps sending.
(Rows 3-5, Host, static files and browser headers, are in server_api_test.py.) Also the cap on
connections per client address, which spares loopback unless --limit-loopback.

Usage: hostile_clients_test.py PATH/TO/draforge-server   (prints TAP)
"""
import os
import socket
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from server_api_test import Server, run_tap  # noqa: E402  (the API suite's launcher and TAP runner)

TESTS = []


def test(fn):
    TESTS.append(fn)
    return fn


def rss_bytes(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS for %d" % pid)


def flood(srv, lines=4000, line_bytes=8000):
    """Sends a request line and up to `lines` header lines of `line_bytes` until the server stops
    taking them; returns (bytes the server took, what it answered)."""
    s = socket.create_connection((srv.host, srv.port), timeout=30)
    line = b"X-Big: " + b"a" * line_bytes + b"\r\n"
    sent = 0
    try:
        s.sendall(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\n")
        for _ in range(lines):
            s.sendall(line)
            sent += len(line)
    except OSError:
        pass  # the server closed: what it answered is still in our receive buffer
    answer = b""
    try:
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            answer += chunk
    except OSError:
        pass
    s.close()
    return sent, answer


@test
def a_header_flood_gets_431_and_memory_stays_bounded():
    srv = Server("--demo", "--rate-limit", "0")
    try:
        srv.wait_ready()
        assert srv.request("GET", "/healthz")[0] == 200
        before = rss_bytes(srv.proc.pid)
        results = [None] * 3
        threads = [threading.Thread(target=lambda i=i: results.__setitem__(i, flood(srv))) for i in range(3)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        grown = rss_bytes(srv.proc.pid) - before
        for sent, answer in results:
            assert answer.startswith(b"HTTP/1.1 431 "), answer[:200]
            assert b'"code":431' in answer, answer[:400]
            # The flood is 32 MB; the server stops taking it after its head limit and at most 1 MiB
            # read and dropped while it closes (plus what the sockets' buffers hold).
            assert sent < 4000 * 8009, "the server took the whole flood (%d bytes)" % sent
        # 1.9 GB before; the bound leaves room for allocator noise, not for the flood (3 x 32 MB).
        assert grown < 16 * 1024 * 1024, "RSS grew by %d bytes" % grown
        status, _, _ = srv.request("GET", "/healthz")
        assert status == 200, status
    finally:
        srv.stop()


@test
def healthz_answers_while_3000_connections_trickle_their_heads():
    srv = Server("--demo", "--rate-limit", "0")
    slow = []
    try:
        srv.wait_ready()
        for _ in range(3000):
            s = socket.create_connection((srv.host, srv.port), timeout=30)
            s.sendall(b"GET /api/v1/summary HTTP/1.1\r\nHost: localhost\r\n")
            slow.append(s)
        opened = time.time()
        probes = []
        # One header line on every slow connection every 2 s, and probes in between, for as long as
        # a well-behaved server keeps them open (the head deadline is 10 s).
        while time.time() - opened < 12:
            for s in slow:
                try:
                    s.sendall(b"X-Slow: 1\r\n")
                except OSError:
                    pass  # closed at its deadline
            round_end = time.time() + 2
            while time.time() < round_end:
                # The client's timeout bounds a hang; it is not a measurement.
                probes.append(srv.request("GET", "/healthz")[0])
                time.sleep(0.2)
        assert probes and all(p == 200 for p in probes), probes
        # Every trickling connection was closed at its deadline without an answer: nothing for a
        # head that never completed.
        for s in slow:
            s.settimeout(30)
            try:
                data = s.recv(4096)
            except OSError:
                data = b""
            assert data == b"", data[:200]
    finally:
        for s in slow:
            s.close()
        srv.stop()


def connect_from(srv, source):
    return socket.create_connection((srv.host, srv.port), timeout=30, source_address=(source, 0))


@test
def connections_per_source_are_capped_and_loopback_is_spared_by_default():
    srv = Server("--demo", "--rate-limit", "0", "--max-per-source", "2")
    try:
        # Loopback is not counted by default: a port-forward brings every client from 127.0.0.1.
        held = [connect_from(srv, "127.0.0.2") for _ in range(5)]
        assert srv.request("GET", "/healthz")[0] == 200
        for s in held:
            s.close()
    finally:
        srv.stop()
    srv = Server("--demo", "--rate-limit", "0", "--max-per-source", "2", "--limit-loopback")
    try:
        held = [connect_from(srv, "127.0.0.2") for _ in range(2)]
        # The third from the same address is closed at accept, without an answer.
        third = connect_from(srv, "127.0.0.2")
        third.sendall(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n")
        try:
            data = third.recv(4096)
        except ConnectionResetError:
            data = b""
        assert data == b"", data[:200]
        third.close()
        # Another address is not affected, and a slot frees when a connection closes.
        other = connect_from(srv, "127.0.0.3")
        other.sendall(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
        assert other.recv(4096).startswith(b"HTTP/1.1 200 ")
        other.close()
        held.pop().close()
        answer = b""
        for _ in range(100):  # the server notices the close on its loop; a bound on a hang
            again = connect_from(srv, "127.0.0.2")
            again.sendall(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
            try:
                answer = again.recv(4096)
            except ConnectionResetError:
                answer = b""
            again.close()
            if answer:
                break
            time.sleep(0.1)
        assert answer.startswith(b"HTTP/1.1 200 "), answer[:200]
        for s in held:
            s.close()
    finally:
        srv.stop()


if __name__ == "__main__":
    sys.exit(1 if run_tap(TESTS) else 0)
