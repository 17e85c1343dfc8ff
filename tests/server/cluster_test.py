#!/usr/bin/env python3
"""draforge-server against a real control plane (tests/cluster/up): every endpoint per the OpenAPI
document, a change made with kubectl reaches an SSE client, mutations get 405, /readyz is 503 while
the store cannot sync (an identity without RBAC rights) and 200 once synced, and --delegate-auth
(TokenReview and SubjectAccessReview against the cluster's RBAC, with its static tokens).

Usage: cluster_test.py SERVER ADMIN_KUBECONFIG RESTRICTED_KUBECONFIG KUBECTL
Prints one line per test and a last line "N passed, N failed" (tests/server/run_cluster runs it).
"""
import json
import os
import shutil
import tempfile
import socket
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
        status, headers, body = LIVE.request("GET", api.endpoint_target(path))
        # The what-if routes that name a pod or PodGroup (the document's example is the demo's)
        # may find none in this cluster: 404 naming it is their documented answer then;
        # whatif_api_test.py checks their 200 answers on scenarios that have them.
        op = api.OPENAPI["paths"][path]["get"]
        names_an_object = "404" in op["responses"] and any(p.get("required") for p in op.get("parameters", []))
        if names_an_object and status == 404:
            assert "not found" in json.loads(body)["error"]["message"], body[:300]
        else:
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


READER_ROLE = """apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: draforge-server-it-reader}
rules:
- nonResourceURLs: ["/draforge-server/api/v1/*"]
  verbs: ["get"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: draforge-server-it-reader}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: draforge-server-it-reader}
subjects:
- {apiGroup: rbac.authorization.k8s.io, kind: User, name: draforge-restricted}
"""


def _token(variable):
    with open(os.environ[variable]) as f:
        return f.read().strip()


@test
def delegate_auth_asks_the_api_server_who_may_read():
    srv = api.Server("--kubeconfig", ADMIN, "--rate-limit", "0", "--delegate-auth")
    admin, restricted = _token("KUBE_ADMIN_TOKEN_FILE"), _token("KUBE_RESTRICTED_TOKEN_FILE")
    try:
        # Probes need no token; everything else does.
        assert srv.request("GET", "/healthz")[0] == 200
        api.wait_until("ready", lambda: srv.request("GET", "/readyz")[0] == 200)
        status, headers, body = srv.request("GET", "/api/v1/summary")
        assert status == 401 and headers.get("www-authenticate") == "Bearer", (status, headers)
        api.check_response("/api/v1/summary", status, headers, body)
        status, _, body = srv.request("GET", "/api/v1/summary", headers={"Authorization": "Bearer not-a-token"})
        assert status == 401, (status, body)
        # A user the API server knows but RBAC grants nothing: 403 naming the user and the path.
        bearer = {"Authorization": "Bearer " + restricted}
        status, _, body = srv.request("GET", "/api/v1/summary", headers=bearer)
        assert status == 403, (status, body)
        message = json.loads(body)["error"]["message"]
        assert "draforge-restricted" in message and "/draforge-server/api/v1/summary" in message, message
        # system:masters may read everything, the event stream included.
        status, _, body = srv.request("GET", "/api/v1/summary", headers={"Authorization": "Bearer " + admin})
        assert status == 200 and json.loads(body)["counts"]["resourceSlices"] >= 1, (status, body[:200])
        stream = socket.create_connection((srv.host, srv.port), timeout=30)
        stream.sendall(("GET /api/v1/events HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer %s\r\n\r\n"
                        % admin).encode())
        head = b""
        while b"event: hello" not in head:
            chunk = stream.recv(4096)
            assert chunk, head
            head += chunk
        assert head.startswith(b"HTTP/1.1 200 "), head[:200]
        stream.close()
        # A ClusterRole on the non-resource URLs /draforge-server/api/v1/* lets the restricted user
        # read the API, and nothing else (/metrics). Verdicts are kept 10 s: wait for the new one.
        kubectl("apply", "-f", "-", stdin=READER_ROLE)
        try:
            api.wait_until("the role is honoured",
                           lambda: srv.request("GET", "/api/v1/summary", headers=bearer)[0] == 200)
            status, _, _ = srv.request("GET", "/api/v1/pools", headers=bearer)
            assert status == 200, status
            status, _, _ = srv.request("GET", "/metrics", headers=bearer)
            assert status == 403, status
        finally:
            kubectl("delete", "-f", "-", stdin=READER_ROLE)
    finally:
        srv.stop()


@test
def packages_count_within_the_clusters_resource_quotas():
    # The server watches ResourceQuotas: a quota made with kubectl caps /api/v1/packages?quota=true,
    # as it caps what the namespace may create.
    d = tempfile.mkdtemp()
    catalog = os.path.join(d, "catalog.yaml")
    with open(catalog, "w") as f:
        f.write("packages:\n- id: srv-one\n  specName: srv.one\n  cpu: 100m\n  memory: 64Mi\n  gpu: 1\n"
                "  allocation: {deviceClassName: srv-it, claimRequestName: dev, count: 1}\n")
    srv = api.Server("--kubeconfig", ADMIN, "--rate-limit", "0", "--package-catalog", catalog)
    try:
        srv.wait_ready(timeout=60)

        def totals():
            got = srv.get_json("/api/v1/packages?namespace=%s&quota=true" % NS)
            api.validate(api.OPENAPI["components"]["schemas"]["Packages"], got)
            return got["packages"][0]["capacity"]

        free = api.wait_until("the slice's two devices count", lambda: (lambda c: c if c["total"] == 2 else None)(totals()))
        assert free["stop"] == "exhausted", free
        kubectl("apply", "-f", "-", stdin=QUOTA)
        capped = api.wait_until("the quota caps the package",
                                lambda: (lambda c: c if c["total"] == 1 else None)(totals()))
        assert capped["stop"] == "quota" and "%s/srv-it-devices" % NS in capped["quota"]["quotas"], capped
        assert srv.get_json("/api/v1/packages?namespace=%s" % NS)["packages"][0]["capacity"]["total"] == 2
    finally:
        srv.stop()
        shutil.rmtree(d)
        subprocess.run([KUBECTL, "--kubeconfig", ADMIN, "delete", "resourcequota", "-n", NS, "srv-it-devices"],
                       capture_output=True, timeout=60)


QUOTA = """apiVersion: v1
kind: ResourceQuota
metadata: {name: srv-it-devices, namespace: %s}
spec:
  hard: {srv-it.deviceclass.resource.k8s.io/devices: "1"}
""" % NS


@test
def delegate_auth_needs_a_cluster():
    r = subprocess.run([SERVER, "--demo", "--delegate-auth"], capture_output=True, text=True, timeout=30)
    assert r.returncode == 2 and "--delegate-auth needs a cluster" in r.stderr, (r.returncode, r.stderr)


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
