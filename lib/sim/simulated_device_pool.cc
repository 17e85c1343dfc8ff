#include "sim/simulated_device_pool.h"

#include <algorithm>
#include <array>
#include <set>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "api/codec.h"
#include "api/qualified_name.h"
#include "common/status.h"
#include "sim/internal/json_fields.h"
#include "sim/profiles.h"
#include "common/json_string.h"

namespace draforge::sim {
namespace {

using internal::FieldReader;
using internal::JsonKind;

constexpr std::array<std::pair<FaultType, std::string_view>, 10> kFaultNames = {{
    {FaultType::kTaint, "taint"},
    {FaultType::kXid, "xid"},
    {FaultType::kGpuLost, "gpu-lost"},
    {FaultType::kHealthUnknown, "health-unknown"},
    {FaultType::kRemoveDevice, "remove-device"},
    {FaultType::kRemoveSlice, "remove-slice"},
    {FaultType::kFlap, "flap"},
    {FaultType::kIncompletePool, "incomplete-pool"},
    {FaultType::kStaleGeneration, "stale-generation"},
    {FaultType::kBindingFailure, "binding-failure"},
}};

// The name given to the ResourceSlice wrapper used to decode resource.k8s.io-shaped fragments.
constexpr char kFragment[] = "sim-fragment";

std::string Who(std::string_view name) { return absl::StrCat(kKind, " \"", AV(name), "\""); }

void CopyInto(rapidjson::Value& dst, const rapidjson::Value& src, rapidjson::Document::AllocatorType& a) {
  dst.CopyFrom(src, a);
}

// Decodes a ResourceSlice spec fragment with lib/api's strict decoder, so that attributes, capacity,
// taints, counter sets and node selectors are checked exactly as for a real ResourceSlice. Errors are
// rewritten from the wrapper's path (`from`, e.g. "spec.devices[0]") to the pool's (`to`).
absl::StatusOr<api::ResourceSliceSpec> DecodeFragment(rapidjson::Document& wrapper_spec, std::string_view who,
                                                      std::string_view from, std::string_view to) {
  rapidjson::Document doc;
  doc.SetObject();
  auto& a = doc.GetAllocator();
  doc.AddMember("apiVersion", "resource.k8s.io/v1", a);
  doc.AddMember("kind", "ResourceSlice", a);
  rapidjson::Value meta(rapidjson::kObjectType);
  meta.AddMember("name", rapidjson::StringRef(kFragment), a);
  doc.AddMember("metadata", meta, a);
  rapidjson::Value spec;
  CopyInto(spec, wrapper_spec, a);
  doc.AddMember("spec", spec, a);
  api::DecodeOptions options;
  options.strict = true;
  auto decoded = api::DecodeObject(doc, options, nullptr);
  if (!decoded.ok()) {
    std::string message(decoded.status().message());
    const std::string prefix = absl::StrCat("ResourceSlice \"", kFragment, "\": ");
    if (message.rfind(prefix, 0) == 0) message = message.substr(prefix.size());
    if (message.rfind(from, 0) == 0) message = absl::StrCat(AV(to), message.substr(from.size()));
    return absl::InvalidArgumentError(absl::StrCat(AV(who), ": ", message));
  }
  const auto* slice = std::get_if<api::ResourceSlice>(&decoded->value);
  if (slice == nullptr || !slice->spec.has_value()) return absl::InternalError("fragment did not decode as a slice");
  return *slice->spec;
}

// A device fragment {"name":"t", <member>: value} decoded as spec.devices[0].
absl::StatusOr<api::Device> DecodeDeviceFragment(const rapidjson::Value& device_json, std::string_view who,
                                                 std::string_view to) {
  rapidjson::Document spec;
  spec.SetObject();
  auto& a = spec.GetAllocator();
  rapidjson::Value devices(rapidjson::kArrayType);
  rapidjson::Value d;
  d.CopyFrom(device_json, a);
  devices.PushBack(d, a);
  spec.AddMember("devices", devices, a);
  ASSIGN_OR_RETURN(api::ResourceSliceSpec s, DecodeFragment(spec, who, "spec.devices[0]", to));
  if (s.devices.empty()) return absl::InternalError("device fragment lost its device");
  return s.devices.front();
}

// Decodes a taint {key, value, effect, timeAdded} found at `path`.
absl::StatusOr<api::DeviceTaint> DecodeTaint(const rapidjson::Value& taint_json, std::string_view who,
                                             std::string_view path) {
  rapidjson::Document spec;
  spec.SetObject();
  auto& a = spec.GetAllocator();
  rapidjson::Value taints(rapidjson::kArrayType);
  rapidjson::Value t;
  t.CopyFrom(taint_json, a);
  taints.PushBack(t, a);
  rapidjson::Value d(rapidjson::kObjectType);
  d.AddMember("name", "t", a);
  d.AddMember("taints", taints, a);
  rapidjson::Value devices(rapidjson::kArrayType);
  devices.PushBack(d, a);
  spec.AddMember("devices", devices, a);
  ASSIGN_OR_RETURN(api::ResourceSliceSpec s, DecodeFragment(spec, who, "spec.devices[0].taints[0]", path));
  if (s.devices.empty() || s.devices.front().taints.empty()) return absl::InternalError("taint fragment lost its taint");
  return s.devices.front().taints.front();
}

// Splits a taint-bearing entry: the taint's own members go to `taint_json`.
void TaintMembers(const rapidjson::Value& entry, rapidjson::Document& taint_json) {
  taint_json.SetObject();
  auto& a = taint_json.GetAllocator();
  for (const char* key : {"key", "value", "effect", "timeAdded"}) {
    auto it = entry.FindMember(key);
    if (it == entry.MemberEnd()) continue;
    rapidjson::Value v;
    v.CopyFrom(it->value, a);
    taint_json.AddMember(rapidjson::Value(key, a), v, a);
  }
}

absl::Status DecodeNodes(const FieldReader& spec, SimulatedDevicePool& pool) {
  const rapidjson::Value* nodes = spec.Find("nodes");
  if (nodes == nullptr) return absl::OkStatus();
  FieldReader r(*nodes, spec.who(), spec.Path("nodes"));
  RETURN_IF_ERROR(r.CheckObject());
  RETURN_IF_ERROR(r.CheckKnown({"names", "nodeSelector", "allNodes"}));
  RETURN_IF_ERROR(r.StringList("names", pool.spec.nodes.names));
  std::optional<bool> all;
  RETURN_IF_ERROR(r.Bool("allNodes", all));
  pool.spec.nodes.all_nodes = all.value_or(false);
  if (const rapidjson::Value* sel = r.Find("nodeSelector")) {
    rapidjson::Document s;
    s.SetObject();
    rapidjson::Value v;
    v.CopyFrom(*sel, s.GetAllocator());
    s.AddMember("nodeSelector", v, s.GetAllocator());
    ASSIGN_OR_RETURN(api::ResourceSliceSpec decoded, DecodeFragment(s, spec.who(), "spec.nodeSelector", r.Path("nodeSelector")));
    pool.spec.nodes.node_selector = decoded.node_selector;
  }
  return absl::OkStatus();
}

absl::Status DecodeFaults(const FieldReader& spec, SimulatedDevicePool& pool) {
  const rapidjson::Value* faults = spec.Find("faults");
  if (faults == nullptr) return absl::OkStatus();
  if (!faults->IsArray()) return spec.Error("faults", absl::StrCat("expected array, got ", AV(JsonKind(*faults))));
  for (rapidjson::SizeType i = 0; i < faults->Size(); ++i) {
    FieldReader r((*faults)[i], spec.who(), absl::StrCat(spec.Path("faults"), "[", i, "]"));
    RETURN_IF_ERROR(r.CheckObject());
    RETURN_IF_ERROR(r.CheckKnown({"name", "type", "nodes", "devices", "key", "value", "effect", "timeAdded", "xid",
                                  "slice", "period", "missingSlices"}));
    Fault f;
    std::optional<std::string> name, type;
    RETURN_IF_ERROR(r.String("name", name));
    RETURN_IF_ERROR(r.String("type", type));
    if (!name || name->empty()) return r.Error("name", "Required value");
    if (!type || type->empty()) return r.Error("type", "Required value");
    std::optional<FaultType> t = ParseFaultType(*type);
    if (!t) {
      std::vector<std::string> names;
      for (const auto& [ft, n] : kFaultNames) names.emplace_back(n);
      return r.Error("type", absl::StrCat("Unsupported value: \"", *type, "\": supported values: ",
                                          absl::StrJoin(names, ", ")));
    }
    f.name = *name;
    f.type = *t;
    RETURN_IF_ERROR(r.StringList("nodes", f.nodes));
    RETURN_IF_ERROR(r.StringList("devices", f.devices));
    if (r.Find("key") != nullptr || r.Find("effect") != nullptr || r.Find("value") != nullptr) {
      rapidjson::Document tj;
      TaintMembers((*faults)[i], tj);
      ASSIGN_OR_RETURN(f.taint, DecodeTaint(tj, spec.who(), absl::StrCat(spec.Path("faults"), "[", i, "]")));
    }
    std::optional<int64_t> xid, slice, period, missing;
    RETURN_IF_ERROR(r.Int("xid", xid));
    RETURN_IF_ERROR(r.Int("slice", slice));
    RETURN_IF_ERROR(r.Int("period", period));
    RETURN_IF_ERROR(r.Int("missingSlices", missing));
    f.xid = xid.value_or(0);
    f.slice = slice;
    f.period = period.value_or(1);
    f.missing_slices = missing.value_or(1);
    pool.spec.faults.push_back(std::move(f));
  }
  return absl::OkStatus();
}

absl::Status DecodeTaints(const FieldReader& spec, SimulatedDevicePool& pool) {
  const rapidjson::Value* taints = spec.Find("taints");
  if (taints == nullptr) return absl::OkStatus();
  if (!taints->IsArray()) return spec.Error("taints", absl::StrCat("expected array, got ", AV(JsonKind(*taints))));
  for (rapidjson::SizeType i = 0; i < taints->Size(); ++i) {
    const std::string path = absl::StrCat(spec.Path("taints"), "[", i, "]");
    FieldReader r((*taints)[i], spec.who(), path);
    RETURN_IF_ERROR(r.CheckObject());
    RETURN_IF_ERROR(r.CheckKnown({"nodes", "devices", "key", "value", "effect", "timeAdded"}));
    TaintSpec t;
    RETURN_IF_ERROR(r.StringList("nodes", t.nodes));
    RETURN_IF_ERROR(r.StringList("devices", t.devices));
    rapidjson::Document tj;
    TaintMembers((*taints)[i], tj);
    ASSIGN_OR_RETURN(t.taint, DecodeTaint(tj, spec.who(), path));
    pool.spec.taints.push_back(std::move(t));
  }
  return absl::OkStatus();
}

absl::Status DecodeSpec(const rapidjson::Value& spec_json, std::string_view who, SimulatedDevicePool& pool) {
  FieldReader r(spec_json, std::string(who), "spec");
  RETURN_IF_ERROR(r.CheckObject());
  RETURN_IF_ERROR(r.CheckKnown({"driver", "profile", "nodes", "devicesPerNode", "poolGeneration", "options",
                                "attributes", "capacity", "deviceTemplate", "sharedCounters", "taints",
                                "bindingConditions", "bindingFailureConditions", "bindsToNode", "faults"}));
  std::optional<std::string> driver, profile;
  RETURN_IF_ERROR(r.String("driver", driver));
  RETURN_IF_ERROR(r.String("profile", profile));
  pool.spec.driver = driver.value_or("");
  pool.spec.profile = profile.value_or("");
  RETURN_IF_ERROR(DecodeNodes(r, pool));
  RETURN_IF_ERROR(r.Int("devicesPerNode", pool.spec.devices_per_node));
  std::optional<int64_t> generation;
  RETURN_IF_ERROR(r.Int("poolGeneration", generation));
  pool.spec.pool_generation = generation.value_or(0);
  if (const rapidjson::Value* options = r.Find("options")) {
    if (!options->IsObject()) {
      return r.Error("options", absl::StrCat("expected object, got ", AV(JsonKind(*options))));
    }
    for (auto it = options->MemberBegin(); it != options->MemberEnd(); ++it) {
      const std::string key(it->name.GetString(), it->name.GetStringLength());
      if (!it->value.IsString()) {
        return r.Error(absl::StrCat("options[", key, "]"),
                       absl::StrCat("expected string, got ", AV(JsonKind(it->value)), " (write numbers and booleans "
                                                                                       "in quotes)"));
      }
      pool.spec.options.Set(key, std::string(it->value.GetString(), it->value.GetStringLength()));
    }
  }
  // Attribute and capacity overrides: decoded as a device's, reported under spec.
  if (r.Find("attributes") != nullptr || r.Find("capacity") != nullptr) {
    rapidjson::Document d;
    d.SetObject();
    auto& a = d.GetAllocator();
    d.AddMember("name", "overrides", a);
    for (const char* key : {"attributes", "capacity"}) {
      if (const rapidjson::Value* v = r.Find(key)) {
        rapidjson::Value c;
        c.CopyFrom(*v, a);
        d.AddMember(rapidjson::Value(key, a), c, a);
      }
    }
    ASSIGN_OR_RETURN(api::Device overrides, DecodeDeviceFragment(d, who, "spec"));
    pool.spec.attributes = std::move(overrides.attributes);
    pool.spec.capacity = std::move(overrides.capacity);
  }
  if (const rapidjson::Value* t = r.Find("deviceTemplate")) {
    if (!t->IsObject()) return r.Error("deviceTemplate", absl::StrCat("expected object, got ", AV(JsonKind(*t))));
    rapidjson::Document d;
    d.CopyFrom(*t, d.GetAllocator());
    if (!d.HasMember("name")) d.AddMember("name", "dev", d.GetAllocator());
    ASSIGN_OR_RETURN(pool.spec.device_template, DecodeDeviceFragment(d, who, "spec.deviceTemplate"));
  }
  if (const rapidjson::Value* c = r.Find("sharedCounters")) {
    rapidjson::Document s;
    s.SetObject();
    rapidjson::Value v;
    v.CopyFrom(*c, s.GetAllocator());
    s.AddMember("sharedCounters", v, s.GetAllocator());
    ASSIGN_OR_RETURN(api::ResourceSliceSpec decoded, DecodeFragment(s, who, "spec.sharedCounters", "spec.sharedCounters"));
    pool.spec.shared_counters = std::move(decoded.shared_counters);
  }
  RETURN_IF_ERROR(DecodeTaints(r, pool));
  RETURN_IF_ERROR(r.StringList("bindingConditions", pool.spec.binding_conditions));
  RETURN_IF_ERROR(r.StringList("bindingFailureConditions", pool.spec.binding_failure_conditions));
  RETURN_IF_ERROR(r.Bool("bindsToNode", pool.spec.binds_to_node));
  RETURN_IF_ERROR(DecodeFaults(r, pool));
  return absl::OkStatus();
}

bool IsDnsLabel(std::string_view s) {
  if (s.empty() || s.size() > 63) return false;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    const bool alnum = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
    if (!alnum && !(c == '-' && i > 0 && i + 1 < s.size())) return false;
  }
  return true;
}

}  // namespace

