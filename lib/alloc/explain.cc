#include "alloc/explain.h"

#include <algorithm>
#include <deque>
#include <functional>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "alloc/internal/consumable_capacity.h"
#include "alloc/internal/compatibility_groups.h"
#include "alloc/internal/constraints.h"
#include "alloc/internal/derived_attributes.h"
#include "alloc/internal/optional_node_operations.h"
#include "alloc/internal/pools.h"
#include "alloc/internal/selectors.h"
#include "alloc/internal/sorted_strings.h"
#include "common/status.h"

namespace draforge::alloc {

std::string_view FunnelStepName(FunnelStep step) {
  switch (step) {
    case FunnelStep::kDriver: return "driver";
    case FunnelStep::kClass: return "class";
    case FunnelStep::kRequest: return "request";
    case FunnelStep::kTaints: return "taints";
    case FunnelStep::kAllocated: return "allocated";
    case FunnelStep::kCapacity: return "capacity";
    case FunnelStep::kConstraints: return "constraints";
    case FunnelStep::kNode: return "node";
  }
  return "";
}

std::string_view ConflictKindName(ConflictKind kind) {
  switch (kind) {
    case ConflictKind::kSameDevice: return "same-device";
    case ConflictKind::kCounters: return "counters";
    case ConflictKind::kCapacity: return "capacity";
    case ConflictKind::kConstraint: return "constraint";
    case ConflictKind::kCompatibility: return "compatibility";
  }
  return "";
}

namespace {

// A pool's slices of the generation explain looks at.
struct PoolView {
  std::string_view driver;
  std::string_view pool;
  std::vector<const api::ResourceSlice*> slices;  // by name
};

struct Candidate {
  const PoolView* pool;
  const api::ResourceSlice* slice;
  const api::Device* device;
  DeviceID id;
};

std::string Devices(int64_t n) { return absl::StrCat(n, n == 1 ? " device" : " devices"); }

std::string JoinNames(const std::vector<std::string>& names) {
  if (names.size() <= 1) return absl::StrJoin(names, "");
  if (names.size() <= 4) {
    return absl::StrCat(absl::StrJoin(names.begin(), names.end() - 1, ", "), " and ", names.back());
  }
  return absl::StrCat(absl::StrJoin(names.begin(), names.begin() + 3, ", "), " and ", names.size() - 3, " more");
}

struct ReqView {
  std::string name, base, sub, class_name;
  const std::vector<api::DeviceSelector>* selectors;
  const std::vector<api::DeviceToleration>* tolerations;
  const api::CapacityRequirements* capacity;
  bool admin = false, all = false;
  int64_t count = 1;
  const std::vector<api::DeviceDerivedAttribute>* derived = nullptr;  // DRADerivedAttributes
};

// "[groups: mig, mps]" or "[no groups]": what `device` declares on counter set `set`.
std::string GroupsOn(const api::Device& device, const std::string& set) {
  for (const api::DeviceCounterConsumption& c : device.consumes_counters) {
    if (c.counter_set.value_or("") != set || c.compatibility_groups.empty()) continue;
    return absl::StrCat("[groups: ", absl::StrJoin(internal::CompatibilityGroupSet(c.compatibility_groups), ", "),
                        "]");
  }
  return "[no groups]";
}

// Pairwise disjoint members of `sets` (each sorted), as indices: `want` of them if some exist, else
// the largest family found. nullopt when `budget` search steps did not settle it, as a family of
// disjoint lists is a packing problem; the caller then judges leniently.
std::optional<std::vector<size_t>> DisjointFamily(const std::vector<std::vector<std::string>>& sets, size_t want,
                                                  int64_t budget) {
  std::vector<size_t> chosen, best;
  bool exhausted = false;
  // Depth-first over "take set i or not", in order; stops at `want` members.
  auto search = [&](auto& self, size_t i) -> void {
    if (best.size() >= want || exhausted) return;
    if (--budget < 0) {
      exhausted = true;
      return;
    }
    if (chosen.size() > best.size()) best = chosen;
    if (i == sets.size() || chosen.size() + (sets.size() - i) <= best.size()) return;
    bool fits = true;
    for (size_t c : chosen) fits = fits && !internal::SortedIntersects(sets[c], sets[i]);
    if (fits) {
      chosen.push_back(i);
      self(self, i + 1);
      chosen.pop_back();
    }
    self(self, i + 1);
  };
  search(search, 0);
  if (chosen.size() > best.size()) best = chosen;
  if (best.size() < want && exhausted) return std::nullopt;
  return best;
}


// The cross-request reasons of one choice of alternatives (`combo`: one view per request). Every
// check is a necessary condition of an allocation (lower bounds, counts of distinct devices or
// values), so a conflict found is a true reason; none found proves nothing.
// What the allocated devices leave of counter `counter` of set `set` in `pool` (negative when they
// over-consume it); nullopt when the pool has no such counter.
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

// `compatible` (null without DRADeviceCompatibilityGroups) says whether two devices' compatibility
// groups let them be allocated together.
using PairCheck = std::function<bool(const Candidate*, const Candidate*)>;
std::vector<ClaimConflict> ConflictsOf(const api::ResourceClaim& claim, const std::vector<ReqView>& views,
                                       const std::vector<size_t>& combo,
                                       const std::vector<std::vector<const Candidate*>>& usable,
                                       const AllocatedState& state, const Features& features,
                                       const PairCheck& compatible, int64_t& search_budget) {
  std::vector<ClaimConflict> out;
  auto shareable = [&](const Candidate* c) {
    return features.consumable_capacity && c->device->allow_multiple_allocations.value_or(false);
  };
  // Devices a view takes: its count, or with allocationMode All every device of its list.
  auto needed = [&](size_t vi) {
    return views[vi].all ? static_cast<int64_t>(usable[vi].size()) : views[vi].count;
  };
  // Whether a view takes every device of its list: allocationMode All, or a count that its list
  // just meets.
  auto takes_all = [&](size_t vi) {
    return views[vi].all || static_cast<int64_t>(usable[vi].size()) == views[vi].count;
  };
  auto request_names = [&](const std::vector<size_t>& vis) {
    std::vector<std::string> names;
    for (size_t vi : vis) names.push_back(views[vi].name);
    return names;
  };
  auto requests_phrase = [&](const std::vector<size_t>& vis) {
    return absl::StrCat(vis.size() == 1 ? "request " : "requests ", JoinNames(request_names(vis)));
  };

  // No device goes to two requests of one claim (adminAccess included), so every set of requests
  // needs at least as many distinct devices as it takes together (Hall's condition). The first set
  // (smallest first, so that a sentence names as few requests as possible) of `vis` whose `lists`
  // hold too few devices, with its devices and what it takes; nullopt: none.
  struct Shortage {
    std::vector<size_t> vis;
    std::set<const Candidate*> devices;
    int64_t want = 0;
  };
  auto hall = [&](const std::vector<size_t>& vis, const std::map<size_t, std::vector<const Candidate*>>& lists,
                  size_t min_set) -> std::optional<Shortage> {
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
        s.want += needed(vis[k]);
        for (const Candidate* c : lists.at(vis[k])) {
          // A shareable device serves every request once (the search moves on past it within a
          // request); any other device one request.
          if (s.devices.insert(c).second || shareable(c)) ++supply;
        }
      }
      if (supply < s.want) return s;
    }
    return std::nullopt;
  };

  // Same device.
  {
    std::map<size_t, std::vector<const Candidate*>> lists;
    for (size_t vi : combo) lists[vi] = usable[vi];
    if (auto shortage = hall(combo, lists, 2)) {
      const std::vector<size_t>& vis = shortage->vis;
      const std::set<const Candidate*>& devices = shortage->devices;
      const int64_t want = shortage->want;
      std::vector<std::string> ids;
      for (const Candidate* c : devices) ids.push_back(c->id.String());
      std::sort(ids.begin(), ids.end());
      ClaimConflict c{ConflictKind::kSameDevice, request_names(vis), JoinNames(ids), ""};
      if (devices.size() == 1 && vis.size() == 2 && want == 2) {
        c.sentence = absl::StrCat(requests_phrase(vis), " both need device ", ids.front());
      } else {
        c.sentence = absl::StrCat(requests_phrase(vis), " need ", Devices(want), " together, only ",
                                  devices.size(), " of them usable: ", JoinNames(ids));
      }
      out.push_back(std::move(c));
    }
  }

