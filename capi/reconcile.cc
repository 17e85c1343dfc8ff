// The C ABI over the controller's plans in lib/sim (include/draforge/reconcile.h): snapshot or JSON
// in, a JSON plan out.
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/str_cat.h"
#include "api/codec.h"
#include "capi/internal.h"
#include "common/status.h"
#include "draforge/reconcile.h"
#include "rapidjson/document.h"
#include "sim/claim_allocation.h"
#include "sim/reconcile.h"
#include "sim/simulated_device_pool.h"

namespace draforge::capi {
namespace {

// The public macros name lib/sim's constants; a change on one side must not go unnoticed.
static_assert(std::string_view(DRAFORGE_RECONCILE_POOL_API_VERSION) == sim::kApiVersion);
static_assert(std::string_view(DRAFORGE_RECONCILE_POOL_RESOURCE) == sim::kResource);
static_assert(std::string_view(DRAFORGE_RECONCILE_POOL_KIND) == sim::kKind);

using Allocator = rapidjson::Document::AllocatorType;

// A list as a JSON document whose "items" (or the document itself) is an array.
absl::StatusOr<rapidjson::Document> ParseList(const char* json, size_t size, std::string_view what) {
  if (json == nullptr) return absl::InvalidArgumentError(absl::StrCat(AV(what), ": required"));
  auto doc = api::ParseJson(std::string_view(json, size), false);
  if (!doc.ok()) return absl::InvalidArgumentError(absl::StrCat(AV(what), ": ", doc.status().message()));
  const bool list = doc->IsArray() || (doc->IsObject() && doc->HasMember("items") && (*doc)["items"].IsArray());
  if (!list) return absl::InvalidArgumentError(absl::StrCat(AV(what), ": not a list (an object with items, or an array)"));
  return doc;
}

rapidjson::Value& Items(rapidjson::Document& doc) { return doc.IsArray() ? doc : doc["items"]; }

absl::StatusOr<rapidjson::Document> ParseObject(const char* json, size_t size, std::string_view what) {
  if (json == nullptr) return absl::InvalidArgumentError(absl::StrCat(AV(what), ": required"));
  auto doc = api::ParseJson(std::string_view(json, size), false);
  if (!doc.ok()) return absl::InvalidArgumentError(absl::StrCat(AV(what), ": ", doc.status().message()));
  if (!doc->IsObject()) return absl::InvalidArgumentError(absl::StrCat(AV(what), ": not a JSON object"));
  return doc;
}

std::string_view TypeName(sim::SliceAction::Type type) {
  switch (type) {
    case sim::SliceAction::Type::kCreate: return "create";
    case sim::SliceAction::Type::kUpdate: return "update";
    case sim::SliceAction::Type::kDelete: break;
  }
  return "delete";
}

absl::StatusOr<rapidjson::Value> ActionJson(sim::SliceAction::Type type, const api::ResourceSlice& slice,
                                            Allocator& a) {
  api::Object o;
  o.api_version = "resource.k8s.io/v1";
  o.value = slice;
  ASSIGN_OR_RETURN(rapidjson::Document body, api::EncodeObject(o));
  rapidjson::Value action(rapidjson::kObjectType);
  const std::string_view t = TypeName(type);
  action.AddMember("type", rapidjson::Value(t.data(), static_cast<rapidjson::SizeType>(t.size()), a), a);
  action.AddMember("name", rapidjson::Value(slice.metadata.name.value_or("").c_str(), a), a);
  action.AddMember("slice", rapidjson::Value(body, a), a);
  return action;
}

absl::StatusOr<std::string> PoolsPlanJson(rapidjson::Document& pools, rapidjson::Document& slices_list, int64_t tick,
                                          std::string_view now) {
  std::vector<api::ResourceSlice> slices;
  for (const auto& item : Items(slices_list).GetArray()) {
    auto o = api::DecodeObject(item, api::DecodeOptions{}, nullptr);
    if (o.ok() && o->kind() == api::Kind::kResourceSlice) slices.push_back(std::get<api::ResourceSlice>(o->value));
  }
  rapidjson::Value& items = Items(pools);
  const sim::PoolsPlan plan = sim::PlanPools(items, slices, sim::ExpandOptions{.tick = tick});
  rapidjson::Document doc(rapidjson::kObjectType);
  Allocator& a = doc.GetAllocator();
  rapidjson::Value out_pools(rapidjson::kArrayType);
  for (const sim::PoolPlan& p : plan.pools) {
    rapidjson::Value pool(rapidjson::kObjectType);
    pool.AddMember("name", rapidjson::Value(p.name.c_str(), a), a);
    pool.AddMember("index", static_cast<uint64_t>(p.index), a);
    pool.AddMember("valid", p.expansion.ok(), a);
    if (!p.expansion.ok()) {
      const std::string why(p.expansion.status().message());
      pool.AddMember("error", rapidjson::Value(why.c_str(), a), a);
    }
    rapidjson::Value actions(rapidjson::kArrayType);
    for (const sim::SliceAction& action : p.actions) {
      ASSIGN_OR_RETURN(rapidjson::Value v, ActionJson(action.type, action.slice, a));
      actions.PushBack(v, a);
    }
    pool.AddMember("actions", actions, a);
    std::optional<rapidjson::Document> status =
        sim::PoolStatusUpdate(items[static_cast<rapidjson::SizeType>(p.index)], p.pool, p.expansion, now);
    pool.AddMember("status", status ? rapidjson::Value(*status, a) : rapidjson::Value(rapidjson::kNullType), a);
    out_pools.PushBack(pool, a);
  }
  doc.AddMember("pools", out_pools, a);
  rapidjson::Value orphans(rapidjson::kArrayType);
  for (const api::ResourceSlice& s : plan.orphans) {
    ASSIGN_OR_RETURN(rapidjson::Value v, ActionJson(sim::SliceAction::Type::kDelete, s, a));
    orphans.PushBack(v, a);
  }
  doc.AddMember("orphans", orphans, a);
  doc.AddMember("invalid", plan.invalid, a);
  return api::WriteJson(doc, false);
}

// The claim object's "namespace/name" as the store keys it.
absl::StatusOr<std::string> ClaimKey(const rapidjson::Value& claim) {
  auto o = api::DecodeObject(claim, api::DecodeOptions{}, nullptr);
  if (!o.ok()) return absl::InvalidArgumentError(absl::StrCat("claim_json: ", o.status().message()));
  if (o->kind() != api::Kind::kResourceClaim) {
    return absl::InvalidArgumentError(absl::StrCat("claim_json: a ", AV(o->kind_name()), ", not a ResourceClaim"));
  }
  return o->Key();
}

absl::StatusOr<std::string> ClaimAllocationJson(const store::Snapshot& snapshot, const rapidjson::Value& claim) {
  ASSIGN_OR_RETURN(std::string key, ClaimKey(claim));
  const std::set<std::string> pod_claims = sim::ClaimsReferencedByPods(snapshot.Pods());
  const std::vector<alloc::NodeInfo> nodes = sim::AllocationNodes(snapshot.Nodes(), snapshot.ResourceSlices());
  ASSIGN_OR_RETURN(std::optional<sim::ClaimAllocation> plan,
                   sim::PlanClaimAllocation(snapshot, key, claim, pod_claims, nodes));
  if (!plan) return std::string("{\"allocate\":false}");
  rapidjson::Document doc(rapidjson::kObjectType);
  Allocator& a = doc.GetAllocator();
  doc.AddMember("allocate", true, a);
  doc.AddMember("node", rapidjson::Value(plan->node.c_str(), a), a);
  doc.AddMember("body", rapidjson::Value(plan->body, a), a);
  return api::WriteJson(doc, false);
}

absl::StatusOr<std::string> BindingConditionsJson(const store::Snapshot& snapshot, const rapidjson::Value& claim,
                                                  std::string_view now) {
  const std::vector<const api::ResourceSlice*> slices = snapshot.ResourceSlices();
  const std::map<std::string, const api::Device*> devices = sim::DevicesWithBindingConditions(slices);
  if (devices.empty()) return std::string("{\"write\":false}");
  ASSIGN_OR_RETURN(std::optional<rapidjson::Document> body, sim::PlanBindingConditions(claim, devices, now));
  if (!body) return std::string("{\"write\":false}");
  rapidjson::Document doc(rapidjson::kObjectType);
  Allocator& a = doc.GetAllocator();
  doc.AddMember("write", true, a);
  doc.AddMember("body", rapidjson::Value(*body, a), a);
  return api::WriteJson(doc, false);
}

}  // namespace
}  // namespace draforge::capi

