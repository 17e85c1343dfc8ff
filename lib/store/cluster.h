// store::Cluster: an indexed object store fed by add/update/delete (watch) events, publishing
// immutable snapshots.
//
// Cluster applies events as a Kubernetes informer does: add/update by identity, delete, relist
// (Replace). Every change publishes a new store::Snapshot; readers take the current snapshot (one
// pointer copy) and keep using it while the store moves on.
//
// Snapshots share structure: every index is a persistent sorted map (internal/persistent_map.h), so a
// change copies only the O(log n) tree nodes on the paths it touches, in each index it touches, and
// publishing the new snapshot copies a fixed number of root pointers. Nothing is deep-copied: the
// objects themselves are held once, by shared_ptr<const api::Object>, and indexes point into them.
// Cost of one change, n objects in the store: O(log n) for the object, plus for a ResourceSlice its
// driver/node/pool entries and a recomputed summary of its pool (O(slices + devices of that pool)),
// for a ResourceClaim O(log n) per allocation result and per reservedFor entry, for a Pod O(log n)
// per claim reference. Indexes are maintained eagerly: a snapshot never computes anything lazily.
//
// Thread-safety: Cluster's methods may be called from any thread. Writers (Apply, Delete,
// ApplyEvent, Replace, ReplaceKinds) are serialized by a mutex. snapshot() takes a second mutex only
// for the duration of a shared_ptr copy, and a writer takes it only to swap that pointer, so readers
// never wait for a write in progress and a writer never waits for readers. A Snapshot is immutable
// and may be used from any number of threads without synchronization.
#ifndef DRAFORGE_STORE_CLUSTER_H_
#define DRAFORGE_STORE_CLUSTER_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "api/object.h"
#include "store/internal/persistent_map.h"

