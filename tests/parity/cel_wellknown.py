"""Protobuf well-known message construction for tests/parity/cel_parity.py.

cel-go's default type registry declares the google.protobuf well-known types, so the DRA CEL
environment of Kubernetes accepts `google.protobuf.Int32Value{value: 1}`, `google.protobuf.Struct{...}`
and the rest. This module holds what cel_parity.py needs to test them against cel-go:

  * WellKnownMixin: grammar productions mixed into cel_parity.Gen (the WellKnownGen there). They build
    the messages with well-typed field values mostly, plus a share of ill-typed ones (compile errors:
    wrong field type, unknown field, field selection on a wrapper, unknown type), dyn()-wrapped
    values that the runtime has to convert (overflowing Int32Value/UInt32Value/Duration.nanos, a
    string into a BoolValue, a map with int keys into a Struct, a quantity into a ListValue), the
    JSON conversion of CEL values into Value/Struct/ListValue (ints beyond 2^53, bytes, durations,
    timestamps, NaN, nested messages), Any with packed payloads (well-known, unknown, malformed),
    and uses of the constructed values inside other expressions: comparisons, arithmetic, list and
    map literals, type(), has(), macros, optionals and optional field initializers (`{?value: ...}`).
  * FIXED_EXPRESSIONS: a table of hand-written expressions, one per behaviour worth pinning, run
    without a device; SELECTOR_EXPRESSIONS: selectors over the tests/cel table's device.
  * value_oneof_conflict(): recognises a Value construction whose oneof winner is random in cel-go.

Python 3 only; every choice comes from the caller's random.Random, so a seed fixes the expressions.
"""
import struct

PKG = "google.protobuf"

# Wrapper message -> the CEL type of its `value` field.
WRAPPERS = {
    "Int32Value": "int", "Int64Value": "int", "UInt32Value": "uint", "UInt64Value": "uint",
    "FloatValue": "double", "DoubleValue": "double", "BoolValue": "bool", "StringValue": "string",
    "BytesValue": "bytes",
}
WRAPPERS_OF = {}
for _w, _t in WRAPPERS.items():
    WRAPPERS_OF.setdefault(_t, []).append(_w)

# Field values at the edges of each wrapper's range (int32 / uint32 / float32 narrowing).
WRAPPER_EDGES = {
    "Int32Value": ["2147483647", "-2147483648", "2147483648", "-2147483649", "9223372036854775807", "0"],
    "Int64Value": ["9223372036854775807", "-9223372036854775808", "0"],
    "UInt32Value": ["4294967295u", "4294967296u", "0u", "18446744073709551615u"],
    "UInt64Value": ["18446744073709551615u", "0u"],
    "FloatValue": ["0.1", "3.4028234663852886e38", "3.5e38", "-3.5e38", "1e-46", "1e300", "1.0/0.0",
                   "0.0/0.0", "16777217.0", "-0.0"],
    "DoubleValue": ["1e308", "-0.0", "0.0/0.0", "4e-320", "0.1"],
    "BoolValue": ["true", "false"],
    "StringValue": ['""', '"x"', '"日本"'],
    "BytesValue": ["b''", 'b"\\xff"', 'b"abc"'],
}
# A dyn() value of another runtime type: field type conversion errors at runtime.
DYN_MISMATCH = ["dyn(1)", "dyn(1u)", "dyn(1.5)", "dyn('1')", "dyn(true)", "dyn(b'1')", "dyn(null)", "dyn([1])",
                "dyn({'a': 1})", "dyn(duration('1s'))", "dyn(2147483648)", "dyn(-1)", "dyn(4294967296u)"]

DURATION_SECONDS = ["0", "1", "-1", "60", "315576000000", "315576000001", "-315576000001", "9223372036854775807",
                    "-9223372036854775808", "9223372036"]
# Seconds near the int64 limits wrap around in Go's time.Unix (lib/cel/internal/go_calendar.h).
TIMESTAMP_SECONDS = ["0", "1", "-1", "1609459200", "253402300799", "253402300800", "-62135596800",
                     "-62135596801", "9223372036854775807", "-9223372036854775808", "-9223372036854775000",
                     "9223372036854775000"]
NANOS = ["0", "1", "5", "-5", "999999999", "1000000000", "-1000000000", "2147483647", "2147483648", "-2147483649"]
NULL_VALUES = ["0", f"{PKG}.NullValue.NULL_VALUE", "1", "null", "0u"]

# Values converted to JSON (google.protobuf.Value) when they land in a Value, Struct or ListValue.
JSON_SCALARS = ["1", "-7", "9007199254740992", "9007199254740991", "-9007199254740993", "9223372036854775807",
                "1u", "18446744073709551615u", "1.5", "-0.0", "1e300", "1.0/0.0", "0.0/0.0", "'a'", "''", "'日本'",
                "true", "false", "null", "b'ab'", "b'\\xff'", "b''", "duration('1s')", "duration('-1.5s')",
                "duration('0s')", "timestamp('2021-01-01T00:00:00Z')", "timestamp('1970-01-01T00:00:00.5Z')"]
# Values a Value cannot hold: conversion errors at runtime.
JSON_BAD = ["{1: 2}", "{true: 'x'}", "int", "quantity('1')", "semver('1.2.3')", "optional.none()", "optional.of(1)",
            "url('http://x')", "[{1: 2}]", "{'a': {2: 3}}", "type(1)"]
STRUCT_KEYS = ["'a'", "'b'", "'c'", "''", "'a.b'", "'日本'"]
TYPE_NAMES = ["int", "uint", "double", "bool", "string", "bytes", "list", "map", "null_type", "type",
              f"{PKG}.Duration", f"{PKG}.Timestamp", f"{PKG}.Empty", "google.protobuf.Int32Value"]

