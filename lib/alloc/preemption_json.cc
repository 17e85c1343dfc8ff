#include "alloc/preemption_json.h"

#include "api/codec.h"
#include "alloc/internal/results_json.h"
#include "common/json_string.h"
#include "rapidjson/document.h"

namespace draforge::alloc {
namespace {

rapidjson::Value Victims(const std::vector<PreemptionVictim>& victims, rapidjson::Document::AllocatorType& a) {
  rapidjson::Value out(rapidjson::kArrayType);
  for (const auto& v : victims) {
    rapidjson::Value o(rapidjson::kObjectType);
    o.AddMember("pod", JsonString(v.pod, a), a);
    o.AddMember("priority", v.priority, a);
    o.AddMember("startTime", JsonString(v.start_time, a), a);
    o.AddMember("claimsFreed", internal::JsonStrings(v.claims_freed, a), a);
    o.AddMember("claimsKept", internal::JsonStrings(v.claims_kept, a), a);
    o.AddMember("pdbViolated", JsonString(v.pdb_violated, a), a);
    out.PushBack(o, a);
  }
  return out;
}

}  // namespace

std::string PreemptionJson(const PreemptionResult& r) {
  rapidjson::Document d(rapidjson::kObjectType);
  auto& a = d.GetAllocator();
  d.AddMember("pod", JsonString(r.pod, a), a);
  d.AddMember("priority", r.priority, a);
  d.AddMember("outcome", JsonString(PreemptionOutcomeName(r.outcome), a), a);
  d.AddMember("draAware", r.dra_aware, a);
  d.AddMember("message", JsonString(r.message, a), a);
  d.AddMember("node", JsonString(r.node, a), a);
  d.AddMember("decidedBy", JsonString(r.decided_by, a), a);
  d.AddMember("pdbViolations", r.pdb_violations, a);
  d.AddMember("victims", Victims(r.victims, a), a);
  rapidjson::Value candidates(rapidjson::kArrayType);
  for (const auto& c : r.candidates) {
    rapidjson::Value o(rapidjson::kObjectType);
    o.AddMember("node", JsonString(c.node, a), a);
    o.AddMember("pdbViolations", c.pdb_violations, a);
    o.AddMember("victims", Victims(c.victims, a), a);
    candidates.PushBack(o, a);
  }
  d.AddMember("candidates", candidates, a);
  d.AddMember("fittingNodes", internal::JsonStrings(r.fitting_nodes, a), a);
  rapidjson::Value nodes(rapidjson::kArrayType);
  for (const auto& n : r.nodes) {
    rapidjson::Value e(rapidjson::kObjectType);
    e.AddMember("node", JsonString(n.node, a), a);
    e.AddMember("filter", JsonString(n.filter, a), a);
    e.AddMember("reason", JsonString(n.reason, a), a);
    nodes.PushBack(e, a);
  }
  d.AddMember("nodes", nodes, a);
  return api::WriteJson(d, false);
}

}  // namespace draforge::alloc
