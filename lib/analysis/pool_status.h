// Pool availability as KEP-5677 defines it: the status kube-controller-manager's
// resourcepoolstatusrequest controller (k8s.io/kubernetes v1.37, gate DRAResourcePoolStatus) writes
// into a resource.k8s.io/v1alpha3 ResourcePoolStatusRequest, computed from a snapshot.
//
// Counted as upstream counts (docs/pool-availability.md has the rules and their reasons):
// - Pools: the slices of spec.driver (and spec.poolName when set) at each pool's highest
//   generation. A pool with fewer slices there than spec.pool.resourceSliceCount is incomplete: it
//   gets a "PoolIncomplete:" validationError and no counts.
// - totalDevices: devices of those slices. unavailableDevices: devices with a NoSchedule or
//   NoExecute taint, from the slice or from a DeviceTaintRule selecting them. allocatedDevices:
//   distinct device names of the pool named by an allocation result without adminAccess (of any
//   claim, whether or not the device is still published). availableDevices: total - allocated -
//   unavailable, never below 0 (an allocated tainted device is subtracted twice, as upstream does).
// - partitionSummary: counter-consuming devices grouped by (partition type attribute, its value);
//   the attribute is the slice's spec.partitionTypeAttribute, or spec.defaultPartitionTypeAttribute
//   when no slice of the pool declares one. allocatable = how many unallocated devices of the group
//   still fit, one after the other, into the shared counters left by the allocated devices.
// - shareableSummary: devices with allowMultipleAllocations; capacity sums per name, consumed sums
//   the results' consumedCapacity, available = total - consumed, never below 0.
// - Structural problems of the views give a prefixed validationError (PartitionTypeMissing,
//   PartitionCostMismatch, PartitionSummaryOverCap, ShareableSummaryOverCap); counts stay.
// - Pools sorted by (driver, pool); poolCount counts them all, pools holds the first spec.limit
//   (default 100); one condition Complete=True, reason CalculationComplete.
#ifndef DRAFORGE_ANALYSIS_POOL_STATUS_H_
#define DRAFORGE_ANALYSIS_POOL_STATUS_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "api/meta.h"
#include "api/resource_pool_status_request.h"
#include "store/cluster.h"

namespace draforge::analysis {

// spec.limit when unset, and its largest valid value (k8s.io/api resource/v1alpha3).
inline constexpr int64_t kPoolStatusLimitDefault = 100;
inline constexpr int64_t kPoolStatusLimitMax = 1000;
// validationError is at most this many bytes (upstream truncates longer messages).
inline constexpr size_t kPoolValidationErrorMaxBytes = 256;
// The prefix of the one transient validationError: upstream writes no status while a pool it
// reports is incomplete, and retries.
inline constexpr std::string_view kPoolIncompletePrefix = "PoolIncomplete:";

// The status upstream's controller computes for `spec` over `snapshot`. `now` becomes the
// condition's lastTransitionTime (RFC 3339). Pure and deterministic; never fails (a limit below 0
// is taken as 0; the API server rejects limits outside [1, kPoolStatusLimitMax]).
api::ResourcePoolStatusRequestStatus ComputePoolStatus(const store::Snapshot& snapshot,
                                                       const api::ResourcePoolStatusRequestSpec& spec,
                                                       const api::Time& now);

// Whether a pool of `status` is incomplete: upstream's controller then does not write the status
// (it retries while the driver publishes its slices).
bool HasIncompletePool(const api::ResourcePoolStatusRequestStatus& status);

}  // namespace draforge::analysis

#endif  // DRAFORGE_ANALYSIS_POOL_STATUS_H_
