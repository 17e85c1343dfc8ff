#include "alloc/internal/claim_conflicts.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "alloc/internal/choice_conflicts.h"
#include "alloc/internal/consumable_capacity.h"
#include "common/status.h"

namespace draforge::alloc::internal {

std::optional<api::Quantity> CounterLeft(const PoolView& pool, const std::string& set, const std::string& counter,
                                         const AllocatedState& state) {
  const api::Counter* total = nullptr;
  for (const api::ResourceSlice* s : pool.slices) {
    for (const auto& cs : s->spec->shared_counters) {
      if (cs.name.value_or("") == set) total = cs.counters.Find(counter);
    }
  }
  if (total == nullptr || !total->value) return std::nullopt;
  api::Quantity left = *total->value;
  for (const api::ResourceSlice* s : pool.slices) {
    for (const api::Device& d : s->spec->devices) {
      if (!state.IsDeviceAllocated(DeviceID{std::string(pool.driver), std::string(pool.pool), d.name.value_or("")})) {
        continue;
      }
      for (const auto& dc : d.consumes_counters) {
        if (dc.counter_set.value_or("") != set) continue;
        if (const auto* q = dc.counters.Find(counter); q && q->value) left = left.Sub(*q->value);
      }
    }
  }
  return left;
}

std::vector<ClaimConflict> ChoiceConflicts::Find() {
  std::vector<ClaimConflict> out;
  SameDevice(out);
  Counters(out);
  if (features_.consumable_capacity) ForcedCapacity(out);
  for (const auto& con : claim_.spec->devices->constraints) Constraint(con, out);
  SeveralMatches(out);
  MatchAndDistinct(out);
  // The checks above look at one aspect or one pair of requests at a time; together they can still
  // clash. The bounded search over the whole choice runs only when nothing else was found.
  if (out.empty()) WholeChoice(out);
  return out;
}

bool ChoiceConflicts::Shareable(const Candidate* c) const { return internal::Shareable(c, features_); }

// Devices a view takes: its count, or with allocationMode All every device of its list.
int64_t ChoiceConflicts::Needed(size_t vi) const {
  return views_[vi].all ? static_cast<int64_t>(usable_[vi].size()) : views_[vi].count;
}

// Whether a view takes every device of its list: allocationMode All, or a count that its list just
// meets.
bool ChoiceConflicts::TakesAll(size_t vi) const {
  return views_[vi].all || static_cast<int64_t>(usable_[vi].size()) == views_[vi].count;
}

std::vector<std::string> ChoiceConflicts::RequestNames(const std::vector<size_t>& vis) const {
  std::vector<std::string> names;
  for (size_t vi : vis) names.push_back(views_[vi].name);
  return names;
}

// "request a", "requests a and b".
std::string ChoiceConflicts::RequestsPhrase(const std::vector<size_t>& vis) const {
  return absl::StrCat(vis.size() == 1 ? "request " : "requests ", JoinNames(RequestNames(vis)));
}

// No device goes to two requests of one claim (adminAccess included), so every set of requests
// needs at least as many distinct devices as it takes together (Hall's condition). The first set
// (smallest first, so that a sentence names as few requests as possible) of `vis` whose `lists`
// hold too few devices, with its devices and what it takes; nullopt: none.
std::optional<ChoiceConflicts::Shortage> ChoiceConflicts::Hall(
    const std::vector<size_t>& vis, const std::map<size_t, std::vector<const Candidate*>>& lists,
    size_t min_set) const {
  if (vis.size() < min_set || vis.size() > 12) return std::nullopt;
  std::vector<uint32_t> subsets;
  for (uint32_t m = 1; m < (1u << vis.size()); ++m) {
    if (static_cast<size_t>(__builtin_popcount(m)) >= min_set) subsets.push_back(m);
  }
  std::stable_sort(subsets.begin(), subsets.end(),
                   [](uint32_t a, uint32_t b) { return __builtin_popcount(a) < __builtin_popcount(b); });
  for (uint32_t m : subsets) {
    Shortage s;
    int64_t supply = 0;
    for (size_t k = 0; k < vis.size(); ++k) {
      if (!(m & (1u << k))) continue;
      s.vis.push_back(vis[k]);
      s.want += Needed(vis[k]);
      for (const Candidate* c : lists.at(vis[k])) {
        // A shareable device serves every request once (the search moves on past it within a
        // request); any other device one request.
        if (s.devices.insert(c).second || Shareable(c)) ++supply;
      }
    }
    if (supply < s.want) return s;
  }
  return std::nullopt;
}

// Requests that together need more devices than their lists hold.
void ChoiceConflicts::SameDevice(std::vector<ClaimConflict>& out) const {
  std::map<size_t, std::vector<const Candidate*>> lists;
  for (size_t vi : combo_) lists[vi] = usable_[vi];
  auto shortage = Hall(combo_, lists, 2);
  if (!shortage) return;
  const std::vector<size_t>& vis = shortage->vis;
  const std::set<const Candidate*>& devices = shortage->devices;
  const int64_t want = shortage->want;
  std::vector<std::string> ids;
  for (const Candidate* c : devices) ids.push_back(c->id.String());
  std::sort(ids.begin(), ids.end());
  ClaimConflict c{ConflictKind::kSameDevice, RequestNames(vis), JoinNames(ids), ""};
  if (devices.size() == 1 && vis.size() == 2 && want == 2) {
    c.sentence = absl::StrCat(RequestsPhrase(vis), " both need device ", ids.front());
  } else {
    c.sentence = absl::StrCat(RequestsPhrase(vis), " need ", Devices(want), " together, only ", devices.size(),
                              " of them usable: ", JoinNames(ids));
  }
  out.push_back(std::move(c));
}

namespace {

// One counter of a counter set of a pool.
struct CounterKey {
  const PoolView* pool;
  std::string set, counter;
  bool operator<(const CounterKey& o) const {
    return std::tie(pool, set, counter) < std::tie(o.pool, o.set, o.counter);
  }
};

}  // namespace

// Counters: per counter, what the requests consume at least (the `count` cheapest devices of each
// list; a request taking its whole list: every device of it) against what allocated devices leave.
void ChoiceConflicts::Counters(std::vector<ClaimConflict>& out) const {
  std::set<CounterKey> keys;
  std::set<const Candidate*> taken_by_all;
  for (size_t vi : combo_) {
    if (!TakesAll(vi)) continue;
    for (const Candidate* c : usable_[vi]) {
      if (!Shareable(c)) taken_by_all.insert(c);
    }
  }
  for (size_t vi : combo_) {
    for (const Candidate* c : usable_[vi]) {
      for (const auto& cc : c->device->consumes_counters) {
        for (const auto& [counter, unused] : cc.counters) keys.insert({c->pool, cc.counter_set.value_or(""), counter});
      }
    }
  }
  // A shareable device is charged once for all its shares: counted only where one request of the
  // claim can take it, and not at all when a share of it is in use already.
  std::map<const Candidate*, int> lists_with;
  for (size_t vi : combo_) {
    for (const Candidate* c : usable_[vi]) ++lists_with[c];
  }
  auto consumes = [&](const Candidate* c, const CounterKey& k) {
    api::Quantity q;
    if (c->pool != k.pool) return q;
    if (Shareable(c) && (lists_with[c] > 1 || state_.aggregated_capacity.contains(c->id))) return q;
    for (const auto& cc : c->device->consumes_counters) {
      if (cc.counter_set.value_or("") != k.set) continue;
      if (const auto* v = cc.counters.Find(k.counter); v && v->value) q = q.Add(*v->value);
    }
    return q;
  };
  // What view `vi` consumes of `k` at least: every device of a list it takes whole, else its
  // `count` cheapest devices (distinct ones, and none that a request taking its whole list takes,
  // unless shareable).
  auto least = [&](size_t vi, const CounterKey& k) {
    api::Quantity least;
    if (TakesAll(vi)) {
      for (const Candidate* c : usable_[vi]) least = least.Add(consumes(c, k));
      return least;
    }
    std::vector<api::Quantity> each;
    for (const Candidate* c : usable_[vi]) {
      if (!taken_by_all.count(c)) each.push_back(consumes(c, k));
    }
    std::sort(each.begin(), each.end(),
              [](const api::Quantity& a, const api::Quantity& b) { return a.Compare(b) < 0; });
    for (size_t n = 0; n < each.size() && static_cast<int64_t>(n) < views_[vi].count; ++n) least = least.Add(each[n]);
    return least;
  };
  for (const CounterKey& k : keys) {
    const std::optional<api::Quantity> left_or = CounterLeft(*k.pool, k.set, k.counter, state_);
    if (!left_or) continue;
    const api::Quantity& left = *left_or;
    api::Quantity want;
    std::vector<size_t> vis;
    for (size_t vi : combo_) {
      if (usable_[vi].empty()) continue;
      const api::Quantity q = least(vi, k);
      if (q.Sign() <= 0) continue;
      want = want.Add(q);
      vis.push_back(vi);
    }
    if (vis.empty() || want.Compare(left) <= 0) continue;
    const std::string subject = absl::StrCat(AV(k.pool->driver), "/", AV(k.pool->pool), "/", k.set);
    out.push_back({ConflictKind::kCounters, RequestNames(vis), subject,
                   absl::StrCat("counter set ", subject, ": ", RequestsPhrase(vis), " need at least ", want.String(),
                                " of counter ", k.counter, ", ",
                                left.Sign() < 0 ? api::Quantity().String() : left.String(), " available")});
  }
}

// Whether the share of `extra` (or nothing) fits on `c` next to the shares of the requests
// `forced` onto it.
bool ChoiceConflicts::FitsWithForced(const std::map<const Candidate*, std::vector<size_t>>& forced,
                                     const Candidate* c, std::optional<size_t> extra) const {
  auto agg = state_.aggregated_capacity.find(c->id);
  const api::Map<api::Quantity>* consumed = agg == state_.aggregated_capacity.end() ? nullptr : &agg->second;
  api::Map<api::Quantity> allocating;
  auto it = forced.find(c);
  std::vector<size_t> takers = it == forced.end() ? std::vector<size_t>() : it->second;
  if (extra) takers.push_back(*extra);
  for (size_t vi : takers) {
    auto r = CheckCapacity(consumed, views_[vi].capacity, c->device->capacity, &allocating,
                           CapacityRangeArithmetic(features_));
    if (!r.ok() || *r != CapacityCheck::kFits) return false;
    auto share = ConsumedCapacity(views_[vi].capacity, c->device->capacity, CapacityRangeArithmetic(features_));
    if (share.ok()) AddCapacity(allocating, *share);
  }
  return true;
}

// Consumable capacity. A request that takes its whole list (All, or a count its list just meets)
// takes a share of each of its devices: the shares of all such requests must fit on each shareable
// device, and another request must find room for its shares next to them when its list holds only
// such devices.
void ChoiceConflicts::ForcedCapacity(std::vector<ClaimConflict>& out) const {
  // shareable device -> the requests that take every device of their list
  std::map<const Candidate*, std::vector<size_t>> forced;
  for (size_t vi : combo_) {
    if (!TakesAll(vi)) continue;
    for (const Candidate* c : usable_[vi]) {
      if (Shareable(c)) forced[c].push_back(vi);
    }
  }
  for (const auto& [c, vis] : forced) {
    if (vis.size() < 2 || FitsWithForced(forced, c, std::nullopt)) continue;
    out.push_back({ConflictKind::kCapacity, RequestNames(vis), c->id.String(),
                   absl::StrCat(RequestsPhrase(vis), " all need device ", c->id.String(),
                                ", which has not enough capacity left for all their shares")});
  }
  for (size_t vi : combo_) {
    if (TakesAll(vi) || usable_[vi].empty()) continue;
    std::vector<size_t> vis{vi};
    std::vector<std::string> ids;
    int64_t room = 0;
    bool all_forced = true;
    for (const Candidate* c : usable_[vi]) {
      auto it = forced.find(c);
      all_forced = all_forced && it != forced.end();
      if (!all_forced) break;
      for (size_t other : it->second) {
        if (std::find(vis.begin(), vis.end(), other) == vis.end()) vis.push_back(other);
      }
      ids.push_back(c->id.String());
      if (FitsWithForced(forced, c, vi)) ++room;
    }
    if (!all_forced || room >= views_[vi].count) continue;
    std::sort(vis.begin(), vis.end());
    out.push_back({ConflictKind::kCapacity, RequestNames(vis), JoinNames(ids),
                   absl::StrCat(RequestsPhrase(vis), " all need a share of device", ids.size() == 1 ? " " : "s ",
                                JoinNames(ids), ", which ", ids.size() == 1 ? "has" : "have",
                                " not enough capacity left for all their shares")});
  }
}

// The claim-level conflicts when every request on its own has a usable alternative: those of the
// first choice of alternatives (upstream tries them in order), if every choice has some. At most 64
// choices are looked at; past that the first choice's conflicts stand.
std::vector<ClaimConflict> FindConflicts(const api::ResourceClaim& claim, const std::vector<ReqView>& views,
                                         const std::vector<std::vector<const Candidate*>>& usable,
                                         const std::vector<RequestFunnel>& funnels, const AllocatedState& state,
                                         const Features& features, const PairCheck& compatible) {
  std::vector<std::string> bases;
  std::vector<std::vector<size_t>> alternatives;
  for (size_t vi = 0; vi < views.size(); ++vi) {
    auto it = std::find(bases.begin(), bases.end(), views[vi].base);
    if (it == bases.end()) {
      bases.push_back(views[vi].base);
      alternatives.emplace_back();
      it = bases.end() - 1;
    }
    if (!funnels[vi].first_short) alternatives[it - bases.begin()].push_back(vi);
  }
  for (const auto& a : alternatives) {
    if (a.empty()) return {};  // that request's own funnel is the reason
  }
  std::vector<size_t> pick(bases.size(), 0);
  std::vector<ClaimConflict> first;
  // Search steps for all choices together, so that explaining one claim stays cheap.
  int64_t search_budget = 100000;
  for (int tried = 0; tried < 64; ++tried) {
    std::vector<size_t> combo;
    for (size_t b = 0; b < bases.size(); ++b) combo.push_back(alternatives[b][pick[b]]);
    std::vector<ClaimConflict> found =
        ChoiceConflicts(claim, views, combo, usable, state, features, compatible, search_budget).Find();
    if (found.empty()) return {};
    if (tried == 0) first = std::move(found);
    size_t b = bases.size();
    while (b > 0) {
      --b;
      if (++pick[b] < alternatives[b].size()) break;
      pick[b] = 0;
      if (b == 0) return first;  // every choice tried
    }
    if (bases.empty()) break;
  }
  return first;
}

}  // namespace draforge::alloc::internal
