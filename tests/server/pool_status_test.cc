// analysis::ComputePoolStatus on hand-made clusters: the numbers kube-controller-manager's
// resourcepoolstatusrequest controller (1.37) writes for each case that changes them. The cluster
// suite tests/cluster/pool-status compares with the real controller.
#include "analysis/pool_status.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "api/codec.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "store/cluster.h"

namespace draforge::analysis {
namespace {

using ::testing::IsEmpty;
using ::testing::SizeIs;

constexpr char kNow[] = "2026-12-02T13:00:00Z";

void Load(std::string_view yaml, store::Cluster& cluster) {
  auto decoded = api::DecodeStream(yaml, {});
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  for (auto& d : *decoded) {
    ASSERT_TRUE(d.object.ok()) << d.object.status();
    ASSERT_TRUE(cluster.Apply(*std::move(d.object)).ok());
  }
}

api::ResourcePoolStatusRequestStatus Compute(const store::Cluster& c, api::ResourcePoolStatusRequestSpec spec) {
  return ComputePoolStatus(*c.snapshot(), spec, kNow);
}

// A claim allocated device `device` of pool `pool` (driver gpu.example.com); extra result fields
// (adminAccess, consumedCapacity, shareID) as YAML flow entries.
std::string Allocated(const std::string& name, const std::string& pool, const std::string& device,
                      const std::string& extra = "") {
  return absl::StrCat(R"(
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: )", name, R"(, namespace: ns}
spec:
  devices:
    requests: [{name: r, exactly: {deviceClassName: c}}]
status:
  allocation:
    devices:
      results: [{request: r, driver: gpu.example.com, pool: )", pool, ", device: ", device,
                      extra.empty() ? "" : ", ", extra, "}]\n");
}

// Four whole GPUs on node n1, gpu-3 tainted by its driver.
constexpr char kGpus[] = R"(
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: n1-gpus}
spec:
  driver: gpu.example.com
  nodeName: n1
  pool: {name: n1, generation: 2, resourceSliceCount: 1}
  devices:
  - {name: gpu-0}
  - {name: gpu-1}
  - {name: gpu-2}
  - name: gpu-3
    taints: [{key: broken, effect: NoSchedule}]
)";

TEST(PoolStatusTest, CountsTotalAllocatedUnavailableAndAvailable) {
  store::Cluster c;
  Load(kGpus, c);
  Load(Allocated("a", "n1", "gpu-0"), c);
  Load(Allocated("b", "n1", "gpu-0"), c);  // the same device twice counts once
  Load(Allocated("watch", "n1", "gpu-1", "adminAccess: true"), c);  // observes, does not take
  const auto s = Compute(c, {.driver = "gpu.example.com"});
  EXPECT_EQ(s.pool_count, 1);
  ASSERT_THAT(s.pools, SizeIs(1));
  const api::PoolStatus& p = s.pools[0];
  EXPECT_EQ(p.driver, "gpu.example.com");
  EXPECT_EQ(p.pool_name, "n1");
  EXPECT_EQ(p.node_name, "n1");
  EXPECT_EQ(p.generation, 2);
  EXPECT_EQ(p.resource_slice_count, 1);
  EXPECT_EQ(p.total_devices, 4);
  EXPECT_EQ(p.allocated_devices, 1);
  EXPECT_EQ(p.unavailable_devices, 1);
  EXPECT_EQ(p.available_devices, 2);
  EXPECT_FALSE(p.validation_error);
  EXPECT_THAT(p.partition_summary, IsEmpty());
  EXPECT_FALSE(p.shareable_summary);
  ASSERT_THAT(s.conditions, SizeIs(1));
  EXPECT_EQ(s.conditions[0].type, "Complete");
  EXPECT_EQ(s.conditions[0].status, "True");
  EXPECT_EQ(s.conditions[0].reason, "CalculationComplete");
  EXPECT_EQ(s.conditions[0].message, "Calculated status for 1 pools");
  EXPECT_EQ(s.conditions[0].last_transition_time, kNow);
  EXPECT_FALSE(HasIncompletePool(s));
}

TEST(PoolStatusTest, AllocatedTaintedDeviceIsSubtractedTwiceAndAvailableStopsAtZero) {
  store::Cluster c;
  Load(kGpus, c);
  for (int i = 0; i < 4; ++i) Load(Allocated(absl::StrCat("c", i), "n1", absl::StrCat("gpu-", i)), c);
  const auto p = Compute(c, {.driver = "gpu.example.com"}).pools.at(0);
  EXPECT_EQ(p.allocated_devices, 4);
  EXPECT_EQ(p.unavailable_devices, 1);
  EXPECT_EQ(p.available_devices, 0);  // 4 - 4 - 1, clamped
}