BAD_SECONDS = ["1.5", "1u", "duration('1s')"]
COMPARED_TYPES = ["int", "uint", "double", "string", "bytes", "bool", "list_int", "map_string_int", "null", "dyn"]
SELECTED_FIELDS = ["value", "fields", "values", "a", "string_value", "seconds", "type_url"]
ELEMENT_PREDICATES = ["x == 1.0", "type(x) == double", "x != null", "x"]
TIME_ZONES = ["'UTC'", "'Asia/Kolkata'", "'-08:00'", "'Nowhere/Zone'"]
DURATION_STRS = ["'1s'", "'0s'", "'-1ns'"]
KEY_PREDICATES = ["k.startsWith('a')", "k == 'b'", "size(k) > 0"]
STRING_REGEXES = ["'^a'", "'.*'", "'['"]

ANY_TYPES = list(WRAPPERS) + ["Duration", "Timestamp", "Value", "Struct", "ListValue", "Empty"]


VALUE_ONEOF = ("null_value", "number_value", "string_value", "bool_value", "struct_value", "list_value")


def _skip_string(expr, i):
    """The index after the CEL string or bytes literal whose opening quote is at expr[i]."""
    raw = i > 0 and expr[i - 1] in "rR"
    q = expr[i]
    if expr.startswith(q * 3, i):
        end = expr.find(q * 3, i + 3)
        return len(expr) if end < 0 else end + 3
    i += 1
    while i < len(expr) and expr[i] != q:
        i += 2 if expr[i] == "\\" and not raw else 1
    return i + 1


def value_oneof_conflict(expr):
    """True when some google.protobuf.Value construction in expr sets two different members of its
    `kind` oneof. cel-go collects the initializers in a Go map and sets them in the map's random
    iteration order (interpreter evalObj -> Registry.NewValue), so which member wins changes from
    run to run: such a result cannot be compared."""
    for start in [i for i in range(len(expr)) if expr.startswith("protobuf.Value{", i)]:
        i, depth, field, members = start + len("protobuf.Value{"), 1, "", set()
        at_name = True
        while i < len(expr) and depth > 0:
            c = expr[i]
            if c in "'\"":
                i = _skip_string(expr, i)
                at_name = False
                continue
            if c in "([{":
                depth += 1
            elif c in ")]}":
                depth -= 1
            elif depth == 1 and c == ",":
                at_name, field = True, ""
            elif depth == 1 and c == ":" and at_name:
                members.add(field.strip().lstrip("?"))
                at_name = False
            elif depth == 1 and at_name:
                field += c
            i += 1
        if len(members & set(VALUE_ONEOF)) > 1:
            return True
    return False


# --- protobuf wire encoding (for Any.value) -----------------------------------------------------

def _varint(n):
    n &= (1 << 64) - 1  # negative int32/int64 are sign-extended to 10 bytes on the wire
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def _key(field, wire):
    return _varint(field << 3 | wire)


def _len(field, payload):
    return _key(field, 2) + _varint(len(payload)) + payload


def encode_value(rng, depth=0):
    """A google.protobuf.Value message, one oneof member set (rarely two: the last one wins)."""
    kind = rng.choice(["null", "number", "string", "bool", "struct", "list"] if depth < 2 else ["number", "string"])
    if kind == "null":
        out = _key(1, 0) + _varint(0)
    elif kind == "number":
        out = _key(2, 1) + struct.pack("<d", rng.choice([0.0, 1.5, -2.0, 1e300, float("inf")]))
    elif kind == "string":
        out = _len(3, rng.choice([b"", b"a", "日本".encode()]))
    elif kind == "bool":
        out = _key(4, 0) + _varint(rng.choice([0, 1]))
    elif kind == "struct":
        out = _len(5, encode_message(rng, "Struct", depth + 1))
    else:
        out = _len(6, encode_message(rng, "ListValue", depth + 1))
    if rng.random() < 0.1:
        out += _len(3, b"last")
    return out


def encode_message(rng, name, depth=0):
    """Wire bytes of a random well-known message `name` (a wrapper, Duration, Timestamp, Value, ...)."""
    if name in ("Int32Value", "Int64Value"):
        return _key(1, 0) + _varint(rng.choice([0, 5, -1, 2147483647, -2147483648]))
    if name in ("UInt32Value", "UInt64Value"):
        return _key(1, 0) + _varint(rng.choice([0, 7, 4294967295]))
    if name == "BoolValue":
        return _key(1, 0) + _varint(rng.choice([0, 1]))
    if name == "FloatValue":
        return _key(1, 5) + struct.pack("<f", rng.choice([0.5, -1.25, 3.0e38]))
    if name == "DoubleValue":
        return _key(1, 1) + struct.pack("<d", rng.choice([0.5, -1.25, 1e308]))
    if name == "StringValue":
        return _len(1, rng.choice([b"", b"hi", "日本".encode()]))
    if name == "BytesValue":
        return _len(1, rng.choice([b"", b"\x00\xff"]))
    if name in ("Duration", "Timestamp"):
        out = _key(1, 0) + _varint(rng.choice([0, 5, -5, 1609459200]))
        if rng.random() < 0.5:
            out += _key(2, 0) + _varint(rng.choice([0, 500000000, -1]))
        return out
    if name == "Value":
        return encode_value(rng, depth)
    if name == "Struct":
        out = b""
        for k in rng.sample([b"a", b"b", b"c"], rng.randint(0, 2)):
            out += _len(1, _len(1, k) + _len(2, encode_value(rng, depth + 1)))
        return out
    if name == "ListValue":
        return b"".join(_len(1, encode_value(rng, depth + 1)) for _ in range(rng.randint(0, 2)))
    return b""  # Empty


