// alloc::HowManyMore with a pod prototype: devices and node resources together (NodeResourcesFit:
// allocatable minus bound pods, pod slots), which side stops a node, and namespace ResourceQuotas.
#include <gtest/gtest.h>

#include <string>
#include <variant>

#include "alloc/placement.h"
#include "api/codec.h"
#include "store/cluster.h"

namespace draforge::alloc {
namespace {

// Two nodes with 4 GPUs each (node-local pools); node-a has 10 cpu allocatable, node-b 64, and a
// pod bound to node-b already requests 60 of them.
constexpr char kCluster[] = R"(
apiVersion: v1
kind: Node
metadata: {name: node-a}
status:
  allocatable: {cpu: "10", memory: 64Gi, pods: "110"}
---
apiVersion: v1
kind: Node
metadata: {name: node-b}
status:
  allocatable: {cpu: "64", memory: 64Gi, pods: "110"}
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu}
spec:
  selectors:
  - cel: {expression: "device.driver == 'gpu.example.com'"}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: a}
spec:
  driver: gpu.example.com
  nodeName: node-a
  pool: {name: node-a, generation: 1, resourceSliceCount: 1}
  devices: [{name: g0}, {name: g1}, {name: g2}, {name: g3}]
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: b}
spec:
  driver: gpu.example.com
  nodeName: node-b
  pool: {name: node-b, generation: 1, resourceSliceCount: 1}
  devices: [{name: g0}, {name: g1}, {name: g2}, {name: g3}]
---
apiVersion: v1
kind: Pod
metadata: {name: big, namespace: other}
spec:
  nodeName: node-b
  containers:
  - name: c
    resources: {requests: {cpu: "60"}}
---
apiVersion: v1
kind: Pod
metadata: {name: done, namespace: other}
spec:
  nodeName: node-a
  containers:
  - name: c
    resources: {requests: {cpu: "10"}}
status: {phase: Succeeded}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: one-gpu, namespace: team}
spec:
  devices:
    requests:
    - name: gpu
      exactly: {deviceClassName: gpu}
---
apiVersion: v1
kind: Pod
metadata: {name: worker, namespace: team}
spec:
  containers:
  - name: c
    resources:
      requests: {cpu: "3", memory: 1Gi}
      claims: [{name: gpu}]
  resourceClaims:
  - {name: gpu, resourceClaimName: one-gpu}
)";

std::shared_ptr<const store::Snapshot> Load(const std::string& extra = "") {
  store::Cluster cluster;
  auto decoded = api::DecodeStream(std::string(kCluster) + extra, api::DecodeOptions{});
  EXPECT_TRUE(decoded.ok()) << decoded.status();
  for (auto& d : *decoded) {
    EXPECT_TRUE(d.object.ok()) << d.object.status();
    EXPECT_TRUE(cluster.Apply(*std::move(d.object)).ok());
  }
  return cluster.snapshot();
}

HowManyMoreResult CountPod(const store::Snapshot& s, HowManyMoreOptions options = {}) {
  const api::Pod* pod = s.GetPod("team", "worker");
  EXPECT_NE(pod, nullptr);
  auto unit = PodUnit(s, *pod);
  EXPECT_TRUE(unit.ok()) << unit.status();
  auto r = HowManyMore(s, *unit, options);
  EXPECT_TRUE(r.ok()) << r.status();
  return *r;
}

TEST(UnitCapacity, ResourcesAndDevicesEachBindWhereTheyAreShort) {
  auto s = Load();
  const HowManyMoreResult r = CountPod(*s);
  ASSERT_EQ(r.nodes.size(), 2u);
  EXPECT_TRUE(r.resources_checked);
  // node-a: 10 cpu (the Succeeded pod does not count) -> 3 pods of 3 cpu, although 4 GPUs are free.
  EXPECT_EQ(r.nodes[0].count, 3);
  EXPECT_EQ(r.nodes[0].limited_by, "cpu");
  EXPECT_EQ(r.nodes[0].why, "cpu: 3 requested, 1 free (allocatable 10)");
  EXPECT_EQ(r.nodes[0].reasons, std::vector<std::string>{"Insufficient cpu"});
  // node-b: 64 - 60 = 4 cpu free -> 1 pod.
  EXPECT_EQ(r.nodes[1].count, 1);
  EXPECT_EQ(r.nodes[1].limited_by, "cpu");
  EXPECT_EQ(r.total, 4);
  EXPECT_EQ(r.stop, StopReason::kExhausted);
  // Each unit copies the pod's claim.
  EXPECT_EQ(r.copies.size(), 4u);
}

