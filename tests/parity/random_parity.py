#!/usr/bin/env python3
"""Randomised parity with the real thing: generates seeded random DRA scenarios (nodes, drivers, pools,
slices, counters, attributes, CEL selectors, constraints, taints, consumable capacity, allocated state,
and the alpha fields of 1.37 with their gates: compatibility groups, derived attributes, skipNodeOperations
and the nodes' declared features)
and runs each through DRAForge's `draforge allocate` and upstream's allocator (tests/oracle
dra-allocate, Kubernetes 1.37.2). The outcome must be identical and, when allocated, so must the
allocations (shareIDs aside: upstream makes random UUIDs). For outcome "error" only the outcome is
compared (not the wording); for "unschedulable" the first reason (upstream's status message). Prints one block per difference with the seed that reproduces it and ends
with `N passed, N failed`. Exit status 1 on any failure.

Usage:
    random_parity.py DRAFORGE [DRA_ALLOCATE] [--count N] [--seed S] [--jobs J]
                     [--dump DIR] [--minimize DIR] [--coverage] [-q] [--gates A=true,...]

DRA_ALLOCATE defaults to <repo>/.cache/oracle/bin/dra-allocate (tests/oracle/build).

Scenario i of a run uses seed S+i, so `--seed S+i --count 1` reproduces it exactly (the allocated
state of a scenario comes from an earlier oracle run on the same scenario, which is deterministic;
the shareIDs of those allocations are drawn from the seed). See tests/parity/README.md.

Python 3 and PyYAML only.
"""
import argparse
import collections
import concurrent.futures
import copy
import json
from fractions import Fraction
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import uuid

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
DEFAULT_ORACLE = os.path.join(REPO, ".cache", "oracle", "bin", "dra-allocate")
# --kubernetes-version: the Kubernetes version both tools reproduce (None: 1.37, the oracle's and
# DRAForge's default). Set by main() from `draforge version --kubernetes -o json`: VERSION_GATES maps
# every gate of that version to (default, locked).
KVERSION = None
VERSION_GATES = None


def kv():
    """The Kubernetes version as a comparable (major, minor) tuple."""
    return tuple(int(x) for x in (KVERSION or "1.37").split("."))
RV1 = "resource.k8s.io/v1"
# Upstream's Filter timeout for our runs (the scheduler's default is 10s). A scenario whose exhaustive
# search takes longer is skipped (reported, not compared): its outcome would depend on machine speed.
ORACLE_TIMEOUT = "5s"

# ---------------------------------------------------------------------------------------------------
# Vocabulary
# ---------------------------------------------------------------------------------------------------

DRIVERS = ["gpu.example.com", "nic.example.com", "fpga.acme.io"]
SHORT = {"gpu.example.com": "gpu", "nic.example.com": "nic", "fpga.acme.io": "fpga"}
ZONES = ["zone-a", "zone-b"]

# id -> (type, values). Values are drawn from small sets so that equality constraints and selectors
# hit and miss in comparable proportions.
ATTR_VOCAB = {
    "model": ("string", ["a100", "h100", "l4", "t4", "mi300x"]),
    "family": ("string", ["ampere", "hopper", "ada", "cdna3"]),
    "serial": ("string", ["sn-0001", "SN-0042", "sn-1337", "x-77"]),
    "index": ("int", list(range(8))),
    "numa": ("int", [0, 1]),
    "speed": ("int", [10, 25, 100, 400]),
    "healthy": ("bool", [True, False]),
    "sriov": ("bool", [True, False]),
    "driverVersion": ("version", ["1.2.3", "1.3.0", "2.0.0", "2.0.0-rc.1", "1.10.0", "0.9.1"]),
    "firmware": ("version", ["3.1.0", "3.2.1", "4.0.0+build.7", "3.10.2"]),
    "pcieRoot": ("string", ["pci0000:00", "pci0000:40", "pci0000:80"]),
}
# Attributes with a well-known foreign domain.
FOREIGN = {"pcieRoot": "resource.kubernetes.io", "numa": "topology.example.com"}

CAP_VOCAB = {
    "memory": ["8Gi", "16Gi", "24Gi", "40Gi", "80Gi", "81920Mi"],
    "cores": ["4", "8", "16", "32"],
    "bandwidth": ["10G", "25G", "100G"],
    "slots": ["1", "2", "4"],
}

TAINT_KEYS = ["example.com/unhealthy", "example.com/maintenance", "gpu.example.com/ecc"]
TAINT_VALUES = ["", "true", "ecc", "planned"]

# GATE_VARIANTS' entry for a random mix: each gate of MIX_GATES flipped from its default with
# probability 0.3, then the dependencies upstream enforces (kube_features.go) restored.
MIX = "<mix>"
MIX_GATES = [("DRAConsumableCapacity", True), ("DRAPartitionableDevices", True), ("DRADeviceTaints", True),
             ("DRADeviceTaintRules", True), ("DRADeviceBindingConditions", True),
             ("DRAFractionalCapacityRange", False), ("DRAListTypeAttributes", False),
             ("DRADeviceCompatibilityGroups", False), ("DRADerivedAttributes", False),
             ("DRAOptionalNodeOperations", False)]
MIX_DEPENDS = {"DRADeviceTaintRules": "DRADeviceTaints", "DRAFractionalCapacityRange": "DRAConsumableCapacity",
               "DRADeviceCompatibilityGroups": "DRAPartitionableDevices"}


def version_default(name, default_137):
    """A gate's default at KVERSION (None: the gate does not exist there), or its 1.37 default."""
    if VERSION_GATES is None:
        return default_137
    return VERSION_GATES[name][0] if name in VERSION_GATES else None


def mix_gate_names():
    """The gates of MIX_GATES that KVERSION has and does not lock, with their defaults there."""
    out = []
    for name, default in MIX_GATES:
        d = version_default(name, default)
        if d is not None and not (VERSION_GATES or {}).get(name, (0, False))[1]:
            out.append((name, bool(d)))
    return out


def gates_consistent(value):
    """Whether upstream accepts the gate values `value` (name -> bool): MIX_DEPENDS holds."""
    return not any(value.get(gate) and not value.get(needs, True) for gate, needs in MIX_DEPENDS.items())


_PAIRWISE = {}


def pairwise_rows():
    """A pairwise covering set for KVERSION's mix gates: few gate sets (name -> bool) such that every
    combination of values of every two gates that upstream accepts in some gate set occurs in at least
    one of them. Greedy over all consistent assignments (at most 2^10), so deterministic."""
    key = KVERSION or "1.37"
    if key in _PAIRWISE:
        return _PAIRWISE[key]
    names = [n for n, _ in mix_gate_names()]
    candidates = []
    for bits in range(1 << len(names)):
        value = {n: bool(bits >> i & 1) for i, n in enumerate(names)}
        if gates_consistent(value):
            candidates.append(value)
    uncovered = set().union(*(gate_pairs_of_value(v) for v in candidates)) if candidates else set()
    rows = []
    while uncovered:
        best = max(candidates, key=lambda v: len(gate_pairs_of_value(v) & uncovered))
        rows.append(best)
        uncovered -= gate_pairs_of_value(best)
    _PAIRWISE[key] = rows
    return rows


def gate_pairs_of(gates):
    """The (gate, value, gate, value) pairs of a scenario's gate set over KVERSION's mix gates."""
    return gate_pairs_of_value(gate_values(gates))


def gate_pairs_of_value(value):
    """gate_pairs_of for a gate set given as name -> bool."""
    names = [n for n, _ in mix_gate_names()]
    return {(a, value[a], b, value[b]) for i, a in enumerate(names) for b in names[i + 1:]}


def mix_gates(rng):
    """A gate set for MIX: half the time a row of the pairwise covering set (pairwise_rows), so that a
    few thousand scenarios hold every accepted combination of every two gates; otherwise random, each
    gate flipped from its default with probability 0.3. "A=false,B=true" with only the gates that
    differ from the defaults of KVERSION (the random draw covers gates that version lacks too, so
    that a seed's scenario stays the same)."""
    if rng.random() < 0.5:
        rows = pairwise_rows()
        row = rows[rng.randrange(len(rows))]
        return ",".join(f"{name}={str(row[name]).lower()}" for name, d in mix_gate_names() if row[name] != d)
    value = {}
    for name, default in MIX_GATES:
        flip = rng.random() < 0.3
        d = version_default(name, default)
        if d is not None and not (VERSION_GATES or {}).get(name, (0, False))[1]:
            value[name] = not d if flip else d
    for gate, needs in MIX_DEPENDS.items():
        if gate in value and not value.get(needs, True):
            value[gate] = False
    return ",".join(f"{name}={str(value[name]).lower()}" for name, default in MIX_GATES
                    if name in value and value[name] != version_default(name, default))


def for_version(gates):
    """`gates` ("A=true,B=false", written for 1.37: each item flips a gate from 1.37's default) as a
    variant of KVERSION's defaults: each gate KVERSION has and does not lock is flipped from *its*
    default (so 1.34's alpha gates get turned on where 1.37's betas get turned off), the others are
    dropped; a gate on whose dependency (MIX_DEPENDS) is off turns the dependency on."""
    if VERSION_GATES is None or not gates:
        return gates
    value = {}
    for item in filter(None, gates.split(",")):
        name = item.partition("=")[0].strip()
        if name in VERSION_GATES and not VERSION_GATES[name][1]:
            value[name] = not VERSION_GATES[name][0]
    for gate, needs in MIX_DEPENDS.items():
        if value.get(gate) and needs in VERSION_GATES and not value.get(needs, VERSION_GATES[needs][0]):
            value[needs] = True
    return ",".join(f"{name}={str(v).lower()}" for name, v in value.items() if v != VERSION_GATES[name][0])


def gate_values(gates):
    """The gates of KVERSION's defaults with `gates` ("A=true,B=false") applied: MIX_GATES and the
    other gates the variant choice reads (absent gates are off)."""
    value = {name: bool(version_default(name, default)) for name, default in
             MIX_GATES + [("DRAAdminAccess", True), ("DRAPrioritizedList", True), ("DRAResourceClaimDeviceStatus", True)]}
    for item in filter(None, (gates or "").split(",")):
        name, _, v = item.partition("=")
        value[name.strip()] = v.strip().lower() in ("true", "1", "t")
    return value


def pools_in_map_order(gates):
    """Whether upstream's allocator walks pools in Go map order, random from run to run, so that its
    answer is one of several (see compare): every variant of 1.34 and 1.35 (GatherPools sorts the
    pools from 1.36 on), the stable variant of 1.36 and 1.37."""
    return kv() <= (1, 35) or selects_stable(gates)


def selects_stable(gates):
    """Whether kube-scheduler 1.37 runs its stable allocator variant for `gates` (structured/allocator.go:
    the first variant supporting every enabled feature; stable lacks consumable capacity, binding
    conditions, fractional capacity range and the alpha features). Its pool order is Go map
    iteration order, random from run to run, so its answer is one of several (see compare)."""
    v = gate_values(gates)
    if kv() <= (1, 35):
        # 1.34 and 1.35: the variants below experimental lack consumable capacity (lib/alloc/features.h).
        binding = (v["DRADeviceBindingConditions"] or v["DRAResourceClaimDeviceStatus"]) if kv() == (1, 34) else \
            (v["DRADeviceBindingConditions"] and v["DRAResourceClaimDeviceStatus"])
        return not (binding or v["DRAConsumableCapacity"])
    if kv() == (1, 36):
        return not (v["DRAConsumableCapacity"] or (v["DRADeviceBindingConditions"] and v["DRAResourceClaimDeviceStatus"]))
    return not any(v[g] for g in ("DRAConsumableCapacity", "DRADeviceBindingConditions", "DRAFractionalCapacityRange",
                                  "DRAListTypeAttributes", "DRADeviceCompatibilityGroups", "DRADerivedAttributes",
                                  "DRAOptionalNodeOperations"))


