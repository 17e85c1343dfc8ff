// What-if edits (alloc/whatif_edits.h) on a small cluster, alone and composed with a replay.
#include "alloc/whatif_edits.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "alloc/replay.h"
#include "api/codec.h"
#include "api/taints.h"
#include "store/cluster.h"

namespace draforge::alloc {
namespace {

// n1 runs d/bound with claim d/shared (also reserved by d/other on n1) and its template claim
// d/bound-gpu-abcde; n1 also runs a DaemonSet pod; n2 is empty; d/waiting is pending.
constexpr char kCluster[] = R"(apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu}
spec: {selectors: [{cel: {expression: "device.driver == 'gpu.example.com'"}}]}
---
apiVersion: v1
kind: Node
metadata: {name: n1, uid: u-n1, labels: {kubernetes.io/hostname: n1, zone: a}}
spec: {taints: [{key: team, value: ml, effect: NoSchedule}]}
status: {allocatable: {cpu: "4", pods: "10"}}
---
apiVersion: v1
kind: Node
metadata: {name: n2, labels: {kubernetes.io/hostname: n2, zone: a}}
status: {allocatable: {cpu: "4", pods: "10"}}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: n1-gpus}
spec:
  driver: gpu.example.com
  nodeName: n1
  pool: {name: n1, generation: 1, resourceSliceCount: 1}
  devices: [{name: gpu-0}, {name: gpu-1}]
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: shared, namespace: d}
spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu}}]}}
status:
  allocation:
    devices: {results: [{request: gpu, driver: gpu.example.com, pool: n1, device: gpu-0}]}
    nodeSelector: {nodeSelectorTerms: [{matchFields: [{key: metadata.name, operator: In, values: [n1]}]}]}
  reservedFor: [{resource: pods, name: bound, uid: u-bound}, {resource: pods, name: other, uid: u-other}]
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: bound-gpu-abcde
  namespace: d
  ownerReferences: [{apiVersion: v1, kind: Pod, name: bound, uid: u-bound, controller: true}]
spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu}}]}}
status:
  allocation:
    devices: {results: [{request: gpu, driver: gpu.example.com, pool: n1, device: gpu-1}]}
    nodeSelector: {nodeSelectorTerms: [{matchFields: [{key: metadata.name, operator: In, values: [n1]}]}]}
  reservedFor: [{resource: pods, name: bound, uid: u-bound}]
---
apiVersion: v1
kind: Pod
metadata: {name: bound, namespace: d, uid: u-bound}
spec:
  nodeName: n1
  containers: [{name: c, image: i}]
  tolerations: [{key: team, operator: Exists}]
  resourceClaims: [{name: s, resourceClaimName: shared}, {name: gpu, resourceClaimTemplateName: one}]
status:
  phase: Running
  resourceClaimStatuses: [{name: gpu, resourceClaimName: bound-gpu-abcde}]
---
apiVersion: v1
kind: Pod
metadata: {name: other, namespace: d, uid: u-other}
spec:
  nodeName: n1
  containers: [{name: c, image: i}]
  tolerations: [{key: team, operator: Exists}]
  resourceClaims: [{name: s, resourceClaimName: shared}]
status: {phase: Running}
---
apiVersion: v1
kind: Pod
metadata:
  name: agent
  namespace: kube-system
  ownerReferences: [{apiVersion: apps/v1, kind: DaemonSet, name: agent, uid: u-ds, controller: true}]
spec: {nodeName: n1, containers: [{name: c, image: i}], tolerations: [{operator: Exists}]}
status: {phase: Running}
---
apiVersion: v1
kind: Pod
metadata: {name: waiting, namespace: d, uid: u-waiting}
spec: {containers: [{name: c, image: i}]}
)";

class WhatifEdits : public ::testing::Test {
 protected:
  void SetUp() override {
    auto decoded = api::DecodeStream(kCluster, api::DecodeOptions{});
    ASSERT_TRUE(decoded.ok()) << decoded.status();
    for (auto& d : *decoded) {
      ASSERT_TRUE(d.object.ok()) << d.object.status();
      ASSERT_TRUE(cluster_.Apply(*std::move(d.object)).ok());
    }
    snapshot_ = cluster_.snapshot();
  }

