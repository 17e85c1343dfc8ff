// scheduling.k8s.io/v1beta1 PodGroup and Workload (k8s.io/api scheduling/v1beta1, Kubernetes 1.37,
// behind the GenericWorkload gate; PodGroup spec.resourceClaims behind DRAWorkloadResourceClaims),
// and the pod's link to its group, core/v1 PodSpec.schedulingGroup.podGroupName.
//
// The store keeps these kinds opaque (api::OtherObject, the whole object as raw JSON): this file reads
// the fields gang placement needs out of that JSON. Only what the scheduler reads is modelled:
// schedulingPolicy (basic, or gang with minCount), priority, resourceClaims and
// status.resourceClaimStatuses; topology constraints (TopologyAwareWorkloadScheduling, alpha) and
// composite pod groups (CompositePodGroup, alpha) are not. A field of the wrong shape is an error
// naming the object and the field path ("podgroup team-a/train: spec.schedulingPolicy.gang.minCount:
// want an integer").
#ifndef DRAFORGE_API_POD_GROUP_H_
#define DRAFORGE_API_POD_GROUP_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "api/meta.h"
#include "api/object.h"
#include "api/pod.h"

namespace draforge::api {

inline constexpr char kSchedulingGroup[] = "scheduling.k8s.io";
inline constexpr char kPodGroupKind[] = "PodGroup";
inline constexpr char kWorkloadKind[] = "Workload";

// PodGroupSchedulingPolicy: exactly one of basic or gang. `gang` unset means basic.
struct GangSchedulingPolicy {
  int32_t min_count = 0;  // minCount
};
struct PodGroupSchedulingPolicy {
  bool basic = false;
  std::optional<GangSchedulingPolicy> gang;
};

// PodGroupResourceClaim: exactly one of resourceClaimName and resourceClaimTemplateName.
struct PodGroupResourceClaim {
  std::string name;
  std::optional<std::string> resource_claim_name;
  std::optional<std::string> resource_claim_template_name;
};

// PodGroupResourceClaimStatus.
struct PodGroupResourceClaimStatus {
  std::string name;
  std::optional<std::string> resource_claim_name;
};

// WorkloadReference.
struct WorkloadReference {
  std::string workload_name;
  std::string template_name;
};

struct PodGroup {
  ObjectMeta metadata;
  std::optional<WorkloadReference> workload_ref;               // spec.workloadRef
  PodGroupSchedulingPolicy scheduling_policy;                  // spec.schedulingPolicy
  std::vector<PodGroupResourceClaim> resource_claims;          // spec.resourceClaims
  std::optional<int32_t> priority;                             // spec.priority
  std::vector<PodGroupResourceClaimStatus> resource_claim_statuses;  // status.resourceClaimStatuses
};

// PodGroupTemplate of a Workload.
struct PodGroupTemplate {
  std::string name;
  PodGroupSchedulingPolicy scheduling_policy;
  std::vector<PodGroupResourceClaim> resource_claims;
  std::optional<int32_t> priority;
};

struct Workload {
  ObjectMeta metadata;
  std::vector<PodGroupTemplate> pod_group_templates;  // spec.podGroupTemplates
};

// True for an object of group scheduling.k8s.io and kind `kind` ("PodGroup", "Workload").
bool IsSchedulingKind(const Object& object, std::string_view kind);

// Reads a PodGroup / Workload out of an opaque object. Errors: InvalidArgument when the object is of
// another kind or a modelled field has the wrong shape (the message names the object and the field).
absl::StatusOr<PodGroup> DecodePodGroup(const Object& object);
absl::StatusOr<Workload> DecodeWorkload(const Object& object);

// The PodGroup a workload controller creates from `workload`'s template `template_name` under the
// name `name` (same namespace, spec.workloadRef set, policy, claims and priority copied). Errors:
// NotFound when the Workload has no such template.
absl::StatusOr<PodGroup> PodGroupFromTemplate(const Workload& workload, std::string_view template_name,
                                              std::string_view name);

// spec.schedulingGroup.podGroupName of `pod`, or nullopt when the pod belongs to no group. Errors:
// InvalidArgument for a schedulingGroup of the wrong shape (naming the pod).
absl::StatusOr<std::optional<std::string>> PodGroupNameOf(const Pod& pod);

}  // namespace draforge::api

#endif  // DRAFORGE_API_POD_GROUP_H_
