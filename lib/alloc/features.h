// alloc::Features: the Kubernetes feature gates that change what the DRA allocator does, with the
// names, defaults and locks of each supported Kubernetes version (pkg/features/kube_features.go of
// k8s.io/kubernetes v1.34.4, v1.35.4, v1.36.3 and v1.37.2: the versioned specs at that version).
#ifndef DRAFORGE_ALLOC_FEATURES_H_
#define DRAFORGE_ALLOC_FEATURES_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "api/kubernetes_version.h"

namespace draforge::alloc {

// The allocator variant kube-scheduler's structured.NewAllocator picks (structured/allocator.go: the
// first of stable, incubating, experimental whose supported features cover every enabled one).
enum class AllocatorVariant { kStable, kIncubating, kExperimental };
std::string_view AllocatorVariantName(AllocatorVariant variant);  // "stable", "incubating", "experimental"

// One field per gate; a default-constructed Features is Kubernetes 1.37's default configuration, and
// Defaults(version) another version's. (Maturity at 1.37 in the comments; "locked" = LockToDefault,
// kube-scheduler refuses to change it.) A gate that does not exist at `version` keeps the value
// that version behaves as (e.g. DRAListTypeAttributes false at 1.34; DRADeviceTaintRules, which 1.34
// does not have, follows DRADeviceTaints there, as 1.34's scheduler applies DeviceTaintRules with
// DRADeviceTaints).
struct Features {
  // The Kubernetes version whose gate table, locks and allocator variants apply.
  api::KubernetesVersion version = api::kLatestKubernetesVersion;
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

  // The variant kube-scheduler of `version` runs for these gates. 1.34 and 1.35: stable supports no
  // feature, incubating admin access, prioritized list, partitionable devices and device taints,
  // experimental also binding conditions + device status (1.34: either of them) and consumable
  // capacity, so 1.34's defaults (DRAResourceClaimDeviceStatus on) run the experimental variant.
  // 1.36: stable supports those four, incubating also binding conditions and consumable capacity;
  // the scheduler never asks for list-type attributes (CEL only), so experimental is never chosen.
  // 1.37: stable as 1.36, incubating also fractional capacity range, experimental the alpha gates.
  AllocatorVariant Variant() const;

  // Whether the chosen variant is 1.37's experimental one: it does when a gate only that variant
  // supports is on. The variants differ beyond those gates: only the experimental one looks at a
  // slice's skipNodeOperations (refusing its devices unless DRAOptionalNodeOperations is on and the
  // node declares it, and copying the list into results); the others allocate such devices as
  // plain ones. DRAForge follows that, so that results equal the scheduler's for the same gates.
  // Older versions have no skipNodeOperations: false for them.
  bool ExperimentalAllocator() const {
    return version == api::KubernetesVersion::k1_37 && Variant() == AllocatorVariant::kExperimental;
  }

  // Whether the chosen variant predates consumable capacity and distinctAttribute (1.37 and 1.36:
  // the stable variant, chosen when consumable capacity, binding conditions with device status,
  // fractional capacity range and every alpha gate are off; 1.34 and 1.35: stable or incubating).
  // It ignores capacity requests (no error, nothing checked or consumed), evaluates
  // `device.allowMultipleAllocations` as false, rejects distinctAttribute constraints, and takes a
  // slice with shared counters into its pool whatever node it targets. DRAForge follows that, so
  // that results equal the scheduler's for the same gates.
  bool StableAllocator() const {
    const AllocatorVariant v = Variant();
    if (version <= api::KubernetesVersion::k1_35) return v != AllocatorVariant::kExperimental;
    return v == AllocatorVariant::kStable;
  }

