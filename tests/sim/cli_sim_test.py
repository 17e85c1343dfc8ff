#!/usr/bin/env python3
"""The simulation commands of the draforge CLI: sim expand, sim profiles, fault inject|list|clear, and
the offline checks of scenario apply|reset (what users and scripts rely on: output, exit status,
messages, files left untouched on error).

Usage: cli_sim_test.py PATH_TO_DRAFORGE   (run by `meson test`; DRAFORGE_SOURCE_ROOT is set there)
"""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
import tap  # noqa: E402

DRAFORGE = sys.argv.pop(1) if len(sys.argv) > 1 else "build/examples/cli/draforge"
ROOT = os.environ.get("DRAFORGE_SOURCE_ROOT", os.path.join(os.path.dirname(__file__), "..", ".."))
TESTDATA = os.path.join(ROOT, "tests", "sim", "testdata")
DEMO_SIM = os.path.join(ROOT, "examples", "scenarios", "demo-sim")
PROFILES = ["example-gpu", "example-gpu-partitionable", "example-gpu-consumable", "example-net", "nvidia-gpu",
            "nvidia-gpu-mig", "google-tpu", "cpu-individual", "cpu-grouped", "custom"]


def run(*args, stdin=None):
    p = subprocess.run([DRAFORGE, *args], input=stdin, capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout, p.stderr


def read(path):
    with open(path) as f:
        return f.read()


POOL = """apiVersion: sim.draforge.io/v1alpha1
kind: SimulatedDevicePool
metadata:
  name: gpus
spec:
  profile: nvidia-gpu
  nodes:
    names: [node-1, node-2]
  devicesPerNode: 2
"""


class Expand(unittest.TestCase):
    def test_every_profile_matches_its_golden_file(self):
        for profile in PROFILES:
            with self.subTest(profile=profile):
                code, out, err = run("sim", "expand", "-f", os.path.join(TESTDATA, "pools", profile + ".yaml"))
                self.assertEqual(code, 0, err)
                self.assertEqual(out, read(os.path.join(TESTDATA, "golden", profile + ".yaml")))

    def test_same_input_twice_is_byte_identical(self):
        a = run("sim", "expand", "-f", DEMO_SIM)
        b = run("sim", "expand", "-f", DEMO_SIM)
        self.assertEqual(a[0], 0, a[2])
        self.assertEqual(a, b)
        self.assertIn("kind: ResourceSlice", a[1])

    def test_json_output_is_a_list(self):
        code, out, err = run("sim", "expand", "-f", "-", "-o", "json", stdin=POOL)
        self.assertEqual(code, 0, err)
        self.assertIn('"kind": "List"', out)
        self.assertEqual(out.count('"kind": "ResourceSlice"'), 2)

    def test_expanded_slices_allocate_with_draforge_allocate(self):
        code, slices, err = run("sim", "expand", "-f", DEMO_SIM)
        self.assertEqual(code, 0, err)
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "slices.yaml")
            with open(path, "w") as f:
                f.write(slices)
            scenario = os.path.join(DEMO_SIM, "scenario.yaml")
            code, out, err = run("allocate", "-f", path, "-f", scenario, "--node", "node-1", "--claim",
                                 "sim-demo/mig-mix", "-o", "text")
            self.assertEqual(code, 0, out + err)
            self.assertIn("gpu-0-mig-3g20gb-9-4", out)
            code, out, err = run("allocate", "-f", path, "-f", scenario, "--node", "node-1", "--claim",
                                 "sim-demo/three-halves", "-o", "text")
            self.assertEqual(code, 1, out + err)

    def test_profiles_lists_every_profile(self):
        code, out, err = run("sim", "profiles")
        self.assertEqual(code, 0, err)
        for profile in PROFILES:
            self.assertIn(profile, out)


class BadInput(unittest.TestCase):
    def expect_refused(self, pool, message):
        code, out, err = run("sim", "expand", "-f", "-", stdin=pool)
        self.assertEqual(code, 2, err)
        self.assertEqual(out, "", "nothing is printed when the input is bad")
        self.assertIn(message, err)

    def test_unknown_profile(self):
        self.expect_refused(POOL.replace("nvidia-gpu", "nvidia-h200"),
                            'SimulatedDevicePool "gpus": spec.profile: Unsupported value: "nvidia-h200"')

    def test_300_devices_on_one_node(self):
        self.expect_refused(POOL.replace("nvidia-gpu", "example-gpu").replace("devicesPerNode: 2", "devicesPerNode: 300"),
                            "spec.devicesPerNode: Invalid value: 300: dra-example-driver publishes all GPUs of a node "
                            "in one ResourceSlice, and a ResourceSlice holds at most 128 devices")

    def test_override_that_breaks_validation(self):
        self.expect_refused(POOL + "  attributes:\n    productName: {string: " + "x" * 70 + "}\n",
                            'ResourceSlice.resource.k8s.io "gpus-node-1-0" is invalid: '
                            "[spec.devices[0].attributes[productName].string: Too long: may not be more than 64 bytes")

    def test_one_bad_pool_stops_the_good_ones(self):
        bad = POOL.replace("name: gpus", "name: bad").replace("nvidia-gpu", "nope")
        self.expect_refused(POOL + "---\n" + bad, 'SimulatedDevicePool "bad"')

    def test_unknown_subcommand(self):
        code, _, err = run("sim", "explode")
        self.assertEqual(code, 2)
        self.assertIn('unknown subcommand "explode"', err)


