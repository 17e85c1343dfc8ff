#!/usr/bin/env python3
"""Replay against the real kube-scheduler, in follow mode (tests/cluster/whatif_follow_run).

Three scenarios over the 50 fake nodes of one control plane (tests/cluster/up --nodes 50 with
kube-scheduler and kube-controller-manager), each with at least 200 pods, their devices published as
ResourceSlices:

  gpus      8 GPUs per node (two models, PCIe roots), claims of 1-8 GPUs with selectors, a
            matchAttribute constraint and prioritized lists (firstAvailable), device taints some
            claims tolerate, tainted and cordoned nodes, node selectors, cpu requests
  counters  2 partitionable GPUs per node (shared counters: memory and slices; whole, 3g, 2g and 1g
            partitions consuming them), prioritized lists over partitions, tainted nodes and devices
  shared    consumable-capacity NICs (several claims share one NIC's bandwidth) and accelerators
            matched by NUMA node across the two drivers, ResourceClaims shared by 2-3 pods, a
            DeviceTaintRule, required node affinity by zone, prioritized lists

The pods are created one at a time in replay's queue order. Before each, the replay runs on what
the cluster holds (nodes, slices, classes, rules, every earlier pod and claim as read back from the
API server: the real bindings and allocations fed back) plus the new pod, and says where it fits.
Then the pod is created and the real scheduler decides:
  * replay placed it: it must bind, on a node of replay's `feasible` list, and the devices the
    scheduler allocated must be ones replay accepts: the same replay, on that node only with every
    other device of the node tainted, places the pod on exactly those devices;
  * replay left it pending: the scheduler must find it unschedulable.
At the end of a scenario, a node update makes the scheduler retry every unschedulable pod; the pods
replay left pending must stay pending.

Usage: whatif_follow_test.py DRAFORGE_CLI REPO [--pods N] [--scenarios a,b]
Prints one line per check and "N passed, N failed".
"""
import argparse
import os
import random
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from whatif_cluster import ControlPlane, Draforge, Report, clean, with_kind  # noqa: E402

NODES = 50
PRIORITIES = {"low": 10, "mid": 100, "high": 1000}
FOLLOW_TAINT = "draforge.test/follow-not-chosen"


def node_name(i):
    return f"node-{i}"


def slice_obj(name, driver, node, pool_count=1, devices=None, counters=None, scenario=""):
    spec = {"driver": driver, "nodeName": node,
            "pool": {"name": node, "generation": 1, "resourceSliceCount": pool_count}}
    if devices is not None:
        spec["devices"] = devices
    if counters is not None:
        spec["sharedCounters"] = counters
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
            "metadata": {"name": name, "labels": {"draforge.test/scenario": scenario}}, "spec": spec}


def device_class(name, driver):
    return {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": name},
            "spec": {"selectors": [{"cel": {"expression": f"device.driver == '{driver}'"}}]}}


def sel(expr):
    return [{"cel": {"expression": expr}}]


def pod_obj(ns, name, claims, cpu, priority, tolerations=None, node_selector=None, affinity=None):
    spec = {"containers": [{"name": "main", "image": "registry.k8s.io/pause:3.10",
                            "resources": {"requests": {"cpu": str(cpu), "memory": "1Gi"}}}],
            "priorityClassName": priority, "terminationGracePeriodSeconds": 0,
            "resourceClaims": claims}
    if tolerations:
        spec["tolerations"] = tolerations
    if node_selector:
        spec["nodeSelector"] = node_selector
    if affinity:
        spec["affinity"] = affinity
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": ns}, "spec": spec}


def template(ns, name, requests, constraints=None):
    devices = {"requests": requests}
    if constraints:
        devices["constraints"] = constraints
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
            "metadata": {"name": name, "namespace": ns}, "spec": {"spec": {"devices": devices}}}


def claim(ns, name, requests, constraints=None):
    devices = {"requests": requests}
    if constraints:
        devices["constraints"] = constraints
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
            "metadata": {"name": name, "namespace": ns}, "spec": {"devices": devices}}


class Scenario:
    """What a scenario creates: cluster-scoped objects and node patches first, then per pod the
    objects it needs (a template or claims) and the pod itself."""

    def __init__(self, name, ns):
        self.name = name
        self.ns = ns
        self.cluster = []      # DeviceClasses, ResourceSlices, DeviceTaintRules
        self.node_patches = {}  # node -> merge patch of spec
        self.shared = []       # standalone claims created before the pods
        self.pods = []         # (pod, [templates])


