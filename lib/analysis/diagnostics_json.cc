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

using internal::JsonWriter;
using internal::Key;
using internal::KeyBool;
using internal::KeyInt;
using internal::KeyStr;

void WriteStrings(JsonWriter& w, const std::vector<std::string>& v) {
  w.StartArray();
  for (const auto& s : v) internal::Str(w, s);
  w.EndArray();
}

void WriteRequests(JsonWriter& w, const alloc::Explanation* e) {
  w.StartArray();
  if (e == nullptr) {
    w.EndArray();
    return;
  }
  for (const auto& r : e->requests) {
    w.StartObject();
    KeyStr(w, "request", r.request);
    KeyStr(w, "deviceClass", r.device_class);
    KeyInt(w, "needed", r.needed);
    KeyBool(w, "allMode", r.all_mode);
    KeyBool(w, "adminAccess", r.admin_access);
    Key(w, "steps");
    w.StartArray();
    for (const auto& s : r.steps) {
      w.StartObject();
      KeyStr(w, "step", alloc::FunnelStepName(s.step));
      KeyInt(w, "remaining", s.remaining);
      KeyStr(w, "detail", s.detail);
      w.EndObject();
    }
    w.EndArray();
    KeyStr(w, "firstEmpty", r.first_empty ? alloc::FunnelStepName(*r.first_empty) : "");
    KeyStr(w, "firstShort", r.first_short ? alloc::FunnelStepName(*r.first_short) : "");
    KeyStr(w, "firstError", r.first_error);
    KeyStr(w, "sentence", r.sentence);
    w.EndObject();
  }
  w.EndArray();
}

void WriteConflicts(JsonWriter& w, const alloc::Explanation* e) {
  w.StartArray();
  if (e != nullptr) {
    for (const auto& c : e->conflicts) {
      w.StartObject();
      KeyStr(w, "kind", alloc::ConflictKindName(c.kind));
      Key(w, "requests");
      WriteStrings(w, c.requests);
      KeyStr(w, "subject", c.subject);
      KeyStr(w, "sentence", c.sentence);
      w.EndObject();
    }
  }
  w.EndArray();
}

void WriteNodeVerdicts(JsonWriter& w, const alloc::Explanation* e) {
  // Explain without a node (no consumer bound to a node): the verdict on every node.
  KeyStr(w, "nodesSummary", e ? e->nodes_summary : "");
  KeyInt(w, "nodesTotal", e ? e->nodes_total : 0);
  KeyBool(w, "nodesTruncated", e != nullptr && e->NodesTruncated());
  Key(w, "nodes");
  w.StartArray();
  if (e != nullptr) {
    for (const alloc::NodeVerdict& v : e->nodes) {
      w.StartObject();
      KeyStr(w, "node", v.node);
      KeyBool(w, "fits", v.fits());
      KeyStr(w, "outcome", alloc::OutcomeName(v.outcome));
      KeyStr(w, "reason", v.reason);
      w.EndObject();
    }
  }
  w.EndArray();
}

void WriteDiagnosis(JsonWriter& w, const PendingClaimDiagnosis& d) {
  const alloc::Explanation* e = d.explanation ? &*d.explanation : nullptr;
  w.StartObject();
  KeyStr(w, "namespace", d.namespace_);
  KeyStr(w, "name", d.name);
  KeyStr(w, "node", d.node);
  KeyStr(w, "outcome", PendingOutcomeName(d.outcome));
  KeyStr(w, "outcomeDetail", e ? e->outcome_detail : "");
  KeyStr(w, "summary", d.summary);
  KeyStr(w, "error", d.error);
  Key(w, "consumers");
  WriteStrings(w, d.consumers);
  KeyInt(w, "nodesTried", d.nodes_tried);
  Key(w, "fitsOn");
  WriteStrings(w, d.fits_on);
  Key(w, "requests");
  WriteRequests(w, e);
  Key(w, "conflicts");
  WriteConflicts(w, e);
  WriteNodeVerdicts(w, e);
  w.EndObject();
}

}  // namespace

std::string DiagnosticsJson(const store::Snapshot& snapshot, std::string_view ns) {
  rapidjson::StringBuffer buf;
  JsonWriter w(buf);
  w.StartObject();
  internal::WriteSnapshotMember(w, snapshot);
  Key(w, "pending");
  w.StartArray();
  for (const auto& d : DiagnosePendingClaims(snapshot, ns)) WriteDiagnosis(w, d);
  w.EndArray();
  Key(w, "anomalies");
  w.StartArray();
  for (const auto& a : FindAnomalies(snapshot, ns)) {
    w.StartObject();
    KeyStr(w, "kind", AnomalyKindName(a.kind));
    KeyStr(w, "severity", SeverityName(a.severity));
    KeyStr(w, "object", a.object);
    KeyStr(w, "message", a.message);
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
  JsonWriter w(buf);
  w.StartObject();
  internal::WriteSnapshotMember(w, snapshot);
  Key(w, "diagnosis");
  WriteDiagnosis(w, DiagnosePendingClaim(snapshot, *claim));
  w.EndObject();
  return std::string(buf.GetString());
}

}  // namespace draforge::analysis
