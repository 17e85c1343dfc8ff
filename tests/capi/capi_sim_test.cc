// Simulated device pools through the public surface (draforge/draforge.hpp over sim.h): profiles,
// expansion, faults and scenario plans, as `draforge sim|fault|scenario` use them.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "draforge/draforge.hpp"
#include "rapidjson/document.h"

namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kPool[] = R"({"apiVersion":"sim.draforge.io/v1alpha1","kind":"SimulatedDevicePool",
  "metadata":{"name":"gpus","labels":{"team":"a"}},
  "spec":{"profile":"example-gpu","nodes":{"names":["node-1","node-2"]},"devicesPerNode":2}})";

rapidjson::Document Parse(const std::string& json) {
  rapidjson::Document d;
  d.Parse(json.c_str());
  EXPECT_FALSE(d.HasParseError()) << json;
  return d;
}

TEST(CApiSim, ConstantsNameTheCustomResource) {
  EXPECT_STREQ(DRAFORGE_SIM_API_VERSION, DRAFORGE_SIM_GROUP "/" DRAFORGE_SIM_VERSION);
  EXPECT_STREQ(DRAFORGE_SIM_KIND, "SimulatedDevicePool");
  EXPECT_STREQ(DRAFORGE_SIM_RESOURCE, "simulateddevicepools");
  EXPECT_STREQ(DRAFORGE_SIM_SCENARIO_LABEL, "sim.draforge.io/scenario");
}

TEST(CApiSim, ProfilesAndFaultTypes) {
  auto profiles = draforge::SimProfilesJson();
  ASSERT_TRUE(profiles.ok()) << profiles.error().message;
  const rapidjson::Document p = Parse(*profiles);
  ASSERT_TRUE(p.IsArray());
  bool found = false;
  for (const auto& item : p.GetArray()) {
    if (std::string(item["name"].GetString()) != "example-gpu") continue;
    found = true;
    EXPECT_STREQ(item["driver"].GetString(), "gpu.example.com");
    EXPECT_GT(item["defaultDevicesPerNode"].GetInt64(), 0);
    EXPECT_TRUE(item["options"].IsArray());
  }
  EXPECT_TRUE(found) << *profiles;
  auto types = draforge::SimFaultTypesJson();
  ASSERT_TRUE(types.ok());
  EXPECT_THAT(*types, HasSubstr("\"taint\""));
  EXPECT_THAT(*types, HasSubstr("\"binding-failure\""));
}

TEST(CApiSim, CheckPoolNamesTheField) {
  EXPECT_TRUE(draforge::SimCheckPool(kPool).ok());
  auto bad = draforge::SimCheckPool(
      R"({"apiVersion":"sim.draforge.io/v1alpha1","kind":"SimulatedDevicePool","metadata":{"name":"x"},)"
      R"("spec":{"profile":"example-gpu","nodes":{"names":["n"]},"devicesPerNode":"two"}})");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, DRAFORGE_EINVALID);
  EXPECT_THAT(bad.error().message, HasSubstr("devicesPerNode"));
}

TEST(CApiSim, ExpandPublishesOnePoolPerNode) {
  auto expanded = draforge::SimExpand(std::string("[") + kPool + "]");
  ASSERT_TRUE(expanded.ok()) << expanded.error().message;
  const rapidjson::Document d = Parse(*expanded);
  ASSERT_EQ(d["pools"].Size(), 2u);
  EXPECT_STREQ(d["pools"][0]["pool"].GetString(), "node-1");
  EXPECT_STREQ(d["pools"][0]["driver"].GetString(), "gpu.example.com");
  ASSERT_EQ(d["slices"].Size(), 2u);
  const auto& slice = d["slices"][0];
  EXPECT_STREQ(slice["apiVersion"].GetString(), "resource.k8s.io/v1");
  EXPECT_STREQ(slice["spec"]["nodeName"].GetString(), "node-1");
  EXPECT_EQ(slice["spec"]["devices"].Size(), 2u);
  EXPECT_STREQ(slice["metadata"]["labels"][DRAFORGE_SIM_POOL_LABEL].GetString(), "gpus");
  // The same input gives the same bytes.
  EXPECT_EQ(*draforge::SimExpand(std::string("[") + kPool + "]"), *expanded);
}

