#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "alloc/internal/pools.h"
#include "alloc/internal/compatibility_groups.h"
#include "api/labels.h"
#include "common/status.h"

namespace draforge::alloc::internal {
namespace {

const api::ResourceSliceSpec& Spec(const api::ResourceSlice& slice) {
  static const api::ResourceSliceSpec kEmpty;
  return slice.spec ? *slice.spec : kEmpty;
}

bool HasCounters(const api::ResourceSlice& slice) { return !Spec(slice).shared_counters.empty(); }

int64_t SliceCount(const api::ResourceSlice& slice) {
  const auto& p = Spec(slice).pool;
  return p && p->resource_slice_count ? *p->resource_slice_count : 0;
}

using PoolKey = std::pair<std::string_view, std::string_view>;

bool SliceHasBindingConditions(const api::ResourceSlice& slice) {
  for (const api::Device& d : Spec(slice).devices) {
    if (!d.binding_conditions.empty()) return true;
  }
  return false;
}

// Upstream buildPool: splits the pool's slices and validates device names and counters. Invalid
// pools are returned with the reason, not as an error.
Pool BuildPool(PoolKey id, std::vector<const api::ResourceSlice*> slices, const Features& features,
               const std::vector<const api::ResourceSlice*>* all_slices_for_pool) {
  Pool pool;
  pool.driver = id.first;
  pool.pool = id.second;
  std::stable_sort(slices.begin(), slices.end(), [](const api::ResourceSlice* a, const api::ResourceSlice* b) {
    return a->metadata.name.value_or("") < b->metadata.name.value_or("");
  });
  if (features.BindingConditionSlicesLast()) {
    std::stable_partition(slices.begin(), slices.end(),
                          [](const api::ResourceSlice* s) { return !SliceHasBindingConditions(*s); });
  }
  std::vector<const api::ResourceSlice*> counter_slices;
  for (const api::ResourceSlice* s : slices) {
    if (features.partitionable_devices && HasCounters(*s) && !features.NodeRelevantPools()) {
      counter_slices.push_back(s);
    } else {
      pool.device_slices.push_back(s);
    }
  }
  if (all_slices_for_pool != nullptr && slices.size() < all_slices_for_pool->size()) {
    std::set<const api::ResourceSlice*> targeting(slices.begin(), slices.end());
    for (const api::ResourceSlice* s : *all_slices_for_pool) {
      if (targeting.count(s)) continue;
      if (features.partitionable_devices && HasCounters(*s)) {
        counter_slices.push_back(s);
      } else {
        pool.other_device_slices.push_back(s);
      }
    }
  }
  // Duplicate names are rare: a sorted copy finds out cheaply whether there is one, and only then
  // the scan in device order finds the one upstream names.
  std::vector<std::string_view> sorted;
  for (const api::ResourceSlice* s : pool.device_slices) {
    for (const api::Device& d : Spec(*s).devices) sorted.push_back(d.name ? std::string_view(*d.name) : std::string_view());
  }
  std::sort(sorted.begin(), sorted.end());
  const bool duplicates = std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end();
  if (duplicates) {
    std::set<std::string_view> names;
    for (const api::ResourceSlice* s : pool.device_slices) {
      for (const api::Device& d : Spec(*s).devices) {
        std::string_view name = d.name ? std::string_view(*d.name) : std::string_view();
        if (!names.insert(name).second) {
          pool.invalid = true;
          pool.invalid_reason = absl::StrCat("duplicate device name ", AV(name));
          pool.device_slices.clear();
          pool.other_device_slices.clear();
          return pool;
        }
      }
    }
  }
  if (!features.partitionable_devices || features.NodeRelevantPools()) return pool;
  for (const api::ResourceSlice* s : counter_slices) {
    for (const api::CounterSet& cs : Spec(*s).shared_counters) {
      const std::string name = cs.name.value_or("");
      if (pool.counter_sets.count(name)) {
        pool.invalid = true;
        pool.invalid_reason = absl::StrCat("duplicate counter set name ", name);
        break;
      }
      pool.counter_sets.emplace(name, &cs);
    }
    if (pool.invalid) break;
  }
  auto validate = [&](const std::vector<const api::ResourceSlice*>& list) {
    for (const api::ResourceSlice* s : list) {
      for (const api::Device& d : Spec(*s).devices) {
        for (const api::DeviceCounterConsumption& c : d.consumes_counters) {
          auto it = pool.counter_sets.find(c.counter_set.value_or(""));
          if (it == pool.counter_sets.end()) {
            pool.invalid_reason = absl::StrCat("counter set ", c.counter_set.value_or(""), " not found");
            return false;
          }
          for (const auto& [counter, unused] : c.counters) {
            if (!it->second->counters.Contains(counter)) {
              pool.invalid_reason = absl::StrCat("counter ", counter, " not found in counter set ", it->first);
              return false;
            }
          }
        }
      }
    }
    return true;
  };
  if (!pool.invalid && (!validate(pool.device_slices) || !validate(pool.other_device_slices))) pool.invalid = true;
  if (pool.invalid) {
    pool.device_slices.clear();
    pool.other_device_slices.clear();
    pool.counter_sets.clear();
  }
  return pool;
}

bool HasBindingConditions(const Pool& pool) {
  for (const api::ResourceSlice* s : pool.device_slices) {
    for (const api::Device& d : Spec(*s).devices) {
      if (!d.binding_conditions.empty()) return true;
    }
  }
  return false;
}

}  // namespace

std::string_view SliceDriver(const api::ResourceSlice& slice) {
  const auto& d = Spec(slice).driver;
  return d ? std::string_view(*d) : std::string_view();
}
std::string_view SlicePool(const api::ResourceSlice& slice) {
  const auto& p = Spec(slice).pool;
  return p && p->name ? std::string_view(*p->name) : std::string_view();
}
int64_t SliceGeneration(const api::ResourceSlice& slice) {
  const auto& p = Spec(slice).pool;
  return p && p->generation ? *p->generation : 0;
}

std::string Pool::Id() const { return absl::StrCat(AV(driver), "/", AV(pool)); }

absl::StatusOr<bool> NodeMatches(const NodeInfo& node, std::string_view node_name, bool all_nodes,
                                 const api::NodeSelector* selector) {
  if (!node_name.empty()) return node.name == node_name;
  if (all_nodes) return true;
  if (selector != nullptr) {
    auto compiled = api::CompileNodeSelector(*selector);
    if (!compiled.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("failed to parse node selector: ", compiled.status().message()));
    }
    return compiled->Matches(node.labels, node.name);
  }
  return false;
}

