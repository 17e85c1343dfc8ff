#!/usr/bin/env python3
"""Regenerates the conformance fixtures of this folder (*.yaml) from public upstream test data.

Sources (read, never copied: only each case's name and expression are taken):
  * cel-spec tests/simple/testdata/*.textproto (github.com/google/cel-spec): every test without
    variable bindings, type environment, container or disabled checking/macros;
  * Kubernetes' CEL library tests, k8s.io/apiserver v0.37.2 pkg/cel/library/{quantity,semver,cost,
    format,ip,cidr}_test.go: every `expr:` string;
  * DRAForge's own edge cases (draforge_*.yaml, written below): Go's net/netip parse errors, the
    IP/CIDR predicates on both families, IP/CIDR values in lists and maps; ext.Lists errors and
    element types; the Kubernetes URL library (Go net/url parsing, printing, accessors; urls.go has
    no upstream test file); timestamp getters in named time zones and numeric offsets; every named
    format on a common set of inputs; the protobuf well-known messages (construction, conversion
    errors, JSON conversion, Any payloads; Timestamp seconds near the int64 limits, which Go wraps) and behaviours checked beside them; quantity arithmetic
    (apimachinery's int64Amount/inf.Dec representation through add()/sub(), which isInteger(),
    asInteger() and asApproximateFloat() read); checker type inference (overload order, type
    parameters widened to dyn, leading-dot names). cel-spec's network_ext cases run too: their functions are Kubernetes' IP/CIDR library, so
    the oracle gives Kubernetes' answers (IPv4-mapped addresses are errors there).

The expected outcome of each case is what upstream's DRA CEL environment (`dra-cel`, tests/oracle:
k8s.io/dynamic-resource-allocation v0.37.2 on cel-go v0.29.2, DRAListTypeAttributes on, no device)
produces: the result as a CEL literal, the runtime error, or the compile error. A case the DRA
environment does not enable (cel-go itself reports an undeclared function/type or a proto message)
is written with `skip:` and the reason, and listed by the test.

Usage: generate.py CEL_SPEC_DIR K8S_APISERVER_DIR DRA_CEL
       generate.py --draforge-only DRA_CEL   (only the draforge_*.yaml files)
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

# cel-spec files whose tests need what the DRA environment does not have at all. (wrappers and
# dynamic run: their well-known messages are declared by cel-go's default registry; their cases on
# the test messages need a container and are skipped for that.)
SKIP_FILES = {
    "proto2": "protobuf messages (the DRA environment declares no message types)",
    "proto2_ext": "protobuf messages and extensions",
    "proto3": "protobuf messages",
    "enums": "protobuf enums",
    "unknowns": "partial evaluation with unknowns (not used by the scheduler)",
    "block_ext": "cel.@block (not enabled in Kubernetes)",
    "math_ext": "the math extension (not enabled in Kubernetes)",
    "encoders_ext": "base64 encoders (not enabled in Kubernetes)",
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
                # disable_check / disable_macros cases run anyway: the DRA environment always checks
                # and expands macros, so they pin its answer (often a checker error whose text API
                # validation shows to users, e.g. "expected type 'bool' but found 'string'").
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


# Addresses and prefixes that reach every branch of Go's netip parsers and of the predicates.
NET_ADDRS = ["1.2.3.4", "01.2.3.4", "1.2.3", "1.2.3.4.5", "256.1.1.1", "1..2.3", "1.2.3.", "a.b.c.d", "1.2.3.4 ",
             "::", "::1", "1::", "::ffff:1.2.3.4", "fe80::1%eth0", "fe80::1%", "%eth0", "1:2:3:4:5:6:7:8",
             "1:2:3:4:5:6:7:8:9", "1:2:3:4:5:6:7::", "1::2::3", "12345::", "1:2:3:4:5:6:1.2.3.4", "::1.2.3.4",
             "1:2:3:4:5:6:7:1.2.3.4", "ABCD:EF01::", "2001:db8:0:0:1:0:0:1", "2001:0:0:1:0:0:0:1", "fffff::", "1:",
             "1:2", "", "x", "\u00e9::1", "ff05::1", "224.0.0.251", "239.1.1.1", "fc00::1", "febf::1", "fec0::1",
             "255.255.255.255", "0.0.0.0", "127.255.255.255", "::2", "ff0e::1"]
NET_CIDRS = ["10.0.0.0/8", "10.1.2.3/8", "1.2.3.4/0", "1.2.3.4/32", "1.2.3.4/33", "1.2.3.4/-1", "1.2.3.4/08",
             "1.2.3.4/+8", "1.2.3.4", "::/0", "::/129", "2001:db8::1/64", "fe80::1%eth0/64", "::ffff:1.2.3.4/120",
             "1.2.3.4/99999999999999999999", "1.2.3.4/9223372036854775807", "/8", "2001:db8::/3a"]
NET_MISC = ["ip('1.2.3.4') == 1", "dyn(ip('1.2.3.4')) == dyn('1.2.3.4')", "1 == dyn(ip('1.2.3.4'))",
            "[ip('1.2.3.4'), ip('::1')].exists(x, x.family() == 6)", "ip('1.2.3.4') in [ip('1.2.3.4')]",
            "{ip('1.2.3.4'): 1}", "{ip('1.2.3.4'): 1}[ip('1.2.3.4')]", "ip('1.2.3.4') in {ip('1.2.3.4'): 1}",
            "{cidr('1.0.0.0/8'): 1, cidr('1.0.0.0/8'): 2}", "size(ip('1.2.3.4'))", "ip(cidr('1.0.0.0/8'))",
            "net.IP", "net.CIDR", "net.Foo", "type(ip('::1')) == type(cidr('::/0'))", "ip('::1') < ip('::2')",
            "[1].map(ip, ip + 1)", "[1].map(net, net.IP)", "dyn(cidr('1.0.0.0/8')).containsIP(dyn('1.0.0.1'))",
            "dyn(cidr('1.0.0.0/8')).containsCIDR(dyn('1.0.0.0/9'))", "cidr('1.2.3.4/24') == cidr('1.2.3.0/24')",
            "string(dyn(ip('1.2.3.4')))", "ip('1.2.3.4').ip()", "cidr('1.0.0.0/8').family()",
            "optional.of(ip('1.2.3.4')).value().family()", "cidr('0.0.0.0/0').containsCIDR('::/0')",
            "cidr('10.0.0.0/8').containsCIDR(cidr('10.0.0.0/8'))"]


LIST_EXPRS = ["[1,2,3,4].slice(1,3)", "[1,2,3].slice(-1,2)", "[1,2,3].slice(2,1)", "[1,2,3].slice(0,4)", "[].slice(0,0)",
              "[1,2,3].slice(1, size([1]))", "[[1],[2,[3]]].flatten()", "[[1],[2,[3]]].flatten(2)", "[[1],[2,[3]]].flatten(-1)",
              "[[1],[2,[3]]].flatten(0)", "[1,[2]].flatten()", "dyn([1,[2]]).flatten()", "[1,2].flatten()", "lists.range(5)",
              "lists.range(0)", "lists.range(-1)", "[1,2,3].reverse()", "[].reverse()", "'abc'.reverse()",
              "[1,2,1,3,2].distinct()", "['a','b','a'].distinct()", "[].distinct()", "[1, 1.0, 1u].distinct()",
              "lists.range(3).map(x, x * 2) == [0,2,4]", "[[1,2],[3]].flatten(1).reverse().slice(0,2)", "lists.range",
              "[1].slice(0)", "dyn([1,2]).slice(0,1)", "dyn('a').reverse()", "[[['a']]].flatten(3)", "[dyn([1]), 2].flatten()",
              "[3,1,2].sort()", "['b','a','c'].sort()", "[b'b', b'a'].sort()", "[2.5, 1.0, -0.0, 0.0].sort()",
              "[true, false].sort()", "[3u, 1u].sort()", "[duration('2s'), duration('1s')].sort()",
              "[timestamp('2020-01-01T00:00:00Z'), timestamp('2019-01-01T00:00:00Z')].sort()", "[].sort()", "[[1]].sort()",
              "[1, 'a'].sort()", "dyn([1, 2.0]).sort()", "dyn([[1],[0]]).sort()", "dyn([{}]).sort()", "[dyn(1)].sort()",
              "['a'].sort()", "dyn(['b','a']).sort()", "[ip('::1')].reverse()", "[cidr('::/0'), cidr('::/0')].distinct()",
              "[3,1,2].sortBy(x, -x)", "['a', 'c', 'b', 'first'].sortBy(e, e == 'first' ? '' : e)",
              "[1,2].sortBy(x, [x])", "[1,2].sortBy(x, x == 1 ? 1 : 'a')", "1.sortBy(x, x)", "[].sortBy(x, x)",
              "[{'a': 2}, {'a': 1}].sortBy(m, m.a)", "[2,1].sortBy(1, 2)", "dyn([2, 1]).sortBy(x, x)",
              # Kubernetes' list library on durations and timestamps.
              "[duration('1s'), duration('2s')].sum()", "[duration('2s'), duration('1s')].isSorted()",
              "[duration('9223372036s'), duration('1s')].sum()", "[duration('2s'), duration('1s')].min()",
              "[timestamp('2020-01-01T00:00:00Z'), timestamp('2021-01-01T00:00:00Z')].max()"]


# The Kubernetes URL library (urls.go has no test file upstream): Go net/url's parsing and printing.
URL_STRS = ["https://example.com", "http://user:pass@host:8080/p/a/t/h?query=1&q=2#frag",
            "HTTPS://EXAMPLE.COM/%7Euser", "/relative/path?x=1", "mailto:a@b.c", "ftp://[::1]:21/",
            "http://[fe80::1%25en0]:80/", "http://a b", "", "*", "example.com", "http://h:x/", "http://a:b:80/",
            "ftp://a:b:80/", "https://a/%zz", "https://a/b%2Fc%20d", "http://[1.2.3.4]/", "http://h/?a=1;b=2&c=3",
            "http://h/?a=%41&a=+b&c&=d", "http://h/p?", "http://h/p#f%20g", "https://u@h@x/", "http://[::1",
            "http://%41/", "//host/path", "https://h/\u00fc", "http://h:/", "s3://bucket/key?versionId=7",
            "http://h/a\tb", "http://u:p%zz@h/", "http://[::1]x/", "http://h/?q=%", "http://h/#%zz"]
URL_MISC = ["url('https://a') == url('https://a')", "url('https://a/b') == url('https://a/b#')",
            "url('https://a') == url('HTTPS://a')", "type(url('https://a'))", "[url('https://a'), url('/b')]",
            "dyn(url('https://a')) == dyn('https://a')", "dyn(1).getScheme()", "url(dyn(1))"]

# Named time zones and offsets in the timestamp getters (Go's time.LoadLocation, strconv.Atoi).
TIME_ZONES = ["UTC", "", "America/Los_Angeles", "Europe/Berlin", "Asia/Kolkata", "Australia/Lord_Howe",
              "Asia/Kathmandu", "Pacific/Chatham", "Etc/GMT+5", "US/Pacific", "+05:30", "-08:00", "5:3",
              "-0:30", "1:99", "x:1", "1:", "+99999999999999999999:00", "Nowhere/Zone", "America", "../x",
              "/etc/localtime", "zone.tab", "Z", "utc"]
TIMESTAMPS = ["2009-02-13T23:31:30Z", "2021-03-14T10:00:00Z", "1969-12-31T23:59:59.999Z", "0001-01-01T00:00:00Z"]

# google.protobuf.Timestamp seconds near the int64 limits, which cel-go accepts unchecked: Go's
# time.Unix wraps them around (lib/cel/internal/go_calendar.h), in the calendar, the RFC 3339 text, the
# order and the arithmetic; plus the years just before year 1 (Go prints -0001).
_TS = "google.protobuf.Timestamp"
_EDGE_SECONDS = ["-9223372036854775808", "-9223372036854775807", "-9223372036854775000", "-9223300000000000000",
                 "-9223372036854775808 + 62135596799", "-9223372036854775808 + 62135596800", "9223372036854775807",
                 "9223372036854775807 - 62135596800", "9223372036854775807 - 62135596799", "-62135596801",
                 "-62167219201", "-99999999999"]
TIME_RANGE_EXPRS = []
for _s in _EDGE_SECONDS:
    _t = f"{_TS}{{seconds: {_s}, nanos: 999999999}}"
    TIME_RANGE_EXPRS += [_t, f"string({_t})", f"int({_t})"]
    TIME_RANGE_EXPRS += [f"{_t}.{g}()" for g in ("getFullYear", "getMonth", "getDate", "getDayOfYear", "getDayOfWeek",
                                                 "getHours", "getMinutes", "getSeconds", "getMilliseconds")]
    TIME_RANGE_EXPRS += [f"{_t}.getFullYear('+05:30')", f"{_t}.getHours('-14:00')", f"{_t}.getDayOfYear('Asia/Tokyo')",
                         f"{_t}.getMinutes('America/New_York')"]
    TIME_RANGE_EXPRS += [f"{_t} {op} timestamp('9999-12-31T23:59:59Z')" for op in ("<", ">", "==")]
    TIME_RANGE_EXPRS += [f"{_t} - timestamp(0)", f"{_t} + duration('1ns')", f"{_t} - duration('1ns')",
                         f"{_t} + duration('-2562047h')", f"{_t} == {_TS}{{seconds: {_s}, nanos: 999999999}}"]
TIME_RANGE_EXPRS += [
    f"{_TS}{{seconds: -9223372036854775808}}.getFullYear() > 2000",
    f"{_TS}{{seconds: -9223372036854775808}} > {_TS}{{seconds: 9223372036854775807}}",
    f"{_TS}{{seconds: 9223372036854775807}} < timestamp(0)",
    f"{_TS}{{seconds: -9223372037, nanos: 999999999}} - timestamp(0)",
    f"timestamp(0) - {_TS}{{seconds: -9223372037, nanos: 999999999}}",
    f"{_TS}{{seconds: 9223372037}} - {_TS}{{seconds: 0, nanos: 999999999}}",
    f"{_TS}{{seconds: 9223372036, nanos: 854775807}} - timestamp(0)",
    f"google.protobuf.Value{{string_value: string({_TS}{{seconds: -9223372036854775808}})}}",
    f"google.protobuf.ListValue{{values: [dyn({_TS}{{seconds: -9223372036854775808, nanos: 5}})]}}",
]

# The format library beyond upstream's format_test.go: every format on the same inputs.
FORMAT_NAMES = ["dns1123Label", "dns1123Subdomain", "dns1035Label", "qualifiedName", "dns1123LabelPrefix",
                "dns1123SubdomainPrefix", "dns1035LabelPrefix", "labelValue", "uri", "uuid", "byte", "date",
                "datetime"]
FORMAT_INPUTS = ["my-name", "a b", "abc-", "-abc", "Example.com", "a.b.c", "1abc", "123e4567-e89b-12d3-a456-426614174000",
                 "123E4567E89B12D3A456426614174000", "aGVsbG8=", "aGk=", "2020-02-29", "2021-02-29",
                 "2021-01-01T10:00:00Z", "2021-01-01t10:00:00.5+05:00", "2021-01-01T24:00:00Z", "http://x",
                 "example.com/name", "my_value", "", "a" * 64, "a.-"]


# Protobuf well-known messages (cel-go's default registry declares them): construction, field
# conversion errors, JSON conversion into Value/Struct/ListValue, Any payloads, type names; and the
# neighbouring behaviours checked with them (has() on non-maps, operand traits, durations).
WELL_KNOWN = [
    "google.protobuf.Int32Value{value: 12345678900}",
    "google.protobuf.Int32Value{value: -2147483649}",
    "google.protobuf.UInt32Value{value: 4294967296u}",
    "google.protobuf.FloatValue{value: 1e300}",
    "google.protobuf.FloatValue{value: 1.333}",
    "google.protobuf.Int32Value{value: -123}.value",
    "google.protobuf.Int32Value{value: 'a'}",
    "google.protobuf.Int32Value{foo: 1}",
    "google.protobuf.Int32Value{value: 1, value: 2}",
    ".google.protobuf.Int32Value{value: 1}",
    "type(google.protobuf.Int32Value{value: 1})",
    "type(google.protobuf.Value{})",
    "type(google.protobuf.Struct{})",
    "type(google.protobuf.ListValue{})",
    "type(google.protobuf.Any{})",
    "google.protobuf.Struct{}",
    "google.protobuf.ListValue{}",
    "google.protobuf.Struct{fields: {'a': 1}}",
    "google.protobuf.Struct{fields: {'a': 9007199254740993}}",
    "google.protobuf.Struct{fields: {'a': 18446744073709551615u}}",
    "google.protobuf.Struct{fields: {'a': b'abc'}}",
    "google.protobuf.Struct{fields: {'a': duration('1s')}}",
    "google.protobuf.Struct{fields: {'a': timestamp('2020-01-01T00:00:00Z')}}",
    "google.protobuf.Struct{fields: {'a': [1, 2]}}",
    "google.protobuf.Struct{fields: {'a': {'b': null}}}",
    "google.protobuf.Struct{fields: {'a': {1: 2}}}",
    "google.protobuf.Struct{fields: {'a': int}}",
    "google.protobuf.Struct{fields: {'a': optional.of(1)}}",
    "google.protobuf.Struct{fields: {1: 2}}",
    "google.protobuf.Struct{fields: dyn({1: 2})}",
    "google.protobuf.ListValue{values: [1, 2]}",
    "google.protobuf.ListValue{values: dyn([1, 'a', b'x', 2u, -1.5, null, [true]])}",
    "google.protobuf.ListValue{values: dyn([1, 'a'])}[1]",
    "google.protobuf.Value{null_value: google.protobuf.NullValue.NULL_VALUE}",
    "google.protobuf.Value{null_value: null}",
    "google.protobuf.Value{null_value: 0}",
    "google.protobuf.Value{number_value: 1}",
    "google.protobuf.Value{list_value: [1.0]}",
    "google.protobuf.Value{struct_value: {'a': 1}}",
    "google.protobuf.Value{list_value: dyn([1, 'a'])}",
    "google.protobuf.Value{bool_value: dyn(1)}",
    "google.protobuf.Duration{seconds: 10, nanos: 5}",
    "google.protobuf.Duration{}",
    "google.protobuf.Duration{seconds: 315576000001}",
    "google.protobuf.Timestamp{seconds: 0}",
    "google.protobuf.Timestamp{seconds: 253402300800}",
    "google.protobuf.Timestamp{seconds: 1, nanos: -1}",
    "google.protobuf.Empty{}",
    "google.protobuf.FieldMask{paths: ['a']}",
    "google.protobuf.Any{type_url: 'type.googleapis.com/google.protobuf.Int32Value', value: b'\\x08\\x01'}",
    "google.protobuf.Any{type_url: 'x'}",
    "google.protobuf.Any{value: b'\\x08\\x01'}",
    "google.protobuf.Int32Value{value: 1} == google.protobuf.Int64Value{value: 1}",
    "google.protobuf.Int32Value{value: 1} + 2",
    "google.protobuf.Int32Value{}.value",
    "google.protobuf.BoolValue{value: true} && true",
    "google.protobuf.NullValue.NULL_VALUE",
    "google.protobuf.Int32Value",
    "google.protobuf.Value{} == null",
    "google.protobuf.Value{}",
    "dyn(google.protobuf.Int32Value{value: 1})",
    "has(google.protobuf.Value{}.null_value)",
    "google.protobuf.Foo{}",
    "Foo{}",
    "google.protobuf.Int32Value{value: dyn('a')}",
    "google.protobuf.Int32Value{value: dyn(1u)}",
    "google.protobuf.UInt64Value{value: dyn(-1)}",
    "google.protobuf.DoubleValue{value: dyn(1)}",
    "google.protobuf.StringValue{value: null}",
    "google.protobuf.Int32Value{value: dyn(null)}",
    "google.protobuf.Struct{fields: null}",
    "google.protobuf.Value{struct_value: null}",
    "google.protobuf.Duration{seconds: 1}.seconds",
    "google.protobuf.Timestamp{seconds: 1} + duration('1s')",
    "[google.protobuf.Int32Value{value: 1}, 2]",
    "{'a': google.protobuf.Int32Value{value: 1}, 'b': 2}",
    "google.protobuf.Int32Value{value: 1} == null",
    "{'a': 1}",
    "[1, 2]",
    "[1, 2] == [1, 2]",
    "google.protobuf.ListValue{values: [1, 2]} == [1.0, 2.0]",
    "{'a': [1]}",
    "google.protobuf.Int32Value{value: 1 + 1}",
    "google.protobuf.Struct{fields: {'a': 1 + 1}}",
    "google.protobuf.Struct{fields: {'a': [1 + 1]}}",
    "google.protobuf.ListValue{values: [[1]]}",
    "google.protobuf.Empty{} == google.protobuf.Empty{}",
    "type(google.protobuf.Empty{})",
    "google.protobuf.Empty{}.foo",
    "has(google.protobuf.Empty{}.foo)",
    "[google.protobuf.Empty{}]",
    "google.protobuf.Duration{seconds: 1} == duration('1s')",
    "google.protobuf.Value{struct_value: {'a': google.protobuf.Empty{}}}",
    "google.protobuf.Any{type_url: 'type.googleapis.com/google.protobuf.Value', value: b'\\x11\\x00\\x00\\x00\\x00\\x00\\x00\\xf0?'}",
    "google.protobuf.Any{type_url: 'type.googleapis.com/google.protobuf.Int32Value', value: b'\\xff'}",
    "google.protobuf.Any{type_url: 'type.googleapis.com/google.protobuf.Empty', value: b''}",
    "google.protobuf.Any{type_url: 'foo/google.protobuf.Int32Value', value: b'\\x08\\x01'}",
    "google.protobuf.Any{type_url: 'google.protobuf.Int32Value', value: b'\\x08\\x01'}",
    "google.protobuf.NullValue{}",
    "int{}",
    "google.protobuf.Int32Value{?value: optional.of(1)}",
    "google.protobuf.Int32Value{?value: optional.none()}",
    "google.protobuf.Int32Value{value: 2, ?value: optional.none()}",
    "google.protobuf.Int32Value{?value: 1}",
    "google.protobuf.Int32Value{?value: dyn(1)}",
    "google.protobuf.Timestamp{seconds: 1}",
    "google.protobuf.Timestamp{seconds: 1}.seconds",
    "google.protobuf.Struct{fields: {'a': 1}}.a",
    "google.protobuf.Struct{fields: {'a': 1}}.b",
    "google.protobuf.Value{bool_value: true} == true",
    "google.protobuf.Value{bool_value: true} && true",
    "google.protobuf.Value{} + 1",
    "google.protobuf.Any{} == 1",
    "dyn{}",
    "list{}",
    "null_type{}",
    "type{}",
    ".x{}",
    "int{a: 1}",
    "dyn{number_value: 1.0}",
    "list{values: [1]}",
    "optional_type{}",
    "net.IP{}",
    "map{}",
    "google.protobuf.Int32Value{?value: dyn(optional.of(2))}",
    "google.protobuf.StringValue{value: dyn(quantity('1Gi'))}",
    "google.protobuf.StringValue{value: dyn(ip('::1'))}",
    "google.protobuf.BytesValue{value: dyn([1u, 255u])}",
    "google.protobuf.BytesValue{value: dyn([1])}",
    "google.protobuf.BytesValue{value: dyn([256u])}",
    "google.protobuf.Value{list_value: dyn({'values': [1]})}",
    "google.protobuf.Value{list_value: dyn({'a': [1]})}",
    "google.protobuf.Value{struct_value: dyn(google.protobuf.Empty{})}",
    "google.protobuf.Struct{fields: {'a': google.protobuf.Empty{}}}",
    "google.protobuf.Value{null_value: dyn(null)}",
    "google.protobuf.Value{null_value: 5}",
    "google.protobuf.Struct{fields: dyn(1)}",
    "google.protobuf.ListValue{values: dyn(1)}",
    "google.protobuf.Value{struct_value: dyn(1)}",
    "google.protobuf.Value{list_value: dyn(null)}",
    "google.protobuf.Struct{fields: {'a': dyn(optional.none())}}",
    "google.protobuf.Struct{fields: {'a': quantity('1')}}",
    "google.protobuf.Struct{fields: dyn({ip('1.2.3.4'): 1})}",
    "google.protobuf.Struct{fields: dyn({true: 1})}",
    "google.protobuf.Int64Value{value: dyn(duration('1s'))}",
    "google.protobuf.Int32Value{?value: dyn('x')}",
    "google.protobuf.Int32Value{?value: optional.of('x')}",
    "google.protobuf.Timestamp{seconds: -62135596801}",
    "google.protobuf.Duration{seconds: -1, nanos: 5}",
    "google.protobuf.Duration{seconds: 1, nanos: -5}",
    "google.protobuf.Duration{seconds: -9223372036, nanos: -999999999}",
    "has(dyn(1).x)",
    "has(dyn([1]).x)",
    "has(dyn('s').x)",
    "has(dyn(optional.of(1)).x)",
    "has(dyn(null).x)",
    "has(dyn(timestamp(1)).x)",
    "has(dyn(google.protobuf.Empty{}).x)",
    "dyn(google.protobuf.Empty{}).x",
    "has(dyn(b'a').x)",
    "has(dyn(quantity('1')).x)",
    "has(dyn(true).x)",
    "has(dyn(1u).x)",
    "has(dyn(1.5).x)",
    "dyn(null) + 1",
    "dyn(true) - 1",
    "dyn('a') * 2",
    "dyn([1]) / 2",
    "dyn(1.5) % 2",
    "-dyn('a')",
    "-dyn(1u)",
    "dyn(null) < 1",
    "dyn(1) < 'a'",
    "dyn({}) <= 1",
    "dyn(1) + 'a'",
    "dyn(quantity('1')) < 1",
    "dyn(optional.none()) > 1",
    "dyn(true) < false",
    "dyn(timestamp(1)) - 1",
    "dyn(1) - duration('1s')",
    "dyn(b'a') + 'a'",
    "dyn({'a':1}) + {'b':2}",
    "dyn(duration('1s')) * 2",
    "dyn(timestamp(1)) * 2",
    "-dyn(duration('1s'))",
    "-dyn(timestamp(1))",
    "duration('1.5s').getMilliseconds()",
    "duration('-1.5s').getMilliseconds()",
    "duration('61.123s').getMilliseconds()",
    "string(duration('123456789.123456789s'))",
    "duration('123456789.123456789s')",
    "string(duration('2562047h47m16.854775807s'))",
    "has(dyn(null).x.y)",
    "duration('1s') + 1",
    "duration('1s').x",
    "timestamp(1).x",
    "has(1.a)",
    "has({'a': 1}.a.b)",
    "has(device.foo)",
    "[1].x",
    "null.x",
    "has(null.x)",
    "has(dyn(null)['x'])",
    "{0:1}.?x",
    "{0:1}.?x.hasValue()",
    "{1: 2}.?x.orValue(3)",
    "{true: 1}.?x",
    "{0:1}.x",
    "has({0:1}.x)",
    "[1].?x",
    "{}.x",
]


# Quantity arithmetic: add()/sub() keep apimachinery's representation (an int64Amount at the smaller
# scale, an inf.Dec once something overflows), which isInteger(), asInteger() and
# asApproximateFloat() read; int64Amount.Sub negates math.MinInt64 into itself.
QUANTITY_EXPRS = [
    'quantity("1.5").add(quantity("0.5")).isInteger()',
    'quantity("1.5").add(quantity("0.5")).asInteger()',
    'quantity("1.5").add(quantity("0.5")).asApproximateFloat()',
    'quantity("1.5").add(quantity("0.5")) == quantity("2")',
    'quantity("1.5").sub(quantity("0.5")).isInteger()',
    'quantity("0.5").sub(quantity("0.5")).isInteger()',
    'quantity("1").sub(quantity("1")).isInteger()',
    'quantity("1").add(1).isInteger()',
    'quantity("1").add(1).asInteger()',
    'quantity("1k").add(quantity("1")).asInteger()',
    'quantity("1k").add(quantity("1m")).isInteger()',
    'quantity("1G").sub(quantity("1")).asInteger()',
    'quantity("1G").sub(1).asInteger()',
    'quantity("100m").add(quantity("900m")).isInteger()',
    'quantity("100m").add(quantity("900m")).compareTo(quantity("1"))',
    'quantity("1").add(quantity("1.000")).isInteger()',
    'quantity("1Ki").add(quantity("1Ki")).asInteger()',
    'quantity("1.5Ki").add(1).isInteger()',
    'quantity("1.5Ki").add(1).asApproximateFloat()',
    'quantity("10").sub(quantity("10")).add(quantity("1.0")).isInteger()',
    'quantity("0").add(quantity("1.0")).isInteger()',
    'quantity("0.0").add(quantity("1")).isInteger()',
    'quantity("9e18").add(quantity("9e18")).isInteger()',
    'quantity("9e18").add(quantity("9e18")).asApproximateFloat()',
    'quantity("4e18").add(quantity("4e18")).asInteger()',
    'quantity("922337203685477580").add(quantity("922337203685477580")).asInteger()',
    'quantity("922337203685477580").add(quantity("922337203685477580")).add(quantity("922337203685477580")).isInteger()',
    'quantity("9223372036854775807").add(0).isInteger()',
    'quantity("1").add(9223372036854775807).isInteger()',
    'quantity("1").add(9223372036854775807).add(1).isInteger()',
    'quantity("1").add(9223372036854775807).add(1).asApproximateFloat()',
    'quantity("1").sub(-9223372036854775808).asInteger()',
    'quantity("1").sub(-9223372036854775808).isGreaterThan(quantity("0"))',
    'quantity("0").sub(-9223372036854775808).asInteger()',
    'quantity("-1").sub(-9223372036854775808).isInteger()',
    'quantity("-1").sub(-9223372036854775808).asApproximateFloat()',
    'quantity("1k").sub(-9223372036854775808).isGreaterThan(quantity("0"))',
    'quantity("1.5").sub(-9223372036854775808).asApproximateFloat()',
    'quantity("5").sub(9223372036854775807).sub(9223372036854775807).asApproximateFloat()',
    'quantity("1E").add(100).asApproximateFloat()',
    'quantity("1E").add(100).isInteger()',
    'quantity("2.5Mi").add(quantity("1.0")).asApproximateFloat()',
    'quantity("0e-20").add(quantity("1.5")).asApproximateFloat()',
    'quantity("0.1").add(quantity("0.2")).asApproximateFloat()',
    'quantity("0.1").add(quantity("0.2")).asApproximateFloat() == 0.3',
    'quantity("1e-9").add(quantity("1e-9")).asApproximateFloat()',
    'quantity("123456789012345678").add(quantity("0.1")).asApproximateFloat()',
    'quantity("123456789012345678").add(quantity("0.1")).isInteger()',
    'quantity("8Ei").add(1).isInteger()',
    'quantity("8Ei").sub(quantity("8Ei")).isInteger()',
    'quantity("1.0").add(quantity("1.0")).sub(quantity("2")).isInteger()',
    'quantity("16Gi").sub(quantity("1Gi")).asInteger()',
    'quantity("16Gi").sub(quantity("512Mi")).asApproximateFloat()',
    'quantity("40Gi").add(quantity("0.5Gi")).isInteger()',
    'quantity("1000").add(quantity("1e3")).asInteger()',
    'quantity("1e3").add(quantity("1000")).asInteger()',
    'quantity("1e3").add(quantity("1e-3")).asApproximateFloat()',
    '[quantity("1"), quantity("2")].map(q, q.add(quantity("0.5")).isInteger())',
]


# cel-go's checker: an argument of unknown type (an empty list's element) is bound by the first
# overload it fits, in cel-go's declaration order (size: bytes first); a type parameter's binding
# widens when it meets dyn, and every node typed with the parameter sees the wider type (the
# homogeneous-literal validator then rejects `[?optional.none(), 0] + [dyn(1)]`); a leading dot
# names the root scope; cel-go's error for an invalid constant regex.
CHECKER_EXPRS = [
    '[].filter(x, x.size() > 1) + [1]',
    '[].filter(x, size(x) > 1).join()',
    '[].filter(x, x.size() > 1).join("-")',
    '"a" in [].filter(x, x.size() > 1)',
    '[].filter(x, x.size() > 1).map(x, x + "1.5")',
    '[].filter(x, x.size() > 1)[?2].orValue("none") == "hello"',
    '[].filter(x, x.size() > 1).size() == 0',
    '[].map(x, x.size()) + [""]',
    '[].map(x, timestamp(x)).map(y, y) + [].filter(x, timestamp(x) > timestamp(0)).map(x, x + "a")',
    '[].filter(x, duration(x) > duration("1s")).map(x, x + "a")',
    '[].filter(x, int(x) > 1) + [""]',
    '[].filter(x, string(x) == "a") + [1]',
    '[?optional.none(), 0]',
    '[?optional.none(), 0] + [1]',
    '[?optional.none(), 0] == [dyn(1)]',
    '[?optional.none(), 0] + [dyn(1)]',
    '[0, ?optional.none()] + [dyn(1)]',
    '[optional.none().value(), 0] + [dyn(1)]',
    '[?optional.of(1), 0] + [dyn(1)]',
    '{?"a": optional.none(), "b": 100}',
    '{?"a": optional.none(), "b": 100} == {"a": dyn(1)}',
    '[?optional.none(), 0] + [device.attributes["dra.example.com"].healthy].filter(x, x < -1)',
    'int([].map(x, x > 0, x + 1).map(x, double(x) / 2.0).sum())',
    '[].map(x, x > 0, x + 1).map(x, double(x) / 2.0).sum()',
    '.google.protobuf.Duration',
    '.google.protobuf.Timestamp == google.protobuf.Timestamp',
    '.google.protobuf.NullValue.NULL_VALUE',
    '.net.IP',
    '.int == int',
    'type(1) == .int',
    '.device.driver',
    '[1].map(x, .x)',
    'cel.bind(x, 1, .x)',
    # Invalid constant regexes: cel-go's validator covers the receiver-style matches() only; the
    # global matches() and find()/findAll() fail at program instantiation with Go's regexp error.
    '"a".matches("[")',
    'matches("a", "[")',
    '"a".find("[")',
    '"a".findAll("[")',
    '"a".findAll("[", 1)',
    '"a".find("(")',
    '"a".find("a**")',
    '"a".find("\\\\")',
    '"a".find("x{2,1}")',
    '"a".find("(?P<>a)")',
    '"a".find("[z-a]")',
    '"a".find("\\\\q")',
    '"a".find(")")',
    '"a".find("[") == "" || [1].size() > "x"',
    # String conversions: Go's strconv syntax (hex floats, underscores, inf/nan spellings), overflow
    # to +-Inf is an error, and cel-go's one text for every failure.
    'double("1e999")',
    'double("1e9" + "99") > 1.0',
    'double("-1e9" + "99")',
    'double("1e-400")',
    'double("in" + "f")',
    'double("-Infinity")',
    'double("0x1p-2")',
    'double("0x1.8" + "")',
    'double("1_0")',
    'double("1__0" + "")',
    'double(" 1" + "")',
    'double("+nan" + "")',
    'uint("" + "")',
    'uint("-1" + "")',
    'int("h" + "")',
    'int("99999999999999999999" + "")',
    'bool("x" + "")',
]


# `+` of two non-empty lists is cel-go's *types.concatList, whose Go type name errors print.
CONCAT_LIST_EXPRS = [
    "{1: 2}[dyn([1] + [2])]",
    "{1: 2}[?dyn([1] + [2] + [3])]",
    "{1: 2}[dyn([] + [2])]",
    "{1: 2}[dyn(([1] + [2]).map(x, x))]",
]


# A timestamp keeps the zone it was parsed with (Go's time.Time *Location): string() writes it, and
# it decides whether two timestamps of one instant are the same map key.
TIMESTAMP_ZONE_EXPRS = [
    "string(timestamp('1970-01-01T01:00:00+01:00'))",
    "string(timestamp('2024-02-29T23:59:59.5-05:00'))",
    "string(timestamp('2024-01-01T00:00:00+00:00'))",
    "string(timestamp('2024-01-01T05:45:00+05:45') + duration('1h'))",
    "string(timestamp('2024-01-01T00:30:00+01:00') - duration('2h'))",
    "string(timestamp(string(timestamp('1970-01-01T01:00:00+01:00'))))",
    "string(dyn(timestamp('1970-01-01T01:00:00+01:00')))",
    "timestamp('1970-01-01T01:00:00+01:00')",
    "timestamp('1970-01-01T01:00:00+01:00') == timestamp(0)",
    "timestamp('1970-01-01T01:00:00+01:00') in {timestamp(0): 2}",
    "timestamp('1970-01-01T00:00:00+00:00') in {timestamp(0): 2}",
    "timestamp('1970-01-01T00:00:00Z') in {timestamp(0): 2}",
    "timestamp('1970-01-01T01:00:00+01:00') in {timestamp('1970-01-01T01:00:00+01:00'): 2}",
    "timestamp('1970-01-01T01:30:00+01:30') in {timestamp('1970-01-01T01:30:00+01:30'): 2}",
    "{timestamp('1970-01-01T01:00:00+01:00'): 1, timestamp('1970-01-01T00:00:00Z'): 2}.size()",
    "{timestamp('1970-01-01T01:30:00+01:30'): 1, timestamp('1970-01-01T01:30:00+01:30'): 2}.size()",
    "timestamp('1970-01-01T01:00:00+01:00').getHours()",
    "timestamp('1970-01-01T01:00:00+01:00').getHours('+01:00')",
    "[timestamp('1970-01-01T01:00:00+01:00')].map(t, string(t))[0]",
]


def draforge_cases():
    exprs = []
    for a in NET_ADDRS:
        q = json.dumps(a)
        exprs += [f"ip({q})", f"isIP({q})", f"ip.isCanonical({q})", f"string(ip({q}))"]
        exprs += [f"ip({q}).{m}()" for m in ("family", "isUnspecified", "isLoopback", "isLinkLocalMulticast",
                                              "isLinkLocalUnicast", "isGlobalUnicast")]
    for c in NET_CIDRS:
        q = json.dumps(c)
        exprs += [f"cidr({q})", f"isCIDR({q})", f"string(cidr({q}))", f"cidr({q}).ip()", f"cidr({q}).masked()",
                  f"cidr({q}).prefixLength()", f"cidr({q}).containsIP('10.1.1.1')",
                  f"cidr({q}).containsIP(ip('2001:db8::5'))", f"cidr({q}).containsCIDR('10.0.0.0/16')",
                  f"cidr({q}).containsCIDR(cidr('2001:db8::/48'))", f"cidr({q}) == cidr({q}).masked()",
                  f"cidr({q}).containsIP('bad')", f"cidr({q}).containsCIDR('bad/1')"]
    for i, e in enumerate(exprs + NET_MISC):
        yield ("draforge_net", "", f"net_{i}", e, None)
    for i, e in enumerate(LIST_EXPRS):
        yield ("draforge_lists", "", f"lists_{i}", e, None)
    for i, e in enumerate(CONCAT_LIST_EXPRS):
        yield ("draforge_lists", "", f"lists_concat_{i}", e, None)
    exprs = []
    for u in URL_STRS:
        q = json.dumps(u)
        exprs += [f"url({q})", f"isURL({q})"]
        exprs += [f"url({q}).{m}()" for m in ("getScheme", "getHost", "getHostname", "getPort", "getEscapedPath",
                                               "getQuery")]
    for i, e in enumerate(exprs + URL_MISC):
        yield ("draforge_url", "", f"url_{i}", e, None)
    exprs = []
    for tz in TIME_ZONES:
        for ts in TIMESTAMPS:
            exprs += [f"timestamp({json.dumps(ts)}).{g}({json.dumps(tz)})"
                      for g in ("getFullYear", "getDayOfYear", "getHours", "getMinutes")]
    for i, e in enumerate(exprs):
        yield ("draforge_time_zones", "", f"tz_{i}", e, None)
    for i, e in enumerate(TIMESTAMP_ZONE_EXPRS):
        yield ("draforge_time_zones", "", f"tz_zone_{i}", e, None)
    exprs = []
    for n in FORMAT_NAMES:
        exprs += [f"format.{n}().validate({json.dumps(v)})" for v in FORMAT_INPUTS]
        exprs += [f"format.named({json.dumps(n)}).value() == format.{n}()", f"type(format.{n}())"]
    for i, e in enumerate(exprs):
        yield ("draforge_format", "", f"format_{i}", e, None)
    for i, e in enumerate(WELL_KNOWN):
        yield ("draforge_well_known", "", f"well_known_{i}", e, None)
    for i, e in enumerate(QUANTITY_EXPRS):
        yield ("draforge_quantity", "", f"quantity_{i}", e, None)
    for i, e in enumerate(CHECKER_EXPRS):
        yield ("draforge_checker", "", f"checker_{i}", e, None)
    for i, e in enumerate(TIME_RANGE_EXPRS):
        yield ("draforge_time_range", "", f"time_range_{i}", e, None)


NOT_ENABLED_RX = re.compile(r"undeclared reference to '([^']*)'|unknown type|no such overload|found no matching overload for '(isURL|url|ip|cidr|isIP|isCIDR|format\.[a-z0-9]+)'")


def yaml_str(s):
    return json.dumps(s, ensure_ascii=False)


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--draforge-only":
        # Only DRAForge's own edge-case files (no cel-spec or apiserver checkout needed).
        oracle = sys.argv[2]
        cases = list(draforge_cases())
    elif len(sys.argv) == 4:
        spec_dir, apiserver_dir, oracle = sys.argv[1:]
        cases = list(spec_cases(spec_dir)) + list(k8s_cases(apiserver_dir)) + list(draforge_cases())
    else:
        sys.exit(__doc__)
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
                   else "its own edge-case lists" if base.startswith("draforge_")
                   else f"github.com/google/cel-spec tests/simple/testdata/{base}.textproto")
            f.write(f"# Generated by generate.py from {src} (names and expressions only).\n"
                    "# Expected: what cel-go v0.29.2 in Kubernetes 1.37's DRA CEL environment produces (dra-cel).\n"
                    "cases:\n")
            for c in cs:
                name = f"{c[1]}/{c[2]}" if c[1] and not base.startswith(("k8s_", "draforge_")) else c[2]
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
