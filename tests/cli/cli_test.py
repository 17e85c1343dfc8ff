#!/usr/bin/env python3
"""Tests of the draforge CLI's contract: what users and scripts rely on (exit status, messages, output).

Usage: cli_test.py PATH_TO_DRAFORGE   (run by `meson test`; DRAFORGE_CORPUS and DRAFORGE_SOURCE_ROOT
are set there)
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import urllib.error
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
import tap  # noqa: E402

DRAFORGE = sys.argv.pop(1) if len(sys.argv) > 1 else "build/examples/cli/draforge"
ROOT = os.environ.get("DRAFORGE_SOURCE_ROOT", os.path.join(os.path.dirname(__file__), "..", ".."))
CORPUS = os.environ.get("DRAFORGE_CORPUS", os.path.join(ROOT, "..", "shared", "corpus"))
DEMO = os.path.join(ROOT, "examples", "scenarios", "demo.yaml")
FIXTURES = os.path.join(CORPUS, "api-fixtures")


def run(*args, stdin=None):
    p = subprocess.run([DRAFORGE, *args], input=stdin, capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout, p.stderr


def read(path):
    with open(path) as f:
        return f.read()


def write(tmp, name, text):
    path = os.path.join(tmp, name)
    with open(path, "w") as f:
        f.write(text)
    return path


SLICE_HEAD = """apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata:
  name: big
spec:
  driver: gpu.example.com
  nodeName: node-1
  pool: {name: node-1, generation: 1, resourceSliceCount: 1}
  devices:
