// The what-if route (/api/v1/whatif/replay, examples/server/openapi.json): the request, from GET's
// query or POST's JSON body, checked and turned into public library calls on a copy of one snapshot
// (draforge_whatif_edit, then draforge_replay_json), within the server's budget. The snapshot is
// never changed: the edits make a new one that lives for the one answer. No HTTP here.
#ifndef DRAFORGE_EXAMPLES_SERVER_WHATIF_VIEW_H_
#define DRAFORGE_EXAMPLES_SERVER_WHATIF_VIEW_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "api_views.h"
#include "draforge/draforge.hpp"

namespace draforge::server {

// What one what-if may cost. A replay judges every pending pod on every node, so its work grows
// with pods x nodes and, per pair, with the allocator's search: both are capped so that one request
// cannot hold a work thread for long.
struct WhatifLimits {
  // Allocator search steps per pod and node (draforge_allocate_options.max_steps); a node that
  // needs more is reported as not fitting with the allocator's "max steps" error as its reason.
  int64_t max_steps = 100000;
  // Pods x nodes of the snapshot the replay runs on (after the edits); more is refused (400).
  int64_t max_pairs = 1000000;
  // Nodes all add-nodes edits of one request may add together.
  int64_t max_added_nodes = 1000;
  size_t max_edits = 100;
  // Nesting of arrays and objects in a POST body (the documented body nests 3 deep).
  int max_depth = 8;
};

struct WhatifRequest {
  std::string policy = "first-fit";  // "first-fit", "most-allocated" or "least-allocated"
  bool explain = true;               // draforge_replay_options.explain
  std::string edits_json;            // draforge_whatif_edit's JSON array; "" for no edits
};

// GET's query: policy and explain (true|false). Errors: DRAFORGE_EINVALID naming the parameter.
Result<WhatifRequest> ParseWhatifQuery(const Query& query);

// POST's body: {"policy": "...", "explain": bool, "edits": [...]} (every field optional). Errors:
// DRAFORGE_EINVALID whose message starts with the field it is about ("body: ..." for JSON that does
// not parse or nests deeper than limits.max_depth, "policy: ...", "edits: ...", "edits[2]: ...").
Result<WhatifRequest> ParseWhatifBody(std::string_view body, const WhatifLimits& limits);

// The replay of `snapshot` after the request's edits: draforge_replay_json's object, preceded by
// "edits" (one sentence per edit, draforge_whatif_edit's) when there were edits: what `draforge
// whatif replay -o json` prints for the same input. `snapshot` is not changed. Errors:
// DRAFORGE_EINVALID for an edit the snapshot refutes (an unknown node, pod or claim: the library's
// message names the edit), a replay over limits.max_pairs (naming the figures); the library's
// errors otherwise.
Result<std::string> RenderWhatifReplay(const Snapshot& snapshot, const WhatifRequest& request,
                                       const WhatifLimits& limits);

}  // namespace draforge::server

#endif  // DRAFORGE_EXAMPLES_SERVER_WHATIF_VIEW_H_
