// kube-scheduler's node filters (alloc/node_filters.h) and what they read (api/taints.h,
// api/node_affinity.h): each filter rejects and accepts with upstream's words, in the default
// profile's order, and malformed fields are errors naming the object and field.
#include "alloc/node_filters.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <variant>

#include "absl/strings/match.h"
#include "api/codec.h"
#include "api/taints.h"

namespace draforge::alloc {
namespace {

template <typename T>
T Decode(std::string_view yaml) {
  auto decoded = api::DecodeStream(yaml, api::DecodeOptions{});
  EXPECT_TRUE(decoded.ok()) << decoded.status();
  if (!decoded.ok() || decoded->empty() || !decoded->front().object.ok()) {
    ADD_FAILURE() << "no object";
    return T{};
  }
  return std::get<T>(decoded->front().object->value);
}

FilterNode NodeOf(std::string_view yaml) {
  auto n = FilterNode::Of(Decode<api::Node>(yaml));
  EXPECT_TRUE(n.ok()) << n.status();
  return n.ok() ? *n : FilterNode{};
}

PodNodeFilters FiltersOf(std::string_view pod_spec) {
  const std::string yaml = std::string("apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: d}\nspec: ") +
                           std::string(pod_spec) + "\n";
  auto f = PodNodeFilters::Of(Decode<api::Pod>(yaml));
  EXPECT_TRUE(f.ok()) << f.status();
  return f.ok() ? *f : PodNodeFilters{};
}

// The rejection's "plugin | text", or "" when every filter passes.
std::string Verdict(const PodNodeFilters& filters, const FilterNode& node) {
  auto r = filters.Check(node);
  return r ? r->plugin + " | " + r->Text() : "";
}

constexpr char kPlain[] = "{containers: [{name: c, image: i}]}";

constexpr char kCordoned[] = R"(apiVersion: v1
kind: Node
metadata: {name: n1}
spec: {unschedulable: true}
)";

constexpr char kTainted[] = R"(apiVersion: v1
kind: Node
metadata: {name: n1, labels: {zone: a}}
spec:
  taints:
  - {key: soft, value: x, effect: PreferNoSchedule}
  - {key: dedicated, value: gpu, effect: NoSchedule}
  - {key: evict, effect: NoExecute}
)";

constexpr char kLabelled[] = R"(apiVersion: v1
kind: Node
metadata: {name: n1, labels: {zone: a, gpus: "8", tier: gold}}
)";

TEST(NodeUnschedulable, RejectsACordonedNodeUnlessThePodToleratesTheUnschedulableTaint) {
  const FilterNode cordoned = NodeOf(kCordoned);
  EXPECT_EQ(Verdict(FiltersOf(kPlain), cordoned), "NodeUnschedulable | node(s) were unschedulable");
  EXPECT_EQ(Verdict(FiltersOf(R"({containers: [{name: c, image: i}], tolerations: [
      {key: node.kubernetes.io/unschedulable, operator: Exists, effect: NoSchedule}]})"),
                    cordoned),
            "");
  // A NoExecute-only toleration does not tolerate the NoSchedule taint the cordon stands for.
  EXPECT_EQ(Verdict(FiltersOf(R"({containers: [{name: c, image: i}], tolerations: [
      {key: node.kubernetes.io/unschedulable, operator: Exists, effect: NoExecute}]})"),
                    cordoned),
            "NodeUnschedulable | node(s) were unschedulable");
  EXPECT_EQ(Verdict(FiltersOf(kPlain), NodeOf("apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nspec: {unschedulable: false}\n")), "");
}

TEST(TaintToleration, RejectsTheFirstUntoleratedNoScheduleOrNoExecuteTaint) {
  const FilterNode tainted = NodeOf(kTainted);
  // PreferNoSchedule is a score, not a filter: the first blocking taint is dedicated.
  EXPECT_EQ(Verdict(FiltersOf(kPlain), tainted),
            "TaintToleration | node(s) had untolerated taint(s): dedicated=gpu:NoSchedule");
  EXPECT_EQ(Verdict(FiltersOf(R"({containers: [{name: c, image: i}], tolerations: [
      {key: dedicated, operator: Equal, value: gpu, effect: NoSchedule}]})"),
                    tainted),
            "TaintToleration | node(s) had untolerated taint(s): evict:NoExecute");
  // Empty effect matches every effect; Exists matches every value.
  EXPECT_EQ(Verdict(FiltersOf(R"({containers: [{name: c, image: i}], tolerations: [
      {key: dedicated, value: gpu}, {key: evict, operator: Exists}]})"),
                    tainted),
            "");
  // An empty key with Exists tolerates everything.
  EXPECT_EQ(Verdict(FiltersOf(R"({containers: [{name: c, image: i}], tolerations: [{operator: Exists}]})"), tainted), "");
  // Wrong value, wrong effect.
  EXPECT_EQ(Verdict(FiltersOf(R"({containers: [{name: c, image: i}], tolerations: [
      {key: dedicated, value: cpu}, {key: evict, operator: Exists}]})"),
                    tainted),
            "TaintToleration | node(s) had untolerated taint(s): dedicated=gpu:NoSchedule");
  EXPECT_EQ(Verdict(FiltersOf(R"({containers: [{name: c, image: i}], tolerations: [
      {key: dedicated, value: gpu, effect: NoExecute}, {key: evict, operator: Exists}]})"),
                    tainted),
            "TaintToleration | node(s) had untolerated taint(s): dedicated=gpu:NoSchedule");
}

