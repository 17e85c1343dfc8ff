// `scenario apply` / `reset` plans, offline: what a scenario creates, in which order, how it is
// labelled, and what it refuses before anything is written.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sim/scenario.h"
#include "sim/scenario_plan.h"
#include "sim_test_util.h"

namespace draforge::sim::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

std::vector<api::Object> Decode(const std::string& yaml) {
  auto decoded = api::DecodeStream(yaml, api::DecodeOptions{});
  EXPECT_TRUE(decoded.ok()) << decoded.status();
  std::vector<api::Object> out;
  if (!decoded.ok()) return out;
  for (auto& d : *decoded) {
    EXPECT_TRUE(d.object.ok()) << d.object.status();
    if (d.object.ok()) out.push_back(*std::move(d.object));
  }
  return out;
}

std::vector<api::Object> DemoSim() {
  auto objects = LoadObjects(SourceRoot() / "examples" / "scenarios" / "demo-sim" / "scenario.yaml");
  EXPECT_TRUE(objects.ok()) << objects.status();
  return objects.ok() ? *objects : std::vector<api::Object>{};
}

std::vector<std::string> Refs(const ScenarioApplyPlan& plan) {
  std::vector<std::string> out;
  for (const auto& w : plan.writes) out.push_back(w.Ref());
  return out;
}

std::string Label(const rapidjson::Value& body, const char* key) {
  const auto& labels = body["metadata"]["labels"];
  return labels.HasMember(key) ? labels[key].GetString() : "";
}

TEST(ScenarioKinds, ResetIsTheReverseOfApply) {
  EXPECT_THAT(ScenarioKinds(), ElementsAre("Namespace", "DeviceClass", "SimulatedDevicePool", "ResourceSlice",
                                           "DeviceTaintRule", "ResourceClaimTemplate", "ResourceClaim", "Pod"));
}

TEST(PlanScenarioApply, SlicesModePublishesTheExpandedSlicesInKindOrder) {
  const auto objects = DemoSim();
  ASSERT_FALSE(objects.empty());
  auto plan = PlanScenarioApply(objects, "demo", ScenarioMode::kSlices);
  ASSERT_TRUE(plan.ok()) << plan.status();
  // The slices are what `sim expand` gives for the same pools.
  auto split = SplitScenario(objects);
  ASSERT_TRUE(split.ok());
  auto expansion = ExpandAll(split->pools);
  ASSERT_TRUE(expansion.ok());
  std::vector<std::string> kinds, slices;
  for (const auto& w : plan->writes) {
    kinds.push_back(w.kind_name);
    if (w.kind_name == "ResourceSlice") slices.push_back(w.name);
    EXPECT_NE(w.kind_name, "SimulatedDevicePool");
  }
  ASSERT_EQ(slices.size(), expansion->slices.size());
  for (size_t i = 0; i < slices.size(); ++i) EXPECT_EQ(slices[i], *expansion->slices[i].metadata.name);
  // Creation order: a kind never comes before one listed earlier in ScenarioKinds().
  auto order = [](const std::string& k) {
    const auto& all = ScenarioKinds();
    return std::find(all.begin(), all.end(), k) - all.begin();
  };
  for (size_t i = 1; i < kinds.size(); ++i) EXPECT_LE(order(kinds[i - 1]), order(kinds[i])) << kinds[i];
  EXPECT_EQ(plan->writes.front().Ref(), "namespace/sim-demo");
  EXPECT_EQ(plan->writes.back().Ref(), "pod/sim-demo/trainer");
}

TEST(PlanScenarioApply, PoolsModeCreatesThePoolsInsteadOfSlices) {
  auto plan = PlanScenarioApply(DemoSim(), "demo", ScenarioMode::kPools);
  ASSERT_TRUE(plan.ok()) << plan.status();
  std::vector<std::string> pools;
  for (const auto& w : plan->writes) {
    EXPECT_NE(w.kind_name, "ResourceSlice");
    if (w.kind_name == "SimulatedDevicePool") {
      pools.push_back(w.Ref());
      EXPECT_EQ(w.api_version, kApiVersion);
      EXPECT_EQ(w.namespace_, "");  // cluster-scoped
    }
  }
  EXPECT_THAT(pools, ElementsAre("simulateddevicepool/a100-mig", "simulateddevicepool/a100",
                                 "simulateddevicepool/example-gpus", "simulateddevicepool/numa"));
}

