// Faults: each one shows up in the published slices, and clearing it restores the previous pool
// object and slices exactly.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "sim/faults.h"
#include "sim_test_util.h"

namespace draforge::sim::testing {
namespace {

using ::testing::HasSubstr;

constexpr char kPool[] = R"({"apiVersion":"sim.draforge.io/v1alpha1","kind":"SimulatedDevicePool",
  "metadata":{"name":"gpus","labels":{"team":"ml"}},
  "spec":{"profile":"nvidia-gpu","nodes":{"names":["node-1","node-2"]},"devicesPerNode":4,
          "poolGeneration":5}})";

rapidjson::Document PoolJson() {
  auto d = api::ParseJson(kPool);
  return std::move(*d);
}

std::string Slices(const rapidjson::Value& pool_json, int64_t tick = 0) {
  auto pool = DecodeSimulatedDevicePool(pool_json);
  if (!pool.ok()) return std::string(pool.status().message());
  ExpandOptions options;
  options.tick = tick;
  auto e = Expand(*pool, options);
  if (!e.ok()) return std::string(e.status().message());
  auto y = SlicesYaml(e->slices);
  return y.ok() ? *y : std::string(y.status().message());
}

Expansion ExpandJson(const rapidjson::Value& pool_json, int64_t tick = 0) {
  auto pool = DecodeSimulatedDevicePool(pool_json);
  EXPECT_TRUE(pool.ok()) << pool.status();
  ExpandOptions options;
  options.tick = tick;
  auto e = Expand(*pool, options);
  EXPECT_TRUE(e.ok()) << e.status();
  return e.ok() ? *e : Expansion{};
}

const api::Device* FindDevice(const Expansion& e, const std::string& node, const std::string& device) {
  for (const auto& s : e.slices) {
    if (s.spec->node_name != node) continue;
    for (const auto& d : s.spec->devices) {
      if (d.name == device) return &d;
    }
  }
  return nullptr;
}

Fault MakeFault(std::string name, FaultType type, std::vector<std::string> nodes = {},
                std::vector<std::string> devices = {}) {
  Fault f;
  f.name = std::move(name);
  f.type = type;
  f.nodes = std::move(nodes);
  f.devices = std::move(devices);
  return f;
}

// Injects, checks `effect`, clears, and checks that the object and the slices are exactly as before.
template <typename Check>
void InjectCheckClear(const Fault& fault, Check effect) {
  rapidjson::Document doc = PoolJson();
  const std::string object_before = api::WriteJson(doc, false);
  const std::string slices_before = Slices(doc);
  ASSERT_TRUE(InjectFault(doc, fault).ok());
  EXPECT_NE(Slices(doc), slices_before) << "fault " << fault.name << " changed nothing";
  effect(ExpandJson(doc));
  auto listed = ListFaults(doc);
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed->size(), 1u);
  EXPECT_EQ((*listed)[0], fault) << "the fault reads back as injected";
  ASSERT_TRUE(ClearFault(doc, fault.name).ok());
  EXPECT_EQ(api::WriteJson(doc, false), object_before);
  EXPECT_EQ(Slices(doc), slices_before);
}

TEST(Faults, XidTaintsTheDeviceWithNvidiasKey) {
  Fault f = MakeFault("xid79", FaultType::kXid, {"node-2"}, {"gpu-1"});
  f.xid = 79;
  InjectCheckClear(f, [](const Expansion& e) {
    const api::Device* d = FindDevice(e, "node-2", "gpu-1");
    ASSERT_NE(d, nullptr);
    ASSERT_EQ(d->taints.size(), 1u);
    EXPECT_EQ(d->taints[0].key, "gpu.nvidia.com/xid");
    EXPECT_EQ(d->taints[0].value, "79");
    EXPECT_EQ(d->taints[0].effect, "NoSchedule");
    EXPECT_TRUE(FindDevice(e, "node-1", "gpu-1")->taints.empty()) << "other nodes untouched";
    EXPECT_TRUE(FindDevice(e, "node-2", "gpu-0")->taints.empty()) << "other devices untouched";
  });
}