TEST(TaintToleration, ComparisonOperatorsTolerateNothingWithTheirGateOff) {
  api::Taint taint;
  taint.key = "level";
  taint.value = "3";
  taint.effect = "NoSchedule";
  api::Toleration gt;
  gt.key = "level";
  gt.operator_ = "Gt";
  gt.value = "1";
  EXPECT_FALSE(api::ToleratesTaint(gt, taint));
}

TEST(NodeAffinity, NodeSelectorNeedsEveryLabelEqual) {
  const FilterNode node = NodeOf(kLabelled);
  EXPECT_EQ(Verdict(FiltersOf("{containers: [{name: c, image: i}], nodeSelector: {zone: a, tier: gold}}"), node), "");
  EXPECT_EQ(Verdict(FiltersOf("{containers: [{name: c, image: i}], nodeSelector: {zone: a, tier: silver}}"), node),
            "NodeAffinity | node(s) didn't match Pod's node affinity/selector");
  EXPECT_EQ(Verdict(FiltersOf("{containers: [{name: c, image: i}], nodeSelector: {rack: r1}}"), node),
            "NodeAffinity | node(s) didn't match Pod's node affinity/selector");
}

std::string Required(std::string_view terms) {
  return std::string("{containers: [{name: c, image: i}], affinity: {nodeAffinity: "
                     "{requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: ") +
         std::string(terms) + "}}}}";
}

TEST(NodeAffinity, RequiredTermsAreOredAndTheirExpressionsAnded) {
  const FilterNode node = NodeOf(kLabelled);
  const std::string no = "NodeAffinity | node(s) didn't match Pod's node affinity/selector";
  EXPECT_EQ(Verdict(FiltersOf(Required("[{matchExpressions: [{key: zone, operator: In, values: [a, b]}]}]")), node), "");
  EXPECT_EQ(Verdict(FiltersOf(Required("[{matchExpressions: [{key: zone, operator: NotIn, values: [a]}]}]")), node), no);
  EXPECT_EQ(Verdict(FiltersOf(Required("[{matchExpressions: [{key: gpus, operator: Gt, values: ['4']}]}]")), node), "");
  EXPECT_EQ(Verdict(FiltersOf(Required("[{matchExpressions: [{key: gpus, operator: Lt, values: ['4']}]}]")), node), no);
  EXPECT_EQ(Verdict(FiltersOf(Required("[{matchExpressions: [{key: rack, operator: DoesNotExist}]}]")), node), "");
  EXPECT_EQ(Verdict(FiltersOf(Required("[{matchExpressions: [{key: rack, operator: Exists}]}]")), node), no);
  // AND within a term, OR across terms.
  EXPECT_EQ(Verdict(FiltersOf(Required("[{matchExpressions: [{key: zone, operator: In, values: [a]}, "
                                       "{key: tier, operator: In, values: [silver]}]}]")),
                    node),
            no);
  EXPECT_EQ(Verdict(FiltersOf(Required("[{matchExpressions: [{key: tier, operator: In, values: [silver]}]}, "
                                       "{matchExpressions: [{key: zone, operator: In, values: [a]}]}]")),
                    node),
            "");
  // matchFields on metadata.name.
  EXPECT_EQ(Verdict(FiltersOf(Required("[{matchFields: [{key: metadata.name, operator: NotIn, values: [n1]}]}]")), node),
            no);
  // A term that does not parse matches no node (the scheduler ignores the parse error); another
  // term still can.
  EXPECT_EQ(Verdict(FiltersOf(Required("[{matchExpressions: [{key: zone, operator: Foo, values: [a]}]}]")), node), no);
  EXPECT_EQ(Verdict(FiltersOf(Required("[{matchExpressions: [{key: zone, operator: Foo, values: [a]}]}, "
                                       "{matchExpressions: [{key: zone, operator: Exists}]}]")),
                    node),
            "");
  // nodeSelector and affinity must both hold.
  EXPECT_EQ(Verdict(FiltersOf("{containers: [{name: c, image: i}], nodeSelector: {tier: silver}, affinity: "
                              "{nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: "
                              "[{matchExpressions: [{key: zone, operator: In, values: [a]}]}]}}}}"),
                    node),
            no);
  // Preferred affinity is a score, not a filter.
  EXPECT_EQ(Verdict(FiltersOf("{containers: [{name: c, image: i}], affinity: {nodeAffinity: "
                              "{preferredDuringSchedulingIgnoredDuringExecution: [{weight: 1, preference: "
                              "{matchExpressions: [{key: zone, operator: In, values: [b]}]}}]}}}"),
                    node),
            "");
}

