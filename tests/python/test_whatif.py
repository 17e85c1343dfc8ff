"""What-if through the Python package (docs/whatif.md): Snapshot.replay over the C ABI's
draforge_replay_json, its frames, pickling of snapshots, results and errors, the variant edits, and
draforge.whatif.sweep serially and on a dask.distributed LocalCluster with two worker processes.

The cluster is tests/cli/data/whatif/replay-small.yaml, whose replay docs/whatif.md walks through:
urgent (priority 1000) takes node-a's gpu-0, early node-a's gpu-1, late (two GPUs) node-c, big (four
GPUs) and huge (8 cpu) stay pending."""
import os
import pathlib
import pickle

import pytest

import draforge
from draforge.whatif import DeleteNode, DeletePods, Variant, sweep

pd = pytest.importorskip("pandas")

ROOT = pathlib.Path(os.environ.get("DRAFORGE_SOURCE_ROOT") or pathlib.Path(__file__).resolve().parents[2])
ORDER = ["team-a/urgent", "team-a/early", "team-a/late", "team-a/big", "team-a/huge"]


@pytest.fixture(scope="module")
def small():
    return draforge.Cluster.from_files(ROOT / "tests" / "cli" / "data" / "whatif" / "replay-small.yaml").snapshot()


def test_replay_places_pending_pods_in_queue_order(small):
    r = small.replay()
    assert r.policy == "first-fit" and r.order == ORDER
    assert r.nodes == {"team-a/urgent": "node-a", "team-a/early": "node-a", "team-a/late": "node-c"}
    assert r.pending_pods == ["team-a/big", "team-a/huge"] and not r.all_placed
    late = r.pod("team-a/late")
    [claim] = late.claims
    assert claim.claim.startswith("team-a/late-gpus-") and claim.existing is False
    assert [(x["pool"], x["device"]) for x in claim.results] == [("node-c", "gpu-0"), ("node-c", "gpu-1")]
    huge = r.pod("team-a/huge")
    assert [n.node for n in huge.nodes] == ["node-a", "node-b", "node-c"]
    # The pods before it took one cpu each on their nodes; held-user holds one on node-b.
    assert huge.reason("node-a") == "cpu: 8 requested, 2 free (allocatable 4)"
    assert huge.reason("node-c") == "cpu: 8 requested, 3 free (allocatable 4)"
    assert {n.filter for n in huge.nodes} == {"NodeResourcesFit"}
    assert {n.filter for n in r.pod("team-a/big").nodes} == {"DynamicResources"}
    # Every node each placed pod fit on at its turn; first fit took the first.
    assert r.pod("team-a/urgent").feasible == ["node-a", "node-b", "node-c"]
    assert late.feasible == ["node-c"]
    assert "8 devices match class gpu, 5 are allocated" in r.pod("team-a/big").reason("node-c")
    with pytest.raises(KeyError):
        r.pod("team-a/done")  # terminal: not pending, not replayed
    with pytest.raises(KeyError):
        huge.reason("node-z")
    # The snapshot is not changed: a second replay is the same, and nothing got bound.
    assert small.replay() == r
    assert all(not (p.get("spec") or {}).get("nodeName") for p in small.objects("Pod")
               if p["metadata"]["name"] in ("urgent", "early", "late"))
    empty = draforge.Cluster().replay()
    assert (empty.order, empty.placed, empty.pending, empty.all_placed) == ([], [], [], True)


def test_policies_choose_among_fitting_nodes(small):
    assert small.replay("most-allocated").nodes["team-a/urgent"] == "node-b"  # its second GPU fills node-b
    assert small.replay(policy="least-allocated").nodes["team-a/urgent"] == "node-c"
    assert small.replay(explain=False).nodes == small.replay().nodes


def test_replay_errors(small):
    with pytest.raises(draforge.InvalidInputError, match="unknown policy"):
        small.replay("best-fit")
    with pytest.raises(draforge.InvalidInputError):
        small.replay(features={"NoSuchGate": True})
    with pytest.raises(draforge.InvalidInputError):
        small.replay(kubernetes_version="1.2")
    with pytest.raises(draforge.InvalidInputError):
        small.replay(None)
    broken = draforge.Cluster()
    broken.apply({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "creationTimestamp": "yesterday"},
                  "spec": {"containers": [{"name": "c", "image": "i"}]}})
    with pytest.raises(ValueError, match="default/p"):
        broken.replay()


