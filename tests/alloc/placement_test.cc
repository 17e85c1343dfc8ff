// Cluster-wide placement (alloc::Place) and "how many more" (alloc::HowManyMore): the demo scenario
// (examples/scenarios/demo.yaml), the three-node fixture (fixtures/placement/three-nodes.yaml) and
// small clusters written inline.
#include "alloc/placement.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "api/codec.h"
#include "store/cluster.h"
#include "../common/test_util.h"

namespace draforge::alloc {
namespace {

namespace fs = std::filesystem;

// A cluster loaded from YAML text; more objects can be added before taking the snapshot.
struct Loaded {
  store::Cluster cluster;
  void Add(std::string_view yaml) {
    ASSERT_FALSE(yaml.empty()) << "no input (a fixture file not found?)";
    auto decoded = api::DecodeStream(yaml, api::DecodeOptions{});
    ASSERT_TRUE(decoded.ok()) << decoded.status();
    for (auto& d : *decoded) {
      ASSERT_TRUE(d.object.ok()) << "object " << d.index << ": " << d.object.status();
      ASSERT_TRUE(cluster.Apply(*std::move(d.object)).ok());
    }
  }
  std::shared_ptr<const store::Snapshot> snapshot() const { return cluster.snapshot(); }
};

std::string DemoYaml() {
  return draforge::testing::ReadFile(draforge::testing::SourceRoot() / "examples" / "scenarios" / "demo.yaml");
}
std::string ThreeNodesYaml() {
  return draforge::testing::ReadFile(draforge::testing::SourceRoot() / "tests" / "alloc" / "fixtures" / "placement" /
                                     "three-nodes.yaml");
}

// A pod (not stored) with one claim entry: `claim` (resourceClaimName) or `tmpl`
// (resourceClaimTemplateName).
api::Pod PodWithClaim(const std::string& name, const std::string& pod_claim, const std::string& claim,
                      const std::string& tmpl) {
  api::Pod pod;
  pod.metadata.name = name;
  pod.spec.emplace();
  api::PodResourceClaim rc;
  rc.name = pod_claim;
  if (!claim.empty()) rc.resource_claim_name = claim;
  if (!tmpl.empty()) rc.resource_claim_template_name = tmpl;
  pod.spec->resource_claims.push_back(rc);
  return pod;
}

const NodePlacement& NodeOf(const PodPlacement& p, std::string_view name) {
  for (const auto& n : p.nodes) {
    if (n.node == name) return n;
  }
  static const NodePlacement kNone;
  ADD_FAILURE() << "no node " << name;
  return kNone;
}

// "driver/pool/device" of every result of an allocation.
std::vector<std::string> Devices(const api::AllocationResult& a) {
  std::vector<std::string> out;
  if (a.devices) {
    for (const auto& r : a.devices->results) out.push_back(ResultDeviceID(r).String());
  }
  return out;
}

std::vector<std::string> NodeNames(const PodPlacement& p) {
  std::vector<std::string> out;
  for (const auto& n : p.nodes) out.push_back(n.node);
  return out;
}

// --- demo scenario ---------------------------------------------------------------------------------

TEST(PlaceDemo, FinetuneFitsOnlyOnNode3ViaFallback) {
  Loaded l;
  l.Add(DemoYaml());
  auto snap = l.snapshot();
  auto p = Place(*snap, "team-a", "finetune-0");
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->pod, "team-a/finetune-0");
  EXPECT_EQ(p->node_source, "nodes");
  EXPECT_TRUE(p->unresolvable.empty());
  ASSERT_EQ(p->claims.size(), 1u);
  EXPECT_EQ(p->claims[0].pod_claim, "gpus");
  EXPECT_EQ(p->claims[0].key, "team-a/big-h100");
  EXPECT_EQ(p->claims[0].source, ClaimSource::kClaim);
  EXPECT_FALSE(p->claims[0].allocated);
  EXPECT_EQ(NodeNames(*p), (std::vector<std::string>{"node-1", "node-2", "node-3"}));
  EXPECT_EQ(p->FittingNodes(), std::vector<std::string>{"node-3"});

