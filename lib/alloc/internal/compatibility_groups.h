// DRADeviceCompatibilityGroups (alpha in 1.37): devices that draw from the same counter set may be
// allocated together only when the compatibilityGroups they declare for that counter set intersect
// (upstream structured/internal/experimental/compatibility_groups.go and the allocator's
// checkAndConsumeCompatibilityGroups). The rule is per counter set and covers the devices already
// allocated (their groups read from the slice as it is now) plus the devices of the allocation
// being searched, across all of its claims.
#ifndef DRAFORGE_ALLOC_INTERNAL_COMPATIBILITY_GROUPS_H_
#define DRAFORGE_ALLOC_INTERNAL_COMPATIBILITY_GROUPS_H_

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "alloc/allocator.h"
#include "alloc/internal/pools.h"
#include "api/resource_slice.h"

namespace draforge::alloc::internal {

// The running intersection of the groups of the devices placed on one counter set. A device that
// declares no groups only goes with devices that declare none either (the KEP's nil semantics),
// which a plain set intersection cannot express: an empty intersection would then also admit a
// second group-less device, or reject it, depending on how it is read. So "every member declared
// no groups" is its own state.
struct CompatibilityGroupIntersection {
  bool has_members = false;  // false: nothing placed yet, any device is admitted
  bool all_empty = false;    // every member declared no groups
  std::vector<std::string> groups;  // sorted, unique: the intersection of the members' groups

  // Whether a device declaring `declared` (sorted, unique; empty: none) may join.
  bool Admits(const std::vector<std::string>& declared) const;
  // The state with such a device added (callers check Admits first).
  CompatibilityGroupIntersection With(const std::vector<std::string>& declared) const;
};

// The declared groups as a sorted set.
std::vector<std::string> CompatibilityGroupSet(const std::vector<std::string>& declared);

// Whether any device of `slice` declares compatibility groups on a counter consumption. With the
// gate off, GatherPools ignores such slices: their pool is then incomplete and nothing of it is
// allocated, whatever is allocated already, so the outcome does not depend on allocation order.
bool SliceUsesCompatibilityGroups(const api::ResourceSlice& slice);

// The intersection per counter set left by the already-allocated devices among `slices` (all of
// one pool, those for other nodes too, as for counters): the groups they declare in the slice as
// it is now. Devices no longer in the slices contribute nothing.
std::map<std::string, CompatibilityGroupIntersection> AllocatedCompatibilityGroups(
    std::string_view driver, std::string_view pool, const std::vector<const api::ResourceSlice*>& slices,
    const AllocatedState& state);

// Whether `device` may be allocated next to the already-allocated devices of its pool, given their
// intersections (AllocatedCompatibilityGroups), on every counter set it consumes.
bool AdmittedByAllocated(const std::map<std::string, CompatibilityGroupIntersection>& allocated,
                         const api::Device& device);

// Whether `a` and `b`, two devices of one pool, may both be allocated next to the pool's allocated
// devices (`allocated`, from AllocatedCompatibilityGroups): on every counter set both draw from,
// the intersection narrowed by a's groups must still admit b's. On false, `counter_set` (if not
// null) names the first counter set where they clash. Explain uses it to judge the devices left
// for the other requests of a claim, which the search checks with CompatibilityGroupTracker.
bool CompatibleWith(const std::map<std::string, CompatibilityGroupIntersection>& allocated, const api::Device& a,
                    const api::Device& b, std::string* counter_set);

// One counter set's state before a device was added, to restore on backtracking.
struct SavedCompatibilityGroup {
  std::string counter_set;
  CompatibilityGroupIntersection previous;
  bool existed = false;
};

// The state of one allocation attempt: per pool (index into the search's pools) and counter set.
class CompatibilityGroupTracker {
 public:
  explicit CompatibilityGroupTracker(const AllocatedState& state) : state_(state) {}

  // Checks `device` of pool `pool_index` against every counter set it consumes. Admitted: folds its
  // groups in, appends what to restore to `saved` and returns true. Not admitted: changes nothing
  // and returns false.
  bool CheckAndConsume(int pool_index, const Pool& pool, const api::Device& device,
                       std::vector<SavedCompatibilityGroup>& saved);
  // Undoes one successful CheckAndConsume of pool `pool_index` (LIFO with the other calls).
  void Restore(int pool_index, std::vector<SavedCompatibilityGroup>& saved);

 private:
  // The intersection per counter set left by the already-allocated devices of the pool, read from
  // all of the pool's slices (those for other nodes too, as counters are).
  const std::map<std::string, CompatibilityGroupIntersection>& Baseline(int pool_index, const Pool& pool);

  const AllocatedState& state_;
  std::map<int, std::map<std::string, CompatibilityGroupIntersection>> baseline_;
  std::map<int, std::map<std::string, CompatibilityGroupIntersection>> running_;
};

}  // namespace draforge::alloc::internal

#endif  // DRAFORGE_ALLOC_INTERNAL_COMPATIBILITY_GROUPS_H_
