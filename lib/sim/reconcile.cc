#include "sim/reconcile.h"

#include <algorithm>
#include <map>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/status.h"
#include "sim/profiles.h"
#include "common/json_string.h"

namespace draforge::sim {
namespace {

// The API server may stamp taints it did not get a time for; a stamp on the existing side only is not
// a difference.
api::ResourceSliceSpec Normalized(const api::ResourceSliceSpec& spec, const api::ResourceSliceSpec& desired) {
  api::ResourceSliceSpec out = spec;
  for (size_t i = 0; i < out.devices.size() && i < desired.devices.size(); ++i) {
    for (size_t j = 0; j < out.devices[i].taints.size() && j < desired.devices[i].taints.size(); ++j) {
      if (!desired.devices[i].taints[j].time_added) out.devices[i].taints[j].time_added.reset();
    }
  }
  return out;
}

bool SameOwner(const api::OwnerReference& a, const api::OwnerReference& b) {
  return a.api_version == b.api_version && a.kind == b.kind && a.name == b.name && a.uid == b.uid &&
         a.controller.value_or(false) == b.controller.value_or(false);
}

}  // namespace

bool SliceUpToDate(const api::ResourceSlice& desired, const api::ResourceSlice& existing) {
  if (desired.spec.has_value() != existing.spec.has_value()) return false;
  if (desired.spec && !(Normalized(*existing.spec, *desired.spec) == *desired.spec)) return false;
  for (const auto& [k, v] : desired.metadata.labels) {
    const std::string* got = existing.metadata.labels.Find(k);
    if (got == nullptr || *got != v) return false;
  }
  for (const api::OwnerReference& want : desired.metadata.owner_references) {
    const bool found = std::any_of(existing.metadata.owner_references.begin(), existing.metadata.owner_references.end(),
                                   [&](const api::OwnerReference& o) { return SameOwner(o, want); });
    if (!found) return false;
  }
  return true;
}

std::vector<SliceAction> PlanSlices(const std::vector<api::ResourceSlice>& desired,
                                    const std::vector<api::ResourceSlice>& existing) {
  std::map<std::string, const api::ResourceSlice*> have;
  for (const api::ResourceSlice& s : existing) have[s.metadata.name.value_or("")] = &s;
  std::map<std::string, const api::ResourceSlice*> want;
  for (const api::ResourceSlice& s : desired) want[s.metadata.name.value_or("")] = &s;
  std::vector<SliceAction> creates, updates, deletes;
  for (const auto& [name, d] : want) {
    auto it = have.find(name);
    if (it == have.end()) {
      creates.push_back({SliceAction::Type::kCreate, *d});
    } else if (!SliceUpToDate(*d, *it->second)) {
      SliceAction a{SliceAction::Type::kUpdate, *d};
      a.slice.metadata.resource_version = it->second->metadata.resource_version;
      a.slice.metadata.uid = it->second->metadata.uid;
      // Labels and owners someone else added are kept.
      for (const auto& [k, v] : it->second->metadata.labels) {
        if (!a.slice.metadata.labels.Contains(k)) a.slice.metadata.labels.Set(k, v);
      }
      for (const api::OwnerReference& o : it->second->metadata.owner_references) {
        const bool ours = std::any_of(a.slice.metadata.owner_references.begin(), a.slice.metadata.owner_references.end(),
                                      [&](const api::OwnerReference& w) { return SameOwner(w, o); });
        if (!ours) a.slice.metadata.owner_references.push_back(o);
      }
      updates.push_back(std::move(a));
    }
  }
  for (const auto& [name, e] : have) {
    if (!want.count(name)) deletes.push_back({SliceAction::Type::kDelete, *e});
  }
  std::vector<SliceAction> out;
  for (auto* v : {&creates, &updates, &deletes}) {
    for (SliceAction& a : *v) out.push_back(std::move(a));
  }
  return out;
}

std::string OwningPool(const api::ResourceSlice& slice) {
  for (const api::OwnerReference& o : slice.metadata.owner_references) {
    if (o.kind == kKind && o.controller.value_or(false) && o.api_version.value_or("").rfind(kGroup, 0) == 0) {
      return o.name.value_or("");
    }
  }
  return "";
}

api::OwnerReference OwnerFor(const SimulatedDevicePool& pool) {
  api::OwnerReference o;
  o.api_version = kApiVersion;
  o.kind = kKind;
  o.name = pool.metadata.name;
  o.uid = pool.metadata.uid;
  o.controller = true;
  o.block_owner_deletion = true;
  return o;
}

rapidjson::Document PoolStatus(const SimulatedDevicePool& pool, const absl::StatusOr<Expansion>& expansion,
                               std::string_view now, const rapidjson::Value* previous) {
  rapidjson::Document d;
  d.SetObject();
  auto& a = d.GetAllocator();
  auto str = [&](std::string_view s) {
    return JsonString(s, a);
  };
  if (pool.metadata.generation) d.AddMember("observedGeneration", *pool.metadata.generation, a);
  const ProfileInfo* profile = FindProfile(pool.spec.profile);
  const std::string driver =
      !pool.spec.driver.empty() ? pool.spec.driver : profile != nullptr ? std::string(profile->driver) : "";
  if (!driver.empty()) d.AddMember("driver", str(driver), a);
  d.AddMember("faultCount", static_cast<int64_t>(pool.spec.faults.size()), a);
  const bool ready = expansion.ok();
  if (ready) {
    int64_t generation = 0;
    for (const PublishedPool& p : expansion->pools) generation = std::max(generation, p.generation);
    d.AddMember("poolGeneration", generation, a);
    d.AddMember("sliceCount", static_cast<int64_t>(expansion->slices.size()), a);
    rapidjson::Value names(rapidjson::kArrayType);
    for (const api::ResourceSlice& s : expansion->slices) names.PushBack(str(s.metadata.name.value_or("")), a);
    d.AddMember("slices", names, a);
  }
  // Ready: lastTransitionTime moves only when the status flips.
  std::string transition(now);
  const std::string status = ready ? "True" : "False";
  if (previous != nullptr && previous->IsObject() && previous->HasMember("conditions") &&
      (*previous)["conditions"].IsArray()) {
    for (const auto& c : (*previous)["conditions"].GetArray()) {
      if (c.IsObject() && c.HasMember("type") && c["type"].IsString() && std::string(c["type"].GetString()) == "Ready" &&
          c.HasMember("status") && c["status"].IsString() && status == c["status"].GetString() &&
          c.HasMember("lastTransitionTime") && c["lastTransitionTime"].IsString()) {
        transition = c["lastTransitionTime"].GetString();
      }
    }
  }
  rapidjson::Value cond(rapidjson::kObjectType);
  cond.AddMember("type", "Ready", a);
  cond.AddMember("status", str(status), a);
  if (pool.metadata.generation) cond.AddMember("observedGeneration", *pool.metadata.generation, a);
  cond.AddMember("lastTransitionTime", str(transition), a);
  cond.AddMember("reason", rapidjson::StringRef(ready ? "Published" : "InvalidSpec"), a);
  const std::string message =
      ready ? absl::StrCat(expansion->slices.size(), " slices published")
            : std::string(expansion.status().message());
  cond.AddMember("message", str(message), a);
  rapidjson::Value conditions(rapidjson::kArrayType);
  conditions.PushBack(cond, a);
  d.AddMember("conditions", conditions, a);
  return d;
}

}  // namespace draforge::sim
