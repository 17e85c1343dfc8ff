// Defrag advice: for a shape that fits on no node (a pod, a ResourceClaim or a claim template: "one
// whole GPU", "4 GPUs on one node"), the fewest moves that free room for it, each checked by the
// real allocator on the cluster after the moves before it, and the shape finally placed on the room
// freed.
//
// A move is what an operator can do to a running workload: the pods of one consumer group (a bound
// pod with allocated claims, together with every pod that shares one of those claims) are deleted and
// created again, pinned to a node with required node affinity `matchFields: metadata.name In [node]`
// (the DaemonSet controller's way of pinning a pod; no node label is needed). Their claims are
// released as on deletion (a claim reserved by nobody is deallocated, a claim made from the pod's
// template is deleted) and the scheduler allocates them again on the node it is pinned to: the new
// devices are the allocator's first fit there, not chosen by hand. So a move may go to another node,
// or stay on the same node and land on other devices (packing partitions of a GPU together).
// Each move is computed by alloc::Replay on a copy of the cluster that holds the moves before it:
// the pods are placed as kube-scheduler would place them (node filters, resources, DRA).
//
// Search (bounded, deterministic; docs/whatif.md, "Defrag advice"):
//   * the shape is first replayed alone: when it fits, the answer is "no move needed";
//   * else, for k = 1 .. max_moves (fewest moves first), for every node N in name order whose
//     rejection of the shape moves could change (DynamicResources or NodeResourcesFit; not a taint,
//     affinity or cordon), for every set of k consumer groups among the first max_candidates groups
//     with a pod on N (fewest devices first, then by pod name), in lexicographic order:
//       - pruning: with the groups' claims released, the shape's pending claims must fit on N (one
//         alloc::Allocate against the allocated state without them; no copy of the cluster);
//       - the groups move one after the other: each is replayed pinned away from N (NotIn [N]; the
//         first node in name order that fits, as first-fit replay picks it), else pinned to N;
//       - the shape, pinned to N, is replayed last and must be placed.
//     The first set that passes is the answer. Each set tried counts one trial; the search stops at
//     max_trials and says so.
// Pending pods other than the shape hold nothing and are left out of every replay.
#ifndef DRAFORGE_ALLOC_DEFRAG_H_
#define DRAFORGE_ALLOC_DEFRAG_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "alloc/features.h"
#include "alloc/replay.h"
#include "api/object.h"
#include "api/pod.h"
#include "store/cluster.h"

namespace draforge::alloc {

// What to make room for.
struct DefragShape {
  std::string description;  // "pod ns/name", "resourceclaim ns/name", "resourceclaimtemplate ns/name"
  api::Pod pod;             // the pod placed; its claims are in the snapshot or in `objects`
  std::vector<api::Object> objects;  // added to the cluster with it (a claim, a template)
};

// A shape from objects read from a file: the first Pod (with the ResourceClaims and templates next
// to it), else the first ResourceClaim, else the first ResourceClaimTemplate. A claim or template
// becomes a pod "defrag-shape" in its namespace that uses it; a claim is taken without its status.
// Errors: InvalidArgument when there is none of them.
absl::StatusOr<DefragShape> ShapeFromObjects(const std::vector<api::Object>& objects);
// The shape of pod ns/name of `snapshot` (a pending pod). Errors: NotFound.
absl::StatusOr<DefragShape> ShapeFromPod(const store::Snapshot& snapshot, std::string_view ns,
                                         std::string_view name);

struct DefragOptions {
  Features features;
  int max_moves = 3;        // largest number of moves tried (>= 1)
  int max_candidates = 16;  // consumer groups considered per node (>= 1)
  int64_t max_trials = 1000;  // sets of moves tried before giving up (>= 1)
  int64_t max_steps = 0;    // search-step budget per allocation (0: none)
};

struct DefragMove {
  std::vector<std::string> pods;           // "ns/name", rescheduled
  std::vector<std::string> claims;         // their allocated claims before the move
  std::vector<std::string> claims_after;   // after (a template's claim is a new one)
  std::string from_node;
  std::string to_node;
  std::vector<std::string> from_devices;   // "driver/pool/device" before
  std::vector<std::string> to_devices;     // after
};

struct DefragAdvice {
  std::string shape;  // DefragShape::description
  // The shape fits as the cluster is (no move needed): on `shape_node` with `shape_claims`.
  bool fits_now = false;
  // Why the shape fits on no node now (one entry per node, as replay says it); empty when fits_now.
  std::vector<NodeReason> blocked;
  bool found = false;
  std::string node;  // the node where room is made (found)
  std::vector<DefragMove> moves;
  // Where the shape goes (fits_now, or found: after the moves).
  std::string shape_node;
  std::vector<ReplayedClaim> shape_claims;
  // The search.
  int max_moves = 0;
  int max_candidates = 0;
  int64_t max_trials = 0;
  int64_t trials = 0;
  bool budget_exhausted = false;  // max_trials reached before the space was searched
  // Not found: "no set of at most 3 moves among ... frees room (12 sets tried)" or the budget.
  std::string why;
};

// The advice for `shape` on `snapshot` (not changed). Errors: InvalidArgument for options out of
// range, and replay's errors (bad resource lists, priorities, ...).
absl::StatusOr<DefragAdvice> Defrag(const store::Snapshot& snapshot, const DefragShape& shape,
                                    const DefragOptions& options = {});

}  // namespace draforge::alloc

#endif  // DRAFORGE_ALLOC_DEFRAG_H_
