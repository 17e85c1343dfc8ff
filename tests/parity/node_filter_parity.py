#!/usr/bin/env python3
"""Parity of `draforge whatif replay`'s node filters with kube-scheduler's (tests/oracle dra-node-filters).

Usage: node_filter_parity.py DRAFORGE [--count N] [--seed S] [--oracle PATH]

Generates N random (pod, node) pairs: nodes with random labels, taints (NoSchedule, PreferNoSchedule,
NoExecute, the unschedulable key) and spec.unschedulable; pods with random tolerations (Equal,
Exists, empty key, the gated Gt), nodeSelector and required node affinity (every operator, unparsable
terms, matchFields on metadata.name, which exercises NodeAffinity's PreFilter). Upstream's verdict
is the first rejecting plugin and its status message (or none); DRAForge's is the `filter` and
`reason` of the pod's one node in `whatif replay -o json` (the reason may add ": detail" after
upstream's words). Prints TAP and `N passed, N failed` last; exit status 0 only if nothing failed.
ORACLE_BIN (default <repo>/.cache/oracle/bin) holds dra-node-filters (tests/oracle/build).
"""
import argparse
import json
import os
import random
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
KEYS = ["k1", "k2", "node.kubernetes.io/unschedulable"]
EFFECTS = ["NoSchedule", "PreferNoSchedule", "NoExecute"]


def case(rnd, i):
    def maybe(p):
        return rnd.random() < p

    def taint():
        t = {"key": rnd.choice(KEYS), "effect": rnd.choice(EFFECTS)}
        if maybe(0.6):
            t["value"] = rnd.choice(["v1", "v2", "3"])
        return t

    def toleration():
        t = {}
        if maybe(0.8):
            t["key"] = rnd.choice(KEYS)
        op = rnd.choice(["", "Equal", "Exists", "Exists", "Gt"])
        if op:
            t["operator"] = op
        if op in ("", "Equal", "Gt") and maybe(0.8):
            t["value"] = rnd.choice(["v1", "v2", "3", "1"])
        if maybe(0.6):
            t["effect"] = rnd.choice(EFFECTS)
        if "key" not in t and op != "Exists":  # an empty key needs Exists (API validation)
            t["operator"] = "Exists"
            t.pop("value", None)
        return t

    def expression():
        op = rnd.choice(["In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt", "Bogus"])
        r = {"key": rnd.choice(["zone", "gpus", "tier"]), "operator": op}
        if op in ("In", "NotIn"):
            r["values"] = rnd.sample(["a", "b", "2", "8"], rnd.randint(1, 2))
        elif op in ("Gt", "Lt"):
            r["values"] = [rnd.choice(["4", "1", "x"])]
        elif op == "Bogus":
            r["values"] = ["a"]
        return r

    def field():
        return {"key": "metadata.name", "operator": rnd.choice(["In", "In", "NotIn"]),
                "values": rnd.sample(["n0", "n1", "n2"], rnd.randint(1, 2))}

    labels = {}
    for k, vals in (("zone", ["a", "b"]), ("gpus", ["2", "8", "x"]), ("tier", ["gold"])):
        if maybe(0.7):
            labels[k] = rnd.choice(vals)
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": rnd.choice(["n0", "n1", "n2"]), "labels": labels},
            "spec": {}, "status": {"allocatable": {"cpu": "64", "memory": "64Gi", "pods": "100"}}}
    if maybe(0.25):
        node["spec"]["unschedulable"] = True
    if maybe(0.6):
        node["spec"]["taints"] = [taint() for _ in range(rnd.randint(1, 3))]
    spec = {"containers": [{"name": "c", "image": "i"}]}
    if maybe(0.6):
        spec["tolerations"] = [toleration() for _ in range(rnd.randint(1, 3))]
    if maybe(0.3):
        spec["nodeSelector"] = {rnd.choice(["zone", "tier"]): rnd.choice(["a", "b", "gold"])}
    if maybe(0.5):
        terms = []
        for _ in range(rnd.randint(0, 2)):
            t = {}
            if maybe(0.8):
                t["matchExpressions"] = [expression() for _ in range(rnd.randint(1, 2))]
            if maybe(0.3):
                t["matchFields"] = [field() for _ in range(rnd.randint(1, 2))]
            terms.append(t)
        spec["affinity"] = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": terms}}}
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p%d" % i, "namespace": "d"}, "spec": spec}
    return {"pod": pod, "node": node}


def ours(draforge, c):
    doc = json.dumps({"apiVersion": "v1", "kind": "List", "items": [c["node"], c["pod"]]})
    p = subprocess.run([draforge, "whatif", "replay", "-f", "-", "-o", "json"], input=doc, capture_output=True,
                       text=True, timeout=60)
    if p.returncode == 2:
        return "ERROR|" + p.stderr.strip()
    r = json.loads(p.stdout)
    if r["placed"]:
        return ""
    n = r["pending"][0]["nodes"][0]
    return n["filter"] + "|" + n["reason"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("draforge")
    ap.add_argument("--count", type=int, default=500)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--oracle", default=os.path.join(os.environ.get("ORACLE_BIN", os.path.join(ROOT, ".cache", "oracle", "bin")),
                                                     "dra-node-filters"))
    a = ap.parse_args()
    rnd = random.Random(a.seed)
    cases = [case(rnd, i) for i in range(a.count)]
    up = subprocess.run([a.oracle, "-"], input=json.dumps(cases), capture_output=True, text=True, check=True)
    want = up.stdout.split("\n")[:len(cases)]
    failed = 0
    print("1..%d" % len(cases))
    for i, c in enumerate(cases):
        got = ours(a.draforge, c)
        ok = got == want[i] or (want[i] != "" and got.startswith(want[i] + ": "))
        failed += not ok
        print("%s %d - seed %d case %d: upstream %r" % ("ok" if ok else "not ok", i + 1, a.seed, i, want[i] or "fits"))
        if not ok:
            print("# draforge: %r\n# case: %s" % (got, json.dumps(c)))
    print("%d passed, %d failed" % (len(cases) - failed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
