#include "analysis/diagnostics_json.h"

#include "absl/strings/str_cat.h"
#include "alloc/explain.h"
#include "analysis/anomalies.h"
#include "analysis/claim_state.h"
#include "analysis/diagnostics.h"
#include "analysis/internal/json_writer.h"
#include "common/status.h"

namespace draforge::analysis {
namespace {

void WriteStrings(internal::JsonWriter& w, const std::vector<std::string>& v) {
  w.StartArray();
  for (const auto& s : v) internal::Str(w, s);
  w.EndArray();
}

void WriteRequests(internal::JsonWriter& w, const alloc::Explanation* e) {
  w.StartArray();
  if (e == nullptr) {
    w.EndArray();
    return;
  }
  for (const auto& r : e->requests) {
    w.StartObject();
    internal::KeyStr(w, "request", r.request);
    internal::KeyStr(w, "deviceClass", r.device_class);
    internal::KeyInt(w, "needed", r.needed);
    internal::KeyBool(w, "allMode", r.all_mode);
    internal::KeyBool(w, "adminAccess", r.admin_access);
    internal::Key(w, "steps");
    w.StartArray();
    for (const auto& s : r.steps) {
      w.StartObject();
      internal::KeyStr(w, "step", alloc::FunnelStepName(s.step));
      internal::KeyInt(w, "remaining", s.remaining);
      internal::KeyStr(w, "detail", s.detail);
      w.EndObject();
    }
    w.EndArray();
    internal::KeyStr(w, "firstEmpty", r.first_empty ? alloc::FunnelStepName(*r.first_empty) : "");
    internal::KeyStr(w, "firstShort", r.first_short ? alloc::FunnelStepName(*r.first_short) : "");
    internal::KeyStr(w, "firstError", r.first_error);
    internal::KeyStr(w, "sentence", r.sentence);
    w.EndObject();
  }
  w.EndArray();
}

void WriteConflicts(internal::JsonWriter& w, const alloc::Explanation* e) {
  w.StartArray();
  if (e != nullptr) {
    for (const auto& c : e->conflicts) {
      w.StartObject();
      internal::KeyStr(w, "kind", alloc::ConflictKindName(c.kind));
      internal::Key(w, "requests");
      WriteStrings(w, c.requests);
      internal::KeyStr(w, "subject", c.subject);
      internal::KeyStr(w, "sentence", c.sentence);
      w.EndObject();
    }
  }
  w.EndArray();
}

void WriteNodeVerdicts(internal::JsonWriter& w, const alloc::Explanation* e) {
  // Explain without a node (no consumer bound to a node): the verdict on every node.
  internal::KeyStr(w, "nodesSummary", e ? e->nodes_summary : "");
  internal::KeyInt(w, "nodesTotal", e ? e->nodes_total : 0);
  internal::KeyBool(w, "nodesTruncated", e != nullptr && e->NodesTruncated());
  internal::Key(w, "nodes");
  w.StartArray();
  if (e != nullptr) {
    for (const alloc::NodeVerdict& v : e->nodes) {
      w.StartObject();
      internal::KeyStr(w, "node", v.node);
      internal::KeyBool(w, "fits", v.fits());
      internal::KeyStr(w, "outcome", alloc::OutcomeName(v.outcome));
      internal::KeyStr(w, "reason", v.reason);
      w.EndObject();
    }
  }
  w.EndArray();
}

void WriteDiagnosis(internal::JsonWriter& w, const PendingClaimDiagnosis& d) {
  const alloc::Explanation* e = d.explanation ? &*d.explanation : nullptr;
  w.StartObject();
  internal::KeyStr(w, "namespace", d.namespace_);
  internal::KeyStr(w, "name", d.name);
  internal::KeyStr(w, "node", d.node);
  internal::KeyStr(w, "outcome", PendingOutcomeName(d.outcome));
  internal::KeyStr(w, "outcomeDetail", e ? e->outcome_detail : "");
  internal::KeyStr(w, "summary", d.summary);
  internal::KeyStr(w, "error", d.error);
  internal::Key(w, "consumers");
  WriteStrings(w, d.consumers);
  internal::KeyInt(w, "nodesTried", d.nodes_tried);
  internal::Key(w, "fitsOn");
  WriteStrings(w, d.fits_on);
  internal::Key(w, "requests");
  WriteRequests(w, e);
  internal::Key(w, "conflicts");
  WriteConflicts(w, e);
  WriteNodeVerdicts(w, e);
  w.EndObject();
}

}  // namespace

std::string DiagnosticsJson(const store::Snapshot& snapshot, std::string_view ns) {
  rapidjson::StringBuffer buf;
  internal::JsonWriter w(buf);
  w.StartObject();
  internal::WriteSnapshotMember(w, snapshot);
  internal::Key(w, "pending");
  w.StartArray();
  for (const auto& d : DiagnosePendingClaims(snapshot, ns)) WriteDiagnosis(w, d);
  w.EndArray();
  internal::Key(w, "anomalies");
  w.StartArray();
  for (const auto& a : FindAnomalies(snapshot, ns)) {
    w.StartObject();
    internal::KeyStr(w, "kind", AnomalyKindName(a.kind));
    internal::KeyStr(w, "severity", SeverityName(a.severity));
    internal::KeyStr(w, "object", a.object);
    internal::KeyStr(w, "message", a.message);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return buf.GetString();
}

absl::StatusOr<std::string> ClaimDiagnosisJson(const store::Snapshot& snapshot, std::string_view ns,
                                               std::string_view name) {
  const api::ResourceClaim* claim = snapshot.GetResourceClaim(ns, name);
  if (claim == nullptr) {
    return absl::NotFoundError(absl::StrCat("ResourceClaim \"", AV(ns), "/", AV(name), "\": not found"));
  }
  const ClaimState state = StateOf(*claim);
  if (state != ClaimState::kPending) {
    return absl::InvalidArgumentError(
        absl::StrCat("ResourceClaim \"", AV(ns), "/", AV(name), "\": is ", AV(ClaimStateName(state)), ", not pending"));
  }
  rapidjson::StringBuffer buf;
  internal::JsonWriter w(buf);
  w.StartObject();
  internal::WriteSnapshotMember(w, snapshot);
  internal::Key(w, "diagnosis");
  WriteDiagnosis(w, DiagnosePendingClaim(snapshot, *claim));
  w.EndObject();
  return std::string(buf.GetString());
}

}  // namespace draforge::analysis
