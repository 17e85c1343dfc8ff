#include "analysis/claim_state.h"

namespace draforge::analysis {

std::string_view ClaimStateName(ClaimState state) {
  switch (state) {
    case ClaimState::kPending:
      return "pending";
    case ClaimState::kAllocated:
      return "allocated";
    case ClaimState::kReserved:
      return "reserved";
  }
  return "pending";
}

std::optional<ClaimState> ParseClaimState(std::string_view name) {
  for (ClaimState s : {ClaimState::kPending, ClaimState::kAllocated, ClaimState::kReserved}) {
    if (ClaimStateName(s) == name) return s;
  }
  return std::nullopt;
}

ClaimState StateOf(const api::ResourceClaim& claim) {
  if (!claim.status || !claim.status->allocation) return ClaimState::kPending;
  return claim.status->reserved_for.empty() ? ClaimState::kAllocated : ClaimState::kReserved;
}

}  // namespace draforge::analysis
