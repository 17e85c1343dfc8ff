// The CEL and CDI calls `draforge cel` and `draforge cdi` need beyond compiling a selector and
// generating specs: outcomes as results, slices, referenced names, costs; directory sync, audit and
// validation. Through the C ABI (draforge/draforge.h) and, where noted, the C++ API.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include "draforge/draforge.hpp"
#include "fixtures.h"
#include "rapidjson/document.h"

namespace {

using ::testing::HasSubstr;

using draforge_test::Take;

constexpr char kSlice[] = R"({"apiVersion":"resource.k8s.io/v1","kind":"ResourceSlice","metadata":{"name":"s"},
  "spec":{"driver":"gpu.example.com","nodeName":"node-1","pool":{"name":"node-1","generation":1,"resourceSliceCount":1},
  "devices":[{"name":"gpu-0","attributes":{"model":{"string":"a100"}}},{"name":"gpu-1"}]}})";

TEST(CApiCelMore, SelectorLimitsAreKubernetes) {
  EXPECT_EQ(DRAFORGE_CEL_SELECTOR_MAX_COST, 1000000);
  EXPECT_EQ(DRAFORGE_CEL_SELECTOR_MAX_EXPRESSION_LENGTH, 10 * 1024);
}

TEST(CApiCelMore, SliceEvaluationReportsEachDeviceAndWhatItHas) {
  draforge_cel_selector* sel = nullptr;
  draforge_error* e = nullptr;
  ASSERT_EQ(draforge_cel_selector_compile(&sel, "device.attributes['gpu.example.com'].model == 'a100'", nullptr, &e),
            DRAFORGE_OK)
      << draforge_error_message(e);
  draforge_buffer b = {nullptr, 0};
  ASSERT_EQ(draforge_cel_selector_evaluate_slice(&b, sel, kSlice, std::strlen(kSlice), &e), DRAFORGE_OK)
      << draforge_error_message(e);
  const std::string report = Take(b);
  EXPECT_THAT(report, HasSubstr("\"driver\":\"gpu.example.com\",\"pool\":\"node-1\""));
  EXPECT_THAT(report, HasSubstr("{\"name\":\"gpu-0\",\"matches\":true,"));
  // gpu-1 has no model: a runtime error, reported as a result, and the reference is absent.
  EXPECT_THAT(report, HasSubstr("{\"name\":\"gpu-1\",\"runtimeError\":\"no such key: model\",\"references\":[false]}"));
  ASSERT_EQ(draforge_cel_selector_references_json(&b, sel, nullptr), DRAFORGE_OK);
  EXPECT_EQ(Take(b), "[{\"kind\":\"attribute\",\"domain\":\"gpu.example.com\",\"name\":\"model\","
                     "\"qualifiedName\":\"gpu.example.com/model\"}]");
  // A slice that is not a ResourceSlice is an error.
  const char klass[] = R"({"apiVersion":"resource.k8s.io/v1","kind":"DeviceClass","metadata":{"name":"c"}})";
  EXPECT_EQ(draforge_cel_selector_evaluate_slice(&b, sel, klass, sizeof klass - 1, &e), DRAFORGE_EINVALID);
  draforge_error_destroy(e);
  draforge_cel_selector_destroy(sel);
}

TEST(CApiCelMore, OneDeviceOutcomeAsJson) {
  auto sel = draforge::CelSelector::Compile("device.attributes['gpu.example.com'].model == 'a100'");
  ASSERT_TRUE(sel.ok());
  auto yes = sel->EvaluateJson(R"({"driver":"gpu.example.com","attributes":{"model":{"string":"a100"}}})");
  ASSERT_TRUE(yes.ok());
  EXPECT_THAT(*yes, HasSubstr("\"matches\":true"));
  auto missing = sel->EvaluateJson(R"({"driver":"gpu.example.com"})");
  ASSERT_TRUE(missing.ok());
  EXPECT_EQ(*missing, "{\"runtimeError\":\"no such key: model\"}");
  auto bad = sel->EvaluateJson(R"({"driver":"gpu.example.com","attributes":7})");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.error().message, HasSubstr("device: "));
}

