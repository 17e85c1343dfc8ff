#!/usr/bin/env python3
"""draforge-server against a real control plane (tests/cluster/up): every endpoint per the OpenAPI
document, a change made with kubectl reaches an SSE client, mutations get 405, /readyz is 503 while
the store cannot sync (an identity without RBAC rights) and 200 once synced.

Usage: cluster_test.py SERVER ADMIN_KUBECONFIG RESTRICTED_KUBECONFIG KUBECTL
Prints one line per test and a last line "N passed, N failed" (tests/server/run_cluster runs it).
"""
import json
import subprocess
import sys
import time
import traceback

SERVER, ADMIN, RESTRICTED, KUBECTL = sys.argv[1:5]
sys.argv = [sys.argv[0], SERVER]
sys.dont_write_bytecode = True  # keep the source tree clean
import server_api_test as api  # noqa: E402  (shares the server harness and the schema checks)

NS = "draforge-server-it"


def kubectl(*args, stdin=None):
    r = subprocess.run([KUBECTL, "--kubeconfig", ADMIN, *args], input=stdin, capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 0, (args, r.stderr)
    return r.stdout


SLICE = """apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: srv-it-node-1}
spec:
  driver: srv-it.example.com
  nodeName: node-1
  pool: {name: node-1, generation: 1, resourceSliceCount: 1}
  devices:
  - name: dev-0
    attributes: {model: {string: X1}}
  - name: dev-1
    attributes: {model: {string: X1}}
"""

CLAIM = """apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: %s, namespace: %s}
spec:
  devices:
    requests:
    - name: r
      exactly: {deviceClassName: srv-it}
"""

CLASS = """apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: srv-it}
spec:
  selectors:
  - cel: {expression: "device.driver == 'srv-it.example.com'"}
"""

TESTS = []
LIVE = None


def test(fn):
    TESTS.append(fn)
    return fn


@test
def readyz_is_503_while_the_store_cannot_sync():
    srv = api.Server("--kubeconfig", RESTRICTED)
    try:
        # Ask only once the API server has refused the server's list (its log says so): after a
        # fixed sleep the server might not have asked yet, and 503 would then prove nothing.
        api.wait_until("the API server refused the restricted identity's list",
                       lambda: "cannot list resource" in srv.stderr_text(), timeout=60)
        status, headers, body = srv.request("GET", "/readyz")
        assert status == 503, (status, body)
        api.check_response("/readyz", status, headers, body)
        assert srv.request("GET", "/healthz")[0] == 200
    finally:
        srv.stop()


@test
def readyz_is_200_once_synced():
    LIVE.wait_ready(timeout=60)
    status, headers, body = LIVE.request("GET", "/readyz")
    assert status == 200 and json.loads(body)["status"] == "ready"


@test
def objects_of_the_cluster_are_served():
    deadline = time.time() + 60
    while time.time() < deadline:
        pools = LIVE.get_json("/api/v1/pools?driver=srv-it.example.com")["items"]
        if pools:
            break
        time.sleep(0.2)
    assert pools and pools[0]["devices"] == 2, pools
    nodes = LIVE.get_json("/api/v1/summary")["counts"]["nodes"]
    assert nodes >= 1, nodes


def _endpoint(path):
    def run():
        status, headers, body = LIVE.request("GET", path)
        assert status == 200, (status, body[:300])
        api.check_response(path, status, headers, body)
    run.__name__ = "GET %s answers per the OpenAPI document (cluster)" % path
    return run


def _fuzz(path):
    def run():
        api.DEMO = LIVE
        api._fuzz_test(path)()
    run.__name__ = "GET %s with fuzzed parameters (cluster)" % path
    return run


for _p, _item in api.OPENAPI["paths"].items():
    if _p != "/api/v1/events":
        TESTS.append(_endpoint(_p))
        if _item["get"].get("parameters"):
            TESTS.append(_fuzz(_p))


@test
def a_change_in_the_cluster_reaches_an_sse_client():
    s = api.EventStream(LIVE)
    try:
        hello = s.next_event()
        assert hello["event"] == "hello"
        kubectl("apply", "-f", "-", stdin=CLAIM % ("sse-claim", NS))
        # Every event on the way must be a valid change event; 30 s bound a hang on a loaded machine.
        api.wait_change(s, {"type": "ADDED", "kind": "ResourceClaim", "namespace": NS, "name": "sse-claim"})
        claims = LIVE.get_json("/api/v1/claims?namespace=" + NS)["items"]
        assert [c["name"] for c in claims] == ["sse-claim"], claims
        kubectl("delete", "resourceclaim", "-n", NS, "sse-claim")
        api.wait_change(s, {"type": "DELETED", "kind": "ResourceClaim", "namespace": NS, "name": "sse-claim"})
    finally:
        s.close()


@test
def resume_after_a_missed_cluster_change():
    # A second stream stays open until the server has published the change, so the resumed stream
    # really missed it (after a fixed sleep the change could still be on its way and would then
    # arrive live, proving nothing about the resume).
    s = api.EventStream(LIVE)
    try:
        hello = s.next_event()
        kubectl("apply", "-f", "-", stdin=CLAIM % ("resume-claim", NS))
        published = api.wait_change(s, {"type": "ADDED", "kind": "ResourceClaim", "namespace": NS,
                                        "name": "resume-claim"})
    finally:
        s.close()
    r = api.EventStream(LIVE, last_event_id=hello["id"])
    try:
        replayed = [r.next_event(timeout=30) for _ in published]
        assert [(e["event"], e["id"], e["data"]) for e in replayed] == \
            [(e["event"], e["id"], e["data"]) for e in published], (replayed, published)
    finally:
        r.close()
        kubectl("delete", "resourceclaim", "-n", NS, "resume-claim")


@test
def mutations_get_405_and_the_cluster_is_untouched():
    before = kubectl("get", "resourceslices", "-o", "name")
    for method in ("POST", "PUT", "PATCH", "DELETE"):
        for path in ("/api/v1/claims", "/api/v1/devices", "/apis/resource.k8s.io/v1/resourceslices/srv-it-node-1",
                     "/api/v1/claims/%s/x" % NS):
            status, headers, _ = LIVE.request(method, path, body=b"{}", headers={"Content-Type": "application/json"})
            assert status == 405, (method, path, status)
    assert kubectl("get", "resourceslices", "-o", "name") == before


def main():
    global LIVE
    kubectl("create", "namespace", NS)
    kubectl("apply", "-f", "-", stdin=SLICE + "---\n" + CLASS)
    LIVE = api.Server("--kubeconfig", ADMIN, "--rate-limit", "0")
    passed = failed = 0
    try:
        for t in TESTS:
            name = t.__name__.replace("_", " ")
            try:
                t()
                passed += 1
                print("ok - %s" % name, flush=True)
            except Exception:  # noqa: BLE001 - reported per test
                failed += 1
                print("not ok - %s" % name, flush=True)
                for line in traceback.format_exc().splitlines():
                    print("# " + line, flush=True)
    finally:
        LIVE.stop()
        subprocess.run([KUBECTL, "--kubeconfig", ADMIN, "delete", "namespace", NS, "--wait=false"],
                       capture_output=True, timeout=60)
        subprocess.run([KUBECTL, "--kubeconfig", ADMIN, "delete", "resourceslice", "srv-it-node-1"],
                       capture_output=True, timeout=60)
        subprocess.run([KUBECTL, "--kubeconfig", ADMIN, "delete", "deviceclass", "srv-it"],
                       capture_output=True, timeout=60)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
