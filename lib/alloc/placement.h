// Cluster-wide placement: on which nodes a pod's claims fit (kube-scheduler's DRA Filter, run on
// every node), and how many more claims like a given one fit, and where.
//
// Place() resolves a pod's claims as the scheduler's DRA PreFilter does:
//   * spec.resourceClaims[].resourceClaimName: that claim;
//   * resourceClaimTemplateName: the claim named in status.resourceClaimStatuses; when the status
//     has no entry for it, or names a claim that is not in the snapshot, the template's spec
//     instantiated in memory as the resourceclaim controller would create it (same namespace,
//     generateName "<pod>-<claim>-", the template's labels and annotations plus
//     resource.kubernetes.io/pod-claim-name, a controller ownerReference to the pod). An entry whose
//     status says no claim is needed (resourceClaimName unset) is left out.
// then, for every node in name order:
//   * claims already allocated constrain the node: each allocation's nodeSelector must select the
//     node (upstream: "resourceclaim not available on the node"); they are not re-allocated;
//   * the pending claims are allocated together with alloc::Allocate against the snapshot's
//     allocated state (every allocated claim, the pod's own included).
// Pod-level problems that make every node fail as upstream's PreFilter does (a claim that is not
// found, a claim being deleted, a claim reserved by 256 other consumers, a missing template) are
// reported in PodPlacement::unresolvable and as the reason on every node.
// Only DRA is considered: node affinity, taints, resources and the pod's spec.nodeName are not.
//
// HowManyMore() answers "how many more claims like this one fit, and where": it allocates copies of
// a claim (or of a template's claim) one at a time, each with a fresh name, adding each allocation to
// the allocated state, node by node in name order (a node is filled until the next copy does not fit,
// then the next node is tried), until no node fits another copy, a cap is reached or the allocator
// reports an error. Greedy and deterministic: devices usable from several nodes (network-attached)
// go to the first node that takes them.
//
// The unit counted can also be a pod prototype (a pod, its containers' requests and its claims): each
// unit is then a copy of every claim of the pod, allocated together on one node, and one pod whose
// requests (api::PodRequests) must fit the node as kube-scheduler's NodeResourcesFit checks them:
// status.allocatable minus the requests of the pods bound there (not Succeeded/Failed) and of the
// units placed before, and one pod slot. Resources are checked before devices; when they are what
// stops a node, NodeCount::limited_by names the resource and `why` says "cpu: 10 requested, 6 free".
// With options.quota, the namespace's ResourceQuotas cap the total (alloc/namespace_quota.h).
//
// Nodes, for both: the snapshot's Node objects; when it has none, the node names that node-local
// ResourceSlices (spec.nodeName) name. Every result is deterministic.
#ifndef DRAFORGE_ALLOC_PLACEMENT_H_
#define DRAFORGE_ALLOC_PLACEMENT_H_

#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "alloc/allocator.h"
#include "alloc/features.h"
#include "api/pod.h"
#include "api/pod_resources.h"
#include "api/resource_claim.h"
#include "api/resource_claim_template.h"
#include "store/cluster.h"

