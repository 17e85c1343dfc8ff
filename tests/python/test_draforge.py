"""The draforge package as a notebook user meets it: loading, bad input (every error class),
allocation, explain, CEL, graph export, pools, and the optional pandas/networkx views."""
import json
import os
import threading

import pytest

import draforge
from draforge import _errors

CLUSTER = """
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu.example.com}
spec:
  selectors:
  - cel: {expression: 'device.driver == "gpu.example.com"'}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: node-1-gpus}
spec:
  driver: gpu.example.com
  nodeName: node-1
  pool: {name: node-1, generation: 1, resourceSliceCount: 1}
  devices:
  - {name: gpu-0, attributes: {model: {string: a100}}}
  - {name: gpu-1, attributes: {model: {string: a100}}}
  - {name: gpu-2, attributes: {model: {string: h100}}}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: two, namespace: team-a}
spec:
  devices:
    requests:
    - name: gpus
      exactly: {deviceClassName: gpu.example.com, count: 2}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: four, namespace: team-a}
spec:
  devices:
    requests:
    - name: gpus
      exactly: {deviceClassName: gpu.example.com, count: 4}
"""


@pytest.fixture
def cluster():
    return draforge.Cluster.from_yaml(CLUSTER)


# --- loading -----------------------------------------------------------------------------------


def test_version_matches_the_library():
    assert draforge.__version__ == draforge.version()
    assert draforge.kubernetes_version() == "1.37"


def test_from_yaml_loads_every_object(cluster):
    snap = cluster.snapshot()
    assert snap.count("ResourceClaim") == 2
    assert snap.count("resourceslices") == 1
    assert snap.count("NoSuchKind") == 0
    assert snap.generation == 4


def test_from_files_reads_files_and_directories(root, tmp_path):
    (tmp_path / "a.yaml").write_text(CLUSTER)
    (tmp_path / "ignored.txt").write_text("not yaml")
    c = draforge.Cluster.from_files(tmp_path)
    assert c.snapshot().count("ResourceClaim") == 2
    demo = draforge.Cluster.from_files(root / "examples" / "scenarios" / "demo.yaml")
    assert demo.snapshot().count("ResourceSlice") == 6
    assert demo.snapshot().count("Pod") == 3


def test_corpus_manifests_load(corpus):
    slices = sorted((corpus / "slices").glob("dra-example-driver-readme-*.yaml"))
    assert slices
    c = draforge.Cluster.from_files(slices)
    assert c.snapshot().count("ResourceSlice") >= 1


def test_apply_accepts_dicts_lists_and_text(cluster):
    claim = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
             "metadata": {"name": "one", "namespace": "team-b"},
             "spec": {"devices": {"requests": [{"name": "g", "exactly": {"deviceClassName": "gpu.example.com"}}]}}}
    assert cluster.apply(claim) == 1
    other = dict(claim, metadata={"name": "other", "namespace": "team-b"})
    assert cluster.apply([other]) == 1
    assert cluster.apply(json.dumps(dict(claim, metadata={"name": "third", "namespace": "team-b"}))) == 1
    assert cluster.snapshot().count("ResourceClaim") == 5
    got = cluster.get("ResourceClaim", "one", namespace="team-b")
    assert got["spec"]["devices"]["requests"][0]["exactly"]["deviceClassName"] == "gpu.example.com"


def test_objects_are_v1_dicts(cluster):
    classes = cluster.objects("DeviceClass")
    assert [c["metadata"]["name"] for c in classes] == ["gpu.example.com"]
    assert classes[0]["apiVersion"] == "resource.k8s.io/v1"
    kinds = {o["kind"] for o in cluster.objects()}
    assert kinds == {"DeviceClass", "ResourceSlice", "ResourceClaim"}


def test_snapshots_are_immutable(cluster):
    before = cluster.snapshot()
    assert cluster.delete("ResourceClaim", "four", namespace="team-a") is True
    assert cluster.delete("ResourceClaim", "four", namespace="team-a") is False
    assert before.count("ResourceClaim") == 2
    assert cluster.snapshot().count("ResourceClaim") == 1


