// The JSON form of fragmentation (alloc/fragmentation.h) and defrag advice (alloc/defrag.h), as the
// C ABI's draforge_fragmentation_json returns it (include/draforge/place.h documents the schema) and
// `draforge whatif fragmentation -o json` prints it.
#ifndef DRAFORGE_ALLOC_FRAGMENTATION_JSON_H_
#define DRAFORGE_ALLOC_FRAGMENTATION_JSON_H_

#include <string>

#include "absl/status/statusor.h"
#include "alloc/defrag.h"
#include "alloc/fragmentation.h"

namespace draforge::alloc {

// {"pools":[{"driver","pool","node","kinds":[KIND],"counters":[{"counterSet","counter","capacity",
//   "consumed","free"}],"capacity":[CAP]}],
//  "nodes":[{"node","kinds":[KIND],"capacity":[CAP]}],
//  "kinds":[{"driver","kind","size","free","fit","largestFit","largestNode","score"}],
//  "skipped":["driver/pool: why"],
//  "advice": ADVICE}   (only with `advice`)
// KIND = {"driver","kind","size","devices","allocated","tainted","free","fit","ideal","score"};
// CAP = {"driver","name","devices","capacity","consumed","free","largest","score"} (quantities as
// strings); ADVICE = {"shape","fitsNow","blocked":[{"node","filter","reason"}],"found","node",
//   "moves":[{"pods","claims","claimsAfter","fromNode","toNode","fromDevices","toDevices"}],
//   "shapeNode","shapeClaims":[{"claim","results":[...]}],"search":{"maxMoves","maxCandidates",
//   "maxTrials","trials","budgetExhausted"},"why"}. Compact.
// Errors: Internal when an allocation cannot be encoded.
absl::StatusOr<std::string> FragmentationJson(const FragmentationReport& report, const DefragAdvice* advice);

}  // namespace draforge::alloc

#endif  // DRAFORGE_ALLOC_FRAGMENTATION_JSON_H_