TEST(CApiCelMore, DeviceFromYamlOrJson) {
  auto yaml = draforge::CelParseDevice("driver: gpu.example.com\nattributes:\n  model: {string: a100}\n");
  ASSERT_TRUE(yaml.ok()) << yaml.error().message;
  auto sel = draforge::CelSelector::Compile("device.attributes['gpu.example.com'].model == 'a100'");
  ASSERT_TRUE(sel.ok());
  auto m = sel->Evaluate(*yaml);
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_TRUE(m->matches);
  EXPECT_TRUE(draforge::CelParseDevice(R"({"driver":"d","attributes":{}})").ok());
  auto two = draforge::CelParseDevice("driver: a\n---\ndriver: b\n");
  ASSERT_FALSE(two.ok());
  EXPECT_EQ(two.error().message, "expected one device, found 2 documents");
  auto no_driver = draforge::CelParseDevice("{\"attributes\":{}}");
  ASSERT_FALSE(no_driver.ok());
  EXPECT_EQ(no_driver.error().message, "missing \"driver\"");
  EXPECT_EQ(draforge::CelParseDevice("[1]").error().code, DRAFORGE_EINVALID);
}

TEST(CApiCelMore, EvaluateJsonTellsCompileFromRuntimeErrors) {
  draforge_buffer b = {nullptr, 0};
  ASSERT_EQ(draforge_cel_evaluate_json(&b, "1 + 2", nullptr, nullptr), DRAFORGE_OK);
  EXPECT_THAT(Take(b), HasSubstr("\"value\":\"3\",\"type\":\"int\""));
  ASSERT_EQ(draforge_cel_evaluate_json(&b, "1 +", nullptr, nullptr), DRAFORGE_OK);
  EXPECT_THAT(Take(b), HasSubstr("{\"compileError\":\""));
  ASSERT_EQ(draforge_cel_evaluate_json(&b, "1 / 0", nullptr, nullptr), DRAFORGE_OK);
  EXPECT_THAT(Take(b), HasSubstr("{\"runtimeError\":\""));
}

TEST(CApiCelMore, CostEstimates) {
  uint64_t cost = 0;
  draforge_error* e = nullptr;
  ASSERT_EQ(draforge_cel_estimate_cost(&cost, "device.driver == 'x'", nullptr, &e), DRAFORGE_OK);
  EXPECT_GT(cost, 0u);
  EXPECT_EQ(draforge_cel_estimate_cost(&cost, "device.driver ==", nullptr, &e), DRAFORGE_EINVALID);
  draforge_error_destroy(e);
  // Over the int64 range the saturated estimate and the unsaturated one part ways.
  const char* expensive =
      "device.attributes.all(d, device.attributes.all(e, device.attributes.all(f, device.attributes.all(g, "
      "device.attributes.all(h, d.matches('x') && e.matches('y') && f.matches('z') && g.matches('w') && "
      "h.matches('v'))))))";
  auto sel = draforge::CelSelector::Compile(expensive);
  ASSERT_TRUE(sel.ok()) << sel.error().message;
  auto any = draforge::CelEstimateCost(expensive);
  ASSERT_TRUE(any.ok());
  EXPECT_EQ(sel->estimated_cost_uint64(), *any);
  if (sel->estimated_cost() == INT64_MAX) {
    EXPECT_GT(sel->estimated_cost_uint64(), uint64_t{INT64_MAX});
  } else {
    EXPECT_EQ(sel->estimated_cost_uint64(), static_cast<uint64_t>(sel->estimated_cost()));
  }
}

