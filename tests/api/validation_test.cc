// Tests for lib/api/validation.h. Expected messages were checked against a Kubernetes 1.37.2
// kube-apiserver (every DRA feature gate on) with dry-run creates and status updates.
#include "api/validation.h"

#include <string>
#include <string_view>
#include <vector>

#include "api/quantity.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace draforge::api {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using Type = FieldError::Type;

Quantity Qty(std::string_view text) {
  auto q = Quantity::Parse(text);
  EXPECT_TRUE(q.ok()) << text;
  return q.ok() ? *q : Quantity();
}

std::string Dump(const std::vector<FieldError>& errs) {
  std::string out;
  for (const auto& e : errs) out += "  " + e.ToString() + "\n";
  return out;
}

// The errors at `field`, as "Type: detail" for compact assertions.
std::vector<const FieldError*> At(const std::vector<FieldError>& errs, std::string_view field) {
  std::vector<const FieldError*> out;
  for (const auto& e : errs) {
    if (e.field == field) out.push_back(&e);
  }
  return out;
}

bool Has(const std::vector<FieldError>& errs, std::string_view field, Type type) {
  for (const auto* e : At(errs, field)) {
    if (e->type == type) return true;
  }
  return false;
}

#define EXPECT_ERROR(errs, field, type) EXPECT_TRUE(Has(errs, field, type)) << Dump(errs)

constexpr char kSubdomainMsg[] =
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must "
    "start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
constexpr char kLabelMsg[] =
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end "
    "with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')";

// ---- Builders ------------------------------------------------------------------------------------------

ResourceSlice Slice() {
  ResourceSlice s;
  s.metadata.name = "slice-1";
  s.spec.emplace();
  s.spec->driver = "gpu.example.com";
  s.spec->pool = ResourcePool{"pool-a", 1, 1};
  s.spec->node_name = "node-1";
  return s;
}

Device Dev(std::string name) {
  Device d;
  d.name = std::move(name);
  return d;
}

DeviceAttribute StringAttr(std::string v) {
  DeviceAttribute a;
  a.set_string_value(std::move(v));
  return a;
}

DeviceAttribute IntAttr(int64_t v) {
  DeviceAttribute a;
  a.set_int_value(v);
  return a;
}

DeviceRequest Exact(std::string name, std::string device_class = "gpu") {
  DeviceRequest r;
  r.name = std::move(name);
  r.exactly.emplace();
  r.exactly->device_class_name = std::move(device_class);
  return r;
}

ResourceClaim Claim() {
  ResourceClaim c;
  c.metadata.name = "claim-1";
  c.metadata.namespace_ = "default";
  c.spec.emplace();
  c.spec->devices.emplace();
  c.spec->devices->requests.push_back(Exact("r0"));
  return c;
}

DeviceClaim& Devices(ResourceClaim& c) { return *c.spec->devices; }

DeviceClass Class() {
  DeviceClass c;
  c.metadata.name = "gpu";
  c.spec.emplace();
  return c;
}

DeviceRequestAllocationResult Result(std::string request, std::string device = "d0") {
  DeviceRequestAllocationResult r;
  r.request = std::move(request);
  r.driver = "gpu.example.com";
  r.pool = "p";
  r.device = std::move(device);
  return r;
}

ResourceClaim AllocatedClaim() {
  ResourceClaim c = Claim();
  c.status.emplace();
  c.status->allocation.emplace();
  c.status->allocation->devices.emplace();
  c.status->allocation->devices->results.push_back(Result("r0"));
  return c;
}

// ---- FieldError formatting ---------------------------------------------------------------------------

TEST(FieldErrorTest, RequiredPrintsNoValue) {
  FieldError e{"spec.devices[0].name", Type::kRequired, "", ""};
  EXPECT_EQ(e.ToString(), "spec.devices[0].name: Required value");
}

TEST(FieldErrorTest, InvalidPrintsValueAndDetail) {
  FieldError e{"spec.driver", Type::kInvalid, GoQuote("Foo"), "bad"};
  EXPECT_EQ(e.ToString(), "spec.driver: Invalid value: \"Foo\": bad");
  EXPECT_EQ(e.Body(), "Invalid value: \"Foo\": bad");
}

TEST(FieldErrorTest, TooLongAndForbiddenPrintOnlyDetail) {
  EXPECT_EQ((FieldError{"a", Type::kTooLong, "", "may not be more than 64 bytes"}).ToString(),
            "a: Too long: may not be more than 64 bytes");
  EXPECT_EQ((FieldError{"a", Type::kForbidden, "", "no"}).ToString(), "a: Forbidden: no");
}

TEST(FieldErrorTest, TypeNames) {
  EXPECT_EQ(FieldErrorTypeName(Type::kDuplicate), "Duplicate value");
  EXPECT_EQ(FieldErrorTypeName(Type::kTooMany), "Too many");
  EXPECT_EQ(FieldErrorTypeName(Type::kNotSupported), "Unsupported value");
  EXPECT_EQ(FieldErrorTypeName(Type::kNotFound), "Not found");
}

TEST(GoQuoteTest, EscapesLikeGo) {
  EXPECT_EQ(GoQuote("a\"b\\c"), "\"a\\\"b\\\\c\"");
  EXPECT_EQ(GoQuote("x\ty\n"), "\"x\\ty\\n\"");
  EXPECT_EQ(GoQuote(std::string("\x01", 1)), "\"\\x01\"");
  EXPECT_EQ(GoQuote("\xc3\xa9"), "\"\xc3\xa9\"");    // printable UTF-8 stays
  EXPECT_EQ(GoQuote("\xc2\x85"), "\"\\u0085\"");      // C1 control
  EXPECT_EQ(GoQuote("\xff"), "\"\\xff\"");            // invalid UTF-8
}

TEST(GoQuoteTest, JsonEscapesHtmlCharacters) {
  EXPECT_EQ(GoJsonQuote("a<b>&"), "\"a\\u003cb\\u003e\\u0026\"");
  EXPECT_EQ(GoJsonQuote("q\"\n"), "\"q\\\"\\n\"");
}

// ---- Metadata -----------------------------------------------------------------------------------------

TEST(MetadataTest, NameRequiredUnlessGenerateName) {
  ResourceSlice s = Slice();
  s.metadata.name.reset();
  auto errs = ValidateResourceSlice(s);
  ASSERT_EQ(errs.size(), 1u) << Dump(errs);
  EXPECT_EQ(errs[0].ToString(), "metadata.name: Required value: name or generateName is required");
  s.metadata.generate_name = "slice-";
  EXPECT_THAT(ValidateResourceSlice(s), IsEmpty());
}

TEST(MetadataTest, InvalidGenerateName) {
  ResourceSlice s = Slice();
  s.metadata.name.reset();
  s.metadata.generate_name = "Bad-";
  auto errs = ValidateResourceSlice(s);
  ASSERT_EQ(errs.size(), 1u) << Dump(errs);
  EXPECT_EQ(errs[0].ToString(), std::string("metadata.generateName: Invalid value: \"Bad-\": ") + kSubdomainMsg);
}

TEST(MetadataTest, NameMustBeSubdomain) {
  ResourceSlice s = Slice();
  s.metadata.name = std::string(254, 'a');
  auto errs = ValidateResourceSlice(s);
  ASSERT_FALSE(errs.empty());
  EXPECT_EQ(errs[0].field, "metadata.name");
  EXPECT_EQ(errs[0].detail, "must be no more than 253 characters");
}

TEST(MetadataTest, DeviceClassNameUsesDeclarativeWording) {
  DeviceClass c = Class();
  c.metadata.name = std::string(254, 'a');
  auto errs = ValidateDeviceClass(c);
  ASSERT_EQ(errs.size(), 1u) << Dump(errs);
  EXPECT_EQ(errs[0].detail, "must be no more than 253 bytes");
}

TEST(MetadataTest, LabelKeysAndValues) {
  ResourceSlice s = Slice();
  s.metadata.labels.Set("a/b/c", "x y");
  auto errs = ValidateResourceSlice(s);
  ASSERT_EQ(errs.size(), 2u) << Dump(errs);
  EXPECT_EQ(errs[0].field, "metadata.labels");
  EXPECT_EQ(errs[0].value, "\"a/b/c\"");
  EXPECT_EQ(errs[1].value, "\"x y\"");
  EXPECT_EQ(errs[1].detail,
            "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must "
            "start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used "
            "for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')");
}

TEST(MetadataTest, AnnotationKeysAreCaseInsensitive) {
  ResourceSlice s = Slice();
  s.metadata.annotations.Set("Example.COM/Key", "v");
  EXPECT_THAT(ValidateResourceSlice(s), IsEmpty());
  s.metadata.annotations.Set("a b", "v");
  auto errs = ValidateResourceSlice(s);
  ASSERT_EQ(errs.size(), 1u) << Dump(errs);
  EXPECT_EQ(errs[0].field, "metadata.annotations");
  EXPECT_EQ(errs[0].value, "\"a b\"");
}

TEST(MetadataTest, AnnotationsTotalSize) {
  ResourceSlice s = Slice();
  s.metadata.annotations.Set("a", std::string(256 * 1024, 'x'));
  auto errs = ValidateResourceSlice(s);
  ASSERT_EQ(errs.size(), 1u) << Dump(errs);
  EXPECT_EQ(errs[0].ToString(), "metadata.annotations: Too long: may not be more than 262144 bytes");
}

TEST(MetadataTest, FinalizersNeedDomainUnlessStandard) {
  ResourceClaim c = Claim();
  c.metadata.finalizers = {"foo", "a/b", "kubernetes"};
  auto errs = ValidateResourceClaim(c);
  ASSERT_EQ(errs.size(), 1u) << Dump(errs);
  EXPECT_EQ(errs[0].ToString(),
            "metadata.finalizers[0]: Invalid value: \"foo\": name is neither a standard finalizer name nor is it "
            "fully qualified");
}

TEST(MetadataTest, NamespaceMustBeLabelForNamespacedKinds) {
  ResourceClaim c = Claim();
  c.metadata.namespace_ = "Bad_NS";
  auto errs = ValidateResourceClaim(c);
  ASSERT_EQ(errs.size(), 1u) << Dump(errs);
  EXPECT_EQ(errs[0].ToString(), std::string("metadata.namespace: Invalid value: \"Bad_NS\": ") + kLabelMsg);
}

TEST(MetadataTest, NamespaceOfClusterScopedKindIsIgnored) {
  // The API server clears it before validation.
  ResourceSlice s = Slice();
  s.metadata.namespace_ = "foo";
  EXPECT_THAT(ValidateResourceSlice(s), IsEmpty());
}

TEST(MetadataTest, GenerationCheckedOnlyForClaims) {
  ResourceClaim c = Claim();
  c.metadata.generation = -1;
  auto errs = ValidateResourceClaim(c);
  ASSERT_EQ(errs.size(), 1u) << Dump(errs);
  EXPECT_EQ(errs[0].ToString(), "metadata.generation: Invalid value: -1: must be greater than or equal to 0");
  ResourceSlice s = Slice();
  s.metadata.generation = -1;  // reset to 1 on create
  EXPECT_THAT(ValidateResourceSlice(s), IsEmpty());
}

TEST(MetadataTest, OwnerReferences) {
  ResourceClaim c = Claim();
  c.metadata.owner_references.push_back(OwnerReference{"a/b/c", "", "", "", std::nullopt, std::nullopt});
  c.metadata.owner_references.push_back(OwnerReference{"v1", "Pod", "p", "1", true, std::nullopt});
  c.metadata.owner_references.push_back(OwnerReference{"v1", "Pod", "q", "2", true, std::nullopt});
  auto errs = ValidateResourceClaim(c);
  EXPECT_ERROR(errs, "metadata.ownerReferences[0].apiVersion", Type::kInvalid);
  EXPECT_ERROR(errs, "metadata.ownerReferences[0].kind", Type::kRequired);
  EXPECT_ERROR(errs, "metadata.ownerReferences[0].uid", Type::kRequired);
  auto refs = At(errs, "metadata.ownerReferences");
  ASSERT_EQ(refs.size(), 1u);
  EXPECT_THAT(refs[0]->detail, ::testing::HasSubstr("Found \"true\" in references for Pod/p and Pod/q"));
}

// ---- ResourceSlice --------------------------------------------------------------------------------------

