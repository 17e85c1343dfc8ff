// How many more units (a pod and its claims, or a claim alone) a namespace's ResourceQuotas admit.
//
// What a quota has left is hard minus used as the quota controller last recorded them
// (status.hard and status.used: observed state, what admission checks against); a quota without
// status.hard (not synced yet, or written offline) counts with spec.hard and used 0. n units are
// admitted when used + n * usage <= hard for every resource a quota names and a unit uses, as the
// quota admission plugin checks one object at a time. Scopes and scopeSelector are not evaluated: a
// scoped quota counts as if it applied to every unit.
#ifndef DRAFORGE_ALLOC_NAMESPACE_QUOTA_H_
#define DRAFORGE_ALLOC_NAMESPACE_QUOTA_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "api/pod_resources.h"
#include "api/resource_claim.h"
#include "store/cluster.h"

namespace draforge::alloc {

// What one unit counts against quota: with a pod, its requests under "requests.<r>" and plain "<r>"
// for cpu and memory (and "requests.<r>" for every other resource), 1 under "pods" and
// "count/pods"; each claim as api::ClaimQuotaUsage.
api::ResourceList UnitQuotaUsage(const std::optional<api::ResourceList>& pod_requests,
                                 const std::vector<api::ResourceClaim>& claims);

struct QuotaHeadroom {
  // The most units every quota of the namespace admits; nullopt when no quota names a resource the
  // unit uses.
  std::optional<int64_t> units;
  // The quota and resource that admit the fewest units: "resourcequota team-a/gpus:
  // a100.gpu.example.com.deviceclass.resource.k8s.io/devices: 2 per unit, 3 left (hard 8, used 5)".
  std::string why;
  std::vector<std::string> quotas;  // "namespace/name" of every quota read, sorted
};

// The headroom in namespace `ns` for units that each use `usage`. Errors: InvalidArgument for a
// ResourceQuota with a bad resource list.
absl::StatusOr<QuotaHeadroom> NamespaceQuotaHeadroom(const store::Snapshot& snapshot, std::string_view ns,
                                                     const api::ResourceList& usage);

}  // namespace draforge::alloc

#endif  // DRAFORGE_ALLOC_NAMESPACE_QUOTA_H_