# -- scenario "gpus" -----------------------------------------------------------------------------

def scenario_gpus(rng, pods):
    s = Scenario("gpus", "follow-gpus")
    drv = "gpu.follow.example.com"
    s.cluster.append(device_class("follow-gpu", drv))
    for i in range(1, NODES + 1):
        model = "h100" if i % 4 == 0 else "a100"
        devices = []
        for j in range(8):
            d = {"name": f"gpu-{j}",
                 "attributes": {"model": {"string": model}, "index": {"int": j},
                                "pcieRoot": {"string": f"pci-{j // 4}"}},
                 "capacity": {"memory": {"value": "80Gi" if model == "h100" else "40Gi"}}}
            if rng.random() < 0.06:
                d["taints"] = [{"key": "example.com/unhealthy", "value": "ecc", "effect": "NoSchedule"}]
            devices.append(d)
        s.cluster.append(slice_obj(f"{node_name(i)}-follow-gpus", drv, node_name(i), devices=devices, scenario=s.name))
    for i in range(41, NODES + 1):
        s.node_patches[node_name(i)] = {"taints": [{"key": "dedicated", "value": "training", "effect": "NoSchedule"}]}
    s.node_patches[node_name(7)] = {"unschedulable": True}
    tolerate_ecc = [{"key": "example.com/unhealthy", "operator": "Exists", "effect": "NoSchedule"}]
    for p in range(pods):
        name = f"g-{p:03d}"
        kind = rng.choice(["one", "pair", "prefer-h100", "big", "ecc-ok", "one"])
        if kind == "one":
            req = [{"name": "gpu", "exactly": {"deviceClassName": "follow-gpu", "count": 1}}]
            cons = None
        elif kind == "pair":
            req = [{"name": "gpus", "exactly": {"deviceClassName": "follow-gpu", "count": 2}}]
            cons = [{"requests": ["gpus"], "matchAttribute": f"{drv}/pcieRoot"}]
        elif kind == "prefer-h100":
            req = [{"name": "gpu", "firstAvailable": [
                {"name": "h100", "deviceClassName": "follow-gpu", "selectors": sel("device.attributes['" + drv +
                                                                                   "'].model == 'h100'")},
                {"name": "two-a100", "deviceClassName": "follow-gpu", "count": 2,
                 "selectors": sel("device.attributes['" + drv + "'].model == 'a100'")}]}]
            cons = None
        elif kind == "big":
            req = [{"name": "gpus", "firstAvailable": [
                {"name": "four-h100", "deviceClassName": "follow-gpu", "count": 4,
                 "selectors": sel(f"device.capacity['{drv}'].memory.compareTo(quantity('80Gi')) >= 0")},
                {"name": "eight", "deviceClassName": "follow-gpu", "count": 8}]}]
            cons = None
        else:
            req = [{"name": "gpu", "exactly": {"deviceClassName": "follow-gpu", "count": 1,
                                               "tolerations": tolerate_ecc}}]
            cons = None
        tolerations = [{"key": "dedicated", "operator": "Equal", "value": "training", "effect": "NoSchedule"}] \
            if rng.random() < 0.3 else None
        node_selector = {"topology.kubernetes.io/zone": "zone-b"} if rng.random() < 0.1 else None
        t = template(s.ns, name, req, cons)
        pod = pod_obj(s.ns, name, [{"name": "gpus", "resourceClaimTemplateName": name}],
                      rng.choice([1, 2, 2, 4, 6]), rng.choice(list(PRIORITIES)), tolerations, node_selector)
        s.pods.append((pod, [t]))
    return s


# -- scenario "counters" -------------------------------------------------------------------------

PARTITIONS = [("whole", "7g", 1, "80Gi", 7), ("3g", "3g", 2, "40Gi", 3), ("2g", "2g", 3, "20Gi", 2),
              ("1g", "1g", 7, "10Gi", 1)]


