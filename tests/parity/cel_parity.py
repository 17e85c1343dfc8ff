#!/usr/bin/env python3
"""CEL parity with cel-go: feeds the same expressions and devices to DRAForge (`draforge cel eval
--batch`) and to upstream's DRA CEL package (tests/oracle `dra-cel`, k8s.io/dynamic-resource-allocation
v0.37.2 / cel-go v0.29.2) and compares their JSON lines one by one.

Inputs:
  1. every expression of the tests/cel table (tests/cel/cel_conformance_test.cc) against the table's
     device (selector mode), and again without a device (any result type, `device` unbound);
  2. --count expressions generated at random (--seed) from a typed grammar: literals of every type,
     arithmetic with overflow, comparisons across numeric types, logical operators with errors,
     string functions, lists, maps, macros, optionals, quantity, semver and device attribute/capacity
     access (with missing domains and keys) over random devices. Two thirds are selectors (bool)
     evaluated against a random device, one third are value expressions without a device. Half of
     them run with DRAListTypeAttributes=true, half with the Kubernetes 1.37 default gates. They include
     the Kubernetes URL library (url, isURL, the get* accessors, equality), the format library
     (format.<name>(), format.named, validate, equality) and timestamp getters in named time zones
     and offsets, type errors the checker reports with its own text (a non-bool operand of && and ||,
     mixed-type arithmetic) and quantities beyond int64 (isInteger(), asInteger() and comparisons on
     them).
  3. --count / 5 expressions over random strings for the URL parser, the format validators and
     the time zone argument of the timestamp getters.
  4. protobuf well-known message construction (cel_wellknown.py): its fixed tables
     (FIXED_EXPRESSIONS without a device, one expression per behaviour: wrappers, Value, Struct,
     ListValue, Duration, Timestamp, Empty, Any, conversions, compile errors; SELECTOR_EXPRESSIONS
     against the table's device), then --count / 4 generated expressions
     (seed-derived, 4 in 10 selectors over a random device): the grammar of 2. with, at every node,
     a 30% chance of a form built around `google.protobuf.X{...}` — well-typed field values mostly,
     ill-typed ones (compile errors), dyn()-wrapped ones converted at runtime (overflow, wrong
     type), JSON conversion into Value/Struct/ListValue, Any payloads, optional field initializers,
     the messages inside comparisons, arithmetic, list/map literals, type(), has(), macros and
     optionals. Families 1-3 produce the same expressions for a seed as before this family existed.

A case passes when both sides agree on the outcome (compile error / runtime error / result) and, for
results, on the result literal. Costs (runtime and estimated) are compared exactly: a difference the
lib/cel README lists as a known deviation (recognised from the expression; none at present) is
listed but does not fail; any other cost difference fails.
Outcome differences the README lists (existsOne/exists_one arity, empty list attributes) are listed
and do not fail either. The generator also covers the Kubernetes URL and format libraries and named
time zones in the timestamp getters; a format value prints a Go function address upstream, which
is ignored when comparing. A google.protobuf.Value construction that sets two members of its oneof has
a random winner in cel-go (the fields are set in Go map order), so its result differences are listed
with the map-order ones, not failed. A case on which cel-go itself crashes (a Go panic, e.g. cel-go
v0.29.2's literal validator on `[?dyn(optional.of(1))]`) has nothing to compare with: it is listed and
counted neither passed nor failed (a DRAForge crash always fails). Differences named in
tests/parity/known-divergences/cel-expressions.yaml are listed under their name and do not fail.
Error texts are compared and their differences listed by kind (informational, not failures). One
quirk of the oracle's printer is undone: it prints the results of quantity add()/sub() as bare text.
Prints one block per failure (with a shell reproducer), the failures grouped by kind, and ends with
`N passed, N failed`; exit status 1 on any failure.

Usage: cel_parity.py [--seed N] [--count N] [--table FILE] [--verbose] [--dump FILE] [DRAFORGE [DRA_CEL]]
Defaults: build/examples/cli/draforge; $ORACLE_BIN/dra-cel (ORACLE_BIN defaults to .cache/oracle/bin;
built with tests/oracle/build when missing); seed 1; count 6000 (about 10 seconds on the shared 2-core
machine). Reproduce one case with the `repro:` line printed under it. Python 3 only.
"""
import argparse
import json
import os
import random
import re
import shlex
import subprocess
import sys
import tempfile
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cel_wellknown import FIXED_EXPRESSIONS as WELLKNOWN_TABLE, SELECTOR_EXPRESSIONS as WELLKNOWN_SELECTORS  # noqa: E402
from cel_wellknown import WellKnownMixin, value_oneof_conflict  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

LIST_GATES = "DRAListTypeAttributes=true"

# The device of tests/cel/cel_conformance_test.cc (ConformanceTest::Device).
TABLE_DEVICE = {
    "driver": "dra.example.com",
    "attributes": {
        "name": {"bool": True},
        "model": {"string": "a100"},
        "memory": {"int": 40},
        "version": {"version": "1.2.3"},
        "ints": {"ints": [3, 1, 2]},
        "strs": {"strings": ["a", "b"]},
        "other.example.com/name": {"string": "other"},
    },
    "capacity": {"memory": {"value": "1Gi"}, "cores": {"value": "8"}},
    "allowMultipleAllocations": False,
}


# --- the tests/cel table ------------------------------------------------------------------------

def c_string(text, i):
    """Parses the C string literal starting at text[i] == '"'; returns (value, index after it)."""
    assert text[i] == '"'
    out = []
    i += 1
    simple = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "\\": "\\", "'": "'", "0": "\0"}
    while text[i] != '"':
        c = text[i]
        if c == "\\":
            n = text[i + 1]
            if n in simple:
                out.append(simple[n])
                i += 2
                continue
            raise ValueError(f"unsupported C escape \\{n}")
        out.append(c)
        i += 1
    return "".join(out), i + 1


def table_expressions(path):
    exprs = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith('    {"') and "Outcome::" in line:
                value, _ = c_string(line, line.index('"'))
                exprs.append(value)
    return exprs


# --- the random grammar -------------------------------------------------------------------------

INT_LITS = ["0", "1", "-1", "2", "3", "7", "-7", "10", "42", "-42", "100", "4611686018427387904",
            "9223372036854775807", "-9223372036854775808", "0x1F", "-0x10"]
UINT_LITS = ["0u", "1u", "3u", "7u", "10u", "18446744073709551615u", "9223372036854775808u", "0x10u"]
DOUBLE_LITS = ["0.0", "-0.0", "0.5", "1.5", "-2.5", "3.0", "1e10", "1e308", "-1e308", "2.5e-3", ".5",
               "1e3", "123456.789", "0.1", "1e-7", "4e-320"]
STRING_LITS = ['""', '"a"', '"abc"', "'hello'", '"Hello, World"', '"héllo"', '"日本語"', '"a\\nb"',
               '"\\u00e9"', '"a,b,c"', '"  pad  "', '"ABC"', '"1.5"', '"42"', '"-7"', '"true"', '"1.2.3"',
               '"v1.2.3"', '"1Gi"', '"100m"', 'r"raw\\n"', '"""tri"ple"""', '"\\x41"', '"😀"', '"\\u200b"',
               '"it\'s"', '"b"', '"l"', '"ell"', '"\\t"', '"0"', '"f"', '"a100"', '"gpu"', '"1e3"']