def bytes_literal(data):
    return "b'" + "".join(f"\\x{b:02x}" for b in data) + "'"


# --- the grammar --------------------------------------------------------------------------------

class WellKnownMixin:
    """Productions for well-known messages, mixed into cel_parity.Gen. Uses the host's pick, chance,
    gen(type, depth), lit(type) and rng."""

    def t(self, name):
        # A leading dot names the root package explicitly; both spellings must resolve alike.
        return ("." if self.chance(0.08) else "") + f"{PKG}.{name}"

    def init(self, fields):
        """`{f: v, ...}` with, now and then, an optional field initializer `?f: optional.of(v)`."""
        parts = []
        for f, v in fields:
            r = self.rng.random()
            if r < 0.05:
                parts.append(f"?{f}: optional.of({v})")
            elif r < 0.08:
                parts.append(f"?{f}: optional.none()")
            else:
                parts.append(f"{f}: {v}")
        return "{" + ", ".join(parts) + "}"

    # -- field values --
    def field_value(self, ftype, d, edges=()):
        r = self.rng.random()
        if r < 0.07:  # ill-typed: a compile error naming the field and both types
            return self.gen(self.pick([t for t in ("int", "uint", "double", "bool", "string", "bytes") if t != ftype]
                                      + ["list_int", "null"]), d) if self.chance(0.9) else "null"
        if r < 0.2:  # converted at runtime: right type, another type, or out of range
            if edges and self.chance(0.5):
                return f"dyn({self.pick(edges)})"
            return self.pick(DYN_MISMATCH) if self.chance(0.5) else f"dyn({self.gen(ftype, d)})"
        if edges and r < 0.4:
            return self.pick(edges)
        return self.gen(ftype, d)

    def wrapper(self, d, name=None):
        name = name or self.pick(list(WRAPPERS))
        if self.chance(0.1):
            return self.t(name) + "{}"
        return self.t(name) + self.init([("value", self.field_value(WRAPPERS[name], d, WRAPPER_EDGES[name]))])

    def duration_msg(self, d, name="Duration"):
        secs = TIMESTAMP_SECONDS if name == "Timestamp" else DURATION_SECONDS
        fields = []
        if self.chance(0.8):
            fields.append(("seconds", self.field_value("int", d, secs)))
        if self.chance(0.5):
            fields.append(("nanos", self.field_value("int", d, NANOS)))
        if self.chance(0.1):
            self.rng.shuffle(fields)
        return self.t(name) + self.init(fields)

    def json_value(self, d, nest=0):
        """A CEL value to become a google.protobuf.Value (JSON), dyn-wrapped as a map or list of
        mixed values needs."""
        r = self.rng.random()
        if r < 0.35:
            return self.pick(JSON_SCALARS)
        if r < 0.45:
            return self.pick(JSON_BAD)
        if r < 0.6 and nest < 2:
            return self.pick([
                lambda: self.struct_msg(d, nest + 1),
                lambda: self.list_msg(d, nest + 1),
                lambda: self.value_msg(d, nest + 1),
                lambda: self.wrapper(d),
                lambda: self.duration_msg(d, self.pick(["Duration", "Timestamp"])),
                lambda: self.t("Empty") + "{}",
                lambda: self.any_msg(d),
            ])()
        if r < 0.7 and nest < 2:
            return "[" + ", ".join(f"dyn({self.json_value(d, nest + 1)})" for _ in range(self.rng.randint(0, 2))) + "]"
        if r < 0.8 and nest < 2:
            keys = self.rng.sample(STRUCT_KEYS, self.rng.randint(0, 2))
            return "{" + ", ".join(f"{k}: dyn({self.json_value(d, nest + 1)})" for k in keys) + "}"
        return self.gen(self.pick(["int", "uint", "double", "string", "bool", "bytes", "list_int", "list_string",
                                   "map_string_int", "dyn"]), max(0, d - 1))

    def json_list(self, d, nest):
        n = self.pick([0, 1, 2, 2, 3])
        r = self.rng.random()
        if r < 0.5:
            return "[" + ", ".join(f"dyn({self.json_value(d, nest)})" for _ in range(n)) + "]"
        if r < 0.8:  # homogeneous: checks without dyn()
            t = self.pick(["int", "double", "string", "bool", "bytes", "uint"])
            return "[" + ", ".join(self.gen(t, max(0, d - 1)) for _ in range(n)) + "]"
        if r < 0.9:  # mixed without dyn(): a compile error in the list literal
            return f"[{self.lit('int')}, {self.lit('string')}]"
        return self.gen(self.pick(["list_int", "list_string", "list_double"]), max(0, d - 1))

    def json_map(self, d, nest):
        keys = self.rng.sample(STRUCT_KEYS, self.pick([0, 1, 2, 2, 3]))
        r = self.rng.random()
        if r < 0.5:
            return "{" + ", ".join(f"{k}: dyn({self.json_value(d, nest)})" for k in keys) + "}"
        if r < 0.75:
            t = self.pick(["int", "double", "string", "bool", "list_int"])
            return "{" + ", ".join(f"{k}: {self.gen(t, max(0, d - 1))}" for k in keys) + "}"
        if r < 0.85:  # keys that are not strings: a compile error, or a runtime one through dyn()
            return self.pick(["{1: 'a'}", "dyn({1: 'a'})", "dyn({'a': 1, 2: 'b'})", "{'a': 1, 'b': 'x'}"])
        return self.gen("map_string_int", max(0, d - 1))

    def struct_msg(self, d, nest=0):
        if self.chance(0.1):
            return self.t("Struct") + "{}"
        return self.t("Struct") + self.init([("fields", self.json_map(d, nest))])

    def list_msg(self, d, nest=0):
        if self.chance(0.1):
            return self.t("ListValue") + "{}"
        return self.t("ListValue") + self.init([("values", self.json_list(d, nest))])

    def value_msg(self, d, nest=0):
        members = {
            "null_value": lambda: self.pick(NULL_VALUES),
            "number_value": lambda: self.field_value("double", d, ["1.0/0.0", "0.0/0.0", "-0.0", "1e300"]),
            "string_value": lambda: self.field_value("string", d),
            "bool_value": lambda: self.field_value("bool", d),
            "struct_value": lambda: self.struct_msg(d, nest + 1) if self.chance(0.5) else self.json_map(d, nest + 1),
            "list_value": lambda: self.list_msg(d, nest + 1) if self.chance(0.5) else self.json_list(d, nest + 1),
        }
        n = self.pick([0, 1, 1, 1, 1, 2, 2, 3])  # several members: the oneof keeps the last one set
        names = [self.pick(list(members)) for _ in range(n)]
        return self.t("Value") + self.init([(f, members[f]()) for f in names])

    def any_msg(self, d, nest=0):
        name = self.pick(ANY_TYPES)
        fields = []
        r = self.rng.random()
        if r < 0.7:
            url = f"type.googleapis.com/{PKG}.{name}"
        elif r < 0.8:
            url = f"{PKG}.{name}"
        else:
            url = self.pick([f"type.googleapis.com/{PKG}.Foo", "", "type.googleapis.com/",
                             "type.googleapis.com/google.protobuf.Any", "example.com/x.Y"])
        if self.chance(0.9):
            fields.append(("type_url", f"'{url}'" if self.chance(0.9) else self.field_value("string", d)))
        if self.chance(0.85):
            r = self.rng.random()
            if r < 0.75:
                data = encode_message(self.rng, name)
            elif r < 0.9:  # the payload of another type
                data = encode_message(self.rng, self.pick(ANY_TYPES))
            else:  # truncated or garbage
                data = self.pick([b"\xff", b"\x08", b"\x0a\x05ab", b"\x12\x01"])
            fields.append(("value", bytes_literal(data) if self.chance(0.95) else self.field_value("bytes", d)))
        if self.chance(0.2):
            self.rng.shuffle(fields)
        return self.t("Any") + self.init(fields)

    def ill_typed_msg(self, d):
        """A construction the checker rejects (or, for the type name, the planner)."""
        w = self.pick(list(WRAPPERS))
        return self.pick([
            lambda: self.t(w) + f"{{{self.pick(['foo', 'values', 'Value', 'seconds'])}: {self.lit('int')}}}",
            lambda: self.wrapper(d, w) + f".{self.pick(['value', 'foo'])}",
            lambda: self.wrapper(d, w) + ".?value",
            lambda: f"{self.t(self.pick(['Foo', 'NullValue', 'Int32', 'value']))}{{}}",
            lambda: f"{w}{{value: {self.lit(WRAPPERS[w])}}}",
            lambda: f"protobuf.{w}{{}}",
            lambda: self.t("Value") + f"{{number_value: {self.lit('int')}}}",
            lambda: self.t("Value") + "{null_value: null}",
            lambda: self.t("Duration") + f"{{seconds: {self.pick(BAD_SECONDS)}}}",
            lambda: self.t("Struct") + f"{{fields: [{self.lit('int')}]}}",
            lambda: self.t("ListValue") + f"{{values: {{'a': {self.lit('int')}}}}}",
            lambda: self.t("Empty") + f"{{x: {self.lit('int')}}}",
            lambda: self.t("Any") + f"{{type_url: {self.lit('bytes')}}}",
            lambda: f"type({self.wrapper(d, w)}) == {self.t(w)}",
            lambda: self.t(self.pick(list(WRAPPERS) + ['Duration'])),
        ])()

    def message(self, d, nest=0):
        """Any well-known message construction."""
        r = self.rng.random()
        if r < 0.3:
            return self.wrapper(d)
        if r < 0.42:
            return self.value_msg(d, nest)
        if r < 0.52:
            return self.struct_msg(d, nest)
        if r < 0.62:
            return self.list_msg(d, nest)
        if r < 0.72:
            return self.duration_msg(d, self.pick(["Duration", "Timestamp"]))
        if r < 0.8:
            return self.any_msg(d)
        if r < 0.85:
            return self.t("Empty") + "{}"
        return self.ill_typed_msg(d)

    # -- uses of the messages inside other expressions, by the CEL type the host asks for --
    def wkt_form(self, t, d):
        """An expression of type t (or dyn) built around a well-known message, or None.

        A google.protobuf.Value is typed dyn, so it is offered for "dyn" and the scalar types only:
        the host grammar indexes lists and maps with [?k] inside optional list elements
        (`[?m[?k], 1]`), and cel-go v0.29.2 panics on an optional element typed dyn
        (homogeneousAggregateLiteralValidator, validator.go:329: `[?dyn({})[?'a'], 7]`)."""
        w = lambda name: self.wrapper(d, name)           # a wrapper message named `name`
        wof = lambda t2: w(self.pick(WRAPPERS_OF[t2]))   # a wrapper whose value is a t2
        g = lambda t2: self.gen(t2, d)
        one = lambda *xs: self.pick(list(xs))
        msg = lambda: self.message(d)
        dur = lambda: self.duration_msg(d)
        ts = lambda: self.duration_msg(d, "Timestamp")
        st = lambda: self.struct_msg(d)
        lv = lambda: self.list_msg(d)
        member = lambda f, v: self.t("Value") + self.init([(f, v)])
        forms = {
            "int": [
                lambda: wof("int"),
                lambda: wof("int"),
                lambda: f"{wof('int')} {one('+', '-', '*', '/', '%')} {g('int')}",
                lambda: f"{dur()}.{one('getSeconds', 'getMilliseconds', 'getHours')}()",
                lambda: f"{ts()}.{one('getFullYear', 'getMonth', 'getSeconds', 'getDayOfYear', 'getHours')}()",
                lambda: f"int({ts()})",
                lambda: f"size({one(st, lv)()})",
                lambda: f"size({w(one('StringValue', 'BytesValue'))})",
                lambda: f"int({w(one('DoubleValue', 'FloatValue', 'UInt64Value', 'StringValue'))})",
            ],
            "uint": [
                lambda: wof("uint"),
                lambda: f"{wof('uint')} {one('+', '-', '*', '/')} {g('uint')}",
                lambda: f"uint({w('Int32Value')})",
            ],
            "double": [
                lambda: wof("double"),
                lambda: f"{wof('double')} {one('+', '-', '*', '/')} {g('double')}",
                lambda: f"double({w(one('Int32Value', 'UInt32Value', 'FloatValue', 'StringValue'))})",
                lambda: member("number_value", self.field_value("double", d)),
            ],
            "bool": [
                lambda: w("BoolValue"),
                lambda: f"{msg()} {one('==', '!=')} {msg()}",
                lambda: f"{msg()} == {g(self.pick(COMPARED_TYPES))}",
                lambda: f"dyn({msg()}) == dyn({msg()})",
                lambda: f"{w(self.pick(list(WRAPPERS)))} {one('==', '!=')} null",
                lambda: f"{w(self.pick(WRAPPERS_OF['int'] + WRAPPERS_OF['double']))} {one('<', '<=', '>', '>=')} "
                        f"{g(one('int', 'uint', 'double'))}",
                lambda: f"{dur()} {one('<', '>=', '==')} duration({self.pick(DURATION_STRS)})",
                lambda: f"{ts()} {one('<', '>', '==')} timestamp('2021-01-01T00:00:00Z')",
                lambda: f"type({msg()}) == {self.pick(TYPE_NAMES)}",
                lambda: f"has({st()}.{one('a', 'b', 'z')})",
                lambda: f"has({msg()}.{self.pick(SELECTED_FIELDS)})",
                lambda: f"{self.pick(STRUCT_KEYS)} in {st()}",
                lambda: f"{self.json_value(d)} in {lv()}",
                lambda: f"{lv()}.{one('all', 'exists', 'exists_one')}(x, {self.pick(ELEMENT_PREDICATES)})",
                lambda: f"{st()}.{one('all', 'exists')}(k, {self.pick(KEY_PREDICATES)})",
                lambda: f"[{w('Int32Value')}, {w('Int64Value')}].all(x, x {one('>', '<', '==')} {self.lit('int')})",
                lambda: f"{st()}.?{one('a', 'z')}.hasValue()",
                lambda: f"{w('StringValue')}.{one('startsWith', 'contains', 'endsWith')}({g('string')})",
                lambda: f"{w('StringValue')}.matches({self.pick(STRING_REGEXES)})",
                lambda: f"{w('BoolValue')} {one('&&', '||')} {g('bool')}",
                lambda: f"!{w('BoolValue')}",
                lambda: f"({w('BoolValue')} ? {msg()} : {msg()}) == {msg()}",
            ],
            "string": [
                lambda: w("StringValue"),
                lambda: f"{w('StringValue')} + {g('string')}",
                lambda: f"string({one(dur, ts, lambda: w(self.pick(list(WRAPPERS))))()})",
                lambda: f"{w('StringValue')}.{one('lowerAscii', 'upperAscii', 'trim')}()",
                lambda: member("string_value", self.field_value("string", d)),
            ],
            "bytes": [
                lambda: w("BytesValue"),
                lambda: f"{w('BytesValue')} + {g('bytes')}",
                lambda: f"bytes({w('StringValue')})",
            ],
            "list_int": [
                lambda: f"[{wof('int')}, {g('int')}]",
                lambda: f"{g('list_int')}.map(x, {self.t('Int32Value')}{{value: x}})",
                lambda: lv(),
            ],
            "list_string": [
                lambda: f"[{w('StringValue')}, {g('string')}]",
                lambda: self.t("ListValue") + self.init([("values", g("list_string"))]),
                lambda: f"{st()}.map(k, k)",
            ],
            "list_double": [
                lambda: f"[{wof('double')}, {g('double')}]",
                lambda: self.t("ListValue") + self.init([("values", g(one("list_int", "list_double")))]),
            ],
            "map_string_int": [
                lambda: f"{{'a': {wof('int')}, 'b': {g('int')}}}",
                lambda: st(),
            ],
            "opt_int": [
                lambda: f"optional.of({wof('int')})",
                lambda: f"optional.ofNonZeroValue({wof('int')})",
                lambda: f"{st()}.?{one('a', 'b', 'z')}",
                lambda: f"{st()}[?{self.pick(STRUCT_KEYS)}]",
                lambda: f"{lv()}[?{one('0', '1', '5')}]",
            ],
            "opt_string": [
                lambda: f"optional.of({w('StringValue')})",
                lambda: f"{st()}.?{one('a', 'b')}",
            ],
            "dyn": [
                msg,
                msg,
                lambda: f"dyn({msg()})",
                lambda: f"[{msg()}, {msg()}]",
                lambda: f"{{'k': {msg()}}}",
                lambda: f"cel.bind(m, {msg()}, [m, m])",
                lambda: f"{lv()}.map(x, {one('x', 'type(x)', 'x == null', '[x]')})",
                lambda: f"{st()}.{one('a', 'b')}",
                lambda: f"{lv()}[{one('0', '1', '-1')}]",
                lambda: f"type({msg()})",
                lambda: f"{st()}.?{one('a', 'b')}.orValue({msg()})",
                lambda: f"{ts()} {one('+', '-')} {one(dur, lambda: 'duration(' + self.pick(DURATION_STRS) + ')')()}",
                lambda: f"{ts()} - {ts()}",
                lambda: f"{dur()} {one('+', '-')} {dur()}",
                lambda: f"{ts()}.{one('getHours', 'getDayOfWeek', 'getDate')}({self.pick(TIME_ZONES)})",
                lambda: member("list_value", self.json_list(d, 1)),
                lambda: member("struct_value", self.json_map(d, 1)),
            ],
        }
        cands = forms.get(t)
        return self.pick(cands)() if cands else None

    def wkt_top(self, depth):
        """A value expression for the well-known family's top level: a message, or a use of one."""
        if self.chance(0.5):
            return self.message(depth)
        t = self.pick(["int", "uint", "double", "bool", "string", "bytes", "list_int", "list_string", "list_double",
                       "map_string_int", "opt_int", "opt_string", "dyn", "dyn"])
        return self.wkt_form(t, depth)


