#include "sim/faults.h"

#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/status.h"
#include "sim/expand.h"
#include "sim/profiles.h"

namespace draforge::sim {
namespace {

rapidjson::Value* Spec(rapidjson::Document& doc) {
  if (!doc.IsObject()) return nullptr;
  auto it = doc.FindMember("spec");
  return it == doc.MemberEnd() || !it->value.IsObject() ? nullptr : &it->value;
}

// Decodes, validates and expands: the object must stay usable after an edit.
absl::Status Check(const rapidjson::Value& doc) {
  ASSIGN_OR_RETURN(SimulatedDevicePool pool, DecodeSimulatedDevicePool(doc));
  return Expand(pool).status();
}

std::string Targets(const SimulatedDevicePool& pool, const Fault& f) {
  std::string devices = f.devices.empty() ? "every device" : absl::StrJoin(f.devices, ", ");
  std::string where;
  if (!f.nodes.empty()) {
    where = absl::StrCat(" of ", absl::StrJoin(f.nodes, ", "));
  } else if (!pool.spec.nodes.names.empty()) {
    where = " of every node";
  }
  return absl::StrCat(devices, where);
}

std::string PoolsOf(const SimulatedDevicePool& pool, const Fault& f) {
  if (!f.nodes.empty()) return absl::StrCat("the pools of ", absl::StrJoin(f.nodes, ", "));
  return pool.spec.nodes.names.empty() ? "the pool" : "every pool";
}

}  // namespace

absl::Status InjectFault(rapidjson::Document& pool_json, const Fault& fault) {
  rapidjson::Document item;
  item.CopyFrom(EncodeFault(fault, item.GetAllocator()), item.GetAllocator());
  return InjectFault(pool_json, item);
}

absl::Status InjectFault(rapidjson::Document& pool_json, const rapidjson::Value& fault_json) {
  ASSIGN_OR_RETURN(SimulatedDevicePool before, DecodeSimulatedDevicePool(pool_json));
  if (!fault_json.IsObject()) return absl::InvalidArgumentError("fault: expected an object");
  auto name = fault_json.FindMember("name");
  if (name != fault_json.MemberEnd() && name->value.IsString()) {
    const std::string_view wanted(name->value.GetString(), name->value.GetStringLength());
    for (const Fault& f : before.spec.faults) {
      if (f.name == wanted) {
        return absl::AlreadyExistsError(absl::StrCat(kKind, " \"", before.metadata.name.value_or(""),
                                                     "\" already has a fault named \"", AV(wanted), "\""));
      }
    }
  }
  rapidjson::Document edited;
  edited.CopyFrom(pool_json, edited.GetAllocator());
  rapidjson::Value* spec = Spec(edited);
  if (spec == nullptr) return absl::InvalidArgumentError("spec: Required value");
  auto& a = edited.GetAllocator();
  if (!spec->HasMember("faults")) spec->AddMember("faults", rapidjson::Value(rapidjson::kArrayType), a);
  (*spec)["faults"].PushBack(rapidjson::Value(fault_json, a), a);
  RETURN_IF_ERROR(Check(edited));
  pool_json.Swap(edited);
  return absl::OkStatus();
}

absl::Status ClearFault(rapidjson::Document& pool_json, std::string_view name) {
  ASSIGN_OR_RETURN(SimulatedDevicePool pool, DecodeSimulatedDevicePool(pool_json));
  rapidjson::Value* spec = Spec(pool_json);
  if (spec != nullptr && spec->HasMember("faults") && (*spec)["faults"].IsArray()) {
    rapidjson::Value& faults = (*spec)["faults"];
    for (rapidjson::SizeType i = 0; i < faults.Size(); ++i) {
      if (static_cast<size_t>(i) < pool.spec.faults.size() && pool.spec.faults[i].name == name) {
        faults.Erase(faults.Begin() + i);
        if (faults.Empty()) spec->RemoveMember("faults");
        return absl::OkStatus();
      }
    }
  }
  std::vector<std::string> names;
  for (const Fault& f : pool.spec.faults) names.push_back(f.name);
  return absl::NotFoundError(absl::StrCat(kKind, " \"", pool.metadata.name.value_or(""), "\" has no fault named \"",
                                          AV(name), "\"",
                                          names.empty() ? " (it has none)"
                                                        : absl::StrCat(" (it has ", absl::StrJoin(names, ", "), ")")));
}

absl::StatusOr<int> ClearAllFaults(rapidjson::Document& pool_json) {
  ASSIGN_OR_RETURN(SimulatedDevicePool pool, DecodeSimulatedDevicePool(pool_json));
  rapidjson::Value* spec = Spec(pool_json);
  if (spec != nullptr) spec->RemoveMember("faults");
  return static_cast<int>(pool.spec.faults.size());
}

absl::StatusOr<std::vector<Fault>> ListFaults(const rapidjson::Value& pool_json) {
  ASSIGN_OR_RETURN(SimulatedDevicePool pool, DecodeSimulatedDevicePool(pool_json));
  return pool.spec.faults;
}

std::string DescribeFault(const SimulatedDevicePool& pool, const Fault& f) {
  const ProfileInfo* profile = FindProfile(pool.spec.profile);
  const std::string driver =
      !pool.spec.driver.empty() ? pool.spec.driver : profile != nullptr ? std::string(profile->driver) : "";
  switch (f.type) {
    case FaultType::kTaint:
      return absl::StrCat("taint ", f.taint && f.taint->key ? *f.taint->key : "",
                          f.taint && f.taint->value ? absl::StrCat("=", *f.taint->value) : "", ":",
                          f.taint && f.taint->effect ? *f.taint->effect : "", " on ", Targets(pool, f));
    case FaultType::kXid:
      return absl::StrCat("XID ", f.xid, ": taint ", driver, "/xid=", f.xid, " on ", Targets(pool, f));
    case FaultType::kGpuLost:
      return absl::StrCat("GPU lost: taint ", driver, "/gpu-lost:NoSchedule on ", Targets(pool, f));
    case FaultType::kHealthUnknown:
      return absl::StrCat("health unknown: taint ", driver, "/unmonitored:None on ", Targets(pool, f));
    case FaultType::kRemoveDevice:
      return absl::StrCat("remove ", Targets(pool, f));
    case FaultType::kRemoveSlice:
      return absl::StrCat("remove slice ", f.slice ? absl::StrCat(*f.slice) : std::string("(the last)"), " of ",
                          PoolsOf(pool, f));
    case FaultType::kFlap:
      return absl::StrCat("flap ", Targets(pool, f), " every ", f.period, " ticks");
    case FaultType::kIncompletePool:
      return absl::StrCat("leave ", PoolsOf(pool, f), " incomplete: ", f.missing_slices,
                          " slices fewer than resourceSliceCount");
    case FaultType::kStaleGeneration:
      return absl::StrCat("bump the generation of ", PoolsOf(pool, f), " and leave the old slices behind");
    case FaultType::kBindingFailure:
      return absl::StrCat("binding conditions fail (", kBindingFailedCondition, ") on ", Targets(pool, f));
  }
  return "";
}

}  // namespace draforge::sim
