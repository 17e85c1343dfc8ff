"""Cluster-wide placement through the Python package (draforge/place.h): on which nodes a pod fits,
why it does not fit elsewhere, and how many more claims like one fit, on examples/scenarios/demo.yaml
and on the dra-example-driver's published ResourceSlices and example from the shared corpus."""
import pytest

import draforge


@pytest.fixture
def demo(root):
    return draforge.Cluster.from_files(root / "examples" / "scenarios" / "demo.yaml").snapshot()


def test_pod_with_a_pending_claim_fits_where_its_devices_are(demo):
    p = demo.place("team-a/finetune-0")
    assert p.fits and bool(p)
    assert p.pod == "team-a/finetune-0"
    assert p.node_source == "nodes"
    assert p.fitting_nodes == ["node-3"]
    assert [n.node for n in p.nodes] == ["node-1", "node-2", "node-3"]
    assert [(c.name, c.claim, c.source, c.allocated, c.found) for c in p.claims] == [
        ("gpus", "team-a/big-h100", "claim", False, True)]
    fits = p.node("node-3")
    assert fits.outcome == "allocated" and fits.reasons == [] and fits.why == ""
    [allocation] = fits.allocations
    assert allocation["claim"] == "team-a/big-h100" and allocation["existing"] is False
    # The prioritized list's first choice (eight H100s) is had nowhere; node-3 gives the second (four).
    results = allocation["allocation"]["devices"]["results"]
    assert [r["request"] for r in results] == ["gpus/four"] * 4
    no = p.node("node-1")
    assert not no.fits and no.outcome == "unschedulable"
    # The reason a node does not fit names the claim, each alternative of the request and what
    # removed the devices: the H100s are on node-3, not reachable from node-1.
    assert no.why == ("claim team-a/big-h100: request gpus/eight: only 4 devices match class h100.gpu.example.com, "
                      "8 needed; request gpus/four: 4 devices match class h100.gpu.example.com, 0 left after step "
                      '"node" (4 not reachable from node node-1), 4 needed')
    assert no.reasons == ["cannot allocate all claims"]  # kube-scheduler's words
    with pytest.raises(KeyError):
        p.node("node-9")


def test_allocated_claims_pin_the_pod_to_their_node(demo):
    p = demo.place("team-a/notebook-0")  # its template's claim is allocated on node-2
    assert p.fitting_nodes == ["node-2"]
    [claim] = p.claims
    assert (claim.source, claim.template, claim.allocated) == ("template", "one-a100", True)
    assert p.node("node-2").allocations[0]["existing"] is True
    assert "already allocated and the allocation's node selector does not select node" in p.node("node-1").why


def test_place_errors_and_options(demo):
    with pytest.raises(draforge.NotFoundError):
        demo.place("team-a/nobody")
    with pytest.raises(draforge.InvalidInputError):
        demo.place("team-a/finetune-0", features={"NoSuchGate": True})
    with pytest.raises(draforge.InvalidInputError):
        demo.place(42)
    # A pod dict names the pod; max_steps bounds the search per node: a node past it is an "error"
    # outcome, not an exception.
    bounded = demo.place({"metadata": {"name": "finetune-0", "namespace": "team-a"}}, max_steps=1)
    assert bounded.fitting_nodes == []
    assert {n.outcome for n in bounded.nodes} == {"error"}
    assert all(n.error for n in bounded.nodes)


def test_how_many_more_claims_fit_and_where(demo):
    more = demo.how_many_more("team-a/train-0")
    assert more.prototype == "resourceclaim team-a/train-0"
    assert (more.total, more.stop, int(more)) == (2, "exhausted", 2)
    assert more.per_node == {"node-1": 1, "node-2": 1, "node-3": 0}
    assert [(c.claim, c.node) for c in more.copies] == [("team-a/train-0-more-1", "node-1"),
                                                        ("team-a/train-0-more-2", "node-2")]
    # Why the next one does not fit: every A100 is taken.
    assert all(n.why.startswith("request gpus: 8 devices match class a100.gpu.example.com") for n in more.nodes)
    template = demo.how_many_more(template="team-a/one-a100")
    assert template.prototype == "resourceclaimtemplate team-a/one-a100"
    assert template.per_node == {"node-1": 2, "node-2": 3, "node-3": 0}
    capped = demo.how_many_more(template="team-a/one-a100", cap=3)
    assert (capped.total, capped.stop, capped.cap) == (3, "cap", 3)


def test_how_many_more_errors(demo):
    with pytest.raises(draforge.NotFoundError):
        demo.how_many_more("team-a/nobody")
    with pytest.raises(draforge.NotFoundError):
        demo.how_many_more(template="team-a/nobody")
    with pytest.raises(draforge.InvalidInputError):
        demo.how_many_more()
    with pytest.raises(draforge.InvalidInputError):
        demo.how_many_more("team-a/train-0", template="team-a/one-a100")
    with pytest.raises(draforge.InvalidInputError):
        demo.how_many_more("team-a/train-0", cap=-1)


GPU_CLASS = {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "gpu.example.com"},
             "spec": {"selectors": [{"cel": {"expression": 'device.driver == "gpu.example.com"'}}]}}


@pytest.fixture
def example_driver(corpus):
    # The dra-example-driver's README slices (8 GPUs on one kind worker) and its
    # basic-resourceclaimtemplate example (two pods, one GPU each from a template).
    c = draforge.Cluster.from_files(corpus / "slices" / "dra-example-driver-readme-resourceslice-list.yaml",
                                    corpus / "manifests" / "dra-example-driver" / "examples" /
                                    "basic-resourceclaimtemplate" / "basic-resourceclaimtemplate.yaml")
    c.apply(GPU_CLASS)
    return c


def test_corpus_pod_from_a_template_fits_on_the_worker(example_driver):
    p = example_driver.place("basic-resourceclaimtemplate/pod0")
    assert p.node_source == "slices"  # no Node objects: the nodes the slices name
    assert p.fitting_nodes == ["dra-example-driver-cluster-worker"]
    [claim] = p.claims
    assert (claim.name, claim.source, claim.template, claim.found) == (
        "gpu", "template-instantiated", "single-gpu", True)
    [allocation] = p.node("dra-example-driver-cluster-worker").allocations
    [result] = allocation["allocation"]["devices"]["results"]
    assert (result["driver"], result["pool"], result["device"]) == (
        "gpu.example.com", "dra-example-driver-cluster-worker", "gpu-0")


def test_corpus_how_many_more_counts_the_worker_gpus(example_driver):
    more = example_driver.how_many_more(template="basic-resourceclaimtemplate/single-gpu")
    assert (more.total, more.stop) == (8, "exhausted")
    assert more.per_node == {"dra-example-driver-cluster-worker": 8}
    assert "all 8 are allocated" in more.nodes[0].why
    # Without the DeviceClass nothing can be placed, and placement says why instead of failing.
    example_driver.delete("DeviceClass", "gpu.example.com")
    p = example_driver.place("basic-resourceclaimtemplate/pod0")
    assert p.fitting_nodes == []
    assert "gpu.example.com" in p.node("dra-example-driver-cluster-worker").why
