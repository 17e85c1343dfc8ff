// The JSON form of a gang placement (alloc/gang.h), as the C ABI's draforge_gang_json returns it
// (include/draforge/place.h documents the schema) and `draforge whatif gang -o json` prints it.
#ifndef DRAFORGE_ALLOC_GANG_JSON_H_
#define DRAFORGE_ALLOC_GANG_JSON_H_

#include <string>

#include "absl/status/statusor.h"
#include "alloc/gang.h"

namespace draforge::alloc {

// {"group","policy","minCount","fits","status","blocking","scheduled":[...],"order":[...],
//  "placed":[{"pod","node","feasible":[...],"claims":[{"claim","existing","results":[...]}]}],
//  "unschedulable":[{"pod","nodes":[{"node","filter","reason"}]}],"notTried":[...],
//  "groupClaims":[{"name","claim","source","existing","allocatedBy","members":[...],"results":[...]}]},
// compact; "results" is status.allocation.devices.results as Kubernetes writes it.
// Errors: Internal when an allocation cannot be encoded.
absl::StatusOr<std::string> GangJson(const GangResult& result);

}  // namespace draforge::alloc

#endif  // DRAFORGE_ALLOC_GANG_JSON_H_