"""


class Basics(unittest.TestCase):
    def test_version(self):
        code, out, _ = run("version")
        self.assertEqual(code, 0)
        self.assertRegex(out, r"^draforge \d+\.\d+\.\d+ \(resource.k8s.io as of Kubernetes 1\.37\)")
        code, out, _ = run("version", "-o", "json")
        self.assertEqual(json.loads(out)["kubernetes"], "1.37")

    def test_help_says_flags_take_both_forms(self):
        code, out, _ = run("--help")
        self.assertEqual(code, 0)
        self.assertIn("--flag VALUE or --flag=VALUE", out)
        # ... and both forms take the value.
        for args in (["--kubeconfig=/nonexistent/kc"], ["--kubeconfig", "/nonexistent/kc"]):
            code, _, err = run("get", "resourceslices", *args)
            self.assertEqual(code, 2, err)
            self.assertIn("kubeconfig: cannot read /nonexistent/kc", err)

    def test_usage_errors_exit_2(self):
        self.assertEqual(run()[0], 2)
        code, _, err = run("frobnicate")
        self.assertEqual(code, 2)
        self.assertIn('unknown command "frobnicate"', err)
        code, _, err = run("get", "resourceslices", "--bogus", "-f", DEMO)
        self.assertEqual(code, 2)
        self.assertIn("unknown flag: --bogus", err)
        code, _, err = run("get", "-f", DEMO)
        self.assertEqual(code, 2)
        code, _, err = run("get", "gadgets", "-f", DEMO)
        self.assertEqual(code, 2)
        self.assertIn('unknown kind "gadgets"', err)
        code, _, err = run("convert")
        self.assertEqual(code, 2)
        self.assertIn("no input", err)

    def test_help_exits_0(self):
        code, out, _ = run("convert", "--help")
        self.assertEqual(code, 0)
        self.assertIn("--to", out)


class Convert(unittest.TestCase):
    def test_v1beta1_claim_to_v1(self):
        code, out, err = run("convert", "-f", os.path.join(FIXTURES, "resource.k8s.io.v1beta1.ResourceClaim.json"),
                             "--to", "v1", "-o", "json")
        self.assertEqual(code, 0, err)
        obj = json.loads(out)
        self.assertEqual(obj["apiVersion"], "resource.k8s.io/v1")
        req = obj["spec"]["devices"]["requests"][0]
        self.assertEqual(req["exactly"]["deviceClassName"], "deviceClassNameValue")
        self.assertNotIn("deviceClassName", req)

    def test_round_trip_is_byte_exact(self):
        path = os.path.join(FIXTURES, "resource.k8s.io.v1.ResourceSlice.json")
        code, out, err = run("convert", "-f", path, "-o", "json")
        self.assertEqual(code, 0, err)
        self.assertEqual(out, read(path) + "\n")

    def test_yaml_output_reads_back(self):
        code, out, _ = run("convert", "-f", os.path.join(FIXTURES, "resource.k8s.io.v1.ResourceClaim.yaml"))
        self.assertEqual(code, 0)
        code2, out2, _ = run("convert", "-f", "-", "-o", "json", stdin=out)
        self.assertEqual(code2, 0)
        self.assertEqual(json.loads(out2), json.loads(read(os.path.join(FIXTURES, "resource.k8s.io.v1.ResourceClaim.json"))))

    def test_several_objects_make_a_list(self):
        code, out, _ = run("convert", "-f", DEMO, "-o", "json")
        self.assertEqual(code, 0)
        obj = json.loads(out)
        self.assertEqual(obj["kind"], "List")
        self.assertEqual(len(obj["items"]), 24)

    def test_directory_input(self):
        with tempfile.TemporaryDirectory() as tmp:
            write(tmp, "a.yaml", "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: a}\n")
            write(tmp, "b.json", '{"apiVersion":"resource.k8s.io/v1","kind":"DeviceClass","metadata":{"name":"b"}}')
            write(tmp, "ignored.txt", "not read")
            code, out, err = run("convert", "-f", tmp, "-o", "json")
            self.assertEqual(code, 0, err)
            self.assertEqual([i["metadata"]["name"] for i in json.loads(out)["items"]], ["a", "b"])

    def test_version_the_kind_lacks(self):
        code, _, err = run("convert", "-f", os.path.join(FIXTURES, "resource.k8s.io.v1.DeviceTaintRule.json"),
                           "--to", "v1beta1")
        self.assertEqual(code, 2)
        self.assertIn('unsupported apiVersion "resource.k8s.io/v1beta1" for kind DeviceTaintRule', err)


class BadInput(unittest.TestCase):
    def check(self, text, *needles, name="bad.yaml", command=("convert",)):
        with tempfile.TemporaryDirectory() as tmp:
            path = write(tmp, name, text)
            code, out, err = run(*command, "-f", path)
            self.assertEqual(code, 2, err)
            self.assertIn(path, err)
            for n in needles:
                self.assertIn(n, err)
            return err

    def test_truncated_json(self):
        self.check('{"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name"', "json: line 1",
                   name="t.json")

    def test_wrong_type(self):
        self.check(SLICE_HEAD + "  - name: gpu-0\n    attributes:\n      index: {int: zero}\n",
                   'ResourceSlice "big": spec.devices[0].attributes[index].int: expected integer, got string')

    def test_duplicate_keys(self):
        self.check("apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata:\n  name: a\n  name: b\n",
                   'duplicate key "name"')

    def test_unknown_api_version(self):
        self.check("apiVersion: resource.k8s.io/v1alpha2\nkind: ResourceClaim\nmetadata: {name: c}\n",
                   'unsupported apiVersion "resource.k8s.io/v1alpha2"')

    def test_too_many_devices(self):
        devices = "".join(f"  - name: gpu-{i}\n" for i in range(200))
        err = self.check(SLICE_HEAD + devices, 'ResourceSlice.resource.k8s.io "big" is invalid', "spec.devices",
                         command=("validate",))
        self.assertIn("Too many", err)

    def test_huge_file(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "huge.yaml")
            with open(path, "w") as f:
                f.write("# " + "x" * (50 << 20) + "\n")
            code, _, err = run("get", "resourceslices", "-f", path)
            self.assertEqual(code, 2)
            self.assertIn("more than the limit", err)

    def test_deeply_nested_json_is_an_error_not_a_crash(self):
        # 600 KB of "[" used to overflow the stack in RapidJSON's recursive parser (SIGSEGV).
        err = self.check("[" * 600_000, "nesting is deeper than 512 levels", name="deep.json",
                         command=("validate",))
        self.assertIn("json: line 1, column 513", err)

    def test_deep_opaque_parameters_are_an_error_not_a_crash(self):
        deep = "[" * 600_000 + "]" * 600_000
        claim = ('{"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": {"name": "c"},'
                 ' "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu"}}],'
                 ' "config": [{"opaque": {"driver": "gpu.example.com", "parameters": {"x": ' + deep + '}}}]}}}')
        self.check(claim, "nesting is deeper than 512 levels", name="claim.json", command=("validate",))
        # As YAML (flow style): yaml-cpp's own guard and DRAForge's depth cap answer, not the stack.
        self.check("apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: c}\n"
                   "spec:\n  devices:\n    config:\n    - opaque:\n        driver: gpu.example.com\n"
                   "        parameters: {x: " + "[" * 100_000 + "]" * 100_000 + "}\n",
                   "nesting is deeper than", command=("validate",))

    def test_nesting_at_the_cap_still_decodes(self):
        # 512 levels in all (the claim's own objects included) are accepted: the cap is not too low for
        # real opaque parameters.
        depth_outside = 7  # the claim, spec, devices, config [, its item, opaque, parameters
        inner = 512 - depth_outside
        claim = ('{"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": {"name": "c"},'
                 ' "spec": {"devices": {"config": [{"opaque": {"driver": "gpu.example.com", "parameters": {"x": '
                 + "[" * inner + "]" * inner + '}}}]}}}')
        with tempfile.TemporaryDirectory() as tmp:
            path = write(tmp, "claim.json", claim)
            code, out, err = run("convert", "-f", path, "-o", "json")
            self.assertEqual(code, 0, err)
            self.assertIn("[" * inner, out.replace(" ", "").replace("\n", ""))
            too_deep = write(tmp, "deeper.json", claim.replace('"x": [', '"x": [['))
            code, _, err = run("convert", "-f", too_deep, "-o", "json")
            self.assertEqual(code, 2)
            self.assertIn("nesting is deeper than 512 levels", err)

    def test_missing_file(self):
        code, _, err = run("get", "pods", "-f", "/nonexistent/x.yaml")
        self.assertEqual(code, 2)
        self.assertIn("/nonexistent/x.yaml", err)

    def test_one_bad_document_among_good_ones_fails_the_command(self):
        err = self.check("apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: a}\n---\n"
                         "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: b}\nspec: {selectors: 3}\n",
                         'DeviceClass "b": spec.selectors: expected array, got integer', "(object 2, line 4)")


class Validate(unittest.TestCase):
    def test_demo_scenario_is_valid(self):
        code, out, err = run("validate", "-f", DEMO)
        self.assertEqual(code, 0, err)
        self.assertIn("24 valid, 0 invalid", out)

    def test_filler_fixtures_are_invalid_with_field_paths(self):
        code, _, err = run("validate", "-f", os.path.join(FIXTURES, "resource.k8s.io.v1.ResourceSlice.json"))
        self.assertEqual(code, 2)
        self.assertIn('ResourceSlice.resource.k8s.io "nameValue" is invalid', err)

    def test_unknown_fields_are_errors_unless_lenient(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = write(tmp, "c.yaml", "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: a}\n"
                                        "spec: {selector: []}\n")
            code, _, err = run("validate", "-f", path)
            self.assertEqual(code, 2)
            self.assertIn('unknown field "spec.selector"', err)
            code, _, err = run("validate", "-f", path, "--lenient")
            self.assertEqual(code, 0)
            self.assertIn("warning", err)


class Get(unittest.TestCase):
    def test_slices_table(self):
        code, out, err = run("get", "resourceslices", "-f", DEMO)
        self.assertEqual(code, 0, err)
        lines = out.splitlines()
        self.assertEqual(lines[0].split(), ["NAME", "NODE", "DRIVER", "POOL", "DEVICES"])
        self.assertEqual(len(lines), 1 + 6)
        self.assertIn("node-1-gpu.example.com", out)

    def test_claims_table_shows_state(self):
        code, out, _ = run("get", "resourceclaims", "-f", DEMO, "-n", "team-a")
        self.assertEqual(code, 0)
        rows = {l.split()[1]: l for l in out.splitlines()[1:]}
        self.assertIn("allocated,reserved", rows["train-0"])
        self.assertIn("pending", rows["big-h100"])

    def test_devices_view_shows_holders(self):
        code, out, _ = run("get", "devices", "-f", DEMO)
        self.assertEqual(code, 0)
        row = [l for l in out.splitlines() if " node-1 " in l and "gpu-0" in l][0]
        self.assertIn("team-a/train-0", row)

    def test_json_is_a_list_and_named_get_is_one_object(self):
        code, out, _ = run("get", "deviceclasses", "-f", DEMO, "-o", "json")
        self.assertEqual(json.loads(out)["kind"], "List")
        code, out, _ = run("get", "deviceclass", "mig.example.com", "-f", DEMO, "-o", "json")
        self.assertEqual(json.loads(out)["metadata"]["name"], "mig.example.com")
        code, _, err = run("get", "deviceclass", "nope", "-f", DEMO)
        self.assertEqual(code, 2)


class PoolAvailability(unittest.TestCase):
    """`get pools --availability`: what kube-controller-manager writes into a ResourcePoolStatusRequest
    (tests/cluster/pool_status_run compares with it on a real control plane)."""

    def test_json_is_the_status_upstream_writes(self):
        code, out, err = run("get", "pools", "--availability", "--driver", "nic.example.com", "-f", DEMO,
                             "-o", "json")
        self.assertEqual(code, 0, err)
        status = json.loads(out)
        self.assertEqual(status["poolCount"], 1)
        pool = status["pools"][0]
        self.assertEqual((pool["poolName"], pool["totalDevices"], pool["allocatedDevices"],
                          pool["unavailableDevices"], pool["availableDevices"]), ("fabric", 2, 1, 1, 0))
        self.assertEqual(pool["shareableSummary"]["capacity"][0]["available"], "300G")
        self.assertEqual(status["conditions"][0]["message"], "Calculated status for 1 pools")

    def test_table_filters_and_limit(self):
        code, out, err = run("get", "pools", "--availability", "--driver", "gpu.example.com", "--limit", "2",
                             "-f", DEMO)
        self.assertEqual(code, 0, err)
        lines = out.splitlines()
        self.assertEqual(lines[0].split()[:9], ["DRIVER", "POOL", "NODE", "GENERATION", "SLICES", "TOTAL",
                                                "ALLOCATED", "AVAILABLE", "UNAVAILABLE"])
        self.assertEqual([l.split()[1] for l in lines[1:]], ["node-1", "node-2"])
        code, out, _ = run("get", "pools", "--availability", "--driver", "gpu.example.com", "--pool", "node-3",
                           "-f", DEMO, "-o", "yaml")
        self.assertEqual(code, 0)
        self.assertIn("poolName: node-3", out)
        self.assertIn("poolCount: 1", out)

    def test_incomplete_pool_has_no_counts(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = write(tmp, "s.yaml", SLICE_HEAD.replace("resourceSliceCount: 1", "resourceSliceCount: 3")
                         + "  - name: gpu-0\n")
            code, out, err = run("get", "pools", "--availability", "--driver", "gpu.example.com", "-f", path)
        self.assertEqual(code, 0, err)
        row = out.splitlines()[1]
        self.assertIn("PoolIncomplete: pool gpu.example.com/node-1 is incomplete: observed 1/3 slices", row)
        self.assertEqual(row.split()[4:9], ["-", "-", "-", "-", "-"])

    def test_bad_flags_exit_2(self):
        code, _, err = run("get", "pools", "--availability", "-f", DEMO)
        self.assertEqual(code, 2)
        self.assertIn("--availability needs --driver", err)
        code, _, err = run("get", "pools", "--availability", "--driver", "d", "--limit", "0", "-f", DEMO)
        self.assertEqual(code, 2)
        self.assertIn('--limit: "0" is not a number from 1 to 1000', err)
        code, _, err = run("get", "pools", "--availability", "--driver", "d", "--limit", "1001", "-f", DEMO)
        self.assertEqual(code, 2)
        self.assertIn("spec.limit", err)
        code, _, err = run("get", "devices", "--availability", "--driver", "d", "-f", DEMO)
        self.assertEqual(code, 2)
        code, _, err = run("get", "pools", "--driver", "d", "-f", DEMO)
        self.assertEqual(code, 2)
        self.assertIn("go with `get pools --availability` only", err)


class Graph(unittest.TestCase):
    def test_json_dot_text(self):
        code, out, err = run("graph", "-f", DEMO, "-o", "json")
        self.assertEqual(code, 0, err)
        g = json.loads(out)
        ids = {n["id"] for n in g["nodes"]}
        self.assertIn("Pod/team-a/train-0", ids)
        self.assertTrue(any(e["from"] == "Pod/team-a/train-0" and e["to"] == "ResourceClaim/team-a/train-0"
                            for e in g["edges"]))
        code, out, _ = run("graph", "-f", DEMO, "-o", "dot")
        self.assertEqual(code, 0)
        self.assertTrue(out.startswith("digraph"))
        code, out, _ = run("graph", "-f", DEMO)
        self.assertEqual(code, 0)
        self.assertIn("train-0", out)


class Allocate(unittest.TestCase):
    def test_pending_claim_takes_the_fallback_on_node_3(self):
        code, out, err = run("allocate", "--node", "node-3", "-f", DEMO, "-o", "json")
        self.assertEqual(code, 0, err)
        result = json.loads(out)
        self.assertEqual(result["outcome"], "allocated")
        results = result["allocations"]["team-a/big-h100"]["devices"]["results"]
        self.assertEqual([r["request"] for r in results], ["gpus/four"] * 4)
        self.assertEqual([r["device"] for r in results], ["gpu-0", "gpu-1", "gpu-2", "gpu-3"])

    def test_unschedulable_exits_1(self):
        code, out, _ = run("allocate", "--node", "node-1", "-f", DEMO, "-o", "json")
        self.assertEqual(code, 1)
        self.assertEqual(json.loads(out)["outcome"], "unschedulable")

    def test_unknown_feature_gate_is_bad_input(self):
        code, _, err = run("allocate", "--node", "node-3", "--feature-gates", "DRANoSuchGate=true", "-f", DEMO)
        self.assertEqual(code, 2)
        self.assertIn("DRANoSuchGate", err)

    def test_kubernetes_version_selects_its_gates(self):
        # 1.34 has no DRADeviceTaintRules gate (its scheduler applies rules with DRADeviceTaints).
        code, _, err = run("allocate", "--node", "node-3", "--kubernetes-version", "1.34", "--feature-gates",
                           "DRADeviceTaintRules=true", "-f", DEMO)
        self.assertEqual(code, 2)
        self.assertIn("error: --feature-gates: unrecognized feature gate: DRADeviceTaintRules", err)
        code, _, err = run("allocate", "--node", "node-3", "--kubernetes-version", "1.33", "-f", DEMO)
        self.assertEqual(code, 2)
        self.assertIn("error: --kubernetes-version: unsupported Kubernetes version 1.33 (supported: 1.34, 1.35, "
                      "1.36, 1.37)", err)
        code, out, err = run("allocate", "--node", "node-3", "--kubernetes-version", "1.34", "-f", DEMO, "-o", "json")
        self.assertEqual(code, 0, err)
        self.assertEqual(json.loads(out)["outcome"], "allocated")

    def test_version_lists_kubernetes_versions(self):
        code, out, _ = run("version", "--kubernetes", "-o", "json")
        self.assertEqual(code, 0)
        versions = json.loads(out)
        self.assertEqual([v["version"] for v in versions], ["1.34", "1.35", "1.36", "1.37"])
        self.assertEqual([v["latest"] for v in versions], [False, False, False, True])
        code, out, _ = run("version", "--kubernetes")
        self.assertIn("Kubernetes 1.37 (default): default allocator incubating", out)

    def test_place_and_explain_say_why(self):
        code, out, _ = run("place", "--pod", "team-a/finetune-0", "-f", DEMO)
        self.assertEqual(code, 0)
        self.assertIn("fits on 1 of 3 nodes (node-3)", out)
        self.assertIn("only 4 devices match class h100.gpu.example.com, 8 needed", out)
        code, out, _ = run("explain", "--claim", "team-a/big-h100", "--node", "node-1", "-f", DEMO)
        self.assertIn("not reachable from node node-1", out)


class Cel(unittest.TestCase):
    def test_eval_prints_literals_and_exit_codes(self):
        self.assertEqual(run("cel", "eval", "--", "[1, 2].map(x, x * 2)")[1].strip(), "[2, 4]")
        self.assertEqual(run("cel", "eval", "--", "'ab' + 'c'")[1].strip(), "'abc'")
        code, _, err = run("cel", "eval", "--", "1 +")
        self.assertEqual(code, 2)
        self.assertIn("<input>:1:", err)
        code, _, err = run("cel", "eval", "--", "1 / 0")
        self.assertEqual(code, 3)
        self.assertIn("division by zero", err)

    def test_version_list_with_prerelease_does_not_crash(self):
        line = '{"expression":"true","device":{"driver":"x","attributes":{"v":{"versions":["1.0.0-rc.1"]}}}}'
        code, out, err = run("cel", "eval", "--batch", stdin=line + "\n")
        self.assertEqual(code, 0, err)
        self.assertEqual(json.loads(out)["result"], "true")

    def test_batch_stops_at_the_first_bad_line_and_names_it(self):
        lines = '{"expression":"1+1"}\n{"expression":"true","bogus":1}\n{"expression":"2+2"}\n'
        code, out, err = run("cel", "eval", "--batch", stdin=lines)
        self.assertEqual(code, 2)
        self.assertEqual([json.loads(l)["result"] for l in out.splitlines()], ["2"])
        self.assertIn('error: line 2: unknown or invalid field "bogus"', err)
        code, _, err = run("cel", "eval", "--batch", stdin='{"expression":"true","device":[1]}\n')
        self.assertEqual(code, 2)
        self.assertIn("error: line 1: device: the device must be an object", err)

    def test_explain_finds_the_typo(self):
        code, out, _ = run("cel", "explain", "device.attributes['gpu.example.com'].modle == 'A100'", "-f", DEMO)
        self.assertEqual(code, 0)
        self.assertIn("attribute gpu.example.com/modle exists on 0 of 17 devices", out)


class ExplainConflicts(unittest.TestCase):
    SCENARIO = os.path.join(ROOT, "tests", "cli", "data", "claim-conflict.yaml")

    def test_json_names_the_requests_that_need_the_same_device(self):
        code, out, err = run("explain", "--claim", "default/pair", "-f", self.SCENARIO, "--node", "node-1",
                             "-o", "json")
        self.assertEqual(code, 0, err)
        ex = json.loads(out)
        self.assertEqual(ex["outcome"], "unschedulable")
        self.assertEqual(ex["conflicts"], [{
            "kind": "same-device", "requests": ["first", "second"], "subject": "gpu.example.com/node-1/gpu-0",
            "sentence": "requests first and second both need device gpu.example.com/node-1/gpu-0"}])
        # Each request alone has its device: the funnels show no shortfall.
        self.assertTrue(all("firstShortStep" not in r for r in ex["requests"]))

    def test_text_says_it_in_the_summary(self):
        code, out, err = run("explain", "--claim", "default/pair", "-f", self.SCENARIO, "--node", "node-1")
        self.assertEqual(code, 0, err)
        self.assertIn("request first: 1 device of class gpu is usable on node node-1", out)
        self.assertIn("requests first and second both need device gpu.example.com/node-1/gpu-0", out.splitlines()[0])


class ExplainWithoutNode(unittest.TestCase):
    """`draforge explain` without --node: on which nodes the claim fits, and why not on the others."""
    CONFLICT = os.path.join(ROOT, "tests", "cli", "data", "claim-conflict.yaml")
    NODES = os.path.join(ROOT, "tests", "cli", "data", "explain-nodes.yaml")

    def test_claim_that_fits_nowhere_says_so_first_with_the_conflict(self):
        code, out, err = run("explain", "--claim", "pair", "-f", self.CONFLICT)
        self.assertEqual(code, 0, err)
        lines = out.splitlines()
        self.assertEqual(lines[0], "claim default/pair fits on no node (0 of 1): node-1: requests first and second "
                                   "both need device gpu.example.com/node-1/gpu-0")
        self.assertEqual(lines[1], "  node-1: requests first and second both need device gpu.example.com/node-1/gpu-0")
        # The cluster-wide funnel follows, no longer the first thing said.
        self.assertIn("request first: 1 device of class gpu is usable", out)

    def test_json_has_the_verdict_per_node(self):
        code, out, err = run("explain", "--claim", "default/pair", "-f", self.CONFLICT, "-o", "json")
        self.assertEqual(code, 0, err)
        ex = json.loads(out)
        self.assertEqual(ex["nodesTotal"], 1)
        self.assertFalse(ex["nodesTruncated"])
        self.assertEqual(ex["nodeSource"], "nodes")
        self.assertEqual(ex["nodes"], [{
            "node": "node-1", "fits": False, "outcome": "unschedulable",
            "reason": "requests first and second both need device gpu.example.com/node-1/gpu-0"}])
        self.assertTrue(ex["nodesSummary"].startswith("claim default/pair fits on no node (0 of 1)"))

    def test_fits_on_one_node_of_four_each_other_for_its_own_reason(self):
        code, out, err = run("explain", "--claim", "default/train", "-f", self.NODES)
        self.assertEqual(code, 0, err)
        lines = out.splitlines()
        self.assertEqual(lines[0], "claim default/train fits on 1 of 4 nodes: node-d")
        per_node = dict(line.strip().split(": ", 1) for line in lines[1:5])
        self.assertEqual(per_node["node-d"], "fits")
        self.assertIn('0 left after step "request" (1 removed by the selectors of request gpu)', per_node["node-a"])
        self.assertIn('0 left after step "taints" (1 device tainted (example.com/maintenance) and not tolerated)',
                      per_node["node-b"])
        self.assertIn('0 left after step "capacity" (1 device without shared counters left)', per_node["node-c"])

    def test_yaml_lists_the_nodes_in_name_order(self):
        code, out, err = run("explain", "--claim", "default/train", "-f", self.NODES, "-o", "yaml")
        self.assertEqual(code, 0, err)
        self.assertEqual(re.findall(r"^  node: (\S+)$", out, re.M), ["node-a", "node-b", "node-c", "node-d"], out)

    def test_with_node_nothing_changes(self):
        code, out, err = run("explain", "--claim", "default/train", "-f", self.NODES, "--node", "node-b", "-o", "json")
        self.assertEqual(code, 0, err)
        ex = json.loads(out)
        self.assertNotIn("nodes", ex)
        self.assertNotIn("nodesSummary", ex)
        self.assertEqual(ex["node"], "node-b")
        code, out, _ = run("explain", "--claim", "default/train", "-f", self.NODES, "--node", "node-d")
        self.assertEqual(out.splitlines()[0], "claim default/train fits on node node-d")

    def test_allocated_claim_with_a_bad_node_selector_is_an_error_on_every_node(self):
        path = os.path.join(ROOT, "tests", "cli", "data", "allocated-bad-node-selector.yaml")
        code, out, err = run("explain", "--claim", "odd", "-f", path, "-o", "json")
        self.assertEqual(code, 0, err)
        nodes = json.loads(out)["nodes"]
        self.assertEqual([(v["node"], v["fits"], v["outcome"]) for v in nodes],
                         [("node-1", False, "error"), ("node-2", False, "error")])
        for v in nodes:
            self.assertTrue(v["reason"].startswith("resourceclaim default/odd: status.allocation.nodeSelector: "),
                            v["reason"])

    def test_many_nodes_are_grouped_by_reason(self):
        with tempfile.TemporaryDirectory() as tmp:
            docs = ["apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: gpu}\nspec: {}"]
            for i in range(12):
                docs.append("apiVersion: v1\nkind: Node\nmetadata: {name: node-%02d}" % i)
            docs.append(SLICE_HEAD + "  - {name: gpu-0}\n")
            docs.append("apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: two, namespace: default}\n"
                        "spec: {devices: {requests: [{name: g, exactly: {deviceClassName: gpu, count: 2}}]}}")
            path = write(tmp, "many.yaml", "\n---\n".join(docs))
            code, out, err = run("explain", "--claim", "two", "-f", path)
        self.assertEqual(code, 0, err)
        lines = out.splitlines()
        self.assertTrue(lines[0].startswith("claim default/two fits on no node (0 of 12): "), lines[0])
        # node-1 (the slice's node, not a Node here) is not among them; the twelve Nodes reach no device
        # and share one reason, on one line.
        self.assertEqual(lines[1], "  node-00, node-01, node-02, node-03, node-04, node-05, node-06, node-07, "
                                   "node-08, node-09 and 2 more: request g: no device matches class gpu")
        self.assertEqual(lines[2], "")


class Demo(unittest.TestCase):
    def test_demo_report(self):
        code, out, err = run("demo")
        self.assertEqual(code, 0, err)
        for section in ("Pools", "Devices", "Claims", "Graph"):
            self.assertIn("\n" + section, out)
        self.assertIn("3 nodes, 3 drivers, 5 pools", out)

    def test_print_scenario_reads_back(self):
        code, out, _ = run("demo", "--print-scenario")
        self.assertEqual(code, 0)
        self.assertEqual(out, read(DEMO))

    def _server_next_to_cli(self):
        here = os.path.dirname(os.path.realpath(DRAFORGE))
        for p in (os.path.join(here, "draforge-server"), os.path.join(here, "..", "server", "draforge-server")):
            if os.access(p, os.X_OK):
                return p
        return None

    def test_serve_prints_the_url_and_serves_the_demo(self):
        if self._server_next_to_cli() is None:
            self.skipTest("draforge-server is not built (cpp-httplib missing)")
        p = subprocess.Popen([DRAFORGE, "demo", "--serve", "--port", "0"], stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, text=True)
        try:
            url = None
            lines = []
            watchdog = threading.Timer(60, p.kill)  # a server that never prints the line fails, not hangs
            watchdog.start()
            try:
                for line in p.stdout:
                    lines.append(line)
                    m = re.match(r"DRAForge dashboard: (http://127\.0\.0\.1:\d+/)$", line.rstrip("\n"))
                    if m:
                        url = m.group(1)
                        break
            finally:
                watchdog.cancel()
            self.assertIsNotNone(url, "no URL line in %r" % lines)
            with urllib.request.urlopen(url + "healthz", timeout=30) as r:
                self.assertEqual(r.status, 200)
                self.assertEqual(json.load(r), {"status": "ok"})
            # It serves the demo scenario (the same 17 devices the report counts) once it has loaded
            # it: before that /readyz is 503 and the API answers from an empty generation-0 snapshot.
            deadline = time.time() + 30
            while True:
                try:
                    with urllib.request.urlopen(url + "readyz", timeout=30) as r:
                        if json.load(r).get("status") == "ready":
                            break
                except urllib.error.HTTPError:
                    pass
                if time.time() > deadline:
                    self.fail("draforge-server never became ready")
                time.sleep(0.1)
            with urllib.request.urlopen(url + "api/v1/summary", timeout=30) as r:
                summary = json.load(r)
            self.assertEqual(summary["counts"]["devices"], 17)
        finally:
            p.terminate()
            try:
                code = p.wait(20)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
                raise
            p.stdout.close()
        self.assertEqual(code, 0)  # SIGTERM is a clean shutdown

    def test_serve_without_a_server_fails_clearly(self):
        with tempfile.TemporaryDirectory() as tmp:
            lone = os.path.join(tmp, "draforge")
            try:
                os.link(os.path.realpath(DRAFORGE), lone)
            except OSError:
                shutil.copy2(os.path.realpath(DRAFORGE), lone)
            p = subprocess.run([lone, "demo", "--serve", "--port", "0"], capture_output=True, text=True, timeout=60)
            self.assertEqual(p.returncode, 3, p.stderr)
            self.assertIn("draforge-server not found", p.stderr)
            self.assertIn(os.path.join(tmp, "draforge-server"), p.stderr)
            self.assertEqual(p.stdout, "")

    def test_serve_flags_need_serve(self):
        code, out, err = run("demo", "--port", "8081")
        self.assertEqual(code, 2)
        self.assertIn("--port needs --serve", err)
        self.assertEqual(out, "")


class CdiFlags(unittest.TestCase):
    """`draforge cdi` parses its flags like every other command: a bad flag is a usage error (exit
    2) that names the flag, shows the subcommand's usage and flags, and writes nothing."""

    INPUT = os.path.join(ROOT, "tests", "cdi", "fixtures", "node", "input.yaml")
    USAGE = {"generate": "Usage: draforge cdi generate --node NODE",
             "validate": "Usage: draforge cdi validate [--strict]",
             "audit": "Usage: draforge cdi audit --node NODE"}

    def test_unknown_flag_is_a_usage_error_naming_it(self):
        for sub, usage in self.USAGE.items():
            code, out, err = run("cdi", sub, "--bogus", "--node", "node-1", "-f", self.INPUT, "x")
            self.assertEqual(code, 2, sub + ": " + err)
            self.assertTrue(err.startswith("error: unknown flag: --bogus\n"), sub + ": " + err)
            self.assertIn(usage, err)
            self.assertIn("  -o, --output VALUE\n", err, sub)  # the flags are listed
            self.assertEqual(out, "", sub)

    def test_generate_with_a_bad_flag_writes_nothing(self):
        with tempfile.TemporaryDirectory() as tmp:
            out_dir = os.path.join(tmp, "cdi")
            code, out, err = run("cdi", "generate", "--node", "node-1", "-f", self.INPUT, "--out", out_dir,
                                 "--max-verison", "0.5.0")
            self.assertEqual(code, 2, err)
            self.assertIn("unknown flag: --max-verison", err)
            self.assertFalse(os.path.exists(out_dir))

    def test_flag_values(self):
        code, _, err = run("cdi", "generate", "-f", self.INPUT, "--dry-run", "--node")
        self.assertEqual(code, 2)
        self.assertIn("flag needs an argument: --node", err)
        code, _, err = run("cdi", "validate", "--strict=maybe", self.INPUT)
        self.assertEqual(code, 2)
        self.assertIn("flag --strict takes no value", err)
        # --flag=value and --flag value are the same; a repeated flag's last value wins.
        code, out, err = run("cdi", "generate", "--node=node-1", "-f", self.INPUT, "--dry-run",
                             "--driver=nic.sim.draforge.io", "-o", "text", "--output=json")
        self.assertEqual(code, 0, err)
        self.assertEqual(json.loads(out)["node"], "node-1")

    def test_unknown_output_format(self):
        with tempfile.TemporaryDirectory() as tmp:
            for args in (["generate", "--node", "node-1", "-f", self.INPUT, "--dry-run"],
                         ["validate", self.INPUT],
                         ["audit", "--node", "node-1", "-f", self.INPUT, tmp]):
                code, out, err = run("cdi", *args, "-o", "xml")
                self.assertEqual(code, 2, args[0] + ": " + err)
                self.assertEqual(err, 'error: --output: unknown format "xml" (text, json)\n', args[0])
                self.assertEqual(out, "", args[0])

    def test_help_goes_to_stdout(self):
        for sub, usage in self.USAGE.items():
            code, out, err = run("cdi", sub, "--help")
            self.assertEqual(code, 0, sub + ": " + err)
            self.assertTrue(out.startswith(usage), out)
            self.assertIn("  --max-version VALUE\n", out, sub)
            self.assertEqual(err, "", sub)


