// The DRA selector cases of k8s.io/dynamic-resource-allocation/cel compile_test.go (v0.37), with the
// pinned estimated costs, plus runtime-cost-limit, bad-attribute and allocation behaviour.
#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "api/quantity.h"
#include "cel/derived_attribute.h"
#include "cel/selector.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace draforge::cel {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

struct Dev {
  std::string driver = "dra.example.com";
  api::Map<api::DeviceAttribute> attrs;
  api::Map<api::DeviceCapacity> cap;
  bool multi = false;
  DeviceInput Input() const { return DeviceInput{driver, &attrs, &cap, multi}; }
};

api::DeviceAttribute Bool(bool b) { api::DeviceAttribute a; a.set_bool_value(b); return a; }
api::DeviceAttribute Int(int64_t i) { api::DeviceAttribute a; a.set_int_value(i); return a; }
api::DeviceAttribute Str(std::string s) { api::DeviceAttribute a; a.set_string_value(std::move(s)); return a; }
api::DeviceAttribute Ver(std::string s) { api::DeviceAttribute a; a.set_version_value(std::move(s)); return a; }
api::DeviceCapacity Cap(const char* q) { api::DeviceCapacity c; c.value = *api::Quantity::Parse(q); return c; }

struct UpstreamCase {
  const char* name;
  const char* expr;
  Dev dev;
  bool match;
  const char* match_error;  // substring
  int64_t cost;             // pinned estimate
};

