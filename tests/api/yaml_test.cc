// Tests for lib/api/yaml: YAML -> JSON exactly as sigs.k8s.io/yaml (go-yaml v2) converts it, and
// JSON -> YAML exactly as `kubectl get -o yaml` prints it. The expected values were checked
// against sigs.k8s.io/yaml v1.6.0 (go.yaml.in/yaml/v2 v2.4.2) where the two agree by design.
#include "api/yaml.h"

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/status.h"
#include "gtest/gtest.h"
#include "rapidjson/document.h"
#include "rapidjson/stringbuffer.h"
#include "rapidjson/writer.h"

namespace draforge::api {
namespace {

namespace fs = std::filesystem;

std::string Dump(const rapidjson::Value& v) {
  rapidjson::StringBuffer sb;
  rapidjson::Writer<rapidjson::StringBuffer> w(sb);
  v.Accept(w);
  return sb.GetString();
}

rapidjson::Document Json(std::string_view text) {
  rapidjson::Document d;
  d.Parse<rapidjson::kParseFullPrecisionFlag>(text.data(), text.size());
  EXPECT_FALSE(d.HasParseError()) << text;
  return d;
}

// Equality that also tells integers from doubles (RapidJSON's == compares numbers by value).
bool StrictEqual(const rapidjson::Value& a, const rapidjson::Value& b) {
  if (a.GetType() != b.GetType()) return false;
  switch (a.GetType()) {
    case rapidjson::kNumberType:
      if (a.IsDouble() != b.IsDouble()) return false;
      if (a.IsDouble()) return a.GetDouble() == b.GetDouble();
      if (a.IsInt64() != b.IsInt64()) return false;
      return a.IsInt64() ? a.GetInt64() == b.GetInt64() : a.GetUint64() == b.GetUint64();
    case rapidjson::kStringType:
      return std::string_view(a.GetString(), a.GetStringLength()) ==
             std::string_view(b.GetString(), b.GetStringLength());
    case rapidjson::kArrayType:
      if (a.Size() != b.Size()) return false;
      for (rapidjson::SizeType i = 0; i < a.Size(); ++i) {
        if (!StrictEqual(a[i], b[i])) return false;
      }
      return true;
    case rapidjson::kObjectType:
      if (a.MemberCount() != b.MemberCount()) return false;
      for (const auto& m : a.GetObject()) {
        auto it = b.FindMember(m.name);
        if (it == b.MemberEnd() || !StrictEqual(m.value, it->value)) return false;
      }
      return true;
    default:
      return true;
  }
}

// Parses a stream that must hold exactly one document.
rapidjson::Document One(std::string_view yaml) {
  auto docs = ParseYamlStream(yaml);
  rapidjson::Document out;
  EXPECT_TRUE(docs.ok()) << docs.status() << "\n" << yaml;
  if (!docs.ok()) return out;
  EXPECT_EQ(docs->size(), 1u) << yaml;
  if (docs->size() != 1) return out;
  out.Swap((*docs)[0].json);
  return out;
}

std::string ErrorOf(std::string_view yaml, const YamlLimits& limits = {}) {
  auto docs = ParseYamlStream(yaml, limits);
  EXPECT_FALSE(docs.ok()) << yaml;
  return docs.ok() ? "" : std::string(docs.status().message());
}

absl::StatusCode CodeOf(std::string_view yaml, const YamlLimits& limits = {}) {
  return ParseYamlStream(yaml, limits).status().code();
}

// ---------------------------------------------------------------------------------------------
// Scalar resolution

struct ScalarCase {
  std::string_view yaml;  // written as the value of `v: `
  std::string_view json;  // the value sigs.k8s.io/yaml.YAMLToJSON yields, as a JSON reader sees it
};

TEST(YamlScalars, ResolveLikeGoYamlV2) {
  const ScalarCase cases[] = {
      // Null.
      {"~", "null"}, {"null", "null"}, {"Null", "null"}, {"NULL", "null"}, {"", "null"},
      {"nULL", R"("nULL")"},
      // YAML 1.1 booleans, exactly go-yaml v2's table (one-letter forms included).
      {"y", "true"}, {"Y", "true"}, {"yes", "true"}, {"Yes", "true"}, {"YES", "true"},
      {"true", "true"}, {"True", "true"}, {"TRUE", "true"}, {"on", "true"}, {"On", "true"},
      {"ON", "true"}, {"n", "false"}, {"N", "false"}, {"no", "false"}, {"No", "false"},
      {"NO", "false"}, {"false", "false"}, {"False", "false"}, {"FALSE", "false"},
      {"off", "false"}, {"Off", "false"}, {"OFF", "false"}, {"yEs", R"("yEs")"},
      {"oN", R"("oN")"},
      // Integers: Go syntax (strconv.ParseInt base 0) after removing underscores.
      {"0", "0"}, {"-0", "0"}, {"+12", "12"}, {"-7", "-7"}, {"0x1F", "31"}, {"0X1f", "31"},
      {"-0x10", "-16"}, {"0o17", "15"}, {"017", "15"}, {"0b101", "5"}, {"-0b101", "-5"},
      {"0b-1", "-1"}, {"1_000", "1000"}, {"-_1", "-1"}, {"0_", "0"},
      {"9223372036854775807", "9223372036854775807"},
      {"-9223372036854775808", "-9223372036854775808"},
      {"9223372036854775808", "9223372036854775808"},  // uint64
      {"18446744073709551615", "18446744073709551615"},
      {"18446744073709551616", "1.8446744073709552e19"},  // a float, too big for a uint64
      // Floats. encoding/json writes an integral float below 1e21 as an integer.
      {"1.5", "1.5"}, {".5", "0.5"}, {"+.5", "0.5"}, {"-.5e3", "-500"}, {"1e3", "1000"},
      {"1.0", "1"}, {"1.", "1"}, {"09", "9"}, {"08.5", "8.5"}, {"6.02e23", "6.02e23"},
      {"1e20", "1e20"}, {"1e21", "1e21"}, {"0.1", "0.1"}, {"1e-7", "1e-7"}, {"1e-400", "0"},
      {".5_5", "0.55"}, {"9223372036854775807.5", "9223372036854776000"},
      {"1e400", R"("1e400")"}, {"._5", R"("._5")"}, {".5.", R"(".5.")"},
      // Look like numbers or more, but are strings.
      {"0x", R"("0x")"}, {"0b2", R"("0b2")"}, {"1.2.3", R"("1.2.3")"}, {"_1", R"("_1")"},
      {"1:20", R"("1:20")"}, {"0x1p3", R"("0x1p3")"}, {"12e", R"("12e")"},
      {"inf", R"("inf")"}, {"nan", R"("nan")"}, {".Inf", R"(".Inf")"} /* invalid below */,
      // Timestamps stay strings (go-yaml v2 keeps the text for interface{} targets).
      {"2001-12-14", R"("2001-12-14")"},
      {"2001-12-14T21:59:43.10-05:00", R"("2001-12-14T21:59:43.10-05:00")"},
      {"2001-12-14 21:59:43.10", R"("2001-12-14 21:59:43.10")"},
      // Quoted and block scalars are always strings.
      {"'yes'", R"("yes")"}, {"\"1\"", R"("1")"}, {"\"\"", R"("")"}, {"'~'", R"("~")"},
      {"|-\n  12", R"("12")"},
      // Tags.
      {"!!str 5", R"("5")"}, {"!!str", R"("")"}, {"!!int '7'", "7"}, {"!!float 3", "3"},
      {"!!float '1.5'", "1.5"}, {"!!bool yes", "true"}, {"!!null ~", "null"},
      {"!!null", "null"}, {"!custom text", R"("text")"}, {"! 12", R"("12")"},
      {"!!binary aGVsbG8=", R"("hello")"}, {"!!binary /w==", R"("\ufffd")"},
      {"!!timestamp 2001-12-14", R"("2001-12-14")"},
      {"!!str {a: 1}", R"({"a":1})"},  // tags on collections are ignored
  };
  for (const ScalarCase& c : cases) {
    if (c.yaml == ".Inf") continue;  // see InfinityAndNaNAreErrors
    const std::string yaml = absl::StrCat("v: ", AV(c.yaml), "\n");
    rapidjson::Document doc = One(yaml);
    ASSERT_TRUE(doc.IsObject()) << yaml;
    const rapidjson::Document want = Json(c.json);
    EXPECT_TRUE(StrictEqual(doc["v"], want))
        << c.yaml << " -> " << Dump(doc["v"]) << ", want " << c.json;
  }
}

TEST(YamlScalars, InfinityAndNaNAreErrors) {
  // JSON cannot hold them; sigs.k8s.io/yaml fails with "json: unsupported value: +Inf".
  for (std::string_view v : {".inf", ".Inf", "+.INF", "-.inf", ".nan", ".NaN", "!!float .inf"}) {
    const std::string yaml = absl::StrCat("a: ", AV(v), "\n");
    EXPECT_EQ(CodeOf(yaml), absl::StatusCode::kInvalidArgument) << v;
    EXPECT_NE(ErrorOf(yaml).find("cannot be represented in JSON"), std::string::npos) << v;
  }
  // As a key, the float becomes text.
  EXPECT_EQ(Dump(One(".inf: a\n-.inf: b\n.nan: c\n")), R"({".inf":"a","-.inf":"b",".nan":"c"})");
}

TEST(YamlScalars, BadTaggedValues) {
  EXPECT_NE(ErrorOf("a: !!int abc\n").find("cannot decode !!str `abc` as a !!int"),
            std::string::npos);
  EXPECT_NE(ErrorOf("a: !!int\n").find("cannot decode !!null `` as a !!int"), std::string::npos);
  EXPECT_NE(ErrorOf("a: !!bool 1\n").find("as a !!bool"), std::string::npos);
  EXPECT_NE(ErrorOf("a: !!timestamp tomorrow\n").find("as a !!timestamp"), std::string::npos);
  EXPECT_NE(ErrorOf("a: !!binary 'aGk'\n").find("invalid base64"), std::string::npos);
}

TEST(YamlScalars, KeysBecomeStrings) {
  EXPECT_EQ(Dump(One("1: a\n1.5: b\ntrue: c\nno: d\n0x10: e\n2001-01-01: f\n")),
            R"({"1":"a","1.5":"b","true":"c","false":"d","16":"e","2001-01-01":"f"})");
  // Float keys are printed as float32, as sigs.k8s.io/yaml does.
  EXPECT_EQ(Dump(One("3.14159265358979: a\n1e20: b\n1.0: c\n100000000.0: d\n")),
            R"({"3.1415927":"a","1e+20":"b","1":"c","1e+08":"d"})");
  EXPECT_NE(ErrorOf("~: a\n").find("null mapping keys"), std::string::npos);
  EXPECT_EQ(CodeOf("? \n: a\n"), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(ErrorOf("18446744073709551615: a\n").find("out of the int64 range"),
            std::string::npos);
  EXPECT_NE(ErrorOf("[1, 2]: a\n").find("invalid map key"), std::string::npos);
  EXPECT_NE(ErrorOf("? {a: 1}\n: b\n").find("invalid map key"), std::string::npos);
}

TEST(YamlScalars, QuotedEscapes) {
  rapidjson::Document doc = One(
      "a: \"t\\tn\\n\\u00e9\\x41\\U0001F600\\N\\_\\L\\P\\e\\0\\\\\\\"\"\n"
      "b: 'it''s'\n"
      "c: \"fold\n  ed\"\n"
      "d: \"join\\\n  ed\"\n");
  // \N and \_ are U+0085 and U+00A0 (yaml-cpp 0.7 alone gets them wrong).
  const std::string want = std::string("t\tn\n") + "\xC3\xA9" + "A" + "\xF0\x9F\x98\x80" +
                           "\xC2\x85" + "\xC2\xA0" + "\xE2\x80\xA8" + "\xE2\x80\xA9" + "\x1B" +
                           std::string(1, '\0') + "\\\"";
  EXPECT_EQ(std::string(doc["a"].GetString(), doc["a"].GetStringLength()), want);
  EXPECT_STREQ(doc["b"].GetString(), "it's");
  EXPECT_STREQ(doc["c"].GetString(), "fold ed");
  EXPECT_STREQ(doc["d"].GetString(), "joined");
  EXPECT_NE(ErrorOf("a: \"\\ud800\"\n").find("line 1"), std::string::npos);
}

// ---------------------------------------------------------------------------------------------
// Styles and structure

TEST(YamlStyles, BlockAndFlow) {
  EXPECT_EQ(Dump(One("{apiVersion: v1, kind: Pod,\n metadata: {name: x, },\n"
                     " spec: {a: [1, 2, ], },\n}\n")),
            R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"x"},"spec":{"a":[1,2]}})");
  EXPECT_EQ(Dump(One("- a: 1\n  b: [x, {c: d}]\n- - e\n  - f\n-\n")),
            R"([{"a":1,"b":["x",{"c":"d"}]},["e","f"],null])");
  EXPECT_EQ(Dump(One("a:\n- 1\n- 2\nb:\n   - 3\nc:\n d: 1\n")),
            R"({"a":[1,2],"b":[3],"c":{"d":1}})");
  EXPECT_EQ(Dump(One("? complex\n: value\nplain: text  with  spaces\nmulti: a\n  b\n\n  c\n")),
            R"({"complex":"value","plain":"text  with  spaces","multi":"a b\nc"})");
}

TEST(YamlStyles, BlockScalars) {
  rapidjson::Document doc = One(
      "literal: |\n  line 1\n    indented\n  line 3\n"
      "strip: |-\n  x\n  y\n"
      "keep: |+\n  kept\n\n"
      "folded: >\n  folded\n  text\n\n  para\n"
      "folded_strip: >-\n  a\n   more\n  b\n"
      "indicator: |2\n    two\n  extra\n"
      "cel: |-\n  device.driver == \"gpu\" &&\n  device.attributes[\"x\"].bool\n");
  EXPECT_STREQ(doc["literal"].GetString(), "line 1\n  indented\nline 3\n");
  EXPECT_STREQ(doc["strip"].GetString(), "x\ny");
  EXPECT_STREQ(doc["keep"].GetString(), "kept\n\n");
  EXPECT_STREQ(doc["folded"].GetString(), "folded text\npara\n");
  EXPECT_STREQ(doc["folded_strip"].GetString(), "a\n more\nb");
  EXPECT_STREQ(doc["indicator"].GetString(), "  two\nextra\n");
  EXPECT_STREQ(doc["cel"].GetString(),
               "device.driver == \"gpu\" &&\ndevice.attributes[\"x\"].bool");
}

TEST(YamlStyles, AnchorsAndAliases) {
  EXPECT_EQ(Dump(One("a: &x [1, &y two]\nb: [*x, *y]\nc: &n\nd: *n\n")),
            R"({"a":[1,"two"],"b":[[1,"two"],"two"],"c":null,"d":null})");
  // An alias used as a key resolves its scalar again; a collection cannot be a key.
  EXPECT_EQ(Dump(One("a: &k 1\n*k : b\n")), R"({"a":1,"1":"b"})");
  EXPECT_EQ(Dump(One("&k key: v\nother: *k\n")), R"({"key":"v","other":"key"})");
  EXPECT_NE(ErrorOf("a: &x {b: 1}\n*x : v\n").find("invalid map key"), std::string::npos);
  EXPECT_NE(ErrorOf("a: &x [1, *x]\n").find("anchor 'x' value contains itself"),
            std::string::npos);
  EXPECT_NE(ErrorOf("a: *nope\n").find("line 1, column 4"), std::string::npos);
}

TEST(YamlStyles, MergeKeysAsGoYamlV2) {
  const std::string base = "base: &b {a: 1, b: 2}\nother: &o {b: 3, c: 4}\n";
  EXPECT_EQ(Dump(One(base + "x:\n  <<: *b\n  c: 3\n")["x"]), R"({"a":1,"b":2,"c":3})");
  // Later entries overwrite merged ones...
  EXPECT_EQ(Dump(One(base + "x:\n  <<: *b\n  a: 0\n")["x"]), R"({"a":0,"b":2})");
  // ...and, in go-yaml v2, a merge overwrites entries before it.
  EXPECT_EQ(Dump(One(base + "x:\n  a: 0\n  <<: *b\n")["x"]), R"({"a":1,"b":2})");
  // In a list of mappings the first one wins.
  EXPECT_EQ(Dump(One(base + "x:\n  <<: [*b, *o]\n")["x"]), R"({"b":2,"c":4,"a":1})");
  EXPECT_EQ(Dump(One("x:\n  <<: {a: 1}\n  <<: [{b: 2}, {b: 3}]\n")["x"]), R"({"a":1,"b":2})");
  EXPECT_EQ(Dump(One("x:\n  !!merge <<: {a: 1}\n")["x"]), R"({"a":1})");
  // A quoted "<<" is an ordinary key.
  EXPECT_EQ(Dump(One("x:\n  '<<': {a: 1}\n")["x"]), R"({"<<":{"a":1}})");
  // Merges of merges.
  EXPECT_EQ(Dump(One("a: &a {p: 1}\nb: &b\n  <<: *a\n  q: 2\nc:\n  <<: *b\n  r: 3\n")["c"]),
            R"({"p":1,"q":2,"r":3})");
  // (`y: 2` would have been the key "true": YAML 1.1.)
  EXPECT_EQ(Dump(One("y: 2\n")), R"({"true":2})");
  const std::string want = "map merge requires map or sequence of maps as the value";
  EXPECT_NE(ErrorOf("x:\n  <<: 1\n").find(want), std::string::npos);
  EXPECT_NE(ErrorOf("s: &s [1]\nx:\n  <<: *s\n").find(want), std::string::npos);
  EXPECT_NE(ErrorOf("x:\n  <<: [{a: 1}, 2]\n").find(want), std::string::npos);
}

TEST(YamlStyles, InputForms) {
  // A UTF-8 BOM, CRLF line ends, no final newline, comments.
  EXPECT_EQ(Dump(One("\xEF\xBB\xBF" "a: 1 # c\r\nb: |\r\n  x\r\n  y\r\nc: 'q' #c\n# end")),
            R"({"a":1,"b":"x\ny\n","c":"q"})");
  // UTF-16 with a BOM, as go-yaml accepts it.
  const std::string utf16le("\xFF\xFE" "a\0:\0 \0\xE9\0\n\0", 12);
  EXPECT_EQ(Dump(One(utf16le)), "{\"a\":\"\xC3\xA9\"}");
  // Tabs as separators are fine; as indentation they are not.
  EXPECT_EQ(Dump(One("a:\tb\n")), R"({"a":"b"})");
  EXPECT_EQ(CodeOf("a:\n\t- b\n"), absl::StatusCode::kInvalidArgument);
  // A %YAML directive.
  EXPECT_EQ(Dump(One("%YAML 1.1\n---\na: 1\n")), R"({"a":1})");
}

TEST(YamlDocuments, StreamsSkipEmptyDocuments) {
  auto docs = ParseYamlStream(
      "# leading comment\n"  // 1
      "---\n"                // 2
      "a: 1\n"               // 3
      "...\n"                // 4
      "---\n"                // 5
      "# only a comment\n"   // 6
      "---\n"                // 7
      "~\n"                  // 8
      "---\n"                // 9
      "- b\n"                // 10
      "---\n"                // 11
      "--- c\n"              // 12
      "---\n");              // 13
  ASSERT_TRUE(docs.ok()) << docs.status();
  ASSERT_EQ(docs->size(), 3u);
  EXPECT_EQ(Dump((*docs)[0].json), R"({"a":1})");
  EXPECT_EQ((*docs)[0].line, 2);
  EXPECT_EQ(Dump((*docs)[1].json), R"(["b"])");
  EXPECT_EQ((*docs)[1].line, 9);
  EXPECT_EQ(Dump((*docs)[2].json), R"("c")");
  EXPECT_EQ((*docs)[2].line, 12);

  auto first = ParseYamlStream("\n\n# c\nkind: Pod\n");
  ASSERT_TRUE(first.ok());
  ASSERT_EQ(first->size(), 1u);
  EXPECT_EQ((*first)[0].line, 4);

  for (std::string_view empty : {"", "\n", "# just a comment\n", "---\n", "---\n---\n...\n"}) {
    auto none = ParseYamlStream(empty);
    ASSERT_TRUE(none.ok()) << empty;
    EXPECT_TRUE(none->empty()) << empty;
  }
}

// ---------------------------------------------------------------------------------------------
// Errors

TEST(YamlErrors, PositionsAndDocumentNumbers) {
  EXPECT_EQ(ErrorOf("a: b: c\n"), "yaml: line 1, column 5: illegal map value (document 1)");
  const std::string second = ErrorOf("a: 1\n---\nb: 1\n  c: 2\n");
  EXPECT_NE(second.find("line 4, column"), std::string::npos) << second;
  EXPECT_NE(second.find("(document 2)"), std::string::npos) << second;
  EXPECT_NE(ErrorOf("a: [1, 2\n").find("yaml: line 2, column 1:"), std::string::npos);
  // What yaml-cpp would accept but YAML (and go-yaml) does not.
  EXPECT_EQ(ErrorOf("- a\nb: c\n"),
            "yaml: line 2, column 1: did not find expected <document start> (document 2)");
  EXPECT_EQ(ErrorOf("a: 1\n...\nb: 2\n"),
            "yaml: line 3, column 1: did not find expected <document start> (document 2)");
  EXPECT_EQ(ErrorOf("a: b\nc: 'open\n"),
            "yaml: line 2, column 4: found unexpected end of stream in a quoted scalar "
            "(document 1)");
  EXPECT_NE(ErrorOf("a: !!str \"open\n").find("unexpected end of stream"), std::string::npos);
  // go-yaml's reader: valid UTF-8 only, no control characters.
  EXPECT_EQ(ErrorOf("a: 1\nb: \xFF\n"), "yaml: line 2, column 4: invalid UTF-8");
  EXPECT_EQ(ErrorOf("a: b\x01" "c\n"),
            "yaml: line 1, column 5: control characters are not allowed");
  EXPECT_EQ(ErrorOf(std::string("a: \0\n", 5)),
            "yaml: line 1, column 4: control characters are not allowed");
  for (absl::StatusCode c : {CodeOf("a: b: c"), CodeOf("a: \xC3\x28"), CodeOf("a: *x")}) {
    EXPECT_EQ(c, absl::StatusCode::kInvalidArgument);
  }
}

TEST(YamlErrors, DuplicateKeys) {
  EXPECT_EQ(ErrorOf("metadata:\n  name: a\nspec:\n  x: 1\nspec:\n  y: 2\n"),
            "yaml: duplicate key \"spec\" at line 5, column 1 (first at line 3, column 1) "
            "(document 1)");
  EXPECT_NE(ErrorOf("a:\n  b: 1\n  c: 2\n  b: 3\n").find("duplicate key \"b\" at line 4"),
            std::string::npos);
  EXPECT_NE(ErrorOf("[{a: 1, a: 2}]\n").find("duplicate key \"a\""), std::string::npos);
  // Keys that resolve to the same JSON key are duplicates too.
  EXPECT_NE(ErrorOf("true: 1\nyes: 2\n").find("duplicate key \"true\" at line 2"),
            std::string::npos);
  EXPECT_NE(ErrorOf("1: a\n'1': b\n").find("duplicate key \"1\""), std::string::npos);
  EXPECT_NE(ErrorOf("16: a\n0x10: b\n").find("duplicate key \"16\""), std::string::npos);
  // The same key in different mappings, or merged in, is fine.
  EXPECT_EQ(Dump(One("a: {x: 1}\nb: {x: 2}\n")), R"({"a":{"x":1},"b":{"x":2}})");
  EXPECT_EQ(Dump(One("d: &d {x: 1}\ne:\n  <<: *d\n  x: 2\n")["e"]), R"({"x":2})");
}

// ---------------------------------------------------------------------------------------------
// Limits

std::string BillionLaughs(int levels) {
  std::string yaml = R"(a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"])" "\n";
  for (int i = 1; i < levels; ++i) {
    const char name = static_cast<char>('a' + i);
    const char prev = static_cast<char>('a' + i - 1);
    absl::StrAppend(&yaml, std::string(1, name), ": &", std::string(1, name), " [");
    for (int k = 0; k < 9; ++k) absl::StrAppend(&yaml, k ? "," : "", "*", std::string(1, prev));
    absl::StrAppend(&yaml, "]\n");
  }
  return yaml;
}