using draforge::capi::Fail;
using draforge::capi::Guard;
namespace capi = draforge::capi;

extern "C" {

int draforge_reconcile_pools(draforge_buffer* out, const char* pools_json, size_t pools_size, const char* slices_json,
                             size_t slices_size, int64_t tick, const char* now, draforge_error** error) {
  return Guard(error, [&]() -> int {
    if (out == nullptr) return Fail(absl::InvalidArgumentError("reconcile pools: out is required"), error);
    auto pools = capi::ParseList(pools_json, pools_size, "pools_json");
    if (!pools.ok()) return Fail(pools.status(), error);
    auto slices = capi::ParseList(slices_json, slices_size, "slices_json");
    if (!slices.ok()) return Fail(slices.status(), error);
    auto plan = capi::PoolsPlanJson(*pools, *slices, tick, now == nullptr ? "" : now);
    if (!plan.ok()) return Fail(plan.status(), error);
    return capi::ToBuffer(*plan, out, error);
  });
}

int draforge_reconcile_claim_allocation(draforge_buffer* out, const draforge_snapshot* snapshot,
                                        const char* claim_json, size_t claim_size, draforge_error** error) {
  return Guard(error, [&]() -> int {
    if (out == nullptr || snapshot == nullptr) {
      return Fail(absl::InvalidArgumentError("reconcile claim allocation: out and snapshot are required"), error);
    }
    auto claim = capi::ParseObject(claim_json, claim_size, "claim_json");
    if (!claim.ok()) return Fail(claim.status(), error);
    auto plan = capi::ClaimAllocationJson(*snapshot->snapshot, *claim);
    if (!plan.ok()) return Fail(plan.status(), error);
    return capi::ToBuffer(*plan, out, error);
  });
}

int draforge_reconcile_binding_conditions(draforge_buffer* out, const draforge_snapshot* snapshot,
                                          const char* claim_json, size_t claim_size, const char* now,
                                          draforge_error** error) {
  return Guard(error, [&]() -> int {
    if (out == nullptr || snapshot == nullptr) {
      return Fail(absl::InvalidArgumentError("reconcile binding conditions: out and snapshot are required"), error);
    }
    auto claim = capi::ParseObject(claim_json, claim_size, "claim_json");
    if (!claim.ok()) return Fail(claim.status(), error);
    auto plan = capi::BindingConditionsJson(*snapshot->snapshot, *claim, now == nullptr ? "" : now);
    if (!plan.ok()) return Fail(plan.status(), error);
    return capi::ToBuffer(*plan, out, error);
  });
}

}  // extern "C"
