#include "alloc/fragmentation_json.h"

#include "absl/strings/str_cat.h"
#include "alloc/allocator.h"
#include "api/codec.h"
#include "alloc/internal/results_json.h"
#include "common/json_string.h"
#include "rapidjson/document.h"

namespace draforge::alloc {
namespace {

using Alloc = rapidjson::Document::AllocatorType;

rapidjson::Value Kind(const KindFragmentation& k, Alloc& a) {
  rapidjson::Value o(rapidjson::kObjectType);
  o.AddMember("driver", JsonString(k.driver, a), a);
  o.AddMember("kind", JsonString(k.kind, a), a);
  o.AddMember("size", JsonString(k.size, a), a);
  o.AddMember("devices", k.devices, a);
  o.AddMember("allocated", k.allocated, a);
  o.AddMember("tainted", k.tainted, a);
  o.AddMember("free", k.free, a);
  o.AddMember("fit", k.fit, a);
  o.AddMember("ideal", k.ideal, a);
  o.AddMember("score", k.score, a);
  return o;
}

rapidjson::Value Kinds(const std::vector<KindFragmentation>& kinds, Alloc& a) {
  rapidjson::Value out(rapidjson::kArrayType);
  for (const auto& k : kinds) out.PushBack(Kind(k, a), a);
  return out;
}

rapidjson::Value Capacities(const std::vector<CapacityFragmentation>& caps, Alloc& a) {
  rapidjson::Value out(rapidjson::kArrayType);
  for (const auto& c : caps) {
    rapidjson::Value o(rapidjson::kObjectType);
    o.AddMember("driver", JsonString(c.driver, a), a);
    o.AddMember("name", JsonString(c.name, a), a);
    o.AddMember("devices", c.devices, a);
    o.AddMember("capacity", JsonString(c.capacity.String(), a), a);
    o.AddMember("consumed", JsonString(c.consumed.String(), a), a);
    o.AddMember("free", JsonString(c.free.String(), a), a);
    o.AddMember("largest", JsonString(c.largest.String(), a), a);
    o.AddMember("score", c.score, a);
    out.PushBack(o, a);
  }
  return out;
}

absl::StatusOr<rapidjson::Value> Advice(const DefragAdvice& adv, Alloc& a) {
  rapidjson::Value o(rapidjson::kObjectType);
  o.AddMember("shape", JsonString(adv.shape, a), a);
  o.AddMember("fitsNow", adv.fits_now, a);
  rapidjson::Value blocked(rapidjson::kArrayType);
  for (const auto& b : adv.blocked) {
    rapidjson::Value e(rapidjson::kObjectType);
    e.AddMember("node", JsonString(b.node, a), a);
    e.AddMember("filter", JsonString(b.filter, a), a);
    e.AddMember("reason", JsonString(b.reason, a), a);
    blocked.PushBack(e, a);
  }
  o.AddMember("blocked", blocked, a);
  o.AddMember("found", adv.found, a);
  o.AddMember("node", JsonString(adv.node, a), a);
  rapidjson::Value moves(rapidjson::kArrayType);
  for (const auto& m : adv.moves) {
    rapidjson::Value e(rapidjson::kObjectType);
    e.AddMember("pods", internal::JsonStrings(m.pods, a), a);
    e.AddMember("claims", internal::JsonStrings(m.claims, a), a);
    e.AddMember("claimsAfter", internal::JsonStrings(m.claims_after, a), a);
    e.AddMember("fromNode", JsonString(m.from_node, a), a);
    e.AddMember("toNode", JsonString(m.to_node, a), a);
    e.AddMember("fromDevices", internal::JsonStrings(m.from_devices, a), a);
    e.AddMember("toDevices", internal::JsonStrings(m.to_devices, a), a);
    moves.PushBack(e, a);
  }
  o.AddMember("moves", moves, a);
  o.AddMember("shapeNode", JsonString(adv.shape_node, a), a);
  rapidjson::Value claims(rapidjson::kArrayType);
  for (const auto& c : adv.shape_claims) {
    auto results = internal::DeviceResultsJson(c.claim, c.allocation, a);
    if (!results.ok()) return results.status();
    rapidjson::Value e(rapidjson::kObjectType);
    e.AddMember("claim", JsonString(c.claim, a), a);
    e.AddMember("results", *results, a);
    claims.PushBack(e, a);
  }
  o.AddMember("shapeClaims", claims, a);
  rapidjson::Value search(rapidjson::kObjectType);
  search.AddMember("maxMoves", adv.max_moves, a);
  search.AddMember("maxCandidates", adv.max_candidates, a);
  search.AddMember("maxTrials", adv.max_trials, a);
  search.AddMember("trials", adv.trials, a);
  search.AddMember("budgetExhausted", adv.budget_exhausted, a);
  o.AddMember("search", search, a);
  o.AddMember("why", JsonString(adv.why, a), a);
  return o;
}

}  // namespace

absl::StatusOr<std::string> FragmentationJson(const FragmentationReport& r, const DefragAdvice* advice) {
  rapidjson::Document d(rapidjson::kObjectType);
  auto& a = d.GetAllocator();
  rapidjson::Value pools(rapidjson::kArrayType);
  for (const auto& p : r.pools) {
    rapidjson::Value o(rapidjson::kObjectType);
    o.AddMember("driver", JsonString(p.driver, a), a);
    o.AddMember("pool", JsonString(p.pool, a), a);
    o.AddMember("node", JsonString(p.node, a), a);
    o.AddMember("kinds", Kinds(p.kinds, a), a);
    rapidjson::Value counters(rapidjson::kArrayType);
    for (const auto& c : p.counters) {
      rapidjson::Value e(rapidjson::kObjectType);
      e.AddMember("counterSet", JsonString(c.counter_set, a), a);
      e.AddMember("counter", JsonString(c.counter, a), a);
      e.AddMember("capacity", JsonString(c.capacity.String(), a), a);
      e.AddMember("consumed", JsonString(c.consumed.String(), a), a);
      e.AddMember("free", JsonString(c.free.String(), a), a);
      counters.PushBack(e, a);
    }
    o.AddMember("counters", counters, a);
    o.AddMember("capacity", Capacities(p.capacity, a), a);
    pools.PushBack(o, a);
  }
  d.AddMember("pools", pools, a);
  rapidjson::Value nodes(rapidjson::kArrayType);
  for (const auto& n : r.nodes) {
    rapidjson::Value o(rapidjson::kObjectType);
    o.AddMember("node", JsonString(n.node, a), a);
    o.AddMember("kinds", Kinds(n.kinds, a), a);
    o.AddMember("capacity", Capacities(n.capacity, a), a);
    nodes.PushBack(o, a);
  }
  d.AddMember("nodes", nodes, a);
  rapidjson::Value kinds(rapidjson::kArrayType);
  for (const auto& k : r.kinds) {
    rapidjson::Value o(rapidjson::kObjectType);
    o.AddMember("driver", JsonString(k.driver, a), a);
    o.AddMember("kind", JsonString(k.kind, a), a);
    o.AddMember("size", JsonString(k.size, a), a);
    o.AddMember("free", k.free, a);
    o.AddMember("fit", k.fit, a);
    o.AddMember("largestFit", k.largest_fit, a);
    o.AddMember("largestNode", JsonString(k.largest_node, a), a);
    o.AddMember("score", k.score, a);
    kinds.PushBack(o, a);
  }
  d.AddMember("kinds", kinds, a);
  d.AddMember("skipped", internal::JsonStrings(r.skipped, a), a);
  if (advice != nullptr) {
    auto adv = Advice(*advice, a);
    if (!adv.ok()) return adv.status();
    d.AddMember("advice", *adv, a);
  }
  return api::WriteJson(d, false);
}

}  // namespace draforge::alloc
