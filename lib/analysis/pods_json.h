// Pods as JSON: each pod's node, phase and the ResourceClaims it uses, resolved as the scheduler
// and the kubelet resolve them (spec.resourceClaims with status.resourceClaimStatuses, then the claims
// whose status.reservedFor names the pod without the pod naming them).
#ifndef DRAFORGE_ANALYSIS_PODS_JSON_H_
#define DRAFORGE_ANALYSIS_PODS_JSON_H_

#include <string>
#include <string_view>

#include "store/cluster.h"

namespace draforge::analysis {

// {"snapshot":{...},"items":[{"namespace","name","uid","node","phase","claims":[{"name",
// "resourceClaimName","resourceClaimTemplateName","stored","reserved","state"}]}]}: the pods of
// namespace `ns` ("" = every namespace), sorted by (namespace, name). A claim entry's "name" is the
// pod's spec.resourceClaims[].name ("" for a claim known only from its reservedFor);
// "resourceClaimName" is "" while a template's claim is not created yet; "state" is the stored
// claim's (pending, allocated, reserved) or "" when it is not stored. Never fails.
std::string PodsJson(const store::Snapshot& snapshot, std::string_view ns = {});

}  // namespace draforge::analysis

#endif  // DRAFORGE_ANALYSIS_PODS_JSON_H_
