"""The inventory views, diagnostics and graph queries of a snapshot (draforge/inventory.h through
the Python package): the documents of draforge-server's routes, on examples/scenarios/demo.yaml."""
import json

import pytest

import draforge


@pytest.fixture
def demo(root):
    return draforge.Cluster.from_files(root / "examples" / "scenarios" / "demo.yaml")


@pytest.fixture
def openapi(root):
    return json.loads((root / "examples" / "server" / "openapi.json").read_text())["components"]["schemas"]


def test_summary_counts_and_utilisation(demo, openapi):
    s = demo.inventory.summary()
    assert set(openapi["Summary"]["required"]) <= set(s)
    assert s["snapshot"]["generation"] == demo.snapshot().generation
    assert s["counts"]["pendingClaims"] == 1 and s["counts"]["allocatedClaims"] == 4
    gpu = next(d for d in s["drivers"] if d["driver"] == "gpu.example.com")
    assert (gpu["devices"], gpu["allocatedDevices"], gpu["utilisation"]) == (12, 3, 0.25)


def test_pools_filter_by_driver_and_node(demo, openapi):
    pools = demo.inventory.pools(driver="gpu.example.com")["items"]
    assert [p["pool"] for p in pools] == ["node-1", "node-2", "node-3"]
    assert set(openapi["Pool"]["required"]) <= set(pools[0])
    on_node_3 = demo.inventory.pools(node="node-3")["items"]
    assert [(p["driver"], p["pool"]) for p in on_node_3] == [("gpu.example.com", "node-3"),
                                                             ("mig.example.com", "node-3-mig")]


def test_devices_filter_and_page(demo):
    held = demo.inventory.devices(driver="gpu.example.com", allocated=True)
    assert held["total"] == 3
    assert [(d["pool"], d["name"]) for d in held["items"]] == [("node-1", "gpu-0"), ("node-1", "gpu-1"),
                                                               ("node-2", "gpu-3")]
    free = demo.inventory.devices(driver="gpu.example.com", allocated=False)
    assert free["total"] == 12 - 3
    page = demo.inventory.devices(offset=2, limit=2)
    everything = demo.inventory.devices()
    assert page["total"] == everything["total"] == 17
    assert [d["id"] for d in page["items"]] == [d["id"] for d in everything["items"][2:4]]
    with pytest.raises(draforge.InvalidInputError):
        demo.inventory.devices(limit=10_001)


def test_claims_by_state(demo):
    pending = demo.inventory.claims(state="pending")["items"]
    assert [(c["namespace"], c["name"]) for c in pending] == [("team-a", "big-h100")]
    assert len(demo.inventory.claims(namespace="team-a")["items"]) == 5
    assert demo.inventory.claims(namespace="nobody")["items"] == []
    with pytest.raises(ValueError, match="state"):
        demo.inventory.claims(state="stuck")


def test_changes_since_an_earlier_snapshot(demo):
    before = demo.snapshot()
    assert demo.delete("ResourceClaim", "mig-half", "team-a")
    after = demo.snapshot()
    event = after.inventory.changes_since(before)
    assert event["previousGeneration"] == before.generation and event["generation"] == after.generation
    assert event["changes"] == [{"type": "DELETED", "kind": "ResourceClaim", "namespace": "team-a",
                                 "name": "mig-half"}]
    assert after.inventory.changes_since(after)["changes"] == []


def test_diagnostics_name_the_pending_claim_and_why(demo, openapi):
    d = demo.diagnostics()
    assert set(openapi["Diagnostics"]["required"]) <= set(d)
    (big,) = d["pending"]
    assert (big["namespace"], big["name"]) == ("team-a", "big-h100")
    assert big["consumers"] == ["team-a/finetune-0"]
    assert "only 4 devices match class h100.gpu.example.com, 8 needed" in big["summary"]
    assert demo.diagnostics(namespace="nobody")["pending"] == []
    # One claim's diagnosis is its entry of the full document.
    assert demo.diagnose("team-a/big-h100") == big


def test_diagnose_errors(demo):
    with pytest.raises(KeyError):
        demo.diagnose("team-a/nobody")
    with pytest.raises(ValueError):
        demo.diagnose("team-a/mig-half")  # allocated: nothing to diagnose