BYTES_LITS = ['b"abc"', "b''", 'b"\\xff\\x00"', 'b"h\\xc3\\xa9"', 'b"a"']
REGEXES = ['"^a"', '"b+"', '"[0-9]+"', '"^$"', '".*"', '"(a|b)c"', '"["', '"é"', '"^[a-z]+[0-9]*$"',
           '"(?i)ABC"', '"\\\\d"', '"l+"']
QUANTITY_STRS = ['"1"', '"1Gi"', '"1.5Gi"', '"100m"', '"1k"', '"1e3"', '"0.1"', '"1M"', '"-1"', '"1Ki"',
                 '"abc"', '"1.5"', '"2.5Mi"', '"80Gi"', '"0"', '"1E"', '"999999999999999999"', '"1.0"',
                 '"10n"', '"1MB"']
# Quantities beyond int64 (apimachinery keeps them as inf.Dec, capped at 2^63-1 for binary suffixes):
# isInteger()/asInteger() and comparisons on them.
HUGE_QUANTITY_STRS = ['"9999999999999999999999999999999999999G"', '"9223372036854775808"', '"8Ei"', '"1e19"',
                      '"-9223372036854775809"', '"12345678901234567890Ki"', '"9223372036854775807"']
SEMVER_STRS = ['"1.2.3"', '"1.0.0-alpha"', '"1.0.0-rc.1+build.5"', '"2.0.0"', '"0.9.12"', '"v1.2.3"',
               '"1.2"', '"01.2.3"', '"1.2.3-01"', '"10.20.30"', '"1.0.0-alpha.1"', '"1.0.0-0.3.7"']
BOOL_STRS = ['"true"', '"false"', '"t"', '"yes"', '"1"', '"TRUE"']
SEPARATORS = ['","', '"-"', '""']
SPLITTERS = ['","', '""', '"l"']
DRIVERS = ["gpu.example.com", "dra.example.com"]
OTHER_DOMAIN = "other.example.com"
ATTR_NAMES = ["model", "memory", "index", "version", "numa", "family", "flags", "ids", "tags", "vers",
              "healthy", "uuid"]
CAP_NAMES = ["memory", "cores", "slots"]
CAP_VALUES = ["80Gi", "132", "1", "500m", "1.5Ti", "0", "40Gi", "2k", "1e3"]
VAR_NAMES = ["x", "y", "v", "e"]

SCALARS = ["int", "uint", "double", "bool", "string", "bytes"]

# The Kubernetes URL and format libraries and named time zones (Go's net/url, apimachinery and
# kube-openapi validators, time.LoadLocation over the system zoneinfo).
URL_STRS = ['"https://example.com"', '"http://user:pass@host:8080/p/a/t/h?query=1&q=2#frag"',
            '"HTTPS://EXAMPLE.COM/%7Euser"', '"/relative/path?x=1"', '"mailto:a@b.c"', '"ftp://[::1]:21/"',
            '"http://[fe80::1%25en0]:80/"', '"http://a b"', '""', '"*"', '"example.com"', '"http://h:x/"',
            '"http://a:b:80/"', '"ftp://a:b:80/"', '"https://a/%zz"', '"https://a/b%2Fc%20d"',
            '"http://[1.2.3.4]/"', '"http://h/?a=1;b=2&c=3"', '"http://h/?a=%41&a=+b&c&=d"', '"http://h/p?"',
            '"http://h/p#f%20g"', '"https://u@h@x/"', '"http://[::1"', '"http://%41/"', '"//host/path"',
            '"https://xn--nxasmq6b.example/ü"', '"http://h:/"', '"s3://bucket/key?versionId=7"']
URL_GETTERS = ["getScheme", "getHost", "getHostname", "getPort", "getEscapedPath"]
FORMAT_NAMES = ["dns1123Label", "dns1123Subdomain", "dns1035Label", "qualifiedName", "dns1123LabelPrefix",
                "dns1123SubdomainPrefix", "dns1035LabelPrefix", "labelValue", "uri", "uuid", "byte", "date",
                "datetime"]
FORMAT_INPUTS = ['"my-name"', '"a b"', '"abc-"', '"-abc"', '"Example.com"', '"example.com"', '"a.b.c"', '"1abc"',
                 '"123e4567-e89b-12d3-a456-426614174000"', '"123E4567E89B12D3A456426614174000"', '"aGVsbG8="',
                 '"aGVsbG8"', '"aGk="', '"2021-02-29"', '"2020-02-29"', '"2021-13-01"', '"2021-01-01T10:00:00Z"',
                 '"2021-01-01t10:00:00.5+05:00"', '"2021-01-01T24:00:00Z"', '"2021-01-01T10:00:00"',
                 '"http://x"', '"x"', '"example.com/name"', '"a/b/c"', '"my_value"', '"_x"', '""',
                 '"' + "a" * 64 + '"', '"' + "a" * 63 + '"', '"a-"', '"ab-"', '"a.-"']
TIMESTAMP_STRS = ['"2009-02-13T23:31:30Z"', '"2021-03-14T10:00:00Z"', '"2021-11-07T08:30:00Z"',
                  '"1969-12-31T23:59:59.999Z"', '"0001-01-01T00:00:00Z"', '"9999-12-31T23:59:59Z"',
                  '"2024-02-29T12:00:00+05:30"', '"1900-06-01T00:00:00Z"']
TIME_ZONES = ['"UTC"', '"America/Los_Angeles"', '"Europe/Berlin"', '"Asia/Kolkata"', '"Australia/Lord_Howe"',
              '"+05:30"', '"-08:00"', '"Nowhere/Zone"', '""', '"5:3"', '"x:1"', '"America"', '"../x"',
              '"Etc/GMT+5"', '"US/Pacific"', '"Asia/Kathmandu"', '"Pacific/Chatham"', '"-0:30"', '"zone.tab"',
              '"1:99"', '"Z"', '"utc"', '"/etc/localtime"']
QUERY_KEYS = ['"a"', '"q"', '"query"', '""', '"c"']
FORMAT_NAME_STRS = ['"' + n + '"' for n in FORMAT_NAMES] + ['"unknown"', '"dns1123subdomain"']
TS_GETTERS = ["getFullYear", "getMonth", "getDate", "getDayOfMonth", "getDayOfYear", "getDayOfWeek", "getHours",
              "getMinutes", "getSeconds", "getMilliseconds"]