namespace draforge::store {

// Watch event types (k8s.io/apimachinery/pkg/watch). ERROR events carry a Status, not an object, and
// are the watch client's business.
enum class EventType { kAdded, kModified, kDeleted, kBookmark };

// "ADDED", "MODIFIED", "DELETED", "BOOKMARK".
std::string_view EventTypeName(EventType type);
// The event type spelled as the API server spells it (exact case), or nullopt.
std::optional<EventType> ParseEventType(std::string_view name);

// What one Apply/Delete/ApplyEvent did. Stale and not-found are outcomes, not errors.
enum class Outcome {
  kAdded,         // a new object
  kUpdated,       // replaced a stored object
  kDeleted,       // removed a stored object
  kUnchanged,     // the stored object is identical: nothing published
  kIgnoredStale,  // resourceVersion older than the stored one: nothing changed
  kNotFound,      // delete of an object that is not stored: nothing changed
  kBookmark,      // a BOOKMARK: only the resourceVersion moved
};
std::string_view OutcomeName(Outcome outcome);

// Counts of a Replace.
struct ReplaceStats {
  size_t added = 0;
  size_t updated = 0;
  size_t unchanged = 0;
  size_t deleted = 0;
};

struct ClusterOptions {
  // The namespace given to objects of namespaced kinds that have none, as kubectl does when it
  // loads files; also the namespace Delete uses when `ns` is empty for a namespaced kind.
  std::string default_namespace = "default";
};

// A ResourceSlice pool as upstream's structured allocator gathers it (GatherPools/addSlice), over
// all slices of the snapshot (no node filtering: the allocator filters slices by node itself).
// Pointers and views are valid as long as the Snapshot they came from.
struct PoolInfo {
  std::string_view driver;
  std::string_view pool;
  // Highest spec.pool.generation among the pool's slices (unset counts as 0, as in Go).
  int64_t generation = 0;
  // spec.pool.resourceSliceCount of the first slice (by name) at `generation`.
  int64_t resource_slice_count = 0;
  // The slices at `generation`, sorted by name. Older slices are ignored, as upstream ignores them.
  std::vector<const api::ResourceSlice*> slices;
  // Slices of older generations that are still stored (being replaced by the driver).
  size_t stale_slices = 0;
  // slices.size() == resource_slice_count (upstream: !IsIncomplete).
  bool complete = false;
  // Two devices of the current slices have the same name (upstream: IsInvalid); `invalid_reason`
  // says which, in upstream's words ("duplicate device name gpu-0").
  bool invalid = false;
  std::string invalid_reason;
  // spec.nodeName when every current slice has the same non-empty spec.nodeName (a node-local
  // pool); empty otherwise.
  std::string_view node_name;
  // Number of devices in the current slices.
  size_t device_count = 0;
};

// One device of a slice, found by its DeviceID.
struct DeviceRef {
  const api::ResourceSlice* slice = nullptr;
  const api::Device* device = nullptr;
};

// One allocation result naming a device: DeviceID{driver, pool, device} plus the shareID of
// consumable-capacity allocations.
struct AllocatedDevice {
  std::string_view driver;
  std::string_view pool;
  std::string_view device;
  std::string_view share_id;  // empty when status.allocation.devices.results[].shareID is unset
  const api::ResourceClaim* claim = nullptr;
  std::string_view claim_namespace;
  std::string_view claim_name;
  const api::DeviceRequestAllocationResult* result = nullptr;
  // results[].adminAccess is true: such a result does not make the device in use.
  bool admin_access = false;
};

// A pod's reference to one of its claims (one entry of spec.resourceClaims), resolved as the kubelet
// and the scheduler resolve it. Views point into the Pod.
struct PodClaimRef {
  std::string_view name;           // spec.resourceClaims[].name
  std::string_view template_name;  // spec.resourceClaims[].resourceClaimTemplateName, if any
  // The ResourceClaim's name: resourceClaimName, or for a template the name recorded in
  // status.resourceClaimStatuses; empty when the template's claim has not been created yet, or when
  // the status says no claim is needed.
  std::string_view claim_name;
  // Template entries: status.resourceClaimStatuses has an entry for `name`. With an empty
  // claim_name, that means "no claim needed".
  bool status_recorded = false;
};

// The claim references of `pod`, in spec.resourceClaims order.
std::vector<PodClaimRef> ResolvePodClaims(const api::Pod& pod);

// Whether `ref` (an entry of status.reservedFor) is a pod with this name (and this uid when both
// have one).
bool ReservesPod(const api::ResourceClaimConsumerReference& ref, const api::Pod* pod, std::string_view pod_name);

// A claim consumed by a pod (Snapshot::ClaimsForPod).
struct PodClaim {
  PodClaimRef ref;  // ref.name is empty for a claim known only from its status.reservedFor
  const api::ResourceClaim* claim = nullptr;  // null when ref.claim_name is empty or not stored
  bool reserved = false;  // the claim's status.reservedFor names the pod
};

namespace internal {

using ObjectPtr = std::shared_ptr<const api::Object>;
using NameKey = ViewKey<2>;                                    // (namespace, name), views into the value
using ObjectMap = PersistentMap<NameKey, ObjectPtr, 2>;
using OtherMap = PersistentMap<ViewKey<4>, ObjectPtr, 4>;      // (group, kind, namespace, name)
using SliceSet = PersistentMap<ViewKey<1>, ObjectPtr, 1>;      // slice name -> slice
using SlicesByString = PersistentMap<OwnedKey<1>, SliceSet, 1>;

struct PoolData {
  SliceSet slices;  // every generation
  std::shared_ptr<const PoolInfo> info;
};
using PoolMap = PersistentMap<OwnedKey<2>, PoolData, 2>;

struct AllocRef {
  ObjectPtr claim;
  const api::DeviceRequestAllocationResult* result;
};
// (driver, pool, device, shareID) -> results, the key viewing into the first result's claim.
using AllocMap = PersistentMap<ViewKey<4>, std::vector<AllocRef>, 4>;
using ObjectsByOwned2 = PersistentMap<OwnedKey<2>, ObjectMap, 2>;  // (ns, name) -> objects
using ObjectsByOwned1 = PersistentMap<OwnedKey<1>, ObjectMap, 1>;

inline constexpr size_t kTypedKinds = 8;  // every api::Kind but kOther

// Everything a Snapshot holds; copying it copies root pointers only.
struct State {
  uint64_t generation = 0;
  std::string resource_version;
  std::array<std::string, kTypedKinds + 1> kind_resource_version;
  std::array<ObjectMap, kTypedKinds> objects;
  OtherMap others;
  SlicesByString slices_by_driver;
  SlicesByString slices_by_node;
  PoolMap pools;
  AllocMap allocations;
  ObjectsByOwned2 claims_by_reserved_pod;  // (pod ns, pod name) -> claims reserving it
  ObjectsByOwned2 pods_by_claim;           // (ns, claim name) -> pods referencing it
  ObjectsByOwned1 pods_by_node;            // spec.nodeName -> pods
};

}  // namespace internal

// An immutable view of the store at one point. Every pointer, view and vector returned refers to data
// owned by the Snapshot: valid as long as the Snapshot lives. Lists are sorted by (namespace, name)
// (cluster-scoped kinds: by name) so that output is deterministic. For cluster-scoped kinds the
// namespace argument of Get is ignored, and objects are keyed by name only.
class Snapshot {
 public:
  explicit Snapshot(internal::State state) : state_(std::move(state)) {}

