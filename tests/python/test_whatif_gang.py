"""Gang placement through the Python package (docs/whatif.md, "Gang placement"): Snapshot.gang over
the C ABI's draforge_gang_json on tests/cli/data/whatif/gang-small.yaml, its frames, pickling and
errors."""
import os
import pathlib
import pickle

import pytest

import draforge

pd = pytest.importorskip("pandas")

ROOT = pathlib.Path(os.environ.get("DRAFORGE_SOURCE_ROOT") or pathlib.Path(__file__).resolve().parents[2])


@pytest.fixture(scope="module")
def small():
    return draforge.Cluster.from_files(ROOT / "tests" / "cli" / "data" / "whatif" / "gang-small.yaml").snapshot()


def test_gang_that_fits_lists_member_node_and_devices(small):
    g = small.gang("team-a/train")
    assert g.fits and g.policy == "gang" and g.min_count == 2 and g.blocking == "" and g.status == ""
    assert g.nodes == {"team-a/train-0": "node-a", "team-a/train-1": "node-a"}
    assert g.placed[0].feasible == ["node-a", "node-b", "node-c"]
    devices = [(r["pool"], r["device"]) for p in g.placed for c in p.claims for r in c.results]
    assert devices == [("node-a", "gpu-0"), ("node-a", "gpu-1")]


def test_blocked_gang_names_the_member_and_its_reasons(small):
    g = small.gang("team-a/big")
    assert not g.fits and g.blocking == "team-a/big-3"
    assert g.status == "minCount (4) cannot be satisfied: 3 scheduled, 0 remaining"
    [q] = g.unschedulable
    assert q.pod == "team-a/big-3" and [n.node for n in q.nodes] == ["node-a", "node-b", "node-c"]
    assert q.nodes[0].filter == "DynamicResources"
    members, reasons = g.to_pandas()
    assert list(members.columns) == ["position", "pod", "outcome", "node", "devices"]
    assert list(members["outcome"]) == ["placed", "placed", "placed", "unschedulable"]
    assert list(reasons["node"]) == ["node-a", "node-b", "node-c"]


def test_group_claim_is_shared_and_pins_members(small):
    g = small.gang("team-a/shared")
    [gc] = g.group_claims
    assert gc.name == "fabric" and gc.source == "template-instantiated" and gc.allocated_by == "team-a/shared-0"
    assert gc.members == ["team-a/shared-0", "team-a/shared-1"]
    assert [(r["pool"], r["device"]) for r in gc.results] == [("node-b", "port-0")]
    assert set(g.nodes.values()) == {"node-b"} and g.blocking == "team-a/shared-2"


def test_result_pickles_and_round_trips_to_the_c_abi_shape(small):
    g = small.gang("team-a/shared")
    assert pickle.loads(pickle.dumps(g)) == g
    d = g.to_dict()
    assert d["groupClaims"][0]["allocatedBy"] == "team-a/shared-0"
    assert d["unschedulable"][0]["nodes"][0]["filter"] == "DynamicResources"


def test_errors(small):
    with pytest.raises(KeyError):
        small.gang("team-a/nope")
    with pytest.raises(draforge.InvalidInputError):
        small.gang("a/b/c")
    with pytest.raises(draforge.InvalidInputError):
        small.gang("team-a/train", workload="w")
