#!/usr/bin/env python3
"""Listing ResourceClaims from a real kube-apiserver in pages: DRAForge beside client-go (issue 23).

Usage: bench/scale/list_claims.py BUILD_DIR [--count N] [--limit L] [--runs R] [--kubeconfig FILE]
                                  [--check] [--json]
  --count       claims to list (default 100,000); created first with tests/oracle's
                dra-create-claims (client-go, 32 workers, idempotent; its time is not a figure)
  --limit       page size of both clients (default 500, client-go's pager and reflector default)
  --runs        runs of each client, alternating (default 3); medians are reported
  --kubeconfig  use this cluster instead of starting one (tests/cluster/up in a scratch dir, stopped
                at exit)
  --check       a smoke check: one run each, listing only the claims dra-create-claims made (label
                bench.draforge.dev/list=true, so other claims of a shared cluster do not count);
                exit 1 unless every client saw exactly N claims
  --json        print the medians, the ratio and every run as one JSON object instead of the sentence

The clients, each a process of its own whose CPU time (getrusage: user + system, every thread) is
the figure, over the same span (first request to last item decoded):
  DRAForge   BUILD_DIR/bench/list_claims_bench: kube::Client::List (JSON pages, following
             `continue`) and api::DecodeObject of every item into an api::ResourceClaim
  client-go  dra-list-claims: tools/pager over the typed clientset (ResourceV1().ResourceClaims("")
             .List), asking for JSON without gzip (the bytes DRAForge's client asks for), and, for
             information, with protobuf (what client-go's typed clients ask for by default)
The ratio is client-go JSON CPU / DRAForge CPU (above 1: DRAForge uses less). Wall times include
the API server's work (same server, same machine) and are reported, not compared.
"""
import glob
import json
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
SELECTOR = "bench.draforge.dev/list=true"  # every claim dra-create-claims makes carries it


def cache_root():
    return os.environ.get("DRAFORGE_CACHE") or os.path.join(REPO, ".cache")


def control_plane_cached():
    """True when tests/cluster/build's binaries are in the cache (so starting a cluster is cheap)."""
    root = cache_root()
    return bool(glob.glob(os.path.join(root, "cluster", "v*", "bin", "kube-apiserver")) and
                glob.glob(os.path.join(root, "cluster", "etcd-*", "bin", "etcd")))


def oracle_bin():
    """tests/oracle/build's output directory, built when its sources changed (a no-op otherwise)."""
    subprocess.run([os.path.join(REPO, "tests", "oracle", "build")], check=True, stdout=subprocess.DEVNULL)
    return os.environ.get("ORACLE_BIN") or os.path.join(REPO, ".cache", "oracle", "bin")


