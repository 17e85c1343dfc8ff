#include "alloc/internal/claim_conflicts.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "alloc/internal/compatibility_groups.h"
#include "alloc/internal/consumable_capacity.h"
#include "alloc/internal/constraints.h"
#include "alloc/internal/sorted_strings.h"
#include "common/status.h"

namespace draforge::alloc::internal {
namespace {

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

// The cross-request reasons of one choice of alternatives (`combo`: one view per request). Every
// check is a necessary condition of an allocation (lower bounds, counts of distinct devices or
// values), so a conflict found is a true reason; none found proves nothing.
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
      if (!views[vi].InScope(con.requests)) continue;
      scope.push_back(vi);
      derived = derived || views[vi].Derives(features);
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
        if (!views[vi].InScope(con.requests)) continue;
        m.scope.push_back(vi);
        derived = derived || views[vi].Derives(features);
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
        if (!views[vi].InScope(con.requests)) continue;
        k.scope.insert(vi);
        derived = derived || views[vi].Derives(features);
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

}  // namespace

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

}  // namespace draforge::alloc::internal
