// Explain's elimination funnel for one claim: per request (or subrequest), the devices left after
// each FunnelStep, the first step that leaves too few, and a sentence; with a node, the claim-level
// conflicts when the claim does not fit although no request falls short.
//
// The steps up to "capacity" look at one request at a time (funnel_steps.cc). What is left there
// then meets the other requests of the claim (compatibility groups, funnel_compatibility.cc), and
// the later steps run on the rest: constraints (funnel_constraints.cc), node (funnel_steps.cc).
// The sentence is written last (funnel_sentence.cc).
#ifndef DRAFORGE_ALLOC_INTERNAL_FUNNEL_H_
#define DRAFORGE_ALLOC_INTERNAL_FUNNEL_H_

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "alloc/allocator.h"
#include "alloc/explain.h"
#include "alloc/features.h"
#include "alloc/internal/compatibility_groups.h"
#include "alloc/internal/derived_attributes.h"
#include "alloc/internal/explain_views.h"
#include "alloc/internal/pools.h"
#include "alloc/internal/selectors.h"
#include "api/resource_claim.h"
#include "store/cluster.h"

namespace draforge::alloc::internal {

// "1 device matches", "3 devices match".
std::string DevicesMatch(int64_t n);

// What the funnels of one claim on many nodes share (the per-node verdicts, node_verdicts.cc),
// computed once per claim instead of once per node, so that a verdict costs about what the node's
// own devices cost rather than what the cluster costs. Everything is borrowed.
struct SharedFunnelState {
  // AllocatedStateFromSnapshot(snapshot, {&claim}).
  const AllocatedState* allocated = nullptr;
  // The snapshot's NodeIndependentSlices: the node's pools are gathered from the snapshot's indexes.
  const NodeIndependentSlices* node_independent = nullptr;
  // The claim's Allocate on the node, already run by the caller (null: the funnel runs it).
  const AllocateResult* result = nullptr;
  // Compiled selectors and their results, for every funnel of the claim (null: the funnel's own).
  SelectorCache* selectors = nullptr;
};

class Funnel {
 public:
  // The funnel of `claim` (which has spec.devices), called `key` ("ns/name") in sentences, on
  // `node` (null: every device whatever its node, no node step, no conflicts). Everything is
  // borrowed for the life of the object. only_node_devices: ExplainOptions::only_node_devices.
  // shared: what a caller explaining the claim on many nodes computed once (null: computed here).
  Funnel(const store::Snapshot& snapshot, const api::ResourceClaim& claim, std::string key, const NodeInfo* node,
         const Features& features, bool only_node_devices, const SharedFunnelState* shared = nullptr);
  Funnel(const Funnel&) = delete;
  Funnel& operator=(const Funnel&) = delete;

  // The explanation: outcome, funnels, conflicts and summary.
  Explanation Run();

 private:
  // The node step's verdict on one device. The cross-request checks use it too: a device the node
  // cannot reach is no partner for another request.
  enum class Reach { kYes, kNo, kUnhealthy, kSkipOps };

  // One request's funnel while it is being built.
  struct Pending {
    RequestFunnel f;
    const api::DeviceClass* klass = nullptr;
    std::vector<const Candidate*> cur;      // the devices left
    std::vector<std::string> capacity_parts;
    int64_t incompatible_with_claim = 0;    // removed by the cross-request check
    std::set<std::string> ruled_out_by;     // "request req-1", "the rest of request req-0"
    std::string clash;                      // one example pair, for the user to look at
    bool reachable_ruled_out = false;       // a device the node reaches was removed (All: fails)
  };

  // funnel.cc: the devices and requests the steps look at.
  void GatherNodePools();
  void BuildPoolViews();
  void BuildCandidates();
  void BuildViews();
  Reach ReachOf(const Candidate* c) const;
  const std::map<std::string, CompatibilityGroupIntersection>& AllocatedGroupsOf(const PoolView* pool);
  bool FallsShort(size_t vi, const std::vector<const Candidate*>& cur, FunnelStep step, int64_t needed);
  void Push(size_t vi, Pending& p, FunnelStep step, std::string detail);
  void AddConflicts(const std::vector<std::vector<const Candidate*>>& usable, Explanation& ex);
  void Summarize(Explanation& ex) const;