std::string_view FaultTypeName(FaultType type) {
  for (const auto& [t, n] : kFaultNames) {
    if (t == type) return n;
  }
  return "";
}

std::optional<FaultType> ParseFaultType(std::string_view name) {
  for (const auto& [t, n] : kFaultNames) {
    if (n == name) return t;
  }
  return std::nullopt;
}

bool IsSimulatedDevicePool(const api::Object& object) {
  const auto* other = std::get_if<api::OtherObject>(&object.value);
  return other != nullptr && other->kind == kKind && other->api_version.rfind(absl::StrCat(kGroup, "/"), 0) == 0;
}

absl::StatusOr<SimulatedDevicePool> DecodeSimulatedDevicePool(const rapidjson::Value& json) {
  if (!json.IsObject()) {
    return absl::InvalidArgumentError(absl::StrCat("expected a ", kKind, " object, got ", AV(JsonKind(json))));
  }
  std::string name;
  if (auto m = json.FindMember("metadata"); m != json.MemberEnd() && m->value.IsObject()) {
    if (auto n = m->value.FindMember("name"); n != m->value.MemberEnd() && n->value.IsString()) {
      name.assign(n->value.GetString(), n->value.GetStringLength());
    }
  }
  const std::string who = Who(name);
  FieldReader top(json, who, "");
  RETURN_IF_ERROR(top.CheckKnown({"apiVersion", "kind", "metadata", "spec", "status"}));
  std::optional<std::string> api_version, kind;
  RETURN_IF_ERROR(top.String("apiVersion", api_version));
  RETURN_IF_ERROR(top.String("kind", kind));
  if (kind.value_or("") != kKind) {
    return absl::InvalidArgumentError(absl::StrCat(who, ": kind: expected \"", kKind, "\", got \"", kind.value_or(""), "\""));
  }
  if (api_version.value_or("") != kApiVersion) {
    return absl::InvalidArgumentError(absl::StrCat(who, ": apiVersion: Unsupported value: \"", api_version.value_or(""),
                                                   "\": supported values: \"", kApiVersion, "\""));
  }
  SimulatedDevicePool pool;
  // metadata: decoded by lib/api (as a DeviceClass's, which has the same ObjectMeta).
  if (const rapidjson::Value* meta = top.Find("metadata")) {
    rapidjson::Document d;
    d.SetObject();
    auto& a = d.GetAllocator();
    d.AddMember("apiVersion", "resource.k8s.io/v1", a);
    d.AddMember("kind", "DeviceClass", a);
    rapidjson::Value m;
    m.CopyFrom(*meta, a);
    d.AddMember("metadata", m, a);
    auto decoded = api::DecodeObject(d, api::DecodeOptions{}, nullptr);
    if (!decoded.ok()) {
      std::string message(decoded.status().message());
      const size_t colon = message.find(": ");
      if (colon != std::string::npos) message = message.substr(colon + 2);
      return absl::InvalidArgumentError(absl::StrCat(who, ": ", message));
    }
    pool.metadata = decoded->metadata();
  }
  if (name.empty()) return absl::InvalidArgumentError(absl::StrCat(who, ": metadata.name: Required value"));
  const rapidjson::Value* spec = top.Find("spec");
  if (spec == nullptr) return absl::InvalidArgumentError(absl::StrCat(who, ": spec: Required value"));
  RETURN_IF_ERROR(DecodeSpec(*spec, who, pool));
  return pool;
}

