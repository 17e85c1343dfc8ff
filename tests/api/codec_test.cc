// Round trip of Kubernetes' own API fixtures, version conversion, and bad input.
#include "api/codec.h"

#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <variant>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "api/internal/schema_paths.h"
#include "api/yaml.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "../common/test_util.h"

namespace draforge::api {
namespace {

using ::testing::HasSubstr;
namespace fs = std::filesystem;

fs::path Fixtures() { return testing::CorpusDir() / "api-fixtures"; }

Object DecodeOne(const std::string& text, std::vector<std::string>* warnings = nullptr) {
  auto stream = DecodeStream(text, {});
  EXPECT_TRUE(stream.ok()) << stream.status();
  if (!stream.ok()) return {};
  EXPECT_EQ(stream->size(), 1u);
  if (stream->empty()) return {};
  DecodedObject& d = stream->front();
  EXPECT_TRUE(d.object.ok()) << d.object.status();
  if (warnings) *warnings = d.warnings;
  return d.object.ok() ? *d.object : Object{};
}

std::string Encode(const Object& o, std::string_view version = {}) {
  auto doc = EncodeObject(o, version);
  EXPECT_TRUE(doc.ok()) << doc.status();
  return doc.ok() ? WriteJson(*doc, /*pretty=*/true) : "";
}

rapidjson::Document Json(const std::string& text) {
  rapidjson::Document d;
  d.Parse(text.c_str());
  EXPECT_FALSE(d.HasParseError());
  return d;
}

// The fixtures of one folder, each JSON file checked byte for byte (Kubernetes writes them with two
// spaces, Go field order and no final newline) and each YAML file as a JSON value.
void CheckRoundTrip(const fs::path& dir) {
  int checked = 0;
  for (const auto& path : testing::FilesUnder(dir, ".json")) {
    if (path.parent_path() != dir) continue;
    const std::string name = path.filename().string();
    if (name.find(".after_roundtrip.") != std::string::npos) continue;
    SCOPED_TRACE(path.string());
    fs::path expected_path = path;
    fs::path after = dir / (name.substr(0, name.size() - 5) + ".after_roundtrip.json");
    if (fs::exists(after)) expected_path = after;
    const std::string expected = testing::ReadFile(expected_path);

    Object json_obj = DecodeOne(testing::ReadFile(path));
    std::string out = Encode(json_obj);
    EXPECT_EQ(out, expected);
    EXPECT_TRUE(Json(out) == Json(expected));

    fs::path yaml = path;
    yaml.replace_extension(".yaml");
    Object yaml_obj = DecodeOne(testing::ReadFile(yaml));
    EXPECT_TRUE(Json(Encode(yaml_obj)) == Json(expected)) << yaml;
    EXPECT_EQ(yaml_obj, json_obj);
    ++checked;
  }
  EXPECT_GT(checked, 10);
}

TEST(RoundTrip, HeadFixturesAreExact) { CheckRoundTrip(Fixtures()); }
TEST(RoundTrip, Release136FixturesMatchAfterRoundtrip) { CheckRoundTrip(Fixtures() / "v1.36.0"); }
TEST(RoundTrip, Release135Fixtures) { CheckRoundTrip(Fixtures() / "v1.35.0"); }

TEST(RoundTrip, DroppedAlphaFieldIsAWarning) {
  // 1.37 replaced the 1.36 alpha field devices[].nodeAllocatableResourceMappings; like the API server,
  // DRAForge drops it, and says so.
  std::vector<std::string> warnings;
  DecodeOne(testing::ReadFile(Fixtures() / "v1.36.0" / "resource.k8s.io.v1.ResourceSlice.json"), &warnings);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_THAT(warnings[0], HasSubstr("unknown field \"spec.devices[0].nodeAllocatableResourceMappings\""));
}

TEST(Conversion, V1beta2AndV1alpha3HaveTheV1Shape) {
  for (std::string kind : {"DeviceClass", "ResourceClaim", "ResourceClaimTemplate", "ResourceSlice", "DeviceTaintRule"}) {
    SCOPED_TRACE(kind);
    Object beta2 = DecodeOne(testing::ReadFile(Fixtures() / ("resource.k8s.io.v1beta2." + kind + ".json")));
    EXPECT_EQ(Encode(beta2, "resource.k8s.io/v1"),
              testing::ReadFile(Fixtures() / ("resource.k8s.io.v1." + kind + ".json")));
  }
  Object alpha = DecodeOne(testing::ReadFile(Fixtures() / "resource.k8s.io.v1alpha3.DeviceTaintRule.json"));
  EXPECT_EQ(Encode(alpha, "resource.k8s.io/v1"),
            testing::ReadFile(Fixtures() / "resource.k8s.io.v1.DeviceTaintRule.json"));
}

TEST(Conversion, V1beta1SliceUnwrapsBasic) {
  Object beta1 = DecodeOne(testing::ReadFile(Fixtures() / "resource.k8s.io.v1beta1.ResourceSlice.json"));
  EXPECT_EQ(Encode(beta1, "resource.k8s.io/v1"), testing::ReadFile(Fixtures() / "resource.k8s.io.v1.ResourceSlice.json"));
  // And back: v1 to v1beta1 wraps the device fields again.
  Object v1 = DecodeOne(testing::ReadFile(Fixtures() / "resource.k8s.io.v1.ResourceSlice.json"));
  EXPECT_EQ(Encode(v1, "resource.k8s.io/v1beta1"),
            testing::ReadFile(Fixtures() / "resource.k8s.io.v1beta1.ResourceSlice.json"));
}

TEST(Conversion, V1beta1RequestMovesIntoExactly) {
  Object claim = DecodeOne(R"({"apiVersion":"resource.k8s.io/v1beta1","kind":"ResourceClaim",
    "metadata":{"name":"c","namespace":"ns"},
    "spec":{"devices":{"requests":[{"name":"gpu","deviceClassName":"gpu.example.com","count":2}]}}})");
  const auto& rc = std::get<ResourceClaim>(claim.value);
  const DeviceRequest& req = rc.spec->devices->requests.at(0);
  ASSERT_TRUE(req.exactly.has_value());
  EXPECT_EQ(req.exactly->device_class_name, "gpu.example.com");
  EXPECT_EQ(req.exactly->count, 2);
  EXPECT_EQ(claim.api_version, "resource.k8s.io/v1beta1");
  // A request with only firstAvailable gets no `exactly`.
  Object fa = DecodeOne(R"({"apiVersion":"resource.k8s.io/v1beta1","kind":"ResourceClaim",
    "metadata":{"name":"c"},"spec":{"devices":{"requests":[{"name":"gpu",
    "firstAvailable":[{"name":"a","deviceClassName":"x"}]}]}}})");
  EXPECT_FALSE(std::get<ResourceClaim>(fa.value).spec->devices->requests.at(0).exactly.has_value());
}

