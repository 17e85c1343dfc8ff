// The lifecycle state of a ResourceClaim as an operator reads it.
#ifndef DRAFORGE_ANALYSIS_CLAIM_STATE_H_
#define DRAFORGE_ANALYSIS_CLAIM_STATE_H_

#include <optional>
#include <string_view>

#include "api/resource_claim.h"

namespace draforge::analysis {

enum class ClaimState {
  kPending,    // no status.allocation: the scheduler (or a controller) has not allocated it yet
  kAllocated,  // status.allocation set, status.reservedFor empty: allocated but no consumer holds it
  kReserved,   // allocated and reserved for at least one consumer (a pod, usually)
};

// "pending", "allocated", "reserved".
std::string_view ClaimStateName(ClaimState state);

// The state spelled as ClaimStateName spells it, or nullopt.
std::optional<ClaimState> ParseClaimState(std::string_view name);

// The claim's state, from its status alone. A claim with reservedFor but no allocation (which the
// API server's validation forbids) is kPending; FindAnomalies reports it.
ClaimState StateOf(const api::ResourceClaim& claim);

}  // namespace draforge::analysis

#endif  // DRAFORGE_ANALYSIS_CLAIM_STATE_H_
