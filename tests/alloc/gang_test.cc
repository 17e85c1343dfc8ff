// Gang placement (alloc::PlaceGang) on tests/cli/data/whatif/gang-small.yaml: a gang that fits, one
// blocked by a member, a group-level claim allocated once and shared (pinning the members to its
// node), minCount below the member count, bound members counting toward minCount, too few members,
// and a PodGroup built from a Workload template.
#include "alloc/gang.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_replace.h"
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
                                     "gang-small.yaml");
}

GangResult GangOf(std::string_view yaml, std::string_view group, const GangOptions& options = {}) {
  store::Cluster cluster;
  auto snapshot = Load(yaml, cluster);
  auto r = PlaceGang(*snapshot, "team-a", group, options);
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? *r : GangResult{};
}

std::map<std::string, std::string> NodeOf(const GangResult& r) {
  std::map<std::string, std::string> out;
  for (const auto& p : r.placed) out[p.pod] = p.node;
  return out;
}

std::vector<std::string> DevicesOf(const GangResult& r, const std::string& pod) {
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

TEST(Gang, FitsAndListsEveryMembersNodeAndDevices) {
  const GangResult r = GangOf(SmallYaml(), "train");
  EXPECT_TRUE(r.fits) << r.status;
  EXPECT_EQ(r.policy, "gang");
  EXPECT_EQ(r.min_count, 2);
  EXPECT_EQ(r.order, (std::vector<std::string>{"team-a/train-0", "team-a/train-1"}));
  EXPECT_EQ(NodeOf(r), (std::map<std::string, std::string>{{"team-a/train-0", "node-a"}, {"team-a/train-1", "node-a"}}));
  EXPECT_EQ(DevicesOf(r, "team-a/train-0"), (std::vector<std::string>{"gpu.example.com/node-a/gpu-0"}));
  EXPECT_EQ(DevicesOf(r, "team-a/train-1"), (std::vector<std::string>{"gpu.example.com/node-a/gpu-1"}));
  EXPECT_TRUE(r.unschedulable.empty());
  EXPECT_TRUE(r.blocking.empty());
  EXPECT_TRUE(r.status.empty());
}

TEST(Gang, OneMemberThatFitsNowhereBlocksTheWholeGang) {
  const GangResult r = GangOf(SmallYaml(), "big");
  EXPECT_FALSE(r.fits);
  EXPECT_EQ(r.blocking, "team-a/big-3");
  EXPECT_EQ(r.status, "minCount (4) cannot be satisfied: 3 scheduled, 0 remaining");
  // The tentative placement of the others (undone by the scheduler) is still shown.
  EXPECT_EQ(NodeOf(r), (std::map<std::string, std::string>{
                           {"team-a/big-0", "node-a"}, {"team-a/big-1", "node-b"}, {"team-a/big-2", "node-c"}}));
  ASSERT_EQ(r.unschedulable.size(), 1u);
  ASSERT_EQ(r.unschedulable[0].nodes.size(), 3u);
  for (const auto& n : r.unschedulable[0].nodes) {
    EXPECT_EQ(n.filter, "DynamicResources") << n.node;
    EXPECT_TRUE(absl::StrContains(n.reason, "gpus")) << n.node << ": " << n.reason;
  }
}

TEST(Gang, TheCycleStopsAtTheFirstMemberThatPutsMinCountOutOfReach) {
  // Six members of two GPUs each on three nodes: the fourth member fails, and with minCount 6 the
  // cycle stops there; the last two are never tried.
  std::string yaml = SmallYaml();
  for (int i = 4; i < 6; ++i) {
    yaml += absl::StrReplaceAll(R"(
---
apiVersion: v1
kind: Pod
metadata: {name: big-@, namespace: team-a, creationTimestamp: "2026-01-01T00:01:1@Z"}
spec:
  schedulingGroup: {podGroupName: big}
  containers: [{name: c, image: i, resources: {claims: [{name: gpus}]}}]
  resourceClaims: [{name: gpus, resourceClaimTemplateName: two-gpus}]
)", {{"@", std::to_string(i)}});
  }
  yaml = absl::StrReplaceAll(yaml, {{"gang: {minCount: 4}", "gang: {minCount: 6}"}});
  const GangResult r = GangOf(yaml, "big");
  EXPECT_FALSE(r.fits);
  EXPECT_EQ(r.blocking, "team-a/big-3");
  EXPECT_EQ(r.not_tried, (std::vector<std::string>{"team-a/big-4", "team-a/big-5"}));
  EXPECT_EQ(r.status, "minCount (6) cannot be satisfied: 3 scheduled, 2 remaining");
}

TEST(Gang, GroupClaimIsAllocatedOnceSharedAndPinsTheMembersToItsNode) {
  const GangResult r = GangOf(SmallYaml(), "shared");
  ASSERT_EQ(r.group_claims.size(), 1u);
  const GroupClaim& gc = r.group_claims[0];
  EXPECT_EQ(gc.name, "fabric");
  EXPECT_EQ(gc.source, "template-instantiated");
  EXPECT_TRUE(absl::StartsWith(gc.claim, "team-a/shared-fabric-")) << gc.claim;
  EXPECT_EQ(gc.allocated_by, "team-a/shared-0");
  EXPECT_EQ(gc.members, (std::vector<std::string>{"team-a/shared-0", "team-a/shared-1"}));
  ASSERT_TRUE(gc.allocated);
  ASSERT_TRUE(gc.allocation.devices);
  ASSERT_EQ(gc.allocation.devices->results.size(), 1u);
  EXPECT_EQ(ResultDeviceID(gc.allocation.devices->results[0]).String(), "fabric.example.com/node-b/port-0");
  // node-a has no fabric port: shared-0 goes to node-b, and the fabric claim keeps everyone there.
  EXPECT_EQ(NodeOf(r), (std::map<std::string, std::string>{{"team-a/shared-0", "node-b"},
                                                           {"team-a/shared-1", "node-b"}}));
  // Both placed members hold the same claim; only the first allocated it.
  for (const auto& p : r.placed) {
    int uses = 0;
    for (const auto& c : p.claims) {
      if (c.claim != gc.claim) continue;
      ++uses;
      EXPECT_EQ(c.existing, p.pod != "team-a/shared-0") << p.pod;
    }
    EXPECT_EQ(uses, 1) << p.pod;
  }
  // shared-2 would fit on node-c (free GPUs and a free fabric port of its own) but the group's claim
  // is on node-b, whose GPUs the first two took.
  EXPECT_FALSE(r.fits);
  EXPECT_EQ(r.blocking, "team-a/shared-2");
  ASSERT_EQ(r.unschedulable.size(), 1u);
  std::map<std::string, std::string> why;
  for (const auto& n : r.unschedulable[0].nodes) why[n.node] = n.reason;
  EXPECT_TRUE(absl::StrContains(why.at("node-c"), "not available on the node") ||
              absl::StrContains(why.at("node-c"), gc.claim.substr(7)))
      << why.at("node-c");
  EXPECT_TRUE(absl::StrContains(why.at("node-b"), "gpus")) << why.at("node-b");
}

TEST(Gang, MinCountBelowTheMemberCountFitsWithoutTheMembersThatDoNotFit) {
  std::string yaml = absl::StrReplaceAll(SmallYaml(), {{"gang: {minCount: 3}", "gang: {minCount: 2}"}});
  const GangResult r = GangOf(yaml, "shared");
  EXPECT_TRUE(r.fits) << r.status;
  EXPECT_EQ(r.placed.size(), 2u);
  ASSERT_EQ(r.unschedulable.size(), 1u);
  EXPECT_EQ(r.unschedulable[0].pod, "team-a/shared-2");
  EXPECT_TRUE(r.blocking.empty());
}

TEST(Gang, BoundMembersCountTowardMinCount) {
  // big-0 is already bound elsewhere (its devices are not modelled here): with minCount 4 the three
  // pending members need only three nodes.
  std::string yaml = absl::StrReplaceAll(
      SmallYaml(), {{"  schedulingGroup: {podGroupName: big}\n  containers: [{name: c, image: i, resources: {requests: "
                     "{cpu: \"1\"}, claims: [{name: gpus}]}}]\n  resourceClaims: [{name: gpus, "
                     "resourceClaimTemplateName: two-gpus}]\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: big-1",
                     "  schedulingGroup: {podGroupName: big}\n  nodeName: elsewhere\n  containers: [{name: c, image: i}]\n"
                     "---\napiVersion: v1\nkind: Pod\nmetadata: {name: big-1"}});
  const GangResult r = GangOf(yaml, "big");
  EXPECT_EQ(r.scheduled, (std::vector<std::string>{"team-a/big-0"}));
  EXPECT_EQ(r.order.size(), 3u);
  EXPECT_TRUE(r.fits) << r.status;
}

TEST(Gang, TooFewMembersNeverGetACycle) {
  std::string yaml = absl::StrReplaceAll(SmallYaml(), {{"gang: {minCount: 2}", "gang: {minCount: 5}"}});
  const GangResult r = GangOf(yaml, "train");
  EXPECT_FALSE(r.fits);
  EXPECT_EQ(r.status, "waiting for minCount pods from a gang to appear in scheduling queue");
  EXPECT_TRUE(r.placed.empty());
  EXPECT_EQ(r.not_tried.size(), 2u);
  EXPECT_TRUE(r.blocking.empty());
}

TEST(Gang, AMemberWithAnotherPriorityThanTheGroupFailsTheCycle) {
  std::string yaml = absl::StrReplaceAll(
      SmallYaml(), {{"metadata: {name: train-1, namespace: team-a, creationTimestamp: \"2026-01-01T00:00:01Z\"}\nspec:\n",
                     "metadata: {name: train-1, namespace: team-a, creationTimestamp: \"2026-01-01T00:00:01Z\"}\nspec:\n"
                     "  priority: 10\n"}});
  const GangResult r = GangOf(yaml, "train");
  EXPECT_FALSE(r.fits);
  EXPECT_EQ(r.status,
            "all pods in a single pod group should have the same priority as the pod group's priority, got 10 and 0");
  EXPECT_TRUE(r.placed.empty());
  EXPECT_EQ(r.not_tried.size(), 2u);
}

TEST(Gang, PodGroupFromAWorkloadTemplate) {
  std::string yaml = SmallYaml() + R"(
---
apiVersion: scheduling.k8s.io/v1beta1
kind: Workload
metadata: {name: job, namespace: team-a}
spec:
  podGroupTemplates:
  - name: workers
    schedulingPolicy: {gang: {minCount: 2}}
---
apiVersion: v1
kind: Pod
metadata: {name: w-0, namespace: team-a}
spec:
  schedulingGroup: {podGroupName: job-workers-0}
  containers: [{name: c, image: i, resources: {claims: [{name: gpus}]}}]
  resourceClaims: [{name: gpus, resourceClaimTemplateName: two-gpus}]
---
apiVersion: v1
kind: Pod
metadata: {name: w-1, namespace: team-a}
spec:
  schedulingGroup: {podGroupName: job-workers-0}
  containers: [{name: c, image: i, resources: {claims: [{name: gpus}]}}]
  resourceClaims: [{name: gpus, resourceClaimTemplateName: two-gpus}]
)";
  GangOptions options;
  options.workload = "job";
  options.template_name = "workers";
  const GangResult r = GangOf(yaml, "job-workers-0", options);
  EXPECT_TRUE(r.fits) << r.status;
  EXPECT_EQ(NodeOf(r), (std::map<std::string, std::string>{{"team-a/w-0", "node-a"}, {"team-a/w-1", "node-b"}}));

  store::Cluster cluster;
  auto snapshot = Load(yaml, cluster);
  EXPECT_EQ(PlaceGang(*snapshot, "team-a", "job-workers-0").status().code(), absl::StatusCode::kNotFound);
  options.template_name = "nope";
  EXPECT_EQ(PlaceGang(*snapshot, "team-a", "job-workers-0", options).status().code(), absl::StatusCode::kNotFound);
}

TEST(Gang, MalformedMinCountIsAnErrorNamingTheField) {
  std::string yaml = absl::StrReplaceAll(SmallYaml(), {{"gang: {minCount: 2}", "gang: {minCount: two}"}});
  store::Cluster cluster;
  auto snapshot = Load(yaml, cluster);
  auto r = PlaceGang(*snapshot, "team-a", "train");
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(r.status().message(), "spec.schedulingPolicy.gang.minCount")) << r.status();
}

}  // namespace
}  // namespace draforge::alloc