class WhatifReplay(unittest.TestCase):
    """draforge whatif replay: golden outputs on the demo scenario and tests/cli/data/whatif."""

    DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "whatif")
    SMALL = os.path.join(DATA, "replay-small.yaml")
    FILTERS = os.path.join(DATA, "replay-filters.yaml")

    def test_table_output_is_golden(self):
        for scenario, golden, want_code in ((DEMO, "replay-demo.txt", None), (self.SMALL, "replay-small.txt", 1),
                                            (self.FILTERS, "replay-filters.txt", 1)):
            code, out, err = run("whatif", "replay", "-f", scenario)
            self.assertIn(code, (0, 1), err)
            if want_code is not None:
                self.assertEqual(code, want_code, err)
            self.assertEqual(out, read(os.path.join(self.DATA, golden)), golden)

    def test_json_lists_order_placed_and_pending(self):
        code, out, err = run("whatif", "replay", "-f", self.SMALL, "-o", "json", "--policy", "least-allocated")
        self.assertEqual(code, 1, err)
        r = json.loads(out)
        self.assertEqual(r["policy"], "least-allocated")
        self.assertEqual(r["order"], ["team-a/urgent", "team-a/early", "team-a/late", "team-a/big", "team-a/huge"])
        self.assertEqual({p["pod"]: p["node"] for p in r["placed"]},
                         {"team-a/urgent": "node-c", "team-a/early": "node-a", "team-a/late": "node-c"})
        self.assertEqual([p["pod"] for p in r["pending"]], ["team-a/big", "team-a/huge"])

    def test_node_filters_name_the_plugin_in_json(self):
        code, out, err = run("whatif", "replay", "-f", self.FILTERS, "-o", "json")
        self.assertEqual(code, 1, err)
        r = json.loads(out)
        self.assertEqual({p["pod"]: p["node"] for p in r["placed"]},
                         {"ml/trainer": "gpu-1", "ml/drain-helper": "gpu-2", "web/web": "cpu-1"})
        zone_b = {n["node"]: (n["filter"], n["reason"]) for n in r["pending"][0]["nodes"]}
        self.assertEqual(zone_b, {
            "cpu-1": ("NodeAffinity", "node(s) didn't match Pod's node affinity/selector"),
            "gpu-1": ("TaintToleration", "node(s) had untolerated taint(s): team=ml:NoSchedule"),
            "gpu-2": ("NodeUnschedulable", "node(s) were unschedulable"),
        })
        self.assertEqual(r["pending"][1]["nodes"][0]["filter"], "DynamicResources")

    def test_template_nodes_device_taints_and_class_selectors(self):
        # One node of a node group that does not exist yet (its Node template and the example-gpu
        # profile with 4 GPUs), and every GPU of node-a recalled by a DeviceTaintRule: node-a takes
        # nothing, the new node takes the first three pods, and huge (8 cpu) fits its 16 cpu.
        code, out, err = run("whatif", "replay", "-f", self.SMALL, "--add-template-nodes", "1", "--template",
                             os.path.join(self.DATA, "template-gpu-node.yaml"), "--taint-devices",
                             os.path.join(self.DATA, "taint-node-a.yaml"), "-o", "json")
        self.assertEqual(code, 0, err)
        r = json.loads(out)
        self.assertEqual(r["edits"], [
            "add-nodes gpu-group (template): 1 node added (gpu-group-whatif-1) with 1 ResourceSlice each",
            "taint-devices recall-node-a: DeviceTaintRule added (example.com/recall=batch-7:NoSchedule)",
        ])
        placed = {p["pod"]: p for p in r["placed"]}
        self.assertEqual({k: p["node"] for k, p in placed.items()}, {
            "team-a/urgent": "gpu-group-whatif-1", "team-a/early": "gpu-group-whatif-1",
            "team-a/late": "gpu-group-whatif-1", "team-a/big": "node-c", "team-a/huge": "gpu-group-whatif-1"})
        self.assertNotIn("node-a", placed["team-a/urgent"]["feasible"])
        # A class that selects another driver: no pod with a GPU claim fits anywhere.
        code, out, err = run("whatif", "replay", "-f", self.SMALL, "--set-class-selector",
                             "gpu=device.driver == 'other.example.com'", "-o", "json")
        self.assertEqual(code, 1, err)
        r = json.loads(out)
        self.assertEqual(r["edits"], ["set-class-selectors gpu: 1 selector replaced by 1"])
        self.assertEqual([p["pod"] for p in r["placed"]], [])
        # Bad edit files and values name the flag and the object.
        code, out, err = run("whatif", "replay", "-f", self.SMALL, "--add-template-nodes", "1", "--template",
                             os.path.join(self.DATA, "taint-node-a.yaml"))
        self.assertEqual(code, 2)
        self.assertIn("kind DeviceTaintRule is not expected here (Node, ResourceSlice, SimulatedDevicePool)", err)
        code, out, err = run("whatif", "replay", "-f", self.SMALL, "--set-class-selector", "gpu")
        self.assertEqual(code, 2)
        self.assertIn("--set-class-selector: want CLASS=CEL-EXPRESSION", err)
        code, out, err = run("whatif", "replay", "-f", self.SMALL, "--add-template-nodes", "1")
        self.assertEqual(code, 2)
        self.assertIn("--add-template-nodes and --template come in pairs", err)

    def test_after_writes_the_cluster_after_the_replay(self):
        # The placed pods are bound in the file, their claims allocated and reserved: a second replay
        # of it has only the pods left pending, and `get pods` shows the bindings.
        with tempfile.TemporaryDirectory() as tmp:
            after = os.path.join(tmp, "after.yaml")
            code, out, err = run("whatif", "replay", "-f", self.SMALL, "--after", after, "-o", "json")
            self.assertEqual(code, 1, err)
            first = json.loads(out)
            code, out, err = run("whatif", "replay", "-f", after, "-o", "json")
            self.assertEqual(code, 1, err)
            second = json.loads(out)
            self.assertEqual(second["order"], [p["pod"] for p in first["pending"]])
            self.assertEqual(second["placed"], [])
            code, out, err = run("get", "resourceclaims", "-f", after, "-o", "json")
            self.assertEqual(code, 0, err)
            claims = {f"{c['metadata']['namespace']}/{c['metadata']['name']}": c for c in json.loads(out)["items"]}
            for p in first["placed"]:
                for c in p["claims"]:
                    got = claims[c["claim"]]["status"]
                    self.assertEqual(got["allocation"]["devices"]["results"], c["results"])
                    self.assertIn(p["pod"].split("/")[1], [r["name"] for r in got["reservedFor"]])
            code, out, err = run("whatif", "replay", "-f", self.SMALL, "--after", os.path.join(tmp, "no", "dir.yaml"))
            self.assertEqual(code, 3, err)
            self.assertIn("--after: cannot write", err)
            self.assertFalse(os.path.exists(os.path.join(tmp, "no")))

    def test_edits_apply_before_the_replay(self):
        # node-b drained: its pod is pending again and its claim released; a copy of node-c (4 GPUs)
        # takes big, which fit nowhere before.
        code, out, err = run("whatif", "replay", "-f", self.SMALL, "--drain-node", "node-b",
                             "--add-nodes", "1", "--like", "node-c", "-o", "json")
        self.assertEqual(code, 1, err)
        r = json.loads(out)
        self.assertEqual(list(r)[0], "edits")
        self.assertEqual(r["edits"], [
            "add-nodes node-c: 1 node added (node-c-whatif-1) with 1 ResourceSlice each",
            "drain-node node-b: cordoned; 1 pod pending again (team-a/held-user); 1 claim deallocated (team-a/held)",
        ])
        placed = {p["pod"]: p["node"] for p in r["placed"]}
        self.assertEqual(placed["team-a/big"], "node-c-whatif-1")
        self.assertIn("team-a/held-user", placed)
        self.assertNotIn("node-b", placed.values())
        code, out, _ = run("whatif", "replay", "-f", self.SMALL, "--delete-claim", "team-a/held",
                           "--delete-pod", "team-a/held-user")
        self.assertIn("edit: delete-claim team-a/held: deleted\n", out)
        self.assertTrue(out.startswith("edit: "), out)

    def test_bad_edits_are_usage_errors_naming_the_object(self):
        for args, want in ((["--delete-node", "node-z"], 'delete-node: node "node-z" not found'),
                           (["--delete-pod", "team-a/nope"], 'delete-pod: pod "team-a/nope" not found'),
                           (["--add-nodes", "2"], "--add-nodes and --like come in pairs"),
                           (["--add-nodes", "0", "--like", "node-a"], "--add-nodes: want a positive integer")):
            code, out, err = run("whatif", "replay", "-f", self.SMALL, *args)
            self.assertEqual(code, 2, args)
            self.assertIn(want, err, args)
            self.assertEqual(out, "", args)

    def test_bad_policy_and_subcommand_are_usage_errors(self):
        code, _, err = run("whatif", "replay", "-f", self.SMALL, "--policy", "best-fit")
        self.assertEqual(code, 2)
        self.assertIn("best-fit", err)
        code, _, err = run("whatif", "rewind", "-f", self.SMALL)
        self.assertEqual(code, 2)
        self.assertIn("unknown whatif command", err)


