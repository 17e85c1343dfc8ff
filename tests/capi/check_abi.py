#!/usr/bin/env python3
"""The ABI of libdraforge equals the committed baseline (tests/capi/abi/libdraforge.abi).

Usage:
  check_abi.py LIBRARY BUILD_INCLUDE_DIR [--mutant MUTANT_LIBRARY]   TAP: the gate plus proofs
  check_abi.py LIBRARY BUILD_INCLUDE_DIR --update                    rewrites the baseline

The gate: abidw of LIBRARY (exported interfaces, public types only, as declared in
include/draforge/) compared by abidiff with the baseline; any difference fails, compatible or not,
so that an ABI change is always a deliberate edit of the baseline (docs/api-stability.md).
The proofs that the gate can fail: (a) a recorded example, the baseline with the return type of
draforge_snapshot_generation changed from uint64_t to int, which abidiff must flag as a changed
function; (b) with --mutant, a deliberately broken build that exports one more function, which
abidiff must flag as an added function.
"""
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
BASELINE = HERE / "abi" / "libdraforge.abi"
HEADERS = HERE.parents[1] / "include" / "draforge"


def abidw(lib, include_dir, out):
    # version.h is generated into the build tree; the others are in the source tree.
    cmd = ["abidw", "--exported-interfaces-only", "--drop-private-types", "--no-show-locs",
           "--no-comp-dir-path", "--no-corpus-path", "--headers-dir", str(HEADERS),
           "--header-file", str(pathlib.Path(include_dir) / "draforge" / "version.h"), "--out-file", str(out), lib]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"abidw failed ({r.returncode}): {r.stderr.strip()} (is the library built with -g?)")
    # Dependencies' sonames are the platform's business, not our ABI: drop them so that a Debian
    # point release of Abseil does not look like a change of ours.
    text = re.sub(r"\s*<elf-needed>.*?</elf-needed>", "", pathlib.Path(out).read_text(), flags=re.S)
    # Translation-unit paths are relative to the build directory: keep them from the source root on.
    text = re.sub(r"path='[^']*?/(capi/[^']+)'", r"path='\1'", text)
    pathlib.Path(out).write_text(text)


def abidiff(old, new):
    r = subprocess.run(["abidiff", "--no-show-locs", str(old), str(new)], capture_output=True, text=True)
    return r.returncode, r.stdout + r.stderr


def main():
    lib, include_dir = sys.argv[1], sys.argv[2]
    args = sys.argv[3:]
    if shutil.which("abidw") is None or shutil.which("abidiff") is None:
        print("1..1\nnot ok 1 - abidw/abidiff not installed (Debian package abigail-tools)")
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        if "--update" in args:
            abidw(lib, include_dir, BASELINE)
            print(f"wrote {BASELINE}")
            return 0
        mutant = args[args.index("--mutant") + 1] if "--mutant" in args else None
        print(f"1..{3 if mutant else 2}")
        current = tmp / "current.abi"
        try:
            abidw(lib, include_dir, current)
        except RuntimeError as e:
            print(f"not ok 1 - abidw: {e}")
            return 0
        code, report = abidiff(BASELINE, current)
        if code != 0:
            print("# " + report.replace("\n", "\n# "))
            print("# If the change is intended, run: tests/capi/check_abi.py LIB BUILD/include --update")
        print(f"{'ok' if code == 0 else 'not ok'} 1 - libdraforge's ABI equals tests/capi/abi/libdraforge.abi")

        # (a) Recorded example: a changed signature.
        text = BASELINE.read_text()
        int_id = re.search(r"<type-decl name='int' size-in-bits='32' id='([^']+)'", text).group(1)
        decl = re.search(r"(<function-decl name='draforge_snapshot_generation'.*?<return type-id=')([^']+)(')",
                         text, flags=re.S)
        changed = text[:decl.start(2)] + int_id + text[decl.end(2):]
        (tmp / "changed.abi").write_text(changed)
        code, report = abidiff(BASELINE, tmp / "changed.abi")
        flagged = code != 0 and "draforge_snapshot_generation" in report and "return type changed" in report
        if not flagged:
            print("# " + report.replace("\n", "\n# "))
        print(f"{'ok' if flagged else 'not ok'} 2 - a changed signature (draforge_snapshot_generation returning int) "
              f"fails the check (abidiff exit {code})")

        if mutant:
            mutant_abi = tmp / "mutant.abi"
            abidw(mutant, include_dir, mutant_abi)
            code, report = abidiff(BASELINE, mutant_abi)
            flagged = code != 0 and "draforge_debug_dump" in report
            if not flagged:
                print("# " + report.replace("\n", "\n# "))
            print(f"{'ok' if flagged else 'not ok'} 3 - a build with an accidental export (draforge_debug_dump) "
                  f"fails the check (abidiff exit {code})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