def scenario_counters(rng, pods):
    s = Scenario("counters", "follow-counters")
    drv = "part.follow.example.com"
    s.cluster.append(device_class("follow-part", drv))
    for i in range(1, NODES + 1):
        node = node_name(i)
        counters = [{"name": f"gpu-{g}", "counters": {"memory": {"value": "80Gi"}, "slices": {"value": "7"}}}
                    for g in range(2)]
        devices = []
        for g in range(2):
            for label, profile, n, mem, slices in PARTITIONS:
                for k in range(n):
                    d = {"name": f"gpu-{g}-{label}-{k}" if label != "whole" else f"gpu-{g}",
                         "attributes": {"profile": {"string": profile}, "parent": {"string": f"gpu-{g}"}},
                         "consumesCounters": [{"counterSet": f"gpu-{g}",
                                               "counters": {"memory": {"value": mem}, "slices": {"value": str(slices)}}}]}
                    if label == "whole" and rng.random() < 0.08:
                        d["taints"] = [{"key": "example.com/xid", "value": "79", "effect": "NoSchedule"}]
                    devices.append(d)
        s.cluster.append(slice_obj(f"{node}-follow-counters", drv, node, 2, counters=counters, scenario=s.name))
        s.cluster.append(slice_obj(f"{node}-follow-parts", drv, node, 2, devices=devices, scenario=s.name))
    for i in range(1, 6):
        s.node_patches[node_name(i)] = {"taints": [{"key": "maintenance", "value": "soon", "effect": "NoSchedule"}]}

    def profile(p):
        return sel(f"device.attributes['{drv}'].profile == '{p}'")

    for p in range(pods):
        name = f"c-{p:03d}"
        kind = rng.choice(["small", "3g", "whole", "whole-or-two-3g", "two-2g", "three-1g", "small"])
        if kind == "small":
            req = [{"name": "mig", "firstAvailable": [
                {"name": "1g", "deviceClassName": "follow-part", "selectors": profile("1g")},
                {"name": "2g", "deviceClassName": "follow-part", "selectors": profile("2g")}]}]
        elif kind == "3g":
            req = [{"name": "mig", "exactly": {"deviceClassName": "follow-part", "selectors": profile("3g")}}]
        elif kind == "whole":
            req = [{"name": "gpu", "exactly": {"deviceClassName": "follow-part", "selectors": profile("7g")}}]
        elif kind == "whole-or-two-3g":
            req = [{"name": "gpu", "firstAvailable": [
                {"name": "whole", "deviceClassName": "follow-part", "selectors": profile("7g")},
                {"name": "two-3g", "deviceClassName": "follow-part", "count": 2, "selectors": profile("3g")}]}]
        elif kind == "two-2g":
            req = [{"name": "mig", "exactly": {"deviceClassName": "follow-part", "count": 2,
                                               "selectors": profile("2g")}}]
        else:
            req = [{"name": "mig", "exactly": {"deviceClassName": "follow-part", "count": 3,
                                               "selectors": profile("1g")}}]
        tolerations = [{"key": "maintenance", "operator": "Exists", "effect": "NoSchedule"}] \
            if rng.random() < 0.2 else None
        t = template(s.ns, name, req)
        pod = pod_obj(s.ns, name, [{"name": "gpu", "resourceClaimTemplateName": name}],
                      rng.choice([1, 2, 3]), rng.choice(list(PRIORITIES)), tolerations)
        s.pods.append((pod, [t]))
    return s


# -- scenario "shared" ---------------------------------------------------------------------------

