#!/usr/bin/env python3
"""Parity with the real thing: runs every allocator fixture (tests/alloc/fixtures) through DRAForge's
`draforge allocate` and through upstream's allocator (tests/oracle dra-allocate, Kubernetes 1.37.2) on
the same input files, and compares outcome and allocations (shareIDs aside: upstream makes random
UUIDs). Prints one line per difference and ends with `N passed, N failed`.

Usage: fixture_parity.py DRAFORGE DRA_ALLOCATE FIXTURE_DIR
"""
import json
import os
import subprocess
import sys
import tempfile

import yaml


def load_case(path):
    with open(path) as f:
        docs = [d for d in yaml.safe_load_all(f) if d]
    case = next((d for d in docs if d.get("kind") == "AllocatorTestCase"), None)
    objects = [d for d in docs if d.get("kind") != "AllocatorTestCase"]
    return case, objects


def normalize(allocations):
    """Drops what legitimately differs: shareIDs (random upstream) and allocationTimestamp."""
    def walk(v):
        if isinstance(v, dict):
            return {k: ("*" if k == "shareID" else walk(x)) for k, x in v.items() if k != "allocationTimestamp"}
        if isinstance(v, list):
            return [walk(x) for x in v]
        return v
    return walk(allocations or {})


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    try:
        out = json.loads(p.stdout) if p.stdout.strip() else None
    except json.JSONDecodeError:
        out = None
    return p.returncode, out, p.stderr


def main():
    draforge, oracle, fixtures = sys.argv[1:4]
    passed = failed = skipped = 0
    for root, _, files in sorted(os.walk(fixtures)):
        for name in sorted(files):
            # explain/ holds explain's fixtures, not allocator cases; only a folder under FIXTURES
            # counts (a checkout whose own path says "explain" used to skip everything).
            if not name.endswith(".yaml") or "explain" in os.path.relpath(root, fixtures).split(os.sep):
                continue
            path = os.path.join(root, name)
            rel = os.path.relpath(path, fixtures)
            case, objects = load_case(path)
            if case is None:
                continue
            node = case.get("node") or {}
            node_name = node.get("name", "node-1")
            if not any(o.get("kind") == "Node" and o.get("metadata", {}).get("name") == node_name for o in objects):
                objects.append({"apiVersion": "v1", "kind": "Node",
                                "metadata": {"name": node_name, "labels": node.get("labels") or {}}})
            args = ["--node", node_name]
            for c in case.get("claims") or []:
                args += ["--claim", c]
            if case.get("featureGates"):
                args += ["--feature-gates", case["featureGates"]]
            # A fixture of an older Kubernetes version runs against that version's oracle
            # (tests/oracle/build 1.3x puts it in a directory of that name next to 1.37's).
            version_args, case_oracle = [], oracle
            if case.get("kubernetesVersion") and str(case["kubernetesVersion"]) != "1.37":
                version_args = ["--kubernetes-version", str(case["kubernetesVersion"])]
                case_oracle = os.path.join(os.path.dirname(oracle), str(case["kubernetesVersion"]), "dra-allocate")
            with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as f:
                yaml.safe_dump_all(objects, f)
                input_path = f.name
            try:
                ours_code, ours, ours_err = run([draforge, "allocate", *args, *version_args, "-o", "json", "-f", input_path])
                theirs_code, theirs, theirs_err = run([case_oracle, "--allocator-only", *args, input_path])
            finally:
                os.unlink(input_path)
            if theirs_code == 2:
                # Upstream refuses the input itself (a locked gate, a gate dependency): not comparable.
                skipped += 1
                print(f"skip {rel}: upstream refuses the input: {theirs_err.strip().splitlines()[-1] if theirs_err.strip() else ''}")
                continue
            problems = []
            if ours is None:
                problems.append(f"draforge printed no JSON (exit {ours_code}): {ours_err.strip()}")
            elif theirs is None:
                problems.append(f"oracle printed no JSON (exit {theirs_code}): {theirs_err.strip()}")
            else:
                if ours.get("outcome") != theirs.get("outcome"):
                    problems.append(f"outcome {ours.get('outcome')} != upstream {theirs.get('outcome')} "
                                    f"({theirs.get('error') or theirs.get('reasons')})")
                elif ours.get("outcome") == "allocated" and normalize(ours.get("allocations")) != normalize(theirs.get("allocations")):
                    problems.append("allocations differ:\n    ours:     " + json.dumps(normalize(ours.get("allocations")), sort_keys=True) +
                                    "\n    upstream: " + json.dumps(normalize(theirs.get("allocations")), sort_keys=True))
            if problems:
                failed += 1
                print(f"FAIL {rel}: " + "; ".join(problems))
            else:
                passed += 1
    print(f"{passed} passed, {failed} failed" + (f", {skipped} skipped" if skipped else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
