// draforge-controller's allocation decisions, offline: which claims it leaves to kube-scheduler,
// which nodes it tries, and the status body it writes.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "api/codec.h"
#include "sim/claim_allocation.h"
#include "store/cluster.h"

namespace draforge::sim::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

constexpr char kWorld[] = R"(
apiVersion: v1
kind: Node
metadata: {name: node-b, labels: {zone: z}}
---
apiVersion: v1
kind: Node
metadata: {name: node-a}
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu}
spec: {}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: on-c}
spec:
  driver: gpu.example.com
  nodeName: node-c
  pool: {name: node-c, generation: 1, resourceSliceCount: 1}
  devices: [{name: gpu-0}]
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: on-a}
spec:
  driver: gpu.example.com
  nodeName: node-a
  pool: {name: node-a, generation: 1, resourceSliceCount: 1}
  devices: [{name: gpu-0}]
)";

std::string Claim(const std::string& name, int count, const std::string& extra_meta = "") {
  return "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: " + name + ", namespace: ns" +
         extra_meta + "}\nspec:\n  devices:\n    requests:\n    - name: r\n      exactly: {deviceClassName: gpu, count: " +
         std::to_string(count) + "}\n";
}

class ClaimAllocationTest : public ::testing::Test {
 protected:
  void Load(const std::string& yaml) {
    auto decoded = api::DecodeStream(yaml, api::DecodeOptions{});
    ASSERT_TRUE(decoded.ok()) << decoded.status();
    for (auto& d : *decoded) {
      ASSERT_TRUE(d.object.ok()) << d.object.status();
      if (d.object->kind() == api::Kind::kResourceClaim) {
        auto json = api::EncodeObject(*d.object);
        ASSERT_TRUE(json.ok());
        json_[d.object->Key()] = *std::move(json);
      }
      ASSERT_TRUE(cluster_.Apply(*std::move(d.object)).ok());
    }
  }
  std::vector<alloc::NodeInfo> Nodes() {
    auto snap = cluster_.snapshot();
    std::vector<const api::Node*> nodes;
    for (const api::Object* o : snap->List(api::Kind::kNode, "")) nodes.push_back(&std::get<api::Node>(o->value));
    return AllocationNodes(nodes, snap->ResourceSlices());
  }
  absl::StatusOr<std::optional<ClaimAllocation>> Plan(const std::string& key, const std::set<std::string>& pods = {}) {
    return PlanClaimAllocation(*cluster_.snapshot(), key, json_[key], pods, Nodes());
  }
  store::Cluster cluster_;
  std::map<std::string, rapidjson::Document> json_;
};

std::vector<std::string> Names(const std::vector<alloc::NodeInfo>& nodes) {
  std::vector<std::string> out;
  for (const auto& n : nodes) out.push_back(n.name);
  return out;
}

TEST_F(ClaimAllocationTest, NodesAreTheNodeObjectsThenNodesOnlySlicesName) {
  Load(kWorld);
  // The snapshot lists Node objects by name; node-c has a slice but no Node object.
  EXPECT_THAT(Names(Nodes()), ElementsAre("node-a", "node-b", "node-c"));
  const auto nodes = Nodes();
  EXPECT_EQ(nodes[1].labels.size(), 1u);  // a Node object's labels are kept for node selectors
}

TEST_F(ClaimAllocationTest, AllocatesOnTheFirstNodeWhereItFits) {
  Load(kWorld);
  Load(Claim("one", 1));
  auto plan = Plan("ns/one");
  ASSERT_TRUE(plan.ok()) << plan.status();
  ASSERT_TRUE(plan->has_value());
  EXPECT_EQ((*plan)->node, "node-a");
  const rapidjson::Value& results = (*plan)->body["status"]["allocation"]["devices"]["results"];
  ASSERT_EQ(results.Size(), 1u);
  EXPECT_STREQ(results[0]["pool"].GetString(), "node-a");
  EXPECT_STREQ(results[0]["device"].GetString(), "gpu-0");
  // The body is the claim as read, with the allocation added.
  EXPECT_STREQ((*plan)->body["metadata"]["name"].GetString(), "one");
  EXPECT_TRUE((*plan)->body["spec"].IsObject());
}

TEST_F(ClaimAllocationTest, FitsNowhereIsNoWrite) {
  Load(kWorld);
  Load(Claim("two", 2));  // every node has one GPU
  auto plan = Plan("ns/two");
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_FALSE(plan->has_value());
}

TEST_F(ClaimAllocationTest, LeavesPodClaimsToTheScheduler) {
  Load(kWorld);
  Load(Claim("used", 1));
  Load(Claim("owned", 1, ", ownerReferences: [{apiVersion: v1, kind: Pod, name: p, uid: u, controller: true}]"));
  Load(R"(
apiVersion: v1
kind: Pod
metadata: {name: p, namespace: ns}
spec:
  containers: [{name: c, image: i}]
  resourceClaims: [{name: gpu, resourceClaimName: used}, {name: t, resourceClaimTemplateName: tmpl}]
status:
  resourceClaimStatuses: [{name: t, resourceClaimName: p-t-abcde}]
)");
  auto snap = cluster_.snapshot();
  std::vector<const api::Pod*> pods;
  for (const api::Object* o : snap->List(api::Kind::kPod, "")) pods.push_back(&std::get<api::Pod>(o->value));
  const std::set<std::string> referenced = ClaimsReferencedByPods(pods);
  EXPECT_THAT(referenced, ElementsAre("ns/p-t-abcde", "ns/used"));
  auto used = Plan("ns/used", referenced);
  ASSERT_TRUE(used.ok());
  EXPECT_FALSE(used->has_value());
  auto owned = Plan("ns/owned", referenced);
  ASSERT_TRUE(owned.ok());
  EXPECT_FALSE(owned->has_value());
}

TEST_F(ClaimAllocationTest, UnknownClaimIsNotFound) {
  Load(kWorld);
  rapidjson::Document empty(rapidjson::kObjectType);
  auto plan = PlanClaimAllocation(*cluster_.snapshot(), "ns/ghost", empty, {}, Nodes());
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.status().code(), absl::StatusCode::kNotFound);
}

TEST(ClaimsReferencedByPods, NoPodsNoClaims) { EXPECT_THAT(ClaimsReferencedByPods({}), IsEmpty()); }

}  // namespace
}  // namespace draforge::sim::testing
