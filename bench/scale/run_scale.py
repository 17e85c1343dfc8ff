"""bench/run --scale: end-to-end figures on whole generated clusters (issue 23, points 4 and 5).

Usage: bench/run [BUILD_DIR] --scale [--sizes 1000,2500,5000,10000] [--repetitions K]
                 [--explain-sample N] [--explain-seconds S] [--oracle-ops N] [--wrk-seconds S]
                 [--no-server] [--keep] [--list-claims [N] | --no-list-claims]
  --repetitions      DRAForge's steps: best of K (default 3)
  --explain-sample   explain every k-th pending claim, N claims in all (default 100) ...
  --explain-seconds  ... or fewer, once they used S CPU seconds (default 60); extrapolated to all
  --oracle-ops       upstream: best of N processes (default 2)
  --wrk-seconds      per server page (default 5)
  --no-server        skip the draforge-server figures
  --keep             keep BUILD_DIR/bench/scale/cluster-N.json
  --list-claims [N]  list N claims (default 100,000) from a kube-apiserver, see below
  --no-list-claims   skip that

For each size: bench/scale/gen_scale.py writes the cluster (BUILD_DIR/bench/scale/cluster-N.json),
then, in the same run:
  * DRAForge (BUILD_DIR/bench/scale_bench): RapidJSON's DOM parse of the file and our decode of the
    same bytes (ratio: the issue's goal is >= 1.0), store load, memory per device, a snapshot after
    one change, the relationship graph, explain for every pending claim (a sample, extrapolated),
    placement of one new pod on every node;
  * upstream (the Go oracle, `dra-allocate --all-nodes --bench`): the scheduler's PreFilter +
    Filter over every node for the same pod, and its input decode (apimachinery + the API server's
    scheme) of the same file; the nodes that fit must be the same on both sides;
  * draforge-server on the same cluster: time to ready, /api/v1/summary and /api/v1/pools under wrk,
    one change delivered over SSE (sse_clients.py: a file written into --watch-dir, 100 ms poll).
Then the cost per unit of input at each size (the curve) and which goals are met.

Once per run, not per size: listing N claims (default 100,000) in pages of 500 from a real
kube-apiserver of its own (tests/cluster/up), DRAForge's client beside client-go, CPU ratio
(bench/scale/list_claims.py). On by default when the control plane's build is cached
(tests/cluster/build); --list-claims [N] asks for it (building the control plane if needed),
--no-list-claims skips it. Creating the claims takes minutes and is not a figure.
"""
import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
BENCH = os.path.dirname(HERE)
REPO = os.path.dirname(BENCH)

GOALS = {"decode": 1.0, "memory": 150, "placement": 100}


def parse(argv):
    o = {"sizes": [1000, 2500, 5000, 10000], "reps": 3, "explain_sample": 100, "explain_seconds": 60, "oracle_ops": 2,
         "wrk_seconds": 5, "server": True, "keep": False, "list_claims": None}
    i = 0
    while i < len(argv):
        a = argv[i]
        val = lambda: argv[i + 1] if i + 1 < len(argv) else sys.exit(f"{a} needs a value")
        if a == "--sizes":
            o["sizes"] = [int(x) for x in val().split(",")]
            i += 1
        elif a == "--repetitions":
            o["reps"] = max(1, int(val()))
            i += 1
        elif a == "--explain-sample":
            o["explain_sample"] = max(1, int(val()))
            i += 1
        elif a == "--explain-seconds":
            o["explain_seconds"] = max(1, int(val()))
            i += 1
        elif a == "--oracle-ops":
            o["oracle_ops"] = max(1, int(val()))
            i += 1
        elif a == "--wrk-seconds":
            o["wrk_seconds"] = max(1, int(val()))
            i += 1
        elif a == "--no-server":
            o["server"] = False
        elif a == "--keep":
            o["keep"] = True
        elif a == "--list-claims":
            # An optional count follows.
            o["list_claims"] = 100000
            if i + 1 < len(argv) and argv[i + 1].isdigit():
                o["list_claims"] = int(argv[i + 1])
                i += 1
        elif a == "--no-list-claims":
            o["list_claims"] = 0
        else:
            sys.exit(f"bench/run --scale: unknown argument {a}\n{__doc__}")
        i += 1
    return o