class Faults(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.path = os.path.join(self.dir, "pool.yaml")
        with open(self.path, "w") as f:
            f.write(POOL)

    def tearDown(self):
        shutil.rmtree(self.dir)

    def test_inject_list_clear_restores_the_slices(self):
        before = run("sim", "expand", "-f", self.path)
        code, _, err = run("fault", "inject", "-f", self.path, "--name", "xid79", "--type", "xid", "--node", "node-2",
                           "--device", "gpu-1", "--xid", "79", "--in-place")
        self.assertEqual(code, 0, err)
        code, out, err = run("fault", "list", "-f", self.path)
        self.assertEqual(code, 0, err)
        self.assertIn("XID 79: taint gpu.nvidia.com/xid=79 on gpu-1 of node-2", out)
        during = run("sim", "expand", "-f", self.path)
        self.assertIn("key: gpu.nvidia.com/xid", during[1])
        self.assertNotEqual(during, before)
        code, _, err = run("fault", "clear", "-f", self.path, "--name", "xid79", "--in-place")
        self.assertEqual(code, 0, err)
        self.assertEqual(run("sim", "expand", "-f", self.path), before)
        code, out, err = run("fault", "list", "-f", self.path)
        self.assertIn("No faults", err)

    def test_inject_without_in_place_prints_and_leaves_the_file(self):
        code, out, err = run("fault", "inject", "-f", self.path, "--name", "lost", "--type", "gpu-lost")
        self.assertEqual(code, 0, err)
        self.assertIn("type: gpu-lost", out)
        self.assertEqual(read(self.path), POOL)

    def test_bad_injection_leaves_the_file_untouched(self):
        code, out, err = run("fault", "inject", "-f", self.path, "--name", "x", "--type", "remove-device",
                             "--device", "gpu-9", "--in-place")
        self.assertEqual(code, 2)
        self.assertIn('spec.faults[0].devices[0]: Not found: "gpu-9"', err)
        self.assertEqual(read(self.path), POOL)
        code, _, err = run("fault", "inject", "-f", self.path, "--name", "x", "--type", "meltdown")
        self.assertEqual(code, 2)
        self.assertIn('unknown fault type "meltdown"', err)

    def test_clear_unknown_fault(self):
        code, _, err = run("fault", "clear", "-f", self.path, "--name", "nope")
        self.assertEqual(code, 2)
        self.assertIn('has no fault named "nope"', err)

    def test_several_pools_need_pool_flag(self):
        with open(self.path, "a") as f:
            f.write("---\n" + POOL.replace("name: gpus", "name: more").replace("node-1, node-2", "node-3"))
        code, _, err = run("fault", "inject", "-f", self.path, "--name", "x", "--type", "gpu-lost")
        self.assertEqual(code, 2)
        self.assertIn("choose one with --pool NAME", err)
        code, out, err = run("fault", "inject", "-f", self.path, "--pool", "more", "--name", "x", "--type", "gpu-lost")
        self.assertEqual(code, 0, err)
        self.assertIn("name: more", out)


class ScenarioOffline(unittest.TestCase):
    def test_apply_checks_the_input_before_connecting(self):
        code, out, err = run("scenario", "apply", "-f", "-", "--scenario", "s", "--kubeconfig", "/nonexistent",
                             stdin=POOL.replace("nvidia-gpu", "nope"))
        self.assertEqual(code, 2)
        self.assertIn("spec.profile: Unsupported value", err)

    def test_apply_refuses_unsupported_kinds(self):
        deployment = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\n"
        code, out, err = run("scenario", "apply", "-f", "-", "--scenario", "s", "--kubeconfig", "/nonexistent",
                             stdin=POOL + "---\n" + deployment)
        self.assertEqual(code, 2)
        self.assertIn('apps/v1 Deployment "d": scenario apply creates Namespaces', err)

    def test_apply_without_a_cluster_is_an_error(self):
        code, out, err = run("scenario", "apply", "-f", DEMO_SIM, "--kubeconfig", "/nonexistent/kubeconfig")
        self.assertEqual(code, 3)
        self.assertEqual(out, "")
        self.assertIn("/nonexistent/kubeconfig", err)

    def test_scenario_name_must_be_a_label_value(self):
        code, _, err = run("scenario", "reset", "--scenario", "Not A Label!", "--kubeconfig", "/nonexistent")
        self.assertEqual(code, 2)
        self.assertIn("is not a valid label value", err)


if __name__ == "__main__":
    sys.exit(tap.main())
