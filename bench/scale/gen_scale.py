#!/usr/bin/env python3
"""Writes a whole cluster at a chosen size for bench/run --scale (issue 23, point 3).

Usage: bench/scale/gen_scale.py --nodes N [--seed S] [--draforge PATH] OUT.json

Deterministic: the same N, seed and draforge binary give the same bytes. The devices come from
DRAForge's driver simulation (`draforge sim expand`, lib/sim profiles modelled on the real drivers):

  * N Nodes, labelled with a rack (40 nodes per rack) and a zone;
  * 98% of the nodes: `nvidia-gpu`, 8 H100-80GB-HBM3 GPUs each (dra-driver-nvidia-gpu's devices);
  * 2% of the nodes: `nvidia-gpu-mig`, 8 A100-40GB GPUs each partitioned through shared counters
    (a full GPU plus every MIG placement: 19 devices per GPU, one counter set per GPU);
  * one network-attached NIC pool per rack (`example-net`, 16 NICs, `nodeSelector` on the rack);
  * the drivers' DeviceClasses (gpu.nvidia.com, mig.nvidia.com as the NVIDIA chart publishes them;
    net.example.com as dra-example-driver's);
  * 10 N ResourceClaims, 60% allocated: 3 N running pods bound to their node, each with two claims
    for one GPU, allocated on that node and reserved for the pod; 2 N pending pods (no node yet),
    each with two pending claims (a GPU, a MIG 1g.5gb slice or a NIC); so 5 N Pods;
  * the pod to place across all nodes: claim placement/train, 4 GPUs whose cudaComputeCapability is
    above 8.0 (not allocated, no pod yet).

The file is one `kind: List` (JSON), written as it is generated. Prints one JSON line on stdout:
{"nodes", "devices", "claims", "allocated_claims", "pods", "bytes", "seconds"}.
"""
import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time

GPU_DRIVER = "gpu.nvidia.com"
NET_DRIVER = "net.example.com"
RACK_LABEL = "topology.example.com/rack"
NODES_PER_RACK = 40
NICS_PER_RACK = 16
MIG_EVERY = 50  # every 50th node is partitioned (2%)
PLAIN_PER_POOL = 4000

# DeviceClasses as the drivers publish them (dra-driver-nvidia-gpu's chart: deviceclass-gpu.yaml,
# deviceclass-mig.yaml; dra-example-driver: net.example.com).
CLASSES = {
    "gpu.nvidia.com": f"device.driver == '{GPU_DRIVER}' && device.attributes['{GPU_DRIVER}'].type == 'gpu'",
    "mig.nvidia.com": f"device.driver == '{GPU_DRIVER}' && device.attributes['{GPU_DRIVER}'].type == 'mig'",
    "net.example.com": f"device.driver == '{NET_DRIVER}'",
}
PLACEMENT_SELECTOR = f'device.attributes["{GPU_DRIVER}"].cudaComputeCapability.isGreaterThan(semver("8.0.0"))'
MIG_PROFILE_SELECTOR = f"device.attributes['{GPU_DRIVER}'].profile == '1g.5gb'"


def node_name(i):
    return f"node-{i:05d}"


def rack_name(i):
    return f"rack-{i // NODES_PER_RACK:04d}"


