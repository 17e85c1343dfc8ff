#!/usr/bin/env python3
"""Preemption what-if against the real control plane (tests/cluster/whatif_preempt_run).

Three fake nodes with simulated GPUs as ResourceSlices (driver gpu.preempt.example.com):
  node-1 (2 GPUs)  batch-1, batch-2 (PriorityClass pe-batch, 100; label app=batch, protected by
                   PodDisruptionBudget batch, which no disruption controller ever clears to allow a
                   disruption: status.disruptionsAllowed stays 0)
  node-2 (2 GPUs)  render-1 and render-2 (pe-low, 50) share claim shared-gpu; svc (pe-top, 2000,
                   above the preemptor) holds the other GPU
  node-3 (1 GPU)   tainted dedicated=infra:NoSchedule, held by infra (pe-low, tolerates the taint)
every pod pinned to its node with a nodeSelector and its GPU allocated by kube-scheduler. Then
trainer (pe-high, 1000, one GPU from a template) finds every GPU taken and stays pending.

Tests:
  * the real 1.37 scheduler does not preempt for it (its DynamicResources filter rejects every
    node with UnschedulableAndUnresolvable, so DefaultPreemption has no candidate): after the pod is
    unschedulable and a few retries, no pod is deleted and no node is nominated;
  * `draforge whatif preempt --kubeconfig` names node-2 and victims render-1 and render-2 (the
    shared claim is freed only with both gone; node-1 would violate the budget); with --mode released
    it finds no candidate, as the real scheduler;
  * deleting the victims (kube-controller-manager's resourceclaim controller then deallocates
    shared-gpu) lets the pending trainer bind, to node-2;
  * for each victim, a fresh copy of the state (everything deleted and created again, the answer
    computed again and equal) where every victim but that one is deleted leaves trainer pending. To
    be sure the scheduler judged the state after the deletions (and not a verdict from before,
    or a pod waiting out its backoff), trainer is deleted and created again once the deletions are
    done and the claim's status.reservedFor no longer names the deleted pods: a new pod goes to the
    scheduler's active queue at once, and its PodScheduled=False/Unschedulable verdict is about the
    current state.

Usage: whatif_preempt_test.py DRAFORGE_CLI REPO
Prints one line per test and "N passed, N failed".
"""
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import whatif_cluster as wc  # noqa: E402

CLI, REPO = sys.argv[1:3]
NS = "preempt-it"
DRIVER = "gpu.preempt.example.com"
LOW_PODS = ["batch-1", "batch-2", "render-1", "render-2", "svc", "infra"]


def cluster_objects():
    out = [
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NS}},
        {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "pe-gpu"},
         "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{DRIVER}"'}}]}},
    ]
    for name, value in (("pe-low", 50), ("pe-batch", 100), ("pe-high", 1000), ("pe-top", 2000)):
        out.append({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": name},
                    "value": value})
    for node, gpus in (("node-1", 2), ("node-2", 2), ("node-3", 1)):
        out.append({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": f"{node}-pe-gpus"},
                    "spec": {"driver": DRIVER, "nodeName": node,
                             "pool": {"name": node, "generation": 1, "resourceSliceCount": 1},
                             "devices": [{"name": f"gpu-{i}"} for i in range(gpus)]}})
    out.append({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
                "metadata": {"name": "one-gpu", "namespace": NS},
                "spec": {"spec": {"devices": {"requests": [{"name": "gpus", "exactly": {"deviceClassName": "pe-gpu"}}]}}}})
    out.append({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "batch", "namespace": NS},
                "spec": {"minAvailable": 2, "selector": {"matchLabels": {"app": "batch"}}}})
    return out


def shared_claim():
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": {"name": "shared-gpu", "namespace": NS},
            "spec": {"devices": {"requests": [{"name": "gpus", "exactly": {"deviceClassName": "pe-gpu"}}]}}}


