// The allocator's search for one Allocate call (upstream's `allocator` of structured/internal/
// {stable,incubating,experimental}/allocator_*.go): the claims' requests prepared once, then
// allocateOne's first-fit depth-first search over claims, requests, subrequests and devices, with
// allocateDevice / deallocate keeping the search state (devices in use, shares, counters,
// compatibility groups, constraints) consistent on backtracking.
//
// Where each part lives:
//   search.cc               Run, the search proper (AllocateOne, AllocateDevice, Deallocate)
//   search_requests.cc      the claims' requests and constraints (upstream validateDeviceRequest)
//   search_devices.cc       which device a request may take (isSelectable, checkAvailableCapacity)
//   search_pruning.cc       skipping subtrees that provably fail (AllocateOptions::prune_search)
//   allocation_results.cc   the AllocationResults of a successful search (and createNodeSelector)
//   available_counters.cc   shared counters (checkAvailableCounters)
#ifndef DRAFORGE_ALLOC_INTERNAL_SEARCH_H_
#define DRAFORGE_ALLOC_INTERNAL_SEARCH_H_

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "alloc/allocator.h"
#include "alloc/features.h"
#include "alloc/internal/available_counters.h"
#include "alloc/internal/compatibility_groups.h"
#include "alloc/internal/consumable_capacity.h"
#include "alloc/internal/constraints.h"
#include "alloc/internal/derived_attributes.h"
#include "alloc/internal/pools.h"
#include "alloc/internal/selectors.h"
#include "api/resource_claim.h"
#include "api/resource_slice.h"
#include "common/status.h"
#include "store/cluster.h"

namespace draforge::alloc::internal {

inline constexpr int kMaxResults = api::kAllocationResultsMaxSize;

// spec.devices of a claim (empty when unset).
inline const api::DeviceClaim& ClaimDevices(const api::ResourceClaim& c) {
  static const api::DeviceClaim kEmpty;
  return c.spec && c.spec->devices ? *c.spec->devices : kEmpty;
}

// spec.devices of a slice (empty when unset).
inline const std::vector<api::Device>& SliceDevices(const api::ResourceSlice& s) {
  static const std::vector<api::Device> kEmpty;
  return s.spec ? s.spec->devices : kEmpty;
}

// One device that targets the node, in search order.
struct Dev {
  int pool_index = 0;
  int slice_index = 0;
  const api::ResourceSlice* slice = nullptr;
  const api::Device* device = nullptr;
  std::string_view driver, pool, name;
  DeviceID id;
  bool allocated = false;                               // AllocatedDevices
  const api::Map<api::Quantity>* aggregated = nullptr;  // AggregatedCapacity
  std::vector<api::DeviceTaint> taints;                 // slice taints + DeviceTaintRules
  bool multi = false;                                   // allowMultipleAllocations (with the gate)
  int ordinal = -1;  // SelectorCache::FirstDeviceOrdinal of its slice + its index
};

// A request or subrequest as the search uses it (upstream's requestData).
struct RequestData {
  std::string_view name;         // request, or subrequest name
  std::string_view parent_name;  // for subrequests
  const api::DeviceClass* klass = nullptr;
  std::string class_name;
  const std::vector<api::DeviceSelector>* selectors = nullptr;
  const std::vector<api::DeviceToleration>* tolerations = nullptr;
  const api::CapacityRequirements* capacity = nullptr;
  const std::vector<api::DeviceDerivedAttribute>* derived = nullptr;  // DRADerivedAttributes
  bool admin_access = false;
  bool all_mode = false;
  int num_devices = 0;
  // The count as written (All: the number of matching devices), unclamped: what the 32-results
  // check and its error message use, as upstream's int does.
  int64_t wanted = 0;
  std::vector<int> all_devices;
  // The class's and the request's selectors, compiled once per search (errors reported lazily).
  CompiledSelectors class_selectors, claim_selectors;
  // Row of this request in the search's match cache.
  int slot = 0;