TEST(PoolStatusTest, AllocationOfAnUnpublishedDeviceCountsAsAllocated) {
  store::Cluster c;
  Load(kGpus, c);
  Load(Allocated("gone", "n1", "gpu-9"), c);
  const auto p = Compute(c, {.driver = "gpu.example.com"}).pools.at(0);
  EXPECT_EQ(p.allocated_devices, 1);
  EXPECT_EQ(p.available_devices, 2);
}

TEST(PoolStatusTest, DeviceTaintRulesWithNoScheduleOrNoExecuteMakeDevicesUnavailable) {
  store::Cluster c;
  Load(kGpus, c);
  Load(R"(
apiVersion: resource.k8s.io/v1
kind: DeviceTaintRule
metadata: {name: drain}
spec:
  deviceSelector: {driver: gpu.example.com, pool: n1, device: gpu-0}
  taint: {key: maintenance, effect: NoExecute}
---
apiVersion: resource.k8s.io/v1
kind: DeviceTaintRule
metadata: {name: note}
spec:
  deviceSelector: {driver: gpu.example.com}
  taint: {key: note, effect: None}
)",
       c);
  const auto p = Compute(c, {.driver = "gpu.example.com"}).pools.at(0);
  EXPECT_EQ(p.unavailable_devices, 2);
  EXPECT_EQ(p.available_devices, 2);
}

TEST(PoolStatusTest, OlderGenerationsAreIgnoredAndAnIncompletePoolHasNoCounts) {
  store::Cluster c;
  Load(R"(
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: old}
spec:
  driver: gpu.example.com
  nodeName: n1
  pool: {name: n1, generation: 1, resourceSliceCount: 1}
  devices: [{name: gpu-0}, {name: gpu-1}]
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: new-a}
spec:
  driver: gpu.example.com
  nodeName: n1
  pool: {name: n1, generation: 3, resourceSliceCount: 2}
  devices: [{name: gpu-0}]
)",
       c);
  auto s = Compute(c, {.driver = "gpu.example.com"});
  ASSERT_THAT(s.pools, SizeIs(1));
  EXPECT_EQ(s.pools[0].generation, 3);
  EXPECT_EQ(s.pools[0].validation_error,
            "PoolIncomplete: pool gpu.example.com/n1 is incomplete: observed 1/2 slices at generation 3");
  EXPECT_FALSE(s.pools[0].total_devices);
  EXPECT_FALSE(s.pools[0].resource_slice_count);
  EXPECT_EQ(s.pools[0].node_name, "n1");
  EXPECT_EQ(s.conditions.at(0).message, "Calculated status for 1 pools (1 incomplete)");
  EXPECT_TRUE(HasIncompletePool(s));

  Load(R"(
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: new-b}
spec:
  driver: gpu.example.com
  nodeName: n2
  pool: {name: n1, generation: 3, resourceSliceCount: 2}
  devices: [{name: gpu-1}, {name: gpu-2}]
)",
       c);
  s = Compute(c, {.driver = "gpu.example.com"});
  EXPECT_FALSE(s.pools[0].validation_error);
  EXPECT_EQ(s.pools[0].total_devices, 3);  // the old slice's two devices are not counted
  EXPECT_EQ(s.pools[0].resource_slice_count, 2);
  EXPECT_FALSE(s.pools[0].node_name);  // slices on different nodes
  EXPECT_FALSE(HasIncompletePool(s));
}

TEST(PoolStatusTest, PoolsAreSortedFilteredAndLimited) {
  store::Cluster c;
  for (const char* pool : {"p-c", "p-a", "p-b"}) {
    Load(absl::StrCat(R"(
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: )", pool, R"(}
spec:
  driver: gpu.example.com
  allNodes: true
  pool: {name: )", pool, R"(, generation: 0, resourceSliceCount: 1}
  devices: [{name: d}]
)"),
         c);
  }
  auto s = Compute(c, {.driver = "gpu.example.com", .limit = 2});
  EXPECT_EQ(s.pool_count, 3);
  ASSERT_THAT(s.pools, SizeIs(2));
  EXPECT_EQ(s.pools[0].pool_name, "p-a");
  EXPECT_EQ(s.pools[1].pool_name, "p-b");
  EXPECT_FALSE(s.pools[0].node_name);
  EXPECT_EQ(s.pools[0].generation, 0);
  EXPECT_EQ(s.conditions.at(0).message, "Calculated status for 2 pools");

  s = Compute(c, {.driver = "gpu.example.com", .pool_name = "p-c"});
  EXPECT_EQ(s.pool_count, 1);
  ASSERT_THAT(s.pools, SizeIs(1));
  EXPECT_EQ(s.pools[0].pool_name, "p-c");

  s = Compute(c, {.driver = "other.example.com"});
  EXPECT_EQ(s.pool_count, 0);
  EXPECT_THAT(s.pools, IsEmpty());
  EXPECT_EQ(s.conditions.at(0).message, "Calculated status for 0 pools");
}

