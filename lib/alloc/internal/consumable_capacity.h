// Consumable capacity (DRAConsumableCapacity): how much of each device capacity a request consumes,
// and whether it still fits (upstream structured/internal/*/consumable_capacity.go).
#ifndef DRAFORGE_ALLOC_INTERNAL_CONSUMABLE_CAPACITY_H_
#define DRAFORGE_ALLOC_INTERNAL_CONSUMABLE_CAPACITY_H_

#include <optional>

#include "api/map.h"
#include "api/quantity.h"
#include "api/resource_claim.h"
#include "api/resource_slice.h"

namespace draforge::alloc::internal {

// The amount consumed from `capacity` for `requested` (null: not requested): requested amounts are
// rounded up by the request policy (validRange: min, then min + k*step; validValues: the smallest
// value >= request); unrequested capacities consume the policy default, else the whole value.
// `fractional` (DRAFractionalCapacityRange) rounds exactly; otherwise on integers, as upstream.
api::Quantity ConsumedAmount(const api::Quantity* requested, const api::DeviceCapacity& capacity, bool fractional);

// Whether `amount` violates the policy (above max, off-step, not a valid value).
bool ViolatesPolicy(const api::Quantity& amount, const api::CapacityRequestPolicy* policy, bool fractional);

enum class CapacityCheck {
  kFits,
  kInsufficient,   // policy violated or not enough left
  kUnknownCapacity,  // the request names a capacity the device does not have: the device is skipped
};

// Upstream CmpRequestOverCapacity: for every capacity of the device, consumed (already allocated,
// may be null) + allocating (this call, may be null) + this request must stay <= value.
CapacityCheck CheckCapacity(const api::Map<api::Quantity>* consumed, const api::CapacityRequirements* request,
                            const api::Map<api::DeviceCapacity>& capacity, const api::Map<api::Quantity>* allocating,
                            bool fractional);

// The consumedCapacity of a result: every capacity of the device.
api::Map<api::Quantity> ConsumedCapacity(const api::CapacityRequirements* request,
                                         const api::Map<api::DeviceCapacity>& capacity, bool fractional);

// a += b, key by key.
void AddCapacity(api::Map<api::Quantity>& a, const api::Map<api::Quantity>& b);
// a -= b, key by key.
void SubCapacity(api::Map<api::Quantity>& a, const api::Map<api::Quantity>& b);

}  // namespace draforge::alloc::internal

#endif  // DRAFORGE_ALLOC_INTERNAL_CONSUMABLE_CAPACITY_H_
