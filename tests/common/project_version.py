"""The project's version as meson.build declares it: what `--version` of every binary must print."""
import os
import re

_ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")


def project_version(root=None):
    with open(os.path.join(root or _ROOT, "meson.build")) as f:
        m = re.search(r"^project\([^)]*?\bversion\s*:\s*'([^']+)'", f.read(), re.S | re.M)
    if m is None:
        raise AssertionError("meson.build: no version in project()")
    return m.group(1)


if __name__ == "__main__":
    print(project_version())
