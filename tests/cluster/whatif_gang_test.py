#!/usr/bin/env python3
"""`draforge whatif gang` against kube-scheduler 1.37's pod group scheduling (GenericWorkload,
DRAWorkloadResourceClaims, scheduling.k8s.io/v1beta1 PodGroups) on a real control plane.

Usage: whatif_gang_test.py CLI REPO   (tests/cluster/whatif_gang_run starts the control plane)

Each scenario has its own namespace, DeviceClass and driver (node-local ResourceSlices on the fake
nodes node-1..node-3), so the scenarios do not compete for devices. A scenario creates a PodGroup
and its member pods held by a scheduling gate, waits for the resourceclaim controller to create
their claims (the pods' own and the group's), asks `draforge whatif gang --kubeconfig` (the live
cluster, PodGroups included), then lifts the gates and checks what the real scheduler did:

  * an answer that fits: exactly the members the answer places bind (minCount below the member
    count: the others stay unbound), each on a node the answer lists as feasible for a member at
    its turn; the group's claim is allocated once, reserved for the PodGroup, and every member that
    uses it is on one node; the PodGroup's PodGroupInitiallyScheduled condition turns True;
  * an answer that does not fit: no member binds, and the PodGroup's PodGroupInitiallyScheduled
    condition is False, reason Unschedulable, its message starting with exactly the answer's status
    ("minCount (N) cannot be satisfied: S scheduled, R remaining", PlacementFeasible's words; the
    scheduler appends what its PodGroupPostFilter preemption found, which the answer does not model).

Prints one line per test and "N passed, N failed".
"""
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from whatif_cluster import ApiError, ControlPlane, Report  # noqa: E402

NODES = ["node-1", "node-2", "node-3"]
GATE = "draforge.test/hold"


def device_class(name, driver):
    return {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": name},
            "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{driver}"'}}]}}


def slices(driver, per_node):
    out = []
    for node, count in per_node.items():
        out.append({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
                    "metadata": {"name": f"{driver.split('.')[0]}-{node}"},
                    "spec": {"driver": driver, "nodeName": node,
                             "pool": {"name": node, "generation": 1, "resourceSliceCount": 1},
                             "devices": [{"name": f"dev-{i}"} for i in range(count)]}})
    return out


def template(ns, name, cls, count):
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
            "metadata": {"name": name, "namespace": ns},
            "spec": {"spec": {"devices": {"requests": [
                {"name": "devs", "exactly": {"deviceClassName": cls, "allocationMode": "ExactCount",
                                             "count": count}}]}}}}


def pod_group(ns, name, min_count, group_claims=()):
    spec = {"schedulingPolicy": {"gang": {"minCount": min_count}}}
    if group_claims:
        spec["resourceClaims"] = [{"name": c, "resourceClaimTemplateName": t} for c, t in group_claims]
    return {"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup",
            "metadata": {"name": name, "namespace": ns}, "spec": spec}


def member(ns, name, group, claims):
    """A pod of `group` held by a scheduling gate; `claims`: [(claim name, template name)]."""
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": ns},
            "spec": {"schedulingGroup": {"podGroupName": group},
                     "schedulingGates": [{"name": GATE}],
                     "containers": [{"name": "c", "image": "registry.invalid/none",
                                     "resources": {"requests": {"cpu": "100m"},
                                                   "claims": [{"name": c} for c, _ in claims]}}],
                     "resourceClaims": [{"name": c, "resourceClaimTemplateName": t} for c, t in claims]}}