def test_beta_versions_are_converted(corpus):
    c = draforge.Cluster.from_files(corpus / "api-fixtures" / "resource.k8s.io.v1beta1.DeviceClass.yaml")
    [dc] = c.objects("DeviceClass")
    assert dc["apiVersion"] == "resource.k8s.io/v1"


# --- errors: one class per C code ---------------------------------------------------------------


def test_the_translation_table_covers_every_code():
    expected = {-1: (draforge.InvalidInputError, ValueError), -2: (draforge.NotFoundError, KeyError),
                -3: (draforge.UnsupportedError, ValueError), -4: (draforge.LimitError, draforge.Error),
                -5: (draforge.InternalError, draforge.Error), -6: (draforge.ApiError, draforge.Error),
                -7: (draforge.UnavailableError, ConnectionError), -8: (draforge.FileSystemError, OSError)}
    for code, (cls, builtin) in expected.items():
        e = _errors.from_c(code, "msg", "ResourceSlice/x", "spec.driver")
        assert type(e) is cls and isinstance(e, builtin) and isinstance(e, draforge.Error)
        assert (e.code, e.message, e.object, e.field, str(e)) == (code, "msg", "ResourceSlice/x", "spec.driver", "msg")
    assert type(_errors.from_c(-99, "newer library")) is draforge.Error
    conflict = _errors.from_c(-6, "conflict", status_code=409, reason="Conflict")
    assert (conflict.status_code, conflict.reason) == (409, "Conflict")


def test_the_translation_table_matches_common_h(root):
    # Every draforge_error_code of the C header has its class; codes are never reused.
    import re
    header = (root / "include" / "draforge" / "common.h").read_text()
    codes = {int(v) for v in re.findall(r"DRAFORGE_E[A-Z]+ = (-\d+)", header)}
    assert codes and codes == set(_errors.ERRORS)


def test_bad_field_is_value_error_naming_object_and_field():
    with pytest.raises(ValueError) as info:
        draforge.Cluster.from_yaml("apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\n"
                                   "metadata: {name: x}\nspec: {driver: 7}\n")
    e = info.value
    assert isinstance(e, draforge.InvalidInputError)
    assert e.object == "ResourceSlice/x"
    assert e.field == "spec.driver"
    assert "spec.driver" in str(e)


def test_syntax_error_is_value_error():
    with pytest.raises(draforge.InvalidInputError):
        draforge.Cluster.from_yaml("{not json")


def test_apply_is_all_or_nothing(cluster):
    bad = [{"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "fine"}},
           {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "bad"},
            "spec": {"selectors": 3}}]
    with pytest.raises(draforge.InvalidInputError) as info:
        cluster.apply(bad)
    assert info.value.object == "DeviceClass/bad"
    assert cluster.snapshot().count("DeviceClass") == 1


def test_unsupported_version_is_unsupported():
    with pytest.raises(draforge.UnsupportedError) as info:
        draforge.Cluster.from_yaml("apiVersion: resource.k8s.io/v9\nkind: DeviceClass\nmetadata: {name: x}\n")
    assert isinstance(info.value, ValueError)
    assert "unsupported apiVersion" in str(info.value)


def test_unknown_kind_is_unsupported(cluster):
    with pytest.raises(draforge.UnsupportedError):
        cluster.objects("Deployment")


def test_missing_things_are_key_errors(cluster, tmp_path):
    with pytest.raises(KeyError) as info:
        cluster.get("ResourceClaim", "nope", namespace="team-a")
    assert isinstance(info.value, draforge.NotFoundError)
    assert info.value.object == "ResourceClaim/team-a/nope"
    with pytest.raises(draforge.NotFoundError):
        cluster.allocate("team-a/nope", "node-1")
    with pytest.raises(draforge.NotFoundError):
        cluster.explain("team-a/nope")
    with pytest.raises(draforge.NotFoundError):
        draforge.Cluster.from_files(tmp_path / "missing.yaml")