class Gen:
    def __init__(self, rng, device=None):
        self.rng = rng
        self.device = device  # when set, expressions may read `device`
        self.vars = []        # (name, type) of enclosing macro/bind variables

    def pick(self, xs):
        return self.rng.choice(xs)

    def chance(self, p):
        return self.rng.random() < p

    def var_of(self, t):
        cands = [n for n, vt in self.vars if vt == t]
        return self.pick(cands) if cands else None

    def with_var(self, t, fn):
        name = self.pick([n for n in VAR_NAMES if n not in [v for v, _ in self.vars]] or ["z"])
        self.vars.append((name, t))
        try:
            return name, fn()
        finally:
            self.vars.pop()

    # -- device access --
    def domain(self):
        d = self.device["driver"]
        return self.pick([d, d, d, OTHER_DOMAIN, "missing.example.com"])

    def attr(self):
        return f'device.attributes["{self.domain()}"].{self.pick(ATTR_NAMES)}'

    def cap(self):
        return f'device.capacity["{self.domain()}"].{self.pick(CAP_NAMES)}'

    def device_bool(self, d):
        dom = self.domain()
        name = self.pick(ATTR_NAMES)
        a = f'device.attributes["{dom}"].{name}'
        forms = [
            lambda: f'device.driver == "{self.pick(DRIVERS)}"',
            lambda: "device.allowMultipleAllocations",
            lambda: f"has({a})",
            lambda: f'"{name}" in device.attributes["{dom}"]',
            lambda: f'"{dom}" in device.attributes',
            lambda: f"{a} == {self.lit(self.pick(['int', 'string', 'bool']))}",
            lambda: f"{a} > {self.gen('int', d)}",
            lambda: f"{a}.startsWith({self.gen('string', d)})",
            lambda: f'{a}.isGreaterThan(semver({self.pick(SEMVER_STRS[:5])}))',
            lambda: f'{a}.compareTo(semver("1.2.3")) >= 0',
            lambda: f"device.attributes[\"{dom}\"].?{name}.orValue({self.lit('int')}) == {self.lit('int')}",
            lambda: f"{a}.includes({self.lit(self.pick(['int', 'string']))})",
            lambda: f"{a}.exists(x, x == {self.lit('int')})",
            lambda: f"{a}.size() > 1",
            lambda: f"{self.cap()}.compareTo(quantity({self.pick(QUANTITY_STRS[:10])})) >= 0",
            lambda: f"{self.cap()}.isGreaterThan(quantity(\"1\"))",
            lambda: f'has(device.capacity["{dom}"].{self.pick(CAP_NAMES)})',
            lambda: f'device.attributes["{dom}"].size() {self.pick(["==", ">", "<"])} {self.pick(["0", "1", "3"])}',
            lambda: f'cel.bind(a, device.attributes["{dom}"], has(a.{name}) && a.{name} == {self.lit("string")})',
            lambda: f'device.attributes["{dom}"].exists(k, k.startsWith("m"))',
            lambda: f"{a}.matches({self.pick(REGEXES)})",
            lambda: f'{a}.?{self.pick(["x", "y"])}.hasValue()',
        ]
        return self.pick(forms)()

    # -- literals --
    def lit(self, t):
        if t == "int":
            return self.pick(INT_LITS)
        if t == "uint":
            return self.pick(UINT_LITS)
        if t == "double":
            return self.pick(DOUBLE_LITS)
        if t == "bool":
            return self.pick(["true", "false"])
        if t == "string":
            return self.pick(STRING_LITS)
        if t == "bytes":
            return self.pick(BYTES_LITS)
        if t == "null":
            return "null"
        raise ValueError(t)

    def list_lit(self, elem, d):
        n = self.pick([0, 1, 2, 3, 3, 4])
        return "[" + ", ".join(self.gen(elem, d) for _ in range(n)) + "]"

    def gen(self, t, d):
        """An expression of type t (mostly well-typed), depth budget d."""
        if d <= 0 or self.chance(0.25):
            v = self.var_of(t)
            if v and self.chance(0.6):
                return v
            if t in SCALARS:
                if self.device is not None and t in ("int", "string", "bool") and self.chance(0.1):
                    return self.attr()
                return self.lit(t)
        d -= 1
        g = lambda tt: self.gen(tt, d)
        f = getattr(self, "gen_" + t.replace("(", "_").replace(")", "").replace(",", "_"))
        return f(g, d)

    def gen_int(self, g, d):
        return self.pick([
            lambda: f"{g('int')} {self.pick(['+', '-', '*', '/', '%'])} {g('int')}",
            lambda: f"-({g('int')})",
            lambda: f"size({g('string')})",
            lambda: f"{g('list_int')}.size()",
            lambda: f"size({g('bytes')})",
            lambda: f"{g('map_string_int')}.size()",
            lambda: f"int({g('double')})",
            lambda: f"int({g('uint')})",
            lambda: f"int({g('string')})",
            lambda: f"{g('list_int')}[{g('int')}]",
            lambda: f"{g('map_string_int')}[{g('string')}]",
            lambda: f"({g('bool')} ? {g('int')} : {g('int')})",
            lambda: f"{g('string')}.indexOf({g('string')})",
            lambda: f"{g('string')}.lastIndexOf({g('string')})",
            lambda: f"{g('quantity')}.asInteger()",
            lambda: f"{g('quantity')}.sign()",
            lambda: f"{g('quantity')}.compareTo({g('quantity')})",
            lambda: f"{g('semver')}.{self.pick(['major', 'minor', 'patch'])}()",
            lambda: f"{g('semver')}.compareTo({g('semver')})",
            lambda: f"{g('list_int')}.{self.pick(['sum', 'min', 'max'])}()",
            lambda: f"{g('list_int')}.{self.pick(['indexOf', 'lastIndexOf'])}({g('int')})",
            lambda: "cel.bind({0}, {1}, {2})".format(*self.bind("int", g)),
            lambda: f"{g('opt_int')}.orValue({g('int')})",
            lambda: f"{g('opt_int')}.value()",
            lambda: f"dyn({g('uint')}) + 1",
            lambda: f"{g('list_int')}.map(x, x * {g('int')}).sum()",
            lambda: self.ts_getter(),
            lambda: self.ts_getter(),
            lambda: f"{self.url()}.getQuery().size()",
            lambda: f"size({self.url()}.getQuery()[{self.pick(QUERY_KEYS)}])",
        ])()

    # -- the URL and format libraries, time zones --
    def url(self):
        return f"url({self.pick(URL_STRS)})"

    def format_value(self):
        if self.chance(0.3):
            return f"format.named({self.pick(FORMAT_NAME_STRS)}).value()"
        return f"format.{self.pick(FORMAT_NAMES)}()"

    def format_input(self, g):
        return g("string") if self.chance(0.2) else self.pick(FORMAT_INPUTS)

    def ts_getter(self):
        ts = f"timestamp({self.pick(TIMESTAMP_STRS)})"
        getter = self.pick(TS_GETTERS)
        if self.chance(0.2):
            return f"{ts}.{getter}()"
        return f"{ts}.{getter}({self.pick(TIME_ZONES)})"

    def bind(self, t, g):
        init = g(t)
        name, body = self.with_var(t, lambda: self.gen(t, 1))
        return name, init, body

    def gen_uint(self, g, d):
        return self.pick([
            lambda: f"{g('uint')} {self.pick(['+', '-', '*', '/', '%'])} {g('uint')}",
            lambda: f"uint({g('int')})",
            lambda: f"uint({g('double')})",
            lambda: f"uint({g('string')})",
            lambda: f"({g('bool')} ? {g('uint')} : {g('uint')})",
        ])()

    def gen_double(self, g, d):
        return self.pick([
            lambda: f"{g('double')} {self.pick(['+', '-', '*', '/'])} {g('double')}",
            lambda: f"-({g('double')})",
            lambda: f"double({g('int')})",
            lambda: f"double({g('uint')})",
            lambda: f"double({g('string')})",
            lambda: f"{g('quantity')}.asApproximateFloat()",
            lambda: f"{g('list_double')}.sum()",
            lambda: f"({g('bool')} ? {g('double')} : {g('double')})",
        ])()

    def numeric_cmp(self, g):
        t1, t2 = self.pick(["int", "uint", "double"]), self.pick(["int", "uint", "double"])
        op = self.pick(["<", "<=", ">", ">=", "==", "!="])
        if op in ("==", "!=") and t1 != t2:
            if self.chance(0.7):
                return f"dyn({g(t1)}) {op} {g(t2)}"
        return f"{g(t1)} {op} {g(t2)}"

    def gen_bool(self, g, d):
        forms = [
            lambda: self.numeric_cmp(g),
            lambda: self.numeric_cmp(g),
            lambda: f"{g('bool')} && {g('bool')}",
            lambda: f"{g('bool')} || {g('bool')}",
            lambda: f"!{g('bool')}",
            lambda: f"({g('bool')} ? {g('bool')} : {g('bool')})",
            lambda: f"{g('string')} {self.pick(['<', '<=', '>', '>=', '==', '!='])} {g('string')}",
            lambda: f"{g('bytes')} {self.pick(['<', '==', '!='])} {g('bytes')}",
            lambda: f"{g('string')}.{self.pick(['contains', 'startsWith', 'endsWith'])}({g('string')})",
            lambda: f"{g('string')}.matches({self.pick(REGEXES)})",
            lambda: f"{g('int')} in {g('list_int')}",
            lambda: f"{g('string')} in {g('map_string_int')}",
            lambda: f"{g('string')} in {g('list_string')}",
            lambda: f"has({{'a': {g('int')}}}.{self.pick(['a', 'b'])})",
            lambda: self.macro_bool(g),
            lambda: self.macro_bool(g),
            lambda: f"isQuantity({self.pick(QUANTITY_STRS)})",
            lambda: f"isSemver({self.pick(SEMVER_STRS)}{self.pick(['', ', true', ', false'])})",
            lambda: f"{g('quantity')}.{self.pick(['isLessThan', 'isGreaterThan'])}({g('quantity')})",
            lambda: f"{g('quantity')} == {g('quantity')}",
            lambda: f"{g('quantity')}.isInteger()",
            lambda: f"{g('semver')}.{self.pick(['isLessThan', 'isGreaterThan'])}({g('semver')})",
            lambda: f"{g('semver')} == {g('semver')}",
            lambda: f"{g('opt_int')}.hasValue()",
            lambda: f"sets.{self.pick(['contains', 'intersects', 'equivalent'])}({g('list_int')}, {g('list_int')})",
            lambda: f"{g('list_int')}.isSorted()",
            lambda: f"{g('list_int')} == {g('list_int')}",
            lambda: f"{g('map_string_int')} == {g('map_string_int')}",
            lambda: f"bool({self.pick(BOOL_STRS)})",
            lambda: f"type({g(self.pick(SCALARS))}) == {self.pick(SCALARS)}",
            lambda: f"{g('int')} / 0 == 1 || {g('bool')}",
            lambda: f"{g('bool')} && {g('int')} / 0 == 1",
            lambda: "cel.bind({0}, {1}, {2})".format(*self.bind("bool", g)),
            lambda: f"{g('opt_string')}.orValue(\"none\") == {g('string')}",
            lambda: f"isURL({self.pick(URL_STRS)})",
            lambda: f"{self.url()}.{self.pick(URL_GETTERS)}() == {g('string')}",
            lambda: f"{self.url()} == {self.url()}",
            lambda: f"{self.format_value()}.validate({self.format_input(g)}).hasValue()",
            lambda: f"{self.format_value()} == {self.format_value()}",
            lambda: f"format.named({g('string')}).hasValue()",
            lambda: f"{self.ts_getter()} {self.pick(['==', '<', '>='])} {g('int')}",
        ]
        if self.device is not None:
            forms += [lambda: self.device_bool(d)] * 8
        return self.pick(forms)()

    def macro_bool(self, g):
        elem = self.pick(["int", "string", "double"])
        rng = g("list_" + elem)
        # (2-argument existsOne and 3-argument exists_one are a documented deviation: not generated.)
        if self.chance(0.2):
            macro = self.pick(["all", "exists", "existsOne"])
            name2, body = self.with_var(elem, lambda: self.gen("bool", 2))
            return f"{rng}.{macro}(i, {name2}, {body})"
        macro = self.pick(["all", "exists", "exists_one"])
        name, body = self.with_var(elem, lambda: self.gen("bool", 2))
        return f"{rng}.{macro}({name}, {body})"

    def gen_string(self, g, d):
        return self.pick([
            lambda: f"{g('string')} + {g('string')}",
            lambda: f"string({g(self.pick(['int', 'uint', 'double', 'bool', 'bytes', 'string']))})",
            lambda: f"{g('string')}.{self.pick(['lowerAscii', 'upperAscii', 'trim', 'reverse'])}()",
            lambda: f"{g('string')}.replace({g('string')}, {g('string')})",
            lambda: f"{g('string')}.replace({g('string')}, {g('string')}, {self.pick(['-1', '0', '1', '2'])})",
            lambda: f"{g('string')}.substring({self.pick(['0', '1', '2', '5', '-1'])})",
            lambda: f"{g('string')}.substring({self.pick(['0', '1', '2'])}, {self.pick(['0', '1', '3', '9'])})",
            lambda: f"{g('string')}.charAt({self.pick(['0', '1', '2', '3', '-1', '10'])})",
            lambda: f"{g('list_string')}.join()",
            lambda: f"{g('list_string')}.join({self.pick(SEPARATORS)})",
            lambda: f"strings.quote({g('string')})",
            lambda: f"{g('string')}.find({self.pick(REGEXES)})",
            lambda: f"({g('bool')} ? {g('string')} : {g('string')})",
            lambda: f"{g('list_string')}[{self.pick(['0', '1', '2', '-1'])}]",
            lambda: f"{g('opt_string')}.orValue({g('string')})",
            lambda: "cel.bind({0}, {1}, {2})".format(*self.bind("string", g)),
            lambda: f"{{'a': 'x', 'b': 'y'}}[{g('string')}]",
            lambda: f"{self.url()}.{self.pick(URL_GETTERS)}()",
            lambda: f"{self.url()}.getQuery()[{self.pick(QUERY_KEYS)}][0]",
            lambda: self.format_value() + ".validate(" + self.format_input(g) + ').orValue(["valid"]).join("; ")',
        ])()

    def gen_bytes(self, g, d):
        return self.pick([
            lambda: f"bytes({g('string')})",
            lambda: f"{g('bytes')} + {g('bytes')}",
        ])()

    def gen_list_int(self, g, d):
        return self.pick([
            lambda: self.list_lit("int", d),
            lambda: self.list_lit("int", d),
            lambda: f"{g('list_int')} + {g('list_int')}",
            lambda: f"{g('list_int')}.map(x, x {self.pick(['*', '+', '-'])} {self.lit('int')})",
            lambda: f"{g('list_int')}.filter(x, x {self.pick(['>', '<', '=='])} {self.lit('int')})",
            lambda: f"{g('list_int')}.map(x, x > 0, x + 1)",
            lambda: f"[?{g('opt_int')}, {g('int')}]",
            lambda: f"{g('list_string')}.map(s, size(s))",
        ])()

    def gen_list_string(self, g, d):
        return self.pick([
            lambda: self.list_lit("string", d),
            lambda: self.list_lit("string", d),
            lambda: f"{g('string')}.split({self.pick(SPLITTERS)})",
            lambda: f"{g('string')}.split(',', {self.pick(['-1', '0', '1', '2'])})",
            lambda: f"{g('string')}.findAll({self.pick(REGEXES)})",
            lambda: f"{g('list_string')}.map(x, x + {g('string')})",
            lambda: f"{g('list_string')}.filter(x, x.size() > 1)",
        ])()

    def gen_list_double(self, g, d):
        return self.pick([
            lambda: self.list_lit("double", d),
            lambda: f"{g('list_int')}.map(x, double(x) / 2.0)",
        ])()

    def gen_map_string_int(self, g, d):
        keys = self.rng.sample(["'a'", "'b'", "'c'", '"a"'], self.pick([0, 1, 2, 3]))
        return self.pick([
            lambda: "{" + ", ".join(f"{k}: {self.lit('int')}" for k in keys) + "}",
            lambda: "{" + ", ".join(f"{k}: {g('int')}" for k in keys) + "}",
            lambda: f"{{?'a': {g('opt_int')}, 'b': {g('int')}}}",
            lambda: "{'a': 1, 'b': 2}",
        ])()

    def gen_opt_int(self, g, d):
        return self.pick([
            lambda: f"optional.of({g('int')})",
            lambda: "optional.none()",
            lambda: f"{g('map_string_int')}.?{self.pick(['a', 'b', 'z'])}",
            lambda: f"{g('map_string_int')}[?{g('string')}]",
            lambda: f"{g('list_int')}[?{self.pick(['0', '1', '5', '-1'])}]",
            lambda: f"optional.ofNonZeroValue({g('int')})",
            lambda: f"{g('opt_int')}.or({g('opt_int')})",
        ])()

    def gen_opt_string(self, g, d):
        return self.pick([
            lambda: f"optional.of({g('string')})",
            lambda: "optional.none()",
            lambda: f"{{'a': 'x'}}.?{self.pick(['a', 'b'])}",
            lambda: f"optional.ofNonZeroValue({g('string')})",
            lambda: f"{g('list_string')}[?{self.pick(['0', '2'])}]",
            # Type errors the checker reports with its own text ("expected type 'bool' but found
            # 'string'" for the logical operators, "found no matching overload" elsewhere).
            lambda: f"{g(self.pick(['string', 'int', 'list_int', 'quantity']))} {self.pick(['&&', '||'])} {g('bool')}",
            lambda: f"{g('bool')} {self.pick(['&&', '||'])} {g(self.pick(['double', 'map_string_int']))}",
            lambda: f"!{g(self.pick(['string', 'int']))}",
            lambda: f"{g('int')} {self.pick(['<', '+', '=='])} {g('string')}",
        ])()

    def gen_quantity(self, g, d):
        forms = [
            lambda: f"quantity({self.pick(QUANTITY_STRS)})",
            lambda: f"quantity({self.pick(QUANTITY_STRS)})",
            lambda: f"quantity({self.pick(HUGE_QUANTITY_STRS)})",
            lambda: f"{g('quantity')}.{self.pick(['add', 'sub'])}({g('quantity')})",
            lambda: f"{g('quantity')}.{self.pick(['add', 'sub'])}({g('int')})",
        ]
        if self.device is not None:
            forms.append(self.cap)
        return self.pick(forms)()

    def gen_semver(self, g, d):
        return self.pick([
            lambda: f"semver({self.pick(SEMVER_STRS)})",
            lambda: f"semver({self.pick(SEMVER_STRS)}, true)",
        ])()

    def gen_dyn(self, g, d):
        return f"dyn({g(self.pick(SCALARS + ['list_int', 'map_string_int']))})"

    def value_expression(self, depth):
        t = self.pick(SCALARS + ["int", "string", "list_int", "list_string", "list_double", "map_string_int",
                                 "opt_int", "opt_string", "quantity", "semver", "dyn"])
        if self.chance(0.08):
            return self.pick([
                lambda: self.url(),
                lambda: f"{self.url()}.getQuery()",
                lambda: f"{self.format_value()}.validate({self.format_input(lambda t: self.gen(t, 1))})",
                lambda: f"type({self.pick([self.url(), self.format_value()])})",
                lambda: f"[{self.url()}, {self.url()}]",
            ])()
        return self.gen(t, depth)