  const NodePlacement& n3 = NodeOf(*p, "node-3");
  ASSERT_EQ(n3.outcome, Outcome::kAllocated);
  ASSERT_EQ(n3.allocations.size(), 1u);
  EXPECT_EQ(n3.allocations[0].claim, "team-a/big-h100");
  EXPECT_FALSE(n3.allocations[0].existing);
  const auto& results = n3.allocations[0].allocation.devices->results;
  ASSERT_EQ(results.size(), 4u);
  for (const auto& r : results) EXPECT_EQ(r.request.value_or(""), "gpus/four");
  EXPECT_EQ(Devices(n3.allocations[0].allocation),
            (std::vector<std::string>{"gpu.example.com/node-3/gpu-0", "gpu.example.com/node-3/gpu-1",
                                      "gpu.example.com/node-3/gpu-2", "gpu.example.com/node-3/gpu-3"}));

  for (const char* name : {"node-1", "node-2"}) {
    const NodePlacement& n = NodeOf(*p, name);
    EXPECT_EQ(n.outcome, Outcome::kUnschedulable) << name;
    EXPECT_EQ(n.reasons, std::vector<std::string>{"cannot allocate all claims"}) << name;
    // The funnel sentence of the failing request, both alternatives of firstAvailable.
    EXPECT_TRUE(absl::StartsWith(n.why, "claim team-a/big-h100: request gpus/eight: ")) << n.why;
    EXPECT_TRUE(absl::StrContains(n.why, "request gpus/four: ")) << n.why;
    EXPECT_TRUE(absl::StrContains(n.why, absl::StrCat("not reachable from node ", name))) << n.why;
  }
}

TEST(PlaceDemo, AllocatedDirectClaimPinsNode1) {
  Loaded l;
  l.Add(DemoYaml());
  auto p = Place(*l.snapshot(), "team-a", "train-0");
  ASSERT_TRUE(p.ok()) << p.status();
  ASSERT_EQ(p->claims.size(), 1u);
  EXPECT_TRUE(p->claims[0].allocated);
  EXPECT_EQ(p->FittingNodes(), std::vector<std::string>{"node-1"});
  const NodePlacement& n1 = NodeOf(*p, "node-1");
  ASSERT_EQ(n1.allocations.size(), 1u);
  EXPECT_TRUE(n1.allocations[0].existing);
  EXPECT_EQ(Devices(n1.allocations[0].allocation),
            (std::vector<std::string>{"gpu.example.com/node-1/gpu-0", "gpu.example.com/node-1/gpu-1"}));
  const NodePlacement& n2 = NodeOf(*p, "node-2");
  EXPECT_EQ(n2.outcome, Outcome::kUnschedulable);
  EXPECT_EQ(n2.reasons, std::vector<std::string>{"resourceclaim not available on the node"});
  EXPECT_EQ(n2.why,
            "claim team-a/train-0 is already allocated and the allocation's node selector does not select node node-2");
}

TEST(PlaceDemo, CreatedTemplateClaimFromStatus) {
  Loaded l;
  l.Add(DemoYaml());
  auto p = Place(*l.snapshot(), "team-a", "notebook-0");
  ASSERT_TRUE(p.ok()) << p.status();
  ASSERT_EQ(p->claims.size(), 1u);
  EXPECT_EQ(p->claims[0].source, ClaimSource::kTemplate);
  EXPECT_EQ(p->claims[0].template_name, "one-a100");
  EXPECT_EQ(p->claims[0].key, "team-a/notebook-0-gpu-x7k2p");
  EXPECT_TRUE(p->claims[0].allocated);
  EXPECT_EQ(p->FittingNodes(), std::vector<std::string>{"node-2"});
}

TEST(PlaceDemo, TemplateClaimNotCreatedYet) {
  Loaded l;
  l.Add(DemoYaml());
  l.Add(R"(
apiVersion: v1
kind: Pod
metadata: {name: notebook-1, namespace: team-a, uid: 11111111-2222-4333-8444-555555555555}
spec:
  containers: [{name: jupyter, image: registry.example/notebook:1.0, resources: {claims: [{name: gpu}]}}]
  resourceClaims:
  - {name: gpu, resourceClaimTemplateName: one-a100}
)");
  auto snap = l.snapshot();
  auto p = Place(*snap, "team-a", "notebook-1");
  ASSERT_TRUE(p.ok()) << p.status();
  ASSERT_EQ(p->claims.size(), 1u);
  const PlacedClaim& c = p->claims[0];
  EXPECT_EQ(c.source, ClaimSource::kTemplateInstantiated);
  EXPECT_EQ(ClaimSourceName(c.source), "template-instantiated");
  ASSERT_NE(c.instantiated, nullptr);
  EXPECT_EQ(c.claim, c.instantiated.get());
  EXPECT_TRUE(absl::StartsWith(c.key, "team-a/notebook-1-gpu-")) << c.key;
  EXPECT_EQ(c.key.size(), std::string("team-a/notebook-1-gpu-").size() + 5);
  EXPECT_EQ(c.claim->metadata.generate_name.value_or(""), "notebook-1-gpu-");
  EXPECT_EQ(*c.claim->metadata.annotations.Find("resource.kubernetes.io/pod-claim-name"), "gpu");
  ASSERT_EQ(c.claim->metadata.owner_references.size(), 1u);
  EXPECT_EQ(c.claim->metadata.owner_references[0].uid.value_or(""), "11111111-2222-4333-8444-555555555555");
  EXPECT_EQ(snap->GetResourceClaim("team-a", c.key.substr(7)), nullptr);
  // One A100: node-1 has gpu-2/gpu-3 free, node-2 gpu-0..2; node-3 has H100s only.
  EXPECT_EQ(p->FittingNodes(), (std::vector<std::string>{"node-1", "node-2"}));
  const NodePlacement& n1 = NodeOf(*p, "node-1");
  ASSERT_EQ(n1.allocations.size(), 1u);
  EXPECT_EQ(n1.allocations[0].claim, c.key);
  EXPECT_EQ(Devices(n1.allocations[0].allocation), std::vector<std::string>{"gpu.example.com/node-1/gpu-2"});
  const NodePlacement& n3 = NodeOf(*p, "node-3");
  EXPECT_EQ(n3.outcome, Outcome::kUnschedulable);
  // The funnel ran on a snapshot holding the in-memory claim.
  EXPECT_TRUE(absl::StartsWith(n3.why, absl::StrCat("claim ", c.key, ": request gpu: "))) << n3.why;
  EXPECT_TRUE(absl::StrContains(n3.why, "a100.gpu.example.com")) << n3.why;

  // Deterministic: the same name and the same answer again.
  auto again = Place(*snap, "team-a", "notebook-1");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->claims[0].key, c.key);
  EXPECT_EQ(again->FittingNodes(), p->FittingNodes());
  EXPECT_EQ(NodeOf(*again, "node-3").why, n3.why);
}

