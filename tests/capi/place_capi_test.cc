// draforge/place.h as a caller sees it: on which nodes a pod fits and how many more claims like one
// fit, through the C ABI and the C++ API (draforge/draforge.hpp); and explain's grouping of the nodes
// that do not fit (draforge_explanation_node_groups_json), on the same two nodes.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "draforge/draforge.hpp"
#include "fixtures.h"

namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// Two GPUs on node-1, one on node-2, no Node objects (the nodes come from the slices).
const std::string kCluster = std::string(draforge_test::kNode1Gpus) + R"(---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: node-2-gpus}
spec:
  driver: gpu.example.com
  nodeName: node-2
  pool: {name: node-2, generation: 1, resourceSliceCount: 1}
  devices:
  - name: gpu-0
---)" + draforge_test::kClaimTwo + R"(---
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: one, namespace: team-a}
spec:
  spec:
    devices:
      requests:
      - name: gpu
        exactly: {deviceClassName: gpu.example.com}
---
apiVersion: v1
kind: Pod
metadata: {name: trainer, namespace: team-a}
spec:
  containers: [{name: c, image: x}]
  resourceClaims: [{name: gpus, resourceClaimName: two}]
---
apiVersion: v1
kind: Pod
metadata: {name: orphan, namespace: team-a}
spec:
  containers: [{name: c, image: x}]
  resourceClaims: [{name: gpus, resourceClaimName: missing}]
)";

using draforge_test::Take;

class PlaceCApi : public draforge_test::ClusterFixture {
 protected:
  PlaceCApi() : ClusterFixture(kCluster) {}
};

TEST_F(PlaceCApi, PodFitsOnlyWhereBothGpusAre) {
  draforge_buffer b = {nullptr, 0};
  ASSERT_EQ(draforge_place_pod_json(&b, snapshot_, "team-a/trainer", nullptr, &error_), DRAFORGE_OK)
      << draforge_error_message(error_);
  const std::string json = Take(b);
  EXPECT_THAT(json, HasSubstr("\"pod\":\"team-a/trainer\",\"nodeSource\":\"slices\""));
  EXPECT_THAT(json, HasSubstr("\"claim\":\"team-a/two\",\"source\":\"claim\",\"allocated\":false,\"found\":true"));
  EXPECT_THAT(json, HasSubstr("\"fittingNodes\":[\"node-1\"]"));
  EXPECT_THAT(json, HasSubstr("{\"node\":\"node-1\",\"fits\":true,\"outcome\":\"allocated\",\"allocations\":"));
  EXPECT_THAT(json, HasSubstr("{\"node\":\"node-2\",\"fits\":false,\"outcome\":\"unschedulable\",\"reasons\":"));
  EXPECT_THAT(json, HasSubstr("\"device\":\"gpu-1\""));
}

TEST_F(PlaceCApi, MissingClaimIsUnresolvableOnEveryNode) {
  draforge_buffer b = {nullptr, 0};
  ASSERT_EQ(draforge_place_pod_json(&b, snapshot_, "team-a/orphan", nullptr, &error_), DRAFORGE_OK);
  const std::string json = Take(b);
  EXPECT_THAT(json, HasSubstr("\"found\":false"));
  EXPECT_THAT(json, HasSubstr("\"fittingNodes\":[]"));
  EXPECT_THAT(json, Not(HasSubstr("\"unresolvable\":[]")));
  EXPECT_THAT(json, HasSubstr("team-a/missing"));
}

TEST_F(PlaceCApi, UnknownPodAndBadArgumentsAreErrors) {
  draforge_buffer b = {nullptr, 0};
  EXPECT_EQ(draforge_place_pod_json(&b, snapshot_, "team-a/nope", nullptr, &error_), DRAFORGE_ENOTFOUND);
  EXPECT_THAT(draforge_error_message(error_), HasSubstr("team-a/nope"));
  EXPECT_EQ(b.ptr, nullptr);
  EXPECT_EQ(draforge_place_pod_json(&b, nullptr, "team-a/trainer", nullptr, nullptr), DRAFORGE_EINVALID);
  draforge_allocate_options o = DRAFORGE_ALLOCATE_OPTIONS_INIT;
  o.feature_gates = "NoSuchGate=true";
  EXPECT_EQ(draforge_place_pod_json(&b, snapshot_, "team-a/trainer", &o, nullptr), DRAFORGE_EINVALID);
  EXPECT_EQ(draforge_how_many_more_json(&b, snapshot_, DRAFORGE_PROTOTYPE_TEMPLATE, "team-a/one", 0, &o, nullptr),
            DRAFORGE_EINVALID);
}