TEST(Conversion, CannotEncodeIntoAVersionTheKindLacks) {
  Object rule = DecodeOne(testing::ReadFile(Fixtures() / "resource.k8s.io.v1.DeviceTaintRule.json"));
  auto doc = EncodeObject(rule, "resource.k8s.io/v1beta1");
  ASSERT_FALSE(doc.ok());
  EXPECT_THAT(std::string(doc.status().message()), HasSubstr("unsupported apiVersion"));
}

TEST(Encode, WritesNothingThatWasNotThere) {
  const std::string text =
      R"({"kind":"ResourceClaim","apiVersion":"resource.k8s.io/v1","metadata":{"name":"c"},)"
      R"("spec":{"devices":{"requests":[{"name":"gpu","exactly":{"deviceClassName":"gpu.example.com"}}]}}})";
  EXPECT_EQ(WriteJson(*EncodeObject(DecodeOne(text)), false), text);
}

// The 1.37 alpha fields (ExactDeviceRequest/DeviceSubRequest.derivedAttributes,
// DeviceCounterConsumption.compatibilityGroups) in each served version: every text decodes to the
// same object, comes back byte for byte, and converts to the others as the API server converts.
std::string WithVersion(std::string text, std::string_view version) {
  const std::string from = "resource.k8s.io/VERSION";
  text.replace(text.find(from), from.size(), "resource.k8s.io/" + std::string(version));
  return text;
}

constexpr char kDerivedClaimV1[] =
    R"({"kind":"ResourceClaim","apiVersion":"resource.k8s.io/VERSION","metadata":{"name":"c","namespace":"ns"},)"
    R"("spec":{"devices":{"requests":[{"name":"gpu","exactly":{"deviceClassName":"gpu.example.com","count":2,)"
    R"("tolerations":[{"key":"k","operator":"Exists"}],"capacity":{"requests":{"memory":"1Gi"}},)"
    R"("derivedAttributes":[{"name":"derived/numa","expression":"device.attributes['gpu.example.com'].numa"}]}},)"
    R"({"name":"nic","firstAvailable":[{"name":"a","deviceClassName":"nic","count":1,)"
    R"("derivedAttributes":[{"name":"derived/numa","expression":"device.attributes['dra.net'].numaNode"}]}]}],)"
    R"("constraints":[{"matchAttribute":"derived/numa"}]}}})";
// v1beta1 requests are flat: derivedAttributes follows capacity on the request itself.
constexpr char kDerivedClaimV1beta1[] =
    R"({"kind":"ResourceClaim","apiVersion":"resource.k8s.io/VERSION","metadata":{"name":"c","namespace":"ns"},)"
    R"("spec":{"devices":{"requests":[{"name":"gpu","deviceClassName":"gpu.example.com","count":2,)"
    R"("tolerations":[{"key":"k","operator":"Exists"}],"capacity":{"requests":{"memory":"1Gi"}},)"
    R"("derivedAttributes":[{"name":"derived/numa","expression":"device.attributes['gpu.example.com'].numa"}]},)"
    R"({"name":"nic","firstAvailable":[{"name":"a","deviceClassName":"nic","count":1,)"
    R"("derivedAttributes":[{"name":"derived/numa","expression":"device.attributes['dra.net'].numaNode"}]}]}],)"
    R"("constraints":[{"matchAttribute":"derived/numa"}]}}})";
constexpr char kGroupsSliceV1[] =
    R"({"kind":"ResourceSlice","apiVersion":"resource.k8s.io/VERSION","metadata":{"name":"s"},)"
    R"("spec":{"driver":"d","pool":{"name":"p","generation":1,"resourceSliceCount":1},"nodeName":"n",)"
    R"("devices":[{"name":"g","consumesCounters":[{"counterSet":"cs","counters":{"memory":{"value":"8Gi"}},)"
    R"("compatibilityGroups":["mig-1g","mig-2g"]}]}]}})";
constexpr char kGroupsSliceV1beta1[] =
    R"({"kind":"ResourceSlice","apiVersion":"resource.k8s.io/VERSION","metadata":{"name":"s"},)"
    R"("spec":{"driver":"d","pool":{"name":"p","generation":1,"resourceSliceCount":1},"nodeName":"n",)"
    R"("devices":[{"name":"g","basic":{"consumesCounters":[{"counterSet":"cs","counters":{"memory":{"value":"8Gi"}},)"
    R"("compatibilityGroups":["mig-1g","mig-2g"]}]}}]}})";

void CheckAllVersions(const std::string& v1_shape, const std::string& v1beta1_shape) {
  const std::vector<std::pair<std::string, std::string>> texts = {
      {"v1", WithVersion(v1_shape, "v1")},
      {"v1beta2", WithVersion(v1_shape, "v1beta2")},
      {"v1beta1", WithVersion(v1beta1_shape, "v1beta1")}};
  Object reference = DecodeOne(texts[0].second);
  for (const auto& [version, text] : texts) {
    SCOPED_TRACE(version);
    Object o = DecodeOne(text);
    EXPECT_EQ(o.value, reference.value);
    DecodeOptions dom;
    dom.allow_fast_path = false;
    auto slow = DecodeStream(text, dom);
    ASSERT_TRUE(slow.ok() && slow->size() == 1 && slow->front().object.ok());
    EXPECT_EQ(slow->front().object->value, reference.value);
    for (const auto& [to_version, to_text] : texts) {
      auto doc = EncodeObject(o, absl::StrCat("resource.k8s.io/", to_version));
      ASSERT_TRUE(doc.ok()) << doc.status();
      EXPECT_EQ(WriteJson(*doc, false), to_text) << "to " << to_version;
    }
  }
}

TEST(Fields137, DerivedAttributesInEveryVersion) {
  CheckAllVersions(kDerivedClaimV1, kDerivedClaimV1beta1);
  Object o = DecodeOne(WithVersion(kDerivedClaimV1beta1, "v1beta1"));
  const DeviceClaim& devices = *std::get<ResourceClaim>(o.value).spec->devices;
  ASSERT_EQ(devices.requests.size(), 2u);
  ASSERT_TRUE(devices.requests[0].exactly.has_value());
  ASSERT_EQ(devices.requests[0].exactly->derived_attributes.size(), 1u);
  EXPECT_EQ(devices.requests[0].exactly->derived_attributes[0].name, "derived/numa");
  EXPECT_EQ(devices.requests[0].exactly->derived_attributes[0].expression, "device.attributes['gpu.example.com'].numa");
  ASSERT_EQ(devices.requests[1].first_available.size(), 1u);
  EXPECT_EQ(devices.requests[1].first_available[0].derived_attributes.at(0).expression,
            "device.attributes['dra.net'].numaNode");
}

