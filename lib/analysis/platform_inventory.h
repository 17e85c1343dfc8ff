// The inventory fields a GPU platform reports, from observed state only: ResourceSlices (what
// drivers publish) and ResourceClaim.status (what the scheduler allocated), never from specs or
// intent (a pending claim's requests, a pod's wishes).
//
//   totalGpuAllocatable  devices the allocator can hand out now: devices of complete, valid pools
//                        (current generation) without a NoSchedule/NoExecute taint, allocated or not.
//                        Every driver counts ("GPU" is the platform's word for a DRA device).
//   draClaimCount        ResourceClaims
//   draAllocatedClaims   ResourceClaims with status.allocation
//   draAllocatedDevices  devices held by allocations: cluster-wide, distinct devices in use
//                        (admin-access results excluded, a shared device once); per namespace, the
//                        allocation results of its claims (admin-access excluded)
//   draResourceSlices    ResourceSlices (every generation)
//   draDevices           devices of the pools' current generation
// Per namespace: the claim fields (slices and devices are cluster-scoped; their fields are 0).
#ifndef DRAFORGE_ANALYSIS_PLATFORM_INVENTORY_H_
#define DRAFORGE_ANALYSIS_PLATFORM_INVENTORY_H_

#include <cstdint>
#include <map>
#include <string>

#include "store/cluster.h"

namespace draforge::analysis {

struct PlatformInventoryFields {
  int64_t total_gpu_allocatable = 0;
  int64_t dra_claim_count = 0;
  int64_t dra_allocated_claims = 0;
  int64_t dra_allocated_devices = 0;
  int64_t dra_resource_slices = 0;
  int64_t dra_devices = 0;
};

struct PlatformInventory {
  PlatformInventoryFields cluster;
  std::map<std::string, PlatformInventoryFields> namespaces;  // every namespace with a claim
};

PlatformInventory ReadPlatformInventory(const store::Snapshot& snapshot);

// {"totalGpuAllocatable",...,"namespaces":{"ns":{"draClaimCount","draAllocatedClaims",
// "draAllocatedDevices"}}}, compact.
std::string PlatformInventoryJson(const PlatformInventory& inventory);

}  // namespace draforge::analysis

#endif  // DRAFORGE_ANALYSIS_PLATFORM_INVENTORY_H_
