#include "sim/reconcile.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <utility>

#include "absl/status/status.h"
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

// A string member of a JSON object, or null.
const char* StringField(const rapidjson::Value& v, const char* name) {
  if (!v.IsObject()) return nullptr;
  auto it = v.FindMember(name);
  return it != v.MemberEnd() && it->value.IsString() ? it->value.GetString() : nullptr;
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

std::optional<rapidjson::Document> PoolStatusUpdate(const rapidjson::Value& item, const SimulatedDevicePool& pool,
                                                    const absl::StatusOr<Expansion>& expansion, std::string_view now) {
  const rapidjson::Value* previous = item.IsObject() && item.HasMember("status") ? &item["status"] : nullptr;
  rapidjson::Document status = PoolStatus(pool, expansion, now, previous);
  if (previous != nullptr && *previous == status) return std::nullopt;
  rapidjson::Document body;
  body.CopyFrom(item, body.GetAllocator());
  body.RemoveMember("status");
  body.AddMember("status", rapidjson::Value(status, body.GetAllocator()), body.GetAllocator());
  return body;
}

PoolsPlan PlanPools(const rapidjson::Value& items, const std::vector<api::ResourceSlice>& slices,
                    ExpandOptions options) {
  PoolsPlan out;
  std::map<std::string, std::vector<api::ResourceSlice>> owned;  // pool name -> its slices
  for (const api::ResourceSlice& s : slices) {
    const std::string pool = OwningPool(s);
    if (!pool.empty()) owned[pool].push_back(s);
  }
  std::set<std::string> seen;
  std::vector<SimulatedDevicePool> accepted;  // expanded so far, to detect contested pools
  if (!items.IsArray()) return out;
  for (rapidjson::SizeType i = 0; i < items.Size(); ++i) {
    const rapidjson::Value& item = items[i];
    const char* name = item.IsObject() && item.HasMember("metadata") ? StringField(item["metadata"], "name") : nullptr;
    if (name == nullptr) continue;
    seen.insert(name);
    PoolPlan plan;
    plan.name = name;
    plan.index = i;
    absl::StatusOr<SimulatedDevicePool> pool = DecodeSimulatedDevicePool(item);
    if (!pool.ok()) {
      plan.pool.metadata.name = plan.name;
      const rapidjson::Value& meta = item["metadata"];
      if (meta.IsObject() && meta.HasMember("generation") && meta["generation"].IsInt64()) {
        plan.pool.metadata.generation = meta["generation"].GetInt64();
      }
      plan.expansion = pool.status();
    } else {
      plan.pool = *pool;
      options.owner = OwnerFor(*pool);
      plan.expansion = Expand(*pool, options);
      if (plan.expansion.ok()) {
        // Two objects publishing the same pool: the one listed first keeps it.
        accepted.push_back(*pool);
        absl::StatusOr<Expansion> all = ExpandAll(accepted, options);
        if (!all.ok()) {
          accepted.pop_back();
          plan.expansion = all.status();
        }
      }
    }
    if (plan.expansion.ok()) {
      plan.actions = PlanSlices(plan.expansion->slices, owned[plan.name]);
    } else {
      ++out.invalid;
    }
    out.pools.push_back(std::move(plan));
  }
  for (const auto& [pool, list] : owned) {
    if (seen.count(pool)) continue;
    for (const api::ResourceSlice& s : list) out.orphans.push_back(s);
  }
  std::sort(out.orphans.begin(), out.orphans.end(), [](const api::ResourceSlice& a, const api::ResourceSlice& b) {
    return a.metadata.name.value_or("") < b.metadata.name.value_or("");
  });
  return out;
}

bool ControllerAllocates(const api::ResourceClaim& claim, const std::string& key,
                         const std::set<std::string>& referenced_by_pod) {
  if (referenced_by_pod.count(key)) return false;
  if ((claim.status && claim.status->allocation) || claim.metadata.deletion_timestamp) return false;
  return std::none_of(claim.metadata.owner_references.begin(), claim.metadata.owner_references.end(),
                      [](const api::OwnerReference& o) { return o.kind == "Pod"; });
}

std::string BindingDeviceKey(std::string_view driver, std::string_view pool, std::string_view device) {
  return absl::StrCat(AV(driver), "/", AV(pool), "/", AV(device));
}

std::map<std::string, const api::Device*> DevicesWithBindingConditions(
    const std::vector<const api::ResourceSlice*>& slices) {
  std::map<std::string, const api::Device*> out;
  for (const api::ResourceSlice* s : slices) {
    if (s == nullptr || !s->spec || !s->spec->pool) continue;
    for (const api::Device& d : s->spec->devices) {
      if (d.binding_conditions.empty()) continue;
      out[BindingDeviceKey(s->spec->driver.value_or(""), s->spec->pool->name.value_or(""), d.name.value_or(""))] = &d;
    }
  }
  return out;
}

std::vector<std::string> WantedBindingConditions(const api::Device& device) {
  const bool fail = std::find(device.binding_failure_conditions.begin(), device.binding_failure_conditions.end(),
                              kBindingFailedCondition) != device.binding_failure_conditions.end();
  return fail ? std::vector<std::string>{kBindingFailedCondition} : device.binding_conditions;
}

absl::StatusOr<std::optional<rapidjson::Document>> PlanBindingConditions(
    const rapidjson::Value& claim, const std::map<std::string, const api::Device*>& devices, std::string_view now) {
  std::string who = "ResourceClaim";
  if (claim.IsObject() && claim.HasMember("metadata")) {
    const char* ns = StringField(claim["metadata"], "namespace");
    const char* name = StringField(claim["metadata"], "name");
    who = absl::StrCat("ResourceClaim ", ns != nullptr ? ns : "", ns != nullptr ? "/" : "", name != nullptr ? name : "");
  }
  auto invalid = [&](std::string_view field, std::string_view what) {
    return absl::InvalidArgumentError(absl::StrCat(who, ": ", AV(field), ": ", AV(what)));
  };
  if (!claim.IsObject()) return invalid("(object)", "not an object");
  auto status_it = claim.FindMember("status");
  if (status_it == claim.MemberEnd() || !status_it->value.IsObject() || !status_it->value.HasMember("allocation")) {
    return std::optional<rapidjson::Document>();
  }
  const rapidjson::Value& allocation = status_it->value["allocation"];
  if (!allocation.IsObject()) return invalid("status.allocation", "not an object");
  if (!allocation.HasMember("devices")) return std::optional<rapidjson::Document>();
  const rapidjson::Value& alloc_devices = allocation["devices"];
  if (!alloc_devices.IsObject()) return invalid("status.allocation.devices", "not an object");
  if (!alloc_devices.HasMember("results")) return std::optional<rapidjson::Document>();
  if (!alloc_devices["results"].IsArray()) return invalid("status.allocation.devices.results", "not a list");
  if (status_it->value.HasMember("devices") && !status_it->value["devices"].IsArray()) {
    return invalid("status.devices", "not a list");
  }

  rapidjson::Document body;
  body.CopyFrom(claim, body.GetAllocator());
  auto& a = body.GetAllocator();
  rapidjson::Value& status = body["status"];
  if (!status.HasMember("devices")) status.AddMember("devices", rapidjson::Value(rapidjson::kArrayType), a);
  rapidjson::Value& entries = status["devices"];
  const rapidjson::Value& results = body["status"]["allocation"]["devices"]["results"];
  bool changed = false;
  for (rapidjson::SizeType i = 0; i < results.Size(); ++i) {
    const rapidjson::Value& r = results[i];
    const std::string field = absl::StrCat("status.allocation.devices.results[", i, "]");
    const char* driver = StringField(r, "driver");
    const char* pool = StringField(r, "pool");
    const char* device = StringField(r, "device");
    if (driver == nullptr || pool == nullptr || device == nullptr) {
      return invalid(field, "driver, pool and device must be strings");
    }
    // Only results that carry binding conditions: the scheduler waits on those alone.
    if (!r.HasMember("bindingConditions")) continue;
    auto it = devices.find(BindingDeviceKey(driver, pool, device));
    if (it == devices.end() || it->second == nullptr) continue;
    const char* share = StringField(r, "shareID");
    rapidjson::Value* entry = nullptr;
    for (rapidjson::SizeType j = 0; j < entries.Size(); ++j) {
      rapidjson::Value& e = entries[j];
      const char* ed = StringField(e, "driver");
      const char* ep = StringField(e, "pool");
      const char* ev = StringField(e, "device");
      if (ed == nullptr || ep == nullptr || ev == nullptr) {
        return invalid(absl::StrCat("status.devices[", j, "]"), "driver, pool and device must be strings");
      }
      const char* es = StringField(e, "shareID");
      if (std::string_view(ed) == driver && std::string_view(ep) == pool && std::string_view(ev) == device &&
          std::string_view(es != nullptr ? es : "") == std::string_view(share != nullptr ? share : "")) {
        entry = &e;
      }
    }
    if (entry == nullptr) {
      rapidjson::Value e(rapidjson::kObjectType);
      e.AddMember("driver", JsonString(driver, a), a);
      e.AddMember("pool", JsonString(pool, a), a);
      e.AddMember("device", JsonString(device, a), a);
      if (share != nullptr) e.AddMember("shareID", JsonString(share, a), a);
      e.AddMember("conditions", rapidjson::Value(rapidjson::kArrayType), a);
      entries.PushBack(e, a);
      entry = &entries[entries.Size() - 1];
    }
    if (!entry->HasMember("conditions")) entry->AddMember("conditions", rapidjson::Value(rapidjson::kArrayType), a);
    rapidjson::Value& conditions = (*entry)["conditions"];
    if (!conditions.IsArray()) return invalid("status.devices[].conditions", "not a list");
    const std::vector<std::string> want = WantedBindingConditions(*it->second);
    const bool fail = want.size() == 1 && want[0] == kBindingFailedCondition;
    for (const std::string& type : want) {
      const bool present = std::any_of(conditions.Begin(), conditions.End(), [&](const rapidjson::Value& c) {
        const char* t = StringField(c, "type");
        const char* st = StringField(c, "status");
        return t != nullptr && st != nullptr && type == t && std::string_view(st) == "True";
      });
      if (present) continue;
      rapidjson::Value c(rapidjson::kObjectType);
      c.AddMember("type", JsonString(type, a), a);
      c.AddMember("status", "True", a);
      c.AddMember("lastTransitionTime", JsonString(now, a), a);
      c.AddMember("reason", rapidjson::StringRef(fail ? "SimulatedFailure" : "SimulatedReady"), a);
      c.AddMember("message",
                  rapidjson::StringRef(fail ? "draforge-sim: binding-failure fault on this device"
                                            : "draforge-sim: simulated device is ready"),
                  a);
      conditions.PushBack(c, a);
      changed = true;
    }
  }
  if (!changed) return std::optional<rapidjson::Document>();
  return std::optional<rapidjson::Document>(std::move(body));
}

}  // namespace draforge::sim
