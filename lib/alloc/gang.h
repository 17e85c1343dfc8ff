// Gang placement: can every pod of a PodGroup (scheduling.k8s.io/v1beta1, gate GenericWorkload) get a
// node at once, and if not, which member blocks? Answered as kube-scheduler 1.37's pod group
// scheduling cycle answers it, on a copy of a snapshot (which is not changed).
//
// Upstream (k8s.io/kubernetes v1.37 pkg/scheduler/schedule_one_podgroup.go,
// framework/plugins/gangscheduling): a pod joins a group through spec.schedulingGroup.podGroupName.
// The GangScheduling plugin's PreEnqueue holds the group's pods until at least minCount of them exist
// ("waiting for minCount pods from a gang to appear in scheduling queue"). The group's pending pods
// are then tried in one cycle, in PodGroupMemberPodsOrderingFunc's order (priority descending, then
// queue time, then name; offline: creation time), each through the usual filters, and each pod that
// gets a node is assumed and reserved there before the next is tried, so the members compete for
// nodes and devices. After each pod the PlacementFeasible check runs: when the pods scheduled so far
// (members already bound included) plus the pods not yet tried cannot reach minCount, the cycle
// stops ("minCount (N) cannot be satisfied: S scheduled, R remaining") and nothing binds. At the end,
// at least minCount scheduled: the pods that got a node bind, the others go back to the queue; fewer:
// nothing binds. A group with schedulingPolicy.basic counts as minCount 1.
//
// Here each member is placed with replay's machinery (alloc::ReplayStep: NodeUnschedulable,
// TaintToleration, NodeAffinity, NodeResourcesFit, then DynamicResources per node, the policy picking
// among the nodes that fit) and committed on the working copy before the next member.
//
// Claims at group level (DRAWorkloadResourceClaims): a PodGroup's spec.resourceClaims entry names a
// ResourceClaim or a ResourceClaimTemplate; a member's spec.resourceClaims entry with the same name
// and the same claim or template reference uses the group's claim instead of its own
// (k8s.io/dynamic-resource-allocation resourceclaim.BindTo). A template's claim is generated once for
// the group by the resourceclaim controller (generateName "<podgroup>-<claim>-", owned by the
// PodGroup, named in the PodGroup's status.resourceClaimStatuses and in each member's
// status.resourceClaimStatuses); when the snapshot has none yet it is instantiated here once. The
// first member placed allocates the group's claim; the next members reuse that allocation, which pins
// them to the nodes its nodeSelector selects (as the DynamicResources plugin reuses the pending
// allocation within one pod group cycle). Upstream reserves such a claim for the PodGroup
// (status.reservedFor {apiGroup: scheduling.k8s.io, resource: podgroups}).
//
// Before any member is tried, validatePodGroup's priority check: a member whose spec.priority differs
// from the group's spec.priority (0 when unset) fails the whole cycle ("all pods in a single pod group
// should have the same priority as the pod group's priority, got P and G").
//
// Not modelled: preemption (PodGroupPostFilter), topology constraints (TopologyAwareWorkloadScheduling)
// and composite pod groups (CompositePodGroup), both alpha in 1.37; validatePodGroup's scheduler name
// and preemption policy checks (members of another scheduler are not pending here at all).
#ifndef DRAFORGE_ALLOC_GANG_H_
#define DRAFORGE_ALLOC_GANG_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "alloc/replay.h"
#include "api/resource_claim.h"
#include "store/cluster.h"

namespace draforge::alloc {

struct GangOptions {
  ReplayOptions replay;
  // When the PodGroup is not in the snapshot: the group is the one a workload controller creates from
  // template `template_name` of the Workload `workload` (same namespace). Empty: the PodGroup must
  // exist.
  std::string workload;
  std::string template_name;
};

// One entry of the PodGroup's spec.resourceClaims.
struct GroupClaim {
  std::string name;   // spec.resourceClaims[].name
  std::string claim;  // "namespace/name" of the ResourceClaim
  // "claim" (resourceClaimName), "template" (generated before: status.resourceClaimStatuses),
  // "template-instantiated" (generated here, as the resourceclaim controller would).
  std::string source;
  bool existing = false;      // allocated before the gang was placed
  std::string allocated_by;   // the member whose placement allocated it ("" when existing or unplaced)
  std::vector<std::string> members;  // the placed members that use it, in order
  bool allocated = false;            // `allocation` is set
  api::AllocationResult allocation;
};

struct GangResult {
  std::string group;         // "namespace/name" of the PodGroup
  std::string policy;        // "gang" or "basic"
  int32_t min_count = 1;     // gang.minCount; 1 for basic
  std::vector<std::string> scheduled;  // members already bound (they count toward minCount)
  std::vector<std::string> order;      // the pending members, in the cycle's order
  // At least min_count members (bound ones included) get a node: the placed members bind.
  bool fits = false;
  // The cycle's words: "" when it fits, else PreEnqueue's, validatePodGroup's or PlacementFeasible's
  // message.
  std::string status;
  // The members that got a node, in order, with their claims' devices. When !fits this is the
  // tentative placement the scheduler undoes: none of them binds.
  std::vector<ReplayedPod> placed;
  // The members tried that fit nowhere, in order, with every node's reason.
  std::vector<PendingPod> unschedulable;
  // The members the cycle did not try (it stopped once minCount was out of reach), in order.
  std::vector<std::string> not_tried;
  // When !fits: the member after whose failure minCount was out of reach (the last of
  // `unschedulable`); "" when the group never got a cycle (too few members).
  std::string blocking;
  std::vector<GroupClaim> group_claims;
};

// Places the pending members of PodGroup ns/name. Errors: NotFound for a PodGroup that is not in the
// snapshot (and no Workload template given), a Workload or template that does not exist, or a
// group claim's ResourceClaimTemplate that does not exist; InvalidArgument for a malformed PodGroup,
// Workload or member (named), as Replay.
absl::StatusOr<GangResult> PlaceGang(const store::Snapshot& snapshot, std::string_view ns, std::string_view name,
                                     const GangOptions& options = {});

}  // namespace draforge::alloc

#endif  // DRAFORGE_ALLOC_GANG_H_