std::vector<UpstreamCase> Cases() {
  std::vector<UpstreamCase> v;
  auto add = [&](const char* n, const char* e, Dev d, bool m, const char* err, int64_t cost) {
    v.push_back({n, e, std::move(d), m, err, cost});
  };
  Dev none;
  add("no-such-key", R"(device.attributes["no-such-domain"].noSuchAttr.isGreaterThan(quantity("0")))", none, false,
      "no such key: noSuchAttr", 6);
  add("no-such-key-index", R"(device.attributes["no-such-domain"]["noSuchAttr"].isGreaterThan(quantity("0")))", none,
      false, "no such key: noSuchAttr", 6);
  add("domain-check-negative", R"("no-such-domain" in device.attributes)", none, false, "", 3);
  Dev named;
  named.attrs.Set("name", Bool(true));
  add("domain-check-positive", R"("dra.example.com" in device.attributes)", named, true, "", 3);
  Dev empty_driver = none;
  empty_driver.driver = "";
  add("empty-driver-name", R"(device.driver == "")", empty_driver, true, "", 2);
  add("real-driver-name", R"(device.driver == "dra.example.com")", none, true, "", 4);
  add("driver-name-qualifier", R"(device.attributes["dra.example.com"].name)", named, true, "", 4);
  add("driver-name-qualifier-map-lookup", R"(device.attributes["dra.example.com"]["name"])", named, true, "", 4);
  add("bind", R"(cel.bind(dra, device.attributes["dra.example.com"], dra.name))", named, true, "", 15);
  Dev other;
  other.attrs.Set("other.example.com/name", Bool(true));
  add("qualified-attribute-name", R"(device.attributes["other.example.com"].name)", other, true, "", 4);
  Dev intattr;
  intattr.attrs.Set("name", Int(1));
  add("int", R"(device.attributes["dra.example.com"].name > 0)", intattr, true, "", 5);
  Dev strattr;
  strattr.attrs.Set("name", Str("fish"));
  add("string", R"(device.attributes["dra.example.com"].name == "fish")", strattr, true, "", 5);
  add("macro-exists-on-int", R"(device.attributes["dra.example.com"].name.exists(x, x > 0))", intattr, false,
      "got 'types.Int', expected iterable type", 5 + 6 * 64);
  add("macro-exists-on-string", R"(device.attributes["dra.example.com"].name.exists(x, x == "fish"))", strattr,
      false, "got 'types.String', expected iterable type", 5 + 6 * 64);
  Dev names;
  api::DeviceAttribute l;
  l.set_strings(std::vector<std::string>{"fish", "bird"});
  names.attrs.Set("names", l);
  add("list-result-type-causes-match-error", R"(device.attributes["dra.example.com"].names)", names, false,
      "CEL result of type list could not be converted to bool", 4);
  add("list-of-string", R"(device.attributes["dra.example.com"].names.size() == 2)", names, true, "", 6);
  add("all-on-list", R"(device.attributes["dra.example.com"].names.all(x, x != ""))", names, true, "", 5 + 4 * 64);
  Dev fishlist;
  fishlist.attrs.Set("name", l);
  add("includes-function-can-evaluate", R"(device.attributes["dra.example.com"].name.includes("fish"))", fishlist,
      true, "", 4 + 64);
  add("includes-on-scalar", R"(device.attributes["dra.example.com"].name.includes("fish"))", strattr, true, "", 4 + 64);
  Dev ints;
  api::DeviceAttribute il;
  il.set_ints(std::vector<int64_t>{1, 2, 3});
  ints.attrs.Set("names", il);
  add("in-operator-on-list", R"(1 in device.attributes["dra.example.com"].names)", ints, true, "", 4 + 64);
  add("macro-on-list-of-int", R"(device.attributes["dra.example.com"].names.exists(x, x > 0))", ints, true, "",
      5 + 6 * 64);
  // A list attribute that is present but empty (`versions: []`) is an empty list, as for upstream,
  // not an unsupported value.
  Dev empty_versions;
  api::DeviceAttribute ev;
  ev.set_versions(std::vector<std::string>{});
  empty_versions.attrs.Set("firmware", ev);
  add("empty-version-list", R"(device.attributes["dra.example.com"].firmware.size() == 0)", empty_versions, true, "",
      6);
  Dev ver;
  ver.attrs.Set("name", Ver("1.0.0"));
  add("version", R"(device.attributes["dra.example.com"].name.isGreaterThan(semver("0.0.1")))", ver, true, "", 6);
  add("version_v",
      R"(device.attributes["dra.example.com"].name.isGreaterThan(semver("v0.0.1", true)) && isSemver("v1.0.0", true))",
      ver, true, "", 7);
  add("includes-semver", R"(device.attributes["dra.example.com"].name.includes(semver("1.0.0")))", ver, true, "",
      4 + 64 + 1);
  Dev cap;
  cap.cap.Set("name", Cap("1Mi"));
  add("quantity", R"(device.capacity["dra.example.com"].name.isGreaterThan(quantity("1Ki")))", cap, true, "", 6);
  add("check-positive",
      R"("name" in device.capacity["dra.example.com"] && device.capacity["dra.example.com"].name.isGreaterThan(quantity("1Ki")))",
      cap, true, "", 10);
  add("check-negative",
      R"(!("name" in device.capacity["dra.example.com"]) || device.capacity["dra.example.com"].name.isGreaterThan(quantity("1Ki")))",
      none, true, "", 11);
  Dev all;
  all.attrs.Set("bool", Bool(true));
  all.attrs.Set("int", Int(1));
  all.attrs.Set("string", Str("fish"));
  all.attrs.Set("version", Ver("1.0.0"));
  all.cap.Set("quantity", Cap("1Mi"));
  add("all", R"(
device.capacity["dra.example.com"].quantity.isGreaterThan(quantity("1Ki")) &&
device.attributes["dra.example.com"].bool &&
device.attributes["dra.example.com"].int > 0 &&
device.attributes["dra.example.com"].string == "fish" &&
device.attributes["dra.example.com"].version.isGreaterThan(semver("0.0.1")) &&
device.capacity["dra.example.com"]["quantity"].isGreaterThan(quantity("1Ki")) &&
device.attributes["dra.example.com"]["bool"] &&
device.attributes["dra.example.com"]["int"] > 0 &&
device.attributes["dra.example.com"]["string"] == "fish" &&
device.attributes["dra.example.com"]["version"].isGreaterThan(semver("0.0.1"))
)",
      all, true, "", 52);
  Dev many;
  many.attrs.Set("a", Bool(true));
  many.attrs.Set("b", Bool(true));
  many.attrs.Set("c", Bool(true));
  add("many",
      R"(device.attributes["dra.example.com"].a && device.attributes["dra.example.com"].b && device.attributes["dra.example.com"].c)",
      many, true, "", 12);
  Dev svc;
  svc.attrs.Set("services", Str("some_example_value"));
  add("check_attribute_domains", R"(device.attributes.exists_one(x, x == "dra.example.com"))", svc, true, "", 164);
  add("check_attribute_ids", R"(device.attributes["dra.example.com"].exists_one(x, x == "services"))", svc, true, "",
      133);
  add("split_attribute", R"(device.attributes["dra.example.com"].services.split("example").size() >= 2)", svc, true,
      "", 19);
  Dev asym;
  asym.attrs.Set("services", Str("asymetric"));
  add("regexp_attribute", R"(device.attributes["dra.example.com"].services.matches("[^a]?sym"))", asym, true, "", 18);
  Dev mem;
  mem.cap.Set("memory", Cap("1Mi"));
  add("check_capacity_domains", R"(device.capacity.exists_one(x, x == "dra.example.com"))", mem, true, "", 164);
  add("check_capacity_ids", R"(device.capacity["dra.example.com"].exists_one(x, x == "memory"))", mem, true, "", 133);
  Dev multi;
  multi.multi = true;
  add("allow_multiple_allocations", "device.allowMultipleAllocations == true", multi, true, "", 3);
  add("allow_multiple_allocations_false", "device.allowMultipleAllocations == false", none, true, "", 3);
  return v;
}