  // Counts published changes: 0 for an empty store, +1 for every change (a no-op adds nothing).
  uint64_t generation() const { return state_.generation; }
  // The resourceVersion of the last accepted event, bookmark or relist ("" if none carried one).
  const std::string& resource_version() const { return state_.resource_version; }
  // Same, restricted to events/relists of `kind` (what a reflector of that kind resumes from).
  const std::string& resource_version(api::Kind kind) const;

  // --- objects by kind --------------------------------------------------------------------------
  size_t Count(api::Kind kind) const;
  // The object, or nullptr. For kOther use GetOther.
  const api::Object* Get(api::Kind kind, std::string_view ns, std::string_view name) const;
  // The same object, sharing ownership (it outlives the Snapshot).
  std::shared_ptr<const api::Object> GetShared(api::Kind kind, std::string_view ns, std::string_view name) const;
  // An object of a kind DRAForge does not model; `group` is "" for the core group ("v1").
  const api::Object* GetOther(std::string_view group, std::string_view kind, std::string_view ns,
                              std::string_view name) const;
  // The objects of `kind`, sorted by (namespace, name); only namespace `ns` when non-empty. kOther:
  // sorted by (group, kind, namespace, name).
  std::vector<const api::Object*> List(api::Kind kind, std::string_view ns = {}) const;

  const api::DeviceClass* GetDeviceClass(std::string_view name) const;
  const api::ResourceClaim* GetResourceClaim(std::string_view ns, std::string_view name) const;
  const api::ResourceClaimTemplate* GetResourceClaimTemplate(std::string_view ns, std::string_view name) const;
  const api::ResourceSlice* GetResourceSlice(std::string_view name) const;
  const api::DeviceTaintRule* GetDeviceTaintRule(std::string_view name) const;
  const api::Pod* GetPod(std::string_view ns, std::string_view name) const;
  const api::Node* GetNode(std::string_view name) const;

  std::vector<const api::DeviceClass*> DeviceClasses() const;
  std::vector<const api::ResourceClaim*> ResourceClaims(std::string_view ns = {}) const;
  std::vector<const api::ResourceClaimTemplate*> ResourceClaimTemplates(std::string_view ns = {}) const;
  std::vector<const api::ResourceSlice*> ResourceSlices() const;
  std::vector<const api::DeviceTaintRule*> DeviceTaintRules() const;
  std::vector<const api::Pod*> Pods(std::string_view ns = {}) const;
  std::vector<const api::Node*> Nodes() const;