TEST(YamlLimits, AliasBombFailsFast) {
  auto bomb = ParseYamlStream(BillionLaughs(9));  // 9^9 values if expanded
  ASSERT_FALSE(bomb.ok());
  EXPECT_EQ(bomb.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(bomb.status().message().find("excessive aliasing"), std::string::npos);
  // A little aliasing is fine.
  auto small = ParseYamlStream(BillionLaughs(3));
  ASSERT_TRUE(small.ok()) << small.status();
  EXPECT_EQ((*small)[0].json["c"].Size(), 9u);
}

TEST(YamlLimits, NodeAndByteBudgets) {
  YamlLimits limits;
  limits.max_nodes = 100;
  EXPECT_EQ(CodeOf("a: [1, 2, 3]\n", limits), absl::StatusCode::kOk);
  std::string many = "[";
  for (int i = 0; i < 200; ++i) absl::StrAppend(&many, i, ",");
  many += "]\n";
  EXPECT_EQ(CodeOf(many, limits), absl::StatusCode::kResourceExhausted);
  // The node budget covers the whole stream, not each document.
  std::string docs;
  for (int i = 0; i < 60; ++i) absl::StrAppend(&docs, "---\n[1]\n");
  EXPECT_EQ(CodeOf(docs, limits), absl::StatusCode::kResourceExhausted);

  // One short alias of a long string, many times.
  limits = YamlLimits();
  limits.max_string_bytes = 1 << 20;
  std::string strings = absl::StrCat("s: &s ", std::string(100000, 'x'), "\nl: [");
  for (int i = 0; i < 20; ++i) strings += "*s, ";
  strings += "]\n";
  EXPECT_EQ(CodeOf(strings, limits), absl::StatusCode::kResourceExhausted);
  limits.max_string_bytes = 4 << 20;
  EXPECT_EQ(CodeOf(strings, limits), absl::StatusCode::kOk);

  limits = YamlLimits();
  limits.max_input_bytes = 10;
  EXPECT_EQ(CodeOf("a: 12345678901\n", limits), absl::StatusCode::kResourceExhausted);
}

TEST(YamlLimits, DeepNesting) {
  const YamlLimits defaults;
  const int ok_depth = defaults.max_depth;
  EXPECT_EQ(CodeOf(std::string(ok_depth, '[') + std::string(ok_depth, ']')),
            absl::StatusCode::kOk);
  const std::string too_deep = std::string(ok_depth + 1, '[') + std::string(ok_depth + 1, ']');
  EXPECT_EQ(CodeOf(too_deep), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(ErrorOf(too_deep).find("nesting is deeper than"), std::string::npos);
  // Far deeper than yaml-cpp's own guard, in block and flow style.
  EXPECT_EQ(CodeOf(std::string(100000, '[') + std::string(100000, ']')),
            absl::StatusCode::kResourceExhausted);
  // Unclosed: the nesting limit is hit before the end of the input.
  EXPECT_EQ(CodeOf(std::string(100000, '[')), absl::StatusCode::kResourceExhausted);
  std::string block;
  for (int i = 0; i < 2000; ++i) absl::StrAppend(&block, std::string(i, ' '), "k:\n");
  EXPECT_EQ(CodeOf(block), absl::StatusCode::kResourceExhausted);
  // Even with a larger limit, yaml-cpp stops before the stack runs out.
  YamlLimits big;
  big.max_depth = 100000;
  const std::string seqs = std::string(100000, '[') + std::string(100000, ']');
  EXPECT_EQ(CodeOf(seqs, big), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(ErrorOf(seqs, big).find("too deep for the parser"), std::string::npos);
  EXPECT_EQ(CodeOf(std::string(300, '{') + std::string(300, '}')),
            absl::StatusCode::kResourceExhausted);
  EXPECT_NE(CodeOf(std::string(100000, '{') + std::string(100000, '}')), absl::StatusCode::kOk);
  // Aliases cannot nest deeper than the limit either.
  YamlLimits small;
  small.max_depth = 4;
  EXPECT_EQ(CodeOf("a: &a [[1]]\nb: [*a]\n", small), absl::StatusCode::kOk);
  EXPECT_EQ(CodeOf("a: &a [[1]]\nb: [[*a]]\n", small), absl::StatusCode::kResourceExhausted);
}

// ---------------------------------------------------------------------------------------------
// Writing

void ExpectRoundTrip(const rapidjson::Value& v) {
  const std::string yaml = WriteYaml(v);
  auto docs = ParseYamlStream(yaml);
  ASSERT_TRUE(docs.ok()) << docs.status() << "\n" << yaml;
  ASSERT_EQ(docs->size(), 1u) << yaml;
  EXPECT_TRUE((*docs)[0].json == v) << Dump(v) << "\n" << yaml << "\n" << Dump((*docs)[0].json);
}


TEST(YamlWrite, KubectlStyle) {
  const rapidjson::Document obj = Json(R"({
    "kind": "ResourceSlice", "apiVersion": "resource.k8s.io/v1",
    "metadata": {"name": "node-1-gpu", "labels": {}, "finalizers": [],
                 "creationTimestamp": "2024-05-01T10:00:00Z"},
    "spec": {"driver": "gpu.example.com", "nodeName": "node-1",
             "pool": {"name": "node-1", "generation": 1, "resourceSliceCount": 1},
             "devices": [{"name": "gpu-0", "attributes": {"model": {"string": "A100"},
                          "driverVersion": {"version": "1.0.0"}, "index": {"int": 0}},
                          "capacity": {"memory": {"value": "40Gi"}}}]},
    "status": null})");
  EXPECT_EQ(WriteYaml(obj),
            "apiVersion: resource.k8s.io/v1\n"
            "kind: ResourceSlice\n"
            "metadata:\n"
            "  creationTimestamp: \"2024-05-01T10:00:00Z\"\n"
            "  finalizers: []\n"
            "  labels: {}\n"
            "  name: node-1-gpu\n"
            "spec:\n"
            "  devices:\n"
            "  - attributes:\n"
            "      driverVersion:\n"
            "        version: 1.0.0\n"
            "      index:\n"
            "        int: 0\n"
            "      model:\n"
            "        string: A100\n"
            "    capacity:\n"
            "      memory:\n"
            "        value: 40Gi\n"
            "    name: gpu-0\n"
            "  driver: gpu.example.com\n"
            "  nodeName: node-1\n"
            "  pool:\n"
            "    generation: 1\n"
            "    name: node-1\n"
            "    resourceSliceCount: 1\n"
            "status: null\n");
}

TEST(YamlWrite, QuotingAndStyles) {
  const rapidjson::Document obj = Json(R"({
    "empty": "", "yes": "yes", "y": "y", "hex": "0x10", "exp": "1e3", "null": "null",
    "tilde": "~", "space": " a", "trail": "a ", "colon": "a: b", "hash": "#x", "dash": "- x",
    "time": "2001-12-14", "base60": "1:20", "plain": "hello world", "star": "*",
    "multi": "line1\nline2", "multi_nl": "a\nb\n", "multi_keep": "a\n\n", "lead": " a\nb",
    "trailsp": "a \nb", "tab": "a\tb", "bom": "\ufeffx", "emoji": "\ud83d\ude00",
    "e": "\u00e9", "ctl": "a\u0001", "q": "it's", "dq": "say \"hi\"", "bs": "a\\b"})");
  EXPECT_EQ(WriteYaml(obj),
            "base60: \"1:20\"\n"
            "bom: \"\\uFEFF\\x78\"\n"
            "bs: a\\b\n"
            "colon: 'a: b'\n"
            "ctl: \"a\\x01\"\n"
            "dash: '- x'\n"
            "dq: say \"hi\"\n"
            "e: \xC3\xA9\n"
            "emoji: \"\\U0001F600\"\n"
            "empty: \"\"\n"
            "exp: \"1e3\"\n"
            "hash: '#x'\n"
            "hex: \"0x10\"\n"
            "lead: |2-\n"
            "   a\n"
            "  b\n"
            "multi: |-\n"
            "  line1\n"
            "  line2\n"
            "multi_keep: |+\n"
            "  a\n"
            "\n"
            "multi_nl: |\n"
            "  a\n"
            "  b\n"
            "\"null\": \"null\"\n"
            "plain: hello world\n"
            "q: it's\n"
            "space: ' a'\n"
            "star: '*'\n"
            "tab: \"a\\tb\"\n"
            "tilde: \"~\"\n"
            "time: \"2001-12-14\"\n"
            "trail: 'a '\n"
            "trailsp: \"a \\nb\"\n"
            "\"y\": \"y\"\n"
            "\"yes\": \"yes\"\n");
}

TEST(YamlWrite, NumbersCollectionsAndKeys) {
  const rapidjson::Document obj = Json(R"({
    "i": -42, "u": 18446744073709551615, "f": 1.5, "whole": 2.0, "big": 1e20, "huge": 1e300,
    "tiny": 1e-7, "small": 0.000001, "million": 1000000.0, "2p63": 9223372036854775808.0,
    "nested": [[1, 2], [], {}, [{"a": 1, "b": [true, false]}]],
    "a10": 1, "a2": 2, "A": 3, "_x": 4, "0": 5, "<<": 6})");
  // go-yaml's natural key order; "<<" is quoted (go-yaml writes it plain, which would read back
  // as a merge key).
  EXPECT_EQ(WriteYaml(obj),
            "\"<<\": 6\n"
            "_x: 4\n"
            "\"0\": 5\n"
            "2p63: 9223372036854776000\n"
            "A: 3\n"
            "a2: 2\n"
            "a10: 1\n"
            "big: 1e+20\n"
            "f: 1.5\n"
            "huge: 1e+300\n"
            "i: -42\n"
            "million: 1000000\n"
            "nested:\n"
            "- - 1\n"
            "  - 2\n"
            "- []\n"
            "- {}\n"
            "- - a: 1\n"
            "    b:\n"
            "    - true\n"
            "    - false\n"
            "small: 1e-06\n"
            "tiny: 1e-07\n"
            "u: 18446744073709551615\n"
            "whole: 2\n");
  EXPECT_EQ(WriteYaml(Json("\"abc\"")), "abc\n");
  EXPECT_EQ(WriteYaml(Json("null")), "null\n");
  EXPECT_EQ(WriteYaml(Json("[]")), "[]\n");
  EXPECT_EQ(WriteYaml(Json("{}")), "{}\n");
  EXPECT_EQ(WriteYaml(Json("\"a\\nb\"")), "|-\n  a\n  b\n");
  // Keys longer than 128 bytes, or on several lines, take the "? " form.
  const std::string long_key(130, 'k');
  EXPECT_EQ(WriteYaml(Json(absl::StrCat("{\"", long_key, "\": 1, \"a\\nb\": 2}"))),
            absl::StrCat("? |-\n  a\n  b\n: 2\n? ", long_key, "\n: 1\n"));
}

