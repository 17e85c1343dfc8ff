// The C ABI over lib/alloc/placement: pod placement and "how many more" (include/draforge/place.h),
// each result as one JSON object.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/str_cat.h"
#include "alloc/allocator.h"
#include "alloc/placement.h"
#include "api/codec.h"
#include "capi/internal.h"
#include "common/json_string.h"
#include "common/status.h"
#include "draforge/place.h"
#include "rapidjson/document.h"

namespace draforge::capi {
namespace {

using Allocator = rapidjson::Document::AllocatorType;

rapidjson::Value Strings(const std::vector<std::string>& list, Allocator& a) {
  rapidjson::Value v(rapidjson::kArrayType);
  for (const auto& s : list) v.PushBack(JsonString(s, a), a);
  return v;
}

// status.allocation as Kubernetes writes it, copied into `a`.
absl::StatusOr<rapidjson::Value> AllocationValue(const api::AllocationResult& allocation, Allocator& a) {
  auto encoded = alloc::EncodeAllocationResult(allocation);
  if (!encoded.ok()) return encoded.status();
  return rapidjson::Value(*encoded, a);
}

absl::StatusOr<std::string> PlacementJson(const alloc::PodPlacement& p) {
  rapidjson::Document d(rapidjson::kObjectType);
  auto& a = d.GetAllocator();
  d.AddMember("pod", JsonString(p.pod, a), a);
  d.AddMember("nodeSource", JsonString(p.node_source, a), a);
  rapidjson::Value claims(rapidjson::kArrayType);
  for (const auto& c : p.claims) {
    rapidjson::Value o(rapidjson::kObjectType);
    o.AddMember("name", JsonString(c.pod_claim, a), a);
    o.AddMember("claim", JsonString(c.key, a), a);
    o.AddMember("source", JsonString(alloc::ClaimSourceName(c.source), a), a);
    if (!c.template_name.empty()) o.AddMember("template", JsonString(c.template_name, a), a);
    o.AddMember("allocated", c.allocated, a);
    o.AddMember("found", c.claim != nullptr, a);
    claims.PushBack(o, a);
  }
  d.AddMember("claims", claims, a);
  d.AddMember("unresolvable", Strings(p.unresolvable, a), a);
  d.AddMember("fittingNodes", Strings(p.FittingNodes(), a), a);
  rapidjson::Value nodes(rapidjson::kArrayType);
  for (const auto& n : p.nodes) {
    rapidjson::Value o(rapidjson::kObjectType);
    o.AddMember("node", JsonString(n.node, a), a);
    o.AddMember("fits", n.fits(), a);
    o.AddMember("outcome", JsonString(alloc::OutcomeName(n.outcome), a), a);
    if (n.fits()) {
      rapidjson::Value allocations(rapidjson::kArrayType);
      for (const auto& ca : n.allocations) {
        rapidjson::Value e(rapidjson::kObjectType);
        e.AddMember("claim", JsonString(ca.claim, a), a);
        e.AddMember("existing", ca.existing, a);
        auto allocation = AllocationValue(ca.allocation, a);
        if (!allocation.ok()) return allocation.status();
        e.AddMember("allocation", *allocation, a);
        allocations.PushBack(e, a);
      }
      o.AddMember("allocations", allocations, a);
    } else {
      o.AddMember("reasons", Strings(n.reasons, a), a);
      o.AddMember("why", JsonString(n.why, a), a);
      if (!n.error.ok()) o.AddMember("error", JsonString(SV(n.error.message()), a), a);
    }
    o.AddMember("searchSteps", rapidjson::Value(static_cast<int64_t>(n.search_steps)), a);
    nodes.PushBack(o, a);
  }
  d.AddMember("nodes", nodes, a);
  return api::WriteJson(d, false);
}

absl::StatusOr<std::string> HowManyMoreJson(const alloc::HowManyMoreResult& r) {
  rapidjson::Document d(rapidjson::kObjectType);
  auto& a = d.GetAllocator();
  d.AddMember("prototype", JsonString(r.prototype, a), a);
  d.AddMember("total", rapidjson::Value(static_cast<int64_t>(r.total)), a);
  d.AddMember("cap", rapidjson::Value(static_cast<int64_t>(r.cap)), a);
  d.AddMember("stop", JsonString(alloc::StopReasonName(r.stop), a), a);
  if (r.stop == alloc::StopReason::kError) {
    d.AddMember("error", JsonString(SV(r.error.message()), a), a);
    d.AddMember("errorNode", JsonString(r.error_node, a), a);
  }
  rapidjson::Value nodes(rapidjson::kArrayType);
  for (const auto& n : r.nodes) {
    rapidjson::Value o(rapidjson::kObjectType);
    o.AddMember("node", JsonString(n.node, a), a);
    o.AddMember("count", rapidjson::Value(static_cast<int64_t>(n.count)), a);
    o.AddMember("reasons", Strings(n.reasons, a), a);
    if (!n.why.empty()) o.AddMember("why", JsonString(n.why, a), a);
    nodes.PushBack(o, a);
  }
  d.AddMember("nodes", nodes, a);
  rapidjson::Value copies(rapidjson::kArrayType);
  for (const auto& c : r.copies) {
    rapidjson::Value o(rapidjson::kObjectType);
    o.AddMember("claim", JsonString(c.claim, a), a);
    o.AddMember("node", JsonString(c.node, a), a);
    auto allocation = AllocationValue(c.allocation, a);
    if (!allocation.ok()) return allocation.status();
    o.AddMember("allocation", *allocation, a);
    copies.PushBack(o, a);
  }
  d.AddMember("copies", copies, a);
  return api::WriteJson(d, false);
}

}  // namespace
}  // namespace draforge::capi