TEST_F(PlaceCApi, HowManyMoreFillsNodesInNameOrder) {
  draforge_buffer b = {nullptr, 0};
  ASSERT_EQ(draforge_how_many_more_json(&b, snapshot_, DRAFORGE_PROTOTYPE_TEMPLATE, "team-a/one", 0, nullptr, &error_),
            DRAFORGE_OK)
      << draforge_error_message(error_);
  const std::string json = Take(b);
  EXPECT_THAT(json, HasSubstr("\"prototype\":\"resourceclaimtemplate team-a/one\",\"total\":3,\"cap\":1000,"
                              "\"stop\":\"exhausted\""));
  EXPECT_THAT(json, HasSubstr("{\"node\":\"node-1\",\"count\":2,"));
  EXPECT_THAT(json, HasSubstr("{\"node\":\"node-2\",\"count\":1,"));
  EXPECT_THAT(json, HasSubstr("{\"claim\":\"team-a/one-more-1\",\"node\":\"node-1\",\"allocation\":"));
}

TEST_F(PlaceCApi, HowManyMoreStopsAtTheCap) {
  draforge_buffer b = {nullptr, 0};
  ASSERT_EQ(draforge_how_many_more_json(&b, snapshot_, DRAFORGE_PROTOTYPE_TEMPLATE, "one", 2, nullptr, &error_),
            DRAFORGE_ENOTFOUND)
      << "\"one\" alone is in namespace default";
  ASSERT_EQ(draforge_how_many_more_json(&b, snapshot_, DRAFORGE_PROTOTYPE_TEMPLATE, "team-a/one", 2, nullptr, nullptr),
            DRAFORGE_OK);
  EXPECT_THAT(Take(b), HasSubstr("\"total\":2,\"cap\":2,\"stop\":\"cap\""));
}

TEST_F(PlaceCApi, HowManyMoreBadArguments) {
  draforge_buffer b = {nullptr, 0};
  EXPECT_EQ(draforge_how_many_more_json(&b, snapshot_, DRAFORGE_PROTOTYPE_CLAIM, "team-a/missing", 0, nullptr, nullptr),
            DRAFORGE_ENOTFOUND);
  EXPECT_EQ(draforge_how_many_more_json(&b, snapshot_, DRAFORGE_PROTOTYPE_CLAIM, "team-a/two", -1, nullptr, nullptr),
            DRAFORGE_EINVALID);
  EXPECT_EQ(draforge_how_many_more_json(&b, snapshot_, 7, "team-a/two", 0, nullptr, nullptr), DRAFORGE_EINVALID);
  EXPECT_EQ(draforge_how_many_more_json(&b, snapshot_, DRAFORGE_PROTOTYPE_CLAIM, nullptr, 0, nullptr, nullptr),
            DRAFORGE_EINVALID);
}

// Explain without a node, on the same two nodes: the nodes that do not fit, grouped by reason.
TEST_F(PlaceCApi, ExplainGroupsTheNodesThatDoNotFit) {
  auto groups_of = [&](const char* claim, const char* node) {
    draforge_explanation* ex = nullptr;
    EXPECT_EQ(draforge_explain(&ex, snapshot_, claim, node, nullptr, &error_), DRAFORGE_OK)
        << draforge_error_message(error_);
    draforge_buffer b = {nullptr, 0};
    EXPECT_EQ(draforge_explanation_node_groups_json(&b, ex, nullptr), DRAFORGE_OK);
    draforge_explanation_destroy(ex);
    return Take(b);
  };
  EXPECT_EQ(groups_of("team-a/two", nullptr),
            "[{\"reason\":\"request gpus: only 1 device matches class gpu.example.com, 2 needed\",\"nodes\":[\"node-2\"]}]");
  EXPECT_EQ(groups_of("team-a/two", "node-2"), "[]");  // with a node there are no verdicts to group
  draforge_buffer b = {nullptr, 0};
  EXPECT_EQ(draforge_explanation_node_groups_json(&b, nullptr, nullptr), DRAFORGE_EINVALID);
}

