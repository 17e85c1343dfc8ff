#include "sim/scenario_plan.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <iterator>
#include <optional>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "api/codec.h"
#include "common/status.h"
#include "sim/expand.h"
#include "sim/scenario.h"
#include "sim/simulated_device_pool.h"

namespace draforge::sim {
namespace {

// Position in ScenarioKinds(); -1 for a kind apply does not create.
int KindOrder(std::string_view kind) {
  const auto& kinds = ScenarioKinds();
  auto it = std::find(kinds.begin(), kinds.end(), kind);
  return it == kinds.end() ? -1 : static_cast<int>(it - kinds.begin());
}

bool IsLabelChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.'; }
bool IsAlnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }

// Strips what the server sets and adds the scenario's labels (replacing any the input had).
void Prepare(rapidjson::Document& d, std::string_view scenario) {
  auto& a = d.GetAllocator();
  d.RemoveMember("status");
  if (!d.HasMember("metadata") || !d["metadata"].IsObject()) {
    d.RemoveMember("metadata");
    d.AddMember("metadata", rapidjson::Value(rapidjson::kObjectType), a);
  }
  rapidjson::Value& meta = d["metadata"];
  for (const char* k : {"resourceVersion", "uid", "creationTimestamp", "managedFields", "generation", "selfLink",
                        "deletionTimestamp", "deletionGracePeriodSeconds"}) {
    meta.RemoveMember(k);
  }
  if (!meta.HasMember("labels") || !meta["labels"].IsObject()) {
    meta.RemoveMember("labels");
    meta.AddMember("labels", rapidjson::Value(rapidjson::kObjectType), a);
  }
  rapidjson::Value& labels = meta["labels"];
  labels.RemoveMember(kScenarioLabel);
  labels.RemoveMember(kManagedByLabel);
  labels.AddMember(rapidjson::Value(kScenarioLabel, a),
                   rapidjson::Value(scenario.data(), static_cast<rapidjson::SizeType>(scenario.size()), a), a);
  labels.AddMember(rapidjson::Value(kManagedByLabel, a), rapidjson::Value(kManagedByValue, a), a);
}

}  // namespace

const std::vector<std::string_view>& ScenarioKinds() {
  static const std::vector<std::string_view> kinds = {
      "Namespace",       "DeviceClass",           "SimulatedDevicePool", "ResourceSlice",
      "DeviceTaintRule", "ResourceClaimTemplate", "ResourceClaim",       "Pod"};
  return kinds;
}

std::string ScenarioWrite::Ref() const {
  const std::string lower = absl::AsciiStrToLower(kind_name);
  return namespace_.empty() ? absl::StrCat(lower, "/", name) : absl::StrCat(lower, "/", namespace_, "/", name);
}

absl::StatusOr<ScenarioApplyPlan> PlanScenarioApply(const std::vector<api::Object>& objects,
                                                    std::string_view scenario, ScenarioMode mode) {
  const bool pools_mode = mode == ScenarioMode::kPools;
  ASSIGN_OR_RETURN(Scenario split, SplitScenario(objects));
  // Expanded even in pools mode: a pool that would not expand is refused before anything is written.
  ASSIGN_OR_RETURN(Expansion expansion, ExpandAll(split.pools));
  std::vector<api::Object> to_create = std::move(split.objects);
  if (!pools_mode) {
    for (const api::ResourceSlice& s : expansion.slices) {
      api::Object o;
      o.api_version = "resource.k8s.io/v1";
      o.value = s;
      to_create.push_back(std::move(o));
    }
  } else {
    for (const api::Object& o : objects) {
      if (IsSimulatedDevicePool(o)) to_create.push_back(o);
    }
  }
  ScenarioApplyPlan plan;
  for (const api::Object& o : to_create) {
    ScenarioWrite w;
    w.kind = o.kind();
    w.kind_name = std::string(w.kind == api::Kind::kOther ? std::get<api::OtherObject>(o.value).kind : o.kind_name());
    w.name = o.metadata().name.value_or("");
    if (w.kind == api::Kind::kNode) {
      plan.notes.push_back(absl::StrCat("node/", w.name, " skipped: nodes come from the cluster"));
      continue;
    }
    bool supported = KindOrder(w.kind_name) >= 0;
    bool namespaced = false;
    std::string encode_version;
    if (w.kind != api::Kind::kOther) {
      namespaced = api::IsNamespaced(w.kind);
      if (o.api_version.rfind("resource.k8s.io/", 0) == 0) encode_version = "resource.k8s.io/v1";
    } else if (IsSimulatedDevicePool(o)) {
      namespaced = false;
    } else {
      // The only other kind apply creates: core/v1 Namespace.
      supported = supported && w.kind_name == "Namespace" && o.api_version == "v1";
    }
    if (!supported) {
      return absl::InvalidArgumentError(
          absl::StrCat(o.api_version, " ", w.kind_name, " \"", w.name,
                       "\": scenario apply creates Namespaces, DeviceClasses, SimulatedDevicePools, ResourceSlices, "
                       "DeviceTaintRules, ResourceClaimTemplates, ResourceClaims and Pods only"));
    }
    auto body = api::EncodeObject(o, encode_version);
    if (!body.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(w.kind_name, " \"", w.name, "\": ", body.status().message()));
    }
    w.api_version = encode_version.empty() ? o.api_version : encode_version;
    if (namespaced) w.namespace_ = o.metadata().namespace_.value_or("default");
    w.body = *std::move(body);
    Prepare(w.body, scenario);
    plan.writes.push_back(std::move(w));
  }
  std::stable_sort(plan.writes.begin(), plan.writes.end(), [](const ScenarioWrite& a, const ScenarioWrite& b) {
    return KindOrder(a.kind_name) < KindOrder(b.kind_name);
  });
  return plan;
}

bool OwnedByScenario(const rapidjson::Value& object, std::string_view scenario) {
  if (!object.IsObject()) return false;
  auto m = object.FindMember("metadata");
  if (m == object.MemberEnd() || !m->value.IsObject()) return false;
  auto l = m->value.FindMember("labels");
  if (l == m->value.MemberEnd() || !l->value.IsObject()) return false;
  auto v = l->value.FindMember(kScenarioLabel);
  return v != l->value.MemberEnd() && v->value.IsString() &&
         std::string_view(v->value.GetString(), v->value.GetStringLength()) == scenario;
}

std::string ScenarioNameFromPath(std::string path) {
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  std::string base = std::filesystem::path(path).stem().string();
  if (base == "scenario" || base.empty()) base = std::filesystem::path(path).parent_path().filename().string();
  std::string out;
  for (char c : base) {
    const char l = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    out.push_back(IsLabelChar(l) ? l : '-');
  }
  while (!out.empty() && !IsAlnum(out.front())) out.erase(out.begin());
  while (!out.empty() && !IsAlnum(out.back())) out.pop_back();
  if (out.size() > 63) out.resize(63);
  return out;
}

bool ValidScenarioName(std::string_view name) {
  if (name.empty() || name.size() > 63) return false;
  if (!std::all_of(name.begin(), name.end(), IsLabelChar)) return false;
  return IsAlnum(name.front()) && IsAlnum(name.back());
}

}  // namespace draforge::sim
