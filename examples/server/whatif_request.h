// The what-if routes' requests (/api/v1/whatif/*, examples/server/openapi.json): the replay's GET
// query or POST JSON body, and the GET queries of preempt, gang and fragmentation, checked and
// bounded before any library call (whatif_view.h makes them). Depends on RapidJSON, the header-only
// draforge::Result and query_params.h alone, so that tests/fuzz/whatif_body_fuzz.cc fuzzes it
// without the library.
#ifndef DRAFORGE_EXAMPLES_SERVER_WHATIF_REQUEST_H_
#define DRAFORGE_EXAMPLES_SERVER_WHATIF_REQUEST_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "draforge/cpp/result.hpp"
#include "query_params.h"

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
  // The most a fragmentation query may ask of the defrag search (each trial replays the shape on
  // the cluster after a set of moves): maxMoves, maxCandidates and maxTrials above these are 400.
  int max_defrag_moves = 5;
  int max_defrag_candidates = 64;
  int64_t max_defrag_trials = 10000;
};

struct WhatifRequest {
  std::string policy = "first-fit";  // "first-fit", "most-allocated" or "least-allocated"
  bool explain = true;               // draforge_replay_options.explain
  std::string edits_json;            // draforge_whatif_edit's JSON array; "" for no edits
};

// GET's query: policy and explain (true|false). Errors: DRAFORGE_EINVALID naming the parameter.
Result<WhatifRequest> ParseWhatifQuery(const Query& query);

// /api/v1/whatif/preempt: the victims that would let a pending pod run (draforge_whatif_preempt_json).
struct PreemptRequest {
  std::string pod;        // NS/NAME (a name alone is in namespace default)
  bool dra_aware = true;  // mode=kep-5690 (true, the default) or mode=released
};

// pod (required) and mode. Errors: DRAFORGE_EINVALID naming the parameter.
Result<PreemptRequest> ParsePreemptQuery(const Query& query);

// /api/v1/whatif/gang: a PodGroup placed all-or-nothing (draforge_gang_json).
struct GangRequest {
  std::string group;              // NS/NAME of the PodGroup
  std::string policy = "first-fit";
  std::string workload_template;  // "WORKLOAD/TEMPLATE" (query workload and template), "" for none
};

// group (required), policy, workload and template (together). Errors: DRAFORGE_EINVALID naming the
// parameter.
Result<GangRequest> ParseGangQuery(const Query& query);

// /api/v1/whatif/fragmentation: per pool and node, what still fits, and with shapePod the defrag
// advice (draforge_fragmentation_json).
struct FragmentationRequest {
  std::string shape_pod;  // NS/NAME of a pending pod; "" for the report without advice
  int max_moves = 3;
  int max_candidates = 16;
  int64_t max_trials = 1000;
};

// shapePod, maxMoves, maxCandidates, maxTrials (positive integers within limits.max_defrag_*).
// Errors: DRAFORGE_EINVALID naming the parameter.
Result<FragmentationRequest> ParseFragmentationQuery(const Query& query, const WhatifLimits& limits);

// POST's body: {"policy": "...", "explain": bool, "edits": [...]} (every field optional). Errors:
// DRAFORGE_EINVALID whose message starts with the field it is about ("body: ..." for JSON that does
// not parse or nests deeper than limits.max_depth, "policy: ...", "edits: ...", "edits[2]: ...").
Result<WhatifRequest> ParseWhatifBody(std::string_view body, const WhatifLimits& limits);

}  // namespace draforge::server

#endif  // DRAFORGE_EXAMPLES_SERVER_WHATIF_REQUEST_H_