def pools_template(n):
    """The SimulatedDevicePools that `draforge sim expand` turns into the cluster's slices."""
    plain = [node_name(i) for i in range(n) if i % MIG_EVERY != MIG_EVERY - 1]
    mig = [node_name(i) for i in range(n) if i % MIG_EVERY == MIG_EVERY - 1]
    # One SimulatedDevicePool simulates at most 65,536 devices: the H100 nodes in groups of 4,000.
    pools = [{"apiVersion": "sim.draforge.io/v1alpha1", "kind": "SimulatedDevicePool",
              "metadata": {"name": f"h100-{k // PLAIN_PER_POOL}"},
              "spec": {"profile": "nvidia-gpu", "nodes": {"names": plain[k:k + PLAIN_PER_POOL]}, "devicesPerNode": 8,
                       "poolGeneration": 1, "options": {"model": "H100-80GB-HBM3"}}}
             for k in range(0, len(plain), PLAIN_PER_POOL)]
    if mig:
        pools.append({"apiVersion": "sim.draforge.io/v1alpha1", "kind": "SimulatedDevicePool",
                      "metadata": {"name": "a100-mig"},
                      "spec": {"profile": "nvidia-gpu-mig", "nodes": {"names": mig}, "devicesPerNode": 8,
                               "poolGeneration": 1}})
    for r in range((n + NODES_PER_RACK - 1) // NODES_PER_RACK):
        rack = f"rack-{r:04d}"
        pools.append({"apiVersion": "sim.draforge.io/v1alpha1", "kind": "SimulatedDevicePool",
                      "metadata": {"name": f"nics-{rack}"},
                      "spec": {"profile": "example-net", "devicesPerNode": NICS_PER_RACK, "poolGeneration": 1,
                               "nodes": {"nodeSelector": {"nodeSelectorTerms": [{"matchExpressions": [
                                   {"key": RACK_LABEL, "operator": "In", "values": [rack]}]}]}}}})
    return pools


def expand(draforge, pools):
    """The ResourceSlices of `pools`, from `draforge sim expand -o json`."""
    with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as f:
        for p in pools:  # JSON documents are YAML documents
            f.write("---\n" + json.dumps(p) + "\n")
        path = f.name
    try:
        p = subprocess.run([draforge, "sim", "expand", "-f", path, "-o", "json"], capture_output=True, text=True)
    finally:
        os.unlink(path)
    if p.returncode != 0:
        sys.exit(f"draforge sim expand: exit {p.returncode}: {p.stderr.strip()}")
    out = json.loads(p.stdout)
    if isinstance(out, dict):
        out = out.get("items", [out])
    return out


def allocated_claim(ns, name, pod, uid, node, devices):
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
            "metadata": {"name": name, "namespace": ns, "uid": f"{uid}-claim-{name[-1]}"},
            "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu.nvidia.com"}}]}},
            "status": {"allocation": {
                "devices": {"results": [{"request": "gpu", "driver": GPU_DRIVER, "pool": node, "device": d}
                                        for d in devices]},
                "nodeSelector": {"nodeSelectorTerms": [{"matchFields": [
                    {"key": "metadata.name", "operator": "In", "values": [node]}]}]}},
                "reservedFor": [{"resource": "pods", "name": pod, "uid": uid}]}}


def pending_claim(ns, name, kind, rng):
    if kind == "gpu":
        req = {"name": "gpu", "exactly": {"deviceClassName": "gpu.nvidia.com", "count": rng.choice((1, 1, 2))}}
    elif kind == "mig":
        req = {"name": "mig", "exactly": {"deviceClassName": "mig.nvidia.com",
                                          "selectors": [{"cel": {"expression": MIG_PROFILE_SELECTOR}}]}}
    else:
        req = {"name": "nic", "exactly": {"deviceClassName": "net.example.com"}}
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
            "metadata": {"name": name, "namespace": ns}, "spec": {"devices": {"requests": [req]}}}


def pod(ns, name, uid, claims, node=None):
    spec = {"containers": [{"name": "main", "image": "registry.example.com/train:1"}],
            "resourceClaims": [{"name": f"c{k}", "resourceClaimName": c} for k, c in enumerate(claims)]}
    if node:
        spec["nodeName"] = node
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": ns, "uid": uid},
            "spec": spec, "status": {"phase": "Running" if node else "Pending"}}