class CApiCdiDir : public draforge_test::CdiFixture {
 protected:
  std::string Audit(const draforge_cdi_options* o) {
    draforge_buffer b = {nullptr, 0};
    draforge_error* e = nullptr;
    const int rc = draforge_cdi_audit(&b, snapshot_, "node-1", dir_.c_str(), o, &e);
    EXPECT_EQ(rc, DRAFORGE_OK) << (e ? draforge_error_message(e) : "");
    draforge_error_destroy(e);
    return Take(b);
  }
};

TEST_F(CApiCdiDir, SyncThenAuditIsInSyncAndOtherRulesWantOtherFiles) {
  draforge_cdi_options o = DRAFORGE_CDI_OPTIONS_INIT;
  o.cdi_class = "sim";
  draforge_cdi_specs* specs = nullptr;
  ASSERT_EQ(draforge_cdi_generate(&specs, snapshot_, "node-1", &o, nullptr), DRAFORGE_OK);
  draforge_buffer b = {nullptr, 0};
  ASSERT_EQ(draforge_cdi_specs_json(&b, specs, nullptr), DRAFORGE_OK);
  EXPECT_THAT(Take(b), HasSubstr("k8s.gpu.example.com/sim="));  // the class option reaches the kind
  // Before the sync: the claim's file is missing.
  EXPECT_THAT(Audit(&o), HasSubstr("\"status\":\"missing\""));
  ASSERT_EQ(draforge_cdi_specs_sync(&b, specs, dir_.c_str(), nullptr), DRAFORGE_OK);
  const std::string file = draforge_cdi_specs_file_name(specs, 0);
  EXPECT_THAT(Take(b), HasSubstr("\"written\":[\"" + file + "\"]"));
  EXPECT_THAT(Audit(&o), HasSubstr("\"inSync\":[\"" + file + "\"],\"findings\":[]"));
  // Judged by other rules (another vendor, so another file name), the claim's file is missing.
  draforge_cdi_options other = DRAFORGE_CDI_OPTIONS_INIT;
  other.cdi_class = "sim";
  other.vendor = "example.com";
  EXPECT_THAT(Audit(&other), HasSubstr("\"status\":\"missing\""));
  draforge_cdi_specs_destroy(specs);

  // The directory as a runtime reads it: one valid file.
  draforge_error* e = nullptr;
  ASSERT_EQ(draforge_cdi_validate_directory(&b, dir_.c_str(), nullptr, &e), DRAFORGE_OK) << draforge_error_message(e);
  EXPECT_EQ(Take(b), "[{\"file\":\"" + file + "\",\"problems\":[]}]");
  int valid = 0;
  ASSERT_EQ(draforge_cdi_validate_file(&valid, &b, (dir_ + "/" + file).c_str(), nullptr, nullptr), DRAFORGE_OK);
  EXPECT_EQ(valid, 1);
  EXPECT_EQ(Take(b), "[]");
}

TEST_F(CApiCdiDir, MissingPathsAreNotFound) {
  draforge_buffer b = {nullptr, 0};
  draforge_error* e = nullptr;
  const std::string missing = dir_ + "/nope";
  EXPECT_EQ(draforge_cdi_validate_directory(&b, missing.c_str(), nullptr, &e), DRAFORGE_ENOTFOUND);
  draforge_error_destroy(e);
  e = nullptr;
  int valid = 1;
  EXPECT_EQ(draforge_cdi_validate_file(&valid, &b, missing.c_str(), nullptr, &e), DRAFORGE_ENOTFOUND);
  EXPECT_EQ(std::string(draforge_error_message(e)), "cannot open " + missing);
  EXPECT_EQ(valid, 0);
  draforge_error_destroy(e);
}

