#include "alloc/features.h"

#include <algorithm>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "common/status.h"

namespace draforge::alloc {
namespace {

using api::KubernetesVersion;
constexpr KubernetesVersion k34 = KubernetesVersion::k1_34, k35 = KubernetesVersion::k1_35,
                            k36 = KubernetesVersion::k1_36, k37 = KubernetesVersion::k1_37;

// One entry of a gate's versioned spec: from `since` on (until the next entry) the gate has this
// default, maturity and lock. Entries before 1.34 are left out.
struct GateSpec {
  KubernetesVersion since;
  bool default_value;
  std::string_view maturity;
  bool locked = false;
};

struct GateField {
  std::string_view name;
  bool Features::*field;
  std::vector<GateSpec> specs;  // oldest first; the gate does not exist before the first
};

// pkg/features/kube_features.go of k8s.io/kubernetes v1.34.4, v1.35.4, v1.36.3, v1.37.2.
const std::vector<GateField>& Gates() {
  static const auto* gates = new std::vector<GateField>{
      {"DRAAdminAccess", &Features::admin_access, {{k34, true, "BETA"}, {k36, true, "GA", true}}},
      {"DRAConsumableCapacity", &Features::consumable_capacity, {{k34, false, "ALPHA"}, {k36, true, "BETA"}}},
      {"DRADerivedAttributes", &Features::derived_attributes, {{k37, false, "ALPHA"}}},
      {"DRADeviceBindingConditions", &Features::device_binding_conditions,
       {{k34, false, "ALPHA"}, {k36, true, "BETA"}}},
      {"DRADeviceCompatibilityGroups", &Features::device_compatibility_groups, {{k37, false, "ALPHA"}}},
      {"DRADeviceTaintRules", &Features::device_taint_rules,
       {{k35, false, "ALPHA"}, {k36, false, "BETA"}, {k37, true, "GA"}}},
      {"DRADeviceTaints", &Features::device_taints, {{k34, false, "ALPHA"}, {k36, true, "BETA"}, {k37, true, "GA"}}},
      {"DRAExtendedResource", &Features::extended_resource,
       {{k34, false, "ALPHA"}, {k36, true, "BETA"}, {k37, true, "GA", true}}},
      // Beta in 1.37, but its on-by-default spec requires compatibility version 1.37, and a 1.37
      // binary runs at compatibility version 1.36 by default, so it is off.
      {"DRAFractionalCapacityRange", &Features::fractional_capacity_range, {{k37, false, "BETA"}}},
      {"DRAListTypeAttributes", &Features::list_type_attributes, {{k36, false, "ALPHA"}}},
      {"DRANodeAllocatableResources", &Features::node_allocatable_resources, {{k36, false, "ALPHA"}}},
      {"DRAOptionalNodeOperations", &Features::optional_node_operations, {{k37, false, "ALPHA"}}},
      {"DRAPartitionableDevices", &Features::partitionable_devices, {{k34, false, "ALPHA"}, {k36, true, "BETA"}}},
      {"DRAPrioritizedList", &Features::prioritized_list,
       {{k34, true, "BETA"}, {k36, true, "GA"}, {k37, true, "GA", true}}},
      {"DRAResourceClaimDeviceStatus", &Features::resource_claim_device_status,
       {{k34, true, "BETA"}, {k37, true, "GA", true}}},
      {"DRASchedulerFilterTimeout", &Features::scheduler_filter_timeout, {{k34, true, "BETA"}}},
      {"DRAWorkloadResourceClaims", &Features::workload_resource_claims, {{k36, false, "ALPHA"}, {k37, false, "BETA"}}},
      {"DynamicResourceAllocation", &Features::dynamic_resource_allocation,
       {{k34, true, "GA"}, {k35, true, "GA", true}}},
  };
  return *gates;
}

// The spec of `gate` at `version`, or nullptr when the gate does not exist yet.
const GateSpec* SpecAt(const GateField& gate, KubernetesVersion version) {
  const GateSpec* at = nullptr;
  for (const GateSpec& s : gate.specs) {
    if (s.since <= version) at = &s;
  }
  return at;
}

const GateField* FindGate(std::string_view name) {
  for (const GateField& g : Gates()) {
    if (g.name == name) return &g;
  }
  return nullptr;
}

// What the gates that `f.version` does not have behave as: DRADeviceTaintRules (from 1.35) follows
// DRADeviceTaints at 1.34, whose scheduler applies DeviceTaintRules with DRADeviceTaints.
void ApplyImpliedGates(Features& f) {
  if (f.version < k35) f.device_taint_rules = f.device_taints;
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

std::string_view AllocatorVariantName(AllocatorVariant variant) {
  switch (variant) {
    case AllocatorVariant::kStable: return "stable";
    case AllocatorVariant::kIncubating: return "incubating";
    case AllocatorVariant::kExperimental: return "experimental";
  }
  return "";
}

AllocatorVariant Features::Variant() const {
  const bool base_features = admin_access || prioritized_list || partitionable_devices || device_taints;
  if (version <= k35) {
    // 1.34 passes DeviceBinding and DeviceStatus separately; 1.35 their conjunction.
    const bool binding = version == k34 ? (device_binding_conditions || resource_claim_device_status)
                                        : DeviceBindingAndStatus();
    if (binding || consumable_capacity) return AllocatorVariant::kExperimental;
    return base_features ? AllocatorVariant::kIncubating : AllocatorVariant::kStable;
  }
  const bool incubating = consumable_capacity || DeviceBindingAndStatus();
  if (version == k36) return incubating ? AllocatorVariant::kIncubating : AllocatorVariant::kStable;
  if (list_type_attributes || optional_node_operations || derived_attributes || device_compatibility_groups) {
    return AllocatorVariant::kExperimental;
  }
  return incubating || fractional_capacity_range ? AllocatorVariant::kIncubating : AllocatorVariant::kStable;
}

Features Features::Defaults(KubernetesVersion version) {
  Features f;
  f.version = version;
  for (const GateField& g : Gates()) {
    const GateSpec* spec = SpecAt(g, version);
    f.*(g.field) = spec != nullptr && spec->default_value;
  }
  ApplyImpliedGates(f);
  return f;
}

std::vector<FeatureGateInfo> KnownFeatureGates(KubernetesVersion version) {
  std::vector<FeatureGateInfo> out;
  for (const GateField& g : Gates()) {
    if (const GateSpec* spec = SpecAt(g, version)) {
      out.push_back({g.name, spec->default_value, spec->locked, spec->maturity});
    }
  }
  return out;
}

absl::Status Features::Set(std::string_view name, bool value, bool enforce_locks) {
  const GateField* gate = FindGate(name);
  const GateSpec* spec = gate != nullptr ? SpecAt(*gate, version) : nullptr;
  if (spec == nullptr) return absl::InvalidArgumentError(absl::StrCat("unrecognized feature gate: ", AV(name)));
  if (enforce_locks && spec->locked && value != spec->default_value) {
    return absl::InvalidArgumentError(absl::StrCat("cannot set feature gate ", AV(name), " to ", value ? "true" : "false",
                                                   ", feature is locked to ",
                                                   spec->default_value ? "true" : "false"));
  }
  this->*(gate->field) = value;
  ApplyImpliedGates(*this);
  return absl::OkStatus();
}

absl::StatusOr<bool> Features::Get(std::string_view name) const {
  const GateField* gate = FindGate(name);
  if (gate == nullptr || SpecAt(*gate, version) == nullptr) {
    return absl::NotFoundError(absl::StrCat("unrecognized feature gate: ", AV(name)));
  }
  return this->*(gate->field);
}

std::string Features::ToString() const {
  std::string out;
  for (const GateField& g : Gates()) {
    if (SpecAt(g, version) == nullptr) continue;
    absl::StrAppend(&out, out.empty() ? "" : ",", AV(g.name), "=", this->*(g.field) ? "true" : "false");
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
