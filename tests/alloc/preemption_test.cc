// Preemption what-if (alloc::Preempt) on hand-made snapshots: which pods may be victims (priority,
// preemptionPolicy Never), PodDisruptionBudgets, claims freed only when every user is a victim, the
// reprieve that keeps pods the preemptor does not need, and pickOneNodeForPreemption's order.
#include "alloc/preemption.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "alloc/preemption_json.h"
#include "api/codec.h"
#include "store/cluster.h"

namespace draforge::alloc {
namespace {

constexpr char kClass[] = R"(apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu}
spec:
  selectors: [{cel: {expression: 'device.driver == "gpu.example.com"'}}]
)";

// A Node with `cpu` allocatable and a slice of `gpus` devices gpu-0.. in pool NAME.
std::string Node(const std::string& name, int gpus, const std::string& cpu = "8") {
  std::vector<std::string> devices;
  for (int i = 0; i < gpus; ++i) devices.push_back(absl::StrCat("{name: gpu-", i, "}"));
  return absl::StrCat("---\napiVersion: v1\nkind: Node\nmetadata: {name: ", name, "}\nstatus:\n  allocatable: {cpu: \"",
                      cpu, "\", memory: 16Gi, pods: \"110\"}\n---\napiVersion: resource.k8s.io/v1\nkind: ResourceSlice\n",
                      "metadata: {name: ", name, "-gpus}\nspec:\n  driver: gpu.example.com\n  nodeName: ", name,
                      "\n  pool: {name: ", name, ", generation: 1, resourceSliceCount: 1}\n  devices: [",
                      absl::StrJoin(devices, ", "), "]\n");
}

// Claim d/NAME for `count` GPUs; allocated on `node` to `devices` and reserved for `users` when given.
std::string Claim(const std::string& name, int count, const std::string& node = "",
                  const std::vector<std::string>& devices = {}, const std::vector<std::string>& users = {}) {
  std::string out = absl::StrCat("---\napiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: ", name,
                                 ", namespace: d}\nspec:\n  devices:\n    requests: [{name: gpus, exactly: ",
                                 "{deviceClassName: gpu, allocationMode: ExactCount, count: ", count, "}}]\n");
  if (node.empty()) return out;
  std::vector<std::string> results, reserved;
  for (const auto& d : devices) {
    results.push_back(absl::StrCat("{request: gpus, driver: gpu.example.com, pool: ", node, ", device: ", d, "}"));
  }
  for (const auto& u : users) reserved.push_back(absl::StrCat("{resource: pods, name: ", u, ", uid: uid-", u, "}"));
  return absl::StrCat(out, "status:\n  allocation:\n    devices:\n      results: [", absl::StrJoin(results, ", "),
                      "]\n    nodeSelector:\n      nodeSelectorTerms: [{matchFields: [{key: metadata.name, ",
                      "operator: In, values: [", node, "]}]}]\n  reservedFor: [", absl::StrJoin(reserved, ", "), "]\n");
}

struct PodSpec {
  std::string name;
  std::string node;  // empty: pending
  int64_t priority = 0;
  std::vector<std::string> claims;
  std::string cpu = "1";
  std::string start;  // status.startTime
  std::string labels;  // "{app: x}"
  std::string extra;   // more spec lines, indented by two
};

std::string Pod(const PodSpec& p) {
  std::vector<std::string> claims;
  for (const auto& c : p.claims) claims.push_back(absl::StrCat("{name: ", c, ", resourceClaimName: ", c, "}"));
  std::string out = absl::StrCat("---\napiVersion: v1\nkind: Pod\nmetadata: {name: ", p.name, ", namespace: d, uid: uid-",
                                 p.name, p.labels.empty() ? "" : absl::StrCat(", labels: ", p.labels),
                                 "}\nspec:\n  priority: ", p.priority, "\n");
  if (!p.node.empty()) absl::StrAppend(&out, "  nodeName: ", p.node, "\n");
  absl::StrAppend(&out, "  containers: [{name: main, image: i, resources: {requests: {cpu: \"", p.cpu, "\"}}}]\n");
  if (!claims.empty()) absl::StrAppend(&out, "  resourceClaims: [", absl::StrJoin(claims, ", "), "]\n");
  absl::StrAppend(&out, p.extra);
  absl::StrAppend(&out, "status: {phase: ", p.node.empty() ? "Pending" : "Running",
                  p.start.empty() ? "" : absl::StrCat(", startTime: \"", p.start, "\""), "}\n");
  return out;
}

// A bound pod holding claim NAME-c (1 GPU, `device` on `node`).
std::string Holder(const std::string& name, const std::string& node, int64_t priority, const std::string& device,
                   const std::string& start = "", const std::string& labels = "") {
  return absl::StrCat(Claim(name + "-c", 1, node, {device}, {name}),
                      Pod({.name = name, .node = node, .priority = priority, .claims = {name + "-c"},
                           .start = start, .labels = labels}));
}

std::string Pdb(const std::string& name, const std::string& match_labels, int allowed) {
  return absl::StrCat("---\napiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: ", name,
                      ", namespace: d}\nspec:\n  minAvailable: 1\n  selector: {matchLabels: ", match_labels,
                      "}\nstatus: {disruptionsAllowed: ", allowed, "}\n");
}

// A preemptor d/hi with `gpus` GPUs (claim hi-c) and `priority`.
std::string Preemptor(int gpus, int64_t priority = 1000, const std::string& extra = "", const std::string& cpu = "1") {
  return absl::StrCat(Claim("hi-c", gpus), Pod({.name = "hi", .priority = priority, .claims = {"hi-c"}, .cpu = cpu,
                                               .extra = extra}));
}

PreemptionResult PreemptOf(const std::string& yaml, const PreemptionOptions& options = {}) {
  store::Cluster cluster;
  auto decoded = api::DecodeStream(absl::StrCat(kClass, yaml), api::DecodeOptions{});
  EXPECT_TRUE(decoded.ok()) << decoded.status();
  if (!decoded.ok()) return {};
  for (auto& d : *decoded) {
    EXPECT_TRUE(d.object.ok()) << "object " << d.index << ": " << d.object.status();
    if (d.object.ok()) {
      EXPECT_TRUE(cluster.Apply(*std::move(d.object)).ok());
    }
  }
  auto r = Preempt(*cluster.snapshot(), "d", "hi", options);
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? *r : PreemptionResult{};
}

std::vector<std::string> VictimPods(const std::vector<PreemptionVictim>& victims) {
  std::vector<std::string> out;
  for (const auto& v : victims) out.push_back(v.pod);
  return out;
}

std::string ReasonOf(const PreemptionResult& r, const std::string& node) {
  for (const auto& n : r.nodes) {
    if (n.node == node) return absl::StrCat(n.filter, ": ", n.reason);
  }
  return "";
}

TEST(Preemption, OnlyLowerPriorityPodsAreVictims) {
  // node-a: two GPUs, one held by a priority-10 pod and one by a priority-1000 pod (equal to the
  // preemptor's: never a victim).
  const std::string base = absl::StrCat(Node("node-a", 2), Holder("low", "node-a", 10, "gpu-0"),
                                        Holder("peer", "node-a", 1000, "gpu-1"));
  PreemptionResult one = PreemptOf(absl::StrCat(base, Preemptor(1)));
  EXPECT_EQ(one.outcome, PreemptionOutcome::kPreempt) << one.message;
  EXPECT_EQ(one.node, "node-a");
  EXPECT_EQ(VictimPods(one.victims), (std::vector<std::string>{"d/low"}));
  ASSERT_EQ(one.victims.size(), 1u);
  EXPECT_EQ(one.victims[0].priority, 10);
  EXPECT_EQ(one.victims[0].claims_freed, (std::vector<std::string>{"d/low-c"}));
  EXPECT_EQ(one.decided_by, "only candidate");

  PreemptionResult two = PreemptOf(absl::StrCat(base, Preemptor(2)));
  EXPECT_EQ(two.outcome, PreemptionOutcome::kNoCandidate);
  EXPECT_TRUE(absl::StrContains(ReasonOf(two, "node-a"), "still rejected with all 1 lower-priority pod(s) removed"))
      << ReasonOf(two, "node-a");

  // A preemptor of priority 5 has no victim at all.
  PreemptionResult none = PreemptOf(absl::StrCat(base, Preemptor(1, 5)));
  EXPECT_EQ(none.outcome, PreemptionOutcome::kNoCandidate);
  EXPECT_EQ(ReasonOf(none, "node-a"), "DefaultPreemption: No preemption victims found for incoming pod");
}

TEST(Preemption, PreemptionPolicyNeverPreemptsNothing) {
  const std::string yaml =
      absl::StrCat(Node("node-a", 1), Holder("low", "node-a", 10, "gpu-0"), Preemptor(1, 1000, "  preemptionPolicy: Never\n"));
  PreemptionResult r = PreemptOf(yaml);
  EXPECT_EQ(r.outcome, PreemptionOutcome::kNotEligible);
  EXPECT_EQ(r.message, "not eligible due to preemptionPolicy=Never.");
  EXPECT_TRUE(r.victims.empty());
}

TEST(Preemption, FitsWithoutPreemption) {
  PreemptionResult r = PreemptOf(absl::StrCat(Node("node-a", 2), Holder("low", "node-a", 10, "gpu-0"), Preemptor(1)));
  EXPECT_EQ(r.outcome, PreemptionOutcome::kFits);
  EXPECT_EQ(r.fitting_nodes, (std::vector<std::string>{"node-a"}));
}

TEST(Preemption, PdbViolationsDecideTheNodeAndAreCounted) {
  // Both nodes hold one priority-10 pod on their only GPU; node-a's is protected by a budget that
  // allows no disruption.
  const std::string nodes = absl::StrCat(Node("node-a", 1), Node("node-b", 1));
  const std::string yaml =
      absl::StrCat(nodes, Holder("a1", "node-a", 10, "gpu-0", "", "{app: db}"),
                   Holder("b1", "node-b", 10, "gpu-0", "", "{app: web}"), Pdb("db", "{app: db}", 0), Preemptor(1));
  PreemptionResult r = PreemptOf(yaml);
  EXPECT_EQ(r.outcome, PreemptionOutcome::kPreempt);
  EXPECT_EQ(r.node, "node-b");
  EXPECT_EQ(r.decided_by, "fewest PDB violations");
  ASSERT_EQ(r.candidates.size(), 2u);
  EXPECT_EQ(r.candidates[0].pdb_violations, 1);
  EXPECT_EQ(r.candidates[0].victims[0].pdb_violated, "d/db");
  EXPECT_EQ(r.candidates[1].pdb_violations, 0);

  // A budget that allows one disruption is not violated; one that names the pod in disruptedPods is
  // not decremented.
  PreemptionResult allowed = PreemptOf(absl::StrCat(Node("node-a", 1), Holder("a1", "node-a", 10, "gpu-0", "", "{app: db}"),
                                                    Pdb("db", "{app: db}", 1), Preemptor(1)));
  EXPECT_EQ(allowed.node, "node-a");
  EXPECT_EQ(allowed.pdb_violations, 0);
  std::string disrupted = Pdb("db", "{app: db}", 0);
  disrupted.replace(disrupted.find("disruptionsAllowed: 0"), 21, "disruptionsAllowed: 0, disruptedPods: {a1: \"2026-01-01T00:00:00Z\"}");
  PreemptionResult already = PreemptOf(absl::StrCat(Node("node-a", 1), Holder("a1", "node-a", 10, "gpu-0", "", "{app: db}"),
                                                    disrupted, Preemptor(1)));
  EXPECT_EQ(already.node, "node-a");
  EXPECT_EQ(already.pdb_violations, 0);

  // The violating pod is tried first in the reprieve: with room for one of two pods, the
  // PDB-protected one stays even though it is less important.
  const std::string reprieve =
      absl::StrCat(Node("node-a", 2), Holder("protected", "node-a", 5, "gpu-0", "", "{app: db}"),
                   Holder("plain", "node-a", 50, "gpu-1"), Pdb("db", "{app: db}", 0), Preemptor(1));
  PreemptionResult p = PreemptOf(reprieve);
  EXPECT_EQ(VictimPods(p.victims), (std::vector<std::string>{"d/plain"}));
  EXPECT_EQ(p.pdb_violations, 0);
}

TEST(Preemption, PdbSelectorSemantics) {
  // An empty selector selects nothing, so nothing violates it.
  const std::string yaml = absl::StrCat(
      Node("node-a", 1), Holder("a1", "node-a", 10, "gpu-0", "", "{app: db}"),
      "---\napiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: all, namespace: d}\nspec:\n"
      "  selector: {}\nstatus: {disruptionsAllowed: 0}\n",
      "---\napiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: other-ns, namespace: e}\nspec:\n"
      "  selector: {matchLabels: {app: db}}\nstatus: {disruptionsAllowed: 0}\n",
      "---\napiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: bad-op, namespace: d}\nspec:\n"
      "  selector: {matchExpressions: [{key: app, operator: Gt, values: [\"1\"]}]}\nstatus: {disruptionsAllowed: 0}\n",
      Preemptor(1));
  PreemptionResult r = PreemptOf(yaml);
  EXPECT_EQ(r.outcome, PreemptionOutcome::kPreempt);
  EXPECT_EQ(r.pdb_violations, 0);
  // matchExpressions In selects it.
  PreemptionResult in = PreemptOf(absl::StrCat(
      Node("node-a", 1), Holder("a1", "node-a", 10, "gpu-0", "", "{app: db}"),
      "---\napiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: in, namespace: d}\nspec:\n"
      "  selector: {matchExpressions: [{key: app, operator: In, values: [db, cache]}]}\n"
      "status: {disruptionsAllowed: 0}\n",
      Preemptor(1)));
  EXPECT_EQ(in.pdb_violations, 1);
  EXPECT_EQ(in.victims[0].pdb_violated, "d/in");
}

TEST(Preemption, SharedClaimIsFreedOnlyWhenEveryUserIsAVictim) {
  // node-a's only GPU is held by claim shared, used by s1 and s2.
  const std::string shared = absl::StrCat(Node("node-a", 1), Claim("shared", 1, "node-a", {"gpu-0"}, {"s1", "s2"}));
  const auto user = [](const std::string& name, int64_t priority) {
    return Pod({.name = name, .node = "node-a", .priority = priority, .claims = {"shared"}});
  };
  // Both lower: both are victims (putting either back keeps the device allocated).
  PreemptionResult both = PreemptOf(absl::StrCat(shared, user("s1", 10), user("s2", 20), Preemptor(1)));
  EXPECT_EQ(both.outcome, PreemptionOutcome::kPreempt) << both.message;
  EXPECT_EQ(VictimPods(both.victims), (std::vector<std::string>{"d/s2", "d/s1"}));
  EXPECT_EQ(both.victims[0].claims_freed, (std::vector<std::string>{"d/shared"}));

  // s2 outranks the preemptor: the claim stays allocated, preemption cannot help on node-a.
  PreemptionResult one = PreemptOf(absl::StrCat(shared, user("s1", 10), user("s2", 5000), Preemptor(1)));
  EXPECT_EQ(one.outcome, PreemptionOutcome::kNoCandidate);
  EXPECT_TRUE(absl::StrContains(ReasonOf(one, "node-a"), "DynamicResources: still rejected")) << ReasonOf(one, "node-a");

  // A pending pod that references the claim is a user too.
  PreemptionResult pending = PreemptOf(absl::StrCat(shared, user("s1", 10), user("s2", 20),
                                              Pod({.name = "waiting", .priority = 1, .claims = {"shared"}}),
                                              Preemptor(1)));
  EXPECT_EQ(pending.outcome, PreemptionOutcome::kNoCandidate);
}

TEST(Preemption, ReprieveKeepsPodsThePreemptorDoesNotNeed) {
  // Four GPUs held by priorities 1..4 and a cpu-only pod; the preemptor needs two GPUs: the two most
  // important holders and the cpu-only pod are reprieved.
  const std::string yaml =
      absl::StrCat(Node("node-a", 4), Holder("l1", "node-a", 1, "gpu-0"), Holder("l2", "node-a", 2, "gpu-1"),
                   Holder("l3", "node-a", 3, "gpu-2"), Holder("l4", "node-a", 4, "gpu-3"),
                   Pod({.name = "cpu-only", .node = "node-a", .priority = 0}), Preemptor(2));
  PreemptionResult r = PreemptOf(yaml);
  EXPECT_EQ(r.outcome, PreemptionOutcome::kPreempt) << r.message;
  EXPECT_EQ(VictimPods(r.victims), (std::vector<std::string>{"d/l2", "d/l1"}));

  // In the 1.37 scheduler as released, removing pods frees no device and DRA's rejection is
  // unresolvable: no preemption.
  PreemptionOptions upstream;
  upstream.dra_aware = false;
  PreemptionResult u = PreemptOf(yaml, upstream);
  EXPECT_EQ(u.outcome, PreemptionOutcome::kNoCandidate);
  EXPECT_TRUE(absl::StrContains(ReasonOf(u, "node-a"), "preemption is not helpful")) << ReasonOf(u, "node-a");
}

TEST(Preemption, CpuIsResolvedByPreemptionInBothModes) {
  // node-a has 4 cpu, 3 taken by a low-priority pod; the preemptor needs 2 cpu and no device.
  const std::string yaml =
      absl::StrCat(Node("node-a", 0, "4"), Pod({.name = "busy", .node = "node-a", .priority = 1, .cpu = "3"}),
                   Pod({.name = "hi", .priority = 1000, .cpu = "2"}));
  for (bool dra_aware : {true, false}) {
    PreemptionOptions o;
    o.dra_aware = dra_aware;
    PreemptionResult r = PreemptOf(yaml, o);
    EXPECT_EQ(r.outcome, PreemptionOutcome::kPreempt) << dra_aware;
    EXPECT_EQ(VictimPods(r.victims), (std::vector<std::string>{"d/busy"}));
  }
}

TEST(Preemption, UnresolvableFiltersAreNotCandidates) {
  std::string tainted = Node("node-t", 1);
  tainted.insert(tainted.find("status:"), "spec:\n  taints: [{key: k, value: v, effect: NoSchedule}]\n");
  PreemptionResult r = PreemptOf(absl::StrCat(tainted, Holder("low", "node-t", 1, "gpu-0"), Preemptor(1)));
  EXPECT_EQ(r.outcome, PreemptionOutcome::kNoCandidate);
  EXPECT_TRUE(absl::StartsWith(ReasonOf(r, "node-t"), "TaintToleration: preemption is not helpful"))
      << ReasonOf(r, "node-t");
}

// pickOneNodeForPreemption, one rule at a time: each pair of nodes ties on the rules before.
TEST(Preemption, NodeChoiceOrder) {
  const std::string two = absl::StrCat(Node("node-a", 1), Node("node-b", 1));
  PreemptionResult highest =
      PreemptOf(absl::StrCat(two, Holder("a", "node-a", 50, "gpu-0"), Holder("b", "node-b", 20, "gpu-0"), Preemptor(1)));
  EXPECT_EQ(highest.node, "node-b");
  EXPECT_EQ(highest.decided_by, "lowest highest priority");

  // Highest 20 on both; sums 20+10 and 20+20.
  const std::string two2 = absl::StrCat(Node("node-a", 2), Node("node-b", 2));
  PreemptionResult sum = PreemptOf(absl::StrCat(two2, Holder("a1", "node-a", 20, "gpu-0"), Holder("a2", "node-a", 20, "gpu-1"),
                                          Holder("b1", "node-b", 20, "gpu-0"), Holder("b2", "node-b", 10, "gpu-1"),
                                          Preemptor(2)));
  EXPECT_EQ(sum.node, "node-b");
  EXPECT_EQ(sum.decided_by, "smallest priority sum");

  // Equal highest (0) and equal sums: node-a {0} against node-b {0, -2147483648} (each priority
  // counts 2^31 more). node-b has 2 cpu: its GPU holder and a cpu-only pod both have to go for the
  // preemptor's GPU and 2 cpu.
  PreemptionResult fewest =
      PreemptOf(absl::StrCat(Node("node-a", 1), Node("node-b", 1, "2"), Holder("a1", "node-a", 0, "gpu-0"),
                       Holder("b1", "node-b", 0, "gpu-0"),
                       Pod({.name = "b2", .node = "node-b", .priority = -2147483648LL}), Preemptor(1, 1000, "", "2")));
  ASSERT_EQ(fewest.candidates.size(), 2u);
  EXPECT_EQ(VictimPods(fewest.candidates[1].victims), (std::vector<std::string>{"d/b1", "d/b2"}));
  EXPECT_EQ(fewest.node, "node-a");
  EXPECT_EQ(fewest.decided_by, "fewest victims");

  // Latest start time of the highest-priority victims.
  PreemptionResult latest =
      PreemptOf(absl::StrCat(two, Holder("a", "node-a", 20, "gpu-0", "2026-01-01T00:00:00Z"),
                       Holder("b", "node-b", 20, "gpu-0", "2026-02-01T00:00:00Z"), Preemptor(1)));
  EXPECT_EQ(latest.node, "node-b");
  EXPECT_EQ(latest.decided_by, "latest start time");

  // Everything equal: the first node in name order.
  PreemptionResult first =
      PreemptOf(absl::StrCat(two, Holder("a", "node-a", 20, "gpu-0", "2026-01-01T00:00:00Z"),
                       Holder("b", "node-b", 20, "gpu-0", "2026-01-01T00:00:00Z"), Preemptor(1)));
  EXPECT_EQ(first.node, "node-a");
  EXPECT_EQ(first.decided_by, "first in name order");
}

TEST(Preemption, VictimOrderIsPriorityThenStartTime) {
  // Three holders of equal priority; the preemptor needs all three GPUs; victims come in importance
  // order: earlier start first, no start time last.
  const std::string yaml = absl::StrCat(Node("node-a", 3), Holder("late", "node-a", 7, "gpu-0", "2026-03-01T00:00:00Z"),
                                        Holder("never", "node-a", 7, "gpu-1"),
                                        Holder("early", "node-a", 7, "gpu-2", "2026-01-01T00:00:00Z"), Preemptor(3));
  PreemptionResult r = PreemptOf(yaml);
  EXPECT_EQ(VictimPods(r.victims), (std::vector<std::string>{"d/early", "d/late", "d/never"}));
  EXPECT_EQ(r.victims[0].start_time, "2026-01-01T00:00:00Z");
}

TEST(Preemption, JsonAndErrors) {
  PreemptionResult r = PreemptOf(absl::StrCat(Node("node-a", 1), Holder("low", "node-a", 10, "gpu-0"), Preemptor(1)));
  const std::string json = PreemptionJson(r);
  EXPECT_TRUE(absl::StrContains(json, R"("outcome":"preempt")")) << json;
  EXPECT_TRUE(absl::StrContains(json, R"("victims":[{"pod":"d/low","priority":10,"startTime":"","claimsFreed":["d/low-c"])"))
      << json;

  store::Cluster cluster;
  auto decoded = api::DecodeStream(absl::StrCat(kClass, Node("node-a", 1), Holder("low", "node-a", 10, "gpu-0")),
                                   api::DecodeOptions{});
  ASSERT_TRUE(decoded.ok());
  for (auto& d : *decoded) ASSERT_TRUE(cluster.Apply(*std::move(d.object)).ok());
  auto snap = cluster.snapshot();
  EXPECT_EQ(Preempt(*snap, "d", "nope").status().code(), absl::StatusCode::kNotFound);
  auto bound = Preempt(*snap, "d", "low");
  EXPECT_EQ(bound.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(bound.status().message(), "bound to node node-a")) << bound.status();
}

TEST(Preemption, MalformedPodDisruptionBudgetOrStartTimeIsAnErrorNamingTheObject) {
  const auto run = [](const std::string& yaml) {
    store::Cluster cluster;
    auto decoded = api::DecodeStream(absl::StrCat(kClass, yaml), api::DecodeOptions{});
    EXPECT_TRUE(decoded.ok()) << decoded.status();
    for (auto& d : *decoded) EXPECT_TRUE(d.object.ok() && cluster.Apply(*std::move(d.object)).ok());
    return Preempt(*cluster.snapshot(), "d", "hi").status();
  };
  const std::string base = absl::StrCat(Node("node-a", 1), Preemptor(1));
  std::string pdb = Pdb("db", "{app: db}", 0);
  pdb.replace(pdb.find("disruptionsAllowed: 0"), 21, "disruptionsAllowed: many");
  absl::Status bad = run(absl::StrCat(base, Holder("a1", "node-a", 10, "gpu-0"), pdb));
  EXPECT_EQ(bad.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(bad.message(), "poddisruptionbudget d/db: status.disruptionsAllowed: expected a 32-bit integer");
  absl::Status start = run(absl::StrCat(base, Holder("a1", "node-a", 10, "gpu-0", "yesterday")));
  EXPECT_EQ(start.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(start.message(), "pod d/a1: status.startTime: not an RFC 3339 time")) << start;
}

}  // namespace
}  // namespace draforge::alloc