namespace draforge::alloc {

// Where a claim of a pod comes from.
enum class ClaimSource {
  kClaim,                 // spec.resourceClaims[].resourceClaimName
  kTemplate,              // a template's claim, named in status.resourceClaimStatuses and stored
  kTemplateInstantiated,  // a template's claim not created yet: built in memory from the template
};
// "claim", "template", "template-instantiated".
std::string_view ClaimSourceName(ClaimSource source);

// One claim of the pod.
struct PlacedClaim {
  std::string pod_claim;      // spec.resourceClaims[].name
  std::string key;            // "namespace/name" of the ResourceClaim
  std::string template_name;  // resourceClaimTemplateName, for template entries
  ClaimSource source = ClaimSource::kClaim;
  // status.allocation is set: the claim constrains the node and is not allocated again.
  bool allocated = false;
  // The claim: into the snapshot, or into `instantiated`. Null when unresolvable (not found).
  const api::ResourceClaim* claim = nullptr;
  // kTemplateInstantiated: the claim built from the template (owned here).
  std::shared_ptr<const api::ResourceClaim> instantiated;
};

// The allocation of one claim of the pod on one node.
struct ClaimAllocation {
  std::string claim;     // "namespace/name"
  bool existing = false;  // the claim's status.allocation (it was allocated before)
  api::AllocationResult allocation;
};

struct NodePlacement {
  std::string node;
  // kAllocated: the pod's claims fit; kUnschedulable: they do not; kError: the allocator failed.
  Outcome outcome = Outcome::kUnschedulable;
  bool fits() const { return outcome == Outcome::kAllocated; }
  // kAllocated: one entry per claim of the pod (PodPlacement::claims order), existing ones included.
  std::vector<ClaimAllocation> allocations;
  // kUnschedulable: the scheduler's words ("cannot allocate all claims", "resourceclaim not
  // available on the node", ...) then the allocator's details (invalid pools).
  std::vector<std::string> reasons;
  // kUnschedulable / kError: one sentence. For an allocation that fails, the explain funnel's
  // sentence for the first request that fails ("claim team-a/c: request gpus: 4 devices match class
  // ..., 2 needed"; for a firstAvailable request, the sentences of its subrequests joined by "; "),
  // else the first claim-level conflict ("requests a and b both need device D"), as
  // alloc::FirstBlockingReason gives it; for a node excluded by an allocated claim, which claim; for
  // an error, its message.
  std::string why;
  absl::Status error;  // kError
  int64_t search_steps = 0;
};

struct PodPlacement {
  std::string pod;  // "namespace/name"
  std::vector<PlacedClaim> claims;
  // Why no node can fit (the scheduler's PreFilter would reject the pod); empty normally.
  std::vector<std::string> unresolvable;
  // "nodes" when the nodes are the snapshot's Node objects, "slices" when they are the node names of
  // node-local ResourceSlices.
  std::string node_source;
  std::vector<NodePlacement> nodes;  // sorted by name