def load():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def child_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def json_lines(text):
    out = {}
    for line in text.splitlines():
        if line.strip().startswith("{"):
            try:
                out.update(json.loads(line))
            except json.JSONDecodeError:
                pass
    return out


def oracle_path():
    """DRA_ALLOCATE, else tests/oracle/build's output (ORACLE_BIN or <repo>/.cache/oracle/bin), built
    when its sources changed (a no-op otherwise)."""
    if os.environ.get("DRA_ALLOCATE"):
        return os.environ["DRA_ALLOCATE"]
    subprocess.run([os.path.join(REPO, "tests", "oracle", "build")], check=True)
    return os.path.join(os.environ.get("ORACLE_BIN") or os.path.join(REPO, ".cache", "oracle", "bin"), "dra-allocate")


def upstream(oracle, path, ops):
    """dra-allocate --all-nodes: its decode time, the nodes that fit, and the best of `ops` Filter passes."""
    best = None
    stats = fits = None
    for _ in range(ops):
        cpu = child_cpu()
        p = subprocess.run([oracle, "--all-nodes", "--claim", "placement/train", "--stats", "--bench", "1", path],
                           capture_output=True, text=True)
        cpu = child_cpu() - cpu
        if p.returncode != 0:
            sys.exit(f"dra-allocate --all-nodes {path}: exit {p.returncode}: {p.stderr.strip()[:2000]}")
        lines = [json.loads(x) for x in p.stderr.splitlines() if x.startswith("{")]
        st, bench = lines[0], lines[-1]
        out = json.loads(p.stdout)
        if stats is None or st["decode_ns"] < stats["decode_ns"]:
            stats = st
        fits = out
        if best is None or bench["ns_per_op"] < best["ns_per_op"]:
            best = {**bench, "process_cpu_s": cpu}
    return stats, fits, best


def wrk(url, seconds):
    p = subprocess.run(["wrk", "-t2", "-c32", f"-d{seconds}s", "--latency", url], capture_output=True, text=True)
    out = {"rps": None, "p50": None, "p99": None, "non2xx": 0}
    for line in p.stdout.splitlines():
        s = line.split()
        if line.startswith("Requests/sec"):
            out["rps"] = float(s[1])
        elif s[:1] == ["50%"]:
            out["p50"] = s[1]
        elif s[:1] == ["99%"]:
            out["p99"] = s[1]
        elif "Non-2xx" in line:
            out["non2xx"] = int(s[-1])
    return out


