// The JSON form of a preemption what-if (alloc/preemption.h), as the C ABI's
// draforge_whatif_preempt_json returns it (include/draforge/place.h documents the schema) and
// `draforge whatif preempt -o json` prints it.
#ifndef DRAFORGE_ALLOC_PREEMPTION_JSON_H_
#define DRAFORGE_ALLOC_PREEMPTION_JSON_H_

#include <string>

#include "alloc/preemption.h"

namespace draforge::alloc {

// {"pod","priority","outcome","draAware","message","node","decidedBy","pdbViolations",
//  "victims":[VICTIM],"candidates":[{"node","pdbViolations","victims":[VICTIM]}],
//  "fittingNodes":[...],"nodes":[{"node","filter","reason"}]}, compact, where VICTIM is
// {"pod","priority","startTime","claimsFreed":[...],"claimsKept":[...],"pdbViolated"}; "node",
// "decidedBy", "startTime" and "pdbViolated" are "" when unset.
std::string PreemptionJson(const PreemptionResult& result);

}  // namespace draforge::alloc

#endif  // DRAFORGE_ALLOC_PREEMPTION_JSON_H_