TEST(PlaceDemo, UnknownPod) {
  Loaded l;
  l.Add(DemoYaml());
  auto p = Place(*l.snapshot(), "team-a", "nope");
  EXPECT_EQ(p.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(p.status().message(), "pod team-a/nope not found");
}

// --- template entries and unresolvable pods ------------------------------------------------------

TEST(Place, TemplateStatusNamesMissingClaim) {
  Loaded l;
  l.Add(ThreeNodesYaml());
  l.Add(R"(
apiVersion: v1
kind: Pod
metadata: {name: recorded, namespace: default}
spec:
  containers: [{name: main, image: x}]
  resourceClaims:
  - {name: small, resourceClaimTemplateName: one-gpu}
  - {name: none, resourceClaimTemplateName: one-gpu}
status:
  resourceClaimStatuses:
  - {name: small, resourceClaimName: recorded-small-abcde}
  - {name: none}
)");
  auto p = Place(*l.snapshot(), "default", "recorded");
  ASSERT_TRUE(p.ok()) << p.status();
  // "none": the status says no claim is needed.
  ASSERT_EQ(p->claims.size(), 1u);
  EXPECT_EQ(p->claims[0].key, "default/recorded-small-abcde");
  EXPECT_EQ(p->claims[0].source, ClaimSource::kTemplateInstantiated);
  EXPECT_EQ(p->FittingNodes(), (std::vector<std::string>{"node-a", "node-b", "node-c"}));
}

TEST(Place, PodWithoutClaimsFitsEverywhere) {
  Loaded l;
  l.Add(ThreeNodesYaml());
  l.Add("apiVersion: v1\nkind: Pod\nmetadata: {name: plain, namespace: default}\nspec: {containers: [{name: c}]}\n");
  auto p = Place(*l.snapshot(), "default", "plain");
  ASSERT_TRUE(p.ok());
  EXPECT_TRUE(p->claims.empty());
  EXPECT_EQ(p->FittingNodes().size(), 3u);
  for (const auto& n : p->nodes) EXPECT_TRUE(n.allocations.empty());
}

TEST(Place, MissingClaimOrTemplateIsUnresolvable) {
  Loaded l;
  l.Add(ThreeNodesYaml());
  l.Add(R"(
apiVersion: v1
kind: Pod
metadata: {name: broken, namespace: default}
spec:
  containers: [{name: main, image: x}]
  resourceClaims:
  - {name: a, resourceClaimName: no-such-claim}
  - {name: b, resourceClaimTemplateName: no-such-template}
)");
  auto p = Place(*l.snapshot(), "default", "broken");
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->unresolvable, (std::vector<std::string>{"resourceclaim \"default/no-such-claim\" not found",
                                                       "resourceclaimtemplate \"default/no-such-template\" not found"}));
  EXPECT_TRUE(p->FittingNodes().empty());
  ASSERT_EQ(p->nodes.size(), 3u);
  for (const auto& n : p->nodes) {
    EXPECT_EQ(n.outcome, Outcome::kUnschedulable);
    EXPECT_EQ(n.reasons, p->unresolvable);
    EXPECT_EQ(n.why, "resourceclaim \"default/no-such-claim\" not found");
  }
}

