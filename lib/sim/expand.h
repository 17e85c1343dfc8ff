// Expansion: SimulatedDevicePools -> the ResourceSlices the real drivers would publish.
//
// Expansion is a pure function of the pool's spec (and ExpandOptions): the same input gives the same
// slices, byte for byte once encoded, and clearing a fault from spec.faults gives back exactly the
// slices published before it was injected.
//
// Layout (docs/simulation.md has examples):
//   * spec.nodes.names: one pool per node, named after the node (what kubelet plugins publish), its
//     slices bound with spec.nodeName; nodeSelector / allNodes: one network-attached pool named after
//     the object.
//   * Counter sets first, in slices of their own (Kubernetes 1.35+: a slice carries devices or
//     sharedCounters, never both), at most 8 per slice; then the devices, group by group (a profile's
//     groups, e.g. NUMA nodes), at most 128 per slice, 64 when a slice's devices have taints or
//     consume counters.
//   * Every slice of a pool has the pool's generation (spec.poolGeneration) and resourceSliceCount.
//   * Slice names: "<object>-<node>-<index>" for per-node pools, "<object>-<index>" otherwise.
//   * Every slice carries the labels app.kubernetes.io/managed-by=draforge-sim and
//     sim.draforge.io/pool=<object>, and passes lib/api's ResourceSlice validation (a pool that
//     would not is an error, never a half-written result).
#ifndef DRAFORGE_SIM_EXPAND_H_
#define DRAFORGE_SIM_EXPAND_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "api/meta.h"
#include "api/resource_slice.h"
#include "sim/simulated_device_pool.h"

namespace draforge::sim {

// Binding condition types the simulator puts on devices of a binding-failure fault (unless the pool
// sets its own) and reports on allocated claims: the failure one is the one that turns True.
inline constexpr char kBindingReadyCondition[] = "SimulatedBindingReady";
inline constexpr char kBindingFailedCondition[] = "SimulatedBindingFailed";

struct ExpandOptions {
  // The simulation clock, in ticks (flap faults alternate with it). 0 for offline expansion.
  int64_t tick = 0;
  // When set (the controller), every slice gets this owner reference, so that deleting the
  // SimulatedDevicePool deletes its slices.
  std::optional<api::OwnerReference> owner;
};

// One pool as published.
struct PublishedPool {
  std::string driver;
  std::string pool;            // the pool name
  int64_t generation = 0;      // the newest generation published
  int64_t slice_count = 0;     // resourceSliceCount of the newest generation
};

struct Expansion {
  // Every slice, pool by pool (pools in spec.nodes.names order), counter slices before device
  // slices, stale slices (stale-generation faults) last.
  std::vector<api::ResourceSlice> slices;
  std::vector<PublishedPool> pools;
};

// Expands one pool. Errors (kInvalidArgument) name the object and the field: an unknown profile, a
// devicesPerNode the real driver's layout cannot publish (with the rule), an override that makes a
// slice invalid (with lib/api's validation errors), a fault or taint naming a device or node the pool
// does not have.
absl::StatusOr<Expansion> Expand(const SimulatedDevicePool& pool, const ExpandOptions& options = {});

// Expands several pools together and refuses two objects that would publish the same (driver, pool)
// or the same slice name: the real drivers would overwrite each other.
absl::StatusOr<Expansion> ExpandAll(const std::vector<SimulatedDevicePool>& pools, const ExpandOptions& options = {});

}  // namespace draforge::sim

#endif  // DRAFORGE_SIM_EXPAND_H_
