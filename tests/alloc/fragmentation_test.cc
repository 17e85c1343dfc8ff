// Fragmentation (alloc::Fragmentation) and defrag advice (alloc::Defrag) on the fixtures of
// tests/cli/data/whatif: two partitionable GPUs with one half taken on each (fragmentation-
// partitions.yaml), and two nodes with one of two GPUs taken on each (fragmentation-nodes.yaml).
#include "alloc/fragmentation.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "alloc/defrag.h"
#include "api/codec.h"
#include "store/cluster.h"
#include "../common/test_util.h"

namespace draforge::alloc {
namespace {

std::vector<api::Object> Decode(std::string_view yaml) {
  std::vector<api::Object> out;
  auto decoded = api::DecodeStream(yaml, api::DecodeOptions{});
  EXPECT_TRUE(decoded.ok()) << decoded.status();
  if (!decoded.ok()) return out;
  for (auto& d : *decoded) {
    EXPECT_TRUE(d.object.ok()) << "object " << d.index << ": " << d.object.status();
    if (d.object.ok()) out.push_back(*std::move(d.object));
  }
  return out;
}

std::string Fixture(std::string_view name) {
  return draforge::testing::ReadFile(draforge::testing::SourceRoot() / "tests" / "cli" / "data" / "whatif" /
                                     std::string(name));
}

std::shared_ptr<const store::Snapshot> Load(std::string_view yaml) {
  store::Cluster cluster;
  for (api::Object& o : Decode(yaml)) EXPECT_TRUE(cluster.Apply(std::move(o)).ok());
  return cluster.snapshot();
}

const KindFragmentation* KindBySize(const std::vector<KindFragmentation>& kinds, std::string_view size) {
  for (const auto& k : kinds) {
    if (k.size == size) return &k;
  }
  return nullptr;
}

TEST(Fragmentation, WholeGpuBlockedByHalvesOnBothCounterSets) {
  auto s = Load(Fixture("fragmentation-partitions.yaml"));
  const FragmentationReport r = Fragmentation(*s);
  ASSERT_EQ(r.pools.size(), 1u);
  const PoolFragmentation& p = r.pools[0];
  EXPECT_EQ(p.node, "node-a");
  ASSERT_EQ(p.kinds.size(), 2u);
  const KindFragmentation* whole = KindBySize(p.kinds, "memory=80Gi");
  ASSERT_NE(whole, nullptr);
  EXPECT_EQ(whole->kind, "gpu-0");
  EXPECT_EQ(whole->devices, 2);
  EXPECT_EQ(whole->allocated, 0);
  EXPECT_EQ(whole->free, 2);
  EXPECT_EQ(whole->fit, 0);    // each GPU has 40Gi of 80Gi left
  EXPECT_EQ(whole->ideal, 1);  // 80Gi left in all: one whole GPU if the halves were packed
  EXPECT_DOUBLE_EQ(whole->score, 1.0);
  const KindFragmentation* half = KindBySize(p.kinds, "memory=40Gi");
  ASSERT_NE(half, nullptr);
  EXPECT_EQ(half->kind, "gpu-0-half-0");
  EXPECT_EQ(half->devices, 4);
  EXPECT_EQ(half->allocated, 2);
  EXPECT_EQ(half->free, 2);
  EXPECT_EQ(half->fit, 2);
  EXPECT_EQ(half->ideal, 2);
  EXPECT_DOUBLE_EQ(half->score, 0.0);
  ASSERT_EQ(p.counters.size(), 2u);
  EXPECT_EQ(p.counters[0].counter_set, "gpu-0");
  EXPECT_EQ(p.counters[0].free.String(), "40Gi");
  // The node sums its one pool; the cluster has one node.
  ASSERT_EQ(r.nodes.size(), 1u);
  EXPECT_EQ(KindBySize(r.nodes[0].kinds, "memory=80Gi")->fit, 0);
  ASSERT_EQ(r.kinds.size(), 2u);
}

TEST(Fragmentation, PackedHalvesLeaveAWholeGpu) {
  // Both halves on gpu-0: gpu-1 is whole and free, nothing is fragmented.
  std::string yaml = Fixture("fragmentation-partitions.yaml");
  const std::string from = "device: gpu-1-half-0";
  yaml.replace(yaml.find(from), from.size(), "device: gpu-0-half-0");
  auto s = Load(yaml);
  const FragmentationReport r = Fragmentation(*s);
  const KindFragmentation* whole = KindBySize(r.pools[0].kinds, "memory=80Gi");
  ASSERT_NE(whole, nullptr);
  EXPECT_EQ(whole->fit, 1);
  EXPECT_EQ(whole->ideal, 1);
  EXPECT_DOUBLE_EQ(whole->score, 0.0);
}

TEST(Fragmentation, AcrossNodesTheLargestShapeIsOnOneNode) {
  auto s = Load(Fixture("fragmentation-nodes.yaml"));
  const FragmentationReport r = Fragmentation(*s);
  ASSERT_EQ(r.nodes.size(), 2u);
  for (const NodeFragmentation& n : r.nodes) {
    ASSERT_EQ(n.kinds.size(), 1u);
    EXPECT_EQ(n.kinds[0].fit, 1);
    EXPECT_DOUBLE_EQ(n.kinds[0].score, 0.0);  // no counters: a node is never fragmented inside
  }
  ASSERT_EQ(r.kinds.size(), 1u);
  EXPECT_EQ(r.kinds[0].fit, 2);
  EXPECT_EQ(r.kinds[0].largest_fit, 1);
  EXPECT_EQ(r.kinds[0].largest_node, "node-a");
  EXPECT_DOUBLE_EQ(r.kinds[0].score, 0.5);
}

TEST(Fragmentation, TaintedDevicesAreNotFree) {
  std::string yaml = Fixture("fragmentation-nodes.yaml");
  const std::string from = "devices: [{name: gpu-0}, {name: gpu-1}]";
  yaml.replace(yaml.find(from), from.size(),
               "devices: [{name: gpu-0}, {name: gpu-1, taints: [{key: broken, effect: NoSchedule}]}]");
  auto s = Load(yaml);
  const FragmentationReport r = Fragmentation(*s);
  EXPECT_EQ(r.nodes[0].kinds[0].tainted, 1);
  EXPECT_EQ(r.nodes[0].kinds[0].free, 0);
  EXPECT_EQ(r.kinds[0].largest_node, "node-b");
}

TEST(Fragmentation, ConsumableCapacityLargestFreeOnOneDevice) {
  // Two NICs of 100G that allow multiple allocations, 60G taken on each: 80G free, 40G at most on
  // one NIC: a 50G share fits nowhere (score 0.5).
  const std::string yaml = R"(apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: node-a-nics}
spec:
  driver: nic.example.com
  nodeName: node-a
  pool: {name: node-a, generation: 1, resourceSliceCount: 1}
  devices:
  - {name: nic-0, allowMultipleAllocations: true, capacity: {bandwidth: {value: 100G}}}
  - {name: nic-1, allowMultipleAllocations: true, capacity: {bandwidth: {value: 100G}}}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: a, namespace: ns}
spec: {devices: {requests: [{name: r, exactly: {deviceClassName: nic}}]}}
status:
  allocation:
    devices:
      results:
      - {request: r, driver: nic.example.com, pool: node-a, device: nic-0, shareID: 11111111-1111-1111-1111-111111111111, consumedCapacity: {bandwidth: 60G}}
      - {request: r, driver: nic.example.com, pool: node-a, device: nic-1, shareID: 22222222-2222-2222-2222-222222222222, consumedCapacity: {bandwidth: 60G}}
)";
  auto s = Load(yaml);
  const FragmentationReport r = Fragmentation(*s);
  ASSERT_EQ(r.nodes.size(), 1u);
  ASSERT_EQ(r.nodes[0].capacity.size(), 1u);
  const CapacityFragmentation& c = r.nodes[0].capacity[0];
  EXPECT_EQ(c.name, "bandwidth");
  EXPECT_EQ(c.devices, 2);
  EXPECT_EQ(c.capacity.String(), "200G");
  EXPECT_EQ(c.consumed.String(), "120G");
  EXPECT_EQ(c.free.String(), "80G");
  EXPECT_EQ(c.largest.String(), "40G");
  EXPECT_DOUBLE_EQ(c.score, 0.5);
  // The NICs are in use (shared): none is free for a whole-device claim.
  EXPECT_EQ(r.nodes[0].kinds[0].allocated, 2);
}

