// The DRA structured allocator with kube-scheduler's semantics (k8s.io/dynamic-resource-allocation
// structured/, the "incubating"/"experimental" variants of Kubernetes 1.37).
//
// Allocate() takes a store::Snapshot (slices, classes, taint rules, already-allocated claims), the
// claims of one pod (allocated together: all or none), a candidate node and the feature gates, and
// returns one of three outcomes, kept apart:
//   * kAllocated: one api::AllocationResult per claim, built exactly as upstream builds it;
//   * kUnschedulable: the claims do not fit on this node (a result with reasons, not an error);
//   * kError: bad input (a CEL runtime error, a missing DeviceClass, more than 32 results, ...), as an
//     absl::Status naming the object and field. Upstream aborts the whole scheduling attempt then.
//
// Search order is upstream's first-fit depth-first search: claims in order, requests in order,
// firstAvailable subrequests in order, pools sorted by (driver, pool), slices by name, devices in
// slice order, pools with binding conditions last, combinations (not permutations) within a
// request. Where several answers are valid, the one kube-scheduler picks is returned.
//
// The alpha gates of 1.37 work as in upstream's experimental variant (which the scheduler runs as
// soon as one of them, or DRAListTypeAttributes, is on; see Features::ExperimentalAllocator):
//   * DRADeviceCompatibilityGroups: devices on one counter set only go together when their
//     compatibilityGroups intersect (internal/compatibility_groups.h); gate off: slices declaring
//     groups are ignored, which leaves their pool incomplete;
//   * DRADerivedAttributes: a request's derivedAttributes (CEL) shadow device attributes in its
//     constraints; CEL errors abort the allocation; gate off: such a request is an error
//     (internal/derived_attributes.h);
//   * DRAOptionalNodeOperations: devices of slices with skipNodeOperations only for nodes that
//     declare the feature (NodeInfo::declared_features); results carry the slice's list
//     (internal/optional_node_operations.h).
//
// Differences from upstream, all on purpose (DESIGN: follow the fixes, notes §3.16):
//   * shareIDs are deterministic (see ShareIdFor), upstream's are random UUIDs;
//   * distinctAttribute compares every device of the constraint, not the last per request (Q9);
//   * counter reservations are released when a later check rejects the device (Q6);
//   * `All` over consumable-capacity devices fails when a matching device has too little capacity
//     left, instead of silently skipping it (Q8, kubernetes PR #140769);
//   * list-type matchAttribute restores the intersection on backtracking (Q10);
//   * available counters are keyed per (driver, pool), not per pool name.
#ifndef DRAFORGE_ALLOC_ALLOCATOR_H_
#define DRAFORGE_ALLOC_ALLOCATOR_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "alloc/features.h"
#include "api/map.h"
#include "api/node.h"
#include "api/quantity.h"
#include "api/resource_claim.h"
#include "rapidjson/document.h"
#include "store/cluster.h"

namespace draforge::alloc {

// The node to allocate for: its name and labels are all node selectors look at; the features it
// declares (Node.status.declaredFeatures) decide whether devices of slices with skipNodeOperations
// may be allocated for it (DRAOptionalNodeOperations).
struct NodeInfo {
  std::string name;
  api::Map<std::string> labels;
  // Node.status.declaredFeatures. nullopt: not given; the allocator then reads them from the
  // snapshot's Node of that name (none: no feature declared), so that callers that only know a
  // node's name and labels still get kube-scheduler's answer.
  std::optional<std::vector<std::string>> declared_features = std::nullopt;

  // Name, labels and status.declaredFeatures of `node` (declared_features always set). A status that
  // is not a JSON object, or a declaredFeatures that is not a list of strings, declares nothing (the
  // API server never stores such a node).
  static NodeInfo FromNode(const api::Node& node);
};

// A device: DeviceID{driver, pool, device}, as upstream names it.
struct DeviceID {
  std::string driver;
  std::string pool;
  std::string device;

  // "driver/pool/device", upstream's DeviceID.String().
  std::string String() const;
  friend bool operator==(const DeviceID&, const DeviceID&) = default;
  template <typename H>
  friend H AbslHashValue(H h, const DeviceID& id) {
    return H::combine(std::move(h), id.driver, id.pool, id.device);
  }
};

struct SharedDeviceID {
  DeviceID device;
  std::string share_id;
  friend bool operator==(const SharedDeviceID&, const SharedDeviceID&) = default;
  template <typename H>
  friend H AbslHashValue(H h, const SharedDeviceID& id) {
    return H::combine(std::move(h), id.device, id.share_id);
  }
};

// What is already allocated (upstream's schedulerapi.AllocatedState): the contract with callers
// that track in-flight allocations themselves (an autoscaler, a simulator).
struct AllocatedState {
  // Devices used exclusively (results without adminAccess and without a shareID).
  absl::flat_hash_set<DeviceID> allocated_devices;
  // Shares of consumable-capacity devices (results with a shareID).
  absl::flat_hash_set<SharedDeviceID> allocated_shared_devices;
  // Sum of consumedCapacity per shared device.
  absl::flat_hash_map<DeviceID, api::Map<api::Quantity>> aggregated_capacity;

