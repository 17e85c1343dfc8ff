"""Package catalogs through the Python package (draforge/package.h): validation with field paths,
expansion into a ResourceClaim and a Pod, capacity per package on examples/scenarios/demo.yaml with
examples/packages/catalog.yaml, pod prototypes for how_many_more, and the platform inventory."""
import pytest

import draforge
from draforge import packages


@pytest.fixture
def demo(root):
    return draforge.Cluster.from_files(root / "examples" / "scenarios" / "demo.yaml").snapshot()


@pytest.fixture
def catalog(root):
    return root / "examples" / "packages" / "catalog.yaml"


def test_validate_lists_packages_and_problems_against_the_cluster(demo, catalog):
    check = packages.validate_catalog(catalog, demo)
    assert check.ok and check.problems == []
    assert [p.id for p in check.packages][:2] == ["gpu-a100-1x-cpu8-mem64g", "gpu-a100-2x-cpu16-mem128g"]
    one = check.packages[1]
    assert (one.cpu, one.memory, one.gpu, one.device_class_name, one.count) == ("16", "128Gi", 2,
                                                                                "a100.gpu.example.com", 2)
    other = packages.validate_catalog(
        "packages:\n- {id: x, cpu: '1', memory: 1Gi, gpu: 1, allocation: "
        "{deviceClassName: nvidia-rtx-3080, claimRequestName: gpu, count: 1}}\n", demo)
    assert not other.ok
    assert other.problems == ['packages[0].allocation.deviceClassName: Not found: "nvidia-rtx-3080" '
                              "(no DeviceClass of that name in the cluster)"]


def test_bad_catalog_raises_with_field_paths():
    with pytest.raises(draforge.InvalidInputError) as e:
        packages.validate_catalog("packages:\n- {id: x, cpu: '1', memory: 1Gi, gpu: 2, allocation: "
                                  "{deviceClassName: gpu, claimRequestName: gpu, count: 3}}\n")
    assert "packages[0].allocation.count: Invalid value: 3: must equal gpu (2)" in str(e.value)


def test_expand_gives_a_claim_and_a_pod_that_uses_it(catalog):
    claim, pod = packages.expand_package(catalog, "gpu-a100-2x-cpu16-mem128g", "trainer-1",
                                         namespace="team-a", image="registry.example/trainer:1.0")
    assert claim["kind"] == "ResourceClaim" and claim["metadata"]["name"] == "trainer-1-gpu"
    assert claim["spec"]["devices"]["requests"][0]["exactly"]["count"] == 2
    assert pod["kind"] == "Pod" and pod["metadata"]["namespace"] == "team-a"
    assert pod["spec"]["resourceClaims"] == [{"name": "gpu", "resourceClaimName": "trainer-1-gpu"}]
    [container] = pod["spec"]["containers"]
    assert container["resources"]["claims"] == [{"name": "gpu"}]
    assert container["resources"]["requests"] == {"cpu": "16", "memory": "128Gi"}
    assert "nvidia.com/gpu" not in str(pod)
    with pytest.raises(draforge.NotFoundError):
        packages.expand_package(catalog, "nope", "x", image="i")


def test_capacity_per_package_and_node(demo, catalog):
    caps = {c.id: c for c in packages.package_capacity(demo, catalog, namespace="team-a")}
    a100 = caps["gpu-a100-1x-cpu8-mem64g"].capacity
    assert a100.per_node == {"node-1": 2, "node-2": 3, "node-3": 0}
    assert a100.total == 5 and a100.resources_checked
    assert [n.limited_by for n in a100.nodes] == ["devices", "devices", "devices"]
    h100 = caps["gpu-h100-1x-cpu24-mem96g"].capacity
    assert h100.per_node["node-3"] == 2
    node3 = h100.nodes[2]
    assert node3.limited_by == "cpu" and node3.why == "cpu: 24 requested, 14 free (allocatable 62)"
    cpu_only = caps["cpu-only-cpu4-mem16g"].capacity
    assert cpu_only.total == sum(cpu_only.per_node.values()) == 45
    only = packages.package_capacity(demo, catalog, id="gpu-h100-4x-cpu32-mem256g")
    assert [c.id for c in only] == ["gpu-h100-4x-cpu32-mem256g"] and only[0].capacity.total == 1


def test_pod_prototype_through_how_many_more(demo):
    # finetune-0 uses claim big-h100 (eight H100s, else four) and requests nothing: devices bind.
    r = demo.how_many_more(pod="team-a/finetune-0")
    assert r.prototype == "pod team-a/finetune-0"
    assert r.per_node == {"node-1": 0, "node-2": 0, "node-3": 1}
    assert r.resources_checked
    with pytest.raises(draforge.InvalidInputError):
        demo.how_many_more(claim="team-a/big-h100", pod="team-a/finetune-0")


def test_platform_inventory(demo):
    inv = packages.platform_inventory(demo)
    assert set(inv) >= {"totalGpuAllocatable", "draClaimCount", "draAllocatedClaims", "draAllocatedDevices",
                        "draResourceSlices", "draDevices", "namespaces"}
    assert inv["draClaimCount"] == 5 and inv["draAllocatedClaims"] == 4
    assert inv["namespaces"]["team-a"]["draClaimCount"] == 5