class WhatifGang(unittest.TestCase):
    """draforge whatif gang: tests/cli/data/whatif/gang-small.yaml (golden table, JSON, errors)."""

    DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "whatif")
    SMALL = os.path.join(DATA, "gang-small.yaml")

    def test_table_output_is_golden(self):
        code, out, err = run("whatif", "gang", "--group", "team-a/shared", "-f", self.SMALL)
        self.assertEqual(code, 1, err)
        self.assertEqual(out, read(os.path.join(self.DATA, "gang-shared.txt")))

    def test_json_fits_and_blocked(self):
        code, out, err = run("whatif", "gang", "--group", "team-a/train", "-f", self.SMALL, "-o", "json")
        self.assertEqual(code, 0, err)
        r = json.loads(out)
        self.assertTrue(r["fits"])
        self.assertEqual({p["pod"]: p["node"] for p in r["placed"]},
                         {"team-a/train-0": "node-a", "team-a/train-1": "node-a"})
        code, out, err = run("whatif", "gang", "--group", "team-a/big", "-f", self.SMALL, "-o", "yaml")
        self.assertEqual(code, 1, err)
        self.assertIn("blocking: team-a/big-3\n", out)

    def test_errors_are_usage_errors(self):
        for args, want in ((["--group", "team-a/nope"], "podgroup team-a/nope not found"),
                           ([], "--group NS/NAME is required"),
                           (["--group", "team-a/x", "--workload", "w"], "--workload and --template come together")):
            code, out, err = run("whatif", "gang", "-f", self.SMALL, *args)
            self.assertEqual(code, 2, args)
            self.assertIn(want, err, args)
            self.assertEqual(out, "", args)