TEST(Faults, ApplicationXidIsInformational) {
  Fault f = MakeFault("xid13", FaultType::kXid, {}, {"gpu-0"});
  f.xid = 13;
  InjectCheckClear(f, [](const Expansion& e) {
    EXPECT_EQ(FindDevice(e, "node-1", "gpu-0")->taints[0].effect, "None");
  });
}

TEST(Faults, GpuLostTaintsEveryDeviceOfTheNode) {
  InjectCheckClear(MakeFault("lost", FaultType::kGpuLost, {"node-1"}), [](const Expansion& e) {
    for (const char* dev : {"gpu-0", "gpu-1", "gpu-2", "gpu-3"}) {
      const api::Device* d = FindDevice(e, "node-1", dev);
      ASSERT_EQ(d->taints.size(), 1u);
      EXPECT_EQ(d->taints[0].key, "gpu.nvidia.com/gpu-lost");
      EXPECT_FALSE(d->taints[0].value.has_value());
      EXPECT_EQ(d->taints[0].effect, "NoSchedule");
    }
  });
}

TEST(Faults, HealthUnknownIsTheUnmonitoredTaintWithEffectNone) {
  InjectCheckClear(MakeFault("unknown", FaultType::kHealthUnknown, {}, {"gpu-2"}), [](const Expansion& e) {
    const api::Device* d = FindDevice(e, "node-1", "gpu-2");
    EXPECT_EQ(d->taints[0].key, "gpu.nvidia.com/unmonitored");
    EXPECT_EQ(d->taints[0].effect, "None");
  });
}

TEST(Faults, ArbitraryTaint) {
  Fault f = MakeFault("maint", FaultType::kTaint, {"node-1"}, {"gpu-0"});
  f.taint = api::DeviceTaint{"example.com/maintenance", "planned", "NoExecute", {}};
  InjectCheckClear(f, [](const Expansion& e) {
    EXPECT_EQ(FindDevice(e, "node-1", "gpu-0")->taints[0].effect, "NoExecute");
  });
}

TEST(Faults, RemoveDeviceKeepsTheSlice) {
  InjectCheckClear(MakeFault("gone", FaultType::kRemoveDevice, {"node-1"}, {"gpu-3"}), [](const Expansion& e) {
    EXPECT_EQ(FindDevice(e, "node-1", "gpu-3"), nullptr);
    EXPECT_NE(FindDevice(e, "node-2", "gpu-3"), nullptr);
    EXPECT_EQ(e.slices.size(), 2u);
  });
}

TEST(Faults, RemoveSliceWithdrawsItAndShrinksTheCount) {
  InjectCheckClear(MakeFault("noslice", FaultType::kRemoveSlice, {"node-2"}), [](const Expansion& e) {
    ASSERT_EQ(e.slices.size(), 1u);
    EXPECT_EQ(e.slices[0].spec->node_name, "node-1");
    EXPECT_EQ(e.pools[1].slice_count, 0);
  });
}

TEST(Faults, IncompletePoolCountsMoreSlicesThanPublished) {
  Fault f = MakeFault("partial", FaultType::kIncompletePool, {"node-1"});
  f.missing_slices = 2;
  InjectCheckClear(f, [](const Expansion& e) {
    EXPECT_EQ(e.slices[0].spec->pool->resource_slice_count, 3);
    EXPECT_EQ(e.slices[1].spec->pool->resource_slice_count, 1) << "node-2 is complete";
  });
}

TEST(Faults, StaleGenerationLeavesTheOldSlicesBehind) {
  InjectCheckClear(MakeFault("stale", FaultType::kStaleGeneration, {"node-1"}), [](const Expansion& e) {
    ASSERT_EQ(e.slices.size(), 3u);
    EXPECT_EQ(*e.slices[0].metadata.name, "gpus-node-1-0");
    EXPECT_EQ(e.slices[0].spec->pool->generation, 6);
    EXPECT_EQ(e.slices[1].spec->pool->generation, 5) << "node-2 keeps its generation";
    EXPECT_EQ(*e.slices[2].metadata.name, "gpus-node-1-0-stale");
    EXPECT_EQ(e.slices[2].spec->pool->generation, 5);
    EXPECT_EQ(e.slices[2].spec->devices.size(), 4u);
  });
}