TEST(Place, ClaimBeingDeleted) {
  Loaded l;
  l.Add(ThreeNodesYaml());
  l.Add(R"(
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: going, namespace: default, deletionTimestamp: "2025-01-01T00:00:00Z", finalizers: [x]}
spec: {devices: {requests: [{name: g, exactly: {deviceClassName: gpu.example.com}}]}}
---
apiVersion: v1
kind: Pod
metadata: {name: p, namespace: default}
spec:
  containers: [{name: main, image: x}]
  resourceClaims: [{name: g, resourceClaimName: going}]
)");
  auto p = Place(*l.snapshot(), "default", "p");
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->unresolvable, std::vector<std::string>{"resourceclaim \"default/going\" is being deleted"});
  EXPECT_TRUE(p->FittingNodes().empty());
}

// --- three nodes x four GPUs ---------------------------------------------------------------------

TEST(Place, DirectAndNotCreatedTemplateClaimsTogether) {
  Loaded l;
  l.Add(ThreeNodesYaml());
  auto p = Place(*l.snapshot(), "default", "worker");
  ASSERT_TRUE(p.ok()) << p.status();
  ASSERT_EQ(p->claims.size(), 2u);
  EXPECT_EQ(p->claims[0].key, "default/two-gpus");
  EXPECT_EQ(p->claims[1].source, ClaimSource::kTemplateInstantiated);
  EXPECT_EQ(p->FittingNodes(), (std::vector<std::string>{"node-a", "node-b", "node-c"}));
  const NodePlacement& b = NodeOf(*p, "node-b");
  ASSERT_EQ(b.allocations.size(), 2u);
  EXPECT_EQ(Devices(b.allocations[0].allocation),
            (std::vector<std::string>{"gpu.example.com/node-b/gpu-0", "gpu.example.com/node-b/gpu-1"}));
  EXPECT_EQ(Devices(b.allocations[1].allocation), std::vector<std::string>{"gpu.example.com/node-b/gpu-2"});
}

TEST(Place, AllocatedClaimPinsNodeAndPendingClaimMustFitThere) {
  Loaded l;
  l.Add(ThreeNodesYaml());
  // "pinned" holds node-b's gpu-0..gpu-2; the pod also wants two more GPUs (two-gpus).
  l.Add(R"(
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: pinned, namespace: default}
spec: {devices: {requests: [{name: g, exactly: {deviceClassName: gpu.example.com, count: 3}}]}}
status:
  allocation:
    devices:
      results:
      - {request: g, driver: gpu.example.com, pool: node-b, device: gpu-0}
      - {request: g, driver: gpu.example.com, pool: node-b, device: gpu-1}
      - {request: g, driver: gpu.example.com, pool: node-b, device: gpu-2}
    nodeSelector:
      nodeSelectorTerms:
      - matchFields: [{key: metadata.name, operator: In, values: [node-b]}]
---
apiVersion: v1
kind: Pod
metadata: {name: pinned-pod, namespace: default}
spec:
  containers: [{name: main, image: x}]
  resourceClaims:
  - {name: held, resourceClaimName: pinned}
  - {name: more, resourceClaimName: two-gpus}
)");
  auto p = Place(*l.snapshot(), "default", "pinned-pod");
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_TRUE(p->FittingNodes().empty());
  EXPECT_EQ(NodeOf(*p, "node-a").reasons, std::vector<std::string>{"resourceclaim not available on the node"});
  EXPECT_EQ(NodeOf(*p, "node-c").reasons, std::vector<std::string>{"resourceclaim not available on the node"});
  const NodePlacement& b = NodeOf(*p, "node-b");
  EXPECT_EQ(b.outcome, Outcome::kUnschedulable);
  EXPECT_EQ(b.reasons, std::vector<std::string>{"cannot allocate all claims"});
  EXPECT_TRUE(absl::StartsWith(b.why, "claim default/two-gpus: request gpus: ")) << b.why;
  // Three of node-b's GPUs are taken: one is left on the node, two needed.
  EXPECT_TRUE(absl::StrContains(b.why, "1 left after step \"node\"")) << b.why;

  // Without the funnel, `why` repeats the reasons.
  PlaceOptions quick;
  quick.explain = false;
  auto q = Place(*l.snapshot(), "default", "pinned-pod", quick);
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(NodeOf(*q, "node-b").why, "cannot allocate all claims");
}