// One GPU of 40Gi split as MIG: one full profile and three halves consuming shared counters.
std::string Mig(const std::string& declared_attr, const std::string& half_profile_attr = "gpu.example.com/profile") {
  return absl::StrCat(R"(
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: n1-mig}
spec:
  driver: gpu.example.com
  nodeName: n1
  pool: {name: mig, generation: 1, resourceSliceCount: 1}
)", declared_attr.empty() ? "" : absl::StrCat("  partitionTypeAttribute: ", declared_attr, "\n"), R"(
  sharedCounters:
  - name: gpu-0
    counters: {memory: {value: 40Gi}}
  devices:
  - name: full
    attributes: {gpu.example.com/profile: {string: 7g.40gb}}
    consumesCounters: [{counterSet: gpu-0, counters: {memory: {value: 40Gi}}}]
  - name: half-0
    attributes: {)", half_profile_attr, R"(: {string: 3g.20gb}}
    consumesCounters: [{counterSet: gpu-0, counters: {memory: {value: 20Gi}}}]
  - name: half-1
    attributes: {)", half_profile_attr, R"(: {string: 3g.20gb}}
    consumesCounters: [{counterSet: gpu-0, counters: {memory: {value: 20Gi}}}]
  - name: half-2
    attributes: {)", half_profile_attr, R"(: {string: 3g.20gb}}
    consumesCounters: [{counterSet: gpu-0, counters: {memory: {value: 20Gi}}}]
)");
}

TEST(PoolStatusTest, PartitionSummaryCountsWhatStillFitsTheSharedCounters) {
  store::Cluster c;
  Load(Mig("gpu.example.com/profile"), c);
  Load(Allocated("a", "mig", "half-0"), c);
  const auto p = Compute(c, {.driver = "gpu.example.com"}).pools.at(0);
  EXPECT_FALSE(p.validation_error);
  EXPECT_EQ(p.total_devices, 4);
  EXPECT_EQ(p.allocated_devices, 1);
  EXPECT_EQ(p.available_devices, 3);  // counters do not make devices unavailable
  ASSERT_THAT(p.partition_summary, SizeIs(2));
  EXPECT_EQ(p.partition_summary[0], (api::PartitionSummary{.attribute = "gpu.example.com/profile",
                                                           .type = "3g.20gb",
                                                           .total = 3,
                                                           .allocatable = 1}));  // 20Gi left
  EXPECT_EQ(p.partition_summary[1], (api::PartitionSummary{.attribute = "gpu.example.com/profile",
                                                           .type = "7g.40gb",
                                                           .total = 1,
                                                           .allocatable = 0}));
}

TEST(PoolStatusTest, RequestDefaultAttributeAppliesOnlyWhenNoSliceDeclaresOne) {
  store::Cluster c;
  Load(Mig("", /*half_profile_attr=*/"profile"), c);  // halves spell the attribute bare
  auto p = Compute(c, {.driver = "gpu.example.com"}).pools.at(0);
  EXPECT_THAT(p.partition_summary, IsEmpty());  // nobody names an attribute
  EXPECT_FALSE(p.validation_error);

  p = Compute(c, {.driver = "gpu.example.com", .default_partition_type_attribute = "gpu.example.com/profile"})
          .pools.at(0);
  EXPECT_FALSE(p.validation_error);
  ASSERT_THAT(p.partition_summary, SizeIs(2));
  EXPECT_EQ(p.partition_summary[0].type, "3g.20gb");
  EXPECT_EQ(p.partition_summary[0].allocatable, 2);  // two halves fit 40Gi
  EXPECT_EQ(p.partition_summary[1].allocatable, 1);
}