DefragAdvice AdviceFor(std::string_view cluster_yaml, std::string_view shape_yaml, DefragOptions options = {}) {
  auto s = Load(cluster_yaml);
  auto shape = ShapeFromObjects(Decode(shape_yaml));
  EXPECT_TRUE(shape.ok()) << shape.status();
  if (!shape.ok()) return {};
  auto advice = Defrag(*s, *shape, options);
  EXPECT_TRUE(advice.ok()) << advice.status();
  return advice.ok() ? *advice : DefragAdvice{};
}

TEST(Defrag, OneMovePacksTheHalvesOntoOneGpu) {
  const DefragAdvice a = AdviceFor(Fixture("fragmentation-partitions.yaml"), Fixture("shape-whole-gpu.yaml"));
  EXPECT_EQ(a.shape, "resourceclaim team-a/whole-gpu");
  EXPECT_FALSE(a.fits_now);
  ASSERT_EQ(a.blocked.size(), 1u);
  EXPECT_EQ(a.blocked[0].filter, "DynamicResources");
  ASSERT_TRUE(a.found) << a.why;
  EXPECT_EQ(a.node, "node-a");
  ASSERT_EQ(a.moves.size(), 1u);
  // Moving user-a (gpu-0's half) lands on gpu-0 again (first fit): only user-b's move works.
  EXPECT_EQ(a.moves[0].pods, (std::vector<std::string>{"team-a/user-b"}));
  EXPECT_EQ(a.moves[0].claims, (std::vector<std::string>{"team-a/half-b"}));
  EXPECT_EQ(a.moves[0].from_node, "node-a");
  EXPECT_EQ(a.moves[0].to_node, "node-a");
  EXPECT_EQ(a.moves[0].from_devices, (std::vector<std::string>{"gpu.example.com/node-a/gpu-1-half-0"}));
  EXPECT_EQ(a.moves[0].to_devices, (std::vector<std::string>{"gpu.example.com/node-a/gpu-0-half-0"}));
  EXPECT_EQ(a.trials, 2);
  EXPECT_EQ(a.shape_node, "node-a");
  ASSERT_EQ(a.shape_claims.size(), 1u);
  ASSERT_TRUE(a.shape_claims[0].allocation.devices);
  EXPECT_EQ(a.shape_claims[0].allocation.devices->results[0].device, "gpu-1");
}