TEST(CApiSim, ExpandRefusesTwoObjectsPublishingTheSamePool) {
  auto r = draforge::SimExpand(std::string("[") + kPool + "," + kPool + "]");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, DRAFORGE_EINVALID);
  auto not_array = draforge::SimExpand(kPool);
  ASSERT_FALSE(not_array.ok());
  EXPECT_THAT(not_array.error().message, HasSubstr("JSON array"));
}

TEST(CApiSim, TickDrivesFlapFaults) {
  auto flapping = draforge::SimInjectFault(kPool, R"({"name":"f","type":"flap","nodes":["node-1"],"period":1})");
  ASSERT_TRUE(flapping.ok()) << flapping.error().message;
  const std::string pools = "[" + *flapping + "]";
  auto even = draforge::SimExpand(pools, 0);
  auto odd = draforge::SimExpand(pools, 1);
  ASSERT_TRUE(even.ok() && odd.ok());
  EXPECT_NE(*even, *odd);
}

TEST(CApiSim, InjectListAndClearGiveBackTheObject) {
  auto injected = draforge::SimInjectFault(kPool, R"({"name":"lost","type":"gpu-lost","nodes":["node-1"]})");
  ASSERT_TRUE(injected.ok()) << injected.error().message;
  const rapidjson::Document d = Parse(*injected);
  EXPECT_STREQ(d["metadata"]["labels"]["team"].GetString(), "a");  // the rest of the object is kept
  ASSERT_EQ(d["spec"]["faults"].Size(), 1u);

  auto faults = draforge::SimFaultsJson(*injected);
  ASSERT_TRUE(faults.ok());
  const rapidjson::Document f = Parse(*faults);
  ASSERT_EQ(f.Size(), 1u);
  EXPECT_STREQ(f[0]["name"].GetString(), "lost");
  EXPECT_STREQ(f[0]["type"].GetString(), "gpu-lost");
  EXPECT_THAT(f[0]["description"].GetString(), HasSubstr("node-1"));

  auto duplicate = draforge::SimInjectFault(*injected, R"({"name":"lost","type":"gpu-lost"})");
  ASSERT_FALSE(duplicate.ok());
  EXPECT_EQ(duplicate.error().code, DRAFORGE_EINVALID);
  EXPECT_THAT(duplicate.error().message, HasSubstr("already has a fault named \"lost\""));

  auto cleared = draforge::SimClearFault(*injected, "lost");
  ASSERT_TRUE(cleared.ok());
  EXPECT_THAT(*cleared, Not(HasSubstr("faults")));
  auto missing = draforge::SimClearFault(*cleared, "lost");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, DRAFORGE_ENOTFOUND);

  auto all = draforge::SimClearAllFaults(*injected);
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->cleared, 1);
  EXPECT_THAT(all->pool_json, Not(HasSubstr("faults")));
}

TEST(CApiSim, BadFaultsNameTheirField) {
  auto unknown = draforge::SimInjectFault(kPool, R"({"name":"x","type":"melt"})");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().code, DRAFORGE_EINVALID);
  EXPECT_THAT(unknown.error().message, HasSubstr("spec.faults[0].type"));
  auto no_device = draforge::SimInjectFault(kPool, R"({"name":"x","type":"gpu-lost","devices":["gpu-99"]})");
  ASSERT_FALSE(no_device.ok());
  EXPECT_THAT(no_device.error().message, HasSubstr("gpu-99"));
}