class WhatifFragmentation(unittest.TestCase):
    """draforge whatif fragmentation: golden outputs on tests/cli/data/whatif (a partitionable GPU
    pair with one half taken on each; one GPU free on each of two nodes), JSON, exit codes."""

    DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "whatif")
    PARTITIONS = os.path.join(DATA, "fragmentation-partitions.yaml")
    NODES = os.path.join(DATA, "fragmentation-nodes.yaml")

    def test_table_output_is_golden(self):
        for args, golden in ((["-f", self.PARTITIONS, "--shape", os.path.join(self.DATA, "shape-whole-gpu.yaml")],
                              "fragmentation-partitions.txt"),
                             (["-f", self.NODES, "--shape-pod", "team-a/pair"], "fragmentation-nodes.txt")):
            code, out, err = run("whatif", "fragmentation", *args)
            self.assertEqual(code, 0, err)
            self.assertEqual(out, read(os.path.join(self.DATA, golden)), golden)

    def test_json_without_a_shape_has_no_advice(self):
        code, out, err = run("whatif", "fragmentation", "-f", self.PARTITIONS, "-o", "json")
        self.assertEqual(code, 0, err)
        r = json.loads(out)
        self.assertNotIn("advice", r)
        whole = [k for k in r["nodes"][0]["kinds"] if k["size"] == "memory=80Gi"][0]
        self.assertEqual((whole["fit"], whole["ideal"], whole["score"]), (0, 1, 1.0))

    def test_no_advice_within_the_bounds_exits_1(self):
        code, out, err = run("whatif", "fragmentation", "-f", self.PARTITIONS, "--shape",
                             os.path.join(self.DATA, "shape-two-whole-gpus.yaml"), "--max-moves", "2")
        self.assertEqual(code, 1, err)
        self.assertIn("no advice: no set of at most 2 moves among 2 consumer groups on 1 node frees room", out)

    def test_bad_input_exits_2(self):
        for args, want in ((["--shape-pod", "team-a/nope"], 'pod "team-a/nope" not found'),
                           (["--max-moves", "0"], "--max-moves: want a positive integer"),
                           (["--shape", "/nonexistent"], "--shape: cannot read"),
                           (["--shape-pod", "a/b", "--shape", "x"], "give one")):
            code, out, err = run("whatif", "fragmentation", "-f", self.NODES, *args)
            self.assertEqual(code, 2, args)
            self.assertIn(want, err, args)
            self.assertEqual(out, "", args)