TEST(Defrag, NoAnswerWithinTheMovesAllowed) {
  DefragOptions o;
  o.max_moves = 2;
  const DefragAdvice a =
      AdviceFor(Fixture("fragmentation-partitions.yaml"), Fixture("shape-two-whole-gpus.yaml"), o);
  EXPECT_EQ(a.shape, "resourceclaimtemplate team-a/two-whole-gpus");
  EXPECT_FALSE(a.fits_now);
  EXPECT_FALSE(a.found);
  EXPECT_FALSE(a.budget_exhausted);
  EXPECT_TRUE(a.moves.empty());
  // 2 single moves and 1 pair pass the pruning check (both GPUs empty) but the pair has nowhere to go.
  EXPECT_EQ(a.trials, 3);
  EXPECT_EQ(a.why, "no set of at most 2 moves among 2 consumer groups on 1 node frees room (3 sets tried)");
}

TEST(Defrag, TheBudgetStopsTheSearchAndSaysSo) {
  DefragOptions o;
  o.max_trials = 1;
  const DefragAdvice a = AdviceFor(Fixture("fragmentation-partitions.yaml"), Fixture("shape-whole-gpu.yaml"), o);
  EXPECT_FALSE(a.found);
  EXPECT_TRUE(a.budget_exhausted);
  EXPECT_EQ(a.trials, 1);
}

TEST(Defrag, AShapeThatFitsNeedsNoMove) {
  std::string yaml = Fixture("fragmentation-partitions.yaml");
  const std::string from = "device: gpu-1-half-0";
  yaml.replace(yaml.find(from), from.size(), "device: gpu-0-half-0");
  const DefragAdvice a = AdviceFor(yaml, Fixture("shape-whole-gpu.yaml"));
  EXPECT_TRUE(a.fits_now);
  EXPECT_EQ(a.shape_node, "node-a");
  EXPECT_EQ(a.trials, 0);
}

