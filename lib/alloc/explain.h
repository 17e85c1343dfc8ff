// Explain: why a claim is pending. For each request of a claim, the elimination funnel from every
// published device to the ones usable on a node, with counts per step, the first step that leaves
// too few devices, and a sentence a user understands; and, when every request alone has devices but
// the claim still does not fit, the claim-level conflicts between its requests.
#ifndef DRAFORGE_ALLOC_EXPLAIN_H_
#define DRAFORGE_ALLOC_EXPLAIN_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "alloc/allocator.h"
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
};

// Explains claim `ns/name` of `snapshot` on `node` (null: no node). With a node, the devices are
// those of the pool generations the allocator uses on that node, the outcome is Allocate's for the
// claim alone, and `conflicts` is filled when it does not fit although no request falls short. The
// result owns all its strings. Errors: NotFound for an unknown claim, InvalidArgument for a claim
// without spec.devices.
absl::StatusOr<Explanation> Explain(const store::Snapshot& snapshot, std::string_view ns, std::string_view name,
                                    const NodeInfo* node, const Features& features = Features{});

}  // namespace draforge::alloc

#endif  // DRAFORGE_ALLOC_EXPLAIN_H_
