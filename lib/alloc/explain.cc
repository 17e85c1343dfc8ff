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
#include "alloc/internal/claim_conflicts.h"
#include "alloc/internal/consumable_capacity.h"
#include "alloc/internal/compatibility_groups.h"
#include "alloc/internal/constraints.h"
#include "alloc/internal/derived_attributes.h"
#include "alloc/internal/explain_views.h"
#include "alloc/internal/node_verdicts.h"
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

using internal::Candidate;
using internal::Devices;
using internal::JoinNames;
using internal::PairCheck;
using internal::PoolView;
using internal::ReqView;

// The base request name of a funnel entry ("gpus/four" -> "gpus").
std::string_view BaseRequest(std::string_view request) { return request.substr(0, request.find('/')); }

// Whether `c` can be part of a node name (RFC 1123 subdomain characters).
bool NameChar(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.'; }

// `reason` with "node <name>" replaced by "the node", where <name> is a whole name.
std::string WithoutNodeName(const std::string& reason, const std::string& name) {
  const std::string needle = absl::StrCat("node ", name);
  std::string out;
  size_t from = 0;
  while (true) {
    size_t at = reason.find(needle, from);
    while (at != std::string::npos) {
      const size_t end = at + needle.size();
      const bool whole = (end == reason.size() || !NameChar(reason[end])) && (at == 0 || !NameChar(reason[at - 1]));
      if (whole) break;
      at = reason.find(needle, at + 1);
    }
    if (at == std::string::npos) break;
    absl::StrAppend(&out, reason.substr(from, at - from), "the node");
    from = at + needle.size();
  }
  absl::StrAppend(&out, reason.substr(from));
  return out;
}

// "1 device matches", "3 devices match".
std::string DevicesMatch(int64_t n) { return absl::StrCat(Devices(n), n == 1 ? " matches" : " match"); }

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


// The funnel (and, with a node, the outcome and the conflicts) of `claim`, stored as ns/name.
// only_node_devices: ExplainOptions::only_node_devices.
Explanation Funnel(const store::Snapshot& snapshot, const api::ResourceClaim* claim, std::string_view ns,
                   std::string_view name, const NodeInfo* node, const Features& features, bool only_node_devices) {
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
    // A pool the node cannot allocate from holds no device it reaches (see `reach` below): with
    // only_node_devices none of them is a candidate, which keeps one node's funnel to that node's size.
    if (node != nullptr && only_node_devices && !node_pools.contains({std::string(p.driver), std::string(p.pool)})) {
      continue;
    }
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
  if (node != nullptr && only_node_devices) {
    // Before any pointer into `all` is taken: the node's devices only, so that each step counts
    // what this node has. Devices of its incomplete pools stay, for the node step to name.
    std::erase_if(all, [&](const Candidate& c) { return reach(&c) == Reach::kNo; });
  }

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
                                              : absl::StrCat(DevicesMatch(cur.size()), " class ", v.class_name));
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
        if (!v.InScope(c.requests)) continue;
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
          if (v.Derives(features)) {
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
          // The class step can leave some devices that are still too few for the count. Counted at
          // the class step even when the driver step already fell short: that step counts every
          // device of the drivers (all devices when no device matches the class).
          f.sentence = matching > 0
                           ? absl::StrCat(head, "only ", DevicesMatch(matching), " class ", v.class_name,
                                          ", ", f.needed, " needed")
                           : absl::StrCat(head, "no device matches class ", v.class_name,
                                          f.first_error.empty() ? "" : absl::StrCat(" (CEL error: ", f.first_error, ")"));
          break;
        case FunnelStep::kAllocated:
          f.sentence = absl::StrCat(head, DevicesMatch(before), " class ", v.class_name, ", ",
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
          f.sentence = absl::StrCat(head, DevicesMatch(matching), " class ", v.class_name, ", ", st.remaining,
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
    ex.conflicts = internal::FindConflicts(*claim, views, usable, ex.requests, state, features, compatible);
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

}  // namespace

std::vector<std::string> Explanation::FittingNodes() const {
  std::vector<std::string> out;
  for (const NodeVerdict& v : nodes) {
    if (v.fits()) out.push_back(v.node);
  }
  return out;
}

std::vector<NodeReasonGroup> GroupNodesByReason(const std::vector<NodeVerdict>& verdicts) {
  std::vector<NodeReasonGroup> out;
  std::map<std::string, size_t> index;
  for (const NodeVerdict& v : verdicts) {
    if (v.fits()) continue;
    std::string reason = WithoutNodeName(v.reason, v.node);
    auto [it, inserted] = index.emplace(reason, out.size());
    if (inserted) out.push_back(NodeReasonGroup{std::move(reason), {}});
    out[it->second].nodes.push_back(v.node);
  }
  return out;
}

std::string FirstBlockingReason(const Explanation& ex) {
  size_t i = 0;
  while (i < ex.requests.size()) {
    const std::string_view base = BaseRequest(ex.requests[i].request);
    size_t j = i;
    bool all_short = true;
    std::vector<std::string> sentences;
    while (j < ex.requests.size() && BaseRequest(ex.requests[j].request) == base) {
      all_short = all_short && ex.requests[j].first_short.has_value();
      sentences.push_back(ex.requests[j].sentence);
      ++j;
    }
    if (all_short) return absl::StrJoin(sentences, "; ");
    i = j;
  }
  if (!ex.conflicts.empty()) return ex.conflicts.front().sentence;
  return "";
}

absl::StatusOr<Explanation> Explain(const store::Snapshot& snapshot, std::string_view ns, std::string_view name,
                                    const NodeInfo* node, const Features& features) {
  ExplainOptions options;
  options.features = features;
  return Explain(snapshot, ns, name, node, options);
}

absl::StatusOr<Explanation> Explain(const store::Snapshot& snapshot, std::string_view ns, std::string_view name,
                                    const NodeInfo* node, const ExplainOptions& options) {
  const api::ResourceClaim* claim = snapshot.GetResourceClaim(ns, name);
  if (claim == nullptr) {
    return absl::NotFoundError(absl::StrCat("resourceclaim ", AV(ns), "/", AV(name), " not found"));
  }
  if (!claim->spec || !claim->spec->devices) {
    return absl::InvalidArgumentError(absl::StrCat("resourceclaim ", AV(ns), "/", AV(name), ": spec.devices is not set"));
  }
  Explanation ex = Funnel(snapshot, claim, ns, name, node, options.features, options.only_node_devices);
  if (node == nullptr && options.max_nodes > 0) {
    internal::AddNodeVerdicts(snapshot, *claim, options.features, options.max_nodes, ex);
  }
  return ex;
}

}  // namespace draforge::alloc