TEST(ResourceSliceTest, ValidSliceHasNoErrors) {
  ResourceSlice s = Slice();
  Device d = Dev("gpu-0");
  d.attributes.Set("model", StringAttr("a100"));
  d.attributes.Set("gpu.example.com/memory", IntAttr(40));
  DeviceAttribute v;
  v.set_version_value("1.2.3-alpha.1+build.5");
  d.attributes.Set("driverVersion", v);
  d.capacity.Set("memory", DeviceCapacity{Qty("40Gi"), std::nullopt});
  s.spec->devices.push_back(d);
  EXPECT_THAT(ValidateResourceSlice(s), IsEmpty());
}

TEST(ResourceSliceTest, DriverMustBeLowercaseSubdomainCaseInsensitively) {
  ResourceSlice s = Slice();
  s.spec->driver = "GPU.Example.com";  // lower-cased before the check
  EXPECT_THAT(ValidateResourceSlice(s), IsEmpty());
  s.spec->driver = "Foo_Bar";
  auto errs = ValidateResourceSlice(s);
  ASSERT_EQ(errs.size(), 1u) << Dump(errs);
  EXPECT_EQ(errs[0].ToString(), std::string("spec.driver: Invalid value: \"Foo_Bar\": ") + kSubdomainMsg);
}

TEST(ResourceSliceTest, DriverRequiredAndTooLong) {
  ResourceSlice s = Slice();
  s.spec->driver.reset();
  auto errs = ValidateResourceSlice(s);
  ASSERT_EQ(errs.size(), 1u) << Dump(errs);
  EXPECT_EQ(errs[0].ToString(), "spec.driver: Required value");
  s.spec->driver = std::string(64, 'a');
  errs = ValidateResourceSlice(s);
  ASSERT_EQ(errs.size(), 1u) << Dump(errs);
  EXPECT_EQ(errs[0].ToString(), "spec.driver: Too long: may not be more than 63 bytes");
}

TEST(ResourceSliceTest, PoolRules) {
  ResourceSlice s = Slice();
  s.spec->pool = ResourcePool{"a//b", -1, 0};
  auto errs = ValidateResourceSlice(s);
  ASSERT_EQ(errs.size(), 3u) << Dump(errs);
  EXPECT_EQ(errs[0].ToString(), std::string("spec.pool.name: Invalid value: \"\": ") + kSubdomainMsg);
  EXPECT_EQ(errs[1].ToString(), "spec.pool.resourceSliceCount: Invalid value: 0: must be greater than zero");
  EXPECT_EQ(errs[2].ToString(), "spec.pool.generation: Invalid value: -1: must be greater than or equal to zero");
}

TEST(ResourceSliceTest, PoolNameRequiredAndMultiSegment) {
  ResourceSlice s = Slice();
  s.spec->pool->name = "example.com/rack-1/node-2";
  EXPECT_THAT(ValidateResourceSlice(s), IsEmpty());
  s.spec->pool->name.reset();
  auto errs = ValidateResourceSlice(s);
  ASSERT_EQ(errs.size(), 1u) << Dump(errs);
  EXPECT_EQ(errs[0].ToString(), "spec.pool.name: Required value");
}

TEST(ResourceSliceTest, ExactlyOneNodeSelectionField) {
  ResourceSlice s = Slice();
  s.spec->all_nodes = true;
  auto errs = ValidateResourceSlice(s);
  ASSERT_EQ(errs.size(), 1u) << Dump(errs);
  EXPECT_EQ(errs[0].ToString(),
            "spec: Invalid value: \"{`nodeName`, `allNodes`}\": exactly one of `nodeName`, `nodeSelector`, "
            "`allNodes`, `perDeviceNodeSelection` is required, but multiple fields are set");
  s.spec->node_name.reset();
  s.spec->all_nodes.reset();
  errs = ValidateResourceSlice(s);
  ASSERT_EQ(errs.size(), 1u) << Dump(errs);
  EXPECT_EQ(errs[0].ToString(),
            "spec: Required value: exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` "
            "is required");
}

TEST(ResourceSliceTest, FalseAndEmptySelectionFields) {
  ResourceSlice s = Slice();
  s.spec->node_name = "";
  s.spec->all_nodes = false;
  s.spec->per_device_node_selection = false;
  auto errs = ValidateResourceSlice(s);
  EXPECT_ERROR(errs, "spec.nodeName", Type::kInvalid);
  EXPECT_ERROR(errs, "spec.allNodes", Type::kInvalid);
  EXPECT_ERROR(errs, "spec.perDeviceNodeSelection", Type::kInvalid);
  EXPECT_ERROR(errs, "spec", Type::kRequired);
  EXPECT_EQ(At(errs, "spec.allNodes")[0]->value, "false");
}

TEST(ResourceSliceTest, NodeSelectorNeedsExactlyOneTerm) {
  ResourceSlice s = Slice();
  s.spec->node_name.reset();
  s.spec->node_selector.emplace();
  auto errs = ValidateResourceSlice(s);
  ASSERT_EQ(errs.size(), 2u) << Dump(errs);
  EXPECT_EQ(errs[0].ToString(),
            "spec.nodeSelector.nodeSelectorTerms: Required value: must have at least one node selector term");
  EXPECT_EQ(errs[1].type, Type::kInvalid);
  EXPECT_EQ(errs[1].detail, "must have exactly one node selector term");

  NodeSelectorTerm a;
  a.match_expressions.push_back({"a", "In", {"b"}});
  NodeSelectorTerm b;
  b.match_fields.push_back({"metadata.name", "In", {"n"}});
  s.spec->node_selector->node_selector_terms = {a, b};
  errs = ValidateResourceSlice(s);
  ASSERT_EQ(errs.size(), 1u) << Dump(errs);
  EXPECT_EQ(errs[0].value,
            "[{\"MatchExpressions\":[{\"Key\":\"a\",\"Operator\":\"In\",\"Values\":[\"b\"]}],\"MatchFields\":null},"
            "{\"MatchExpressions\":null,\"MatchFields\":[{\"Key\":\"metadata.name\",\"Operator\":\"In\",\"Values\":"
            "[\"n\"]}]}]");
}

TEST(ResourceSliceTest, NodeSelectorRequirementRules) {
  NodeSelector sel;
  NodeSelectorTerm t;
  t.match_expressions.push_back({"a b", "Foo", {"x y"}});
  t.match_expressions.push_back({"k", "In", {}});
  t.match_expressions.push_back({"k", "Exists", {"v"}});
  t.match_expressions.push_back({"k", "Gt", {"1", "2"}});
  t.match_fields.push_back({"metadata.name", "In", {"a", "b"}});
  t.match_fields.push_back({"spec.x", "Exists", {}});
  sel.node_selector_terms.push_back(t);
  auto errs = ValidateNodeSelector(sel, "spec.nodeSelector");
  const std::string p = "spec.nodeSelector.nodeSelectorTerms[0].";
  EXPECT_EQ(errs[0].ToString(), p + "matchExpressions[0].operator: Invalid value: \"Foo\": not a valid selector operator");
  EXPECT_ERROR(errs, p + "matchExpressions[0].key", Type::kInvalid);
  EXPECT_ERROR(errs, p + "matchExpressions[0].values[0]", Type::kInvalid);
  EXPECT_ERROR(errs, p + "matchExpressions[1].values", Type::kRequired);
  EXPECT_ERROR(errs, p + "matchExpressions[2].values", Type::kForbidden);
  EXPECT_EQ(At(errs, p + "matchExpressions[3].values")[0]->detail,
            "must be specified single value when `operator` is 'Lt' or 'Gt'");
  EXPECT_ERROR(errs, p + "matchFields[0].values", Type::kRequired);
  EXPECT_ERROR(errs, p + "matchFields[1].operator", Type::kInvalid);
  EXPECT_EQ(At(errs, p + "matchFields[1].key")[0]->detail, "not a valid field selector key");
}

TEST(ResourceSliceTest, PerDeviceNodeSelection) {
  ResourceSlice s = Slice();
  s.spec->node_name.reset();
  s.spec->per_device_node_selection = true;
  Device ok = Dev("ok");
  ok.node_name = "node-1";
  Device none = Dev("none");
  Device both = Dev("both");
  both.node_name = "n";
  both.all_nodes = true;
  s.spec->devices = {ok, none, both};
  auto errs = ValidateResourceSlice(s);
  ASSERT_EQ(errs.size(), 2u) << Dump(errs);
  EXPECT_EQ(errs[0].ToString(),
            "spec.devices[1]: Required value: exactly one of `nodeName`, `nodeSelector`, or `allNodes` is required "
            "when `perDeviceNodeSelection` is set to true in the ResourceSlice spec");
  EXPECT_EQ(errs[1].field, "spec.devices[2]");
  EXPECT_EQ(errs[1].value, "\"{`nodeName`, `allNodes`}\"");
}

TEST(ResourceSliceTest, DeviceNodeFieldsNeedPerDeviceNodeSelection) {
  ResourceSlice s = Slice();
  Device d = Dev("a");
  d.node_name = "n";
  s.spec->devices.push_back(d);
  auto errs = ValidateResourceSlice(s);
  ASSERT_EQ(errs.size(), 1u) << Dump(errs);
  EXPECT_EQ(errs[0].ToString(),
            "spec.devices[0]: Invalid value: null: `nodeName`, `nodeSelector` and `allNodes` can only be set if "
            "`perDeviceNodeSelection` is set to true in the ResourceSlice spec");
}

TEST(ResourceSliceTest, DeviceNamesAreLabelsAndUnique) {
  ResourceSlice s = Slice();
  s.spec->devices = {Dev("dev0"), Dev("dev0"), Dev("bad.name")};
  auto errs = ValidateResourceSlice(s);
  ASSERT_EQ(errs.size(), 2u) << Dump(errs);
  EXPECT_EQ(errs[0].ToString(), "spec.devices[2].name: Invalid value: \"bad.name\": must not contain dots");
  EXPECT_EQ(errs[1].ToString(), "spec.devices[1]: Duplicate value: \"dev0\"");
}

TEST(ResourceSliceTest, AtMost128Devices) {
  ResourceSlice s = Slice();
  for (int i = 0; i < 128; ++i) s.spec->devices.push_back(Dev("d" + std::to_string(i)));
  EXPECT_THAT(ValidateResourceSlice(s), IsEmpty());
  s.spec->devices.push_back(Dev("d128"));
  auto errs = ValidateResourceSlice(s);
  ASSERT_EQ(errs.size(), 1u) << Dump(errs);
  EXPECT_EQ(errs[0].ToString(), "spec.devices: Too many: 129: must have at most 128 items");
}

TEST(ResourceSliceTest, AtMost64DevicesWithTaints) {
  ResourceSlice s = Slice();
  for (int i = 0; i < 65; ++i) s.spec->devices.push_back(Dev("d" + std::to_string(i)));
  s.spec->devices[0].taints.push_back(DeviceTaint{"k", std::nullopt, "NoSchedule", std::nullopt});
  auto errs = ValidateResourceSlice(s);
  ASSERT_EQ(errs.size(), 1u) << Dump(errs);
  EXPECT_EQ(errs[0].ToString(), "spec.devices: Too many: 65: must have at most 64 items");
}

TEST(ResourceSliceTest, AtMost64DevicesWithConsumesCountersOrListAttributes) {
  ResourceSlice s = Slice();
  for (int i = 0; i < 65; ++i) s.spec->devices.push_back(Dev("d" + std::to_string(i)));
  DeviceAttribute list;
  list.set_ints(std::vector<int64_t>{1, 2});
  s.spec->devices[3].attributes.Set("l", list);
  EXPECT_ERROR(ValidateResourceSlice(s), "spec.devices", Type::kTooMany);
  s.spec->devices[3].attributes = {};
  DeviceCounterConsumption cc;
  cc.counter_set = "cs";
  cc.counters.Set("m", Counter{Qty("1")});
  s.spec->devices[3].consumes_counters.push_back(cc);
  EXPECT_ERROR(ValidateResourceSlice(s), "spec.devices", Type::kTooMany);
}

TEST(ResourceSliceTest, AttributeNeedsExactlyOneValue) {
  ResourceSlice s = Slice();
  Device d = Dev("d");
  d.attributes.Set("a", DeviceAttribute{});
  DeviceAttribute two;
  two.set_string_value("x");
  two.set_version_value("1.2.3");
  d.attributes.Set("b", two);
  s.spec->devices.push_back(d);
  auto errs = ValidateResourceSlice(s);
  ASSERT_EQ(errs.size(), 2u) << Dump(errs);
  EXPECT_EQ(errs[0].ToString(),
            "spec.devices[0].attributes[a]: Invalid value: \"\": must specify one of: `int`, `bool`, `string`, "
            "`version`, `ints`, `bools`, `strings`, `versions`");
  EXPECT_EQ(errs[1].ToString(),
            "spec.devices[0].attributes[b]: Invalid value: \"{string, version}\": must specify exactly one of: "
            "`int`, `bool`, `string`, `version`, `ints`, `bools`, `strings`, `versions`");
}