  std::string FullName() const {
    return parent_name.empty() ? std::string(name) : absl::StrCat(AV(parent_name), "/", AV(name));
  }
  std::string_view BaseName() const { return parent_name.empty() ? name : parent_name; }
  std::string_view SubName() const { return parent_name.empty() ? std::string_view() : name; }
};

// One device chosen for a claim (upstream's internalDeviceResult).
struct DeviceResult {
  int dev = 0;
  int request = 0;
  int sub = 0;
  bool admin = false;
  bool shared = false;
  api::Map<api::Quantity> consumed;
};

struct ClaimData {
  const api::ResourceClaim* claim = nullptr;
  std::string key;
  std::vector<std::vector<RequestData>> requests;  // [request][sub]; one entry for plain requests
  std::vector<bool> has_subs;
  std::vector<int> selected_sub;
  std::vector<std::unique_ptr<Constraint>> constraints;
  std::vector<DeviceResult> results;
};

// allocateOne's answer: upstream's (bool, error), plus "more than 32 results" which makes the
// caller try the next subrequest.
enum class R { kFalse, kTrue, kMaxExceeded, kError };

// What a device holds in the shared counter sets while it is allocated: counters reserved, and the
// compatibility groups it narrowed (DRADeviceCompatibilityGroups).
struct CounterReservation {
  bool counters = false;
  std::vector<SavedCompatibilityGroup> compatibility;
};

// How to undo one AllocateDevice.
struct Undo {
  int claim = 0;
  int dev = 0;
  bool multi = false;
  std::string_view base, sub;
  CounterReservation reservation;
};

// A search position: the next device to try for a request.
struct Loc {
  int pool = 0, slice = 0, device = 0;
};

class Search {
 public:
  // Everything is borrowed and must outlive the search. node_independent: NodeIndependentSlices of
  // the snapshot, or null to scan every slice.
  Search(const store::Snapshot& snapshot, const std::vector<const api::ResourceClaim*>& claims, const NodeInfo& node,
         const AllocateOptions& options, const AllocatedState& state, SelectorCache& cache,
         const NodeIndependentSlices* node_independent);

  AllocateResult Run();

 private:
  // --- search.cc: the search proper ----------------------------------------------------------
  absl::Status Prepare();
  void BuildDevices();
  R AllocateOne(int ci, int ri, int si, int di, bool allocate_sub, Loc start);
  R AllocateSubrequests(int ci, int ri, int di);
  R AllocateAllDevice(int ci, int ri, int si, int di, bool allocate_sub);
  R AllocateFromPools(int ci, int ri, int si, int di, bool allocate_sub, Loc start);
  absl::StatusOr<bool> AllocateDevice(int ci, int ri, int si, int di, int d, bool must);
  absl::StatusOr<bool> AllocateDeviceAt134(int ci, int ri, int si, int di, int d, CounterReservation& reservation,
                                           DeviceResult& result);
  bool ReserveCounters(int d, CounterReservation& reservation);
  void ReleaseCounters(int d, CounterReservation& reservation);
  absl::StatusOr<bool> AddToConstraints(ClaimData& cd, const RequestData& rd, int d, bool must);
  absl::Status AddShare(const RequestData& rd, int d, api::Map<api::Quantity>& consumed);
  void Deallocate();
  R Fail(absl::Status s);
  bool NodeDeclaresOptionalNodeOperations();

  // --- search_requests.cc: the claims' requests (upstream validateDeviceRequest) ----------------
  absl::Status PrepareClaim(int ci);
  absl::StatusOr<int64_t> PrepareRequest(int ci, int ri);
  absl::Status PrepareConstraints(ClaimData& cd);
  absl::StatusOr<RequestData> ValidateRequest(int ci, int ri, int si, const api::DeviceRequest& request,
                                              const api::DeviceSubRequest* sub);
  absl::Status ResolveClass(const ClaimData& cd, const std::string* class_name, RequestData& rd);
  absl::Status SetCount(int ci, int ri, int si, const std::optional<std::string>& mode,
                        const std::optional<int64_t>& count, RequestData& rd);
  absl::Status CollectAllDevices(int ci, int ri, int si, RequestData& rd);

