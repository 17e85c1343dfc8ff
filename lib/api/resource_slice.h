// resource.k8s.io/v1 ResourceSlice (cluster-scoped): a driver's devices of one pool, or a part of it.
#ifndef DRAFORGE_API_RESOURCE_SLICE_H_
#define DRAFORGE_API_RESOURCE_SLICE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "api/device_attribute.h"
#include "api/empty_spelling.h"
#include "api/map.h"
#include "api/meta.h"
#include "api/node_selector.h"
#include "api/quantity.h"
#include "api/resource_common.h"

namespace draforge::api {

inline constexpr int kResourceSliceMaxDevices = 128;
inline constexpr int kResourceSliceMaxDevicesWithTaintsOrConsumesCounters = 64;
inline constexpr int kResourceSliceMaxSharedCounters = 8;

struct ResourcePool {
  std::optional<std::string> name;
  std::optional<int64_t> generation;
  std::optional<int64_t> resource_slice_count;
  friend bool operator==(const ResourcePool&, const ResourcePool&) = default;
};


struct CapacityRequestPolicyRange {
  std::optional<Quantity> min;
  std::optional<Quantity> max;
  std::optional<Quantity> step;
  friend bool operator==(const CapacityRequestPolicyRange&, const CapacityRequestPolicyRange&) = default;
};

struct CapacityRequestPolicy {
  std::optional<Quantity> default_;
  std::vector<Quantity> valid_values;
  std::optional<CapacityRequestPolicyRange> valid_range;
  EmptySpelling default_spelling = EmptySpelling::kAbsent;  // `default` has no omitempty
  friend bool operator==(const CapacityRequestPolicy&, const CapacityRequestPolicy&) = default;
};

struct DeviceCapacity {
  std::optional<Quantity> value;
  std::optional<CapacityRequestPolicy> request_policy;
  friend bool operator==(const DeviceCapacity&, const DeviceCapacity&) = default;
};

struct Counter {
  std::optional<Quantity> value;
  friend bool operator==(const Counter&, const Counter&) = default;
};

struct CounterSet {
  std::optional<std::string> name;
  Map<Counter> counters;
  friend bool operator==(const CounterSet&, const CounterSet&) = default;
};

struct DeviceCounterConsumption {
  std::optional<std::string> counter_set;
  Map<Counter> counters;
  // Opaque group names (alpha, gate DRADeviceCompatibilityGroups): devices consuming from the same
  // counter set may be allocated together only if their groups intersect (or both have none).
  std::vector<std::string> compatibility_groups;
  friend bool operator==(const DeviceCounterConsumption&, const DeviceCounterConsumption&) = default;
};

struct NodeAllocatableResourceMapping {
  std::optional<std::string> capacity_key;
  std::optional<Quantity> capacity_multiplier;
  std::optional<Quantity> device_multiplier;
  friend bool operator==(const NodeAllocatableResourceMapping&, const NodeAllocatableResourceMapping&) = default;
};

struct NodeAllocatableResourceOverhead {
  std::optional<Quantity> per_pod;
  std::optional<Quantity> per_container;
  friend bool operator==(const NodeAllocatableResourceOverhead&, const NodeAllocatableResourceOverhead&) = default;
};

struct NodeAllocatableResource {
  std::optional<NodeAllocatableResourceMapping> mapping;
  std::optional<NodeAllocatableResourceOverhead> overhead;
  friend bool operator==(const NodeAllocatableResource&, const NodeAllocatableResource&) = default;
};

struct Device {
  std::optional<std::string> name;
  Map<DeviceAttribute> attributes;
  Map<DeviceCapacity> capacity;
  std::vector<DeviceCounterConsumption> consumes_counters;
  std::optional<std::string> node_name;
  std::optional<NodeSelector> node_selector;
  std::optional<bool> all_nodes;
  std::vector<DeviceTaint> taints;
  std::optional<bool> binds_to_node;
  std::vector<std::string> binding_conditions;
  std::vector<std::string> binding_failure_conditions;
  std::optional<bool> allow_multiple_allocations;
  Map<NodeAllocatableResource> node_allocatable_resources;
  friend bool operator==(const Device&, const Device&) = default;
};

struct ResourceSliceSpec {
  std::optional<std::string> driver;
  std::optional<ResourcePool> pool;
  std::optional<std::string> node_name;
  std::optional<NodeSelector> node_selector;
  std::optional<bool> all_nodes;
  std::vector<Device> devices;
  std::optional<bool> per_device_node_selection;
  std::vector<CounterSet> shared_counters;
  std::optional<std::string> partition_type_attribute;
  std::vector<std::string> skip_node_operations;
  friend bool operator==(const ResourceSliceSpec&, const ResourceSliceSpec&) = default;
};

struct ResourceSlice {
  ObjectMeta metadata;
  std::optional<ResourceSliceSpec> spec;
  friend bool operator==(const ResourceSlice&, const ResourceSlice&) = default;
};

}  // namespace draforge::api

#endif  // DRAFORGE_API_RESOURCE_SLICE_H_
