// The changes between two snapshots as JSON: openapi.json's ChangeEvent (the data of the server's
// `change` Server-Sent Event).
#ifndef DRAFORGE_ANALYSIS_CHANGE_EVENT_JSON_H_
#define DRAFORGE_ANALYSIS_CHANGE_EVENT_JSON_H_

#include <string>
#include <vector>

#include "analysis/snapshot_changes.h"
#include "store/cluster.h"

namespace draforge::analysis {

// {"generation":G,"resourceVersion":"...","previousGeneration":P,"changes":[{"type","kind",
// "namespace","name"}...]} with G and resourceVersion of `after`, P the generation of `before`.
std::string ChangeEventJson(const store::Snapshot& before, const store::Snapshot& after,
                            const std::vector<ObjectChange>& changes);

}  // namespace draforge::analysis

#endif  // DRAFORGE_ANALYSIS_CHANGE_EVENT_JSON_H_
