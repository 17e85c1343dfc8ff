#!/usr/bin/env python3
"""draforge-server end to end, against the embedded demo scenario.

Starts the server on free loopback ports and checks every endpoint against examples/server/openapi.json
(each response validated against the documented schema for its status code, query parameters fuzzed
with a fixed seed), Server-Sent Events delivery of a change, Last-Event-ID resume, 405 on mutations,
/readyz before and after sync, limits, static files and the absence of CORS headers.

Usage: server_api_test.py PATH/TO/draforge-server PATH/TO/draforge   (prints TAP: 1..N, ok/not ok lines)
"""
import copy
import email.utils
import gzip
import http.client
import json
import os
import random
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import traceback

import jsonschema

SERVER = sys.argv[1]
# The /api/v1/packages figures are checked against `draforge package capacity` (other suites that
# import this module pass no CLI and run none of those tests).
CLI = sys.argv[2] if len(sys.argv) > 2 else None
ROOT = os.environ.get("DRAFORGE_SOURCE_ROOT", os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tests", "common"))
from project_version import project_version  # noqa: E402
OPENAPI_PATH = os.path.join(ROOT, "examples", "server", "openapi.json")
with open(OPENAPI_PATH, encoding="utf-8") as f:
    OPENAPI = json.load(f)

TESTS = []


def test(fn):
    TESTS.append(fn)
    return fn


# --- the server under test ----------------------------------------------------------------------

class Server:
    def __init__(self, *args, env=None):
        # stderr goes to a file: a pipe nobody reads would block the server once full.
        self.log = tempfile.TemporaryFile(mode="w+")
        if "--max-streams" not in args:
            args = ("--max-streams", "100") + tuple(args)  # a smaller thread pool: tests run side by side
        self.proc = subprocess.Popen([SERVER, "--port", "0", "--static-dir", "", *args], stdout=subprocess.PIPE,
                                     stderr=self.log, text=True)
        line = self.proc.stdout.readline()
        m = re.match(r"draforge-server listening on http://([0-9.]+):(\d+)", line)
        if not m:
            self.proc.kill()
            self.proc.wait()
            self.log.seek(0)
            raise RuntimeError("server did not start: %r %s" % (line, self.log.read()))
        self.host, self.port = m.group(1), int(m.group(2))

    # A bound on a hang, not a measurement: a loaded 2-core CI machine can take seconds to load a scenario.
    def wait_ready(self, timeout=60):
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.request("GET", "/readyz")[0] == 200:
                return
            time.sleep(0.05)
        raise AssertionError("not ready after %ss" % timeout)

    def request(self, method, path, body=None, headers=None):
        c = http.client.HTTPConnection(self.host, self.port, timeout=30)
        try:
            c.request(method, path, body=body, headers=headers or {})
            r = c.getresponse()
            data = r.read()
            return r.status, dict((k.lower(), v) for k, v in r.getheaders()), data
        finally:
            c.close()

    def stderr_text(self):
        """What the server wrote to stderr so far. pread: the server shares the file's offset, and
        moving it would make the server overwrite its own log."""
        fd = self.log.fileno()
        return os.pread(fd, os.fstat(fd).st_size, 0).decode("utf-8", "replace")

    def get_json(self, path):
        status, headers, data = self.request("GET", path)
        assert status == 200, (path, status, data[:300])
        return json.loads(data)

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.log.close()


class EventStream:
    """A minimal SSE client over a raw socket (what EventSource does)."""

    def __init__(self, server, last_event_id=None, query=""):
        self.sock = socket.create_connection((server.host, server.port), timeout=10)
        headers = "GET /api/v1/events%s HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream\r\n" % query
        if last_event_id is not None:
            headers += "Last-Event-ID: %s\r\n" % last_event_id
        self.sock.sendall((headers + "\r\n").encode())
        self.buf = b""
        head = self._read_until(b"\r\n\r\n")
        self.status = int(head.split(b" ")[1])
        self.headers = head.decode("latin-1").lower()
        self.text = ""  # de-chunked stream text not yet parsed

    def _read_until(self, sep, timeout=10):
        deadline = time.time() + timeout
        while sep not in self.buf:
            self.sock.settimeout(max(0.01, deadline - time.time()))
            chunk = self.sock.recv(65536)
            if not chunk:
                raise EOFError("stream closed")
            self.buf += chunk
        out, self.buf = self.buf.split(sep, 1)
        return out

    def _next_chunk(self, timeout):
        size = int(self._read_until(b"\r\n", timeout), 16)
        if size == 0:
            raise EOFError("stream ended")
        while len(self.buf) < size + 2:
            self.sock.settimeout(timeout)
            chunk = self.sock.recv(65536)
            if not chunk:
                raise EOFError("stream closed")
            self.buf += chunk
        data, self.buf = self.buf[:size], self.buf[size + 2:]
        self.text += data.decode()

    def next_block(self, timeout=10):
        """The next SSE block (event or comment) as a dict: id, event, data, comment."""
        deadline = time.time() + timeout
        while "\n\n" not in self.text:
            self._next_chunk(max(0.01, deadline - time.time()))
        block, self.text = self.text.split("\n\n", 1)
        out = {}
        for line in block.split("\n"):
            if line.startswith(":"):
                out["comment"] = line[1:].strip()
            elif ":" in line:
                k, v = line.split(":", 1)
                out[k] = v[1:] if v.startswith(" ") else v
        return out

    def next_event(self, timeout=10):
        deadline = time.time() + timeout
        while True:
            b = self.next_block(max(0.01, deadline - time.time()))
            if "event" in b:
                return b

    def close(self):
        self.sock.close()


def wait_change(stream, change, timeout=30):
    """Reads `stream` until a change event lists `change`; returns every event read, that one last.
    Every event on the way must be a schema-valid change event whose id is its generation: other
    changes may legitimately come first (the server's poller, the watch of a cluster), so waiting
    for the first event only would fail on timing, not on behaviour. Fails after `timeout` s."""
    deadline = time.time() + timeout
    events = []
    while True:
        ev = stream.next_event(timeout=max(0.1, deadline - time.time()))
        assert ev["event"] == "change", (ev, events)
        data = json.loads(ev["data"])
        validate({"$ref": "#/components/schemas/ChangeEvent"}, data)
        assert int(ev["id"]) == data["generation"], ev
        events.append(ev)
        if change in data["changes"]:
            return events


def wait_until(what, fn, timeout=30):
    """Polls fn() until it returns a truthy value, which it returns; fails naming `what` after
    `timeout` s (a bound on a hang on a loaded machine, not a measurement)."""
    deadline = time.time() + timeout
    while True:
        v = fn()
        if v:
            return v
        if time.time() > deadline:
            raise AssertionError("%s: not within %ss" % (what, timeout))
        time.sleep(0.05)


# --- schema checking ----------------------------------------------------------------------------

def _nullable_to_jsonschema(node):
    if isinstance(node, dict):
        node = {k: _nullable_to_jsonschema(v) for k, v in node.items()}
        if node.pop("nullable", False) and "type" in node:
            node["type"] = [node["type"], "null"]
        return node
    if isinstance(node, list):
        return [_nullable_to_jsonschema(v) for v in node]
    return node


COMPONENTS = _nullable_to_jsonschema(OPENAPI["components"])


def validate(schema, instance):
    root = dict(_nullable_to_jsonschema(schema))
    root["components"] = COMPONENTS
    jsonschema.Draft7Validator(root).validate(instance)


def check_response(path, status, headers, body):
    op = OPENAPI["paths"][path]["get"]
    assert str(status) in op["responses"], "%s: undocumented status %d: %r" % (path, status, body[:300])
    resp = op["responses"][str(status)]
    content = resp.get("content", {})
    ctype = headers.get("content-type", "").split(";")[0]
    assert ctype in content, "%s %d: content type %r not documented (%s)" % (path, status, ctype, list(content))
    if ctype == "application/json":
        validate(content[ctype]["schema"], json.loads(body))


def fuzz_values(param, rng):
    schema = param.get("schema", {})
    vals = [None]
    if "enum" in schema:
        vals += schema["enum"]
    if schema.get("type") == "integer":
        lo, hi = schema.get("minimum", -5), schema.get("maximum", 100000)
        vals += [lo, hi, lo - 1, hi + 1, rng.randint(lo, hi), "x", "1.5", ""]
    vals += ["", "team-a", "gpu.example.com", "node-1", "node-3-mig", "true", "ünïcödé", "a b&c=d", "%00", "../../etc",
             "".join(rng.choice("abc-./_") for _ in range(rng.randint(1, 20)))]
    return vals


def quote(v):
    from urllib.parse import quote as q
    return q(str(v), safe="")


# --- tests ----------------------------------------------------------------------------------------

DEMO = None  # the shared server (demo scenario + a watch directory)
WATCH = None


@test
def healthz_is_ok():
    status, headers, body = DEMO.request("GET", "/healthz")
    assert status == 200 and json.loads(body) == {"status": "ok"}
    check_response("/healthz", status, headers, body)


@test
def listens_on_loopback_by_default():
    assert DEMO.host == "127.0.0.1", DEMO.host


@test
def openapi_json_is_the_document():
    assert DEMO.get_json("/openapi.json") == OPENAPI


def endpoint_target(path):
    """`path` with its required query parameters set to the document's example values."""
    params = OPENAPI["paths"][path].get("get", {}).get("parameters", [])
    required = ["%s=%s" % (p["name"], quote(p["example"])) for p in params if p.get("required")]
    return path + ("?" + "&".join(required) if required else "")


def _endpoint_test(path):
    def run():
        status, headers, body = DEMO.request("GET", endpoint_target(path))
        assert status == 200, (status, body[:300])
        check_response(path, status, headers, body)
    run.__name__ = "GET %s answers per the OpenAPI document" % path
    return run


# The demo has no PodGroup: whatif_api_test.py checks /api/v1/whatif/gang's answers against the
# document on the CLI's gang scenario.
for _p in OPENAPI["paths"]:
    if _p not in ("/api/v1/events", "/api/v1/whatif/gang"):
        TESTS.append(_endpoint_test(_p))


def _fuzz_test(path):
    def run():
        params = OPENAPI["paths"][path]["get"].get("parameters", [])
        qparams = [p for p in params if p["in"] == "query"]
        rng = random.Random(path)
        checked = 0
        for _ in range(60):
            query = []
            for p in qparams:
                v = rng.choice(fuzz_values(p, rng))
                if v is not None:
                    query.append("%s=%s" % (p["name"], quote(v)))
            if rng.random() < 0.1:
                query.append("bogus=1")
            url = path + ("?" + "&".join(query) if query else "")
            status, headers, body = DEMO.request("GET", url)
            # 404 where the path documents it: a pod or PodGroup the demo does not have.
            allowed = (200, 400, 404) if "404" in OPENAPI["paths"][path]["get"]["responses"] else (200, 400)
            assert status in allowed, (url, status, body[:200])
            check_response(path, status, headers, body)
            checked += 1
        assert checked == 60
    run.__name__ = "GET %s with fuzzed parameters: every answer documented and schema-valid" % path
    return run


for _p, _item in OPENAPI["paths"].items():
    if _item["get"].get("parameters") and _p != "/api/v1/events":
        TESTS.append(_fuzz_test(_p))


@test
def unknown_parameter_is_a_400_naming_it():
    status, _, body = DEMO.request("GET", "/api/v1/claims?stat=pending")
    assert status == 400
    assert "stat" in json.loads(body)["error"]["message"]


@test
def summary_matches_the_demo_scenario():
    s = DEMO.get_json("/api/v1/summary")
    c = s["counts"]
    assert c["nodes"] == 3 and c["devices"] == 17 and c["resourceSlices"] == 6, c
    assert c["pendingClaims"] >= 1
    assert sum(d["devices"] for d in s["drivers"]) == c["devices"]
    assert sum(p["allocatedDevices"] for p in s["pools"]) == c["allocatedDevices"]


@test
def devices_filter_and_holders():
    s = DEMO.get_json("/api/v1/summary")["counts"]
    alloc = DEMO.get_json("/api/v1/devices?allocated=true&limit=10000")
    assert alloc["total"] == s["allocatedDevices"]
    assert all(d["inUse"] and d["heldBy"] for d in alloc["items"])
    page = DEMO.get_json("/api/v1/devices?limit=5&offset=5")
    assert len(page["items"]) == 5 and page["total"] == s["devices"]
    gpu0 = DEMO.get_json("/api/v1/devices?driver=gpu.example.com&pool=node-1")["items"][0]
    assert gpu0["name"] == "gpu-0" and gpu0["heldBy"][0]["name"] == "train-0", gpu0
    assert gpu0["attributes"]["model"] == {"string": "A100"}, gpu0["attributes"]


@test
def pool_status_counts_the_pools_as_the_pool_view_does():
    # KEP-5677's status (tests/cluster/pool_status_run holds the same computation against
    # kube-controller-manager); here its counts agree with /api/v1/pools on the demo.
    status = DEMO.get_json("/api/v1/pool-status?driver=gpu.example.com")
    pools = {p["pool"]: p for p in DEMO.get_json("/api/v1/pools?driver=gpu.example.com")["items"]}
    assert status["poolCount"] == len(pools) == len(status["pools"]) == 3, (status, pools)
    assert [c["type"] for c in status["conditions"]] == ["Complete"], status
    for p in status["pools"]:
        view = pools[p["poolName"]]
        assert (p["totalDevices"], p["allocatedDevices"]) == (view["devices"], view["allocatedDevices"]), (p, view)
        assert p["availableDevices"] == p["totalDevices"] - p["allocatedDevices"] - p["unavailableDevices"], p
    assert sum(p["allocatedDevices"] for p in status["pools"]) == 3, status
    one = DEMO.get_json("/api/v1/pool-status?driver=gpu.example.com&pool=node-1")
    assert [p["poolName"] for p in one["pools"]] == ["node-1"] and one["poolCount"] == 1, one
    status_code, _, body = DEMO.request("GET", "/api/v1/pool-status")
    assert status_code == 400 and b'driver' in body, (status_code, body)


DEMO_SCENARIO = os.path.join(ROOT, "examples", "scenarios", "demo.yaml")
DEMO_CATALOG = os.path.join(ROOT, "examples", "packages", "catalog.yaml")


def cli_json(*args):
    r = subprocess.run([CLI, *args, "-o", "json"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, (args, r.returncode, r.stderr)
    return json.loads(r.stdout)


@test
def packages_count_what_draforge_package_capacity_counts():
    # A fresh demo server (the shared one's watch directory changes under other tests): its catalog
    # is the demo's, and every package's figures, per node too, are the CLI's on the same objects.
    srv = Server("--demo")
    try:
        srv.wait_ready()
        for query, args in (("", []), ("?namespace=team-a&quota=true", ["--namespace", "team-a", "--quota"]),
                            ("?id=mig-4g-1x-cpu4-mem32g&cap=1", ["--id", "mig-4g-1x-cpu4-mem32g", "--cap", "1"])):
            got = srv.get_json("/api/v1/packages" + query)
            validate(OPENAPI["components"]["schemas"]["Packages"], got)
            want = cli_json("package", "capacity", "--catalog", DEMO_CATALOG, "-f", DEMO_SCENARIO, *args)
            assert got["catalog"] == {"loaded": True, "source": "demo"}, got["catalog"]
            assert got["packages"] == want["packages"], (query, got["packages"], want["packages"])
            assert (got["namespace"], got["quota"]) == (want["namespace"], want["quota"]), (query, got, want)
            assert got["problems"] == [] and "error" not in got, got
        totals = {p["id"]: p["capacity"]["total"] for p in srv.get_json("/api/v1/packages")["packages"]}
        assert len(totals) == 6 and totals["gpu-a100-1x-cpu8-mem64g"] > 0, totals
        inventory = cli_json("package", "inventory", "-f", DEMO_SCENARIO)
        assert srv.get_json("/api/v1/packages")["inventory"] == inventory
    finally:
        srv.stop()


@test
def packages_follow_the_cluster_after_a_change_event():
    # A node joins through the watched directory: after the change event, the answer is of the new
    # generation and the cpu-only package fits as many more times as the node's allocatable allows.
    before = DEMO.get_json("/api/v1/packages?id=cpu-only-cpu4-mem16g")
    s = EventStream(DEMO)
    try:
        s.next_event()
        path = os.path.join(WATCH, "node-packages.yaml")
        with open(path + ".tmp", "w") as f:
            f.write("apiVersion: v1\nkind: Node\nmetadata: {name: node-packages}\n"
                    "status: {allocatable: {cpu: \"9\", memory: 64Gi, pods: \"110\"}}\n")
        os.rename(path + ".tmp", path)
        wait_change(s, {"type": "ADDED", "kind": "Node", "namespace": "", "name": "node-packages"})
        after = DEMO.get_json("/api/v1/packages?id=cpu-only-cpu4-mem16g")
        assert after["snapshot"]["generation"] > before["snapshot"]["generation"], (before["snapshot"], after["snapshot"])
        node = [n for n in after["packages"][0]["capacity"]["nodes"] if n["node"] == "node-packages"]
        assert node and node[0]["count"] == 2 and node[0]["limitedBy"] == "cpu", node  # 9 cpu / 4 per unit
        assert after["packages"][0]["capacity"]["total"] == before["packages"][0]["capacity"]["total"] + 2
        os.remove(path)
        wait_change(s, {"type": "DELETED", "kind": "Node", "namespace": "", "name": "node-packages"})
        assert DEMO.get_json("/api/v1/packages?id=cpu-only-cpu4-mem16g")["packages"] == before["packages"]
    finally:
        s.close()


@test
def packages_without_a_catalog_still_report_the_inventory():
    d = tempfile.mkdtemp()
    try:
        p = os.path.join(d, "s.yaml")
        shutil.copy(DEMO_SCENARIO, p)
        srv = Server("--scenario", p)
        try:
            srv.wait_ready()
            got = srv.get_json("/api/v1/packages")
            validate(OPENAPI["components"]["schemas"]["Packages"], got)
            assert got["catalog"] == {"loaded": False, "source": ""} and got["packages"] == [], got
            assert got["inventory"] == cli_json("package", "inventory", "-f", DEMO_SCENARIO)
            status, _, body = srv.request("GET", "/api/v1/packages?id=x")
            assert status == 400 and b"no package catalog" in body, (status, body)
        finally:
            srv.stop()
    finally:
        shutil.rmtree(d)


@test
def a_package_catalog_is_checked_at_start_and_against_the_cluster():
    d = tempfile.mkdtemp()
    try:
        bad = os.path.join(d, "bad.yaml")
        with open(bad, "w") as f:
            f.write("packages:\n- id: two\n  cpu: lots\n  memory: 1Gi\n  gpu: 2\n"
                    "  allocation: {deviceClassName: x.example.com, claimRequestName: gpu, count: 3}\n")
        r = subprocess.run([SERVER, "--port", "0", "--package-catalog", bad], capture_output=True, text=True, timeout=10)
        assert r.returncode == 2 and "packages[0].allocation.count" in r.stderr and "packages[0].cpu" in r.stderr, r.stderr
        r = subprocess.run([SERVER, "--port", "0", "--package-catalog", os.path.join(d, "none.yaml")],
                           capture_output=True, text=True, timeout=10)
        assert r.returncode == 2 and "none.yaml" in r.stderr, r.stderr
        unknown = os.path.join(d, "unknown.yaml")
        with open(unknown, "w") as f:
            f.write("packages:\n- id: one\n  specName: one\n  cpu: \"1\"\n  memory: 1Gi\n  gpu: 1\n"
                    "  allocation: {deviceClassName: nope.example.com, claimRequestName: gpu, count: 1}\n")
        srv = Server("--demo", "--package-catalog", unknown)
        try:
            srv.wait_ready()
            got = srv.get_json("/api/v1/packages")
            assert got["catalog"] == {"loaded": True, "source": unknown}, got["catalog"]
            assert any(p.startswith("packages[0].allocation.deviceClassName") for p in got["problems"]), got["problems"]
            assert [p["capacity"]["total"] for p in got["packages"]] == [0], got["packages"]
        finally:
            srv.stop()
    finally:
        shutil.rmtree(d)


@test
def claims_filter_by_state_and_namespace():
    pending = DEMO.get_json("/api/v1/claims?state=pending")["items"]
    assert pending and all(c["state"] == "pending" and c["allocation"] is None for c in pending)
    reserved = DEMO.get_json("/api/v1/claims?state=reserved")["items"]
    assert reserved and all(c["reservedFor"] and c["allocation"]["results"] for c in reserved)
    assert DEMO.get_json("/api/v1/claims?namespace=no-such-ns")["items"] == []


@test
def graph_filters_keep_connected_parts():
    full = DEMO.get_json("/api/v1/graph")
    by_node = DEMO.get_json("/api/v1/graph?node=node-1")
    ids = {n["id"] for n in by_node["nodes"]}
    assert "Node/node-1" in ids and "Node/node-2" not in ids
    assert len(by_node["nodes"]) < len(full["nodes"])
    drv = DEMO.get_json("/api/v1/graph?driver=nic.example.com")
    assert all(not n["id"].startswith("Device/gpu.example.com") for n in drv["nodes"])


@test
def diagnostics_explain_pending_claims():
    d = DEMO.get_json("/api/v1/diagnostics")
    names = [p["name"] for p in d["pending"]]
    assert "big-h100" in names, names
    p = d["pending"][names.index("big-h100")]
    assert p["summary"] and p["requests"] and p["requests"][0]["steps"], p
    # Pod finetune-0 uses it and is not bound: its second choice (four H100s) fits on node-3, where
    # the scheduler will allocate it.
    assert p["outcome"] == "allocated" and p["consumers"] == ["team-a/finetune-0"], p
    assert p["summary"].startswith("claim team-a/big-h100 fits on 1 of 3 nodes: node-3. "), p["summary"]
    assert p["fitsOn"] == [] and p["nodesTried"] == 0, p
    # Explained without a node (the pod is not bound): the verdict on every node, as the scheduler
    # would give it; only node-3 has the H100s.
    assert p["node"] == "" and p["nodesTotal"] == 3 and p["nodesTruncated"] is False, p
    assert [v["node"] for v in p["nodes"]] == ["node-1", "node-2", "node-3"], p["nodes"]
    assert [v["node"] for v in p["nodes"] if v["fits"]] == ["node-3"], p["nodes"]
    assert all(v["reason"] and v["outcome"] == "unschedulable" for v in p["nodes"] if not v["fits"]), p["nodes"]
    assert p["nodesSummary"] == "claim team-a/big-h100 fits on 1 of 3 nodes: node-3", p["nodesSummary"]


UNUSED_CLAIM = """apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: %s, namespace: team-b}
spec:
  devices:
    requests:
    - name: gpu
      exactly: {deviceClassName: a100.gpu.example.com, count: %d}
"""


@test
def diagnostics_say_a_claim_no_pod_uses_waits_for_one():
    demo = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples", "scenarios", "demo.yaml")
    d = tempfile.mkdtemp()
    p = os.path.join(d, "s.yaml")
    with open(demo) as src, open(p, "w") as f:
        f.write(src.read().rstrip("\n") + "\n---\n" + UNUSED_CLAIM % ("spare", 1) + "---\n" + UNUSED_CLAIM % ("huge", 50))
    srv = Server("--scenario", p)
    try:
        srv.wait_ready()
        status, headers, body = srv.request("GET", "/api/v1/diagnostics?namespace=team-b")
        check_response("/api/v1/diagnostics", status, headers, body)
        pending = {c["name"]: c for c in json.loads(body)["pending"]}
        assert sorted(pending) == ["huge", "spare"], pending
        nodes = ["node-1", "node-2", "node-3"]  # the demo's Node objects
        for c in pending.values():
            assert c["outcome"] == "waiting-for-consumer", c
            assert c["consumers"] == [] and c["node"] == "" and c["nodesTried"] == len(nodes), c
            assert "no pod uses claim team-b/%s" % c["name"] in c["summary"], c
            assert "unschedulable" not in c["summary"], c
            assert c["requests"] and c["requests"][0]["steps"], c  # the funnel is still there
        assert pending["spare"]["fitsOn"] and set(pending["spare"]["fitsOn"]) <= set(nodes), pending["spare"]
        assert "would fit on %d of 3 nodes" % len(pending["spare"]["fitsOn"]) in pending["spare"]["summary"]
        assert pending["huge"]["fitsOn"] == [], pending["huge"]
        assert "would not fit on any of the 3 nodes" in pending["huge"]["summary"], pending["huge"]
        assert "50 needed" in pending["huge"]["summary"], pending["huge"]
    finally:
        srv.stop()
        shutil.rmtree(d)


@test
def metrics_are_prometheus_text():
    DEMO.request("GET", "/api/v1/summary")
    status, headers, body = DEMO.request("GET", "/metrics")
    assert status == 200 and headers["content-type"].startswith("text/plain")
    text = body.decode()
    sample = re.compile(r'^[a-zA-Z_:][a-zA-Z0-9_:]*(\{([a-zA-Z_][a-zA-Z0-9_]*="([^"\\]|\\.)*",?)*\})? -?[0-9.e+Inf-]+$')
    for line in text.splitlines():
        if line and not line.startswith("#"):
            assert sample.match(line), line
    for name in ("draforge_http_requests_total", "draforge_http_request_duration_seconds_bucket",
                 "draforge_sse_clients", "draforge_store_objects", "draforge_pool_utilisation"):
        assert name in text, name
    assert 'draforge_store_objects{kind="ResourceSlice"} 6' in text


@test
def mutations_get_405_and_change_nothing():
    before = DEMO.get_json("/api/v1/summary")["snapshot"]["generation"]
    for method in ("POST", "PUT", "PATCH", "DELETE"):
        for path in list(OPENAPI["paths"]) + ["/", "/api/v1/claims/team-a/train-0", "/anything"]:
            if method == "POST" and "post" in OPENAPI["paths"].get(path, {}):
                continue  # the compute-only what-if POST (whatif_api_test.py checks it changes nothing)
            status, headers, body = DEMO.request(method, path, body=b"{}", headers={"Content-Type": "application/json"})
            assert status == 405, (method, path, status)
            assert "GET" in headers.get("allow", ""), headers
            assert json.loads(body)["error"]["code"] == 405
    assert DEMO.get_json("/api/v1/summary")["snapshot"]["generation"] == before


@test
def options_and_head_are_allowed_without_cors():
    status, headers, _ = DEMO.request("OPTIONS", "/api/v1/summary", headers={"Origin": "http://evil.example"})
    assert status == 204 and "GET" in headers.get("allow", "")
    status, headers, body = DEMO.request("HEAD", "/api/v1/summary", headers={"Origin": "http://evil.example"})
    assert status == 200 and body == b""
    for h in headers:
        assert not h.startswith("access-control-"), h


@test
def every_answer_has_a_date_and_head_has_no_body():
    # RFC 9110 section 6.6.1: an origin server with a clock sends Date.
    for method, path in (("GET", "/healthz"), ("HEAD", "/api/v1/summary"), ("GET", "/api/v1/nothing"),
                         ("POST", "/"), ("OPTIONS", "/")):
        status, headers, _ = DEMO.request(method, path)
        date = email.utils.parsedate_to_datetime(headers["date"])
        assert abs(date.timestamp() - time.time()) < 3600, (method, path, headers["date"])
    # HEAD of the event stream: its head, no body, and no stream held open.
    status, headers, body = DEMO.request("HEAD", "/api/v1/events")
    assert status == 200 and headers["content-type"].startswith("text/event-stream") and body == b"", (status, headers)
    status, headers, body = DEMO.request("HEAD", "/api/v1/devices", headers={"Accept-Encoding": "gzip"})
    _, get_headers, get_body = DEMO.request("GET", "/api/v1/devices", headers={"Accept-Encoding": "gzip"})
    assert status == 200 and body == b"", status
    assert headers["content-length"] == get_headers["content-length"] == str(len(get_body)), (headers, get_headers)


def raw_status(server, request):
    """Sends `request` (bytes, as they go on the wire) and returns the status code of the answer."""
    s = socket.create_connection((server.host, server.port), timeout=10)
    try:
        s.sendall(request)
        head = b""
        while b"\r\n" not in head:
            chunk = s.recv(4096)
            if not chunk:
                raise EOFError("connection closed before a status line")
            head += chunk
        return int(head.split(b" ")[1])
    finally:
        s.close()


# What a page on evil.attacker.example sends once its name resolves to the server (DNS rebinding).
REBOUND_HOST = "evil.attacker.example"


@test
def a_foreign_host_name_is_refused():
    for path in list(OPENAPI["paths"]) + ["/", "/dashboard/route"]:
        status, headers, body = DEMO.request("GET", path, headers={"Host": REBOUND_HOST})
        assert status == 403, (path, status, body[:200])
        assert REBOUND_HOST in json.loads(body)["error"]["message"], body
        if path in OPENAPI["paths"]:
            check_response(path, status, headers, body)
    for host in (REBOUND_HOST + ":%d" % DEMO.port, "EVIL.attacker.example.", "x", "localhost.attacker.example",
                 "127.0.0.1.nip.io"):
        status, _, _ = DEMO.request("GET", "/api/v1/summary", headers={"Host": host})
        assert status == 403, (host, status)
    # The event stream too: it is what a rebinding page would keep open.
    status = raw_status(DEMO, b"GET /api/v1/events HTTP/1.1\r\nHost: evil.attacker.example\r\n"
                              b"Accept: text/event-stream\r\n\r\n")
    assert status == 403, status


@test
def loopback_names_and_ip_addresses_are_answered():
    # What browsers on the machine, port-forwards and kubelet probes (Host: <pod IP>:<port>) send.
    for host in ("localhost", "localhost:%d" % DEMO.port, "LocalHost.", "dashboard.localhost:8080",
                 "127.0.0.1:%d" % DEMO.port, "10.244.1.7:8080", "[::1]:%d" % DEMO.port, "[fd00::7]"):
        status, _, body = DEMO.request("GET", "/healthz", headers={"Host": host})
        assert status == 200, (host, status, body)
    for host in ("a b", "localhost:80:80", "[::1", "[localhost]", "localhost:http", "dra.example/x"):
        status, headers, body = DEMO.request("GET", "/healthz", headers={"Host": host})
        assert status == 400, (host, status, body)
        check_response("/healthz", status, headers, body)
    # Two Host headers (a proxy and the client disagreeing) are refused, whichever comes first.
    status = raw_status(DEMO, b"GET /healthz HTTP/1.1\r\nHost: localhost\r\nHost: evil.attacker.example\r\n\r\n")
    assert status == 400, status


@test
def allowed_hosts_names_the_proxy():
    srv = Server("--demo", "--allowed-hosts", "dra.corp.example, *.dra.example")
    try:
        for host, want in (("dra.corp.example", 200), ("DRA.corp.example:443", 200), ("eu.dra.example", 200),
                           ("dra.example", 403), ("localhost", 403), ("10.0.0.9:8080", 200), ("[::1]", 200),
                           (REBOUND_HOST, 403)):
            status, _, body = srv.request("GET", "/healthz", headers={"Host": host})
            assert status == want, (host, status, want, body)
        _, _, body = srv.request("GET", "/healthz", headers={"Host": "localhost"})
        assert "dra.corp.example, *.dra.example" in json.loads(body)["error"]["message"], body
    finally:
        srv.stop()
    srv = Server("--demo", "--allowed-hosts=*")
    try:
        status, _, _ = srv.request("GET", "/healthz", headers={"Host": REBOUND_HOST})
        assert status == 200, status
    finally:
        srv.stop()
    for bad in ("", " , ", "http://dra.example", "dra..example", "*dra.example", "[::1]"):
        p = subprocess.run([SERVER, "--port", "0", "--allowed-hosts", bad], capture_output=True, text=True, timeout=30)
        assert p.returncode == 2, (bad, p.returncode, p.stderr)
        assert "--allowed-hosts" in p.stderr, (bad, p.stderr)


CSP = "default-src 'self'; frame-ancestors 'none'"


@test
def every_response_carries_csp_and_frame_protection():
    d = tempfile.mkdtemp()
    with open(os.path.join(d, "index.html"), "w") as f:
        f.write("<!doctype html><title>DRAForge</title>")
    srv = Server("--demo", "--static-dir", d)
    try:
        for method, path in (("GET", "/"), ("GET", "/pools/x"), ("GET", "/api/v1/summary"), ("GET", "/healthz"),
                             ("GET", "/api/v1/nothing"), ("POST", "/"), ("HEAD", "/"), ("OPTIONS", "/")):
            status, headers, _ = srv.request(method, path)
            assert headers.get("content-security-policy") == CSP, (method, path, status, headers)
            assert headers.get("x-frame-options") == "DENY", (method, path, headers)
            assert headers.get("x-content-type-options") == "nosniff", (method, path, headers)
        stream = EventStream(srv)
        try:
            assert "content-security-policy: " + CSP in stream.headers, stream.headers
        finally:
            stream.close()
    finally:
        srv.stop()
        shutil.rmtree(d)


@test
def dotfiles_and_links_out_of_the_static_root_are_not_served():
    base = tempfile.mkdtemp()
    root = os.path.join(base, "dashboard")
    os.makedirs(os.path.join(root, "assets"))
    os.makedirs(os.path.join(root, ".git"))
    os.makedirs(os.path.join(base, "private"))
    with open(os.path.join(root, "index.html"), "w") as f:
        f.write("<!doctype html><title>DRAForge</title>")
    with open(os.path.join(root, "assets", "app.js"), "w") as f:
        f.write("console.log('app')")
    for name in (".env", ".git/config", "assets/.htpasswd"):
        with open(os.path.join(root, name), "w") as f:
            f.write("SECRET=root-dotfile")
    with open(os.path.join(base, "private", "key.txt"), "w") as f:
        f.write("SECRET=outside")
    os.symlink(os.path.join(base, "private", "key.txt"), os.path.join(root, "key.txt"))
    os.symlink(os.path.join(base, "private"), os.path.join(root, "private"))
    os.symlink(os.path.join(root, ".env"), os.path.join(root, "env.txt"))
    os.symlink(os.path.join(root, "assets", "app.js"), os.path.join(root, "app.js"))  # inside: fine
    srv = Server("--demo", "--static-dir", root)
    try:
        for path in ("/.env", "/.git/config", "/assets/.htpasswd", "/key.txt", "/private/key.txt", "/env.txt",
                     "/assets/%2Ehtpasswd"):
            status, headers, body = srv.request("GET", path)
            assert status == 404, (path, status, body[:200])
            assert b"SECRET" not in body, (path, body)
            assert json.loads(body)["error"]["code"] == 404, body
        status, headers, body = srv.request("GET", "/app.js")
        assert status == 200 and body == b"console.log('app')", (status, body)
        # Client-side routes still get the dashboard.
        status, _, body = srv.request("GET", "/claims/team-a")
        assert status == 200 and b"DRAForge" in body, (status, body)
    finally:
        srv.stop()
        shutil.rmtree(base)


@test
def mutating_methods_are_405_whatever_the_path():
    for method in ("POST", "PUT", "PATCH", "DELETE", "TRACE", "CONNECT"):
        for path in ("/healthz", "/api/v1/events", "/index.html", "/.env"):
            target = "localhost:80" if method == "CONNECT" else path
            status, headers, body = DEMO.request(method, target)
            assert status == 405, (method, path, status, body[:200])
            assert headers.get("allow") == "GET, HEAD, OPTIONS", headers


def _claim_names(server, namespace):
    return [c["name"] for c in server.get_json("/api/v1/claims?namespace=" + namespace)["items"]]


@test
def no_secret_data_in_any_response():
    # The file carries a claim after the Secret: once the server lists the claim it has read the
    # whole file, Secret included (a fixed sleep would pass without the server having read it).
    path = os.path.join(WATCH, "secret.yaml")
    with open(path + ".tmp", "w") as f:
        f.write("apiVersion: v1\nkind: Secret\nmetadata: {name: s, namespace: team-a}\n"
                "data: {token: c3VwZXJzZWNyZXQtdG9rZW4=}\nstringData: {password: hunter2-very-secret}\n"
                "---\n" + CLAIM % "secret-marker")
    os.rename(path + ".tmp", path)
    try:
        wait_until("the server applied secret.yaml", lambda: "secret-marker" in _claim_names(DEMO, "team-a"))
        for p in OPENAPI["paths"]:
            if p == "/api/v1/events":
                continue
            _, _, body = DEMO.request("GET", p)
            assert b"c3VwZXJzZWNyZXQtdG9rZW4" not in body and b"hunter2" not in body, p
    finally:
        os.remove(path)
        # No leftover for the next case: its event stream must not see this file's removal.
        wait_until("the server dropped secret.yaml", lambda: "secret-marker" not in _claim_names(DEMO, "team-a"))


CLAIM = """apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: %s, namespace: team-a}
spec:
  devices:
    requests:
    - name: gpu
      exactly: {deviceClassName: a100.gpu.example.com}
"""


def add_claim(name):
    path = os.path.join(WATCH, name + ".yaml")
    with open(path + ".tmp", "w") as f:
        f.write(CLAIM % name)
    os.rename(path + ".tmp", path)


@test
def sse_hello_then_a_change_reaches_the_client():
    s = EventStream(DEMO)
    try:
        assert s.status == 200 and "text/event-stream" in s.headers
        hello = s.next_event()
        assert hello["event"] == "hello", hello
        validate(OPENAPI["components"]["schemas"]["SnapshotRef"], json.loads(hello["data"]))
        add_claim("sse-one")
        # The server polls the watch dir: the change may share an event with, or follow, another one.
        ev = wait_change(s, {"type": "ADDED", "kind": "ResourceClaim", "namespace": "team-a", "name": "sse-one"})[-1]
        assert int(ev["id"]) > int(hello["id"]), (ev, hello)
        # The API answers from a snapshot at least as new as the event's.
        names = [c["name"] for c in DEMO.get_json("/api/v1/claims?state=pending")["items"]]
        assert "sse-one" in names
        os.remove(os.path.join(WATCH, "sse-one.yaml"))
        wait_change(s, {"type": "DELETED", "kind": "ResourceClaim", "namespace": "team-a", "name": "sse-one"})
    finally:
        s.close()


def _added(name, namespace="team-a"):
    return {"type": "ADDED", "kind": "ResourceClaim", "namespace": namespace, "name": name}


@test
def last_event_id_resumes_with_the_missed_events():
    # A watcher stream stays open to see each change published before the next file is written:
    # with fixed sleeps a slow poll put both files into one event (or none before the resume).
    s = EventStream(DEMO)
    try:
        hello = s.next_event()
        add_claim("resume-a")
        published = wait_change(s, _added("resume-a"))
        add_claim("resume-b")
        published += wait_change(s, _added("resume-b"))
    finally:
        s.close()
    r = EventStream(DEMO, last_event_id=hello["id"])
    try:
        replayed = [r.next_event(timeout=30) for _ in published]
    finally:
        r.close()
    assert [(e["event"], e["id"], e["data"]) for e in replayed] == \
        [(e["event"], e["id"], e["data"]) for e in published], (replayed, published)
    names = [c["name"] for e in replayed for c in json.loads(e["data"])["changes"]]
    assert names == ["resume-a", "resume-b"], names
    first, second = replayed
    assert int(hello["id"]) < int(first["id"]) < int(second["id"])
    # The same resume through the query parameter (clients that cannot set headers).
    q = EventStream(DEMO, query="?lastEventId=" + first["id"])
    try:
        ev = q.next_event(timeout=30)
        assert ev["id"] == second["id"], (ev, second)
    finally:
        q.close()
    for n in ("resume-a", "resume-b"):
        os.remove(os.path.join(WATCH, n + ".yaml"))


@test
def unknown_or_too_old_event_id_gets_reset():
    for bad in ("999999999", "not-a-number", "0"):
        s = EventStream(DEMO, last_event_id=bad)
        try:
            ev = s.next_event()
            assert ev["event"] == "reset", (bad, ev)
            validate(OPENAPI["components"]["schemas"]["SnapshotRef"], json.loads(ev["data"]))
        finally:
            s.close()


@test
def ring_overflow_gets_reset():
    d = tempfile.mkdtemp()
    srv = Server("--demo", "--watch-dir", d, "--event-ring", "2")
    try:
        srv.wait_ready()
        # Four changes published one by one (seen on an open stream, not guessed with sleeps: a
        # slow poll would fold them into fewer events than the ring holds).
        s = EventStream(srv)
        try:
            hello = s.next_event()
            for i in range(4):
                path = os.path.join(d, "c%d.yaml" % i)
                with open(path + ".tmp", "w") as f:
                    f.write(CLAIM % ("ring-%d" % i))
                os.rename(path + ".tmp", path)
                wait_change(s, _added("ring-%d" % i))
        finally:
            s.close()
        r = EventStream(srv, last_event_id=hello["id"])
        ev = r.next_event()
        r.close()
        assert ev["event"] == "reset", ev
    finally:
        srv.stop()
        shutil.rmtree(d)


@test
def heartbeats_keep_idle_streams_alive():
    srv = Server("--demo", "--heartbeat-ms", "200")
    try:
        srv.wait_ready()
        s = EventStream(srv)
        s.next_event()
        b = s.next_block(timeout=15)  # due after 200 ms; the bound is for a loaded machine
        assert b.get("comment") == "heartbeat", b
        s.close()
    finally:
        srv.stop()


@test
def readyz_is_503_before_sync_and_200_after():
    # The checks before the sync must all run inside the delay: 1.5 s was too short on a loaded
    # machine (the first answer was already 200). 10 s is ample; the cost is 10 s of waiting.
    srv = Server("--demo", "--ready-delay-ms", "10000")
    try:
        status, headers, body = srv.request("GET", "/readyz")
        assert status == 503, status
        check_response("/readyz", status, headers, body)
        # An event stream opened before the sync still starts with a SnapshotRef, not {}.
        early = EventStream(srv)
        try:
            hello = early.next_event()
        finally:
            early.close()
        assert hello["event"] == "hello" and hello["id"] == "0", hello
        assert json.loads(hello["data"]) == {"generation": 0, "resourceVersion": ""}, hello
        validate(OPENAPI["components"]["schemas"]["SnapshotRef"], json.loads(hello["data"]))
        assert srv.request("GET", "/healthz")[0] == 200  # liveness does not depend on the store
        srv.wait_ready()
        status, headers, body = srv.request("GET", "/readyz")
        assert status == 200 and json.loads(body)["status"] == "ready"
        assert srv.get_json("/api/v1/summary")["counts"]["devices"] == 17
    finally:
        srv.stop()


@test
def rate_limit_answers_429():
    srv = Server("--demo", "--rate-limit", "5")
    try:
        # Until the first 429: 40 requests in a row were not always faster than 5 per second
        # on a loaded machine.
        codes = []
        while 429 not in codes and len(codes) < 2000:
            codes.append(srv.request("GET", "/healthz")[0])
        assert 429 in codes and codes[0] == 200, codes
        status, headers, body = srv.request("GET", "/healthz")
        if status == 429:
            assert headers.get("retry-after") == "1"
            assert json.loads(body)["error"]["code"] == 429
    finally:
        srv.stop()


@test
def request_size_limits():
    status, _, _ = DEMO.request("POST", "/api/v1/summary", body=b"x" * (200 * 1024))
    assert status == 413, status
    status, _, _ = DEMO.request("GET", "/api/v1/claims?namespace=" + "a" * 5000)
    assert status in (414, 431), status


@test
def stream_limit_answers_503():
    srv = Server("--demo", "--max-streams", "2")
    try:
        srv.wait_ready()
        a, b = EventStream(srv), EventStream(srv)
        a.next_event()
        b.next_event()
        status, headers, body = srv.request("GET", "/api/v1/events")
        assert status == 503, status
        check_response("/api/v1/events", status, headers, body)
        a.close()
        deadline = time.time() + 20
        while time.time() < deadline:  # the slot frees when the server notices the closed stream
            c = EventStream(srv)
            if c.status == 200:
                c.close()
                break
            c.close()
            time.sleep(0.2)
        else:
            raise AssertionError("stream slot never freed")
        b.close()
    finally:
        srv.stop()


@test
def static_files_and_client_side_routes():
    d = tempfile.mkdtemp()
    with open(os.path.join(d, "index.html"), "w") as f:
        f.write("<!doctype html><title>DRAForge</title>")
    os.makedirs(os.path.join(d, "assets"))
    with open(os.path.join(d, "assets", "app.js"), "w") as f:
        f.write("console.log('hi')")
    srv = Server("--demo", "--static-dir", d)
    try:
        status, headers, body = srv.request("GET", "/")
        assert status == 200 and b"DRAForge" in body
        status, headers, body = srv.request("GET", "/assets/app.js")
        assert status == 200 and "javascript" in headers["content-type"] and b"console.log" in body
        status, headers, body = srv.request("GET", "/pools/gpu.example.com/node-1")
        assert status == 200 and b"DRAForge" in body and headers["content-type"].startswith("text/html")
        status, headers, body = srv.request("GET", "/api/v1/nothing-here")
        assert status == 404 and json.loads(body)["error"]["code"] == 404
        status, _, _ = srv.request("GET", "/../../etc/passwd")
        assert status in (400, 404) or b"root:" not in srv.request("GET", "/../../etc/passwd")[2]
    finally:
        srv.stop()
        shutil.rmtree(d)


BROWSER_ENCODINGS = "gzip, deflate, br, zstd"  # what Chromium sends, also on http://127.0.0.1


def decoded(headers, body):
    enc = headers.get("content-encoding", "identity")
    assert enc in ("gzip", "identity"), "unexpected Content-Encoding %r" % enc
    return gzip.decompress(body) if enc == "gzip" else body


@test
def browsers_asking_for_brotli_get_gzip_of_the_same_json():
    for path in ("/api/v1/devices", "/api/v1/graph", "/api/v1/claims", "/openapi.json", "/metrics"):
        status, plain_headers, plain = DEMO.request("GET", path)
        assert status == 200 and "content-encoding" not in plain_headers, (path, plain_headers)
        for accept in ("br, gzip", BROWSER_ENCODINGS, "br"):
            status, headers, body = DEMO.request("GET", path, headers={"Accept-Encoding": accept})
            assert status == 200, (path, status)
            assert headers.get("content-encoding") != "br", (path, accept, headers)
            assert headers.get("vary") == "Accept-Encoding", (path, headers)
            if accept == "br":
                assert "content-encoding" not in headers, (path, headers)
            else:
                # Every one of these is above the compression threshold: gzip, and the same answer.
                assert headers.get("content-encoding") == "gzip", (path, accept, headers)
                assert int(headers["content-length"]) == len(body) < len(plain)
                if path == "/metrics":  # counters move between requests: the same series, not bytes
                    assert b"draforge_store_generation " in decoded(headers, body)
                else:
                    assert decoded(headers, body) == plain, path
    status, headers, body = DEMO.request("GET", "/api/v1/summary", headers={"Accept-Encoding": "gzip;q=0, br"})
    assert status == 200 and "content-encoding" not in headers
    json.loads(body)


@test
def errors_and_event_streams_are_never_compressed():
    for path in ("/api/v1/nothing", "/api/v1/devices?bogus=1", "/healthz", "/readyz"):
        status, headers, body = DEMO.request("GET", path, headers={"Accept-Encoding": BROWSER_ENCODINGS})
        assert "content-encoding" not in headers, (path, headers)
        assert json.loads(body), path
    s = socket.create_connection((DEMO.host, DEMO.port), timeout=10)
    try:
        s.sendall(b"GET /api/v1/events HTTP/1.1\r\nHost: localhost\r\nAccept-Encoding: br, gzip\r\n\r\n")
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = s.recv(4096)
            assert chunk, "stream closed"
            head += chunk
        head = head.split(b"\r\n\r\n")[0].decode("latin-1").lower()
        assert "text/event-stream" in head and "content-encoding" not in head, head
    finally:
        s.close()


def big_scenario(nodes, devices_per_node):
    docs = ["""apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu.big.example.com}
spec:
  selectors:
  - cel: {expression: "device.driver == 'gpu.big.example.com'"}
"""]
    for n in range(nodes):
        devs = "".join("  - name: gpu-%d\n    attributes:\n      model: {string: H100}\n      index: {int: %d}\n"
                       "    capacity:\n      memory: {value: 80Gi}\n" % (d, d) for d in range(devices_per_node))
        docs.append("apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: node-%d-gpu}\nspec:\n"
                    "  driver: gpu.big.example.com\n  nodeName: node-%d\n"
                    "  pool: {name: node-%d, generation: 1, resourceSliceCount: 1}\n  devices:\n%s" % (n, n, n, devs))
    return "---\n".join(docs)


@test
def five_thousand_devices_answer_a_browser_promptly():
    # The dashboard's device list with 5,000 devices. With Brotli at quality 11 (cpp-httplib's choice)
    # this took 11 s; the connection's 30 s timeout is the only bound here.
    d = tempfile.mkdtemp()
    p = os.path.join(d, "big.yaml")
    with open(p, "w") as f:
        f.write(big_scenario(40, 125))
    srv = Server("--scenario", p, "--rate-limit", "0")
    try:
        srv.wait_ready(60)
        path = "/api/v1/devices?offset=0&limit=10000"
        status, headers, body = srv.request("GET", path, headers={"Accept-Encoding": BROWSER_ENCODINGS})
        assert status == 200 and headers.get("content-encoding") == "gzip", (status, headers)
        page = json.loads(decoded(headers, body))
        assert len(page["items"]) == 5000, len(page["items"])
        status, plain_headers, plain = srv.request("GET", path)
        assert status == 200 and json.loads(plain) == page
        assert len(body) * 10 < len(plain), (len(body), len(plain))
    finally:
        srv.stop()
        shutil.rmtree(d)


@test
def static_files_are_served_gzip_to_browsers():
    d = tempfile.mkdtemp()
    script = "export const rows = [%s];\n" % ",".join('{"n":%d}' % i for i in range(3000))
    with open(os.path.join(d, "index.html"), "w") as f:
        f.write("<!doctype html><title>DRAForge</title>" + "<!-- padding -->" * 200)
    os.makedirs(os.path.join(d, "assets"))
    with open(os.path.join(d, "assets", "app.js"), "w") as f:
        f.write(script)
    with open(os.path.join(d, "assets", "logo.png"), "wb") as f:
        f.write(bytes(range(256)) * 20)
    srv = Server("--demo", "--static-dir", d)
    try:
        for _ in range(2):  # the second answer comes from the per-file cache: the same bytes
            status, headers, body = srv.request("GET", "/assets/app.js", headers={"Accept-Encoding": "br, gzip"})
            assert status == 200 and headers.get("content-encoding") == "gzip", headers
            assert headers["content-type"].startswith("text/javascript") and headers.get("vary") == "Accept-Encoding"
            assert decoded(headers, body).decode() == script
        status, headers, body = srv.request("GET", "/some/client/route", headers={"Accept-Encoding": BROWSER_ENCODINGS})
        assert status == 200 and headers.get("content-encoding") == "gzip" and b"DRAForge" in decoded(headers, body)
        status, headers, body = srv.request("GET", "/assets/logo.png", headers={"Accept-Encoding": BROWSER_ENCODINGS})
        assert status == 200 and "content-encoding" not in headers and headers["content-type"] == "image/png"
        assert body == bytes(range(256)) * 20
        status, headers, body = srv.request("HEAD", "/assets/app.js", headers={"Accept-Encoding": "gzip"})
        assert status == 200 and body == b"" and headers.get("content-encoding") == "gzip"
        # A rebuilt dashboard is served without a restart.
        with open(os.path.join(d, "assets", "app.js"), "w") as f:
            f.write("export const v = 2;\n")
        status, headers, body = srv.request("GET", "/assets/app.js", headers={"Accept-Encoding": "gzip"})
        assert status == 200 and decoded(headers, body) == b"export const v = 2;\n"
    finally:
        srv.stop()
        shutil.rmtree(d)


@test
def bad_flags_and_missing_scenario_fail_clearly():
    r = subprocess.run([SERVER, "--port", "nope"], capture_output=True, text=True, timeout=10)
    assert r.returncode != 0 and "--port" in r.stderr, r.stderr
    r = subprocess.run([SERVER, "--scenario", "/no/such/file.yaml"], capture_output=True, text=True, timeout=10)
    assert r.returncode != 0 and "/no/such/file.yaml" in r.stderr, r.stderr
    # A directory is not a scenario file: it used to be served as an empty cluster that said it was ready.
    scenarios = os.path.join(ROOT, "examples", "scenarios")
    r = subprocess.run([SERVER, "--scenario", scenarios], capture_output=True, text=True, timeout=10)
    assert r.returncode == 2 and "is a directory" in r.stderr and "--watch-dir" in r.stderr, (r.returncode, r.stderr)


@test
def flags_take_their_value_in_both_forms():
    for args in (["--port=nope"], ["--port", "nope"]):
        r = subprocess.run([SERVER, *args], capture_output=True, text=True, timeout=10)
        assert r.returncode == 2 and '--port must be an integer from 0 to 65535, not "nope"' in r.stderr, r.stderr
    for args in (["--scenario=/no/such/file.yaml"], ["--scenario", "/no/such/file.yaml"]):
        r = subprocess.run([SERVER, *args], capture_output=True, text=True, timeout=10)
        assert r.returncode != 0 and "/no/such/file.yaml" in r.stderr, r.stderr
    r = subprocess.run([SERVER, "--demo=yes"], capture_output=True, text=True, timeout=10)
    assert r.returncode == 2 and "--demo takes no value" in r.stderr, r.stderr
    r = subprocess.run([SERVER, "--help"], capture_output=True, text=True, timeout=10)
    assert r.returncode == 0 and "--flag VALUE or --flag=VALUE" in r.stdout, r.stdout
    # The library's version, which is the project's: what an image test and an operator run first.
    r = subprocess.run([SERVER, "--version"], capture_output=True, text=True, timeout=10)
    assert r.returncode == 0 and r.stdout == "draforge-server %s\n" % project_version(ROOT), (r.stdout, r.stderr)
    r = subprocess.run([SERVER, "--version=1"], capture_output=True, text=True, timeout=10)
    assert r.returncode == 2 and "--version takes no value" in r.stderr, r.stderr


@test
def scenario_file_mode():
    d = tempfile.mkdtemp()
    p = os.path.join(d, "s.yaml")
    with open(p, "w") as f:
        f.write(CLAIM % "only-claim")
    srv = Server("--scenario", p)
    try:
        srv.wait_ready()
        items = srv.get_json("/api/v1/claims")["items"]
        assert [c["name"] for c in items] == ["only-claim"]
        assert srv.get_json("/api/v1/summary")["counts"]["devices"] == 0
    finally:
        srv.stop()
        shutil.rmtree(d)


def run_tap(tests):
    """Runs `tests` (functions), printing TAP; returns how many failed."""
    print("1..%d" % len(tests), flush=True)
    failed = 0
    for i, t in enumerate(tests, 1):
        name = t.__name__.replace("_", " ")
        try:
            t()
            print("ok %d - %s" % (i, name), flush=True)
        except Exception:  # noqa: BLE001 - every failure is reported as TAP
            failed += 1
            print("not ok %d - %s" % (i, name), flush=True)
            for line in traceback.format_exc().splitlines():
                print("# " + line, flush=True)
    return failed


def main():
    global DEMO, WATCH
    WATCH = tempfile.mkdtemp()
    DEMO = Server("--demo", "--watch-dir", WATCH, "--rate-limit", "0")
    failed = 0
    try:
        DEMO.wait_ready()
        failed = run_tap(TESTS)
    finally:
        DEMO.stop()
        shutil.rmtree(WATCH, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