def pod(name, priority_class, node=None, claim=None, labels=None, tolerate=False, cpu="1"):
    spec = {"priorityClassName": priority_class,
            "containers": [{"name": "main", "image": "registry.example/app:1",
                            "resources": {"requests": {"cpu": cpu}}}],
            "resourceClaims": [{"name": "gpus", "resourceClaimName": claim} if claim else
                               {"name": "gpus", "resourceClaimTemplateName": "one-gpu"}]}
    if node:
        spec["nodeSelector"] = {"kubernetes.io/hostname": node}
    if tolerate:
        spec["tolerations"] = [{"key": "dedicated", "operator": "Exists"}]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": NS, "labels": labels or {}},
            "spec": spec}


LOW = {
    "batch-1": lambda: pod("batch-1", "pe-batch", "node-1", labels={"app": "batch"}),
    "batch-2": lambda: pod("batch-2", "pe-batch", "node-1", labels={"app": "batch"}),
    "render-1": lambda: pod("render-1", "pe-low", "node-2", claim="shared-gpu", labels={"app": "render"}),
    "render-2": lambda: pod("render-2", "pe-low", "node-2", claim="shared-gpu", labels={"app": "render"}),
    "svc": lambda: pod("svc", "pe-top", "node-2", labels={"app": "svc"}),
    "infra": lambda: pod("infra", "pe-low", "node-3", tolerate=True),
}
WHERE = {"batch-1": "node-1", "batch-2": "node-1", "render-1": "node-2", "render-2": "node-2", "svc": "node-2",
         "infra": "node-3"}


