// alloc::Features: the Kubernetes feature gates that change what the DRA allocator does, with the
// names and defaults of Kubernetes 1.37 (pkg/features/kube_features.go, versioned specs at 1.37).
#ifndef DRAFORGE_ALLOC_FEATURES_H_
#define DRAFORGE_ALLOC_FEATURES_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace draforge::alloc {

// One field per gate; a default-constructed Features is Kubernetes 1.37's default configuration.
// (Maturity at 1.37 in the comments; "locked" = LockToDefault, kube-scheduler refuses to change it.)
struct Features {
  bool dynamic_resource_allocation = true;  // DynamicResourceAllocation: GA 1.34, locked
  bool prioritized_list = true;             // DRAPrioritizedList: GA 1.36, locked in 1.37
  bool admin_access = true;                 // DRAAdminAccess: GA 1.36, locked
  bool resource_claim_device_status = true; // DRAResourceClaimDeviceStatus: GA 1.37, locked
  bool device_taints = true;                // DRADeviceTaints: GA 1.37 (not locked until 1.38)
  bool device_taint_rules = true;           // DRADeviceTaintRules: GA 1.37 (not locked until 1.38)
  bool partitionable_devices = true;        // DRAPartitionableDevices: beta 1.36, on
  bool consumable_capacity = true;          // DRAConsumableCapacity: beta 1.36, on
  bool device_binding_conditions = true;    // DRADeviceBindingConditions: beta 1.36, on
  bool extended_resource = true;            // DRAExtendedResource: GA 1.37, locked
  bool scheduler_filter_timeout = true;     // DRASchedulerFilterTimeout: beta 1.34, on
  // DRAFractionalCapacityRange: beta 1.37. Its on-by-default spec requires compatibility version
  // 1.37, and a 1.37 binary runs at compatibility version 1.36 by default, so it is off.
  bool fractional_capacity_range = false;
  bool list_type_attributes = false;        // DRAListTypeAttributes: alpha 1.36
  bool node_allocatable_resources = false;  // DRANodeAllocatableResources: alpha 1.36
  bool workload_resource_claims = false;    // DRAWorkloadResourceClaims: beta 1.37, off
  bool derived_attributes = false;          // DRADerivedAttributes: alpha 1.37
  bool device_compatibility_groups = false; // DRADeviceCompatibilityGroups: alpha 1.37
  bool optional_node_operations = false;    // DRAOptionalNodeOperations: alpha 1.37

  // Upstream's allocator Features (structured/internal/types.go) derived from the gates.
  // DeviceBindingAndStatus needs both DRADeviceBindingConditions and DRAResourceClaimDeviceStatus.
  bool DeviceBindingAndStatus() const { return device_binding_conditions && resource_claim_device_status; }

  // Whether kube-scheduler 1.37 runs its "experimental" allocator variant (structured/allocator.go
  // picks the first variant supporting every enabled feature): it does when a gate only that variant
  // supports is on. The variants differ beyond those gates: only the experimental one looks at a
  // slice's skipNodeOperations (refusing its devices unless DRAOptionalNodeOperations is on and the
  // node declares it, and copying the list into results); the others allocate such devices as
  // plain ones. DRAForge follows that, so that results equal the scheduler's for the same gates.
  bool ExperimentalAllocator() const {
    return list_type_attributes || optional_node_operations || derived_attributes || device_compatibility_groups;
  }

  // Whether kube-scheduler 1.37 runs its "stable" allocator variant: the first variant whose
  // supported features (admin access, prioritized list, partitionable devices, device taints) cover
  // every enabled one, i.e. consumable capacity, binding conditions with device status, fractional
  // capacity range and every alpha gate are off. That variant predates consumable capacity and
  // distinctAttribute: it ignores capacity requests (no error, nothing checked or consumed),
  // evaluates `device.allowMultipleAllocations` as false, rejects distinctAttribute constraints,
  // and takes a slice with shared counters into its pool whatever node it targets. DRAForge follows
  // that, so that results equal the scheduler's for the same gates.
  bool StableAllocator() const {
    return !ExperimentalAllocator() && !consumable_capacity && !DeviceBindingAndStatus() && !fractional_capacity_range;
  }

  // The Kubernetes 1.37 defaults (same as Features{}).
  static Features Defaults() { return Features{}; }

  // Sets gate `name` (exact Kubernetes spelling, e.g. "DRAAdminAccess"). Errors: InvalidArgument
  // "unrecognized feature gate: X"; with `enforce_locks`, InvalidArgument "cannot set feature gate
  // X to false, feature is locked to true" as kube-scheduler reports it.
  absl::Status Set(std::string_view name, bool value, bool enforce_locks = false);
  // The value of gate `name`, or NotFound.
  absl::StatusOr<bool> Get(std::string_view name) const;

  // "A=true,B=false" in gate-name order as written; values as Go's strconv.ParseBool accepts them.
  std::string ToString() const;

  friend bool operator==(const Features&, const Features&) = default;
};

// Every gate Features knows, in alphabetical order, with its 1.37 default and lock.
struct FeatureGateInfo {
  std::string_view name;
  bool default_value;
  bool locked;
};
const std::vector<FeatureGateInfo>& KnownFeatureGates();

// Parses `--feature-gates` text ("DRAAdminAccess=true,DRAListTypeAttributes=false") on top of
// `base` (default: the 1.37 defaults). Whitespace around items is ignored; an empty string changes
// nothing. Errors (InvalidArgument) name the item: "missing bool value for X",
// "invalid value of X=maybe, err: ...", "unrecognized feature gate: X"; locked gates as Set.
absl::StatusOr<Features> ParseFeatureGates(std::string_view text, const Features& base = Features{},
                                           bool enforce_locks = true);

}  // namespace draforge::alloc

#endif  // DRAFORGE_ALLOC_FEATURES_H_
