"""draforge.cdi: specs for the claims on a node, validation, atomic writing."""
import json

import pytest

import draforge


@pytest.fixture
def cluster(root):
    # Claim team-a/train holding node-1's two GPUs: the C ABI's CDI suites load the same file.
    return draforge.Cluster.from_files(root / "tests" / "capi" / "data" / "train-allocated.yaml")


def test_generate_one_spec_per_claim(cluster):
    specs = draforge.cdi.generate(cluster, "node-1")
    assert len(specs) == 1 and specs.failed == []
    [s] = specs.specs
    assert s.claim == "team-a/train" and s.driver == "gpu.example.com"
    assert "6f1c7c4e-0000-4000-8000-000000000001" in s.file_name and s.file_name.endswith(".json")
    assert len(s.cdi_device_ids["gpus"]) == 2
    assert all(i.startswith(s.document["kind"] + "=") for i in s.cdi_device_ids["gpus"])
    assert draforge.cdi.validate(s.document).valid
    assert json.dumps(specs.to_dict())


def test_other_node_has_no_specs(cluster):
    assert len(draforge.cdi.generate(cluster.snapshot(), "node-2")) == 0
    with pytest.raises(draforge.InvalidInputError):
        draforge.cdi.generate(cluster, "")


def test_write_is_whole_and_idempotent(cluster, tmp_path):
    specs = draforge.cdi.generate(cluster, "node-1")
    report = specs.write(tmp_path)
    name = specs.specs[0].file_name
    assert report.written == [name]
    assert json.loads((tmp_path / name).read_text()) == specs.specs[0].document
    assert specs.write(tmp_path).unchanged == [name]
    (tmp_path / "someone-else.json").write_text("{}")
    # The claim is gone: its file is removed, other files stay.
    cluster.delete("ResourceClaim", "train", namespace="team-a")
    assert draforge.cdi.generate(cluster, "node-1").write(tmp_path).removed == [name]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["someone-else.json"]


def test_a_directory_the_system_refuses_is_an_os_error(cluster, tmp_path):
    # A path through a regular file (ENOTDIR): the operating system's refusal, not a DRAForge bug.
    (tmp_path / "a-file").write_text("x")
    target = tmp_path / "a-file" / "cdi"
    with pytest.raises(OSError) as info:
        draforge.cdi.generate(cluster, "node-1").write(target)
    assert isinstance(info.value, draforge.FileSystemError) and info.value.code == -8
    assert str(target) in str(info.value)


def test_validate_reports_problems_as_a_result():
    r = draforge.cdi.validate("cdiVersion: 0.3.0\nkind: example.com/gpu\ndevices:\n- name: ''\n  containerEdits: {}\n")
    assert not r.valid and not r
    assert any(p.path.startswith("$.devices[0]") for p in r.problems)
    assert str(r.problems[0]).startswith("$.")
