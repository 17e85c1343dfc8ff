// The controller's decisions, offline: which slice writes a reconcile makes, and the pool's status.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
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

api::ResourceClaim Claim() {
  api::ResourceClaim c;
  c.metadata.name = "c";
  c.metadata.namespace_ = "ns";
  return c;
}

TEST(ControllerAllocates, OnlyPendingClaimsNoPodUses) {
  EXPECT_TRUE(ControllerAllocates(Claim(), "ns/c", {}));
  // A pod's claim is kube-scheduler's (it picks the node).
  EXPECT_FALSE(ControllerAllocates(Claim(), "ns/c", {"ns/c"}));
  api::ResourceClaim owned = Claim();
  owned.metadata.owner_references.push_back(api::OwnerReference{"v1", "Pod", "p", "u", true, {}});
  EXPECT_FALSE(ControllerAllocates(owned, "ns/c", {}));
  api::ResourceClaim allocated = Claim();
  allocated.status.emplace().allocation.emplace();
  EXPECT_FALSE(ControllerAllocates(allocated, "ns/c", {}));
  api::ResourceClaim deleting = Claim();
  deleting.metadata.deletion_timestamp = "2026-11-29T12:00:00Z";
  EXPECT_FALSE(ControllerAllocates(deleting, "ns/c", {}));
}

// A slice of driver "d", pool "p" with gpu-0 (binding conditions) and gpu-1 (none).
api::ResourceSlice BindingSlice(bool failure) {
  api::ResourceSlice s;
  s.metadata.name = "s";
  auto& spec = s.spec.emplace();
  spec.driver = "d";
  spec.pool.emplace().name = "p";
  api::Device with;
  with.name = "gpu-0";
  with.binding_conditions = std::vector<std::string>{kBindingReadyCondition};
  if (failure) with.binding_failure_conditions = std::vector<std::string>{kBindingFailedCondition};
  api::Device without;
  without.name = "gpu-1";
  spec.devices = {with, without};
  return s;
}

rapidjson::Document ClaimJson(const std::string& status) {
  rapidjson::Document d;
  const std::string text = R"({"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim",)"
                           R"("metadata":{"name":"c","namespace":"ns","resourceVersion":"7"},"spec":{},"status":)" +
                           status + "}";
  d.Parse(text.c_str());
  EXPECT_FALSE(d.HasParseError());
  return d;
}

constexpr char kAllocatedBoth[] =
    R"({"allocation":{"devices":{"results":[)"
    R"({"request":"r","driver":"d","pool":"p","device":"gpu-0","bindingConditions":["SimulatedBindingReady"]},)"
    R"({"request":"r","driver":"d","pool":"p","device":"gpu-1"}]}}})";

TEST(PlanBindingConditions, SetsTheDevicesConditionsTrueOnceAndKeepsTheRest) {
  api::ResourceSlice slice = BindingSlice(false);
  auto devices = DevicesWithBindingConditions({&slice});
  ASSERT_EQ(devices.size(), 1u);
  EXPECT_TRUE(devices.count(BindingDeviceKey("d", "p", "gpu-0")));
  rapidjson::Document claim = ClaimJson(kAllocatedBoth);
  auto plan = PlanBindingConditions(claim, devices, "2026-11-29T12:00:00Z");
  ASSERT_TRUE(plan.ok()) << plan.status();
  ASSERT_TRUE(plan->has_value());
  const rapidjson::Document& body = **plan;
  // The rest of the object (resourceVersion for the optimistic write, the allocation) is kept.
  EXPECT_STREQ(body["metadata"]["resourceVersion"].GetString(), "7");
  EXPECT_TRUE(body["status"]["allocation"] == claim["status"]["allocation"]);
  const auto& entries = body["status"]["devices"];
  ASSERT_EQ(entries.Size(), 1u);  // only the device that has binding conditions
  EXPECT_STREQ(entries[0]["device"].GetString(), "gpu-0");
  ASSERT_EQ(entries[0]["conditions"].Size(), 1u);
  EXPECT_STREQ(entries[0]["conditions"][0]["type"].GetString(), "SimulatedBindingReady");
  EXPECT_STREQ(entries[0]["conditions"][0]["status"].GetString(), "True");
  EXPECT_STREQ(entries[0]["conditions"][0]["lastTransitionTime"].GetString(), "2026-11-29T12:00:00Z");
  // Once written, a later round plans no write.
  auto again = PlanBindingConditions(body, devices, "2026-11-29T12:05:00Z");
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(again->has_value());
}

TEST(PlanBindingConditions, BindingFailureFaultSetsOnlyTheFailureCondition) {
  api::ResourceSlice slice = BindingSlice(true);
  EXPECT_THAT(WantedBindingConditions(slice.spec->devices[0]), ::testing::ElementsAre("SimulatedBindingFailed"));
  auto plan = PlanBindingConditions(ClaimJson(kAllocatedBoth), DevicesWithBindingConditions({&slice}), "t");
  ASSERT_TRUE(plan.ok() && plan->has_value());
  const auto& c = (**plan)["status"]["devices"][0]["conditions"];
  ASSERT_EQ(c.Size(), 1u);
  EXPECT_STREQ(c[0]["type"].GetString(), "SimulatedBindingFailed");
  EXPECT_STREQ(c[0]["reason"].GetString(), "SimulatedFailure");
}

