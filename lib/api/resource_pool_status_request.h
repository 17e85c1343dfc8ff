// resource.k8s.io/v1alpha3 ResourcePoolStatusRequest (cluster-scoped, alpha in 1.37): asks the
// control plane for a summary of pools. DRAForge reads and writes it; it does not act on it.
#ifndef DRAFORGE_API_RESOURCE_POOL_STATUS_REQUEST_H_
#define DRAFORGE_API_RESOURCE_POOL_STATUS_REQUEST_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "api/meta.h"
#include "api/quantity.h"

namespace draforge::api {

struct ResourcePoolStatusRequestSpec {
  std::optional<std::string> driver;
  std::optional<std::string> pool_name;
  std::optional<int64_t> limit;
  std::optional<std::string> default_partition_type_attribute;
  friend bool operator==(const ResourcePoolStatusRequestSpec&, const ResourcePoolStatusRequestSpec&) = default;
};

struct PartitionSummary {
  std::optional<std::string> attribute;
  std::optional<std::string> type;
  std::optional<int64_t> total;
  std::optional<int64_t> allocatable;
  friend bool operator==(const PartitionSummary&, const PartitionSummary&) = default;
};

struct ShareableCapacitySummary {
  std::optional<std::string> name;
  std::optional<Quantity> total;
  std::optional<Quantity> consumed;
  std::optional<Quantity> available;
  friend bool operator==(const ShareableCapacitySummary&, const ShareableCapacitySummary&) = default;
};

struct ShareableSummary {
  std::optional<int64_t> fully_available_devices;
  std::optional<int64_t> partially_available_devices;
  std::vector<ShareableCapacitySummary> capacity;
  friend bool operator==(const ShareableSummary&, const ShareableSummary&) = default;
};

struct PoolStatus {
  std::optional<std::string> driver;
  std::optional<std::string> pool_name;
  std::optional<int64_t> generation;
  std::optional<int64_t> resource_slice_count;
  std::optional<int64_t> total_devices;
  std::optional<int64_t> allocated_devices;
  std::optional<int64_t> available_devices;
  std::optional<int64_t> unavailable_devices;
  std::optional<std::string> node_name;
  std::optional<std::string> validation_error;
  std::vector<PartitionSummary> partition_summary;
  std::optional<ShareableSummary> shareable_summary;
  friend bool operator==(const PoolStatus&, const PoolStatus&) = default;
};

struct ResourcePoolStatusRequestStatus {
  std::optional<int64_t> pool_count;
  std::vector<PoolStatus> pools;
  std::vector<Condition> conditions;
  friend bool operator==(const ResourcePoolStatusRequestStatus&, const ResourcePoolStatusRequestStatus&) = default;
};

struct ResourcePoolStatusRequest {
  ObjectMeta metadata;
  std::optional<ResourcePoolStatusRequestSpec> spec;
  std::optional<ResourcePoolStatusRequestStatus> status;
  friend bool operator==(const ResourcePoolStatusRequest&, const ResourcePoolStatusRequest&) = default;
};

}  // namespace draforge::api

#endif  // DRAFORGE_API_RESOURCE_POOL_STATUS_REQUEST_H_