// A directory the operating system refuses (here ENOTDIR: a path through a regular file) is
// DRAFORGE_EIO naming the path, not DRAFORGE_EINTERNAL, which says "a bug in DRAForge".
TEST_F(CApiCdiDir, ADirectoryTheSystemRefusesIsAnIoError) {
  draforge_cdi_specs* specs = nullptr;
  ASSERT_EQ(draforge_cdi_generate(&specs, snapshot_, "node-1", nullptr, nullptr), DRAFORGE_OK);
  ASSERT_EQ(draforge_cdi_specs_count(specs), 1u);
  const std::string file = dir_ + "/a-file";
  std::ofstream(file) << "x";
  const std::string through_file = file + "/cdi";
  draforge_error* e = nullptr;
  EXPECT_EQ(draforge_cdi_specs_write(specs, through_file.c_str(), nullptr, &e), DRAFORGE_EIO);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(draforge_error_code_of(e), DRAFORGE_EIO);
  EXPECT_THAT(draforge_error_message(e), HasSubstr(through_file));
  draforge_error_destroy(e);
  draforge_cdi_specs_destroy(specs);
}

TEST(CApiCdiOptions, Version1CallersAndTheMacroAgree) {
  const draforge_cdi_options by_macro = DRAFORGE_CDI_OPTIONS_INIT;
  draforge_cdi_options by_call;
  std::memset(&by_call, 0xAB, sizeof by_call);
  ASSERT_EQ(draforge_cdi_options_init(&by_call, DRAFORGE_CDI_OPTIONS_VERSION), DRAFORGE_OK);
  EXPECT_EQ(by_call.vendor, by_macro.vendor);
  EXPECT_EQ(by_call.cdi_class, by_macro.cdi_class);
  EXPECT_EQ(by_call.metadata_dir, by_macro.metadata_dir);
  // A version 1 caller's struct ends before vendor: init writes nothing past it.
  std::memset(&by_call, 0xAB, sizeof by_call);
  ASSERT_EQ(draforge_cdi_options_init(&by_call, 1), DRAFORGE_OK);
  EXPECT_EQ(by_call.version, 1u);
  unsigned char after[sizeof(void*)];
  std::memcpy(after, &by_call.vendor, sizeof after);
  for (unsigned char c : after) EXPECT_EQ(c, 0xAB);
}

TEST(CApiCdiOptions, KnownVersionsOldestFirst) {
  auto v = draforge::CdiKnownVersionsJson();
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(v->rfind("[\"0.1.0\",", 0), 0u) << *v;
  EXPECT_THAT(*v, HasSubstr("\"0.5.0\""));
}

// One claim at a time, as a node plugin prepares what the kubelet names: the same file and document
// as the node's specs, the devices kubelet gets back, and the claim's problems as errors naming it.
class CApiCdiClaim : public draforge_test::CdiFixture {
 protected:
  std::string ClaimJson() {
    draforge_buffer b = {nullptr, 0};
    EXPECT_EQ(draforge_snapshot_get_json(&b, snapshot_, "ResourceClaim", "team-a", "train", nullptr), DRAFORGE_OK);
    return Take(b);
  }
  // The code and message of draforge_cdi_claim_spec_json for `claim` on `node`.
  std::pair<int, std::string> ClaimError(const std::string& claim, const char* node,
                                         const char* driver = "gpu.example.com") {
    draforge_buffer b = {nullptr, 0};
    draforge_error* e = nullptr;
    const int rc = draforge_cdi_claim_spec_json(&b, claim.data(), claim.size(), node, driver, nullptr, &e);
    std::string message = e != nullptr ? draforge_error_message(e) : "";
    draforge_error_destroy(e);
    draforge_buffer_dispose(&b);
    return {rc, message};
  }
  // The claim with `from` replaced by `to` once.
  std::string Edited(const std::string& from, const std::string& to) {
    std::string c = ClaimJson();
    const size_t at = c.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    if (at != std::string::npos) c.replace(at, from.size(), to);
    return c;
  }
};