TEST(ResourceSliceTest, StringAttributeAtMost64Bytes) {
  ResourceSlice s = Slice();
  Device d = Dev("d");
  d.attributes.Set("s", StringAttr(std::string(64, 'x')));
  s.spec->devices.push_back(d);
  EXPECT_THAT(ValidateResourceSlice(s), IsEmpty());
  s.spec->devices[0].attributes.Set("s", StringAttr(std::string(65, 'x')));
  auto errs = ValidateResourceSlice(s);
  ASSERT_EQ(errs.size(), 1u) << Dump(errs);
  EXPECT_EQ(errs[0].ToString(), "spec.devices[0].attributes[s].string: Too long: may not be more than 64 bytes");
}

TEST(ResourceSliceTest, VersionAttributeMustBeSemver) {
  for (std::string_view bad : {"1.2", "01.2.3", "1.2.3-01", "v1.2.3", "1.2.3+", "1.2.3-a..b"}) {
    ResourceSlice s = Slice();
    Device d = Dev("d");
    DeviceAttribute v;
    v.set_version_value(std::string(bad));
    d.attributes.Set("v", v);
    s.spec->devices.push_back(d);
    auto errs = ValidateResourceSlice(s);
    ASSERT_EQ(errs.size(), 1u) << bad << Dump(errs);
    EXPECT_EQ(errs[0].ToString(), "spec.devices[0].attributes[v].version: Invalid value: \"" + std::string(bad) +
                                      "\": must be a string compatible with semver.org spec 2.0.0");
  }
  for (std::string_view good : {"0.0.0", "1.2.3-0", "1.2.3-x-y.7", "10.20.30+build.1-a"}) {
    ResourceSlice s = Slice();
    Device d = Dev("d");
    DeviceAttribute v;
    v.set_version_value(std::string(good));
    d.attributes.Set("v", v);
    s.spec->devices.push_back(d);
    EXPECT_THAT(ValidateResourceSlice(s), IsEmpty()) << good;
  }
}

TEST(ResourceSliceTest, ListAttributes) {
  ResourceSlice s = Slice();
  Device d = Dev("d");
  DeviceAttribute strings;
  strings.set_strings(std::vector<std::string>{"a", std::string(65, 'b')});
  d.attributes.Set("l", strings);
  DeviceAttribute versions;
  versions.set_versions(std::vector<std::string>{"1.0.0", "bad"});
  d.attributes.Set("vs", versions);
  DeviceAttribute mixed;
  mixed.set_int_value(1);
  mixed.set_ints(std::vector<int64_t>{1, 2});
  d.attributes.Set("mix", mixed);
  s.spec->devices.push_back(d);
  auto errs = ValidateResourceSlice(s);
  EXPECT_ERROR(errs, "spec.devices[0].attributes[l].strings[1]", Type::kTooLong);
  EXPECT_ERROR(errs, "spec.devices[0].attributes[vs].versions[1]", Type::kInvalid);
  auto mix = At(errs, "spec.devices[0].attributes[mix]");
  ASSERT_EQ(mix.size(), 1u) << Dump(errs);
  EXPECT_EQ(mix[0]->value, "\"{int, ints}\"");
}

TEST(ResourceSliceTest, EmptyListAttributeIsSetButInvalid) {
  // The API server tells `versions: []` from no versions (validateDeviceAttribute compares with
  // nil): the present list is the union member and is rejected as empty. Declarative validation
  // counts only non-empty lists, so an attribute that is just an empty list gets its union error
  // too, while one next to a scalar keeps the hand-written union error.
  ResourceSlice s = Slice();
  Device d = Dev("d");
  DeviceAttribute empty;
  empty.set_versions(std::vector<std::string>{});
  d.attributes.Set("a", empty);
  DeviceAttribute with_int;
  with_int.set_int_value(1);
  with_int.set_strings(std::vector<std::string>{});
  d.attributes.Set("b", with_int);
  s.spec->devices.push_back(d);
  auto errs = ValidateResourceSlice(s);
  ASSERT_EQ(errs.size(), 4u) << Dump(errs);
  EXPECT_EQ(errs[0].ToString(),
            "spec.devices[0].attributes[a].versions: Invalid value: []: must not be empty if specified");
  EXPECT_EQ(errs[1].ToString(),
            "spec.devices[0].attributes[b].strings: Invalid value: []: must not be empty if specified");
  EXPECT_EQ(errs[2].ToString(),
            "spec.devices[0].attributes[b]: Invalid value: {\"IntValue\":1,\"BoolValue\":null,\"StringValue\":null,"
            "\"VersionValue\":null,\"IntValues\":null,\"BoolValues\":null,\"StringValues\":[],"
            "\"VersionValues\":null}: exactly one value must be specified");
  EXPECT_EQ(errs[3].ToString(),
            "spec.devices[0].attributes[a]: Invalid value: \"\": must specify one of: `int`, `bool`, `string`, "
            "`version`, `ints`, `bools`, `strings`, `versions`");
}

TEST(ResourceSliceTest, AtMost64DevicesWithAnEmptyListAttribute) {
  // haveListAttributes compares with nil too: an empty list lowers the limit to 64 devices.
  ResourceSlice s = Slice();
  for (int i = 0; i < 65; ++i) s.spec->devices.push_back(Dev("d" + std::to_string(i)));
  DeviceAttribute empty;
  empty.set_ints(std::vector<int64_t>{});
  s.spec->devices[3].attributes.Set("l", empty);
  EXPECT_ERROR(ValidateResourceSlice(s), "spec.devices", Type::kTooMany);
}

TEST(ResourceSliceTest, AttributeNamesAreQualifiedNames) {
  ResourceSlice s = Slice();
  Device d = Dev("d");
  d.attributes.Set("1bad", IntAttr(1));
  d.attributes.Set("/x", IntAttr(1));
  d.attributes.Set("dom.com/", IntAttr(1));
  d.attributes.Set(std::string(33, 'a'), IntAttr(1));
  d.attributes.Set("x/y/z", IntAttr(1));  // not checked in 1.37
  s.spec->devices.push_back(d);
  auto errs = ValidateResourceSlice(s);
  const auto at = At(errs, "spec.devices[0].attributes");
  ASSERT_EQ(at.size(), 4u) << Dump(errs);
  EXPECT_EQ(at[0]->ToString(), "spec.devices[0].attributes: Invalid value: \"\": the domain must not be empty");
  EXPECT_EQ(at[1]->value, "\"1bad\"");
  EXPECT_EQ(at[2]->ToString(), "spec.devices[0].attributes: Too long: may not be more than 32 bytes");
  EXPECT_EQ(at[3]->ToString(), "spec.devices[0].attributes: Invalid value: \"\": the name must not be empty");
}

TEST(ResourceSliceTest, LongAttributeKeyIsTruncatedInPath) {
  ResourceSlice s = Slice();
  Device d = Dev("d");
  const std::string key = std::string(60, 'x') + ".com/" + std::string(32, 'b');
  d.attributes.Set(key, DeviceAttribute{});
  s.spec->devices.push_back(d);
  auto errs = ValidateResourceSlice(s);
  // A key longer than 96 bytes always has a bad domain or id. Hand-written validation truncates the
  // key in the path, declarative validation does not, so both union errors are reported.
  ASSERT_EQ(errs.size(), 3u) << Dump(errs);
  EXPECT_EQ(errs[0].ToString(), "spec.devices[0].attributes: Too long: may not be more than 63 bytes");
  EXPECT_EQ(errs[1].field, "spec.devices[0].attributes[" + std::string(47, 'x') + "..." + std::string(9, 'x') + ".com/" +
                               std::string(32, 'b') + "]");
  EXPECT_EQ(errs[1].detail, "exactly one value must be specified");
  EXPECT_EQ(errs[2].field, "spec.devices[0].attributes[" + key + "]");
}

TEST(ResourceSliceTest, AttributesAndCapacitiesAtMost32) {
  ResourceSlice s = Slice();
  Device d = Dev("d");
  for (int i = 0; i < 30; ++i) d.attributes.Set("a" + std::to_string(i), IntAttr(i));
  for (int i = 0; i < 2; ++i) d.capacity.Set("c" + std::to_string(i), DeviceCapacity{Qty("1"), std::nullopt});
  s.spec->devices.push_back(d);
  EXPECT_THAT(ValidateResourceSlice(s), IsEmpty());
  s.spec->devices[0].capacity.Set("c2", DeviceCapacity{Qty("1"), std::nullopt});
  auto errs = ValidateResourceSlice(s);
  ASSERT_EQ(errs.size(), 1u) << Dump(errs);
  EXPECT_EQ(errs[0].ToString(),
            "spec.devices[0]: Invalid value: 33: the total number of attributes and capacities must not exceed 32");
}

TEST(ResourceSliceTest, AttributeValuesAtMost48) {
  ResourceSlice s = Slice();
  Device d = Dev("d");
  DeviceAttribute list;
  std::vector<int64_t> ints;
  for (int i = 0; i < 49; ++i) ints.push_back(i);
  list.set_ints(std::move(ints));
  d.attributes.Set("l", list);
  s.spec->devices.push_back(d);
  auto errs = ValidateResourceSlice(s);
  ASSERT_EQ(errs.size(), 1u) << Dump(errs);
  EXPECT_EQ(errs[0].ToString(),
            "spec.devices[0]: Invalid value: 49: the total number of attribute values must not exceed 48");
}

TEST(ResourceSliceTest, TaintKeyValueEffect) {
  ResourceSlice s = Slice();
  Device d = Dev("d");
  d.taints.push_back(DeviceTaint{"", std::nullopt, "", std::nullopt});
  d.taints.push_back(DeviceTaint{"k", "bad value", "Bogus", std::nullopt});
  d.taints.push_back(DeviceTaint{"example.com/k", "v", "None", std::nullopt});
  s.spec->devices.push_back(d);
  auto errs = ValidateResourceSlice(s);
  EXPECT_EQ(At(errs, "spec.devices[0].taints[0].key").size(), 2u) << Dump(errs);
  EXPECT_ERROR(errs, "spec.devices[0].taints[0].effect", Type::kRequired);
  EXPECT_ERROR(errs, "spec.devices[0].taints[1].value", Type::kInvalid);
  auto effect = At(errs, "spec.devices[0].taints[1].effect");
  ASSERT_EQ(effect.size(), 1u);
  EXPECT_EQ(effect[0]->ToString(),
            "spec.devices[0].taints[1].effect: Unsupported value: \"Bogus\": supported values: \"NoExecute\", "
            "\"NoSchedule\", \"None\"");
  EXPECT_TRUE(At(errs, "spec.devices[0].taints[2].effect").empty());
}

TEST(ResourceSliceTest, AtMost16Taints) {
  ResourceSlice s = Slice();
  Device d = Dev("d");
  for (int i = 0; i < 17; ++i) d.taints.push_back(DeviceTaint{"k" + std::to_string(i), std::nullopt, "NoSchedule", std::nullopt});
  s.spec->devices.push_back(d);
  auto errs = ValidateResourceSlice(s);
  ASSERT_EQ(errs.size(), 1u) << Dump(errs);
  EXPECT_EQ(errs[0].ToString(), "spec.devices[0].taints: Too many: 17: must have at most 16 items");
}

TEST(ResourceSliceTest, SharedCounters) {
  ResourceSlice s = Slice();
  CounterSet a;
  a.name = "cs";
  a.counters.Set("Mem", Counter{Qty("1")});
  CounterSet dup;
  dup.name = "cs";
  dup.counters.Set("m", Counter{Qty("1000m")});
  CounterSet empty;
  empty.name = "";
  s.spec->shared_counters = {a, dup, empty};
  auto errs = ValidateResourceSlice(s);
  ASSERT_EQ(errs.size(), 4u) << Dump(errs);
  EXPECT_EQ(errs[0].ToString(), "spec.sharedCounters[1]: Duplicate value: {\"name\":\"cs\",\"counters\":{\"m\":{\"value\":\"1\"}}}");
  EXPECT_EQ(errs[1].field, "spec.sharedCounters[0].counters");
  EXPECT_EQ(errs[1].value, "\"Mem\"");
  EXPECT_EQ(errs[2].ToString(), "spec.sharedCounters[2].name: Required value");
  EXPECT_EQ(errs[3].ToString(), "spec.sharedCounters[2].counters: Required value");
}

