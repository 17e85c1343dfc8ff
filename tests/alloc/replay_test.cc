// Replay (alloc::Replay): the pending pods of tests/cli/data/whatif/replay-small.yaml placed one at a
// time in queue order, with each policy, and pods that stay pending with every node's reason.
#include "alloc/replay.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "alloc/allocator.h"
#include "api/codec.h"
#include "store/cluster.h"
#include "../common/test_util.h"

namespace draforge::alloc {
namespace {

std::shared_ptr<const store::Snapshot> Load(std::string_view yaml, store::Cluster& cluster) {
  auto decoded = api::DecodeStream(yaml, api::DecodeOptions{});
  EXPECT_TRUE(decoded.ok()) << decoded.status();
  if (!decoded.ok()) return cluster.snapshot();
  for (auto& d : *decoded) {
    EXPECT_TRUE(d.object.ok()) << "object " << d.index << ": " << d.object.status();
    if (d.object.ok()) {
      EXPECT_TRUE(cluster.Apply(*std::move(d.object)).ok());
    }
  }
  return cluster.snapshot();
}

std::string SmallYaml() {
  return draforge::testing::ReadFile(draforge::testing::SourceRoot() / "tests" / "cli" / "data" / "whatif" /
                                     "replay-small.yaml");
}

ReplayResult ReplayOf(std::string_view yaml, ReplayPolicy policy = ReplayPolicy::kFirstFit) {
  store::Cluster cluster;
  auto snapshot = Load(yaml, cluster);
  ReplayOptions options;
  options.policy = policy;
  auto r = Replay(*snapshot, options);
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? *r : ReplayResult{};
}

// pod -> node of the placed pods.
std::map<std::string, std::string> NodeOf(const ReplayResult& r) {
  std::map<std::string, std::string> out;
  for (const auto& p : r.placed) out[p.pod] = p.node;
  return out;
}

std::vector<std::string> DevicesOf(const ReplayResult& r, const std::string& pod) {
  std::vector<std::string> out;
  for (const auto& p : r.placed) {
    if (p.pod != pod) continue;
    for (const auto& c : p.claims) {
      if (!c.allocation.devices) continue;
      for (const auto& res : c.allocation.devices->results) out.push_back(ResultDeviceID(res).String());
    }
  }
  return out;
}

TEST(Replay, QueueOrderIsPriorityThenCreationTimeAndSkipsBoundTerminalAndOtherSchedulers) {
  const ReplayResult r = ReplayOf(SmallYaml());
  EXPECT_EQ(r.order, (std::vector<std::string>{"team-a/urgent", "team-a/early", "team-a/late", "team-a/big",
                                               "team-a/huge"}));
}

TEST(Replay, EqualPriorityAndTimeFallBackToNamespaceAndName) {
  const std::string yaml = R"(apiVersion: v1
kind: Pod
metadata: {name: b, namespace: ns-x, creationTimestamp: "2026-01-01T00:00:00Z"}
spec: {containers: [{name: c, image: i}]}
---
apiVersion: v1
kind: Pod
metadata: {name: a, namespace: ns-y, creationTimestamp: "2026-01-01T00:00:00Z"}
spec: {containers: [{name: c, image: i}]}
---
apiVersion: v1
kind: Pod
metadata: {name: a, namespace: ns-x, creationTimestamp: "2026-01-01T00:00:00.5Z"}
spec: {containers: [{name: c, image: i}], priority: -5}
---
apiVersion: v1
kind: Pod
metadata: {name: z, namespace: ns-x, creationTimestamp: "2026-01-01T00:00:00Z"}
spec: {containers: [{name: c, image: i}], schedulerName: default-scheduler}
)";
  EXPECT_EQ(ReplayOf(yaml).order, (std::vector<std::string>{"ns-x/b", "ns-x/z", "ns-y/a", "ns-x/a"}));
}

TEST(Replay, EachPodSeesWhatTheEarlierOnesTook) {
  const ReplayResult r = ReplayOf(SmallYaml());
  const auto nodes = NodeOf(r);
  // urgent takes node-a's gpu-0, so early gets node-a's gpu-1; late (two GPUs) then finds node-a
  // full and node-b with one free GPU, and goes to node-c.
  EXPECT_EQ(nodes.at("team-a/urgent"), "node-a");
  EXPECT_EQ(DevicesOf(r, "team-a/urgent"), (std::vector<std::string>{"gpu.example.com/node-a/gpu-0"}));
  EXPECT_EQ(nodes.at("team-a/early"), "node-a");
  EXPECT_EQ(DevicesOf(r, "team-a/early"), (std::vector<std::string>{"gpu.example.com/node-a/gpu-1"}));
  EXPECT_EQ(nodes.at("team-a/late"), "node-c");
  EXPECT_EQ(r.placed.size(), 3u);
}

TEST(Replay, ListsEveryNodeAPodFitsOnAtItsTurn) {
  const ReplayResult r = ReplayOf(SmallYaml());
  std::map<std::string, std::vector<std::string>> feasible;
  for (const auto& p : r.placed) feasible[p.pod] = p.feasible;
  // First fit chose the first of them; late's two GPUs fit only where two are free.
  EXPECT_EQ(feasible.at("team-a/urgent"), (std::vector<std::string>{"node-a", "node-b", "node-c"}));
  EXPECT_EQ(feasible.at("team-a/early"), (std::vector<std::string>{"node-a", "node-b", "node-c"}));
  EXPECT_EQ(feasible.at("team-a/late"), (std::vector<std::string>{"node-c"}));
}

TEST(Replay, PodsThatFitNowhereStayPendingWithEveryNodesReason) {
  const ReplayResult r = ReplayOf(SmallYaml());
  ASSERT_EQ(r.pending.size(), 2u);
  EXPECT_EQ(r.pending[0].pod, "team-a/big");
  ASSERT_EQ(r.pending[0].nodes.size(), 3u);
  for (const auto& n : r.pending[0].nodes) EXPECT_TRUE(absl::StrContains(n.reason, "gpus")) << n.node << ": " << n.reason;
  // huge asks for 8 cpu: the cpu the pods placed before it took shows on every node.
  EXPECT_EQ(r.pending[1].pod, "team-a/huge");
  std::map<std::string, std::string> why;
  for (const auto& n : r.pending[1].nodes) why[n.node] = n.reason;
  EXPECT_EQ(why["node-a"], "cpu: 8 requested, 2 free (allocatable 4)");  // urgent and early
  EXPECT_EQ(why["node-b"], "cpu: 8 requested, 3 free (allocatable 4)");  // held-user, bound before
  EXPECT_EQ(why["node-c"], "cpu: 8 requested, 3 free (allocatable 4)");  // late
}

TEST(Replay, CpuTakenByAnEarlierPodTurnsTheNextAway) {
  const std::string yaml = R"(apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "4", pods: "10"}}
---
apiVersion: v1
kind: Node
metadata: {name: n2}
status: {allocatable: {cpu: "4", pods: "10"}}
---
apiVersion: v1
kind: Pod
metadata: {name: first, namespace: d, creationTimestamp: "2026-01-01T00:00:00Z"}
spec: {containers: [{name: c, image: i, resources: {requests: {cpu: "3"}}}]}
---
apiVersion: v1
kind: Pod
metadata: {name: second, namespace: d, creationTimestamp: "2026-01-01T00:00:01Z"}
spec: {containers: [{name: c, image: i, resources: {requests: {cpu: "3"}}}]}
)";
  const auto nodes = NodeOf(ReplayOf(yaml));
  EXPECT_EQ(nodes.at("d/first"), "n1");
  EXPECT_EQ(nodes.at("d/second"), "n2");
}