TEST(Fields137, DerivedAttributesAloneMakeAnExactRequest) {
  // A v1beta1 request with only derivedAttributes among the main-request fields still converts to
  // an `exactly` (hasAnyMainRequestFieldsSet), and back.
  const std::string beta1 =
      R"({"kind":"ResourceClaim","apiVersion":"resource.k8s.io/v1beta1","metadata":{"name":"c"},)"
      R"("spec":{"devices":{"requests":[{"name":"r","derivedAttributes":[{"name":"d/x","expression":"1"}]}]}}})";
  Object o = DecodeOne(beta1);
  const DeviceRequest& r = std::get<ResourceClaim>(o.value).spec->devices->requests.at(0);
  ASSERT_TRUE(r.exactly.has_value());
  EXPECT_EQ(r.exactly->derived_attributes.at(0).name, "d/x");
  EXPECT_EQ(WriteJson(*EncodeObject(o), false), beta1);
}

TEST(Fields137, CompatibilityGroupsInEveryVersion) {
  CheckAllVersions(kGroupsSliceV1, kGroupsSliceV1beta1);
  Object o = DecodeOne(WithVersion(kGroupsSliceV1, "v1"));
  const Device& d = std::get<ResourceSlice>(o.value).spec->devices.at(0);
  EXPECT_EQ(d.consumes_counters.at(0).compatibility_groups, (std::vector<std::string>{"mig-1g", "mig-2g"}));
}

// Fields whose Go JSON tag has no omitempty: the API server writes an unset one as `null` (nil) or
// `[]` (empty). Decoding then encoding keeps which of absent, null and [] the input had, in JSON
// and in YAML, through the DOM-free and the DOM decoder.
struct SpellingCase {
  const char* name;
  const char* json;  // compact, as EncodeObject writes it
  const char* yaml;  // as WriteYaml writes it (keys sorted, as kubectl does)
};

class ExplicitNull : public ::testing::TestWithParam<SpellingCase> {};

TEST_P(ExplicitNull, JsonRoundTripIsExact) {
  const std::string text = GetParam().json;
  EXPECT_EQ(WriteJson(*EncodeObject(DecodeOne(text)), false), text);
  DecodeOptions dom;
  dom.allow_fast_path = false;
  auto slow = DecodeStream(text, dom);
  ASSERT_TRUE(slow.ok() && slow->size() == 1 && slow->front().object.ok());
  EXPECT_EQ(WriteJson(*EncodeObject(*slow->front().object), false), text);
  EXPECT_EQ(slow->front().object->value, DecodeOne(text).value);
}

TEST_P(ExplicitNull, YamlRoundTripIsExact) {
  const std::string yaml = GetParam().yaml;
  Object o = DecodeOne(yaml);
  EXPECT_EQ(WriteYaml(*EncodeObject(o)), yaml);
  EXPECT_EQ(o.value, DecodeOne(GetParam().json).value);
}

#define CLAIM_JSON(devices)                                                                               \
  R"({"kind":"ResourceClaim","apiVersion":"resource.k8s.io/v1","metadata":{"name":"c","namespace":"ns"},)" \
  R"("spec":{"devices":)" devices "}}"
#define CLAIM_YAML(devices)                                                                                     \
  "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata:\n  name: c\n  namespace: ns\nspec:\n  devices:" \
  devices
#define STATUS_JSON(device)                                                                              \
  R"({"kind":"ResourceClaim","apiVersion":"resource.k8s.io/v1","metadata":{"name":"c","namespace":"ns"},)" \
  R"("status":{"devices":[{"driver":"d","pool":"p","device":"g")" device "}]}}"
#define STATUS_YAML(device)                                                                                   \
  "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata:\n  name: c\n  namespace: ns\nstatus:\n" \
  "  devices:\n" device
#define POLICY_JSON(policy)                                                                                    \
  R"({"kind":"ResourceSlice","apiVersion":"resource.k8s.io/v1","metadata":{"name":"s"},"spec":{"driver":"d",)" \
  R"("pool":{"name":"p","generation":1,"resourceSliceCount":1},"nodeName":"node-1","devices":[{"name":"g",)"        \
  R"("capacity":{"mem":{"value":"8Gi","requestPolicy":{)" policy R"("validRange":{"min":"1Gi"}}}},)"             \
  R"("allowMultipleAllocations":true}]}})"
#define POLICY_YAML(policy)                                                                             \
  "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata:\n  name: s\nspec:\n  devices:\n"    \
  "  - allowMultipleAllocations: true\n    capacity:\n      mem:\n        requestPolicy:\n" policy      \
  "          validRange:\n            min: 1Gi\n        value: 8Gi\n    name: g\n  driver: d\n"          \
  "  nodeName: node-1\n  pool:\n    generation: 1\n    name: p\n    resourceSliceCount: 1\n"
#define SELECTOR_JSON(terms)                                                                                   \
  R"({"kind":"ResourceSlice","apiVersion":"resource.k8s.io/v1","metadata":{"name":"s"},"spec":{"driver":"d",)" \
  R"("pool":{"name":"p","generation":1,"resourceSliceCount":1},"nodeSelector":{)" terms "}}}"
#define SELECTOR_YAML(terms)                                                                                   \
  "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata:\n  name: s\nspec:\n  driver: d\n"           \
  "  nodeSelector:" terms "  pool:\n    generation: 1\n    name: p\n    resourceSliceCount: 1\n"
#define POD_JSON(containers) \
  R"({"kind":"Pod","apiVersion":"v1","metadata":{"name":"p","namespace":"ns"},"spec":{)" containers "}}"
#define POD_YAML(containers) \
  "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  namespace: ns\nspec:" containers

