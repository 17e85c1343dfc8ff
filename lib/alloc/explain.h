// Explain: why a claim is pending. For each request of a claim, the elimination funnel from every
// published device to the ones usable on a node, with counts per step, the first step that leaves
// too few devices, and a sentence a user understands; and, when every request alone has devices but
// the claim still does not fit, the claim-level conflicts between its requests. Without a node, also
// the verdict on every node: whether the allocator can allocate the claim there and, if not, the
// first reason (kube-scheduler's "0/3 nodes are available", with the reason per node).
#ifndef DRAFORGE_ALLOC_EXPLAIN_H_
#define DRAFORGE_ALLOC_EXPLAIN_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "alloc/allocator.h"
#include "alloc/explain_context.h"
#include "alloc/features.h"
#include "store/cluster.h"

namespace draforge::alloc {

// The funnel steps, in order.
enum class FunnelStep {
  kDriver,       // devices of the drivers the class selects (drivers with a device matching the class)
  kClass,        // matching the class selectors
  kRequest,      // matching the request selectors
  kTaints,       // not tainted, or every NoSchedule/NoExecute taint tolerated
  kAllocated,    // not allocated to another claim (admin access: skipped)
  kCapacity,     // shared counters and consumable capacity left; compatibility groups that admit the
                 // devices allocated on the counter set and, pairwise, those left for the claim's
                 // other requests (and the rest of a count > 1 request)
  kConstraints,  // can take part in the claim's matchAttribute/distinctAttribute constraints
  kNode,         // reachable from the node (node fields, complete and valid pool)
};
// "driver", "class", "request", "taints", "allocated", "capacity", "constraints", "node".
std::string_view FunnelStepName(FunnelStep step);

struct FunnelCount {
  FunnelStep step;
  int64_t remaining = 0;  // devices left after this step
  std::string detail;     // what removed devices ("2 allocated to team-a/train-0")
};

struct RequestFunnel {
  std::string request;  // "req" or "req/sub"
  std::string device_class;
  int64_t needed = 0;   // devices the request needs (All: every matching device, shown as 1)
  bool all_mode = false;
  bool admin_access = false;
  std::vector<FunnelCount> steps;
  // The first step whose result is empty / smaller than `needed` (nullopt: none).
  std::optional<FunnelStep> first_empty;
  std::optional<FunnelStep> first_short;
  // The first CEL error met while evaluating selectors (devices with errors count as not matching).
  std::string first_error;
  // One sentence, e.g. "3 devices match class nvidia-h100, all 3 are allocated to claims
  // team-a/train-0 and team-a/train-1".
  std::string sentence;
};

// What a claim-level conflict is about.
enum class ConflictKind {
  kSameDevice,   // requests that together need more devices than their lists hold (no device goes
                 // to two requests of a claim, adminAccess included)
  kCounters,     // the requests together need more of a shared counter than is left
  kCapacity,     // requests that must all use one shareable device need more capacity than it has left
  kConstraint,   // a matchAttribute/distinctAttribute constraint across requests cannot be met
  kCompatibility,  // DRADeviceCompatibilityGroups: no choice of devices for the requests is compatible
};
// "same-device", "counters", "capacity", "constraint", "compatibility".
std::string_view ConflictKindName(ConflictKind kind);

// A reason the claim does not fit that no single request's funnel shows: each request has usable
// devices, but the claim's requests together cannot be satisfied.
struct ClaimConflict {
  ConflictKind kind;
  std::vector<std::string> requests;  // the requests involved ("req-0", "req-1/sub-0"), in claim order
  // What clashes: a device ID ("gpu.example.com/pool-a/gpu-0"), a counter set ("driver/pool/set")
  // or the constraint's attribute.
  std::string subject;
  // One sentence, e.g. "requests req-0 and req-1 both need device gpu.example.com/pool-a/gpu-0".
  std::string sentence;
};

// Explain looks at no more nodes than this when no node is given; the others are counted, reported
// as not examined (Explanation::nodes_total, NodesTruncated), never silently dropped.
inline constexpr int64_t kMaxExplainNodes = 1000;

// Whether the claim can be allocated on one node, and why not.
struct NodeVerdict {
  std::string node;
  // kAllocated: the claim fits (alloc::Allocate allocates it against the snapshot's allocated state,
  // or, for a claim already allocated, its allocation's nodeSelector selects the node);
  // kUnschedulable: it does not; kError: the allocator failed on this node (bad input).
  Outcome outcome = Outcome::kUnschedulable;
  bool fits() const { return outcome == Outcome::kAllocated; }
  // Empty when it fits; otherwise one sentence: the explain funnel's sentence for the first request
  // that falls short on the node, else the first claim-level conflict, else the allocator's reasons
  // (or its error). Never empty for a node that does not fit.
  std::string reason;
};

struct Explanation {
  std::string claim;  // ns/name
  std::string node;   // empty: no node given (the node step is skipped)
  // The outcome of allocating the claim alone on the node (kUnschedulable without a node).
  Outcome outcome = Outcome::kUnschedulable;
  std::string outcome_detail;  // the error or the reasons
  std::vector<RequestFunnel> requests;
  // Cross-request reasons (only looked for when the claim does not fit on the node).
  std::vector<ClaimConflict> conflicts;
  // Per request sentences and then the conflicts' sentences joined; or "fits on node N" when the claim can be allocated.
  std::string summary;

