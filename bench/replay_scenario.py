#!/usr/bin/env python3
"""Writes the replay benchmark's cluster (issue 21): nodes with 8 devices each and a backlog of
pending pods whose claims ask for 1 to 8 devices, for `draforge whatif replay` (alloc::Replay) and
the Go oracle dra-replay (upstream's allocator doing the same per-node allocations).

Usage: bench/replay_scenario.py OUT.json [--nodes 1000] [--pods 10000] [--seed 21]

Deterministic: the same arguments give the same bytes (random.Random(seed), no clock). The file is
one `kind: List` (JSON) that both sides read. One JSON line on stdout: nodes, devices, pods, claims,
templates, devices_requested.

The cluster:
  * four DeviceClasses: gpu.example.com (a CEL selector on the driver), gpu-80g.example.com (driver
    and memory >= 80Gi), nic.example.com, fpga.example.com;
  * nodes node-0000.. in four shapes, each node with one ResourceSlice of 8 devices (its own pool):
      a100    8 A100 GPUs (80Gi), attributes model, index, numa (0-3 / 4-7), pcieRoot
      h100    8 H100 GPUs (80Gi) in two NVLink domains of 4 (nvlinkDomain)
      l4      8 L4 GPUs (24Gi)
      gpu-nic 6 A100 GPUs and 2 RDMA NICs (nic.example.com), the NICs' pcieRoot matching 3 GPUs each
      (every 16th node has one FPGA in place of its last GPU);
    Node objects with labels (hostname, shape, zone), allocatable cpu 64, memory 512Gi, pods 110, no
    taints: the scheduler's other filters pass every node (a pod asks for 500m CPU and at most 8
    pods fit a node's devices), so the only filter that decides is DynamicResources;
  * pending pods pod-00000.. in namespaces team-0..team-9, priorities 0 / 100 / 1000, creation
    timestamps one second apart (kube-scheduler's queue order: priority, then age); each pod has one
    or two claims, through a ResourceClaimTemplate (about 60 %: shared templates, one claim per pod
    when it is scheduled) or its own ResourceClaim. The kinds of claim:
      gpus-N        N of gpu.example.com (N in 1, 2, 4, 8)
      big-N         N GPUs with 80Gi (class gpu-80g) and a selector on the model (A100 or H100)
      prio          firstAvailable: 4 H100 in one NVLink domain (matchAttribute), else 2 A100, else 4 L4
      numa-2        2 A100 on the same NUMA node (matchAttribute gpu.example.com/numa)
      gpu-nic       2 GPUs and 1 NIC on the same PCIe root (matchAttribute gpu.example.com/pcieRoot)
      fpga          1 FPGA (a second claim of some pods: 2 claims per pod)
    Between 1 and 8 devices per pod; more devices are asked for than there are, as in a real
    backlog, so later pods stay pending after trying every node.
"""
import argparse
import json
import random
import sys

GPU = "gpu.example.com"
NIC = "nic.example.com"
FPGA = "fpga.example.com"
RES = "resource.k8s.io/v1"
SHAPES = ("a100", "h100", "l4", "gpu-nic")
MODEL = {"a100": "A100", "h100": "H100", "l4": "L4", "gpu-nic": "A100"}
MEMORY = {"A100": "80Gi", "H100": "80Gi", "L4": "24Gi"}


def device_class(name, expression):
    return {"apiVersion": RES, "kind": "DeviceClass", "metadata": {"name": name},
            "spec": {"selectors": [{"cel": {"expression": expression}}]}}


def gpu(index, model, extra):
    attrs = {"model": {"string": model}, "index": {"int": index}, "pcieRoot": {"string": f"pci-{index // 4}"}}
    attrs.update(extra)
    return {"name": f"gpu-{index}", "attributes": attrs,
            "capacity": {"memory": {"value": MEMORY[model]}}}


