#!/usr/bin/env python3
"""draforge-server's what-if routes end to end: /api/v1/whatif/replay on the embedded demo scenario,
/api/v1/whatif/preempt, /gang and /fragmentation on the CLI's what-if scenarios
(tests/cli/data/whatif).

GET and the replay's compute-only POST answer what `draforge whatif ... -o json` prints for the same
scenario and options; the server's snapshot is the same after (claims, devices, graph and the
snapshot generation); every other method is 405 (the replay's route alone also takes POST); bad
queries and bodies are 400 naming the parameter or field, unknown pods and PodGroups 404, 413 and
415; the budget flags bound the work; rate limit and metrics apply as on the other routes.

Usage: whatif_api_test.py PATH/TO/draforge-server PATH/TO/draforge   (prints TAP)
"""
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import server_api_test as api  # noqa: E402  (the API suite's launcher, schema checks and TAP runner)

CLI = sys.argv[2]
DEMO_YAML = os.path.join(api.ROOT, "examples", "scenarios", "demo.yaml")
PATH = "/api/v1/whatif/replay"
JSON = {"Content-Type": "application/json"}
TESTS = []
SRV = None


def test(fn):
    TESTS.append(fn)
    return fn


def cli_replay(*args):
    """`draforge whatif replay -f demo.yaml ARGS -o json` (exit 0 or 1: all placed, some pending)."""
    p = subprocess.run([CLI, "whatif", "replay", "-f", DEMO_YAML, *args, "-o", "json"], capture_output=True, text=True,
                       timeout=120)
    assert p.returncode in (0, 1), (args, p.returncode, p.stderr)
    return json.loads(p.stdout)


def post(body, server=None, headers=None):
    data = body if isinstance(body, (bytes, str)) else json.dumps(body)
    status, hdrs, raw = (server or SRV).request("POST", PATH, body=data, headers=dict(JSON, **(headers or {})))
    return status, hdrs, raw


def check_post_response(status, headers, body):
    op = api.OPENAPI["paths"][PATH]["post"]
    assert str(status) in op["responses"], "POST: undocumented status %d: %r" % (status, body[:300])
    api.validate(op["responses"][str(status)]["content"]["application/json"]["schema"], json.loads(body))


def error_message(status, headers, body, want_status):
    assert status == want_status, (status, body[:300])
    check_post_response(status, headers, body)
    return json.loads(body)["error"]["message"]


def state(server):
    """What a client sees of the snapshot: every view that lists pods, claims and devices."""
    return {p: server.get_json(p) for p in ("/api/v1/summary", "/api/v1/claims", "/api/v1/devices",
                                           "/api/v1/graph", "/api/v1/pools")}


# The edits of the comparisons, as the CLI flags that make them (the CLI applies its flags in the
# documented order: add-nodes, delete-claim, delete-pod, drain-node, delete-node; the bodies list
# them in that order too).
CASES = [
    ("first-fit", [], []),
    ("most-allocated", [{"op": "drain-node", "name": "node-1"}], ["--drain-node", "node-1"]),
    ("least-allocated", [{"op": "add-nodes", "like": "node-3", "count": 2}, {"op": "delete-node", "name": "node-3"}],
     ["--add-nodes", "2", "--like", "node-3", "--delete-node", "node-3"]),
    ("first-fit", [{"op": "delete-claim", "name": "team-a/train-0"}, {"op": "delete-pod", "name": "team-a/train-0"},
                   {"op": "drain-node", "name": "node-2"}],
     ["--delete-claim", "team-a/train-0", "--delete-pod", "team-a/train-0", "--drain-node", "node-2"]),
    ("first-fit", [{"op": "delete-node", "name": "node-3"}], ["--delete-node", "node-3"]),
]


@test
def get_answers_what_the_cli_prints_for_each_policy():
    for policy in ("first-fit", "most-allocated", "least-allocated"):
        status, headers, body = SRV.request("GET", PATH + "?policy=" + policy)
        assert status == 200, (status, body[:300])
        api.check_response(PATH, status, headers, body)
        assert json.loads(body) == cli_replay("--policy", policy), policy
    assert SRV.get_json(PATH) == cli_replay()
    assert SRV.get_json(PATH + "?explain=false")["policy"] == "first-fit"