def scenario_shared(rng, pods):
    s = Scenario("shared", "follow-shared")
    nic, acc = "nic.follow.example.com", "acc.follow.example.com"
    s.cluster += [device_class("follow-nic", nic), device_class("follow-acc", acc)]
    for i in range(1, NODES + 1):
        node = node_name(i)
        nics = [{"name": f"nic-{k}", "allowMultipleAllocations": True,
                 "attributes": {"example.com/numa": {"int": k}},
                 "capacity": {"bandwidth": {"value": "100G",
                                            "requestPolicy": {"default": "10G",
                                                              "validRange": {"min": "10G", "step": "10G"}}}}}
                for k in range(2)]
        accs = [{"name": f"acc-{k}", "attributes": {"example.com/numa": {"int": k // 2},
                                                    "generation": {"int": 2 if i % 3 else 3}}}
                for k in range(4)]
        s.cluster.append(slice_obj(f"{node}-follow-nics", nic, node, devices=nics, scenario=s.name))
        s.cluster.append(slice_obj(f"{node}-follow-accs", acc, node, devices=accs, scenario=s.name))
    s.cluster.append({"apiVersion": "resource.k8s.io/v1alpha3", "kind": "DeviceTaintRule",
                      "metadata": {"name": "follow-acc-recall", "labels": {"draforge.test/scenario": s.name}},
                      "spec": {"deviceSelector": {"driver": acc, "pool": node_name(12)},
                               "taint": {"key": "example.com/recall", "value": "batch-7", "effect": "NoSchedule"}}})
    for i in (3, 4):
        s.node_patches[node_name(i)] = {"taints": [{"key": "gpu-only", "value": "yes", "effect": "NoSchedule"}]}

    def acc_req(name):
        return {"name": name, "firstAvailable": [
            {"name": "gen3", "deviceClassName": "follow-acc", "selectors": sel(f"device.attributes['{acc}'].generation == 3")},
            {"name": "any", "deviceClassName": "follow-acc"}]}

    def nic_req(name, gbps):
        return {"name": name, "exactly": {"deviceClassName": "follow-nic",
                                          "capacity": {"requests": {"bandwidth": f"{gbps}G"}}}}

    # Claims shared by 2-3 pods: accelerator + NIC on the same NUMA node.
    n_shared = max(1, pods // 8)
    users = {}
    for k in range(n_shared):
        c = claim(s.ns, f"shared-{k:02d}", [acc_req("acc"), nic_req("nic", rng.choice([20, 30, 40]))],
                  [{"requests": ["acc", "nic"], "matchAttribute": "example.com/numa"}])
        s.shared.append(c)
        users[k] = 0
    for p in range(pods):
        name = f"s-{p:03d}"
        kind = rng.choice(["shared", "nic", "acc-nic", "two-acc", "shared"])
        claims, templates = [], []
        if kind == "shared":
            free = [k for k in users if users[k] < 3]
            if free:
                k = rng.choice(free)
                users[k] += 1
                claims.append({"name": "shared", "resourceClaimName": f"shared-{k:02d}"})
            else:
                kind = "nic"
        if kind == "nic":
            templates.append(template(s.ns, name, [nic_req("nic", rng.choice([10, 20, 30, 50]))]))
        elif kind == "acc-nic":
            templates.append(template(s.ns, name, [acc_req("acc"), nic_req("nic", rng.choice([10, 40]))],
                                      [{"requests": ["acc", "nic"], "matchAttribute": "example.com/numa"}]))
        elif kind == "two-acc":
            templates.append(template(s.ns, name, [{"name": "accs", "exactly": {"deviceClassName": "follow-acc",
                                                                                 "count": 2}}],
                                      [{"requests": ["accs"], "matchAttribute": "example.com/numa"}]))
        if templates:
            claims.append({"name": "own", "resourceClaimTemplateName": name})
        affinity = None
        if rng.random() < 0.15:
            affinity = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
                {"matchExpressions": [{"key": "topology.kubernetes.io/zone", "operator": "In",
                                       "values": [rng.choice(["zone-a", "zone-b"])]}]}]}}}
        pod = pod_obj(s.ns, name, claims, rng.choice([1, 2, 4]), rng.choice(list(PRIORITIES)),
                      affinity=affinity)
        s.pods.append((pod, templates))
    return s


SCENARIOS = {"gpus": scenario_gpus, "counters": scenario_counters, "shared": scenario_shared}


# -- follow mode ---------------------------------------------------------------------------------

def results_key(results):
    """A claim's device results as comparable tuples (shareID, which the scheduler makes random,
    aside)."""
    return sorted((r.get("request"), r.get("driver"), r.get("pool"), r.get("device"),
                   repr(sorted((r.get("consumedCapacity") or {}).items()))) for r in results)


def restricted_to(objects, node, chosen):
    """`objects` with `node` the only node and every device of its slices outside `chosen` (a set of
    (driver, pool, device)) tainted NoSchedule with a key no claim tolerates."""
    out = []
    for o in objects:
        kind = o["kind"]
        if kind == "Node" and o["metadata"]["name"] != node:
            continue
        if kind == "ResourceSlice":
            spec = o["spec"]
            if spec.get("nodeName") != node:
                continue
            o = {**o, "spec": {**spec, "devices": [
                d if (spec["driver"], spec["pool"]["name"], d["name"]) in chosen else
                {**d, "taints": (d.get("taints") or []) + [{"key": FOLLOW_TAINT, "value": "x", "effect": "NoSchedule"}]}
                for d in spec.get("devices") or []]}}
        out.append(o)
    return out