INSTANTIATE_TEST_SUITE_P(
    GoFieldsWithoutOmitempty, ExplicitNull,
    ::testing::Values(
        SpellingCase{"RequestsNull", CLAIM_JSON(R"({"requests":null})"), CLAIM_YAML("\n    requests: null\n")},
        SpellingCase{"RequestsEmpty", CLAIM_JSON(R"({"requests":[]})"), CLAIM_YAML("\n    requests: []\n")},
        SpellingCase{"RequestsAbsent", CLAIM_JSON("{}"), CLAIM_YAML(" {}\n")},
        SpellingCase{"ConditionsNull", STATUS_JSON(R"(,"conditions":null)"), STATUS_YAML("  - conditions: null\n    device: g\n    driver: d\n    pool: p\n")},
        SpellingCase{"ConditionsEmpty", STATUS_JSON(R"(,"conditions":[])"), STATUS_YAML("  - conditions: []\n    device: g\n    driver: d\n    pool: p\n")},
        SpellingCase{"ConditionsAbsent", STATUS_JSON(""), STATUS_YAML("  - device: g\n    driver: d\n    pool: p\n")},
        SpellingCase{"DefaultNull", POLICY_JSON(R"("default":null,)"), POLICY_YAML("          default: null\n")},
        SpellingCase{"DefaultAbsent", POLICY_JSON(""), POLICY_YAML("")},
        SpellingCase{"NodeSelectorTermsNull", SELECTOR_JSON(R"("nodeSelectorTerms":null)"), SELECTOR_YAML("\n    nodeSelectorTerms: null\n")},
        SpellingCase{"NodeSelectorTermsEmpty", SELECTOR_JSON(R"("nodeSelectorTerms":[])"), SELECTOR_YAML("\n    nodeSelectorTerms: []\n")},
        SpellingCase{"NodeSelectorTermsAbsent", SELECTOR_JSON(""), SELECTOR_YAML(" {}\n")},
        SpellingCase{"ContainersNull", POD_JSON(R"("containers":null)"), POD_YAML("\n  containers: null\n")},
        SpellingCase{"ContainersEmpty", POD_JSON(R"("containers":[])"), POD_YAML("\n  containers: []\n")},
        SpellingCase{"ContainersAbsent", POD_JSON(""), POD_YAML(" {}\n")},
        SpellingCase{"CreationTimestampNull",
                     R"({"kind":"DeviceClass","apiVersion":"resource.k8s.io/v1",)"
                     R"("metadata":{"name":"c","creationTimestamp":null},"spec":{}})",
                     "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata:\n  creationTimestamp: null\n"
                     "  name: c\nspec: {}\n"},
        SpellingCase{"LastTransitionTimeNull",
                     R"({"kind":"DeviceTaintRule","apiVersion":"resource.k8s.io/v1","metadata":{"name":"r"},)"
                     R"("spec":{"taint":{"key":"k","effect":"None"}},"status":{"conditions":[{"type":"Ready",)"
                     R"("status":"False","lastTransitionTime":null,"reason":"R","message":""}]}})",
                     "apiVersion: resource.k8s.io/v1\nkind: DeviceTaintRule\nmetadata:\n  name: r\nspec:\n"
                     "  taint:\n    effect: None\n    key: k\nstatus:\n  conditions:\n  - lastTransitionTime: null\n"
                     "    message: \"\"\n    reason: R\n    status: \"False\"\n    type: Ready\n"}),
    [](const ::testing::TestParamInfo<SpellingCase>& info) { return std::string(info.param.name); });

TEST(ExplicitNullModel, SpellingIsKeptOnlyWhileTheFieldIsUnset) {
  Object o = DecodeOne(CLAIM_JSON(R"({"requests":null})"));
  DeviceClaim& devices = *std::get<ResourceClaim>(o.value).spec->devices;
  EXPECT_TRUE(devices.requests.empty());
  EXPECT_EQ(devices.requests_spelling, EmptySpelling::kNull);
  // null, [] and absent decode to the same requests; only the spelling tells them apart.
  Object empty = DecodeOne(CLAIM_JSON(R"({"requests":[]})"));
  Object absent = DecodeOne(CLAIM_JSON("{}"));
  EXPECT_EQ(std::get<ResourceClaim>(empty.value).spec->devices->requests_spelling, EmptySpelling::kEmpty);
  EXPECT_EQ(std::get<ResourceClaim>(absent.value).spec->devices->requests_spelling, EmptySpelling::kAbsent);
  EXPECT_NE(o.value, absent.value);
  // A value set later is written as usual.
  DeviceRequest r;
  r.name = "gpu";
  r.exactly.emplace().device_class_name = "gpu";
  devices.requests.push_back(r);
  EXPECT_EQ(WriteJson(*EncodeObject(o), false),
            CLAIM_JSON(R"({"requests":[{"name":"gpu","exactly":{"deviceClassName":"gpu"}}]})"));
}

TEST(ExplicitNullModel, KeptThroughV1beta1) {
  for (const char* devices : {R"({"requests":null})", R"({"requests":[]})", "{}"}) {
    SCOPED_TRACE(devices);
    const std::string beta1 = std::string(R"({"kind":"ResourceClaim","apiVersion":"resource.k8s.io/v1beta1",)") +
                              R"("metadata":{"name":"c","namespace":"ns"},"spec":{"devices":)" + devices + "}}";
    Object o = DecodeOne(beta1);
    EXPECT_EQ(WriteJson(*EncodeObject(o), false), beta1);
    const std::string v1 = std::string(R"({"kind":"ResourceClaim","apiVersion":"resource.k8s.io/v1",)") +
                           R"("metadata":{"name":"c","namespace":"ns"},"spec":{"devices":)" + devices + "}}";
    EXPECT_EQ(WriteJson(*EncodeObject(o, "resource.k8s.io/v1"), false), v1);
  }
}

TEST(ExplicitNullModel, YamlSpellingsOfNullAreNull) {
  // `~` and an empty value are YAML's other spellings of null; Go reads them as nil and writes null.
  for (const char* value : {" ~", ""}) {
    Object o = DecodeOne(std::string(CLAIM_YAML("\n    requests:")) + value + "\n");
    EXPECT_EQ(WriteJson(*EncodeObject(o), false), CLAIM_JSON(R"({"requests":null})"));
  }
}

#undef CLAIM_JSON
#undef CLAIM_YAML
#undef STATUS_JSON
#undef STATUS_YAML
#undef POLICY_JSON
#undef POLICY_YAML
#undef SELECTOR_JSON
#undef SELECTOR_YAML
#undef POD_JSON
#undef POD_YAML

// ---- The field set: every JSON field of the resource.k8s.io kinds is in DRAForge's field tables. ----
//
// testdata/field-paths.txt lists every field path of the kinds in each version Kubernetes 1.37
// serves, found by reflection over k8s.io/api v0.37.2 (tests/api/goref/run proves the file is Go's
// current output). A field upstream has and the tables lack would be dropped (with an "unknown
// field" warning) by every decode: this test names it.

using PathSet = std::set<std::string>;

std::map<std::string, PathSet> UpstreamPaths() {
  std::map<std::string, PathSet> out;  // "<version> <Kind>" -> paths
  std::istringstream in(testing::ReadFile(testing::SourceRoot() / "tests" / "api" / "testdata" / "field-paths.txt"));
  std::string version, kind, path;
  while (in >> version >> kind >> path) out[version + " " + kind].insert(path);
  return out;
}