@test
def post_with_edits_answers_what_the_cli_prints_and_changes_nothing():
    before = state(SRV)
    seen_pending = False
    for policy, edits, flags in CASES:
        status, headers, body = post({"policy": policy, "edits": edits})
        assert status == 200, (policy, edits, status, body[:300])
        check_post_response(status, headers, body)
        got = json.loads(body)
        assert got == cli_replay("--policy", policy, *flags), (policy, edits)
        assert ("edits" in got) == bool(edits)
        seen_pending = seen_pending or bool(got["pending"])
    # The cases are not all the same answer: deleting node-3 leaves the 4-GPU pod pending.
    assert seen_pending
    assert state(SRV) == before


@test
def edits_change_the_result():
    plain = SRV.get_json(PATH)
    status, _, body = post({"edits": [{"op": "drain-node", "name": "node-1"}]})
    drained = json.loads(body)
    assert status == 200
    assert len(drained["order"]) == len(plain["order"]) + 1, (plain["order"], drained["order"])
    assert drained["edits"][0].startswith("drain-node node-1"), drained["edits"]
    # node-1 is cordoned on the copy: no pod lands there.
    assert all(p["node"] != "node-1" for p in drained["placed"]), drained["placed"]
    status, _, body = post({"edits": [{"op": "delete-node", "name": "node-3"}]})
    gone = json.loads(body)
    pending = {p["pod"]: p["nodes"] for p in gone["pending"]}
    assert "team-a/finetune-0" in pending, gone
    assert [n["node"] for n in pending["team-a/finetune-0"]] == ["node-1", "node-2"], pending


@test
def other_methods_on_the_route_are_405_and_post_elsewhere_too():
    for method in ("PUT", "PATCH", "DELETE", "TRACE"):
        status, headers, body = SRV.request(method, PATH, body=b"{}", headers=JSON)
        assert status == 405, (method, status)
        assert headers.get("allow") == "GET, HEAD, OPTIONS, POST", headers
        api.check_response(PATH, status, headers, body)
    for path in [p for p in api.OPENAPI["paths"] if p != PATH] + ["/", "/api/v1/whatif", "/api/v1/whatif/replay/x"]:
        status, headers, _ = SRV.request("POST", path, body=b"{}", headers=JSON)
        assert status == 405, (path, status)
        assert headers.get("allow") == "GET, HEAD, OPTIONS", (path, headers)
    status, headers, _ = SRV.request("OPTIONS", PATH)
    assert status == 204 and headers.get("allow") == "GET, HEAD, OPTIONS, POST", (status, headers)


@test
def bad_bodies_are_400_naming_the_field():
    cases = [
        (b"", "body: empty"),
        (b"{", "body: not valid JSON"),
        (b"[1]", "body: want a JSON object"),
        (b"{}{}", "body: not valid JSON"),
        (b"\xff\xfe", "body: not valid JSON"),
        ({"policy": "best-fit"}, "policy: unknown policy \"best-fit\""),
        ({"policy": 3}, "policy: want a string"),
        ({"explain": "yes"}, "explain: want true or false"),
        ({"edits": {}}, "edits: want an array"),
        ({"edits": [1]}, "edits[0]: want an object"),
        ({"edits": [{"op": "nope"}]}, "edits[0].op"),
        ({"edits": [{"op": "drain-node", "name": "node-9"}]}, "node-9"),
        ({"edits": [{"op": "add-nodes", "like": "node-1", "count": 0}]}, "edits[0]"),
        ({"edits": [{"op": "add-nodes", "like": "node-1", "count": 600}] * 2}, "edits[1].count"),
        ({"edits": [{"op": "delete-pod", "name": "x"}] * 101}, "edits: 101 edits"),
        ({"polcy": "first-fit"}, "polcy: unknown field"),
        (b'{"policy":"first-fit","policy":"first-fit"}', "policy: given more than once"),
        (b"[" * 9 + b"]" * 9, "body: nested deeper than 8 levels"),
        (b'{"edits":[{"op":"add-nodes","like":{"a":{"b":{"c":{"d":{"e":{"f":1}}}}}}}]}', "body: nested deeper"),
    ]
    for body, want in cases:
        message = error_message(*post(body), 400)
        assert message.startswith(want) or want in message, (body, message)
    # Brackets inside strings are not nesting.
    status, _, body = post({"edits": [{"op": "delete-pod", "name": "[[[[[[[[[[[["}]})
    assert status == 400 and "[[[[" in json.loads(body)["error"]["message"], body
    status, headers, body = SRV.request("POST", PATH + "?policy=first-fit", body=b"{}", headers=JSON)
    assert "policy" in error_message(status, headers, body, 400)


