// Claim-level conflicts of matchAttribute and distinctAttribute constraints across the requests of
// one choice. Constraints on derived attributes (DRADerivedAttributes) are left to the allocator:
// the value depends on the request.
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "alloc/internal/choice_conflicts.h"
#include "alloc/internal/constraints.h"
#include "alloc/internal/sorted_strings.h"

namespace draforge::alloc::internal {

// A device's values of `attr`; empty: it has none. A scalar the comparison cannot read matches
// nothing (matchAttribute: a value of its own) and is one value (distinctAttribute), as in the
// funnel's constraint step.
std::vector<std::string> ChoiceConflicts::ValuesOf(const Candidate* c, const std::string& attr, bool match) const {
  const api::DeviceAttribute* a = LookupAttribute(*c->device, c->id.driver, attr);
  if (a == nullptr) return {};
  if (features_.list_type_attributes) return AttributeValueSet(*a);
  std::string v = AttributeScalar(*a);
  if (v.empty() && match) v = absl::StrCat("#", c->id.String());
  return {v};
}

// One constraint across the requests it covers. matchAttribute: one value that enough devices of
// every request have. distinctAttribute: at least as many distinct values as devices taken.
void ChoiceConflicts::Constraint(const api::DeviceConstraint& con, std::vector<ClaimConflict>& out) const {
  const bool match = con.match_attribute.has_value();
  const std::string attr = match ? *con.match_attribute : con.distinct_attribute.value_or("");
  if (attr.empty()) return;
  std::vector<size_t> scope;
  bool derived = false;
  for (size_t vi : combo_) {
    if (!views_[vi].InScope(con.requests)) continue;
    scope.push_back(vi);
    derived = derived || views_[vi].Derives(features_);
  }
  if (scope.size() < 2 || derived) return;
  if (match) {
    MatchConstraint(attr, scope, out);
  } else {
    DistinctConstraint(attr, scope, out);
  }
}

void ChoiceConflicts::MatchConstraint(const std::string& attr, const std::vector<size_t>& scope,
                                      std::vector<ClaimConflict>& out) const {
  // value -> view -> its devices with that value
  std::map<std::string, std::map<size_t, std::vector<const Candidate*>>> having;
  std::map<size_t, std::set<std::string>> shown;
  for (size_t vi : scope) {
    for (const Candidate* c : usable_[vi]) {
      for (const std::string& v : ValuesOf(c, attr, true)) {
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
    for (size_t vi : scope) enough = enough && per_view[vi].size() >= static_cast<size_t>(Needed(vi));
    some_value = some_value || (enough && !Hall(scope, per_view, 2));
  }
  if (some_value) return;
  std::vector<std::string> per_request;
  for (size_t vi : scope) {
    const std::vector<std::string> values(shown[vi].begin(), shown[vi].end());
    per_request.push_back(
        absl::StrCat(views_[vi].name, ": ", values.empty() ? std::string("none") : JoinNames(values)));
  }
  out.push_back({ConflictKind::kConstraint, RequestNames(scope), attr,
                 absl::StrCat("matchAttribute ", attr, ": no value is held by enough distinct devices of ",
                              RequestsPhrase(scope), " (", absl::StrJoin(per_request, "; "), ")")});
}

void ChoiceConflicts::DistinctConstraint(const std::string& attr, const std::vector<size_t>& scope,
                                         std::vector<ClaimConflict>& out) const {
  std::set<std::string> values;
  int64_t want = 0;
  for (size_t vi : scope) {
    want += Needed(vi);
    for (const Candidate* c : usable_[vi]) {
      for (const std::string& v : ValuesOf(c, attr, false)) values.insert(v);
    }
  }
  if (static_cast<int64_t>(values.size()) < want) {
    out.push_back({ConflictKind::kConstraint, RequestNames(scope), attr,
                   absl::StrCat("distinctAttribute ", attr, ": ", RequestsPhrase(scope), " need ", Devices(want),
                                " with distinct values, their devices have ", values.size(),
                                values.size() == 1 ? " value" : " distinct values")});
    return;
  }
  // Enough values in all, but maybe not for a choice of distinct devices, one set of values each,
  // pairwise apart (list-typed values: disjoint sets). A bounded search over the choices;
  // undecided within the budget: no conflict claimed.
  std::vector<std::pair<size_t, int64_t>> slots;  // (view, index of the device it takes)
  for (size_t vi : scope) {
    for (int64_t n = 0; n < Needed(vi); ++n) slots.push_back({vi, n});
  }
  std::vector<std::pair<const Candidate*, std::vector<std::string>>> chosen;
  auto take = [&](size_t, const Candidate* c) {
    std::vector<std::string> vs = ValuesOf(c, attr, false);
    if (vs.empty()) return false;
    for (const auto& [other, ovs] : chosen) {
      if (other == c || SortedIntersects(ovs, vs)) return false;
    }
    chosen.push_back({c, std::move(vs)});
    return true;
  };
  auto release = [&](size_t, const Candidate*) { chosen.pop_back(); };
  if (slots.size() > 64) return;
  const int found = BoundedSlotSearch(slots, usable_, search_budget_, take, release);
  if (found != 0) return;
  out.push_back({ConflictKind::kConstraint, RequestNames(scope), attr,
                 absl::StrCat("distinctAttribute ", attr, ": no choice of distinct devices for ",
                              RequestsPhrase(scope), " has pairwise different values")});
}

// Several matchAttribute constraints together (also within one request): one value per constraint
// that enough distinct devices of every request have at once. Each one alone may leave enough
// devices while no device has the values of both. Up to 4096 combinations of values are tried;
// past that no conflict is claimed.
void ChoiceConflicts::SeveralMatches(std::vector<ClaimConflict>& out) const {
  struct Match {
    std::string attr;
    std::vector<size_t> scope;
    std::vector<std::string> values;
  };
  std::vector<Match> matches;
  bool derived = false;
  for (const auto& con : claim_.spec->devices->constraints) {
    if (!con.match_attribute || con.match_attribute->empty()) continue;
    Match m{*con.match_attribute, {}, {}};
    for (size_t vi : combo_) {
      if (!views_[vi].InScope(con.requests)) continue;
      m.scope.push_back(vi);
      derived = derived || views_[vi].Derives(features_);
    }
    if (!m.scope.empty()) matches.push_back(std::move(m));
  }
  const bool already =
      std::any_of(out.begin(), out.end(), [](const ClaimConflict& c) { return c.kind == ConflictKind::kConstraint; });
  size_t combinations = 1;
  for (Match& m : matches) {
    std::set<std::string> values;
    for (size_t vi : m.scope) {
      for (const Candidate* c : usable_[vi]) {
        for (std::string& v : ValuesOf(c, m.attr, true)) values.insert(std::move(v));
      }
    }
    m.values.assign(values.begin(), values.end());
    combinations = m.values.empty() ? 0 : std::min<size_t>(combinations * m.values.size(), 1 << 20);
  }
  if (matches.size() < 2 || derived || already || combinations == 0 || combinations > 4096) return;
  std::vector<size_t> all_views;
  for (const Match& m : matches) {
    for (size_t vi : m.scope) {
      if (std::find(all_views.begin(), all_views.end(), vi) == all_views.end()) all_views.push_back(vi);
    }
  }
  std::sort(all_views.begin(), all_views.end());
  // Whether some combination of values, pick[j] of constraint j, leaves every view enough distinct
  // devices with the picked value of every constraint that applies to it.
  std::vector<size_t> pick(matches.size(), 0);
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
      for (const Candidate* c : usable_[vi]) {
        bool has_all = true;
        for (size_t j = 0; j < matches.size() && has_all; ++j) {
          if (std::find(matches[j].scope.begin(), matches[j].scope.end(), vi) == matches[j].scope.end()) continue;
          const std::vector<std::string> vs = ValuesOf(c, matches[j].attr, true);
          has_all = std::find(vs.begin(), vs.end(), matches[j].values[pick[j]]) != vs.end();
        }
        if (has_all) l.push_back(c);
      }
      enough = enough && static_cast<int64_t>(l.size()) >= Needed(vi);
    }
    some = enough && !Hall(all_views, lists, 2);
  }
  if (some) return;
  std::vector<std::string> attrs;
  for (const Match& m : matches) attrs.push_back(m.attr);
  out.push_back({ConflictKind::kConstraint, RequestNames(all_views), absl::StrJoin(attrs, ", "),
                 absl::StrCat("matchAttribute ", JoinNames(attrs), ": too few distinct devices of ",
                              RequestsPhrase(all_views), " share one value of each attribute")});
}

// A matchAttribute and a distinctAttribute on the same attribute over two requests: the devices of
// the two would need equal and different values at once.
void ChoiceConflicts::MatchAndDistinct(std::vector<ClaimConflict>& out) const {
  for (const auto& m : claim_.spec->devices->constraints) {
    if (!m.match_attribute || m.match_attribute->empty()) continue;
    for (const auto& d : claim_.spec->devices->constraints) {
      if (d.distinct_attribute.value_or("") != *m.match_attribute) continue;
      std::vector<size_t> both;
      for (size_t vi : combo_) {
        auto applies = [&](const api::DeviceConstraint& con) {
          bool a = con.requests.empty();
          for (const auto& r : con.requests) a = a || r == views_[vi].base || r == views_[vi].name;
          return a;
        };
        if (applies(m) && applies(d) && Needed(vi) > 0) both.push_back(vi);
      }
      if (both.size() < 2) continue;
      out.push_back({ConflictKind::kConstraint, RequestNames(both), *m.match_attribute,
                     absl::StrCat("matchAttribute and distinctAttribute ", *m.match_attribute, " both apply to ",
                                  RequestsPhrase(both), ": their devices cannot have equal and different values")});
    }
  }
}

}  // namespace draforge::alloc::internal
