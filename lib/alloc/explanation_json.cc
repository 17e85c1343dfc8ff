#include "alloc/explanation_json.h"

#include <cstdint>

#include "common/json_string.h"

namespace draforge::alloc {

rapidjson::Value ExplanationJson(const Explanation& ex, rapidjson::Document::AllocatorType& a) {
  auto str = [&a](std::string_view s) { return JsonString(s, a); };
  rapidjson::Value d(rapidjson::kObjectType);
  d.AddMember("claim", str(ex.claim), a);
  if (!ex.node.empty()) {
    d.AddMember("node", str(ex.node), a);
    d.AddMember("outcome", str(OutcomeName(ex.outcome)), a);
    if (!ex.outcome_detail.empty()) d.AddMember("outcomeDetail", str(ex.outcome_detail), a);
  }
  d.AddMember("summary", str(ex.summary), a);
  rapidjson::Value reqs(rapidjson::kArrayType);
  for (const auto& r : ex.requests) {
    rapidjson::Value o(rapidjson::kObjectType);
    o.AddMember("request", str(r.request), a);
    o.AddMember("deviceClass", str(r.device_class), a);
    o.AddMember("needed", rapidjson::Value(static_cast<int64_t>(r.needed)), a);
    o.AddMember("allMode", r.all_mode, a);
    o.AddMember("adminAccess", r.admin_access, a);
    rapidjson::Value steps(rapidjson::kArrayType);
    for (const auto& s : r.steps) {
      rapidjson::Value so(rapidjson::kObjectType);
      so.AddMember("step", str(FunnelStepName(s.step)), a);
      so.AddMember("remaining", rapidjson::Value(static_cast<int64_t>(s.remaining)), a);
      so.AddMember("detail", str(s.detail), a);
      steps.PushBack(so, a);
    }
    o.AddMember("steps", steps, a);
    if (r.first_short) o.AddMember("firstShortStep", str(FunnelStepName(*r.first_short)), a);
    if (r.first_empty) o.AddMember("firstEmptyStep", str(FunnelStepName(*r.first_empty)), a);
    if (!r.first_error.empty()) o.AddMember("firstError", str(r.first_error), a);
    o.AddMember("sentence", str(r.sentence), a);
    reqs.PushBack(o, a);
  }
  d.AddMember("requests", reqs, a);
  if (!ex.conflicts.empty()) {
    rapidjson::Value conflicts(rapidjson::kArrayType);
    for (const auto& c : ex.conflicts) {
      rapidjson::Value o(rapidjson::kObjectType);
      o.AddMember("kind", str(ConflictKindName(c.kind)), a);
      rapidjson::Value rs(rapidjson::kArrayType);
      for (const auto& r : c.requests) rs.PushBack(str(r), a);
      o.AddMember("requests", rs, a);
      if (!c.subject.empty()) o.AddMember("subject", str(c.subject), a);
      o.AddMember("sentence", str(c.sentence), a);
      conflicts.PushBack(o, a);
    }
    d.AddMember("conflicts", conflicts, a);
  }
  // Without a node: the per-node verdicts (additive fields; absent with a node).
  if (ex.node.empty() && !ex.nodes_summary.empty()) {
    d.AddMember("nodesSummary", str(ex.nodes_summary), a);
    d.AddMember("nodeSource", str(ex.node_source), a);
    d.AddMember("nodesTotal", rapidjson::Value(static_cast<int64_t>(ex.nodes_total)), a);
    d.AddMember("nodesTruncated", ex.NodesTruncated(), a);
    rapidjson::Value nodes(rapidjson::kArrayType);
    for (const NodeVerdict& v : ex.nodes) {
      rapidjson::Value o(rapidjson::kObjectType);
      o.AddMember("node", str(v.node), a);
      o.AddMember("fits", v.fits(), a);
      o.AddMember("outcome", str(OutcomeName(v.outcome)), a);
      if (!v.reason.empty()) o.AddMember("reason", str(v.reason), a);
      nodes.PushBack(o, a);
    }
    d.AddMember("nodes", nodes, a);
  }
  return d;
}

}  // namespace draforge::alloc