TEST(Faults, BindingFailureAddsBindingConditions) {
  InjectCheckClear(MakeFault("nobind", FaultType::kBindingFailure, {}, {"gpu-0"}), [](const Expansion& e) {
    const api::Device* d = FindDevice(e, "node-1", "gpu-0");
    EXPECT_THAT(d->binding_conditions, ::testing::ElementsAre(kBindingReadyCondition));
    EXPECT_THAT(d->binding_failure_conditions, ::testing::ElementsAre(kBindingFailedCondition));
  });
}

TEST(Faults, FlapAlternatesWithTheClock) {
  rapidjson::Document doc = PoolJson();
  Fault f = MakeFault("flappy", FaultType::kFlap, {"node-1"}, {"gpu-2"});
  f.period = 3;
  ASSERT_TRUE(InjectFault(doc, f).ok());
  for (int64_t tick : {0, 1, 2, 6, 8}) EXPECT_EQ(FindDevice(ExpandJson(doc, tick), "node-1", "gpu-2"), nullptr) << tick;
  for (int64_t tick : {3, 4, 5, 9}) EXPECT_NE(FindDevice(ExpandJson(doc, tick), "node-1", "gpu-2"), nullptr) << tick;
}

TEST(Faults, SeveralFaultsClearIndependently) {
  rapidjson::Document doc = PoolJson();
  const std::string original = Slices(doc);
  Fault a = MakeFault("a", FaultType::kGpuLost, {"node-1"}, {"gpu-0"});
  Fault b = MakeFault("b", FaultType::kRemoveDevice, {"node-2"}, {"gpu-1"});
  ASSERT_TRUE(InjectFault(doc, a).ok());
  const std::string with_a = Slices(doc);
  ASSERT_TRUE(InjectFault(doc, b).ok());
  ASSERT_TRUE(ClearFault(doc, "b").ok());
  EXPECT_EQ(Slices(doc), with_a);
  ASSERT_TRUE(ClearFault(doc, "a").ok());
  EXPECT_EQ(Slices(doc), original);
}

TEST(Faults, InjectionErrorsLeaveThePoolUnchanged) {
  rapidjson::Document doc = PoolJson();
  const std::string before = api::WriteJson(doc, false);
  absl::Status s = InjectFault(doc, MakeFault("x", FaultType::kRemoveDevice, {"node-9"}));
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("spec.faults[0].nodes[0]: Not found: \"node-9\""));
  s = InjectFault(doc, MakeFault("x", FaultType::kRemoveDevice, {}, {"gpu-7"}));
  EXPECT_THAT(s.message(), HasSubstr("spec.faults[0].devices[0]: Not found: \"gpu-7\""));
  s = InjectFault(doc, MakeFault("Bad_Name", FaultType::kGpuLost));
  EXPECT_THAT(s.message(), HasSubstr("a fault name must be a DNS label"));
  EXPECT_EQ(api::WriteJson(doc, false), before);
  ASSERT_TRUE(InjectFault(doc, MakeFault("x", FaultType::kGpuLost)).ok());
  EXPECT_EQ(InjectFault(doc, MakeFault("x", FaultType::kGpuLost)).code(), absl::StatusCode::kAlreadyExists);
}

TEST(Faults, ClearingAnUnknownFaultNamesTheExistingOnes) {
  rapidjson::Document doc = PoolJson();
  ASSERT_TRUE(InjectFault(doc, MakeFault("x", FaultType::kGpuLost)).ok());
  absl::Status s = ClearFault(doc, "y");
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(s.message(), HasSubstr("has no fault named \"y\" (it has x)"));
}

TEST(Faults, DescribeSaysWhatHappens) {
  auto pool = DecodeSimulatedDevicePool(PoolJson());
  ASSERT_TRUE(pool.ok());
  Fault f = MakeFault("x", FaultType::kXid, {"node-2"}, {"gpu-1"});
  f.xid = 48;
  EXPECT_EQ(DescribeFault(*pool, f), "XID 48: taint gpu.nvidia.com/xid=48 on gpu-1 of node-2");
  EXPECT_EQ(DescribeFault(*pool, MakeFault("y", FaultType::kStaleGeneration)),
            "bump the generation of every pool and leave the old slices behind");
}

}  // namespace
}  // namespace draforge::sim::testing