TEST_F(CApiCdiClaim, OneClaimsSpecIsTheNodesSpecOfThatClaimWithItsDevices) {
  auto one = draforge::CdiClaimSpecJson(ClaimJson(), "node-1", "gpu.example.com");
  ASSERT_TRUE(one.ok()) << one.error().message;
  rapidjson::Document d;
  ASSERT_FALSE(d.Parse(one->c_str()).HasParseError()) << *one;

  draforge_cdi_specs* specs = nullptr;
  ASSERT_EQ(draforge_cdi_generate(&specs, snapshot_, "node-1", nullptr, nullptr), DRAFORGE_OK);
  ASSERT_EQ(draforge_cdi_specs_count(specs), 1u);
  draforge_buffer doc = {nullptr, 0};
  ASSERT_EQ(draforge_cdi_specs_document(&doc, specs, 0, nullptr), DRAFORGE_OK);
  const std::string node_document = Take(doc);
  const std::string node_file = draforge_cdi_specs_file_name(specs, 0);
  draforge_cdi_specs_destroy(specs);

  EXPECT_STREQ(d["claim"].GetString(), "team-a/train");
  EXPECT_STREQ(d["claimUID"].GetString(), "6f1c7c4e-0000-4000-8000-000000000001");
  EXPECT_EQ(d["fileName"].GetString(), node_file);
  EXPECT_EQ(d["document"].GetString(), node_document);
  // One device per allocation result, in result order, as NodePrepareResources returns them.
  EXPECT_THAT(*one, HasSubstr(
      "\"devices\":[{\"requests\":[\"gpus\"],\"pool\":\"node-1\",\"device\":\"gpu-0\",\"cdiDeviceIDs\":"
      "[\"k8s.gpu.example.com/draforge=6f1c7c4e-0000-4000-8000-000000000001-gpu-0\"]},{\"requests\":[\"gpus\"],"
      "\"pool\":\"node-1\",\"device\":\"gpu-1\",\"cdiDeviceIDs\":"
      "[\"k8s.gpu.example.com/draforge=6f1c7c4e-0000-4000-8000-000000000001-gpu-1\"]}]"));
}

TEST_F(CApiCdiClaim, AClaimForAnotherNodeNamesBothNodesAndTheClaim) {
  auto [rc, message] = ClaimError(ClaimJson(), "node-2");
  EXPECT_EQ(rc, DRAFORGE_EUNSUPPORTED);
  EXPECT_THAT(message, HasSubstr("ResourceClaim team-a/train (uid 6f1c7c4e-0000-4000-8000-000000000001): "
                                 "allocated for node \"node-1\""));
  EXPECT_THAT(message, HasSubstr("not for node \"node-2\""));
}

TEST_F(CApiCdiClaim, UnallocatedOtherDriverAndNotAClaimAreErrors) {
  auto [rc, message] = ClaimError(ClaimJson(), "node-1", "nic.example.com");
  EXPECT_EQ(rc, DRAFORGE_EUNSUPPORTED);
  EXPECT_THAT(message, HasSubstr("no device of driver \"nic.example.com\""));

  std::string unallocated = ClaimJson();
  unallocated = unallocated.substr(0, unallocated.find(",\"status\"")) + "}";
  std::tie(rc, message) = ClaimError(unallocated, "node-1");
  EXPECT_EQ(rc, DRAFORGE_EUNSUPPORTED) << unallocated;
  EXPECT_THAT(message,
              HasSubstr("ResourceClaim team-a/train (uid 6f1c7c4e-0000-4000-8000-000000000001): not allocated"));

  std::tie(rc, message) = ClaimError(Edited("\"pool\":\"node-1\"", "\"pool\":\"\""), "node-1");
  EXPECT_EQ(rc, DRAFORGE_EINVALID);
  EXPECT_THAT(message,
              HasSubstr("(uid 6f1c7c4e-0000-4000-8000-000000000001): status.allocation.devices.results[0].pool"));

  std::tie(rc, message) = ClaimError(draforge_test::kNode1Gpus, "node-1");
  EXPECT_EQ(rc, DRAFORGE_EINVALID);
}

