// api::PodRequests and friends against upstream's rules (k8s.io/component-helpers/resource
// PodRequests): containers summed, init containers as a maximum, sidecars counted both ways,
// pod-level requests, overhead, and limits standing in for missing requests.
#include "api/pod_resources.h"

#include <gtest/gtest.h>

#include <string>
#include <variant>

#include "api/codec.h"
#include "api/resource_quota.h"

namespace draforge::api {
namespace {

Pod DecodePod(const std::string& yaml) {
  auto decoded = DecodeStream(yaml, DecodeOptions{});
  EXPECT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_EQ(decoded->size(), 1u);
  EXPECT_TRUE(decoded->front().object.ok()) << decoded->front().object.status();
  return std::get<Pod>(decoded->front().object->value);
}

std::string Requests(const Pod& pod) {
  auto r = PodRequests(pod);
  if (!r.ok()) return std::string(r.status().message());
  std::string out;
  for (const auto& [name, q] : *r) out += name + "=" + q.CanonicalForm() + " ";
  return out;
}

TEST(PodRequests, SumsContainersAndAddsOverhead) {
  const Pod pod = DecodePod(R"(
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  overhead: {cpu: 250m, memory: 120Mi}
  containers:
  - name: a
    resources: {requests: {cpu: "1", memory: 1Gi}}
  - name: b
    resources: {requests: {cpu: 500m}, limits: {memory: 2Gi}}
)");
  // b's memory request defaults to its limit, as the API server defaults it.
  EXPECT_EQ(Requests(pod), "cpu=1750m memory=3192Mi ");
}

TEST(PodRequests, InitContainersAreAMaximumAndSidecarsAddUp) {
  // Upstream's example: regular containers 1 cpu; a sidecar of 2 runs through everything after it;
  // the regular init container of 4 runs next to the sidecar (4 + 2 = 6 at that moment).
  const Pod pod = DecodePod(R"(
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  initContainers:
  - name: side
    restartPolicy: Always
    resources: {requests: {cpu: "2"}}
  - name: setup
    resources: {requests: {cpu: "4", memory: 8Gi}}
  containers:
  - name: main
    resources: {requests: {cpu: "1", memory: 1Gi}}
)");
  // containers + sidecar = 3 cpu; init step "setup" = 4 + 2 = 6 cpu, 8Gi: the maximum wins.
  EXPECT_EQ(Requests(pod), "cpu=6 memory=8Gi ");
}

TEST(PodRequests, SidecarAfterInitContainerCountsWithContainers) {
  const Pod pod = DecodePod(R"(
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  initContainers:
  - name: setup
    resources: {requests: {cpu: "3"}}
  - name: side
    restartPolicy: Always
    resources: {requests: {cpu: "2"}}
  containers:
  - name: main
    resources: {requests: {cpu: "2"}}
)");
  // The init step runs alone (3); afterwards main + side = 4.
  EXPECT_EQ(Requests(pod), "cpu=4 ");
}

TEST(PodRequests, PodLevelRequestsReplaceTheContainersSum) {
  const Pod pod = DecodePod(R"(
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  resources: {requests: {cpu: "8"}}
  containers:
  - name: main
    resources: {requests: {cpu: "1", memory: 1Gi}}
)");
  EXPECT_EQ(Requests(pod), "cpu=8 memory=1Gi ");
}

TEST(PodRequests, BadQuantityNamesPodAndField) {
  const Pod pod = DecodePod(R"(
apiVersion: v1
kind: Pod
metadata: {name: p, namespace: ns}
spec:
  containers:
  - name: main
    resources: {requests: {cpu: "1", memory: 1GB}}
)");
  EXPECT_EQ(Requests(pod).rfind("pod ns/p: spec.containers[0].resources.requests[memory]: quantities must match", 0),
            0u)
      << Requests(pod);
}

TEST(ClaimQuotaUsage, CountsDevicesPerClassAsTheQuotaEvaluator) {
  auto decoded = DecodeStream(R"(
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: c}
spec:
  devices:
    requests:
    - name: a
      exactly: {deviceClassName: gpu, count: 2}
    - name: b
      exactly: {deviceClassName: gpu}
    - name: c
      exactly: {deviceClassName: nic, allocationMode: All}
    - name: d
      firstAvailable:
      - {name: big, deviceClassName: gpu, count: 4}
      - {name: small, deviceClassName: gpu, count: 1}
)",
                              DecodeOptions{});
  ASSERT_TRUE(decoded.ok());
  const auto& claim = std::get<ResourceClaim>((*decoded)[0].object->value);
  std::string out;
  for (const auto& [name, q] : ClaimQuotaUsage(claim)) out += name + "=" + q.CanonicalForm() + " ";
  EXPECT_EQ(out,
            "count/resourceclaims.resource.k8s.io=1 gpu.deviceclass.resource.k8s.io/devices=7 "
            "nic.deviceclass.resource.k8s.io/devices=32 ");
}

}  // namespace
}  // namespace draforge::api
