// core/v1 ResourceQuota, as far as "how many more fit in this namespace" needs it: spec.hard and
// status.hard/used. The store keeps a ResourceQuota as an opaque object (api::OtherObject, whose raw
// JSON is the whole object), so it decodes and encodes without loss; this file reads the typed view
// from that JSON.
#ifndef DRAFORGE_API_RESOURCE_QUOTA_H_
#define DRAFORGE_API_RESOURCE_QUOTA_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "api/object.h"
#include "api/pod_resources.h"

namespace draforge::api {

struct ResourceQuota {
  std::string ns;
  std::string name;
  ResourceList spec_hard;    // spec.hard: what ops asked for
  ResourceList status_hard;  // status.hard: what the quota controller enforces (observed)
  ResourceList status_used;  // status.used: what the quota controller counted (observed)
  bool has_status = false;
};

// Whether `object` is a core/v1 ResourceQuota.
bool IsResourceQuota(const OtherObject& object);

// The typed view of a ResourceQuota. Errors: InvalidArgument naming the quota and field for a bad
// resource list.
absl::StatusOr<ResourceQuota> ReadResourceQuota(const OtherObject& object);

// The quota resource names a ResourceClaim counts under (pkg/quota/v1/evaluator/core).
inline constexpr std::string_view kClaimCountResource = "count/resourceclaims.resource.k8s.io";
// "<class>.deviceclass.resource.k8s.io/devices".
std::string DeviceClassQuotaResource(std::string_view device_class);

// What one ResourceClaim counts against quota: 1 count/resourceclaims.resource.k8s.io and, per
// DeviceClass, the devices it may take: an exact count (default 1), 32 for allocationMode All (the
// most an allocation holds), and for a firstAvailable request the largest alternative per class.
ResourceList ClaimQuotaUsage(const ResourceClaim& claim);

}  // namespace draforge::api

#endif  // DRAFORGE_API_RESOURCE_QUOTA_H_