TEST(YamlWrite, LongStringsFoldAtColumn80) {
  std::string words;
  for (int i = 0; i < 40; ++i) absl::StrAppend(&words, i ? " " : "", "word", i);
  const rapidjson::Document obj =
      Json(absl::StrCat(R"({"d": ")", words, R"(", "q": "x: )", words, R"(", "n": ")",
                        std::string(100, 'a'), R"( b"})"));
  EXPECT_EQ(WriteYaml(obj),
            "d: word0 word1 word2 word3 word4 word5 word6 word7 word8 word9 word10 word11 word12\n"
            "  word13 word14 word15 word16 word17 word18 word19 word20 word21 word22 word23 "
            "word24\n"
            "  word25 word26 word27 word28 word29 word30 word31 word32 word33 word34 word35 "
            "word36\n"
            "  word37 word38 word39\n" +
                absl::StrCat("\"n\": ", std::string(100, 'a'), "\n  b\n") +
                "q: 'x: word0 word1 word2 word3 word4 word5 word6 word7 word8 word9 word10 word11 "
                "word12\n"
                "  word13 word14 word15 word16 word17 word18 word19 word20 word21 word22 word23 "
                "word24\n"
                "  word25 word26 word27 word28 word29 word30 word31 word32 word33 word34 word35 "
                "word36\n"
                "  word37 word38 word39'\n");
  ExpectRoundTrip(obj);
}