TEST(Defrag, APendingPodMovesAnotherPodToTheOtherNode) {
  auto s = Load(Fixture("fragmentation-nodes.yaml"));
  auto shape = ShapeFromPod(*s, "team-a", "pair");
  ASSERT_TRUE(shape.ok()) << shape.status();
  auto a = Defrag(*s, *shape);
  ASSERT_TRUE(a.ok()) << a.status();
  ASSERT_TRUE(a->found) << a->why;
  EXPECT_EQ(a->node, "node-a");
  ASSERT_EQ(a->moves.size(), 1u);
  EXPECT_EQ(a->moves[0].pods, (std::vector<std::string>{"team-a/small-a"}));
  EXPECT_EQ(a->moves[0].from_node, "node-a");
  EXPECT_EQ(a->moves[0].to_node, "node-b");
  EXPECT_EQ(a->moves[0].to_devices, (std::vector<std::string>{"gpu.example.com/node-b/gpu-1"}));
  // The template claim is deleted with the pod and made again for the new one.
  ASSERT_EQ(a->moves[0].claims_after.size(), 1u);
  EXPECT_NE(a->moves[0].claims_after[0], "team-a/small-a-gpus-abcde");
  EXPECT_EQ(a->shape_node, "node-a");
}

TEST(Defrag, DaemonSetPodsNeverMove) {
  std::string yaml = Fixture("fragmentation-nodes.yaml");
  for (const std::string pod : {"small-a", "small-b"}) {
    const std::string from = "metadata: {name: " + pod + ", namespace: team-a, uid: uid-" + pod + "}";
    yaml.replace(yaml.find(from), from.size(),
                 "metadata: {name: " + pod + ", namespace: team-a, uid: uid-" + pod +
                     ", ownerReferences: [{apiVersion: apps/v1, kind: DaemonSet, name: ds, uid: ds, controller: true}]}");
  }
  auto s = Load(yaml);
  auto shape = ShapeFromPod(*s, "team-a", "pair");
  ASSERT_TRUE(shape.ok()) << shape.status();
  auto a = Defrag(*s, *shape);
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_FALSE(a->found);
  EXPECT_EQ(a->trials, 0);
  EXPECT_EQ(a->why, "no set of at most 3 moves among 0 consumer groups on 0 nodes frees room (0 sets tried)");
}

TEST(Defrag, AMovedPodKeepsItsOwnNodeAffinity) {
  // small-a may only run on node-a (matchFields, ANDed with the move's pin): it cannot move to
  // node-b, so small-b moves to node-a instead and the pair goes to node-b.
  std::string yaml = Fixture("fragmentation-nodes.yaml");
  const std::string from = "  nodeName: node-a\n  containers";
  yaml.replace(yaml.find(from), from.size(),
               "  nodeName: node-a\n  affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: "
                      "{nodeSelectorTerms: [{matchFields: [{key: metadata.name, operator: In, values: [node-a]}]}]}}}\n"
               "  containers");
  auto s = Load(yaml);
  auto shape = ShapeFromPod(*s, "team-a", "pair");
  ASSERT_TRUE(shape.ok()) << shape.status();
  auto a = Defrag(*s, *shape);
  ASSERT_TRUE(a.ok()) << a.status();
  ASSERT_TRUE(a->found) << a->why;
  EXPECT_EQ(a->node, "node-b");
  ASSERT_EQ(a->moves.size(), 1u);
  EXPECT_EQ(a->moves[0].pods, (std::vector<std::string>{"team-a/small-b"}));
  EXPECT_EQ(a->moves[0].to_node, "node-a");
  EXPECT_EQ(a->shape_node, "node-b");
}

TEST(Defrag, AShapeWhoseClaimIsMissingNeedsNoSearch) {
  auto s = Load(Fixture("fragmentation-nodes.yaml"));
  const std::string pod = R"(apiVersion: v1
kind: Pod
metadata: {name: lost, namespace: team-a}
spec:
  containers: [{name: c, image: i}]
  resourceClaims: [{name: g, resourceClaimName: nowhere}]
)";
  auto shape = ShapeFromObjects(Decode(pod));
  ASSERT_TRUE(shape.ok()) << shape.status();
  auto a = Defrag(*s, *shape);
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_FALSE(a->found);
  EXPECT_EQ(a->trials, 0);
  EXPECT_TRUE(absl::StartsWith(a->why, "no move can help: ")) << a->why;
}

TEST(Defrag, BadOptionsAreErrors) {
  auto s = Load(Fixture("fragmentation-nodes.yaml"));
  auto shape = ShapeFromPod(*s, "team-a", "pair");
  ASSERT_TRUE(shape.ok());
  DefragOptions o;
  o.max_moves = 0;
  EXPECT_EQ(Defrag(*s, *shape, o).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ShapeFromPod(*s, "team-a", "nope").status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(ShapeFromObjects({}).status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace draforge::alloc
