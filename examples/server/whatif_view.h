// The what-if routes (/api/v1/whatif/*, examples/server/openapi.json): a checked request turned into
// public library calls on one snapshot (the replay: draforge_whatif_edit, then draforge_replay_json;
// preempt, gang and fragmentation: their JSON calls), within the server's budget. The snapshot is
// never changed: the edits make a new one that lives for the one answer. No HTTP here.
#ifndef DRAFORGE_EXAMPLES_SERVER_WHATIF_VIEW_H_
#define DRAFORGE_EXAMPLES_SERVER_WHATIF_VIEW_H_

#include <string>

#include "draforge/draforge.hpp"
#include "whatif_request.h"

namespace draforge::server {

// The replay of `snapshot` after the request's edits: draforge_replay_json's object, preceded by
// "edits" (one sentence per edit, draforge_whatif_edit's) when there were edits: what `draforge
// whatif replay -o json` prints for the same input, but for "notes" (last) when the server's budget
// left the explain funnel off (pending pods x nodes over limits.max_explained). `snapshot` is not
// changed. Errors:
// DRAFORGE_EINVALID for an edit the snapshot refutes (an unknown node, pod or claim: the library's
// message names the edit), a replay over limits.max_pairs (naming the figures); the library's
// errors otherwise.
Result<std::string> RenderWhatifReplay(const Snapshot& snapshot, const WhatifRequest& request,
                                       const WhatifLimits& limits);

// The answers of `draforge whatif preempt|gang|fragmentation -o json` for the same input, computed
// with the server's step budget. Errors: DRAFORGE_EINVALID for a snapshot over limits.max_pairs (pods
// x nodes); DRAFORGE_ENOTFOUND for a pod or PodGroup (or the Workload, or a claim the group names)
// the snapshot does not have, the library's message naming it; the library's errors otherwise.
Result<std::string> RenderWhatifPreempt(const Snapshot& snapshot, const PreemptRequest& request,
                                        const WhatifLimits& limits);
Result<std::string> RenderWhatifGang(const Snapshot& snapshot, const GangRequest& request, const WhatifLimits& limits);
Result<std::string> RenderWhatifFragmentation(const Snapshot& snapshot, const FragmentationRequest& request,
                                              const WhatifLimits& limits);

}  // namespace draforge::server

#endif  // DRAFORGE_EXAMPLES_SERVER_WHATIF_VIEW_H_