def test_graph_filtered_by_node_namespace_driver(demo):
    whole = {n["id"] for n in demo.graph().nodes}
    node_1 = {n["id"] for n in demo.graph(node="node-1").nodes}
    assert "Pod/team-a/train-0" in node_1 and "Device/gpu.example.com/node-1/gpu-0" in node_1
    assert not any(i.startswith("Pool/") and i != "Pool/gpu.example.com/node-1" for i in node_1)
    assert node_1 < whole
    nic = {n["id"] for n in demo.graph(driver="nic.example.com").nodes}
    assert "Device/nic.example.com/fabric/nic-0" in nic and not any("gpu.example.com/" in i for i in nic)
    assert demo.graph(namespace="nobody").nodes == []
    # all_devices=False drops the free devices here too.
    used = {n["id"] for n in demo.graph(node="node-1", all_devices=False).nodes if n["kind"] == "Device"}
    assert used == {"Device/gpu.example.com/node-1/gpu-0", "Device/gpu.example.com/node-1/gpu-1"}


def test_snapshot_resource_version(demo):
    assert demo.snapshot().resource_version == ""  # files carry none
    demo.apply({"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass",
                "metadata": {"name": "x", "resourceVersion": "42"}})
    assert demo.snapshot().resource_version == "42"


def test_render_graph_as_the_cli_prints_it(demo):
    dot = demo.render_graph("dot", node="node-1")
    assert dot.startswith("digraph") and '"Pod/team-a/train-0"' in dot
    assert '"Pool/gpu.example.com/node-2"' not in dot
    text = demo.render_graph("text")
    assert "team-a/train-0" in text and "gpu-0" in text
    # The JSON rendering and graph()'s filter keep the same nodes.
    rendered = json.loads(demo.render_graph("json", node="node-1", all_devices=False))
    assert {n["id"] for n in rendered["nodes"]} == {n["id"] for n in demo.graph(node="node-1", all_devices=False).nodes}
    with pytest.raises(ValueError, match="svg"):
        demo.render_graph("svg")


def test_pool_status_counts_as_kube_controller_manager(demo):
    # The demo's GPUs: 4 per node, 3 allocated (2 on node-1, 1 on node-2), none tainted.
    status = demo.inventory.pool_status("gpu.example.com", now="2026-12-02T13:00:00Z")
    assert status["poolCount"] == 3
    assert [p["poolName"] for p in status["pools"]] == ["node-1", "node-2", "node-3"]
    assert sum(p["totalDevices"] for p in status["pools"]) == 12
    assert sum(p["allocatedDevices"] for p in status["pools"]) == 3
    assert sum(p["unavailableDevices"] for p in status["pools"]) == 0
    for p in status["pools"]:
        assert p["availableDevices"] == p["totalDevices"] - p["allocatedDevices"] - p["unavailableDevices"]
        assert p["nodeName"] == p["poolName"]
    assert status["conditions"] == [{"type": "Complete", "status": "True",
                                     "lastTransitionTime": "2026-12-02T13:00:00Z",
                                     "reason": "CalculationComplete", "message": "Calculated status for 3 pools"}]
    # The fabric NICs: nic-0 shared (100G of 400G consumed), nic-1 tainted NoSchedule.
    fabric = demo.inventory.pool_status("nic.example.com")["pools"][0]
    assert (fabric["totalDevices"], fabric["allocatedDevices"], fabric["unavailableDevices"],
            fabric["availableDevices"]) == (2, 1, 1, 0)
    assert "nodeName" not in fabric
    assert fabric["shareableSummary"] == {
        "fullyAvailableDevices": 0, "partiallyAvailableDevices": 1,
        "capacity": [{"name": "bandwidth", "total": "400G", "consumed": "100G", "available": "300G"}]}
    one = demo.inventory.pool_status("gpu.example.com", limit=1, pool="node-2")
    assert one["poolCount"] == 1 and [p["poolName"] for p in one["pools"]] == ["node-2"]
    assert demo.inventory.pool_status("none.example.com")["poolCount"] == 0
    with pytest.raises(draforge.InvalidInputError):
        demo.inventory.pool_status("gpu.example.com", limit=1001)
    with pytest.raises(draforge.InvalidInputError):
        demo.inventory.pool_status("")