TEST(SelectorTest, UpstreamCompileTestCases) {
  for (const UpstreamCase& c : Cases()) {
    SCOPED_TRACE(c.name);
    auto s = DeviceSelector::Compile(c.expr);
    ASSERT_TRUE(s.ok()) << s.status();
    EXPECT_EQ((*s)->estimated_cost(), c.cost);
    SelectorResult r = (*s)->Evaluate(c.dev.Input());
    if (*c.match_error) {
      EXPECT_THAT(std::string(r.error.message()), HasSubstr(c.match_error));
    } else {
      ASSERT_TRUE(r.error.ok()) << r.error;
      EXPECT_EQ(r.matches, c.match);
    }
    EXPECT_LE(r.actual_cost, c.cost);
  }
}

TEST(SelectorTest, CompileErrors) {
  EXPECT_THAT(std::string(DeviceSelector::Compile("?!").status().message()), HasSubstr("Syntax error"));
  EXPECT_THAT(std::string(DeviceSelector::Compile("1").status().message()),
              HasSubstr("must evaluate to bool or the unknown type, not int"));
  auto s = DeviceSelector::Compile("devce.driver == \"x\"");
  EXPECT_EQ(s.status().message(),
            "compilation failed: ERROR: <input>:1:1: undeclared reference to 'devce' (in container '')\n"
            " | devce.driver == \"x\"\n | ^");
  // cel-go's texts (API validation shows them to users), as its checker and printer make them: the
  // logical operators name each non-bool operand; errors are sorted by position; a character of
  // several UTF-8 bytes is marked with a full-width dot so that the caret stays under the error.
  EXPECT_EQ(DeviceSelector::Compile("'horses' && false").status().message(),
            "compilation failed: ERROR: <input>:1:1: expected type 'bool' but found 'string'\n"
            " | 'horses' && false\n | ^");
  EXPECT_EQ(DeviceSelector::Compile("2 || true.orValue(\"1.5\")").status().message(),
            "compilation failed: ERROR: <input>:1:1: expected type 'bool' but found 'int'\n"
            " | 2 || true.orValue(\"1.5\")\n | ^\n"
            "ERROR: <input>:1:18: found no matching overload for 'orValue' applied to 'bool.(string)'\n"
            " | 2 || true.orValue(\"1.5\")\n | .................^");
  EXPECT_EQ(DeviceSelector::Compile("!\"h\u00e9llo\".orValue(\"none\") == \"1.5\"").status().message(),
            "compilation failed: ERROR: <input>:1:17: found no matching overload for 'orValue' applied to "
            "'string.(string)'\n | !\"h\u00e9llo\".orValue(\"none\") == \"1.5\"\n | ...\uff0e............^\n"
            "ERROR: <input>:1:26: found no matching overload for '_==_' applied to '(bool, string)'\n"
            " | !\"h\u00e9llo\".orValue(\"none\") == \"1.5\"\n | ...\uff0e.....................^");
  // New expressions (API validation): the gates decide what is declared (upstream compile_test.go).
  CompileOptions no_cc;
  no_cc.consumable_capacity = false;
  no_cc.stored_expressions = false;
  EXPECT_THAT(std::string(DeviceSelector::Compile("device.allowMultipleAllocations == false", no_cc).status().message()),
              HasSubstr("undefined field 'allowMultipleAllocations'"));
  CompileOptions no_lists;
  no_lists.list_type_attributes = false;
  no_lists.stored_expressions = false;
  EXPECT_THAT(std::string(DeviceSelector::Compile(R"(device.attributes["dra.example.com"].ids.exists(id, id == 1))",
                                                  no_lists).status().message()),
              HasSubstr("compilation failed"));
  EXPECT_THAT(std::string(DeviceSelector::Compile(R"(device.attributes["dra.example.com"].attr.includes("fish"))",
                                                  no_lists).status().message()),
              HasSubstr("undeclared reference to 'includes'"));
  // Stored expressions (the scheduler): the gates do not change what compiles, as upstream's stored
  // environment declares the newest device type whatever the gates say.
  CompileOptions stored_no_lists;
  stored_no_lists.list_type_attributes = false;
  stored_no_lists.consumable_capacity = false;
  EXPECT_TRUE(DeviceSelector::Compile(R"(device.attributes["dra.example.com"].attr.includes("fish"))", stored_no_lists).ok());
  EXPECT_TRUE(DeviceSelector::Compile("device.allowMultipleAllocations == false", stored_no_lists).ok());
}

