// The funnel's per-request steps: driver, class, request selectors, taints, allocated, counters and
// capacity (one request at a time), and the node step.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "alloc/internal/consumable_capacity.h"
#include "alloc/internal/funnel.h"
#include "common/status.h"

namespace draforge::alloc::internal {

Funnel::Pending Funnel::FirstSteps(size_t vi) {
  const ReqView& v = views_[vi];
  Pending p;
  p.f.request = v.name;
  p.f.device_class = v.class_name;
  p.f.all_mode = v.all;
  p.f.admin_access = v.admin;
  p.f.needed = v.all ? 1 : v.count;
  p.klass = snapshot_.GetDeviceClass(v.class_name);
  DriverAndClassSteps(vi, p);
  RequestStep(vi, p);
  TaintsStep(vi, p);
  AllocatedStep(vi, p);
  CountersAndCapacityStep(vi, p);
  return p;
}

// Whether `selectors` of `owner` match `c`. A CEL error counts as "no" and is kept in
// f.first_error, the first one only.
bool Funnel::Eval(const Candidate& c, const SelectorOwner& owner, const std::vector<api::DeviceSelector>& selectors,
                  RequestFunnel& f) {
  for (const auto& s : selectors) {
    if (!s.cel || !s.cel->expression) return false;
  }
  auto m = SelectorsMatch(cache_, owner, selectors, *c.device, c.id.driver, c.id.String(), features_);
  if (!m.ok()) {
    if (f.first_error.empty()) f.first_error = std::string(m.status().message());
    return false;
  }
  return *m;
}

// The devices of the drivers that have a device matching the class, then those matching it.
void Funnel::DriverAndClassSteps(size_t vi, Pending& p) {
  const ReqView& v = views_[vi];
  std::vector<const Candidate*> class_match;
  std::set<std::string> drivers;
  if (p.klass != nullptr) {
    for (const Candidate& c : all_) {
      if (!features_.DeviceBindingAndStatus() && !c.device->binding_conditions.empty()) continue;
      if (!p.klass->spec || Eval(c, {"class", v.class_name}, p.klass->spec->selectors, p.f)) {
        class_match.push_back(&c);
        drivers.insert(c.id.driver);
      }
    }
  }
  for (const Candidate& c : all_) {
    if (drivers.empty() || drivers.count(c.id.driver)) p.cur.push_back(&c);
  }
  Push(vi, p, FunnelStep::kDriver,
       drivers.empty() ? absl::StrCat(Devices(p.cur.size()), " published")
                       : absl::StrCat(Devices(p.cur.size()), " of driver ", absl::StrJoin(drivers, ", ")));
  p.cur = class_match;
  Push(vi, p, FunnelStep::kClass,
       p.klass == nullptr ? absl::StrCat("device class ", v.class_name, " does not exist")
                          : absl::StrCat(DevicesMatch(p.cur.size()), " class ", v.class_name));
}

// The request's selectors; for allocationMode All also the devices it then must take.
void Funnel::RequestStep(size_t vi, Pending& p) {
  const ReqView& v = views_[vi];
  std::vector<const Candidate*> next;
  for (const Candidate* c : p.cur) {
    if (Eval(*c, {"claim", key_}, *v.selectors, p.f)) next.push_back(c);
  }
  const size_t removed = p.cur.size() - next.size();
  p.cur = std::move(next);
  if (v.all) {
    // Upstream's list for All: the selectable devices of the node's pools, less those that could
    // not hold the request's capacity even unused.
    for (const Candidate* c : p.cur) {
      if (ReachOf(c) == Reach::kNo) continue;
      if (features_.consumable_capacity) {
        auto alone =
            CheckCapacity(nullptr, v.capacity, c->device->capacity, nullptr, CapacityRangeArithmetic(features_));
        if (!alone.ok() || *alone != internal::CapacityCheck::kFits) continue;
      }
      all_set_[vi].insert(c);
    }
    all_required_[vi] = static_cast<int64_t>(all_set_[vi].size());
  }
  Push(vi, p, FunnelStep::kRequest, absl::StrCat(removed, " removed by the selectors of request ", v.name));
}

void Funnel::TaintsStep(size_t vi, Pending& p) {
  const ReqView& v = views_[vi];
  std::vector<const Candidate*> next;
  std::set<std::string> keys;
  for (const Candidate* c : p.cur) {
    std::vector<api::DeviceTaint> taints;
    if (features_.device_taints) {
      taints = c->device->taints;
      if (features_.device_taint_rules) {
        for (const auto* rule : snapshot_.TaintRulesFor(c->id.driver, c->id.pool, c->id.device,
                                                             features_.TaintRuleWithoutSelectorMatchesAll())) {
          if (rule->spec && rule->spec->taint) taints.push_back(*rule->spec->taint);
        }
      }
    }
    if (TaintPreventsAllocation(taints, *v.tolerations, features_.EveryTaintEffectPrevents())) {
      for (const auto& t : taints) keys.insert(t.key.value_or(""));
    } else {
      next.push_back(c);
    }
  }
  const size_t removed = p.cur.size() - next.size();
  p.cur = std::move(next);
  Push(vi, p, FunnelStep::kTaints,
       removed == 0 ? "no untolerated taint"
                    : absl::StrCat(Devices(removed), " tainted (", absl::StrJoin(keys, ", "), ") and not tolerated"));
}

void Funnel::AllocatedStep(size_t vi, Pending& p) {
  const ReqView& v = views_[vi];
  std::vector<const Candidate*> next;
  std::set<std::string> holders;
  int64_t removed = 0;
  for (const Candidate* c : p.cur) {
    // A shareable device allocated without a shareID (before the driver shared it) is in use like
    // any other: allocated_devices holds only such dedicated results (and with the gate off,
    // every shared result is dedicated too).
    if (!v.admin && state_.IsAllocatedExclusively(c->id, features_)) {
      ++removed;
      for (const auto& a : snapshot_.Allocations(c->id.driver, c->id.pool, c->id.device)) {
        if (!a.admin_access) holders.insert(absl::StrCat(AV(a.claim_namespace), "/", AV(a.claim_name)));
      }
    } else {
      next.push_back(c);
    }
  }
  std::string detail = removed == 0 ? "none allocated"
                                     : absl::StrCat(Devices(removed), " allocated to claim",
                                                    holders.size() == 1 ? " " : "s ",
                                                    JoinNames({holders.begin(), holders.end()}));
  if (v.admin) detail = "admin access: allocated devices stay usable";
  p.cur = std::move(next);
  Push(vi, p, FunnelStep::kAllocated, detail);
}

const Funnel::LeftCounters* Funnel::CountersLeftIn(const PoolView* pool,
                                                   const std::optional<std::string>& set_name) const {
  const auto key = std::make_pair(pool, set_name);
  if (auto it = counters_left_.find(key); it != counters_left_.end()) return it->second ? &*it->second : nullptr;
  const api::CounterSet* set = nullptr;
  for (const auto* s : pool->slices) {
    for (const auto& cs : s->spec->shared_counters) {
      if (cs.name == set_name) set = &cs;
    }
  }
  std::optional<LeftCounters>& left = counters_left_[key];
  if (set == nullptr) return nullptr;
  left.emplace();
  for (const auto& [counter, total] : set->counters) {
    (*left)[counter] = total.value ? *total.value : api::Quantity();
  }
  for (const auto* s : pool->slices) {
    for (const auto& d : s->spec->devices) {
      const bool consumes = std::any_of(d.consumes_counters.begin(), d.consumes_counters.end(),
                                        [&](const auto& dc) { return dc.counter_set == set_name; });
      if (!consumes) continue;
      if (!state_.IsDeviceAllocated(DeviceID{std::string(pool->driver), std::string(pool->pool), d.name.value_or("")})) {
        continue;
      }
      for (const auto& dc : d.consumes_counters) {
        if (dc.counter_set != set_name) continue;
        for (const auto& [counter, q] : dc.counters) {
          if (q.value) (*left)[counter] = (*left)[counter].Sub(*q.value);
        }
      }
    }
  }
  return &*left;
}

// Whether the counters `c` consumes are left in its pool after what is allocated.
bool Funnel::CountersLeft(const Candidate* c) const {
  for (const auto& cc : c->device->consumes_counters) {
    const LeftCounters* left = CountersLeftIn(c->pool, cc.counter_set);
    if (left == nullptr) return false;
    for (const auto& [counter, need] : cc.counters) {
      auto it = left->find(counter);
      const api::Quantity have = it == left->end() ? api::Quantity() : it->second;
      if (have.Compare(need.value.value_or(api::Quantity())) < 0) return false;
    }
  }
  return true;
}

// Shared counters, compatibility groups against the allocated devices, and consumable capacity. The
// step is pushed later (Run), once the claim-wide compatibility check has added its part.
void Funnel::CountersAndCapacityStep(size_t vi, Pending& p) {
  const ReqView& v = views_[vi];
  std::vector<const Candidate*> next;
  int64_t counters = 0, capacity = 0, incompatible = 0;
  for (const Candidate* c : p.cur) {
    bool ok = true;
    // A further share of a shared device in use does not consume counters again (nor meet the
    // groups again): the allocator checked them with its first share.
    const bool share_in_use = features_.consumable_capacity && c->device->allow_multiple_allocations.value_or(false) &&
                              state_.aggregated_capacity.contains(c->id);
    if (!c->device->consumes_counters.empty()) {
      if (!features_.partitionable_devices) {
        ok = false;
      } else if (!share_in_use) {
        ok = CountersLeft(c);
      }
      if (!ok) ++counters;
      if (ok && features_.partitionable_devices && features_.device_compatibility_groups && !share_in_use &&
          !AdmittedByAllocated(AllocatedGroupsOf(c->pool), *c->device)) {
        ok = false;
        ++incompatible;
      }
    }
    if (ok && features_.consumable_capacity) {
      auto agg = state_.aggregated_capacity.find(c->id);
      auto r = CheckCapacity(agg == state_.aggregated_capacity.end() ? nullptr : &agg->second, v.capacity,
                             c->device->capacity, nullptr, CapacityRangeArithmetic(features_));
      // An unrepresentable request makes Allocate fail outright; here it only means "does not fit".
      if (!r.ok() || *r != internal::CapacityCheck::kFits) {
        ok = false;
        ++capacity;
      }
    }
    if (ok) next.push_back(c);
  }
  p.cur = std::move(next);
  if (counters) p.capacity_parts.push_back(absl::StrCat(Devices(counters), " without shared counters left"));
  if (capacity) p.capacity_parts.push_back(absl::StrCat(Devices(capacity), " without enough capacity left"));
  if (incompatible) {
    p.capacity_parts.push_back(absl::StrCat(Devices(incompatible),
                                            " whose compatibility groups exclude the devices allocated on their "
                                            "counter set"));
  }
}

void Funnel::NodeStep(size_t vi, Pending& p) {
  std::vector<const Candidate*> next;
  int64_t unhealthy = 0, skip_ops = 0;
  for (const Candidate* c : p.cur) {
    switch (ReachOf(c)) {
      case Reach::kYes: next.push_back(c); break;
      case Reach::kNo: break;
      case Reach::kUnhealthy: ++unhealthy; break;
      case Reach::kSkipOps: ++skip_ops; break;
    }
  }
  const size_t removed = p.cur.size() - next.size();
  p.cur = std::move(next);
  std::vector<std::string> why;
  if (unhealthy) why.push_back(absl::StrCat(unhealthy, " in incomplete or invalid pools"));
  if (skip_ops) {
    why.push_back(absl::StrCat(skip_ops, " in slices with skipNodeOperations, which need ",
                               features_.optional_node_operations ? "the node to declare DRAOptionalNodeOperations"
                                                                  : "the DRAOptionalNodeOperations feature gate"));
  }
  Push(vi, p, FunnelStep::kNode,
       absl::StrCat(removed, " not reachable from node ", node_->name,
                    why.empty() ? "" : absl::StrCat(" (", absl::StrJoin(why, "; "), ")")));
}

}  // namespace draforge::alloc::internal