PathSet DraforgePaths(std::string_view kind) {
  std::vector<std::string> paths;
  if (kind == "DeviceClass") paths = internal::FieldPaths<DeviceClass>();
  if (kind == "ResourceClaim") paths = internal::FieldPaths<ResourceClaim>();
  if (kind == "ResourceClaimTemplate") paths = internal::FieldPaths<ResourceClaimTemplate>();
  if (kind == "ResourceSlice") paths = internal::FieldPaths<ResourceSlice>();
  if (kind == "DeviceTaintRule") paths = internal::FieldPaths<DeviceTaintRule>();
  if (kind == "ResourcePoolStatusRequest") paths = internal::FieldPaths<ResourcePoolStatusRequest>();
  return PathSet(paths.begin(), paths.end());
}

// Where a v1beta1 field lives in the v1 shape, as internal/conversion.h moves it: device fields out
// of `basic`, the flat request's exact-request fields into `exactly`.
std::string V1beta1ToV1(const std::string& kind, std::string path) {
  const std::string basic = "spec.devices[].basic.";
  if (kind == "ResourceSlice" && path.rfind(basic, 0) == 0) return "spec.devices[]." + path.substr(basic.size());
  const std::string requests =
      kind == "ResourceClaimTemplate" ? "spec.spec.devices.requests[]." : "spec.devices.requests[].";
  if (path.rfind(requests, 0) == 0) {
    const std::string rest = path.substr(requests.size());
    const std::string field = rest.substr(0, rest.find_first_of(".["));
    for (const char* exact : {"deviceClassName", "selectors", "allocationMode", "count", "adminAccess", "tolerations",
                              "capacity", "derivedAttributes"}) {
      if (field == exact) return requests + "exactly." + rest;
    }
  }
  return path;
}

std::string Missing(const PathSet& want, const PathSet& have) {
  std::string out;
  for (const auto& p : want) {
    if (!have.count(p)) out += "\n  " + p;
  }
  return out;
}

TEST(FieldSet, UpstreamListIsThere) {
  const auto upstream = UpstreamPaths();
  for (const char* key : {"v1 DeviceClass", "v1 ResourceClaim", "v1 ResourceClaimTemplate", "v1 ResourceSlice",
                          "v1 DeviceTaintRule", "v1beta2 ResourceSlice", "v1beta1 ResourceClaim",
                          "v1alpha3 ResourcePoolStatusRequest"}) {
    ASSERT_TRUE(upstream.count(key)) << key;
    EXPECT_GT(upstream.at(key).size(), 5u) << key;
  }
  // The 1.37 alpha fields are among them (the list is not stale).
  EXPECT_TRUE(upstream.at("v1 ResourceSlice").count("spec.devices[].consumesCounters[].compatibilityGroups[]"));
  EXPECT_TRUE(upstream.at("v1 ResourceClaim").count("spec.devices.requests[].exactly.derivedAttributes[].name"));
}

TEST(FieldSet, EveryUpstreamFieldIsInTheTables) {
  for (const auto& [key, paths] : UpstreamPaths()) {
    SCOPED_TRACE(key);
    const std::string version = key.substr(0, key.find(' '));
    const std::string kind = key.substr(key.find(' ') + 1);
    const PathSet ours = DraforgePaths(kind);
    ASSERT_FALSE(ours.empty()) << "DRAForge does not model " << kind;
    PathSet want;
    for (const auto& p : paths) want.insert(version == "v1beta1" ? V1beta1ToV1(kind, p) : p);
    EXPECT_EQ(Missing(want, ours), "") << "fields of " << key << " missing from lib/api/internal/schema.h";
  }
}

TEST(FieldSet, TheTablesHaveNoFieldUpstreamLacks) {
  const auto upstream = UpstreamPaths();
  for (const char* kind : {"DeviceClass", "ResourceClaim", "ResourceClaimTemplate", "ResourceSlice", "DeviceTaintRule"}) {
    SCOPED_TRACE(kind);
    EXPECT_EQ(Missing(DraforgePaths(kind), upstream.at(std::string("v1 ") + kind)), "")
        << "fields in DRAForge's tables that resource.k8s.io/v1 does not have";
  }
  EXPECT_EQ(Missing(DraforgePaths("ResourcePoolStatusRequest"), upstream.at("v1alpha3 ResourcePoolStatusRequest")), "");
}

TEST(Encode, QuantityKeepsItsText) {
  const std::string text =
      R"({"kind":"ResourceSlice","apiVersion":"resource.k8s.io/v1","metadata":{"name":"s"},)"
      R"("spec":{"driver":"d","pool":{"name":"p","generation":1,"resourceSliceCount":1},"nodeName":"n",)"
      R"("devices":[{"name":"g","capacity":{"memory":{"value":"1.5Gi"}}}]}})";
  EXPECT_EQ(WriteJson(*EncodeObject(DecodeOne(text)), false), text);
}

// Attributes keep one value inline; several values at once (as Kubernetes' own fixtures write) and
// list values must still come back exactly, and equal attributes on two devices share one entry
// without one device's change showing on the other.
TEST(Encode, AttributesKeepEveryValueTheyWereGiven) {
  const std::string text =
      R"({"kind":"ResourceSlice","apiVersion":"resource.k8s.io/v1","metadata":{"name":"s"},)"
      R"("spec":{"driver":"d","pool":{"name":"p","generation":1,"resourceSliceCount":1},"nodeName":"n",)"
      R"("devices":[{"name":"a","attributes":{"both":{"int":7,"string":"x"},"list":{"ints":[1,2]},)"
      R"("model":{"string":"h100"},"none":{}}},{"name":"b","attributes":{"model":{"string":"h100"}}}]}})";
  Object object = DecodeOne(text);
  EXPECT_EQ(WriteJson(*EncodeObject(object), false), text);
  DecodeOptions dom;
  dom.allow_fast_path = false;
  auto via_dom = DecodeStream(text, dom);
  ASSERT_TRUE(via_dom.ok() && via_dom->size() == 1 && via_dom->front().object.ok());
  EXPECT_TRUE(*via_dom->front().object == object);

  auto& devices = std::get<ResourceSlice>(object.value).spec->devices;
  const DeviceAttribute* both = devices[0].attributes.Find("both");
  ASSERT_NE(both, nullptr);
  EXPECT_EQ(both->int_value(), 7);
  ASSERT_TRUE(both->string_value().has_value());
  EXPECT_EQ(*both->string_value(), "x");
  EXPECT_FALSE(both->version_value().has_value());
  EXPECT_EQ(devices[0].attributes.Find("list")->ints(), (std::vector<int64_t>{1, 2}));
  EXPECT_FALSE(devices[0].attributes.Find("none")->int_value().has_value());

  // Setting one field keeps the others.
  DeviceAttribute a = DeviceAttribute::String("x");
  a.set_int_value(7);
  EXPECT_TRUE(a == *both);
  a.set_int_value(std::nullopt);
  EXPECT_TRUE(a == DeviceAttribute::String("x"));
  EXPECT_FALSE(a == DeviceAttribute::Version("x"));

  // Copy-on-write: changing device a's model leaves device b's (decoded from the same text) alone.
  devices[0].attributes.Find("model")->set_string_value("a100");
  EXPECT_EQ(*devices[0].attributes.Find("model")->string_value(), "a100");
  EXPECT_EQ(*devices[1].attributes.Find("model")->string_value(), "h100");
}

