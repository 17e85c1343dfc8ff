#include "analysis/diagnostics.h"

#include "analysis/claim_state.h"

namespace draforge::analysis {

std::vector<PendingClaimDiagnosis> DiagnosePendingClaims(const store::Snapshot& snapshot, std::string_view ns,
                                                         const alloc::Features& features) {
  std::vector<PendingClaimDiagnosis> out;
  for (const auto* claim : snapshot.ResourceClaims(ns)) {
    if (StateOf(*claim) != ClaimState::kPending) continue;
    PendingClaimDiagnosis d;
    d.namespace_ = claim->metadata.namespace_.value_or("");
    d.name = claim->metadata.name.value_or("");
    // A pod already bound to a node (but with its claim still pending) is asking exactly "why not
    // on this node"; otherwise the question is "why nowhere".
    std::optional<alloc::NodeInfo> node;
    for (const auto* pod : snapshot.PodsForClaim(d.namespace_, d.name)) {
      if (!pod->spec || !pod->spec->node_name || pod->spec->node_name->empty()) continue;
      if (const api::Node* n = snapshot.GetNode(*pod->spec->node_name)) {
        node = alloc::NodeInfo::FromNode(*n);
        d.node = node->name;
        break;
      }
    }
    auto explanation = alloc::Explain(snapshot, d.namespace_, d.name, node ? &*node : nullptr, features);
    if (explanation.ok()) {
      d.explanation = *std::move(explanation);
    } else {
      d.error = std::string(explanation.status().message());
    }
    out.push_back(std::move(d));
  }
  return out;
}

}  // namespace draforge::analysis