class WellKnownGen(WellKnownMixin, Gen):
    """The grammar above with protobuf well-known message construction mixed in (cel_wellknown.py):
    at every node, with probability WELLKNOWN_WEIGHT, an expression of the requested type built around
    a google.protobuf message. A class of its own so that Gen's draws, and with them the expressions
    of the other families for a given seed, stay as they were."""

    def gen(self, t, d):
        if t == "null":
            return "null"
        if self.chance(WELLKNOWN_WEIGHT if d > 0 else WELLKNOWN_WEIGHT / 6):
            form = self.wkt_form(t, max(0, d - 1))
            if form is not None:
                return form
        return super().gen(t, d)


WELLKNOWN_WEIGHT = 0.3


def random_device(rng, list_types):
    driver = rng.choice(DRIVERS)
    attrs = {}
    for name in rng.sample(ATTR_NAMES, rng.randint(0, 7)):
        kinds = ["int", "bool", "string", "version"]
        if list_types:
            kinds += ["ints", "strings", "bools", "versions"]
        kind = rng.choice(kinds)
        if kind == "int":
            v = rng.choice([0, 1, 3, 40, -1, 9223372036854775807])
        elif kind == "bool":
            v = rng.choice([True, False])
        elif kind == "string":
            v = rng.choice(["a100", "gpu", "", "Hello", "héllo", "1.2.3", "abc123"])
        elif kind == "version":
            v = rng.choice(["1.2.3", "2.0.0-rc.1", "0.9.12", "10.20.30+build", "1.2.3"] + (["1.2"] if rng.random() < 0.1 else []))
        elif kind == "ints":
            v = [rng.choice([0, 1, 2, 3, 40]) for _ in range(rng.randint(1, 4))]
        elif kind == "strings":
            v = [rng.choice(["a", "b", "gpu", "x"]) for _ in range(rng.randint(1, 3))]
        elif kind == "bools":
            v = [rng.choice([True, False]) for _ in range(rng.randint(1, 3))]
        else:
            v = [rng.choice(["1.2.3", "2.0.0", "0.1.0-alpha"]) for _ in range(rng.randint(1, 3))]
        key = name
        r = rng.random()
        if r < 0.2:
            key = f"{OTHER_DOMAIN}/{name}"
        elif r < 0.3:
            key = f"{driver}/{name}"
        attrs[key] = {kind: v}
    caps = {}
    for name in rng.sample(CAP_NAMES, rng.randint(0, 3)):
        key = name if rng.random() < 0.8 else f"{OTHER_DOMAIN}/{name}"
        caps[key] = {"value": rng.choice(CAP_VALUES)}
    device = {"driver": driver}
    if attrs or rng.random() < 0.5:
        device["attributes"] = attrs
    if caps or rng.random() < 0.5:
        device["capacity"] = caps
    if rng.random() < 0.6:
        device["allowMultipleAllocations"] = rng.random() < 0.5
    return device


