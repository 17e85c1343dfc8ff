// lib/sim expansion: golden files per profile, determinism, slice layout and the rules real drivers
// follow, and bad input refused before anything is produced.
//
// Golden files: tests/sim/testdata/golden/<profile>.yaml is what `draforge sim expand -o yaml`
// prints for tests/sim/testdata/pools/<profile>.yaml. To regenerate after a deliberate change, run
// this test with DRAFORGE_UPDATE_GOLDEN=1 and review the diff.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "absl/strings/match.h"
#include "api/validation.h"
#include "sim/profiles.h"
#include "sim_test_util.h"

namespace draforge::sim::testing {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

std::vector<std::string> PoolFiles() {
  std::vector<std::string> out;
  for (const ProfileInfo& p : Profiles()) out.emplace_back(p.name);
  return out;
}

class GoldenTest : public ::testing::TestWithParam<std::string> {};

TEST_P(GoldenTest, MatchesGoldenFile) {
  auto pool = LoadPool(TestData() / "pools" / (GetParam() + ".yaml"));
  ASSERT_TRUE(pool.ok()) << pool.status();
  auto expansion = Expand(*pool);
  ASSERT_TRUE(expansion.ok()) << expansion.status();
  auto yaml = SlicesYaml(expansion->slices);
  ASSERT_TRUE(yaml.ok()) << yaml.status();
  const fs::path golden = TestData() / "golden" / (GetParam() + ".yaml");
  if (std::getenv("DRAFORGE_UPDATE_GOLDEN") != nullptr) {
    std::ofstream(golden, std::ios::binary) << *yaml;
  }
  auto want = ReadFile(golden);
  ASSERT_TRUE(want.ok()) << want.status() << " (run with DRAFORGE_UPDATE_GOLDEN=1 to create it)";
  EXPECT_EQ(*yaml, *want) << "expansion of " << GetParam() << " differs from " << golden;
}

TEST_P(GoldenTest, SameInputGivesByteIdenticalOutput) {
  // Decode the file twice from scratch: nothing may depend on addresses, hash order or time.
  auto a = LoadPool(TestData() / "pools" / (GetParam() + ".yaml"));
  auto b = LoadPool(TestData() / "pools" / (GetParam() + ".yaml"));
  ASSERT_TRUE(a.ok() && b.ok());
  auto ea = Expand(*a);
  auto eb = Expand(*b);
  ASSERT_TRUE(ea.ok() && eb.ok());
  auto ya = SlicesYaml(ea->slices);
  auto yb = SlicesYaml(eb->slices);
  ASSERT_TRUE(ya.ok() && yb.ok());
  EXPECT_EQ(*ya, *yb);
  EXPECT_FALSE(ya->empty());
}

TEST_P(GoldenTest, EverySliceIsValidAndPoolsAreConsistent) {
  auto pool = LoadPool(TestData() / "pools" / (GetParam() + ".yaml"));
  ASSERT_TRUE(pool.ok()) << pool.status();
  auto expansion = Expand(*pool);
  ASSERT_TRUE(expansion.ok()) << expansion.status();
  std::map<std::string, int64_t> slices_per_pool;
  std::set<std::string> device_names_per_pool;
  for (const api::ResourceSlice& s : expansion->slices) {
    EXPECT_THAT(api::ValidateResourceSlice(s), ::testing::IsEmpty()) << s.metadata.name.value_or("");
    const std::string pool_name = *s.spec->pool->name;
    ++slices_per_pool[pool_name];
    // Every slice of a pool states the same count, and the count is the number of slices.
    for (const api::ResourceSlice& t : expansion->slices) {
      if (*t.spec->pool->name == pool_name) {
        EXPECT_EQ(t.spec->pool->resource_slice_count, s.spec->pool->resource_slice_count);
        EXPECT_EQ(t.spec->pool->generation, s.spec->pool->generation);
      }
    }
    // Device names are unique within a pool (across its slices).
    for (const api::Device& d : s.spec->devices) {
      EXPECT_TRUE(device_names_per_pool.insert(pool_name + "/" + *d.name).second) << *d.name;
    }
    EXPECT_EQ(s.metadata.labels.Find(kManagedByLabel) != nullptr, true);
    EXPECT_EQ(*s.metadata.labels.Find(kPoolLabel), *pool->metadata.name);
  }
  for (const api::ResourceSlice& s : expansion->slices) {
    EXPECT_EQ(*s.spec->pool->resource_slice_count, slices_per_pool[*s.spec->pool->name]);
  }
}

INSTANTIATE_TEST_SUITE_P(Profiles, GoldenTest, ::testing::ValuesIn(PoolFiles()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string n = info.param;
                           for (char& c : n) c = c == '-' ? '_' : c;
                           return n;
                         });

SimulatedDevicePool Pool(const std::string& profile, int64_t devices, std::vector<std::string> nodes = {"node-1"}) {
  SimulatedDevicePool p;
  p.metadata.name = "p";
  p.spec.profile = profile;
  p.spec.nodes.names = std::move(nodes);
  p.spec.devices_per_node = devices;
  return p;
}

TEST(ExpandLayout, CustomPoolOf300DevicesIsSplitInto128DeviceSlices) {
  SimulatedDevicePool p = Pool("custom", 300);
  p.spec.driver = "dev.example.org";
  p.spec.device_template = api::Device{};
  p.spec.device_template->name = "d";
  auto e = Expand(p);
  ASSERT_TRUE(e.ok()) << e.status();
  ASSERT_EQ(e->slices.size(), 3u);
  EXPECT_EQ(e->slices[0].spec->devices.size(), 128u);
  EXPECT_EQ(e->slices[1].spec->devices.size(), 128u);
  EXPECT_EQ(e->slices[2].spec->devices.size(), 44u);
  EXPECT_EQ(*e->slices[0].metadata.name, "p-node-1-0");
  EXPECT_EQ(*e->slices[2].metadata.name, "p-node-1-2");
  for (const auto& s : e->slices) EXPECT_EQ(s.spec->pool->resource_slice_count, 3);
  EXPECT_EQ(*e->slices[2].spec->devices.back().name, "d-299");
}

TEST(ExpandLayout, TaintedDevicesGoIntoSlicesOfAtMost64) {
  SimulatedDevicePool p = Pool("custom", 100);
  p.spec.driver = "dev.example.org";
  p.spec.device_template = api::Device{};
  p.spec.device_template->taints.push_back(api::DeviceTaint{"example.org/maintenance", std::nullopt, "NoSchedule", {}});
  auto e = Expand(p);
  ASSERT_TRUE(e.ok()) << e.status();
  ASSERT_EQ(e->slices.size(), 2u);
  EXPECT_EQ(e->slices[0].spec->devices.size(), 64u);
  EXPECT_EQ(e->slices[1].spec->devices.size(), 36u);
}

TEST(ExpandLayout, MigCountersArePublishedInTheirOwnSlicesBeforeTheDevices) {
  auto e = Expand(Pool("nvidia-gpu-mig", 9));
  ASSERT_TRUE(e.ok()) << e.status();
  // 9 counter sets: 8 in the first slice, 1 in the second; 9 x 19 = 171 devices at 64 per slice.
  ASSERT_EQ(e->slices.size(), 5u);
  EXPECT_EQ(e->slices[0].spec->shared_counters.size(), 8u);
  EXPECT_TRUE(e->slices[0].spec->devices.empty());
  EXPECT_EQ(e->slices[1].spec->shared_counters.size(), 1u);
  EXPECT_EQ(e->slices[2].spec->devices.size(), 64u);
  EXPECT_EQ(e->slices[4].spec->devices.size(), 171u - 128u);
  // The counter slices are bound to the node like the devices (every slice of a node-local pool is).
  EXPECT_EQ(e->slices[0].spec->node_name, "node-1");
  EXPECT_EQ(*e->slices[0].spec->shared_counters[0].name, "gpu-0-counter-set");
  EXPECT_EQ(*e->slices[2].spec->devices[1].name, "gpu-0-mig-1g5gb-19-0");
}

TEST(ExpandLayout, NetworkAttachedPoolsUseTheObjectNameAndNodeSelection) {
  SimulatedDevicePool p = Pool("example-net", 2, {});
  p.spec.nodes.all_nodes = true;
  auto e = Expand(p);
  ASSERT_TRUE(e.ok()) << e.status();
  ASSERT_EQ(e->slices.size(), 1u);
  EXPECT_EQ(*e->slices[0].metadata.name, "p-0");
  EXPECT_EQ(e->slices[0].spec->pool->name, "p");
  EXPECT_EQ(e->slices[0].spec->all_nodes, true);
  EXPECT_FALSE(e->slices[0].spec->node_name.has_value());
}

TEST(ExpandLayout, CpuIndividualPublishesOneSlicePerNumaNode) {
  SimulatedDevicePool p = Pool("cpu-individual", 192);
  p.spec.options.Set("numaNodes", "2");
  auto e = Expand(p);
  ASSERT_TRUE(e.ok()) << e.status();
  ASSERT_EQ(e->slices.size(), 2u);
  EXPECT_EQ(e->slices[0].spec->devices.size(), 96u);
  EXPECT_EQ(e->slices[0].spec->devices[0].attributes.Find("dra.cpu/numaNodeID")->int_value(), 0);
  EXPECT_EQ(e->slices[1].spec->devices[0].attributes.Find("dra.cpu/numaNodeID")->int_value(), 1);
}

TEST(ExpandLayout, DifferentNodesGetDifferentUuidsAndTheSameNodeTheSame) {
  auto e = Expand(Pool("example-gpu", 2, {"node-1", "node-2"}));
  ASSERT_TRUE(e.ok());
  ASSERT_EQ(e->slices.size(), 2u);
  const std::string a(*e->slices[0].spec->devices[0].attributes.Find("uuid")->string_value());
  const std::string b(*e->slices[1].spec->devices[0].attributes.Find("uuid")->string_value());
  EXPECT_NE(a, b);
  auto again = Expand(Pool("example-gpu", 2, {"node-1"}));
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again->slices[0].spec->devices[0].attributes.Find("uuid")->string_value(), a);
  EXPECT_TRUE(absl::StartsWith(a, "gpu-"));
}

