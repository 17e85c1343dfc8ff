#!/usr/bin/env python3
"""Defrag advice against the real scheduler (tests/cluster/whatif_defrag_run starts this).

Two fragmented states, each made by kube-scheduler itself: pods with one-device claims fill every
device, then some of them are deleted (churn), which leaves free devices scattered. A shape pod that
needs the free devices together is then unschedulable. `draforge whatif fragmentation --kubeconfig
... --shape-pod` reads the live cluster and advises moves; the test performs them as the advice
defines a move (docs/whatif.md, "Defrag advice"): each moved pod is deleted, its template claim
garbage-collected, and the pod created again with the same spec plus required node affinity
`matchFields: metadata.name In [toNode]`; the scheduler allocates its claim again. Then:

  * the moved pod binds to the advised node, and its new claim gets the advised devices;
  * the shape pod, pending before, binds (to the advised node) with the advised devices;
  * the fragmentation figures of the live state are the documented ones.

Scenarios:
  nodes      node-1 and node-2 with 2 GPUs each; one GPU taken on each; the shape needs 2 GPUs on
             one node. Advice: move node-1's pod to node-2.
  partitions node-1 with two partitionable GPUs (80Gi counters each, offered whole or as two 40Gi
             halves); one half taken on each GPU; the shape needs one whole GPU. Advice: move the
             pod on gpu-1's half; first fit puts it on gpu-0's free half, which frees gpu-1.

Arguments: CLI REPO. Prints one line per test and "N passed, N failed".
"""
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import whatif_cluster as wc  # noqa: E402

NS = "default"
DRIVER = "gpu.example.com"


def slice_(name, node, devices=None, counters=None, count=1):
    spec = {"driver": DRIVER, "nodeName": node,
            "pool": {"name": node, "generation": 1, "resourceSliceCount": count}}
    if devices is not None:
        spec["devices"] = devices
    if counters is not None:
        spec["sharedCounters"] = counters
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": name}, "spec": spec}


def device_class(name, expr):
    return {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": name},
            "spec": {"selectors": [{"cel": {"expression": expr}}]}}


def template(name, cls, count=1):
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
            "metadata": {"name": name, "namespace": NS},
            "spec": {"spec": {"devices": {"requests": [
                {"name": "gpus", "exactly": {"deviceClassName": cls, "allocationMode": "ExactCount",
                                             "count": count}}]}}}}


def pod(name, tmpl, affinity=None):
    p = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": NS},
         "spec": {"containers": [{"name": "main", "image": "registry.example/app:1",
                                  "resources": {"requests": {"cpu": "100m"}}}],
                  "resourceClaims": [{"name": "gpus", "resourceClaimTemplateName": tmpl}],
                  "terminationGracePeriodSeconds": 0}}
    if affinity:
        p["spec"]["affinity"] = affinity
    return p


def pinned(node):
    return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchFields": [{"key": "metadata.name", "operator": "In", "values": [node]}]}]}}}


def devices_of(kube, name):
    """(node, ["driver/pool/device", ...]) of pod `name` as the API server holds it."""
    p, claims = kube.read_back(NS, name)
    out = []
    for c in claims:
        for r in ((c.get("status") or {}).get("allocation") or {}).get("devices", {}).get("results") or []:
            out.append(f"{r['driver']}/{r['pool']}/{r['device']}")
    return p["spec"].get("nodeName"), sorted(out)


def advise(cli, kubeconfig, shape_pod):
    r = subprocess.run([cli, "whatif", "fragmentation", "--kubeconfig", kubeconfig, "--shape-pod",
                        f"{NS}/{shape_pod}", "-o", "json"], capture_output=True, text=True, timeout=300)
    if r.returncode not in (0, 1):
        raise RuntimeError(f"draforge whatif fragmentation: exit {r.returncode}: {r.stderr[-2000:]}")
    return json.loads(r.stdout)


def fill_then_churn(kube, prefix, tmpl, count, delete):
    """Creates `count` one-device pods (one at a time, each bound before the next), then deletes
    those for which delete(node, devices) holds; returns {pod: (node, devices)} of the kept ones."""
    placed = {}
    for i in range(count):
        name = f"{prefix}-{i}"
        kube.create(pod(name, tmpl))
        verdict, where = kube.wait_scheduled(NS, name, timeout=60)
        if verdict != "bound":
            raise RuntimeError(f"{name} did not bind: {where}")
        placed[name] = devices_of(kube, name)
    kept = {}
    for name, (node, devs) in placed.items():
        if delete(node, devs):
            kube.delete("Pod", name, NS)
        else:
            kept[name] = (node, devs)
    for name in placed:
        if name not in kept:
            kube.wait_gone("Pod", name, NS)
    return placed, kept


