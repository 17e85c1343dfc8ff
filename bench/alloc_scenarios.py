#!/usr/bin/env python3
"""Writes the allocation benchmark's inputs: one YAML file per scenario family and a manifest.

Usage: bench/alloc_scenarios.py OUT_DIR

Deterministic (no randomness, no clock): the same files on every run, byte for byte. Every file is
an ordinary multi-document YAML stream of resource.k8s.io/v1 objects (plus core/v1 Nodes) that both
`draforge allocate` and the Go oracle `dra-allocate` read. OUT_DIR/manifest.json tells bench/run_alloc
and bench/alloc_bench what to allocate:

    {"families": [{"name", "title", "file", "claims": ["ns/name", ...],
                   "nodes": ["node", ...] or "*" (every Node of the file: the scheduler's Filter),
                   "oracle_nodes": [...] (the nodes the Go program runs on, one process each),
                   "oracle_weights": [...] (how many benchmarked nodes each stands for; default 1)}]}

Families (the issue's list):
  filter-1000x8      1,000 nodes x 8 GPUs, a DeviceClass with a CEL selector; a 4-GPU claim is
                     allocated on every node (Filter over all nodes); every 4th node already has 6 of
                     its GPUs allocated, so a quarter of the nodes are unschedulable.
  match-attribute    a pod with two 8-GPU claims, each with a matchAttribute constraint on the NVLink
                     domain, on a node with 48 GPUs in 6 domains of which 4 have one GPU in use: the
                     search backtracks through every partly used domain.
  mig-counters       MIG-style partitions: 8 physical GPUs, each a shared counter set (compute slices,
                     memory) with 14 partitions consuming it; some partitions in use; a claim for one
                     3g.40gb and three 1g.10gb partitions of the same GPU plus a second claim.
  first-available    a pod with three claims whose requests are firstAvailable lists; the preferred
                     alternatives do not fit, so the search falls back (and backtracks across claims).
  unsatisfiable      8 of 16 GPUs plus one RDMA NIC with the same PCIe root, on a node whose NICs on
                     that root are all in use: upstream enumerates every 8-GPU combination first.
  unsatisfiable-20   the same with 10 of 20 GPUs, to show how each side's work grows (upstream's
                     exponentially, DRAForge's linearly: the GPUs are interchangeable for the search).
"""
import json
import os
import sys

GPU_DRIVER = "gpu.example.com"
NIC_DRIVER = "nic.example.com"


# --- a small YAML emitter: block style, strings double-quoted (JSON escapes are valid YAML), scalar
# --- leaf maps in flow style. Enough for Kubernetes objects; avoids YAML 1.1 surprises (y/n/on/off).
def _scalar(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    return json.dumps(v)


def _is_scalar(v):
    return not isinstance(v, (dict, list))


def _emit(v, indent, out):
    pad = " " * indent
    if isinstance(v, dict):
        for k, x in v.items():
            if _is_scalar(x):
                out.append(f"{pad}{k}: {_scalar(x)}")
            elif isinstance(x, dict) and x and all(_is_scalar(y) for y in x.values()):
                out.append(f"{pad}{k}: {{" + ", ".join(f"{a}: {_scalar(b)}" for a, b in x.items()) + "}")
            elif not x:
                out.append(f"{pad}{k}: {'{}' if isinstance(x, dict) else '[]'}")
            else:
                out.append(f"{pad}{k}:")
                _emit(x, indent + 2 if isinstance(x, dict) else indent, out)
    else:
        for x in v:
            if _is_scalar(x):
                out.append(f"{pad}- {_scalar(x)}")
                continue
            sub = []
            _emit(x, indent + 2, sub)
            sub[0] = pad + "- " + sub[0][indent + 2:]
            out.extend(sub)


def to_yaml(objects):
    out = []
    for o in objects:
        out.append("---")
        _emit(o, 0, out)
    return "\n".join(out) + "\n"


# --- object builders ---
def node(name, labels=None):
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name, **(labels or {})}}}


def device_class(name, expression):
    return {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": name},
            "spec": {"selectors": [{"cel": {"expression": expression}}]}}


def slice_(name, driver, node_name, pool, devices=None, count=1, counters=None):
    spec = {"driver": driver, "nodeName": node_name,
            "pool": {"name": pool, "generation": 1, "resourceSliceCount": count}}
    if counters is not None:
        spec["sharedCounters"] = counters
    if devices is not None:
        spec["devices"] = devices
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": name}, "spec": spec}