TEST_F(PlaceCApi, WhatifEditGivesANewSnapshotAndSaysWhatChanged) {
  // node-1 copied: the two-GPU pod then fits on node-1 and its copy.
  draforge_snapshot* edited = nullptr;
  draforge_buffer changes = {nullptr, 0};
  ASSERT_EQ(draforge_whatif_edit(&edited, &changes, snapshot_,
                                 R"([{"op":"add-nodes","like":"node-1","count":1},{"op":"delete-node","name":"node-2"}])",
                                 &error_),
            DRAFORGE_OK)
      << draforge_error_message(error_);
  const std::string said = Take(changes);
  EXPECT_THAT(said, HasSubstr("add-nodes node-1: 1 node added (node-1-whatif-1)"));
  EXPECT_THAT(said, HasSubstr("delete-node node-2: deleted with 1 ResourceSlice"));
  draforge_buffer b = {nullptr, 0};
  ASSERT_EQ(draforge_place_pod_json(&b, edited, "team-a/trainer", nullptr, &error_), DRAFORGE_OK);
  EXPECT_THAT(Take(b), HasSubstr("\"fittingNodes\":[\"node-1\",\"node-1-whatif-1\"]"));
  draforge_snapshot_destroy(edited);
  // The input is unchanged; changes may be NULL.
  ASSERT_EQ(draforge_place_pod_json(&b, snapshot_, "team-a/trainer", nullptr, &error_), DRAFORGE_OK);
  EXPECT_THAT(Take(b), HasSubstr("\"fittingNodes\":[\"node-1\"]"));
  edited = nullptr;
  ASSERT_EQ(draforge_whatif_edit(&edited, nullptr, snapshot_, "[]", &error_), DRAFORGE_OK);
  draforge_snapshot_destroy(edited);
}

TEST_F(PlaceCApi, WhatifEditAddsNodesOfATemplateWithTheSlicesASimulatedProfilePublishes) {
  // A node group that does not exist yet: its Node template and the dra-example-driver profile its
  // nodes would run (8 GPUs each).
  draforge_snapshot* edited = nullptr;
  draforge_buffer changes = {nullptr, 0};
  ASSERT_EQ(draforge_whatif_edit(&edited, &changes, snapshot_, R"([{"op": "add-nodes", "count": 2,
      "node": {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "gpu-group"}},
      "simulatedDevicePools": [{"apiVersion": "sim.draforge.io/v1alpha1", "kind": "SimulatedDevicePool",
        "metadata": {"name": "example"}, "spec": {"profile": "example-gpu", "nodes": {"allNodes": true}}}]}])",
                                 &error_),
            DRAFORGE_OK)
      << draforge_error_message(error_);
  EXPECT_EQ(Take(changes),
            "[\"add-nodes gpu-group (template): 2 nodes added (gpu-group-whatif-1, gpu-group-whatif-2) with 1 "
            "ResourceSlice each\"]");
  draforge_buffer b = {nullptr, 0};
  ASSERT_EQ(draforge_place_pod_json(&b, edited, "team-a/trainer", nullptr, &error_), DRAFORGE_OK);
  // With Node objects in the snapshot, the nodes are the Node objects (node-1 and node-2 are named
  // only by slices here): the pod fits on both new nodes' GPUs.
  const std::string placed = Take(b);
  EXPECT_THAT(placed, HasSubstr("\"fittingNodes\":[\"gpu-group-whatif-1\",\"gpu-group-whatif-2\"]"));
  EXPECT_THAT(placed, HasSubstr("\"pool\":\"gpu-group-whatif-2\",\"device\":\"gpu-1\""));
  draforge_snapshot_destroy(edited);
  // A pool needs a template node; a pool that does not expand is named.
  EXPECT_EQ(draforge_whatif_edit(&edited, nullptr, snapshot_, R"([{"op": "add-nodes", "count": 1, "like": "node-1",
      "simulatedDevicePools": []}])", &error_),
            DRAFORGE_EINVALID);
  EXPECT_STREQ(draforge_error_message(error_), "edits[0].simulatedDevicePools: needs a \"node\" template to publish for");
  draforge_error_destroy(error_);
  error_ = nullptr;
  EXPECT_EQ(draforge_whatif_edit(&edited, nullptr, snapshot_, R"([{"op": "add-nodes", "count": 1,
      "node": {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "g"}},
      "simulatedDevicePools": [{"apiVersion": "sim.draforge.io/v1alpha1", "kind": "SimulatedDevicePool",
        "metadata": {"name": "x"}, "spec": {"profile": "no-such-profile", "nodes": {"allNodes": true}}}]}])", &error_),
            DRAFORGE_EINVALID);
  EXPECT_THAT(draforge_error_message(error_), HasSubstr("edits[0].simulatedDevicePools[0]: "));
  EXPECT_THAT(draforge_error_message(error_), HasSubstr("no-such-profile"));
}

