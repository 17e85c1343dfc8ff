// What draforge-controller allocates itself: pending ResourceClaims that no pod references (a claim
// a pod uses is kube-scheduler's, with the pod's node), on the simulated devices, node by node. Pure
// decisions over a snapshot, so that every front end allocates the same claim on the same node.
#ifndef DRAFORGE_SIM_CLAIM_ALLOCATION_H_
#define DRAFORGE_SIM_CLAIM_ALLOCATION_H_

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "alloc/allocator.h"
#include "api/node.h"
#include "api/pod.h"
#include "api/resource_slice.h"
#include "rapidjson/document.h"
#include "store/cluster.h"

namespace draforge::sim {

// "namespace/name" of every claim the pods name: spec.resourceClaims[].resourceClaimName and
// status.resourceClaimStatuses[].resourceClaimName (a template's claim), in the pod's namespace
// ("default" when it has none). `pods` are borrowed.
std::set<std::string> ClaimsReferencedByPods(const std::vector<const api::Pod*>& pods);

// The nodes the controller tries, in this order: `nodes` (the Node objects, in the order given),
// then the node names that node-local `slices` (spec.nodeName) give but no Node has, sorted; those
// get their node-local devices even without a Node object.
std::vector<alloc::NodeInfo> AllocationNodes(const std::vector<const api::Node*>& nodes,
                                             const std::vector<const api::ResourceSlice*>& slices);

// A status write that allocates one claim.
struct ClaimAllocation {
  std::string node;  // where it was allocated
  // The claim object with status.allocation set (resource.k8s.io/v1 JSON): the body of an update of
  // the status subresource with the read resourceVersion. The caller's.
  rapidjson::Document body;
};

// Allocates claim `key` ("namespace/name") of `snapshot` alone on the first of `nodes` where it fits,
// if the controller allocates it (ControllerAllocates with `referenced_by_pod`). `claim_json` is the
// whole claim as read (with apiVersion and kind), the base of the body. nullopt: the controller
// leaves the claim alone, or it fits on no node (an allocator error on a node counts as not fitting
// there). Errors: NotFound when the snapshot has no such claim; InvalidArgument when the allocation
// cannot be encoded or `claim_json` is not an object.
absl::StatusOr<std::optional<ClaimAllocation>> PlanClaimAllocation(const store::Snapshot& snapshot,
                                                                   const std::string& key,
                                                                   const rapidjson::Value& claim_json,
                                                                   const std::set<std::string>& referenced_by_pod,
                                                                   const std::vector<alloc::NodeInfo>& nodes);

}  // namespace draforge::sim

#endif  // DRAFORGE_SIM_CLAIM_ALLOCATION_H_