TEST(ExpandLayout, PoolGenerationComesFromTheSpec) {
  SimulatedDevicePool p = Pool("example-gpu", 1);
  p.spec.pool_generation = 7;
  auto e = Expand(p);
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->slices[0].spec->pool->generation, 7);
  EXPECT_EQ(e->pools[0].generation, 7);
}

TEST(ExpandLayout, OwnerReferenceIsAddedForTheController) {
  ExpandOptions options;
  options.owner = api::OwnerReference{std::string(kApiVersion), std::string(kKind), "p", "uid-1", true, true};
  auto e = Expand(Pool("example-gpu", 1), options);
  ASSERT_TRUE(e.ok());
  ASSERT_EQ(e->slices[0].metadata.owner_references.size(), 1u);
  EXPECT_EQ(e->slices[0].metadata.owner_references[0].uid, "uid-1");
}

TEST(ExpandLayout, TwoObjectsPublishingTheSamePoolAreRefused) {
  SimulatedDevicePool a = Pool("nvidia-gpu", 1);
  SimulatedDevicePool b = Pool("nvidia-gpu-mig", 1);
  b.metadata.name = "q";
  auto e = ExpandAll({a, b});
  ASSERT_FALSE(e.ok());
  EXPECT_THAT(e.status().message(), HasSubstr("pool gpu.nvidia.com/node-1 is already published by SimulatedDevicePool \"p\""));
}