  // Adds the results of one allocation, as the scheduler's foreachAllocatedDevice does: adminAccess
  // results are not counted.
  void Add(const api::AllocationResult& allocation);
  // Whether the device counts as allocated for shared counters (exclusive, shared or capacity).
  bool IsDeviceAllocated(const DeviceID& id) const;
  // Whether the device is in use by a result that excludes every other allocation of it: a
  // dedicated result, or with DRAConsumableCapacity off a shared one too (the scheduler then lists
  // shared results as dedicated devices, ListAllAllocatedDevices).
  bool IsAllocatedExclusively(const DeviceID& id, const Features& features) const {
    return allocated_devices.contains(id) || (!features.consumable_capacity && aggregated_capacity.contains(id));
  }
};

// The state of every claim in `snapshot` that has status.allocation, except the claims in
// `exclude` (the claims being allocated: re-allocating a claim ignores its old result).
AllocatedState AllocatedStateFromSnapshot(const store::Snapshot& snapshot,
                                          const std::vector<const api::ResourceClaim*>& exclude = {});

// Computes the shareID of a consumable-capacity result. Arguments: the claim, the request name
// ("req" or "req/sub"), the device, and the result's index in the claim's results.
using ShareIdGenerator = std::function<std::string(const api::ResourceClaim& claim, std::string_view request,
                                                   const DeviceID& device, int result_index)>;

// The default generator: a version-8 (RFC 9562 "custom") UUID derived from a 128-bit FNV-1a hash
// of (claim namespace, claim name, claim uid, request, driver, pool, device, result index).
// Upstream calls uuid.NewUUID() (a random/time-based UUID); compare results modulo shareID.
std::string ShareIdFor(const api::ResourceClaim& claim, std::string_view request, const DeviceID& device,
                       int result_index);

struct AllocateOptions {
  Features features;
  // The state to allocate against; null: AllocatedStateFromSnapshot(snapshot, claims).
  const AllocatedState* allocated_state = nullptr;
  // null: ShareIdFor.
  ShareIdGenerator share_id;
  // Aborts the search with DeadlineExceeded "filter operation aborted: ..." after this many search
  // steps (0: no limit): the deterministic analogue of kube-scheduler's filter timeout.
  int64_t max_steps = 0;
  // Skips parts of the search that provably cannot succeed: a device interchangeable with one that
  // already failed at the same search position (same pool, same answer from every selector and
  // constraint of the pod, same capacity, counters, taints and allocation state), and positions
  // where fewer candidate devices are left than the request still needs. The outcome, the devices
  // chosen and any error are the same either way; only search_steps is lower (and max_steps is
  // reached later). false: upstream's search, step for step (search_steps equals its
  // numAllocateOneInvocations).
  bool prune_search = true;
};

enum class Outcome { kAllocated, kUnschedulable, kError };
// "allocated", "unschedulable", "error".
std::string_view OutcomeName(Outcome outcome);

struct AllocateResult {
  Outcome outcome = Outcome::kUnschedulable;
  // kAllocated: one entry per claim, in the order the claims were given.
  std::vector<api::AllocationResult> allocations;
  // kUnschedulable: why, in kube-scheduler's words first ("cannot allocate all claims", or
  // "invalid resource pools were encountered" when invalid pools were seen: upstream's node-local
  // ErrFailedAllocationOnNode), then the reasons of invalid pools ("pool driver/pool: duplicate
  // device name gpu-0").
  std::vector<std::string> reasons;
  // True when the failure is upstream's ErrFailedAllocationOnNode (invalid pools).
  bool invalid_pools = false;
  // kError: the error.
  absl::Status error;
  // Deterministic work counter: calls of the search step (upstream's numAllocateOneInvocations;
  // fewer with AllocateOptions::prune_search).
  int64_t search_steps = 0;
};

// Allocates `claims` (not owned; each needs spec.devices) on `node`. Never throws, never aborts on
// input. The snapshot must outlive the call only.
AllocateResult Allocate(const store::Snapshot& snapshot, const std::vector<const api::ResourceClaim*>& claims,
                        const NodeInfo& node, const AllocateOptions& options = {});

// A reusable allocator for one snapshot: compiled CEL selectors, and what each selector said about
// each device, are cached across calls (upstream caches only the compiled programs; the objects of
// a snapshot never change, so a result computed once holds for every pod and node). Keep one
// Allocator per snapshot rather than one per pod. Memory grows with the distinct selector
// expressions used times the devices they were evaluated on (a byte or two of payload per pair).
// Thread-safe.
class Allocator {
 public:
  Allocator(std::shared_ptr<const store::Snapshot> snapshot, AllocateOptions options);
  ~Allocator();
  AllocateResult Allocate(const std::vector<const api::ResourceClaim*>& claims, const NodeInfo& node) const;
  const store::Snapshot& snapshot() const { return *snapshot_; }

 private:
  struct Cache;
  std::shared_ptr<const store::Snapshot> snapshot_;
  AllocateOptions options_;
  std::unique_ptr<Cache> cache_;
};

// status.allocation as Kubernetes writes it (resource.k8s.io/v1 JSON).
absl::StatusOr<rapidjson::Document> EncodeAllocationResult(const api::AllocationResult& allocation);

// Devices that a `store::Snapshot` user may want to describe: DeviceID of a result.
DeviceID ResultDeviceID(const api::DeviceRequestAllocationResult& result);

}  // namespace draforge::alloc

#endif  // DRAFORGE_ALLOC_ALLOCATOR_H_