absl::StatusOr<SimulatedDevicePool> DecodeSimulatedDevicePool(const api::Object& object) {
  const auto* other = std::get_if<api::OtherObject>(&object.value);
  if (other == nullptr || !IsSimulatedDevicePool(object)) {
    return absl::InvalidArgumentError(absl::StrCat("expected a ", kKind, ", got ", AV(object.kind_name()), " ",
                                                   object.Key()));
  }
  ASSIGN_OR_RETURN(rapidjson::Document doc, api::ParseJson(other->raw.json));
  return DecodeSimulatedDevicePool(doc);
}

rapidjson::Value EncodeFault(const Fault& fault, rapidjson::Document::AllocatorType& a) {
  rapidjson::Value v(rapidjson::kObjectType);
  v.AddMember("name", rapidjson::Value(fault.name.c_str(), a), a);
  const std::string_view type = FaultTypeName(fault.type);
  v.AddMember("type", JsonString(type, a), a);
  auto list = [&](const char* key, const std::vector<std::string>& values) {
    if (values.empty()) return;
    rapidjson::Value arr(rapidjson::kArrayType);
    for (const std::string& s : values) arr.PushBack(rapidjson::Value(s.c_str(), a), a);
    v.AddMember(rapidjson::StringRef(key), arr, a);
  };
  list("nodes", fault.nodes);
  list("devices", fault.devices);
  if (fault.taint) {
    if (fault.taint->key) v.AddMember("key", rapidjson::Value(fault.taint->key->c_str(), a), a);
    if (fault.taint->value) v.AddMember("value", rapidjson::Value(fault.taint->value->c_str(), a), a);
    if (fault.taint->effect) v.AddMember("effect", rapidjson::Value(fault.taint->effect->c_str(), a), a);
    if (fault.taint->time_added) v.AddMember("timeAdded", rapidjson::Value(fault.taint->time_added->c_str(), a), a);
  }
  if (fault.type == FaultType::kXid) v.AddMember("xid", fault.xid, a);
  if (fault.slice) v.AddMember("slice", *fault.slice, a);
  if (fault.type == FaultType::kFlap) v.AddMember("period", fault.period, a);
  if (fault.type == FaultType::kIncompletePool) v.AddMember("missingSlices", fault.missing_slices, a);
  return v;
}