def test_search_limit_is_limit_error(cluster):
    # "two" fits, after more than one search step ("four" cannot: the allocator's bound refuses it
    # at the first step, before any limit).
    with pytest.raises(draforge.LimitError) as info:
        cluster.allocate("team-a/two", "node-1", max_steps=1)
    assert not isinstance(info.value, ValueError)


def test_bad_feature_gates():
    with pytest.raises(draforge.InvalidInputError, match="unrecognized feature gate: DRANope"):
        draforge.feature_gates({"DRANope": True})
    with pytest.raises(draforge.InvalidInputError, match="locked"):
        draforge.feature_gates("DRAPrioritizedList=false")
    with pytest.raises(draforge.InvalidInputError):
        draforge.feature_gates({"DRAAdminAccess": "yes"})
    assert draforge.feature_gates("DRAPrioritizedList=false", unlock_locked_gates=True)["DRAPrioritizedList"] is False


def test_default_feature_gates_are_137s():
    gates = draforge.feature_gates()
    assert gates["DRAPrioritizedList"] and gates["DRAConsumableCapacity"] and gates["DRAPartitionableDevices"]
    assert gates["DRAListTypeAttributes"] is False
    assert draforge.feature_gates({"DRAListTypeAttributes": True})["DRAListTypeAttributes"] is True


def test_wrong_argument_types_are_value_errors(cluster):
    with pytest.raises(ValueError):
        cluster.apply(42)
    with pytest.raises(ValueError):
        cluster.allocate([3], "node-1")


# --- allocation and explain ---------------------------------------------------------------------


def test_allocate_fits(cluster):
    r = cluster.allocate(["team-a/two"], "node-1")
    assert r.fits and bool(r) and r.outcome == "allocated"
    assert [d.device_id for d in r.devices] == ["gpu.example.com/node-1/gpu-0", "gpu.example.com/node-1/gpu-1"]
    alloc = r.allocations["team-a/two"]
    assert alloc["nodeSelector"]["nodeSelectorTerms"][0]["matchFields"][0]["values"] == ["node-1"]
    d = r.to_dict()
    assert d["outcome"] == "allocated" and d["searchSteps"] == r.search_steps > 0


def test_allocate_accepts_claim_dicts(cluster):
    claim = cluster.get("ResourceClaim", "two", namespace="team-a")
    assert cluster.allocate(claim, "node-1").fits


def test_does_not_fit_is_a_result(cluster):
    r = cluster.allocate("team-a/four", "node-1")
    assert not r.fits and r.outcome == "unschedulable"
    assert r.reasons[0] == "cannot allocate all claims"
    assert r.allocations == {} and r.devices == []
    assert not cluster.allocate("team-a/two", "node-2").fits


# Eight interchangeable GPUs on one PCIe root; "job" wants four of them plus a NIC on the same root,
# whose only NIC is in use: unsatisfiable. kube-scheduler tries every placement of the GPUs first:
# dra-allocate (k8s.io/dynamic-resource-allocation v0.37.2, tests/oracle) counts 233 search steps
# for "job" and 7 for "fits" on this input.
# Shared with tests/capi/capi_test.cc: eight interchangeable GPUs, a NIC in use (see the file).
TWINS = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "capi", "data", "prune-twins.yaml"),
             encoding="utf-8").read()


@pytest.fixture
def twins():
    return draforge.Cluster.from_yaml(TWINS)


def without_steps(result):
    d = result.to_dict()
    del d["searchSteps"]
    return d


def test_prune_search_off_is_upstreams_search_with_the_same_answer(twins):
    pruned = twins.allocate("job", "node-1")
    unpruned = twins.allocate("job", "node-1", prune_search=False)
    assert not pruned.fits and pruned.reasons == ["cannot allocate all claims"]
    assert without_steps(pruned) == without_steps(unpruned)
    assert unpruned.search_steps == 233  # upstream's count (see TWINS)
    assert pruned.search_steps * 10 <= unpruned.search_steps
    assert twins.allocate("job", "node-1", prune_search=True).search_steps == pruned.search_steps