def perform(kube, advice, pods_spec):
    """Performs the advice's moves as documented; returns problems."""
    problems = []
    for m in advice["moves"]:
        for name in m["pods"]:
            ns, n = name.split("/", 1)
            claims = [c.split("/", 1)[1] for c in m["claims"]]
            kube.delete("Pod", n, ns)
            kube.wait_gone("Pod", n, ns)
            for c in claims:  # the template claim goes with the pod (garbage collector)
                kube.wait_gone("ResourceClaim", c, ns)
            kube.create(pod(n, pods_spec[n], pinned(m["toNode"])))
            verdict, where = kube.wait_scheduled(ns, n, timeout=60)
            if verdict != "bound":
                problems.append(f"moved pod {name}: {verdict}: {where}")
                continue
            node, devs = devices_of(kube, n)
            if node != m["toNode"]:
                problems.append(f"moved pod {name} bound to {node}, advice said {m['toNode']}")
            if devs != sorted(m["toDevices"]):
                problems.append(f"moved pod {name} got {devs}, advice said {sorted(m['toDevices'])}")
    return problems


def shape_devices(advice):
    out = []
    for c in advice["shapeClaims"]:
        for r in c["results"]:
            out.append(f"{r['driver']}/{r['pool']}/{r['device']}")
    return sorted(out)


class Scenario:
    def __init__(self, cp, cli):
        self.cp = cp
        self.kube = cp.kube
        self.cli = cli
        self.advice = None
        self.frag = None
        self.pods_spec = {}

    def shape_pending(self, shape, tmpl):
        self.kube.create(pod(shape, tmpl))
        verdict, where = self.kube.wait_scheduled(NS, shape, timeout=60)
        if verdict != "unschedulable":
            return [f"shape pod {shape} should be unschedulable in the fragmented state, got {verdict} {where}"]
        self.frag = advise(self.cli, self.cp.kubeconfig, shape)
        self.advice = self.frag.get("advice") or {}
        return []

    def moves_then_shape_binds(self, shape, want_moves):
        a = self.advice
        if not a or not a.get("found"):
            return [f"no advice: {json.dumps(a)[:600]}"]
        if len(a["moves"]) != want_moves:
            return [f"advice has {len(a['moves'])} moves, want {want_moves}: {json.dumps(a['moves'])}"]
        problems = perform(self.kube, a, self.pods_spec)
        verdict, where = self.kube.wait_scheduled(NS, shape, timeout=90)
        if verdict != "bound":
            return problems + [f"shape pod {shape} after the moves: {verdict}: {where}"]
        node, devs = devices_of(self.kube, shape)
        if node != a["shapeNode"]:
            problems.append(f"shape pod bound to {node}, advice said {a['shapeNode']}")
        if devs != shape_devices(a):
            problems.append(f"shape pod got {devs}, advice said {shape_devices(a)}")
        return problems

    def cleanup(self, slices):
        self.kube.delete_all("Pod", NS)
        for p in self.kube.list("Pod", NS):
            self.kube.wait_gone("Pod", p["metadata"]["name"], NS)
        deadline = time.monotonic() + 60
        while self.kube.list("ResourceClaim", NS) and time.monotonic() < deadline:
            time.sleep(0.2)
        for s in slices:
            self.kube.delete("ResourceSlice", s)