TEST(Replay, EachPolicyPicksItsNode) {
  // For urgent (one GPU) the shares after placement are node-a 1/2, node-b 2/2, node-c 1/4.
  EXPECT_EQ(NodeOf(ReplayOf(SmallYaml(), ReplayPolicy::kFirstFit)).at("team-a/urgent"), "node-a");
  EXPECT_EQ(NodeOf(ReplayOf(SmallYaml(), ReplayPolicy::kMostAllocated)).at("team-a/urgent"), "node-b");
  const ReplayResult least = ReplayOf(SmallYaml(), ReplayPolicy::kLeastAllocated);
  EXPECT_EQ(NodeOf(least).at("team-a/urgent"), "node-c");
  // early: node-a 1/2 and node-c 2/4 tie; name order breaks it.
  EXPECT_EQ(NodeOf(least).at("team-a/early"), "node-a");
  EXPECT_EQ(least.policy, ReplayPolicy::kLeastAllocated);
}

TEST(Replay, PolicyNamesRoundTrip) {
  for (ReplayPolicy p : {ReplayPolicy::kFirstFit, ReplayPolicy::kMostAllocated, ReplayPolicy::kLeastAllocated}) {
    EXPECT_EQ(ParseReplayPolicy(ReplayPolicyName(p)), p);
  }
  EXPECT_FALSE(ParseReplayPolicy("best-fit").has_value());
}

