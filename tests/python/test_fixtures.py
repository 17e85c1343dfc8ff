"""The allocator fixture suite (tests/alloc/fixtures) through Python: the same inputs and the same
assertions as the C++ runner (tests/alloc/allocator_fixture_test.cc and explain_test.cc), so the
answers are the C++ API's."""
import pathlib

import pytest

import draforge

yaml = pytest.importorskip("yaml")

FIXTURES = pathlib.Path(__file__).resolve().parents[1] / "alloc" / "fixtures"


def cases(explain):
    return sorted(p for p in FIXTURES.rglob("*.yaml") if (p.parent.name == "explain") == explain)


def load(path):
    docs = [d for d in yaml.safe_load_all(path.read_text()) if d]
    header = next(d for d in docs if d.get("kind") == "AllocatorTestCase")
    claims = header.get("claims")
    if claims is None:
        claims = [f'{d["metadata"].get("namespace", "default")}/{d["metadata"]["name"]}' for d in docs
                  if d.get("kind") == "ResourceClaim" and not (d.get("status") or {}).get("allocation")]
    node = header.get("node") or {}
    return header, claims, node.get("name", ""), node.get("labels") or {}


def mask_share_ids(actual, expected):
    if isinstance(actual, dict) and isinstance(expected, dict):
        for k, v in actual.items():
            if k in expected:
                if k == "shareID" and expected[k] == "*":
                    actual[k] = "*"
                else:
                    mask_share_ids(v, expected[k])
    elif isinstance(actual, list) and isinstance(expected, list):
        for a, e in zip(actual, expected):
            mask_share_ids(a, e)


@pytest.mark.parametrize("path", cases(False), ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_allocate_fixture(path):
    header, claims, node, labels = load(path)
    expect = header["expect"]
    cluster = draforge.Cluster.from_files(path)
    kwargs = dict(features=header.get("featureGates"), node_labels=labels, unlock_locked_gates=True,
                  kubernetes_version=header.get("kubernetesVersion"))
    if expect["outcome"] == "error":
        with pytest.raises(draforge.Error) as info:
            cluster.allocate(claims, node, **kwargs)
        assert expect.get("error", "") in str(info.value)
        return
    r = cluster.allocate(claims, node, **kwargs)
    assert r.outcome == expect["outcome"], r.reasons
    if "reasons" in expect:
        assert r.reasons == expect["reasons"]
    if "maxSearchSteps" in expect:
        assert r.search_steps <= expect["maxSearchSteps"]
    if "allocations" in expect:
        assert set(r.allocations) == set(expect["allocations"]) == set(claims)
        for key, want in expect["allocations"].items():
            got = r.allocations[key]
            mask_share_ids(got, want)
            assert got == want, key


@pytest.mark.parametrize("path", cases(False), ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_allocate_fixture_without_pruning(path):
    """prune_search=False (kube-scheduler's search, step for step) gives the same answer as the
    default pruned search, in no fewer steps."""
    header, claims, node, labels = load(path)
    cluster = draforge.Cluster.from_files(path)
    kwargs = dict(features=header.get("featureGates"), node_labels=labels, unlock_locked_gates=True,
                  kubernetes_version=header.get("kubernetesVersion"))

    def answer(prune):
        try:
            r = cluster.allocate(claims, node, prune_search=prune, **kwargs)
        except draforge.Error as e:
            return ("error", type(e).__name__, str(e)), None
        d = r.to_dict()
        del d["searchSteps"]
        return d, r.search_steps

    pruned, pruned_steps = answer(True)
    unpruned, unpruned_steps = answer(False)
    assert unpruned == pruned
    if pruned_steps is not None:
        assert unpruned_steps >= pruned_steps


@pytest.mark.parametrize("path", cases(True), ids=lambda p: p.stem)
def test_explain_fixture(path):
    header, _, node, labels = load(path)
    want = header["expect"]["explain"]
    cluster = draforge.Cluster.from_files(path)
    ex = cluster.explain(want["claim"], node, features=header.get("featureGates"), node_labels=labels,
                         unlock_locked_gates=True)
    assert ex.outcome != "allocated"
    [req] = [r for r in ex.requests if r.request == want["request"]]
    assert req.first_short == want["firstShort"], req.sentence
    assert want["sentenceContains"] in req.sentence
    assert req.sentence in ex.summary
    counts = [s.remaining for s in req.steps]
    assert counts == sorted(counts, reverse=True)


def test_every_category_runs():
    assert len(cases(False)) >= 40 and len(cases(True)) >= 8