# --- the fixed table ----------------------------------------------------------------------------

def _any(name, data):
    return f"{PKG}.Any{{type_url: 'type.googleapis.com/{PKG}.{name}', value: {bytes_literal(data)}}}"


# One expression per behaviour worth pinning; run without a device (any result type).
FIXED_EXPRESSIONS = [
    # wrappers: construction, default value, leading dot, narrowing, overflow
    f"{PKG}.Int32Value{{value: 1}}",
    f".{PKG}.Int32Value{{value: -2147483648}}",
    f"{PKG}.Int32Value{{}}",
    f"{PKG}.Int32Value{{value: 2147483648}}",
    f"{PKG}.Int32Value{{value: dyn(9999999999)}}",
    f"{PKG}.Int64Value{{value: 9223372036854775807}}",
    f"{PKG}.UInt32Value{{value: 4294967295u}}",
    f"{PKG}.UInt32Value{{value: dyn(4294967296u)}}",
    f"{PKG}.UInt64Value{{value: 18446744073709551615u}}",
    f"{PKG}.FloatValue{{value: 0.1}}",
    f"{PKG}.FloatValue{{value: 1e300}}",
    f"{PKG}.FloatValue{{value: 16777217.0}}",
    f"{PKG}.DoubleValue{{value: -0.0}}",
    f"{PKG}.BoolValue{{value: true}}",
    f"{PKG}.StringValue{{value: 'héllo'}}",
    f"{PKG}.BytesValue{{value: b'\\xff\\x00'}}",
    f"{PKG}.Int32Value{{value: 1, value: 2}}",
    f"{PKG}.Int32Value{{?value: optional.of(7)}}",
    f"{PKG}.Int32Value{{?value: optional.none()}}",
    # runtime conversion of dyn values into fields
    f"{PKG}.StringValue{{value: dyn(1)}}",
    f"{PKG}.BoolValue{{value: dyn('true')}}",
    f"{PKG}.DoubleValue{{value: dyn(1)}}",
    f"{PKG}.Int64Value{{value: dyn(1u)}}",
    f"{PKG}.BytesValue{{value: dyn('a')}}",
    # wrappers inside other expressions
    f"{PKG}.Int32Value{{value: 1}} + 1",
    f"{PKG}.Int64Value{{value: 9223372036854775807}} + 1",
    f"{PKG}.Int32Value{{value: 1}} == 1",
    f"{PKG}.FloatValue{{value: 0.1}} == 0.1",
    f"{PKG}.Int32Value{{value: 0}} == null",
    f"[{PKG}.Int32Value{{value: 1}}, 2]",
    f"{{'a': {PKG}.UInt64Value{{value: 1u}}}}",
    f"[1, 2].map(x, {PKG}.Int32Value{{value: x}})",
    f"[{PKG}.Int32Value{{value: 1}}, {PKG}.Int64Value{{}}].all(x, x >= 0)",
    f"cel.bind(x, {PKG}.Int32Value{{value: 2}}, x * x)",
    f"type({PKG}.Int32Value{{value: 1}})",
    f"type({PKG}.StringValue{{}}) == string",
    f"{PKG}.StringValue{{value: 'ab'}}.size()",
    f"optional.of({PKG}.Int32Value{{value: 0}}).hasValue()",
    f"optional.ofNonZeroValue({PKG}.Int32Value{{value: 0}}).hasValue()",
    # Value: each member, the oneof's last member wins, JSON conversion
    f"{PKG}.Value{{}}",
    f"{PKG}.Value{{null_value: {PKG}.NullValue.NULL_VALUE}}",
    f"{PKG}.Value{{null_value: 0}}",
    f"{PKG}.Value{{number_value: 1.5}}",
    f"{PKG}.Value{{number_value: 0.0/0.0}}",
    f"{PKG}.Value{{string_value: 'a'}}",
    f"{PKG}.Value{{bool_value: false}}",
    f"{PKG}.Value{{struct_value: {{'a': 1}}}}",
    f"{PKG}.Value{{list_value: [1, 2]}}",
    f"{PKG}.Value{{list_value: {PKG}.ListValue{{values: ['x']}}}}",
    f"{PKG}.Value{{string_value: 'first', string_value: 'last'}}",
    f"{PKG}.Value{{string_value: 'a', ?string_value: optional.none()}}",
    f"{PKG}.Value{{string_value: 'a', ?bool_value: optional.none()}}",
    # two members of the oneof: the winner is random in cel-go (listed, never failed)
    f"{PKG}.Value{{number_value: 1.0, string_value: 'x'}}",
    f"{PKG}.Value{{?string_value: optional.none()}}",
    f"{PKG}.Value{{list_value: [1, 2]}} == [1.0, 2.0]",
    f"type({PKG}.Value{{}})",
    f"has({PKG}.Value{{}}.string_value)",
    f"{PKG}.Value{{bool_value: true}}.bool_value",
    # Struct and ListValue: JSON conversion of every CEL type
    f"{PKG}.Struct{{}}",
    f"{PKG}.Struct{{fields: {{'b': dyn(1), 'a': dyn('x'), 'c': dyn([1])}}}}",
    f"{PKG}.Struct{{fields: {{'a': dyn(9007199254740993)}}}}",
    f"{PKG}.Struct{{fields: {{'a': dyn(b'\\xff')}}}}",
    f"{PKG}.Struct{{fields: dyn({{1: 2}})}}",
    f"{PKG}.Struct{{fields: {{'a': dyn(1)}}}}.a",
    f"{PKG}.Struct{{fields: {{'a': dyn(1)}}}}.?a",
    f"{PKG}.Struct{{fields: {{'a': dyn(1)}}}}['b']",
    f"has({PKG}.Struct{{fields: {{'a': dyn(1)}}}}.a)",
    f"{PKG}.Struct{{fields: {{'a': dyn(1)}}}} == {{'a': 1.0}}",
    f"type({PKG}.Struct{{}})",
    f"{PKG}.ListValue{{}}",
    f"{PKG}.ListValue{{values: [dyn(1), dyn('a'), dyn(b'ab'), dyn(duration('1s')), "
    f"dyn(timestamp('2021-01-01T00:00:00Z')), dyn(9007199254740992), dyn(18446744073709551615u), dyn(null), "
    f"dyn([1]), dyn({{'x': true}})]}}",
    f"{PKG}.ListValue{{values: [dyn(-9007199254740993), dyn(9007199254740991)]}}",
    f"{PKG}.ListValue{{values: [dyn(1.0/0.0), dyn(0.0/0.0)]}}",
    f"{PKG}.ListValue{{values: [dyn({{1: 2}})]}}",
    f"{PKG}.ListValue{{values: [dyn(int)]}}",
    f"{PKG}.ListValue{{values: [dyn(quantity('1'))]}}",
    f"{PKG}.ListValue{{values: [dyn(optional.of(1))]}}",
    f"{PKG}.ListValue{{values: [dyn({PKG}.Int32Value{{value: 3}}), dyn({PKG}.Empty{{}})]}}",
    f"{PKG}.ListValue{{values: [dyn({PKG}.Duration{{seconds: 90}}), dyn({PKG}.Timestamp{{nanos: 5}})]}}",
    f"{PKG}.ListValue{{values: [1, 2]}}.map(x, x * 2)",
    f"{PKG}.ListValue{{values: [1, 2]}}[?0]",
    f"{PKG}.ListValue{{values: ['a', 'b']}}.exists(x, x == 'b')",
    f"type({PKG}.ListValue{{}})",
    # Duration and Timestamp
    f"{PKG}.Duration{{seconds: 10, nanos: 5}}",
    f"{PKG}.Duration{{seconds: 1, nanos: -5}}",
    f"{PKG}.Duration{{nanos: 2000000000}}",
    f"{PKG}.Duration{{nanos: 2147483648}}",
    f"{PKG}.Duration{{seconds: 315576000001}}",
    f"{PKG}.Duration{{seconds: 9223372036854775807}}",
    f"{PKG}.Duration{{seconds: 90}}.getMinutes()",
    f"{PKG}.Duration{{seconds: 1}} < duration('2s')",
    f"type({PKG}.Duration{{}})",
    f"{PKG}.Timestamp{{seconds: 10}}",
    f"{PKG}.Timestamp{{seconds: 253402300799, nanos: 999999999}}",
    f"{PKG}.Timestamp{{seconds: 253402300800}}",
    f"{PKG}.Timestamp{{seconds: -62135596801}}",
    f"{PKG}.Timestamp{{seconds: 1, nanos: 1000000000}}",
    f"{PKG}.Timestamp{{seconds: 1}} - timestamp('1970-01-01T00:00:00Z')",
    f"{PKG}.Timestamp{{seconds: 1609459200}}.getFullYear()",
    # seconds near the int64 limits: Go's wrapped calendar and order (lib/cel/internal/go_calendar.h)
    f"{PKG}.Timestamp{{seconds: -9223372036854775808}}",
    f"{PKG}.Timestamp{{seconds: -9223372036854775808}}.getFullYear() > 2000",
    f"string({PKG}.Timestamp{{seconds: -9223372036854775807, nanos: 999999999}})",
    f"{PKG}.Timestamp{{seconds: -9223372036854775000}}.getDayOfYear('Asia/Tokyo')",
    f"{PKG}.Timestamp{{seconds: 9223372036854775807}}.getHours('+05:30')",
    f"{PKG}.Timestamp{{seconds: 9223372036854775807}}.getFullYear('-14:00')",
    f"{PKG}.Timestamp{{seconds: 9223372036854775807}} < timestamp('2021-01-01T00:00:00Z')",
    f"{PKG}.Timestamp{{seconds: -9223372036854775808}} > {PKG}.Timestamp{{seconds: 9223372036854775807}}",
    f"{PKG}.Timestamp{{seconds: -9223372036854775808}} == {PKG}.Timestamp{{seconds: -9223372036854775808}}",
    f"{PKG}.Timestamp{{seconds: -9223372036854775808}} - duration('1s')",
    f"{PKG}.Timestamp{{seconds: 9223372036854775807, nanos: 999999999}} + duration('1ns')",
    f"{PKG}.Timestamp{{seconds: 9223372036854775807}} - timestamp(0)",
    f"{PKG}.Timestamp{{seconds: -9223372037, nanos: 999999999}} - timestamp(0)",
    f"int({PKG}.Timestamp{{seconds: -9223372036854775808}})",
    f"{PKG}.Timestamp{{seconds: -62167219201}}",
    # Empty and Any
    f"{PKG}.Empty{{}}",
    f"{PKG}.Empty{{}} == {PKG}.Empty{{}}",
    f"{PKG}.Empty{{}} == dyn(1)",
    f"type({PKG}.Empty{{}}) == {PKG}.Empty",
    _any("Int32Value", b"\x08\x05"),
    _any("Int32Value", b"\x08\x05") + " == 5",
    _any("Value", b"\x1a\x01a"),
    _any("Duration", b"\x08\x05"),
    _any("StringValue", "日本".encode()[:0] + b"\x0a\x02hi"),
    _any("Struct", b"\x0a\x0a\x0a\x01a\x12\x05\x1a\x03xyz"),
    _any("Int32Value", b"\xff"),
    f"{PKG}.Any{{type_url: 'type.googleapis.com/{PKG}.Empty'}}",
    f"{PKG}.Any{{type_url: '{PKG}.Int32Value', value: b'\\x08\\x05'}}",
    f"{PKG}.Any{{type_url: 'type.googleapis.com/{PKG}.Foo'}}",
    f"{PKG}.Any{{}}",
    # compile errors
    f"{PKG}.Int32Value{{foo: 1}}",
    f"{PKG}.Int32Value{{value: 'a'}}",
    f"{PKG}.Int32Value{{value: 1}}.value",
    f"{PKG}.Int32Value{{value: 1}}.?value",
    f"{PKG}.Value{{number_value: 1}}",
    f"{PKG}.Value{{null_value: null}}",
    f"{PKG}.Duration{{seconds: 1.5}}",
    f"{PKG}.Struct{{fields: {{'a': 1, 'b': [1, 'x']}}}}",
    f"{PKG}.ListValue{{values: [1, b'ab']}}",
    f"{PKG}.Foo{{}}",
    "Int32Value{value: 1}",
    f"{PKG}.Int32Value",
    f"type({PKG}.Int32Value{{value: 1}}) == {PKG}.Int32Value",
    f"{PKG}.NullValue.NULL_VALUE",
]