TEST(ResourceSliceTest, AtMost8CounterSetsAnd32Counters) {
  ResourceSlice s = Slice();
  for (int i = 0; i < 9; ++i) {
    CounterSet cs;
    cs.name = "cs" + std::to_string(i);
    cs.counters.Set("m", Counter{Qty("1")});
    s.spec->shared_counters.push_back(cs);
  }
  auto errs = ValidateResourceSlice(s);
  ASSERT_EQ(errs.size(), 1u) << Dump(errs);
  EXPECT_EQ(errs[0].ToString(), "spec.sharedCounters: Too many: 9: must have at most 8 items");

  s.spec->shared_counters.resize(1);
  for (int i = 0; i < 33; ++i) s.spec->shared_counters[0].counters.Set("c" + std::to_string(i), Counter{Qty("1")});
  errs = ValidateResourceSlice(s);
  ASSERT_EQ(errs.size(), 1u) << Dump(errs);
  EXPECT_EQ(errs[0].ToString(), "spec.sharedCounters[0].counters: Too many: 34: must have at most 32 items");
}

TEST(ResourceSliceTest, OnlyOneOfSharedCountersOrDevices) {
  ResourceSlice s = Slice();
  s.spec->devices.push_back(Dev("a"));
  CounterSet cs;
  cs.name = "cs";
  cs.counters.Set("m", Counter{Qty("1")});
  s.spec->shared_counters.push_back(cs);
  auto errs = ValidateResourceSlice(s);
  ASSERT_EQ(errs.size(), 1u) << Dump(errs);
  EXPECT_EQ(errs[0].ToString(), "spec: Invalid value: \"\": only one of `sharedCounters` or `devices` is allowed");
}

TEST(ResourceSliceTest, ConsumesCounters) {
  ResourceSlice s = Slice();
  Device a = Dev("a");
  DeviceCounterConsumption c1;
  c1.counter_set = "cs";
  c1.counters.Set("m", Counter{Qty("1")});
  DeviceCounterConsumption c2;
  c2.counter_set = "cs";
  c2.counters.Set("Bad_Key", Counter{Qty("2")});
  a.consumes_counters = std::vector<DeviceCounterConsumption>{c1, c2};
  Device b = Dev("b");
  b.consumes_counters.push_back(DeviceCounterConsumption{});
  Device c = Dev("c");
  c.consumes_counters = std::vector<DeviceCounterConsumption>{c1, c1, c1};
  s.spec->devices = {a, b, c};
  auto errs = ValidateResourceSlice(s);
  ASSERT_EQ(errs.size(), 5u) << Dump(errs);
  EXPECT_EQ(errs[0].ToString(),
            "spec.devices[0].consumesCounters[1]: Duplicate value: {\"counterSet\":\"cs\",\"counters\":{\"Bad_Key\":"
            "{\"value\":\"2\"}}}");
  EXPECT_EQ(errs[1].field, "spec.devices[0].consumesCounters[1].counters");
  EXPECT_EQ(errs[2].ToString(), "spec.devices[1].consumesCounters[0].counterSet: Required value");
  EXPECT_EQ(errs[3].ToString(), "spec.devices[1].consumesCounters[0].counters: Required value");
  EXPECT_EQ(errs[4].ToString(), "spec.devices[2].consumesCounters: Too many: 3: must have at most 2 items");
}

TEST(ResourceSliceTest, CompatibilityGroups) {
  ResourceSlice s = Slice();
  Device a = Dev("a");
  DeviceCounterConsumption c1;
  c1.counter_set = "cs";
  c1.counters.Set("m", Counter{Qty("1")});
  c1.compatibility_groups = {"mig-1g", "mig-2g"};
  a.consumes_counters = {c1};
  Device b = Dev("b");
  DeviceCounterConsumption c2 = c1;
  c2.compatibility_groups = {"Bad_Group", "Bad_Group"};
  b.consumes_counters = {c2};
  Device d = Dev("d");
  DeviceCounterConsumption c3 = c1;
  c3.compatibility_groups = {"a", "b", "c"};
  d.consumes_counters = {c3};
  s.spec->devices = {a, b, d};
  auto errs = ValidateResourceSlice(s);
  ASSERT_EQ(errs.size(), 4u) << Dump(errs);
  const std::string b0 = "spec.devices[1].consumesCounters[0].compatibilityGroups";
  EXPECT_EQ(errs[0].ToString(), std::string(b0 + "[0]: Invalid value: \"Bad_Group\": ") + kLabelMsg);
  EXPECT_EQ(errs[1].ToString(), std::string(b0 + "[1]: Invalid value: \"Bad_Group\": ") + kLabelMsg);
  EXPECT_EQ(errs[2].ToString(), b0 + "[1]: Duplicate value: \"Bad_Group\"");
  EXPECT_EQ(errs[3].ToString(),
            "spec.devices[2].consumesCounters[0].compatibilityGroups: Too many: 3: must have at most 2 items");
}

TEST(ResourceSliceTest, BindingConditions) {
  ResourceSlice s = Slice();
  Device a = Dev("a");
  a.binding_conditions = std::vector<std::string>{"a", "a"};
  a.binding_failure_conditions = std::vector<std::string>{"a", "f", "f"};
  Device b = Dev("b");
  b.binding_failure_conditions = std::vector<std::string>{"x"};
  Device c = Dev("c");
  c.binding_conditions = std::vector<std::string>{"a", "b", "c", "d", "e"};
  c.binding_failure_conditions = std::vector<std::string>{"f"};
  s.spec->devices = {a, b, c};
  auto errs = ValidateResourceSlice(s);
  ASSERT_EQ(errs.size(), 5u) << Dump(errs);
  EXPECT_EQ(errs[0].ToString(), "spec.devices[0].bindingConditions[1]: Duplicate value: \"a\"");
  EXPECT_EQ(errs[1].ToString(),
            "spec.devices[0].bindingFailureConditions[0]: Invalid value: \"a\": bindingFailureConditions must not "
            "overlap with bindingConditions");
  EXPECT_EQ(errs[2].ToString(), "spec.devices[0].bindingFailureConditions[2]: Duplicate value: \"f\"");
  EXPECT_EQ(errs[3].ToString(),
            "spec.devices[1].bindingConditions: Invalid value: null: bindingConditions are required to use "
            "bindingFailureConditions");
  EXPECT_EQ(errs[4].ToString(), "spec.devices[2].bindingConditions: Too many: 5: must have at most 4 items");
}

TEST(ResourceSliceTest, RequestPolicyNeedsAllowMultipleAllocations) {
  ResourceSlice s = Slice();
  Device d = Dev("d");
  CapacityRequestPolicy policy;
  policy.default_ = Qty("1");
  d.capacity.Set("m", DeviceCapacity{Qty("10"), policy});
  s.spec->devices.push_back(d);
  auto errs = ValidateResourceSlice(s);
  ASSERT_EQ(errs.size(), 1u) << Dump(errs);
  EXPECT_EQ(errs[0].ToString(), "spec.devices[0].capacity[m].requestPolicy: Forbidden: allowMultipleAllocations must be true");
  s.spec->devices[0].allow_multiple_allocations = true;
  EXPECT_THAT(ValidateResourceSlice(s), IsEmpty());
}

TEST(ResourceSliceTest, RequestPolicyValidValues) {
  ResourceSlice s = Slice();
  Device d = Dev("d");
  d.allow_multiple_allocations = true;
  CapacityRequestPolicy policy;
  policy.default_ = Qty("3");
  policy.valid_values = {Qty("2"), Qty("1"), Qty("20"), Qty("1")};
  d.capacity.Set("m", DeviceCapacity{Qty("10"), policy});
  s.spec->devices.push_back(d);
  auto errs = ValidateResourceSlice(s);
  const std::string p = "spec.devices[0].capacity[m].requestPolicy.validValues";
  ASSERT_EQ(errs.size(), 5u) << Dump(errs);
  EXPECT_EQ(errs[0].ToString(), p + "[1]: Invalid value: \"1\": values must be sorted in ascending order");
  EXPECT_EQ(errs[1].ToString(), p + "[3]: Invalid value: \"1\": values must be sorted in ascending order");
  EXPECT_EQ(errs[2].ToString(), p + "[2]: Invalid value: \"20\": option is larger than capacity value: 10");
  EXPECT_EQ(errs[3].ToString(), p + "[3]: Duplicate value: \"1\"");
  EXPECT_EQ(errs[4].ToString(), p + ": Invalid value: \"3\": default value is not valid according to the requestPolicy");
}

TEST(ResourceSliceTest, RequestPolicyRange) {
  ResourceSlice s = Slice();
  Device d = Dev("d");
  d.allow_multiple_allocations = true;
  CapacityRequestPolicy p;
  p.default_ = Qty("0");
  p.valid_range = CapacityRequestPolicyRange{Qty("1"), Qty("20"), Qty("3")};
  d.capacity.Set("p", DeviceCapacity{Qty("10"), p});
  CapacityRequestPolicy both;
  both.default_ = Qty("1");
  both.valid_values = {Qty("1")};
  both.valid_range = CapacityRequestPolicyRange{Qty("1"), std::nullopt, std::nullopt};
  d.capacity.Set("q", DeviceCapacity{Qty("10"), both});
  s.spec->devices.push_back(d);
  auto errs = ValidateResourceSlice(s);
  const std::string r = "spec.devices[0].capacity[p].requestPolicy.validRange";
  ASSERT_EQ(errs.size(), 5u) << Dump(errs);
  EXPECT_EQ(errs[0].ToString(), r + ".default: Invalid value: \"0\": default is less than min: 1");
  EXPECT_EQ(errs[1].ToString(), r + ".max: Invalid value: \"20\": max is larger than capacity value: 10");
  EXPECT_EQ(errs[2].ToString(), r + ".step: Invalid value: \"0\": value is not a multiple of a given step (3) from (1)");
  EXPECT_EQ(errs[3].ToString(), r + ".step: Invalid value: \"20\": value is not a multiple of a given step (3) from (1)");
  EXPECT_EQ(errs[4].ToString(),
            "spec.devices[0].capacity[q].requestPolicy: Forbidden: exactly one policy can be specified, cannot "
            "specify \"validValues\" and \"validRange\" at the same time");
}

TEST(ResourceSliceTest, RequestPolicyRangeStepAndFractions) {
  ResourceSlice s = Slice();
  Device d = Dev("d");
  d.allow_multiple_allocations = true;
  CapacityRequestPolicy zero;
  zero.default_ = Qty("1");
  zero.valid_range = CapacityRequestPolicyRange{Qty("1"), std::nullopt, Qty("0")};
  d.capacity.Set("s", DeviceCapacity{Qty("10"), zero});
  CapacityRequestPolicy big;
  big.default_ = Qty("1");
  big.valid_range = CapacityRequestPolicyRange{Qty("1"), std::nullopt, Qty("10")};
  d.capacity.Set("t", DeviceCapacity{Qty("10"), big});
  CapacityRequestPolicy tiny;
  tiny.default_ = Qty("0.0001");
  tiny.valid_range = CapacityRequestPolicyRange{Qty("0"), std::nullopt, Qty("0.5")};
  d.capacity.Set("u", DeviceCapacity{Qty("10"), tiny});
  s.spec->devices.push_back(d);
  auto errs = ValidateResourceSlice(s);
  ASSERT_EQ(errs.size(), 3u) << Dump(errs);
  EXPECT_EQ(errs[0].ToString(), "spec.devices[0].capacity[s].requestPolicy.validRange.step: Invalid value: \"0\": must be greater than zero");
  EXPECT_EQ(errs[1].ToString(),
            "spec.devices[0].capacity[t].requestPolicy.validRange.step: Invalid value: \"10\": one step 11 is larger "
            "than capacity value: 10");
  EXPECT_EQ(errs[2].field, "spec.devices[0].capacity[u].requestPolicy.validRange.default");
  EXPECT_EQ(errs[2].detail, "value cannot be represented as a milli value");
}

