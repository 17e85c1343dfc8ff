"""What-if questions checked against a real control plane: the pieces every tests/cluster/whatif_*
test shares.

  ControlPlane   tests/cluster/up with kube-scheduler and kube-controller-manager, stopped on exit
  Kube           a small client of kube-apiserver (bearer token, the cluster's CA): create, get,
                 list, patch, delete any object by its kind; wait for a pod to be bound or found
                 unschedulable; read a pod back with its claims
  Draforge       the draforge CLI over a list of objects: `whatif replay` (and any other command) on
                 a snapshot written to a temporary file
  Report         "ok - NAME" / "not ok - NAME" lines and the closing "N passed, N failed"

No dependency beyond the Python standard library and PyYAML (already needed by tests/cluster).
"""
import contextlib
import json
import os
import ssl
import subprocess
import sys
import tempfile
import time
import traceback
import urllib.error
import urllib.parse
import urllib.request

# REST path of each kind this package creates: (API prefix, resource, namespaced).
KINDS = {
    "Node": ("/api/v1", "nodes", False),
    "Pod": ("/api/v1", "pods", True),
    "Namespace": ("/api/v1", "namespaces", False),
    "PriorityClass": ("/apis/scheduling.k8s.io/v1", "priorityclasses", False),
    "PodDisruptionBudget": ("/apis/policy/v1", "poddisruptionbudgets", True),
    "DeviceClass": ("/apis/resource.k8s.io/v1", "deviceclasses", False),
    "ResourceClaim": ("/apis/resource.k8s.io/v1", "resourceclaims", True),
    "ResourceClaimTemplate": ("/apis/resource.k8s.io/v1", "resourceclaimtemplates", True),
    "ResourceSlice": ("/apis/resource.k8s.io/v1", "resourceslices", False),
    "DeviceTaintRule": ("/apis/resource.k8s.io/v1alpha3", "devicetaintrules", False),
    "Workload": ("/apis/scheduling.k8s.io/v1beta1", "workloads", True),
    "PodGroup": ("/apis/scheduling.k8s.io/v1beta1", "podgroups", True),
}

# Fields the API server fills in that a snapshot for DRAForge does not need.
SERVER_FIELDS = ("managedFields",)


class ApiError(Exception):
    def __init__(self, code, body, what):
        super().__init__(f"{what}: HTTP {code}: {body[:500]}")
        self.code = code