def server_figures(build, path, n, seconds):
    """draforge-server on the cluster: ready time, summary/pools under wrk, SSE delivery."""
    exe = os.path.join(build, "examples", "server", "draforge-server")
    if not os.access(exe, os.X_OK) or shutil.which("wrk") is None:
        return {"skipped": f"{exe} or wrk missing"}
    tmp = tempfile.mkdtemp(prefix=f"scale-server-{n}-")
    watch = os.path.join(tmp, "watch")
    os.makedirs(watch)
    log = open(os.path.join(tmp, "server.log"), "w+")
    t0 = time.monotonic()
    max_input = str(os.path.getsize(path) + (1 << 20))
    proc = subprocess.Popen([exe, "--scenario", path, "--port", "0", "--static-dir", "", "--rate-limit", "0",
                             "--watch-dir", watch, "--max-input-size", max_input],
                            stdout=log, stderr=subprocess.STDOUT)
    try:
        url = None
        while url is None and time.monotonic() - t0 < 600:
            if proc.poll() is not None:
                log.seek(0)
                return {"skipped": f"draforge-server exited {proc.returncode}: {log.read()[-500:]}"}
            log.seek(0)
            for line in log.read().splitlines():
                if "listening on http:" in line:
                    url = "http:" + line.split("listening on http:")[1].split()[0]
            time.sleep(0.1)
        import urllib.request
        while True:
            try:
                urllib.request.urlopen(url + "/readyz", timeout=5).read()
                break
            except Exception:  # noqa: BLE001 - not ready yet
                if time.monotonic() - t0 > 600:
                    return {"skipped": "not ready after 600 s"}
                time.sleep(0.1)
        ready_s = time.monotonic() - t0
        summary = json.loads(urllib.request.urlopen(url + "/api/v1/summary", timeout=600).read())
        if summary["counts"]["nodes"] != n:
            return {"skipped": f"the server holds {summary['counts']['nodes']} nodes once ready, not {n}"}
        first = {}
        for page in ("/api/v1/summary", "/api/v1/pools"):
            t = time.monotonic()
            body = urllib.request.urlopen(url + page, timeout=600).read()
            first[page] = (time.monotonic() - t, len(body))
        rss = 0
        with open(f"/proc/{proc.pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    rss = int(line.split()[1]) * 1024
        res = {"ready_s": ready_s, "rss_bytes": rss, "first": first,
               "summary": wrk(url + "/api/v1/summary", seconds), "pools": wrk(url + "/api/v1/pools", seconds)}
        port = url.rsplit(":", 1)[1]
        p = subprocess.run([sys.executable, os.path.join(BENCH, "server", "sse_clients.py"), "127.0.0.1", port,
                            str(proc.pid), watch, "10", "3", "0"], capture_output=True, text=True, timeout=600)
        sse = json_lines(p.stdout)
        res["sse"] = [d.get("max_s") for d in sse.get("deliveries", [])]
        return res
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()
        shutil.rmtree(tmp, ignore_errors=True)


def ms(s):
    return f"{s * 1e3:,.1f} ms" if s < 10 else f"{s:,.1f} s"


def run_size(build, oracle, n, o):
    out_dir = os.path.join(build, "bench", "scale")
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, f"cluster-{n}.json")
    draforge = os.path.join(build, "examples", "cli", "draforge")
    g = subprocess.run([sys.executable, os.path.join(HERE, "gen_scale.py"), "--nodes", str(n), "--draforge",
                        draforge, path], capture_output=True, text=True)
    if g.returncode != 0:
        sys.exit(f"gen_scale.py --nodes {n}: exit {g.returncode}: {g.stderr.strip()}")
    gen = json.loads(g.stdout)
    p = subprocess.run([os.path.join(build, "bench", "scale_bench"), f"--scenario={path}",
                        f"--repetitions={o['reps']}", f"--explain-sample={o['explain_sample']}",
                        f"--explain-seconds={o['explain_seconds']}"],
                       capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"scale_bench {path}: exit {p.returncode}: {p.stderr.strip()}")
    ours = json.loads(p.stdout)
    stats, fits, theirs = upstream(oracle, path, o["oracle_ops"])
    server = server_figures(build, path, n, o["wrk_seconds"]) if o["server"] else {"skipped": "--no-server"}
    if not o["keep"]:
        os.remove(path)
    return {"gen": gen, "ours": ours, "stats": stats, "fits": fits, "theirs": theirs, "server": server,
            "load": load()}