  // The names of the nodes that fit, sorted.
  std::vector<std::string> FittingNodes() const;
};

struct PlaceOptions {
  Features features;
  // Compute NodePlacement::why with the explain funnel (one alloc::Explain per pending claim per
  // node that does not fit). Off: `why` repeats the reasons.
  bool explain = true;
  // Search-step budget per node (AllocateOptions::max_steps; 0: no limit).
  int64_t max_steps = 0;
  // When set, only these nodes are judged and PodPlacement::nodes lists only them (a caller that has
  // already rejected the others, as Replay does with the scheduler's earlier filters). Borrowed.
  const std::set<std::string>* only_nodes = nullptr;
};

// Places pod ns/name of `snapshot`. Errors: NotFound when the pod is not in the snapshot. The result
// points into `snapshot`, which must outlive it.
absl::StatusOr<PodPlacement> Place(const store::Snapshot& snapshot, std::string_view ns, std::string_view pod,
                                   const PlaceOptions& options = {});
// Places `pod`, which need not be stored (a what-if pod); its namespace defaults to "default".
absl::StatusOr<PodPlacement> Place(const store::Snapshot& snapshot, const api::Pod& pod,
                                   const PlaceOptions& options = {});

// The claim the resourceclaim controller would create for entry `pod_claim_name` of `pod` from
// `tmpl`: namespace of the pod, generateName as upstream computes it, and a deterministic 5-letter
// suffix (upstream's is random, from the API server) unless `name` is given.
api::ResourceClaim InstantiateTemplate(const api::Pod& pod, std::string_view pod_claim_name,
                                       const api::ResourceClaimTemplate& tmpl, std::string_view name = {});

// The nodes Place and HowManyMore consider, sorted by name (see the top of this file), and whether
// they come from Node objects ("nodes") or from slices ("slices").
std::vector<NodeInfo> PlacementNodes(const store::Snapshot& snapshot, std::string* source = nullptr);

// --- how many more ----------------------------------------------------------------------------------

enum class PrototypeKind { kClaim, kTemplate };

// One unit HowManyMore counts.
struct UnitPrototype {
  std::string description;  // "resourceclaim ns/name", "pod ns/name", "package ID"
  std::string ns;
  // Copied for every unit (spec, labels, annotations; fresh names "<name>-more-<n>") and allocated
  // together on one node. May be empty for a pod without claims.
  std::vector<api::ResourceClaim> claims;
  // Set for a pod prototype: the pod's requests (api::PodRequests), checked against each node's
  // free resources. Unset: only devices count (a claim prototype).
  std::optional<api::ResourceList> pod_requests;
};

struct HowManyMoreOptions {
  Features features;
  // Stop after this many copies (> 0).
  int64_t cap = 1000;
  // Search-step budget per allocation (0: no limit).
  int64_t max_steps = 0;
  // Keep every copy's allocation in HowManyMoreResult::copies.
  bool keep_allocations = true;
  // Compute NodeCount::why with the explain funnel, once per exhausted node, against the final
  // allocated state (the snapshot plus every copy placed).
  bool explain = true;
  // Count within the ResourceQuotas of the prototype's namespace (alloc/namespace_quota.h).
  bool quota = false;
};

enum class StopReason {
  kExhausted,  // no node fits another copy
  kCap,        // the cap was reached
  kError,      // the allocator returned an error
  kNoNodes,    // there is no node to try
  kQuota,      // the namespace's ResourceQuotas admit no more
};
// "exhausted", "cap", "error", "no-nodes", "quota".
std::string_view StopReasonName(StopReason reason);

struct NodeCount {
  std::string node;
  int64_t count = 0;
  // Why the next copy did not fit on the node (allocator reasons); empty when the search stopped
  // before the node was exhausted (cap, error) or never tried.
  std::vector<std::string> reasons;
  // With reasons: the explain funnel's sentence for the first request that fails on the node in the
  // final state ("request gpus: 4 devices match class gpu, all 4 are allocated to claims ..."), else
  // the first claim-level conflict (alloc::FirstBlockingReason), or the reasons joined when neither.
  // When the node's resources stopped a pod prototype: "cpu: 10 requested, 6 free (allocatable 64)".
  std::string why;
  // "devices" or the resource ("cpu", "memory", "pods", ...) that stopped the node; "" with no reasons.
  std::string limited_by;
};

struct PlacedCopy {
  std::string claim;  // "namespace/name" of the copy (one entry per claim of a unit)
  std::string node;
  api::AllocationResult allocation;
};

struct HowManyMoreResult {
  std::string prototype;  // "resourceclaim ns/name" or "resourceclaimtemplate ns/name"
  int64_t total = 0;
  int64_t cap = 0;
  std::vector<NodeCount> nodes;  // every node, sorted by name
  std::vector<PlacedCopy> copies;  // in allocation order (when keep_allocations)
  StopReason stop = StopReason::kExhausted;
  absl::Status error;  // kError: the allocator's error (on node error_node)
  std::string error_node;
  int64_t search_steps = 0;  // sum over every allocation attempt
  // Pod prototypes: whether node resources were checked (false when the nodes come from slices:
  // there is no Node and so no allocatable).
  bool pod = false;
  bool resources_checked = false;
  // options.quota: the units the namespace's quotas admit (nullopt: no quota limits the unit), the
  // binding quota in words, and the quotas read.
  bool quota_checked = false;
  std::optional<int64_t> quota_units;
  std::string quota_why;
  std::vector<std::string> quotas;
};

// How many more units like `unit` fit. Errors: InvalidArgument for cap <= 0, for a bad resource list
// in a Node or bound Pod, or a bad ResourceQuota (with options.quota).
absl::StatusOr<HowManyMoreResult> HowManyMore(const store::Snapshot& snapshot, const UnitPrototype& unit,
                                              const HowManyMoreOptions& options = {});
// The unit of pod prototype `pod` (need not be stored; namespace defaults to "default"): its claims
// by resourceClaimName from `claims` (objects that travel with the pod, as a package's do), else from
// the snapshot; by resourceClaimTemplateName the snapshot's template, instantiated. Every claim is
// copied per unit. Errors: NotFound for a claim or template found nowhere, InvalidArgument for a bad
// resource list.
absl::StatusOr<UnitPrototype> PodUnit(const store::Snapshot& snapshot, const api::Pod& pod,
                                      const std::vector<api::ResourceClaim>& claims = {});
// How many more copies of `prototype` (its spec; name, namespace and status are replaced) fit.
// Errors: InvalidArgument for cap <= 0.
absl::StatusOr<HowManyMoreResult> HowManyMore(const store::Snapshot& snapshot, const api::ResourceClaim& prototype,
                                              const HowManyMoreOptions& options = {});
// Same for claim or template ns/name of the snapshot (a template without spec.spec is a claim with
// an empty spec). Errors: NotFound for an unknown object, InvalidArgument for cap <= 0.
absl::StatusOr<HowManyMoreResult> HowManyMore(const store::Snapshot& snapshot, PrototypeKind kind,
                                              std::string_view ns, std::string_view name,
                                              const HowManyMoreOptions& options = {});

}  // namespace draforge::alloc

#endif  // DRAFORGE_ALLOC_PLACEMENT_H_