TEST(PoolStatusTest, PartitionProblemsAreValidationErrorsAndCountsStay) {
  store::Cluster c;
  Load(Mig("gpu.example.com/profile", /*half_profile_attr=*/"gpu.example.com/other"), c);
  auto p = Compute(c, {.driver = "gpu.example.com"}).pools.at(0);
  EXPECT_EQ(p.validation_error,
            "PartitionTypeMissing: device \"half-0\" in pool gpu.example.com/mig does not carry partition type "
            "attribute \"gpu.example.com/profile\"");
  EXPECT_THAT(p.partition_summary, IsEmpty());
  EXPECT_EQ(p.total_devices, 4);
  EXPECT_EQ(Compute(c, {.driver = "gpu.example.com"}).conditions.at(0).message,
            "Calculated status for 1 pools (1 incomplete)");

  store::Cluster mismatch;
  std::string yaml = Mig("gpu.example.com/profile");
  yaml.replace(yaml.rfind("value: 20Gi"), 11, "value: 10Gi");
  Load(yaml, mismatch);
  EXPECT_EQ(Compute(mismatch, {.driver = "gpu.example.com"}).pools.at(0).validation_error,
            "PartitionCostMismatch: devices of partition type \"3g.20gb\" in pool gpu.example.com/mig consume "
            "different counters");

  store::Cluster no_counters;
  Load(R"(
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: s}
spec:
  driver: gpu.example.com
  allNodes: true
  pool: {name: p, generation: 0, resourceSliceCount: 1}
  partitionTypeAttribute: gpu.example.com/profile
  devices: [{name: d, attributes: {profile: {string: x}}}]
)",
       no_counters);
  EXPECT_EQ(Compute(no_counters, {.driver = "gpu.example.com"}).pools.at(0).validation_error,
            "PartitionTypeMissing: pool gpu.example.com/p declares partitionTypeAttribute but publishes no "
            "sharedCounters");
}

TEST(PoolStatusTest, ShareableSummarySumsCapacityAndConsumption) {
  store::Cluster c;
  Load(R"(
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: shared}
spec:
  driver: gpu.example.com
  nodeName: n1
  pool: {name: shared, generation: 0, resourceSliceCount: 1}
  devices:
  - name: s-0
    allowMultipleAllocations: true
    capacity: {memory: {value: 40Gi}, cores: {value: "100"}}
  - name: s-1
    allowMultipleAllocations: true
    capacity: {memory: {value: 40Gi}, cores: {value: "100"}}
  - name: whole
)",
       c);
  Load(Allocated("a", "shared", "s-0", "shareID: 11111111-1111-1111-1111-111111111111, consumedCapacity: {memory: 10Gi}"), c);
  Load(Allocated("b", "shared", "s-0", "shareID: 22222222-2222-2222-2222-222222222222, consumedCapacity: {memory: 30Gi}"), c);
  Load(Allocated("w", "shared", "s-1", "adminAccess: true, consumedCapacity: {memory: 40Gi}"), c);
  const auto p = Compute(c, {.driver = "gpu.example.com"}).pools.at(0);
  EXPECT_EQ(p.allocated_devices, 1);
  EXPECT_EQ(p.available_devices, 2);
  ASSERT_TRUE(p.shareable_summary);
  EXPECT_EQ(p.shareable_summary->fully_available_devices, 1);
  EXPECT_EQ(p.shareable_summary->partially_available_devices, 1);
  ASSERT_THAT(p.shareable_summary->capacity, SizeIs(2));
  const api::ShareableCapacitySummary& cores = p.shareable_summary->capacity[0];
  EXPECT_EQ(cores.name, "cores");
  EXPECT_EQ(cores.total->Canonical(), "200");
  EXPECT_EQ(cores.consumed->Canonical(), "0");
  EXPECT_EQ(cores.available->Canonical(), "200");
  const api::ShareableCapacitySummary& memory = p.shareable_summary->capacity[1];
  EXPECT_EQ(memory.name, "memory");
  EXPECT_EQ(memory.total->Canonical(), "80Gi");
  EXPECT_EQ(memory.consumed->Canonical(), "40Gi");
  EXPECT_EQ(memory.available->Canonical(), "40Gi");
}

TEST(PoolStatusTest, LongValidationErrorsAreCutAt256Bytes) {
  store::Cluster c;
  const std::string pool(200, 'p');
  Load(absl::StrCat(R"(
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: s}
spec:
  driver: gpu.example.com
  allNodes: true
  pool: {name: )", pool, R"(, generation: 0, resourceSliceCount: 2}
  devices: [{name: d}]
)"),
       c);
  const auto p = Compute(c, {.driver = "gpu.example.com"}).pools.at(0);
  ASSERT_TRUE(p.validation_error);
  EXPECT_EQ(p.validation_error->size(), kPoolValidationErrorMaxBytes);
  EXPECT_TRUE(p.validation_error->starts_with(kPoolIncompletePrefix));
}

}  // namespace
}  // namespace draforge::analysis
