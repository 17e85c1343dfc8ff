// What-if edits: changes made to a copy of a snapshot before a what-if question (a replay, a
// placement, "how many more"), the ones an operator or an autoscaler plans:
//
//   add-nodes N like NODE  N copies of Node NODE named NODE-whatif-1.. (labels, taints, allocatable
//                          kept; the kubernetes.io/hostname label, uid and resourceVersion
//                          renewed), each with a copy of NODE's node-local ResourceSlices
//                          (spec.nodeName NODE): slice NAME becomes NAME-whatif-<i>, the pool named
//                          NODE becomes the new node's name (another pool name P becomes
//                          P-whatif-<i>), devices identical. What a cluster autoscaler adds.
//   add-nodes N of a template  the same from a Node that is not in the snapshot (a node group's
//                          template, what cluster-autoscaler builds for a node group scaled from
//                          zero) and the ResourceSlices such a node publishes (spec.nodeName the
//                          template's name; lib/sim/whatif_nodes.h makes them from a simulated
//                          driver profile).
//   taint-devices RULE     a DeviceTaintRule added: its taint on the devices its selector picks
//                          (driver, pool, device), as `kubectl apply` of the rule would.
//   set-class-selectors CLASS  DeviceClass CLASS's spec.selectors replaced (e.g. a narrower model).
//   delete-claim NS/NAME   the ResourceClaim is gone and its devices are free; pods that name it stay
//                          (a pending one then cannot find it).
//   delete-pod NS/NAME     the Pod is gone; it leaves the status.reservedFor of its claims, a claim
//                          reserved by nobody then is deallocated (as the resourceclaim controller
//                          does), and a claim the pod owns (created from its template) is deleted.
//   drain-node NODE        kubectl drain: the node is cordoned (spec.unschedulable) and its pods are
//                          evicted, except DaemonSet pods and mirror pods (kubectl drain skips them)
//                          and terminal ones. An evicted pod becomes pending again, as its controller
//                          would recreate it (no spec.nodeName, status.phase Pending); it leaves
//                          status.reservedFor of its claims, and a claim reserved by nobody then is
//                          deallocated (a template claim too: the replay allocates it again).
//   delete-node NODE       the Node and its node-local ResourceSlices are gone; every non-terminal
//                          pod bound to it becomes pending again as for drain (DaemonSet pods
//                          included: they are gone with the node, and pending ones find no node).
//
// A node is a Node object or, as for Place and Replay, a node that node-local ResourceSlices name:
// add-nodes and delete-node work on such a node (slices only); drain-node needs a Node to cordon.
//
// Edits apply in the order given, each to the result of the previous one. Every edit checks its
// object: a node, pod or claim that does not exist, a count below 1, or a copy whose name is taken
// is an error (InvalidArgument / NotFound) naming the edit and the object.
#ifndef DRAFORGE_ALLOC_WHATIF_EDITS_H_
#define DRAFORGE_ALLOC_WHATIF_EDITS_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "api/device_class.h"
#include "api/device_taint_rule.h"
#include "api/node.h"
#include "api/resource_slice.h"
#include "store/cluster.h"

namespace draforge::alloc {

enum class WhatifEditKind {
  kAddNodes,
  kDeleteClaim,
  kDeletePod,
  kDrainNode,
  kDeleteNode,
  kTaintDevices,
  kSetClassSelectors,
};
// "add-nodes", "delete-claim", "delete-pod", "drain-node", "delete-node", "taint-devices",
// "set-class-selectors".
std::string_view WhatifEditKindName(WhatifEditKind kind);
std::optional<WhatifEditKind> ParseWhatifEditKind(std::string_view name);

struct WhatifEdit {
  WhatifEditKind kind = WhatifEditKind::kDeleteNode;
  // The node (add-nodes: the node copied; drain-node, delete-node), "namespace/name" of the pod or
  // claim (a name without "/" is in namespace "default"), the DeviceClass (set-class-selectors).
  std::string name;
  int64_t count = 0;  // add-nodes: how many copies (>= 1)
  // add-nodes of a template: the Node (not in the snapshot; `name` is its name) and its slices.
  std::optional<api::Node> node_template;
  std::vector<api::ResourceSlice> slice_templates;
  // taint-devices: the rule added.
  std::optional<api::DeviceTaintRule> taint_rule;
  // set-class-selectors: the new spec.selectors.
  std::vector<api::DeviceSelector> selectors;
};

struct WhatifEditResult {
  std::shared_ptr<const store::Snapshot> snapshot;  // the edited copy
  // What each edit did, one sentence per edit in order ("drain-node n1: cordoned; 2 pods pending
  // again (d/a, d/b); 1 claim deallocated (d/c)").
  std::vector<std::string> changes;
};

// Applies `edits` in order to a copy of `snapshot` (not changed). Errors: as listed at the top.
absl::StatusOr<WhatifEditResult> ApplyWhatifEdits(const store::Snapshot& snapshot,
                                                  const std::vector<WhatifEdit>& edits);

// Parses a JSON array of edits: [{"op": "add-nodes", "like": "n1", "count": 2},
// {"op": "add-nodes", "count": 2, "node": {Node}, "slices": [{ResourceSlice}, ...]},
// {"op": "drain-node", "name": "n1"}, {"op": "delete-pod", "name": "ns/p"},
// {"op": "taint-devices", "rule": {DeviceTaintRule}},
// {"op": "set-class-selectors", "name": "gpu", "selectors": [{"cel": {"expression": "..."}}]}, ...].
// Objects are decoded as the API server's objects are. Errors: InvalidArgument naming the entry
// ("edits[1].op: unknown edit \"cordon\"", "edits[0].node.metadata.name: ...").
absl::StatusOr<std::vector<WhatifEdit>> ParseWhatifEdits(std::string_view json);

}  // namespace draforge::alloc

#endif  // DRAFORGE_ALLOC_WHATIF_EDITS_H_