TEST(ResourceSliceTest, PartitionTypeAttribute) {
  ResourceSlice s = Slice();
  s.spec->partition_type_attribute = "gpu.example.com/ptype";
  DeviceCounterConsumption cc;
  cc.counter_set = "cs";
  cc.counters.Set("m", Counter{Qty("1")});
  Device missing = Dev("a");
  missing.consumes_counters.push_back(cc);
  Device wrong = Dev("b");
  wrong.consumes_counters.push_back(cc);
  wrong.attributes.Set("ptype", IntAttr(1));
  Device ok = Dev("c");
  ok.consumes_counters.push_back(cc);
  ok.attributes.Set("ptype", StringAttr("x"));
  s.spec->devices = {missing, wrong, ok};
  auto errs = ValidateResourceSlice(s);
  ASSERT_EQ(errs.size(), 2u) << Dump(errs);
  EXPECT_EQ(errs[0].ToString(),
            "spec.devices[0].attributes[gpu.example.com/ptype]: Required value: device consumes counters and "
            "`partitionTypeAttribute` names this attribute, so it must be set");
  EXPECT_EQ(errs[1].value,
            "{\"IntValue\":1,\"BoolValue\":null,\"StringValue\":null,\"VersionValue\":null,\"IntValues\":null,"
            "\"BoolValues\":null,\"StringValues\":null,\"VersionValues\":null}");
}

TEST(ResourceSliceTest, PartitionTypeAttributeWithoutCounters) {
  ResourceSlice s = Slice();
  s.spec->partition_type_attribute = "Bad/x";
  s.spec->devices.push_back(Dev("a"));
  auto errs = ValidateResourceSlice(s);
  ASSERT_EQ(errs.size(), 2u) << Dump(errs);
  EXPECT_EQ(errs[0].ToString(),
            "spec.partitionTypeAttribute: Invalid value: \"Bad/x\": may only be set on a slice which declares "
            "devices that consume counters");
  EXPECT_EQ(errs[1].field, "spec.partitionTypeAttribute");
  EXPECT_THAT(errs[1].detail, ::testing::StartsWith("prefix: a lowercase RFC 1123 subdomain"));
}

TEST(ResourceSliceTest, SkipNodeOperations) {
  ResourceSlice s = Slice();
  s.spec->skip_node_operations = {"NodePrepareResources", "NodePrepareResources", "Bogus"};
  auto errs = ValidateResourceSlice(s);
  ASSERT_EQ(errs.size(), 3u) << Dump(errs);
  EXPECT_EQ(errs[0].ToString(),
            "spec.skipNodeOperations: Invalid value: [\"NodePrepareResources\",\"NodePrepareResources\",\"Bogus\"]: "
            "NodePrepareResources cannot be skipped unless NodeUnprepareResources is also skipped");
  EXPECT_EQ(errs[1].ToString(), "spec.skipNodeOperations[1]: Duplicate value: \"NodePrepareResources\"");
  EXPECT_EQ(errs[2].ToString(),
            "spec.skipNodeOperations[2]: Unsupported value: \"Bogus\": supported values: \"*\", "
            "\"NodePrepareResources\", \"NodeUnprepareResources\"");
  s.spec->skip_node_operations = {"NodePrepareResources", "*"};
  EXPECT_THAT(ValidateResourceSlice(s), IsEmpty());
}

TEST(ResourceSliceTest, NodeAllocatableResources) {
  ResourceSlice s = Slice();
  Device d = Dev("d");
  d.capacity.Set("m", DeviceCapacity{Qty("1"), std::nullopt});
  d.node_allocatable_resources.Set("gpu", NodeAllocatableResource{});
  NodeAllocatableResource cpu;
  cpu.mapping = NodeAllocatableResourceMapping{"x", std::nullopt, Qty("0")};
  d.node_allocatable_resources.Set("cpu", cpu);
  s.spec->devices.push_back(d);
  auto errs = ValidateResourceSlice(s);
  const std::string p = "spec.devices[0].nodeAllocatableResources";
  EXPECT_EQ(At(errs, p + "[cpu].mapping.capacityKey")[0]->ToString(), p + "[cpu].mapping.capacityKey: Not found: \"x\"");
  EXPECT_ERROR(errs, p + "[cpu].mapping.capacityMultiplier", Type::kRequired);
  EXPECT_ERROR(errs, p + "[cpu].mapping.deviceMultiplier", Type::kInvalid);
  EXPECT_ERROR(errs, p + "[gpu]", Type::kInvalid);
  EXPECT_ERROR(errs, p + "[gpu]", Type::kRequired);
  EXPECT_EQ(At(errs, p + "[cpu].mapping")[0]->detail, "must specify exactly one of: `capacityKey`, `deviceMultiplier`");
}

// ---- DeviceClass ------------------------------------------------------------------------------------------

TEST(DeviceClassTest, ValidClass) {
  DeviceClass c = Class();
  c.spec->selectors.push_back(DeviceSelector{CELDeviceSelector{"device.driver == 'x'"}});
  c.spec->config.push_back(DeviceClassConfiguration{OpaqueDeviceConfiguration{"gpu.example.com", RawJson("{\"a\":1}")}});
  c.spec->extended_resource_name = "example.com/gpu";
  EXPECT_THAT(ValidateDeviceClass(c), IsEmpty());
}

TEST(DeviceClassTest, SelectorsNeedCelAndAnExpression) {
  DeviceClass c = Class();
  c.spec->selectors.push_back(DeviceSelector{CELDeviceSelector{""}});
  c.spec->selectors.push_back(DeviceSelector{});
  auto errs = ValidateDeviceClass(c);
  ASSERT_EQ(errs.size(), 2u) << Dump(errs);
  EXPECT_EQ(errs[0].ToString(),
            "spec.selectors[0].cel.expression: Invalid value: \"\": compilation failed: ERROR: <input>:1:0: Syntax "
            "error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', "
            "NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}");
  EXPECT_EQ(errs[1].ToString(), "spec.selectors[1].cel: Required value");
}

TEST(DeviceClassTest, BlankExpressionShowsSnippet) {
  DeviceClass c = Class();
  c.spec->selectors.push_back(DeviceSelector{CELDeviceSelector{"   "}});
  auto errs = ValidateDeviceClass(c);
  ASSERT_EQ(errs.size(), 1u) << Dump(errs);
  EXPECT_THAT(errs[0].detail, ::testing::HasSubstr("ERROR: <input>:1:4: Syntax error"));
  EXPECT_THAT(errs[0].detail, ::testing::EndsWith("IDENTIFIER}\n |    \n | ...^"));
}

TEST(DeviceClassTest, ExpressionLengthLimit) {
  DeviceClass c = Class();
  c.spec->selectors.push_back(DeviceSelector{CELDeviceSelector{std::string(10 * 1024, 'a')}});
  EXPECT_THAT(ValidateDeviceClass(c), IsEmpty());
  c.spec->selectors[0].cel->expression = std::string(10 * 1024 + 1, 'a');
  auto errs = ValidateDeviceClass(c);
  ASSERT_EQ(errs.size(), 1u) << Dump(errs);
  EXPECT_EQ(errs[0].ToString(), "spec.selectors[0].cel.expression: Too long: may not be more than 10240 bytes");
}

TEST(DeviceClassTest, AtMost32SelectorsAndConfigs) {
  DeviceClass c = Class();
  for (int i = 0; i < 33; ++i) {
    c.spec->selectors.push_back(DeviceSelector{CELDeviceSelector{"true"}});
    c.spec->config.push_back(DeviceClassConfiguration{OpaqueDeviceConfiguration{"d", RawJson("{}")}});
  }
  auto errs = ValidateDeviceClass(c);
  ASSERT_EQ(errs.size(), 2u) << Dump(errs);
  EXPECT_EQ(errs[0].ToString(), "spec.selectors: Too many: 33: must have at most 32 items");
  EXPECT_EQ(errs[1].ToString(), "spec.config: Too many: 33: must have at most 32 items");
}

TEST(DeviceClassTest, OpaqueConfig) {
  DeviceClass c = Class();
  c.spec->config.push_back(DeviceClassConfiguration{OpaqueDeviceConfiguration{"", RawJson("[1]")}});
  c.spec->config.push_back(DeviceClassConfiguration{});
  c.spec->config.push_back(DeviceClassConfiguration{OpaqueDeviceConfiguration{"x", std::nullopt}});
  auto errs = ValidateDeviceClass(c);
  ASSERT_EQ(errs.size(), 4u) << Dump(errs);
  EXPECT_EQ(errs[0].ToString(), "spec.config[0].opaque.parameters: Invalid value: \"<value omitted>\": must be a valid JSON object");
  EXPECT_EQ(errs[1].ToString(), "spec.config[1].opaque: Required value");
  EXPECT_EQ(errs[2].ToString(), "spec.config[2].opaque.parameters: Required value");
  // Declarative errors come last.
  EXPECT_EQ(errs[3].ToString(), "spec.config[0].opaque.driver: Required value");
}

TEST(DeviceClassTest, OpaqueParametersAtMost10KiB) {
  DeviceClass c = Class();
  const std::string big = "{\"x\":\"" + std::string(10 * 1024, 'a') + "\"}";
  c.spec->config.push_back(DeviceClassConfiguration{OpaqueDeviceConfiguration{"d.example.com", RawJson(big)}});
  auto errs = ValidateDeviceClass(c);
  ASSERT_EQ(errs.size(), 1u) << Dump(errs);
  EXPECT_EQ(errs[0].ToString(), "spec.config[0].opaque.parameters: Too long: may not be more than 10240 bytes");
}

TEST(DeviceClassTest, ConfigDriverUsesDeclarativeMessages) {
  DeviceClass c = Class();
  c.spec->config.push_back(DeviceClassConfiguration{OpaqueDeviceConfiguration{"Bad_Driver" + std::string(60, 'x'), RawJson("{}")}});
  auto errs = ValidateDeviceClass(c);
  ASSERT_EQ(errs.size(), 2u) << Dump(errs);
  EXPECT_THAT(errs[0].detail, ::testing::StartsWith("an RFC 1123 subdomain must consist of alphanumeric characters"));
  EXPECT_EQ(errs[1].ToString(), "spec.config[0].opaque.driver: Too long: may not be more than 63 characters");
}

TEST(DeviceClassTest, ExtendedResourceName) {
  DeviceClass c = Class();
  c.spec->extended_resource_name = "foo";
  auto errs = ValidateDeviceClass(c);
  ASSERT_EQ(errs.size(), 1u) << Dump(errs);
  EXPECT_EQ(errs[0].ToString(),
            "spec.extendedResourceName: Invalid value: \"foo\": a name must be a domain-prefixed path, such as "
            "'example.com/my-prop'");
  c.spec->extended_resource_name = "kubernetes.io/gpu";
  errs = ValidateDeviceClass(c);
  ASSERT_EQ(errs.size(), 1u) << Dump(errs);
  EXPECT_EQ(errs[0].detail, "must not have \"kubernetes.io/\" domain");
}

TEST(DeviceClassTest, InvalidNameIsReportedAfterSpecErrors) {
  DeviceClass c = Class();
  c.metadata.name = "Bad_Name";
  c.spec->selectors.push_back(DeviceSelector{});
  auto errs = ValidateDeviceClass(c);
  ASSERT_EQ(errs.size(), 2u) << Dump(errs);
  EXPECT_EQ(errs[0].field, "spec.selectors[0].cel");
  EXPECT_EQ(errs[1].ToString(), std::string("metadata.name: Invalid value: \"Bad_Name\": ") + kSubdomainMsg);
}

// ---- ResourceClaim spec ---------------------------------------------------------------------------------------

TEST(ResourceClaimTest, ValidClaim) {
  ResourceClaim c = Claim();
  DeviceRequest fa;
  fa.name = "r1";
  DeviceSubRequest s0;
  s0.name = "s0";
  s0.device_class_name = "gpu";
  DeviceSubRequest s1 = s0;
  s1.name = "s1";
  s1.allocation_mode = "All";
  fa.first_available = {s0, s1};
  Devices(c).requests.push_back(fa);
  Devices(c).constraints.push_back(DeviceConstraint{{"r0", "r1/s0"}, "gpu.example.com/model", std::nullopt});
  Devices(c).config.push_back(DeviceClaimConfiguration{{"r1"}, OpaqueDeviceConfiguration{"gpu.example.com", RawJson("{}")}});
  EXPECT_THAT(ValidateResourceClaim(c), IsEmpty());
}

