// The claim-level conflicts of one choice of alternatives (one request view per request of the
// claim): the checks FindConflicts (claim_conflicts.h) runs on each choice. Every check is a
// necessary condition of an allocation (lower bounds, counts of distinct devices or values), so a
// conflict found is a true reason; none found proves nothing.
//
// Where each check lives:
//   claim_conflicts.cc           the order of the checks; same device, shared counters, capacity
//   constraint_conflicts.cc      matchAttribute / distinctAttribute across requests
//   whole_choice_conflicts.cc    a bounded search over the whole choice (constraints, counters and
//                                compatibility groups together)
#ifndef DRAFORGE_ALLOC_INTERNAL_CHOICE_CONFLICTS_H_
#define DRAFORGE_ALLOC_INTERNAL_CHOICE_CONFLICTS_H_

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "alloc/allocator.h"
#include "alloc/explain.h"
#include "alloc/features.h"
#include "alloc/internal/claim_conflicts.h"
#include "alloc/internal/explain_views.h"
#include "api/quantity.h"
#include "api/resource_claim.h"

namespace draforge::alloc::internal {

// What the allocated devices leave of counter `counter` of set `set` in `pool` (negative when they
// over-consume it); nullopt when the pool has no such counter.
std::optional<api::Quantity> CounterLeft(const PoolView& pool, const std::string& set, const std::string& counter,
                                         const AllocatedState& state);

// Whether `c` may be shared by several requests (DRAConsumableCapacity's allowMultipleAllocations).
inline bool Shareable(const Candidate* c, const Features& features) {
  return features.consumable_capacity && c->device->allow_multiple_allocations.value_or(false);
}

// One device per slot (a slot: a request view and the index of the device it takes), depth
// first; the slots of one request take devices in list order, so that a set of them is tried once.
// `take(vi, c)` says whether `c` can join the devices chosen so far and, if so, records it (undoing
// its own partial work when it cannot); `release(vi, c)` undoes a take. At most 20000 steps (devices
// looked at) of what is left of `search_budget`, which is charged what was used. Returns 1 when
// every slot got a device, 0 when no choice does, -1 when the budget ran out (undecided).
template <typename Take, typename Release>
int BoundedSlotSearch(const std::vector<std::pair<size_t, int64_t>>& slots,
                      const std::vector<std::vector<const Candidate*>>& usable, int64_t& search_budget, Take take,
                      Release release) {
  const int64_t granted = std::min<int64_t>(20000, search_budget);
  if (granted <= 0) return -1;
  int64_t budget = granted;
  auto search = [&](auto& self, size_t slot, size_t from) -> int {
    if (slot == slots.size()) return 1;
    const size_t vi = slots[slot].first;
    const std::vector<const Candidate*>& list = usable[vi];
    const size_t start = slots[slot].second == 0 ? 0 : from;
    for (size_t i = start; i < list.size(); ++i) {
      if (--budget < 0) return -1;
      const Candidate* c = list[i];
      if (!take(vi, c)) continue;
      const int r = self(self, slot + 1, i + 1);
      release(vi, c);
      if (r != 0) return r;
    }
    return 0;
  };
  const int r = search(search, 0, 0);
  search_budget -= granted - std::max<int64_t>(budget, 0);
  return r;
}

class ChoiceConflicts {
 public:
  // `combo`: the chosen view of each request. Everything is borrowed for the call of Find; the
  // bounded searches charge `search_budget`.
  ChoiceConflicts(const api::ResourceClaim& claim, const std::vector<ReqView>& views, const std::vector<size_t>& combo,
                  const std::vector<std::vector<const Candidate*>>& usable, const AllocatedState& state,
                  const Features& features, const PairCheck& compatible, int64_t& search_budget)
      : claim_(claim),
        views_(views),
        combo_(combo),
        usable_(usable),
        state_(state),
        features_(features),
        compatible_(compatible),
        search_budget_(search_budget) {}

  // Every conflict found, in the order of the checks.
  std::vector<ClaimConflict> Find();

 private:
  // A set of requests with too few distinct devices for what they take together.
  struct Shortage {
    std::vector<size_t> vis;
    std::set<const Candidate*> devices;
    int64_t want = 0;
  };

  // claim_conflicts.cc
  bool Shareable(const Candidate* c) const;
  int64_t Needed(size_t vi) const;
  bool TakesAll(size_t vi) const;
  std::vector<std::string> RequestNames(const std::vector<size_t>& vis) const;
  std::string RequestsPhrase(const std::vector<size_t>& vis) const;
  std::optional<Shortage> Hall(const std::vector<size_t>& vis,
                               const std::map<size_t, std::vector<const Candidate*>>& lists, size_t min_set) const;
  void SameDevice(std::vector<ClaimConflict>& out) const;
  void Counters(std::vector<ClaimConflict>& out) const;
  void ForcedCapacity(std::vector<ClaimConflict>& out) const;
  bool FitsWithForced(const std::map<const Candidate*, std::vector<size_t>>& forced, const Candidate* c,
                      std::optional<size_t> extra) const;

  // constraint_conflicts.cc
  std::vector<std::string> ValuesOf(const Candidate* c, const std::string& attr, bool match) const;
  void Constraint(const api::DeviceConstraint& con, std::vector<ClaimConflict>& out) const;
  void MatchConstraint(const std::string& attr, const std::vector<size_t>& scope,
                       std::vector<ClaimConflict>& out) const;
  void DistinctConstraint(const std::string& attr, const std::vector<size_t>& scope,
                          std::vector<ClaimConflict>& out) const;
  void SeveralMatches(std::vector<ClaimConflict>& out) const;
  void MatchAndDistinct(std::vector<ClaimConflict>& out) const;

  // whole_choice_conflicts.cc
  void WholeChoice(std::vector<ClaimConflict>& out) const;

  const api::ResourceClaim& claim_;
  const std::vector<ReqView>& views_;
  const std::vector<size_t>& combo_;
  const std::vector<std::vector<const Candidate*>>& usable_;
  const AllocatedState& state_;
  const Features& features_;
  const PairCheck& compatible_;
  int64_t& search_budget_;
};

}  // namespace draforge::alloc::internal

#endif  // DRAFORGE_ALLOC_INTERNAL_CHOICE_CONFLICTS_H_