  // No node given (and ExplainOptions::max_nodes > 0): one verdict per node of alloc::PlacementNodes
  // (the snapshot's Node objects, else the node names of node-local slices), in name order, at most
  // max_nodes of them. Empty with a node.
  std::vector<NodeVerdict> nodes;
  int64_t nodes_total = 0;      // the nodes there are, examined or not
  std::string node_source;      // "nodes" or "slices" (PlacementNodes), "" with a node
  // One sentence over `nodes`, in the scheduler's spirit: "claim default/pair fits on no node (0 of
  // 1): node-1: requests first and second both need device gpu.example.com/node-1/gpu-0" or "claim
  // team-a/c fits on 1 of 3 nodes: node-2"; says when nodes were not examined. Empty with a node.
  std::string nodes_summary;

  // Whether some nodes were not examined (more than max_nodes).
  bool NodesTruncated() const { return nodes_total > static_cast<int64_t>(nodes.size()); }
  // The nodes that fit, in name order.
  std::vector<std::string> FittingNodes() const;
};

// Nodes of `verdicts` that do not fit, grouped by their reason with the node's own name replaced by
// "the node" (so that "0 not reachable from node node-2" and "... node node-3" group), in order of
// each group's first node. The caller owns the result.
struct NodeReasonGroup {
  std::string reason;
  std::vector<std::string> nodes;
};
std::vector<NodeReasonGroup> GroupNodesByReason(const std::vector<NodeVerdict>& verdicts);

// The first blocking reason of an explanation with a node that does not fit, as one sentence
// without the claim's name: the funnel's sentence for the first request whose every alternative falls
// short ("request gpus: 4 devices match class ..., 2 needed"; a firstAvailable request's subrequest
// sentences joined by "; "), else the first claim-level conflict's sentence; "" when neither (the
// caller falls back on the allocator's reasons).
std::string FirstBlockingReason(const Explanation& ex);

struct ExplainOptions {
  Features features;
  // Without a node: how many nodes get a verdict (0: none, only the funnel). See kMaxExplainNodes.
  int64_t max_nodes = kMaxExplainNodes;
  // With a node: the funnel starts from the devices the node can reach (its node-local slices and
  // the devices whose node fields select it), so that each step counts only the node's devices and
  // the first step that falls short says what this node lacks ("1 device tainted ... and not
  // tolerated") rather than "not reachable from node N". Off: the funnel starts from every device
  // of the cluster, as `draforge explain --node` shows it. The per-node verdicts use it.
  bool only_node_devices = false;
  // Built for the same snapshot and features (ExplainContext::Fits; otherwise it is not used): what
  // explanations of many claims share. The results are the same with or without it.
  ExplainContext* context = nullptr;
};

// Explains claim `ns/name` of `snapshot` on `node` (null: no node). With a node, the devices are
// those of the pool generations the allocator uses on that node, the outcome is Allocate's for the
// claim alone, and `conflicts` is filled when it does not fit although no request falls short. The
// result owns all its strings. Without a node, the funnel covers every device whatever its node, no
// conflicts are looked for, and `nodes` holds the per-node verdicts (one Allocate per node examined,
// and one explain with that node per node that does not fit; an allocated claim whose
// status.allocation.nodeSelector does not parse gets an error verdict naming it on every node).
// Errors: NotFound for an unknown claim, InvalidArgument for a claim without spec.devices.
absl::StatusOr<Explanation> Explain(const store::Snapshot& snapshot, std::string_view ns, std::string_view name,
                                    const NodeInfo* node, const Features& features = Features{});
// Same, with the per-node cap of ExplainOptions.
absl::StatusOr<Explanation> Explain(const store::Snapshot& snapshot, std::string_view ns, std::string_view name,
                                    const NodeInfo* node, const ExplainOptions& options);

}  // namespace draforge::alloc

#endif  // DRAFORGE_ALLOC_EXPLAIN_H_