def run_json(cmd):
    out = subprocess.run(cmd, check=True, capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


class ControlPlane:
    """etcd + kube-apiserver of tests/cluster/up in a scratch folder, stopped on exit."""

    def __enter__(self):
        subprocess.run([os.path.join(REPO, "tests", "cluster", "build"), "--quiet"], check=True,
                       stdout=subprocess.DEVNULL)
        self.dir = tempfile.mkdtemp(prefix="draforge-list-claims.")
        os.rmdir(self.dir)  # up creates it and refuses a folder that may hold a cluster
        out = subprocess.run([os.path.join(REPO, "tests", "cluster", "up"), "--no-build", "--nodes", "0",
                              "--dir", self.dir], check=True, capture_output=True, text=True).stdout
        self.kubeconfig = out.strip().splitlines()[-1].removeprefix("KUBECONFIG=")
        return self

    def __exit__(self, *exc):
        subprocess.run([os.path.join(REPO, "tests", "cluster", "down"), "--dir", self.dir],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def measure(build, kubeconfig, count, limit=500, runs=3, selector=""):
    """Creates `count` claims (idempotent) and lists them `runs` times with each client, alternating.
    Returns {"count", "limit", "created_s", "runs": {client: [results]}, "median": {client: {...}}}."""
    bench = os.path.join(build, "bench", "list_claims_bench")
    if not os.access(bench, os.X_OK):
        sys.exit(f"{bench} is missing: build it first (ninja -C {build} bench/list_claims_bench)")
    obin = oracle_bin()
    created = run_json([os.path.join(obin, "dra-create-claims"), "--kubeconfig", kubeconfig, "--count", str(count)])
    go = [os.path.join(obin, "dra-list-claims"), "--kubeconfig", kubeconfig, "--limit", str(limit)]
    ours = [bench, f"--kubeconfig={kubeconfig}", f"--limit={limit}"]
    if selector:
        go += ["--selector", selector]
        ours += [f"--label-selector={selector}"]
    clients = {"draforge": ours, "client-go": go + ["--disable-compression"], "client-go-protobuf": go + ["--protobuf"]}
    # One untimed list first: the API server's first pass over fresh objects is slower for whoever
    # goes first.
    run_json(clients["client-go"])
    results = {name: [] for name in clients}
    for _ in range(runs):
        for name, cmd in clients.items():
            results[name].append(run_json(cmd))
    median = {name: {k: statistics.median(r[k] for r in rs) for k in ("cpu_s", "wall_s", "max_rss_bytes")}
              for name, rs in results.items()}
    for name, rs in results.items():
        median[name]["count"] = sorted({r["count"] for r in rs})
        median[name]["pages"] = rs[0]["pages"]
    return {"count": count, "limit": limit, "created_s": created["wall_s"], "runs": results, "median": median,
            "ratio": median["client-go"]["cpu_s"] / median["draforge"]["cpu_s"]}


def sentence(m):
    d, g, p = m["median"]["draforge"], m["median"]["client-go"], m["median"]["client-go-protobuf"]
    return (f"listing {m['count']:,} claims from kube-apiserver in pages of {m['limit']}: DRAForge "
            f"{d['cpu_s']:.2f} s CPU, client-go {g['cpu_s']:.2f} s (ratio {m['ratio']:.2f}), client-go protobuf "
            f"{p['cpu_s']:.2f} s (median of {len(m['runs']['draforge'])}; wall {d['wall_s']:.1f} / "
            f"{g['wall_s']:.1f} / {p['wall_s']:.1f} s; peak RSS {d['max_rss_bytes'] / 2**20:,.0f} / "
            f"{g['max_rss_bytes'] / 2**20:,.0f} / {p['max_rss_bytes'] / 2**20:,.0f} MiB)")


def main(argv):
    if not argv or argv[0].startswith("-"):
        sys.exit(__doc__)
    build, argv = argv[0], argv[1:]
    o = {"count": 100000, "limit": 500, "runs": 3, "kubeconfig": "", "check": False, "json": False}
    i = 0
    while i < len(argv):
        a = argv[i]
        if a in ("--count", "--limit", "--runs", "--kubeconfig"):
            if i + 1 >= len(argv):
                sys.exit(f"{a} needs a value")
            o[a[2:]] = argv[i + 1] if a == "--kubeconfig" else int(argv[i + 1])
            i += 1
        elif a in ("--check", "--json"):
            o[a[2:]] = True
        else:
            sys.exit(f"list_claims.py: unknown argument {a}\n{__doc__}")
        i += 1
    runs = 1 if o["check"] else o["runs"]
    if o["kubeconfig"]:
        m = measure(build, o["kubeconfig"], o["count"], o["limit"], runs, selector=SELECTOR if o["check"] else "")
    else:
        with ControlPlane() as cp:
            m = measure(build, cp.kubeconfig, o["count"], o["limit"], runs)
    if o["check"]:
        seen = {name: md["count"] for name, md in m["median"].items()}
        bad = {name: c for name, c in seen.items() if c != [o["count"]]}
        if bad:
            print(f"not ok - list claims: expected {o['count']} claims, got {seen}")
            return 1
        pages = {name: md["pages"] for name, md in m["median"].items()}
        print(f"ok - list {o['count']} claims in pages of {o['limit']}: every client saw all of them ({pages} pages)")
        return 0
    print(json.dumps({"median": m["median"], "ratio": m["ratio"], "runs": m["runs"]}) if o["json"] else sentence(m))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