TEST(SelectorTest, ExpensiveExpressionStopsAtTheRuntimeLimit) {
  const char* expr =
      "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(x, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(y, [1, 2, 3, 4, 5, 6, 7, 8, 9, "
      "10].all(z, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z2, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z3, [1, 2, 3, 4, 5, 6, "
      "7, 8, 9, 10].all(z4, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z5, int('1'.find('[0-9]*')) < 100)))))))";
  auto s = DeviceSelector::Compile(expr);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ((*s)->estimated_cost(), 85555551);
  Dev d;
  SelectorResult r = (*s)->Evaluate(d.Input());
  EXPECT_EQ(r.error.message(), "operation cancelled: actual cost limit exceeded");
  EXPECT_EQ(r.actual_cost, 1000001);
  CompileOptions validate;
  validate.check_estimated_cost = true;
  EXPECT_FALSE(DeviceSelector::Compile(expr, validate).ok());
}

TEST(SelectorTest, MapBombStopsAtTheRuntimeLimit) {
  auto s = DeviceSelector::Compile(
      "[1,2,3,4,5,6,7,8,9,10].map(a, [1,2,3,4,5,6,7,8,9,10].map(b, [1,2,3,4,5,6,7,8,9,10].map(c, "
      "[1,2,3,4,5,6,7,8,9,10].map(d, [1,2,3,4,5,6,7,8,9,10].map(e, [1,2,3,4,5,6,7,8,9,10].map(f, a)))))).size() > 0");
  ASSERT_TRUE(s.ok()) << s.status();
  Dev d;
  SelectorResult r = (*s)->Evaluate(d.Input());
  EXPECT_EQ(r.error.message(), "operation cancelled: actual cost limit exceeded");
}

TEST(SelectorTest, BadVersionAttributeFailsTheDevice) {
  Dev d;
  d.attrs.Set("v", Ver("not-a-version"));
  auto s = DeviceSelector::Compile("true");
  ASSERT_TRUE(s.ok());
  SelectorResult r = (*s)->Evaluate(d.Input());
  EXPECT_THAT(std::string(r.error.message()), HasSubstr("attribute v: parse semantic version"));
}

TEST(SelectorTest, UnqualifiedNamesBelongToTheDriverDomain) {
  Dev d;
  d.attrs.Set("model", Str("a100"));
  d.attrs.Set("other.example.com/model", Str("h100"));
  auto s = DeviceSelector::Compile(
      R"(device.attributes["dra.example.com"].model == "a100" && device.attributes["other.example.com"].model == "h100" && device.attributes.size() == 2)");
  ASSERT_TRUE(s.ok());
  SelectorResult r = (*s)->Evaluate(d.Input());
  ASSERT_TRUE(r.error.ok()) << r.error;
  EXPECT_TRUE(r.matches);
}