TEST(ResourceClaimTest, RequestNamesAndDuplicates) {
  ResourceClaim c = Claim();
  Devices(c).requests.push_back(Exact("r0"));
  DeviceRequest bad;
  bad.name = "Bad_Name";
  Devices(c).requests.push_back(bad);
  auto errs = ValidateResourceClaim(c);
  ASSERT_EQ(errs.size(), 3u) << Dump(errs);
  EXPECT_EQ(errs[0].ToString(), std::string("spec.devices.requests[2].name: Invalid value: \"Bad_Name\": ") + kLabelMsg);
  EXPECT_EQ(errs[1].ToString(), "spec.devices.requests[2]: Required value: exactly one of `exactly` or `firstAvailable` is required");
  EXPECT_EQ(errs[2].ToString(),
            "spec.devices.requests[1]: Duplicate value: {\"name\":\"r0\",\"exactly\":{\"deviceClassName\":\"gpu\","
            "\"allocationMode\":\"ExactCount\",\"count\":1}}");
}

TEST(ResourceClaimTest, ExactlyAndFirstAvailableAreExclusive) {
  ResourceClaim c = Claim();
  DeviceSubRequest s;
  s.name = "s";
  s.device_class_name = "gpu";
  Devices(c).requests[0].first_available.push_back(s);
  auto errs = ValidateResourceClaim(c);
  ASSERT_EQ(errs.size(), 1u) << Dump(errs);
  EXPECT_EQ(errs[0].ToString(),
            "spec.devices.requests[0]: Invalid value: null: exactly one of `exactly` or `firstAvailable` is "
            "required, but multiple fields are set");
}

TEST(ResourceClaimTest, DeviceClassName) {
  ResourceClaim c = Claim();
  Devices(c).requests.push_back(Exact("r1", ""));
  Devices(c).requests.push_back(Exact("r2", "Bad_Class"));
  auto errs = ValidateResourceClaim(c);
  ASSERT_EQ(errs.size(), 2u) << Dump(errs);
  EXPECT_EQ(errs[0].ToString(), "spec.devices.requests[1].exactly.deviceClassName: Required value");
  EXPECT_EQ(errs[1].ToString(),
            std::string("spec.devices.requests[2].exactly.deviceClassName: Invalid value: \"Bad_Class\": ") + kSubdomainMsg);
}

TEST(ResourceClaimTest, AllocationModeAndCount) {
  ResourceClaim c = Claim();
  Devices(c).requests.clear();
  DeviceRequest all = Exact("a");
  all.exactly->allocation_mode = "All";
  all.exactly->count = 2;
  DeviceRequest neg = Exact("b");
  neg.exactly->count = -1;
  DeviceRequest bogus = Exact("c");
  bogus.exactly->allocation_mode = "Bogus";
  DeviceRequest zero = Exact("d");
  zero.exactly->count = 0;  // defaulted to 1 by the API server
  Devices(c).requests = {all, neg, bogus, zero};
  auto errs = ValidateResourceClaim(c);
  ASSERT_EQ(errs.size(), 3u) << Dump(errs);
  EXPECT_EQ(errs[0].ToString(), "spec.devices.requests[0].exactly.count: Invalid value: 2: must not be specified when allocationMode is 'All'");
  EXPECT_EQ(errs[1].ToString(), "spec.devices.requests[1].exactly.count: Invalid value: -1: must be greater than zero");
  EXPECT_EQ(errs[2].ToString(),
            "spec.devices.requests[2].exactly.allocationMode: Unsupported value: \"Bogus\": supported values: \"All\", "
            "\"ExactCount\"");
}

TEST(ResourceClaimTest, SubRequests) {
  ResourceClaim c = Claim();
  DeviceRequest r;
  r.name = "r";
  DeviceSubRequest a;
  a.name = "s";
  DeviceSubRequest b;
  b.name = "s";
  b.device_class_name = "Bad_C";
  r.first_available = {a, b};
  Devices(c).requests = {r};
  auto errs = ValidateResourceClaim(c);
  EXPECT_ERROR(errs, "spec.devices.requests[0].firstAvailable[1]", Type::kDuplicate);
  EXPECT_ERROR(errs, "spec.devices.requests[0].firstAvailable[0].deviceClassName", Type::kRequired);
  auto cls = At(errs, "spec.devices.requests[0].firstAvailable[1].deviceClassName");
  ASSERT_EQ(cls.size(), 1u) << Dump(errs);
  // Covered by declarative validation, which words the length limit in bytes.
  EXPECT_EQ(cls[0]->detail, kSubdomainMsg);
}

TEST(ResourceClaimTest, AtMost8SubRequests) {
  ResourceClaim c = Claim();
  DeviceRequest r;
  r.name = "r";
  for (int i = 0; i < 9; ++i) {
    DeviceSubRequest s;
    s.name = "s" + std::to_string(i);
    s.device_class_name = "c";
    r.first_available.push_back(s);
  }
  Devices(c).requests = {r};
  auto errs = ValidateResourceClaim(c);
  ASSERT_EQ(errs.size(), 1u) << Dump(errs);
  EXPECT_EQ(errs[0].ToString(), "spec.devices.requests[0].firstAvailable: Too many: 9: must have at most 8 items");
}

TEST(ResourceClaimTest, AtMost32RequestsConstraintsAndConfigs) {
  ResourceClaim c = Claim();
  Devices(c).requests.clear();
  for (int i = 0; i < 33; ++i) {
    Devices(c).requests.push_back(Exact("r" + std::to_string(i)));
    Devices(c).constraints.push_back(DeviceConstraint{{}, "a.com/b", std::nullopt});
    Devices(c).config.push_back(DeviceClaimConfiguration{{}, OpaqueDeviceConfiguration{"d", RawJson("{}")}});
  }
  auto errs = ValidateResourceClaim(c);
  ASSERT_EQ(errs.size(), 3u) << Dump(errs);
  EXPECT_EQ(errs[0].ToString(), "spec.devices.requests: Too many: 33: must have at most 32 items");
  EXPECT_EQ(errs[1].ToString(), "spec.devices.constraints: Too many: 33: must have at most 32 items");
  EXPECT_EQ(errs[2].ToString(), "spec.devices.config: Too many: 33: must have at most 32 items");
}

TEST(ResourceClaimTest, AtMost32Selectors) {
  ResourceClaim c = Claim();
  for (int i = 0; i < 33; ++i) Devices(c).requests[0].exactly->selectors.push_back(DeviceSelector{CELDeviceSelector{"true"}});
  auto errs = ValidateResourceClaim(c);
  ASSERT_EQ(errs.size(), 1u) << Dump(errs);
  EXPECT_EQ(errs[0].ToString(), "spec.devices.requests[0].exactly.selectors: Too many: 33: must have at most 32 items");
}

TEST(ResourceClaimTest, Tolerations) {
  ResourceClaim c = Claim();
  auto& t = Devices(c).requests[0].exactly->tolerations;
  t.push_back(DeviceToleration{"bad key", "Exists", "v", std::nullopt, std::nullopt});
  t.push_back(DeviceToleration{"k", "Equal", "bad value", "Bogus", std::nullopt});
  t.push_back(DeviceToleration{std::nullopt, "Bogus", std::nullopt, std::nullopt, std::nullopt});
  t.push_back(DeviceToleration{"k", std::nullopt, std::nullopt, "None", 5});  // operator defaults to Equal
  auto errs = ValidateResourceClaim(c);
  const std::string p = "spec.devices.requests[0].exactly.tolerations";
  ASSERT_EQ(errs.size(), 5u) << Dump(errs);
  EXPECT_EQ(errs[0].ToString(), p + "[0].value: Invalid value: \"v\": must be empty for operator `Exists`");
  EXPECT_EQ(errs[1].field, p + "[1].value");
  EXPECT_EQ(errs[2].field, p + "[0].key");
  EXPECT_EQ(errs[3].ToString(), p + "[1].effect: Unsupported value: \"Bogus\": supported values: \"NoExecute\", \"NoSchedule\", \"None\"");
  EXPECT_EQ(errs[4].ToString(), p + "[2].operator: Unsupported value: \"Bogus\": supported values: \"Equal\", \"Exists\"");
}

TEST(ResourceClaimTest, ManyTolerationsAreAllowed) {
  // DeviceTolerationsMaxLength (16) is not enforced by 1.37's validation.
  ResourceClaim c = Claim();
  for (int i = 0; i < 20; ++i) {
    Devices(c).requests[0].exactly->tolerations.push_back(
        DeviceToleration{"k" + std::to_string(i), "Exists", std::nullopt, std::nullopt, std::nullopt});
  }
  EXPECT_THAT(ValidateResourceClaim(c), IsEmpty());
}

TEST(ResourceClaimTest, ConstraintRequestReferences) {
  ResourceClaim c = Claim();
  DeviceRequest r1;
  r1.name = "r1";
  DeviceSubRequest s0;
  s0.name = "s0";
  s0.device_class_name = "gpu";
  r1.first_available = {s0};
  Devices(c).requests.push_back(r1);
  Devices(c).constraints.push_back(
      DeviceConstraint{{"r0", "r0", "r2", "r1/s1", "r0/x", "a/b/c", "r1/s0"}, "example.com/model", std::nullopt});
  auto errs = ValidateResourceClaim(c);
  const std::string p = "spec.devices.constraints[0].requests";
  const std::string msg = "must be the name of a request in the claim or the name of a request and a subrequest separated by '/'";
  ASSERT_EQ(errs.size(), 5u) << Dump(errs);
  EXPECT_EQ(errs[0].ToString(), p + "[2]: Invalid value: \"r2\": " + msg);
  EXPECT_EQ(errs[1].ToString(), p + "[3]: Invalid value: \"r1/s1\": " + msg);
  EXPECT_EQ(errs[2].ToString(), p + "[4]: Invalid value: \"r0/x\": " + msg);
  EXPECT_EQ(errs[3].ToString(), p + "[5]: Invalid value: \"a/b/c\": " + msg);
  EXPECT_EQ(errs[4].ToString(), p + "[1]: Duplicate value: \"r0\"");
}

TEST(ResourceClaimTest, ConstraintAttributes) {
  ResourceClaim c = Claim();
  Devices(c).constraints.push_back(DeviceConstraint{{}, "model", std::nullopt});
  Devices(c).constraints.push_back(DeviceConstraint{{}, "Dom.com/x", std::nullopt});
  Devices(c).constraints.push_back(DeviceConstraint{{}, std::nullopt, "/x"});
  Devices(c).constraints.push_back(DeviceConstraint{});
  Devices(c).constraints.push_back(DeviceConstraint{{}, "a/b/c", std::nullopt});  // accepted in 1.37
  auto errs = ValidateResourceClaim(c);
  ASSERT_EQ(errs.size(), 4u) << Dump(errs);
  EXPECT_EQ(errs[0].ToString(),
            "spec.devices.constraints[3]: Required value: exactly one of \"matchAttribute\" or \"distinctAttribute\" "
            "is required, but multiple fields are set");
  EXPECT_EQ(errs[1].ToString(),
            "spec.devices.constraints[0].matchAttribute: Invalid value: \"model\": a fully qualified name must be a "
            "domain and a name separated by a slash");
  EXPECT_EQ(errs[2].ToString(), std::string("spec.devices.constraints[1].matchAttribute: Invalid value: \"Dom.com\": prefix: ") + kSubdomainMsg);
  EXPECT_EQ(errs[3].ToString(), "spec.devices.constraints[2].distinctAttribute: Invalid value: \"\": prefix must not be empty");
}

DeviceDerivedAttribute Derived(std::string name, std::string expression) {
  DeviceDerivedAttribute a;
  a.name = std::move(name);
  a.expression = std::move(expression);
  return a;
}

TEST(ResourceClaimTest, DerivedAttributesReferencedByConstraints) {
  ResourceClaim c = Claim();
  Devices(c).requests[0].exactly->derived_attributes = {Derived("derived/numa", "device.attributes['a'].numa")};
  DeviceRequest fa;
  fa.name = "r1";
  DeviceSubRequest s0;
  s0.name = "s0";
  s0.device_class_name = "gpu";
  s0.derived_attributes = {Derived("derived/sub", "1"), Derived("derived/parent", "2"),
                           Derived("derived/global", "3")};
  fa.first_available = {s0};
  Devices(c).requests.push_back(fa);
  // By request name, by "request/subrequest", by the parent request, and by a constraint over all.
  Devices(c).constraints.push_back(DeviceConstraint{{"r0"}, "derived/numa", std::nullopt});
  Devices(c).constraints.push_back(DeviceConstraint{{"r1/s0"}, std::nullopt, "derived/sub"});
  Devices(c).constraints.push_back(DeviceConstraint{{"r1"}, "derived/parent", std::nullopt});
  Devices(c).constraints.push_back(DeviceConstraint{{}, "derived/global", std::nullopt});
  EXPECT_THAT(ValidateResourceClaim(c), IsEmpty());

  // A constraint on another request does not count.
  Devices(c).constraints[0].requests = {"r1"};
  auto errs = ValidateResourceClaim(c);
  ASSERT_EQ(errs.size(), 1u) << Dump(errs);
  EXPECT_EQ(errs[0].ToString(),
            "spec.devices.requests[0].exactly.derivedAttributes[0].name: Invalid value: \"derived/numa\": must be "
            "referenced by at least one matchAttribute or distinctAttribute constraint targeting this request");
}

