#!/usr/bin/env python3
"""`draforge cdi generate|validate|audit` as a user runs them. Usage: cli_test.py DRAFORGE_CLI. Prints TAP."""
import json
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.environ.get("DRAFORGE_SOURCE_ROOT", os.path.join(os.path.dirname(__file__), "..", ".."))
SHARED = os.environ.get("DRAFORGE_CDI_SHARED", os.path.join(ROOT, "..", "shared", "cdi"))
FIXTURES = os.path.join(ROOT, "tests", "cdi", "fixtures")
INPUT = os.path.join(FIXTURES, "node", "input.yaml")
TRAIN = "k8s.gpu.sim.draforge.io-draforge_3f2a9c1e-0d4b-4b7e-9a51-2c8d7e6f5a10.json"

results = []


def check(name, ok, detail=""):
    results.append((name, bool(ok), detail))


def main():
    cli = sys.argv[1]

    def run(*args):
        return subprocess.run([cli, "cdi"] + list(args), capture_output=True, text=True)

    p = run()
    check("no subcommand: usage, exit 2", p.returncode == 2 and "draforge cdi generate" in p.stderr, p.stderr)
    p = run("frobnicate")
    check("unknown subcommand: exit 2", p.returncode == 2 and "unknown cdi command" in p.stderr, p.stderr)
    p = run("generate", "-f", INPUT, "--out", "/nonexistent-never")
    check("generate without --node: exit 2", p.returncode == 2 and "--node is required" in p.stderr, p.stderr)
    p = run("generate", "--node", "node-1", "-f", INPUT)
    check("generate without --out or --dry-run: exit 2", p.returncode == 2, p.stderr)
    p = run("generate", "--node", "node-1", "-f", INPUT, "--dry-run", "--max-version", "0.9.0")
    check("unknown --max-version: exit 2", p.returncode == 2 and "not a known CDI version" in p.stderr, p.stderr)

    p = run("generate", "--node", "node-1", "-f", INPUT, "--dry-run", "--driver", "nic.sim.draforge.io")
    docs = [d for d in p.stdout.split("# ") if d.strip()]
    ok = p.returncode == 0 and len(docs) == 2
    for d in docs:
        name, _, body = d.partition("\n")
        ok = ok and name.startswith("k8s.nic.sim.draforge.io-draforge_") and json.loads(body)["cdiVersion"] == "0.3.0"
    check("generate --dry-run prints one document per claim of the driver", ok, p.stdout + p.stderr)

    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "cdi")
        p = run("generate", "--node", "node-1", "-f", INPUT, "--out", out)
        check("generate reports the claim it cannot build and exits 3",
              p.returncode == 3 and "ResourceClaim ml/no-uid: metadata.uid is empty" in p.stderr, p.stderr)
        check("generate prints the CDI device IDs per request",
              "ml/train gpus: k8s.gpu.sim.draforge.io/draforge=3f2a9c1e-0d4b-4b7e-9a51-2c8d7e6f5a10-gpu-0 "
              "k8s.gpu.sim.draforge.io/draforge=3f2a9c1e-0d4b-4b7e-9a51-2c8d7e6f5a10-gpu-1" in p.stdout, p.stdout)
        check("generate wrote four files", len(os.listdir(out)) == 4 and "4 written" in p.stdout, p.stdout)
        p = run("validate", "--strict", out)
        check("what generate wrote passes validate --strict", p.returncode == 0 and "4 valid, 0 invalid" in p.stdout,
              p.stdout)
        p = run("generate", "--node", "node-1", "-f", INPUT, "--out", out, "-o", "json")
        report = json.loads(p.stdout)
        check("a second generate changes nothing", report["written"] == [] and len(report["unchanged"]) == 4,
              p.stdout)
        check("-o json lists the requests' device IDs",
              [r["request"] for c in report["claims"] for r in c["requests"]] ==
              ["nic", "accel/small", "monitor", "net", "gpus"], p.stdout)
        with open(os.path.join(out, TRAIN)) as f:
            before = f.read()
        p = run("generate", "--node", "node-1", "-f", INPUT, "--out", out, "--max-version", "0.3.0")
        with open(os.path.join(out, TRAIN)) as f:
            after = f.read()
        check("a spec above --max-version is an error and the old file stays",
              p.returncode == 3 and "requires cdiVersion 0.5.0, above the maximum 0.3.0" in p.stderr and
              before == after, p.stderr)
        p = run("generate", "--node", "node-2", "-f", INPUT, "--out", out)
        check("the specs of claims no longer on the node are removed",
              p.returncode == 0 and "4 removed" in p.stdout and len(os.listdir(out)) == 1, p.stdout + p.stderr)

        # The directory now holds node-2's spec only: audited for node-1, it is stale and node-1's are missing.
        p = run("audit", "--node", "node-1", "-f", INPUT, out)
        elsewhere = "k8s.gpu.sim.draforge.io-draforge_d1d2d3d4-0000-4000-8000-000000000002.json"
        check("audit names the stale file with its claim and the missing ones, exit 1",
              p.returncode == 1 and
              "%s: stale: spec of ResourceClaim ml/elsewhere (UID d1d2d3d4-0000-4000-8000-000000000002), which is "
              "no longer allocated on node \"node-1\"" % os.path.join(out, elsewhere) in p.stdout and
              "%s: missing: ResourceClaim ml/train is allocated on node \"node-1\"" % os.path.join(out, TRAIN)
              in p.stdout and "0 in sync, 1 stale, 4 missing, 0 out of date, 1 failed" in p.stdout,
              p.stdout + p.stderr)
        run("generate", "--node", "node-1", "-f", INPUT, "--out", out)
        p = run("audit", "--node", "node-1", "-f", INPUT, "-o", "json", out)
        rep = json.loads(p.stdout) if p.stdout.startswith("{") else {}
        check("audit -o json after generate: everything in sync but the claim that cannot be built",
              p.returncode == 1 and len(rep.get("inSync", [])) == 4 and
              [(f["status"], f["name"]) for f in rep.get("findings", [])] == [("failed", "no-uid")],
              p.stdout + p.stderr)
        with open(os.path.join(out, TRAIN)) as f:
            spec = json.load(f)
        spec["devices"][0]["containerEdits"]["env"].append("EXTRA=1")
        with open(os.path.join(out, TRAIN), "w") as f:
            json.dump(spec, f)
        p = run("audit", "--node", "node-1", "-f", INPUT, out)
        check("audit reports a spec whose device edits changed as out of date",
              p.returncode == 1 and "%s: out of date: spec of ResourceClaim ml/train" % os.path.join(out, TRAIN)
              in p.stdout and "containerEdits differ (env)" in p.stdout, p.stdout + p.stderr)
        p = run("audit", "--node", "node-1", "-f", INPUT, "--driver", "nic.sim.draforge.io", out)
        check("audit limited to a driver in sync: exit 0",
              p.returncode == 0 and "2 in sync, 0 stale, 0 missing, 0 out of date, 0 failed" in p.stdout,
              p.stdout + p.stderr)
        p = run("audit", "--node", "node-1", "-f", INPUT, "--class", "other", out)
        check("audit judges by the writer's rules (another class: all missing, ours not touched)",
              p.returncode == 1 and "0 in sync, 0 stale, 4 missing" in p.stdout,
              p.stdout + p.stderr)
        p = run("audit", "-f", INPUT, out)
        check("audit without --node: exit 2", p.returncode == 2 and "--node is required" in p.stderr, p.stderr)
        p = run("audit", "--node", "node-1", "-f", INPUT, os.path.join(tmp, "nope"))
        check("audit of a missing directory: exit 3", p.returncode == 3 and "nope" in p.stderr, p.stderr)

        dup = os.path.join(tmp, "dup")
        os.mkdir(dup)
        for n in ("a-b_1.json", "a-b_2.json"):
            shutil.copy(os.path.join(FIXTURES, "specs", "valid-min-0.3.0-env.json"), os.path.join(dup, n))
        p = run("validate", dup)
        check("validate DIR reports a device defined in two files",
              p.returncode == 2 and "a runtime drops it from both" in p.stdout, p.stdout)

    p = run("validate", os.path.join(FIXTURES, "specs", "invalid-env.json"))
    check("validate prints each problem with its JSON path, exit 2",
          p.returncode == 2 and "invalid-env.json: $.devices[0].containerEdits.env[1]: invalid environment variable"
          in p.stdout, p.stdout)
    good = [os.path.join(SHARED, "testdata", "good", n) for n in sorted(os.listdir(os.path.join(SHARED, "testdata", "good")))]
    bad = [os.path.join(SHARED, "testdata", "bad", n) for n in sorted(os.listdir(os.path.join(SHARED, "testdata", "bad")))]
    p = run("validate", *good)
    check("validate accepts the CDI project's good documents", p.returncode == 0, p.stdout)
    for b in bad:
        p = run("validate", b)
        check("validate rejects bad/%s" % os.path.basename(b), p.returncode == 2, p.stdout)
    p = run("validate", "-o", "json", good[0], bad[0])
    rep = json.loads(p.stdout)
    check("validate -o json", [r["valid"] for r in rep] == [True, False] and rep[1]["problems"][0]["path"] == "$",
          p.stdout)
    p = run("validate", "--strict", os.path.join(FIXTURES, "specs", "valid-declared-above-minimum.json"))
    check("validate --strict wants the minimum version and the 0.5.0 ceiling",
          p.returncode == 2 and "above the maximum 0.5.0" in p.stdout, p.stdout)
    p = run("validate", "/nonexistent/spec.json")
    check("validate of a missing file: exit 3", p.returncode == 3 and "cannot open" in p.stderr, p.stderr)

    print("1..%d" % len(results))
    failed = 0
    for i, (name, ok, detail) in enumerate(results, 1):
        print("%s %d - %s" % ("ok" if ok else "not ok", i, name))
        if not ok:
            failed += 1
            for line in str(detail).splitlines() or [""]:
                print("#   " + line)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