class Kube:
    """kube-apiserver at `server` with the admin bearer token; `env` is tests/cluster/up's DIR/env."""

    def __init__(self, env):
        self.server = env["KUBE_APISERVER"]
        with open(env["KUBE_ADMIN_TOKEN_FILE"]) as f:
            self.token = f.read().strip()
        self.ctx = ssl.create_default_context(cafile=env["KUBE_CA"])

    @staticmethod
    def path(kind, namespace=None, name=None, sub=None):
        prefix, resource, namespaced = KINDS[kind]
        p = prefix
        if namespaced:
            p += f"/namespaces/{namespace or 'default'}"
        p += f"/{resource}"
        if name:
            p += f"/{name}"
        if sub:
            p += f"/{sub}"
        return p

    def request(self, method, path, body=None, content_type="application/json", what=None):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.server + path, data=data, method=method)
        req.add_header("Authorization", f"Bearer {self.token}")
        req.add_header("Accept", "application/json")
        if data is not None:
            req.add_header("Content-Type", content_type)
        try:
            with urllib.request.urlopen(req, context=self.ctx, timeout=60) as r:
                return json.loads(r.read() or b"null")
        except urllib.error.HTTPError as e:
            raise ApiError(e.code, e.read().decode(errors="replace"), what or f"{method} {path}") from None

    def create(self, obj):
        kind = obj["kind"]
        ns = obj["metadata"].get("namespace")
        return self.request("POST", self.path(kind, ns), obj, what=f"create {kind} {obj['metadata']['name']}")

    def get(self, kind, name, namespace=None):
        return self.request("GET", self.path(kind, namespace, name), what=f"get {kind} {name}")

    def list(self, kind, namespace=None, selector=None):
        prefix, resource, namespaced = KINDS[kind]
        p = self.path(kind, namespace) if namespace or not namespaced else f"{prefix}/{resource}"
        if selector:
            p += "?labelSelector=" + urllib.parse.quote(selector)
        return self.request("GET", p, what=f"list {kind}")["items"]

    def patch(self, kind, name, patch, namespace=None, sub=None):
        return self.request("PATCH", self.path(kind, namespace, name, sub), patch,
                            content_type="application/merge-patch+json", what=f"patch {kind} {name}")

    def delete(self, kind, name, namespace=None, grace=0):
        try:
            self.request("DELETE", self.path(kind, namespace, name), {"gracePeriodSeconds": grace},
                         what=f"delete {kind} {name}")
        except ApiError as e:
            if e.code != 404:
                raise

    def delete_all(self, kind, namespace=None, selector=None, grace=0):
        for o in self.list(kind, namespace, selector):
            self.delete(kind, o["metadata"]["name"], o["metadata"].get("namespace"), grace)

    def wait_gone(self, kind, name, namespace=None, timeout=60):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                self.get(kind, name, namespace)
            except ApiError as e:
                if e.code == 404:
                    return
                raise
            time.sleep(0.1)
        raise TimeoutError(f"{kind} {namespace}/{name} still there after {timeout} s")

    def wait_scheduled(self, namespace, name, timeout=60):
        """("bound", node) once spec.nodeName is set, or ("unschedulable", message) once the scheduler
        has tried the pod on every node and found none: PodScheduled False with reason Unschedulable,
        while every claim of the pod exists (before that the scheduler only waits for the resourceclaim
        controller, and says so in the same condition)."""
        deadline = time.monotonic() + timeout
        pod = None
        while time.monotonic() < deadline:
            pod = self.get("Pod", name, namespace)
            node = (pod.get("spec") or {}).get("nodeName")
            if node:
                return "bound", node
            for c in (pod.get("status") or {}).get("conditions") or []:
                if c.get("type") == "PodScheduled" and c.get("status") == "False" and \
                        c.get("reason") == "Unschedulable" and self.claims_exist(pod):
                    # The condition may predate the last claim's creation: only a verdict written
                    # after every claim existed counts, so look once more after the scheduler's
                    # retry on the claim's creation event.
                    time.sleep(0.3)
                    again = self.get("Pod", name, namespace)
                    if (again.get("spec") or {}).get("nodeName"):
                        return "bound", again["spec"]["nodeName"]
                    if self.unschedulable_since_claims(again):
                        return "unschedulable", c.get("message", "")
            time.sleep(0.05)
        raise TimeoutError(f"pod {namespace}/{name} neither bound nor unschedulable after {timeout} s: "
                           f"{json.dumps((pod or {}).get('status'))[:800]}")

    def claim_names(self, pod):
        """The ResourceClaims `pod` uses, by name: its own and those made from its templates (known
        once the resourceclaim controller recorded them in status.resourceClaimStatuses)."""
        ns = pod["metadata"].get("namespace", "default")
        statuses = {s["name"]: s.get("resourceClaimName")
                    for s in (pod.get("status") or {}).get("resourceClaimStatuses") or []}
        out = []
        for c in (pod.get("spec") or {}).get("resourceClaims") or []:
            if c.get("resourceClaimName"):
                out.append((ns, c["resourceClaimName"]))
            elif c["name"] in statuses and statuses[c["name"]]:
                out.append((ns, statuses[c["name"]]))
            else:
                out.append((ns, None))
        return out

    def claims_exist(self, pod):
        for ns, name in self.claim_names(pod):
            if name is None:
                return False
            try:
                self.get("ResourceClaim", name, ns)
            except ApiError as e:
                if e.code == 404:
                    return False
                raise
        return True

    def unschedulable_since_claims(self, pod):
        for c in (pod.get("status") or {}).get("conditions") or []:
            if c.get("type") == "PodScheduled" and c.get("status") == "False" and c.get("reason") == "Unschedulable":
                return self.claims_exist(pod) and "waiting for" not in c.get("message", "")
        return False

    def read_back(self, namespace, name):
        """The pod as the API server holds it now, and its claims (as API objects)."""
        pod = self.get("Pod", name, namespace)
        claims = [self.get("ResourceClaim", n, ns) for ns, n in self.claim_names(pod) if n]
        return clean(pod), [clean(c) for c in claims]