TEST(YamlWrite, Stream) {
  const rapidjson::Document a = Json(R"({"kind": "A"})");
  const rapidjson::Document b = Json(R"([1])");
  EXPECT_EQ(WriteYamlStream({&a, nullptr, &b}), "kind: A\n---\n- 1\n");
  auto docs = ParseYamlStream(WriteYamlStream({&a, &b}));
  ASSERT_TRUE(docs.ok());
  ASSERT_EQ(docs->size(), 2u);
  EXPECT_EQ((*docs)[1].line, 2);
}

// ---------------------------------------------------------------------------------------------
// Round trip: ParseYamlStream(WriteYaml(v)) == v

TEST(YamlRoundTrip, TrickyStrings) {
  const std::vector<std::string> strings = {
      "yes", "no", "y", "n", "on", "off", "true", "False", "null", "Null", "~", "", " ", " a",
      "a ", "0x10", "0o17", "017", "0b1", "1e3", "1.5", ".5", "-.inf", ".nan", "1_000", "+1",
      "-", "- x", "-x", "? x", "?", ":", ": x", "a: b", "a:b", "#x", "a #x", "a#x", "x #",
      "*x", "&x", "!x", "!!str", "|", ">", "'", "\"", "'a'", "\"a\"", "[", "]", "{}", "[a]",
      "{a: 1}", ",", "%x", "@x", "`x", "---", "...", "--- a", "<<", "2001-12-14",
      "2001-12-14T21:59:43Z", "1:20", "190:20:30", "a\nb", "a\n", "\n", "\n\n", "a\n\n",
      "\na", " \na", "a \nb", "a\n b", "\ta", "a\tb", "a\r\nb", "\r", "a\\b", "\\", "\x01",
      "\x1b[0m", "\x7f", "\xC2\x85", "\xC2\xA0", "\xE2\x80\xA8", "a\xE2\x80\xA9" "b",
      "\xEF\xBB\xBF" "a", "\xEF\xBF\xBE", "\xC3\xA9t\xC3\xA9", "\xE6\x97\xA5\xE6\x9C\xAC",
      "\xF0\x9F\x98\x80", std::string(1, '\0'), std::string("a\0b", 3), std::string(200, 'x'),
      "device.attributes[\"gpu.example.com\"].model == 'A100' && "
      "x.compareTo(quantity(\"1Gi\")) >= 0",
  };
  for (const std::string& s : strings) {
    rapidjson::Document obj;
    obj.SetObject();
    auto& alloc = obj.GetAllocator();
    const auto str = [&] {
      return rapidjson::Value(s.data(), static_cast<rapidjson::SizeType>(s.size()), alloc);
    };
    obj.AddMember("v", str(), alloc);
    obj.AddMember(str(), rapidjson::Value("k"), alloc);
    rapidjson::Value list(rapidjson::kArrayType);
    list.PushBack(str(), alloc);
    obj.AddMember("list", list, alloc);
    SCOPED_TRACE(Dump(obj));
    ExpectRoundTrip(obj);
    rapidjson::Document top;
    top.SetString(s.data(), static_cast<rapidjson::SizeType>(s.size()), top.GetAllocator());
    ExpectRoundTrip(top);
  }
}