# Selectors over the tests/cel table's device (cel_parity.TABLE_DEVICE: driver dra.example.com, model
# "a100", memory 40, version 1.2.3, ints [3, 1, 2], capacity memory 1Gi): a message as the selector's
# result (converted to bool as the scheduler does) and device values flowing into message fields.
_A = 'device.attributes["dra.example.com"]'
SELECTOR_EXPRESSIONS = [
    f"{PKG}.BoolValue{{value: true}}",
    f"{PKG}.BoolValue{{}}",
    f"dyn({PKG}.BoolValue{{value: true}})",
    f"{PKG}.Value{{bool_value: {_A}.model == 'a100'}}",
    f"{PKG}.Value{{string_value: 'x'}}",
    f"{PKG}.Value{{}}",
    f"{PKG}.Int32Value{{value: 1}}",
    f"{PKG}.Any{{type_url: 'type.googleapis.com/{PKG}.BoolValue', value: b'\\x08\\x01'}}",
    f"{PKG}.Struct{{fields: {{'m': dyn({_A}.model)}}}}.m == 'a100'",
    f"{PKG}.Int64Value{{value: {_A}.memory}} > 10",
    f"{PKG}.Int32Value{{value: {_A}.model}} > 10",
    f"{PKG}.Int32Value{{value: {_A}.missing}} > 10",
    f"{PKG}.ListValue{{values: [dyn({_A}.ints)]}}[0].size() == 3",
    f"{PKG}.ListValue{{values: [device.capacity[\"dra.example.com\"].memory]}}.size() == 1",
    f"{PKG}.Struct{{fields: {{'v': dyn({_A}.version)}}}}.size() == 1",
    f"{PKG}.StringValue{{value: device.driver}}.endsWith('example.com')",
    f"[{PKG}.Int64Value{{value: {_A}.memory}}, {PKG}.Int32Value{{}}].exists(x, x == 40)",
    f"{PKG}.Struct{{fields: {{'m': dyn({_A}.model)}}}}.?m.orValue('') == 'a100'",
    f"{PKG}.Timestamp{{seconds: -9223372036854775808 + {_A}.memory}}.getFullYear() > 2000",
    f"{PKG}.Timestamp{{seconds: 9223372036854775807 - {_A}.memory}} > timestamp('2021-01-01T00:00:00Z')",
]