// kube-scheduler's Filter: a claim allocated with devices that skip node operations can only be
// used on a node declaring DRAOptionalNodeOperations; the check does not depend on the gates.
TEST(Place, AllocationSkippingNodeOperationsNeedsDeclaringNode) {
  Loaded l;
  l.Add(R"(
apiVersion: v1
kind: Node
metadata: {name: node-a}
status: {declaredFeatures: [DRAOptionalNodeOperations]}
---
apiVersion: v1
kind: Node
metadata: {name: node-b}
status: {declaredFeatures: [SomethingElse]}
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu}
spec: {}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: held, namespace: default}
spec: {devices: {requests: [{name: g, exactly: {deviceClassName: gpu}}]}}
status:
  allocation:
    devices:
      results:
      - {request: g, driver: gpu.example.com, pool: shared, device: gpu-0, skipNodeOperations: ['*']}
---
apiVersion: v1
kind: Pod
metadata: {name: p, namespace: default}
spec:
  containers: [{name: main, image: x}]
  resourceClaims:
  - {name: held, resourceClaimName: held}
)");
  auto p = Place(*l.snapshot(), "default", "p");
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->FittingNodes(), std::vector<std::string>{"node-a"});
  const NodePlacement& b = NodeOf(*p, "node-b");
  EXPECT_EQ(b.reasons, std::vector<std::string>{"resourceclaim not available on the node"});
  EXPECT_EQ(b.why,
            "claim default/held is allocated with devices that skip node operations, and node node-b does not "
            "declare DRAOptionalNodeOperations");
}

// NodeInfo::declared_features: given, it is what the allocator uses; not given (a caller that only
// knows the node's name and labels), the snapshot's Node of that name supplies it.
TEST(NodeInfo, DeclaredFeaturesFromSnapshotUnlessGiven) {
  Loaded l;
  l.Add(R"(
apiVersion: v1
kind: Node
metadata: {name: node-a}
status: {declaredFeatures: [DRAOptionalNodeOperations]}
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu}
spec: {}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: s}
spec:
  driver: gpu.example.com
  pool: {name: p, generation: 1, resourceSliceCount: 1}
  allNodes: true
  skipNodeOperations: ['*']
  devices: [{name: gpu-0}]
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: c, namespace: default}
spec: {devices: {requests: [{name: g, exactly: {deviceClassName: gpu}}]}}
)");
  auto snapshot = l.snapshot();
  const api::ResourceClaim* claim = snapshot->GetResourceClaim("default", "c");
  ASSERT_NE(claim, nullptr);
  auto features = ParseFeatureGates("DRAOptionalNodeOperations=true");
  ASSERT_TRUE(features.ok());
  AllocateOptions options;
  options.features = *features;

  const AllocateResult from_snapshot = Allocate(*snapshot, {claim}, NodeInfo{"node-a", {}}, options);
  ASSERT_EQ(from_snapshot.outcome, Outcome::kAllocated);
  EXPECT_EQ(from_snapshot.allocations[0].devices->results[0].skip_node_operations, std::vector<std::string>{"*"});

  NodeInfo explicit_none{"node-a", {}};
  explicit_none.declared_features = std::vector<std::string>{};
  EXPECT_EQ(Allocate(*snapshot, {claim}, explicit_none, options).outcome, Outcome::kUnschedulable);

  // A node without a Node object declares nothing.
  EXPECT_EQ(Allocate(*snapshot, {claim}, NodeInfo{"node-z", {}}, options).outcome, Outcome::kUnschedulable);
}

