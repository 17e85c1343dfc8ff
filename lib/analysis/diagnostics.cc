#include "analysis/diagnostics.h"

#include <algorithm>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "alloc/placement.h"
#include "analysis/claim_state.h"
#include "api/pod.h"
#include "common/status.h"

namespace draforge::analysis {
namespace {

// Long node lists make the sentence unreadable; the full list is in fits_on.
constexpr size_t kNodesNamed = 5;

std::string NodeList(const std::vector<std::string>& nodes) {
  if (nodes.size() <= kNodesNamed) return absl::StrJoin(nodes, ", ");
  return absl::StrCat(absl::StrJoin(nodes.begin(), nodes.begin() + kNodesNamed, ", "), " and ",
                      nodes.size() - kNodesNamed, " more");
}

// Where the claim could be allocated if a pod used it: the placement of a what-if pod whose only
// claim is this one, which is what kube-scheduler would run for the first pod that references it.
void PlaceWithoutConsumer(const store::Snapshot& snapshot, const alloc::Features& features,
                          PendingClaimDiagnosis& d) {
  const std::string claim_key = absl::StrCat(d.namespace_, "/", d.name);
  const std::string waits = absl::StrCat("no pod uses claim ", claim_key,
                                         "; kube-scheduler allocates a claim only when it schedules a pod that "
                                         "uses it, so the claim waits for one");
  const std::string why = d.explanation ? d.explanation->summary : "";

  api::Pod pod;
  pod.metadata.namespace_ = d.namespace_;
  pod.metadata.name = absl::StrCat(d.name, "-consumer");
  api::PodResourceClaim ref;
  ref.name = "claim";
  ref.resource_claim_name = d.name;
  pod.spec.emplace().resource_claims.push_back(std::move(ref));
  // Explain already said why per request; the per-node funnel would cost one explain per node.
  auto placement = alloc::Place(snapshot, pod, {.features = features, .explain = false});
  if (!placement.ok()) {
    d.summary = absl::StrCat(waits, ". Placement failed: ", placement.status().message());
    return;
  }
  d.nodes_tried = static_cast<int64_t>(placement->nodes.size());
  d.fits_on = placement->FittingNodes();
  if (!d.fits_on.empty()) {
    d.summary = absl::StrCat(waits, ". It would fit on ", d.fits_on.size(), " of ", d.nodes_tried,
                             d.nodes_tried == 1 ? " node: " : " nodes: ", NodeList(d.fits_on), ".");
    return;
  }
  if (d.nodes_tried == 0) {
    d.summary = absl::StrCat(waits, ". There is no node to try it on (no Node objects and no node-local "
                             "ResourceSlices)", why.empty() ? "" : ": ", why, ".");
    return;
  }
  std::string reason = why;
  if (!placement->unresolvable.empty()) {
    reason = absl::StrJoin(placement->unresolvable, "; ");
  } else if (auto it = std::find_if(placement->nodes.begin(), placement->nodes.end(),
                                    [](const alloc::NodePlacement& n) { return n.outcome == alloc::Outcome::kError; });
             it != placement->nodes.end()) {
    absl::StrAppend(&reason, reason.empty() ? "" : "; ", "allocation error on node ", it->node, ": ",
                    it->error.message());
  }
  d.summary = absl::StrCat(waits, ". It would not fit on any of the ", d.nodes_tried,
                           d.nodes_tried == 1 ? " node" : " nodes", reason.empty() ? "" : ": ", reason, ".");
}

}  // namespace

std::string_view PendingOutcomeName(PendingOutcome outcome) {
  switch (outcome) {
    case PendingOutcome::kAllocatable: return "allocated";
    case PendingOutcome::kUnschedulable: return "unschedulable";
    case PendingOutcome::kWaitingForConsumer: return "waiting-for-consumer";
    case PendingOutcome::kError: return "error";
  }
  return "error";
}

PendingClaimDiagnosis DiagnosePendingClaim(const store::Snapshot& snapshot, const api::ResourceClaim& claim,
                                           const alloc::Features& features, alloc::ExplainContext* context) {
  PendingClaimDiagnosis d;
  d.namespace_ = claim.metadata.namespace_.value_or("");
  d.name = claim.metadata.name.value_or("");
  // A pod already bound to a node (but with its claim still pending) is asking exactly "why not
  // on this node"; otherwise the question is "why nowhere".
  std::optional<alloc::NodeInfo> node;
  for (const auto* pod : snapshot.PodsForClaim(d.namespace_, d.name)) {
    d.consumers.push_back(absl::StrCat(pod->metadata.namespace_.value_or(""), "/", pod->metadata.name.value_or("")));
    if (node || !pod->spec || !pod->spec->node_name || pod->spec->node_name->empty()) continue;
    if (const api::Node* n = snapshot.GetNode(*pod->spec->node_name)) {
      node = alloc::NodeInfo::FromNode(*n);
      d.node = node->name;
    }
  }
  std::sort(d.consumers.begin(), d.consumers.end());
  alloc::ExplainOptions options;
  options.features = features;
  options.context = context;
  auto explanation = alloc::Explain(snapshot, d.namespace_, d.name, node ? &*node : nullptr, options);
  if (!explanation.ok()) {
    d.outcome = PendingOutcome::kError;
    d.error = std::string(explanation.status().message());
    d.summary = d.error;
    return d;
  }
  d.explanation = *std::move(explanation);
  if (d.consumers.empty()) {
    d.outcome = PendingOutcome::kWaitingForConsumer;
    PlaceWithoutConsumer(snapshot, features, d);
    return d;
  }
  switch (d.explanation->outcome) {
    case alloc::Outcome::kAllocated: d.outcome = PendingOutcome::kAllocatable; break;
    case alloc::Outcome::kUnschedulable: d.outcome = PendingOutcome::kUnschedulable; break;
    case alloc::Outcome::kError: d.outcome = PendingOutcome::kError; break;
  }
  d.summary = d.explanation->summary;
  // No pod is bound yet: the scheduler will try every node, so the per-node verdicts decide.
  if (!node && !d.explanation->nodes.empty()) {
    if (!d.explanation->FittingNodes().empty()) d.outcome = PendingOutcome::kAllocatable;
    d.summary = absl::StrCat(d.explanation->nodes_summary, ". ", d.explanation->summary);
  }
  return d;
}

std::vector<PendingClaimDiagnosis> DiagnosePendingClaims(const store::Snapshot& snapshot, std::string_view ns,
                                                         const alloc::Features& features) {
  std::vector<PendingClaimDiagnosis> out;
  std::optional<alloc::ExplainContext> context;  // built at the first pending claim
  for (const auto* claim : snapshot.ResourceClaims(ns)) {
    if (StateOf(*claim) != ClaimState::kPending) continue;
    if (!context) context.emplace(snapshot, features);
    out.push_back(DiagnosePendingClaim(snapshot, *claim, features, &*context));
  }
  return out;
}

}  // namespace draforge::analysis