TEST(ResourceClaimTest, DerivedAttributeRules) {
  ResourceClaim c = Claim();
  Devices(c).constraints.push_back(DeviceConstraint{{}, "derived/numa", std::nullopt});
  Devices(c).requests[0].exactly->derived_attributes = {
      Derived("derived/numa", "1"), Derived("derived/numa", "2"), Derived("other.com/x", ""), Derived("", "3"),
      Derived("Bad_Domain/x", "4"), Derived("derived/numa", "   ")};
  auto errs = ValidateResourceClaim(c);
  const std::string p = "spec.devices.requests[0].exactly.derivedAttributes";
  ASSERT_EQ(errs.size(), 8u) << Dump(errs);
  // Hand-written first: each item, then the duplicate names.
  EXPECT_EQ(errs[0].ToString(),
            p + "[2].name: Invalid value: \"other.com/x\": must be referenced by at least one matchAttribute or "
                "distinctAttribute constraint targeting this request");
  EXPECT_EQ(errs[1].ToString(),
            p + "[4].name: Invalid value: \"Bad_Domain/x\": must be referenced by at least one matchAttribute or "
                "distinctAttribute constraint targeting this request");
  // A blank CEL expression does not compile (the message shows the snippet, as for selectors).
  EXPECT_EQ(errs[2].field, p + "[5].expression");
  EXPECT_EQ(errs[2].type, Type::kInvalid);
  EXPECT_EQ(errs[2].value, "\"   \"");
  EXPECT_EQ(errs[3].ToString(), p + "[1]: Duplicate value: \"derived/numa\"");
  EXPECT_EQ(errs[4].ToString(), p + "[5]: Duplicate value: \"derived/numa\"");
  // Then declarative validation: required fields and the fully-qualified-name format.
  EXPECT_EQ(errs[5].ToString(), p + "[2].expression: Required value");
  EXPECT_EQ(errs[6].ToString(), p + "[3].name: Required value");
  EXPECT_EQ(errs[7].ToString(), std::string(p + "[4].name: Invalid value: \"Bad_Domain\": prefix: ") + kSubdomainMsg);
}

TEST(ResourceClaimTest, AtMost32DerivedAttributesPerSubRequest) {
  ResourceClaim c = Claim();
  DeviceRequest fa;
  fa.name = "r1";
  DeviceSubRequest s0;
  s0.name = "s0";
  s0.device_class_name = "gpu";
  for (int i = 0; i < 33; ++i) s0.derived_attributes.push_back(Derived("derived/a", "1"));
  fa.first_available = {s0};
  Devices(c).requests.push_back(fa);
  Devices(c).constraints.push_back(DeviceConstraint{{"r1"}, "derived/a", std::nullopt});
  auto errs = ValidateResourceClaim(c);
  const std::string p = "spec.devices.requests[1].firstAvailable[0].derivedAttributes";
  // The hand-written set check has no size limit and reports the 32 duplicates; the declarative
  // size limit short-circuits its item checks.
  ASSERT_EQ(errs.size(), 33u) << Dump(errs);
  EXPECT_EQ(errs[0].ToString(), p + "[1]: Duplicate value: \"derived/a\"");
  EXPECT_EQ(errs[32].ToString(), p + ": Too many: 33: must have at most 32 items");
}

TEST(ResourceClaimTest, DerivedAttributesInDuplicateRequestValue) {
  // Declarative validation prints a duplicated request as Go's JSON, derivedAttributes included.
  ResourceClaim c = Claim();
  Devices(c).requests[0].exactly->derived_attributes = {Derived("derived/numa", "1")};
  Devices(c).requests.push_back(Devices(c).requests[0]);
  Devices(c).constraints.push_back(DeviceConstraint{{}, "derived/numa", std::nullopt});
  auto errs = ValidateResourceClaim(c);
  ASSERT_EQ(errs.size(), 1u) << Dump(errs);
  EXPECT_EQ(errs[0].ToString(),
            "spec.devices.requests[1]: Duplicate value: {\"name\":\"r0\",\"exactly\":{\"deviceClassName\":\"gpu\","
            "\"allocationMode\":\"ExactCount\",\"count\":1,\"derivedAttributes\":[{\"name\":\"derived/numa\","
            "\"expression\":\"1\"}]}}");
}

TEST(ResourceClaimTest, ClaimConfig) {
  ResourceClaim c = Claim();
  Devices(c).config.push_back(DeviceClaimConfiguration{{"r0", "r0", "nope"}, OpaqueDeviceConfiguration{"", RawJson("{}")}});
  Devices(c).config.push_back(DeviceClaimConfiguration{});
  auto errs = ValidateResourceClaim(c);
  ASSERT_EQ(errs.size(), 4u) << Dump(errs);
  EXPECT_EQ(errs[0].field, "spec.devices.config[0].requests[2]");
  EXPECT_EQ(errs[1].ToString(), "spec.devices.config[1].opaque: Required value");
  EXPECT_EQ(errs[2].ToString(), "spec.devices.config[0].requests[1]: Duplicate value: \"r0\"");
  EXPECT_EQ(errs[3].ToString(), "spec.devices.config[0].opaque.driver: Required value");
}

TEST(ResourceClaimTest, AdminAccessNeedsNamespaceLabel) {
  ResourceClaim c = Claim();
  Devices(c).requests[0].exactly->admin_access = true;
  EXPECT_THAT(ValidateResourceClaim(c), IsEmpty());  // namespace unknown: not checked
  ValidationOptions options;
  options.namespace_labels.emplace();
  auto errs = ValidateResourceClaim(c, options);
  ASSERT_EQ(errs.size(), 1u) << Dump(errs);
  EXPECT_EQ(errs[0].ToString(),
            "spec.devices.requests[0].adminAccess: Forbidden: admin access to devices requires the "
            "`resource.kubernetes.io/admin-access: true` label on the containing namespace");
  options.namespace_labels->Set("resource.kubernetes.io/admin-access", "true");
  EXPECT_THAT(ValidateResourceClaim(c, options), IsEmpty());
}

// ---- ResourceClaim status -----------------------------------------------------------------------------------

TEST(ResourceClaimStatusTest, ValidAllocation) {
  ResourceClaim c = AllocatedClaim();
  c.status->allocation->devices->config.push_back(
      DeviceAllocationConfiguration{"FromClass", {"r0"}, OpaqueDeviceConfiguration{"gpu.example.com", RawJson("{}")}});
  c.status->reserved_for.push_back(ResourceClaimConsumerReference{std::nullopt, "pods", "p", "u1"});
  EXPECT_THAT(ValidateResourceClaim(c), IsEmpty());
}

TEST(ResourceClaimStatusTest, ResultFields) {
  ResourceClaim c = AllocatedClaim();
  auto& results = c.status->allocation->devices->results;
  results.push_back(Result("nope"));
  DeviceRequestAllocationResult driver = Result("r0");
  driver.driver = "Bad_Driver";
  DeviceRequestAllocationResult pool = Result("r0");
  pool.pool = "a//b";
  DeviceRequestAllocationResult share = Result("r0");
  share.share_id = "NOT-A-UUID";
  results.insert(results.end(), {driver, pool, share});
  auto errs = ValidateResourceClaim(c);
  const std::string p = "status.allocation.devices.results";
  ASSERT_EQ(errs.size(), 4u) << Dump(errs);
  EXPECT_EQ(errs[0].field, p + "[1].request");
  EXPECT_EQ(errs[1].field, p + "[2].driver");
  EXPECT_THAT(errs[1].detail, ::testing::StartsWith("an RFC 1123 subdomain"));
  EXPECT_EQ(errs[2].ToString(), p + "[3].pool: Invalid value: \"a//b\": segment 1: must not be empty");
  EXPECT_EQ(errs[3].ToString(), p + "[4].shareID: Invalid value: \"NOT-A-UUID\": must be a lowercase UUID in 8-4-4-4-12 format");
}

TEST(ResourceClaimStatusTest, AtMost32Results) {
  ResourceClaim c = AllocatedClaim();
  for (int i = 1; i < 33; ++i) c.status->allocation->devices->results.push_back(Result("r0", "d" + std::to_string(i)));
  auto errs = ValidateResourceClaim(c);
  ASSERT_EQ(errs.size(), 1u) << Dump(errs);
  EXPECT_EQ(errs[0].ToString(), "status.allocation.devices.results: Too many: 33: must have at most 32 items");
}

TEST(ResourceClaimStatusTest, AllocationConfigSource) {
  ResourceClaim c = AllocatedClaim();
  auto& config = c.status->allocation->devices->config;
  config.push_back(DeviceAllocationConfiguration{std::nullopt, {}, OpaqueDeviceConfiguration{"d.com", RawJson("{}")}});
  config.push_back(DeviceAllocationConfiguration{"Bogus", {}, OpaqueDeviceConfiguration{"d.com", RawJson("{}")}});
  auto errs = ValidateResourceClaim(c);
  ASSERT_EQ(errs.size(), 2u) << Dump(errs);
  EXPECT_EQ(errs[0].ToString(), "status.allocation.devices.config[0].source: Required value");
  EXPECT_EQ(errs[1].ToString(),
            "status.allocation.devices.config[1].source: Unsupported value: \"Bogus\": supported values: \"FromClaim\", \"FromClass\"");
}

TEST(ResourceClaimStatusTest, ReservedForNeedsAllocation) {
  ResourceClaim c = Claim();
  c.status.emplace();
  c.status->reserved_for.push_back(ResourceClaimConsumerReference{std::nullopt, "pods", "p", "u1"});
  c.status->reserved_for.push_back(ResourceClaimConsumerReference{std::nullopt, std::nullopt, std::nullopt, "u1"});
  auto errs = ValidateResourceClaim(c);
  ASSERT_EQ(errs.size(), 4u) << Dump(errs);
  EXPECT_EQ(errs[0].ToString(), "status.reservedFor[1].resource: Required value");
  EXPECT_EQ(errs[1].ToString(), "status.reservedFor[1].name: Required value");
  EXPECT_EQ(errs[2].ToString(), "status.reservedFor: Forbidden: may not be specified when `allocated` is not set");
  EXPECT_EQ(errs[3].ToString(), "status.reservedFor[1]: Duplicate value: {\"resource\":\"\",\"name\":\"\",\"uid\":\"u1\"}");
}

TEST(ResourceClaimStatusTest, AtMost256ReservedFor) {
  ResourceClaim c = AllocatedClaim();
  for (int i = 0; i < 257; ++i) {
    c.status->reserved_for.push_back(ResourceClaimConsumerReference{std::nullopt, "pods", "p", "u" + std::to_string(i)});
  }
  auto errs = ValidateResourceClaim(c);
  ASSERT_EQ(errs.size(), 1u) << Dump(errs);
  EXPECT_EQ(errs[0].ToString(), "status.reservedFor: Too many: 257: must have at most 256 items");
}

TEST(ResourceClaimStatusTest, DeviceStatusMustBeAllocated) {
  ResourceClaim c = AllocatedClaim();
  AllocatedDeviceStatus ok;
  ok.driver = "gpu.example.com";
  ok.pool = "p";
  ok.device = "d0";
  AllocatedDeviceStatus other = ok;
  other.device = "nope";
  c.status->devices = {ok, ok, other};
  auto errs = ValidateResourceClaim(c);
  ASSERT_EQ(errs.size(), 2u) << Dump(errs);
  EXPECT_EQ(errs[0].ToString(),
            "status.devices[2]: Invalid value: {\"Driver\":\"gpu.example.com\",\"Pool\":\"p\",\"Device\":\"nope\","
            "\"ShareID\":\"\"}: must be an allocated device in the claim");
  EXPECT_EQ(errs[1].ToString(),
            "status.devices[1]: Duplicate value: {\"driver\":\"gpu.example.com\",\"pool\":\"p\",\"device\":\"d0\","
            "\"conditions\":null}");
}