def main():
    cli, repo = sys.argv[1], sys.argv[2]
    report = wc.Report()
    with wc.ControlPlane(repo, "--nodes", "2") as cp:
        kube = cp.kube
        kube.create(device_class("gpu", f'device.driver == "{DRIVER}"'))
        kube.create(device_class("gpu-whole", f'device.driver == "{DRIVER}" && '
                                              f'device.attributes["{DRIVER}"].profile == "whole"'))
        kube.create(device_class("gpu-half", f'device.driver == "{DRIVER}" && '
                                             f'device.attributes["{DRIVER}"].profile == "half"'))
        kube.create(template("one-gpu", "gpu"))
        kube.create(template("two-gpus", "gpu", 2))
        kube.create(template("half-gpu", "gpu-half"))
        kube.create(template("whole-gpu", "gpu-whole"))

        # --- nodes: one GPU free on each of two nodes, a pod wants two on one node ---------------
        s = Scenario(cp, cli)
        slices = []
        for node in ("node-1", "node-2"):
            kube.create(slice_(f"{node}-gpus", node, [{"name": "gpu-0"}, {"name": "gpu-1"}]))
            slices.append(f"{node}-gpus")
        seen = set()

        def one_per_node(node, devs):
            if node in seen:
                return False
            seen.add(node)
            return True

        def fill():
            placed, kept = fill_then_churn(kube, "small", "one-gpu", 4, one_per_node)
            s.pods_spec.update({n: "one-gpu" for n in placed})
            nodes = sorted(n for n, _ in kept.values())
            return [] if nodes == ["node-1", "node-2"] else [f"kept pods on {nodes}, want one per node"]

        report.check("nodes: the scheduler fills 4 GPUs, churn leaves one free on each node", fill)
        report.check("nodes: the 2-GPU pod is unschedulable; draforge advises", s.shape_pending, "pair", "two-gpus")

        def nodes_figures():
            k = [x for x in s.frag["kinds"] if x["driver"] == DRIVER]
            if len(k) != 1 or k[0]["fit"] != 2 or k[0]["largestFit"] != 1 or abs(k[0]["score"] - 0.5) > 1e-9:
                return [f"cluster kinds: {k}, want fit 2, largestFit 1, score 0.5"]
            m = s.advice["moves"][0] if s.advice.get("moves") else {}
            if m.get("fromNode") != "node-1" or m.get("toNode") != "node-2":
                return [f"move {m}, want node-1 -> node-2"]
            return []

        report.check("nodes: fragmentation 0.5 across the cluster; advice moves node-1's pod to node-2", nodes_figures)
        report.check("nodes: after the move, done on the cluster, the 2-GPU pod binds where advised",
                     s.moves_then_shape_binds, "pair", 1)
        s.cleanup(slices)

        # --- partitions: a half taken on each of two GPUs, a pod wants a whole GPU ----------------
        s = Scenario(cp, cli)
        kube.create(slice_("node-1-counters", "node-1", counters=[
            {"name": "gpu-0", "counters": {"memory": {"value": "80Gi"}}},
            {"name": "gpu-1", "counters": {"memory": {"value": "80Gi"}}}], count=2))
        devs = []
        for g in ("gpu-0", "gpu-1"):
            devs.append({"name": g, "attributes": {"profile": {"string": "whole"}},
                         "consumesCounters": [{"counterSet": g, "counters": {"memory": {"value": "80Gi"}}}]})
            for h in ("half-0", "half-1"):
                devs.append({"name": f"{g}-{h}", "attributes": {"profile": {"string": "half"}},
                             "consumesCounters": [{"counterSet": g, "counters": {"memory": {"value": "40Gi"}}}]})
        kube.create(slice_("node-1-gpus", "node-1", devs, count=2))
        slices = ["node-1-counters", "node-1-gpus"]
        drop = {f"{DRIVER}/node-1/gpu-0-half-0", f"{DRIVER}/node-1/gpu-1-half-1"}

        def fill_halves():
            placed, kept = fill_then_churn(kube, "half", "half-gpu", 4, lambda node, d: bool(set(d) & drop))
            s.pods_spec.update({n: "half-gpu" for n in placed})
            held = sorted(d for _, ds in kept.values() for d in ds)
            want = [f"{DRIVER}/node-1/gpu-0-half-1", f"{DRIVER}/node-1/gpu-1-half-0"]
            return [] if held == want else [f"kept halves {held}, want {want}"]

        report.check("partitions: the scheduler fills 4 halves, churn leaves one half on each GPU", fill_halves)
        report.check("partitions: the whole-GPU pod is unschedulable; draforge advises",
                     s.shape_pending, "whole", "whole-gpu")

        def partition_figures():
            node = [n for n in s.frag["nodes"] if n["node"] == "node-1"]
            whole = [k for k in node[0]["kinds"] if k["size"] == "memory=80Gi"] if node else []
            if not whole or (whole[0]["fit"], whole[0]["ideal"], whole[0]["score"]) != (0, 1, 1.0):
                return [f"node-1 whole kind: {whole}, want fit 0, ideal 1, score 1.0"]
            m = s.advice["moves"][0] if s.advice.get("moves") else {}
            if m.get("toDevices") != [f"{DRIVER}/node-1/gpu-0-half-0"]:
                return [f"move {m}, want the half on gpu-1 moved to gpu-0-half-0"]
            return []

        report.check("partitions: whole-GPU score 1.0 on node-1; advice packs the halves on gpu-0", partition_figures)
        report.check("partitions: after the move, done on the cluster, the whole-GPU pod binds where advised",
                     s.moves_then_shape_binds, "whole", 1)
        s.cleanup(slices)
    return report.finish()


if __name__ == "__main__":
    sys.exit(main())
