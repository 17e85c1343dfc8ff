// What-if nodes from simulated driver profiles: an add-nodes edit of a Node template
// (alloc/whatif_edits.h: {"op": "add-nodes", "count": N, "node": {Node}, "slices": [...]}) may carry
// "simulatedDevicePools": [SimulatedDevicePool, ...]. Each pool is expanded for the template node
// alone (its spec.nodes replaced by names: [<the template's name>]) and its ResourceSlices are added
// to the edit's "slices": what a node of that kind publishes once its DRA drivers run, which is what
// a cluster autoscaler needs to know before the node exists.
#ifndef DRAFORGE_SIM_WHATIF_NODES_H_
#define DRAFORGE_SIM_WHATIF_NODES_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace draforge::sim {

// `edits_json` (a JSON array of what-if edits) with every "simulatedDevicePools" expanded into
// "slices"; other edits unchanged. Errors: InvalidArgument naming the entry and field
// ("edits[0].simulatedDevicePools[1]: SimulatedDevicePool \"gpus\": spec.profile: ..."), a pool on an
// edit without a "node" template, a pool that cannot be expanded (expand.h's errors).
absl::StatusOr<std::string> ExpandWhatifNodePools(std::string_view edits_json);

}  // namespace draforge::sim

#endif  // DRAFORGE_SIM_WHATIF_NODES_H_