  // Counters: per counter, what the requests consume at least (the `count` cheapest devices of each
  // list; a request taking its whole list: every device of it) against what allocated devices leave.
  {
    struct Key {
      const PoolView* pool;
      std::string set, counter;
      bool operator<(const Key& o) const { return std::tie(pool, set, counter) < std::tie(o.pool, o.set, o.counter); }
    };
    std::set<Key> keys;
    std::set<const Candidate*> taken_by_all;
    for (size_t vi : combo) {
      if (!takes_all(vi)) continue;
      for (const Candidate* c : usable[vi]) {
        if (!shareable(c)) taken_by_all.insert(c);
      }
    }
    for (size_t vi : combo) {
      for (const Candidate* c : usable[vi]) {
        for (const auto& cc : c->device->consumes_counters) {
          for (const auto& [counter, unused] : cc.counters) keys.insert({c->pool, cc.counter_set.value_or(""), counter});
        }
      }
    }
    // A shareable device is charged once for all its shares: counted only where one request of
    // the claim can take it, and not at all when a share of it is in use already.
    std::map<const Candidate*, int> lists_with;
    for (size_t vi : combo) {
      for (const Candidate* c : usable[vi]) ++lists_with[c];
    }
    auto consumes = [&](const Candidate* c, const Key& k) {
      api::Quantity q;
      if (c->pool != k.pool) return q;
      if (shareable(c) && (lists_with[c] > 1 || state.aggregated_capacity.contains(c->id))) return q;
      for (const auto& cc : c->device->consumes_counters) {
        if (cc.counter_set.value_or("") != k.set) continue;
        if (const auto* v = cc.counters.Find(k.counter); v && v->value) q = q.Add(*v->value);
      }
      return q;
    };
    for (const Key& k : keys) {
      const std::optional<api::Quantity> left_or = CounterLeft(*k.pool, k.set, k.counter, state);
      if (!left_or) continue;
      const api::Quantity& left = *left_or;
      api::Quantity want;
      std::vector<size_t> vis;
      for (size_t vi : combo) {
        if (usable[vi].empty()) continue;
        api::Quantity least;
        if (takes_all(vi)) {
          for (const Candidate* c : usable[vi]) least = least.Add(consumes(c, k));
        } else {
          // The `count` cheapest devices: a request takes distinct devices, and none that a request
          // taking its whole list takes (unless shareable).
          std::vector<api::Quantity> each;
          for (const Candidate* c : usable[vi]) {
            if (!taken_by_all.count(c)) each.push_back(consumes(c, k));
          }
          std::sort(each.begin(), each.end(), [](const api::Quantity& a, const api::Quantity& b) { return a.Compare(b) < 0; });
          for (size_t n = 0; n < each.size() && static_cast<int64_t>(n) < views[vi].count; ++n) least = least.Add(each[n]);
        }
        if (least.Sign() <= 0) continue;
        want = want.Add(least);
        vis.push_back(vi);
      }
      if (vis.empty() || want.Compare(left) <= 0) continue;
      const std::string subject = absl::StrCat(AV(k.pool->driver), "/", AV(k.pool->pool), "/", k.set);
      out.push_back({ConflictKind::kCounters, request_names(vis), subject,
                     absl::StrCat("counter set ", subject, ": ", requests_phrase(vis), " need at least ", want.String(),
                                  " of counter ", k.counter, ", ", left.Sign() < 0 ? api::Quantity().String() : left.String(),
                                  " available")});
    }
  }

  // Consumable capacity. A request that takes its whole list (All, or a count its list just meets)
  // takes a share of each of its devices: the shares of all such requests must fit on each
  // shareable device, and another request must find room for its shares next to them when its
  // list holds only such devices.
  if (features.consumable_capacity) {
    // shareable device -> the requests that take every device of their list
    std::map<const Candidate*, std::vector<size_t>> forced;
    for (size_t vi : combo) {
      if (!takes_all(vi)) continue;
      for (const Candidate* c : usable[vi]) {
        if (shareable(c)) forced[c].push_back(vi);
      }
    }
    // Whether `extra` (or nothing) fits on `c` next to the shares of the All requests; what the
    // device would then hold goes to `allocating`.
    auto fits_with_forced = [&](const Candidate* c, std::optional<size_t> extra) {
      auto agg = state.aggregated_capacity.find(c->id);
      const api::Map<api::Quantity>* consumed = agg == state.aggregated_capacity.end() ? nullptr : &agg->second;
      api::Map<api::Quantity> allocating;
      std::vector<size_t> takers = forced[c];
      if (extra) takers.push_back(*extra);
      for (size_t vi : takers) {
        auto r = internal::CheckCapacity(consumed, views[vi].capacity, c->device->capacity, &allocating,
                                         features.fractional_capacity_range);
        if (!r.ok() || *r != internal::CapacityCheck::kFits) return false;
        auto share = internal::ConsumedCapacity(views[vi].capacity, c->device->capacity,
                                                features.fractional_capacity_range);
        if (share.ok()) internal::AddCapacity(allocating, *share);
      }
      return true;
    };
    for (const auto& [c, vis] : forced) {
      if (vis.size() < 2 || fits_with_forced(c, std::nullopt)) continue;
      out.push_back({ConflictKind::kCapacity, request_names(vis), c->id.String(),
                     absl::StrCat(requests_phrase(vis), " all need device ", c->id.String(),
                                  ", which has not enough capacity left for all their shares")});
    }
    for (size_t vi : combo) {
      if (takes_all(vi) || usable[vi].empty()) continue;
      std::vector<size_t> vis{vi};
      std::vector<std::string> ids;
      int64_t room = 0;
      bool all_forced = true;
      for (const Candidate* c : usable[vi]) {
        auto it = forced.find(c);
        all_forced = all_forced && it != forced.end();
        if (!all_forced) break;
        for (size_t other : it->second) {
          if (std::find(vis.begin(), vis.end(), other) == vis.end()) vis.push_back(other);
        }
        ids.push_back(c->id.String());
        if (fits_with_forced(c, vi)) ++room;
      }
      if (!all_forced || room >= views[vi].count) continue;
      std::sort(vis.begin(), vis.end());
      out.push_back({ConflictKind::kCapacity, request_names(vis), JoinNames(ids),
                     absl::StrCat(requests_phrase(vis), " all need a share of device", ids.size() == 1 ? " " : "s ",
                                  JoinNames(ids), ", which ", ids.size() == 1 ? "has" : "have",
                                  " not enough capacity left for all their shares")});
    }
  }