def test_frames(small):
    r = small.replay()
    placements, pending = r.to_pandas()
    assert list(placements.columns) == draforge.whatif.PLACEMENT_COLUMNS
    assert list(pending.columns) == draforge.whatif.PENDING_COLUMNS
    # One row per device: urgent 1, early 1, late 2.
    assert placements["pod"].tolist() == ["team-a/urgent", "team-a/early", "team-a/late", "team-a/late"]
    assert placements["position"].tolist() == [0, 1, 2, 2]
    assert placements[["node", "pool", "device"]].values.tolist() == [
        ["node-a", "node-a", "gpu-0"], ["node-a", "node-a", "gpu-1"], ["node-c", "node-c", "gpu-0"],
        ["node-c", "node-c", "gpu-1"]]
    assert set(placements["driver"]) == {"gpu.example.com"} and set(placements["request"]) == {"gpus"}
    # One row per pending pod and node.
    assert len(pending) == 6 and pending.groupby("pod").size().to_dict() == {"team-a/big": 3, "team-a/huge": 3}
    assert pending[pending.pod == "team-a/huge"].reason.str.startswith("cpu: 8 requested").all()
    assert set(pending[pending.pod == "team-a/huge"]["filter"]) == {"NodeResourcesFit"}
    assert r.to_pandas().placements.equals(placements)  # a NamedTuple: by name too
    # A pod without claims has one row with no device.
    c = draforge.Cluster()
    c.apply([{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n"},
              "status": {"allocatable": {"cpu": "1", "memory": "1Gi", "pods": "10"}}},
             {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "plain", "namespace": "x"},
              "spec": {"containers": [{"name": "c", "image": "i"}]}}])
    rows = c.replay().to_pandas().placements
    assert rows[["pod", "node"]].values.tolist() == [["x/plain", "n"]] and rows["device"].isna().all()


def test_to_dict_is_the_c_abi_shape(small):
    d = small.replay().to_dict()
    assert set(d) == {"policy", "order", "placed", "pending"}
    assert d["placed"][0]["claims"][0]["results"][0]["device"] == "gpu-0"
    assert d["pending"][1]["nodes"][0] == {"node": "node-a", "filter": "NodeResourcesFit",
                                           "reason": "cpu: 8 requested, 2 free (allocatable 4)"}
    assert d["placed"][2]["feasible"] == ["node-c"]
    assert draforge.ReplayResult._from_json(d) == small.replay()


def test_snapshot_pickles_as_its_objects(small):
    clone = pickle.loads(pickle.dumps(small))
    assert isinstance(clone, draforge.Snapshot) and clone is not small
    assert clone == small and clone.objects() == small.objects()
    assert clone.replay() == small.replay()
    other = draforge.Cluster()
    other.apply(small.objects("Node"))
    assert other.snapshot() != small
    assert small != "not a snapshot"
    with pytest.raises(TypeError):
        hash(small)


def test_results_and_errors_pickle(small):
    results = [small.replay(), small.place("team-a/big"), small.how_many_more(template="team-a/one-gpu"),
               small.allocate("team-a/held", "node-b"), small.explain("team-a/held"), small.graph(), small.pools()]
    for r in results:
        assert pickle.loads(pickle.dumps(r)) == r
    frames = pickle.loads(pickle.dumps(small.replay().to_pandas()))
    assert frames.pending.equals(small.replay().to_pandas().pending)
    with pytest.raises(draforge.InvalidInputError) as info:
        small.replay("best-fit")
    e = pickle.loads(pickle.dumps(info.value))
    assert type(e) is draforge.InvalidInputError and e.code == -1 and str(e) == str(info.value)


