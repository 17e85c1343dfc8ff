// Diagnostics for pending claims: why each claim without an allocation does not fit, from the
// allocator's explain (lib/alloc/explain.h).
#ifndef DRAFORGE_ANALYSIS_DIAGNOSTICS_H_
#define DRAFORGE_ANALYSIS_DIAGNOSTICS_H_

#include <string>
#include <string_view>
#include <vector>

#include "alloc/explain.h"
#include "alloc/features.h"
#include "store/cluster.h"

namespace draforge::analysis {

struct PendingClaimDiagnosis {
  std::string namespace_;
  std::string name;
  // The node the explanation was computed for: the spec.nodeName of the first pod (by name) that
  // references the claim and is bound to a stored Node; "" when no such pod (then the node step of
  // the funnel is skipped, as explain does without a node).
  std::string node;
  // Set when explain succeeded.
  std::optional<alloc::Explanation> explanation;
  // explain's error message otherwise (a claim without spec.devices, ...).
  std::string error;
};

// One entry per pending claim (no status.allocation), sorted by (namespace, name); only namespace
// `ns` when it is non-empty. Never fails: a claim explain cannot handle carries its error.
std::vector<PendingClaimDiagnosis> DiagnosePendingClaims(const store::Snapshot& snapshot, std::string_view ns = {},
                                                         const alloc::Features& features = alloc::Features{});

}  // namespace draforge::analysis

#endif  // DRAFORGE_ANALYSIS_DIAGNOSTICS_H_