TEST(YamlRoundTrip, Numbers) {
  for (std::string_view n : {"0", "-1", "9223372036854775807", "-9223372036854775808",
                             "9223372036854775808", "18446744073709551615", "0.1", "-2.5",
                             "1e20", "1e21", "1e-7", "5e-324", "1.7976931348623157e308",
                             "123456789.0", "9223372036854775808.0", "-0.0", "3.0e15"}) {
    ExpectRoundTrip(Json(absl::StrCat("[", AV(n), "]")));
  }
}

// Random values from a fixed seed: strings built from pieces that YAML treats specially.
class RandomJson {
 public:
  explicit RandomJson(uint64_t seed) : rng_(seed) {}

  void Value(rapidjson::Value* v, rapidjson::Document::AllocatorType& a, int depth) {
    switch (Pick(depth > 3 ? 6 : 9)) {
      case 0:
        v->SetNull();
        break;
      case 1:
        v->SetBool(Pick(2) == 0);
        break;
      case 2: {
        const int t = Pick(4);
        if (t == 0) {
          v->SetInt64(static_cast<int64_t>(rng_()));
        } else if (t == 1) {
          v->SetUint64(rng_());
        } else if (t == 2) {
          v->SetInt64(Pick(2000) - 1000);
        } else {
          v->SetDouble(static_cast<double>(static_cast<int64_t>(rng_() >> Pick(64))) /
                       static_cast<double>(1 << Pick(20)));
        }
        break;
      }
      case 3:
      case 4:
      case 5: {
        const std::string s = String();
        v->SetString(s.data(), static_cast<rapidjson::SizeType>(s.size()), a);
        break;
      }
      case 6:
      case 7: {
        v->SetArray();
        for (int i = Pick(4); i > 0; --i) {
          rapidjson::Value e;
          Value(&e, a, depth + 1);
          v->PushBack(e, a);
        }
        break;
      }
      default: {
        v->SetObject();
        for (int i = Pick(5); i > 0; --i) {
          const std::string key = String();
          rapidjson::Value k(key.data(), static_cast<rapidjson::SizeType>(key.size()), a);
          if (v->FindMember(k) != v->MemberEnd()) continue;
          rapidjson::Value e;
          Value(&e, a, depth + 1);
          v->AddMember(k, e, a);
        }
      }
    }
  }

