// Lifecycle anomalies: states a healthy cluster passes through briefly or never, which an operator
// wants to see (a claim holding devices nobody uses, a result naming a device that has gone, ...).
#ifndef DRAFORGE_ANALYSIS_ANOMALIES_H_
#define DRAFORGE_ANALYSIS_ANOMALIES_H_

#include <string>
#include <string_view>
#include <vector>

#include "store/cluster.h"

namespace draforge::analysis {

enum class AnomalyKind {
  // status.allocation set, status.reservedFor empty: the devices are held but no consumer uses
  // them. The resourceclaim controller deallocates such claims; one that stays is stuck.
  kAllocatedNotReserved,
  // An allocation result names a device that no current slice of its pool publishes (the driver
  // removed it, or the pool is gone).
  kUnknownDevice,
  // A claim request names a DeviceClass that does not exist: it can never be allocated.
  kMissingDeviceClass,
  // A pod references a ResourceClaim that is not stored (not created yet, or deleted).
  kMissingClaim,
  // A pool whose current generation has fewer slices than resourceSliceCount: the allocator
  // does not allocate from it until it is complete.
  kIncompletePool,
  // A pool with two devices of the same name: the allocator refuses it.
  kInvalidPool,
  // Two claims hold the same device without a shareID and without adminAccess.
  kDeviceOverallocated,
  // status.reservedFor set without status.allocation (API validation forbids it).
  kReservedNotAllocated,
};

// "allocatedNotReserved", "unknownDevice", "missingDeviceClass", "missingClaim", "incompletePool",
// "invalidPool", "deviceOverallocated", "reservedNotAllocated".
std::string_view AnomalyKindName(AnomalyKind kind);

enum class Severity { kWarning, kError };
// "warning", "error".
std::string_view SeverityName(Severity severity);

struct Anomaly {
  AnomalyKind kind;
  Severity severity;
  // The graph node id of the object concerned (lib/graph ids: "ResourceClaim/ns/name",
  // "Pool/driver/pool", "Pod/ns/name", "Device/driver/pool/device").
  std::string object;
  std::string message;  // one sentence naming the objects and fields involved
};

// Every anomaly of the snapshot, sorted by (object, kind). Only claims and pods of namespace `ns`
// when it is non-empty (pool anomalies are cluster-wide and then left out). Never fails.
std::vector<Anomaly> FindAnomalies(const store::Snapshot& snapshot, std::string_view ns = {});

}  // namespace draforge::analysis

#endif  // DRAFORGE_ANALYSIS_ANOMALIES_H_
