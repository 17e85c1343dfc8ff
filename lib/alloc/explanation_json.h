// The JSON form of an alloc::Explanation, as `draforge explain -o json` prints it and the C ABI's
// draforge_explain returns it.
#ifndef DRAFORGE_ALLOC_EXPLANATION_JSON_H_
#define DRAFORGE_ALLOC_EXPLANATION_JSON_H_

#include "alloc/explain.h"
#include "rapidjson/document.h"

namespace draforge::alloc {

// {claim, node?, outcome?, outcomeDetail?, summary, requests: [{request, deviceClass, needed,
// allMode, adminAccess, steps: [{step, remaining, detail}], firstShortStep?, firstEmptyStep?,
// firstError?, sentence}], conflicts?: [{kind, requests, subject?, sentence}], and without a node
// nodesSummary, nodeSource, nodesTotal, nodesTruncated, nodes: [{node, fits, outcome, reason?}]}
// (the per-node verdicts; absent with a node or when none were asked for). The strings are
// copied into `allocator`; the returned object belongs to the caller's document.
rapidjson::Value ExplanationJson(const Explanation& ex, rapidjson::Document::AllocatorType& allocator);

}  // namespace draforge::alloc

#endif  // DRAFORGE_ALLOC_EXPLANATION_JSON_H_