TEST_F(CApiCdiClaim, NodeSpecListsTheNodesDevicesOfTheDriverUnderItsOwnName) {
  auto spec = draforge::CdiNodeSpecJson(draforge::Snapshot::Adopt(snapshot_), "node-1", "gpu.example.com");
  snapshot_ = nullptr;  // adopted
  ASSERT_TRUE(spec.ok()) << spec.error().message;
  rapidjson::Document d;
  ASSERT_FALSE(d.Parse(spec->c_str()).HasParseError()) << *spec;
  EXPECT_STREQ(d["fileName"].GetString(), "k8s.gpu.example.com-draforge.json");
  const std::string document = d["document"].GetString();
  rapidjson::Document spec_doc;
  ASSERT_FALSE(spec_doc.Parse(document.c_str()).HasParseError()) << document;
  EXPECT_STREQ(spec_doc["kind"].GetString(), "k8s.gpu.example.com/draforge");
  const rapidjson::Value& devices = spec_doc["devices"];
  ASSERT_EQ(devices.Size(), 2u);
  EXPECT_STREQ(devices[0]["name"].GetString(), "gpu-0");
  EXPECT_STREQ(devices[0]["containerEdits"]["env"][0].GetString(),
               "DRAFORGE_DEVICE_GPU_0=gpu.example.com/node-1/gpu-0");
  EXPECT_STREQ(devices[1]["name"].GetString(), "gpu-1");
  auto valid = draforge::CdiValidate(document, draforge::Format::kJson);
  ASSERT_TRUE(valid.ok());
  EXPECT_TRUE(valid->valid) << valid->problems_json;
}

TEST_F(CApiCdiClaim, NodeSpecOfANodeWithoutDevicesIsNotFound) {
  draforge_buffer b = {nullptr, 0};
  draforge_error* e = nullptr;
  EXPECT_EQ(draforge_cdi_node_spec_json(&b, snapshot_, "node-9", "gpu.example.com", nullptr, &e), DRAFORGE_ENOTFOUND);
  ASSERT_NE(e, nullptr);
  EXPECT_THAT(draforge_error_message(e), HasSubstr("node \"node-9\" has no device of driver \"gpu.example.com\""));
  draforge_error_destroy(e);
}

TEST_F(CApiCdiClaim, SpecFileWriteIsValidatedIdempotentAndRemovable) {
  auto one = draforge::CdiClaimSpecJson(ClaimJson(), "node-1", "gpu.example.com");
  ASSERT_TRUE(one.ok());
  rapidjson::Document d;
  d.Parse(one->c_str());
  const std::string file = d["fileName"].GetString();
  const std::string document = d["document"].GetString();
  const std::string dir = dir_ + "/made/by/write";  // missing parents are created

  auto first = draforge::CdiSpecFileWrite(dir, file, document);
  ASSERT_TRUE(first.ok()) << first.error().message;
  EXPECT_TRUE(*first);
  std::ifstream in(dir + "/" + file);
  const std::string on_disk((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(on_disk, document);
  auto again = draforge::CdiSpecFileWrite(dir, file, document);
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(*again) << "the same bytes are not written again";

  // An invalid document is refused and the file stays.
  auto bad = draforge::CdiSpecFileWrite(
      dir, file, R"({"cdiVersion":"0.5.0","kind":"k8s.gpu.example.com/draforge","devices":[]})");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, DRAFORGE_EINVALID);
  EXPECT_THAT(bad.error().message, HasSubstr(file));
  EXPECT_TRUE(std::filesystem::exists(dir + "/" + file));

  auto path = draforge::CdiSpecFileRemove(dir, "../" + file);
  ASSERT_FALSE(path.ok());
  EXPECT_EQ(path.error().code, DRAFORGE_EINVALID);
  ASSERT_TRUE(draforge::CdiSpecFileRemove(dir, file).ok());
  EXPECT_FALSE(std::filesystem::exists(dir + "/" + file));
  EXPECT_TRUE(draforge::CdiSpecFileRemove(dir, file).ok()) << "removing a missing file is success";
}

}  // namespace