# Feature gate variations (on top of the 1.37 defaults). Mostly defaults; each entry is a set of
# non-default gates upstream accepts (no locked gates, dependencies met).
GATE_VARIANTS = [
    ("", 80),
    ("DRAConsumableCapacity=false", 3),
    ("DRAPartitionableDevices=false", 3),
    ("DRADeviceTaintRules=false", 2),
    ("DRADeviceTaints=false,DRADeviceTaintRules=false", 2),
    ("DRADeviceBindingConditions=false", 2),
    ("DRAListTypeAttributes=true", 4),          # selects the experimental allocator
    ("DRAFractionalCapacityRange=true", 2),
    # The three alpha gates of 1.37 (issue 4), each selecting the experimental allocator, alone and
    # together. Their API fields are generated in every scenario with the gate on, and rarely with it
    # off (compatibility groups, skipNodeOperations, derived attributes: see Gen.generate).
    ("DRADeviceCompatibilityGroups=true", 3),
    ("DRADerivedAttributes=true", 3),
    ("DRAOptionalNodeOperations=true", 3),
    ("DRADeviceCompatibilityGroups=true,DRADerivedAttributes=true,DRAOptionalNodeOperations=true", 2),
    # Issue 22: gate sets that select the stable allocator (no beta gate it lacks on), with the
    # content of the gates that are off still in the objects, and random mixes of every gate.
    ("DRAConsumableCapacity=false,DRADeviceBindingConditions=false", 3),
    ("DRAConsumableCapacity=false,DRADeviceBindingConditions=false,DRAPartitionableDevices=false", 1),
    ("DRAConsumableCapacity=false,DRADeviceBindingConditions=false,DRADeviceTaints=false,DRADeviceTaintRules=false", 1),
    (MIX, 6),
]
COMPAT_GROUPS = ["mig", "vgpu", "mps"]
# --gates: one variant for every scenario instead of GATE_VARIANTS' draw (the draw still happens, so
# the rest of a seed's scenario stays the same), to aim a run at one feature.
FORCED_GATES = None
SKIP_NODE_OPERATIONS = [["*"], ["NodePrepareResources", "NodeUnprepareResources"], ["NodePrepareResources"]]


def wchoice(rng, items):
    """items: [(value, weight)]"""
    total = sum(w for _, w in items)
    x = rng.random() * total
    for v, w in items:
        x -= w
        if x < 0:
            return v
    return items[-1][0]


def gi(n):
    return f"{n}Gi"


def spell(rng, n, unit, p=0.15):
    """n<unit> as a quantity string, sometimes in another spelling ("16384Mi" for 16Gi, "4000M" for
    4G, "2000m" or "2e0" for 2, "0G" for 0, "+2", "04G") as drivers and users write them: Kubernetes
    re-formats some of them and keeps others verbatim (resource.ParseQuantity)."""
    if rng.random() >= p:
        return f"{n}{unit}"
    if n == 0:
        return rng.choice(["0G", "0Gi", "0M", "0.0"])
    if unit == "Gi":
        return rng.choice([f"{n * 1024}Mi", f"{n * 1024 * 1024}Ki", f"{n}.0Gi", f"+{n}Gi"])
    if unit == "G":
        return rng.choice([f"{n * 1000}M", f"{n}000000k", f"{n / 1000}T", f"0{n}G"])
    return rng.choice([f"{n * 1000}m", f"{n}.0", f"{n}e0", f"+{n}"])


# ---------------------------------------------------------------------------------------------------
# Scenario generation
# ---------------------------------------------------------------------------------------------------

class Attr:
    """One attribute of a driver's schema: the key as written in the slice, the CEL domain and id."""

    def __init__(self, key, domain, ident, typ, values, presence, mixed=False):
        self.key, self.domain, self.id, self.type, self.values, self.presence = key, domain, ident, typ, values, presence
        self.mixed = mixed

    @property
    def fq(self):
        return f"{self.domain}/{self.id}"


class Cap:
    def __init__(self, key, domain, ident, values):
        self.key, self.domain, self.id, self.values = key, domain, ident, values