  // Result shape per version (the AllocationResult the chosen variant writes):
  // Whether a claim config naming some requests appears once in the result, and a config (class or
  // claim) that covers every request of the claim has its `requests` cleared ("empty means all").
  // From 1.37. Before, every variant appends a claim config once per request it names (by name or
  // by the chosen subrequest) and keeps `requests` as written.
  bool CompactResultConfigs() const { return version >= api::KubernetesVersion::k1_37; }
  // Whether results carry the request's tolerations: from 1.36 every variant, in 1.35 incubating and
  // experimental (the variants that know device taints), in 1.34 none.
  bool ResultTolerations() const {
    if (version >= api::KubernetesVersion::k1_36) return true;
    return version == api::KubernetesVersion::k1_35 && Variant() != AllocatorVariant::kStable;
  }

  // Pools as 1.34's GatherPools builds them (every variant): a pool is the newest generation of the
  // slices relevant for the node, incomplete when those are fewer than resourceSliceCount (slices
  // for other nodes are not looked up), invalid only for a duplicate device name. The search takes
  // devices from incomplete pools, stops with the error "pool P is invalid: REASON" when it reaches
  // an invalid pool, and a claim that fails is "cannot allocate all claims" whatever the pools.
  // Slices with shared counters stay (only perDeviceNodeSelection needs DRAPartitionableDevices).
  // From 1.35 on, a pool's completeness counts all its slices, incomplete and invalid pools are
  // skipped, and a failure with an invalid pool says so.
  bool NodeRelevantPools() const { return version == api::KubernetesVersion::k1_34; }

  // Whether a distinctAttribute constraint compares attribute values by address, as 1.34's
  // experimental variant does (pointer comparison, fixed in 1.35): two devices never clash, a device
  // only needs the attribute; only the same (shared) device again clashes with the device last
  // added for a request.
  bool DistinctAttributeByIdentity() const { return version == api::KubernetesVersion::k1_34; }
  // Whether a distinctAttribute constraint compares a new device only with the device last added
  // for each request (upstream's map keyed by request name, fixed in 1.37 by a list of every
  // device): 1.35 and 1.36. Removing a device forgets its request's entry, even while other
  // devices of that request stay. 1.34 does the same by address (DistinctAttributeByIdentity).
  bool DistinctAttributeLastOfRequest() const {
    return version == api::KubernetesVersion::k1_35 || version == api::KubernetesVersion::k1_36;
  }

  // Whether matchAttribute and distinctAttribute compare list-type attributes as sets (a common
  // element; disjoint sets), which only 1.37's experimental variant does (upstream's allocator
  // Features.ListTypeAttributes). 1.36's kube-scheduler never asks for it, so its constraints
  // compare scalars even with DRAListTypeAttributes on (a list value matches nothing after the
  // first device), while its CEL selectors see the lists.
  bool ListTypeConstraints() const {
    return list_type_attributes && version >= api::KubernetesVersion::k1_37;
  }

  // Whether CEL selectors see list-valued attributes (upstream's cel.Features.EnableListTypeAttributes
  // at evaluation): 1.37 always; 1.36's scheduler only with DRAListTypeAttributes on, otherwise a
  // device with a list-valued attribute fails every selector with a runtime error. Before 1.36 the
  // API has no list values.
  bool ListAttributeValues() const { return version >= api::KubernetesVersion::k1_37 || list_type_attributes; }

  // Whether the device after one of an allocationMode All subrequest is looked up as subrequest 0's
  // (1.34 and 1.35: allocateOne's recursion drops subRequestIndex, fixed in 1.36). An All
  // subrequest other than the first then ends after its first device when the first subrequest
  // wants no more devices than that, or continues with the first subrequest's devices.
  bool AllSubrequestLosesIndex() const { return version <= api::KubernetesVersion::k1_35; }

  // Whether the search for a request's next device starts again at the first device of the first
  // pool (1.34 and 1.35) instead of after the device just taken (1.36 on; stable variants never
  // had it, which gives the same answers there because they allocate no device twice). From the
  // start, a device that allows multiple allocations can serve one request twice, and devices
  // before the last one taken are tried again in another order.
  bool NextDeviceSearchedFromStart() const { return version <= api::KubernetesVersion::k1_35; }

