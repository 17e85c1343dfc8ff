#include "alloc/node_filters.h"

#include <algorithm>
#include <iterator>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/status.h"

namespace draforge::alloc {
namespace {

constexpr char kReasonUnschedulable[] = "node(s) were unschedulable";
constexpr char kReasonUntoleratedTaint[] = "node(s) had untolerated taint(s)";
constexpr char kReasonAffinity[] = "node(s) didn't match Pod's node affinity/selector";
constexpr char kReasonConflict[] = "pod affinity terms conflict";
constexpr char kReasonPreFilter[] = "node(s) didn't satisfy plugin(s) [NodeAffinity]";

// NodeAffinity's PreFilter: the nodes named by `matchFields: metadata.name In` in every term (within
// a term intersected, across terms united), or unset when some term names none (any node may match).
std::optional<std::set<std::string>> PreFilterNodeNames(const std::optional<api::NodeSelector>& required) {
  if (!required || required->node_selector_terms.empty()) return std::nullopt;
  std::set<std::string> out;
  for (const api::NodeSelectorTerm& term : required->node_selector_terms) {
    std::optional<std::set<std::string>> names;
    for (const api::NodeSelectorRequirement& r : term.match_fields) {
      if (r.key.value_or("") != "metadata.name" || r.operator_.value_or("") != "In") continue;
      std::set<std::string> values(r.values.begin(), r.values.end());
      if (!names) {
        names = std::move(values);
      } else {
        std::set<std::string> both;
        std::set_intersection(names->begin(), names->end(), values.begin(), values.end(),
                              std::inserter(both, both.end()));
        names = std::move(both);
      }
    }
    if (!names) return std::nullopt;
    out.insert(names->begin(), names->end());
  }
  return out;
}

}  // namespace

std::string NodeRejection::Text() const { return detail.empty() ? reason : absl::StrCat(reason, ": ", detail); }

absl::StatusOr<FilterNode> FilterNode::Of(const api::Node& node) {
  FilterNode out;
  out.name = node.metadata.name.value_or("");
  out.labels = node.metadata.labels;
  ASSIGN_OR_RETURN(out.unschedulable, api::NodeUnschedulable(node));
  ASSIGN_OR_RETURN(out.taints, api::NodeTaints(node));
  return out;
}

absl::StatusOr<PodNodeFilters> PodNodeFilters::Of(const api::Pod& pod) {
  PodNodeFilters out;
  ASSIGN_OR_RETURN(out.tolerations_, api::PodTolerations(pod));
  ASSIGN_OR_RETURN(out.affinity_, api::RequiredNodeAffinity::Of(pod));
  out.node_names_ = PreFilterNodeNames(out.affinity_.required_selector());
  return out;
}

std::optional<NodeRejection> PodNodeFilters::PreFilter() const {
  if (node_names_ && node_names_->empty()) return NodeRejection{"NodeAffinity", kReasonConflict, ""};
  return std::nullopt;
}

std::optional<NodeRejection> PodNodeFilters::Check(const FilterNode& node) const {
  if (node_names_) {
    if (!node_names_->contains(node.name)) {
      return NodeRejection{"NodeAffinity", kReasonPreFilter, ""};
    }
  }
  if (node.unschedulable) {
    api::Taint unschedulable;
    unschedulable.key = api::kTaintNodeUnschedulable;
    unschedulable.effect = "NoSchedule";
    if (!api::TolerationsTolerateTaint(tolerations_, unschedulable)) {
      return NodeRejection{"NodeUnschedulable", kReasonUnschedulable, ""};
    }
  }
  if (const api::Taint* taint = api::FindUntoleratedNoScheduleTaint(node.taints, tolerations_)) {
    return NodeRejection{"TaintToleration", kReasonUntoleratedTaint,
                         api::TaintString(*taint)};
  }
  if (!affinity_.Matches(node.labels, node.name)) {
    return NodeRejection{"NodeAffinity", kReasonAffinity, ""};
  }
  return std::nullopt;
}

}  // namespace draforge::alloc
