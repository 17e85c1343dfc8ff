// The C ABI over lib/sim: profiles, expansion, faults and scenario plans (include/draforge/sim.h).
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "api/codec.h"
#include "capi/internal.h"
#include "common/json_string.h"
#include "common/status.h"
#include "draforge/sim.h"
#include "kube/resource.h"
#include "rapidjson/document.h"
#include "sim/expand.h"
#include "sim/faults.h"
#include "sim/profiles.h"
#include "sim/scenario.h"
#include "sim/scenario_plan.h"
#include "sim/simulated_device_pool.h"

namespace draforge::capi {
namespace {

const draforge_sim_expand_options kDefaultExpandOptions = DRAFORGE_SIM_EXPAND_OPTIONS_INIT;

using Allocator = rapidjson::Document::AllocatorType;

rapidjson::Value S(std::string_view s, Allocator& a) { return JsonString(s, a); }

absl::StatusOr<rapidjson::Document> ParsePool(const char* json, size_t size, const char* what) {
  if (json == nullptr) return absl::InvalidArgumentError(absl::StrCat(what, ": pool_json must not be NULL"));
  return api::ParseJson(std::string_view(json, size));
}

// The API resource a kind is written to (lib/sim plans in kinds, clusters speak resources).
absl::StatusOr<kube::Resource> ResourceOfKind(std::string_view kind) {
  if (kind == sim::kKind) return kube::Resource{sim::kGroup, sim::kVersion, sim::kResource, sim::kKind, false};
  if (kind == "Namespace") return kube::NamespaceResource();
  if (auto k = api::ParseKindName(kind)) {
    if (auto r = kube::ResourceFor(*k)) return *r;
  }
  return absl::InternalError(absl::StrCat("no API resource for kind ", AV(kind)));
}

void AddResource(rapidjson::Value& o, const kube::Resource& r, Allocator& a) {
  o.AddMember("group", S(r.group, a), a);
  o.AddMember("version", S(r.version, a), a);
  o.AddMember("resource", S(r.resource, a), a);
  o.AddMember("namespaced", rapidjson::Value(r.namespaced), a);
}

// The objects of `text` (as draforge_objects_parse reads it, or a JSON array of objects), every one
// decoded or the first failure, numbered as the parser numbers them.
absl::StatusOr<std::vector<api::Object>> DecodeObjects(std::string_view text) {
  std::string list;
  const size_t first = text.find_first_not_of(" \t\r\n");
  if (first != std::string_view::npos && text[first] == '[') {
    // A bare JSON array: the same objects as a List of them.
    list = absl::StrCat("{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":", AV(text), "}");
    text = list;
  }
  ASSIGN_OR_RETURN(std::vector<api::DecodedObject> decoded, api::DecodeStream(text, {}));
  std::vector<api::Object> out;
  for (api::DecodedObject& d : decoded) {
    if (!d.object.ok()) {
      return absl::Status(d.object.status().code(), absl::StrCat("object ", d.index + 1, " (line ", d.line,
                                                                 "): ", d.object.status().message()));
    }
    out.push_back(*std::move(d.object));
  }
  return out;
}

}  // namespace
}  // namespace draforge::capi