class Scenario:
    def __init__(self, tag, min_count, members, per_node, count, group_claim_nodes=None):
        self.tag = tag
        self.ns = f"gang-{tag}"
        self.group = tag
        self.driver = f"{tag}.gang.example.com"
        self.cls = f"gang-{tag}"
        self.objects = [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": self.ns}},
                        device_class(self.cls, self.driver), *slices(self.driver, per_node),
                        template(self.ns, "devs", self.cls, count)]
        claims = [("devs", "devs")]
        group_claims = []
        if group_claim_nodes:
            fabric = f"fabric-{tag}.gang.example.com"
            self.objects += [device_class(f"{self.cls}-fabric", fabric), *slices(fabric, group_claim_nodes),
                             template(self.ns, "fabric", f"{self.cls}-fabric", 1)]
            claims.append(("fabric", "fabric"))
            group_claims = [("fabric", "fabric")]
        self.objects.append(pod_group(self.ns, self.group, min_count, group_claims))
        self.members = [f"{tag}-{i}" for i in range(members)]
        self.objects += [member(self.ns, m, self.group, claims) for m in self.members]


SCENARIOS = [
    # Two members of one device each: fits.
    Scenario("fit", 2, 2, {n: 2 for n in NODES}, 1),
    # Four members of two devices each over three nodes with two: the fourth blocks the gang.
    Scenario("big", 4, 4, {n: 2 for n in NODES}, 2),
    # A group-level claim on a port that only node-2 and node-3 have: both members share it and land
    # together on the node the first one's allocation picked.
    Scenario("shared", 2, 2, {n: 2 for n in NODES}, 1, group_claim_nodes={"node-2": 1, "node-3": 1}),
    # The same with three members and the port on node-3 only, which has two devices: the group's
    # claim pins every member to node-3, and the third blocks.
    Scenario("pinned", 3, 3, {n: 2 for n in NODES}, 1, group_claim_nodes={"node-3": 1}),
    # minCount 3 of four members of two devices each: three bind, one stays pending.
    Scenario("quorum", 3, 4, {n: 2 for n in NODES}, 2),
]


def wait(fn, timeout, what):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        v = fn()
        if v:
            return v
        time.sleep(0.2)
    raise TimeoutError(f"{what} after {timeout} s")


def claims_ready(kube, s):
    """True once the resourceclaim controller created every member's claim and the group's."""
    for m in s.members:
        pod = kube.get("Pod", m, s.ns)
        if not kube.claims_exist(pod):
            return False
    pg = kube.get("PodGroup", s.group, s.ns)
    want = {c["name"] for c in (pg.get("spec") or {}).get("resourceClaims") or []}
    have = {st["name"] for st in (pg.get("status") or {}).get("resourceClaimStatuses") or []
            if st.get("resourceClaimName")}
    return want <= have


def condition(kube, s):
    pg = kube.get("PodGroup", s.group, s.ns)
    for c in (pg.get("status") or {}).get("conditions") or []:
        if c.get("type") == "PodGroupInitiallyScheduled":
            return c
    return None


def bound(kube, s):
    out = {}
    for m in s.members:
        node = (kube.get("Pod", m, s.ns).get("spec") or {}).get("nodeName")
        if node:
            out[f"{s.ns}/{m}"] = node
    return out