  // --- ResourceSlices ---------------------------------------------------------------------------
  // Drivers with at least one slice, sorted.
  std::vector<std::string_view> Drivers() const;
  // Slices of `driver` (all pools and generations), sorted by name.
  std::vector<const api::ResourceSlice*> SlicesByDriver(std::string_view driver) const;
  // Slices of pool (driver, pool), every generation, sorted by name.
  std::vector<const api::ResourceSlice*> SlicesByPool(std::string_view driver, std::string_view pool) const;
  // Slices whose spec.nodeName is `node` (node selectors and allNodes are not evaluated here).
  std::vector<const api::ResourceSlice*> SlicesByNode(std::string_view node) const;

  // Every pool, sorted by (driver, pool); only `driver`'s when non-empty.
  std::vector<PoolInfo> Pools(std::string_view driver = {}) const;
  // The pool, or nullopt when no slice names it.
  std::optional<PoolInfo> GetPool(std::string_view driver, std::string_view pool) const;
  // The device of the pool's current generation with this name (slice and device both null if none).
  DeviceRef FindDevice(std::string_view driver, std::string_view pool, std::string_view device) const;

  // --- claims, pods, allocations ----------------------------------------------------------------
  // The claims pod ns/name consumes: one entry per spec.resourceClaims entry (in spec order, with
  // the claim when it is stored), then claims whose status.reservedFor names the pod but that the
  // pod does not reference (sorted by claim name). The pod itself need not be stored.
  std::vector<PodClaim> ClaimsForPod(std::string_view ns, std::string_view pod) const;
  // Claims whose status.reservedFor names pod ns/name (resource "pods" of the core group), sorted.
  std::vector<const api::ResourceClaim*> ClaimsReservedFor(std::string_view ns, std::string_view pod) const;
  // Pods that reference claim ns/name (spec.resourceClaims, status.resourceClaimStatuses) or that
  // its status.reservedFor names and that are stored, sorted by name.
  std::vector<const api::Pod*> PodsForClaim(std::string_view ns, std::string_view claim) const;
  // Pods with spec.nodeName == node, sorted by (namespace, name).
  std::vector<const api::Pod*> PodsOnNode(std::string_view node) const;

  // The allocation results naming device (driver, pool, device), with any shareID, sorted by
  // (shareID, claim namespace, claim name, result order).
  std::vector<AllocatedDevice> Allocations(std::string_view driver, std::string_view pool,
                                           std::string_view device) const;
  // Every allocation result of every claim, sorted by (driver, pool, device, shareID, claim).
  std::vector<AllocatedDevice> AllAllocations() const;
  // Number of distinct (driver, pool, device, shareID) named by allocation results.
  size_t AllocatedDeviceCount() const { return state_.allocations.size(); }
  // Whether a result without adminAccess names the device (with or without a shareID).
  bool InUse(std::string_view driver, std::string_view pool, std::string_view device) const;

  // DeviceTaintRules whose spec.deviceSelector matches the device (every set field equal), sorted.
  // A rule without a deviceSelector matches no device (Kubernetes 1.37), or every device with
  // `no_selector_matches_all` (1.34 to 1.36: alloc::Features::TaintRuleWithoutSelectorMatchesAll).
  std::vector<const api::DeviceTaintRule*> TaintRulesFor(std::string_view driver, std::string_view pool,
                                                        std::string_view device,
                                                        bool no_selector_matches_all = false) const;

 private:
  const internal::State state_;
};

class Cluster {
 public:
  explicit Cluster(ClusterOptions options = {});
  Cluster(const Cluster&) = delete;
  Cluster& operator=(const Cluster&) = delete;

  const ClusterOptions& options() const { return options_; }