extern "C" {

int draforge_sim_profiles_json(draforge_buffer* out, draforge_error** error) {
  using namespace draforge;
  return capi::Guard(error, [&]() -> int {
    if (out == nullptr) return capi::Fail(absl::InvalidArgumentError("draforge_sim_profiles_json: out is NULL"), error);
    *out = draforge_buffer{nullptr, 0};
    rapidjson::Document d(rapidjson::kArrayType);
    auto& a = d.GetAllocator();
    for (const sim::ProfileInfo& p : sim::Profiles()) {
      rapidjson::Value o(rapidjson::kObjectType);
      o.AddMember("name", capi::S(p.name, a), a);
      o.AddMember("driver", capi::S(p.driver, a), a);
      o.AddMember("unit", capi::S(p.unit, a), a);
      o.AddMember("defaultDevicesPerNode", rapidjson::Value(static_cast<int64_t>(p.default_devices_per_node)), a);
      rapidjson::Value options(rapidjson::kArrayType);
      for (std::string_view option : p.options) options.PushBack(capi::S(option, a), a);
      o.AddMember("options", options, a);
      o.AddMember("description", capi::S(p.description, a), a);
      d.PushBack(o, a);
    }
    return capi::ToBuffer(api::WriteJson(d, false), out, error);
  });
}

int draforge_sim_fault_types_json(draforge_buffer* out, draforge_error** error) {
  using namespace draforge;
  return capi::Guard(error, [&]() -> int {
    if (out == nullptr) {
      return capi::Fail(absl::InvalidArgumentError("draforge_sim_fault_types_json: out is NULL"), error);
    }
    *out = draforge_buffer{nullptr, 0};
    rapidjson::Document d(rapidjson::kArrayType);
    auto& a = d.GetAllocator();
    for (int t = static_cast<int>(sim::FaultType::kTaint); t <= static_cast<int>(sim::FaultType::kBindingFailure);
         ++t) {
      d.PushBack(capi::S(sim::FaultTypeName(static_cast<sim::FaultType>(t)), a), a);
    }
    return capi::ToBuffer(api::WriteJson(d, false), out, error);
  });
}

int draforge_sim_pool_check(const char* pool_json, size_t size, draforge_error** error) {
  using namespace draforge;
  return capi::Guard(error, [&]() -> int {
    auto doc = capi::ParsePool(pool_json, size, "draforge_sim_pool_check");
    if (!doc.ok()) return capi::Fail(doc.status(), error);
    return capi::Fail(sim::DecodeSimulatedDevicePool(*doc).status(), error);
  });
}

int draforge_sim_expand_options_init(draforge_sim_expand_options* options, unsigned int version) {
  return draforge::capi::InitOptions(options, version, DRAFORGE_SIM_EXPAND_OPTIONS_VERSION,
                                     draforge::capi::kDefaultExpandOptions);
}

int draforge_sim_expand(draforge_buffer* out, const char* pools_json, size_t size,
                        const draforge_sim_expand_options* options, draforge_error** error) {
  using namespace draforge;
  return capi::Guard(error, [&]() -> int {
    if (out == nullptr || pools_json == nullptr) {
      return capi::Fail(absl::InvalidArgumentError("draforge_sim_expand: out and pools_json must not be NULL"), error);
    }
    *out = draforge_buffer{nullptr, 0};
    const draforge_sim_expand_options& o = options ? *options : capi::kDefaultExpandOptions;
    if (absl::Status s =
            capi::CheckVersion("draforge_sim_expand_options", o.version, DRAFORGE_SIM_EXPAND_OPTIONS_VERSION);
        !s.ok()) {
      return capi::Fail(s, error);
    }
    auto doc = api::ParseJson(std::string_view(pools_json, size));
    if (!doc.ok()) return capi::Fail(doc.status(), error);
    if (!doc->IsArray()) {
      return capi::Fail(absl::InvalidArgumentError("draforge_sim_expand: pools_json must be a JSON array of "
                                                   "SimulatedDevicePool objects"),
                        error);
    }
    std::vector<sim::SimulatedDevicePool> pools;
    for (const rapidjson::Value& item : doc->GetArray()) {
      auto pool = sim::DecodeSimulatedDevicePool(item);
      if (!pool.ok()) return capi::Fail(pool.status(), error);
      pools.push_back(*std::move(pool));
    }
    sim::ExpandOptions eo;
    eo.tick = o.tick;
    auto expansion = sim::ExpandAll(pools, eo);
    if (!expansion.ok()) return capi::Fail(expansion.status(), error);
    rapidjson::Document d(rapidjson::kObjectType);
    auto& a = d.GetAllocator();
    rapidjson::Value slices(rapidjson::kArrayType);
    for (const api::ResourceSlice& s : expansion->slices) {
      api::Object object;
      object.api_version = "resource.k8s.io/v1";
      object.value = s;
      auto encoded = api::EncodeObject(object);
      if (!encoded.ok()) return capi::Fail(encoded.status(), error);
      slices.PushBack(rapidjson::Value(*encoded, a), a);
    }
    d.AddMember("slices", slices, a);
    rapidjson::Value published(rapidjson::kArrayType);
    for (const sim::PublishedPool& p : expansion->pools) {
      rapidjson::Value po(rapidjson::kObjectType);
      po.AddMember("driver", capi::S(p.driver, a), a);
      po.AddMember("pool", capi::S(p.pool, a), a);
      po.AddMember("generation", rapidjson::Value(static_cast<int64_t>(p.generation)), a);
      po.AddMember("resourceSliceCount", rapidjson::Value(static_cast<int64_t>(p.slice_count)), a);
      published.PushBack(po, a);
    }
    d.AddMember("pools", published, a);
    return capi::ToBuffer(api::WriteJson(d, false), out, error);
  });
}

int draforge_sim_fault_inject(draforge_buffer* out, const char* pool_json, size_t pool_size, const char* fault_json,
                              size_t fault_size, draforge_error** error) {
  using namespace draforge;
  return capi::Guard(error, [&]() -> int {
    if (out == nullptr || fault_json == nullptr) {
      return capi::Fail(absl::InvalidArgumentError("draforge_sim_fault_inject: out and fault_json must not be NULL"),
                        error);
    }
    *out = draforge_buffer{nullptr, 0};
    auto doc = capi::ParsePool(pool_json, pool_size, "draforge_sim_fault_inject");
    if (!doc.ok()) return capi::Fail(doc.status(), error);
    auto fault = api::ParseJson(std::string_view(fault_json, fault_size));
    if (!fault.ok()) return capi::Fail(absl::InvalidArgumentError(absl::StrCat("fault: ", fault.status().message())), error);
    if (absl::Status s = sim::InjectFault(*doc, *fault); !s.ok()) return capi::Fail(s, error);
    return capi::ToBuffer(api::WriteJson(*doc, false), out, error);
  });
}

int draforge_sim_fault_clear(draforge_buffer* out, const char* pool_json, size_t size, const char* name,
                             draforge_error** error) {
  using namespace draforge;
  return capi::Guard(error, [&]() -> int {
    if (out == nullptr || name == nullptr) {
      return capi::Fail(absl::InvalidArgumentError("draforge_sim_fault_clear: out and name must not be NULL"), error);
    }
    *out = draforge_buffer{nullptr, 0};
    auto doc = capi::ParsePool(pool_json, size, "draforge_sim_fault_clear");
    if (!doc.ok()) return capi::Fail(doc.status(), error);
    if (absl::Status s = sim::ClearFault(*doc, name); !s.ok()) return capi::Fail(s, error);
    return capi::ToBuffer(api::WriteJson(*doc, false), out, error);
  });
}

int draforge_sim_fault_clear_all(draforge_buffer* out, int64_t* cleared, const char* pool_json, size_t size,
                                 draforge_error** error) {
  using namespace draforge;
  return capi::Guard(error, [&]() -> int {
    if (cleared) *cleared = 0;
    if (out == nullptr) {
      return capi::Fail(absl::InvalidArgumentError("draforge_sim_fault_clear_all: out must not be NULL"), error);
    }
    *out = draforge_buffer{nullptr, 0};
    auto doc = capi::ParsePool(pool_json, size, "draforge_sim_fault_clear_all");
    if (!doc.ok()) return capi::Fail(doc.status(), error);
    auto n = sim::ClearAllFaults(*doc);
    if (!n.ok()) return capi::Fail(n.status(), error);
    if (cleared) *cleared = *n;
    return capi::ToBuffer(api::WriteJson(*doc, false), out, error);
  });
}

int draforge_sim_faults_json(draforge_buffer* out, const char* pool_json, size_t size, draforge_error** error) {
  using namespace draforge;
  return capi::Guard(error, [&]() -> int {
    if (out == nullptr) return capi::Fail(absl::InvalidArgumentError("draforge_sim_faults_json: out is NULL"), error);
    *out = draforge_buffer{nullptr, 0};
    auto doc = capi::ParsePool(pool_json, size, "draforge_sim_faults_json");
    if (!doc.ok()) return capi::Fail(doc.status(), error);
    auto pool = sim::DecodeSimulatedDevicePool(*doc);
    if (!pool.ok()) return capi::Fail(pool.status(), error);
    rapidjson::Document d(rapidjson::kArrayType);
    auto& a = d.GetAllocator();
    for (const sim::Fault& f : pool->spec.faults) {
      rapidjson::Value o(rapidjson::kObjectType);
      o.AddMember("name", capi::S(f.name, a), a);
      o.AddMember("type", capi::S(sim::FaultTypeName(f.type), a), a);
      o.AddMember("description", capi::S(sim::DescribeFault(*pool, f), a), a);
      d.PushBack(o, a);
    }
    return capi::ToBuffer(api::WriteJson(d, false), out, error);
  });
}

int draforge_sim_scenario_kinds_json(draforge_buffer* out, draforge_error** error) {
  using namespace draforge;
  return capi::Guard(error, [&]() -> int {
    if (out == nullptr) {
      return capi::Fail(absl::InvalidArgumentError("draforge_sim_scenario_kinds_json: out is NULL"), error);
    }
    *out = draforge_buffer{nullptr, 0};
    rapidjson::Document d(rapidjson::kArrayType);
    auto& a = d.GetAllocator();
    for (std::string_view kind : sim::ScenarioKinds()) {
      auto r = capi::ResourceOfKind(kind);
      if (!r.ok()) return capi::Fail(r.status(), error);
      rapidjson::Value o(rapidjson::kObjectType);
      o.AddMember("kind", capi::S(kind, a), a);
      capi::AddResource(o, *r, a);
      d.PushBack(o, a);
    }
    return capi::ToBuffer(api::WriteJson(d, false), out, error);
  });
}

int draforge_sim_scenario_plan(draforge_buffer* out, const char* objects, size_t size, const char* scenario,
                               draforge_sim_scenario_mode mode, draforge_error** error) {
  using namespace draforge;
  return capi::Guard(error, [&]() -> int {
    if (out == nullptr || (objects == nullptr && size > 0) || scenario == nullptr) {
      return capi::Fail(
          absl::InvalidArgumentError("draforge_sim_scenario_plan: out, objects and scenario must not be NULL"), error);
    }
    *out = draforge_buffer{nullptr, 0};
    if (!sim::ValidScenarioName(scenario)) {
      return capi::Fail(absl::InvalidArgumentError(absl::StrCat("scenario: \"", scenario,
                                                                "\" is not a valid label value")),
                        error);
    }
    if (mode != DRAFORGE_SIM_SCENARIO_SLICES && mode != DRAFORGE_SIM_SCENARIO_POOLS) {
      return capi::Fail(absl::InvalidArgumentError("draforge_sim_scenario_plan: unknown mode"), error);
    }
    auto decoded = capi::DecodeObjects(std::string_view(objects ? objects : "", size));
    if (!decoded.ok()) return capi::Fail(decoded.status(), error);
    auto plan = sim::PlanScenarioApply(*decoded, scenario,
                                       mode == DRAFORGE_SIM_SCENARIO_POOLS ? sim::ScenarioMode::kPools
                                                                           : sim::ScenarioMode::kSlices);
    if (!plan.ok()) return capi::Fail(plan.status(), error);
    rapidjson::Document d(rapidjson::kObjectType);
    auto& a = d.GetAllocator();
    rapidjson::Value writes(rapidjson::kArrayType);
    for (const sim::ScenarioWrite& w : plan->writes) {
      auto r = capi::ResourceOfKind(w.kind_name);
      if (!r.ok()) return capi::Fail(r.status(), error);
      rapidjson::Value o(rapidjson::kObjectType);
      o.AddMember("kind", capi::S(w.kind_name, a), a);
      o.AddMember("apiVersion", capi::S(w.api_version, a), a);
      o.AddMember("namespace", capi::S(w.namespace_, a), a);
      o.AddMember("name", capi::S(w.name, a), a);
      o.AddMember("ref", capi::S(w.Ref(), a), a);
      capi::AddResource(o, *r, a);
      o.AddMember("body", rapidjson::Value(w.body, a), a);
      writes.PushBack(o, a);
    }
    d.AddMember("writes", writes, a);
    rapidjson::Value notes(rapidjson::kArrayType);
    for (const std::string& n : plan->notes) notes.PushBack(capi::S(n, a), a);
    d.AddMember("notes", notes, a);
    return capi::ToBuffer(api::WriteJson(d, false), out, error);
  });
}

int draforge_sim_scenario_owns(int* owned, const char* object_json, size_t size, const char* scenario,
                               draforge_error** error) {
  using namespace draforge;
  return capi::Guard(error, [&]() -> int {
    if (owned) *owned = 0;
    if (owned == nullptr || object_json == nullptr || scenario == nullptr) {
      return capi::Fail(
          absl::InvalidArgumentError("draforge_sim_scenario_owns: owned, object_json and scenario must not be NULL"),
          error);
    }
    auto doc = api::ParseJson(std::string_view(object_json, size));
    if (!doc.ok()) return capi::Fail(doc.status(), error);
    *owned = sim::OwnedByScenario(*doc, scenario) ? 1 : 0;
    return DRAFORGE_OK;
  });
}

int draforge_sim_scenario_name_from_path(draforge_buffer* out, const char* path, draforge_error** error) {
  using namespace draforge;
  return capi::Guard(error, [&]() -> int {
    if (out == nullptr || path == nullptr) {
      return capi::Fail(
          absl::InvalidArgumentError("draforge_sim_scenario_name_from_path: out and path must not be NULL"), error);
    }
    *out = draforge_buffer{nullptr, 0};
    return capi::ToBuffer(sim::ScenarioNameFromPath(path), out, error);
  });
}

int draforge_sim_scenario_name_valid(const char* name) {
  return name != nullptr && draforge::sim::ValidScenarioName(name) ? 1 : 0;
}

}  // extern "C"