  // Constraints across requests. matchAttribute: one value that enough devices of every request
  // have. distinctAttribute: at least as many distinct values as devices taken. Constraints on
  // derived attributes are left to the allocator (the value depends on the request).
  for (const auto& con : claim.spec->devices->constraints) {
    const bool match = con.match_attribute.has_value();
    const std::string attr = match ? *con.match_attribute : con.distinct_attribute.value_or("");
    if (attr.empty()) continue;
    std::vector<size_t> scope;
    bool derived = false;
    for (size_t vi : combo) {
      bool applies = con.requests.empty();
      for (const auto& r : con.requests) applies = applies || r == views[vi].base || r == views[vi].name;
      if (!applies) continue;
      scope.push_back(vi);
      derived = derived || (features.derived_attributes && views[vi].derived != nullptr && !views[vi].derived->empty());
    }
    if (scope.size() < 2 || derived) continue;
    // A device's values; empty: it has none. A scalar the comparison cannot read matches nothing
    // (matchAttribute) and is one value (distinctAttribute), as in the funnel's constraint step.
    auto values_of = [&](const Candidate* c) -> std::vector<std::string> {
      const api::DeviceAttribute* a = internal::LookupAttribute(*c->device, c->id.driver, attr);
      if (a == nullptr) return {};
      if (features.list_type_attributes) return internal::AttributeValueSet(*a);
      std::string v = internal::AttributeScalar(*a);
      if (v.empty() && match) v = absl::StrCat("#", c->id.String());
      return {v};
    };
    if (match) {
      // value -> view -> its devices with that value
      std::map<std::string, std::map<size_t, std::vector<const Candidate*>>> having;
      std::map<size_t, std::set<std::string>> shown;
      for (size_t vi : scope) {
        for (const Candidate* c : usable[vi]) {
          for (const std::string& v : values_of(c)) {
            having[v][vi].push_back(c);
            // "s:root-a" -> "root-a" (the type prefix keeps 1 and "1" apart, a user reads the value).
            if (v.size() >= 2 && v[1] == ':') shown[vi].insert(v.substr(2));
          }
        }
      }
      // A value serves when every request has enough devices with it, distinct ones across requests.
      bool some_value = false;
      for (auto& [value, per_view] : having) {
        bool enough = true;
        for (size_t vi : scope) enough = enough && per_view[vi].size() >= static_cast<size_t>(needed(vi));
        some_value = some_value || (enough && !hall(scope, per_view, 2));
      }
      if (some_value) continue;
      std::vector<std::string> per_request;
      for (size_t vi : scope) {
        const std::vector<std::string> values(shown[vi].begin(), shown[vi].end());
        per_request.push_back(
            absl::StrCat(views[vi].name, ": ", values.empty() ? std::string("none") : JoinNames(values)));
      }
      out.push_back({ConflictKind::kConstraint, request_names(scope), attr,
                     absl::StrCat("matchAttribute ", attr, ": no value is held by enough distinct devices of ",
                                  requests_phrase(scope), " (", absl::StrJoin(per_request, "; "), ")")});
    } else {
      std::set<std::string> values;
      int64_t want = 0;
      for (size_t vi : scope) {
        want += needed(vi);
        for (const Candidate* c : usable[vi]) {
          for (const std::string& v : values_of(c)) values.insert(v);
        }
      }
      if (static_cast<int64_t>(values.size()) < want) {
        out.push_back({ConflictKind::kConstraint, request_names(scope), attr,
                       absl::StrCat("distinctAttribute ", attr, ": ", requests_phrase(scope), " need ", Devices(want),
                                    " with distinct values, their devices have ", values.size(),
                                    values.size() == 1 ? " value" : " distinct values")});
        continue;
      }
      // Enough values in all, but maybe not for a choice of distinct devices, one set of values
      // each, pairwise apart (list-typed values: disjoint sets). A bounded search over the
      // choices; undecided within the budget: no conflict claimed.
      std::vector<std::pair<size_t, int64_t>> slots;  // (view, index of the device it takes)
      for (size_t vi : scope) {
        for (int64_t n = 0; n < needed(vi); ++n) slots.push_back({vi, n});
      }
      std::vector<std::pair<const Candidate*, std::vector<std::string>>> chosen;
      auto take = [&](size_t, const Candidate* c) {
        std::vector<std::string> vs = values_of(c);
        if (vs.empty()) return false;
        for (const auto& [other, ovs] : chosen) {
          if (other == c || internal::SortedIntersects(ovs, vs)) return false;
        }
        chosen.push_back({c, std::move(vs)});
        return true;
      };
      auto release = [&](size_t, const Candidate*) { chosen.pop_back(); };
      if (slots.size() > 64) continue;
      const int found = BoundedSlotSearch(slots, usable, search_budget, take, release);
      if (found != 0) continue;
      out.push_back({ConflictKind::kConstraint, request_names(scope), attr,
                     absl::StrCat("distinctAttribute ", attr, ": no choice of distinct devices for ",
                                  requests_phrase(scope), " has pairwise different values")});
    }
  }
  // Several matchAttribute constraints together (also within one request): one value per
  // constraint that enough distinct devices of every request have at once. Each one alone may
  // leave enough devices while no device has the values of both. Up to 4096 combinations of values
  // are tried; past that no conflict is claimed.
  {
    struct Match {
      std::string attr;
      std::vector<size_t> scope;
      std::vector<std::string> values;
    };
    std::vector<Match> matches;
    bool derived = false;
    for (const auto& con : claim.spec->devices->constraints) {
      if (!con.match_attribute || con.match_attribute->empty()) continue;
      Match m{*con.match_attribute, {}, {}};
      for (size_t vi : combo) {
        bool applies = con.requests.empty();
        for (const auto& r : con.requests) applies = applies || r == views[vi].base || r == views[vi].name;
        if (!applies) continue;
        m.scope.push_back(vi);
        derived = derived || (features.derived_attributes && views[vi].derived != nullptr && !views[vi].derived->empty());
      }
      if (!m.scope.empty()) matches.push_back(std::move(m));
    }
    // A device's values of `attr` (see the per-constraint check above).
    auto values_of = [&](const Candidate* c, const std::string& attr) -> std::vector<std::string> {
      const api::DeviceAttribute* a = internal::LookupAttribute(*c->device, c->id.driver, attr);
      if (a == nullptr) return {};
      if (features.list_type_attributes) return internal::AttributeValueSet(*a);
      std::string v = internal::AttributeScalar(*a);
      if (v.empty()) v = absl::StrCat("#", c->id.String());
      return {v};
    };
    const bool already = std::any_of(out.begin(), out.end(), [](const ClaimConflict& c) {
      return c.kind == ConflictKind::kConstraint;
    });
    size_t combinations = 1;
    for (Match& m : matches) {
      std::set<std::string> values;
      for (size_t vi : m.scope) {
        for (const Candidate* c : usable[vi]) {
          for (std::string& v : values_of(c, m.attr)) values.insert(std::move(v));
        }
      }
      m.values.assign(values.begin(), values.end());
      combinations = m.values.empty() ? 0 : std::min<size_t>(combinations * m.values.size(), 1 << 20);
    }
    if (matches.size() >= 2 && !derived && !already && combinations > 0 && combinations <= 4096) {
      // The devices of `vi` with value pick[j] of every constraint j that applies to it.
      std::vector<size_t> pick(matches.size(), 0);
      std::vector<size_t> all_views;
      for (const Match& m : matches) {
        for (size_t vi : m.scope) {
          if (std::find(all_views.begin(), all_views.end(), vi) == all_views.end()) all_views.push_back(vi);
        }
      }
      std::sort(all_views.begin(), all_views.end());
      bool some = false;
      for (size_t n = 0; n < combinations && !some; ++n) {
        size_t rest = n;
        for (size_t j = 0; j < matches.size(); ++j) {
          pick[j] = rest % matches[j].values.size();
          rest /= matches[j].values.size();
        }
        std::map<size_t, std::vector<const Candidate*>> lists;
        bool enough = true;
        for (size_t vi : all_views) {
          std::vector<const Candidate*>& l = lists[vi];
          for (const Candidate* c : usable[vi]) {
            bool has_all = true;
            for (size_t j = 0; j < matches.size() && has_all; ++j) {
              if (std::find(matches[j].scope.begin(), matches[j].scope.end(), vi) == matches[j].scope.end()) continue;
              const std::vector<std::string> vs = values_of(c, matches[j].attr);
              has_all = std::find(vs.begin(), vs.end(), matches[j].values[pick[j]]) != vs.end();
            }
            if (has_all) l.push_back(c);
          }
          enough = enough && static_cast<int64_t>(l.size()) >= needed(vi);
        }
        some = enough && !hall(all_views, lists, 2);
      }
      if (!some) {
        std::vector<std::string> attrs;
        for (const Match& m : matches) attrs.push_back(m.attr);
        out.push_back({ConflictKind::kConstraint, request_names(all_views), absl::StrJoin(attrs, ", "),
                       absl::StrCat("matchAttribute ", JoinNames(attrs), ": too few distinct devices of ",
                                    requests_phrase(all_views), " share one value of each attribute")});
      }
    }
  }

  // A matchAttribute and a distinctAttribute on the same attribute over two requests: the devices of
  // the two would need equal and different values at once.
  for (const auto& m : claim.spec->devices->constraints) {
    if (!m.match_attribute || m.match_attribute->empty()) continue;
    for (const auto& d : claim.spec->devices->constraints) {
      if (d.distinct_attribute.value_or("") != *m.match_attribute) continue;
      std::vector<size_t> both;
      for (size_t vi : combo) {
        auto applies = [&](const api::DeviceConstraint& con) {
          bool a = con.requests.empty();
          for (const auto& r : con.requests) a = a || r == views[vi].base || r == views[vi].name;
          return a;
        };
        if (applies(m) && applies(d) && needed(vi) > 0) both.push_back(vi);
      }
      if (both.size() < 2) continue;
      out.push_back({ConflictKind::kConstraint, request_names(both), *m.match_attribute,
                     absl::StrCat("matchAttribute and distinctAttribute ", *m.match_attribute, " both apply to ",
                                  requests_phrase(both), ": their devices cannot have equal and different values")});
    }
  }