// ---------------------------------------------------------------------------------------------
// Bad input: refused with the object and field named, before anything is produced.

TEST(ExpandBadInput, UnknownProfile) {
  auto e = Expand(Pool("nvidia-h200", 8));
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(e.status().message(), HasSubstr("SimulatedDevicePool \"p\": spec.profile: Unsupported value: \"nvidia-h200\""));
  EXPECT_THAT(e.status().message(), HasSubstr("nvidia-gpu-mig"));
}

TEST(ExpandBadInput, ThreeHundredGpusOnOneNodeOfTheExampleDriver) {
  auto e = Expand(Pool("example-gpu", 300));
  ASSERT_FALSE(e.ok());
  EXPECT_THAT(e.status().message(), HasSubstr("spec.devicesPerNode: Invalid value: 300"));
  EXPECT_THAT(e.status().message(), HasSubstr("in one ResourceSlice, and a ResourceSlice holds at most 128 devices"));
}

TEST(ExpandBadInput, ThreeHundredCpusOnTwoNumaNodes) {
  SimulatedDevicePool p = Pool("cpu-individual", 300);
  auto e = Expand(p);
  ASSERT_FALSE(e.ok());
  EXPECT_THAT(e.status().message(), HasSubstr("one ResourceSlice per NUMA node"));
  EXPECT_THAT(e.status().message(), HasSubstr("2 NUMA nodes hold at most 256 CPUs"));
  p.spec.options.Set("numaNodes", "6");
  EXPECT_TRUE(Expand(p).ok()) << "spread over 6 NUMA nodes, 50 CPUs each fit";
}