// A stream long enough that the decoder stops trying to share a key whose values never repeat
// (uuid) decodes exactly as the DOM decoder does, and entries that repeat are still shared.
TEST(Stream, ManyDevicesWithUniqueAttributesDecodeAsThroughTheDom) {
  std::string text = R"({"apiVersion":"v1","kind":"List","items":[)";
  for (int s = 0; s < 12; ++s) {
    absl::StrAppend(&text, s > 0 ? "," : "", R"({"apiVersion":"resource.k8s.io/v1","kind":"ResourceSlice",)",
                    R"("metadata":{"name":"s)", s, R"("},"spec":{"driver":"d","nodeName":"n)", s,
                    R"(","pool":{"name":"p)", s, R"(","generation":1,"resourceSliceCount":1},"devices":[)");
    for (int d = 0; d < 128; ++d) {
      absl::StrAppend(&text, d > 0 ? "," : "", R"({"name":"gpu-)", d, R"(","attributes":{"brand":{"string":"x"},)",
                      R"("uuid":{"string":"u-)", s * 128 + d, R"("}},"capacity":{"memory":{"value":"1Gi"}}})");
    }
    text += "]}}";
  }
  text += "]}";
  DecodeOptions dom;
  dom.allow_fast_path = false;
  auto fast = DecodeStream(text, {});
  auto slow = DecodeStream(text, dom);
  ASSERT_TRUE(fast.ok() && slow.ok());
  ASSERT_EQ(fast->size(), 12u);
  ASSERT_EQ(slow->size(), 12u);
  for (size_t i = 0; i < fast->size(); ++i) {
    ASSERT_TRUE((*fast)[i].object.ok()) << (*fast)[i].object.status();
    EXPECT_TRUE(*(*fast)[i].object == *(*slow)[i].object) << "slice " << i;
  }
  const auto& last = std::get<ResourceSlice>((*fast)[11].object->value).spec->devices[127];
  EXPECT_EQ(*last.attributes.Find("uuid")->string_value(), "u-1535");
  EXPECT_EQ(*last.attributes.Find("brand")->string_value(), "x");
}

// `versions: []` is an empty list, not "no value": it survives decoding (both decoders) and comes
// back as [], and it differs from an attribute without the field.
TEST(Encode, EmptyListAttributeStaysAnEmptyList) {
  const std::string text =
      R"({"kind":"ResourceSlice","apiVersion":"resource.k8s.io/v1","metadata":{"name":"s"},)"
      R"("spec":{"driver":"d","pool":{"name":"p","generation":1,"resourceSliceCount":1},"nodeName":"n",)"
      R"("devices":[{"name":"a","attributes":{"b":{"bools":[]},"fw":{"versions":[]},"i":{"ints":[]},)"
      R"("none":{},"s":{"strings":[]}}}]}})";
  Object object = DecodeOne(text);
  EXPECT_EQ(WriteJson(*EncodeObject(object), false), text);
  DecodeOptions dom;
  dom.allow_fast_path = false;
  auto via_dom = DecodeStream(text, dom);
  ASSERT_TRUE(via_dom.ok() && via_dom->size() == 1 && via_dom->front().object.ok());
  EXPECT_TRUE(*via_dom->front().object == object);

  const Device& device = std::get<ResourceSlice>(object.value).spec->devices[0];
  const DeviceAttribute* fw = device.attributes.Find("fw");
  ASSERT_NE(fw, nullptr);
  EXPECT_TRUE(fw->has_versions());
  EXPECT_TRUE(fw->versions().empty());
  EXPECT_FALSE(fw->has_ints());
  EXPECT_TRUE(device.attributes.Find("i")->has_ints());
  EXPECT_TRUE(device.attributes.Find("b")->has_bools());
  EXPECT_TRUE(device.attributes.Find("s")->has_strings());
  const DeviceAttribute* none = device.attributes.Find("none");
  EXPECT_FALSE(none->has_versions());
  EXPECT_FALSE(*fw == *none);

  // null is "not set", as in Go.
  Object nulled = DecodeOne(absl::StrReplaceAll(text, {{R"({"versions":[]})", R"({"versions":null})"}}));
  const Device& d2 = std::get<ResourceSlice>(nulled.value).spec->devices[0];
  EXPECT_FALSE(d2.attributes.Find("fw")->has_versions());

  DeviceAttribute set;
  set.set_versions(std::vector<std::string>{});
  EXPECT_TRUE(set == *fw);
  set.set_versions(std::nullopt);
  EXPECT_FALSE(set.has_versions());
}

// The fields a device rarely sets (kept boxed, one pointer each) decode and encode like any other,
// through both decoders, and a copy that is changed leaves the original alone.
TEST(Encode, DeviceRareFieldsKeepEveryValue) {
  const std::string text =
      R"({"kind":"ResourceSlice","apiVersion":"resource.k8s.io/v1","metadata":{"name":"s"},)"
      R"("spec":{"driver":"d","pool":{"name":"p","generation":1,"resourceSliceCount":1},)"
      R"("devices":[)"
      R"({"name":"a","consumesCounters":[{"counterSet":"cs","counters":{"mem":{"value":"1Gi"}}}],)"
      R"("nodeName":"n1","taints":[{"key":"k","value":"v","effect":"NoSchedule"}],"bindsToNode":true,)"
      R"("bindingConditions":["ready"],"bindingFailureConditions":["failed"],"allowMultipleAllocations":true},)"
      R"({"name":"b","nodeSelector":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"x","operator":"In","values":["y"]}]}]}},)"
      R"({"name":"c","allNodes":true}],"perDeviceNodeSelection":true}})";
  Object object = DecodeOne(text);
  EXPECT_EQ(WriteJson(*EncodeObject(object), false), text);
  DecodeOptions dom;
  dom.allow_fast_path = false;
  auto via_dom = DecodeStream(text, dom);
  ASSERT_TRUE(via_dom.ok() && via_dom->size() == 1 && via_dom->front().object.ok());
  EXPECT_TRUE(*via_dom->front().object == object);

  const auto& devices = std::get<ResourceSlice>(object.value).spec->devices;
  ASSERT_EQ(devices.size(), 3u);
  EXPECT_EQ(*devices[0].name, "a");
  EXPECT_EQ(devices[0].node_name, "n1");
  ASSERT_EQ(devices[0].taints.size(), 1u);
  EXPECT_EQ(devices[0].taints[0].key, "k");
  EXPECT_EQ(devices[0].binding_conditions, (std::vector<std::string>{"ready"}));
  EXPECT_FALSE(devices[0].node_selector.has_value());
  ASSERT_TRUE(devices[1].node_selector.has_value());
  EXPECT_EQ(devices[1].node_selector->node_selector_terms.size(), 1u);
  EXPECT_TRUE(devices[1].taints.empty());
  EXPECT_FALSE(devices[1].node_name.has_value());

  Device copy = devices[0];
  EXPECT_TRUE(copy == devices[0]);
  copy.name = "z";
  copy.taints.clear();
  copy.binding_conditions.push_back("more");
  EXPECT_EQ(*devices[0].name, "a");
  EXPECT_EQ(devices[0].taints.size(), 1u);
  EXPECT_EQ(devices[0].binding_conditions.size(), 1u);
  EXPECT_FALSE(copy == devices[0]);
}