class WhatifPreempt(unittest.TestCase):
    """draforge whatif preempt on tests/cli/data/whatif/preempt-small.yaml (docs/whatif.md's example)."""

    SMALL = os.path.join(WhatifReplay.DATA, "preempt-small.yaml")

    def test_table_output_is_golden(self):
        code, out, err = run("whatif", "preempt", "--pod", "team-a/trainer", "-f", self.SMALL)
        self.assertEqual(code, 0, err)
        self.assertEqual(out, read(os.path.join(WhatifReplay.DATA, "preempt-small.txt")))

    def test_json_names_node_victims_and_freed_shared_claim(self):
        code, out, err = run("whatif", "preempt", "--pod", "team-a/trainer", "-f", self.SMALL, "-o", "json")
        self.assertEqual(code, 0, err)
        r = json.loads(out)
        self.assertEqual((r["outcome"], r["node"], r["decidedBy"]), ("preempt", "node-b", "fewest PDB violations"))
        self.assertEqual([v["pod"] for v in r["victims"]], ["team-a/render-1", "team-a/render-2"])
        self.assertEqual(r["victims"][0]["claimsFreed"], ["team-a/shared-gpu"])
        node_a = [c for c in r["candidates"] if c["node"] == "node-a"][0]
        self.assertEqual((node_a["pdbViolations"], node_a["victims"][0]["pdbViolated"]), (1, "team-a/batch"))
        self.assertEqual([(n["node"], n["filter"]) for n in r["nodes"]], [("node-c", "TaintToleration")])

    def test_released_mode_never_resolves_dra_and_never_policy_preempts_nothing(self):
        code, out, err = run("whatif", "preempt", "--pod", "team-a/trainer", "-f", self.SMALL, "--mode", "released",
                             "-o", "json")
        self.assertEqual(code, 1, err)
        r = json.loads(out)
        self.assertEqual((r["outcome"], r["draAware"]), ("no-candidate", False))
        self.assertEqual({n["node"]: n["filter"] for n in r["nodes"]},
                         {"node-a": "DynamicResources", "node-b": "DynamicResources", "node-c": "TaintToleration"})
        code, out, err = run("whatif", "preempt", "--pod", "team-a/polite", "-f", self.SMALL, "-o", "yaml")
        self.assertEqual(code, 1, err)
        self.assertIn("outcome: not-eligible\n", out)

    def test_bad_input_is_exit_2(self):
        for args, want in ((["--pod", "team-a/batch-1"], "is not pending (bound to node node-a)"),
                           (["--pod", "team-a/nope"], "pod team-a/nope not found"),
                           ([], "--pod NS/NAME is required"),
                           (["--pod", "team-a/trainer", "--mode", "eager"], 'unknown mode "eager"')):
            code, out, err = run("whatif", "preempt", "-f", self.SMALL, *args)
            self.assertEqual(code, 2, args)
            self.assertIn(want, err, args)
            self.assertEqual(out, "", args)