extern "C" {

int draforge_place_pod_json(draforge_buffer* out, const draforge_snapshot* snapshot, const char* pod,
                            const draforge_allocate_options* options, draforge_error** error) {
  using namespace draforge;
  return capi::Guard(error, [&]() -> int {
    if (out == nullptr || snapshot == nullptr || pod == nullptr || *pod == '\0') {
      return capi::Fail(
          absl::InvalidArgumentError("draforge_place_pod_json: out, snapshot and pod must not be NULL or empty"), error);
    }
    *out = draforge_buffer{nullptr, 0};
    auto effective = capi::EffectiveOptions(options);
    if (!effective.ok()) return capi::Fail(effective.status(), error);
    auto features = capi::FeaturesOf(effective->feature_gates, effective->unlock_locked_gates != 0);
    if (!features.ok()) return capi::Fail(features.status(), error);
    alloc::PlaceOptions place;
    place.features = *features;
    place.max_steps = effective->max_steps;
    std::string ns, name;
    capi::SplitRef(pod, "default", ns, name);
    auto placement = alloc::Place(*snapshot->snapshot, ns, name, place);
    if (!placement.ok()) return capi::Fail(placement.status(), error);
    auto json = capi::PlacementJson(*placement);
    if (!json.ok()) return capi::Fail(absl::InternalError(json.status().message()), error);
    return capi::ToBuffer(*json, out, error);
  });
}

int draforge_how_many_more_json(draforge_buffer* out, const draforge_snapshot* snapshot, int kind, const char* name,
                                int64_t cap, const draforge_allocate_options* options, draforge_error** error) {
  using namespace draforge;
  return capi::Guard(error, [&]() -> int {
    if (out == nullptr || snapshot == nullptr || name == nullptr || *name == '\0') {
      return capi::Fail(
          absl::InvalidArgumentError("draforge_how_many_more_json: out, snapshot and name must not be NULL or empty"),
          error);
    }
    *out = draforge_buffer{nullptr, 0};
    if (kind != DRAFORGE_PROTOTYPE_CLAIM && kind != DRAFORGE_PROTOTYPE_TEMPLATE) {
      return capi::Fail(absl::InvalidArgumentError(absl::StrCat("draforge_how_many_more_json: unknown kind ", kind)),
                        error);
    }
    if (cap < 0) {
      return capi::Fail(absl::InvalidArgumentError(
                            absl::StrCat("draforge_how_many_more_json: cap must be 0 (default) or positive, got ", cap)),
                        error);
    }
    auto effective = capi::EffectiveOptions(options);
    if (!effective.ok()) return capi::Fail(effective.status(), error);
    auto features = capi::FeaturesOf(effective->feature_gates, effective->unlock_locked_gates != 0);
    if (!features.ok()) return capi::Fail(features.status(), error);
    alloc::HowManyMoreOptions more;
    more.features = *features;
    more.max_steps = effective->max_steps;
    if (cap > 0) more.cap = cap;
    std::string ns, object;
    capi::SplitRef(name, "default", ns, object);
    auto result = alloc::HowManyMore(
        *snapshot->snapshot, kind == DRAFORGE_PROTOTYPE_CLAIM ? alloc::PrototypeKind::kClaim : alloc::PrototypeKind::kTemplate,
        ns, object, more);
    if (!result.ok()) return capi::Fail(result.status(), error);
    auto json = capi::HowManyMoreJson(*result);
    if (!json.ok()) return capi::Fail(absl::InternalError(json.status().message()), error);
    return capi::ToBuffer(*json, out, error);
  });
}

}  // extern "C"
