// resource.k8s.io/v1 ResourceClaim (namespaced): spec and status.
#ifndef DRAFORGE_API_RESOURCE_CLAIM_H_
#define DRAFORGE_API_RESOURCE_CLAIM_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "api/empty_spelling.h"
#include "api/map.h"
#include "api/meta.h"
#include "api/node_selector.h"
#include "api/quantity.h"
#include "api/resource_common.h"

namespace draforge::api {

inline constexpr char kAllocationModeExactCount[] = "ExactCount";
inline constexpr char kAllocationModeAll[] = "All";
// The most results one allocation may have (resource.AllocationResultsMaxSize).
inline constexpr int kAllocationResultsMaxSize = 32;

struct CapacityRequirements {
  Map<Quantity> requests;
  friend bool operator==(const CapacityRequirements&, const CapacityRequirements&) = default;
};

// A virtual attribute computed by a CEL expression for each candidate device of a request, for use in
// matchAttribute/distinctAttribute constraints (alpha, gate DRADerivedAttributes).
struct DeviceDerivedAttribute {
  std::optional<std::string> name;  // a fully qualified name: "example.com/numaNode"
  std::optional<std::string> expression;
  friend bool operator==(const DeviceDerivedAttribute&, const DeviceDerivedAttribute&) = default;
};

struct ExactDeviceRequest {
  std::optional<std::string> device_class_name;
  std::vector<DeviceSelector> selectors;
  std::optional<std::string> allocation_mode;  // default ExactCount
  std::optional<int64_t> count;                 // default 1 with ExactCount
  std::optional<bool> admin_access;
  std::vector<DeviceToleration> tolerations;
  std::optional<CapacityRequirements> capacity;
  std::vector<DeviceDerivedAttribute> derived_attributes;
  friend bool operator==(const ExactDeviceRequest&, const ExactDeviceRequest&) = default;
};

struct DeviceSubRequest {
  std::optional<std::string> name;
  std::optional<std::string> device_class_name;
  std::vector<DeviceSelector> selectors;
  std::optional<std::string> allocation_mode;
  std::optional<int64_t> count;
  std::vector<DeviceToleration> tolerations;
  std::optional<CapacityRequirements> capacity;
  std::vector<DeviceDerivedAttribute> derived_attributes;
  friend bool operator==(const DeviceSubRequest&, const DeviceSubRequest&) = default;
};

struct DeviceRequest {
  std::optional<std::string> name;
  std::optional<ExactDeviceRequest> exactly;
  std::vector<DeviceSubRequest> first_available;
  friend bool operator==(const DeviceRequest&, const DeviceRequest&) = default;
};

struct DeviceConstraint {
  std::vector<std::string> requests;
  std::optional<std::string> match_attribute;
  std::optional<std::string> distinct_attribute;
  friend bool operator==(const DeviceConstraint&, const DeviceConstraint&) = default;
};

struct DeviceClaimConfiguration {
  std::vector<std::string> requests;
  std::optional<OpaqueDeviceConfiguration> opaque;
  friend bool operator==(const DeviceClaimConfiguration&, const DeviceClaimConfiguration&) = default;
};

struct DeviceClaim {
  std::vector<DeviceRequest> requests;
  std::vector<DeviceConstraint> constraints;
  std::vector<DeviceClaimConfiguration> config;
  EmptySpelling requests_spelling = EmptySpelling::kAbsent;  // `requests` has no omitempty
  friend bool operator==(const DeviceClaim&, const DeviceClaim&) = default;
};

struct ResourceClaimSpec {
  std::optional<DeviceClaim> devices;
  friend bool operator==(const ResourceClaimSpec&, const ResourceClaimSpec&) = default;
};

struct DeviceRequestAllocationResult {
  std::optional<std::string> request;
  std::optional<std::string> driver;
  std::optional<std::string> pool;
  std::optional<std::string> device;
  std::optional<bool> admin_access;
  std::vector<DeviceToleration> tolerations;
  std::vector<std::string> binding_conditions;
  std::vector<std::string> binding_failure_conditions;
  std::optional<std::string> share_id;
  Map<Quantity> consumed_capacity;
  std::vector<std::string> skip_node_operations;
  friend bool operator==(const DeviceRequestAllocationResult&, const DeviceRequestAllocationResult&) = default;
};

struct DeviceAllocationConfiguration {
  std::optional<std::string> source;  // FromClass, FromClaim
  std::vector<std::string> requests;
  std::optional<OpaqueDeviceConfiguration> opaque;
  friend bool operator==(const DeviceAllocationConfiguration&, const DeviceAllocationConfiguration&) = default;
};

struct DeviceAllocationResult {
  std::vector<DeviceRequestAllocationResult> results;
  std::vector<DeviceAllocationConfiguration> config;
  friend bool operator==(const DeviceAllocationResult&, const DeviceAllocationResult&) = default;
};

struct AllocationResult {
  std::optional<DeviceAllocationResult> devices;
  std::optional<NodeSelector> node_selector;
  std::optional<Time> allocation_timestamp;
  friend bool operator==(const AllocationResult&, const AllocationResult&) = default;
};

struct ResourceClaimConsumerReference {
  std::optional<std::string> api_group;
  std::optional<std::string> resource;
  std::optional<std::string> name;
  std::optional<std::string> uid;
  friend bool operator==(const ResourceClaimConsumerReference&, const ResourceClaimConsumerReference&) = default;
};

struct NetworkDeviceData {
  std::optional<std::string> interface_name;
  std::vector<std::string> ips;
  std::optional<std::string> hardware_address;
  friend bool operator==(const NetworkDeviceData&, const NetworkDeviceData&) = default;
};

struct AllocatedDeviceStatus {
  std::optional<std::string> driver;
  std::optional<std::string> pool;
  std::optional<std::string> device;
  std::optional<std::string> share_id;
  std::vector<Condition> conditions;
  std::optional<RawJson> data;
  std::optional<NetworkDeviceData> network_data;
  EmptySpelling conditions_spelling = EmptySpelling::kAbsent;  // `conditions` has no omitempty
  friend bool operator==(const AllocatedDeviceStatus&, const AllocatedDeviceStatus&) = default;
};

struct ResourceClaimStatus {
  std::optional<AllocationResult> allocation;
  std::vector<ResourceClaimConsumerReference> reserved_for;
  std::vector<AllocatedDeviceStatus> devices;
  friend bool operator==(const ResourceClaimStatus&, const ResourceClaimStatus&) = default;
};

struct ResourceClaim {
  ObjectMeta metadata;
  std::optional<ResourceClaimSpec> spec;
  std::optional<ResourceClaimStatus> status;
  friend bool operator==(const ResourceClaim&, const ResourceClaim&) = default;
};

}  // namespace draforge::api

#endif  // DRAFORGE_API_RESOURCE_CLAIM_H_