TEST(Replay, MalformedPriorityIsAnErrorNamingThePod) {
  store::Cluster cluster;
  auto snapshot = Load(R"(apiVersion: v1
kind: Pod
metadata: {name: p, namespace: d}
spec: {containers: [{name: c, image: i}], priority: "high"}
)",
                       cluster);
  auto r = Replay(*snapshot);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(absl::StrContains(r.status().message(), "pod d/p: spec.priority")) << r.status();
}

TEST(Replay, DoesNotChangeTheSnapshot) {
  store::Cluster cluster;
  auto snapshot = Load(SmallYaml(), cluster);
  ASSERT_TRUE(Replay(*snapshot).ok());
  const api::Pod* urgent = snapshot->GetPod("team-a", "urgent");
  ASSERT_NE(urgent, nullptr);
  EXPECT_FALSE(urgent->spec->node_name.has_value());
}


// Three nodes in name order: n1 tainted, n2 cordoned, n3 labelled zone=b.
constexpr char kFilterNodes[] = R"(apiVersion: v1
kind: Node
metadata: {name: n1, labels: {zone: a}}
spec: {taints: [{key: dedicated, value: infra, effect: NoSchedule}]}
status: {allocatable: {cpu: "4", pods: "10"}}
---
apiVersion: v1
kind: Node
metadata: {name: n2, labels: {zone: a}}
spec: {unschedulable: true}
status: {allocatable: {cpu: "4", pods: "10"}}
---
apiVersion: v1
kind: Node
metadata: {name: n3, labels: {zone: b}}
status: {allocatable: {cpu: "4", pods: "10"}}
)";

std::string PodYaml(std::string_view name, std::string_view extra_spec,
                    std::string_view containers = "[{name: c, image: i}]") {
  std::string out = "---\napiVersion: v1\nkind: Pod\nmetadata: {name: " + std::string(name) +
                    ", namespace: d, creationTimestamp: \"2026-01-01T00:00:00Z\"}\n";
  out += "spec: {containers: " + std::string(containers);
  if (!extra_spec.empty()) out += ", " + std::string(extra_spec);
  return out + "}\n";
}

TEST(Replay, TaintedAndCordonedNodesAreSkippedForTheNextNodeThatPasses) {
  const ReplayResult r = ReplayOf(absl::StrCat(kFilterNodes, PodYaml("plain", "")));
  EXPECT_EQ(NodeOf(r).at("d/plain"), "n3");
  // Tolerating the taint lands the pod on the first node.
  const ReplayResult tolerant =
      ReplayOf(absl::StrCat(kFilterNodes, PodYaml("tolerant", "tolerations: [{key: dedicated, operator: Exists}]")));
  EXPECT_EQ(NodeOf(tolerant).at("d/tolerant"), "n1");
  // Tolerating the cordon (as DaemonSet pods do) but not the taint: the second node.
  const ReplayResult cordon = ReplayOf(absl::StrCat(
      kFilterNodes, PodYaml("ds", "tolerations: [{key: node.kubernetes.io/unschedulable, operator: Exists}]")));
  EXPECT_EQ(NodeOf(cordon).at("d/ds"), "n2");
}

TEST(Replay, NodeSelectorAndAffinityChooseAmongTheNodes) {
  const std::string everything = "tolerations: [{operator: Exists}]";
  // Tolerating everything, zone a picks n1, zone b n3.
  const ReplayResult a =
      ReplayOf(absl::StrCat(kFilterNodes, PodYaml("za", everything + ", nodeSelector: {zone: a}")));
  EXPECT_EQ(NodeOf(a).at("d/za"), "n1");
  const ReplayResult b = ReplayOf(absl::StrCat(
      kFilterNodes,
      PodYaml("zb", everything + ", affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: "
                                 "{nodeSelectorTerms: [{matchExpressions: [{key: zone, operator: NotIn, values: [a]}]}]}}}")));
  EXPECT_EQ(NodeOf(b).at("d/zb"), "n3");
}