def node_devices(shape, i):
    if shape == "a100":
        devices = [gpu(d, "A100", {"numa": {"int": d // 4}}) for d in range(8)]
    elif shape == "h100":
        devices = [gpu(d, "H100", {"nvlinkDomain": {"int": d // 4}}) for d in range(8)]
    elif shape == "l4":
        devices = [gpu(d, "L4", {}) for d in range(8)]
    else:
        devices = [gpu(d, "A100", {"numa": {"int": d // 3}, "pcieRoot": {"string": f"pci-{d // 3}"}})
                   for d in range(6)]
        devices += [{"name": f"nic-{k}", "attributes": {
            "model": {"string": "ConnectX-7"},
            f"{GPU}/pcieRoot": {"string": f"pci-{k}"}}} for k in range(2)]
    if i % 16 == 15:
        devices[-1] = {"name": "fpga-0", "attributes": {"model": {"string": "U55C"}}}
    return devices


def node_objects(i, rng):
    name = f"node-{i:04d}"
    shape = SHAPES[rng.randrange(len(SHAPES))]
    node = {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": {
                "kubernetes.io/hostname": name, "node.example.com/shape": shape,
                "topology.kubernetes.io/zone": f"zone-{i % 3}"}},
            "status": {"allocatable": {"cpu": "64", "memory": "512Gi", "pods": "110"},
                       "capacity": {"cpu": "64", "memory": "512Gi", "pods": "110"}}}
    devices = node_devices(shape, i)
    # One slice per driver, each its own pool named after the node (as real drivers publish).
    slices = []
    for driver in (GPU, NIC, FPGA):
        mine = [d for d in devices if d["name"].startswith({GPU: "gpu", NIC: "nic", FPGA: "fpga"}[driver])]
        if mine:
            slices.append({"apiVersion": RES, "kind": "ResourceSlice",
                           "metadata": {"name": f"{name}-{driver}"},
                           "spec": {"driver": driver, "nodeName": name,
                                    "pool": {"name": name, "generation": 1, "resourceSliceCount": 1},
                                    "devices": mine}})
    return node, slices, len(devices)


def exactly(name, klass, count, selectors=()):
    r = {"deviceClassName": klass, "allocationMode": "ExactCount", "count": count}
    if selectors:
        r["selectors"] = [{"cel": {"expression": s}} for s in selectors]
    return {"name": name, "exactly": r}


def sub(name, klass, count, selectors=()):
    r = {"name": name, "deviceClassName": klass, "allocationMode": "ExactCount", "count": count}
    if selectors:
        r["selectors"] = [{"cel": {"expression": s}} for s in selectors]
    return r


def model_is(*models):
    return " || ".join(f'device.attributes["{GPU}"].model == "{m}"' for m in models)


def claim_spec(kind):
    """(spec, devices asked for at most) of one kind of claim."""
    if kind.startswith("gpus-"):
        n = int(kind[5:])
        return {"devices": {"requests": [exactly("gpus", GPU, n)]}}, n
    if kind.startswith("big-"):
        n = int(kind[4:])
        return {"devices": {"requests": [exactly("gpus", "gpu-80g.example.com", n, [model_is("A100", "H100")])]}}, n
    if kind == "prio":
        return {"devices": {
            "requests": [{"name": "gpus", "firstAvailable": [
                sub("h100", GPU, 4, [model_is("H100")]),
                sub("a100", GPU, 2, [model_is("A100")]),
                sub("l4", GPU, 4, [model_is("L4")])]}],
            "constraints": [{"requests": ["gpus/h100"], "matchAttribute": f"{GPU}/nvlinkDomain"}]}}, 4
    if kind == "numa-2":
        return {"devices": {"requests": [exactly("gpus", GPU, 2, [model_is("A100")])],
                            "constraints": [{"matchAttribute": f"{GPU}/numa"}]}}, 2
    if kind == "gpu-nic":
        return {"devices": {"requests": [exactly("gpus", GPU, 2), exactly("nic", NIC, 1)],
                            "constraints": [{"matchAttribute": f"{GPU}/pcieRoot"}]}}, 3
    if kind == "fpga":
        return {"devices": {"requests": [exactly("fpga", FPGA, 1)]}}, 1
    raise ValueError(kind)


# The mix of main claims (weights); about 2.6 devices per pod.
KINDS = [("gpus-1", 30), ("gpus-2", 18), ("gpus-4", 10), ("gpus-8", 4), ("big-1", 6), ("big-2", 5),
         ("big-4", 3), ("prio", 8), ("numa-2", 6), ("gpu-nic", 10)]


def generate(n_nodes, n_pods, seed, out):
    rng = random.Random(seed)
    objs = [device_class(GPU, f'device.driver == "{GPU}"'),
            device_class("gpu-80g.example.com",
                         f'device.driver == "{GPU}" && '
                         f'device.capacity["{GPU}"].memory.compareTo(quantity("80Gi")) >= 0'),
            device_class(NIC, f'device.driver == "{NIC}"'),
            device_class(FPGA, f'device.driver == "{FPGA}"')]
    n_devices = 0
    for i in range(n_nodes):
        node, slices, n = node_objects(i, rng)
        objs.append(node)
        objs.extend(slices)
        n_devices += n
    namespaces = [f"team-{k}" for k in range(10)]
    for ns in namespaces:
        for kind, _ in KINDS + [("fpga", 0)]:
            spec, _ = claim_spec(kind)
            objs.append({"apiVersion": RES, "kind": "ResourceClaimTemplate",
                         "metadata": {"name": kind, "namespace": ns}, "spec": {"spec": spec}})
    kinds, weights = zip(*KINDS)
    n_claims = requested = 0
    for p in range(n_pods):
        name, ns = f"pod-{p:05d}", namespaces[rng.randrange(len(namespaces))]
        wanted = [rng.choices(kinds, weights)[0]]
        if rng.random() < 0.05:
            wanted.append("fpga")
        entries = []
        for c, kind in enumerate(wanted):
            entry = f"{kind.split('-')[0]}-{c}"
            spec, n = claim_spec(kind)
            requested += n
            if rng.random() < 0.6:
                entries.append({"name": entry, "resourceClaimTemplateName": kind})
            else:
                claim_name = f"{name}-{entry}"
                objs.append({"apiVersion": RES, "kind": "ResourceClaim",
                             "metadata": {"name": claim_name, "namespace": ns}, "spec": spec})
                entries.append({"name": entry, "resourceClaimName": claim_name})
                n_claims += 1
        priority = rng.choices([0, 100, 1000], [70, 25, 5])[0]
        t = 1767225600 + p  # 2026-01-01T00:00:00Z + p seconds
        objs.append({"apiVersion": "v1", "kind": "Pod", "metadata": {
            "name": name, "namespace": ns, "uid": f"00000000-0000-4000-8000-{p:012d}",
            "creationTimestamp": f"2026-01-01T{t // 3600 % 24:02d}:{t // 60 % 60:02d}:{t % 60:02d}Z"
            if t - 1767225600 < 86400 else None},
            "spec": {"priority": priority,
                     "containers": [{"name": "main", "image": "registry.example.com/train:1",
                                     "resources": {"requests": {"cpu": "500m", "memory": "1Gi"},
                                                   "claims": [{"name": e["name"]} for e in entries]}}],
                     "resourceClaims": entries},
            "status": {"phase": "Pending"}})
        if objs[-1]["metadata"]["creationTimestamp"] is None:
            raise ValueError("more than 86,400 pods: timestamps would wrap")
    with open(out, "w") as f:
        f.write('{"apiVersion":"v1","kind":"List","items":[\n')
        f.write(",\n".join(json.dumps(o, separators=(",", ":")) for o in objs))
        f.write("\n]}\n")
    return {"nodes": n_nodes, "devices": n_devices, "pods": n_pods, "claims": n_claims,
            "templates": len(namespaces) * (len(KINDS) + 1), "devices_requested": requested}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out")
    ap.add_argument("--nodes", type=int, default=1000)
    ap.add_argument("--pods", type=int, default=10000)
    ap.add_argument("--seed", type=int, default=21)
    a = ap.parse_args()
    if a.nodes < 1 or a.pods < 0:
        sys.exit("--nodes must be >= 1 and --pods >= 0")
    print(json.dumps(generate(a.nodes, a.pods, a.seed, a.out)))


if __name__ == "__main__":
    main()
