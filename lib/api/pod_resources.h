// Resource requests of Pods and allocatable resources of Nodes, as kube-scheduler's NodeResourcesFit
// and the quota system read them (k8s.io/component-helpers/resource.PodRequests, v1.37).
//
// Pod and Node keep these fields verbatim (container resources.requests/limits, spec.overhead,
// spec.resources, status.allocatable are RawJson): this file reads them, so decoding and encoding
// stay lossless. A field that is not a resource list, or a quantity that does not parse, is an error
// naming the object and the field path.
#ifndef DRAFORGE_API_POD_RESOURCES_H_
#define DRAFORGE_API_POD_RESOURCES_H_

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "api/node.h"
#include "api/pod.h"
#include "api/quantity.h"
#include "api/raw_json.h"

namespace draforge::api {

// core/v1 ResourceList, sorted by resource name.
using ResourceList = std::map<std::string, Quantity>;

// Parses a ResourceList value (a JSON object of quantities, strings or numbers as apimachinery's
// Quantity.UnmarshalJSON accepts them). `path` names the field in errors ("spec.overhead").
absl::StatusOr<ResourceList> ParseResourceList(const RawJson& value, std::string_view path);

// Adds every entry of `b` to `a`.
void AddResources(ResourceList& a, const ResourceList& b);

// The pod's effective requests as the scheduler and the quota system count them (PodRequests with
// overhead, no in-place resize state):
//   * the sum of the regular containers' requests, plus every sidecar (an init container with
//     restartPolicy Always);
//   * per resource, at least what each init container needs while it runs: a regular init container
//     its own requests plus the sidecars started before it, a sidecar the sidecars up to itself;
//   * pod-level spec.resources.requests, where set, replace the containers' sum for that resource
//     (PodLevelResources);
//   * plus spec.overhead.
// Errors: InvalidArgument naming the pod and field for a bad resource list.
absl::StatusOr<ResourceList> PodRequests(const Pod& pod);

// The node's status.allocatable (empty when absent). Errors: InvalidArgument for a bad value.
absl::StatusOr<ResourceList> NodeAllocatable(const Node& node);

// The scheduler's integer amount of a quantity of resource `name` (framework.Resource): millicores
// for "cpu", Value() (rounded up) for everything else.
int64_t SchedulerAmount(std::string_view name, const Quantity& q);

// A Pod that is bound to a node and not terminal (phase Succeeded or Failed): what kube-scheduler's
// cache counts against the node.
bool OccupiesNode(const Pod& pod);

}  // namespace draforge::api

#endif  // DRAFORGE_API_POD_RESOURCES_H_
