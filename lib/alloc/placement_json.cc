#include "alloc/placement_json.h"

#include <cstdint>
#include <string_view>
#include <vector>

#include "absl/strings/str_cat.h"
#include "api/codec.h"
#include "alloc/internal/results_json.h"
#include "common/json_string.h"
#include "common/status.h"
#include "rapidjson/document.h"

namespace draforge::alloc {
namespace {

using Allocator = rapidjson::Document::AllocatorType;

// status.allocation as Kubernetes writes it, copied into `a`.
absl::StatusOr<rapidjson::Value> AllocationValue(const api::AllocationResult& allocation, std::string_view claim,
                                                 Allocator& a) {
  auto encoded = EncodeAllocationResult(allocation);
  if (!encoded.ok()) {
    return absl::InternalError(absl::StrCat("allocation of claim ", AV(claim), ": ", encoded.status().message()));
  }
  return rapidjson::Value(*encoded, a);
}

}  // namespace

absl::StatusOr<std::string> PodPlacementJson(const PodPlacement& p) {
  rapidjson::Document d(rapidjson::kObjectType);
  auto& a = d.GetAllocator();
  d.AddMember("pod", JsonString(p.pod, a), a);
  d.AddMember("nodeSource", JsonString(p.node_source, a), a);
  rapidjson::Value claims(rapidjson::kArrayType);
  for (const auto& c : p.claims) {
    rapidjson::Value o(rapidjson::kObjectType);
    o.AddMember("name", JsonString(c.pod_claim, a), a);
    o.AddMember("claim", JsonString(c.key, a), a);
    o.AddMember("source", JsonString(ClaimSourceName(c.source), a), a);
    if (!c.template_name.empty()) o.AddMember("template", JsonString(c.template_name, a), a);
    o.AddMember("allocated", c.allocated, a);
    o.AddMember("found", c.claim != nullptr, a);
    claims.PushBack(o, a);
  }
  d.AddMember("claims", claims, a);
  d.AddMember("unresolvable", internal::JsonStrings(p.unresolvable, a), a);
  d.AddMember("fittingNodes", internal::JsonStrings(p.FittingNodes(), a), a);
  rapidjson::Value nodes(rapidjson::kArrayType);
  for (const auto& n : p.nodes) {
    rapidjson::Value o(rapidjson::kObjectType);
    o.AddMember("node", JsonString(n.node, a), a);
    o.AddMember("fits", n.fits(), a);
    o.AddMember("outcome", JsonString(OutcomeName(n.outcome), a), a);
    if (n.fits()) {
      rapidjson::Value allocations(rapidjson::kArrayType);
      for (const auto& ca : n.allocations) {
        rapidjson::Value e(rapidjson::kObjectType);
        e.AddMember("claim", JsonString(ca.claim, a), a);
        e.AddMember("existing", ca.existing, a);
        auto allocation = AllocationValue(ca.allocation, ca.claim, a);
        if (!allocation.ok()) return allocation.status();
        e.AddMember("allocation", *allocation, a);
        allocations.PushBack(e, a);
      }
      o.AddMember("allocations", allocations, a);
    } else {
      o.AddMember("reasons", internal::JsonStrings(n.reasons, a), a);
      o.AddMember("why", JsonString(n.why, a), a);
      if (!n.error.ok()) o.AddMember("error", JsonString(SV(n.error.message()), a), a);
    }
    o.AddMember("searchSteps", rapidjson::Value(static_cast<int64_t>(n.search_steps)), a);
    nodes.PushBack(o, a);
  }
  d.AddMember("nodes", nodes, a);
  return api::WriteJson(d, false);
}

absl::StatusOr<std::string> HowManyMoreJson(const HowManyMoreResult& r) {
  rapidjson::Document d(rapidjson::kObjectType);
  auto& a = d.GetAllocator();
  d.AddMember("prototype", JsonString(r.prototype, a), a);
  d.AddMember("total", rapidjson::Value(static_cast<int64_t>(r.total)), a);
  d.AddMember("cap", rapidjson::Value(static_cast<int64_t>(r.cap)), a);
  d.AddMember("stop", JsonString(StopReasonName(r.stop), a), a);
  if (r.stop == StopReason::kError) {
    d.AddMember("error", JsonString(SV(r.error.message()), a), a);
    d.AddMember("errorNode", JsonString(r.error_node, a), a);
  }
  if (r.pod) d.AddMember("resourcesChecked", rapidjson::Value(r.resources_checked), a);
  if (r.quota_checked) {
    rapidjson::Value quota(rapidjson::kObjectType);
    quota.AddMember("quotas", internal::JsonStrings(r.quotas, a), a);
    if (r.quota_units) {
      quota.AddMember("units", rapidjson::Value(static_cast<int64_t>(*r.quota_units)), a);
      quota.AddMember("why", JsonString(r.quota_why, a), a);
    }
    d.AddMember("quota", quota, a);
  }
  rapidjson::Value nodes(rapidjson::kArrayType);
  for (const auto& n : r.nodes) {
    rapidjson::Value o(rapidjson::kObjectType);
    o.AddMember("node", JsonString(n.node, a), a);
    o.AddMember("count", rapidjson::Value(static_cast<int64_t>(n.count)), a);
    o.AddMember("reasons", internal::JsonStrings(n.reasons, a), a);
    if (!n.why.empty()) o.AddMember("why", JsonString(n.why, a), a);
    if (r.pod && !n.limited_by.empty()) o.AddMember("limitedBy", JsonString(n.limited_by, a), a);
    nodes.PushBack(o, a);
  }
  d.AddMember("nodes", nodes, a);
  rapidjson::Value copies(rapidjson::kArrayType);
  for (const auto& c : r.copies) {
    rapidjson::Value o(rapidjson::kObjectType);
    o.AddMember("claim", JsonString(c.claim, a), a);
    o.AddMember("node", JsonString(c.node, a), a);
    auto allocation = AllocationValue(c.allocation, c.claim, a);
    if (!allocation.ok()) return allocation.status();
    o.AddMember("allocation", *allocation, a);
    copies.PushBack(o, a);
  }
  d.AddMember("copies", copies, a);
  return api::WriteJson(d, false);
}

}  // namespace draforge::alloc