def test_prune_search_keeps_the_devices(twins):
    pruned = twins.allocate("fits", "node-1")
    unpruned = twins.allocate("fits", "node-1", prune_search=False)
    assert [d.device for d in pruned.devices] == ["gpu-0", "gpu-1", "gpu-2", "gpu-3"]
    assert without_steps(pruned) == without_steps(unpruned)
    assert unpruned.search_steps == 7  # upstream's count (see TWINS)


def test_max_steps_counts_the_steps_of_the_chosen_search(twins):
    # A budget the pruned search stays within and kube-scheduler's does not.
    assert twins.allocate("job", "node-1", max_steps=100).outcome == "unschedulable"
    with pytest.raises(draforge.LimitError, match="aborted"):
        twins.allocate("job", "node-1", max_steps=100, prune_search=False)


def test_explain_pending_claim(cluster):
    ex = cluster.explain("team-a/four", "node-1")
    assert ex.claim == "team-a/four" and ex.node == "node-1" and ex.outcome == "unschedulable"
    [req] = ex.requests
    assert req.request == "gpus" and req.needed == 4 and req.device_class == "gpu.example.com"
    assert req.first_short is not None
    assert req.steps[0].remaining == 3
    assert req.sentence in ex.summary and str(ex) == ex.summary
    assert ex.to_dict()["requests"][0]["needed"] == 4
    assert cluster.explain("team-a/two", "node-1").summary == "claim team-a/two fits on node node-1"


def test_explain_names_a_claim_level_conflict():
    # Both requests fit alone but need the same device (tests/cli/data/claim-conflict.yaml).
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cli", "data", "claim-conflict.yaml")
    with open(path, encoding="utf-8") as f:
        ex = draforge.Cluster.from_yaml(f.read()).explain("default/pair", "node-1")
    assert ex.outcome == "unschedulable"
    assert all(r.first_short is None for r in ex.requests)
    [c] = ex.conflicts
    assert isinstance(c, draforge.ClaimConflict)
    assert (c.kind, c.requests, c.subject) == ("same-device", ["first", "second"], "gpu.example.com/node-1/gpu-0")
    assert c.sentence in ex.summary
    assert ex.to_dict()["conflicts"][0]["kind"] == "same-device"


def _cli_data(name):
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cli", "data", name)
    with open(path, encoding="utf-8") as f:
        return draforge.Cluster.from_yaml(f.read())


def test_explain_without_a_node_gives_the_verdict_per_node():
    # default/train fits on node-d only; the other nodes each lack it for their own reason
    # (tests/cli/data/explain-nodes.yaml).
    ex = _cli_data("explain-nodes.yaml").explain("default/train")
    assert [v.node for v in ex.nodes] == ["node-a", "node-b", "node-c", "node-d"]
    assert all(isinstance(v, draforge.NodeVerdict) for v in ex.nodes)
    assert ex.fits_on == ["node-d"]
    assert (ex.nodes_total, ex.nodes_truncated, ex.node_source) == (4, False, "nodes")
    assert ex.nodes_summary == "claim default/train fits on 1 of 4 nodes: node-d"
    by_node = {v.node: v for v in ex.nodes}
    assert (by_node["node-d"].fits, by_node["node-d"].outcome, by_node["node-d"].reason) == (True, "allocated", "")
    assert 'step "request"' in by_node["node-a"].reason
    assert 'step "taints"' in by_node["node-b"].reason and "example.com/maintenance" in by_node["node-b"].reason
    assert 'step "capacity"' in by_node["node-c"].reason
    assert not any(v.fits for v in ex.nodes if v.node != "node-d")
    assert ex.to_dict()["nodes"][3] == {"node": "node-d", "fits": True, "outcome": "allocated", "reason": ""}