// Equal maps decoded from one text share their entries (the decoder keeps one array for the capacity
// of every device of a model); a change to one device's map never shows on another.
TEST(Encode, EqualMapsStayIndependent) {
  const std::string text =
      R"({"kind":"ResourceSlice","apiVersion":"resource.k8s.io/v1","metadata":{"name":"s"},)"
      R"("spec":{"driver":"d","pool":{"name":"p","generation":1,"resourceSliceCount":1},"nodeName":"n","devices":[)"
      R"({"name":"a","capacity":{"cores":{"value":"8"},"memory":{"value":"80Gi"}}},)"
      R"({"name":"b","capacity":{"cores":{"value":"8"},"memory":{"value":"80Gi"}}}]}})";
  Object object = DecodeOne(text);
  EXPECT_EQ(WriteJson(*EncodeObject(object), false), text);
  auto& devices = std::get<ResourceSlice>(object.value).spec->devices;
  ASSERT_EQ(devices.size(), 2u);
  EXPECT_TRUE(devices[0].capacity == devices[1].capacity);

  devices[0].capacity.Set("extra", DeviceCapacity{});
  devices[0].capacity.Find("memory")->value = *Quantity::Parse("40Gi");
  EXPECT_EQ(devices[0].capacity.size(), 3u);
  EXPECT_EQ(devices[1].capacity.size(), 2u);
  EXPECT_EQ(devices[1].capacity.Find("memory")->value->String(), "80Gi");

  Map<DeviceCapacity> copy = devices[1].capacity;
  copy.Erase("cores");
  EXPECT_EQ(copy.size(), 1u);
  EXPECT_TRUE(devices[1].capacity.Contains("cores"));
}

TEST(Encode, PodKeepsEveryField) {
  const std::string text =
      R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"ns"},"spec":{"containers":[)"
      R"({"name":"c","image":"busybox","command":["sleep","1"],"resources":{"limits":{"cpu":"1"},"claims":[{"name":"gpu"}]}}],)"
      R"("resourceClaims":[{"name":"gpu","resourceClaimTemplateName":"t"}],"tolerations":[{"key":"k"}]},)"
      R"("status":{"phase":"Pending","conditions":[{"type":"PodScheduled"}]}})";
  Object pod = DecodeOne(text);
  auto doc = EncodeObject(pod);
  ASSERT_TRUE(doc.ok());
  EXPECT_TRUE(*doc == Json(text));
  const auto& p = std::get<Pod>(pod.value);
  EXPECT_EQ(p.spec->containers.at(0).resources->claims.at(0).name, "gpu");
  EXPECT_EQ(p.spec->resource_claims.at(0).resource_claim_template_name, "t");
}

TEST(Encode, OtherKindsAreKeptOpaque) {
  const std::string text = R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},"spec":{"replicas":2}})";
  Object o = DecodeOne(text);
  EXPECT_EQ(o.kind(), Kind::kOther);
  EXPECT_EQ(o.kind_name(), "Deployment");
  EXPECT_TRUE(*EncodeObject(o) == Json(text));
}

struct BadCase {
  std::string name;
  std::string input;
  std::string message;  // a substring of the error
};

void PrintTo(const BadCase& c, std::ostream* os) { *os << c.name; }

class BadInput : public ::testing::TestWithParam<BadCase> {};

TEST_P(BadInput, IsAClearError) {
  const BadCase& c = GetParam();
  auto stream = DecodeStream(c.input, {});
  std::string message;
  if (!stream.ok()) {
    message = std::string(stream.status().message());
  } else {
    ASSERT_EQ(stream->size(), 1u);
    ASSERT_FALSE(stream->front().object.ok());
    message = std::string(stream->front().object.status().message());
  }
  EXPECT_THAT(message, HasSubstr(c.message));
}