  // --- search_devices.cc: which device a request may take ----------------------------------------
  absl::StatusOr<bool> IsSelectable(int ci, int ri, int si, const RequestData& rd, int d);
  absl::StatusOr<CapacityCheck> CheckCapacity(const ClaimData& cd, const RequestData& rd, int d);
  static absl::Status CapacityError(const ClaimData& cd, const RequestData& rd, const Dev& dev,
                                    const absl::Status& cause, bool with_pool);
  absl::StatusOr<const api::DeviceAttribute*> ConstraintAttribute(const RequestData& rd, int d, std::string_view name);
  bool InUse(int d) const { return devs_[d].allocated || !allocating_[d].empty(); }
  bool AllocatingForClaim(int d, int ci) const {
    return std::find(allocating_[d].begin(), allocating_[d].end(), ci) != allocating_[d].end();
  }
  bool CapacityInUse(int d) const { return devs_[d].aggregated != nullptr || allocating_shares_[d] > 0; }

  // --- search_pruning.cc: AllocateOptions::prune_search ------------------------------------------
  int DevIndex(Loc start) const;
  bool EnoughCandidates(int ci, int ri, int si, const RequestData& rd, Loc start, int needed);
  void MarkFailed(int d);
  bool TwinFailed(int d, size_t failed_base);
  int TwinClass(int d);
  std::optional<uint64_t> TwinSignature(int d);
  bool SameForSearch(int a, int b);

  // --- allocation_results.cc: the results of a successful search ---------------------------------
  absl::StatusOr<std::vector<api::AllocationResult>> Build();
  std::vector<api::DeviceRequestAllocationResult> DeviceResults(const ClaimData& cd);
  void AddClassConfigs(const ClaimData& cd, std::vector<api::DeviceAllocationConfiguration>& config);
  void AddClaimConfigs(const ClaimData& cd, std::vector<api::DeviceAllocationConfiguration>& config);
  absl::StatusOr<api::NodeSelector*> NodeSelectorFor(const ClaimData& cd, std::optional<api::NodeSelector>& out);

  const store::Snapshot& snapshot_;
  const NodeInfo& node_;
  const AllocateOptions& options_;
  // options_.prune_search, except where 1.34's capacity re-check (AllocateDeviceAt134) leaves state
  // behind that the pruning's reasoning does not model.
  bool prune_ = false;
  const Features& f_;
  const AllocatedState& state_;
  SelectorCache& cache_;
  const NodeIndependentSlices* node_independent_;  // null: scan every slice
  CompatibilityGroupTracker compatibility_;
  DerivedAttributeCache derived_;
  std::optional<bool> node_declares_;  // DRAOptionalNodeOperations, see NodeDeclaresOptionalNodeOperations

  std::vector<ClaimData> claims_;
  std::vector<Pool> pools_;
  std::vector<Dev> devs_;
  std::vector<std::vector<int>> slice_first_;
  std::vector<std::vector<int>> allocating_;  // claim indices per device
  std::vector<api::Map<api::Quantity>> allocating_capacity_;
  std::vector<int> allocating_shares_;
  AvailableCounters counters_;
  std::vector<int8_t> capacity_alone_;  // CheckCapacity of a device with nothing consumed; -1 unknown
  std::vector<Undo> undo_;
  std::vector<int> failed_;                   // pruning: failed devices, per open search position
  std::vector<int> twin_class_;               // pruning: TwinClass per device, -1 unknown
  std::vector<uint64_t> twin_sig_;            // pruning: TwinSignature of classified devices
  std::vector<std::vector<int>> twin_reps_;   // pruning: twin-class representatives per pool
  std::vector<bool> in_all_mode_;             // pruning: the device is in an allocationMode All list
  // IsSelectable per (request slot, device): -1 not evaluated yet, 0, 1.
  std::vector<int8_t> match_;
  int num_slots_ = 0;
  absl::Status error_;
  int64_t steps_ = 0;
};

}  // namespace draforge::alloc::internal

#endif  // DRAFORGE_ALLOC_INTERNAL_SEARCH_H_