def report(n, r):
    """Prints one size's figures. Ratios are taken on CPU time (our thread's; the Go process's, every
    thread, garbage collector included): on a shared machine wall time mostly measures waiting.
    Wall times are printed beside them."""
    gen, ours, st, fits, th, srv = r["gen"], r["ours"], r["stats"], r["fits"], r["theirs"], r["server"]
    mb = gen["bytes"] / 1e6
    print(f"== {n:,} nodes: {ours['devices']:,} devices in {ours['slices']:,} slices, {ours['claims']:,} claims "
          f"({gen['allocated_claims']:,} allocated), {ours['pods']:,} pods; {mb:,.0f} MB of JSON "
          f"(generated in {gen['seconds']:.0f} s); load average {r['load']}")
    rj, dec = ours["rapidjson"], ours["decode"]
    go_cpu = st["decode_cpu_ns"] * 1e-9
    print(f"decode: DRAForge {mb / dec['cpu_s']:,.0f} MB/s ({ms(dec['cpu_s'])} CPU, {ms(dec['wall_s'])} wall), "
          f"RapidJSON DOM parse {mb / rj['cpu_s']:,.0f} MB/s ({ms(rj['cpu_s'])}), ratio "
          f"{rj['cpu_s'] / dec['cpu_s']:.2f} (goal >= {GOALS['decode']}; wall {rj['wall_s'] / dec['wall_s']:.2f}); "
          f"upstream's decode of the same file (the oracle: apimachinery, API scheme) {ms(go_cpu)} CPU, "
          f"ratio {go_cpu / dec['cpu_s']:,.1f}")
    objects = ours["nodes"] + ours["slices"] + ours["claims"] + ours["pods"]
    ld = ours["load"]
    print(f"store load: {ms(ld['cpu_s'])} CPU ({ld['cpu_s'] / objects * 1e9:,.0f} ns per object; wall "
          f"{ms(ld['wall_s'])}); decode + load {ms(dec['cpu_s'] + ld['cpu_s'])} CPU")
    per_dev = ours["slice_store_bytes"] / ours["devices"]
    print(f"memory: {per_dev:,.0f} bytes per device (slices and classes alone; goal < {GOALS['memory']}); whole store "
          f"{ours['store_bytes'] / 2**20:,.0f} MiB = {ours['store_bytes'] / objects:,.0f} bytes per object")
    cs = ours["change_snapshot"]
    print(f"snapshot after one change (Apply of a modified claim + snapshot()): {cs['cpu_s'] * 1e6:,.1f} us CPU "
          f"({cs['wall_s'] * 1e6:,.1f} us wall)")
    print(f"relationship graph: {ms(ours['graph']['cpu_s'])} CPU ({ms(ours['graph']['wall_s'])} wall; "
          f"{ours['graph_nodes']:,} nodes, {ours['graph_edges']:,} edges)")
    ex = ours["explain_sample"]
    per_cpu = ex["cpu_s"] / max(1, ours["explained"])
    outcomes = ", ".join(f"{k[8:]} {v}" for k, v in ours.items() if k.startswith("explain_") and isinstance(v, int))
    if ours["explained"] == 0:
        print(f"explain every pending claim ({ours['pending_claims']:,}): not measured (--explain-sample 0)")
    else:
        ctx = ours["explain_context"]["cpu_s"]
        print(f"explain every pending claim ({ours['pending_claims']:,}): {ms(ctx + per_cpu * ours['pending_claims'])} "
              f"CPU (the shared alloc::ExplainContext {ms(ctx)} once, then extrapolated from {ours['explained']} claims, "
              f"{per_cpu * 1e3:,.1f} ms CPU each: {outcomes})")
    pf, pw = ours["placement_fresh"]["cpu_s"], ours["placement_warm"]["cpu_s"]
    up = th["cpu_ns_per_op"] * 1e-9
    up_wall = th["ns_per_op"] * 1e-9
    same = sorted(fits["fits_on"]) == sorted(ours["fits_on"])
    print(f"placement of one new pod on all {ours['nodes']:,} nodes: DRAForge {ms(pf)} CPU with a new Allocator "
          f"({ms(pw)} on the same snapshot), upstream PreFilter + Filter {ms(up)} CPU ({ms(up_wall)} wall, "
          f"NewAllocator {ms(th['new_allocator_ns_per_op'] * 1e-9)}), ratio {up / pf:,.1f} (same snapshot "
          f"{up / pw:,.1f}; wall {up_wall / ours['placement_fresh']['wall_s']:,.1f}; goal >= {GOALS['placement']}); "
          f"fits on {len(ours['fits_on']):,} nodes, upstream {fits['allocated_nodes']:,}: "
          f"{'the same nodes' if same else 'DIFFERENT NODES'}")
    if "skipped" in srv:
        print(f"server: not measured ({srv['skipped']})")
    else:
        s, p = srv["summary"], srv["pools"]
        print(f"server: ready in {srv['ready_s']:.1f} s, RSS {srv['rss_bytes'] / 2**20:,.0f} "
              f"MiB; first /api/v1/summary {ms(srv['first']['/api/v1/summary'][0])}, first /api/v1/pools "
              f"{ms(srv['first']['/api/v1/pools'][0])} ({srv['first']['/api/v1/pools'][1]:,} bytes)")
        print(f"  wrk -t2 -c32: summary {s['rps']} req/s p50 {s['p50']} p99 {s['p99']}; pools {p['rps']} req/s "
              f"p50 {p['p50']} p99 {p['p99']}; non-2xx {s['non2xx'] + p['non2xx']}")
        print(f"  a change over SSE (10 clients, watch-dir poll 100 ms): max delivery "
              f"{', '.join(f'{x:.3f} s' for x in srv['sse'] if x is not None)}")
    sys.stdout.flush()
    return {"decode_ratio": rj["cpu_s"] / dec["cpu_s"], "per_device": per_dev, "placement_ratio": up / pf,
            "same": same,
            "curve": {"decode ns/byte": dec["cpu_s"] / gen["bytes"] * 1e9,
                      "load ns/object": ld["cpu_s"] / objects * 1e9,
                      "memory bytes/device": per_dev,
                      "store bytes/object": ours["store_bytes"] / objects,
                      "change+snapshot us": cs["cpu_s"] * 1e6,
                      "graph ns/object": ours["graph"]["cpu_s"] / objects * 1e9,
                      "placement ns/node": pf / ours["nodes"] * 1e9,
                      "upstream Filter ns/node": up / ours["nodes"] * 1e9,
                      "explain us/claim/node": per_cpu / min(ours["nodes"], 1000) * 1e6}}