TEST(PlanBindingConditions, NoWriteForUnallocatedClaimsOrDevicesWithoutConditions) {
  api::ResourceSlice slice = BindingSlice(false);
  auto devices = DevicesWithBindingConditions({&slice});
  auto pending = PlanBindingConditions(ClaimJson("{}"), devices, "t");
  ASSERT_TRUE(pending.ok());
  EXPECT_FALSE(pending->has_value());
  // The result does not carry bindingConditions: the scheduler does not wait on it.
  auto plain = PlanBindingConditions(
      ClaimJson(R"({"allocation":{"devices":{"results":[{"driver":"d","pool":"p","device":"gpu-0"}]}}})"), devices, "t");
  ASSERT_TRUE(plain.ok());
  EXPECT_FALSE(plain->has_value());
}

TEST(PlanBindingConditions, MalformedStatusNamesTheClaimAndField) {
  api::ResourceSlice slice = BindingSlice(false);
  auto devices = DevicesWithBindingConditions({&slice});
  auto bad = PlanBindingConditions(ClaimJson(R"({"allocation":{"devices":{"results":{}}}})"), devices, "t");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(bad.status().message(), ::testing::HasSubstr("ResourceClaim ns/c"));
  EXPECT_THAT(bad.status().message(), ::testing::HasSubstr("status.allocation.devices.results"));
  auto no_device = PlanBindingConditions(
      ClaimJson(R"({"allocation":{"devices":{"results":[{"driver":"d","pool":"p","device":3}]}}})"), devices, "t");
  ASSERT_FALSE(no_device.ok());
  EXPECT_THAT(no_device.status().message(), ::testing::HasSubstr("results[0]"));
}

// A SimulatedDevicePool list's items as the API server returns them.
rapidjson::Document PoolItems(const std::string& json) {
  rapidjson::Document d;
  d.Parse(json.c_str());
  EXPECT_FALSE(d.HasParseError());
  return d;
}

std::string PoolItem(const std::string& name, const std::string& uid, int64_t gpus) {
  return absl::StrCat(R"({"apiVersion":"sim.draforge.io/v1alpha1","kind":"SimulatedDevicePool","metadata":{"name":")",
                      name, R"(","uid":")", uid, R"(","generation":2},"spec":{"profile":"nvidia-gpu",)",
                      R"("nodes":{"names":["node-1"]},"devicesPerNode":)", gpus, "}}");
}

TEST(PlanPools, CreatesForNewPoolsAndDeletesOrphans) {
  // An orphan: a slice owned by a pool that is no longer listed.
  auto gone = AsStored(Desired(Pool(1, {"node-9"})));
  for (auto& s : gone) s.metadata.owner_references[0].name = "gone";
  rapidjson::Document items = PoolItems("[" + PoolItem("a", "uid-a", 2) + "]");
  PoolsPlan plan = PlanPools(items, gone, {});
  ASSERT_EQ(plan.pools.size(), 1u);
  EXPECT_EQ(plan.pools[0].name, "a");
  ASSERT_TRUE(plan.pools[0].expansion.ok()) << plan.pools[0].expansion.status();
  ASSERT_FALSE(plan.pools[0].actions.empty());
  for (const SliceAction& a : plan.pools[0].actions) {
    EXPECT_EQ(a.type, SliceAction::Type::kCreate);
    EXPECT_EQ(OwningPool(a.slice), "a");  // the owner reference names the object
  }
  ASSERT_EQ(plan.orphans.size(), gone.size());
  EXPECT_EQ(plan.invalid, 0);
}

TEST(PlanPools, FirstListedKeepsAContestedPoolAndInvalidPoolsKeepTheirSlices) {
  rapidjson::Document first = PoolItems("[" + PoolItem("a", "uid-a", 2) + "]");
  PoolsPlan published = PlanPools(first, {}, {});
  ASSERT_TRUE(published.pools[0].expansion.ok());
  std::vector<api::ResourceSlice> stored;
  for (const SliceAction& a : published.pools[0].actions) stored.push_back(a.slice);
  stored = AsStored(stored);
  // "b" publishes the same pool (same driver and node); "c" does not decode (devicesPerNode is a string). Both are
  // reported, neither writes a slice, and "a"'s slices are left alone.
  rapidjson::Document items = PoolItems("[" + PoolItem("a", "uid-a", 2) + "," +
                                        PoolItem("b", "uid-b", 2) + "," +
                                        R"({"metadata":{"name":"c","generation":5},"spec":{"profile":"nvidia-gpu",)"
                                        R"("nodes":{"names":["node-1"]},"devicesPerNode":"two"}})" + "]");
  PoolsPlan plan = PlanPools(items, stored, {});
  ASSERT_EQ(plan.pools.size(), 3u);
  EXPECT_TRUE(plan.pools[0].expansion.ok());
  EXPECT_TRUE(plan.pools[0].actions.empty());  // already published
  EXPECT_FALSE(plan.pools[1].expansion.ok());
  EXPECT_TRUE(plan.pools[1].actions.empty());
  EXPECT_FALSE(plan.pools[2].expansion.ok());
  EXPECT_EQ(plan.pools[2].pool.metadata.generation, 5);  // the stub still carries what status needs
  EXPECT_EQ(plan.invalid, 2);
  EXPECT_TRUE(plan.orphans.empty());
  // The status of the contested one says why.
  rapidjson::Document status = PoolStatus(plan.pools[1].pool, plan.pools[1].expansion, "t", nullptr);
  EXPECT_STREQ(status["conditions"][0]["status"].GetString(), "False");
}

}  // namespace
}  // namespace draforge::sim::testing
