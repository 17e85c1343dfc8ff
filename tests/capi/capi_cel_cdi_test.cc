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

}  // namespace
