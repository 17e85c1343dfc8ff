// Reconciliation plans for draforge-controller: which writes bring the cluster's slices to what a
// SimulatedDevicePool expands to, and the pool's status. Pure functions (no client, no clock), so the
// controller's decisions are tested offline.
#ifndef DRAFORGE_SIM_RECONCILE_H_
#define DRAFORGE_SIM_RECONCILE_H_

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "api/resource_claim.h"
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

// The body of the status write for listed pool object `item` (PoolStatus with `item`'s current
// status as `previous`): `item` with its status replaced, ready for an update of the status
// subresource with the read resourceVersion. nullopt when the status would not change (no write:
// the time only moves on a transition). The returned document is the caller's.
std::optional<rapidjson::Document> PoolStatusUpdate(const rapidjson::Value& item, const SimulatedDevicePool& pool,
                                                    const absl::StatusOr<Expansion>& expansion, std::string_view now);

// What a reconcile round does for one SimulatedDevicePool object.
struct PoolPlan {
  std::string name;  // the object's metadata.name
  size_t index = 0;  // the object's position in the listed items
  // The decoded pool; when it does not decode, a stub with the name and generation (so that the
  // status can still say why).
  SimulatedDevicePool pool;
  // Expand's result, or why the pool does not expand (it does not decode, its spec is invalid, or an
  // object listed earlier already publishes the same driver/pool or slice names).
  absl::StatusOr<Expansion> expansion;
  // The slice writes, in order (PlanSlices); empty when expansion is an error: a pool that does not
  // expand keeps its last good slices.
  std::vector<SliceAction> actions;
};

struct PoolsPlan {
  std::vector<PoolPlan> pools;  // one per listed object with a name, in list order
  // Slices owned (OwningPool) by a pool that is no longer listed: to delete, in name order.
  std::vector<api::ResourceSlice> orphans;
  int64_t invalid = 0;  // pools whose expansion is an error
};

// The controller's plan for the pools: `items` is the items array of a SimulatedDevicePool list (in
// list order: the object listed first keeps a contested pool), `slices` the slices the controller
// manages (any order; those without a pool owner are ignored), `options` the expansion options (the
// owner reference is set per pool). Items that are not objects with a metadata.name string are
// skipped. Same input, same plan.
PoolsPlan PlanPools(const rapidjson::Value& items, const std::vector<api::ResourceSlice>& slices,
                    ExpandOptions options);

// Whether the simulator's controller allocates `claim` itself: not allocated yet, not being deleted,
// not owned by a Pod and not in `referenced_by_pod` (a claim a pod uses is kube-scheduler's to
// allocate, with the pod's node). `key` is "namespace/name".
bool ControllerAllocates(const api::ResourceClaim& claim, const std::string& key,
                         const std::set<std::string>& referenced_by_pod);

// The devices of `slices` that carry binding conditions, by BindingDeviceKey. Pointers borrow from
// `slices`.
std::map<std::string, const api::Device*> DevicesWithBindingConditions(
    const std::vector<const api::ResourceSlice*>& slices);

// "driver/pool/device": how DevicesWithBindingConditions and allocation results name a device.
std::string BindingDeviceKey(std::string_view driver, std::string_view pool, std::string_view device);

// The condition types the controller sets True on an allocated device: its bindingConditions, or,
// for a device of a binding-failure fault (kBindingFailedCondition among its
// bindingFailureConditions), that failure condition alone so that the scheduler's PreBind fails.
std::vector<std::string> WantedBindingConditions(const api::Device& device);

// The claim (`claim`: a whole ResourceClaim object as JSON) with status.devices[].conditions
// completed: for every allocation result that carries bindingConditions and names a device of
// `devices`, an entry for the device (created when missing) holding each wanted condition True,
// with lastTransitionTime `now`. Conditions already True are left as they are. Returns nullopt when
// nothing is missing (no write needed); the returned document is the caller's. Errors:
// InvalidArgument naming the claim and field when status.allocation or status.devices is malformed.
absl::StatusOr<std::optional<rapidjson::Document>> PlanBindingConditions(
    const rapidjson::Value& claim, const std::map<std::string, const api::Device*>& devices, std::string_view now);

}  // namespace draforge::sim

#endif  // DRAFORGE_SIM_RECONCILE_H_