TEST(ResourceClaimStatusTest, DeviceStatusNetworkData) {
  ResourceClaim c = AllocatedClaim();
  AllocatedDeviceStatus d;
  d.driver = "gpu.example.com";
  d.pool = "p";
  d.device = "d0";
  d.network_data = NetworkDeviceData{std::string(300, 'x'),
                                     {"10.0.0.1/24", "10.0.0.1/24", "1.2.3.4", "10.0.0.01/8", "2001:db8:0:0::1/64",
                                      "::ffff:10.1.2.3/120"},
                                     std::nullopt};
  c.status->devices.push_back(d);
  auto errs = ValidateResourceClaim(c);
  const std::string p = "status.devices[0].networkData";
  ASSERT_EQ(errs.size(), 6u) << Dump(errs);
  EXPECT_EQ(errs[0].ToString(), p + ".ips[2]: Invalid value: \"1.2.3.4\": must be a valid address in CIDR form, (e.g. 10.9.8.7/24 or 2001:db8::1/64)");
  EXPECT_EQ(errs[1].ToString(), p + ".ips[3]: Invalid value: \"10.0.0.01/8\": must be in canonical form (\"10.0.0.1/8\")");
  EXPECT_EQ(errs[2].ToString(), p + ".ips[4]: Invalid value: \"2001:db8:0:0::1/64\": must be in canonical form (\"2001:db8::1/64\")");
  EXPECT_EQ(errs[3].ToString(), p + ".ips[5]: Invalid value: \"::ffff:10.1.2.3/120\": must be in canonical form (\"10.1.2.3/24\")");
  EXPECT_EQ(errs[4].ToString(), p + ".interfaceName: Too long: may not be more than 256 bytes");
  EXPECT_EQ(errs[5].ToString(), p + ".ips[1]: Duplicate value: \"10.0.0.1/24\"");
}

TEST(ResourceClaimStatusTest, DeviceStatusConditions) {
  ResourceClaim c = AllocatedClaim();
  AllocatedDeviceStatus d;
  d.driver = "gpu.example.com";
  d.pool = "p";
  d.device = "d0";
  d.conditions.push_back(Condition{"Ready", "Maybe", std::nullopt, std::nullopt, "1bad", "m"});
  d.conditions.push_back(Condition{"Ready", "True", std::nullopt, "2024-01-01T00:00:00Z", "Ok", std::nullopt});
  d.data = RawJson("[1]");
  c.status->devices.push_back(d);
  auto errs = ValidateResourceClaim(c);
  const std::string p = "status.devices[0]";
  ASSERT_EQ(errs.size(), 5u) << Dump(errs);
  EXPECT_EQ(errs[0].ToString(), p + ".conditions[0].status: Unsupported value: \"Maybe\": supported values: \"False\", \"True\", \"Unknown\"");
  EXPECT_EQ(errs[1].ToString(), p + ".conditions[0].lastTransitionTime: Required value");
  EXPECT_EQ(errs[2].field, p + ".conditions[0].reason");
  EXPECT_EQ(errs[3].ToString(), p + ".conditions[1]: Duplicate value: \"Ready\"");
  EXPECT_EQ(errs[4].ToString(), p + ".data: Invalid value: \"<value omitted>\": must be a valid JSON object");
}

TEST(ResourceClaimStatusTest, AllocationNodeSelector) {
  ResourceClaim c = AllocatedClaim();
  NodeSelector sel;
  NodeSelectorTerm t;
  t.match_fields.push_back({"metadata.uid", "In", {"a", "b"}});
  sel.node_selector_terms.push_back(t);
  c.status->allocation->node_selector = sel;
  auto errs = ValidateResourceClaim(c);
  ASSERT_EQ(errs.size(), 2u) << Dump(errs);
  EXPECT_EQ(errs[0].field, "status.allocation.nodeSelector.nodeSelectorTerms[0].matchFields[0].values");
  EXPECT_EQ(errs[1].ToString(),
            "status.allocation.nodeSelector.nodeSelectorTerms[0].matchFields[0].key: Invalid value: \"metadata.uid\": "
            "not a valid field selector key");
}

TEST(ResourceClaimStatusTest, AdminAccessInResultsNeedsNamespaceLabel) {
  ResourceClaim c = AllocatedClaim();
  c.status->allocation->devices->results[0].admin_access = true;
  ValidationOptions options;
  options.namespace_labels.emplace();
  auto errs = ValidateResourceClaim(c, options);
  ASSERT_EQ(errs.size(), 1u) << Dump(errs);
  EXPECT_EQ(errs[0].field, "status.allocation.devices.results[0].adminAccess");
  EXPECT_EQ(errs[0].type, Type::kForbidden);
}

// ---- ResourceClaimTemplate -----------------------------------------------------------------------------------

TEST(ResourceClaimTemplateTest, SpecUnderSpecSpec) {
  ResourceClaimTemplate t;
  t.metadata.name = "t";
  t.metadata.namespace_ = "default";
  t.spec.emplace();
  t.spec->spec.emplace();
  t.spec->spec->devices.emplace();
  t.spec->spec->devices->requests = {Exact("r0"), Exact("r0", "")};
  auto errs = ValidateResourceClaimTemplate(t);
  ASSERT_EQ(errs.size(), 2u) << Dump(errs);
  EXPECT_EQ(errs[0].ToString(), "spec.spec.devices.requests[1].exactly.deviceClassName: Required value");
  EXPECT_EQ(errs[1].ToString(),
            "spec.spec.devices.requests[1]: Duplicate value: {\"name\":\"r0\",\"exactly\":{\"deviceClassName\":\"\","
            "\"allocationMode\":\"ExactCount\",\"count\":1}}");
}

TEST(ResourceClaimTemplateTest, TemplateMetadataAllowsOnlyLabelsAndAnnotations) {
  ResourceClaimTemplate t;
  t.metadata.name = "t";
  t.spec.emplace();
  t.spec->metadata.emplace();
  t.spec->metadata->name = "x";
  t.spec->metadata->labels.Set("bad key", "v");
  t.spec->metadata->annotations.Set("a", "b");
  t.spec->metadata->finalizers = {"a/b"};
  auto errs = ValidateResourceClaimTemplate(t);
  ASSERT_EQ(errs.size(), 3u) << Dump(errs);
  EXPECT_EQ(errs[0].field, "spec.metadata.labels");
  EXPECT_EQ(errs[1].ToString(), "spec.metadata.name: Forbidden: cannot be set");
  EXPECT_EQ(errs[2].ToString(), "spec.metadata.finalizers: Forbidden: cannot be set");
}

// ---- DeviceTaintRule -----------------------------------------------------------------------------------------------

TEST(DeviceTaintRuleTest, Valid) {
  DeviceTaintRule r;
  r.metadata.name = "r";
  r.spec.emplace();
  r.spec->device_selector = DeviceTaintSelector{"gpu.example.com", "pool-a", "dev-0"};
  r.spec->taint = DeviceTaint{"example.com/broken", "true", "NoExecute", std::nullopt};
  EXPECT_THAT(ValidateDeviceTaintRule(r), IsEmpty());
}

TEST(DeviceTaintRuleTest, SelectorAndTaint) {
  DeviceTaintRule r;
  r.metadata.name = "r";
  r.spec.emplace();
  r.spec->device_selector = DeviceTaintSelector{"Bad_D", "a//b", "Bad.Dev"};
  r.spec->taint = DeviceTaint{"bad key", "bad value", "Bogus", std::nullopt};
  auto errs = ValidateDeviceTaintRule(r);
  ASSERT_EQ(errs.size(), 6u) << Dump(errs);
  EXPECT_EQ(errs[0].field, "spec.deviceSelector.driver");
  EXPECT_EQ(errs[1].field, "spec.deviceSelector.pool");
  EXPECT_EQ(errs[2].ToString(), std::string("spec.deviceSelector.device: Invalid value: \"Bad.Dev\": ") + kLabelMsg);
  EXPECT_EQ(errs[3].field, "spec.taint.key");
  EXPECT_EQ(errs[4].field, "spec.taint.value");
  EXPECT_EQ(errs[5].ToString(), "spec.taint.effect: Unsupported value: \"Bogus\": supported values: \"NoExecute\", \"NoSchedule\", \"None\"");
}

TEST(DeviceTaintRuleTest, EmptySpec) {
  DeviceTaintRule r;
  r.metadata.name = "r";
  auto errs = ValidateDeviceTaintRule(r);
  ASSERT_EQ(errs.size(), 3u) << Dump(errs);
  EXPECT_EQ(errs[0].ToString(), "spec.taint.key: Invalid value: \"\": name part must be non-empty");
  EXPECT_EQ(errs[1].field, "spec.taint.key");
  EXPECT_EQ(errs[2].ToString(), "spec.taint.effect: Required value");
}

TEST(DeviceTaintRuleTest, StatusConditionsAtMost8) {
  DeviceTaintRule r;
  r.metadata.name = "r";
  r.spec.emplace();
  r.spec->taint = DeviceTaint{"k", std::nullopt, "NoSchedule", std::nullopt};
  r.status.emplace();
  for (int i = 0; i < 9; ++i) {
    r.status->conditions.push_back(Condition{"T" + std::to_string(i), "True", std::nullopt, "2024-01-01T00:00:00Z", "R", std::nullopt});
  }
  auto errs = ValidateDeviceTaintRule(r);
  ASSERT_EQ(errs.size(), 1u) << Dump(errs);
  EXPECT_EQ(errs[0].ToString(), "status.conditions: Too many: 9: must have at most 8 items");
}

// ---- Validate(Object) and FormatInvalid ----------------------------------------------------------------------

TEST(ValidateObjectTest, DispatchesOnKind) {
  Object o;
  o.api_version = "resource.k8s.io/v1";
  ResourceSlice s = Slice();
  s.spec->driver.reset();
  o.value = s;
  auto errs = Validate(o);
  ASSERT_EQ(errs.size(), 1u);
  EXPECT_EQ(errs[0].field, "spec.driver");
  Object pod;
  pod.value = Pod{};
  EXPECT_THAT(Validate(pod), IsEmpty());
}

TEST(FormatInvalidTest, SingleErrorHasNoBrackets) {
  Object o;
  ResourceSlice s = Slice();
  s.spec->driver.reset();
  o.value = s;
  EXPECT_EQ(FormatInvalid(o, Validate(o)), "ResourceSlice.resource.k8s.io \"slice-1\" is invalid: spec.driver: Required value");
}

TEST(FormatInvalidTest, SeveralErrorsInBracketsAndRepeatsOnce) {
  std::vector<FieldError> errs = {
      {"spec.a", Type::kRequired, "", ""},
      {"spec.b", Type::kInvalid, "1", "bad"},
      {"spec.a", Type::kRequired, "", ""},
  };
  EXPECT_EQ(FormatInvalid("ResourceClaim", "resource.k8s.io", "c", errs),
            "ResourceClaim.resource.k8s.io \"c\" is invalid: [spec.a: Required value, spec.b: Invalid value: 1: bad]");
  EXPECT_EQ(FormatInvalid("ResourceClaim", "resource.k8s.io", "c", {}), "");
}

TEST(FormatInvalidTest, MatchesApiServerForSliceWithSeveralErrors) {
  ResourceSlice s = Slice();
  s.metadata.name = "s1";
  s.spec->driver = "Foo_Bar";
  s.spec->pool = ResourcePool{"a//b", -1, 0};
  s.spec->all_nodes = true;
  Device d = Dev("dev0");
  d.attributes.Set("a", DeviceAttribute{});
  s.spec->devices = {d, Dev("dev0")};
  Object o;
  o.value = s;
  EXPECT_EQ(
      FormatInvalid(o, Validate(o)),
      std::string("ResourceSlice.resource.k8s.io \"s1\" is invalid: [spec.driver: Invalid value: \"Foo_Bar\": ") +
          kSubdomainMsg + ", spec.pool.name: Invalid value: \"\": " + kSubdomainMsg +
          ", spec.pool.resourceSliceCount: Invalid value: 0: must be greater than zero, spec.pool.generation: Invalid "
          "value: -1: must be greater than or equal to zero, spec: Invalid value: \"{`nodeName`, `allNodes`}\": "
          "exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required, but multiple "
          "fields are set, spec.devices[1]: Duplicate value: \"dev0\", spec.devices[0].attributes[a]: Invalid value: "
          "\"\": must specify one of: `int`, `bool`, `string`, `version`, `ints`, `bools`, `strings`, `versions`]");
}

}  // namespace
}  // namespace draforge::api