absl::Status ValidateSimulatedDevicePool(const SimulatedDevicePool& pool) {
  const std::string who = Who(pool.metadata.name.value_or(""));
  auto error = [&](std::string_view field, std::string_view message) {
    return absl::InvalidArgumentError(absl::StrCat(who, ": ", AV(field), ": ", AV(message)));
  };
  const SimulatedDevicePoolSpec& spec = pool.spec;
  if (spec.profile.empty()) return error("spec.profile", "Required value");
  const ProfileInfo* profile = FindProfile(spec.profile);
  if (profile == nullptr) {
    std::vector<std::string> names;
    for (const ProfileInfo& p : Profiles()) names.emplace_back(p.name);
    return error("spec.profile", absl::StrCat("Unsupported value: \"", spec.profile,
                                              "\": supported values: ", absl::StrJoin(names, ", ")));
  }
  if (profile->driver.empty() && spec.driver.empty()) {
    return error("spec.driver", "Required value: profile custom has no driver of its own");
  }
  const int selections = (spec.nodes.names.empty() ? 0 : 1) + (spec.nodes.node_selector ? 1 : 0) +
                         (spec.nodes.all_nodes ? 1 : 0);
  if (selections != 1) {
    return error("spec.nodes", "Invalid value: exactly one of `names`, `nodeSelector`, `allNodes` is required");
  }
  std::set<std::string> seen_nodes;
  for (size_t i = 0; i < spec.nodes.names.size(); ++i) {
    if (!seen_nodes.insert(spec.nodes.names[i]).second) {
      return error(absl::StrCat("spec.nodes.names[", i, "]"), absl::StrCat("Duplicate value: \"", spec.nodes.names[i], "\""));
    }
  }
  if (spec.devices_per_node && *spec.devices_per_node < 1) {
    return error("spec.devicesPerNode", absl::StrCat("Invalid value: ", *spec.devices_per_node, ": must be at least 1"));
  }
  // Bounds that keep one expansion in memory and time a test machine has (a typo of a few zeros must
  // be an error, not an out-of-memory kill).
  const int64_t per_node = spec.devices_per_node.value_or(profile->default_devices_per_node);
  if (per_node > kMaxDevicesPerNode) {
    return error("spec.devicesPerNode", absl::StrCat("Invalid value: ", per_node, ": must be at most ",
                                                     kMaxDevicesPerNode));
  }
  const int64_t pools = std::max<int64_t>(1, static_cast<int64_t>(spec.nodes.names.size()));
  if (pools * per_node > kMaxDevicesPerObject) {
    return error("spec.devicesPerNode",
                 absl::StrCat("Invalid value: ", per_node, ": ", pools, " pools of ", per_node, " make ", pools * per_node,
                              ", more than the ", kMaxDevicesPerObject,
                              " one SimulatedDevicePool may simulate; split it into several objects"));
  }
  if (spec.pool_generation < 0 || spec.pool_generation > kMaxPoolGeneration) {
    return error("spec.poolGeneration", absl::StrCat("Invalid value: ", spec.pool_generation, ": must be from 0 to ",
                                                     kMaxPoolGeneration));
  }
  if (profile->name != "custom" && (spec.device_template || !spec.shared_counters.empty())) {
    return error(spec.device_template ? "spec.deviceTemplate" : "spec.sharedCounters",
                 absl::StrCat("Forbidden: only profile custom takes a device template and counter sets (profile ",
                              AV(profile->name), " builds its own)"));
  }
  std::set<std::string> names;
  for (size_t i = 0; i < spec.faults.size(); ++i) {
    const Fault& f = spec.faults[i];
    const std::string path = absl::StrCat("spec.faults[", i, "]");
    if (!IsDnsLabel(f.name)) {
      return error(absl::StrCat(path, ".name"),
                   absl::StrCat("Invalid value: \"", f.name, "\": a fault name must be a DNS label (lowercase letters, "
                                                                "digits and '-', at most 63)"));
    }
    if (!names.insert(f.name).second) {
      return error(absl::StrCat(path, ".name"), absl::StrCat("Duplicate value: \"", f.name, "\""));
    }
    const bool wants_taint = f.type == FaultType::kTaint;
    if (wants_taint && (!f.taint || !f.taint->key || !f.taint->effect)) {
      return error(absl::StrCat(path, ".key"), "Required value: a taint fault needs `key` and `effect`");
    }
    if (!wants_taint && f.taint) {
      return error(absl::StrCat(path, ".key"),
                   absl::StrCat("Forbidden: only type taint takes key, value and effect (", AV(FaultTypeName(f.type)),
                                " sets its own)"));
    }
    if (f.type == FaultType::kXid && f.xid <= 0) {
      return error(absl::StrCat(path, ".xid"), absl::StrCat("Invalid value: ", f.xid, ": an XID code is at least 1"));
    }
    if (f.type == FaultType::kFlap && f.period < 1) {
      return error(absl::StrCat(path, ".period"), absl::StrCat("Invalid value: ", f.period, ": must be at least 1"));
    }
    if (f.type == FaultType::kIncompletePool && (f.missing_slices < 1 || f.missing_slices > 1000)) {
      return error(absl::StrCat(path, ".missingSlices"),
                   absl::StrCat("Invalid value: ", f.missing_slices, ": must be from 1 to 1000"));
    }
    if (f.slice && *f.slice < 0) {
      return error(absl::StrCat(path, ".slice"), absl::StrCat("Invalid value: ", *f.slice, ": must be at least 0"));
    }
  }
  return absl::OkStatus();
}

}  // namespace draforge::sim