TEST(Place, ClaimsFitAloneButNotTogether) {
  Loaded l;
  l.Add(ThreeNodesYaml());
  l.Add(R"(
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: three-a, namespace: default}
spec: {devices: {requests: [{name: g, exactly: {deviceClassName: gpu.example.com, count: 3}}]}}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: three-b, namespace: default}
spec: {devices: {requests: [{name: g, exactly: {deviceClassName: gpu.example.com, count: 3}}]}}
---
apiVersion: v1
kind: Pod
metadata: {name: greedy, namespace: default}
spec:
  containers: [{name: main, image: x}]
  resourceClaims:
  - {name: a, resourceClaimName: three-a}
  - {name: b, resourceClaimName: three-b}
)");
  auto p = Place(*l.snapshot(), "default", "greedy");
  ASSERT_TRUE(p.ok());
  EXPECT_TRUE(p->FittingNodes().empty());
  for (const auto& n : p->nodes) {
    EXPECT_EQ(n.why, absl::StrCat("each claim fits alone on node ", n.node, ", but not all together"));
  }
}

// A claim whose requests each fit alone but need the same device: Place's why names the clash (it
// said only "every request has enough devices on its own, but not all together").
TEST(Place, WhyNamesTheClaimLevelConflict) {
  Loaded l;
  l.Add(draforge::testing::ReadFile(draforge::testing::SourceRoot() / "tests" / "cli" / "data" /
                                    "claim-conflict.yaml"));
  auto p = Place(*l.snapshot(), PodWithClaim("pair-user", "c", "pair", ""));
  ASSERT_TRUE(p.ok()) << p.status();
  ASSERT_EQ(p->nodes.size(), 1u);
  EXPECT_FALSE(p->nodes[0].fits());
  EXPECT_EQ(p->nodes[0].why,
            "claim default/pair: requests first and second both need device gpu.example.com/node-1/gpu-0");
}

TEST(Place, AllocatorErrorIsPerNodeError) {
  Loaded l;
  l.Add(ThreeNodesYaml());
  l.Add(R"(
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: classless, namespace: default}
spec: {devices: {requests: [{name: g, exactly: {deviceClassName: no-such-class}}]}}
---
apiVersion: v1
kind: Pod
metadata: {name: p, namespace: default}
spec:
  containers: [{name: main, image: x}]
  resourceClaims: [{name: g, resourceClaimName: classless}]
)");
  auto p = Place(*l.snapshot(), "default", "p");
  ASSERT_TRUE(p.ok());
  for (const auto& n : p->nodes) {
    EXPECT_EQ(n.outcome, Outcome::kError);
    EXPECT_FALSE(n.error.ok());
    EXPECT_TRUE(absl::StrContains(n.why, "no-such-class")) << n.why;
  }
}

TEST(Place, NodesFromSlicesWhenThereAreNoNodeObjects) {
  Loaded l;
  l.Add(R"(
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: c}
spec: {}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: s2}
spec: {driver: dev.example.com, nodeName: worker-2, pool: {name: worker-2, generation: 1, resourceSliceCount: 1}, devices: [{name: dev-0}]}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: s1}
spec: {driver: dev.example.com, nodeName: worker-1, pool: {name: worker-1, generation: 1, resourceSliceCount: 1}, devices: []}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: net}
spec: {driver: net.example.com, allNodes: true, pool: {name: net, generation: 1, resourceSliceCount: 1}, devices: [{name: nic-0}]}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: one, namespace: default}
spec: {devices: {requests: [{name: r, exactly: {deviceClassName: c, selectors: [{cel: {expression: "device.driver == 'dev.example.com'"}}]}}]}}
---
apiVersion: v1
kind: Pod
metadata: {name: p, namespace: default}
spec:
  containers: [{name: main, image: x}]
  resourceClaims: [{name: r, resourceClaimName: one}]
)");
  auto p = Place(*l.snapshot(), "default", "p");
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->node_source, "slices");
  EXPECT_EQ(NodeNames(*p), (std::vector<std::string>{"worker-1", "worker-2"}));
  EXPECT_EQ(p->FittingNodes(), std::vector<std::string>{"worker-2"});
}

