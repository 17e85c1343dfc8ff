#include "alloc/replay_json.h"

#include "absl/strings/str_cat.h"
#include "alloc/allocator.h"
#include "api/codec.h"
#include "alloc/internal/results_json.h"
#include "common/json_string.h"
#include "rapidjson/document.h"

namespace draforge::alloc {

absl::StatusOr<std::string> ReplayJson(const ReplayResult& r) {
  rapidjson::Document d(rapidjson::kObjectType);
  auto& a = d.GetAllocator();
  d.AddMember("policy", JsonString(ReplayPolicyName(r.policy), a), a);
  rapidjson::Value order(rapidjson::kArrayType);
  for (const auto& key : r.order) order.PushBack(JsonString(key, a), a);
  d.AddMember("order", order, a);
  rapidjson::Value placed(rapidjson::kArrayType);
  for (const auto& p : r.placed) {
    rapidjson::Value o(rapidjson::kObjectType);
    o.AddMember("pod", JsonString(p.pod, a), a);
    o.AddMember("node", JsonString(p.node, a), a);
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
    o.AddMember("feasible", internal::JsonStrings(p.feasible, a), a);
    placed.PushBack(o, a);
  }
  d.AddMember("placed", placed, a);
  rapidjson::Value pending(rapidjson::kArrayType);
  for (const auto& p : r.pending) {
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
    pending.PushBack(o, a);
  }
  d.AddMember("pending", pending, a);
  return api::WriteJson(d, false);
}

}  // namespace draforge::alloc
