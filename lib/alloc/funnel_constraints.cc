// The funnel's constraints step: keep the devices that have the attribute, then the groups of equal
// values big enough (matchAttribute) or one device per value (distinctAttribute). Constraints across
// requests are judged per request here; the claim-level conflicts judge them across requests.
#include <algorithm>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "alloc/internal/constraints.h"
#include "alloc/internal/funnel.h"
#include "alloc/internal/sorted_strings.h"

namespace draforge::alloc::internal {
namespace {

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
    for (size_t c : chosen) fits = fits && !SortedIntersects(sets[c], sets[i]);
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

}  // namespace

// The devices of a request's list by the value of one attribute.
struct Funnel::ValueGroups {
  // Devices per value. With DRAListTypeAttributes the values are the elements of each device's set
  // (a device is in several groups); without, the scalar value, and a value the scalar comparison
  // cannot read (a list) is its own group for matchAttribute: upstream takes such a device only as
  // the first one, and nothing equals it afterwards.
  std::map<std::string, std::vector<const Candidate*>> groups;
  // DRAListTypeAttributes: the devices with a value and their sets (parallel), devices the node
  // reaches first.
  std::vector<const Candidate*> with_value;
  std::vector<std::vector<std::string>> value_sets;
  size_t missing = 0;    // devices without the attribute (or with an empty list)
  bool derived = false;  // some value was derived by the request (DRADerivedAttributes)
};

void Funnel::ConstraintsStep(size_t vi, Pending& p) {
  std::vector<std::string> notes;
  for (const auto& c : claim_.spec->devices->constraints) {
    std::string note = ConstraintStep(vi, p, c);
    if (!note.empty()) notes.push_back(std::move(note));
  }
  Push(vi, p, FunnelStep::kConstraints, notes.empty() ? "no constraint applies" : absl::StrJoin(notes, "; "));
}

Funnel::ValueGroups Funnel::GroupByValue(Pending& p, const std::string& attr, bool match, const ReqView& v) {
  ValueGroups vg;
  for (const Candidate* d : p.cur) {
    const api::DeviceAttribute* a = nullptr;
    if (v.Derives(features_)) {
      auto looked_up = derived_cache_.Lookup(*v.derived, attr, static_cast<int>(d - all_.data()), *d->device,
                                             d->id.driver, d->id.String());
      if (!looked_up.ok()) {
        // Allocate fails with this error; here the device just cannot take part.
        if (p.f.first_error.empty()) p.f.first_error = std::string(looked_up.status().message());
        ++vg.missing;
        continue;
      }
      a = *looked_up;
      vg.derived = vg.derived || a != nullptr;
    }
    if (a == nullptr) a = LookupAttribute(*d->device, d->id.driver, attr);
    if (a == nullptr) {
      ++vg.missing;
      continue;
    }
    if (features_.ListTypeConstraints()) {
      const std::vector<std::string> values = AttributeValueSet(*a);
      if (values.empty()) {
        ++vg.missing;  // an empty list is no value to compare (upstream attributeAsSet)
        continue;
      }
      for (const std::string& value : values) vg.groups[value].push_back(d);
      vg.with_value.push_back(d);
      vg.value_sets.push_back(values);
      continue;
    }
    std::string value = AttributeScalar(*a);
    if (value.empty() && match) value = absl::StrCat("#", d - all_.data());
    vg.groups[value].push_back(d);
  }
  // Reachable devices first, for the disjoint-family search (with_value and value_sets are parallel).
  std::vector<size_t> order(vg.with_value.size());
  for (size_t k = 0; k < order.size(); ++k) order[k] = k;
  std::stable_partition(order.begin(), order.end(), [&](size_t k) { return ReachOf(vg.with_value[k]) == Reach::kYes; });
  std::vector<const Candidate*> devices;
  std::vector<std::vector<std::string>> sets;
  for (size_t k : order) {
    devices.push_back(vg.with_value[k]);
    sets.push_back(std::move(vg.value_sets[k]));
  }
  vg.with_value = std::move(devices);
  vg.value_sets = std::move(sets);
  return vg;
}

// One constraint on request `vi`'s list; returns the step's note on it ("" when it does not apply).
std::string Funnel::ConstraintStep(size_t vi, Pending& p, const api::DeviceConstraint& constraint) {
  const ReqView& v = views_[vi];
  const bool match = constraint.match_attribute.has_value();
  const std::string attr = match ? *constraint.match_attribute : constraint.distinct_attribute.value_or("");
  if (attr.empty() || !v.InScope(constraint.requests)) return "";
  ValueGroups vg = GroupByValue(p, attr, match, v);
  // The node step comes later: a group (or device) the node can reach is worth more than a larger
  // one it cannot, or the funnel would end empty where the search finds a solution.
  auto reachable_in = [&](const std::vector<const Candidate*>& g) {
    return std::count_if(g.begin(), g.end(), [&](const Candidate* c) { return ReachOf(c) == Reach::kYes; });
  };
  std::vector<const Candidate*> next;
  if (match) {
    // Lists: the devices sharing one element are exactly those whose intersection can stay
    // non-empty, so the largest group is still the answer.
    // Every group with enough devices the node reaches stays: which one the search takes can depend
    // on a later constraint (taking the largest alone made a second matchAttribute rule out a claim
    // that fits). No group has enough: the largest one shows how short.
    const int64_t enough = all_required_[vi] >= 0 ? std::max<int64_t>(all_required_[vi], 1) : p.f.needed;
    std::set<const Candidate*> kept;
    for (const auto& [value, g] : vg.groups) {
      if (reachable_in(g) >= enough) kept.insert(g.begin(), g.end());
    }
    if (!kept.empty()) {
      for (const Candidate* d : p.cur) {
        if (kept.count(d)) next.push_back(d);
      }
    } else {
      int64_t best_reachable = -1;
      for (const auto& [value, g] : vg.groups) {
        const int64_t r = reachable_in(g);
        if (r > best_reachable || (r == best_reachable && g.size() > next.size())) {
          best_reachable = r;
          next = g;
        }
      }
    }
  } else if (features_.ListTypeConstraints()) {
    // Enough pairwise disjoint sets: the step keeps every device with a value. Too few: it keeps the
    // largest disjoint family, which falls short. Undecided within the budget: every device with a
    // value, so that the step is never stricter than the search. Only the devices the node reaches
    // can form the family (they come first in the lists): one it cannot reach made the step keep
    // too many.
    size_t reachable = 0;
    while (reachable < vg.with_value.size() && ReachOf(vg.with_value[reachable]) == Reach::kYes) ++reachable;
    const std::vector<std::vector<std::string>> reachable_sets(vg.value_sets.begin(),
                                                               vg.value_sets.begin() + reachable);
    const auto family = DisjointFamily(reachable_sets, static_cast<size_t>(std::max<int64_t>(p.f.needed, 1)), 100000);
    if (family && static_cast<int64_t>(family->size()) < p.f.needed) {
      for (size_t k : *family) next.push_back(vg.with_value[k]);
    } else {
      next = vg.with_value;
    }
  } else {
    for (const auto& [value, g] : vg.groups) {
      auto it = std::find_if(g.begin(), g.end(), [&](const Candidate* c) { return ReachOf(c) == Reach::kYes; });
      next.push_back(it == g.end() ? g.front() : *it);
    }
  }
  p.cur = std::move(next);
  return absl::StrCat(match ? "matchAttribute " : "distinctAttribute ", attr,
                      vg.derived ? " (derived by the request)" : "", ": ", vg.missing,
                      features_.list_type_attributes ? " without the attribute or with an empty list, "
                                                     : " without the attribute, ",
                      vg.groups.size(), " distinct values");
}

}  // namespace draforge::alloc::internal