TEST(ExpandBadInput, ATypoOfAFewZerosIsAnErrorNotAnOutOfMemoryKill) {
  SimulatedDevicePool p = Pool("custom", 100000000);
  p.spec.driver = "dev.example.org";
  p.spec.device_template = api::Device{};
  auto e = Expand(p);
  ASSERT_FALSE(e.ok());
  EXPECT_THAT(e.status().message(), HasSubstr("spec.devicesPerNode: Invalid value: 100000000: must be at most 4096"));
  p = Pool("nvidia-gpu", 4000, std::vector<std::string>(20, "n"));
  for (int i = 0; i < 20; ++i) p.spec.nodes.names[i] = "node-" + std::to_string(i);
  e = Expand(p);
  ASSERT_FALSE(e.ok());
  EXPECT_THAT(e.status().message(), HasSubstr("20 pools of 4000 make 80000, more than the 65536"));
}

TEST(ExpandBadInput, TooManyPartitionedGpus) {
  auto e = Expand(Pool("example-gpu-partitionable", 20));
  ASSERT_FALSE(e.ok());
  EXPECT_THAT(e.status().message(), HasSubstr("this allows at most 8 GPUs per node"));
}

TEST(ExpandBadInput, OverrideThatBreaksValidation) {
  SimulatedDevicePool p = Pool("example-gpu", 2);
  api::DeviceAttribute long_string;
  long_string.set_string_value(std::string(65, 'x'));
  p.spec.attributes.Set("model", long_string);
  auto e = Expand(p);
  ASSERT_FALSE(e.ok());
  EXPECT_THAT(e.status().message(), HasSubstr("SimulatedDevicePool \"p\": the expanded slices would be rejected"));
  EXPECT_THAT(e.status().message(), HasSubstr("ResourceSlice.resource.k8s.io \"p-node-1-0\" is invalid"));
  EXPECT_THAT(e.status().message(), HasSubstr("spec.devices[0].attributes[model]"));
}

TEST(ExpandBadInput, UnknownOption) {
  SimulatedDevicePool p = Pool("google-tpu", 4);
  p.spec.options.Set("partitions", "2");
  auto e = Expand(p);
  ASSERT_FALSE(e.ok());
  EXPECT_THAT(e.status().message(), HasSubstr("spec.options[partitions]: Unsupported value: profile google-tpu has the "
                                              "options accelerator, topology, tpuGen"));
}

TEST(ExpandBadInput, NodeSelectionIsExactlyOne) {
  SimulatedDevicePool p = Pool("example-gpu", 1);
  p.spec.nodes.all_nodes = true;
  auto e = Expand(p);
  ASSERT_FALSE(e.ok());
  EXPECT_THAT(e.status().message(), HasSubstr("spec.nodes: Invalid value: exactly one of"));
}

TEST(ExpandBadInput, TaintOnAMissingDevice) {
  SimulatedDevicePool p = Pool("example-gpu", 2);
  p.spec.taints.push_back(TaintSpec{{}, {"gpu-9"}, api::DeviceTaint{"k", std::nullopt, "NoSchedule", {}}});
  auto e = Expand(p);
  ASSERT_FALSE(e.ok());
  EXPECT_THAT(e.status().message(), HasSubstr("spec.taints[0].devices[0]: Not found: \"gpu-9\""));
}

// Decoding: the pool's own fields and the resource.k8s.io-shaped ones are checked strictly.

absl::StatusOr<SimulatedDevicePool> DecodeText(const std::string& yaml) {
  auto decoded = api::DecodeStream(yaml, api::DecodeOptions{});
  if (!decoded.ok()) return decoded.status();
  if (decoded->size() != 1 || !(*decoded)[0].object.ok()) return absl::InternalError("not one object");
  return DecodeSimulatedDevicePool(*(*decoded)[0].object);
}

