#!/usr/bin/env python3
"""Writes random_parity.py's seeded scenarios as allocator fixtures, one file per claim of the pod, so
that explain_test.cc (Explain.AgreesWithAllocatorOnDumps, DRAFORGE_EXPLAIN_DUMPS=DIR) can check explain
against the allocator on them: the random generator finds the cross-request shapes that hand-written
fixtures miss.

    tests/alloc/explain_scenarios.py OUT_DIR --seed 30001 --count 200 --gates DRADeviceCompatibilityGroups=true
    DRAFORGE_SOURCE_ROOT=$PWD DRAFORGE_EXPLAIN_DUMPS=OUT_DIR BUILD/tests/alloc_explain_test \\
        --gtest_filter='Explain.AgreesWithAllocatorOnDumps'

Each file is `seed-N-<ns>-<claim>.yaml` in the fixture format of tests/alloc/fixtures/README.md:
the scenario's objects (the earlier claims allocated by upstream's allocator, as random_parity.py
does), the node, the gates, `claims: [<that claim>]` and `expect` from upstream's allocator run on
that claim alone (outcome, allocations or reasons). The same seeds give the same files for the same
commit of random_parity.py. Needs the oracle (tests/oracle/build) and PyYAML.
"""

import argparse
import concurrent.futures
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "parity"))
import random_parity as rp  # noqa: E402  (the generator lives there)


def scenario_files(seed, oracle):
    """(file name, fixture text) per claim of the scenario of `seed`."""
    sc = rp.Gen(seed).generate()
    out = []
    with tempfile.TemporaryDirectory(prefix="explain-scn-") as tmpdir:
        docs, _ = rp.materialize(sc, oracle, tmpdir)
        present = {rp.key_of(o) for o in docs if o["kind"] == "ResourceClaim"}
        for claim in sc.claims:
            if claim not in present:
                continue
            _, theirs, _ = rp.run_oracle(oracle, docs, sc.node, [claim], sc.gates, tmpdir)
            if not theirs or theirs.get("outcome") not in ("allocated", "unschedulable", "error"):
                continue  # an oracle timeout: upstream's answer depends on machine speed
            name = f"seed-{seed}-{claim.replace('/', '-')}"
            comment = f"random_parity.py --seed {seed} --count 1, claim {claim} alone (explain_scenarios.py)"
            out.append((name + ".yaml", rp.to_fixture(name, comment, docs, sc.node, [claim], sc.gates, theirs)))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out_dir")
    ap.add_argument("--oracle", default=os.path.expanduser("~/.cache/draforge/oracle/bin/dra-allocate"))
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=100)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--gates", metavar="A=true,B=false", help="feature gates for every scenario")
    args = ap.parse_args()
    if not os.access(args.oracle, os.X_OK):
        print(f"not executable: {args.oracle} (build it with tests/oracle/build)", file=sys.stderr)
        return 2
    if args.gates is not None:
        rp.FORCED_GATES = args.gates
    os.makedirs(args.out_dir, exist_ok=True)
    written = 0
    seeds = range(args.seed, args.seed + args.count)
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as ex:
        for files in ex.map(lambda s: scenario_files(s, args.oracle), seeds):
            for name, text in files:
                with open(os.path.join(args.out_dir, name), "w") as f:
                    f.write(text)
                written += 1
    print(f"{written} fixtures for {len(seeds)} scenarios written to {args.out_dir}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