class Follow:
    def __init__(self, cp, draforge, report):
        self.kube = cp.kube
        self.draforge = draforge
        self.report = report

    def setup(self, s):
        k = self.kube
        k.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": s.ns}})
        for node, patch in s.node_patches.items():
            k.patch("Node", node, {"spec": patch})
        for o in s.cluster:
            k.create(o)
        for c in s.shared:
            k.create(c)

    def teardown(self, s):
        k = self.kube
        for pod in k.list("Pod", s.ns):
            k.delete("Pod", pod["metadata"]["name"], s.ns)
        for pod in k.list("Pod", s.ns):
            k.wait_gone("Pod", pod["metadata"]["name"], s.ns)
        for node, patch in s.node_patches.items():
            k.patch("Node", node, {"spec": {key: None for key in patch}})
        k.delete_all("ResourceSlice", selector=f"draforge.test/scenario={s.name}")
        if any(o["kind"] == "DeviceTaintRule" for o in s.cluster):
            k.delete_all("DeviceTaintRule", selector=f"draforge.test/scenario={s.name}")

    def base_objects(self, s):
        """What the cluster holds for the scenario besides its pods and claims, read back."""
        k = self.kube
        objects = with_kind(k.list("Node"), "Node", "v1")
        objects += with_kind(k.list("DeviceClass"), "DeviceClass", "resource.k8s.io/v1")
        objects += with_kind(k.list("ResourceSlice", selector=f"draforge.test/scenario={s.name}"), "ResourceSlice",
                             "resource.k8s.io/v1")
        objects += with_kind(k.list("DeviceTaintRule", selector=f"draforge.test/scenario={s.name}"),
                             "DeviceTaintRule", "resource.k8s.io/v1alpha3")
        objects += with_kind(k.list("ResourceClaimTemplate", s.ns), "ResourceClaimTemplate", "resource.k8s.io/v1")
        return objects

    def run(self, s):
        """Follows scenario `s`; returns the problems found (empty: replay agreed throughout)."""
        self.setup(s)
        for _, templates in s.pods:
            for t in templates:
                self.kube.create(t)
        base = self.base_objects(s)
        pods = {}    # "ns/name" -> the pod as read back
        claims = {}  # "ns/name" -> the claim as read back
        for c in with_kind(self.kube.list("ResourceClaim", s.ns), "ResourceClaim", "resource.k8s.io/v1"):
            claims[f"{s.ns}/{c['metadata']['name']}"] = c
        # Replay's queue order over all the scenario's pods (none created yet).
        local = []
        for pod, _ in s.pods:
            p = dict(pod)
            p["spec"] = {**pod["spec"], "priority": PRIORITIES[pod["spec"]["priorityClassName"]]}
            local.append(p)
        order = self.draforge.replay(base + list(claims.values()) + local, "--no-explain")["order"]
        by_key = {f"{p['metadata']['namespace']}/{p['metadata']['name']}": p for p in local}
        problems = []
        stats = {"bound": 0, "pending": 0}
        replay_pending = []
        t0 = time.monotonic()
        for key in order:
            pod = by_key[key]
            before = base + list(claims.values()) + list(pods.values()) + [pod]
            r = self.draforge.replay(before, "--no-explain")
            placed = {p["pod"]: p for p in r["placed"]}
            self.kube.create({k: v for k, v in pod.items() if k != "spec"} |
                             {"spec": {k: v for k, v in pod["spec"].items() if k != "priority"}})
            verdict, where = self.kube.wait_scheduled(s.ns, pod["metadata"]["name"])
            back, used = self.kube.read_back(s.ns, pod["metadata"]["name"])
            pods[key] = back
            for c in used:
                claims[f"{s.ns}/{c['metadata']['name']}"] = c
            if key in placed:
                if verdict != "bound":
                    problems.append(f"{key}: replay places it ({len(placed[key]['feasible'])} feasible nodes, "
                                    f"e.g. {placed[key]['node']}) but kube-scheduler says: {where}")
                    continue
                stats["bound"] += 1
                if where not in placed[key]["feasible"]:
                    problems.append(f"{key}: kube-scheduler bound it to {where}, not among replay's feasible "
                                    f"{placed[key]['feasible']}")
                    continue
                problems += self.check_devices(key, before, where, used, placed[key])
            else:
                if verdict == "bound":
                    why = next((q["nodes"] for q in r["pending"] if q["pod"] == key), [])
                    reason = next((n for n in why if n["node"] == where), {})
                    problems.append(f"{key}: replay leaves it pending but kube-scheduler bound it to {where} "
                                    f"(replay's reason there: {reason.get('filter')}: {reason.get('reason')})")
                    continue
                stats["pending"] += 1
                replay_pending.append(key)
        # Every unschedulable pod is retried on a node update; the pending ones must stay pending.
        self.kube.patch("Node", node_name(1), {"metadata": {"labels": {"draforge.test/nudge": str(int(time.time()))}}})
        time.sleep(3)
        for key in replay_pending:
            ns, name = key.split("/")
            node = (self.kube.get("Pod", name, ns).get("spec") or {}).get("nodeName")
            if node:
                problems.append(f"{key}: replay leaves it pending; after a retry kube-scheduler bound it to {node}")
        print(f"# {s.name}: {len(order)} pods in {time.monotonic() - t0:.0f} s: {stats['bound']} bound where replay "
              f"said they fit, {stats['pending']} pending as replay said", flush=True)
        s.stats = stats
        self.teardown(s)
        return problems

    def check_devices(self, key, before, node, used, placed):
        """The scheduler's devices for the pod's new claims are ones replay accepts."""
        chosen_results = {}
        for c in used:
            alloc = ((c.get("status") or {}).get("allocation") or {}).get("devices") or {}
            chosen_results[f"{c['metadata']['namespace']}/{c['metadata']['name']}"] = alloc.get("results") or []
        chosen = {(r["driver"], r["pool"], r["device"]) for rs in chosen_results.values() for r in rs}
        r = self.draforge.replay(restricted_to(before, node, chosen), "--no-explain")
        again = next((p for p in r["placed"] if p["pod"] == key), None)
        if again is None or again["node"] != node:
            why = next((q["nodes"] for q in r["pending"] if q["pod"] == key), [])
            return [f"{key}: replay does not accept kube-scheduler's devices on {node} "
                    f"{sorted(chosen)}: {why}"]
        problems = []
        for c in again["claims"]:
            name = c["claim"]
            if c["existing"]:
                continue
            # A template's claim: replay names it as the controller would, with another suffix.
            real = name if name in chosen_results else next(
                (n for n in chosen_results if n.rsplit("-", 1)[0] == name.rsplit("-", 1)[0]), None)
            if real is None or results_key(chosen_results[real]) != results_key(c["results"]):
                problems.append(f"{key}: on {node} with only kube-scheduler's devices free, replay allocates "
                                f"{results_key(c['results'])}, kube-scheduler {results_key(chosen_results.get(real, []))}")
        return problems


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cli")
    ap.add_argument("repo")
    ap.add_argument("--pods", type=int, default=220, help="pods per scenario (default 220)")
    ap.add_argument("--scenarios", default=",".join(SCENARIOS))
    ap.add_argument("--seed", type=int, default=21)
    args = ap.parse_args()
    report = Report()
    with ControlPlane(args.repo, "--nodes", str(NODES)) as cp:
        for name, value in PRIORITIES.items():
            cp.kube.create({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
                            "metadata": {"name": name}, "value": value})
        follow = Follow(cp, Draforge(args.cli), report)
        for name in args.scenarios.split(","):
            s = SCENARIOS[name](random.Random(f"{args.seed}-{name}"), args.pods)
            problems = report.check(f"follow {name}: {args.pods} pods over {NODES} nodes agree with kube-scheduler",
                                    follow.run, s)
            if problems is None:
                continue
            st = getattr(s, "stats", {})
            report.check(f"follow {name}: both outcomes occur (pods bound and pods left pending)",
                         lambda: [] if st.get("bound", 0) >= 20 and st.get("pending", 0) >= 5 else
                         [f"a scenario that checks little: {st}"])
    return report.finish()


if __name__ == "__main__":
    sys.exit(main())
