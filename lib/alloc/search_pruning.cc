// Pruning (AllocateOptions::prune_search): parts of the search that provably cannot succeed are
// skipped. The outcome, the devices chosen and any error are those of upstream's search; only the
// number of search steps is lower. Not in upstream.
#include "absl/hash/hash.h"
#include "alloc/internal/search.h"

namespace draforge::alloc::internal {

// Twins. Devices X (tried first) and Y are twins when nothing the search looks at tells them
// apart: the same pool (counters and pool order), the same answer from every request's selectors
// (IsSelectable), the same view for every constraint, the same capacity, counter consumption,
// taints and binding fields, neither allocated nor being allocated, and in no allocationMode All
// list (see TwinClass). If every completion with X at a position failed, every completion with Y
// there fails too: swapping X and Y maps the completions of Y (later devices of this request come
// after Y, so they are neither X nor Y) onto completions of X, which were all tried, with the
// same checks giving the same answers. So Y is skipped; which solution is found does not change,
// because only devices whose subtree cannot succeed are skipped, and neither do errors: X's failed
// subtree met none, and the selector and capacity checks Y's would make (per request and device,
// whatever the state) were made there too.
//
// The bound. A request that still needs `needed` devices from position `start` on cannot succeed
// if fewer devices from there on are free, selectable and fit capacity (the search's own first
// checks; the rest only reject more). Counting evaluates selectors on devices the search would
// evaluate anyway; if an evaluation fails the bound gives up and the search meets that error
// itself, in its own order.

int Search::DevIndex(Loc start) const {
  if (start.pool >= static_cast<int>(slice_first_.size())) return static_cast<int>(devs_.size());
  const auto& firsts = slice_first_[start.pool];
  if (start.slice >= static_cast<int>(firsts.size())) {
    // Past the pool's last slice: the next device is the first of a later pool.
    for (size_t p = static_cast<size_t>(start.pool) + 1; p < slice_first_.size(); ++p) {
      if (!slice_first_[p].empty()) return slice_first_[p][0];
    }
    return static_cast<int>(devs_.size());
  }
  return firsts[start.slice] + start.device;
}

// Whether at least `needed` devices from `start` on could be picked for the request. "No" lets the
// search stop early; "yes" is always safe. Any candidate whose check would end the search with an
// error (a selector's, a capacity's, or a derived attribute a constraint of this request reads)
// answers "yes", so that the search reaches that error in upstream's order instead of reporting
// the claim unschedulable.
bool Search::EnoughCandidates(int ci, int ri, int si, const RequestData& rd, Loc start, int needed) {
  int found = 0;
  // 1.34 stops with an error at an invalid pool it reaches (Features::NodeRelevantPools).
  if (f_.NodeRelevantPools()) {
    for (size_t pi = start.pool; pi < pools_.size(); ++pi) {
      if (pools_[pi].invalid) return true;
    }
  }
  for (int d = DevIndex(start); d < static_cast<int>(devs_.size()); ++d) {
    const Pool& pool = pools_[devs_[d].pool_index];
    if (!f_.NodeRelevantPools() && (pool.incomplete || pool.invalid)) continue;
    if (rd.admin_access && AllocatingForClaim(d, ci)) continue;
    if (!rd.admin_access && InUse(d)) continue;
    auto selectable = IsSelectable(ci, ri, si, rd, d);
    if (!selectable.ok()) return true;
    if (!*selectable) continue;
    if (f_.consumable_capacity) {
      auto check = CheckCapacity(claims_[ci], rd, d);
      if (!check.ok()) return true;
      if (*check != CapacityCheck::kFits) continue;
    }
    if (!rd.derived->empty()) {
      for (const auto& c : claims_[ci].constraints) {
        if (c->AppliesTo(rd.BaseName(), rd.SubName()) && !ConstraintAttribute(rd, d, c->attribute()).ok()) {
          return true;
        }
      }
    }
    // Searched from the start again (Features::NextDeviceSearchedFromStart), a device that allows
    // multiple allocations may serve the request more than once: no bound from counting.
    if (devs_[d].multi && f_.NextDeviceSearchedFromStart()) return true;
    if (++found >= needed) return true;
  }
  return false;
}

void Search::MarkFailed(int d) {
  if (prune_ && !devs_[d].multi) failed_.push_back(d);
}

bool Search::TwinFailed(int d, size_t failed_base) {
  if (devs_[d].multi || !allocating_[d].empty()) return false;
  for (size_t i = failed_base; i < failed_.size(); ++i) {
    const int x = failed_[i];
    if (!allocating_[x].empty()) continue;
    if (TwinClass(x) == TwinClass(d)) return true;
  }
  return false;
}

// The first device of the same pool that is the twin of `d` (or `d` itself), computed once per
// device and search: everything it compares is fixed for the search.
int Search::TwinClass(int d) {
  if (twin_class_.empty()) {
    twin_class_.assign(devs_.size(), -1);
    twin_sig_.assign(devs_.size(), 0);
  }
  if (twin_class_[d] >= 0) return twin_class_[d];
  int cls = d;
  // A request with allocationMode All walks its devices in a fixed order and turns a constraint
  // failure into an error: with X and Y swapped it may meet the free twin first and fail loudly
  // where the original failed quietly on the one in use. Such devices have no twins.
  std::optional<uint64_t> sig = in_all_mode_[d] ? std::nullopt : TwinSignature(d);
  if (sig.has_value()) {
    twin_sig_[d] = *sig;
    for (int r : twin_reps_[devs_[d].pool_index]) {
      if (twin_sig_[r] == *sig && SameForSearch(r, d)) {
        cls = r;
        break;
      }
    }
    if (cls == d) twin_reps_[devs_[d].pool_index].push_back(d);
  }
  twin_class_[d] = cls;
  return cls;
}

// A hash of what SameForSearch compares (names and selector answers, not every value), so that
// most non-twins are told apart without comparing strings. nullopt: a selector fails on the
// device, which then has no twin.
std::optional<uint64_t> Search::TwinSignature(int d) {
  const Dev& dev = devs_[d];
  const api::Device& u = *dev.device;
  uint64_t h = absl::HashOf(dev.pool_index, dev.allocated, u.consumes_counters.size(), u.capacity.size(),
                            dev.taints.size(), u.binding_conditions.size());
  for (const auto& cc : u.consumes_counters) {
    h = absl::HashOf(h, cc.counter_set.value_or(""), cc.counters.size());
    for (const auto& [name, unused] : cc.counters) h = absl::HashOf(h, name);
  }
  for (const auto& [name, unused] : u.capacity) h = absl::HashOf(h, name);
  for (size_t ci = 0; ci < claims_.size(); ++ci) {
    const ClaimData& cd = claims_[ci];
    for (size_t ri = 0; ri < cd.requests.size(); ++ri) {
      for (size_t si = 0; si < cd.requests[ri].size(); ++si) {
        auto m = IsSelectable(static_cast<int>(ci), static_cast<int>(ri), static_cast<int>(si), cd.requests[ri][si], d);
        if (!m.ok()) return std::nullopt;
        h = absl::HashOf(h, *m);
      }
    }
  }
  return h;
}

bool Search::SameForSearch(int a, int b) {
  const Dev& x = devs_[a];
  const Dev& y = devs_[b];
  if (x.pool_index != y.pool_index || x.multi || y.multi || x.allocated != y.allocated ||
      x.aggregated != nullptr || y.aggregated != nullptr) {
    return false;
  }
  const api::Device& u = *x.device;
  const api::Device& v = *y.device;
  if (!(u.consumes_counters == v.consumes_counters && u.capacity == v.capacity && x.taints == y.taints &&
        u.binding_conditions == v.binding_conditions &&
        u.binding_failure_conditions == v.binding_failure_conditions && u.binds_to_node == v.binds_to_node &&
        u.node_name == v.node_name && u.all_nodes == v.all_nodes && u.node_selector == v.node_selector &&
        x.slice->spec->per_device_node_selection == y.slice->spec->per_device_node_selection &&
        x.slice->spec->skip_node_operations == y.slice->spec->skip_node_operations)) {
    return false;
  }
  for (size_t ci = 0; ci < claims_.size(); ++ci) {
    const ClaimData& cd = claims_[ci];
    for (size_t ri = 0; ri < cd.requests.size(); ++ri) {
      for (size_t si = 0; si < cd.requests[ri].size(); ++si) {
        const RequestData& rd = cd.requests[ri][si];
        auto p = IsSelectable(static_cast<int>(ci), static_cast<int>(ri), static_cast<int>(si), rd, a);
        auto q = IsSelectable(static_cast<int>(ci), static_cast<int>(ri), static_cast<int>(si), rd, b);
        if (!p.ok() || !q.ok() || *p != *q) return false;
      }
    }
    for (const auto& c : cd.constraints) {
      if (!c->SameFor(u, v, x.driver)) return false;
      // With derived attributes (DRADerivedAttributes) a request may see another value than the
      // device's own: compare what each request the constraint applies to sees.
      for (const auto& subs : cd.requests) {
        for (const RequestData& rd : subs) {
          if (rd.derived->empty() || !c->AppliesTo(rd.BaseName(), rd.SubName())) continue;
          auto p = ConstraintAttribute(rd, a, c->attribute());
          auto q = ConstraintAttribute(rd, b, c->attribute());
          if (!p.ok() || !q.ok()) return false;
          if (*p == nullptr || *q == nullptr ? *p != *q : !(**p == **q)) return false;
        }
      }
    }
  }
  return true;
}

}  // namespace draforge::alloc::internal
