#!/usr/bin/env python3
"""Runs the Python suite (tests/python) as TAP for meson.

Usage: run_pytest.py [--] [PYTEST ARGS...]

The package under test is either the one installed in the interpreter (DRAFORGE_PYEXT unset, e.g.
after `pip install ./bindings/python`), or assembled in a temporary folder from
bindings/python/draforge/*.py and the extension module DRAFORGE_PYEXT that meson built. The
interpreter is $DRAFORGE_VENV/bin/python when that venv exists (tests/python/setup-venv), else this
one. pytest-tap prints one TAP line per test case, so every case counts.
"""
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]


def interpreter():
    venv = os.environ.get("DRAFORGE_VENV") or str(pathlib.Path.home() / ".cache" / "draforge" / "venv")
    candidate = pathlib.Path(venv) / "bin" / "python"
    return str(candidate) if candidate.exists() else sys.executable


def main():
    args = [a for a in sys.argv[1:] if a != "--"]
    paths = [a for a in args if not a.startswith("-")] or [str(HERE)]
    opts = [a for a in args if a.startswith("-")]
    python = interpreter()
    check = subprocess.run([python, "-c", "import pytest, pytest_tap"], capture_output=True)
    if check.returncode != 0:
        print("1..1\nnot ok 1 - pytest and pytest-tap are not installed for " + python +
              " (run tests/python/setup-venv)")
        return 0
    env = dict(os.environ)
    with tempfile.TemporaryDirectory() as tmp:
        ext = os.environ.get("DRAFORGE_PYEXT")
        if ext:
            pkg = pathlib.Path(tmp) / "draforge"
            shutil.copytree(ROOT / "bindings" / "python" / "draforge", pkg)
            shutil.copy(ext, pkg / pathlib.Path(ext).name)
            env["PYTHONPATH"] = tmp + os.pathsep + env.get("PYTHONPATH", "")
        # --assert=plain: with --tap-stream pytest has no terminal reporter, and its rich assertion
        # messages would crash (AssertionError inside get_terminal_writer) and hide the real failure.
        cmd = [python, "-m", "pytest", "-p", "tap", "--tap-stream", "-p", "no:cacheprovider", "--assert=plain", "-q",
               *opts, *paths]
        r = subprocess.run(cmd, env=env, cwd=tmp)
        # pytest's exit 5 (no tests collected) must not look like success.
        return r.returncode


if __name__ == "__main__":
    sys.exit(main())