TEST(Place, WhatIfPodNotStored) {
  Loaded l;
  l.Add(ThreeNodesYaml());
  auto p = Place(*l.snapshot(), PodWithClaim("what-if", "g", "", "one-gpu"));
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->pod, "default/what-if");
  EXPECT_EQ(p->FittingNodes().size(), 3u);
}

TEST(InstantiateTemplate, LongNamesAreTruncatedAsUpstream) {
  api::Pod pod;
  pod.metadata.name = std::string(40, 'p');
  pod.metadata.namespace_ = "ns";
  api::ResourceClaimTemplate tmpl;
  api::ResourceClaim c = InstantiateTemplate(pod, std::string(30, 'c'), tmpl);
  // 40 + 1 + 30 + 1 = 72 > 57: both parts cut in proportion, joined by one '-'.
  EXPECT_EQ(c.metadata.generate_name.value_or(""), std::string(40 * 57 / 72, 'p') + "-" + std::string(30 * 57 / 72, 'c'));
  EXPECT_EQ(c.metadata.name->size(), c.metadata.generate_name->size() + 5);
  EXPECT_EQ(c.metadata.namespace_.value_or(""), "ns");
  ASSERT_TRUE(c.spec.has_value());
}

// --- how many more --------------------------------------------------------------------------------

TEST(HowManyMore, TwoGpuClaimOnThreeNodesOfFour) {
  Loaded l;
  l.Add(ThreeNodesYaml());
  auto snap = l.snapshot();
  auto r = HowManyMore(*snap, PrototypeKind::kClaim, "default", "two-gpus");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->prototype, "resourceclaim default/two-gpus");
  EXPECT_EQ(r->total, 6);
  EXPECT_EQ(r->stop, StopReason::kExhausted);
  EXPECT_EQ(StopReasonName(r->stop), "exhausted");
  ASSERT_EQ(r->nodes.size(), 3u);
  for (const auto& n : r->nodes) {
    EXPECT_EQ(n.count, 2) << n.node;
    EXPECT_EQ(n.reasons, std::vector<std::string>{"cannot allocate all claims"}) << n.node;
  }
  ASSERT_EQ(r->copies.size(), 6u);
  std::set<std::string> names, devices;
  for (const auto& c : r->copies) {
    names.insert(c.claim);
    for (const auto& d : Devices(c.allocation)) devices.insert(d);
  }
  EXPECT_EQ(names.size(), 6u);
  EXPECT_EQ(devices.size(), 12u);
  // Why not a seventh: the funnel of the next copy in the final state.
  EXPECT_TRUE(absl::StartsWith(r->nodes[0].why, "request gpus: 12 devices match class gpu.example.com, all 12 are "
                                                "allocated to claims default/two-gpus-more-1, "))
      << r->nodes[0].why;
  EXPECT_EQ(r->copies.front().claim, "default/two-gpus-more-1");
  EXPECT_EQ(r->copies.front().node, "node-a");
  EXPECT_EQ(r->copies.back().node, "node-c");

  // From the template (one GPU): 12.
  auto t = HowManyMore(*snap, PrototypeKind::kTemplate, "default", "one-gpu");
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->prototype, "resourceclaimtemplate default/one-gpu");
  EXPECT_EQ(t->total, 12);
}