# Random strings for the parsers and validators of the URL and format libraries and the time zone
# argument of the timestamp getters: Go's net/url, apimachinery/kube-openapi formats, strconv.Atoi
# and time.LoadLocation on inputs no list above anticipates.
URL_ALPHABET = "ab:/?#[]@!$&'()*+,;=%2F5A0-._~ \\\"\u00e9\t"
URL_PREFIXES = ["http://", "https://", "ftp://", "//", "/", "mailto:", "", "http://[::1]", "http://u:p@", "s:"]
DATE_ALPHABET = "0123456789-:tTzZ.+ "
ZONE_ALPHABET = "0123456789+-:xAmerica/New_YorkUTC"


def string_cases(seed, count):
    rng = random.Random(seed * 7919 + 17)
    cases = []
    for _ in range(count):
        kind = rng.random()
        if kind < 0.55:
            s = rng.choice(URL_PREFIXES) + "".join(rng.choice(URL_ALPHABET) for _ in range(rng.randint(0, 14)))
            q = json.dumps(s)
            expr = rng.choice([f"url({q})", f"isURL({q})", f"url({q}).getHost()", f"url({q}).getQuery()",
                               f"url({q}).getEscapedPath()", f"url({q}).getPort()", f"url({q}).getHostname()",
                               f"url({q}) == url({q})", f"format.uri().validate({q})"])
        elif kind < 0.85:
            s = "".join(rng.choice(DATE_ALPHABET) for _ in range(rng.randint(0, 26)))
            if rng.random() < 0.5:
                s = f"2021-0{rng.randint(0, 9)}-{rng.randint(10, 39)}{rng.choice('Tt ')}{s}"
            q = json.dumps(s)
            expr = f"format.{rng.choice(['datetime', 'date', 'uuid', 'byte', 'labelValue', 'qualifiedName'])}().validate({q})"
        else:
            s = "".join(rng.choice(ZONE_ALPHABET) for _ in range(rng.randint(0, 8)))
            expr = f"timestamp('2021-06-01T12:00:00Z').{rng.choice(['getMinutes', 'getDayOfYear'])}({json.dumps(s)})"
        cases.append({"expression": expr})
    return cases


