// Claim-level conflicts: reasons a claim does not fit on a node that no single request's funnel
// shows (two requests that need the same device, shared counters or capacity the requests together
// exceed, a cross-request constraint, clashing compatibility groups). Every check is a necessary
// condition of an allocation, so a conflict found is a true reason; none found proves nothing.
#ifndef DRAFORGE_ALLOC_INTERNAL_CLAIM_CONFLICTS_H_
#define DRAFORGE_ALLOC_INTERNAL_CLAIM_CONFLICTS_H_

#include <functional>
#include <vector>

#include "alloc/allocator.h"
#include "alloc/explain.h"
#include "alloc/features.h"
#include "alloc/internal/explain_views.h"
#include "api/resource_claim.h"

namespace draforge::alloc::internal {

// `compatible` (null without DRADeviceCompatibilityGroups) says whether two devices' compatibility
// groups let them be allocated together.
using PairCheck = std::function<bool(const Candidate*, const Candidate*)>;

// The claim-level conflicts when every request on its own has a usable alternative: those of the
// first choice of alternatives (upstream tries them in order), if every choice has some. At most 64
// choices are looked at; past that the first choice's conflicts stand.
std::vector<ClaimConflict> FindConflicts(const api::ResourceClaim& claim, const std::vector<ReqView>& views,
                                         const std::vector<std::vector<const Candidate*>>& usable,
                                         const std::vector<RequestFunnel>& funnels, const AllocatedState& state,
                                         const Features& features, const PairCheck& compatible);

}  // namespace draforge::alloc::internal

#endif  // DRAFORGE_ALLOC_INTERNAL_CLAIM_CONFLICTS_H_