  WhatifEditResult Edit(const std::vector<WhatifEdit>& edits) {
    auto r = ApplyWhatifEdits(*snapshot_, edits);
    EXPECT_TRUE(r.ok()) << r.status();
    return r.ok() ? *r : WhatifEditResult{snapshot_, {}};
  }

  store::Cluster cluster_;
  std::shared_ptr<const store::Snapshot> snapshot_;
};

bool Pending(const store::Snapshot& s, std::string_view ns, std::string_view name) {
  const api::Pod* p = s.GetPod(ns, name);
  return p != nullptr && !(p->spec && p->spec->node_name);
}

bool Allocated(const store::Snapshot& s, std::string_view ns, std::string_view name) {
  const api::ResourceClaim* c = s.GetResourceClaim(ns, name);
  return c != nullptr && c->status && c->status->allocation;
}

TEST_F(WhatifEdits, DrainCordonsEvictsAndReleasesClaimsNoOtherPodUses) {
  const WhatifEditResult r = Edit({{WhatifEditKind::kDrainNode, "n1", 0}});
  const store::Snapshot& s = *r.snapshot;
  auto unschedulable = api::NodeUnschedulable(*s.GetNode("n1"));
  ASSERT_TRUE(unschedulable.ok());
  EXPECT_TRUE(*unschedulable);
  EXPECT_TRUE(Pending(s, "d", "bound"));
  EXPECT_TRUE(Pending(s, "d", "other"));
  EXPECT_FALSE(Pending(s, "kube-system", "agent"));  // DaemonSet pods stay
  EXPECT_EQ(*s.GetPod("d", "bound")->status->phase, "Pending");
  EXPECT_FALSE(Allocated(s, "d", "shared"));
  EXPECT_FALSE(Allocated(s, "d", "bound-gpu-abcde"));
  EXPECT_EQ(r.changes, (std::vector<std::string>{
                           "drain-node n1: cordoned; 2 pods pending again (d/bound, d/other); 2 claims deallocated "
                           "(d/bound-gpu-abcde, d/shared)"}));
  // The input is unchanged.
  EXPECT_FALSE(Pending(*snapshot_, "d", "bound"));
  EXPECT_TRUE(Allocated(*snapshot_, "d", "shared"));
}

TEST_F(WhatifEdits, DeletePodKeepsASharedClaimAndDeletesTheClaimItOwns) {
  const WhatifEditResult r = Edit({{WhatifEditKind::kDeletePod, "d/bound", 0}});
  const store::Snapshot& s = *r.snapshot;
  EXPECT_EQ(s.GetPod("d", "bound"), nullptr);
  EXPECT_EQ(s.GetResourceClaim("d", "bound-gpu-abcde"), nullptr);
  // d/other still reserves d/shared: it stays allocated, reserved by d/other only.
  ASSERT_TRUE(Allocated(s, "d", "shared"));
  EXPECT_EQ(s.GetResourceClaim("d", "shared")->status->reserved_for.size(), 1u);
  EXPECT_EQ(r.changes.front(), "delete-pod d/bound: deleted; 1 claim it owned deleted (d/bound-gpu-abcde); 0 claims deallocated");
}

TEST_F(WhatifEdits, DeleteNodeTakesItsSlicesAndMakesAllItsPodsPending) {
  const WhatifEditResult r = Edit({{WhatifEditKind::kDeleteNode, "n1", 0}});
  const store::Snapshot& s = *r.snapshot;
  EXPECT_EQ(s.GetNode("n1"), nullptr);
  EXPECT_EQ(s.GetResourceSlice("n1-gpus"), nullptr);
  EXPECT_TRUE(Pending(s, "kube-system", "agent"));
  EXPECT_TRUE(Pending(s, "d", "bound"));
  EXPECT_TRUE(absl::StartsWith(r.changes.front(), "delete-node n1: deleted with 1 ResourceSlice; 3 pods pending again"))
      << r.changes.front();
}

TEST_F(WhatifEdits, DeleteClaimFreesItsDevices) {
  const WhatifEditResult r = Edit({{WhatifEditKind::kDeleteClaim, "d/shared", 0}});
  EXPECT_EQ(r.snapshot->GetResourceClaim("d", "shared"), nullptr);
  EXPECT_FALSE(r.snapshot->InUse("gpu.example.com", "n1", "gpu-0"));
  EXPECT_TRUE(snapshot_->InUse("gpu.example.com", "n1", "gpu-0"));
}

