#!/usr/bin/env python3
"""Keeps bench/run --scale from rotting (meson test `scale_smoke`, a few seconds): a 200-node
cluster from gen_scale.py, twice (same bytes), with the shape the issue asks for, through
scale_bench; and, when upstream's oracle is built, the same nodes fit the new pod on both sides.

Usage: smoke_test.py BUILD_DIR   (TAP on stdout)
"""
import hashlib
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
N = 200

build = sys.argv[1]
draforge = os.path.join(build, "examples", "cli", "draforge")
n_test = 0
failed = 0


def ok(cond, name, detail=""):
    global n_test, failed
    n_test += 1
    if not cond:
        failed += 1
    print(f"{'ok' if cond else 'not ok'} {n_test} - {name}")
    if not cond and detail:
        print("# " + str(detail).replace("\n", "\n# "))


def gen(path, seed=23):
    p = subprocess.run([sys.executable, os.path.join(HERE, "gen_scale.py"), "--nodes", str(N), "--seed", str(seed),
                        "--draforge", draforge, path], capture_output=True, text=True)
    if p.returncode != 0:
        print(f"Bail out! gen_scale.py: {p.stderr.strip()}")
        sys.exit(1)
    return json.loads(p.stdout)


def digest(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


print("1..6")
with tempfile.TemporaryDirectory() as tmp:
    a, b = os.path.join(tmp, "a.json"), os.path.join(tmp, "b.json")
    info = gen(a)
    gen(b)
    ok(digest(a) == digest(b), "the generator is deterministic (same seed, same bytes)")
    c = os.path.join(tmp, "c.json")
    gen(c, seed=24)
    ok(digest(a) != digest(c), "another seed gives another cluster")
    # 196 H100 nodes x 8 GPUs, 4 MIG nodes x 8 GPUs x 19 devices, 5 racks x 16 NICs.
    want = {"nodes": N, "devices": 196 * 8 + 4 * 8 * 19 + 5 * 16, "claims": 10 * N + 1, "allocated_claims": 6 * N,
            "pods": 5 * N}
    ok({k: info[k] for k in want} == want, "the cluster has the issue's shape", f"got {info}, want {want}")

    p = subprocess.run([os.path.join(build, "bench", "scale_bench"), f"--scenario={a}", "--repetitions=1",
                        "--explain-sample=5", "--changes=5"], capture_output=True, text=True)
    ours = json.loads(p.stdout) if p.returncode == 0 else {}
    seen = {k: ours.get(k) for k in ("nodes", "devices", "claims", "pods")}
    ok(p.returncode == 0 and seen == {k: want[k] for k in seen} and ours["pending_claims"] == 4 * N + 1,
       "scale_bench loads every object of the cluster", p.stderr.strip() or seen)
    fits = ours.get("fits_on", [])
    ok(0 < len(fits) < N and ours.get("explained", 0) > 0 and ours.get("graph_edges", 0) > 0
       and ours.get("slice_store_bytes", 0) > 0, "the new pod fits on some nodes, not all; explain and graph ran",
       {k: ours.get(k) for k in ("placement_fits", "explained", "graph_edges", "slice_store_bytes")})

    oracle = os.environ.get("DRA_ALLOCATE") or os.path.join(
        os.environ.get("ORACLE_BIN") or os.path.join(REPO, ".cache", "oracle", "bin"), "dra-allocate")
    if not os.access(oracle, os.X_OK):
        n_test += 1
        print(f"ok {n_test} - upstream fits the pod on the same nodes # SKIP no oracle at {oracle} (tests/oracle/build)")
    else:
        q = subprocess.run([oracle, "--all-nodes", "--claim", "placement/train", a], capture_output=True, text=True)
        if q.returncode == 2 and "all-nodes" in q.stderr:
            n_test += 1
            print(f"ok {n_test} - upstream fits the pod on the same nodes # SKIP {oracle} predates --all-nodes")
        else:
            theirs = json.loads(q.stdout).get("fits_on") if q.returncode == 0 else None
            ok(theirs is not None and sorted(theirs) == sorted(fits), "upstream fits the pod on the same nodes",
               q.stderr.strip() or f"upstream {len(theirs or [])} nodes, DRAForge {len(fits)}")
sys.exit(1 if failed else 0)