class ListWriter:
    """Writes a `kind: List` item by item."""

    def __init__(self, f):
        self.f = f
        self.first = True
        f.write('{"apiVersion":"v1","kind":"List","items":[\n')

    def add(self, obj):
        if not self.first:
            self.f.write(",\n")
        self.first = False
        self.f.write(json.dumps(obj, separators=(",", ":")))

    def close(self):
        self.f.write("\n]}\n")


def generate(n, seed, draforge, out):
    rng = random.Random(seed)
    t0 = time.monotonic()
    slices = expand(draforge, pools_template(n))
    # The whole GPUs of each node, in device order (MIG nodes: the full gpu-N devices).
    gpus = {}
    devices = 0
    for s in slices:
        devs = s["spec"].get("devices") or []
        devices += len(devs)
        node = s["spec"].get("nodeName")
        if s["spec"]["driver"] != GPU_DRIVER or not node:
            continue
        for d in devs:
            if d.get("attributes", {}).get("type", {}).get("string") == "gpu":
                gpus.setdefault(node, []).append(d["name"])
    # Running pods: 3 N, each two claims for one GPU of its node: the GPUs of every node paired, a
    # seeded shuffle of all pairs, the first 3 N used (75% of the GPUs; nodes differ in what is left).
    pairs = [(node, g[k:k + 2]) for node, g in sorted(gpus.items()) for k in range(0, len(g) - 1, 2)]
    rng.shuffle(pairs)
    running = min(3 * n, len(pairs))
    with open(out, "w") as f:
        w = ListWriter(f)
        for name, expr in CLASSES.items():
            w.add({"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": name},
                   "spec": {"selectors": [{"cel": {"expression": expr}}]}})
        for i in range(n):
            name = node_name(i)
            w.add({"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": {
                "kubernetes.io/hostname": name, RACK_LABEL: rack_name(i),
                "topology.kubernetes.io/zone": f"zone-{i % 3}"}}})
        for s in slices:
            w.add(s)
        del slices
        claims = allocated = pods = 0
        for k in range(running):
            node, pair = pairs[k]
            ns = f"team-{k % 50:02d}"
            name, uid = f"run-{k:06d}", f"00000000-0000-4000-8000-{k:012d}"
            refs = []
            for j, dev in enumerate(pair):
                refs.append(f"{name}-{j}")
                w.add(allocated_claim(ns, refs[-1], name, uid, node, [dev]))
            w.add(pod(ns, name, uid, refs, node))
            claims += 2
            allocated += 2
            pods += 1
        for k in range(2 * n):
            ns = f"team-{k % 50:02d}"
            name, uid = f"wait-{k:06d}", f"00000000-0000-4000-9000-{k:012d}"
            refs = []
            for j in range(2):
                kind = rng.choices(("gpu", "mig", "nic"), (70, 15, 15))[0]
                refs.append(f"{name}-{j}")
                w.add(pending_claim(ns, refs[-1], kind, rng))
            w.add(pod(ns, name, uid, refs))
            claims += 2
            pods += 1
        w.add({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
               "metadata": {"name": "train", "namespace": "placement"},
               "spec": {"devices": {"requests": [{"name": "gpus", "exactly": {
                   "deviceClassName": "gpu.nvidia.com", "count": 4,
                   "selectors": [{"cel": {"expression": PLACEMENT_SELECTOR}}]}}]}}})
        claims += 1
        w.close()
    return {"nodes": n, "devices": devices, "claims": claims, "allocated_claims": allocated, "pods": pods,
            "bytes": os.path.getsize(out), "seconds": round(time.monotonic() - t0, 2)}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--nodes", type=int, required=True)
    ap.add_argument("--seed", type=int, default=23)
    ap.add_argument("--draforge", default=os.path.join("build", "examples", "cli", "draforge"))
    ap.add_argument("out")
    a = ap.parse_args()
    if a.nodes < 1:
        sys.exit("--nodes must be at least 1")
    print(json.dumps(generate(a.nodes, a.seed, a.draforge, a.out)))


if __name__ == "__main__":
    main()
