// The what-if route (/api/v1/whatif/replay, examples/server/openapi.json): the request, from GET's
// query or POST's JSON body, checked and turned into public library calls on a copy of one snapshot
// (draforge_whatif_edit, then draforge_replay_json), within the server's budget. The snapshot is
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

}  // namespace draforge::server

#endif  // DRAFORGE_EXAMPLES_SERVER_WHATIF_VIEW_H_