def list_claims(build, o):
    """Once per run (it does not depend on the cluster size): list_claims.py on a control plane of its
    own, when asked for or, by default, when the control plane's build is cached."""
    import list_claims as lc
    n = o["list_claims"]
    if n is None:
        if not lc.control_plane_cached():
            print("listing claims from kube-apiserver: not measured (the control plane is not built: "
                  "tests/cluster/build, or pass --list-claims)")
            return
        n = 100000
    if n == 0:
        return
    exe = os.path.join(build, "bench", "list_claims_bench")
    if not os.access(exe, os.X_OK):
        sys.exit(f"{exe} is missing: build it first (scripts/build)")
    with lc.ControlPlane() as cp:
        print(lc.sentence(lc.measure(build, cp.kubeconfig, n, runs=o["reps"])))
    sys.stdout.flush()


def main(build, argv):
    o = parse(argv)
    for exe in ("bench/scale_bench", "examples/cli/draforge"):
        if not os.access(os.path.join(build, exe), os.X_OK):
            sys.exit(f"{build}/{exe} is missing: build it first (scripts/build)")
    oracle = oracle_path()
    print(f"bench/run --scale: sizes {', '.join(map(str, o['sizes']))}; {os.cpu_count()} cores, load average {load()}")
    rows = {}
    for n in o["sizes"]:
        rows[n] = report(n, run_size(build, oracle, n, o))
    keys = list(next(iter(rows.values()))["curve"])
    sizes = list(rows)
    print("== cost per unit of input, CPU time" + ("" if len(sizes) < 2 else f" (last column: {sizes[-1]:,} against {sizes[0]:,})"))
    print(f"{'':26}" + "".join(f"{n:>12,}" for n in sizes) + ("      growth" if len(sizes) > 1 else ""))
    for k in keys:
        vals = [rows[n]["curve"][k] for n in sizes]
        grow = f"{vals[-1] / vals[0]:>12.2f}" if len(sizes) > 1 and vals[0] else ""
        print(f"{k:26}" + "".join(f"{v:>12,.1f}" for v in vals) + grow)
    list_claims(build, o)
    last = rows[sizes[-1]]
    print(f"goals at {sizes[-1]:,} nodes: decode ratio {last['decode_ratio']:.2f} (>= 1.0: "
          f"{'met' if last['decode_ratio'] >= 1 else 'not met'}); memory {last['per_device']:.0f} bytes per device "
          f"(< 150: {'met' if last['per_device'] < 150 else 'not met'}); placement {last['placement_ratio']:.1f}x upstream "
          f"(>= 100: {'met' if last['placement_ratio'] >= 100 else 'not met'}); same nodes as upstream at every size: "
          f"{'yes' if all(r['same'] for r in rows.values()) else 'NO'}")