 private:
  int Pick(int n) { return static_cast<int>(rng_() % static_cast<uint64_t>(n)); }

  std::string String() {
    static constexpr std::string_view kPieces[] = {
        "a", "Z", "0", "9", " ", "  ", "\n", "\n\n", "\t", ":", ": ", "#", " #", "-", "- ", "?",
        "'", "\"", "\\", "[", "}", ",", "&", "*", "!", "|", ">", "%", "@", "`", ".",
        "\xC3\xA9", "\xE2\x80\xA8", "\xC2\x85", "\xF0\x9F\x98\x80", "\xEF\xBB\xBF", "\x01", "\r",
        "yes", "null", "0x10", "1e3", "1:20", "2001-01-01", "<<", "---", "...", "~", "word",
        "longer words here"};
    if (Pick(10) == 0) return "";
    std::string s;
    for (int i = 1 + Pick(Pick(4) == 0 ? 40 : 6); i > 0; --i) {
      s += kPieces[Pick(sizeof kPieces / sizeof kPieces[0])];
    }
    return s;
  }

  std::mt19937_64 rng_;
};

TEST(YamlRoundTrip, RandomValues) {
  RandomJson gen(20240601);
  for (int i = 0; i < 2000; ++i) {
    rapidjson::Document doc;
    gen.Value(&doc, doc.GetAllocator(), 0);
    if (doc.IsNull()) continue;  // a null document reads back as no document
    SCOPED_TRACE(i);
    ExpectRoundTrip(doc);
    if (HasFailure()) return;
  }
}

