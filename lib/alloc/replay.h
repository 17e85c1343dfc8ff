// Replay: place a snapshot's pending pods one at a time, as kube-scheduler would, and say which start
// where with which devices and which stay pending, and why.
//
// Pending pods: no spec.nodeName, not terminal (status.phase Succeeded or Failed), not being deleted,
// spec.schedulerName "default-scheduler" or unset. They are placed in the order of kube-scheduler's
// PrioritySort queue: spec.priority descending (unset: 0), then metadata.creationTimestamp ascending
// (upstream uses the time the pod entered the queue; offline, creation is the best stand-in; unset
// sorts first), then "namespace/name".
//
// For each pod, on a working copy of the snapshot that holds every earlier pod's result:
//   * when the nodes are Node objects, each node goes through kube-scheduler's filters in the default
//     profile's order, the first that rejects it giving the reason: NodeUnschedulable,
//     TaintToleration and NodeAffinity (alloc/node_filters.h), then NodeResourcesFit (the pod's
//     requests against allocatable minus the pods bound there, one pod slot: alloc::NodeResources);
//   * the nodes that pass are judged as alloc::Place judges them (DynamicResources: claims resolved as
//     the DRA PreFilter does, allocated claims pin the node, pending ones allocated together with the
//     real allocator); a PreFilter rejection (NodeAffinity's conflicting terms, a claim not found)
//     is every node's reason;
//   * among the nodes that fit, the policy picks one (ReplayPolicy);
//   * the pod is bound (spec.nodeName), its claims get status.allocation and the pod in
//     status.reservedFor, a template's claim not created yet is created as the resourceclaim
//     controller would and recorded in the pod's status.resourceClaimStatuses; then the next pod.
// A pod that fits nowhere stays pending with every node's filter and reason.
// Not considered: preemption, NodePorts, volumes, pod topology spread and inter-pod affinity. Nodes
// named only by ResourceSlices (no Node objects) have no labels, taints or allocatable: only DRA
// is checked on them.
#ifndef DRAFORGE_ALLOC_REPLAY_H_
#define DRAFORGE_ALLOC_REPLAY_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "absl/status/statusor.h"
#include "alloc/features.h"
#include "api/pod.h"
#include "api/resource_claim.h"
#include "store/cluster.h"

namespace draforge::alloc {

// How a pod's node is chosen among the nodes that fit.
enum class ReplayPolicy {
  kFirstFit,        // the first in name order
  kMostAllocated,   // the highest share of the node's devices allocated with the pod placed there
  kLeastAllocated,  // the lowest such share
};
// "first-fit", "most-allocated", "least-allocated".
std::string_view ReplayPolicyName(ReplayPolicy policy);
std::optional<ReplayPolicy> ParseReplayPolicy(std::string_view name);

struct ReplayOptions {
  Features features;
  ReplayPolicy policy = ReplayPolicy::kFirstFit;
  // Search-step budget per node and pod (0: no limit).
  int64_t max_steps = 0;
  // Compute the funnel's sentence for nodes whose devices do not fit (PlaceOptions::explain).
  bool explain = true;
};

struct ReplayedClaim {
  std::string claim;      // "namespace/name"
  bool existing = false;  // allocated before the replay reached the pod
  api::AllocationResult allocation;
};

struct ReplayedPod {
  std::string pod;  // "namespace/name"
  std::string node;
  std::vector<ReplayedClaim> claims;
  // Every node the pod fits on at its turn, in name order (the policy chose `node` among them): the
  // nodes kube-scheduler's filters and DynamicResources would all pass, whatever its scoring picks.
  std::vector<std::string> feasible;
};

struct NodeReason {
  std::string node;
  // The kube-scheduler plugin that rejected the node: "NodeUnschedulable", "TaintToleration",
  // "NodeAffinity", "NodeResourcesFit" or "DynamicResources".
  std::string filter;
  // The plugin's words and detail ("node(s) had untolerated taint(s): dedicated=gpu:NoSchedule",
  // "cpu: 10 requested, 6 free (allocatable 64)", Place's sentence for DynamicResources).
  std::string reason;
};

struct PendingPod {
  std::string pod;
  std::vector<NodeReason> nodes;  // every node, sorted by name
};

struct ReplayResult {
  ReplayPolicy policy = ReplayPolicy::kFirstFit;
  std::vector<std::string> order;  // the pending pods' keys, in queue order
  std::vector<ReplayedPod> placed;  // in queue order
  std::vector<PendingPod> pending;  // in queue order
  // The cluster after the replay: the input with every placed pod bound (spec.nodeName), its claims
  // allocated and reserved for it, the claims of its templates created.
  std::shared_ptr<const store::Snapshot> after;
};

// Whether `pod` is one replay places: no spec.nodeName, not terminal, not being deleted, scheduled
// by the default scheduler (the list at the top of this file).
bool IsPendingPod(const api::Pod& pod);
// spec.priority of `pod` (unset: 0), as corev1helpers.PodPriority reads it. Errors: InvalidArgument
// naming the pod for a value that is not an integer.
absl::StatusOr<int64_t> PodPriority(const api::Pod& pod);

// A new store holding the objects of `snapshot` that replay reads (device classes, claims,
// templates, slices, taint rules, pods, nodes): the working copy a what-if changes.
std::unique_ptr<store::Cluster> WorkingCopy(const store::Snapshot& snapshot);

// The pending pods of `snapshot` in queue order. Errors: InvalidArgument naming the pod for a
// spec.priority that is not an integer or a metadata.creationTimestamp that is not RFC 3339.
absl::StatusOr<std::vector<const api::Pod*>> ReplayQueue(const store::Snapshot& snapshot);

// Replay's machinery one pod at a time, for callers that choose the pods (gang placement): a working
// copy of a snapshot, each Place() judging one pod on it exactly as Replay does and committing it
// when it fits. Replay() is Start() then Place() for each pod of ReplayQueue().
class ReplayStep {
 public:
  // Errors: InvalidArgument for a bad resource list or node filter field in a Node (named).
  static absl::StatusOr<std::unique_ptr<ReplayStep>> Start(const store::Snapshot& snapshot,
                                                           const ReplayOptions& options);
  ~ReplayStep();

  // Places pod ns/name of the working copy: a ReplayedPod when a node fits (the pod is bound there
  // and its claims allocated and reserved in the working copy), else a PendingPod with every node's
  // reason. Errors: NotFound for a pod not in the working copy; InvalidArgument as Replay.
  absl::StatusOr<std::variant<ReplayedPod, PendingPod>> Place(std::string_view ns, std::string_view name);

  // The working copy: objects applied here (a claim created, a pod's status) are seen by the next
  // Place(). Nodes' free resources are counted once, at Start(), plus what Place() takes.
  store::Cluster& working();

 private:
  struct State;
  explicit ReplayStep(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

// Replays the pending pods of `snapshot` (which is not changed). Errors: InvalidArgument as
// ReplayQueue, and for a bad resource list in a Node or Pod (naming the object).
absl::StatusOr<ReplayResult> Replay(const store::Snapshot& snapshot, const ReplayOptions& options = {});

}  // namespace draforge::alloc

#endif  // DRAFORGE_ALLOC_REPLAY_H_
