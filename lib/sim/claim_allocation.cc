#include "sim/claim_allocation.h"

#include <algorithm>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/status.h"
#include "sim/reconcile.h"

namespace draforge::sim {

std::set<std::string> ClaimsReferencedByPods(const std::vector<const api::Pod*>& pods) {
  std::set<std::string> out;
  for (const api::Pod* pod : pods) {
    const std::string ns = pod->metadata.namespace_.value_or("default");
    if (pod->spec) {
      for (const auto& rc : pod->spec->resource_claims) {
        if (rc.resource_claim_name) out.insert(absl::StrCat(ns, "/", *rc.resource_claim_name));
      }
    }
    if (pod->status) {
      for (const auto& st : pod->status->resource_claim_statuses) {
        if (st.resource_claim_name) out.insert(absl::StrCat(ns, "/", *st.resource_claim_name));
      }
    }
  }
  return out;
}

std::vector<alloc::NodeInfo> AllocationNodes(const std::vector<const api::Node*>& nodes,
                                             const std::vector<const api::ResourceSlice*>& slices) {
  std::set<std::string> slice_nodes;
  for (const api::ResourceSlice* s : slices) {
    if (s->spec && s->spec->node_name) slice_nodes.insert(*s->spec->node_name);
  }
  std::vector<alloc::NodeInfo> out;
  for (const api::Node* n : nodes) {
    out.push_back(alloc::NodeInfo::FromNode(*n));
    slice_nodes.erase(n->metadata.name.value_or(""));
  }
  for (const std::string& n : slice_nodes) out.push_back(alloc::NodeInfo{n, {}});
  return out;
}

absl::StatusOr<std::optional<ClaimAllocation>> PlanClaimAllocation(const store::Snapshot& snapshot,
                                                                   const std::string& key,
                                                                   const rapidjson::Value& claim_json,
                                                                   const std::set<std::string>& referenced_by_pod,
                                                                   const std::vector<alloc::NodeInfo>& nodes) {
  const size_t slash = key.find('/');
  const api::ResourceClaim* claim =
      slash == std::string::npos ? nullptr : snapshot.GetResourceClaim(key.substr(0, slash), key.substr(slash + 1));
  if (claim == nullptr) return absl::NotFoundError(absl::StrCat("resourceclaim ", key, " not found"));
  if (!claim_json.IsObject()) {
    return absl::InvalidArgumentError(absl::StrCat("resourceclaim ", key, ": not a JSON object"));
  }
  if (!ControllerAllocates(*claim, key, referenced_by_pod)) return std::nullopt;
  for (const alloc::NodeInfo& node : nodes) {
    alloc::AllocateResult r = alloc::Allocate(snapshot, {claim}, node);
    if (r.outcome != alloc::Outcome::kAllocated) continue;
    ASSIGN_OR_RETURN(rapidjson::Document allocation, alloc::EncodeAllocationResult(r.allocations[0]));
    ClaimAllocation out;
    out.node = node.name;
    out.body.CopyFrom(claim_json, out.body.GetAllocator());
    auto& a = out.body.GetAllocator();
    if (!out.body.HasMember("status") || !out.body["status"].IsObject()) {
      out.body.RemoveMember("status");
      out.body.AddMember("status", rapidjson::Value(rapidjson::kObjectType), a);
    }
    out.body["status"].RemoveMember("allocation");
    out.body["status"].AddMember("allocation", rapidjson::Value(allocation, a), a);
    return out;
  }
  return std::nullopt;
}

}  // namespace draforge::sim
