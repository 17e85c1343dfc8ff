#!/usr/bin/env python3
"""The front ends use only the public surface: no lib/ header, no Abseil, no internal dependency.

Usage: check_front_ends.py ROOT ALLOW_LIST [--lib DIR] [--expect-violations]

Front ends are the programs built on the library: examples/ (the CLI, the server, the controller,
the consumers, ...) and bindings/ (the Python package). Their sources (*.cc, *.h, *.cpp, *.c) must
not include a header that resolves under lib/ ("api/codec.h", "store/cluster.h", "../../lib/x.h"),
nor Abseil ("absl/..."); their meson.build files must not use draforge_internal_dep (lib/ on the
include path, the static archives) nor draforge_capi_static_dep (the C ABI's objects with lib/ on
the include path) -- except bindings/python, whose wheel links the C ABI statically by design so
that it carries no libdraforge.so: there it must take the link part only,
`.partial_dependency(links : true, link_args : true)`, so that lib/ is not on its include path.

ALLOW_LIST names the known violations, one "PATH: WHAT" a line ('#' starts a comment), as today's
ports have not all landed. It may only shrink: the check fails on a violation it does not list and
on an entry that is no longer a violation. --lib is the folder headers resolve against (default
ROOT/lib). With --expect-violations ROOT is a deliberately broken tree (tests/capi/front_ends_planted)
and the check must report exactly its planted violations and its stale allow-list entry.

Prints TAP.
"""
import os
import pathlib
import re
import sys

FRONT_END_DIRS = ("examples", "bindings")
SOURCE_SUFFIXES = {".cc", ".h", ".cpp", ".c", ".hpp"}
SKIP_DIRS = {"node_modules", "subprojects", "build", ".venv"}
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.M)
INTERNAL_DEPS = ("draforge_internal_dep", "draforge_capi_static_dep")
# The Python wheel links the C ABI's objects statically (bindings/python/meson.build).
STATIC_CAPI_ALLOWED = ("bindings/python/",)


def front_end_files(root):
    for top in FRONT_END_DIRS:
        # os.walk does not follow links: bindings/python/subprojects/draforge links to the root.
        for dirpath, dirnames, filenames in os.walk(root / top):
            dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS)
            for name in sorted(filenames):
                path = pathlib.Path(dirpath) / name
                if path.suffix in SOURCE_SUFFIXES or name == "meson.build":
                    yield path, path.relative_to(root).as_posix()


def include_violations(path, rel, lib):
    """'REL: HEADER' for each include of lib/ or Abseil. A quoted include that exists next to the
    including file is the front end's own header, as the compiler would find it first."""
    text = re.sub(r"/\*.*?\*/", " ", path.read_text(errors="replace"), flags=re.S)
    found = []
    for m in INCLUDE.finditer(text):
        quote, header = m.group(1), m.group(2).strip()
        if header.startswith("absl/"):
            found.append(f"{rel}: {header}")
            continue
        local = (path.parent / header).resolve()
        if quote == '"' and local.is_file():
            if lib in local.parents:
                found.append(f"{rel}: {header}")
            continue
        if (lib / header).is_file():
            found.append(f"{rel}: {header}")
    return found


def links_only(text):
    """Every use of draforge_capi_static_dep takes only its link part (no lib/ include path)."""
    uses = re.findall(r"draforge_capi_static_dep'?\)?(\.partial_dependency\([^)]*\))?", text)
    return all(u and re.fullmatch(r"\.partial_dependency\(\s*links\s*:\s*true\s*,\s*link_args\s*:\s*true\s*\)", u)
               for u in uses)


def meson_violations(path, rel):
    text = "\n".join(line.split("#", 1)[0] for line in path.read_text(errors="replace").splitlines())
    found = []
    for dep in INTERNAL_DEPS:
        if re.search(rf"\b{dep}\b", text):
            if dep == "draforge_capi_static_dep" and rel.startswith(STATIC_CAPI_ALLOWED) and links_only(text):
                continue
            found.append(f"{rel}: {dep}")
    return found


def violations(root, lib):
    found = []
    for path, rel in front_end_files(root):
        if path.name == "meson.build":
            found += meson_violations(path, rel)
        else:
            found += include_violations(path, rel, lib)
    return found


def read_allow_list(path):
    entries = []
    for line in pathlib.Path(path).read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            entries.append(re.sub(r"\s*:\s*", ": ", line, count=1))
    return entries


def main():
    args = sys.argv[1:]
    expect_violations = "--expect-violations" in args
    args = [a for a in args if a != "--expect-violations"]
    lib = None
    if "--lib" in args:
        i = args.index("--lib")
        lib = pathlib.Path(args[i + 1]).resolve()
        del args[i:i + 2]
    root = pathlib.Path(args[0]).resolve()
    lib = lib or root / "lib"
    allowed = read_allow_list(args[1])

    found = violations(root, lib)
    new = sorted(set(found) - set(allowed))
    stale = sorted(set(allowed) - set(found))
    duplicates = sorted({a for a in allowed if allowed.count(a) > 1})
    for v in new:
        print(f"# not in the allow-list: {v}")
    for v in stale:
        print(f"# allow-list entry that is no longer a violation (delete it): {v}")
    for v in duplicates:
        print(f"# allow-list entry listed twice: {v}")

    if expect_violations:
        # The planted tree: every kind of violation once, plus one stale entry.
        planted = {
            "examples/bad/bad.cc: store/cluster.h",
            "examples/bad/bad.cc: absl/status/status.h",
            "examples/bad/bad.cc: ../../../../../lib/api/codec.h",
            "examples/bad/bad.h: common/status.h",
            "examples/bad/meson.build: draforge_internal_dep",
            "examples/bad/meson.build: draforge_capi_static_dep",
            "bindings/python/meson.build: draforge_capi_static_dep",
        }
        caught = set(new) == planted and stale == ["examples/bad/ported.cc: api/object.h"]
        print("1..1")
        print(f"{'ok' if caught else 'not ok'} 1 - the planted violations are reported (a lib/ header by name and "
              f"by relative path, Abseil, both internal dependencies, the Python wheel's static C ABI with lib/ on "
              f"its include path) and so is the stale allow-list entry; the "
              f"allowed one and the front end's own header are not")
        return 0

    checks = [
        ("no front end includes a lib/ header or Abseil, or uses an internal dependency, beyond the allow-list", new),
        ("every allow-list entry is still a violation (the list only shrinks)", stale + duplicates),
    ]
    print(f"1..{len(checks)}")
    for n, (name, bad) in enumerate(checks, 1):
        print(f"{'not ok' if bad else 'ok'} {n} - {name}")
    print(f"# {len(found)} known violations left in {args[1]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