def h100(index, uid, extra=None):
    """A GPU shaped like a real driver's (bench_data.h): ten attributes, two capacities."""
    attrs = {
        "architecture": {"string": "Hopper"}, "brand": {"string": "Nvidia"},
        "cudaComputeCapability": {"version": "9.0.0"}, "cudaDriverVersion": {"version": "12.4.0"},
        "driverVersion": {"version": "550.54.15"}, "index": {"int": index}, "minor": {"int": index},
        "productName": {"string": "NVIDIA H100 80GB HBM3"}, "type": {"string": "gpu"},
        "uuid": {"string": f"GPU-{uid:08d}-4f6b-a8c2-7e0d5f3b9a1c"},
    }
    attrs.update(extra or {})
    return {"name": f"gpu-{index}", "attributes": attrs,
            "capacity": {"memory": {"value": "80Gi"}, "cores": {"value": "132"}}}


def request(name, klass, count=1, selectors=(), mode=None):
    exactly = {"deviceClassName": klass}
    if mode:
        exactly["allocationMode"] = mode
    else:
        exactly["count"] = count
    if selectors:
        exactly["selectors"] = [{"cel": {"expression": s}} for s in selectors]
    return {"name": name, "exactly": exactly}


def sub_request(name, klass, count=1, selectors=()):
    r = {"name": name, "deviceClassName": klass, "count": count}
    if selectors:
        r["selectors"] = [{"cel": {"expression": s}} for s in selectors]
    return r


def claim(name, requests, constraints=(), namespace="default", allocated=None):
    """allocated: [(request, driver, pool, device)] -> status.allocation (another pod's claim)."""
    devices = {"requests": requests}
    if constraints:
        devices["constraints"] = list(constraints)
    o = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
         "metadata": {"name": name, "namespace": namespace}, "spec": {"devices": devices}}
    if allocated is not None:
        o["status"] = {"allocation": {"devices": {"results": [
            {"request": r, "driver": d, "pool": p, "device": dev} for r, d, p, dev in allocated]}}}
    return o


def match(attribute, requests=None):
    c = {"matchAttribute": attribute}
    if requests:
        c["requests"] = list(requests)
    return c


GPU_CLASS_CEL = (f'device.driver == "{GPU_DRIVER}" && '
                 f'device.attributes["{GPU_DRIVER}"].productName.startsWith("NVIDIA H100") && '
                 f'device.capacity["{GPU_DRIVER}"].memory.compareTo(quantity("40Gi")) >= 0')


# --- families ---
def filter_1000x8():
    objs = [device_class("gpu.example.com", GPU_CLASS_CEL)]
    nodes = [f"node-{i:04d}" for i in range(1000)]
    for i, n in enumerate(nodes):
        objs.append(node(n, {"topology.example.com/rack": f"rack-{i // 40:02d}"}))
        objs.append(slice_(f"{n}-gpu.example.com", GPU_DRIVER, n, n,
                           [h100(d, i * 8 + d) for d in range(8)]))
    for i, n in enumerate(nodes):
        if i % 4 == 3:  # another pod holds 6 of the 8 GPUs: the 4-GPU claim does not fit
            objs.append(claim(f"busy-{n}", [request("gpus", "gpu.example.com", 6)],
                              namespace="other",
                              allocated=[("gpus", GPU_DRIVER, n, f"gpu-{d}") for d in range(6)]))
    objs.append(claim("train", [request("gpus", "gpu.example.com", 4, [
        f'device.attributes["{GPU_DRIVER}"].cudaComputeCapability.isGreaterThan(semver("8.0.0"))'])]))
    return {"name": "filter-1000x8",
            "title": "1,000 nodes x 8 GPUs, CEL class, 4-GPU claim: Filter over all nodes",
            "claims": ["default/train"], "nodes": "*",
            # The Go program runs one node per process: it is run on these, each standing for
            # `weight` nodes of the same shape (free: i % 4 != 3, busy: i % 4 == 3).
            "oracle_nodes": ["node-0000", "node-0003", "node-0500", "node-0999"],
            "oracle_weights": [375, 125, 375, 125]}, objs