TEST(SelectorTest, ConcurrentEvaluation) {
  auto s = DeviceSelector::Compile(R"(device.attributes["dra.example.com"].model.matches("^a") && device.driver.size() > 3)");
  ASSERT_TRUE(s.ok());
  Dev d;
  d.attrs.Set("model", Str("a100"));
  std::vector<std::thread> threads;
  std::atomic<int> ok{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 1000; ++i) {
        SelectorResult r = (*s)->Evaluate(d.Input());
        if (r.error.ok() && r.matches) ok++;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(ok.load(), 4000);
}

// The Kubernetes URL and format libraries and named time zones on device attributes: what a
// DeviceClass author writes to vet an endpoint, a name or a maintenance window. Expected results
// and costs are cel-go's (dra-cel).
TEST(SelectorTest, UrlFormatAndTimeZoneLibrariesOnAttributes) {
  Dev d;
  d.attrs.Set("endpoint", Str("https://user@gpu-0.example.com:8443/v1/metrics?window=5m&window=1h"));
  d.attrs.Set("model", Str("A100 80GB"));
  d.attrs.Set("window", Str("2021-03-14T10:00:00Z"));
  struct Want {
    const char* expr;
    bool match;
    int64_t cost;
    int64_t estimate;
  };
  const Want wants[] = {
      {R"(isURL(device.attributes["dra.example.com"].endpoint))", true, 5, 5},
      {R"(url(device.attributes["dra.example.com"].endpoint).getHostname() == "gpu-0.example.com")", true, 14, 14},
      {R"(url(device.attributes["dra.example.com"].endpoint).getPort() == "8443")", true, 13, 13},
      {R"(url(device.attributes["dra.example.com"].endpoint).getQuery()["window"] == ["5m", "1h"])", true, 15, 24},
      {R"(format.dns1123Label().validate(device.attributes["dra.example.com"].model).hasValue())", true, 14, 230},
      {R"(format.named("uuid").hasValue() && !format.named("nope").hasValue())", true, 5, 5},
      {R"(timestamp(device.attributes["dra.example.com"].window).getHours("America/Los_Angeles") == 3)", true, 7, 7},
      {R"(timestamp(device.attributes["dra.example.com"].window).getHours("+05:30") == 15)", true, 7, 7},
  };
  for (const Want& w : wants) {
    auto sel = DeviceSelector::Compile(w.expr);
    ASSERT_TRUE(sel.ok()) << w.expr << ": " << sel.status();
    SelectorResult r = (*sel)->Evaluate(d.Input());
    ASSERT_TRUE(r.error.ok()) << w.expr << ": " << r.error;
    EXPECT_EQ(r.matches, w.match) << w.expr;
    EXPECT_EQ(r.actual_cost, w.cost) << w.expr;
    EXPECT_EQ((*sel)->estimated_cost(), w.estimate) << w.expr;
  }
  // A zone the database does not have is the device's error, with Go's text.
  auto sel = DeviceSelector::Compile(R"(timestamp("2021-03-14T10:00:00Z").getHours("Mars/Olympus") == 1)");
  ASSERT_TRUE(sel.ok());
  EXPECT_EQ((*sel)->Evaluate(d.Input()).error.message(), "unknown time zone Mars/Olympus");
  // A URL that does not parse fails the device, as upstream.
  sel = DeviceSelector::Compile(R"(url(device.attributes["dra.example.com"].model).getScheme() == "https")");
  ASSERT_TRUE(sel.ok());
  EXPECT_THAT(std::string((*sel)->Evaluate(d.Input()).error.message()),
              HasSubstr("URL parse error during conversion from string: parse \"A100 80GB\": invalid URI for request"));
}

// cel::DerivedAttribute (DRADerivedAttributes): the selector's `device`, any scalar or list result.
// Texts are upstream's (EvaluateDerivedAttribute and cel-go).
TEST(DerivedAttributeTest, EvaluatesScalarsAndListsAgainstTheSelectorDeviceView) {
  Dev d;
  d.attrs.Set("numa", Int(1));
  d.attrs.Set("other.example.com/model", Str("h100"));
  d.attrs.Set("v", Ver("1.2.3"));
  d.cap.Set("memory", Cap("80Gi"));
  auto eval = [&](const char* expr) {
    auto p = DerivedAttribute::Compile(expr);
    EXPECT_TRUE(p.ok()) << expr << ": " << p.status();
    return p.ok() ? (*p)->Evaluate(d.Input()) : absl::StatusOr<api::DeviceAttribute>(p.status());
  };
  auto numa = eval(R"(device.attributes["dra.example.com"].numa + 1)");
  ASSERT_TRUE(numa.ok()) << numa.status();
  EXPECT_EQ(numa->int_value(), 2);
  auto model = eval(R"(device.attributes["other.example.com"].model)");
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_EQ(model->string_value(), "h100");
  auto version = eval(R"(device.attributes["dra.example.com"].v)");
  ASSERT_TRUE(version.ok()) << version.status();
  EXPECT_EQ(version->version_value(), "1.2.3");
  auto big = eval(R"(device.capacity["dra.example.com"].memory.isGreaterThan(quantity("40Gi")))");
  ASSERT_TRUE(big.ok()) << big.status();
  EXPECT_EQ(big->bool_value(), true);
  auto keys = eval(R"(device.attributes["dra.example.com"].map(k, k))");
  ASSERT_TRUE(keys.ok()) << keys.status();
  EXPECT_THAT(keys->strings(), ElementsAre("numa", "v"));
  auto none = eval("[]");
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_FALSE(none->int_value() || none->string_value() || none->has_ints() || none->has_strings());
}

TEST(DerivedAttributeTest, ErrorsCarryUpstreamText) {
  auto wrong_type = DerivedAttribute::Compile("1.5");
  ASSERT_FALSE(wrong_type.ok());
  EXPECT_EQ(wrong_type.status().message(),
            "must evaluate to a primitive scalar (string, integer, boolean, semver) or a list of these scalars, not "
            "double");
  auto bad = DerivedAttribute::Compile("devce.driver");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(std::string(bad.status().message()), HasSubstr("compilation failed: ERROR: <input>:1:1: undeclared"));

  Dev d;
  d.attrs.Set("name", Str("x"));
  auto missing = DerivedAttribute::Compile(R"(device.attributes["dra.example.com"].numa)");
  ASSERT_TRUE(missing.ok());
  EXPECT_EQ((*missing)->Evaluate(d.Input()).status().message(), "no such key: numa");
  auto dyn_double = DerivedAttribute::Compile(R"(dyn(1.5))");
  ASSERT_TRUE(dyn_double.ok());
  EXPECT_EQ((*dyn_double)->Evaluate(d.Input()).status().message(), "unsupported CEL return type: float64");
  auto mixed = DerivedAttribute::Compile(R"([dyn("a"), dyn(1)])");
  ASSERT_TRUE(mixed.ok()) << mixed.status();
  EXPECT_EQ((*mixed)->Evaluate(d.Input()).status().message(),
            "expected list element at index 1 to be string, got int64");

  Dev bad_version;
  bad_version.attrs.Set("v", Ver("not-a-version"));
  auto constant = DerivedAttribute::Compile("1");
  ASSERT_TRUE(constant.ok());
  EXPECT_THAT(std::string((*constant)->Evaluate(bad_version.Input()).status().message()),
              HasSubstr("attribute v: parse semantic version"));

  CompileOptions limited;
  limited.runtime_cost_limit = 100;
  auto expensive = DerivedAttribute::Compile("[1,2,3,4,5,6,7,8,9,10].map(x, [1,2,3,4,5,6,7,8,9,10].map(y, x*y)).size()",
                                             limited);
  ASSERT_TRUE(expensive.ok());
  EXPECT_EQ((*expensive)->Evaluate(d.Input()).status().message(), "operation cancelled: actual cost limit exceeded");
}

}  // namespace
}  // namespace draforge::cel