TEST(UnitCapacity, DevicesBindWhenResourcesAreAmple) {
  auto s = Load(R"(
---
apiVersion: v1
kind: Pod
metadata: {name: small, namespace: team}
spec:
  containers:
  - name: c
    resources:
      requests: {cpu: 100m}
      claims: [{name: gpu}]
  resourceClaims:
  - {name: gpu, resourceClaimName: one-gpu}
)");
  const api::Pod* pod = s->GetPod("team", "small");
  auto unit = PodUnit(*s, *pod);
  ASSERT_TRUE(unit.ok());
  auto r = HowManyMore(*s, *unit);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->nodes[0].count, 4);
  EXPECT_EQ(r->nodes[0].limited_by, "devices");
  EXPECT_NE(r->nodes[0].why.find("gpu"), std::string::npos) << r->nodes[0].why;
  EXPECT_EQ(r->nodes[1].count, 4);
  EXPECT_EQ(r->total, 8);
}

TEST(UnitCapacity, PodSlotsCount) {
  // node-c: plenty of cpu and GPUs, two pod slots, one of them taken by a bound pod.
  auto s = Load(R"(
---
apiVersion: v1
kind: Node
metadata: {name: node-c}
status:
  allocatable: {cpu: "64", memory: 64Gi, pods: "2"}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: c}
spec:
  driver: gpu.example.com
  nodeName: node-c
  pool: {name: node-c, generation: 1, resourceSliceCount: 1}
  devices: [{name: g0}, {name: g1}, {name: g2}, {name: g3}]
---
apiVersion: v1
kind: Pod
metadata: {name: sitting, namespace: other}
spec:
  nodeName: node-c
  containers: [{name: c}]
)");
  const HowManyMoreResult r = CountPod(*s);
  ASSERT_EQ(r.nodes.size(), 3u);
  EXPECT_EQ(r.nodes[2].count, 1);
  EXPECT_EQ(r.nodes[2].limited_by, "pods");
  EXPECT_EQ(r.nodes[2].reasons, std::vector<std::string>{"Too many pods"});
  EXPECT_EQ(r.nodes[2].why, "pods: 1 requested, 0 free (allocatable 2)");
}

TEST(UnitCapacity, ClaimPrototypeIgnoresResources) {
  auto s = Load();
  auto r = HowManyMore(*s, PrototypeKind::kClaim, "team", "one-gpu");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->total, 8);
  EXPECT_FALSE(r->resources_checked);
}

TEST(UnitCapacity, QuotaCapsTheTotal) {
  auto s = Load(R"(
---
apiVersion: v1
kind: ResourceQuota
metadata: {name: gpus, namespace: team}
spec:
  hard: {gpu.deviceclass.resource.k8s.io/devices: "10", requests.cpu: "100"}
status:
  hard: {gpu.deviceclass.resource.k8s.io/devices: "10", requests.cpu: "100"}
  used: {gpu.deviceclass.resource.k8s.io/devices: "8", requests.cpu: "0"}
)");
  HowManyMoreOptions options;
  options.quota = true;
  const HowManyMoreResult r = CountPod(*s, options);
  EXPECT_TRUE(r.quota_checked);
  ASSERT_TRUE(r.quota_units.has_value());
  EXPECT_EQ(*r.quota_units, 2);
  EXPECT_EQ(r.total, 2);
  EXPECT_EQ(r.stop, StopReason::kQuota);
  EXPECT_EQ(r.quota_why,
            "resourcequota team/gpus: gpu.deviceclass.resource.k8s.io/devices: 1 per unit, 2 left (hard 10, used 8)");
  EXPECT_EQ(r.quotas, std::vector<std::string>{"team/gpus"});
}

TEST(UnitCapacity, QuotaOfAnotherNamespaceDoesNotCount) {
  auto s = Load(R"(
---
apiVersion: v1
kind: ResourceQuota
metadata: {name: q, namespace: other}
spec:
  hard: {requests.cpu: "1"}
)");
  HowManyMoreOptions options;
  options.quota = true;
  const HowManyMoreResult r = CountPod(*s, options);
  EXPECT_FALSE(r.quota_units.has_value());
  EXPECT_EQ(r.total, 4);
}

TEST(UnitCapacity, MissingClaimIsNotFound) {
  auto s = Load();
  api::Pod pod = *s->GetPod("team", "worker");
  pod.spec->resource_claims[0].resource_claim_name = "nope";
  auto unit = PodUnit(*s, pod);
  ASSERT_FALSE(unit.ok());
  EXPECT_EQ(unit.status().message(),
            "pod team/worker: spec.resourceClaims[0].resourceClaimName: resourceclaim team/nope not found");
}

}  // namespace
}  // namespace draforge::alloc