def test_explain_without_a_node_groups_the_nodes_that_do_not_fit_by_reason():
    ex = _cli_data("explain-nodes.yaml").explain("default/train")
    assert all(isinstance(g, draforge.NodeGroup) for g in ex.node_groups)
    assert sorted(n for g in ex.node_groups for n in g.nodes) == ["node-a", "node-b", "node-c"]
    for g in ex.node_groups:  # the node's own name is "the node" in a group's reason
        assert not any(n in g.reason for n in ("node-a", "node-b", "node-c")), g.reason
    by_node = {v.node: v.reason for v in ex.nodes}
    [taints] = [g for g in ex.node_groups if g.nodes == ["node-b"]]
    assert taints.reason == by_node["node-b"].replace("node node-b", "the node")
    assert ex.to_dict()["node_groups"][0].keys() == {"reason", "nodes"}
    # With a node there are no verdicts, so no groups.
    assert _cli_data("explain-nodes.yaml").explain("default/train", "node-a").node_groups == []


def test_explain_without_a_node_names_the_conflict_on_the_only_node():
    ex = _cli_data("claim-conflict.yaml").explain("default/pair")
    [v] = ex.nodes
    assert (v.node, v.fits, v.outcome) == ("node-1", False, "unschedulable")
    assert v.reason == "requests first and second both need device gpu.example.com/node-1/gpu-0"
    assert ex.fits_on == [] and ex.nodes_summary.startswith("claim default/pair fits on no node (0 of 1): node-1: ")
    # With a node: no verdicts, as before.
    on_node = _cli_data("claim-conflict.yaml").explain("default/pair", "node-1")
    assert on_node.nodes == [] and on_node.nodes_summary == "" and on_node.nodes_total == 0


def test_gil_is_released_and_threads_agree(cluster):
    snap = cluster.snapshot()
    results = []

    def work():
        for _ in range(20):
            results.append(snap.allocate("team-a/two", "node-1").fits)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == [True] * 80


# --- graph and pools ----------------------------------------------------------------------------


def test_graph_export(cluster):
    g = cluster.graph()
    ids = {n["id"] for n in g.nodes}
    assert {"ResourceClaim/team-a/two", "DeviceClass/gpu.example.com", "ResourceSlice/node-1-gpus",
            "Device/gpu.example.com/node-1/gpu-0", "Pool/gpu.example.com/node-1"} <= ids
    assert g.node("ResourceClaim/team-a/two")["kind"] == "ResourceClaim"
    with pytest.raises(KeyError):
        g.node("Pod/x/y")
    kinds = {(e["from"], e["to"], e["kind"]) for e in g.edges}
    assert ("ResourceClaim/team-a/two", "DeviceClass/gpu.example.com", "claimClass") in kinds
    assert g.to_dict()["snapshot"]["generation"] == 4


def test_graph_shows_allocations(root):
    c = draforge.Cluster.from_files(root / "examples" / "scenarios" / "demo.yaml")
    g = c.graph(all_devices=False)
    allocation_edges = [e for e in g.edges if e["kind"] == "allocation"]
    assert allocation_edges and all(e["to"].startswith("Device/") for e in allocation_edges)


def test_graph_queries_follow_edges(root):
    g = draforge.Cluster.from_files(root / "examples" / "scenarios" / "demo.yaml").graph()
    # Pod -> its claims -> the devices allocated to them; and back from a device to its claim.
    claims = g.successors("Pod/team-a/train-0", "podClaim")
    assert [c["id"] for c in claims] == ["ResourceClaim/team-a/train-0"]
    devices = g.successors("ResourceClaim/team-a/train-0", "allocation")
    assert [d["id"] for d in devices] == ["Device/gpu.example.com/node-1/gpu-0", "Device/gpu.example.com/node-1/gpu-1"]
    assert [c["id"] for c in g.predecessors("Device/gpu.example.com/node-1/gpu-1", "allocation")] == [
        "ResourceClaim/team-a/train-0"]
    # A pending claim holds no device; the pools of node-3 lead to it.
    assert g.successors("ResourceClaim/team-a/big-h100", "allocation") == []
    assert [p["id"] for p in g.predecessors("Node/node-3")] == [
        "Pool/gpu.example.com/node-3", "Pool/mig.example.com/node-3-mig"]
    # Without a kind, every edge counts, each neighbour once.
    everything = [n["id"] for n in g.successors("ResourceClaim/team-a/train-0")]
    assert len(everything) == len(set(everything)) and "Device/gpu.example.com/node-1/gpu-0" in everything
    with pytest.raises(KeyError):
        g.successors("Pod/team-a/nobody")


