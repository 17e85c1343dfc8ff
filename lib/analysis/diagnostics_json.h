// Diagnostics as JSON: openapi.json's Diagnostics (GET /api/v1/diagnostics: every pending claim's
// diagnosis, with explain's funnel, conflicts and node verdicts, and the anomalies) and one
// PendingDiagnosis on its own.
#ifndef DRAFORGE_ANALYSIS_DIAGNOSTICS_JSON_H_
#define DRAFORGE_ANALYSIS_DIAGNOSTICS_JSON_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "store/cluster.h"

namespace draforge::analysis {

// {"snapshot":{...},"pending":[PendingDiagnosis...],"anomalies":[Anomaly...]} for namespace `ns`
// ("" = every namespace). Never fails (a claim explain cannot handle carries its error).
std::string DiagnosticsJson(const store::Snapshot& snapshot, std::string_view ns = {});

// {"snapshot":{...},"diagnosis":PendingDiagnosis} for claim ns/name. Errors: NotFound when no such
// claim is stored, InvalidArgument when it is not pending (it has an allocation).
absl::StatusOr<std::string> ClaimDiagnosisJson(const store::Snapshot& snapshot, std::string_view ns,
                                               std::string_view name);

}  // namespace draforge::analysis

#endif  // DRAFORGE_ANALYSIS_DIAGNOSTICS_JSON_H_
