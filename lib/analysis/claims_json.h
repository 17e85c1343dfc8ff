// ResourceClaims as JSON: openapi.json's ClaimList (GET /api/v1/claims), the claim view with its
// state, requests, allocation, consumers and status.
#ifndef DRAFORGE_ANALYSIS_CLAIMS_JSON_H_
#define DRAFORGE_ANALYSIS_CLAIMS_JSON_H_

#include <optional>
#include <string>
#include <string_view>

#include "analysis/claim_state.h"
#include "store/cluster.h"

namespace draforge::analysis {

// {"snapshot":{...},"items":[Claim...]}: the claims of namespace `ns` ("" = every namespace) in
// state `state` (none = any), sorted by (namespace, name). Never fails.
std::string ClaimsJson(const store::Snapshot& snapshot, std::string_view ns = {},
                       std::optional<ClaimState> state = std::nullopt);

}  // namespace draforge::analysis

#endif  // DRAFORGE_ANALYSIS_CLAIMS_JSON_H_