TEST(PlanScenarioApply, BodiesAreLabelledAndLoseServerFields) {
  auto plan = PlanScenarioApply(Decode(R"(
apiVersion: v1
kind: Node
metadata: {name: node-1}
---
apiVersion: resource.k8s.io/v1beta1
kind: ResourceClaim
metadata:
  name: c
  resourceVersion: "42"
  uid: abc
  labels: {sim.draforge.io/scenario: other, team: a}
spec:
  devices:
    requests:
    - {name: r, deviceClassName: gpu}
status:
  reservedFor: [{resource: pods, name: p, uid: u}]
)"),
                                "mine", ScenarioMode::kSlices);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_THAT(plan->notes, ElementsAre("node/node-1 skipped: nodes come from the cluster"));
  ASSERT_THAT(Refs(*plan), ElementsAre("resourceclaim/default/c"));  // no namespace: default
  const ScenarioWrite& w = plan->writes[0];
  EXPECT_EQ(w.api_version, "resource.k8s.io/v1");  // v1beta1 converted, as the API server would
  EXPECT_EQ(std::string(w.body["apiVersion"].GetString()), "resource.k8s.io/v1");
  EXPECT_FALSE(w.body.HasMember("status"));
  EXPECT_FALSE(w.body["metadata"].HasMember("resourceVersion"));
  EXPECT_FALSE(w.body["metadata"].HasMember("uid"));
  EXPECT_EQ(Label(w.body, kScenarioLabel), "mine");
  EXPECT_EQ(Label(w.body, kManagedByLabel), kManagedByValue);
  EXPECT_EQ(Label(w.body, "team"), "a");
  EXPECT_TRUE(OwnedByScenario(w.body, "mine"));
  EXPECT_FALSE(OwnedByScenario(w.body, "other"));
}

TEST(PlanScenarioApply, RefusesKindsItDoesNotCreate) {
  auto plan = PlanScenarioApply(Decode(R"(
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: ok}
spec: {}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default}
spec: {}
)"),
                                "s", ScenarioMode::kSlices);
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(plan.status().message(), HasSubstr("apps/v1 Deployment \"web\": scenario apply creates Namespaces"));
}

TEST(PlanScenarioApply, APoolThatDoesNotExpandStopsThePlanInBothModes) {
  const std::string yaml = R"(
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: fine}
spec: {}
---
apiVersion: sim.draforge.io/v1alpha1
kind: SimulatedDevicePool
metadata: {name: broken}
spec: {profile: no-such-profile, nodes: {names: [node-1]}}
)";
  for (ScenarioMode mode : {ScenarioMode::kSlices, ScenarioMode::kPools}) {
    auto plan = PlanScenarioApply(Decode(yaml), "s", mode);
    ASSERT_FALSE(plan.ok());
    EXPECT_THAT(plan.status().message(), HasSubstr("broken"));
    EXPECT_THAT(plan.status().message(), HasSubstr("no-such-profile"));
  }
}

TEST(OwnedByScenario, NeedsTheLabelWithThisValue) {
  rapidjson::Document d;
  d.Parse(R"({"metadata":{"labels":{"sim.draforge.io/scenario":"a"}}})");
  EXPECT_TRUE(OwnedByScenario(d, "a"));
  EXPECT_FALSE(OwnedByScenario(d, "b"));
  d.Parse(R"({"metadata":{"name":"x"}})");
  EXPECT_FALSE(OwnedByScenario(d, "a"));
  d.Parse(R"({"metadata":{"labels":{"sim.draforge.io/scenario":1}}})");
  EXPECT_FALSE(OwnedByScenario(d, "a"));
  d.Parse(R"([1])");
  EXPECT_FALSE(OwnedByScenario(d, "a"));
}

TEST(ScenarioName, FromPaths) {
  EXPECT_EQ(ScenarioNameFromPath("examples/scenarios/demo-sim"), "demo-sim");
  EXPECT_EQ(ScenarioNameFromPath("examples/scenarios/demo-sim/"), "demo-sim");
  EXPECT_EQ(ScenarioNameFromPath("examples/scenarios/demo-sim/scenario.yaml"), "demo-sim");
  EXPECT_EQ(ScenarioNameFromPath("/tmp/My Cluster (2).yaml"), "my-cluster--2");
  EXPECT_EQ(ScenarioNameFromPath(std::string(80, 'a') + ".yaml"), std::string(63, 'a'));
  EXPECT_EQ(ScenarioNameFromPath("/"), "");
}

TEST(ScenarioName, Validity) {
  EXPECT_TRUE(ValidScenarioName("demo-sim"));
  EXPECT_TRUE(ValidScenarioName("a.b_c-1"));
  EXPECT_FALSE(ValidScenarioName(""));
  EXPECT_FALSE(ValidScenarioName("-demo"));
  EXPECT_FALSE(ValidScenarioName("demo."));
  EXPECT_FALSE(ValidScenarioName("has space"));
  EXPECT_FALSE(ValidScenarioName(std::string(64, 'a')));
  EXPECT_TRUE(ValidScenarioName(std::string(63, 'a')));
}

}  // namespace
}  // namespace draforge::sim::testing