TEST(Replay, EveryNodeSaysWhichFilterRejectedIt) {
  const ReplayResult r = ReplayOf(absl::StrCat(kFilterNodes, PodYaml("zc", "nodeSelector: {zone: c}")));
  ASSERT_EQ(r.pending.size(), 1u);
  ASSERT_EQ(r.pending[0].nodes.size(), 3u);
  const auto& n = r.pending[0].nodes;
  EXPECT_EQ(n[0].node, "n1");
  EXPECT_EQ(n[0].filter, "TaintToleration");
  EXPECT_EQ(n[0].reason, "node(s) had untolerated taint(s): dedicated=infra:NoSchedule");
  EXPECT_EQ(n[1].filter, "NodeUnschedulable");
  EXPECT_EQ(n[1].reason, "node(s) were unschedulable");
  EXPECT_EQ(n[2].filter, "NodeAffinity");
  EXPECT_EQ(n[2].reason, "node(s) didn't match Pod's node affinity/selector");
}

TEST(Replay, ResourcesAreCheckedAfterTheNodeFilters) {
  // 8 cpu fits nowhere, but the tainted and cordoned nodes say so by their filters.
  const ReplayResult r = ReplayOf(
      absl::StrCat(kFilterNodes, PodYaml("big", "", "[{name: c, image: i, resources: {requests: {cpu: \"8\"}}}]")));
  ASSERT_EQ(r.pending.size(), 1u);
  const auto& n = r.pending[0].nodes;
  ASSERT_EQ(n.size(), 3u);
  EXPECT_EQ(n[0].filter, "TaintToleration");
  EXPECT_EQ(n[1].filter, "NodeUnschedulable");
  EXPECT_EQ(n[2].filter, "NodeResourcesFit");
  EXPECT_EQ(n[2].reason, "cpu: 8 requested, 4 free (allocatable 4)");
}

TEST(Replay, DevicesAreOnlyAllocatedOnNodesThatPassTheFilters) {
  // n1 has the GPU but is tainted: the claim stays pending with the taint as n1's reason, and the
  // device is not allocated.
  const ReplayResult r = ReplayOf(absl::StrCat(kFilterNodes, R"(---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu}
spec: {selectors: [{cel: {expression: "device.driver == 'gpu.example.com'"}}]}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: n1-gpus}
spec:
  driver: gpu.example.com
  nodeName: n1
  pool: {name: n1, generation: 1, resourceSliceCount: 1}
  devices: [{name: gpu-0}]
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: want-gpu, namespace: d}
spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu}}]}}
)",
                                               PodYaml("g", "resourceClaims: [{name: gpu, resourceClaimName: want-gpu}]")));
  ASSERT_EQ(r.pending.size(), 1u);
  const auto& n = r.pending[0].nodes;
  ASSERT_EQ(n.size(), 3u);
  EXPECT_EQ(n[0].filter, "TaintToleration");
  EXPECT_EQ(n[2].filter, "DynamicResources");
  // Tolerated, it lands on n1 with the GPU.
  const ReplayResult ok = ReplayOf(absl::StrCat(kFilterNodes, R"(---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu}
spec: {selectors: [{cel: {expression: "device.driver == 'gpu.example.com'"}}]}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: n1-gpus}
spec:
  driver: gpu.example.com
  nodeName: n1
  pool: {name: n1, generation: 1, resourceSliceCount: 1}
  devices: [{name: gpu-0}]
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: want-gpu, namespace: d}
spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu}}]}}
)",
                                                PodYaml("g", "resourceClaims: [{name: gpu, resourceClaimName: want-gpu}], "
                                                             "tolerations: [{key: dedicated, operator: Exists}]")));
  EXPECT_EQ(NodeOf(ok).at("d/g"), "n1");
}

TEST(Replay, MalformedTolerationsAreAnErrorNamingThePod) {
  store::Cluster cluster;
  auto snapshot = Load(absl::StrCat(kFilterNodes, PodYaml("bad", "tolerations: [{key: 1}]")), cluster);
  auto r = Replay(*snapshot);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(absl::StrContains(r.status().message(), "pod d/bad: spec.tolerations[0].key")) << r.status();
}

}  // namespace
}  // namespace draforge::alloc