def test_edits(small):
    objects = small.objects()
    without_a = DeleteNode("node-a")(objects)
    names = {(o["kind"], o["metadata"]["name"]) for o in without_a}
    assert ("Node", "node-a") not in names and ("ResourceSlice", "node-a-gpus") not in names
    assert ("Node", "node-b") in names and len(objects) - len(without_a) == 2
    without_b = DeleteNode("node-b")(objects)
    assert ("Pod", "held-user") not in {(o["kind"], o["metadata"]["name"]) for o in without_b}  # bound there
    assert len(objects) == len(small.objects())  # edits do not change their input
    pods = {o["metadata"]["name"] for o in DeletePods(names=("big", "team-a/huge"))(objects) if o["kind"] == "Pod"}
    assert "big" not in pods and "huge" not in pods and "urgent" in pods
    assert {o["metadata"]["name"] for o in DeletePods()(objects) if o["kind"] == "Pod"} == {
        "held-user", "done", "other-scheduler"}  # bound, terminal, another scheduler's
    assert DeletePods()(objects) == DeletePods(names=tuple(ORDER))(objects)
    assert DeletePods(namespace="team-b")(objects) == objects
    v = Variant("no node-a, no big", edits=(DeleteNode("node-a"), DeletePods(names=("big",))))
    r = v.replay(small)
    assert r.nodes == {"team-a/urgent": "node-b", "team-a/early": "node-c", "team-a/late": "node-c"}
    assert r.pending_pods == ["team-a/huge"]
    assert Variant("base").snapshot(small) is small
    assert pickle.loads(pickle.dumps(v)) == v


def variants():
    """20 variants: three policies, each node deleted or none, some with the pending pod set reduced,
    one with a feature gate and one at another Kubernetes version."""
    out = []
    for policy in draforge.whatif.POLICIES:
        for node in (None, "node-a", "node-b", "node-c"):
            edits = () if node is None else (DeleteNode(node),)
            out.append(Variant(f"{policy}/{node or '-'}", edits=edits, policy=policy))
    for pods in (("big",), ("urgent",), ("urgent", "early"), ("huge",)):
        out.append(Variant(f"without {'+'.join(pods)}", edits=(DeletePods(names=pods),)))
    out.append(Variant("gates", features={"DRADeviceTaints": False}))
    out.append(Variant("1.34", kubernetes_version="1.34", policy="least-allocated"))
    out.append(Variant("1.36", kubernetes_version="1.36", policy="most-allocated", edits=(DeleteNode("node-c"),)))
    out.append(Variant("bounded", max_steps=1, explain=False))
    assert len(out) == 20
    return out


def test_sweep_serial_is_the_variants_replayed_one_by_one(small):
    vs = variants()
    frame = sweep(small, vs)
    assert list(frame.columns) == ["variant", "policy", "pods", "placed", "pending", "devices"]
    assert frame["variant"].tolist() == [v.name for v in vs]
    for v, row in zip(vs, frame.itertuples(index=False)):
        r = v.replay(small)
        assert (row.policy, row.pods, row.placed, row.pending) == (r.policy, len(r.order), len(r.placed),
                                                                  len(r.pending))
    base = frame.set_index("variant")
    assert base.loc["first-fit/-", ["placed", "pending", "devices"]].tolist() == [3, 2, 4]
    assert base.loc["without urgent+early", "pods"] == 3
    placements = sweep(small, vs[:2], frame="placements")
    expect = pd.concat([vs[0].replay(small).to_pandas().placements, vs[1].replay(small).to_pandas().placements],
                       ignore_index=True)
    assert placements.drop(columns="variant").equals(expect)
    assert sweep(small, [], frame="pending").empty
    assert list(sweep(small, [], frame="pending").columns) == ["variant"] + draforge.whatif.PENDING_COLUMNS
    with pytest.raises(draforge.InvalidInputError):
        sweep(small, vs, frame="everything")