  // Adds or updates `obj` (namespaced kinds without a namespace get options().default_namespace).
  // An update whose metadata.resourceVersion is older than the stored one (both parse as uint64) is
  // ignored: OK with *outcome = kIgnoredStale. An identical object is kUnchanged and publishes
  // nothing. Errors: InvalidArgument when metadata.name is empty (the message names the kind).
  // `outcome` may be null.
  absl::Status Apply(api::Object obj, Outcome* outcome = nullptr);

  // Deletes kind ns/name. A non-empty `resource_version` older than the stored object's makes the
  // delete stale (kIgnoredStale); a missing object is kNotFound; both are OK. Errors:
  // InvalidArgument for an empty name, or for kind kOther (which needs the object: DeleteObject).
  absl::Status Delete(api::Kind kind, std::string_view ns, std::string_view name,
                      std::string_view resource_version = {}, Outcome* outcome = nullptr);
  // Deletes the stored object with `obj`'s identity, using its metadata.resourceVersion as Delete does.
  absl::Status DeleteObject(const api::Object& obj, Outcome* outcome = nullptr);

  // Applies one watch event: ADDED and MODIFIED as Apply, DELETED as DeleteObject, BOOKMARK records
  // the object's resourceVersion (nothing else; its name may be empty).
  absl::Status ApplyEvent(EventType type, api::Object obj, Outcome* outcome = nullptr);

  // A relist: the store afterwards holds exactly `objects` (of every kind), as an informer's Replace.
  // resourceVersions are not compared (a list is authoritative). Atomic: on error (an object without
  // a name, the same object twice) nothing changes, and the message names the object's index.
  absl::Status Replace(std::vector<api::Object> objects, std::string resource_version,
                       ReplaceStats* stats = nullptr);
  // Like Replace for the objects of `kinds` only (what one reflector relisting one resource does);
  // objects of other kinds are left alone, and an object of a kind not in `kinds` is an error.
  absl::Status ReplaceKinds(const std::vector<api::Kind>& kinds, std::vector<api::Object> objects,
                            std::string resource_version, ReplaceStats* stats = nullptr);
  // Like ReplaceKinds for the opaque objects (kOther) of one group and kind only (what a reflector
  // relisting one custom resource does): other opaque objects are left alone, and an object of
  // another kind or group is an error.
  absl::Status ReplaceOthers(std::string_view group, std::string_view kind, std::vector<api::Object> objects,
                             std::string resource_version, ReplaceStats* stats = nullptr);

  // The current snapshot: never null, O(1).
  std::shared_ptr<const Snapshot> snapshot() const;

 private:
  absl::Status ApplyLocked(api::Object obj, Outcome* outcome) ABSL_EXCLUSIVE_LOCKS_REQUIRED(write_mu_);
  absl::Status DeleteLocked(api::Kind kind, std::string_view group, std::string_view other_kind,
                            std::string_view ns, std::string_view name, std::string_view resource_version,
                            Outcome* outcome) ABSL_EXCLUSIVE_LOCKS_REQUIRED(write_mu_);
  // `other_group`/`other_kind` non-null: only the opaque objects of that group and kind are in scope.
  absl::Status ReplaceLocked(const std::vector<api::Kind>& kinds, std::vector<api::Object> objects,
                             std::string resource_version, ReplaceStats* stats,
                             const std::string_view* other_group = nullptr,
                             const std::string_view* other_kind = nullptr)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(write_mu_);
  void PublishLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(write_mu_);

  const ClusterOptions options_;
  absl::Mutex write_mu_;
  internal::State state_ ABSL_GUARDED_BY(write_mu_);  // the writer's working version
  mutable absl::Mutex snapshot_mu_;
  std::shared_ptr<const Snapshot> current_ ABSL_GUARDED_BY(snapshot_mu_);
};

}  // namespace draforge::store

#endif  // DRAFORGE_STORE_CLUSTER_H_