TEST_F(PlaceCApi, WhatifEditErrorsNameTheEditAndObject) {
  draforge_snapshot* edited = nullptr;
  EXPECT_EQ(draforge_whatif_edit(&edited, nullptr, snapshot_, R"([{"op":"drain-node","name":"node-9"}])", &error_),
            DRAFORGE_ENOTFOUND);
  EXPECT_STREQ(draforge_error_message(error_), "drain-node: node \"node-9\" not found");
  EXPECT_EQ(edited, nullptr);
  draforge_error_destroy(error_);
  error_ = nullptr;
  EXPECT_EQ(draforge_whatif_edit(&edited, nullptr, snapshot_, R"([{"op":"cordon","name":"node-1"}])", &error_),
            DRAFORGE_EINVALID);
  EXPECT_THAT(draforge_error_message(error_), HasSubstr("edits[0].op: unknown edit \"cordon\""));
  EXPECT_EQ(draforge_whatif_edit(&edited, nullptr, snapshot_, nullptr, nullptr), DRAFORGE_EINVALID);
  EXPECT_EQ(draforge_whatif_edit(nullptr, nullptr, snapshot_, "[]", nullptr), DRAFORGE_EINVALID);
}

TEST(PlaceCpp, WrappersReturnTheSameJson) {
  auto cluster = draforge::Cluster::Create();
  ASSERT_TRUE(cluster.ok());
  ASSERT_TRUE(cluster->Apply(kCluster).ok());
  auto snap = cluster->snapshot();
  ASSERT_TRUE(snap.ok());
  const draforge::Snapshot& snapshot = *snap;
  auto placed = draforge::PlacePodJson(snapshot, "team-a/trainer");
  ASSERT_TRUE(placed.ok()) << placed.error().message;
  EXPECT_THAT(*placed, HasSubstr("\"fittingNodes\":[\"node-1\"]"));
  auto more = draforge::HowManyMoreJson(snapshot, draforge::PrototypeKind::kClaim, "team-a/two");
  ASSERT_TRUE(more.ok()) << more.error().message;
  EXPECT_THAT(*more, HasSubstr("\"total\":1,"));  // the copies need two GPUs: only node-1 has them
  auto edited = draforge::WhatifEdit(snapshot, R"([{"op":"delete-node","name":"node-1"}])");
  ASSERT_TRUE(edited.ok()) << edited.error().message;
  EXPECT_THAT(edited->changes_json, HasSubstr("delete-node node-1"));
  auto after = draforge::PlacePodJson(edited->snapshot, "team-a/trainer");
  ASSERT_TRUE(after.ok()) << after.error().message;
  EXPECT_THAT(*after, HasSubstr("\"fittingNodes\":[]"));
  auto missing = draforge::PlacePodJson(snapshot, "team-a/nope");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, DRAFORGE_ENOTFOUND);
}

}  // namespace