@test
def wrong_content_type_is_415_and_large_bodies_413():
    for headers in ({"Content-Type": "text/plain"}, {"Content-Type": "application/jsonx"}, {}):
        status, hdrs, body = SRV.request("POST", PATH, body=b"{}", headers=headers)
        assert "application/json" in error_message(status, hdrs, body, 415), headers
    status, hdrs, body = SRV.request("POST", PATH, body=b"{}", headers={"Content-Type": "Application/JSON; charset=utf-8"})
    assert status == 200, (status, body[:200])
    # Declared too large: refused before the body is read.
    big = json.dumps({"edits": [{"op": "delete-pod", "name": "x" * 100}] * 800}).encode()
    assert len(big) > 64 * 1024
    status, hdrs, body = post(big)
    assert "65536" in error_message(status, hdrs, body, 413)
    # Chunked: no length up front, refused once the body passes the limit.
    s = socket.create_connection((SRV.host, SRV.port), timeout=10)
    try:
        s.sendall(("POST %s HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                   "Transfer-Encoding: chunked\r\n\r\n" % PATH).encode())
        chunk = b" " * 30000
        try:
            for _ in range(4):
                s.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk))
        except OSError:
            pass  # the server may close as soon as it answered
        head = s.recv(200)
        assert head.startswith(b"HTTP/1.1 413 "), head
    finally:
        s.close()
    # A chunked body under the limit is read whole.
    s = socket.create_connection((SRV.host, SRV.port), timeout=10)
    try:
        b = b'{"policy":"least-allocated"}'
        s.sendall(("POST %s HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nConnection: close\r\n"
                   "Transfer-Encoding: chunked\r\n\r\n" % PATH).encode() + b"%x\r\n%s\r\n0\r\n\r\n" % (len(b), b))
        data = b""
        while True:
            more = s.recv(65536)
            if not more:
                break
            data += more
        assert data.startswith(b"HTTP/1.1 200 "), data[:200]
        assert json.loads(data.split(b"\r\n\r\n", 1)[1])["policy"] == "least-allocated"
    finally:
        s.close()


@test
def a_connection_stays_open_across_posts():
    import http.client
    c = http.client.HTTPConnection(SRV.host, SRV.port, timeout=30)
    try:
        for policy in ("first-fit", "most-allocated", "first-fit"):
            c.request("POST", PATH, body=json.dumps({"policy": policy}), headers=JSON)
            r = c.getresponse()
            assert r.status == 200 and json.loads(r.read())["policy"] == policy
        c.request("GET", "/healthz")
        assert c.getresponse().status == 200
    finally:
        c.close()