INSTANTIATE_TEST_SUITE_P(
    Codec, BadInput,
    ::testing::Values(
        BadCase{"truncated_json", R"({"apiVersion":"resource.k8s.io/v1","kind":"DeviceClass","metadata":{"na)",
                "json: line 1, column"},
        BadCase{"wrong_type_string",
                R"({"apiVersion":"resource.k8s.io/v1","kind":"ResourceSlice","metadata":{"name":"s"},"spec":{"driver":7}})",
                "ResourceSlice \"s\": spec.driver: expected string, got integer"},
        BadCase{"wrong_type_int",
                R"({"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim","metadata":{"name":"c","namespace":"n"},)"
                R"("spec":{"devices":{"requests":[{"name":"r","exactly":{"count":"two"}}]}}})",
                "ResourceClaim \"n/c\": spec.devices.requests[0].exactly.count: expected integer, got string"},
        BadCase{"attribute_map_key",
                R"({"apiVersion":"resource.k8s.io/v1","kind":"ResourceSlice","metadata":{"name":"s"},)"
                R"("spec":{"devices":[{"name":"d","attributes":{"model":{"int":"x"}}}]}})",
                "spec.devices[0].attributes[model].int: expected integer, got string"},
        BadCase{"bad_quantity",
                R"({"apiVersion":"resource.k8s.io/v1","kind":"ResourceSlice","metadata":{"name":"s"},)"
                R"("spec":{"devices":[{"name":"d","capacity":{"memory":{"value":"80 GiB"}}}]}})",
                "spec.devices[0].capacity[memory].value: invalid quantity \"80 GiB\""},
        BadCase{"duplicate_key_json",
                R"({"apiVersion":"resource.k8s.io/v1","kind":"DeviceClass","metadata":{"name":"a","name":"b"}})",
                "metadata: duplicate field \"name\""},
        BadCase{"duplicate_key_yaml", "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata:\n  name: a\n  name: b\n",
                "duplicate key"},
        BadCase{"unknown_version", R"({"apiVersion":"resource.k8s.io/v1alpha2","kind":"ResourceClaim","metadata":{"name":"c"}})",
                "unsupported apiVersion \"resource.k8s.io/v1alpha2\" for kind ResourceClaim (classic DRA"},
        BadCase{"unknown_dra_kind", R"({"apiVersion":"resource.k8s.io/v1","kind":"ResourceClass","metadata":{"name":"c"}})",
                "unknown kind \"ResourceClass\" in API group resource.k8s.io"},
        BadCase{"missing_kind", R"({"apiVersion":"resource.k8s.io/v1","metadata":{"name":"c"}})", "kind: required field"},
        BadCase{"missing_api_version", "kind: Pod\nmetadata:\n  name: p\n", "Pod \"p\": apiVersion: required field is not set"},
        BadCase{"not_an_object", "[1]", "expected a Kubernetes object, got integer"},
        BadCase{"int_overflow",
                R"({"apiVersion":"resource.k8s.io/v1","kind":"ResourceSlice","metadata":{"name":"s"},)"
                R"("spec":{"pool":{"generation":18446744073709551615}}})",
                "spec.pool.generation: integer 18446744073709551615 overflows int64"},
        BadCase{"yaml_syntax", "apiVersion: v1\nkind: [Pod\n", "yaml"}),
    [](const auto& info) { return info.param.name; });

TEST(BadInput, StrictModeRejectsUnknownFields) {
  const std::string text =
      R"({"apiVersion":"resource.k8s.io/v1","kind":"DeviceClass","metadata":{"name":"a"},"spec":{"selector":[]}})";
  DecodeOptions strict;
  strict.strict = true;
  auto stream = DecodeStream(text, strict);
  ASSERT_TRUE(stream.ok());
  ASSERT_FALSE(stream->front().object.ok());
  EXPECT_THAT(std::string(stream->front().object.status().message()),
              HasSubstr("DeviceClass \"a\": unknown field \"spec.selector\""));
  auto lenient = DecodeStream(text, {});
  ASSERT_TRUE(lenient->front().object.ok());
  EXPECT_THAT(lenient->front().warnings, ::testing::ElementsAre(HasSubstr("unknown field \"spec.selector\"")));
}

TEST(BadInput, OversizedInputIsRefusedBeforeParsing) {
  std::string big(50u << 20, ' ');
  big.replace(0, 2, "{}");
  auto stream = DecodeStream(big, {});
  ASSERT_FALSE(stream.ok());
  EXPECT_EQ(stream.status().code(), absl::StatusCode::kResourceExhausted);
  DecodeOptions small;
  small.max_bytes = 10;
  EXPECT_THAT(std::string(DecodeStream(std::string(11, ' '), small).status().message()),
              HasSubstr("more than the limit of 10 bytes"));
}

TEST(Stream, ListsAndMultipleDocumentsExpand) {
  const std::string text =
      "---\n# comment\napiVersion: v1\nkind: List\nitems:\n- apiVersion: resource.k8s.io/v1\n  kind: DeviceClass\n"
      "  metadata: {name: a}\n- apiVersion: resource.k8s.io/v1alpha2\n  kind: ResourceClaim\n  metadata: {name: b}\n"
      "---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: ns\n";
  auto stream = DecodeStream(text, {});
  ASSERT_TRUE(stream.ok()) << stream.status();
  ASSERT_EQ(stream->size(), 3u);
  EXPECT_TRUE((*stream)[0].object.ok());
  EXPECT_FALSE((*stream)[1].object.ok());  // refused one by one, the rest still decodes
  EXPECT_TRUE((*stream)[2].object.ok());
  EXPECT_EQ((*stream)[2].object->kind_name(), "Namespace");
  EXPECT_EQ((*stream)[2].index, 2);
}

// Deep nesting used to overflow the stack in RapidJSON's recursive parser (a segfault on 600 KB of
// "["). Now it is a parse error with a position, for the top level and inside opaque parameters.
TEST(Nesting, DeepJsonIsAnErrorNotACrash) {
  const std::string deep(600000, '[');
  auto doc = ParseJson(deep);
  ASSERT_FALSE(doc.ok());
  EXPECT_THAT(doc.status().message(), HasSubstr("line 1, column 513: nesting is deeper than 512 levels"));
  auto stream = DecodeStream(deep, {});
  ASSERT_FALSE(stream.ok());
  EXPECT_THAT(stream.status().message(), HasSubstr("nesting is deeper than 512 levels"));
}

TEST(Nesting, DeepOpaqueParametersAreAnError) {
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  const std::string claim = R"({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": {"name": "c"},
    "spec": {"devices": {"config": [{"opaque": {"driver": "gpu.example.com", "parameters": {"x": )" + deep + "}}}]}}}";
  auto stream = DecodeStream(claim, {});
  ASSERT_FALSE(stream.ok());
  EXPECT_THAT(stream.status().message(), HasSubstr("nesting is deeper than 512 levels"));
}

TEST(Nesting, TheCapItselfDecodesAndRoundTrips) {
  // The claim's own objects take 7 levels; the parameters fill the rest up to exactly 512.
  const int inner = 512 - 7;
  const std::string params = std::string(inner, '[') + std::string(inner, ']');
  const std::string claim = R"({"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim","metadata":{"name":"c"},)"
                            R"("spec":{"devices":{"config":[{"opaque":{"driver":"gpu.example.com","parameters":{"x":)" +
                            params + "}}}]}}}";
  Object o = DecodeOne(claim);
  EXPECT_THAT(absl::StrReplaceAll(Encode(o), {{" ", ""}, {"\n", ""}}), HasSubstr(params));
  std::string deeper = claim;
  deeper.insert(deeper.find("[["), "[");
  deeper.insert(deeper.rfind("]]"), "]");
  auto stream = DecodeStream(deeper, {});
  ASSERT_FALSE(stream.ok());
  EXPECT_THAT(stream.status().message(), HasSubstr("nesting is deeper than 512 levels"));
}

TEST(Nesting, SyntaxErrorsKeepRapidJsonsText) {
  auto doc = ParseJson("{\"a\": [1, 2}");
  ASSERT_FALSE(doc.ok());
  EXPECT_THAT(doc.status().message(), HasSubstr("json: line 1, column 12: Missing a comma or ']' after an array element."));
}

}  // namespace
}  // namespace draforge::api
