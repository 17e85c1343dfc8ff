// Preemption what-if: for a pending pod that fits no node, the pods kube-scheduler's DefaultPreemption
// plugin would evict to make room, with DRA taken into account as KEP-5690 (DRA-aware preemption,
// not merged in Kubernetes 1.37) proposes. Computed on a copy of the snapshot; nothing changes.
//
// The steps follow pkg/scheduler/framework/preemption (Evaluator) and
// pkg/scheduler/framework/plugins/defaultpreemption (v1.37):
//   1. The pod is judged on every node as Replay judges it (NodeUnschedulable, TaintToleration,
//      NodeAffinity, NodeResourcesFit, DynamicResources through alloc::Place). When a node fits,
//      nothing is preempted (kFits).
//   2. spec.preemptionPolicy Never: the pod preempts nothing (kNotEligible).
//   3. Candidate nodes are the ones whose rejection preemption can resolve (upstream: status
//      Unschedulable, not UnschedulableAndUnresolvable): NodeResourcesFit and, DRA-aware, a
//      DynamicResources allocation failure. NodeUnschedulable, TaintToleration, NodeAffinity, a claim
//      pinned to another node and the DRA PreFilter's rejections are not.
//   4. On each candidate (SelectVictimsOnNode): every pod on the node with a lower priority
//      (spec.priority, unset 0) is removed; when the pod still does not fit, the node is out. A
//      removed pod's claims are freed (deallocated, as the resourceclaim controller does) only when
//      every pod that uses or reserves the claim is removed; the preemptor uses its own claims.
//      Then the removed pods are sorted by importance (priority descending, then status.startTime
//      ascending, a pod without one last, then namespace/name) and put back one by one, the ones
//      whose eviction would violate a PodDisruptionBudget first, then the others: a pod stays when
//      the preemptor still fits with it, else it is a victim.
//   5. The node is chosen as pickOneNodeForPreemption does: fewest PDB violations, lowest
//      highest-victim priority, smallest sum of (priority + 2^31), fewest victims, latest start time
//      of the highest-priority victims, then the first node in name order.
//
// PodDisruptionBudgets (policy/v1) are read as FilterVictimsWithPDBViolation reads them: same
// namespace, spec.selector (nil, empty or invalid selects nothing; a pod without labels is never
// selected), status.disruptionsAllowed decremented per selected victim not in status.disruptedPods,
// shared by all victims on the node; a pod is violating when a budget goes below zero.
//
// With dra_aware false the answer is the real 1.37 scheduler's: the DynamicResources plugin has no
// PreFilterExtensions, so removing pods frees no device in the dry run, and its Filter rejects with
// UnschedulableAndUnresolvable, so nodes it rejects are never candidates.
//
// Differences from upstream (see docs/whatif.md): every candidate node is evaluated (upstream dry-runs
// a random window of at least 100 nodes or 10%), ties go to the first node in name order (upstream: Go
// map order), a pod without status.startTime counts as started last (upstream: now), nominated pods
// and extenders are not considered, PodGroup victims (GenericWorkload) are single pods.
#ifndef DRAFORGE_ALLOC_PREEMPTION_H_
#define DRAFORGE_ALLOC_PREEMPTION_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "alloc/features.h"
#include "alloc/replay.h"
#include "store/cluster.h"

namespace draforge::alloc {

struct PreemptionOptions {
  Features features;
  // KEP-5690: victims' claims are freed in the dry run and DynamicResources rejections are
  // candidates. False: Kubernetes 1.37 as released (DRA never resolved by preemption).
  bool dra_aware = true;
  // Search-step budget per node and allocation (0: no limit).
  int64_t max_steps = 0;
  // Compute the explain funnel's sentence for DynamicResources rejections (PlaceOptions::explain).
  bool explain = true;
};

enum class PreemptionOutcome {
  kPreempt,       // a node and its victims
  kFits,          // the pod fits without preemption
  kNotEligible,   // spec.preemptionPolicy: Never
  kNoCandidate,   // no node can be made to fit
};
// "preempt", "fits", "not-eligible", "no-candidate".
std::string_view PreemptionOutcomeName(PreemptionOutcome outcome);

struct PreemptionVictim {
  std::string pod;  // "namespace/name"
  int64_t priority = 0;
  std::string start_time;  // status.startTime as written; empty when unset
  // Claims of the pod whose devices are freed because every pod using them is a victim, and
  // claims it uses that stay allocated (another pod still uses them). "namespace/name", sorted.
  std::vector<std::string> claims_freed;
  std::vector<std::string> claims_kept;
  // The PodDisruptionBudget ("namespace/name") whose budget this eviction exceeds; empty when none.
  std::string pdb_violated;
};

struct PreemptionCandidate {
  std::string node;
  // In importance order (priority descending, then start time ascending).
  std::vector<PreemptionVictim> victims;
  int64_t pdb_violations = 0;
};

struct PreemptionResult {
  std::string pod;  // "namespace/name"
  int64_t priority = 0;
  PreemptionOutcome outcome = PreemptionOutcome::kNoCandidate;
  bool dra_aware = true;
  // kPreempt: the chosen node, its victims and which rule of pickOneNodeForPreemption decided
  // ("only candidate", "fewest PDB violations", "lowest highest priority", "smallest priority sum",
  // "fewest victims", "latest start time", "first in name order").
  std::string node;
  std::vector<PreemptionVictim> victims;
  int64_t pdb_violations = 0;
  std::string decided_by;
  // Every node where preemption works, in name order.
  std::vector<PreemptionCandidate> candidates;
  // kFits: the nodes the pod fits now.
  std::vector<std::string> fitting_nodes;
  // Every node that is not a candidate, sorted by name, with the filter and words that rule it out:
  // a filter preemption cannot resolve ("TaintToleration", ...: "preemption is not helpful: ..."),
  // "No preemption victims found for incoming pod", or the filter that still rejects the node once
  // every lower-priority pod is gone. Empty for kFits and kNotEligible.
  std::vector<NodeReason> nodes;
  // kNotEligible: "not eligible due to preemptionPolicy=Never."; kNoCandidate: a summary.
  std::string message;
};

// The preemption what-if for pending pod ns/name of `snapshot` (not changed). Errors: NotFound for a
// pod that is not in the snapshot; InvalidArgument for a pod that is not pending (bound, terminal,
// being deleted, another scheduler's), a spec.priority that is not an integer (any pod), a bad
// resource list, node filter field or PodDisruptionBudget.
absl::StatusOr<PreemptionResult> Preempt(const store::Snapshot& snapshot, std::string_view ns, std::string_view name,
                                         const PreemptionOptions& options = {});

}  // namespace draforge::alloc

#endif  // DRAFORGE_ALLOC_PREEMPTION_H_