@test
def a_body_that_never_arrives_does_not_hold_the_connection():
    s = socket.create_connection((SRV.host, SRV.port), timeout=30)
    try:
        s.sendall(("POST %s HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                   "Content-Length: 100\r\n\r\n{" % PATH).encode())
        # The server closes it after the body deadline (10 s) without an answer.
        assert s.recv(100) == b""
    finally:
        s.close()
    assert SRV.request("GET", "/healthz")[0] == 200


@test
def the_budget_bounds_the_work():
    srv = api.Server("--demo", "--rate-limit", "0", "--whatif-max-pairs", "8", "--whatif-max-steps", "1")
    try:
        srv.wait_ready()
        # The demo: 3 nodes and 3 pods (9 pairs); the budget allows 8.
        status, headers, body = srv.request("GET", PATH)
        assert status == 400 and "over the server's limit of 8" in json.loads(body)["error"]["message"], body
        status, headers, body = post({"edits": [{"op": "delete-node", "name": "node-1"}]}, server=srv)
        assert status == 200, body[:300]
        # One search step per node and pod: no node fits, each with the allocator's limit as reason.
        result = json.loads(body)
        assert result["placed"] == [] and result["pending"], result
        for n in result["pending"][0]["nodes"]:
            assert n["filter"] == "DynamicResources" and "step limit of 1" in n["reason"], n
        status, headers, body = post({"edits": [{"op": "add-nodes", "like": "node-1", "count": 1}]}, server=srv)
        assert "pod-node pairs" in error_message(status, headers, body, 400)
    finally:
        srv.stop()


@test
def over_the_explain_budget_the_reasons_are_the_allocators_and_a_note_says_so():
    body = {"edits": [{"op": "delete-node", "name": "node-3"}]}
    explained = json.loads(post(body)[2])
    assert "notes" not in explained
    srv = api.Server("--demo", "--rate-limit", "0", "--whatif-max-explained", "1")
    try:
        srv.wait_ready()
        status, headers, raw = post(body, server=srv)
        assert status == 200, raw[:300]
        check_post_response(status, headers, raw)
        got = json.loads(raw)
        # One pending pod on two nodes: over a budget of one explained pair.
        assert got["notes"] and got["notes"][0].startswith("explain off: 1 pending pods x 2 nodes"), got.get("notes")
        assert [p["pod"] for p in got["placed"]] == [p["pod"] for p in explained["placed"]]
        assert got["pending"] != explained["pending"], "the allocator's reasons are not the funnel's sentences"
        plain = {k: v for k, v in got.items() if k != "notes"}
        explain_off = json.loads(post(dict(body, explain=False))[2])
        assert plain == explain_off, (plain, explain_off)
    finally:
        srv.stop()


@test
def rate_limit_applies_to_the_post():
    srv = api.Server("--demo", "--rate-limit", "5")
    try:
        srv.wait_ready()
        codes = []
        while 429 not in codes and len(codes) < 500:
            codes.append(post({}, server=srv)[0])
        assert 429 in codes and codes[0] == 200, codes
    finally:
        srv.stop()


@test
def metrics_count_the_route():
    post({})
    text = SRV.request("GET", "/metrics")[2].decode()
    assert 'draforge_http_requests_total{route="/api/v1/whatif/replay",code="200"}' in text
    assert 'draforge_http_requests_total{route="/api/v1/whatif/replay",code="400"}' in text
    assert 'draforge_http_request_duration_seconds_count{route="/api/v1/whatif/replay"}' in text


@test
def a_change_to_the_store_reaches_the_next_what_if():
    # A pod added through the watch directory is pending: the next what-if replays it (the GET's
    # cached answer belongs to the old snapshot).
    before = SRV.get_json(PATH)
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "whatif-new", "namespace": "team-a"},
           "spec": {"containers": [{"name": "c", "image": "x"}]}}
    with open(os.path.join(WATCH, "whatif-pod.json"), "w") as f:
        json.dump(pod, f)
    try:
        api.wait_until("the new pod in the replay", lambda: "team-a/whatif-new" in SRV.get_json(PATH)["order"])
        status, _, body = post({"policy": "first-fit"})
        assert status == 200 and "team-a/whatif-new" in json.loads(body)["order"]
        assert len(SRV.get_json(PATH)["order"]) == len(before["order"]) + 1
    finally:
        os.remove(os.path.join(WATCH, "whatif-pod.json"))
        api.wait_until("the pod gone", lambda: "team-a/whatif-new" not in SRV.get_json(PATH)["order"])


# --- preempt, gang, fragmentation -----------------------------------------------------------------

WHATIF_DATA = os.path.join(api.ROOT, "tests", "cli", "data", "whatif")
# (scenario file, route, query, the CLI's command and flags for the same answer)
GET_CASES = [
    ("preempt-small.yaml", "/api/v1/whatif/preempt", "pod=team-a/trainer", ["preempt", "--pod", "team-a/trainer"]),
    ("preempt-small.yaml", "/api/v1/whatif/preempt", "pod=team-a/trainer&mode=released",
     ["preempt", "--pod", "team-a/trainer", "--mode", "released"]),
    ("preempt-small.yaml", "/api/v1/whatif/preempt", "pod=team-a/polite", ["preempt", "--pod", "team-a/polite"]),
    ("gang-small.yaml", "/api/v1/whatif/gang", "group=team-a/shared", ["gang", "--group", "team-a/shared"]),
    ("gang-small.yaml", "/api/v1/whatif/gang", "group=team-a/train&policy=most-allocated",
     ["gang", "--group", "team-a/train", "--policy", "most-allocated"]),
    ("gang-small.yaml", "/api/v1/whatif/gang", "group=team-a/big", ["gang", "--group", "team-a/big"]),
    ("fragmentation-partitions.yaml", "/api/v1/whatif/fragmentation", "", ["fragmentation"]),
    ("fragmentation-nodes.yaml", "/api/v1/whatif/fragmentation", "shapePod=team-a/pair",
     ["fragmentation", "--shape-pod", "team-a/pair"]),
    ("fragmentation-nodes.yaml", "/api/v1/whatif/fragmentation", "shapePod=team-a/pair&maxMoves=1&maxTrials=1",
     ["fragmentation", "--shape-pod", "team-a/pair", "--max-moves", "1", "--max-trials", "1"]),
]
SCENARIO_SERVERS = {}


def scenario_server(name):
    """One server per scenario file of tests/cli/data/whatif, started on first use."""
    if name not in SCENARIO_SERVERS:
        srv = api.Server("--scenario", os.path.join(WHATIF_DATA, name), "--rate-limit", "0")
        srv.wait_ready()
        SCENARIO_SERVERS[name] = srv
    return SCENARIO_SERVERS[name]


def cli_whatif(scenario, args):
    """`draforge whatif ARGS -f SCENARIO -o json` (exit 0 or 1: an answer either way)."""
    p = subprocess.run([CLI, "whatif", *args, "-f", os.path.join(WHATIF_DATA, scenario), "-o", "json"],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode in (0, 1), (args, p.returncode, p.stderr)
    return json.loads(p.stdout)


def get(server, path, query):
    status, headers, body = server.request("GET", path + ("?" + query if query else ""))
    api.check_response(path, status, headers, body)
    return status, json.loads(body)


@test
def preempt_gang_and_fragmentation_answer_what_the_cli_prints():
    outcomes = set()
    for scenario, path, query, args in GET_CASES:
        status, got = get(scenario_server(scenario), path, query)
        assert status == 200, (path, query, status, got)
        assert got == cli_whatif(scenario, args), (path, query)
        outcomes.add(got.get("outcome", got.get("fits", "advice" in got)))
    # The cases differ: a preemption, none (released, Never), a gang that fits and one that does not,
    # a report with and without advice.
    assert {"preempt", "no-candidate", "not-eligible", True, False} <= outcomes, outcomes
    status, got = get(scenario_server("preempt-small.yaml"), "/api/v1/whatif/preempt", "pod=team-a/trainer")
    assert (got["node"], [v["pod"] for v in got["victims"]]) == ("node-b", ["team-a/render-1", "team-a/render-2"])
    status, got = get(scenario_server("gang-small.yaml"), "/api/v1/whatif/gang", "group=team-a/big")
    assert (got["fits"], got["blocking"]) == (False, "team-a/big-3"), got
    status, got = get(scenario_server("fragmentation-nodes.yaml"), "/api/v1/whatif/fragmentation", "shapePod=team-a/pair")
    assert got["advice"]["found"] and got["advice"]["moves"], got["advice"]
    # The demo too: its fragmentation report without a shape.
    status, got = get(SRV, "/api/v1/whatif/fragmentation", "")
    assert status == 200 and got["kinds"] and "advice" not in got, got


@test
def bad_queries_are_400_naming_the_parameter_and_unknown_objects_404():
    cases = [
        ("preempt-small.yaml", "/api/v1/whatif/preempt", "", 400, 'query parameter "pod" is required'),
        ("preempt-small.yaml", "/api/v1/whatif/preempt", "pod=", 400, 'query parameter "pod" is required'),
        ("preempt-small.yaml", "/api/v1/whatif/preempt", "pod=team-a/trainer&mode=eager", 400, 'unknown mode "eager"'),
        ("preempt-small.yaml", "/api/v1/whatif/preempt", "pod=a&pod=b", 400, '"pod" is given more than once'),
        ("preempt-small.yaml", "/api/v1/whatif/preempt", "pod=team-a/trainer&node=x", 400,
         'unknown query parameter "node" (allowed: pod, mode)'),
        ("preempt-small.yaml", "/api/v1/whatif/preempt", "pod=team-a/batch-1", 400, "is not pending (bound to node node-a)"),
        ("preempt-small.yaml", "/api/v1/whatif/preempt", "pod=team-a/nope", 404, "pod team-a/nope not found"),
        ("preempt-small.yaml", "/api/v1/whatif/preempt", "pod=team-a/trainer%00x", 400, "must not contain a NUL"),
        ("gang-small.yaml", "/api/v1/whatif/gang", "", 400, 'query parameter "group" is required'),
        ("gang-small.yaml", "/api/v1/whatif/gang", "group=team-a/x&workload=w", 400,
         '"workload" and "template" come together'),
        ("gang-small.yaml", "/api/v1/whatif/gang", "group=team-a/train&policy=best-fit", 400, 'unknown policy "best-fit"'),
        ("gang-small.yaml", "/api/v1/whatif/gang", "group=team-a/nope", 404, "podgroup team-a/nope not found"),
        ("fragmentation-nodes.yaml", "/api/v1/whatif/fragmentation", "shapePod=team-a/nope", 404,
         'pod "team-a/nope" not found'),
        ("fragmentation-nodes.yaml", "/api/v1/whatif/fragmentation", "shapePod=team-a/pair&maxMoves=0", 400,
         '"maxMoves": want a positive integer, not "0"'),
        ("fragmentation-nodes.yaml", "/api/v1/whatif/fragmentation", "shapePod=team-a/pair&maxTrials=1e3", 400,
         '"maxTrials": want a positive integer'),
        ("fragmentation-nodes.yaml", "/api/v1/whatif/fragmentation", "shapePod=team-a/pair&maxMoves=6", 400,
         "6 is over the server's limit of 5"),
        ("fragmentation-nodes.yaml", "/api/v1/whatif/fragmentation", "maxMoves=2", 400, "give shapePod too"),
    ]
    for scenario, path, query, want_status, want in cases:
        status, got = get(scenario_server(scenario), path, query)
        assert status == want_status, (path, query, status, got)
        assert want in got["error"]["message"], (path, query, got)


@test
def the_what_if_routes_change_nothing_and_take_no_other_method():
    srv = scenario_server("preempt-small.yaml")
    before = state(srv)
    for _, path, query, _ in GET_CASES:
        if path == "/api/v1/whatif/preempt":
            assert get(srv, path, query)[0] == 200
    assert state(srv) == before
    for path in ("/api/v1/whatif/preempt", "/api/v1/whatif/gang", "/api/v1/whatif/fragmentation"):
        for method in ("POST", "PUT", "PATCH", "DELETE"):
            status, headers, body = srv.request(method, path + "?pod=team-a/trainer", body=b"{}", headers=JSON)
            assert status == 405 and headers.get("allow") == "GET, HEAD, OPTIONS", (path, method, status, headers)
            api.check_response(path, status, headers, body)
        status, headers, body = srv.request("HEAD", path)
        assert status in (200, 400) and body == b"", (path, status, body[:100])


@test
def the_budget_bounds_preempt_gang_and_fragmentation():
    # preempt-small: 3 nodes and 8 pods (24 pairs); the budget allows 20.
    srv = api.Server("--scenario", os.path.join(WHATIF_DATA, "preempt-small.yaml"), "--rate-limit", "0",
                     "--whatif-max-pairs", "20")
    try:
        srv.wait_ready()
        for path, query in (("/api/v1/whatif/preempt", "pod=team-a/trainer"), ("/api/v1/whatif/gang", "group=a/b"),
                            ("/api/v1/whatif/fragmentation", "")):
            status, got = get(srv, path, query)
            assert status == 400 and "over the server's limit of 20 pod-node pairs" in got["error"]["message"], got
    finally:
        srv.stop()
    # One allocator step per pod and node: no node fits the trainer even with victims gone.
    srv = api.Server("--scenario", os.path.join(WHATIF_DATA, "preempt-small.yaml"), "--rate-limit", "0",
                     "--whatif-max-steps", "1")
    try:
        srv.wait_ready()
        status, got = get(srv, "/api/v1/whatif/preempt", "pod=team-a/trainer")
        assert status == 200 and got["outcome"] == "no-candidate", got
        assert any("step limit of 1" in n["reason"] for n in got["nodes"]), got["nodes"]
    finally:
        srv.stop()


@test
def metrics_count_the_new_routes():
    srv = scenario_server("gang-small.yaml")
    get(srv, "/api/v1/whatif/gang", "group=team-a/train")
    get(srv, "/api/v1/whatif/gang", "group=team-a/nope")
    text = srv.request("GET", "/metrics")[2].decode()
    assert 'draforge_http_requests_total{route="/api/v1/whatif/gang",code="200"}' in text
    assert 'draforge_http_requests_total{route="/api/v1/whatif/gang",code="404"}' in text


WATCH = None


def main():
    global SRV, WATCH
    WATCH = tempfile.mkdtemp()
    SRV = api.Server("--demo", "--watch-dir", WATCH, "--rate-limit", "0")
    try:
        SRV.wait_ready()
        failed = api.run_tap(TESTS)
    finally:
        SRV.stop()
        for srv in SCENARIO_SERVERS.values():
            srv.stop()
        shutil.rmtree(WATCH, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
