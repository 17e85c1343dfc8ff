#!/usr/bin/env python3
"""The exported symbols of a shared library equal the functions the public headers declare.

Usage: check_symbols.py LIBRARY HEADER_DIR [--expect-violations]

Prints TAP. Checks: (1) every exported symbol starts with draforge_, (2) every export is declared
with DRAFORGE_API in a header, (3) every DRAFORGE_API declaration is exported. With
--expect-violations the library is a deliberately broken build (tests/capi/abi/mutant_export.cc)
and the checks must FAIL on it: this proves the checker catches an accidental export.
"""
import pathlib
import re
import subprocess
import sys


def exported(lib):
    out = subprocess.run(["nm", "-D", "--defined-only", lib], check=True, capture_output=True, text=True).stdout
    names = set()
    for line in out.splitlines():
        parts = line.split()
        # Code and data of every binding (T/t, W/w weak, V/v, D, B, R, i): anything a consumer can bind.
        if len(parts) == 3 and parts[1] in "TWVDBRiuw":
            names.add(parts[2].split("@")[0])
    return names


def declared(header_dir):
    names = set()
    for h in sorted(pathlib.Path(header_dir).glob("*.h")):
        text = re.sub(r"/\*.*?\*/", " ", h.read_text(), flags=re.S)
        text = re.sub(r"^\s*#.*$", " ", text, flags=re.M)  # the DRAFORGE_API definition itself
        for m in re.finditer(r"DRAFORGE_API\s+[^;(]*?\b(\w+)\s*\(", text):
            names.add(m.group(1))
    return names


def main():
    lib, header_dir = sys.argv[1], sys.argv[2]
    expect_violations = "--expect-violations" in sys.argv[3:]
    exp, decl = exported(lib), declared(header_dir)
    checks = [
        ("every export has the draforge_ prefix", sorted(s for s in exp if not s.startswith("draforge_"))),
        ("every export is declared in a public header", sorted(s for s in exp - decl if s.startswith("draforge_"))),
        ("every declaration is exported", sorted(decl - exp)),
    ]
    for name, bad in checks:
        if bad:
            print(f"# {name}: violated by " + ", ".join(bad[:20]))
    if expect_violations:
        # One case: the broken build must be rejected for exactly the exports it was built to leak.
        caught = "leaked_helper" in checks[0][1] and "draforge_debug_dump" in checks[1][1]
        print("1..1")
        print(f"{'ok' if caught else 'not ok'} 1 - the deliberately broken build is rejected: leaked_helper "
              f"(no prefix) and draforge_debug_dump (in no header) are reported")
        return 0
    print(f"1..{len(checks) + 1}")
    for n, (name, bad) in enumerate(checks, 1):
        print(f"{'not ok' if bad else 'ok'} {n} - {name}")
    print(f"{'ok' if len(decl) >= 40 else 'not ok'} {len(checks) + 1} - the headers declare the ABI "
          f"({len(decl)} functions)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