  // The whole choice at once: distinct devices for every request (a shareable one once per
  // request) that meet the claim's constraints, whose counters, added up, fit in what is left,
  // and, with compatibility groups, that are pairwise compatible. The checks above look at one aspect or one pair of requests at a
  // time; together they can still clash. A bounded search, only when nothing else was found:
  // first without the groups (then constraints and counters are the reason), then with them.
  if (out.empty()) {
    std::vector<std::pair<size_t, int64_t>> slots;  // (view, index of the device it takes)
    for (size_t vi : combo) {
      for (int64_t n = 0; n < needed(vi); ++n) slots.push_back({vi, n});
    }
    using CounterKey = std::tuple<const PoolView*, std::string, std::string>;
    std::map<CounterKey, std::optional<api::Quantity>> left;
    auto left_of = [&](const CounterKey& k) -> const std::optional<api::Quantity>& {
      auto it = left.find(k);
      if (it == left.end()) {
        it = left.emplace(k, CounterLeft(*std::get<0>(k), std::get<1>(k), std::get<2>(k), state)).first;
      }
      return it->second;
    };
    std::map<CounterKey, api::Quantity> used;
    std::vector<std::pair<size_t, const Candidate*>> chosen;
    bool with_groups = false;
    // Charges `c`'s counters (sign +1) or gives them back (-1); false when one no longer fits.
    auto charge = [&](const Candidate* c, int sign) {
      bool fits = true;
      for (const auto& cc : c->device->consumes_counters) {
        for (const auto& [counter, q] : cc.counters) {
          if (!q.value) continue;
          const CounterKey k{c->pool, cc.counter_set.value_or(""), counter};
          api::Quantity& u = used[k];
          u = sign > 0 ? u.Add(*q.value) : u.Sub(*q.value);
          const std::optional<api::Quantity>& l = left_of(k);
          if (sign > 0 && l && u.Compare(*l) > 0) fits = false;
        }
      }
      return fits;
    };
    // The claim's constraints (those on attributes the request derives are left out): a device
    // taking part needs a value; matchAttribute keeps one value common to all, distinctAttribute
    // keeps them pairwise apart (sets: disjoint).
    struct Con {
      bool match;
      std::string attr;
      std::set<size_t> scope;
    };
    std::vector<Con> cons;
    for (const auto& con : claim.spec->devices->constraints) {
      Con k{con.match_attribute.has_value(),
            con.match_attribute ? *con.match_attribute : con.distinct_attribute.value_or(""), {}};
      if (k.attr.empty()) continue;
      bool derived = false;
      for (size_t vi : combo) {
        bool applies = con.requests.empty();
        for (const auto& r : con.requests) applies = applies || r == views[vi].base || r == views[vi].name;
        if (!applies) continue;
        k.scope.insert(vi);
        derived = derived || (features.derived_attributes && views[vi].derived != nullptr && !views[vi].derived->empty());
      }
      if (!derived && !k.scope.empty()) cons.push_back(std::move(k));
    }
    std::map<std::pair<size_t, const Candidate*>, std::vector<std::string>> value_cache;
    auto con_values = [&](size_t ci, const Candidate* c) -> const std::vector<std::string>& {
      auto it = value_cache.find({ci, c});
      if (it != value_cache.end()) return it->second;
      std::vector<std::string> vs;
      if (const api::DeviceAttribute* a = internal::LookupAttribute(*c->device, c->id.driver, cons[ci].attr)) {
        if (features.list_type_attributes) {
          vs = internal::AttributeValueSet(*a);
        } else {
          std::string v = internal::AttributeScalar(*a);
          if (v.empty() && cons[ci].match) v = absl::StrCat("#", c->id.String());
          vs = {v};
        }
      }
      return value_cache.emplace(std::make_pair(ci, c), std::move(vs)).first->second;
    };
    auto constraints_allow = [&](size_t vi, const Candidate* c) {
      for (size_t ci = 0; ci < cons.size(); ++ci) {
        if (!cons[ci].scope.count(vi)) continue;
        const std::vector<std::string>& vs = con_values(ci, c);
        if (vs.empty()) return false;
        std::vector<std::string> common = vs;
        for (const auto& [other_view, d] : chosen) {
          if (!cons[ci].scope.count(other_view)) continue;
          const std::vector<std::string>& ds = con_values(ci, d);
          if (cons[ci].match) {
            std::vector<std::string> both;
            std::set_intersection(common.begin(), common.end(), ds.begin(), ds.end(), std::back_inserter(both));
            common = std::move(both);
            if (common.empty()) return false;
          } else if (internal::SortedIntersects(vs, ds)) {
            return false;
          }
        }
      }
      return true;
    };
    // Whether `c` was charged counters when taken (so that its release gives them back).
    std::vector<bool> charged_stack;
    auto take = [&](size_t vi, const Candidate* c) {
      bool ok = true, again = false;
      for (const auto& [other_view, d] : chosen) {
        if (d == c) {
          ok = ok && shareable(c) && other_view != vi;
          again = true;
        } else if (with_groups) {
          ok = ok && compatible(c, d) && compatible(d, c);
        }
      }
      if (!ok || !constraints_allow(vi, c)) return false;
      // Counters are charged once per device, and not again for a share of one in use.
      const bool charged = !again && !(shareable(c) && state.aggregated_capacity.contains(c->id)) &&
                           features.partitionable_devices;
      if (charged && !charge(c, +1)) {
        charge(c, -1);
        return false;
      }
      chosen.push_back({vi, c});
      charged_stack.push_back(charged);
      return true;
    };
    auto release = [&](size_t, const Candidate* c) {
      chosen.pop_back();
      if (charged_stack.back()) charge(c, -1);
      charged_stack.pop_back();
    };
    auto bounded = [&]() { return BoundedSlotSearch(slots, usable, search_budget, take, release); };
    if (slots.size() <= 64) {
      if (bounded() == 0) {
        const bool any_counters = !left.empty();
        out.push_back({any_counters ? ConflictKind::kCounters : ConflictKind::kConstraint, request_names(combo), "",
                       absl::StrCat(requests_phrase(combo), ": no choice of their devices ",
                                    any_counters ? "meets the claim's constraints and fits in the shared counters left"
                                                 : "meets the claim's constraints")});
      } else if (compatible) {
        with_groups = true;
        used.clear();
        if (bounded() == 0) {
          out.push_back({ConflictKind::kCompatibility, request_names(combo), "",
                         absl::StrCat(requests_phrase(combo),
                                      ": no choice of their devices is compatible, the compatibility groups of the "
                                      "devices left clash on their counter sets")});
        }
      }
    }
  }
  return out;
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
        ConflictsOf(claim, views, combo, usable, state, features, compatible, search_budget);
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

}  // namespace