def test_graph_to_networkx(cluster):
    nx = pytest.importorskip("networkx")
    g = cluster.graph().to_networkx()
    assert isinstance(g, nx.MultiDiGraph)
    assert g.nodes["ResourceClaim/team-a/two"]["kind"] == "ResourceClaim"
    assert nx.has_path(g, "ResourceSlice/node-1-gpus", "Pool/gpu.example.com/node-1")


def test_pools_and_utilisation(root):
    c = draforge.Cluster.from_files(root / "examples" / "scenarios" / "demo.yaml")
    pools = c.pools()
    assert pools and all(p.devices >= p.allocated >= 0 for p in pools)
    assert any(p.allocated > 0 for p in pools)
    busy = next(p for p in pools if p.allocated)
    assert busy.utilisation == busy.allocated / busy.devices and busy.free == busy.devices - busy.allocated
    assert busy.to_dict()["driver"] == busy.driver


def test_to_pandas(cluster):
    pytest.importorskip("pandas")
    df = cluster.allocate("team-a/two", "node-1").to_pandas()
    assert list(df["device"]) == ["gpu-0", "gpu-1"]
    funnel = cluster.explain("team-a/four", "node-1").to_pandas()
    assert list(funnel.columns) == ["request", "step", "remaining", "detail"] and len(funnel) > 0
    nodes, edges = cluster.graph().to_pandas()
    assert "id" in nodes.columns and "kind" in edges.columns


# --- CEL ----------------------------------------------------------------------------------------

A100 = {"driver": "gpu.example.com", "attributes": {"model": {"string": "a100"}}, "capacity": {"memory": {"value": "80Gi"}}}


def test_cel_selector_matches():
    s = draforge.cel.compile('device.attributes["gpu.example.com"].model == "a100"')
    assert s.matches(A100)
    assert not s.matches(dict(A100, attributes={"model": {"string": "h100"}}))
    r = s.evaluate(A100)
    assert r.matches and r.cost > 0
    assert s.estimated_cost > 0 and s.expression.startswith("device.")


def test_cel_capacity_and_quantity():
    s = draforge.cel.compile('device.capacity["gpu.example.com"].memory.compareTo(quantity("40Gi")) >= 0')
    assert s.matches(A100)


def test_cel_compile_error_is_value_error():
    with pytest.raises(ValueError, match="undeclared reference to 'devce'"):
        draforge.cel.compile("devce.driver == 'x'")


def test_cel_runtime_error_is_not_a_mismatch():
    s = draforge.cel.compile('device.attributes["gpu.example.com"].model == "a100"')
    with pytest.raises(draforge.InvalidInputError, match="runtime error"):
        s.matches({"driver": "gpu.example.com"})


def test_cel_bad_device_names_the_field():
    s = draforge.cel.compile("device.driver == 'x'")
    with pytest.raises(draforge.InvalidInputError, match="device: "):
        s.matches({"driver": "x", "attributes": {"model": {"string": 7}}})


def test_cel_evaluate_any_type():
    v = draforge.cel.evaluate("[1, 2, 3].map(x, x * 2)")
    assert (v.value, v.type) == ("[2, 4, 6]", "list(int)")
    assert v.to_dict()["estimatedCost"] == v.estimated_cost
    with pytest.raises(draforge.InvalidInputError, match="no such attribute"):
        draforge.cel.evaluate("device.driver")


def test_cel_cost_limit():
    with pytest.raises(draforge.Error) as info:
        draforge.cel.evaluate("[1,2,3,4,5,6,7,8].map(x, [1,2,3,4,5,6,7,8].map(y, x * y))", cost_limit=10)
    assert isinstance(info.value, (draforge.LimitError, draforge.InvalidInputError))
    assert "cost" in str(info.value)