TEST(NodeAffinity, PreFilterKeepsOnlyTheNodesNamedByMatchFields) {
  const PodNodeFilters named =
      FiltersOf(Required("[{matchFields: [{key: metadata.name, operator: In, values: [n2, n3]}]}]"));
  EXPECT_FALSE(named.PreFilter().has_value());
  EXPECT_EQ(Verdict(named, NodeOf(kLabelled)), "NodeAffinity | node(s) didn't satisfy plugin(s) [NodeAffinity]");
  const PodNodeFilters conflict = FiltersOf(
      Required("[{matchFields: [{key: metadata.name, operator: In, values: [n1]}, "
               "{key: metadata.name, operator: In, values: [n2]}]}]"));
  ASSERT_TRUE(conflict.PreFilter().has_value());
  EXPECT_EQ(conflict.PreFilter()->Text(), "pod affinity terms conflict");
}

TEST(NodeFilters, RunInTheDefaultProfilesOrder) {
  // Cordoned, tainted and unlabelled: NodeUnschedulable speaks first, then TaintToleration.
  const FilterNode node = NodeOf(R"(apiVersion: v1
kind: Node
metadata: {name: n1}
spec:
  unschedulable: true
  taints: [{key: dedicated, value: gpu, effect: NoSchedule}]
)");
  const std::string pod = "{containers: [{name: c, image: i}], nodeSelector: {zone: a}}";
  EXPECT_EQ(Verdict(FiltersOf(pod), node), "NodeUnschedulable | node(s) were unschedulable");
  const std::string tolerant = "{containers: [{name: c, image: i}], nodeSelector: {zone: a}, tolerations: "
                               "[{key: node.kubernetes.io/unschedulable, operator: Exists}]}";
  EXPECT_EQ(Verdict(FiltersOf(tolerant), node),
            "TaintToleration | node(s) had untolerated taint(s): dedicated=gpu:NoSchedule");
  const std::string tolerates_all = "{containers: [{name: c, image: i}], nodeSelector: {zone: a}, tolerations: "
                                    "[{operator: Exists}]}";
  EXPECT_EQ(Verdict(FiltersOf(tolerates_all), node),
            "NodeAffinity | node(s) didn't match Pod's node affinity/selector");
}

TEST(NodeFilters, MalformedFieldsAreErrorsNamingTheObjectAndField) {
  auto node = FilterNode::Of(Decode<api::Node>(
      "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nspec: {taints: [{key: 5, effect: NoSchedule}]}\n"));
  ASSERT_FALSE(node.ok());
  EXPECT_EQ(std::string(node.status().message()), "node n1: spec.taints[0].key: expected string, got integer");
  node = FilterNode::Of(Decode<api::Node>("apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nspec: {unschedulable: yes please}\n"));
  ASSERT_FALSE(node.ok());
  EXPECT_EQ(std::string(node.status().message()), "node n1: spec.unschedulable: expected boolean, got string");

  auto pod = PodNodeFilters::Of(Decode<api::Pod>(
      "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: d}\nspec: {containers: [{name: c}], "
      "tolerations: {key: a}}\n"));
  ASSERT_FALSE(pod.ok());
  EXPECT_EQ(std::string(pod.status().message()), "pod d/p: spec.tolerations: expected array, got object");
  pod = PodNodeFilters::Of(Decode<api::Pod>(
      "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: d}\nspec: {containers: [{name: c}], "
      "affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: {a: b}}}}}\n"));
  ASSERT_FALSE(pod.ok());
  EXPECT_TRUE(absl::StrContains(
      pod.status().message(),
      "pod d/p: spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms: "))
      << pod.status();
}

}  // namespace
}  // namespace draforge::alloc
