// The controller's decisions, offline: which slice writes a reconcile makes, and the pool's status.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "sim/reconcile.h"
#include "sim_test_util.h"

namespace draforge::sim::testing {
namespace {

SimulatedDevicePool Pool(int64_t gpus, std::vector<std::string> nodes = {"node-1", "node-2"}) {
  SimulatedDevicePool p;
  p.metadata.name = "gpus";
  p.metadata.uid = "uid-1";
  p.metadata.generation = 3;
  p.spec.profile = "nvidia-gpu";
  p.spec.nodes.names = std::move(nodes);
  p.spec.devices_per_node = gpus;
  return p;
}

std::vector<api::ResourceSlice> Desired(const SimulatedDevicePool& p) {
  ExpandOptions options;
  options.owner = OwnerFor(p);
  auto e = Expand(p, options);
  EXPECT_TRUE(e.ok()) << e.status();
  return e.ok() ? e->slices : std::vector<api::ResourceSlice>{};
}

// What the API server returns for a created slice: the same, plus server fields.
std::vector<api::ResourceSlice> AsStored(std::vector<api::ResourceSlice> slices) {
  int rv = 100;
  for (auto& s : slices) {
    s.metadata.uid = "server-uid-" + *s.metadata.name;
    s.metadata.resource_version = std::to_string(rv++);
    s.metadata.creation_timestamp = "2026-11-29T12:00:00Z";
    s.metadata.labels.Set("added-by-someone", "x");
  }
  return slices;
}

std::vector<std::string> Describe(const std::vector<SliceAction>& actions) {
  std::vector<std::string> out;
  for (const auto& a : actions) {
    const char* t = a.type == SliceAction::Type::kCreate ? "create" : a.type == SliceAction::Type::kUpdate ? "update" : "delete";
    out.push_back(std::string(t) + " " + *a.slice.metadata.name);
  }
  return out;
}

TEST(PlanSlices, NewPoolCreatesEverySlice) {
  EXPECT_THAT(Describe(PlanSlices(Desired(Pool(2)), {})),
              ::testing::ElementsAre("create gpus-node-1-0", "create gpus-node-2-0"));
}

TEST(PlanSlices, NothingToDoWhenTheClusterMatchesServerFieldsAside) {
  auto desired = Desired(Pool(2));
  EXPECT_THAT(PlanSlices(desired, AsStored(desired)), ::testing::IsEmpty());
}

TEST(PlanSlices, EditingThePoolUpdatesWithTheReadResourceVersion) {
  auto stored = AsStored(Desired(Pool(2)));
  auto actions = PlanSlices(Desired(Pool(3)), stored);
  ASSERT_EQ(Describe(actions), (std::vector<std::string>{"update gpus-node-1-0", "update gpus-node-2-0"}));
  EXPECT_EQ(actions[0].slice.metadata.resource_version, "100");
  EXPECT_EQ(actions[0].slice.spec->devices.size(), 3u);
  EXPECT_EQ(*actions[0].slice.metadata.labels.Find("added-by-someone"), "x") << "others' labels are kept";
}

TEST(PlanSlices, RemovingANodeDeletesItsSlicesLast) {
  auto stored = AsStored(Desired(Pool(2)));
  SimulatedDevicePool smaller = Pool(3, {"node-1"});
  EXPECT_THAT(Describe(PlanSlices(Desired(smaller), stored)),
              ::testing::ElementsAre("update gpus-node-1-0", "delete gpus-node-2-0"));
}

TEST(PlanSlices, ClearingAFaultRestoresTheSlicesExactly) {
  SimulatedDevicePool p = Pool(2);
  auto before = AsStored(Desired(p));
  Fault f;
  f.name = "lost";
  f.type = FaultType::kGpuLost;
  f.nodes = {"node-2"};
  p.spec.faults.push_back(f);
  auto actions = PlanSlices(Desired(p), before);
  ASSERT_EQ(Describe(actions), std::vector<std::string>{"update gpus-node-2-0"});
  // The server now holds the faulty slice; clearing plans it back to the original.
  std::vector<api::ResourceSlice> during = before;
  during[1].spec = actions[0].slice.spec;
  p.spec.faults.clear();
  auto back = PlanSlices(Desired(p), during);
  ASSERT_EQ(back.size(), 1u);
  EXPECT_EQ(back[0].slice.spec, before[1].spec);
}

TEST(OwningPool, OnlyControllerReferencesOfThePoolKind) {
  auto slices = Desired(Pool(1));
  EXPECT_EQ(OwningPool(slices[0]), "gpus");
  slices[0].metadata.owner_references[0].controller = false;
  EXPECT_EQ(OwningPool(slices[0]), "");
  api::ResourceSlice node_owned;
  node_owned.metadata.owner_references.push_back(api::OwnerReference{"v1", "Node", "node-1", "u", true, {}});
  EXPECT_EQ(OwningPool(node_owned), "");
}

TEST(PoolStatus, ReadyWithSlicesAndGeneration) {
  SimulatedDevicePool p = Pool(2);
  p.spec.pool_generation = 4;
  auto e = Expand(p);
  rapidjson::Document s = PoolStatus(p, e, "2026-11-29T12:00:00Z", nullptr);
  EXPECT_EQ(s["observedGeneration"].GetInt64(), 3);
  EXPECT_STREQ(s["driver"].GetString(), "gpu.nvidia.com");
  EXPECT_EQ(s["poolGeneration"].GetInt64(), 4);
  EXPECT_EQ(s["sliceCount"].GetInt64(), 2);
  EXPECT_STREQ(s["conditions"][0]["status"].GetString(), "True");
  // A later round with the same outcome keeps the transition time: no status write.
  rapidjson::Document again = PoolStatus(p, e, "2026-11-29T12:05:00Z", &s);
  EXPECT_TRUE(again == s);
}

TEST(PoolStatus, InvalidSpecIsReadyFalseWithTheMessage) {
  SimulatedDevicePool p = Pool(300);
  p.spec.profile = "example-gpu";
  auto e = Expand(p);
  ASSERT_FALSE(e.ok());
  rapidjson::Document s = PoolStatus(p, e, "2026-11-29T12:00:00Z", nullptr);
  EXPECT_STREQ(s["conditions"][0]["status"].GetString(), "False");
  EXPECT_STREQ(s["conditions"][0]["reason"].GetString(), "InvalidSpec");
  EXPECT_THAT(s["conditions"][0]["message"].GetString(), ::testing::HasSubstr("at most 128 devices"));
  EXPECT_FALSE(s.HasMember("sliceCount"));
}

}  // namespace
}  // namespace draforge::sim::testing
