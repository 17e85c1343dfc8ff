"""Fragmentation and defrag advice through the Python package (docs/whatif.md): Snapshot.fragmentation
over the C ABI's draforge_fragmentation_json, its frames, pickling and errors.

The clusters are tests/cli/data/whatif/fragmentation-partitions.yaml (two partitionable GPUs with one
half taken on each: no whole GPU fits; moving user-b's half onto gpu-0 frees gpu-1) and
fragmentation-nodes.yaml (one GPU free on each of two nodes; pending pod pair needs two on one node)."""
import os
import pathlib
import pickle

import pytest

import draforge

pd = pytest.importorskip("pandas")

ROOT = pathlib.Path(os.environ.get("DRAFORGE_SOURCE_ROOT") or pathlib.Path(__file__).resolve().parents[2])
DATA = ROOT / "tests" / "cli" / "data" / "whatif"


@pytest.fixture(scope="module")
def partitions():
    return draforge.Cluster.from_files(DATA / "fragmentation-partitions.yaml").snapshot()


@pytest.fixture(scope="module")
def nodes():
    return draforge.Cluster.from_files(DATA / "fragmentation-nodes.yaml").snapshot()


def test_scores_without_a_shape(partitions):
    r = partitions.fragmentation()
    assert r.advice is None
    whole = [k for k in r.node("node-a")["kinds"] if k["size"] == "memory=80Gi"][0]
    assert (whole["free"], whole["fit"], whole["ideal"], whole["score"]) == (2, 0, 1, 1.0)
    kinds, cluster, moves = r.to_pandas()
    assert list(kinds.columns) == draforge.fragmentation.KIND_COLUMNS
    assert sorted(kinds["size"]) == ["memory=40Gi", "memory=80Gi"]
    assert kinds.set_index("size").loc["memory=40Gi", "fit"] == 2
    assert len(cluster) == 2 and moves.empty


def test_advice_for_a_claim_shape_as_text(partitions):
    shape = (DATA / "shape-whole-gpu.yaml").read_text()
    r = partitions.fragmentation(shape)
    a = r.advice
    assert a.shape == "resourceclaim team-a/whole-gpu" and not a.fits_now and a.found and a.ok
    assert a.blocked["node-a"].startswith("DynamicResources: ")
    [m] = a.moves
    assert m.pods == ["team-a/user-b"] and (m.from_node, m.to_node) == ("node-a", "node-a")
    assert m.to_devices == ["gpu.example.com/node-a/gpu-0-half-0"]
    assert [x["device"] for x in a.shape_claims["team-a/whole-gpu"]] == ["gpu-1"]
    assert a.search["trials"] == 2
    moves = r.to_pandas().moves
    assert moves.to_dict("records") == [{"step": 1, "pod": "team-a/user-b", "claims": "team-a/half-b",
                                         "from_node": "node-a", "to_node": "node-a",
                                         "from_devices": "gpu.example.com/node-a/gpu-1-half-0",
                                         "to_devices": "gpu.example.com/node-a/gpu-0-half-0"}]


def test_no_advice_within_the_bounds(partitions):
    shape = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
             "metadata": {"name": "two", "namespace": "team-a"},
             "spec": {"spec": {"devices": {"requests": [
                 {"name": "gpus", "exactly": {"deviceClassName": "gpu-whole", "allocationMode": "ExactCount",
                                              "count": 2}}]}}}}
    a = partitions.fragmentation(shape, max_moves=2).advice
    assert not a.found and not a.ok and a.moves == []
    assert a.why.startswith("no set of at most 2 moves")
    assert partitions.fragmentation(shape, max_trials=1).advice.search["budgetExhausted"] is True


def test_advice_for_a_pending_pod_moves_across_nodes(nodes):
    r = nodes.fragmentation(shape_pod="team-a/pair")
    assert r.kinds[0]["largestFit"] == 1 and r.kinds[0]["score"] == 0.5
    [m] = r.advice.moves
    assert (m.pods, m.from_node, m.to_node) == (["team-a/small-a"], "node-a", "node-b")
    assert r.advice.shape_node == "node-a"
    again = pickle.loads(pickle.dumps(r))
    assert again == r and again.advice.moves == r.advice.moves


def test_errors(nodes):
    with pytest.raises(draforge.NotFoundError):
        nodes.fragmentation(shape_pod="team-a/nope")
    with pytest.raises(draforge.InvalidInputError):
        nodes.fragmentation("kind: Node\napiVersion: v1\nmetadata: {name: x}\n")
    with pytest.raises(draforge.InvalidInputError):
        nodes.fragmentation(shape_pod="team-a/pair", max_moves=0)