class Packages(unittest.TestCase):
    """draforge package: catalogs (examples/packages/catalog.yaml on the demo scenario)."""

    CATALOG = os.path.join(ROOT, "examples", "packages", "catalog.yaml")
    GOLDEN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "packages")

    def expand(self, package, name, *extra):
        return run("package", "expand", package, "--catalog", self.CATALOG, "--name", name, "--namespace", "team-a",
                   "--image", "registry.example/trainer:1.0", *extra)

    def test_expansion_is_byte_stable(self):
        # Golden files: tests/packages/run also sends them to an API server (server-side dry run).
        for package, name, golden in (("gpu-a100-2x-cpu16-mem128g", "trainer-1", "expand-gpu-a100-2x.yaml"),
                                      ("cpu-only-cpu4-mem16g", "web-1", "expand-cpu-only.yaml")):
            code, out, err = self.expand(package, name)
            self.assertEqual(code, 0, err)
            self.assertEqual(out, read(os.path.join(self.GOLDEN, golden)), golden)

    def test_expansion_as_json_is_a_list_with_the_same_objects(self):
        code, out, err = self.expand("gpu-a100-2x-cpu16-mem128g", "trainer-1", "-o", "json")
        self.assertEqual(code, 0, err)
        doc = json.loads(out)
        self.assertEqual(doc["kind"], "List")
        claim, pod = doc["items"]
        self.assertEqual((claim["kind"], claim["metadata"]["name"]), ("ResourceClaim", "trainer-1-gpu"))
        self.assertEqual(pod["spec"]["resourceClaims"], [{"name": "gpu", "resourceClaimName": "trainer-1-gpu"}])
        self.assertEqual(pod["spec"]["containers"][0]["resources"]["limits"], {"cpu": "16", "memory": "128Gi"})

    def test_expand_bad_input(self):
        code, _, err = self.expand("no-such-package", "x")
        self.assertEqual((code, err), (2, "error: package no-such-package not found in the catalog\n"))
        code, _, err = self.expand("cpu-only-cpu4-mem16g", "Not_A_Name")
        self.assertEqual(code, 2)
        self.assertIn('metadata.name: Invalid value: "Not_A_Name"', err)
        code, _, err = run("package", "expand", "cpu-only-cpu4-mem16g", "--catalog", self.CATALOG, "--name", "x")
        self.assertEqual((code, err), (2, "error: --image is required\n"))

    def test_validate_names_every_problem_with_its_field(self):
        with tempfile.TemporaryDirectory() as tmp:
            bad = write(tmp, "bad.yaml", "packages:\n- {id: a, cpu: '10', memory: 40Gi, gpu: 2, allocation: "
                        "{deviceClassName: nvidia-rtx-3080, claimRequestName: gpu, count: 3}}\n"
                        "- {id: b, cpu: ten, memory: 40Gi, gpu: 0}\n")
            code, out, err = run("package", "validate", "--catalog", bad)
            self.assertEqual(code, 2, out)
            self.assertIn("packages[0].allocation.count: Invalid value: 3: must equal gpu (2)", err)
            self.assertIn('packages[1].cpu: Invalid value: "ten"', err)
            unknown = write(tmp, "unknown.yaml", "packages:\n- {id: a, cpu: '10', memory: 40Gi, gpu: 2, allocation: "
                            "{deviceClassName: nvidia-rtx-3080, claimRequestName: gpu, count: 2}}\n")
            self.assertEqual(run("package", "validate", "--catalog", unknown)[0], 0)
            code, out, err = run("package", "validate", "--catalog", unknown, "-f", DEMO)
            self.assertEqual(code, 1, err)
            self.assertIn('packages[0].allocation.deviceClassName: Not found: "nvidia-rtx-3080"', out)
        code, out, err = run("package", "validate", "--catalog", self.CATALOG, "-f", DEMO)
        self.assertEqual(code, 0, err)
        self.assertEqual(out, "catalog %s: 6 packages, valid against the cluster\n" % self.CATALOG)

    def test_capacity_table(self):
        code, out, err = run("package", "capacity", "--catalog", self.CATALOG, "-f", DEMO, "--namespace", "team-a")
        self.assertEqual(code, 0, err)
        self.assertEqual(out, read(os.path.join(self.GOLDEN, "capacity-demo.txt")))

    def test_capacity_json_per_node_adds_up(self):
        code, out, err = run("package", "capacity", "--catalog", self.CATALOG, "-f", DEMO, "-o", "json")
        self.assertEqual(code, 0, err)
        for p in json.loads(out)["packages"]:
            c = p["capacity"]
            self.assertEqual(c["total"], sum(n["count"] for n in c["nodes"]), p["id"])
            self.assertTrue(c["resourcesChecked"])

    def test_capacity_within_quota(self):
        with tempfile.TemporaryDirectory() as tmp:
            quota = write(tmp, "quota.yaml", """apiVersion: v1
kind: ResourceQuota
metadata: {name: gpus, namespace: team-a}
spec:
  hard: {a100.gpu.example.com.deviceclass.resource.k8s.io/devices: "8"}
status:
  hard: {a100.gpu.example.com.deviceclass.resource.k8s.io/devices: "8"}
  used: {a100.gpu.example.com.deviceclass.resource.k8s.io/devices: "5"}
""")
            args = ["package", "capacity", "--catalog", self.CATALOG, "-f", DEMO, "-f", quota, "--namespace", "team-a",
                    "--id", "gpu-a100-1x-cpu8-mem64g", "-o", "json"]
            code, out, err = run(*args, "--quota")
            self.assertEqual(code, 0, err)
            c = json.loads(out)["packages"][0]["capacity"]
            self.assertEqual((c["total"], c["stop"]), (3, "quota"))
            self.assertEqual(c["quota"]["why"], "resourcequota team-a/gpus: a100.gpu.example.com.deviceclass.resource."
                             "k8s.io/devices: 1 per unit, 3 left (hard 8, used 5)")
            # Without --quota the devices bind: 5 A100 are free.
            self.assertEqual(json.loads(run(*args)[1])["packages"][0]["capacity"]["total"], 5)
            code, _, err = run("package", "capacity", "--catalog", self.CATALOG, "-f", DEMO, "--quota")
            self.assertEqual((code, err), (2, "error: --quota needs --namespace NS (whose ResourceQuotas count)\n"))

    def test_inventory(self):
        code, out, err = run("package", "inventory", "-f", DEMO, "-o", "json")
        self.assertEqual(code, 0, err)
        inv = json.loads(out)
        self.assertEqual((inv["draClaimCount"], inv["draAllocatedClaims"]), (5, 4))
        self.assertEqual(inv["namespaces"]["team-a"]["draAllocatedDevices"], inv["draAllocatedDevices"])
        code, out, err = run("package", "inventory", "-f", DEMO)
        self.assertEqual(code, 0, err)
        self.assertIn("totalGpuAllocatable", out)
        self.assertIn("team-a", out)

    def test_usage(self):
        code, _, err = run("package")
        self.assertEqual(code, 2)
        self.assertIn("package needs a subcommand", err)