// ---------------------------------------------------------------------------------------------
// The shared corpus of real manifests (README.md there gives the counts asserted here)

std::string ReadFile(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// $DRAFORGE_CORPUS (set by the build), else the shared default. A corpus that was named but is
// missing fails the tests; a missing default skips them.
bool CorpusNamed() {
  const char* env = std::getenv("DRAFORGE_CORPUS");
  return env != nullptr && *env != '\0';
}

fs::path CorpusDir() {
  return CorpusNamed() ? fs::path(std::getenv("DRAFORGE_CORPUS")) : fs::path("/work/shared/corpus");
}

// The folder a count of the README belongs to: api-fixtures/ (HEAD), api-fixtures/<release>/,
// manifests/, slices/.
std::string CountFolder(const fs::path& rel) {
  auto it = rel.begin();
  const std::string top = it->string();
  if (top == "api-fixtures" && std::distance(rel.begin(), rel.end()) > 2) {
    return top + "/" + std::next(it)->string();
  }
  return top;
}

TEST(YamlCorpus, EveryFileParsesWithTheDocumentedCounts) {
  const fs::path root = CorpusDir();
  if (!fs::is_directory(root)) {
    ASSERT_FALSE(CorpusNamed()) << "DRAFORGE_CORPUS=" << root << " is not a directory";
    GTEST_SKIP() << "no corpus at " << root;
  }

  std::map<std::string, int> files;
  std::map<std::string, int> objects;
  std::map<std::string, int> dra;  // "folder apiVersion kind" of resource.k8s.io objects
  int templates = 0;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    if (!entry.is_regular_file()) continue;
    const std::string name = entry.path().filename().string();
    const std::string text = ReadFile(entry.path());
    if (EndsWith(name, ".yaml.tmpl")) {
      // Go templates are not YAML. Those whose only action is {{.Index}} parse once it is
      // replaced by a number, as scheduler_perf does.
      std::string s = text;
      for (std::string_view action : {"{{.Index}}", "{{ .Index }}"}) {
        for (size_t p; (p = s.find(action)) != std::string::npos;) s.replace(p, action.size(), "7");
      }
      if (s.find("{{") == std::string::npos) {
        ++templates;
        auto docs = ParseYamlStream(s);
        EXPECT_TRUE(docs.ok() && !docs->empty()) << entry.path() << ": " << docs.status();
      }
      continue;
    }
    if (!EndsWith(name, ".yaml") && !EndsWith(name, ".yml") && !EndsWith(name, ".json")) continue;
    const fs::path rel = fs::relative(entry.path(), root);
    const std::string folder = CountFolder(rel);
    ++files[folder];
    auto docs = ParseYamlStream(text);
    ASSERT_TRUE(docs.ok()) << rel << ": " << docs.status();
    for (const YamlDocument& doc : *docs) {
      // Expand `kind: List`.
      std::vector<const rapidjson::Value*> items;
      const auto kind = doc.json.IsObject() ? doc.json.FindMember("kind") : doc.json.MemberEnd();
      if (doc.json.IsObject() && kind != doc.json.MemberEnd() && kind->value == "List") {
        const auto list = doc.json.FindMember("items");
        ASSERT_TRUE(list != doc.json.MemberEnd() && list->value.IsArray()) << rel;
        for (const auto& item : list->value.GetArray()) items.push_back(&item);
      } else {
        items.push_back(&doc.json);
      }
      for (const rapidjson::Value* item : items) {
        ++objects[folder];
        if (!item->IsObject()) continue;
        const auto api_version = item->FindMember("apiVersion");
        const auto item_kind = item->FindMember("kind");
        if (api_version == item->MemberEnd() || !api_version->value.IsString() ||
            item_kind == item->MemberEnd() || !item_kind->value.IsString()) {
          continue;
        }
        const std::string group_version = api_version->value.GetString();
        if (group_version.rfind("resource.k8s.io/", 0) != 0) continue;
        ++dra[absl::StrCat(folder, " ", group_version.substr(16), " ",
                           item_kind->value.GetString())];
      }
    }
    // JSON files: the same value as RapidJSON reads.
    if (EndsWith(name, ".json")) {
      ASSERT_EQ(docs->size(), 1u) << rel;
      EXPECT_TRUE(StrictEqual((*docs)[0].json, Json(text))) << rel;
    }
  }

  const std::map<std::string, int> want_files = {{"api-fixtures", 32},
                                                 {"api-fixtures/v1.36.0", 36},
                                                 {"api-fixtures/v1.35.0", 26},
                                                 {"manifests", 188},
                                                 {"slices", 18}};
  const std::map<std::string, int> want_objects = {{"api-fixtures", 32},
                                                   {"api-fixtures/v1.36.0", 36},
                                                   {"api-fixtures/v1.35.0", 26},
                                                   {"manifests", 416},
                                                   {"slices", 26}};
  EXPECT_EQ(files, want_files);
  EXPECT_EQ(objects, want_objects);
  EXPECT_EQ(templates, 18);

  std::map<std::string, int> manifests;
  std::map<std::string, int> slices;
  for (const auto& [key, n] : dra) {
    if (key.rfind("manifests ", 0) == 0) manifests[key.substr(10)] = n;
    if (key.rfind("slices ", 0) == 0) slices[key.substr(7)] = n;
  }
  const std::map<std::string, int> want_manifests = {
      {"v1 DeviceClass", 10},          {"v1 ResourceClaim", 44},
      {"v1 ResourceClaimTemplate", 79}, {"v1beta2 DeviceClass", 3},
      {"v1beta2 DeviceTaintRule", 4},   {"v1beta2 ResourceClaim", 2},
      {"v1beta2 ResourceClaimTemplate", 6}, {"v1beta1 DeviceClass", 3},
      {"v1beta1 ResourceClaim", 7},     {"v1beta1 ResourceClaimTemplate", 12},
      {"v1alpha3 DeviceTaintRule", 3},  {"v1alpha3 ResourceClaimTemplate", 4},
      {"v1alpha3 ResourcePoolStatusRequest", 2}, {"v1alpha2 ResourceClaim", 8},
      {"v1alpha2 ResourceClaimTemplate", 3}};
  EXPECT_EQ(manifests, want_manifests);
  const std::map<std::string, int> want_slices = {
      {"v1 ResourceSlice", 22}, {"v1beta1 ResourceSlice", 3}, {"v1alpha2 ResourceSlice", 1}};
  EXPECT_EQ(slices, want_slices);
}

TEST(YamlCorpus, ApiFixtureYamlEqualsItsJson) {
  const fs::path root = CorpusDir() / "api-fixtures";
  if (!fs::is_directory(root)) {
    ASSERT_FALSE(CorpusNamed()) << root << " is not a directory";
    GTEST_SKIP() << "no corpus at " << root;
  }
  int pairs = 0;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    const fs::path& yaml_path = entry.path();
    if (!entry.is_regular_file() || yaml_path.extension() != ".yaml") continue;
    fs::path json_path = yaml_path;
    json_path.replace_extension(".json");
    ASSERT_TRUE(fs::exists(json_path)) << json_path;
    auto docs = ParseYamlStream(ReadFile(yaml_path));
    ASSERT_TRUE(docs.ok()) << yaml_path << ": " << docs.status();
    ASSERT_EQ(docs->size(), 1u) << yaml_path;
    EXPECT_TRUE(StrictEqual((*docs)[0].json, Json(ReadFile(json_path)))) << yaml_path;
    ++pairs;
  }
  EXPECT_EQ(pairs, 16 + 18 + 13);
}

}  // namespace
}  // namespace draforge::api