  // Whether a pool's slices with binding conditions come after its other slices, so that devices
  // without binding conditions are tried first (1.34 and 1.35's experimental variant, GatherPools).
  // Every variant that knows binding conditions still moves whole pools with them last.
  bool BindingConditionSlicesLast() const {
    return version <= api::KubernetesVersion::k1_35 && !StableAllocator();
  }

  // Whether allocating a device re-checks consumable capacity on the device at the request's device
  // index in the chosen device's slice rather than on the chosen device (1.34's experimental
  // variant, the only one of 1.34 with consumable capacity; fixed in 1.35): Search::AllocateDeviceAt134.
  bool CapacityRecheckedAtRequestIndex() const {
    return version == api::KubernetesVersion::k1_34 && !StableAllocator();
  }

  // Whether a device taint of any effect must be tolerated (1.34, whose API knows only NoSchedule and
  // NoExecute) rather than only those two (1.35 on ignore others, such as None).
  bool EveryTaintEffectPrevents() const { return version == api::KubernetesVersion::k1_34; }

  // Whether a DeviceTaintRule without spec.deviceSelector taints every device (1.34 to 1.36: the
  // ResourceSlice tracker reads a missing selector as an empty one) rather than none (1.37).
  bool TaintRuleWithoutSelectorMatchesAll() const { return version <= api::KubernetesVersion::k1_36; }

  // Whether GatherPools takes every slice with shared counters into its pool whatever node it
  // targets ("Always include slices with SharedCounters"): 1.35's incubating and experimental
  // variants, every 1.36 variant, 1.37's stable one; not 1.34 (counters live in the device slices).
  bool CounterSlicesForEveryNode() const {
    switch (version) {
      case api::KubernetesVersion::k1_34: return false;
      case api::KubernetesVersion::k1_35: return Variant() != AllocatorVariant::kStable;
      case api::KubernetesVersion::k1_36: return true;
      case api::KubernetesVersion::k1_37: return Variant() == AllocatorVariant::kStable;
    }
    return false;
  }

  // The Kubernetes 1.37 defaults (same as Features{}).
  static Features Defaults() { return Features{}; }
  // The defaults of `version`'s kube-scheduler (its binary version's defaults).
  static Features Defaults(api::KubernetesVersion version);

  // Sets gate `name` (exact Kubernetes spelling, e.g. "DRAAdminAccess") as `version`'s scheduler
  // does. Errors: InvalidArgument "unrecognized feature gate: X" (also for a gate `version` does not
  // have yet); with `enforce_locks`, InvalidArgument "cannot set feature gate X to false, feature is
  // locked to true" as kube-scheduler reports it.
  absl::Status Set(std::string_view name, bool value, bool enforce_locks = false);
  // The value of gate `name`, or NotFound.
  absl::StatusOr<bool> Get(std::string_view name) const;

  // "A=true,B=false" for the gates of `version`, in name order.
  std::string ToString() const;

  friend bool operator==(const Features&, const Features&) = default;
};

// A gate Features knows, with its default and lock at one version.
struct FeatureGateInfo {
  std::string_view name;
  bool default_value;
  bool locked;
  std::string_view maturity;  // "ALPHA", "BETA", "GA" as kube_features.go's PreRelease
};
// The gates of `version` (default: 1.37) in alphabetical order; gates that version does not have
// are absent.
std::vector<FeatureGateInfo> KnownFeatureGates(api::KubernetesVersion version = api::kLatestKubernetesVersion);

// Parses `--feature-gates` text ("DRAAdminAccess=true,DRAListTypeAttributes=false") on top of
// `base` (default: the 1.37 defaults; its `version` decides which gates exist and which are
// locked). Whitespace around items is ignored; an empty string changes nothing. Errors
// (InvalidArgument) name the item: "missing bool value for X", "invalid value of X=maybe, err: ...",
// "unrecognized feature gate: X"; locked gates as Set.
absl::StatusOr<Features> ParseFeatureGates(std::string_view text, const Features& base = Features{},
                                           bool enforce_locks = true);

}  // namespace draforge::alloc

#endif  // DRAFORGE_ALLOC_FEATURES_H_