TEST_F(WhatifEdits, AddNodesCopiesTheNodeAndItsSlicesUnderNewNames) {
  const WhatifEditResult r = Edit({{WhatifEditKind::kAddNodes, "n1", 2}});
  const store::Snapshot& s = *r.snapshot;
  for (const std::string name : {"n1-whatif-1", "n1-whatif-2"}) {
    const api::Node* n = s.GetNode(name);
    ASSERT_NE(n, nullptr) << name;
    EXPECT_EQ(*n->metadata.labels.Find("kubernetes.io/hostname"), name);
    EXPECT_EQ(*n->metadata.labels.Find("zone"), "a");
    EXPECT_FALSE(n->metadata.uid.has_value());
    auto taints = api::NodeTaints(*n);
    ASSERT_TRUE(taints.ok());
    EXPECT_EQ(taints->size(), 1u);  // same taints as the original
    const auto slices = s.SlicesByNode(name);
    ASSERT_EQ(slices.size(), 1u) << name;
    EXPECT_EQ(*slices[0]->spec->pool->name, name);
    EXPECT_EQ(slices[0]->spec->devices.size(), 2u);
  }
  EXPECT_EQ(s.GetResourceSlice("n1-gpus-whatif-2")->spec->node_name, "n1-whatif-2");
  EXPECT_EQ(r.changes.front(), "add-nodes n1: 2 nodes added (n1-whatif-1, n1-whatif-2) with 1 ResourceSlice each");
}

TEST_F(WhatifEdits, EditsComposeInOrderAndFeedAReplay) {
  // Replace n1 by a fresh copy: the copy is made first, so it is not cordoned; then n1 is drained.
  const WhatifEditResult r =
      Edit({{WhatifEditKind::kAddNodes, "n1", 1}, {WhatifEditKind::kDrainNode, "n1", 0}});
  ASSERT_EQ(r.changes.size(), 2u);
  auto replay = Replay(*r.snapshot);
  ASSERT_TRUE(replay.ok()) << replay.status();
  std::map<std::string, std::string> node_of;
  for (const auto& p : replay->placed) node_of[p.pod] = p.node;
  // bound and other tolerate the taint and need n1's GPUs: the copy has them.
  EXPECT_EQ(node_of["d/bound"], "n1-whatif-1");
  EXPECT_EQ(node_of["d/other"], "n1-whatif-1");
  EXPECT_EQ(node_of["d/waiting"], "n2");  // no toleration for the copy's taint
  EXPECT_TRUE(replay->pending.empty());
}