namespace {

// A slice GatherFrom looks at, with its node selector compiled beforehand (NodeIndependentSlices)
// or not (null: NodeMatches compiles it).
struct CandidateSlice {
  const api::ResourceSlice* slice;
  const absl::StatusOr<api::CompiledNodeSelector>* selector = nullptr;
};

std::vector<CandidateSlice> Uncompiled(const std::vector<const api::ResourceSlice*>& slices) {
  std::vector<CandidateSlice> out;
  out.reserve(slices.size());
  for (const api::ResourceSlice* s : slices) out.push_back({s});
  return out;
}

// NodeMatches for a slice whose node fields come down to its (compiled) nodeSelector.
absl::StatusOr<bool> SelectorMatches(const NodeInfo& node, const absl::StatusOr<api::CompiledNodeSelector>& selector) {
  if (!selector.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("failed to parse node selector: ", selector.status().message()));
  }
  return selector->Matches(node.labels, node.name);
}

// Upstream GatherPools over `candidates` (every slice that can target the node, in name order);
// `slices_of_pool` returns every slice of a pool (all generations) for incomplete pools.
template <typename SlicesOfPool>
absl::StatusOr<std::vector<Pool>> GatherFrom(const std::vector<CandidateSlice>& candidates, const NodeInfo& node,
                                             const Features& features, const SlicesOfPool& slices_of_pool) {
  std::map<PoolKey, std::vector<const api::ResourceSlice*>> pools;
  for (const CandidateSlice& candidate : candidates) {
    const api::ResourceSlice* slice = candidate.slice;
    const api::ResourceSliceSpec& spec = Spec(*slice);
    if (!features.partitionable_devices &&
        (spec.per_device_node_selection.has_value() || (!spec.shared_counters.empty() && !features.NodeRelevantPools()))) {
      continue;
    }
    // Gate off: the allocator cannot check co-allocation, so the slice is ignored and its pool
    // becomes incomplete (upstream GatherPools).
    if (!features.device_compatibility_groups && SliceUsesCompatibilityGroups(*slice)) continue;
    const std::string_view node_name = spec.node_name ? std::string_view(*spec.node_name) : std::string_view();
    const bool all_nodes = spec.all_nodes.value_or(false);
    bool relevant = false;
    if (features.CounterSlicesForEveryNode() && !spec.shared_counters.empty()) {
      // Some variants take every counter slice (their devices elsewhere may consume the counters),
      // so an incomplete or invalid pool on another node is in their list too.
      relevant = true;
    } else if (!node_name.empty() || all_nodes || spec.node_selector) {
      auto match = candidate.selector != nullptr
                       ? SelectorMatches(node, *candidate.selector)
                       : NodeMatches(node, node_name, all_nodes, spec.node_selector ? &*spec.node_selector : nullptr);
      if (!match.ok()) {
        return absl::InvalidArgumentError(absl::StrCat("failed to perform node selection for slice ",
                                                       slice->metadata.name.value_or(""), ": ",
                                                       match.status().message()));
      }
      relevant = *match;
    } else if (spec.per_device_node_selection.value_or(false)) {
      for (const api::Device& d : spec.devices) {
        auto match = NodeMatches(node, d.node_name.value_or(""), d.all_nodes.value_or(false),
                                 d.node_selector ? &*d.node_selector : nullptr);
        if (!match.ok()) {
          return absl::InvalidArgumentError(absl::StrCat("failed to perform node selection for device ",
                                                         d.name.value_or(""), " in slice ",
                                                         slice->metadata.name.value_or(""), ": ",
                                                         match.status().message()));
        }
        if (*match) {
          relevant = true;
          break;
        }
      }
    } else {
      continue;  // a future node-selection field: skipped, as upstream does
    }
    if (!relevant) continue;
    auto& list = pools[{SliceDriver(*slice), SlicePool(*slice)}];
    if (list.empty() || SliceGeneration(*slice) > SliceGeneration(*list.front())) {
      list.assign(1, slice);
    } else if (SliceGeneration(*slice) == SliceGeneration(*list.front())) {
      list.push_back(slice);
    }
  }

  std::vector<Pool> result, with_binding_conditions;
  for (auto& [id, slices] : pools) {
    const int64_t generation = SliceGeneration(*slices.front());
    const int64_t count = SliceCount(*slices.front());
    Pool pool;
    if (static_cast<int64_t>(slices.size()) == count || features.NodeRelevantPools()) {
      pool = BuildPool(id, slices, features, nullptr);
      pool.incomplete = static_cast<int64_t>(slices.size()) != count;
    } else {
      bool obsolete = false;
      std::vector<const api::ResourceSlice*> all_for_pool;
      for (const api::ResourceSlice* s : slices_of_pool(id)) {
        if (SliceDriver(*s) != id.first || SlicePool(*s) != id.second) continue;
        if (SliceGeneration(*s) == generation) {
          // Ignored slices do not count towards completeness either (see above).
          if (!features.device_compatibility_groups && SliceUsesCompatibilityGroups(*s)) continue;
          all_for_pool.push_back(s);
        } else if (SliceGeneration(*s) > generation) {
          obsolete = true;
          break;
        }
      }
      if (obsolete) continue;
      if (static_cast<int64_t>(all_for_pool.size()) != count) {
        pool.driver = id.first;
        pool.pool = id.second;
        pool.incomplete = true;
        result.push_back(std::move(pool));
        continue;
      }
      pool = BuildPool(id, slices, features, &all_for_pool);
    }
    // Only the variants that know binding conditions move such pools last.
    if (!features.StableAllocator() && HasBindingConditions(pool)) {
      with_binding_conditions.push_back(std::move(pool));
    } else {
      result.push_back(std::move(pool));
    }
  }
  // std::map already iterates in (driver, pool) order.
  for (Pool& p : with_binding_conditions) result.push_back(std::move(p));
  return result;
}

}  // namespace

