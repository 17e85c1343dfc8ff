#include "alloc/features.h"

#include <algorithm>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "common/status.h"

namespace draforge::alloc {
namespace {

struct GateField {
  FeatureGateInfo info;
  bool Features::*field;
};

const std::vector<GateField>& Gates() {
  static const auto* gates = new std::vector<GateField>{
      {{"DRAAdminAccess", true, true}, &Features::admin_access},
      {{"DRAConsumableCapacity", true, false}, &Features::consumable_capacity},
      {{"DRADerivedAttributes", false, false}, &Features::derived_attributes},
      {{"DRADeviceBindingConditions", true, false}, &Features::device_binding_conditions},
      {{"DRADeviceCompatibilityGroups", false, false}, &Features::device_compatibility_groups},
      {{"DRADeviceTaintRules", true, false}, &Features::device_taint_rules},
      {{"DRADeviceTaints", true, false}, &Features::device_taints},
      {{"DRAExtendedResource", true, true}, &Features::extended_resource},
      {{"DRAFractionalCapacityRange", false, false}, &Features::fractional_capacity_range},
      {{"DRAListTypeAttributes", false, false}, &Features::list_type_attributes},
      {{"DRANodeAllocatableResources", false, false}, &Features::node_allocatable_resources},
      {{"DRAOptionalNodeOperations", false, false}, &Features::optional_node_operations},
      {{"DRAPartitionableDevices", true, false}, &Features::partitionable_devices},
      {{"DRAPrioritizedList", true, true}, &Features::prioritized_list},
      {{"DRAResourceClaimDeviceStatus", true, true}, &Features::resource_claim_device_status},
      {{"DRASchedulerFilterTimeout", true, false}, &Features::scheduler_filter_timeout},
      {{"DRAWorkloadResourceClaims", false, false}, &Features::workload_resource_claims},
      {{"DynamicResourceAllocation", true, true}, &Features::dynamic_resource_allocation},
  };
  return *gates;
}

const GateField* FindGate(std::string_view name) {
  for (const GateField& g : Gates()) {
    if (g.info.name == name) return &g;
  }
  return nullptr;
}

// Go's strconv.ParseBool.
std::optional<bool> ParseGoBool(std::string_view s) {
  static constexpr std::string_view kTrue[] = {"1", "t", "T", "TRUE", "true", "True"};
  static constexpr std::string_view kFalse[] = {"0", "f", "F", "FALSE", "false", "False"};
  if (std::find(std::begin(kTrue), std::end(kTrue), s) != std::end(kTrue)) return true;
  if (std::find(std::begin(kFalse), std::end(kFalse), s) != std::end(kFalse)) return false;
  return std::nullopt;
}

}  // namespace

const std::vector<FeatureGateInfo>& KnownFeatureGates() {
  static const auto* infos = [] {
    auto* v = new std::vector<FeatureGateInfo>();
    for (const GateField& g : Gates()) v->push_back(g.info);
    return v;
  }();
  return *infos;
}

absl::Status Features::Set(std::string_view name, bool value, bool enforce_locks) {
  const GateField* gate = FindGate(name);
  if (gate == nullptr) return absl::InvalidArgumentError(absl::StrCat("unrecognized feature gate: ", AV(name)));
  if (enforce_locks && gate->info.locked && value != gate->info.default_value) {
    return absl::InvalidArgumentError(absl::StrCat("cannot set feature gate ", AV(name), " to ", value ? "true" : "false",
                                                   ", feature is locked to ",
                                                   gate->info.default_value ? "true" : "false"));
  }
  this->*(gate->field) = value;
  return absl::OkStatus();
}

absl::StatusOr<bool> Features::Get(std::string_view name) const {
  const GateField* gate = FindGate(name);
  if (gate == nullptr) return absl::NotFoundError(absl::StrCat("unrecognized feature gate: ", AV(name)));
  return this->*(gate->field);
}

std::string Features::ToString() const {
  std::string out;
  for (const GateField& g : Gates()) {
    absl::StrAppend(&out, out.empty() ? "" : ",", AV(g.info.name), "=", this->*(g.field) ? "true" : "false");
  }
  return out;
}

absl::StatusOr<Features> ParseFeatureGates(std::string_view text, const Features& base, bool enforce_locks) {
  Features features = base;
  for (absl::string_view item : absl::StrSplit(AV(text), ',')) {
    item = absl::StripAsciiWhitespace(item);
    if (item.empty()) continue;
    const size_t eq = item.find('=');
    if (eq == absl::string_view::npos) {
      return absl::InvalidArgumentError(absl::StrCat("missing bool value for ", item));
    }
    absl::string_view name = absl::StripAsciiWhitespace(item.substr(0, eq));
    absl::string_view value = absl::StripAsciiWhitespace(item.substr(eq + 1));
    std::optional<bool> b = ParseGoBool(SV(value));
    if (!b) {
      return absl::InvalidArgumentError(absl::StrCat("invalid value of ", name, "=", value,
                                                     ", err: strconv.ParseBool: parsing \"", value,
                                                     "\": invalid syntax"));
    }
    RETURN_IF_ERROR(features.Set(SV(name), *b, enforce_locks));
  }
  return features;
}

}  // namespace draforge::alloc