def random_cases(seed, count, list_types):
    rng = random.Random(seed)
    cases = []
    for _ in range(count):
        if rng.random() < 2 / 3:
            device = random_device(rng, list_types)
            expr = Gen(rng, device).gen("bool", rng.randint(1, 4))
            cases.append({"expression": expr, "device": device})
        else:
            expr = Gen(rng).value_expression(rng.randint(1, 4))
            cases.append({"expression": expr})
    return cases


def wellknown_cases(seed, count):
    """The well-known message family, from its own Random (the other families' draws are untouched):
    4 in 10 selectors over a random device (messages nested in device expressions); of the rest, half
    a message or a direct use of one (wkt_top), half a value expression of the host grammar."""
    rng = random.Random(seed * 104729 + 5)
    cases = []
    for _ in range(count):
        depth = rng.randint(1, 3)
        if rng.random() < 0.4:
            device = random_device(rng, True)
            cases.append({"expression": WellKnownGen(rng, device).gen("bool", depth), "device": device})
        elif rng.random() < 0.5:
            cases.append({"expression": WellKnownGen(rng).wkt_top(depth)})
        else:
            cases.append({"expression": WellKnownGen(rng).value_expression(depth)})
    return cases


# --- running and comparing ----------------------------------------------------------------------

GO_PANIC_RX = re.compile(r"^panic: .*\n\ngoroutine \d+ \[", re.M)


def run_lines(cmd, lines, results, key):
    """Runs cmd over the JSON lines. If it dies on a line (a crash), that line's output is
    {"crash": ...} and the run continues after it."""
    out, start, rc, err = [], 0, 0, ""
    while start < len(lines):
        with tempfile.TemporaryFile("w+", encoding="utf-8") as f:
            f.write("".join(json.dumps(l, ensure_ascii=False) + "\n" for l in lines[start:]))
            f.seek(0)
            p = subprocess.run(cmd, stdin=f, capture_output=True, text=True)
        got = [json.loads(x) for x in p.stdout.splitlines() if x.strip()]
        out += got
        start += len(got)
        rc, err = p.returncode, p.stderr
        # Exit status 2 is a usage error (stop), unless it is a Go panic: cel-go itself panics on some
        # expressions (`[?dyn(optional.of(1))]`), which is that line's crash.
        if start >= len(lines) or (rc == 2 and not GO_PANIC_RX.search(err)):
            break
        why = f"exit status {rc}" if rc >= 0 else f"killed by signal {-rc}"
        panic = GO_PANIC_RX.search(err)
        detail = panic.group(0).splitlines()[0] if panic else err.strip()[-300:]
        out.append({"crash": f"{why}: {detail}"})
        start += 1
        rc = 0
    results[key] = (rc, out, err)


