// The JSON forms of placement's results (alloc/placement.h), as the C ABI's draforge_place_pod_json
// and draforge_how_many_more_json return them (include/draforge/place.h documents the schemas) and
// `draforge place -o json` prints them.
#ifndef DRAFORGE_ALLOC_PLACEMENT_JSON_H_
#define DRAFORGE_ALLOC_PLACEMENT_JSON_H_

#include <string>

#include "absl/status/statusor.h"
#include "alloc/placement.h"

namespace draforge::alloc {

// {"pod","nodeSource","claims":[...],"unresolvable":[...],"fittingNodes":[...],"nodes":[...]}, compact.
// Errors: Internal when an allocation cannot be encoded.
absl::StatusOr<std::string> PodPlacementJson(const PodPlacement& placement);

// {"prototype","total","cap","stop",("error","errorNode"),("resourcesChecked": pod prototypes),
// ("quota":{"quotas","units","why"}: with options.quota),"nodes":[{"node","count","reasons","why",
// ("limitedBy": pod prototypes)}],"copies":[...]}, compact.
// Errors: Internal when a copy's allocation cannot be encoded.
absl::StatusOr<std::string> HowManyMoreJson(const HowManyMoreResult& result);

}  // namespace draforge::alloc

#endif  // DRAFORGE_ALLOC_PLACEMENT_JSON_H_