def match_attribute():
    n = "node-0"
    domain = lambda d: {"nvlinkDomain": {"int": d // 8}}
    objs = [device_class("gpu.example.com", GPU_CLASS_CEL), node(n)]
    objs.append(slice_(f"{n}-gpu.example.com", GPU_DRIVER, n, n, [h100(d, d, domain(d)) for d in range(48)]))
    # One GPU in use in each of the domains 0-3 (another pod's claim), domains 4 and 5 free.
    objs.append(claim("busy", [request("gpus", "gpu.example.com", 4)], namespace="other",
                      allocated=[("gpus", GPU_DRIVER, n, f"gpu-{d * 8 + 3}") for d in range(4)]))
    for c in ("worker-a", "worker-b"):
        objs.append(claim(c, [request("gpus", "gpu.example.com", 8)],
                          [match(f"{GPU_DRIVER}/nvlinkDomain", ["gpus"])]))
    return {"name": "match-attribute",
            "title": "pod with two 8-GPU claims, matchAttribute nvlinkDomain, 48 GPUs in 6 domains",
            "claims": ["default/worker-a", "default/worker-b"], "nodes": [n], "oracle_nodes": [n]}, objs


# MIG profiles of an 80 GB GPU: (profile, compute slices, memory, how many the GPU exposes).
MIG_PROFILES = [("7g.80gb", 7, 80, 1), ("4g.40gb", 4, 40, 1), ("3g.40gb", 3, 40, 2),
                ("2g.20gb", 2, 20, 3), ("1g.10gb", 1, 10, 7)]


def mig_name(g, profile, k):
    return f"gpu-{g}-mig-{profile.replace('.', '-')}-{k}"


def mig_counters():
    n = "node-0"
    pool = f"{n}-mig"
    objs = [device_class("mig.example.com", f'device.driver == "{GPU_DRIVER}" && '
                                            f'device.attributes["{GPU_DRIVER}"].type == "mig"'), node(n)]
    objs.append(slice_(f"{n}-mig-counters", GPU_DRIVER, n, pool, count=3, counters=[
        {"name": f"gpu-{g}", "counters": {"compute": {"value": "7"}, "memory": {"value": "80Gi"}}}
        for g in range(8)]))
    for half in range(2):
        devices = []
        for g in range(half * 4, half * 4 + 4):
            for profile, compute, mem, count in MIG_PROFILES:
                for k in range(count):
                    devices.append({
                        "name": mig_name(g, profile, k),
                        "attributes": {"type": {"string": "mig"}, "profile": {"string": profile},
                                       "parentIndex": {"int": g},
                                       "parentUUID": {"string": f"GPU-{g:08d}-4f6b-a8c2-7e0d5f3b9a1c"}},
                        "capacity": {"memory": {"value": f"{mem}Gi"}},
                        "consumesCounters": [{"counterSet": f"gpu-{g}", "counters": {
                            "compute": {"value": str(compute)}, "memory": {"value": f"{mem}Gi"}}}]})
        objs.append(slice_(f"{n}-mig-devices-{half}", GPU_DRIVER, n, pool, devices, count=3))
    # Partitions other pods hold (left over per GPU, compute/memory): gpu-0 none, gpu-1 3/40Gi,
    # gpu-2 1/0Gi, gpu-3 3/40Gi, gpu-4 2/30Gi, gpu-5 3/40Gi, gpu-6 5/60Gi, gpu-7 all.
    used = {0: [("7g.80gb", 0)], 1: [("4g.40gb", 0)], 2: [("3g.40gb", 0), ("3g.40gb", 1)],
            3: [("2g.20gb", 0), ("2g.20gb", 1)], 4: [("1g.10gb", k) for k in range(5)],
            5: [("4g.40gb", 0)], 6: [("2g.20gb", 0)]}
    for g, parts in used.items():
        objs.append(claim(f"inference-{g}", [request("mig", "mig.example.com", len(parts))], namespace="other",
                          allocated=[("mig", GPU_DRIVER, pool, mig_name(g, p, k)) for p, k in parts]))
    profile = lambda p: f'device.attributes["{GPU_DRIVER}"].profile == "{p}"'
    objs.append(claim("mixed", [request("big", "mig.example.com", 1, [profile("3g.40gb")]),
                                request("small", "mig.example.com", 3, [profile("1g.10gb")])],
                      [match(f"{GPU_DRIVER}/parentUUID", ["big", "small"])]))
    objs.append(claim("notebook", [request("slice", "mig.example.com", 2, [profile("2g.20gb")])]))
    return {"name": "mig-counters",
            "title": "MIG partitions of 8 GPUs with shared counters, 3g+3x1g on one GPU plus 2x2g",
            "claims": ["default/mixed", "default/notebook"], "nodes": [n], "oracle_nodes": [n]}, objs


def first_available():
    n = "node-0"
    objs = [device_class("gpu.example.com", f'device.driver == "{GPU_DRIVER}"'), node(n)]
    devices = []
    for d in range(16):
        model = "h100" if d < 8 else "a100"
        devices.append({"name": f"gpu-{d}", "attributes": {
            "model": {"string": model}, "index": {"int": d}, "numa": {"int": (d % 8) // 4},
            "productName": {"string": "NVIDIA H100 80GB HBM3" if model == "h100" else "NVIDIA A100-SXM4-40GB"}},
            "capacity": {"memory": {"value": "80Gi" if model == "h100" else "40Gi"}}})
    objs.append(slice_(f"{n}-gpus", GPU_DRIVER, n, n, devices))
    # Another pod holds 5 H100s (3 left: gpu-1, gpu-6, gpu-7) and 3 A100s on NUMA 0 (gpu-8 left there).
    objs.append(claim("busy", [request("gpus", "gpu.example.com", 8)], namespace="other",
                      allocated=[("gpus", GPU_DRIVER, n, f"gpu-{d}") for d in (0, 2, 3, 4, 5, 9, 10, 11)]))
    model = lambda m: f'device.attributes["{GPU_DRIVER}"].model == "{m}"'
    big = lambda: f'device.capacity["{GPU_DRIVER}"].memory.compareTo(quantity("80Gi")) >= 0'
    objs.append(claim("train", [{"name": "gpus", "firstAvailable": [
        sub_request("h100x4", "gpu.example.com", 4, [model("h100")]),
        sub_request("a100x4", "gpu.example.com", 4, [model("a100")]),
        sub_request("a100x2", "gpu.example.com", 2, [model("a100")])]}],
        [match(f"{GPU_DRIVER}/numa", ["gpus"])]))
    objs.append(claim("eval", [{"name": "gpus", "firstAvailable": [
        sub_request("h100x2", "gpu.example.com", 2, [model("h100"), big()]),
        sub_request("any2", "gpu.example.com", 2),
        sub_request("any1", "gpu.example.com", 1)]}],
        [match(f"{GPU_DRIVER}/numa", ["gpus"])]))
    objs.append(claim("debug", [{"name": "gpu", "firstAvailable": [
        sub_request("h100", "gpu.example.com", 1, [model("h100")]),
        sub_request("a100", "gpu.example.com", 1, [model("a100")])]},
        {"name": "spare", "firstAvailable": [
            sub_request("h100", "gpu.example.com", 2, [model("h100")]),
            sub_request("any", "gpu.example.com", 1)]}]))
    return {"name": "first-available",
            "title": "pod with three firstAvailable claims whose first choices do not fit",
            "claims": ["default/train", "default/eval", "default/debug"], "nodes": [n], "oracle_nodes": [n]}, objs


def unsatisfiable(gpus=16, name="unsatisfiable"):
    n = "node-0"
    root = {"resource.kubernetes.io/pcieRoot": {"string": "pci0000:00"}}
    objs = [device_class("gpu.example.com", GPU_CLASS_CEL),
            device_class("nic.example.com", f'device.driver == "{NIC_DRIVER}" && '
                                            f'device.attributes["{NIC_DRIVER}"].rdma == true'), node(n)]
    objs.append(slice_(f"{n}-gpu.example.com", GPU_DRIVER, n, n, [h100(d, d, root) for d in range(gpus)]))
    nics = []
    for k in range(4):
        nics.append({"name": f"nic-{k}", "attributes": {
            "rdma": {"bool": True}, "speedGbps": {"int": 400},
            "resource.kubernetes.io/pcieRoot": {"string": f"pci0000:{(k // 2) * 0x40:02x}"}}})
    objs.append(slice_(f"{n}-nic.example.com", NIC_DRIVER, n, f"{n}-nics", nics))
    # Both NICs on the GPUs' PCIe root are in use by another pod.
    objs.append(claim("busy", [request("nic", "nic.example.com", 2)], namespace="other",
                      allocated=[("nic", NIC_DRIVER, f"{n}-nics", f"nic-{k}") for k in (0, 1)]))
    objs.append(claim("job", [request("gpus", "gpu.example.com", gpus // 2), request("nic", "nic.example.com", 1)],
                      [match("resource.kubernetes.io/pcieRoot", ["gpus", "nic"])]))
    return {"name": name,
            "title": f"{gpus // 2} of {gpus} GPUs + 1 NIC on the same PCIe root, no free NIC there (exhaustive search)",
            "claims": ["default/job"], "nodes": [n], "oracle_nodes": [n]}, objs


def unsatisfiable_20():
    """The same with 10 of 20 GPUs: upstream's work grows with C(2k, k) (about 4**k), DRAForge's with k."""
    return unsatisfiable(20, "unsatisfiable-20")


FAMILIES = [filter_1000x8, match_attribute, mig_counters, first_available, unsatisfiable, unsatisfiable_20]


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out_dir = sys.argv[1]
    os.makedirs(out_dir, exist_ok=True)
    manifest = []
    for make in FAMILIES:
        meta, objects = make()
        meta["file"] = meta["name"] + ".yaml"
        with open(os.path.join(out_dir, meta["file"]), "w") as f:
            f.write(to_yaml(objects))
        manifest.append(meta)
    with open(os.path.join(out_dir, "manifest.json"), "w") as f:
        json.dump({"families": manifest}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