def run_both(draforge, oracle, lines, gates):
    gate_args = ["--feature-gates", gates] if gates else []
    results = {}
    threads = [
        threading.Thread(target=run_lines, args=(["nice", draforge, "cel", "eval", "--batch", *gate_args], lines, results, "ours")),
        threading.Thread(target=run_lines, args=(["nice", oracle, *gate_args], lines, results, "theirs")),
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for key in ("ours", "theirs"):
        rc, out, err = results[key]
        if rc != 0 or len(out) != len(lines):
            sys.exit(f"{key}: exit {rc}, {len(out)} output lines for {len(lines)} inputs: {err.strip()[:2000]}")
    return results["ours"][1], results["theirs"][1]


def outcome(r):
    if "crash" in r:
        return "crash"
    if "compileError" in r:
        return "compile error"
    if "runtimeError" in r:
        return "runtime error"
    return "result"


def message(r):
    return r.get("compileError") or r.get("runtimeError") or r.get("crash") or ""


# Known deviations of lib/cel/README.md that make costs differ, recognised from the expression.
RUNTIME_COST_DEVIATIONS = [
]
# The estimator is a port of cel-go's: no estimate difference is expected.
ESTIMATE_DEVIATIONS = []


def documented_outcome(o, t):
    """A README-listed deviation that changes the outcome, recognised from the two outputs."""
    mo, mt = message(o), message(t)
    if re.search(r"'(existsOne|exists_one)'", mo + mt):
        return "existsOne/exists_one accepted with 2 and 3 arguments (README)"
    if "unsupported attribute value" in mo and "unsupported attribute value" not in mt:
        return "empty list attribute is 'unsupported attribute value' (README)"
    return None


# A comprehension over a map (device.attributes[D].exists(k, ...), {'a': 1}.map(k, k)): cel-go iterates
# a Go map, whose order is random, so the order of a list built from it and where a short-circuiting
# macro stops (and with it the runtime cost) change from run to run. For such expressions a differing
# result list or runtime cost is listed, not failed.
MACROS = r"(all|exists|exists_one|existsOne|map|filter|transformList|transformMap|transformMapEntry)"
MAP_ITERATION_RX = re.compile(r'(device\.(attributes|capacity)(\["[^"]*"\])?|\})\s*\.' + MACROS + r'\(')
# The same holds for a google.protobuf.Value construction that sets two members of its oneof
# (value_oneof_conflict, cel_wellknown.py): cel-go sets the fields in Go map order, so the member
# that wins is random.


KNOWN_DIVERGENCES = os.path.join(ROOT, "tests", "parity", "known-divergences", "cel-expressions.yaml")


def load_divergences(path):
    """The named divergences of known-divergences/cel-expressions.yaml, with compiled matchers."""
    import yaml  # PyYAML, as random_parity.py
    with open(path, encoding="utf-8") as f:
        entries = yaml.safe_load(f) or []
    out = []
    for e in entries:
        m = e["match"]
        out.append({"name": e["name"], "expression": re.compile(m["expression"]),
                    "field": re.compile(m["field"]) if m.get("field") else None,
                    "theirs": re.compile(m["theirs"]) if m.get("theirs") else None})
    return out


def known_divergence(divergences, expr, problems, theirs):
    """The name of the divergence that explains every problem of a case, or None."""
    text = message(theirs) or str(theirs.get("result", ""))
    for d in divergences:
        if not d["expression"].search(expr):
            continue
        if d["theirs"] and not d["theirs"].search(text):
            continue
        if d["field"] and not all(d["field"].fullmatch(p.split(":")[0]) for p in problems):
            continue
        return d["name"]
    return None


def documented(expr, patterns):
    for rx, why in patterns:
        if rx.search(expr):
            return why
    return None


# A quirk of the oracle's printer (tests/oracle internal/celfmt): the results of quantity add()/sub()
# are *apiservercel.Quantity, which celfmt does not recognise, so it prints them with cel-go's
# types.Format as the bare canonical text (`1001` instead of `quantity("1001")`).
QUANTITY_RX = re.compile(r'quantity\("([^"]*)"\)')


# cel-go prints a kubernetes.NamedFormat value with Go's %v, function pointer address included;
# DRAForge prints 0x0 there.
FUNC_ADDRESS_RX = re.compile(r"\(func\(string\) \[\]string=0x[0-9a-f]+\)")


def same_result(ours, theirs, expr):
    if ours == theirs:
        return True
    if FUNC_ADDRESS_RX.sub("(func)", ours) == FUNC_ADDRESS_RX.sub("(func)", theirs):
        return True
    if ("add(" in expr or "sub(" in expr) and QUANTITY_RX.sub(r"\1", ours) == QUANTITY_RX.sub(r"\1", theirs):
        return True
    return False


def reproducer(line, gates):
    g = f" --feature-gates {gates}" if gates else ""
    text = shlex.quote(json.dumps(line, ensure_ascii=False))
    return (f"printf '%s\\n' {text} | draforge cel eval --batch{g}   # vs: | dra-cel{g}")


def short(r):
    """An output reduced to what identifies a kind of difference."""
    if outcome(r) == "result":
        return "result"
    m = re.sub(r"ERROR: <input>:\d+:\d+: ", "", message(r)).split("\n")[0]
    m = re.sub(r"no such key: .*", "no such key: _", m)
    m = re.sub(r"'[^']*'|\"[^\"]*\"|\b\d+\b", "_", m)
    return f"{outcome(r)}: {m[:90]}"


def failure_kind(o, t, problems):
    if outcome(o) != outcome(t):
        return f"outcome: ours {short(o)} / cel-go {short(t)}"
    if problems[0].startswith("result"):
        return "result literal"
    fields = []
    for p in problems:
        field = p.split(":")[0]
        fields.append(field + (" (ours saturated at 2^64-1)" if f"ours {2**64 - 1}" in p else ""))
    return "cost: " + ", ".join(fields)


def compare(name, lines, ours, theirs, gates, report):
    for line, o, t in zip(lines, ours, theirs):
        expr = line["expression"]
        problems = []
        oo, to = outcome(o), outcome(t)
        if to == "crash" and oo != "crash":
            # Nothing to compare with: upstream has no answer. Listed and counted apart.
            report["upstream_crashes"].append((name, expr, message(t), line, gates, o))
            continue
        if oo == "crash" and to == "crash":
            problems.append(f"outcome: ours crash ({message(o)}), cel-go crash too ({message(t)})")
        elif oo != to:
            problems.append(f"outcome: ours {oo} ({message(o) or o.get('result')!r}), cel-go {to} "
                            f"({message(t) or t.get('result')!r})")
        elif oo == "result":
            if not same_result(o["result"], t["result"], expr):
                if MAP_ITERATION_RX.search(expr) or value_oneof_conflict(expr):
                    report["map_order"].append(f"[{name}] result: ours {o['result']}, cel-go {t['result']}: {expr}")
                else:
                    problems.append(f"result: ours {o['result']}, cel-go {t['result']}")
            else:
                if o["result"] != t["result"]:
                    report["oracle_format"] += 1
                for field, patterns in (("cost", RUNTIME_COST_DEVIATIONS), ("estimatedCost", ESTIMATE_DEVIATIONS)):
                    if field == "cost" and o.get(field) != t.get(field) and MAP_ITERATION_RX.search(expr):
                        report["map_order"].append(f"[{name}] cost: ours {o['cost']}, cel-go {t['cost']}: {expr}")
                        continue
                    if o.get(field) != t.get(field):
                        why = documented(expr, patterns)
                        entry = (name, expr, field, o.get(field), t.get(field), why, line, gates)
                        if why:
                            report["documented_costs"].append(entry)
                        else:
                            report["undocumented_costs"].append(entry)
                            problems.append(f"{field}: ours {o.get(field)}, cel-go {t.get(field)} (not a documented deviation)")
        elif message(o) != message(t):
            report["messages"].append((name, expr, oo, message(o), message(t), line, gates))
        why = documented_outcome(o, t) if problems and oo != to else None
        known = known_divergence(report["divergences"], expr, problems, t) if problems and not why else None
        if why:
            report["documented_outcomes"].append((name, expr, problems, line, gates, why))
            report["passed"] += 1
        elif known:
            report["known"].setdefault(known, []).append((name, expr, problems, line, gates))
            report["passed"] += 1
        elif problems:
            report["failed"] += 1
            report["failures"].append((name, expr, problems, line, gates))
            report["kinds"].setdefault(failure_kind(o, t, problems), []).append(expr)
        else:
            report["passed"] += 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    oracle_bin = os.environ.get("ORACLE_BIN") or os.path.join(ROOT, ".cache", "oracle", "bin")
    ap.add_argument("draforge_pos", nargs="?", metavar="DRAFORGE")
    ap.add_argument("oracle_pos", nargs="?", metavar="DRA_CEL")
    ap.add_argument("--draforge", default=os.path.join(ROOT, "build", "examples", "cli", "draforge"))
    ap.add_argument("--oracle", default=os.path.join(oracle_bin, "dra-cel"))
    ap.add_argument("--table", default=os.path.join(ROOT, "tests", "cel", "cel_conformance_test.cc"))
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=6000)
    ap.add_argument("--verbose", action="store_true", help="list every documented cost deviation and message difference")
    ap.add_argument("--max-report", type=int, default=100000,
                    help="at most this many entries per section (default: all failures; 10 of the informational sections without --verbose)")
    ap.add_argument("--dump", help="write every input line with both outputs to this JSON-lines file")
    ap.add_argument("--divergences", default=KNOWN_DIVERGENCES,
                    help="named known divergences (YAML); a difference matching one is listed, not failed")
    args = ap.parse_args()
    args.draforge = args.draforge_pos or args.draforge
    args.oracle = args.oracle_pos or args.oracle
    if not os.access(args.oracle, os.X_OK) and not args.oracle_pos:
        subprocess.run([os.path.join(ROOT, "tests", "oracle", "build")], check=False)
    for path in (args.draforge, args.oracle):
        if not os.access(path, os.X_OK):
            sys.exit(f"not executable: {path} (build DRAForge; build the oracle with tests/oracle/build)")

    report = {"passed": 0, "failed": 0, "failures": [], "documented_costs": [], "undocumented_costs": [],
              "messages": [], "oracle_format": 0, "documented_outcomes": [], "kinds": {}, "map_order": [],
              "upstream_crashes": [], "known": {}, "divergences": load_divergences(args.divergences) if args.divergences else []}
    runs = []
    table = table_expressions(args.table)
    runs.append(("table", [{"expression": e, "device": TABLE_DEVICE} for e in table], LIST_GATES))
    runs.append(("table-nodevice", [{"expression": e} for e in table], LIST_GATES))
    half = args.count // 2
    runs.append(("random", random_cases(args.seed, half, True), LIST_GATES))
    runs.append(("random-defaultgates", random_cases(args.seed + 1000003, args.count - half, False), ""))
    runs.append(("strings", string_cases(args.seed, max(1, args.count // 5)), LIST_GATES))
    runs.append(("wellknown-table", [{"expression": e} for e in WELLKNOWN_TABLE], LIST_GATES))
    runs.append(("wellknown-selectors", [{"expression": e, "device": TABLE_DEVICE} for e in WELLKNOWN_SELECTORS],
                 LIST_GATES))
    runs.append(("wellknown", wellknown_cases(args.seed, max(1, args.count // 4)), LIST_GATES))
    dump = open(args.dump, "w", encoding="utf-8") if args.dump else None
    for name, lines, gates in runs:
        ours, theirs = run_both(args.draforge, args.oracle, lines, gates)
        before = (report["passed"], report["failed"])
        compare(name, lines, ours, theirs, gates, report)
        mix = {k: sum(1 for t in theirs if outcome(t) == k) for k in ("result", "runtime error", "compile error", "crash")}
        print(f"{name}: {len(lines)} cases, {report['passed'] - before[0]} passed, {report['failed'] - before[1]} failed"
              f" (gates: {gates or '1.37 defaults'}; cel-go: {mix['result']} results, {mix['runtime error']} runtime"
              f" errors, {mix['compile error']} compile errors"
              + (f", {mix['crash']} crashes" if mix["crash"] else "") + ")")
        if dump:
            for l, o, t in zip(lines, ours, theirs):
                dump.write(json.dumps({"run": name, "gates": gates, "input": l, "ours": o, "celgo": t},
                                      ensure_ascii=False) + "\n")

    def section(title, entries, fmt, limit):
        if not entries:
            return
        print(f"\n{title}: {len(entries)}")
        for e in entries[:limit]:
            print(fmt(e))
        if len(entries) > limit:
            print(f"  ... {len(entries) - limit} more")

    section("FAILURES", report["failures"],
            lambda e: f"FAIL [{e[0]}] {e[1]}\n    " + "\n    ".join(e[2]) + f"\n    repro: {reproducer(e[3], e[4])}",
            args.max_report)
    section("outcome differences listed in lib/cel/README.md (not failures)", report["documented_outcomes"],
            lambda e: f"  [{e[0]}] {e[1]}\n    {'; '.join(e[2])[:400]}\n    ({e[5]})",
            args.max_report if args.verbose else 10)
    section("cost differences listed in lib/cel/README.md (not failures)", report["documented_costs"],
            lambda e: f"  [{e[0]}] {e[2]}: ours {e[3]}, cel-go {e[4]} ({e[5]}): {e[1]}",
            args.max_report if args.verbose else 10)
    # Message differences, grouped by the pair of texts with positions, quoted parts and numbers blurred.
    groups = {}
    for e in report["messages"]:
        groups.setdefault((short({"compileError" if e[2] == "compile error" else "runtimeError": e[3]}),
                           short({"compileError" if e[2] == "compile error" else "runtimeError": e[4]})), []).append(e)
    if groups:
        print(f"\nerror text differences (same outcome; not failures): {len(report['messages'])} cases, "
              f"{len(groups)} kinds")
        limit = args.max_report if args.verbose else 20
        for _, es in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0]))[:limit]:
            e = min(es, key=lambda x: len(x[1]))
            print(f"  {len(es)} x {e[2]}, e.g. {e[1][:200]}\n      ours:   {e[3][:300]!r}\n      cel-go: {e[4][:300]!r}")
        if len(groups) > limit:
            print(f"  ... {len(groups) - limit} more kinds (--verbose)")
    section("differences that depend on Go's random map iteration order in cel-go (not failures)",
            report["map_order"], lambda e: "  " + e[:400], args.max_report if args.verbose else 10)
    section("cases on which cel-go crashed (not compared, neither passed nor failed)", report["upstream_crashes"],
            lambda e: f"  [{e[0]}] {e[1][:300]}\n    cel-go: {e[2].splitlines()[0][:200]}\n    ours: {json.dumps(e[5])[:300]}"
                      f"\n    repro: {reproducer(e[3], e[4])}", args.max_report)
    if report["oracle_format"]:
        print(f"\n{report['oracle_format']} results matched only after undoing the oracle's printing of "
              "quantity add()/sub() results (bare text instead of quantity(\"...\"))")
    if report["known"]:
        print(f"\nknown divergences ({os.path.relpath(args.divergences, ROOT)}; not failures): "
              f"{sum(len(v) for v in report['known'].values())} cases")
        for name, es in sorted(report["known"].items()):
            e = min(es, key=lambda x: len(x[1]))
            print(f"  {len(es):5d}  {name}\n         e.g. {e[1][:200]}\n         {'; '.join(e[2])[:300]}")
    if report["kinds"]:
        print(f"\nfailures by kind: {len(report['kinds'])} kinds")
        for kind, exprs in sorted(report["kinds"].items(), key=lambda kv: (-len(kv[1]), kv[0])):
            print(f"  {len(exprs):5d}  {kind}\n         e.g. {min(exprs, key=len)[:200]}")
    print(f"\n{report['passed']} passed, {report['failed']} failed")
    return 1 if report["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
