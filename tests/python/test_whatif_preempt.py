"""The preemption what-if through the Python package (docs/whatif.md): Snapshot.preempt over the C
ABI's draforge_whatif_preempt_json, its frames, pickling and errors, on
tests/cli/data/whatif/preempt-small.yaml: trainer (priority 1000) evicts render-1 and render-2 on
node-b (they share a claim); node-a would violate PodDisruptionBudget batch; node-c is tainted."""
import os
import pathlib
import pickle

import pytest

import draforge

pd = pytest.importorskip("pandas")

ROOT = pathlib.Path(os.environ.get("DRAFORGE_SOURCE_ROOT") or pathlib.Path(__file__).resolve().parents[2])


@pytest.fixture(scope="module")
def cluster():
    return draforge.Cluster.from_files(ROOT / "tests" / "cli" / "data" / "whatif" / "preempt-small.yaml")


def test_preempt_names_node_and_victims(cluster):
    r = cluster.preempt("team-a/trainer")
    assert (r.outcome, r.node, r.decided_by, r.dra_aware) == ("preempt", "node-b", "fewest PDB violations", True)
    assert r.victim_pods == ["team-a/render-1", "team-a/render-2"]
    assert r.victims[0].claims_freed == ["team-a/shared-gpu"] and r.victims[0].priority == 50
    assert [(c.node, c.pdb_violations) for c in r.candidates] == [("node-a", 1), ("node-b", 0)]
    assert r.candidates[0].victims[0].pdb_violated == "team-a/batch"
    assert [(n.node, n.filter) for n in r.nodes] == [("node-c", "TaintToleration")]


def test_frames(cluster):
    victims, nodes = cluster.snapshot().preempt("team-a/trainer").to_pandas()
    assert list(victims.columns) == draforge.preemption.VICTIM_COLUMNS
    assert victims[victims.chosen].pod.tolist() == ["team-a/render-1", "team-a/render-2"]
    assert victims[~victims.chosen].pdb_violated.tolist() == ["team-a/batch"]
    assert nodes.node.tolist() == ["node-c"]


def test_released_mode_never_policy_pickle_and_errors(cluster):
    released = cluster.preempt("team-a/trainer", dra_aware=False)
    assert released.outcome == "no-candidate" and not released.dra_aware and not released.victims
    assert cluster.preempt("team-a/polite").outcome == "not-eligible"
    r = cluster.preempt("team-a/trainer")
    assert pickle.loads(pickle.dumps(r)) == r
    assert r.to_dict()["victims"][0]["claimsFreed"] == ["team-a/shared-gpu"]
    with pytest.raises(draforge.NotFoundError):
        cluster.preempt("team-a/nope")
    with pytest.raises(draforge.InvalidInputError, match="not pending"):
        cluster.preempt("team-a/batch-1")