TEST(HowManyMore, Cap) {
  Loaded l;
  l.Add(ThreeNodesYaml());
  HowManyMoreOptions o;
  o.cap = 3;
  auto r = HowManyMore(*l.snapshot(), PrototypeKind::kClaim, "default", "two-gpus", o);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->total, 3);
  EXPECT_EQ(r->cap, 3);
  EXPECT_EQ(r->stop, StopReason::kCap);
  EXPECT_EQ(r->nodes[0].count, 2);
  EXPECT_EQ(r->nodes[1].count, 1);
  EXPECT_EQ(r->nodes[2].count, 0);
  EXPECT_TRUE(r->nodes[1].reasons.empty());
  EXPECT_TRUE(r->nodes[1].why.empty());
  EXPECT_FALSE(r->nodes[0].why.empty());

  // A claim that needs nothing fits forever: the default cap stops it.
  Loaded e;
  e.Add(ThreeNodesYaml());
  e.Add("apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: empty, namespace: default}\nspec: {}\n");
  HowManyMoreOptions lean;
  lean.keep_allocations = false;
  auto inf = HowManyMore(*e.snapshot(), PrototypeKind::kClaim, "default", "empty", lean);
  ASSERT_TRUE(inf.ok());
  EXPECT_EQ(inf->total, 1000);
  EXPECT_EQ(inf->stop, StopReason::kCap);
  EXPECT_EQ(inf->nodes[0].count, 1000);
  EXPECT_TRUE(inf->copies.empty());

  o.cap = 0;
  EXPECT_EQ(HowManyMore(*l.snapshot(), PrototypeKind::kClaim, "default", "two-gpus", o).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(HowManyMore, ExistingAllocationsCount) {
  Loaded l;
  l.Add(DemoYaml());
  auto snap = l.snapshot();
  // One A100 each: node-1 has 2 free, node-2 3 free.
  auto a = HowManyMore(*snap, PrototypeKind::kTemplate, "team-a", "one-a100");
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(a->total, 5);
  EXPECT_EQ(a->nodes[0].count, 2);
  EXPECT_EQ(a->nodes[1].count, 3);
  EXPECT_EQ(a->nodes[2].count, 0);
  // big-h100 (eight, else four H100s): once, on node-3.
  auto b = HowManyMore(*snap, PrototypeKind::kClaim, "team-a", "big-h100");
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->total, 1);
  ASSERT_EQ(b->copies.size(), 1u);
  EXPECT_EQ(b->copies[0].node, "node-3");
  // A 100G share of the network-attached nic-0 (400G, 100G taken; nic-1 tainted): 3 more, all
  // counted on the first node, since every node reaches the same device.
  auto n = HowManyMore(*snap, PrototypeKind::kClaim, "team-a", "fabric-share");
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(n->total, 3);
  EXPECT_EQ(n->nodes[0].count, 3);
  std::set<std::string> share_ids;
  for (const auto& c : n->copies) share_ids.insert(c.allocation.devices->results[0].share_id.value_or(""));
  EXPECT_EQ(share_ids.size(), 3u);
  EXPECT_TRUE(absl::StrContains(n->nodes[1].why, "left after step \"capacity\"")) << n->nodes[1].why;

  // Without the funnel, `why` repeats the reasons.
  HowManyMoreOptions quick;
  quick.explain = false;
  auto q = HowManyMore(*snap, PrototypeKind::kClaim, "team-a", "fabric-share", quick);
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(q->nodes[1].why, "cannot allocate all claims");
}

TEST(HowManyMore, ErrorsAndNoNodes) {
  Loaded l;
  l.Add(ThreeNodesYaml());
  EXPECT_EQ(HowManyMore(*l.snapshot(), PrototypeKind::kClaim, "default", "nope").status().code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(HowManyMore(*l.snapshot(), PrototypeKind::kTemplate, "default", "nope").status().code(),
            absl::StatusCode::kNotFound);
  api::ResourceClaim bad;
  bad.metadata.name = "bad";
  bad.spec.emplace().devices.emplace().requests.emplace_back();
  bad.spec->devices->requests[0].name = "r";
  bad.spec->devices->requests[0].exactly.emplace().device_class_name = "no-such-class";
  auto r = HowManyMore(*l.snapshot(), bad);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->stop, StopReason::kError);
  EXPECT_EQ(r->error_node, "node-a");
  EXPECT_TRUE(absl::StrContains(r->error.message(), "no-such-class"));
  EXPECT_EQ(r->total, 0);

  Loaded empty;
  empty.Add("apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: c}\nspec: {}\n");
  api::ResourceClaim any;
  any.metadata.name = "any";
  auto none = HowManyMore(*empty.snapshot(), any);
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(none->stop, StopReason::kNoNodes);
  EXPECT_EQ(none->total, 0);
}

TEST(HowManyMore, FreshNamesSkipStoredClaims) {
  Loaded l;
  l.Add(ThreeNodesYaml());
  l.Add(R"(
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: two-gpus-more-1, namespace: default}
spec: {}
)");
  HowManyMoreOptions o;
  o.cap = 2;
  auto r = HowManyMore(*l.snapshot(), PrototypeKind::kClaim, "default", "two-gpus", o);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->copies.size(), 2u);
  EXPECT_EQ(r->copies[0].claim, "default/two-gpus-more-2");
  EXPECT_EQ(r->copies[1].claim, "default/two-gpus-more-3");
}

}  // namespace
}  // namespace draforge::alloc