def clean(obj):
    """`obj` without the fields a snapshot does not need (managedFields)."""
    meta = obj.get("metadata") or {}
    for f in SERVER_FIELDS:
        meta.pop(f, None)
    return obj


def with_kind(items, kind, api_version):
    """List items come without kind and apiVersion; a snapshot needs both."""
    for o in items:
        o["kind"] = kind
        o["apiVersion"] = api_version
        clean(o)
    return items


class ControlPlane(contextlib.AbstractContextManager):
    """tests/cluster/up --scheduler --controller-manager (plus `args`), stopped by __exit__."""

    def __init__(self, repo, *args):
        self.repo = repo
        out = subprocess.run([os.path.join(repo, "tests", "cluster", "up"), "--scheduler", "--controller-manager",
                              *args], capture_output=True, text=True)
        if out.returncode != 0:
            raise RuntimeError(f"tests/cluster/up failed: {out.stderr[-3000:]}")
        line = [x for x in out.stdout.splitlines() if x.startswith("KUBECONFIG=")][-1]
        self.kubeconfig = line.split("=", 1)[1]
        self.dir = os.path.dirname(self.kubeconfig)
        dump = subprocess.run(["bash", "-c", 'set -a; source "$1"; env -0', "-", os.path.join(self.dir, "env")],
                              capture_output=True, text=True, check=True).stdout
        self.env = dict(x.split("=", 1) for x in dump.split("\0") if "=" in x)
        self.kube = Kube(self.env)

    def __exit__(self, *exc):
        subprocess.run([os.path.join(self.repo, "tests", "cluster", "down"), "--dir", self.dir],
                       stdout=sys.stderr, stderr=sys.stderr)
        return False


class Draforge:
    """The draforge CLI at `cli`, run on snapshots made of object lists."""

    def __init__(self, cli):
        self.cli = cli

    def run(self, objects, *args, ok_codes=(0, 1)):
        with tempfile.NamedTemporaryFile("w", suffix=".yaml", prefix="whatif-") as f:
            for o in objects:
                f.write("---\n")
                json.dump(o, f)
                f.write("\n")
            f.flush()
            r = subprocess.run([self.cli, *args, "-f", f.name], capture_output=True, text=True, timeout=600)
        if r.returncode not in ok_codes:
            raise RuntimeError(f"draforge {' '.join(args)}: exit {r.returncode}: {r.stderr[-2000:]}")
        return r.stdout

    def json(self, objects, *args):
        return json.loads(self.run(objects, *args, "-o", "json"))

    def replay(self, objects, *args):
        return self.json(objects, "whatif", "replay", *args)


class Report:
    """One line per test, then "N passed, N failed"."""

    def __init__(self):
        self.passed = 0
        self.failed = 0

    def ok(self, name):
        self.passed += 1
        print(f"ok - {name}", flush=True)

    def fail(self, name, why):
        self.failed += 1
        print(f"not ok - {name}\n  " + str(why).replace("\n", "\n  "), flush=True)

    def check(self, name, fn, *args):
        """Runs fn(*args); an exception or a returned non-empty list of problems is a failure."""
        try:
            problems = fn(*args)
        except Exception:  # noqa: BLE001 (report every failure and go on)
            self.fail(name, traceback.format_exc())
            return None
        if problems:
            self.fail(name, "\n".join(problems[:20]) + (f"\n... {len(problems) - 20} more" if len(problems) > 20 else ""))
        else:
            self.ok(name)
        return problems

    def finish(self):
        print(f"{self.passed} passed, {self.failed} failed", flush=True)
        return 1 if self.failed else 0
