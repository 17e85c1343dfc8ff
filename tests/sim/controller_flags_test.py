#!/usr/bin/env python3
"""draforge-controller's command line: every flag as `--flag VALUE` and as `--flag=VALUE`, and the
manifest it ships with (deploy/manifests/draforge.yaml, rendered from the Helm chart) starts it as
written.

Usage: controller_flags_test.py PATH_TO_DRAFORGE_CONTROLLER   (run by `meson test`)
No cluster is needed: a kubeconfig path that does not exist stops the controller right after its
flags are parsed, with an error that names the path it was given (so the value was taken).
"""
import os
import subprocess
import sys
import unittest

import yaml

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
import tap  # noqa: E402
from project_version import project_version  # noqa: E402

CONTROLLER = sys.argv.pop(1) if len(sys.argv) > 1 else "build/examples/controller/draforge-controller"
ROOT = os.environ.get("DRAFORGE_SOURCE_ROOT", os.path.join(os.path.dirname(__file__), "..", ".."))
MISSING = "/nonexistent/draforge-test/kubeconfig"


def run(*args):
    env = {k: v for k, v in os.environ.items() if k not in ("KUBECONFIG", "KUBERNETES_SERVICE_HOST")}
    p = subprocess.run([CONTROLLER, *args], capture_output=True, text=True, timeout=30, env=env)
    return p.returncode, p.stdout, p.stderr


def deploy_args():
    with open(os.path.join(ROOT, "deploy", "manifests", "draforge.yaml")) as f:
        for doc in yaml.safe_load_all(f):
            if doc and doc.get("kind") == "Deployment" and doc["metadata"]["name"] == "draforge-controller":
                for c in doc["spec"]["template"]["spec"]["containers"]:
                    if c["name"] == "controller":
                        return [str(a) for a in c.get("args", [])]
    raise AssertionError("deploy/manifests/draforge.yaml has no draforge-controller Deployment with a container named controller")


class Flags(unittest.TestCase):
    def test_deploy_yaml_args_as_written_are_accepted(self):
        args = deploy_args()
        self.assertIn("--lease-namespace=draforge", args)  # the --flag=VALUE form that once failed
        code, out, err = run(*args, "--help")
        self.assertEqual(code, 0, err)
        self.assertIn("Usage: draforge-controller", out)
        # Not only parsed: the flags are taken, and the controller goes on to load its configuration.
        code, out, err = run(*args, "--kubeconfig", MISSING)
        self.assertEqual(code, 2)
        self.assertNotIn("unknown flag", err)
        self.assertIn(MISSING, err)

    def test_both_forms_take_the_value(self):
        for args in (["--kubeconfig", MISSING], ["--kubeconfig=" + MISSING]):
            code, _, err = run("--port=0", "--resync", "5", "--tick=0", "--lease-name=x", *args)
            self.assertEqual(code, 2, args)
            self.assertIn(MISSING, err, args)
            self.assertNotIn("Usage:", err, args)

    def test_an_empty_inline_value_is_a_value(self):
        # `--context=` selects the kubeconfig's current context, as `--context ""` does; it is not
        # "missing a value" and does not swallow the next flag.
        code, _, err = run("--context=", "--kubeconfig=" + MISSING)
        self.assertEqual(code, 2)
        self.assertIn(MISSING, err)

    def test_version_prints_the_library_version(self):
        code, out, err = run("--version")
        self.assertEqual((code, out), (0, "draforge-controller %s\n" % project_version(ROOT)), err)
        code, _, err = run("--version=1")
        self.assertEqual(code, 2)
        self.assertIn("--version takes no value", err)

    def test_bad_flags_exit_2_naming_the_flag(self):
        cases = [
            (["--bogus=1"], 'unknown flag "--bogus"'),
            (["--port=70000"], "--port"),
            (["--port=x"], '"x" is not a non-negative integer'),
            (["--resync=0"], "--resync must be at least 1"),
            (["--no-allocate=true"], "--no-allocate takes no value"),
            (["--lease-namespace"], "--lease-namespace needs a value"),
        ]
        for args, message in cases:
            code, out, err = run(*args)
            self.assertEqual(code, 2, args)
            self.assertIn(message, err, args)
            self.assertIn("Usage: draforge-controller", err, args)
            self.assertEqual(out, "", args)

    def test_help_documents_both_forms(self):
        code, out, _ = run("--help")
        self.assertEqual(code, 0)
        self.assertIn("--flag VALUE or --flag=VALUE", out)


if __name__ == "__main__":
    sys.exit(tap.main())