def run_scenario(kube, cli, kubeconfig, s, answers):
    for o in s.objects:
        kube.create(o)
    wait(lambda: claims_ready(kube, s), 60, f"claims of {s.ns} not created")
    r = subprocess.run([cli, "whatif", "gang", "--group", f"{s.ns}/{s.group}", "--kubeconfig", kubeconfig,
                        "-o", "json"], capture_output=True, text=True, timeout=120)
    if r.returncode not in (0, 1):
        raise RuntimeError(f"draforge whatif gang: exit {r.returncode}: {r.stderr[-2000:]}")
    answer = json.loads(r.stdout)
    answers[s.tag] = answer
    if (r.returncode == 0) != answer["fits"]:
        return [f"exit status {r.returncode} but fits={answer['fits']}"]
    for m in s.members:
        kube.patch("Pod", m, {"spec": {"schedulingGates": None}}, s.ns)
    problems = []
    if answer["fits"]:
        want = len(answer["placed"])
        got = wait(lambda: (lambda b: b if len(b) >= want else None)(bound(kube, s)), 90,
                   f"{s.ns}: {want} members not bound ({bound(kube, s)})")
        feasible = {n for p in answer["placed"] for n in p["feasible"]}
        for pod, node in sorted(got.items()):
            if node not in feasible:
                problems.append(f"{pod} bound to {node}, not among the nodes the answer lists as feasible "
                                f"{sorted(feasible)}")
        c = wait(lambda: condition(kube, s), 30, "no PodGroupInitiallyScheduled condition")
        if c.get("status") != "True":
            problems.append(f"PodGroupInitiallyScheduled is {c}")
        # The members the answer leaves unschedulable stay unbound (minCount below the member count).
        time.sleep(2)
        got = bound(kube, s)
        if len(got) != want:
            problems.append(f"{len(got)} members bound ({got}), the answer places {want}")
        for gc in answer["groupClaims"]:
            users = {p["pod"] for p in answer["placed"] if any(c["claim"] == gc["claim"] for c in p["claims"])}
            nodes = {got[p] for p in users if p in got}
            if len(nodes) != 1:
                problems.append(f"group claim {gc['name']}: its members are on {sorted(nodes)}, not on one node")
            ns, name = gc["claim"].split("/", 1)
            claim = kube.get("ResourceClaim", name, ns)
            status = claim.get("status") or {}
            if not status.get("allocation"):
                problems.append(f"group claim {gc['claim']} is not allocated")
            refs = [(x.get("resource"), x.get("name")) for x in status.get("reservedFor") or []]
            if refs != [("podgroups", s.group)]:
                problems.append(f"group claim {gc['claim']} reservedFor {refs}, want the PodGroup only")
            devices = [(x["pool"], x["device"]) for x in (status.get("allocation") or {}).get("devices", {}).get(
                "results", [])]
            if devices and devices[0][0] not in nodes:
                problems.append(f"group claim {gc['claim']} allocated {devices} but its members are on {nodes}")
    else:
        c = wait(lambda: (lambda c: c if c and c.get("status") == "False" else None)(condition(kube, s)), 90,
                 f"{s.ns}: no PodGroupInitiallyScheduled=False condition")
        if c.get("reason") != "Unschedulable":
            problems.append(f"PodGroupInitiallyScheduled reason {c.get('reason')!r}, want Unschedulable")
        # PlacementFeasible's words first; the scheduler appends what PodGroupPostFilter (preemption,
        # not modelled) found: "..., pod group preemption: No preemption victims found ...".
        message = c.get("message") or ""
        if message != answer["status"] and not message.startswith(answer["status"] + ", "):
            problems.append(f"PodGroup condition message {message!r} does not start with the answer's status "
                            f"{answer['status']!r}")
        time.sleep(3)  # the scheduler retries the gang; nothing may bind meanwhile either
        got = bound(kube, s)
        if got:
            problems.append(f"the answer says the gang does not fit (blocking {answer['blocking']}), "
                            f"but {got} bound")
    return problems


def main():
    cli, repo = sys.argv[1], sys.argv[2]
    report = Report()
    answers = {}
    with ControlPlane(repo) as cp:
        kube = cp.kube
        for s in SCENARIOS:
            report.check(f"gang {s.tag}: the real scheduler does what the answer says", run_scenario, kube, cli,
                         cp.kubeconfig, s, answers)
    # What the answers themselves must say: the scenarios are built so that each case is covered.
    expect = {"fit": True, "big": False, "shared": True, "pinned": False, "quorum": True}
    report.check("gang answers cover fits, blocked, shared group claim and minCount below the members",
                 lambda: [f"{t}: fits={answers.get(t, {}).get('fits')}, want {f}" for t, f in expect.items()
                          if answers.get(t, {}).get("fits") is not f])
    report.check("gang answers name the blocking member",
                 lambda: [f"{t}: blocking {answers.get(t, {}).get('blocking')!r}" for t in ("big", "pinned")
                          if not answers.get(t, {}).get("blocking")])
    return report.finish()


if __name__ == "__main__":
    sys.exit(main())
