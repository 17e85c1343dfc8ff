// The whole choice at once: distinct devices for every request (a shareable one once per request)
// that meet the claim's constraints, whose counters, added up, fit in what is left, and, with
// compatibility groups, that are pairwise compatible. A bounded search (BoundedSlotSearch): first
// without the groups (then constraints and counters are the reason), then with them.
#include <iterator>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "alloc/internal/choice_conflicts.h"
#include "alloc/internal/constraints.h"
#include "alloc/internal/sorted_strings.h"

namespace draforge::alloc::internal {
namespace {

using CounterKey = std::tuple<const PoolView*, std::string, std::string>;

// The claim's constraints (those on attributes a request derives are left out): a device taking
// part needs a value; matchAttribute keeps one value common to all, distinctAttribute keeps them
// pairwise apart (sets: disjoint).
struct Con {
  bool match;
  std::string attr;
  std::set<size_t> scope;
};

// The devices chosen so far, and what they hold: the take/release pair of BoundedSlotSearch.
class ChosenDevices {
 public:
  ChosenDevices(const api::ResourceClaim& claim, const std::vector<ReqView>& views, const std::vector<size_t>& combo,
                const AllocatedState& state, const Features& features, const PairCheck& compatible)
      : state_(state), features_(features), compatible_(compatible) {
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
      if (!derived && !k.scope.empty()) cons_.push_back(std::move(k));
    }
  }

  // From now on, chosen devices must also be pairwise compatible; the counters start over.
  void WithGroups() {
    with_groups_ = true;
    used_.clear();
  }
  // Whether some device looked at consumes shared counters.
  bool AnyCounters() const { return !left_.empty(); }

  bool Take(size_t vi, const Candidate* c) {
    bool ok = true, again = false;
    for (const auto& [other_view, d] : chosen_) {
      if (d == c) {
        ok = ok && Shareable(c, features_) && other_view != vi;
        again = true;
      } else if (with_groups_) {
        ok = ok && compatible_(c, d) && compatible_(d, c);
      }
    }
    if (!ok || !ConstraintsAllow(vi, c)) return false;
    // Counters are charged once per device, and not again for a share of one in use.
    const bool share_in_use = Shareable(c, features_) && state_.aggregated_capacity.contains(c->id);
    const bool charged = !again && !share_in_use && features_.partitionable_devices;
    if (charged && !Charge(c, +1)) {
      Charge(c, -1);
      return false;
    }
    chosen_.push_back({vi, c});
    charged_stack_.push_back(charged);
    return true;
  }

  void Release(const Candidate* c) {
    chosen_.pop_back();
    if (charged_stack_.back()) Charge(c, -1);
    charged_stack_.pop_back();
  }

 private:
  const std::optional<api::Quantity>& LeftOf(const CounterKey& k) {
    auto it = left_.find(k);
    if (it == left_.end()) {
      it = left_.emplace(k, CounterLeft(*std::get<0>(k), std::get<1>(k), std::get<2>(k), state_)).first;
    }
    return it->second;
  }

  // Charges `c`'s counters (sign +1) or gives them back (-1); false when one no longer fits.
  bool Charge(const Candidate* c, int sign) {
    bool fits = true;
    for (const auto& cc : c->device->consumes_counters) {
      for (const auto& [counter, q] : cc.counters) {
        if (!q.value) continue;
        const CounterKey k{c->pool, cc.counter_set.value_or(""), counter};
        api::Quantity& u = used_[k];
        u = sign > 0 ? u.Add(*q.value) : u.Sub(*q.value);
        const std::optional<api::Quantity>& l = LeftOf(k);
        if (sign > 0 && l && u.Compare(*l) > 0) fits = false;
      }
    }
    return fits;
  }

  const std::vector<std::string>& ConValues(size_t ci, const Candidate* c) {
    auto it = value_cache_.find({ci, c});
    if (it != value_cache_.end()) return it->second;
    std::vector<std::string> vs;
    if (const api::DeviceAttribute* a = LookupAttribute(*c->device, c->id.driver, cons_[ci].attr)) {
      if (features_.list_type_attributes) {
        vs = AttributeValueSet(*a);
      } else {
        std::string v = AttributeScalar(*a);
        if (v.empty() && cons_[ci].match) v = absl::StrCat("#", c->id.String());
        vs = {v};
      }
    }
    return value_cache_.emplace(std::make_pair(ci, c), std::move(vs)).first->second;
  }

  bool ConstraintsAllow(size_t vi, const Candidate* c) {
    for (size_t ci = 0; ci < cons_.size(); ++ci) {
      if (!cons_[ci].scope.count(vi)) continue;
      const std::vector<std::string>& vs = ConValues(ci, c);
      if (vs.empty()) return false;
      std::vector<std::string> common = vs;
      for (const auto& [other_view, d] : chosen_) {
        if (!cons_[ci].scope.count(other_view)) continue;
        const std::vector<std::string>& ds = ConValues(ci, d);
        if (cons_[ci].match) {
          std::vector<std::string> both;
          std::set_intersection(common.begin(), common.end(), ds.begin(), ds.end(), std::back_inserter(both));
          common = std::move(both);
          if (common.empty()) return false;
        } else if (SortedIntersects(vs, ds)) {
          return false;
        }
      }
    }
    return true;
  }

  const AllocatedState& state_;
  const Features& features_;
  const PairCheck& compatible_;
  std::vector<Con> cons_;
  bool with_groups_ = false;
  std::map<CounterKey, std::optional<api::Quantity>> left_;
  std::map<CounterKey, api::Quantity> used_;
  std::vector<std::pair<size_t, const Candidate*>> chosen_;
  // Whether each chosen device was charged counters when taken (so that its release gives them back).
  std::vector<bool> charged_stack_;
  std::map<std::pair<size_t, const Candidate*>, std::vector<std::string>> value_cache_;
};

}  // namespace

void ChoiceConflicts::WholeChoice(std::vector<ClaimConflict>& out) const {
  std::vector<std::pair<size_t, int64_t>> slots;  // (view, index of the device it takes)
  for (size_t vi : combo_) {
    for (int64_t n = 0; n < Needed(vi); ++n) slots.push_back({vi, n});
  }
  if (slots.size() > 64) return;
  ChosenDevices chosen(claim_, views_, combo_, state_, features_, compatible_);
  auto take = [&](size_t vi, const Candidate* c) { return chosen.Take(vi, c); };
  auto release = [&](size_t, const Candidate* c) { chosen.Release(c); };
  if (BoundedSlotSearch(slots, usable_, search_budget_, take, release) == 0) {
    const bool any_counters = chosen.AnyCounters();
    out.push_back({any_counters ? ConflictKind::kCounters : ConflictKind::kConstraint, RequestNames(combo_), "",
                   absl::StrCat(RequestsPhrase(combo_), ": no choice of their devices ",
                                any_counters ? "meets the claim's constraints and fits in the shared counters left"
                                             : "meets the claim's constraints")});
    return;
  }
  if (!compatible_) return;
  chosen.WithGroups();
  if (BoundedSlotSearch(slots, usable_, search_budget_, take, release) == 0) {
    out.push_back({ConflictKind::kCompatibility, RequestNames(combo_), "",
                   absl::StrCat(RequestsPhrase(combo_),
                                ": no choice of their devices is compatible, the compatibility groups of the "
                                "devices left clash on their counter sets")});
  }
}

}  // namespace draforge::alloc::internal
