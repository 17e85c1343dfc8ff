#!/usr/bin/env python3
"""Regenerates the conformance fixtures of this folder (*.yaml) from public upstream test data.

Sources (read, never copied: only each case's name and expression are taken):
  * cel-spec tests/simple/testdata/*.textproto (github.com/google/cel-spec): every test without
    variable bindings, type environment, container or disabled checking/macros;
  * Kubernetes' CEL library tests, k8s.io/apiserver v0.37.2 pkg/cel/library/{quantity,semver,cost,
    format,ip,cidr}_test.go: every `expr:` string.

The expected outcome of each case is what upstream's DRA CEL environment (`dra-cel`, tests/oracle:
k8s.io/dynamic-resource-allocation v0.37.2 on cel-go v0.29.2, DRAListTypeAttributes on, no device)
produces: the result as a CEL literal, the runtime error, or the compile error. A case the DRA
environment does not enable (cel-go itself reports an undeclared function/type or a proto message)
is written with `skip:` and the reason, and listed by the test.

Usage: generate.py CEL_SPEC_DIR K8S_APISERVER_DIR DRA_CEL
  CEL_SPEC_DIR:      a checkout of github.com/google/cel-spec (tests/simple/testdata under it)
  K8S_APISERVER_DIR: k8s.io/apiserver@v0.37.2 (e.g. the Go module cache copy)
  DRA_CEL:           the oracle binary (tests/oracle/build)
"""
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

# cel-spec files whose tests need what the DRA environment does not have at all.
SKIP_FILES = {
    "proto2": "protobuf messages (the DRA environment declares no message types)",
    "proto2_ext": "protobuf messages and extensions",
    "proto3": "protobuf messages",
    "wrappers": "protobuf wrapper types",
    "enums": "protobuf enums",
    "dynamic": "protobuf well-known types (google.protobuf.Struct, Value, Any)",
    "unknowns": "partial evaluation with unknowns (not used by the scheduler)",
    "block_ext": "cel.@block (not enabled in Kubernetes)",
    "math_ext": "the math extension (not enabled in Kubernetes)",
    "encoders_ext": "base64 encoders (not enabled in Kubernetes)",
    "network_ext": "the cel-spec network extension (Kubernetes has its own ip/cidr library)",
    "broken": "tests of the test runner itself",
}


def unquote_proto(s):
    """The value of a textproto string literal body (C-style escapes)."""
    out = bytearray()
    i = 0
    b = s.encode("utf-8")
    while i < len(b):
        c = b[i]
        if c != 0x5C:
            out.append(c)
            i += 1
            continue
        n = chr(b[i + 1])
        simple = {"n": 10, "t": 9, "r": 13, '"': 34, "'": 39, "\\": 92, "a": 7, "b": 8, "f": 12, "v": 11}
        if n in simple:
            out.append(simple[n])
            i += 2
        elif n in "01234567":
            j = i + 1
            while j < len(b) and j < i + 4 and chr(b[j]) in "01234567":
                j += 1
            out.append(int(b[i + 1:j].decode(), 8))
            i = j
        elif n == "x":
            out.append(int(b[i + 2:i + 4].decode(), 16))
            i += 4
        else:
            out.append(b[i + 1])
            i += 2
    return out.decode("utf-8", errors="surrogateescape")


def spec_cases(spec_dir):
    """(file, section, test name, expr, why-skipped) for every test of the simple conformance files."""
    data = os.path.join(spec_dir, "tests", "simple", "testdata")
    for fn in sorted(os.listdir(data)):
        if not fn.endswith(".textproto"):
            continue
        base = fn[:-len(".textproto")]
        text = open(os.path.join(data, fn), encoding="utf-8").read()
        section = ""
        # Split on top-level "test {" blocks; track the section names in between.
        for m in re.finditer(r'section\s*:?\s*\{\s*name:\s*"([^"]*)"|test\s*:?\s*\{', text):
            if m.group(1) is not None:
                section = m.group(1)
                continue
            # The block: balance braces from here.
            depth, j = 0, m.end() - 1
            while True:
                ch = text[j]
                if ch == '"':
                    j += 1
                    while text[j] != '"':
                        j += 2 if text[j] == "\\" else 1
                elif ch == "{":
                    depth += 1
                elif ch == "}":
                    depth -= 1
                    if depth == 0:
                        break
                j += 1
            block = text[m.end():j]
            name = re.search(r'^\s*name:\s*"([^"]*)"', block, re.M)
            expr = re.search(r'^\s*expr:\s*"((?:[^"\\]|\\.)*)"', block, re.M)
            if not name or not expr:
                continue
            why = SKIP_FILES.get(base)
            if not why:
                if re.search(r"^\s*(bindings|type_env)\s*[:{]", block, re.M):
                    why = "needs variables the DRA environment does not declare"
                elif re.search(r"^\s*container:", block, re.M):
                    why = "needs a container (the DRA environment has none)"
                elif re.search(r"^\s*disable_(check|macros):\s*true", block, re.M):
                    why = "runs without the type checker or macros (the DRA environment always has both)"
                elif re.search(r"^\s*check_only:\s*true", block, re.M):
                    why = "a type-check-only test"
            yield (base, section, name.group(1), unquote_proto(expr.group(1)), why)