absl::StatusOr<std::vector<Pool>> GatherPools(const std::vector<const api::ResourceSlice*>& all_slices,
                                              const NodeInfo& node, const Features& features) {
  return GatherFrom(Uncompiled(all_slices), node, features,
                    [&](PoolKey) -> const std::vector<const api::ResourceSlice*>& { return all_slices; });
}

absl::StatusOr<std::vector<Pool>> GatherPools(const store::Snapshot& snapshot,
                                              const NodeIndependentSlices& node_independent, const NodeInfo& node,
                                              const Features& features) {
  // A slice with spec.nodeName targets only that node: the rest of them cannot be relevant, and
  // they never make node selection fail, so leaving them out changes neither result nor errors.
  // Some variants also take counter slices of other nodes (see GatherFrom): they scan all.
  if (features.CounterSlicesForEveryNode()) return GatherPools(snapshot.ResourceSlices(), node, features);
  std::vector<CandidateSlice> candidates =
      node.name.empty() ? std::vector<CandidateSlice>() : Uncompiled(snapshot.SlicesByNode(node.name));
  // Only node-independent slices can fail node selection, and they keep their (name) order, so
  // the first error is the one a scan of all slices meets first. The ones whose selector cannot
  // select the node are left out: they would not be relevant and cannot fail.
  for (const NodeIndependentSlice* s : node_independent.For(node)) {
    candidates.push_back({s->slice, s->selector ? &*s->selector : nullptr});
  }
  std::vector<const api::ResourceSlice*> pool_slices;
  return GatherFrom(candidates, node, features, [&](PoolKey id) -> const std::vector<const api::ResourceSlice*>& {
    pool_slices = snapshot.SlicesByPool(id.first, id.second);
    return pool_slices;
  });
}

}  // namespace draforge::alloc::internal