TEST_F(WhatifEdits, BadEditsNameTheObject) {
  auto r = ApplyWhatifEdits(*snapshot_, {{WhatifEditKind::kDrainNode, "n9", 0}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(std::string(r.status().message()), "drain-node: node \"n9\" not found");
  r = ApplyWhatifEdits(*snapshot_, {{WhatifEditKind::kDeletePod, "d/nope", 0}});
  EXPECT_EQ(std::string(r.status().message()), "delete-pod: pod \"d/nope\" not found");
  r = ApplyWhatifEdits(*snapshot_, {{WhatifEditKind::kDeleteClaim, "nope", 0}});
  EXPECT_EQ(std::string(r.status().message()), "delete-claim: resourceclaim \"default/nope\" not found");
  r = ApplyWhatifEdits(*snapshot_, {{WhatifEditKind::kAddNodes, "n1", 0}});
  EXPECT_EQ(std::string(r.status().message()), "add-nodes: count must be at least 1, got 0");
  r = ApplyWhatifEdits(*snapshot_, {{WhatifEditKind::kAddNodes, "n1", 1}, {WhatifEditKind::kAddNodes, "n1", 1}});
  EXPECT_EQ(std::string(r.status().message()), "add-nodes: node \"n1-whatif-1\" already exists");
  // A node deleted by an earlier edit is gone for the next.
  r = ApplyWhatifEdits(*snapshot_, {{WhatifEditKind::kDeleteNode, "n1", 0}, {WhatifEditKind::kDrainNode, "n1", 0}});
  EXPECT_EQ(std::string(r.status().message()), "drain-node: node \"n1\" not found");
}

TEST_F(WhatifEdits, AddNodesOfATemplateThatIsNotInTheCluster) {
  // A node group's template (4 GPUs, no taint) and the slice such a node publishes.
  auto e = ParseWhatifEdits(R"([{"op": "add-nodes", "count": 2,
      "node": {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "gpu-pool",
               "labels": {"kubernetes.io/hostname": "gpu-pool", "zone": "b"}},
               "status": {"allocatable": {"cpu": "8", "pods": "10"}}},
      "slices": [{"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "gpu-pool-gpus"},
                  "spec": {"driver": "gpu.example.com", "nodeName": "gpu-pool",
                           "pool": {"name": "gpu-pool", "generation": 1, "resourceSliceCount": 1},
                           "devices": [{"name": "gpu-0"}, {"name": "gpu-1"}, {"name": "gpu-2"}, {"name": "gpu-3"}]}}]}])");
  ASSERT_TRUE(e.ok()) << e.status();
  const WhatifEditResult r = Edit(*e);
  const store::Snapshot& s = *r.snapshot;
  EXPECT_EQ(s.GetNode("gpu-pool"), nullptr);  // the template itself is not added
  for (const std::string name : {"gpu-pool-whatif-1", "gpu-pool-whatif-2"}) {
    const api::Node* n = s.GetNode(name);
    ASSERT_NE(n, nullptr) << name;
    EXPECT_EQ(*n->metadata.labels.Find("kubernetes.io/hostname"), name);
    const auto slices = s.SlicesByNode(name);
    ASSERT_EQ(slices.size(), 1u);
    EXPECT_EQ(slices[0]->spec->devices.size(), 4u);
    EXPECT_EQ(*slices[0]->spec->pool->name, name);
  }
  EXPECT_EQ(r.changes.front(),
            "add-nodes gpu-pool (template): 2 nodes added (gpu-pool-whatif-1, gpu-pool-whatif-2) with 1 ResourceSlice "
            "each");
  // d/waiting has no toleration for n1's taint and n2 has no GPUs; it lands on a template node.
  auto replay = Replay(s);
  ASSERT_TRUE(replay.ok()) << replay.status();
  std::map<std::string, std::string> node_of;
  for (const auto& p : replay->placed) node_of[p.pod] = p.node;
  EXPECT_TRUE(node_of.contains("d/waiting"));
}

TEST_F(WhatifEdits, TaintDevicesAddsARuleTheReplayHonours) {
  // Drain n1 so that its pods need its GPUs again, then taint both GPUs: nothing fits any more.
  auto e = ParseWhatifEdits(R"([{"op": "drain-node", "name": "n1"}, {"op": "add-nodes", "like": "n1", "count": 1},
      {"op": "taint-devices", "rule": {"apiVersion": "resource.k8s.io/v1alpha3", "kind": "DeviceTaintRule",
        "metadata": {"name": "recall"},
        "spec": {"deviceSelector": {"driver": "gpu.example.com", "pool": "n1-whatif-1"},
                 "taint": {"key": "example.com/recall", "value": "batch-7", "effect": "NoSchedule"}}}}])");
  ASSERT_TRUE(e.ok()) << e.status();
  const WhatifEditResult r = Edit(*e);
  EXPECT_EQ(r.changes.back(), "taint-devices recall: DeviceTaintRule added (example.com/recall=batch-7:NoSchedule)");
  auto replay = Replay(*r.snapshot);
  ASSERT_TRUE(replay.ok()) << replay.status();
  for (const auto& p : replay->placed) EXPECT_NE(p.node, "n1-whatif-1") << p.pod;
  bool bound_pending = false;
  for (const auto& p : replay->pending) bound_pending = bound_pending || p.pod == "d/bound";
  EXPECT_TRUE(bound_pending);  // its claim needs a GPU: n1 is cordoned, the copy's GPUs are tainted
  auto again = ApplyWhatifEdits(*r.snapshot, {(*e)[2]});
  EXPECT_EQ(std::string(again.status().message()), "taint-devices: devicetaintrule \"recall\" already exists");
}