def test_sweep_on_dask_equals_the_serial_frames(small):
    distributed = pytest.importorskip("distributed")
    vs = variants()
    serial = {f: sweep(small, vs, frame=f) for f in draforge.whatif.SWEEP_FRAMES}
    # Two worker processes: the snapshot, the variants and the frames cross process boundaries pickled.
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0",
                                  worker_dashboard_address=":0") as cluster, distributed.Client(cluster) as client:
        for f in draforge.whatif.SWEEP_FRAMES:
            pd.testing.assert_frame_equal(sweep(small, vs, client, frame=f), serial[f])
        pd.testing.assert_frame_equal(sweep(small, vs, client, batch_size=1), serial["summary"])
        # An error in one variant is raised here as the draforge exception it was.
        with pytest.raises(draforge.InvalidInputError, match="unknown policy"):
            sweep(small, vs[:3] + [Variant("bad", policy="best-fit")], client)


def test_c_abi_edits_on_a_copy(small):
    # drain node-b and add one copy of node-c: the C ABI's edits (draforge_whatif_edit), as the CLI's.
    edited = small.edit(draforge.whatif.drain_node("node-b"), draforge.whatif.add_nodes("node-c", 1))
    assert edited.changes == [
        "drain-node node-b: cordoned; 1 pod pending again (team-a/held-user); 1 claim deallocated (team-a/held)",
        "add-nodes node-c: 1 node added (node-c-whatif-1) with 1 ResourceSlice each",
    ]
    assert edited.snapshot.get("Node", "node-c-whatif-1")["metadata"]["name"] == "node-c-whatif-1"
    assert edited.snapshot.get("Node", "node-b")["spec"]["unschedulable"] is True
    r = edited.snapshot.replay()
    assert r.nodes["team-a/big"] == "node-c-whatif-1" and "team-a/held-user" in r.nodes
    # The snapshot edited is not changed.
    assert not small.get("Node", "node-b").get("spec", {}).get("unschedulable")
    with pytest.raises(draforge.NotFoundError):
        small.edit(draforge.whatif.drain_node("node-z"))
    with pytest.raises(draforge.InvalidInputError):
        small.edit({"op": "paint-node", "name": "node-a"})


def test_variants_mix_c_abi_and_python_edits(small):
    v = draforge.whatif.Variant("bigger", edits=(draforge.whatif.add_nodes("node-c", 1),
                                                 draforge.whatif.DeletePods(names=("team-a/huge",)),
                                                 draforge.whatif.delete_claim("team-a/held")))
    r = v.replay(small)
    assert "team-a/huge" not in r.order
    assert r.nodes["team-a/big"] == "node-c"  # node-c first in name order, its four GPUs free
    assert draforge.whatif.run_variants(small, [v]).loc[0, "placed"] == len(r.placed)


def test_template_nodes_taints_and_class_edits(small):
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "gpu-group"},
            "status": {"allocatable": {"cpu": "16", "memory": "64Gi", "pods": "110"}}}
    pool = {"apiVersion": "sim.draforge.io/v1alpha1", "kind": "SimulatedDevicePool", "metadata": {"name": "g"},
            "spec": {"profile": "example-gpu", "nodes": {"allNodes": True}, "devicesPerNode": 4}}
    rule = {"apiVersion": "resource.k8s.io/v1alpha3", "kind": "DeviceTaintRule", "metadata": {"name": "recall"},
            "spec": {"deviceSelector": {"driver": "gpu.example.com", "pool": "node-a"},
                     "taint": {"key": "example.com/recall", "effect": "NoSchedule"}}}
    edited = small.edit(draforge.whatif.add_template_nodes(node, 2, simulated_device_pools=[pool]),
                        draforge.whatif.taint_devices(rule))
    assert edited.changes[0].startswith("add-nodes gpu-group (template): 2 nodes added")
    assert len(edited.snapshot.objects("ResourceSlice")) == len(small.objects("ResourceSlice")) + 2
    r = edited.snapshot.replay()
    assert "node-a" not in {p.node for p in r.placed}
    assert r.nodes["team-a/huge"] == "gpu-group-whatif-1"
    blocked = small.edit(draforge.whatif.set_class_selectors("gpu", "device.driver == 'other.example.com'"))
    assert blocked.changes == ["set-class-selectors gpu: 1 selector replaced by 1"]
    assert blocked.snapshot.replay().nodes == {}
