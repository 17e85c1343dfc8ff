#include "alloc/gang_json.h"

#include "absl/strings/str_cat.h"
#include "alloc/allocator.h"
#include "api/codec.h"
#include "alloc/internal/results_json.h"
#include "common/json_string.h"
#include "rapidjson/document.h"

namespace draforge::alloc {
namespace {

using Alloc = rapidjson::Document::AllocatorType;

}  // namespace

absl::StatusOr<std::string> GangJson(const GangResult& r) {
  rapidjson::Document d(rapidjson::kObjectType);
  auto& a = d.GetAllocator();
  d.AddMember("group", JsonString(r.group, a), a);
  d.AddMember("policy", JsonString(r.policy, a), a);
  d.AddMember("minCount", r.min_count, a);
  d.AddMember("fits", r.fits, a);
  d.AddMember("status", JsonString(r.status, a), a);
  d.AddMember("blocking", JsonString(r.blocking, a), a);
  d.AddMember("scheduled", internal::JsonStrings(r.scheduled, a), a);
  d.AddMember("order", internal::JsonStrings(r.order, a), a);
  rapidjson::Value placed(rapidjson::kArrayType);
  for (const auto& p : r.placed) {
    rapidjson::Value o(rapidjson::kObjectType);
    o.AddMember("pod", JsonString(p.pod, a), a);
    o.AddMember("node", JsonString(p.node, a), a);
    o.AddMember("feasible", internal::JsonStrings(p.feasible, a), a);
    rapidjson::Value claims(rapidjson::kArrayType);
    for (const auto& c : p.claims) {
      auto results = internal::DeviceResultsJson(c.claim, c.allocation, a);
      if (!results.ok()) return results.status();
      rapidjson::Value e(rapidjson::kObjectType);
      e.AddMember("claim", JsonString(c.claim, a), a);
      e.AddMember("existing", c.existing, a);
      e.AddMember("results", *results, a);
      claims.PushBack(e, a);
    }
    o.AddMember("claims", claims, a);
    placed.PushBack(o, a);
  }
  d.AddMember("placed", placed, a);
  rapidjson::Value unschedulable(rapidjson::kArrayType);
  for (const auto& p : r.unschedulable) {
    rapidjson::Value o(rapidjson::kObjectType);
    o.AddMember("pod", JsonString(p.pod, a), a);
    rapidjson::Value nodes(rapidjson::kArrayType);
    for (const auto& n : p.nodes) {
      rapidjson::Value e(rapidjson::kObjectType);
      e.AddMember("node", JsonString(n.node, a), a);
      e.AddMember("filter", JsonString(n.filter, a), a);
      e.AddMember("reason", JsonString(n.reason, a), a);
      nodes.PushBack(e, a);
    }
    o.AddMember("nodes", nodes, a);
    unschedulable.PushBack(o, a);
  }
  d.AddMember("unschedulable", unschedulable, a);
  d.AddMember("notTried", internal::JsonStrings(r.not_tried, a), a);
  rapidjson::Value claims(rapidjson::kArrayType);
  for (const auto& c : r.group_claims) {
    rapidjson::Value o(rapidjson::kObjectType);
    o.AddMember("name", JsonString(c.name, a), a);
    o.AddMember("claim", JsonString(c.claim, a), a);
    o.AddMember("source", JsonString(c.source, a), a);
    o.AddMember("existing", c.existing, a);
    o.AddMember("allocatedBy", JsonString(c.allocated_by, a), a);
    o.AddMember("members", internal::JsonStrings(c.members, a), a);
    if (c.allocated) {
      auto results = internal::DeviceResultsJson(c.claim, c.allocation, a);
      if (!results.ok()) return results.status();
      o.AddMember("results", *results, a);
    } else {
      o.AddMember("results", rapidjson::Value(rapidjson::kArrayType), a);
    }
    claims.PushBack(o, a);
  }
  d.AddMember("groupClaims", claims, a);
  return api::WriteJson(d, false);
}

}  // namespace draforge::alloc