class ClusterCredentials(unittest.TestCase):
    """What `--kubeconfig` does with a credential plugin that never answers."""

    def test_hung_exec_plugin_fails_within_its_deadline(self):
        with tempfile.TemporaryDirectory() as tmp:
            plugin = write(tmp, "hang.sh", "#!/bin/sh\necho 'open the browser to log in' >&2\nsleep 1000\n")
            os.chmod(plugin, 0o755)
            kubeconfig = write(tmp, "kubeconfig", f"""apiVersion: v1
kind: Config
current-context: c
clusters:
- name: c
  cluster: {{server: "https://127.0.0.1:1"}}
users:
- name: u
  user:
    exec: {{apiVersion: client.authentication.k8s.io/v1, command: "{plugin}"}}
contexts:
- name: c
  context: {{cluster: c, user: u}}
""")
            start = time.monotonic()
            code, out, err = run("get", "resourceslices", "--kubeconfig", kubeconfig)
            took = time.monotonic() - start
        self.assertNotEqual(code, 0, err)
        # lib/kube's default deadline (RestConfig::exec_timeout, 30 s): the plugin and the command named.
        self.assertIn(f"exec plugin {plugin} timed out after 30s", err)
        self.assertIn("open the browser to log in", err)
        self.assertEqual(out, "")
        self.assertLess(took, 30 + 20, err)


if __name__ == "__main__":
    sys.exit(tap.main())