TEST(DecodeBadInput, WrongTypeNamesTheField) {
  auto p = DecodeText(R"(apiVersion: sim.draforge.io/v1alpha1
kind: SimulatedDevicePool
metadata: {name: gpus}
spec: {profile: nvidia-gpu, nodes: {names: [n1]}, devicesPerNode: "eight"}
)");
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().message(), "SimulatedDevicePool \"gpus\": spec.devicesPerNode: expected integer, got string");
}

TEST(DecodeBadInput, MisspeltFieldIsAnError) {
  auto p = DecodeText(R"(apiVersion: sim.draforge.io/v1alpha1
kind: SimulatedDevicePool
metadata: {name: gpus}
spec: {profile: nvidia-gpu, nodes: {names: [n1]}, devicePerNode: 8}
)");
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().message(), "SimulatedDevicePool \"gpus\": spec.devicePerNode: unknown field");
}

TEST(DecodeBadInput, AttributeOverrideIsCheckedByTheResourceSliceDecoder) {
  auto p = DecodeText(R"(apiVersion: sim.draforge.io/v1alpha1
kind: SimulatedDevicePool
metadata: {name: gpus}
spec:
  profile: nvidia-gpu
  nodes: {names: [n1]}
  attributes:
    productName: {int: "A100"}
)");
  ASSERT_FALSE(p.ok());
  EXPECT_THAT(p.status().message(), HasSubstr("SimulatedDevicePool \"gpus\": spec.attributes[productName].int"));
}

TEST(DecodeBadInput, UnknownFaultType) {
  auto p = DecodeText(R"(apiVersion: sim.draforge.io/v1alpha1
kind: SimulatedDevicePool
metadata: {name: gpus}
spec:
  profile: nvidia-gpu
  nodes: {names: [n1]}
  faults:
  - {name: f, type: meltdown}
)");
  ASSERT_FALSE(p.ok());
  EXPECT_THAT(p.status().message(), HasSubstr("spec.faults[0].type: Unsupported value: \"meltdown\""));
}

TEST(Decode, EveryFieldRoundTripsThroughTheTypes) {
  auto p = DecodeText(R"(apiVersion: sim.draforge.io/v1alpha1
kind: SimulatedDevicePool
metadata: {name: gpus, labels: {team: a}}
spec:
  driver: gpu.nvidia.com
  profile: nvidia-gpu
  nodes: {names: [n1, n2]}
  devicesPerNode: 4
  poolGeneration: 2
  options: {model: H100-80GB-HBM3}
  capacity: {memory: {value: 80Gi}}
  taints: [{devices: [gpu-1], key: example.com/maintenance, effect: NoSchedule}]
  bindingConditions: [Ready]
  bindingFailureConditions: [Failed]
  bindsToNode: true
  faults:
  - {name: x, type: xid, nodes: [n2], devices: [gpu-0], xid: 79}
status: {anything: ignored}
)");
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->metadata.labels.Find("team") != nullptr, true);
  EXPECT_EQ(p->spec.devices_per_node, 4);
  EXPECT_EQ(p->spec.pool_generation, 2);
  EXPECT_EQ(*p->spec.options.Find("model"), "H100-80GB-HBM3");
  EXPECT_EQ(p->spec.capacity.Find("memory")->value->String(), "80Gi");
  ASSERT_EQ(p->spec.taints.size(), 1u);
  EXPECT_EQ(p->spec.taints[0].taint.key, "example.com/maintenance");
  ASSERT_EQ(p->spec.faults.size(), 1u);
  EXPECT_EQ(p->spec.faults[0].type, FaultType::kXid);
  EXPECT_EQ(p->spec.faults[0].xid, 79);
  auto e = Expand(*p);
  ASSERT_TRUE(e.ok()) << e.status();
  EXPECT_EQ(e->slices.size(), 2u);
  EXPECT_EQ(*e->slices[0].spec->devices[0].attributes.Find("productName")->string_value(), "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(e->slices[0].spec->devices[0].binds_to_node, true);
}

}  // namespace
}  // namespace draforge::sim::testing
