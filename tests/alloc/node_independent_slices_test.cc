// The node-independent slice index (alloc/internal/node_independent_slices.h) behind alloc::Allocator:
// a node must see exactly the network-attached pools a scan of every slice gives it, whatever the
// shape of their node selectors, and a selector that does not parse must fail every node as before.
#include "alloc/internal/node_independent_slices.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "alloc/allocator.h"
#include "api/codec.h"
#include "store/cluster.h"

namespace draforge::alloc {
namespace {

// Six nodes in three racks and two zones, a class taking every device, and a claim taking every
// device it can reach (allocationMode All): its result lists the pools the node gathered.
constexpr std::string_view kCluster = R"(
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: net}
spec:
  selectors:
  - cel: {expression: 'device.driver == "net.example.com"'}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: every-nic, namespace: default}
spec:
  devices:
    requests:
    - name: nics
      exactly: {deviceClassName: net, allocationMode: All}
)";

// A network-attached slice of one device, pool = name, with the given node fields.
std::string Slice(const std::string& name, const std::string& node_fields) {
  return absl::StrCat(R"(
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: )", name, R"(}
spec:
  driver: net.example.com
  pool: {name: )", name, R"(, generation: 1, resourceSliceCount: 1}
  )", node_fields, R"(
  devices:
  - name: nic-0
)");
}

std::string Node(int i) {
  return absl::StrCat("\n---\napiVersion: v1\nkind: Node\nmetadata:\n  name: node-", i, "\n  labels: {rack: r",
                      i % 3, ", zone: z", i % 2, "}\n");
}

std::shared_ptr<const store::Snapshot> Load(const std::string& yaml, store::Cluster& cluster) {
  auto decoded = api::DecodeStream(yaml, api::DecodeOptions{});
  EXPECT_TRUE(decoded.ok()) << decoded.status();
  for (auto& d : *decoded) {
    EXPECT_TRUE(d.object.ok()) << d.object.status();
    EXPECT_TRUE(cluster.Apply(*std::move(d.object)).ok());
  }
  return cluster.snapshot();
}

// What an allocation says: the devices, or the reasons, or the error.
std::string Describe(const AllocateResult& r) {
  if (r.outcome == Outcome::kError) return absl::StrCat("error: ", r.error.message());
  if (r.outcome == Outcome::kUnschedulable) return absl::StrCat("unschedulable: ", absl::StrJoin(r.reasons, "; "));
  std::vector<std::string> devices;
  for (const auto& a : r.allocations) {
    for (const auto& res : a.devices->results) devices.push_back(ResultDeviceID(res).String());
  }
  return absl::StrJoin(devices, ",");
}

// Allocator (the index) and Allocate (a scan of every slice) agree on every node.
void ExpectSameOnEveryNode(const std::string& slices, int want_fitting) {
  std::string yaml(kCluster);
  for (int i = 0; i < 6; ++i) absl::StrAppend(&yaml, Node(i));
  absl::StrAppend(&yaml, slices);
  store::Cluster cluster;
  auto snapshot = Load(yaml, cluster);
  const api::ResourceClaim* claim = snapshot->GetResourceClaim("default", "every-nic");
  ASSERT_NE(claim, nullptr);
  const Allocator allocator(snapshot, AllocateOptions{});
  int fitting = 0;
  for (const api::Node* n : snapshot->Nodes()) {
    const NodeInfo node = NodeInfo::FromNode(*n);
    const AllocateResult indexed = allocator.Allocate({claim}, node);
    const AllocateResult scanned = Allocate(*snapshot, {claim}, node);
    EXPECT_EQ(Describe(indexed), Describe(scanned)) << node.name;
    if (indexed.outcome == Outcome::kAllocated) ++fitting;
  }
  EXPECT_EQ(fitting, want_fitting);
}

