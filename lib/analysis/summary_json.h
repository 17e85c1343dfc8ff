// The inventory summary as JSON: openapi.json's Summary (GET /api/v1/summary), the one schema the
// server, the C ABI (draforge_inventory_summary_json), the CLI and Python render.
#ifndef DRAFORGE_ANALYSIS_SUMMARY_JSON_H_
#define DRAFORGE_ANALYSIS_SUMMARY_JSON_H_

#include <string>

#include "store/cluster.h"

namespace draforge::analysis {

// {"snapshot":{...},"counts":{...},"drivers":[...],"pools":[...]}: Summarize() plus the number of
// anomalies (FindAnomalies). Never fails.
std::string SummaryJson(const store::Snapshot& snapshot);

}  // namespace draforge::analysis

#endif  // DRAFORGE_ANALYSIS_SUMMARY_JSON_H_