def go_string(s):
    if s.startswith("`"):
        return s[1:-1]
    return json.loads(s)


def k8s_cases(apiserver_dir):
    lib = os.path.join(apiserver_dir, "pkg", "cel", "library")
    for base in ("quantity", "semver", "cost", "format", "ip", "cidr"):
        text = open(os.path.join(lib, base + "_test.go"), encoding="utf-8").read()
        seen = set()
        for i, m in enumerate(re.finditer(r'expr:\s*(`[^`]*`|"(?:[^"\\]|\\.)*")', text)):
            expr = go_string(m.group(1))
            if expr in seen or "%s" in expr or "self" in expr:
                continue
            seen.add(expr)
            yield ("k8s_" + base, base + "_test.go", f"{base}_{i}", expr, None)


NOT_ENABLED_RX = re.compile(r"undeclared reference to '([^']*)'|unknown type|no such overload|found no matching overload for '(isURL|url|ip|cidr|isIP|isCIDR|format\.[a-z0-9]+)'")


def yaml_str(s):
    return json.dumps(s, ensure_ascii=False)


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    spec_dir, apiserver_dir, oracle = sys.argv[1:]
    cases = list(spec_cases(spec_dir)) + list(k8s_cases(apiserver_dir))
    run = [c for c in cases if not c[4]]
    lines = "".join(json.dumps({"expression": c[3]}, ensure_ascii=False) + "\n" for c in run)
    out = subprocess.run([oracle, "--feature-gates", "DRAListTypeAttributes=true"], input=lines, capture_output=True,
                         text=True, check=True).stdout.splitlines()
    results = dict(zip((id(c) for c in run), (json.loads(l) for l in out)))
    files = {}
    for c in cases:
        files.setdefault(c[0], []).append(c)
    for base, cs in files.items():
        path = os.path.join(HERE, base + ".yaml")
        with open(path, "w", encoding="utf-8") as f:
            src = (f"k8s.io/apiserver v0.37.2 pkg/cel/library/{cs[0][1]}" if base.startswith("k8s_")
                   else f"github.com/google/cel-spec tests/simple/testdata/{base}.textproto")
            f.write(f"# Generated by generate.py from {src} (names and expressions only).\n"
                    "# Expected: what cel-go v0.29.2 in Kubernetes 1.37's DRA CEL environment produces (dra-cel).\n"
                    "cases:\n")
            for c in cs:
                name = f"{c[1]}/{c[2]}" if c[1] and not base.startswith("k8s_") else c[2]
                f.write(f"- name: {yaml_str(name)}\n  expr: {yaml_str(c[3])}\n")
                if c[4]:
                    f.write(f"  skip: {yaml_str(c[4])}\n")
                    continue
                r = results[id(c)]
                if "compileError" in r:
                    msg = r["compileError"]
                    m = NOT_ENABLED_RX.search(msg)
                    if m and ("undeclared reference" in msg or "unknown type" in msg):
                        f.write(f"  skip: {yaml_str('not in the DRA environment: ' + msg.splitlines()[0].split(': ', 2)[-1])}\n")
                    else:
                        f.write(f"  compile_error: {yaml_str(msg.splitlines()[0])}\n")
                elif "runtimeError" in r:
                    f.write(f"  runtime_error: {yaml_str(r['runtimeError'])}\n")
                else:
                    f.write(f"  value: {yaml_str(r['result'])}\n")
        print(f"{path}: {len(cs)} cases")


if __name__ == "__main__":
    main()