absl::StatusOr<Explanation> Explain(const store::Snapshot& snapshot, std::string_view ns, std::string_view name,
                                    const NodeInfo* node, const Features& features) {
  const api::ResourceClaim* claim = snapshot.GetResourceClaim(ns, name);
  if (claim == nullptr) {
    return absl::NotFoundError(absl::StrCat("resourceclaim ", AV(ns), "/", AV(name), " not found"));
  }
  if (!claim->spec || !claim->spec->devices) {
    return absl::InvalidArgumentError(absl::StrCat("resourceclaim ", AV(ns), "/", AV(name), ": spec.devices is not set"));
  }
  Explanation ex;
  ex.claim = absl::StrCat(AV(ns), "/", AV(name));
  if (node != nullptr) {
    ex.node = node->name;
    AllocateOptions opts;
    opts.features = features;
    AllocateResult r = Allocate(snapshot, {claim}, *node, opts);
    ex.outcome = r.outcome;
    ex.outcome_detail = r.outcome == Outcome::kError ? std::string(r.error.message()) : absl::StrJoin(r.reasons, "; ");
  }
  const AllocatedState state = AllocatedStateFromSnapshot(snapshot, {claim});
  internal::SelectorCache cache(features);
  internal::DerivedAttributeCache derived_cache;
  // DRADeviceCompatibilityGroups: per pool, the groups the allocated devices leave on each counter set.
  std::map<const PoolView*, std::map<std::string, internal::CompatibilityGroupIntersection>> allocated_groups;
  auto allocated_groups_of = [&](const PoolView* pool)
      -> const std::map<std::string, internal::CompatibilityGroupIntersection>& {
    auto g = allocated_groups.find(pool);
    if (g == allocated_groups.end()) {
      g = allocated_groups
              .emplace(pool, internal::AllocatedCompatibilityGroups(pool->driver, pool->pool, pool->slices, state))
              .first;
    }
    return g->second;
  };

  // Pools as the node sees them (for the node step).
  std::map<std::pair<std::string, std::string>, const internal::Pool*> node_pools;
  std::vector<internal::Pool> gathered;
  if (node != nullptr) {
    auto g = internal::GatherPools(snapshot.ResourceSlices(), *node, features);
    if (g.ok()) gathered = *std::move(g);
    for (const auto& p : gathered) node_pools[{std::string(p.driver), std::string(p.pool)}] = &p;
  }
  // Every device of every pool, in pool order: of the generation the allocator uses on the node
  // (GatherPools: a newer generation published only in part, or only for other nodes, is not it),
  // else of the newest generation. Taking the newest everywhere missed devices the allocator uses.
  std::deque<PoolView> pool_views;
  for (const store::PoolInfo& p : snapshot.Pools()) {
    PoolView& view = pool_views.emplace_back(PoolView{p.driver, p.pool, p.slices});
    auto it = node_pools.find({std::string(p.driver), std::string(p.pool)});
    if (it == node_pools.end()) continue;
    const internal::Pool& seen = *it->second;
    const api::ResourceSlice* any = !seen.device_slices.empty()         ? seen.device_slices.front()
                                    : !seen.other_device_slices.empty() ? seen.other_device_slices.front()
                                                                        : nullptr;
    if (any == nullptr || internal::SliceGeneration(*any) == p.generation) continue;
    const int64_t generation = internal::SliceGeneration(*any);
    view.slices.clear();
    for (const api::ResourceSlice* s : snapshot.SlicesByPool(p.driver, p.pool)) {
      if (internal::SliceGeneration(*s) == generation) view.slices.push_back(s);
    }
    std::sort(view.slices.begin(), view.slices.end(), [](const api::ResourceSlice* a, const api::ResourceSlice* b) {
      return a->metadata.name.value_or("") < b->metadata.name.value_or("");
    });
  }
  std::vector<Candidate> all;
  for (const PoolView& p : pool_views) {
    for (const api::ResourceSlice* s : p.slices) {
      if (!s->spec) continue;
      for (const api::Device& d : s->spec->devices) {
        all.push_back({&p, s, &d, DeviceID{std::string(p.driver), std::string(p.pool), d.name.value_or("")}});
      }
    }
  }

  std::vector<ReqView> views;
  for (const api::DeviceRequest& r : claim->spec->devices->requests) {
    if (r.exactly) {
      const auto& e = *r.exactly;
      ReqView v{r.name.value_or(""), r.name.value_or(""), "", e.device_class_name.value_or(""), &e.selectors,
                &e.tolerations, e.capacity ? &*e.capacity : nullptr, e.admin_access.value_or(false),
                e.allocation_mode.value_or("") == api::kAllocationModeAll, e.count.value_or(1)};
      v.derived = &e.derived_attributes;
      views.push_back(std::move(v));
    }
    for (const auto& s : r.first_available) {
      ReqView v{absl::StrCat(r.name.value_or(""), "/", s.name.value_or("")), r.name.value_or(""), s.name.value_or(""),
                s.device_class_name.value_or(""), &s.selectors, &s.tolerations, s.capacity ? &*s.capacity : nullptr,
                false, s.allocation_mode.value_or("") == api::kAllocationModeAll, s.count.value_or(1)};
      v.derived = &s.derived_attributes;
      views.push_back(std::move(v));
    }
  }

  // The node step's verdict on one device. The cross-request check below uses it too: a device the
  // node cannot reach is no partner for another request.
  enum class Reach { kYes, kNo, kUnhealthy, kSkipOps };
  const bool node_declares = node != nullptr && internal::DeclaresOptionalNodeOperations(*node, snapshot);
  auto reach = [&](const Candidate* c) {
    if (node == nullptr) return Reach::kYes;
    auto it = node_pools.find({c->id.driver, c->id.pool});
    if (it == node_pools.end()) return Reach::kNo;
    const internal::Pool* p = it->second;
    if (p->incomplete || p->invalid) return Reach::kUnhealthy;
    if (std::find(p->device_slices.begin(), p->device_slices.end(), c->slice) == p->device_slices.end()) {
      return Reach::kNo;
    }
    if (c->slice->spec->per_device_node_selection.value_or(false)) {
      auto m = internal::NodeMatches(*node, c->device->node_name.value_or(""), c->device->all_nodes.value_or(false),
                                     c->device->node_selector ? &*c->device->node_selector : nullptr);
      if (!m.ok() || !*m) return Reach::kNo;
    }
    if (!c->slice->spec->skip_node_operations.empty() &&
        !internal::SkipNodeOperationsAllowed(*c->slice, node_declares, features)) {
      return Reach::kSkipOps;
    }
    return Reach::kYes;
  };

  // The steps up to "capacity" look at one request at a time. What is left there then meets the
  // other requests of the claim (compatibility groups), and the later steps run on the rest.
  struct Pending {
    RequestFunnel f;
    const api::DeviceClass* klass = nullptr;
    std::vector<const Candidate*> cur;
    std::vector<std::string> capacity_parts;
    int64_t incompatible_with_claim = 0;    // removed by the cross-request check
    std::set<std::string> ruled_out_by;     // "request req-1", "the rest of request req-0"
    std::string clash;                      // one example pair, for the user to look at
    bool reachable_ruled_out = false;       // a device the node reaches was removed (All: fails)
  };
  // allocationMode All takes every device its selectors match where the node reaches it (upstream
  // collects them before it looks at taints, allocations or counters): a later step that removes
  // one of them fails the request, however many are left. Per request, how many that is (-1: not
  // All, the count applies).
  // all_set: those devices; all_left: how many of them the last step looked at left (the step that
  // fell short, once one did). No device at all fails the request too.
  std::vector<int64_t> all_required(views.size(), -1), all_left(views.size(), 0);
  std::vector<std::set<const Candidate*>> all_set(views.size());
  auto falls_short = [&](size_t vi, const std::vector<const Candidate*>& cur, FunnelStep step, int64_t needed) {
    if (all_required[vi] < 0) return static_cast<int64_t>(cur.size()) < needed;
    all_left[vi] = std::count_if(cur.begin(), cur.end(), [&](const Candidate* c) {
      return all_set[vi].count(c) && (step != FunnelStep::kNode || reach(c) == Reach::kYes);
    });
    return all_required[vi] == 0 || all_left[vi] < all_required[vi];
  };
  std::vector<Pending> pending;
  for (const ReqView& v : views) {
    const size_t vi = pending.size();
    RequestFunnel f;
    f.request = v.name;
    f.device_class = v.class_name;
    f.all_mode = v.all;
    f.admin_access = v.admin;
    f.needed = v.all ? 1 : v.count;
    const api::DeviceClass* klass = snapshot.GetDeviceClass(v.class_name);
    std::vector<const Candidate*> cur;
    auto push = [&](FunnelStep step, std::string detail) {
      f.steps.push_back({step, static_cast<int64_t>(cur.size()), std::move(detail)});
      if (cur.empty() && !f.first_empty) f.first_empty = step;
      if (!f.first_short && falls_short(vi, cur, step, f.needed)) f.first_short = step;
    };
    auto eval = [&](const Candidate& c, const internal::SelectorOwner& owner,
                    const std::vector<api::DeviceSelector>& sels) {
      for (const auto& s : sels) {
        if (!s.cel || !s.cel->expression) return false;
      }
      auto m = internal::SelectorsMatch(cache, owner, sels, *c.device, c.id.driver, c.id.String(), features);
      if (!m.ok()) {
        if (f.first_error.empty()) f.first_error = std::string(m.status().message());
        return false;
      }
      return *m;
    };
    // driver + class
    std::vector<const Candidate*> class_match;
    std::set<std::string> drivers;
    if (klass != nullptr) {
      for (const Candidate& c : all) {
        if (!features.DeviceBindingAndStatus() && !c.device->binding_conditions.empty()) continue;
        if (!klass->spec || eval(c, {"class", v.class_name}, klass->spec->selectors)) {
          class_match.push_back(&c);
          drivers.insert(c.id.driver);
        }
      }
    }
    for (const Candidate& c : all) {
      if (drivers.empty() || drivers.count(c.id.driver)) cur.push_back(&c);
    }
    push(FunnelStep::kDriver, drivers.empty() ? absl::StrCat(Devices(cur.size()), " published")
                                              : absl::StrCat(Devices(cur.size()), " of driver ",
                                                             absl::StrJoin(drivers, ", ")));
    cur = class_match;
    push(FunnelStep::kClass, klass == nullptr ? absl::StrCat("device class ", v.class_name, " does not exist")
                                              : absl::StrCat(Devices(cur.size()), " match class ", v.class_name));
    // request selectors
    {
      std::vector<const Candidate*> next;
      for (const Candidate* c : cur) {
        if (eval(*c, {"claim", ex.claim}, *v.selectors)) next.push_back(c);
      }
      const size_t removed = cur.size() - next.size();
      cur = std::move(next);
      if (v.all) {
        // Upstream's list for All: the selectable devices of the node's pools, less those that could
        // not hold the request's capacity even unused.
        for (const Candidate* c : cur) {
          if (reach(c) == Reach::kNo) continue;
          if (features.consumable_capacity) {
            auto alone = internal::CheckCapacity(nullptr, v.capacity, c->device->capacity, nullptr,
                                                 features.fractional_capacity_range);
            if (!alone.ok() || *alone != internal::CapacityCheck::kFits) continue;
          }
          all_set[vi].insert(c);
        }
        all_required[vi] = static_cast<int64_t>(all_set[vi].size());
      }
      push(FunnelStep::kRequest, absl::StrCat(removed, " removed by the selectors of request ", v.name));
    }
    // taints
    {
      std::vector<const Candidate*> next;
      std::set<std::string> keys;
      for (const Candidate* c : cur) {
        std::vector<api::DeviceTaint> taints;
        if (features.device_taints) {
          taints = c->device->taints;
          if (features.device_taint_rules) {
            for (const auto* rule : snapshot.TaintRulesFor(c->id.driver, c->id.pool, c->id.device)) {
              if (rule->spec && rule->spec->taint) taints.push_back(*rule->spec->taint);
            }
          }
        }
        if (internal::TaintPreventsAllocation(taints, *v.tolerations)) {
          for (const auto& t : taints) keys.insert(t.key.value_or(""));
        } else {
          next.push_back(c);
        }
      }
      const size_t removed = cur.size() - next.size();
      cur = std::move(next);
      push(FunnelStep::kTaints, removed == 0 ? "no untolerated taint"
                                             : absl::StrCat(Devices(removed), " tainted (", absl::StrJoin(keys, ", "),
                                                            ") and not tolerated"));
    }
    // allocated
    {
      std::vector<const Candidate*> next;
      std::set<std::string> holders;
      int64_t removed = 0;
      for (const Candidate* c : cur) {
        // A shareable device allocated without a shareID (before the driver shared it) is in use
        // like any other: allocated_devices holds only such dedicated results.
        if (!v.admin && state.allocated_devices.contains(c->id)) {
          ++removed;
          for (const auto& a : snapshot.Allocations(c->id.driver, c->id.pool, c->id.device)) {
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
      cur = std::move(next);
      push(FunnelStep::kAllocated, detail);
    }
    // counters and capacity
    {
      std::vector<const Candidate*> next;
      int64_t counters = 0, capacity = 0, incompatible = 0;
      for (const Candidate* c : cur) {
        bool ok = true;
        // A further share of a shared device in use does not consume counters again (nor meet the
        // groups again): the allocator checked them with its first share.
        const bool share_in_use = features.consumable_capacity &&
                                  c->device->allow_multiple_allocations.value_or(false) &&
                                  state.aggregated_capacity.contains(c->id);
        if (!c->device->consumes_counters.empty()) {
          if (!features.partitionable_devices) {
            ok = false;
          } else if (share_in_use) {
            // nothing to check
          } else {
            // Counters left in the pool after what is allocated.
            for (const auto& cc : c->device->consumes_counters) {
              const api::CounterSet* set = nullptr;
              for (const auto* s : c->pool->slices) {
                for (const auto& cs : s->spec->shared_counters) {
                  if (cs.name == cc.counter_set) set = &cs;
                }
              }
              if (set == nullptr) {
                ok = false;
                break;
              }
              for (const auto& [counter, need] : cc.counters) {
                const api::Counter* total = set->counters.Find(counter);
                api::Quantity left = total && total->value ? *total->value : api::Quantity();
                for (const auto* s : c->pool->slices) {
                  for (const auto& d : s->spec->devices) {
                    DeviceID id{c->id.driver, c->id.pool, d.name.value_or("")};
                    if (!state.IsDeviceAllocated(id)) continue;
                    for (const auto& dc : d.consumes_counters) {
                      if (dc.counter_set != cc.counter_set) continue;
                      if (const auto* q = dc.counters.Find(counter); q && q->value) left = left.Sub(*q->value);
                    }
                  }
                }
                if (left.Compare(need.value.value_or(api::Quantity())) < 0) ok = false;
              }
            }
          }
          if (!ok) ++counters;
          if (ok && features.partitionable_devices && features.device_compatibility_groups) {
            const auto& allocated = allocated_groups_of(c->pool);
            if (!share_in_use && !internal::AdmittedByAllocated(allocated, *c->device)) {
              ok = false;
              ++incompatible;
            }
          }
        }
        if (ok && features.consumable_capacity) {
          auto agg = state.aggregated_capacity.find(c->id);
          auto r = internal::CheckCapacity(agg == state.aggregated_capacity.end() ? nullptr : &agg->second, v.capacity,
                                           c->device->capacity, nullptr, features.fractional_capacity_range);
          // An unrepresentable request makes Allocate fail outright; here it only means "does not fit".
          if (!r.ok() || *r != internal::CapacityCheck::kFits) {
            ok = false;
            ++capacity;
          }
        }
        if (ok) next.push_back(c);
      }
      cur = std::move(next);
      std::vector<std::string> parts;
      if (counters) parts.push_back(absl::StrCat(Devices(counters), " without shared counters left"));
      if (capacity) parts.push_back(absl::StrCat(Devices(capacity), " without enough capacity left"));
      if (incompatible) {
        parts.push_back(absl::StrCat(Devices(incompatible),
                                     " whose compatibility groups exclude the devices allocated on their counter set"));
      }
      Pending p;
      p.f = std::move(f);
      p.klass = klass;
      p.cur = std::move(cur);
      p.capacity_parts = std::move(parts);
      pending.push_back(std::move(p));
    }
  }

  // DRADeviceCompatibilityGroups across the claim: the search places the devices of all requests on
  // the shared counter sets together, so a device whose groups rule out every device left for
  // another request (or, with count > 1, too many of those left for the rest of its own request)
  // is in no allocation the search can find. Without this, explain checked groups only against
  // already-allocated devices and called such a claim satisfiable. Pairs only: a necessary
  // condition, as the other steps are. A request with too few devices whatever the groups is left
  // to its own funnel; it does not make its partners "incompatible". Repeated until nothing
  // changes, as a removal can strand a partner.
  if (features.partitionable_devices && features.device_compatibility_groups) {
    // Only pools where some device declares groups can clash: in the others every device declares
    // none, and group-less devices all go together. This keeps the pairwise work to those pools.
    std::map<const PoolView*, bool> pool_uses_groups;
    auto uses_groups = [&](const PoolView* pool) {
      auto [it, inserted] = pool_uses_groups.emplace(pool, false);
      if (inserted) {
        for (const api::ResourceSlice* slice : pool->slices) {
          it->second = it->second || internal::SliceUsesCompatibilityGroups(*slice);
        }
      }
      return it->second;
    };
    auto takes_part = [&](const Candidate* c) {
      if (c->device->consumes_counters.empty() || !uses_groups(c->pool)) return false;
      // A further share of a shared device in use was checked with its first share.
      return !(features.consumable_capacity && c->device->allow_multiple_allocations.value_or(false) &&
               state.aggregated_capacity.contains(c->id));
    };
    auto shareable = [&](const Candidate* c) {
      return features.consumable_capacity && c->device->allow_multiple_allocations.value_or(false);
    };
    // Whether `c` and `d` may be allocated together (devices of different pools always may).
    auto compatible = [&](const Candidate* c, const Candidate* d, std::string* clash) {
      if (c->pool != d->pool || !takes_part(c) || !takes_part(d)) return true;
      std::string set;
      if (internal::CompatibleWith(allocated_groups_of(c->pool), *c->device, *d->device, &set)) return true;
      if (clash != nullptr && clash->empty()) {
        *clash = absl::StrCat(c->id.String(), " ", GroupsOn(*c->device, set), " and ", d->id.String(), " ",
                              GroupsOn(*d->device, set), " clash on counter set ", set);
      }
      return false;
    };
    // The lists as the per-request steps left them: "enough devices whatever the groups" is judged
    // on them, "enough compatible devices" on the lists as the check narrows them.
    std::vector<std::vector<const Candidate*>> before;
    // Per request, whether a device (by its index in `all`) is still in its list; and per device
    // whether the node reaches it.
    std::vector<std::vector<char>> in_list(pending.size(), std::vector<char>(all.size(), 0));
    std::vector<char> reachable(all.size(), 0);
    for (size_t i = 0; i < pending.size(); ++i) {
      before.push_back(pending[i].cur);
      for (const Candidate* c : pending[i].cur) {
        in_list[i][c - all.data()] = 1;
        reachable[c - all.data()] = reach(c) == Reach::kYes;
      }
    }
    struct Support {
      bool enough_devices = false;
      bool enough_compatible = false;
    };
    // How request j stands next to `c`: enough devices whatever the groups, enough compatible ones.
    // allocationMode All takes every device of its list, so there every one must be compatible.
    auto support = [&](const Candidate* c, size_t j, int64_t needed, std::string* clash) {
      Support s;
      int64_t devices = 0, compatible_devices = 0;
      for (const Candidate* d : before[j]) {
        if ((d == c && !shareable(c)) || !reachable[d - all.data()]) continue;
        ++devices;
        if (compatible(c, d, clash) && in_list[j][d - all.data()]) ++compatible_devices;
      }
      if (views[j].all) {
        s.enough_devices = true;
        s.enough_compatible = compatible_devices == devices;
      } else {
        s.enough_devices = devices >= needed;
        s.enough_compatible = compatible_devices >= needed;
      }
      return s;
    };
    for (bool changed = true; changed;) {
      changed = false;
      for (size_t i = 0; i < pending.size(); ++i) {
        Pending& p = pending[i];
        std::vector<const Candidate*> next;
        for (const Candidate* c : p.cur) {
          std::string blocker, clash;
          if (takes_part(c)) {
            if (p.f.needed > 1 || views[i].all) {
              std::string own_clash;
              const Support s = support(c, i, p.f.needed - 1, &own_clash);
              if (s.enough_devices && !s.enough_compatible) {
                blocker = absl::StrCat("the rest of request ", views[i].name);
                clash = own_clash;
              }
            }
            // Every other request; one of its subrequests suffices (the siblings of a subrequest
            // are its alternatives, not its partners).
            for (size_t j = 0; j < views.size() && blocker.empty(); ++j) {
              const std::string& base = views[j].base;
              if (base == views[i].base) continue;
              if (std::find_if(views.begin(), views.begin() + j, [&](const ReqView& w) { return w.base == base; }) !=
                  views.begin() + j) {
                continue;  // judged with its first subrequest
              }
              bool any_enough = false, any_fits = false;
              std::string first_clash;
              for (size_t k = j; k < views.size(); ++k) {
                if (views[k].base != base) continue;
                std::string alt_clash;
                const Support s = support(c, k, pending[k].f.needed, &alt_clash);
                any_enough = any_enough || s.enough_devices;
                any_fits = any_fits || (s.enough_devices && s.enough_compatible);
                if (s.enough_devices && first_clash.empty()) first_clash = alt_clash;
              }
              if (any_enough && !any_fits) {
                blocker = absl::StrCat("request ", base);
                clash = first_clash;
              }
            }
          }
          if (blocker.empty()) {
            next.push_back(c);
            continue;
          }
          changed = true;
          in_list[i][c - all.data()] = 0;
          p.reachable_ruled_out = p.reachable_ruled_out || reachable[c - all.data()];
          ++p.incompatible_with_claim;
          p.ruled_out_by.insert(blocker);
          if (p.clash.empty()) p.clash = clash;
        }
        if (views[i].all && p.reachable_ruled_out && !next.empty()) {
          // allocationMode All takes every device of its list the node reaches: one that cannot be
          // placed fails the request, devices without groups included.
          p.incompatible_with_claim += static_cast<int64_t>(next.size());
          p.ruled_out_by.insert(absl::StrCat("the rest of request ", views[i].name));
          next.clear();
          changed = true;
        }
        p.cur = std::move(next);
      }
    }
    for (Pending& p : pending) {
      if (p.incompatible_with_claim == 0) continue;
      p.capacity_parts.push_back(absl::StrCat(
          Devices(p.incompatible_with_claim), " whose compatibility groups rule out the devices left for ",
          JoinNames({p.ruled_out_by.begin(), p.ruled_out_by.end()}),
          p.clash.empty() ? "" : absl::StrCat(": ", p.clash)));
    }
  }

  // Per request, the devices left after the capacity step that the node reaches: what the
  // cross-request checks below share out.
  std::vector<std::vector<const Candidate*>> usable(views.size());
  for (size_t vi = 0; vi < views.size(); ++vi) {
    const ReqView& v = views[vi];
    RequestFunnel& f = pending[vi].f;
    const api::DeviceClass* klass = pending[vi].klass;
    std::vector<const Candidate*>& cur = pending[vi].cur;
    auto push = [&](FunnelStep step, std::string detail) {
      f.steps.push_back({step, static_cast<int64_t>(cur.size()), std::move(detail)});
      if (cur.empty() && !f.first_empty) f.first_empty = step;
      if (!f.first_short && falls_short(vi, cur, step, f.needed)) f.first_short = step;
    };
    {
      const std::vector<std::string>& parts = pending[vi].capacity_parts;
      push(FunnelStep::kCapacity, parts.empty() ? "counters and capacity suffice" : absl::StrJoin(parts, ", "));
      for (const Candidate* c : cur) {
        if (reach(c) == Reach::kYes) usable[vi].push_back(c);
      }
    }
    // constraints: keep devices that have the attribute, then the largest group of equal values
    // (matchAttribute) or one device per value (distinctAttribute). Constraints across requests are
    // judged per request only.
    {
      std::vector<std::string> notes;
      for (const auto& c : claim->spec->devices->constraints) {
        const bool match = c.match_attribute.has_value();
        const std::string attr = match ? *c.match_attribute : c.distinct_attribute.value_or("");
        if (attr.empty()) continue;
        bool applies = c.requests.empty();
        for (const auto& r : c.requests) applies = applies || r == v.base || r == v.name;
        if (!applies) continue;
        // Devices per value. With DRAListTypeAttributes the values are the elements of each
        // device's set (a device is in several groups); without, the scalar value, and a value the
        // scalar comparison cannot read (a list) is its own group for matchAttribute: upstream takes
        // such a device only as the first one, and nothing equals it afterwards.
        std::map<std::string, std::vector<const Candidate*>> groups;
        std::vector<const Candidate*> with_value;
        std::vector<std::vector<std::string>> value_sets;  // of with_value, DRAListTypeAttributes
        size_t missing = 0;
        bool derived = false;
        for (const Candidate* d : cur) {
          const api::DeviceAttribute* a = nullptr;
          if (features.derived_attributes && v.derived != nullptr && !v.derived->empty()) {
            auto looked_up = derived_cache.Lookup(*v.derived, attr, static_cast<int>(d - all.data()), *d->device,
                                                  d->id.driver, d->id.String());
            if (!looked_up.ok()) {
              // Allocate fails with this error; here the device just cannot take part.
              if (f.first_error.empty()) f.first_error = std::string(looked_up.status().message());
              ++missing;
              continue;
            }
            a = *looked_up;
            derived = derived || a != nullptr;
          }
          if (a == nullptr) a = internal::LookupAttribute(*d->device, d->id.driver, attr);
          if (a == nullptr) {
            ++missing;
            continue;
          }
          if (features.list_type_attributes) {
            const std::vector<std::string> values = internal::AttributeValueSet(*a);
            if (values.empty()) {
              ++missing;  // an empty list is no value to compare (upstream attributeAsSet)
              continue;
            }
            for (const std::string& value : values) groups[value].push_back(d);
            with_value.push_back(d);
            value_sets.push_back(values);
            continue;
          }
          std::string value = internal::AttributeScalar(*a);
          if (value.empty() && match) value = absl::StrCat("#", d - all.data());
          groups[value].push_back(d);
        }
        // The node step comes later: a group (or device) the node can reach is worth more than a
        // larger one it cannot, or the funnel would end empty where the search finds a solution.
        auto reachable_in = [&](const std::vector<const Candidate*>& g) {
          return std::count_if(g.begin(), g.end(), [&](const Candidate* c) { return reach(c) == Reach::kYes; });
        };
        {
          // Reachable devices first, for the disjoint-family search below (with_value and
          // value_sets are parallel).
          std::vector<size_t> order(with_value.size());
          for (size_t k = 0; k < order.size(); ++k) order[k] = k;
          std::stable_partition(order.begin(), order.end(),
                                [&](size_t k) { return reach(with_value[k]) == Reach::kYes; });
          std::vector<const Candidate*> devices;
          std::vector<std::vector<std::string>> sets;
          for (size_t k : order) {
            devices.push_back(with_value[k]);
            sets.push_back(std::move(value_sets[k]));
          }
          with_value = std::move(devices);
          value_sets = std::move(sets);
        }
        std::vector<const Candidate*> next;
        if (match) {
          // Lists: the devices sharing one element are exactly those whose intersection can stay
          // non-empty, so the largest group is still the answer.
          // Every group with enough devices the node reaches stays: which one the search takes can
          // depend on a later constraint (taking the largest alone made a second matchAttribute
          // rule out a claim that fits). No group has enough: the largest one shows how short.
          const int64_t enough = all_required[vi] >= 0 ? std::max<int64_t>(all_required[vi], 1) : f.needed;
          std::set<const Candidate*> kept;
          for (const auto& [value, g] : groups) {
            if (reachable_in(g) >= enough) kept.insert(g.begin(), g.end());
          }
          if (!kept.empty()) {
            for (const Candidate* d : cur) {
              if (kept.count(d)) next.push_back(d);
            }
          } else {
            int64_t best_reachable = -1;
            for (const auto& [value, g] : groups) {
              const int64_t r = reachable_in(g);
              if (r > best_reachable || (r == best_reachable && g.size() > next.size())) {
                best_reachable = r;
                next = g;
              }
            }
          }
        } else if (features.list_type_attributes) {
          // Enough pairwise disjoint sets: the step keeps every device with a value. Too few: it
          // keeps the largest disjoint family, which falls short. Undecided within the budget: every
          // device with a value, so that the step is never stricter than the search.
          // Only the devices the node reaches can form the family (they come first in the lists):
          // one it cannot reach made the step keep too many.
          size_t reachable = 0;
          while (reachable < with_value.size() && reach(with_value[reachable]) == Reach::kYes) ++reachable;
          const std::vector<std::vector<std::string>> reachable_sets(value_sets.begin(),
                                                                     value_sets.begin() + reachable);
          const auto family =
              DisjointFamily(reachable_sets, static_cast<size_t>(std::max<int64_t>(f.needed, 1)), 100000);
          if (family && static_cast<int64_t>(family->size()) < f.needed) {
            for (size_t k : *family) next.push_back(with_value[k]);
          } else {
            next = with_value;
          }
        } else {
          for (const auto& [value, g] : groups) {
            auto it = std::find_if(g.begin(), g.end(), [&](const Candidate* c) { return reach(c) == Reach::kYes; });
            next.push_back(it == g.end() ? g.front() : *it);
          }
        }
        notes.push_back(absl::StrCat(match ? "matchAttribute " : "distinctAttribute ", attr,
                                     derived ? " (derived by the request)" : "", ": ", missing,
                                     features.list_type_attributes ? " without the attribute or with an empty list, "
                                                                   : " without the attribute, ",
                                     groups.size(), " distinct values"));
        cur = std::move(next);
      }
      push(FunnelStep::kConstraints, notes.empty() ? "no constraint applies" : absl::StrJoin(notes, "; "));
    }
    // node
    if (node != nullptr) {
      std::vector<const Candidate*> next;
      int64_t unhealthy = 0, skip_ops = 0;
      for (const Candidate* c : cur) {
        switch (reach(c)) {
          case Reach::kYes: next.push_back(c); break;
          case Reach::kNo: break;
          case Reach::kUnhealthy: ++unhealthy; break;
          case Reach::kSkipOps: ++skip_ops; break;
        }
      }
      const size_t removed = cur.size() - next.size();
      cur = std::move(next);
      std::vector<std::string> why;
      if (unhealthy) why.push_back(absl::StrCat(unhealthy, " in incomplete or invalid pools"));
      if (skip_ops) {
        why.push_back(absl::StrCat(skip_ops, " in slices with skipNodeOperations, which need ",
                                   features.optional_node_operations
                                       ? "the node to declare DRAOptionalNodeOperations"
                                       : "the DRAOptionalNodeOperations feature gate"));
      }
      push(FunnelStep::kNode, absl::StrCat(removed, " not reachable from node ", node->name,
                                           why.empty() ? "" : absl::StrCat(" (", absl::StrJoin(why, "; "), ")")));
    }
    // The sentence.
    const int64_t matching = f.steps.size() > 1 ? f.steps[1].remaining : 0;
    if (klass == nullptr) {
      f.sentence = absl::StrCat("request ", v.name, ": device class ", v.class_name, " does not exist");
    } else if (!f.first_short) {
      f.sentence = absl::StrCat("request ", v.name, ": ", Devices(cur.size()), " of class ", v.class_name,
                                cur.size() == 1 ? " is usable" : " are usable",
                                node ? absl::StrCat(" on node ", node->name) : "");
    } else {
      const FunnelStep s = *f.first_short;
      const auto& st = *std::find_if(f.steps.begin(), f.steps.end(), [&](const FunnelCount& c) { return c.step == s; });
      const int64_t before = s == FunnelStep::kDriver
                                 ? 0
                                 : (&st - 1)->remaining;
      std::string head = absl::StrCat("request ", v.name, ": ");
      switch (s) {
        case FunnelStep::kDriver:
        case FunnelStep::kClass:
          // The class step can leave some devices that are still too few for the count.
          f.sentence = st.remaining > 0
                           ? absl::StrCat(head, "only ", Devices(st.remaining), " match class ", v.class_name,
                                          ", ", f.needed, " needed")
                           : absl::StrCat(head, "no device matches class ", v.class_name,
                                          f.first_error.empty() ? "" : absl::StrCat(" (CEL error: ", f.first_error, ")"));
          break;
        case FunnelStep::kAllocated:
          f.sentence = absl::StrCat(head, Devices(before), " match class ", v.class_name, ", ",
                                    st.remaining == 0 ? (before == 1 ? "it is" : absl::StrCat("all ", before, " are"))
                                                      : absl::StrCat(before - st.remaining, " are"),
                                    st.detail.substr(st.detail.find(" allocated")));
          break;
        default:
          if (all_required[vi] == 0) {
            f.sentence = absl::StrCat(head, "allocationMode All finds no device of class ", v.class_name,
                                      node ? absl::StrCat(" that node ", node->name, " reaches") : "",
                                      v.capacity != nullptr && features.consumable_capacity
                                          ? " and that can hold the requested capacity"
                                          : "");
            if (!f.first_error.empty()) absl::StrAppend(&f.sentence, "; CEL error: ", f.first_error);
            break;
          }
          if (all_required[vi] > 0) {
            f.sentence = absl::StrCat(head, "allocationMode All takes all ", Devices(all_required[vi]), " of class ",
                                      v.class_name, node ? absl::StrCat(" that node ", node->name, " reaches") : "",
                                      ", step \"", AV(FunnelStepName(s)), "\" leaves ", all_left[vi], " of them (",
                                      st.detail, ")");
            if (!f.first_error.empty()) absl::StrAppend(&f.sentence, "; CEL error: ", f.first_error);
            break;
          }
          f.sentence = absl::StrCat(head, Devices(matching), " match class ", v.class_name, ", ", st.remaining,
                                    " left after step \"", AV(FunnelStepName(s)), "\" (", st.detail, "), ", f.needed,
                                    " needed");
          if (!f.first_error.empty()) absl::StrAppend(&f.sentence, "; CEL error: ", f.first_error);
      }
    }
    ex.requests.push_back(std::move(f));
  }
  if (node != nullptr && ex.outcome == Outcome::kUnschedulable) {
    PairCheck compatible;
    if (features.partitionable_devices && features.device_compatibility_groups) {
      compatible = [&](const Candidate* c, const Candidate* d) {
        if (c->pool != d->pool) return true;
        // A further share of a shared device in use was checked with its first share.
        auto share_in_use = [&](const Candidate* x) {
          return features.consumable_capacity && x->device->allow_multiple_allocations.value_or(false) &&
                 state.aggregated_capacity.contains(x->id);
        };
        if (share_in_use(c) || share_in_use(d)) return true;
        return internal::CompatibleWith(allocated_groups_of(c->pool), *c->device, *d->device, nullptr);
      };
    }
    ex.conflicts = FindConflicts(*claim, views, usable, ex.requests, state, features, compatible);
  }
  if (node != nullptr && ex.outcome == Outcome::kAllocated) {
    ex.summary = absl::StrCat("claim ", ex.claim, " fits on node ", node->name);
  } else {
    std::vector<std::string> s;
    for (const auto& r : ex.requests) s.push_back(r.sentence);
    for (const auto& c : ex.conflicts) s.push_back(c.sentence);
    ex.summary = absl::StrJoin(s, "; ");
    if (ex.outcome == Outcome::kError) absl::StrAppend(&ex.summary, "; allocation error: ", ex.outcome_detail);
  }
  return ex;
}

}  // namespace draforge::alloc
