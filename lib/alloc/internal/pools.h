// GatherPools: the pools a node can allocate from (upstream structured/internal/*/pools_*.go).
#ifndef DRAFORGE_ALLOC_INTERNAL_POOLS_H_
#define DRAFORGE_ALLOC_INTERNAL_POOLS_H_

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "alloc/allocator.h"
#include "alloc/features.h"
#include "alloc/internal/node_independent_slices.h"
#include "api/node_selector.h"
#include "api/resource_slice.h"
#include "store/cluster.h"

namespace draforge::alloc::internal {

// Whether a device or slice with these node fields is available on `node` (upstream NodeMatches):
// nodeName first, then allNodes, then the selector (parsed strictly; a parse error is returned as
// "failed to parse node selector ...: <error>"). None set: false.
absl::StatusOr<bool> NodeMatches(const NodeInfo& node, std::string_view node_name, bool all_nodes,
                                 const api::NodeSelector* selector);

struct Pool {
  std::string_view driver;
  std::string_view pool;
  bool incomplete = false;
  bool invalid = false;
  std::string invalid_reason;
  // Slices with devices that target the node, sorted by name.
  std::vector<const api::ResourceSlice*> device_slices;
  // Slices with devices of the same pool and generation that do not target the node.
  std::vector<const api::ResourceSlice*> other_device_slices;
  // Counter sets by name (PartitionableDevices).
  std::map<std::string, const api::CounterSet*, std::less<>> counter_sets;

  // "driver/pool", upstream's PoolID.String().
  std::string Id() const;
};

// The pools of `all_slices` relevant for `node`, in upstream's order: sorted by (driver, pool),
// pools with binding-condition devices after all others. Errors: bad node selectors
// ("failed to perform node selection for slice S: ...").
absl::StatusOr<std::vector<Pool>> GatherPools(const std::vector<const api::ResourceSlice*>& all_slices,
                                              const NodeInfo& node, const Features& features);

// The same from a snapshot's indexes, without scanning every slice per node: the slices whose
// spec.nodeName is the node (Snapshot::SlicesByNode) plus those of `node_independent` that may
// select it; `node_independent` must be built from `snapshot` (once per snapshot, by the caller).
// Same result and errors.
absl::StatusOr<std::vector<Pool>> GatherPools(const store::Snapshot& snapshot,
                                              const NodeIndependentSlices& node_independent, const NodeInfo& node,
                                              const Features& features);

// Field accessors with Go's zero values for unset fields.
std::string_view SliceDriver(const api::ResourceSlice& slice);
std::string_view SlicePool(const api::ResourceSlice& slice);
int64_t SliceGeneration(const api::ResourceSlice& slice);

}  // namespace draforge::alloc::internal

#endif  // DRAFORGE_ALLOC_INTERNAL_POOLS_H_