TEST_F(WhatifEdits, SetClassSelectorsReplacesTheClassSelectors) {
  auto e = ParseWhatifEdits(R"([{"op": "set-class-selectors", "name": "gpu",
      "selectors": [{"cel": {"expression": "device.driver == 'other.example.com'"}}]}])");
  ASSERT_TRUE(e.ok()) << e.status();
  const WhatifEditResult r = Edit(*e);
  EXPECT_EQ(r.changes.front(), "set-class-selectors gpu: 1 selector replaced by 1");
  const api::DeviceClass* c = r.snapshot->GetDeviceClass("gpu");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(*c->spec->selectors[0].cel->expression, "device.driver == 'other.example.com'");
  auto missing = ParseWhatifEdits(R"([{"op": "set-class-selectors", "name": "tpu", "selectors": []}])");
  ASSERT_TRUE(missing.ok());
  EXPECT_EQ(std::string(ApplyWhatifEdits(*snapshot_, *missing).status().message()),
            "set-class-selectors: deviceclass \"tpu\" not found");
}

TEST(WhatifEditsJson, ObjectsInEditsAreDecodedAsTheApiServerWould) {
  EXPECT_EQ(std::string(ParseWhatifEdits(R"([{"op": "add-nodes", "count": 1, "node": {"apiVersion": "v1",
      "kind": "Node", "metadata": {"name": "t"}}, "slices": [{"apiVersion": "resource.k8s.io/v1",
      "kind": "ResourceSlice", "metadata": {"name": "s"}, "spec": {"driver": "d.example.com", "nodeName": "other",
      "pool": {"name": "p", "generation": 1, "resourceSliceCount": 1}}}]}])").status().message()),
            "edits[0].slices[0].spec.nodeName: expected \"t\", the template node's name");
  EXPECT_EQ(std::string(ParseWhatifEdits(R"([{"op": "add-nodes", "count": 1, "like": "n1",
      "node": {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "t"}}}])").status().message()),
            "edits[0]: give either like or node");
  EXPECT_EQ(std::string(ParseWhatifEdits(R"([{"op": "add-nodes", "count": 1,
      "node": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "t"}}}])").status().message()),
            "edits[0].node: expected kind Node");
  auto bad_rule = ParseWhatifEdits(R"([{"op": "taint-devices", "rule": {"apiVersion": "resource.k8s.io/v1alpha3",
      "kind": "DeviceTaintRule", "metadata": {"name": "r"}, "spec": {"taint": {"key": 7}}}}])");
  ASSERT_FALSE(bad_rule.ok());
  EXPECT_TRUE(absl::StartsWith(bad_rule.status().message(), "edits[0].rule: ")) << bad_rule.status();
  EXPECT_EQ(std::string(ParseWhatifEdits(R"([{"op": "set-class-selectors", "name": "gpu"}])").status().message()),
            "edits[0].selectors: expected an array of device selectors");
}

TEST(WhatifEditsJson, ParsesEveryEditAndNamesBadEntries) {
  auto e = ParseWhatifEdits(R"([{"op": "add-nodes", "like": "n1", "count": 2}, {"op": "drain-node", "name": "n1"},
                               {"op": "delete-pod", "name": "d/p"}, {"op": "delete-claim", "name": "d/c"},
                               {"op": "delete-node", "name": "n2"}])");
  ASSERT_TRUE(e.ok()) << e.status();
  ASSERT_EQ(e->size(), 5u);
  EXPECT_EQ((*e)[0].kind, WhatifEditKind::kAddNodes);
  EXPECT_EQ((*e)[0].name, "n1");
  EXPECT_EQ((*e)[0].count, 2);
  EXPECT_EQ((*e)[4].kind, WhatifEditKind::kDeleteNode);
  EXPECT_EQ(std::string(ParseWhatifEdits(R"([{"op": "cordon", "name": "n1"}])").status().message()),
            "edits[0].op: unknown edit \"cordon\" (add-nodes, delete-claim, delete-pod, drain-node, delete-node, "
            "taint-devices, set-class-selectors)");
  EXPECT_EQ(std::string(ParseWhatifEdits(R"([{"op": "add-nodes", "like": "n1"}])").status().message()),
            "edits[0].count: expected an integer of at least 1");
  EXPECT_EQ(std::string(ParseWhatifEdits(R"([{"op": "delete-pod"}])").status().message()),
            "edits[0].name: expected a non-empty string");
  EXPECT_FALSE(ParseWhatifEdits("{}").ok());
}

}  // namespace
}  // namespace draforge::alloc
