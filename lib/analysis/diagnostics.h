// Diagnostics for pending claims: what each claim without an allocation is waiting for, and why it
// does not fit, from the allocator's explain (lib/alloc/explain.h) and, for a claim no pod uses,
// the cluster-wide placement (lib/alloc/placement.h).
#ifndef DRAFORGE_ANALYSIS_DIAGNOSTICS_H_
#define DRAFORGE_ANALYSIS_DIAGNOSTICS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "alloc/explain.h"
#include "alloc/features.h"
#include "store/cluster.h"

namespace draforge::analysis {

// What a pending claim is waiting for, as an operator reads it.
enum class PendingOutcome {
  // A pod uses the claim and the claim fits: on the pod's node (explain's "allocated": the
  // scheduler has not got to it yet), or, for pods not bound to a node, on at least one node
  // (explain's per-node verdicts).
  kAllocatable,
  // A pod uses the claim and the claim does not fit: on the pod's node, or, for pods not bound to a
  // node, on any node (or, when there is no node to try, with the devices the cluster has).
  kUnschedulable,
  // No pod references the claim. kube-scheduler allocates a claim only while it schedules a pod
  // that uses it, so the claim waits for a consumer whether or not its devices would fit; the
  // placement fields say whether they would.
  kWaitingForConsumer,
  // Explain failed (a claim without spec.devices, ...).
  kError,
};
// "allocated", "unschedulable", "waiting-for-consumer", "error". (kAllocatable keeps explain's
// name, which the server has always reported.)
std::string_view PendingOutcomeName(PendingOutcome outcome);

struct PendingClaimDiagnosis {
  std::string namespace_;
  std::string name;
  // The node the explanation was computed for: the spec.nodeName of the first pod (by name) that
  // references the claim and is bound to a stored Node; "" when no such pod (then the node step of
  // the funnel is skipped, as explain does without a node).
  std::string node;
  PendingOutcome outcome = PendingOutcome::kUnschedulable;
  // Pods that reference the claim (Snapshot::PodsForClaim), "namespace/name", sorted. Empty exactly
  // when the outcome is kWaitingForConsumer (or kError for a claim nobody uses).
  std::vector<std::string> consumers;
  // Set when explain succeeded.
  std::optional<alloc::Explanation> explanation;
  // explain's error message otherwise (a claim without spec.devices, ...).
  std::string error;
  // kWaitingForConsumer only: the nodes cluster-wide placement tried (alloc::PlacementNodes) and,
  // sorted, those on which the claim could be allocated now if a pod used it.
  int64_t nodes_tried = 0;
  std::vector<std::string> fits_on;
  // One paragraph for the operator: explain's summary, or for a claim no pod uses what it waits for
  // and where it would fit; the error for kError.
  std::string summary;
};

// One entry per pending claim (no status.allocation), sorted by (namespace, name); only namespace
// `ns` when it is non-empty. Never fails: a claim explain cannot handle carries its error. A claim
// no pod uses costs one allocation per node (the placement); the others one explain each, which
// share one alloc::ExplainContext (the snapshot's allocated state, nodes and compiled selectors).
std::vector<PendingClaimDiagnosis> DiagnosePendingClaims(const store::Snapshot& snapshot, std::string_view ns = {},
                                                         const alloc::Features& features = alloc::Features{});

// The same for one claim, which the caller has found pending (StateOf is kPending): what the
// server's diagnostics list says of it, for a caller that asks about one claim (explain with the
// node verdicts in the server's shape).
// `context`: one built for `snapshot` and `features` by a caller diagnosing many claims (null: none).
PendingClaimDiagnosis DiagnosePendingClaim(const store::Snapshot& snapshot, const api::ResourceClaim& claim,
                                           const alloc::Features& features = alloc::Features{},
                                           alloc::ExplainContext* context = nullptr);

}  // namespace draforge::analysis

#endif  // DRAFORGE_ANALYSIS_DIAGNOSTICS_H_