TEST(NodeIndependentSlices, EverySingleTermShapeGivesTheScannedPools) {
  ExpectSameOnEveryNode(
      Slice("rack-r1", "nodeSelector: {nodeSelectorTerms: [{matchExpressions: [{key: rack, operator: In, values: [r1]}]}]}") +
          Slice("rack-r2-r0", "nodeSelector: {nodeSelectorTerms: [{matchExpressions: [{key: zone, operator: Exists}, "
                              "{key: rack, operator: In, values: [r2, r0]}]}]}") +
          Slice("not-z0", "nodeSelector: {nodeSelectorTerms: [{matchExpressions: [{key: zone, operator: NotIn, values: [z0]}]}]}") +
          Slice("by-name", "nodeSelector: {nodeSelectorTerms: [{matchFields: [{key: metadata.name, operator: In, values: [node-5]}]}]}") +
          Slice("everywhere", "allNodes: true"),
      6);
}

// A slice whose selector has two terms makes the allocation fail on the nodes it reaches (an
// allocation's node selector has one term, upstream: "unsupported ResourceSlice.NodeSelector with 2
// terms"), so the nodes that fit show exactly which nodes gathered it.
TEST(NodeIndependentSlices, OneIndexableTermAndOneNotReachTheScannedNodes) {
  // rack r1 (node-1, node-4) or zone not z0 (node-1, node-3, node-5): node-0 and node-2 fit.
  ExpectSameOnEveryNode(
      Slice("r1-or-not-z0", "nodeSelector: {nodeSelectorTerms: [{matchExpressions: [{key: rack, operator: In, values: [r1]}]}, "
                            "{matchExpressions: [{key: zone, operator: NotIn, values: [z0]}]}]}") +
          Slice("everywhere", "allNodes: true"),
      2);
}

TEST(NodeIndependentSlices, TwoIndexedTermsOnDifferentLabelsReachTheScannedNodes) {
  // rack r2 (node-2, node-5) or zone z0 (node-0, node-2, node-4): node-1 and node-3 fit.
  ExpectSameOnEveryNode(
      Slice("r2-or-z0", "nodeSelector: {nodeSelectorTerms: [{matchExpressions: [{key: rack, operator: In, values: [r2]}]}, "
                        "{matchExpressions: [{key: zone, operator: In, values: [z0]}]}]}") +
          Slice("everywhere", "allNodes: true"),
      2);
}

TEST(NodeIndependentSlices, NodeWithoutTheIndexedLabelSeesOnlyTheOthers) {
  // A label no node has: the slice is never relevant, and the claim still fits on the allNodes pool.
  ExpectSameOnEveryNode(
      Slice("gpu-rack", "nodeSelector: {nodeSelectorTerms: [{matchExpressions: [{key: gpu-rack, operator: In, values: [a]}]}]}") +
          Slice("everywhere", "allNodes: true"),
      6);
}

TEST(NodeIndependentSlices, SelectorThatDoesNotParseFailsEveryNode) {
  // The bad selector's slice sorts after an indexed one: the error is still the first one met.
  ExpectSameOnEveryNode(
      Slice("a-rack-r1", "nodeSelector: {nodeSelectorTerms: [{matchExpressions: [{key: rack, operator: In, values: [r1]}]}]}") +
          Slice("b-bad", "nodeSelector: {nodeSelectorTerms: [{matchExpressions: [{key: rack, operator: Near, values: [r1]}]}]}"),
      0);
}

TEST(NodeIndependentSlices, ForLeavesOutOnlyWhatCannotSelectTheNode) {
  std::string yaml(kCluster);
  absl::StrAppend(&yaml, Node(1),
                  Slice("in-r1", "nodeSelector: {nodeSelectorTerms: [{matchExpressions: [{key: rack, operator: In, values: [r1]}]}]}"),
                  Slice("in-r2", "nodeSelector: {nodeSelectorTerms: [{matchExpressions: [{key: rack, operator: In, values: [r2]}]}]}"),
                  Slice("not-r2", "nodeSelector: {nodeSelectorTerms: [{matchExpressions: [{key: rack, operator: NotIn, values: [r2]}]}]}"),
                  Slice("all", "allNodes: true"));
  store::Cluster cluster;
  auto snapshot = Load(yaml, cluster);
  const internal::NodeIndependentSlices index(*snapshot);
  EXPECT_EQ(index.size(), 4u);
  std::vector<std::string> names;
  for (const auto* s : index.For(NodeInfo::FromNode(*snapshot->Nodes().front()))) names.push_back(*s->slice->metadata.name);
  EXPECT_EQ(absl::StrJoin(names, ","), "all,in-r1,not-r2");
}

}  // namespace
}  // namespace draforge::alloc