class Scenario:
    def __init__(self, cp):
        self.cp = cp
        self.kube = cp.kube
        self.timings = {}

    def setup_once(self):
        for o in cluster_objects():
            self.kube.create(o)
        self.kube.patch("Node", "node-3", {"spec": {"taints": [{"key": "dedicated", "value": "infra",
                                                                "effect": "NoSchedule"}]}})

    def reset(self):
        """No pod and no claim in the namespace."""
        self.kube.delete_all("Pod", NS)
        for p in self.kube.list("Pod", NS):
            self.kube.wait_gone("Pod", p["metadata"]["name"], NS)
        self.kube.delete_all("ResourceClaim", NS)
        for c in self.kube.list("ResourceClaim", NS):
            self.kube.wait_gone("ResourceClaim", c["metadata"]["name"], NS)

    def build(self):
        """The state described at the top, with trainer pending. Returns the problems."""
        t = time.monotonic()
        self.reset()
        self.kube.create(shared_claim())
        problems = []
        for name in LOW_PODS:
            self.kube.create(LOW[name]())
            verdict, where = self.kube.wait_scheduled(NS, name)
            if (verdict, where) != ("bound", WHERE[name]):
                problems.append(f"{name}: {verdict} {where}, want bound to {WHERE[name]}")
        self.kube.create(pod("trainer", "pe-high", cpu="2"))
        verdict, why = self.kube.wait_scheduled(NS, "trainer")
        if verdict != "unschedulable":
            problems.append(f"trainer: {verdict} {why}, want unschedulable (every GPU is taken)")
        self.timings.setdefault("build", []).append(time.monotonic() - t)
        return problems

    def answer(self, *args):
        r = subprocess.run([CLI, "whatif", "preempt", "--pod", f"{NS}/trainer", "--kubeconfig", self.cp.kubeconfig,
                            "-o", "json", *args], capture_output=True, text=True, timeout=300)
        if r.returncode not in (0, 1):
            raise RuntimeError(f"draforge whatif preempt: exit {r.returncode}: {r.stderr[-2000:]}")
        return json.loads(r.stdout)

    def delete_pods(self, names):
        for n in names:
            self.kube.delete("Pod", n, NS)
        for n in names:
            self.kube.wait_gone("Pod", n, NS)

    def wait_released(self, names, timeout=60):
        """Until no claim of the namespace lists one of `names` in status.reservedFor (the
        resourceclaim controller's work after a pod is deleted)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            reserved = {r.get("name") for c in self.kube.list("ResourceClaim", NS)
                        for r in (c.get("status") or {}).get("reservedFor") or []}
            if not reserved & set(names):
                return
            time.sleep(0.1)
        raise TimeoutError(f"claims still reserved for {sorted(reserved & set(names))} after {timeout} s")


def victims_of(answer):
    return sorted(v["pod"].split("/", 1)[1] for v in answer["victims"])


def main():
    report = wc.Report()
    start = time.monotonic()
    with wc.ControlPlane(REPO, "--nodes", "3") as cp:
        s = Scenario(cp)
        s.setup_once()
        problems = s.build()
        if problems:
            report.fail("scenario: low-priority pods bound where pinned, trainer unschedulable", "\n".join(problems))
            return report.finish()
        report.ok("scenario: low-priority pods bound where pinned, trainer unschedulable")

        def upstream_does_not_preempt():
            # kube-scheduler retries an unschedulable pod after its backoff (1 s, doubling, at most
            # 10 s) and on cluster events; 12 s covers several attempts.
            time.sleep(12)
            out = []
            for name in LOW_PODS:
                p = s.kube.get("Pod", name, NS)
                if p["metadata"].get("deletionTimestamp"):
                    out.append(f"{name} is being deleted")
            t = s.kube.get("Pod", "trainer", NS)
            if (t.get("status") or {}).get("nominatedNodeName"):
                out.append(f"trainer nominated to {t['status']['nominatedNodeName']}")
            if (t.get("spec") or {}).get("nodeName"):
                out.append(f"trainer bound to {t['spec']['nodeName']}")
            return out

        report.check("kube-scheduler 1.37 preempts nothing for a pod that needs devices", upstream_does_not_preempt)

        answer = s.answer()
        expected_victims = ["render-1", "render-2"]

        def our_answer():
            out = []
            if (answer["outcome"], answer["node"]) != ("preempt", "node-2"):
                out.append(f"outcome {answer['outcome']} on {answer['node']!r}, want preempt on node-2: "
                           f"{json.dumps(answer)[:1500]}")
            if victims_of(answer) != expected_victims:
                out.append(f"victims {victims_of(answer)}, want {expected_victims}")
            for v in answer["victims"]:
                if v["claimsFreed"] != [f"{NS}/shared-gpu"]:
                    out.append(f"{v['pod']} frees {v['claimsFreed']}, want the shared claim")
            node1 = [c for c in answer["candidates"] if c["node"] == "node-1"]
            if not node1 or node1[0]["pdbViolations"] != 1:
                out.append(f"node-1 candidate {node1}, want one PDB violation (budget {NS}/batch)")
            released = s.answer("--mode", "released")
            if released["outcome"] != "no-candidate":
                out.append(f"--mode released: {released['outcome']}, want no-candidate (as the real scheduler)")
            return out

        report.check("draforge whatif preempt --kubeconfig: node-2, victims render-1 and render-2", our_answer)

        def victims_deleted_pod_binds():
            t = time.monotonic()
            s.delete_pods(victims_of(answer))
            verdict, where = s.kube.wait_scheduled(NS, "trainer", timeout=90)
            s.timings["bind after deleting the victims"] = time.monotonic() - t
            if (verdict, where) != ("bound", answer["node"]):
                return [f"trainer {verdict} {where}, want bound to {answer['node']}"]
            return []

        report.check("victims deleted: trainer binds to the chosen node", victims_deleted_pod_binds)

        for keep in victims_of(answer):
            def keep_one(keep=keep):
                out = s.build()
                again = s.answer()
                if victims_of(again) != victims_of(answer) or again["node"] != answer["node"]:
                    out.append(f"fresh state's answer {again['node']} {victims_of(again)} differs")
                deleted = [v for v in victims_of(answer) if v != keep]
                s.delete_pods(deleted)
                s.wait_released(deleted)
                # A new trainer: judged by the scheduler on the state after the deletions.
                s.delete_pods(["trainer"])
                s.kube.create(pod("trainer", "pe-high", cpu="2"))
                verdict, where = s.kube.wait_scheduled(NS, "trainer")
                if verdict != "unschedulable":
                    out.append(f"with {keep} kept, trainer {verdict} {where}, want unschedulable")
                return out

            report.check(f"keeping victim {keep} (the others deleted) leaves trainer pending", keep_one)

        s.reset()
    print(f"# timings: {json.dumps({k: v if isinstance(v, float) else [round(x, 1) for x in v] for k, v in s.timings.items()})}"
          f"; whole test {time.monotonic() - start:.0f} s", flush=True)
    return report.finish()


if __name__ == "__main__":
    sys.exit(main())
