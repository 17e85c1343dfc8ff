// The what-if route's request (/api/v1/whatif/replay, examples/server/openapi.json): GET's query or
// POST's JSON body, checked and bounded before any library call (whatif_view.h makes them). Depends
// on RapidJSON and the header-only draforge::Result alone, so that tests/fuzz/whatif_body_fuzz.cc
// fuzzes it without the library.
#ifndef DRAFORGE_EXAMPLES_SERVER_WHATIF_REQUEST_H_
#define DRAFORGE_EXAMPLES_SERVER_WHATIF_REQUEST_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "draforge/cpp/result.hpp"

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
  // Pending pods x nodes whose reasons a replay explains with the explain funnel's sentences (about
  // a millisecond each, against microseconds for the rest of a replay); more: the allocator's
  // reasons, and a note says so.
  int64_t max_explained = 20000;
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
Result<WhatifRequest> ParseWhatifQuery(const std::multimap<std::string, std::string>& query);

// POST's body: {"policy": "...", "explain": bool, "edits": [...]} (every field optional). Errors:
// DRAFORGE_EINVALID whose message starts with the field it is about ("body: ..." for JSON that does
// not parse or nests deeper than limits.max_depth, "policy: ...", "edits: ...", "edits[2]: ...").
Result<WhatifRequest> ParseWhatifBody(std::string_view body, const WhatifLimits& limits);

}  // namespace draforge::server

#endif  // DRAFORGE_EXAMPLES_SERVER_WHATIF_REQUEST_H_
