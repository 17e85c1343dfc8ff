// The JSON form of a replay (alloc/replay.h), as the C ABI's draforge_replay_json returns it
// (include/draforge/place.h documents the schema) and `draforge whatif replay -o json` prints it.
#ifndef DRAFORGE_ALLOC_REPLAY_JSON_H_
#define DRAFORGE_ALLOC_REPLAY_JSON_H_

#include <string>

#include "absl/status/statusor.h"
#include "alloc/replay.h"

namespace draforge::alloc {

// {"policy","order":[...],"placed":[{"pod","node","claims":[{"claim","existing","results":[...]}]}],
//  "pending":[{"pod","nodes":[{"node","reason"}]}]}, compact; "results" is the allocation's
// status.allocation.devices.results as Kubernetes writes it.
// Errors: Internal when an allocation cannot be encoded.
absl::StatusOr<std::string> ReplayJson(const ReplayResult& result);

}  // namespace draforge::alloc

#endif  // DRAFORGE_ALLOC_REPLAY_JSON_H_