class Gen:
    """Generates one scenario from one seed."""

    def __init__(self, seed):
        self.seed = seed
        self.rng = random.Random(seed)
        self.tags = collections.Counter()    # coverage
        self.objects = []                     # everything but nodes
        self.nodes = []
        self.classes = []                     # (name, driver or None)
        self.schemas = {}                     # driver -> [Attr]
        self.caps = {}                        # driver -> [Cap]
        self.multi_caps = {}                  # driver -> [Cap] of allowMultipleAllocations devices
        self.drivers = []
        self.pool_names = collections.defaultdict(list)   # driver -> pool names
        self.device_names = collections.defaultdict(list)  # (driver, pool) -> device names

    # -- nodes --------------------------------------------------------------------------------------

    def gen_nodes(self):
        rng = self.rng
        for i in range(rng.randint(1, 3)):
            name = f"node-{i + 1}"
            labels = {"kubernetes.io/hostname": name, "topology.kubernetes.io/zone": rng.choice(ZONES)}
            if rng.random() < 0.5:
                labels["example.com/rack"] = rng.choice(["rack-1", "rack-2"])
            if rng.random() < 0.4:
                labels["example.com/accelerator"] = "true"
            if rng.random() < 0.5:
                labels["example.com/generation"] = str(rng.randint(2, 5))
            node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels}}
            if self.skip_ops and rng.random() < 0.6:
                # Node.status.declaredFeatures: what lets the allocator use skipNodeOperations devices.
                node["status"] = {"declaredFeatures": rng.choice([["DRAOptionalNodeOperations"],
                                                                  ["DRAOptionalNodeOperations", "Other"], ["Other"]])}
                self.tags["node.declaredFeatures"] += 1
            self.nodes.append(node)
        self.node_names = [n["metadata"]["name"] for n in self.nodes]
        self.target = rng.choice(self.node_names)

    def gen_node_selector(self):
        rng = self.rng
        reqs = []
        for _ in range(rng.choice([1, 1, 1, 2])):
            x = rng.random()
            if x < 0.40:
                reqs.append({"key": "topology.kubernetes.io/zone", "operator": "In",
                             "values": sorted(rng.sample(ZONES, rng.randint(1, 2)))})
            elif x < 0.50:
                reqs.append({"key": "topology.kubernetes.io/zone", "operator": "NotIn", "values": [rng.choice(ZONES)]})
            elif x < 0.62:
                reqs.append({"key": "example.com/rack", "operator": rng.choice(["Exists", "DoesNotExist"])})
            elif x < 0.74:
                reqs.append({"key": "example.com/accelerator", "operator": "In", "values": ["true"]})
            elif x < 0.86:
                reqs.append({"key": "example.com/generation", "operator": rng.choice(["Gt", "Lt"]),
                             "values": [str(rng.randint(2, 5))]})
            else:
                reqs.append({"key": "kubernetes.io/hostname", "operator": "In",
                             "values": sorted(rng.sample(self.node_names, rng.randint(1, len(self.node_names))))})
        term = {"matchExpressions": reqs}
        if rng.random() < 0.1:
            term["matchFields"] = [{"key": "metadata.name", "operator": "In", "values": [rng.choice(self.node_names)]}]
            self.tags["nodeSelector.matchFields"] += 1
        terms = [term]
        if rng.random() < 0.01:
            # Not valid API-wise (exactly one term), but the allocator has a code path for it.
            terms.append({"matchExpressions": [{"key": "example.com/rack", "operator": "Exists"}]})
            self.tags["nodeSelector.2terms"] += 1
        return {"nodeSelectorTerms": terms}

    # -- drivers and their attribute schemas --------------------------------------------------------

    def gen_schema(self, driver):
        rng = self.rng
        ids = rng.sample(sorted(ATTR_VOCAB), rng.randint(3, 6))
        if "index" not in ids and rng.random() < 0.6:
            ids.append("index")
        schema = []
        for ident in ids:
            typ, values = ATTR_VOCAB[ident]
            if ident in FOREIGN and (ident == "pcieRoot" or rng.random() < 0.3):
                domain = FOREIGN[ident]
                key = f"{domain}/{ident}"
                self.tags["attr.foreign-domain"] += 1
            elif rng.random() < 0.3:
                domain, key = driver, f"{driver}/{ident}"
                self.tags["attr.qualified"] += 1
            else:
                domain, key = driver, ident
                self.tags["attr.unqualified"] += 1
            if ident != "index":
                values = rng.sample(values, rng.randint(1, len(values)))
            presence = 1.0 if rng.random() < 0.6 else rng.choice([0.5, 0.7, 0.9])
            schema.append(Attr(key, domain, ident, typ, values, presence, mixed=rng.random() < 0.03))
        self.schemas[driver] = schema
        caps = []
        for ident in rng.sample(sorted(CAP_VOCAB), rng.randint(0, 3)):
            if rng.random() < 0.25:
                caps.append(Cap(f"{driver}/{ident}", driver, ident, CAP_VOCAB[ident]))
            else:
                caps.append(Cap(ident, driver, ident, CAP_VOCAB[ident]))
        self.caps[driver] = caps

    def attr_value(self, a, ordinal):
        rng = self.rng
        typ = a.type
        if a.mixed and rng.random() < 0.3:
            # A driver bug or skew: the same attribute with another type on some device.
            typ = rng.choice([t for t in ("int", "bool", "string", "version") if t != a.type])
            self.tags["attr.mixed-types"] += 1
            v = {"int": 3, "bool": True, "string": "3", "version": "3.0.0"}[typ]
        elif a.id == "index":
            v = ordinal
        else:
            v = rng.choice(a.values)
        if self.list_attrs and rng.random() < 0.15:
            # List-typed attribute (DRAListTypeAttributes).
            key = {"int": "ints", "bool": "bools", "string": "strings", "version": "versions"}[typ]
            if rng.random() < 0.1:
                # Present but empty (`strings: []`): no value for matchAttribute/distinctAttribute with
                # the gate on, yet accepted as the first device of either with the gate off.
                self.tags["attr.list-empty"] += 1
                return {key: []}
            vals = [v]
            pool = [x for x in (ATTR_VOCAB[a.id][1] if a.id in ATTR_VOCAB else []) if x != v]
            if typ == a.type and pool:
                vals += rng.sample(pool, min(len(pool), rng.randint(1, 2)))
            self.tags["attr.list"] += 1
            return {key: vals}
        return {typ: v}

    def device_attrs(self, driver, ordinal):
        attrs = {}
        for a in self.schemas[driver]:
            if self.rng.random() < a.presence:
                attrs[a.key] = self.attr_value(a, ordinal)
        return attrs

    def taints(self):
        rng = self.rng
        out = []
        for _ in range(rng.choice([1, 1, 2])):
            t = {"key": rng.choice(TAINT_KEYS), "effect": wchoice(rng, [("NoSchedule", 5), ("NoExecute", 4), ("None", 1)])}
            v = rng.choice(TAINT_VALUES)
            if v:
                t["value"] = v
            if rng.random() < 0.2:
                t["timeAdded"] = "2026-01-02T03:04:05Z"
            self.tags[f"taint.{t['effect']}"] += 1
            out.append(t)
        return out

    def plain_device(self, driver, name, ordinal):
        rng = self.rng
        d = {"name": name}
        attrs = self.device_attrs(driver, ordinal)
        if attrs:
            d["attributes"] = attrs
        caps = {}
        for c in self.caps[driver]:
            if rng.random() < 0.9:
                caps[c.key] = {"value": rng.choice(c.values)}
        if caps:
            d["capacity"] = caps
        if rng.random() < 0.1:
            d["taints"] = self.taints()
        return d

    def multi_device(self, driver, name, ordinal):
        """A device with allowMultipleAllocations and consumable capacity (request policies)."""
        rng = self.rng
        d = {"name": name, "allowMultipleAllocations": True}
        attrs = self.device_attrs(driver, ordinal)
        if attrs:
            d["attributes"] = attrs
        caps = {}
        for c in self.multi_caps[driver]:
            total = rng.choice([8, 16, 32, 40])
            unit = "Gi" if c.id == "memory" else ("G" if c.id == "bandwidth" else "")
            cap = {"value": spell(rng, total, unit)}
            p = rng.random()
            if p < 0.35:
                step = rng.choice([1, 2, 4, 8])
                mn = step * rng.randint(0, 2)
                if mn > total:
                    mn = 0
                rangeobj = {"min": spell(rng, mn, unit)}
                hi_steps = (total - mn) // step
                default_steps = rng.randint(0, max(0, min(hi_steps, 2)))
                if rng.random() < 0.8:
                    rangeobj["step"] = spell(rng, step, unit)
                    dflt = mn + default_steps * step
                else:
                    dflt = mn
                if rng.random() < 0.7:
                    mx_steps = rng.randint(max(default_steps, 1), max(hi_steps, 1))
                    mx = mn + mx_steps * step if "step" in rangeobj else min(total, mn + mx_steps * step)
                    if mx <= total and mx >= dflt:
                        rangeobj["max"] = spell(rng, mx, unit)
                pol = {"validRange": rangeobj}
                pol["default"] = spell(rng, dflt, unit)
                cap["requestPolicy"] = pol
                self.tags["capacity.validRange"] += 1
            elif p < 0.6:
                vals = sorted(rng.sample([1, 2, 4, 8, 16, 32], rng.randint(1, 4)))
                vals = [v for v in vals if v <= total] or [1]
                pol = {"default": spell(rng, rng.choice(vals), unit), "validValues": [spell(rng, v, unit) for v in vals]}
                cap["requestPolicy"] = pol
                self.tags["capacity.validValues"] += 1
            elif p < 0.75:
                cap["requestPolicy"] = {"default": spell(rng, rng.choice([0, 1, 2, 4]), unit)}
                self.tags["capacity.defaultOnly"] += 1
            else:
                self.tags["capacity.noPolicy"] += 1
            caps[c.key] = cap
        if caps:
            d["capacity"] = caps
        if rng.random() < 0.1:
            d["taints"] = self.taints()
        self.tags["device.allowMultipleAllocations"] += 1
        return d

    # -- pools --------------------------------------------------------------------------------------

    def node_selection(self, kind, node=None):
        if kind == "node":
            return {"nodeName": node}
        if kind == "selector":
            return {"nodeSelector": self.gen_node_selector()}
        if kind == "all":
            return {"allNodes": True}
        return {"perDeviceNodeSelection": True}

    def gen_pool(self, driver, pool, kind, node=None):
        rng = self.rng
        short = SHORT[driver]
        self.pool_names[driver].append(pool)
        sel = self.node_selection(kind, node)
        self.tags[f"pool.{kind}"] += 1
        devices = []
        counter_sets = []
        ordinal = 0
        prefix = short if kind == "node" else f"{short}-{pool.split('-')[-1]}"
        # Plain devices.
        for _ in range(rng.choice([0, 1, 2, 3, 3, 4, 4, 5, 6, 8]) if self.partitionable else rng.randint(1, 8)):
            devices.append(self.plain_device(driver, f"{prefix}-{ordinal}", ordinal))
            ordinal += 1
        # Partitionable devices: counters in their own slice, devices consuming them.
        if self.partitionable and rng.random() < 0.35:
            self.tags["pool.partitionable"] += 1
            for k in range(rng.choice([1, 1, 2])):
                cs_name = f"{prefix}-{k}-counters"
                mem = rng.choice([16, 40, 80])
                counters = {"memory": {"value": spell(rng, mem, "Gi")}}
                if rng.random() < 0.5:
                    counters["sms"] = {"value": str(rng.choice([100, 132]))}
                counter_sets.append({"name": cs_name, "counters": counters})
                parts = [("whole", 1)] + [(f"half{j}", 2) for j in range(2)] + [(f"q{j}", 4) for j in range(4)]
                chosen = sorted(rng.sample(range(len(parts)), rng.randint(2, 5)))
                for idx in chosen:
                    pname, div = parts[idx]
                    d = self.plain_device(driver, f"{prefix}-{k}-{pname}", ordinal)
                    ordinal += 1
                    d.setdefault("attributes", {})["profile"] = {"string": f"{mem // div}g"}
                    consumes = {"memory": {"value": spell(rng, mem // div, "Gi")}}
                    if "sms" in counters and rng.random() < 0.7:
                        consumes["sms"] = {"value": str(int(counters["sms"]["value"]) // div)}
                    cc = [{"counterSet": cs_name, "counters": consumes}]
                    if self.compat and rng.random() < 0.6:
                        cc[0]["compatibilityGroups"] = sorted(rng.sample(COMPAT_GROUPS, rng.choice([1, 1, 2])))
                        self.tags["device.compatibilityGroups"] += 1
                    if rng.random() < 0.008:
                        # Unknown counter set or counter: the pool is invalid.
                        if rng.random() < 0.5:
                            cc[0]["counterSet"] = f"{prefix}-9-counters"
                        else:
                            cc[0]["counters"]["nosuchcounter"] = {"value": "1"}
                        self.tags["pool.invalid.counters"] += 1
                    d["consumesCounters"] = cc
                    devices.append(d)
                if k == 1 and rng.random() < 0.3:
                    # One device consuming from both sets.
                    d = self.plain_device(driver, f"{prefix}-both", ordinal)
                    ordinal += 1
                    d["consumesCounters"] = [
                        {"counterSet": counter_sets[0]["name"], "counters": {"memory": {"value": gi(4)}}},
                        {"counterSet": counter_sets[1]["name"], "counters": {"memory": {"value": gi(4)}}}]
                    if self.compat:
                        for c in d["consumesCounters"]:
                            if rng.random() < 0.6:
                                c["compatibilityGroups"] = [rng.choice(COMPAT_GROUPS)]
                    devices.append(d)
                    self.tags["device.consumes-two-sets"] += 1
        # Shared (multi-allocatable) devices.
        if self.consumable and self.multi_caps.get(driver) and rng.random() < 0.7:
            for _ in range(rng.randint(1, 2)):
                d = self.multi_device(driver, f"{prefix}-shared-{ordinal}", ordinal)
                ordinal += 1
                if counter_sets and rng.random() < 0.4:
                    # A shareable device that is itself a partition.
                    cs = rng.choice(counter_sets)
                    d["consumesCounters"] = [{"counterSet": cs["name"], "counters": {"memory": {"value": gi(4)}}}]
                    if self.compat and rng.random() < 0.5:
                        d["consumesCounters"][0]["compatibilityGroups"] = [rng.choice(COMPAT_GROUPS)]
                    self.tags["device.shared-consumes-counters"] += 1
                devices.append(d)
        # Binding conditions.
        if rng.random() < 0.05:
            for d in rng.sample(devices, min(len(devices), rng.randint(1, 2))):
                d["bindingConditions"] = ["example.com/attached"]
                d["bindingFailureConditions"] = ["example.com/failed"]
                if rng.random() < 0.5:
                    d["bindsToNode"] = True
                self.tags["device.bindingConditions"] += 1
        if not devices and not counter_sets:
            devices.append(self.plain_device(driver, f"{prefix}-{ordinal}", ordinal))
        if rng.random() < 0.2:
            rng.shuffle(devices)
        # Per-device node selection.
        if kind == "perdevice":
            for d in devices:
                x = rng.random()
                if x < 0.5:
                    d["nodeName"] = rng.choice(self.node_names)
                elif x < 0.75:
                    d["allNodes"] = True
                else:
                    d["nodeSelector"] = self.gen_node_selector()
        # Duplicate device name (invalid pool).
        if len(devices) >= 2 and rng.random() < 0.01:
            devices[-1] = dict(devices[-1], name=devices[0]["name"])
            self.tags["pool.invalid.duplicate-device"] += 1
        for d in devices:
            self.device_names[(driver, pool)].append(d["name"])

        # Split into slices.
        device_slices = [devices]
        if len(devices) >= 2 and rng.random() < 0.3:
            cut = rng.randint(1, len(devices) - 1)
            device_slices = [devices[:cut], devices[cut:]]
            self.tags["pool.split"] += 1
        counter_slices = []
        if counter_sets:
            if len(counter_sets) == 2 and rng.random() < 0.3:
                counter_slices = [[counter_sets[0]], [counter_sets[1]]]
                if rng.random() < 0.15:
                    counter_slices[1][0] = dict(counter_slices[1][0], name=counter_sets[0]["name"])
                    self.tags["pool.invalid.duplicate-counterset"] += 1
            else:
                counter_slices = [counter_sets]
        generation = rng.randint(0, 3)
        count = len(device_slices) + len(counter_slices)
        letters = rng.sample("abcdefghij", count + 2)
        base = f"{node}-{short}-{pool}" if kind == "node" else f"{short}-{pool}"
        slices = []
        skip_ops = rng.choice(SKIP_NODE_OPERATIONS) if self.skip_ops and rng.random() < 0.4 else None
        for i, part in enumerate(device_slices):
            spec = {"driver": driver, "pool": {"name": pool, "generation": generation, "resourceSliceCount": count}}
            spec.update(copy.deepcopy(sel))
            if skip_ops and (i == 0 or rng.random() < 0.7):
                spec["skipNodeOperations"] = list(skip_ops)
                self.tags["slice.skipNodeOperations"] += 1
            if part:
                spec["devices"] = part
            slices.append({"apiVersion": RV1, "kind": "ResourceSlice", "metadata": {"name": f"{base}-{letters[i]}"},
                           "spec": spec})
        for j, part in enumerate(counter_slices):
            spec = {"driver": driver, "pool": {"name": pool, "generation": generation, "resourceSliceCount": count}}
            csel = copy.deepcopy(sel)
            if kind == "perdevice" or rng.random() < 0.1:
                # Counter slices need a node selection of their own; sometimes it differs.
                csel = {"nodeName": node} if node else {"allNodes": True}
            spec.update(csel)
            spec["sharedCounters"] = part
            slices.append({"apiVersion": RV1, "kind": "ResourceSlice",
                           "metadata": {"name": f"{base}-{letters[len(device_slices) + j]}"}, "spec": spec})
        # Generations: stale older generation, incomplete, mid-update.
        x = rng.random()
        if x < 0.12 and generation > 0:
            stale = copy.deepcopy(rng.choice(slices))
            stale["metadata"]["name"] = f"{base}-{letters[-1]}"
            stale["spec"]["pool"]["generation"] = generation - 1
            for d in stale["spec"].get("devices", []):
                d["name"] = d["name"] + "-old"
                d.pop("taints", None)
            slices.append(stale)
            self.tags["pool.stale-generation"] += 1
        elif x < 0.16 and len(slices) >= 2:
            slices.pop(rng.randrange(len(slices)))
            self.tags["pool.incomplete"] += 1
        elif x < 0.21:
            newer = copy.deepcopy(rng.choice(slices))
            newer["metadata"]["name"] = f"{base}-{letters[-2]}"
            newer["spec"]["pool"]["generation"] = generation + 1
            if kind != "node" and rng.random() < 0.5:
                for k in ("allNodes", "nodeSelector", "perDeviceNodeSelection"):
                    newer["spec"].pop(k, None)
                newer["spec"]["nodeName"] = rng.choice(self.node_names)
                if "devices" in newer["spec"]:
                    for d in newer["spec"]["devices"]:
                        for k in ("nodeName", "allNodes", "nodeSelector"):
                            d.pop(k, None)
            slices.append(newer)
            self.tags["pool.mid-update"] += 1
        if rng.random() < 0.3:
            rng.shuffle(slices)
        self.objects.extend(slices)

    def gen_drivers(self):
        rng = self.rng
        self.drivers = sorted(rng.sample(DRIVERS, rng.randint(1, 3)))
        for driver in self.drivers:
            self.gen_schema(driver)
            if self.consumable and rng.random() < 0.5:
                ids = rng.sample(["memory", "bandwidth", "cores"], rng.randint(1, 2))
                self.multi_caps[driver] = [Cap(i if rng.random() < 0.8 else f"{driver}/{i}", driver, i, []) for i in ids]
            for node in self.node_names:
                if rng.random() < (0.96 if node == self.target else 0.7):
                    self.gen_pool(driver, node if rng.random() < 0.7 else f"{node}-{rng.choice(['x', 'y'])}", "node", node)
            if rng.random() < 0.25:
                self.gen_pool(driver, f"fabric-{rng.choice(['a', 'b'])}", "selector")
            if rng.random() < 0.15:
                self.gen_pool(driver, "global", "all")
            if self.partitionable and rng.random() < 0.05:
                self.gen_pool(driver, "perdev", "perdevice")

    def gen_taint_rules(self):
        rng = self.rng
        if rng.random() >= 0.25:
            return
        for i in range(rng.randint(1, 2)):
            sel = {}
            driver = rng.choice(self.drivers)
            pools = self.pool_names.get(driver) or ["nosuchpool"]
            x = rng.random()
            if x < 0.75:
                pool = rng.choice(pools)
                sel = {"driver": driver, "pool": pool}
                names = self.device_names.get((driver, pool)) or ["nosuchdevice"]
                sel["device"] = rng.choice(names)
            elif x < 0.85:
                sel = {"driver": driver, "pool": rng.choice(pools)}
            elif x < 0.9:
                sel = {"driver": driver}
            elif x < 0.95:
                sel = {"device": rng.choice(["gpu-0", "nic-1", "fpga-0", "gpu-shared-1"])}
            taint = self.taints()[0]
            taint.pop("timeAdded", None)
            # DeviceTaintRule is served as v1 from 1.37, v1beta2 from 1.36, v1alpha3 before.
            rule_version = RV1 if kv() >= (1, 37) else "resource.k8s.io/v1beta2" if kv() == (1, 36) else \
                "resource.k8s.io/v1alpha3"
            rule = {"apiVersion": rule_version, "kind": "DeviceTaintRule", "metadata": {"name": f"rule-{i}"},
                    "spec": {"taint": taint}}
            if sel:
                rule["spec"]["deviceSelector"] = sel
            self.objects.append(rule)
            self.tags["deviceTaintRule"] += 1

    # -- CEL ----------------------------------------------------------------------------------------

    def q(self, s):
        return json.dumps(s)

    def attr_access(self, a, base=None):
        rng = self.rng
        b = base or f'device.attributes["{a.domain}"]'
        return f'{b}.{a.id}' if rng.random() < 0.8 else f'{b}["{a.id}"]'

    def value_pred(self, typ, x, values, ident):
        """A predicate on expression x of type typ."""
        rng = self.rng
        if typ == "int":
            v = rng.choice(values) if values else 1
            lo, hi = min(values), max(values)
            return rng.choice([f"{x} == {v}", f"{x} != {v}", f"{x} > {v}", f"{x} >= {v}", f"{x} < {v}", f"{x} <= {v}",
                               f"{x} in [{v}, {rng.choice(values)}]", f"{x} % 2 == 0", f"{x} >= {lo}", f"{x} <= {hi}",
                               f"{x} >= {lo} && {x} <= {hi}"])
        if typ == "string":
            v = rng.choice(values) if values else "x"
            return rng.choice([f"{x} == {self.q(v)}", f"{x} != {self.q(v)}", f"{x} != {self.q(v)}",
                               f"{x} in [{self.q(v)}, {self.q(rng.choice(values))}]",
                               f"{x} in {json.dumps(sorted(set(values)))}",
                               f"{x}.startsWith({self.q(v[:2])})", f"{x}.endsWith({self.q(v[-1:])})",
                               f"{x}.contains({self.q(v[1:3])})", f'{x}.matches("^[a-z]+[0-9]+$")',
                               f"{x}.lowerAscii() == {self.q(v.lower())}", f"{x}.size() >= 3",
                               f'{x}.split(":")[0] == "pci0000"', f"{x}.upperAscii().startsWith({self.q(v[:1].upper())})"])
        if typ == "bool":
            return rng.choice([f"{x}", f"{x} == true", f"!{x}", f"{x} == false"])
        if typ == "version":
            v = rng.choice(values) if values else "1.0.0"
            return rng.choice([f'{x}.isGreaterThan(semver("{v}"))', f'{x}.isLessThan(semver("{v}"))',
                               f'{x}.compareTo(semver("{v}")) >= 0', f"{x}.major() == {v.split('.')[0]}",
                               f'{x} == semver("{v}")', f'semver("1.0.0").isLessThan({x})',
                               f"{x}.minor() > 1"])
        raise ValueError(typ)

    def attr_pred(self, driver):
        """A predicate on one attribute of the driver's schema, the way users write them."""
        rng = self.rng
        schema = self.schemas.get(driver) or []
        if not schema or rng.random() < 0.04:
            # An attribute no device has (typo, other driver's name).
            a = Attr("nosuch", driver, rng.choice(["nosuch", "modelName", "memorySize"]), rng.choice(["int", "string"]),
                     [], 0.0)
            self.tags["cel.missing-attribute"] += 1
        else:
            a = rng.choice(schema)
        typ = a.type
        if rng.random() < 0.03:
            typ = rng.choice([t for t in ("int", "string", "bool", "version") if t != a.type])
            self.tags["cel.type-mismatch"] += 1
        values = a.values
        if typ != a.type or not values:
            values = ATTR_VOCAB[{"int": "index", "string": "model", "bool": "healthy", "version": "firmware"}[typ]][1]
        guard = a.presence < 1.0 and rng.random() < 0.85 or rng.random() < 0.15
        x = rng.random()
        if x < 0.1:
            # Optional access with a default.
            default = {"int": "0", "string": '""', "bool": "false", "version": 'semver("0.0.1")'}[typ]
            acc = f'device.attributes["{a.domain}"].?{a.id}.orValue({default})'
            self.tags["cel.optional"] += 1
            return self.value_pred(typ, acc, values, a.id)
        if x < 0.18:
            self.tags["cel.bind"] += 1
            inner = self.value_pred(typ, f"attrs.{a.id}", values, a.id)
            if guard:
                inner = f"has(attrs.{a.id}) && {inner}"
            return f'cel.bind(attrs, device.attributes["{a.domain}"], {inner})'
        acc = self.attr_access(a)
        pred = self.value_pred(typ, acc, values, a.id)
        if guard:
            self.tags["cel.guarded"] += 1
            if rng.random() < 0.5:
                return f'has(device.attributes["{a.domain}"].{a.id}) && {pred}'
            return f'"{a.id}" in device.attributes["{a.domain}"] && {pred}'
        self.tags["cel.unguarded"] += 1
        return pred

    def cap_pred(self, driver):
        rng = self.rng
        caps = (self.caps.get(driver) or []) + (self.multi_caps.get(driver) or [])
        if not caps:
            return self.attr_pred(driver)
        c = rng.choice(caps)
        x = f'device.capacity["{c.domain}"].{c.id}'
        q = rng.choice(c.values or ["8Gi", "16", "10G"])
        pred = rng.choice([f'{x}.compareTo(quantity("{q}")) >= 0', f'{x}.isGreaterThan(quantity("{q}"))',
                           f'{x}.isLessThan(quantity("{q}"))', f'quantity("{q}").isLessThan({x})',
                           f'{x}.asApproximateFloat() > 1.0e9', f'{x}.compareTo(quantity("{q}")) == 0'])
        self.tags["cel.quantity"] += 1
        if rng.random() < 0.6:
            return f'"{c.id}" in device.capacity["{c.domain}"] && {pred}'
        return pred

    def driver_pred(self, driver):
        rng = self.rng
        return wchoice(rng, [(f'device.driver == "{driver}"', 10), (f'device.driver in ["{driver}", "other.example.com"]', 2),
                             (f'device.driver.endsWith("{driver[-8:]}")', 1), ('device.driver != "nosuch.example.com"', 1)])

    def predicate(self, driver, depth=0):
        rng = self.rng
        x = rng.random()
        if depth == 0 and x < 0.2:
            op = rng.choice([" && ", " || "])
            self.tags["cel.combined"] += 1
            return f"({self.predicate(driver, 1)}){op}({self.predicate(driver, 1)})"
        if x < 0.25:
            return f"!({self.attr_pred(driver)})"
        if x < 0.35:
            return self.cap_pred(driver)
        if x < 0.38:
            # Declared in the scheduler's (stored-expressions) environment whatever the gates say.
            self.tags["cel.allowMultipleAllocations"] += 1
            return rng.choice(["device.allowMultipleAllocations", "!device.allowMultipleAllocations",
                               "device.allowMultipleAllocations == false"])
        if 0.38 <= x < 0.42 and self.list_attrs:
            a = rng.choice(self.schemas.get(driver) or [Attr("model", driver, "model", "string", ["a100"], 1.0)])
            self.tags["cel.includes"] += 1
            v = rng.choice(a.values) if a.values else 1
            lit = self.q(v) if isinstance(v, str) and a.type == "string" else (
                f'semver("{v}")' if a.type == "version" else json.dumps(v))
            return f'has(device.attributes["{a.domain}"].{a.id}) && device.attributes["{a.domain}"].{a.id}.includes({lit})'
        if 0.42 <= x < 0.423:
            self.tags["cel.non-bool"] += 1
            return f'device.attributes["{driver}"].index'
        if 0.423 <= x < 0.426:
            self.tags["cel.compile-error"] += 1
            return rng.choice([f'device.attributes["{driver}"].model ==', "device.nosuchfield == 1",
                               'device.driver.nosuchfunction()'])
        return self.attr_pred(driver)

    def gen_classes(self):
        rng = self.rng
        for driver in self.drivers:
            short = SHORT[driver]
            # The canonical class of the driver.
            cls = {"apiVersion": RV1, "kind": "DeviceClass", "metadata": {"name": driver},
                   "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{driver}"'}}]}}
            self.add_class_config(cls, driver)
            self.objects.append(cls)
            self.classes.append((driver, driver, 5))
            for k in range(rng.randint(0, 2)):
                name = f"{short}-{rng.choice(['large', 'fast', 'a', 'b', 'prod'])}-{k}"
                sels = [{"cel": {"expression": self.driver_pred(driver)}}]
                for _ in range(rng.choice([1, 1, 1, 2])):
                    sels.append({"cel": {"expression": self.predicate(driver)}})
                if rng.random() < 0.3:
                    sels = [{"cel": {"expression": f"{sels[0]['cel']['expression']} && {sels[1]['cel']['expression']}"}}] + sels[2:]
                cls = {"apiVersion": RV1, "kind": "DeviceClass", "metadata": {"name": name}, "spec": {"selectors": sels}}
                self.add_class_config(cls, driver)
                self.objects.append(cls)
                self.classes.append((name, driver, 2))
        if rng.random() < 0.15:
            # A class without a driver selector: matches every device, so request selectors meet devices of
            # other drivers.
            spec = {}
            if rng.random() < 0.5:
                spec["selectors"] = [{"cel": {"expression": rng.choice(['device.driver.endsWith(".com")', "true",
                                                                        'device.attributes.exists(d, d.endsWith(".com"))'])}}]
            self.objects.append({"apiVersion": RV1, "kind": "DeviceClass", "metadata": {"name": "any-device"}, "spec": spec})
            self.classes.append(("any-device", None, 1))
            self.tags["class.any-driver"] += 1

    def add_class_config(self, cls, driver):
        if self.rng.random() < 0.15:
            cls["spec"]["config"] = [{"opaque": {"driver": driver, "parameters": {"sharing": {"strategy": "TimeSlicing"}}}}]
            self.tags["class.config"] += 1

    # -- claims -------------------------------------------------------------------------------------

    def tolerations(self):
        rng = self.rng
        out = []
        for _ in range(rng.choice([1, 1, 2])):
            x = rng.random()
            if x < 0.35:
                t = {"key": rng.choice(TAINT_KEYS), "operator": "Exists"}
            elif x < 0.7:
                t = {"key": rng.choice(TAINT_KEYS), "value": rng.choice([v for v in TAINT_VALUES if v])}
                if rng.random() < 0.5:
                    t["operator"] = "Equal"
            elif x < 0.8:
                t = {"operator": "Exists"}
            else:
                t = {"key": rng.choice(TAINT_KEYS), "operator": "Exists"}
            if rng.random() < 0.5:
                t["effect"] = rng.choice(["NoSchedule", "NoExecute"])
                if t["effect"] == "NoExecute" and rng.random() < 0.3:
                    t["tolerationSeconds"] = 300
            out.append(t)
        self.tags["request.tolerations"] += 1
        return out

    def pick_class(self):
        rng = self.rng
        if rng.random() < 0.004:
            self.tags["request.missing-class"] += 1
            return "nosuch-class", None
        name, driver, _ = wchoice(self.rng, [((n, d, w), w) for n, d, w in self.classes])
        return name, driver

    def exact(self, sub=False, allow_admin=True, pre=False):
        rng = self.rng
        cls, driver = self.pick_class()
        r = {"deviceClassName": cls}
        sel_driver = driver or rng.choice(self.drivers)
        self.last_driver = driver
        if rng.random() < (0.15 if pre else 0.3):
            r["selectors"] = [{"cel": {"expression": self.predicate(sel_driver)}} for _ in range(rng.choice([1, 1, 2]))]
            self.tags["request.selectors"] += 1
        if rng.random() < 0.08:
            r["allocationMode"] = "All"
            self.tags["request.All"] += 1
        else:
            count = wchoice(rng, [(1, 80), (2, 20)] if pre else [(1, 60), (2, 25), (3, 10), (4, 5)])
            # Bound the devices a pod asks for: upstream's search is exhaustive, an unsatisfiable pod
            # with many large requests takes minutes.
            count = max(1, min(count, self.budget))
            self.budget -= count
            if count != 1 or rng.random() < 0.3:
                r["count"] = count
            if rng.random() < 0.3:
                r["allocationMode"] = "ExactCount"
            self.tags[f"request.count{count}"] += 1
        if allow_admin and not sub and rng.random() < 0.05:
            r["adminAccess"] = True
            self.tags["request.adminAccess"] += 1
        if rng.random() < 0.25:
            r["tolerations"] = self.tolerations()
        caps = self.multi_caps.get(sel_driver) or self.caps.get(sel_driver) or []
        if self.consumable and caps and rng.random() < (0.4 if self.multi_caps.get(sel_driver) else 0.1):
            req = {}
            for c in rng.sample(caps, 1 if rng.random() < 0.8 else min(2, len(caps))):
                unit = "Gi" if c.id == "memory" else ("G" if c.id == "bandwidth" else "")
                key = c.key if rng.random() < 0.85 else (c.id if "/" in c.key else f"{c.domain}/{c.id}")
                req[key] = spell(rng, rng.choice([1, 1, 2, 2, 3, 4, 5, 8, 12, 16, 33]), unit)
            r["capacity"] = {"requests": req}
            self.tags["request.capacity"] += 1
        return r

    def derived_expression(self, driver):
        """A derived attribute's CEL expression for devices of `driver`: mostly an attribute as is
        (a runtime error where a device lacks it), else a computed scalar or list, or a constant."""
        rng = self.rng
        schema = self.schemas.get(driver) or []
        x = rng.random()
        if not schema or x < 0.07:
            return rng.choice(['"fixed"', "1", "true", '["a", "b"]'])
        a = rng.choice(schema)
        acc = self.attr_access(a)
        if x < 0.6 or a.mixed:
            return acc
        field = f'device.attributes["{a.domain}"].{a.id}'
        guarded = f'(has({field}) ? {field} : {self.q("none") if a.type == "string" else "0"})'
        if a.type == "int":
            return rng.choice([f"{acc} / 2", f"{acc} % 2", f"{acc} + 1", f"[{acc}, {acc} + 1]"])
        if a.type == "string":
            return rng.choice([f"{acc}.lowerAscii()", f"{acc}.size()", f"{acc}.startsWith(\"a\")", guarded])
        if a.type == "bool":
            return rng.choice([f"!{acc}", f"{acc} ? 1 : 0"])
        if a.type == "version":
            return rng.choice([f"{acc}.major()", acc])
        return acc

    def add_derived(self, requests, names, attr):
        """Gives the requests a constraint names (all, without names) a derived attribute `attr`,
        one expression per request or subrequest (alternatives may differ)."""
        rng = self.rng
        for r in requests:
            targets = []
            if "exactly" in r:
                if names is None or r["name"] in names:
                    targets.append(r["exactly"])
            else:
                for sr in r["firstAvailable"]:
                    if names is None or r["name"] in names or f"{r['name']}/{sr['name']}" in names:
                        targets.append(sr)
            for t in targets:
                if rng.random() < 0.15:
                    continue  # this one reads the device's own attribute (or has none)
                cls_driver = {c[0]: c[1] for c in self.classes}.get(t.get("deviceClassName"))
                driver = cls_driver or rng.choice(self.drivers)
                das = t.setdefault("derivedAttributes", [])
                if any(d["name"] == attr for d in das):
                    continue
                das.append({"name": attr, "expression": self.derived_expression(driver)})
                self.tags["request.derivedAttributes"] += 1

    def gen_claim(self, name, ns, pre=False):
        rng = self.rng
        nreq = 0 if rng.random() < 0.01 else wchoice(rng, [(1, 70), (2, 30)] if pre else [(1, 60), (2, 30), (3, 10)])
        names = rng.sample(["gpu", "nic", "fpga", "req-0", "req-1", "req-2", "accel", "net"], nreq)
        requests = []
        sub_names = {}
        ref_drivers = []   # (request or request/sub, driver of its class)
        self.last_driver = None
        for rn in names:
            if rng.random() < 0.18:
                subs = []
                sn = rng.sample(["large", "small", "medium", "any"], rng.randint(2, 3))
                for s in sn:
                    sr = self.exact(sub=True, pre=pre)
                    sr["name"] = s
                    subs.append(sr)
                    ref_drivers.append((f"{rn}/{s}", self.last_driver))
                requests.append({"name": rn, "firstAvailable": subs})
                sub_names[rn] = sn
                self.tags["request.firstAvailable"] += 1
            else:
                requests.append({"name": rn, "exactly": self.exact(allow_admin=not pre or rng.random() < 0.5, pre=pre)})
                ref_drivers.append((rn, self.last_driver))
        devices = {"requests": requests}
        refs = names + [f"{rn}/{s}" for rn, sn in sub_names.items() for s in sn]
        if names and rng.random() < (0.15 if pre else (0.6 if self.derived else 0.35)):
            cons = []
            for _ in range(rng.choice([1, 1, 2])):
                # Mostly an attribute of the driver of the requests it constrains, as users write them.
                driver = rng.choice([d for _, d in ref_drivers if d] or self.drivers)
                schema = self.schemas.get(driver) or []
                if not schema:
                    continue
                a = rng.choice(schema)
                fq = a.fq if rng.random() < 0.97 else f"{driver}/nosuch"
                kind = "matchAttribute" if rng.random() < 0.7 else "distinctAttribute"
                derived_for = None
                if self.derived and rng.random() < 0.6:
                    # A derived attribute: a new name, or (shadowing) the device attribute's own.
                    fq = f"example.com/derived-{len(cons)}" if rng.random() < 0.75 else a.fq
                    derived_for = fq
                c = {kind: fq}
                same = [r for r, d in ref_drivers if d == driver]
                if len(refs) > 1 and (rng.random() < 0.3 or (len(same) < len(ref_drivers) and rng.random() < 0.8)):
                    c["requests"] = rng.sample(same, rng.randint(1, min(2, len(same)))) if same and rng.random() < 0.85 \
                        else rng.sample(refs, rng.randint(1, min(2, len(refs))))
                cons.append(c)
                self.tags[f"constraint.{kind}"] += 1
                if derived_for:
                    self.add_derived(requests, c.get("requests"), derived_for)
            if cons:
                devices["constraints"] = cons
        if names and rng.random() < 0.2:
            cfg = []
            for i in range(rng.choice([1, 2])):
                c = {"opaque": {"driver": rng.choice(self.drivers), "parameters": {"config": i}}}
                if rng.random() < 0.6:
                    c["requests"] = rng.sample(refs, rng.randint(1, min(2, len(refs))))
                cfg.append(c)
            devices["config"] = cfg
            self.tags["claim.config"] += 1
        return {"apiVersion": RV1, "kind": "ResourceClaim", "metadata": {"name": name, "namespace": ns},
                "spec": {"devices": devices}}

    # -- the whole scenario -------------------------------------------------------------------------

    def generate(self):
        rng = self.rng
        self.gates = wchoice(rng, GATE_VARIANTS)
        if self.gates == MIX:
            self.gates = mix_gates(rng)
            self.tags["gates:random mix"] += 1
        if FORCED_GATES is not None:
            self.gates = FORCED_GATES
        self.gates = for_version(self.gates)
        g = self.gates
        # A gate's content mostly stays with the gate off (objects written while it was on, or by a
        # newer client): upstream ignores, refuses or errors on it, and so must DRAForge.
        self.consumable = "DRAConsumableCapacity=false" not in g or rng.random() < 0.7
        self.partitionable = "DRAPartitionableDevices=false" not in g or rng.random() < 0.7
        for flag, gate in ((self.consumable, "DRAConsumableCapacity"), (self.partitionable, "DRAPartitionableDevices")):
            if flag and f"{gate}=false" in g:
                self.tags[f"content-with-gate-off:{gate}"] += 1
        self.list_attrs = ("DRAListTypeAttributes=true" in g or rng.random() < 0.02) and kv() >= (1, 36)
        # The alpha fields of 1.37, mostly with their gate on; rarely with it off, where upstream
        # ignores grouped slices (pool incomplete), refuses derived attributes (error) and, in the
        # experimental variant only, skipNodeOperations devices.
        # Versions before 1.37 have none of these fields (nor list-type attributes before 1.36).
        self.compat = ("DRADeviceCompatibilityGroups=true" in g or rng.random() < 0.02) and kv() >= (1, 37)
        self.derived = ("DRADerivedAttributes=true" in g or rng.random() < 0.01) and kv() >= (1, 37)
        self.skip_ops = ("DRAOptionalNodeOperations=true" in g or rng.random() < 0.03) and kv() >= (1, 37)
        for flag, gate in ((self.compat, "DRADeviceCompatibilityGroups"), (self.derived, "DRADerivedAttributes"),
                           (self.skip_ops, "DRAOptionalNodeOperations")):
            if flag and f"{gate}=true" not in g:
                self.tags[f"alpha-field-with-gate-off:{gate}"] += 1
        if self.list_attrs and "DRAListTypeAttributes=true" not in g:
            self.tags["attr.list-with-gate-off"] += 1
        self.tags[f"gates:{g or 'defaults'}"] += 1
        self.gen_nodes()
        self.gen_drivers()
        self.gen_classes()
        self.gen_taint_rules()
        # Claims allocated before (by an earlier oracle run), in "pods" of 1-2 claims on random nodes.
        pre_pods = []
        self.budget = 99
        if rng.random() < 0.55:
            n = rng.randint(1, 4)
            keys = []
            for i in range(n):
                ns = rng.choice(["default", "team-a"])
                c = self.gen_claim(f"old-{i}", ns, pre=True)
                self.objects.append(c)
                keys.append(f"{ns}/old-{i}")
            while keys:
                k = rng.randint(1, min(2, len(keys)))
                pre_pods.append((rng.choice(self.node_names), keys[:k]))
                keys = keys[k:]
        main = []
        self.budget = 8
        for i in range(wchoice(rng, [(1, 55), (2, 33), (3, 12)])):
            ns = rng.choice(["default", "default", "team-a"])
            name = f"claim-{i}"
            self.objects.append(self.gen_claim(name, ns))
            main.append(f"{ns}/{name}")
        rng.shuffle(main)
        if rng.random() < 0.05:
            # An unallocated claim that is not part of this pod.
            self.objects.append(self.gen_claim("bystander", "default"))
        if rng.random() < 0.5:
            rng.shuffle(self.objects)
        sc = Scenario(self.seed, self.gates, self.target, self.nodes, self.objects, pre_pods, main)
        sc.tags = self.tags
        return sc


class Scenario:
    def __init__(self, seed, gates, node, nodes, objects, pre_pods, claims):
        self.seed, self.gates, self.node, self.nodes = seed, gates, node, nodes
        self.objects, self.pre_pods, self.claims = objects, pre_pods, claims
        self.tags = collections.Counter()   # coverage tags


# ---------------------------------------------------------------------------------------------------
# Running
# ---------------------------------------------------------------------------------------------------

def write_docs(path, docs):
    with open(path, "w") as f:
        for d in docs:
            f.write("---\n")
            f.write(json.dumps(d))
            f.write("\n")


def run_json(cmd, timeout=120):
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return -1, None, "timeout"
    try:
        out = json.loads(p.stdout) if p.stdout.strip() else None
    except json.JSONDecodeError:
        out = None
    return p.returncode, out, p.stderr


class OracleBatch:
    """One `dra-allocate --batch` process per thread: it serves every oracle run of that thread (one
    JSON request line in, one response line out), so the oracle's start-up (about 30 ms: Go package
    init registering every Kubernetes type and gate) is paid once per thread, not per run."""
    _local = threading.local()

    @classmethod
    def run(cls, oracle, args):
        procs = getattr(cls._local, "procs", None)
        if procs is None:
            procs = cls._local.procs = {}
        p = procs.get(oracle)
        if p is None or p.poll() is not None:
            p = procs[oracle] = subprocess.Popen([oracle, "--batch"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                                 stderr=subprocess.DEVNULL, text=True, bufsize=1)
            with _ALL_LOCK:
                _ALL_BATCHES.append(p)
        p.stdin.write(json.dumps({"args": args}) + "\n")
        p.stdin.flush()
        line = p.stdout.readline()
        if not line:
            procs.pop(oracle, None)
            return -1, None, "oracle --batch exited"
        r = json.loads(line)
        try:
            out = json.loads(r["stdout"]) if r["stdout"].strip() else None
        except json.JSONDecodeError:
            out = None
        return r["exit"], out, r["stderr"]


_ALL_BATCHES = []
_ALL_LOCK = threading.Lock()
# --no-batch: one oracle process per run, as before batching (to measure what batching saves).
BATCH = True


def run_oracle(oracle, docs, node, claims, gates, tmpdir):
    path = os.path.join(tmpdir, "in.yaml")
    write_docs(path, docs)
    args = ["--allocator-only", "--filter-timeout", ORACLE_TIMEOUT, "--node", node]
    for c in claims:
        args += ["--claim", c]
    if gates:
        args += ["--feature-gates", gates]
    if BATCH:
        return OracleBatch.run(oracle, args + [path])
    return run_json([oracle] + args + [path])


def run_draforge(draforge, docs, node, claims, gates, tmpdir):
    path = os.path.join(tmpdir, "in.yaml")
    write_docs(path, docs)
    args = [draforge, "allocate", "--node", node]
    for c in claims:
        args += ["--claim", c]
    if gates:
        args += ["--feature-gates", gates]
    if KVERSION:
        args += ["--kubernetes-version", KVERSION]
    return run_json(args + ["-o", "json", "-f", path])


def key_of(obj):
    m = obj["metadata"]
    return f"{m.get('namespace', 'default')}/{m['name']}"


def materialize(sc, oracle, tmpdir):
    """The scenario's final objects: the pre-allocated claims get the allocation an earlier oracle run
    gave them on their node (with shareIDs drawn from the seed), or are dropped if it failed."""
    docs = copy.deepcopy(sc.nodes + sc.objects)
    share_rng = random.Random(sc.seed * 1000003 + 17)
    claims = {key_of(o): o for o in docs if o["kind"] == "ResourceClaim"}
    allocated = 0
    # The stable allocator's answer is random (see pools_in_map_order): the earlier claims are then
    # allocated with the default gates, as a cluster that turned the gates off later has them. (Before
    # 1.36 every variant's is: the allocated state of such a scenario changes from run to run.)
    pre_gates = "" if selects_stable(sc.gates) else sc.gates
    for node, keys in sc.pre_pods:
        code, out, err = run_oracle(oracle, docs, node, keys, pre_gates, tmpdir)
        if out and out.get("outcome") == "allocated":
            for k in keys:
                alloc = out["allocations"][k]
                for r in (alloc.get("devices") or {}).get("results") or []:
                    if "shareID" in r:
                        r["shareID"] = str(uuid.UUID(int=share_rng.getrandbits(128), version=4))
                claims[k]["status"] = {"allocation": alloc}
                allocated += 1
        else:
            drop = set(keys)
            docs = [o for o in docs if not (o["kind"] == "ResourceClaim" and key_of(o) in drop)]
    if allocated:
        mutate_after_allocation(sc, docs, random.Random(sc.seed * 7919 + 3))
    return docs, allocated


def mutate_after_allocation(sc, docs, rng):
    """Sometimes the cluster changes after the earlier allocations: an allocated device gets tainted,
    disappears from its slice, or its pool is republished with a new generation."""
    if rng.random() >= 0.15:
        return
    used = [(r["driver"], r["pool"], r["device"]) for o in docs if o["kind"] == "ResourceClaim" and o.get("status")
            for r in (o["status"]["allocation"].get("devices") or {}).get("results") or []]
    if not used:
        return
    driver, pool, device = rng.choice(used)
    slices = [o for o in docs if o["kind"] == "ResourceSlice" and o["spec"]["driver"] == driver
              and o["spec"]["pool"]["name"] == pool]
    what = rng.choice(["taint", "remove", "generation"])
    tags = getattr(sc, "tags", collections.Counter())
    for sl in slices:
        devs = sl["spec"].get("devices") or []
        for d in devs:
            if d["name"] != device:
                continue
            if what == "taint":
                d.setdefault("taints", []).append({"key": "example.com/unhealthy", "value": "ecc",
                                                   "effect": rng.choice(["NoSchedule", "NoExecute"])})
            elif what == "remove":
                devs.remove(d)
                if not devs:
                    del sl["spec"]["devices"]
            tags[f"after-allocation.{what}"] += 1
            break
    if what == "generation":
        gen = max(sl["spec"]["pool"]["generation"] for sl in slices) + 1
        for sl in slices:
            sl["spec"]["pool"]["generation"] = gen
        tags["after-allocation.generation"] += 1


def normalize(allocations):
    def walk(v):
        if isinstance(v, dict):
            return {k: ("*" if k == "shareID" else walk(x)) for k, x in v.items() if k != "allocationTimestamp"}
        if isinstance(v, list):
            return [walk(x) for x in v]
        return v
    return walk(allocations or {})


# Differences already diagnosed and tracked (tests/parity/known-divergences/README.md): reported as
# "known", listed in the output, not counted as failures, so that CI catches every new one.
_SUFFIX = {"n": Fraction(1, 10**9), "u": Fraction(1, 10**6), "m": Fraction(1, 1000), "": Fraction(1),
           "k": Fraction(10**3), "M": Fraction(10**6), "G": Fraction(10**9), "T": Fraction(10**12),
           "P": Fraction(10**15), "E": Fraction(10**18), "Ki": Fraction(2**10), "Mi": Fraction(2**20),
           "Gi": Fraction(2**30), "Ti": Fraction(2**40), "Pi": Fraction(2**50), "Ei": Fraction(2**60)}


def quantity_value(text):
    """The exact value of a Kubernetes quantity string, or None."""
    m = re.fullmatch(r"([+-]?[0-9.]+)(?:([eE][+-]?[0-9]+)|(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]?))", str(text))
    if not m:
        return None
    try:
        value = Fraction(m.group(1))
    except ValueError:
        return None
    if m.group(2):
        return value * Fraction(10) ** int(m.group(2)[1:])
    return value * _SUFFIX[m.group(3) or ""]


def same_quantities(a, b):
    """Equal JSON values, where strings under consumedCapacity compare as quantity values."""
    def walk(x, in_capacity=False):
        if isinstance(x, dict):
            return {k: walk(v, in_capacity or k == "consumedCapacity") for k, v in x.items()}
        if isinstance(x, list):
            return [walk(v, in_capacity) for v in x]
        if in_capacity and isinstance(x, str) and quantity_value(x) is not None:
            return ("quantity", quantity_value(x))
        return x
    return walk(a) == walk(b)


# How often the oracle runs again when the stable allocator's answer differs from DRAForge's (see
# compare). With k pools on the node its Go map iterates in one of k rotations of insertion order,
# each about equally likely, so 32 runs miss a given one with probability (1-1/k)^32 (k=6: 0.3%).
STABLE_RERUNS = 32


def by_pool(docs):
    """docs with the ResourceSlices in (driver, pool, name) order, where they were: the order the
    stable allocator inserts pools in its map, so that one of its rotations is DRAForge's order."""
    slices = sorted((o for o in docs if o["kind"] == "ResourceSlice"),
                    key=lambda o: (o["spec"].get("driver", ""), (o["spec"].get("pool") or {}).get("name", ""),
                                   o["metadata"]["name"]))
    it = iter(slices)
    return [next(it) if o["kind"] == "ResourceSlice" else o for o in docs]


def same_answer(ours, theirs):
    if ours.get("outcome") != theirs.get("outcome"):
        return False
    if theirs.get("outcome") == "allocated":
        return normalize(ours.get("allocations")) == normalize(theirs.get("allocations"))
    if theirs.get("outcome") == "unschedulable":
        return (ours.get("reasons") or [None])[0] == (theirs.get("reasons") or [None])[0]
    return True


def compare(docs, node, claims, gates, draforge, oracle, tmpdir):
    """Returns (status, theirs, ours, detail); status is 'pass', 'fail' or 'skip'."""
    stable = pools_in_map_order(gates)
    if stable:
        docs = by_pool(docs)
    tcode, theirs, terr = run_oracle(oracle, docs, node, claims, gates, tmpdir)
    if stable and theirs is not None:
        # Upstream's stable allocator walks pools in Go map order, random per run: DRAForge's answer
        # (pools in (driver, pool) order, as the other variants sort them) must be one it gives.
        ocode, ours, oerr = run_draforge(draforge, docs, node, claims, gates, tmpdir)
        if ours is not None and not same_answer(ours, theirs):
            for _ in range(STABLE_RERUNS):
                _, again, _ = run_oracle(oracle, docs, node, claims, gates, tmpdir)
                if again is not None and same_answer(ours, again):
                    theirs = again
                    break
    if theirs is None:
        return "skip" if tcode == 2 else "fail", None, None, f"oracle exit {tcode}: {terr.strip()[-500:]}"
    if theirs.get("outcome") == "error" and "timed out" in theirs.get("error", ""):
        return "skip", theirs, None, "upstream filter timeout"
    ocode, ours, oerr = run_draforge(draforge, docs, node, claims, gates, tmpdir)
    if ours is None:
        return "fail", theirs, None, f"draforge printed no JSON (exit {ocode}): {oerr.strip()[-500:]}"
    if ours.get("outcome") != theirs.get("outcome"):
        return "fail", theirs, ours, "outcome"
    if theirs.get("outcome") == "allocated" and normalize(ours.get("allocations")) != normalize(theirs.get("allocations")):
        if same_quantities(normalize(ours.get("allocations")), normalize(theirs.get("allocations"))):
            return "known", theirs, ours, "known: consumedCapacity spelling kept by upstream (known-divergences/consumed-capacity-kept-spelling.yaml)"
        return "fail", theirs, ours, "allocations"
    if theirs.get("outcome") == "unschedulable" and (ours.get("reasons") or [None])[0] != (theirs.get("reasons") or [None])[0]:
        # Upstream's status message ("cannot allocate all claims" or, with an invalid pool in the way,
        # "invalid resource pools were encountered"); DRAForge may add detail lines after it.
        return "fail", theirs, ours, "reasons"
    return "pass", theirs, ours, ""


def first_difference(a, b, path=""):
    """The first place where two JSON values differ, as 'path: ours X, upstream Y'."""
    if isinstance(a, dict) and isinstance(b, dict):
        for k in list(a) + [k for k in b if k not in a]:
            if k not in a or k not in b or a[k] != b[k]:
                if k in a and k in b:
                    return first_difference(a[k], b[k], f"{path}.{k}")
                return f"{path}.{k}: ours {json.dumps(a.get(k, '<absent>'))}, upstream {json.dumps(b.get(k, '<absent>'))}"
        return None
    if isinstance(a, list) and isinstance(b, list):
        for i in range(min(len(a), len(b))):
            if a[i] != b[i]:
                return first_difference(a[i], b[i], f"{path}[{i}]")
        if len(a) != len(b):
            return f"{path}: ours {len(a)} entries, upstream {len(b)}"
        return None
    return f"{path}: ours {json.dumps(a)}, upstream {json.dumps(b)}" if a != b else None


def failure_kind(theirs, ours, detail):
    """A short class of a failure for the summary: the outcome pair, a crash, or the path of the first
    difference in the allocations with claim names, indices and capacity names left out."""
    if detail == "outcome":
        return f"outcome: draforge {ours.get('outcome')}, upstream {theirs.get('outcome')}"
    if detail == "allocations":
        diff = first_difference(normalize(ours.get("allocations")), normalize(theirs.get("allocations"))) or ""
        path = diff.split(":")[0]
        parts = path.split(".")[2:]   # drop "" and the claim key ("ns/name" has no dot)
        if "consumedCapacity" in parts:
            parts = parts[:parts.index("consumedCapacity") + 1] + ["*"]
        return "allocations: ." + re.sub(r"\[\d+\]", "[]", ".".join(parts))
    if detail == "reasons":
        return f"reasons: draforge {(ours.get('reasons') or [None])[0]!r}, upstream {(theirs.get('reasons') or [None])[0]!r}"
    return detail.split(":")[0]


def signature(status, theirs, ours, detail):
    if status != "fail":
        return None
    if detail == "outcome":
        return ("outcome", ours.get("outcome"), theirs.get("outcome"))
    if detail == "reasons":
        return ("reasons", (ours.get("reasons") or [None])[0], (theirs.get("reasons") or [None])[0])
    if detail.startswith("draforge printed no JSON"):
        return ("draforge-no-output", detail.split(":")[0])
    return (detail if detail == "allocations" else "other",)


def coverage_of(docs):
    """Coverage tags computed from the final objects (what the allocator actually saw)."""
    tags = set()
    for o in docs:
        if o["kind"] == "ResourceClaim" and o.get("status"):
            tags.add("allocated-state")
            for r in ((o["status"]["allocation"].get("devices") or {}).get("results") or []):
                if r.get("shareID"):
                    tags.add("allocated-state.shared")
                if r.get("adminAccess"):
                    tags.add("allocated-state.adminAccess")
    return tags


def run_one(seed, draforge, oracle):
    sc = Gen(seed).generate()
    with tempfile.TemporaryDirectory(prefix="rndparity-") as tmpdir:
        docs, npre = materialize(sc, oracle, tmpdir)
        status, theirs, ours, detail = compare(docs, sc.node, sc.claims, sc.gates, draforge, oracle, tmpdir)
    return sc, docs, npre, status, theirs, ours, detail


# ---------------------------------------------------------------------------------------------------
# Minimizing a failing scenario
# ---------------------------------------------------------------------------------------------------

def _one_of(d, keys):
    return sum(1 for k in keys if d.get(k) not in (None, False)) == 1


def _valid_node_selector(ns):
    terms = ns.get("nodeSelectorTerms") if isinstance(ns, dict) else None
    if not terms:
        return False
    for t in terms:
        reqs = (t.get("matchExpressions") or []) + (t.get("matchFields") or [])
        if not reqs:
            return False
        for r in reqs:
            if not r.get("key") or not r.get("operator"):
                return False
            if r["operator"] in ("In", "NotIn", "Gt", "Lt") and not r.get("values"):
                return False
    return True


def _valid_request(r, sub):
    if not r.get("deviceClassName"):
        return False
    if sub and not r.get("name"):
        return False
    return all(s.get("cel", {}).get("expression") for s in r.get("selectors") or [])


def valid_object(o):
    """Structural validity (required fields, one-of rules) the minimizer must keep, so that minimized
    cases stay realistic inputs rather than exercising missing-field corner cases."""
    try:
        k, spec = o["kind"], o.get("spec") or {}
        if not o.get("metadata", {}).get("name"):
            return False
        if k == "ResourceSlice":
            p = spec.get("pool") or {}
            if not spec.get("driver") or not p.get("name") or "generation" not in p or not p.get("resourceSliceCount"):
                return False
            if not _one_of(spec, ("nodeName", "nodeSelector", "allNodes", "perDeviceNodeSelection")):
                return False
            if "nodeSelector" in spec and not _valid_node_selector(spec["nodeSelector"]):
                return False
            if spec.get("devices") and spec.get("sharedCounters"):
                return False
            for cs in spec.get("sharedCounters") or []:
                if not cs.get("name") or not cs.get("counters"):
                    return False
            for d in spec.get("devices") or []:
                if not d.get("name"):
                    return False
                for a in (d.get("attributes") or {}).values():
                    if len(a) != 1:
                        return False
                for c in (d.get("capacity") or {}).values():
                    if "value" not in c:
                        return False
                for cc in d.get("consumesCounters") or []:
                    if not cc.get("counterSet") or not cc.get("counters"):
                        return False
                for t in d.get("taints") or []:
                    if not t.get("key") or not t.get("effect"):
                        return False
                if spec.get("perDeviceNodeSelection"):
                    if not _one_of(d, ("nodeName", "nodeSelector", "allNodes")):
                        return False
                    if "nodeSelector" in d and not _valid_node_selector(d["nodeSelector"]):
                        return False
                elif any(x in d for x in ("nodeName", "nodeSelector", "allNodes")):
                    return False
        elif k == "ResourceClaim":
            devs = spec.get("devices")
            if devs is None:
                return False
            for r in devs.get("requests") or []:
                if not r.get("name") or not _one_of(r, ("exactly", "firstAvailable")):
                    return False
                if r.get("exactly") is not None and not _valid_request(r["exactly"], False):
                    return False
                if any(not _valid_request(x, True) for x in r.get("firstAvailable") or []):
                    return False
            for c in devs.get("constraints") or []:
                if not _one_of(c, ("matchAttribute", "distinctAttribute")):
                    return False
            for c in devs.get("config") or []:
                if not (c.get("opaque") or {}).get("driver") or "parameters" not in c["opaque"]:
                    return False
            alloc = (o.get("status") or {}).get("allocation")
            if o.get("status") is not None and alloc is None:
                return False
            if alloc is not None:
                for r in (alloc.get("devices") or {}).get("results") or []:
                    if not all(r.get(x) for x in ("request", "driver", "pool", "device")):
                        return False
        elif k == "DeviceClass":
            if not all(x.get("cel", {}).get("expression") for x in spec.get("selectors") or []):
                return False
        elif k == "DeviceTaintRule":
            t = spec.get("taint") or {}
            if not t.get("key") or not t.get("effect"):
                return False
        return True
    except (AttributeError, TypeError, KeyError):
        return False


def minimize(docs, node, claims, gates, draforge, oracle, sig, log=lambda s: None):
    """Greedy delta debugging on the object tree: drops objects, claims, list elements and dict keys
    as long as the failure keeps its signature."""
    tmpdir = tempfile.mkdtemp(prefix="rndparity-min-")
    tries = [0]

    def still_fails(d, c, g):
        tries[0] += 1
        st, th, ou, de = compare(d, node, c, g, draforge, oracle, tmpdir)
        return signature(st, th, ou, de) == sig

    docs = copy.deepcopy(docs)
    claims = list(claims)
    if gates and still_fails(docs, claims, ""):
        gates = ""
    changed = True
    while changed:
        changed = False
        # Whole documents.
        i = 0
        while i < len(docs):
            d = docs[i]
            if d["kind"] == "Node" and d["metadata"]["name"] == node:
                i += 1
                continue
            nd = docs[:i] + docs[i + 1:]
            nc = [c for c in claims if not (d["kind"] == "ResourceClaim" and key_of(d) == c)]
            if nc and still_fails(nd, nc, gates):
                docs, claims, changed = nd, nc, True
            else:
                i += 1
        # Claims to allocate (drop from the list, the object stays as a bystander).
        i = 0
        while len(claims) > 1 and i < len(claims):
            nc = claims[:i] + claims[i + 1:]
            if still_fails(docs, nc, gates):
                claims, changed = nc, True
            else:
                i += 1

        # Parts of documents, top-down.
        def paths(v, prefix):
            if isinstance(v, dict):
                for k in list(v):
                    if prefix == () and k in ("apiVersion", "kind", "metadata"):
                        continue
                    yield prefix + (k,)
                    yield from paths(v[k], prefix + (k,))
            elif isinstance(v, list):
                for j in range(len(v)):
                    yield prefix + (j,)
                    yield from paths(v[j], prefix + (j,))

        def delete(root, path):
            root = copy.deepcopy(root)
            cur = root
            for p in path[:-1]:
                cur = cur[p]
            del cur[path[-1]]
            return root

        for i in range(len(docs)):
            for path in list(paths(docs[i], ())):
                try:
                    cand = delete(docs[i], path)
                except (KeyError, IndexError, TypeError):
                    continue
                if not valid_object(cand):
                    continue
                nd = docs[:i] + [cand] + docs[i + 1:]
                if still_fails(nd, claims, gates):
                    docs, changed = nd, True
                    # The remaining paths of this document may have shifted: go on with the next
                    # document, the outer loop comes back to this one.
                    break
    shutil.rmtree(tmpdir, ignore_errors=True)
    log(f"minimized in {tries[0]} runs")
    return docs, claims, gates


def to_fixture(name, comment, docs, node, claims, gates, theirs):
    nodeobj = next((d for d in docs if d["kind"] == "Node" and d["metadata"]["name"] == node), None)
    labels = (nodeobj or {}).get("metadata", {}).get("labels") or {}
    expect = {"outcome": theirs["outcome"]}
    if theirs["outcome"] == "allocated":
        expect["allocations"] = normalize(theirs["allocations"])
    elif theirs["outcome"] == "unschedulable":
        expect["reasons"] = theirs.get("reasons") or []
    header = {"apiVersion": "draforge.dev/v1alpha1", "kind": "AllocatorTestCase", "metadata": {"name": name}}
    if gates:
        header["featureGates"] = gates
    header["node"] = {"name": node, "labels": labels}
    header["claims"] = claims
    header["expect"] = expect
    text = "".join(f"# {line}\n" for line in comment.splitlines())
    text += yaml.safe_dump_all([header] + docs, sort_keys=False, default_flow_style=None, width=110)
    return text


# ---------------------------------------------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("draforge")
    ap.add_argument("oracle", nargs="?", default=DEFAULT_ORACLE)
    ap.add_argument("--count", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1, help="seed of the first scenario (default 1)")
    ap.add_argument("--jobs", type=int, default=2, help="scenarios run in parallel (default 2)")
    ap.add_argument("--dump", metavar="DIR", help="write every scenario's input (as the allocator sees it) to DIR")
    ap.add_argument("--minimize", metavar="DIR", help="minimize each failure and write it as a fixture to DIR")
    ap.add_argument("--coverage", action="store_true", help="print generator coverage and outcome counts")
    ap.add_argument("-q", "--quiet", action="store_true", help="no progress line")
    ap.add_argument("--gates", metavar="A=true,B=false",
                    help="use these feature gates in every scenario (e.g. DRAListTypeAttributes=true)")
    ap.add_argument("--kubernetes-version", metavar="1.3x",
                    help="reproduce this Kubernetes version (draforge --kubernetes-version; the oracle defaults "
                         "to .cache/oracle/bin/1.3x/dra-allocate, built by tests/oracle/build 1.3x)")
    ap.add_argument("--no-batch", action="store_true", help="one oracle process per run instead of one per thread")
    args = ap.parse_args()
    global FORCED_GATES, KVERSION, VERSION_GATES, BATCH
    if args.gates is not None:
        FORCED_GATES = args.gates
    BATCH = not args.no_batch
    if args.kubernetes_version and args.kubernetes_version != "1.37":
        KVERSION = args.kubernetes_version
        if args.oracle == DEFAULT_ORACLE:
            args.oracle = os.path.join(os.path.dirname(DEFAULT_ORACLE), KVERSION, "dra-allocate")
        listing = subprocess.run([args.draforge, "version", "--kubernetes", "-o", "json"], capture_output=True,
                                 text=True, check=True)
        entry = [v for v in json.loads(listing.stdout) if v["version"] == KVERSION]
        if not entry:
            print(f"draforge does not support Kubernetes {KVERSION}", file=sys.stderr)
            return 2
        VERSION_GATES = {g["name"]: (g["default"], g["locked"]) for g in entry[0]["featureGates"]}

    for exe in (args.draforge, args.oracle):
        if not os.access(exe, os.X_OK):
            print(f"not executable: {exe}", file=sys.stderr)
            return 2
    start = time.time()
    passed = failed = skipped = known = 0
    outcomes = collections.Counter()
    coverage = collections.Counter()
    pairs_seen = set()
    failures = []
    kinds = collections.defaultdict(list)
    seeds = list(range(args.seed, args.seed + args.count))

    def work(seed):
        sc, docs, npre, status, theirs, ours, detail = run_one(seed, args.draforge, args.oracle)
        return seed, sc, docs, npre, status, theirs, ours, detail

    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as ex:
        for n, (seed, sc, docs, npre, status, theirs, ours, detail) in enumerate(ex.map(work, seeds), 1):
            if args.dump:
                os.makedirs(args.dump, exist_ok=True)
                write_docs(os.path.join(args.dump, f"seed-{seed}.yaml"), docs)
            if args.coverage:
                pairs_seen.update(gate_pairs_of(sc.gates))
                for t in sc.tags:
                    coverage[t] += 1
                for t in coverage_of(docs):
                    coverage[t] += 1
                if npre:
                    coverage["pre-allocated claims"] += 1
            if theirs:
                outcomes[theirs.get("outcome")] += 1
                # Per alpha gate of 1.37: a parity run where every scenario of a gate ends in an
                # error would compare little, so the split is part of the coverage report.
                for gate in ("DRADeviceCompatibilityGroups", "DRADerivedAttributes", "DRAOptionalNodeOperations"):
                    if f"{gate}=true" in sc.gates:
                        coverage[f"outcome with {gate}: {theirs.get('outcome')}"] += 1
            if status == "pass":
                passed += 1
            elif status == "skip":
                skipped += 1
                print(f"skip seed={seed}: {detail}")
            elif status == "known":
                known += 1
                print(f"known seed={seed}: {detail}")
            else:
                failed += 1
                failures.append((seed, sc, docs, theirs, ours, detail))
                kinds[failure_kind(theirs, ours, detail) if theirs else detail.split(":")[0]].append(seed)
                gates = f" --feature-gates {sc.gates}" if sc.gates else ""
                forced = f" --gates {args.gates}" if args.gates is not None else ""
                if KVERSION:
                    forced += f" --kubernetes-version {KVERSION}"
                print(f"FAIL seed={seed} (reproduce: {sys.argv[0]} {args.draforge} --seed {seed} --count 1{forced}): {detail}")
                print(f"  node {sc.node}, claims {' '.join(sc.claims)}{gates}")
                if detail == "allocations":
                    print("  first difference: " + first_difference(normalize(ours.get("allocations")), normalize(theirs.get("allocations"))))
                if theirs is not None:
                    print("  upstream: " + json.dumps({"outcome": theirs.get("outcome"), "allocations": normalize(theirs.get("allocations")),
                                                       "reasons": theirs.get("reasons"), "error": theirs.get("error")}, sort_keys=True))
                if ours is not None:
                    print("  draforge: " + json.dumps({"outcome": ours.get("outcome"), "allocations": normalize(ours.get("allocations")),
                                                       "reasons": ours.get("reasons"), "error": ours.get("error")}, sort_keys=True))
                sys.stdout.flush()
            if not args.quiet and sys.stderr.isatty() and n % 50 == 0:
                print(f"  {n}/{len(seeds)} ({time.time() - start:.0f}s)", file=sys.stderr)

    if args.minimize and failures:
        os.makedirs(args.minimize, exist_ok=True)
        for seed, sc, docs, theirs, ours, detail in failures:
            sig = signature("fail", theirs, ours, detail)
            if theirs is None:
                continue
            mdocs, mclaims, mgates = minimize(docs, sc.node, sc.claims, sc.gates, args.draforge, args.oracle, sig,
                                              log=lambda s: print(f"  seed {seed}: {s}"))
            with tempfile.TemporaryDirectory() as td:
                _, mtheirs, mours, _ = compare(mdocs, sc.node, mclaims, mgates, args.draforge, args.oracle, td)
            path = os.path.join(args.minimize, f"seed-{seed}.yaml")
            ours_text = json.dumps({'outcome': mours.get('outcome'), 'allocations': normalize(mours.get('allocations')),
                                    'error': mours.get('error')}) if mours else sig[-1]
            comment = f"Minimized from random_parity.py --seed {seed} --count 1.\ndraforge: {ours_text}"
            with open(path, "w") as f:
                f.write(to_fixture(f"seed-{seed}", comment, mdocs, sc.node, mclaims, mgates, mtheirs))
            print(f"  seed {seed}: minimized scenario written to {path}")

    elapsed = time.time() - start
    if kinds:
        print("differences by kind (first difference of each failing scenario):")
        for k, v in sorted(kinds.items(), key=lambda kv: -len(kv[1])):
            print(f"  {len(v):4d}  {k}  (seeds {' '.join(map(str, v[:8]))}{' ...' if len(v) > 8 else ''})")
    if args.coverage:
        print("outcomes (upstream): " + ", ".join(f"{k} {v}" for k, v in sorted(outcomes.items())))
        print("coverage (scenarios using each feature):")
        for k, v in sorted(coverage.items()):
            print(f"  {k}: {v}")
        wanted = set().union(*(gate_pairs_of_value(r) for r in pairwise_rows()))
        missing = sorted(wanted - pairs_seen)
        print(f"gate pairs: {len(wanted) - len(missing)} of the {len(wanted)} accepted value combinations of two gates"
              + (f"; missing: {', '.join(f'{a}={va},{b}={vb}' for a, va, b, vb in missing[:6])}" if missing else ""))
    print(f"Kubernetes {KVERSION or '1.37'}, seeds {args.seed}..{args.seed + args.count - 1}, {elapsed:.1f}s, "
          f"{args.count / elapsed if elapsed else 0:.1f} scenarios/s"
          + (f", {skipped} skipped" if skipped else ""))
    if known:
        print(f"{known} known divergences (tests/parity/known-divergences), not counted as failures")
    for p in _ALL_BATCHES:
        p.stdin.close()
        p.wait()
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
