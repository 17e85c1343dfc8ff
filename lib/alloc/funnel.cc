#include "alloc/internal/funnel.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "alloc/internal/claim_conflicts.h"
#include "alloc/internal/optional_node_operations.h"

namespace draforge::alloc::internal {

Funnel::Funnel(const store::Snapshot& snapshot, const api::ResourceClaim& claim, std::string key,
               const NodeInfo* node, const Features& features, bool only_node_devices,
               const SharedFunnelState* shared)
    : snapshot_(snapshot),
      claim_(claim),
      key_(std::move(key)),
      node_(node),
      features_(features),
      only_node_devices_(only_node_devices),
      shared_(shared != nullptr ? *shared : SharedFunnelState{}),
      own_state_(shared_.allocated != nullptr ? std::nullopt
                                               : std::optional<AllocatedState>(AllocatedStateFromSnapshot(snapshot, {&claim}))),
      state_(shared_.allocated != nullptr ? *shared_.allocated : *own_state_),
      own_cache_(shared_.selectors != nullptr ? nullptr : std::make_unique<SelectorCache>(features)),
      cache_(shared_.selectors != nullptr ? *shared_.selectors : *own_cache_) {
  GatherNodePools();
  BuildPoolViews();
  BuildCandidates();
  BuildViews();
  all_required_.assign(views_.size(), -1);
  all_left_.assign(views_.size(), 0);
  all_set_.resize(views_.size());
}

Explanation Funnel::Run() {
  Explanation ex;
  ex.claim = key_;
  if (node_ != nullptr) {
    ex.node = node_->name;
    std::optional<AllocateResult> own;
    if (shared_.result == nullptr) {
      AllocateOptions opts;
      opts.features = features_;
      opts.allocated_state = &state_;
      own = Allocate(snapshot_, {&claim_}, *node_, opts);
    }
    const AllocateResult& r = shared_.result != nullptr ? *shared_.result : *own;
    ex.outcome = r.outcome;
    ex.outcome_detail = r.outcome == Outcome::kError ? std::string(r.error.message()) : absl::StrJoin(r.reasons, "; ");
  }
  std::vector<Pending> pending;
  for (size_t vi = 0; vi < views_.size(); ++vi) pending.push_back(FirstSteps(vi));
  if (features_.partitionable_devices && features_.device_compatibility_groups) ClaimCompatibility(pending);
  // Per request, the devices left after the capacity step that the node reaches: what the
  // cross-request checks share out.
  std::vector<std::vector<const Candidate*>> usable(views_.size());
  for (size_t vi = 0; vi < views_.size(); ++vi) {
    Pending& p = pending[vi];
    Push(vi, p, FunnelStep::kCapacity,
         p.capacity_parts.empty() ? "counters and capacity suffice" : absl::StrJoin(p.capacity_parts, ", "));
    for (const Candidate* c : p.cur) {
      if (ReachOf(c) == Reach::kYes) usable[vi].push_back(c);
    }
    ConstraintsStep(vi, p);
    if (node_ != nullptr) NodeStep(vi, p);
    Sentence(vi, p);
    ex.requests.push_back(std::move(p.f));
  }
  if (node_ != nullptr && ex.outcome == Outcome::kUnschedulable) AddConflicts(usable, ex);
  Summarize(ex);
  return ex;
}

void Funnel::Summarize(Explanation& ex) const {
  if (node_ != nullptr && ex.outcome == Outcome::kAllocated) {
    ex.summary = absl::StrCat("claim ", ex.claim, " fits on node ", node_->name);
    return;
  }
  std::vector<std::string> s;
  for (const auto& r : ex.requests) s.push_back(r.sentence);
  for (const auto& c : ex.conflicts) s.push_back(c.sentence);
  ex.summary = absl::StrJoin(s, "; ");
  if (ex.outcome == Outcome::kError) absl::StrAppend(&ex.summary, "; allocation error: ", ex.outcome_detail);
}

// The claim-level conflicts, on the devices each request can use on the node.
void Funnel::AddConflicts(const std::vector<std::vector<const Candidate*>>& usable, Explanation& ex) {
  PairCheck compatible;
  if (features_.partitionable_devices && features_.device_compatibility_groups) {
    compatible = [this](const Candidate* c, const Candidate* d) {
      if (c->pool != d->pool) return true;
      // A further share of a shared device in use was checked with its first share.
      auto share_in_use = [&](const Candidate* x) {
        return features_.consumable_capacity && x->device->allow_multiple_allocations.value_or(false) &&
               state_.aggregated_capacity.contains(x->id);
      };
      if (share_in_use(c) || share_in_use(d)) return true;
      return CompatibleWith(AllocatedGroupsOf(c->pool), *c->device, *d->device, nullptr);
    };
  }
  ex.conflicts = FindConflicts(claim_, views_, usable, ex.requests, state_, features_, compatible);
}

const std::map<std::string, CompatibilityGroupIntersection>& Funnel::AllocatedGroupsOf(const PoolView* pool) {
  auto g = allocated_groups_.find(pool);
  if (g == allocated_groups_.end()) {
    g = allocated_groups_.emplace(pool, AllocatedCompatibilityGroups(pool->driver, pool->pool, pool->slices, state_))
            .first;
  }
  return g->second;
}

// Pools as the node sees them (for the node step).
void Funnel::GatherNodePools() {
  if (node_ == nullptr) return;
  auto g = shared_.node_independent != nullptr
               ? GatherPools(snapshot_, *shared_.node_independent, *node_, features_)
               : GatherPools(snapshot_.ResourceSlices(), *node_, features_);
  if (g.ok()) gathered_ = *std::move(g);
  for (const auto& p : gathered_) node_pools_[{std::string(p.driver), std::string(p.pool)}] = &p;
  node_declares_ = DeclaresOptionalNodeOperations(*node_, snapshot_);
}

// Every pool: of the generation the allocator uses on the node (GatherPools: a newer generation
// published only in part, or only for other nodes, is not it), else of the newest generation.
// Taking the newest everywhere missed devices the allocator uses. With only_node_devices, only the
// pools the node can allocate from (BuildCandidates takes no other), in the same (driver, pool) order.
void Funnel::BuildPoolViews() {
  std::vector<store::PoolInfo> pools;
  if (node_ != nullptr && only_node_devices_) {
    for (const auto& [id, unused] : node_pools_) {
      if (std::optional<store::PoolInfo> p = snapshot_.GetPool(id.first, id.second)) pools.push_back(*std::move(p));
    }
  } else {
    pools = snapshot_.Pools();
  }
  for (const store::PoolInfo& p : pools) {
    PoolView& view = pool_views_.emplace_back(PoolView{p.driver, p.pool, p.slices});
    auto it = node_pools_.find({std::string(p.driver), std::string(p.pool)});
    if (it == node_pools_.end()) continue;
    const Pool& seen = *it->second;
    const api::ResourceSlice* any = !seen.device_slices.empty()         ? seen.device_slices.front()
                                    : !seen.other_device_slices.empty() ? seen.other_device_slices.front()
                                                                        : nullptr;
    if (any == nullptr || SliceGeneration(*any) == p.generation) continue;
    const int64_t generation = SliceGeneration(*any);
    view.slices.clear();
    for (const api::ResourceSlice* s : snapshot_.SlicesByPool(p.driver, p.pool)) {
      if (SliceGeneration(*s) == generation) view.slices.push_back(s);
    }
    std::sort(view.slices.begin(), view.slices.end(), [](const api::ResourceSlice* a, const api::ResourceSlice* b) {
      return a->metadata.name.value_or("") < b->metadata.name.value_or("");
    });
  }
}

// Every device of every pool, in pool order.
void Funnel::BuildCandidates() {
  const bool node_only = node_ != nullptr && only_node_devices_;
  for (const PoolView& p : pool_views_) {
    // A pool the node cannot allocate from holds no device it reaches (see ReachOf): with
    // only_node_devices none of them is a candidate, which keeps one node's funnel to that node's size.
    if (node_only && !node_pools_.contains({std::string(p.driver), std::string(p.pool)})) continue;
    for (const api::ResourceSlice* s : p.slices) {
      if (!s->spec) continue;
      for (const api::Device& d : s->spec->devices) {
        all_.push_back({&p, s, &d, DeviceID{std::string(p.driver), std::string(p.pool), d.name.value_or("")}});
      }
    }
  }
  if (node_only) {
    // Before any pointer into all_ is taken: the node's devices only, so that each step counts
    // what this node has. Devices of its incomplete pools stay, for the node step to name.
    std::erase_if(all_, [&](const Candidate& c) { return ReachOf(&c) == Reach::kNo; });
  }
}

// One view per request with `exactly`, one per subrequest of a firstAvailable list.
void Funnel::BuildViews() {
  for (const api::DeviceRequest& r : claim_.spec->devices->requests) {
    if (r.exactly) {
      const auto& e = *r.exactly;
      ReqView v{r.name.value_or(""), r.name.value_or(""), "", e.device_class_name.value_or(""), &e.selectors,
                &e.tolerations, e.capacity ? &*e.capacity : nullptr, e.admin_access.value_or(false),
                e.allocation_mode.value_or("") == api::kAllocationModeAll, e.count.value_or(1)};
      v.derived = &e.derived_attributes;
      views_.push_back(std::move(v));
    }
    for (const auto& s : r.first_available) {
      ReqView v{absl::StrCat(r.name.value_or(""), "/", s.name.value_or("")), r.name.value_or(""), s.name.value_or(""),
                s.device_class_name.value_or(""), &s.selectors, &s.tolerations, s.capacity ? &*s.capacity : nullptr,
                false, s.allocation_mode.value_or("") == api::kAllocationModeAll, s.count.value_or(1)};
      v.derived = &s.derived_attributes;
      views_.push_back(std::move(v));
    }
  }
}

Funnel::Reach Funnel::ReachOf(const Candidate* c) const {
  if (node_ == nullptr) return Reach::kYes;
  auto it = node_pools_.find({c->id.driver, c->id.pool});
  if (it == node_pools_.end()) return Reach::kNo;
  const Pool* p = it->second;
  if (p->incomplete || p->invalid) return Reach::kUnhealthy;
  if (std::find(p->device_slices.begin(), p->device_slices.end(), c->slice) == p->device_slices.end()) {
    return Reach::kNo;
  }
  if (c->slice->spec->per_device_node_selection.value_or(false)) {
    auto m = NodeMatches(*node_, c->device->node_name.value_or(""), c->device->all_nodes.value_or(false),
                         c->device->node_selector ? &*c->device->node_selector : nullptr);
    if (!m.ok() || !*m) return Reach::kNo;
  }
  if (!c->slice->spec->skip_node_operations.empty() &&
      !SkipNodeOperationsAllowed(*c->slice, node_declares_, features_)) {
    return Reach::kSkipOps;
  }
  return Reach::kYes;
}

bool Funnel::FallsShort(size_t vi, const std::vector<const Candidate*>& cur, FunnelStep step, int64_t needed) {
  if (all_required_[vi] < 0) return static_cast<int64_t>(cur.size()) < needed;
  all_left_[vi] = std::count_if(cur.begin(), cur.end(), [&](const Candidate* c) {
    return all_set_[vi].count(c) && (step != FunnelStep::kNode || ReachOf(c) == Reach::kYes);
  });
  return all_required_[vi] == 0 || all_left_[vi] < all_required_[vi];
}

// Records step `step` of request `vi` with the devices left (p.cur).
void Funnel::Push(size_t vi, Pending& p, FunnelStep step, std::string detail) {
  RequestFunnel& f = p.f;
  f.steps.push_back({step, static_cast<int64_t>(p.cur.size()), std::move(detail)});
  if (p.cur.empty() && !f.first_empty) f.first_empty = step;
  if (!f.first_short && FallsShort(vi, p.cur, step, f.needed)) f.first_short = step;
}

}  // namespace draforge::alloc::internal
