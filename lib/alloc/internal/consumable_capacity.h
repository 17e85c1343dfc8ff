// Consumable capacity (DRAConsumableCapacity): how much of each device capacity a request consumes,
// and whether it still fits (upstream structured/internal/*/consumable_capacity.go).
#ifndef DRAFORGE_ALLOC_INTERNAL_CONSUMABLE_CAPACITY_H_
#define DRAFORGE_ALLOC_INTERNAL_CONSUMABLE_CAPACITY_H_

#include <optional>

#include "absl/status/statusor.h"
#include "api/map.h"
#include "api/quantity.h"
#include "api/resource_claim.h"
#include "api/resource_slice.h"
#include "alloc/features.h"

namespace draforge::alloc::internal {

// How a request is rounded up to a validRange step.
enum class RangeArithmetic {
  kInteger,          // on Value() integers, the result in the step's format (1.37)
  kFractional,       // exactly, on milli-values where needed (1.37 with DRAFractionalCapacityRange)
  kIntegerBinarySI,  // on Value() integers, the result in BinarySI (1.34 to 1.36)
};
// The arithmetic of `features` (its version and DRAFractionalCapacityRange).
RangeArithmetic CapacityRangeArithmetic(const Features& features);

// The amount consumed from `capacity` for `requested` (null: not requested): requested amounts are
// rounded up by the request policy (validRange: min, then min + k*step; validValues: the smallest
// value >= request); unrequested capacities consume the policy default, else the whole value.
// `arithmetic` says how a step rounds (RangeArithmetic).
// Errors (kInvalidArgument), which abort the whole allocation as upstream does rather than skip
// the device (a user-controlled request must not drive a device-by-device retry): on the integer
// path a request above MaxInt64, or one whose rounding up to the next step passes MaxInt64
// ("capacity request cannot be represented in the device's range arithmetic: ...").
absl::StatusOr<api::Quantity> ConsumedAmount(const api::Quantity* requested, const api::DeviceCapacity& capacity,
                                             RangeArithmetic arithmetic);

// Whether `amount` violates the policy (above max, off-step, not a valid value).
bool ViolatesPolicy(const api::Quantity& amount, const api::CapacityRequestPolicy* policy, RangeArithmetic arithmetic);

enum class CapacityCheck {
  kFits,
  kInsufficient,   // policy violated or not enough left
  kUnknownCapacity,  // the request names a capacity the device does not have: the device is skipped
};

// Upstream CmpRequestOverCapacity: for every capacity of the device, consumed (already allocated,
// may be null) + allocating (this call, may be null) + this request must stay <= value.
// Errors (kInvalidArgument, message starts with `capacity "NAME": `): ConsumedAmount's, and a
// consumed amount that is negative ("capacity value is negative": a stored object from before
// stricter validation). Every capacity is resolved before any soft check, so whether the call
// errors does not depend on map order.
absl::StatusOr<CapacityCheck> CheckCapacity(const api::Map<api::Quantity>* consumed, const api::CapacityRequirements* request,
                            const api::Map<api::DeviceCapacity>& capacity, const api::Map<api::Quantity>* allocating,
                            RangeArithmetic arithmetic);

// The consumedCapacity of a result: every capacity of the device. Errors: ConsumedAmount's (not
// reached after a successful CheckCapacity).
absl::StatusOr<api::Map<api::Quantity>> ConsumedCapacity(const api::CapacityRequirements* request,
                                         const api::Map<api::DeviceCapacity>& capacity, RangeArithmetic arithmetic);

// a += b, key by key.
void AddCapacity(api::Map<api::Quantity>& a, const api::Map<api::Quantity>& b);
// a -= b, key by key.
void SubCapacity(api::Map<api::Quantity>& a, const api::Map<api::Quantity>& b);

}  // namespace draforge::alloc::internal

#endif  // DRAFORGE_ALLOC_INTERNAL_CONSUMABLE_CAPACITY_H_