  // funnel_steps.cc: the per-request steps, and the node step.
  Pending FirstSteps(size_t vi);
  bool Eval(const Candidate& c, const SelectorOwner& owner, const std::vector<api::DeviceSelector>& selectors,
            RequestFunnel& f);
  void DriverAndClassSteps(size_t vi, Pending& p);
  void RequestStep(size_t vi, Pending& p);
  void TaintsStep(size_t vi, Pending& p);
  void AllocatedStep(size_t vi, Pending& p);
  void CountersAndCapacityStep(size_t vi, Pending& p);
  bool CountersLeft(const Candidate* c) const;
  // What is left of counter set `set` in `pool` once the allocated devices' consumption is taken,
  // per counter (a counter the set does not declare starts at zero); null when the pool has no such
  // set. Computed once per pool and set: the allocated state does not change during a funnel.
  using LeftCounters = std::map<std::string, api::Quantity>;
  const LeftCounters* CountersLeftIn(const PoolView* pool, const std::optional<std::string>& set) const;
  void NodeStep(size_t vi, Pending& p);

  // funnel_compatibility.cc: compatibility groups across the claim's requests.
  class ClaimCompatibilityCheck;
  void ClaimCompatibility(std::vector<Pending>& pending);

  // funnel_constraints.cc
  struct ValueGroups;
  void ConstraintsStep(size_t vi, Pending& p);
  std::string ConstraintStep(size_t vi, Pending& p, const api::DeviceConstraint& constraint);
  ValueGroups GroupByValue(Pending& p, const std::string& attr, bool match, const ReqView& v);

  // funnel_sentence.cc
  void Sentence(size_t vi, Pending& p) const;

  const store::Snapshot& snapshot_;
  const api::ResourceClaim& claim_;
  const std::string key_;
  const NodeInfo* node_;
  const Features& features_;
  const bool only_node_devices_;
  const SharedFunnelState shared_;

  // The allocated state: shared_.allocated, else own_state_.
  const std::optional<AllocatedState> own_state_;
  const AllocatedState& state_;
  // shared_.selectors, else own_cache_.
  const std::unique_ptr<SelectorCache> own_cache_;
  SelectorCache& cache_;
  DerivedAttributeCache derived_cache_;
  // DRADeviceCompatibilityGroups: per pool, the groups the allocated devices leave on each counter set.
  std::map<const PoolView*, std::map<std::string, CompatibilityGroupIntersection>> allocated_groups_;
  // CountersLeftIn's results.
  mutable std::map<std::pair<const PoolView*, std::optional<std::string>>, std::optional<LeftCounters>> counters_left_;
  // Pools as the node sees them (for the node step); node_pools_ points into gathered_.
  std::vector<Pool> gathered_;
  std::map<std::pair<std::string, std::string>, const Pool*> node_pools_;
  bool node_declares_ = false;  // the node declares DRAOptionalNodeOperations
  // Every pool of the snapshot (a deque: candidates point into it).
  std::deque<PoolView> pool_views_;
  // The devices the funnel starts from; requests' lists point into it, so it is never resized after
  // BuildCandidates.
  std::vector<Candidate> all_;
  std::vector<ReqView> views_;
  // allocationMode All takes every device its selectors match where the node reaches it (upstream
  // collects them before it looks at taints, allocations or counters): a later step that removes
  // one of them fails the request, however many are left. Per request, how many that is (-1: not
  // All, the count applies); all_set_: those devices; all_left_: how many of them the last step
  // looked at left (the step that fell short, once one did). No device at all fails the request too.
  std::vector<int64_t> all_required_, all_left_;
  std::vector<std::set<const Candidate*>> all_set_;
};

}  // namespace draforge::alloc::internal

#endif  // DRAFORGE_ALLOC_INTERNAL_FUNNEL_H_
