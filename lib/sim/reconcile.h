// Reconciliation plans for draforge-controller: which writes bring the cluster's slices to what a
// SimulatedDevicePool expands to, and the pool's status. Pure functions (no client, no clock), so the
// controller's decisions are tested offline.
#ifndef DRAFORGE_SIM_RECONCILE_H_
#define DRAFORGE_SIM_RECONCILE_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "api/resource_slice.h"
#include "rapidjson/document.h"
#include "sim/expand.h"
#include "sim/simulated_device_pool.h"

namespace draforge::sim {

struct SliceAction {
  enum class Type { kCreate, kUpdate, kDelete };
  Type type = Type::kCreate;
  // kCreate: the desired slice. kUpdate: the desired slice with the existing one's
  // metadata.resourceVersion (optimistic concurrency) . kDelete: the existing slice.
  api::ResourceSlice slice;
};

// Whether `existing` already is `desired` as far as the simulator cares: the same spec, the desired
// labels and owner references present. Server-set fields (uid, resourceVersion, managedFields,
// timestamps) are ignored.
bool SliceUpToDate(const api::ResourceSlice& desired, const api::ResourceSlice& existing);

// The writes that turn `existing` (the slices the pool owns now) into `desired`, deletions last (so a
// consumer never sees a pool with fewer slices than it had while the new ones are missing), in name
// order within each kind of write. Same input, same plan.
std::vector<SliceAction> PlanSlices(const std::vector<api::ResourceSlice>& desired,
                                    const std::vector<api::ResourceSlice>& existing);

// Whether `slice` is owned by a SimulatedDevicePool (a controller owner reference of that kind), and
// by which (its name; "" when not).
std::string OwningPool(const api::ResourceSlice& slice);

// The owner reference the controller puts on the slices of a pool.
api::OwnerReference OwnerFor(const SimulatedDevicePool& pool);

// The pool's status object (the CRD's .status) after a reconcile: `expansion` is the result of
// Expand (an error makes Ready False with reason InvalidSpec and the message), `now` the RFC 3339
// time for lastTransitionTime, `previous` the current status (may be null) so that
// lastTransitionTime only moves when Ready changes.
rapidjson::Document PoolStatus(const SimulatedDevicePool& pool, const absl::StatusOr<Expansion>& expansion,
                               std::string_view now, const rapidjson::Value* previous);

}  // namespace draforge::sim

#endif  // DRAFORGE_SIM_RECONCILE_H_