TEST(CApiSim, ScenarioPlanLabelsEveryWrite) {
  const std::string objects = R"(
apiVersion: sim.draforge.io/v1alpha1
kind: SimulatedDevicePool
metadata: {name: gpus}
spec: {profile: example-gpu, nodes: {names: [node-1, node-2]}, devicesPerNode: 2}
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu.example.com}
spec: {selectors: [{cel: {expression: 'device.driver == "gpu.example.com"'}}]}
)";
  auto slices = draforge::SimPlanScenario(objects, "demo", draforge::ScenarioMode::kSlices);
  ASSERT_TRUE(slices.ok()) << slices.error().message;
  const rapidjson::Document p = Parse(*slices);
  ASSERT_EQ(p["writes"].Size(), 3u);  // the class, then the two slices
  EXPECT_STREQ(p["writes"][0]["kind"].GetString(), "DeviceClass");
  EXPECT_STREQ(p["writes"][0]["ref"].GetString(), "deviceclass/gpu.example.com");
  EXPECT_STREQ(p["writes"][0]["resource"].GetString(), "deviceclasses");
  EXPECT_FALSE(p["writes"][0]["namespaced"].GetBool());
  EXPECT_STREQ(p["writes"][1]["kind"].GetString(), "ResourceSlice");
  for (const auto& w : p["writes"].GetArray()) {
    EXPECT_STREQ(w["body"]["metadata"]["labels"][DRAFORGE_SIM_SCENARIO_LABEL].GetString(), "demo");
    EXPECT_FALSE(w["body"].HasMember("status"));
  }
  auto pools = draforge::SimPlanScenario(objects, "demo", draforge::ScenarioMode::kPools);
  ASSERT_TRUE(pools.ok());
  const rapidjson::Document q = Parse(*pools);
  ASSERT_EQ(q["writes"].Size(), 2u);
  EXPECT_STREQ(q["writes"][1]["resource"].GetString(), DRAFORGE_SIM_RESOURCE);
  EXPECT_STREQ(q["writes"][1]["group"].GetString(), DRAFORGE_SIM_GROUP);

  auto bad_name = draforge::SimPlanScenario(objects, "Not Valid", draforge::ScenarioMode::kSlices);
  ASSERT_FALSE(bad_name.ok());
  EXPECT_EQ(bad_name.error().code, DRAFORGE_EINVALID);
}

TEST(CApiSim, ScenarioOwnershipAndNames) {
  auto owned = draforge::SimScenarioOwns(R"({"metadata":{"labels":{"sim.draforge.io/scenario":"demo"}}})", "demo");
  ASSERT_TRUE(owned.ok());
  EXPECT_TRUE(*owned);
  auto other = draforge::SimScenarioOwns(R"({"metadata":{"labels":{"sim.draforge.io/scenario":"demo"}}})", "prod");
  ASSERT_TRUE(other.ok());
  EXPECT_FALSE(*other);
  EXPECT_FALSE(draforge::SimScenarioOwns("{not json", "demo").ok());

  EXPECT_EQ(*draforge::SimScenarioNameFromPath("examples/scenarios/demo-sim/scenario.yaml"), "demo-sim");
  EXPECT_EQ(*draforge::SimScenarioNameFromPath("/tmp/My Cluster.yaml"), "my-cluster");
  EXPECT_TRUE(draforge::SimValidScenarioName("demo-sim"));
  EXPECT_FALSE(draforge::SimValidScenarioName("-demo"));
  EXPECT_FALSE(draforge::SimValidScenarioName(""));
  EXPECT_EQ(draforge_sim_scenario_name_valid(nullptr), 0);
}

TEST(CApiSim, ScenarioKindsInCreationOrder) {
  auto kinds = draforge::SimScenarioKindsJson();
  ASSERT_TRUE(kinds.ok());
  const rapidjson::Document k = Parse(*kinds);
  ASSERT_GT(k.Size(), 3u);
  EXPECT_STREQ(k[0]["kind"].GetString(), "Namespace");
  EXPECT_STREQ(k[k.Size() - 1]["kind"].GetString(), "Pod");
  EXPECT_TRUE(k[k.Size() - 1]["namespaced"].GetBool());
}

TEST(CApiSim, ExpandOptionsInitAgreesWithTheMacro) {
  const draforge_sim_expand_options by_macro = DRAFORGE_SIM_EXPAND_OPTIONS_INIT;
  draforge_sim_expand_options by_call;
  std::memset(&by_call, 0xAB, sizeof by_call);
  ASSERT_EQ(draforge_sim_expand_options_init(&by_call, DRAFORGE_SIM_EXPAND_OPTIONS_VERSION), DRAFORGE_OK);
  EXPECT_EQ(by_call.version, by_macro.version);
  EXPECT_EQ(by_call.tick, by_macro.tick);
  EXPECT_EQ(draforge_sim_expand_options_init(&by_call, 2), DRAFORGE_EINVALID);
  draforge_sim_expand_options bad = DRAFORGE_SIM_EXPAND_OPTIONS_INIT;
  bad.version = 7;
  draforge_buffer out = {nullptr, 0};
  draforge_error* e = nullptr;
  const std::string pools = std::string("[") + kPool + "]";
  EXPECT_EQ(draforge_sim_expand(&out, pools.data(), pools.size(), &bad, &e), DRAFORGE_EINVALID);
  draforge_error_destroy(e);
}

}  // namespace
