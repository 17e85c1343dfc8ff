// kube-scheduler's NodeResourcesFit filter for HowManyMore: what is free on a node (status.allocatable
// minus the requests of the pods bound there, and one pod slot per pod), and whether one more pod's
// requests fit.
#ifndef DRAFORGE_ALLOC_NODE_RESOURCES_H_
#define DRAFORGE_ALLOC_NODE_RESOURCES_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "api/pod_resources.h"
#include "store/cluster.h"

namespace draforge::alloc {

// A pod's requests in the scheduler's integer units (api::SchedulerAmount), zero entries dropped.
using SchedulerResources = std::map<std::string, int64_t>;
SchedulerResources ToSchedulerResources(const api::ResourceList& list);

// Why a pod does not fit a node's resources.
struct ResourceShortfall {
  std::string resource;  // "cpu", "memory", "pods", ...
  std::string reason;    // the scheduler's words: "Insufficient cpu", "Too many pods"
  std::string why;       // "cpu: 10 requested, 6 free"
};

// The free resources of one node.
class NodeResources {
 public:
  // For each of `nodes` (Node objects of `snapshot`), its allocatable minus what the snapshot's pods
  // bound to it (api::OccupiesNode) request; one pass over the pods. Errors: InvalidArgument for a
  // bad allocatable or pod resource list (naming the object).
  static absl::StatusOr<std::vector<NodeResources>> Of(const store::Snapshot& snapshot,
                                                       const std::vector<const api::Node*>& nodes);

  // The first shortfall for a pod requesting `requests` (the scheduler checks the pod count first,
  // then every requested resource in name order), or nullopt when it fits.
  std::optional<ResourceShortfall> Check(const SchedulerResources& requests) const;
  // Takes what such a pod requests.
  void Take(const SchedulerResources& requests);

 private:
  SchedulerResources allocatable_;
  SchedulerResources requested_;
  int64_t pods_ = 0;
};

}  // namespace draforge::alloc

#endif  // DRAFORGE_ALLOC_NODE_RESOURCES_H_
