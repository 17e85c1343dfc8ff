#include "alloc/fragmentation.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/status.h"

namespace draforge::alloc {
namespace {

using CounterKey = std::pair<std::string, std::string>;  // (counter set, counter)

bool EffectiveTaint(const api::DeviceTaint& taint) {
  const std::string effect = taint.effect.value_or("");
  return effect == "NoSchedule" || effect == "NoExecute";
}

bool Tainted(const store::Snapshot& snapshot, const Features& features, std::string_view driver,
             std::string_view pool, const api::Device& device) {
  if (!features.device_taints) return false;
  for (const api::DeviceTaint& t : device.taints) {
    if (EffectiveTaint(t)) return true;
  }
  if (!features.device_taint_rules) return false;
  for (const api::DeviceTaintRule* rule : snapshot.TaintRulesFor(driver, pool, device.name.value_or(""),
                                                                 features.TaintRuleWithoutSelectorMatchesAll())) {
    if (rule->spec && rule->spec->taint && EffectiveTaint(*rule->spec->taint)) return true;
  }
  return false;
}

// What one device consumes, summed per counter name over its counter sets.
std::map<std::string, api::Quantity> ConsumptionByName(const api::Device& d) {
  std::map<std::string, api::Quantity> out;
  for (const auto& cc : d.consumes_counters) {
    for (const auto& [counter, value] : cc.counters) {
      api::Quantity& q = out[counter];
      q = q.Add(value.value.value_or(api::Quantity()));
    }
  }
  return out;
}

std::string SizeOf(const api::Device& d) {
  std::vector<std::string> parts;
  if (!d.consumes_counters.empty()) {
    for (const auto& [name, q] : ConsumptionByName(d)) parts.push_back(absl::StrCat(name, "=", q.String()));
  } else {
    std::map<std::string, std::string> sorted;
    for (const auto& [name, cap] : d.capacity) sorted[name] = cap.value.value_or(api::Quantity()).String();
    for (const auto& [name, v] : sorted) parts.push_back(absl::StrCat(name, "=", v));
  }
  return absl::StrJoin(parts, ", ");
}

double Score(int64_t got, int64_t room) {
  if (room <= 0) return 0;
  return 1.0 - static_cast<double>(std::min(got, room)) / static_cast<double>(room);
}

double Score(const api::Quantity& got, const api::Quantity& room) {
  const double r = room.AsApproximateFloat64();
  if (r <= 0) return 0;
  return 1.0 - std::min(got.AsApproximateFloat64(), r) / r;
}

struct PoolDevice {
  const api::Device* device;
  size_t kind;
  bool allocated;
  bool tainted;
};

PoolFragmentation OnePool(const store::Snapshot& snapshot, const store::PoolInfo& info, const Features& features) {
  PoolFragmentation out;
  out.driver = std::string(info.driver);
  out.pool = std::string(info.pool);
  out.node = std::string(info.node_name);

  // Shared counters, and what allocated devices consume of them.
  std::map<CounterKey, api::Quantity> capacity;
  std::map<CounterKey, api::Quantity> consumed;
  for (const api::ResourceSlice* s : info.slices) {
    for (const api::CounterSet& set : s->spec->shared_counters) {
      for (const auto& [counter, value] : set.counters) {
        capacity[{set.name.value_or(""), counter}] = value.value.value_or(api::Quantity());
      }
    }
  }

  // Consumed capacity per shared device.
  std::map<std::string, std::map<std::string, api::Quantity>> shared_consumed;  // device -> name -> sum
  for (const api::ResourceSlice* s : info.slices) {
    for (const api::Device& d : s->spec->devices) {
      if (!d.allow_multiple_allocations.value_or(false)) continue;
      for (const store::AllocatedDevice& a : snapshot.Allocations(info.driver, info.pool, d.name.value_or(""))) {
        if (a.admin_access) continue;
        for (const auto& [name, q] : a.result->consumed_capacity) {
          api::Quantity& sum = shared_consumed[d.name.value_or("")][name];
          sum = sum.Add(q);
        }
      }
    }
  }

  std::vector<PoolDevice> devices;
  std::map<std::string, size_t> kind_of_size;
  std::map<std::string, size_t> capacity_index;
  for (const api::ResourceSlice* s : info.slices) {
    for (const api::Device& d : s->spec->devices) {
      const std::string name = d.name.value_or("");
      const std::string size = SizeOf(d);
      auto [it, added] = kind_of_size.emplace(size, out.kinds.size());
      if (added) {
        KindFragmentation k;
        k.driver = out.driver;
        k.kind = name;
        k.size = size;
        out.kinds.push_back(std::move(k));
      }
      PoolDevice pd{&d, it->second, snapshot.InUse(info.driver, info.pool, name), false};
      pd.tainted = !pd.allocated && Tainted(snapshot, features, info.driver, info.pool, d);
      KindFragmentation& k = out.kinds[pd.kind];
      ++k.devices;
      if (pd.allocated) {
        ++k.allocated;
        for (const auto& cc : d.consumes_counters) {
          for (const auto& [counter, value] : cc.counters) {
            api::Quantity& q = consumed[{cc.counter_set.value_or(""), counter}];
            q = q.Add(value.value.value_or(api::Quantity()));
          }
        }
      } else if (pd.tainted) {
        ++k.tainted;
      } else {
        ++k.free;
      }
      devices.push_back(pd);

      if (d.allow_multiple_allocations.value_or(false)) {
        for (const auto& [cap_name, cap] : d.capacity) {
          auto [ci, new_cap] = capacity_index.emplace(cap_name, out.capacity.size());
          if (new_cap) {
            CapacityFragmentation c;
            c.driver = out.driver;
            c.name = cap_name;
            out.capacity.push_back(std::move(c));
          }
          CapacityFragmentation& c = out.capacity[ci->second];
          const api::Quantity total = cap.value.value_or(api::Quantity());
          api::Quantity used;
          if (auto dc = shared_consumed.find(name); dc != shared_consumed.end()) {
            if (auto q = dc->second.find(cap_name); q != dc->second.end()) used = q->second;
          }
          ++c.devices;
          c.capacity = c.capacity.Add(total);
          c.consumed = c.consumed.Add(used);
          // A tainted device offers nothing to a new claim.
          if (!pd.tainted) {
            const api::Quantity left = total.Sub(used);
            if (left.Compare(c.largest) > 0) c.largest = left;
          }
        }
      }
    }
  }

  std::map<CounterKey, api::Quantity> left;
  for (const auto& [key, cap] : capacity) {
    CounterFree cf{key.first, key.second, cap, api::Quantity(), api::Quantity()};
    if (auto it = consumed.find(key); it != consumed.end()) cf.consumed = it->second;
    cf.free = cf.capacity.Sub(cf.consumed);
    left[key] = cf.free;
    out.counters.push_back(std::move(cf));
  }

  for (size_t ki = 0; ki < out.kinds.size(); ++ki) {
    KindFragmentation& k = out.kinds[ki];
    std::map<CounterKey, api::Quantity> avail = left;
    std::set<std::string> sets;
    const api::Device* example = nullptr;
    for (const PoolDevice& pd : devices) {
      if (pd.kind != ki) continue;
      if (example == nullptr) example = pd.device;
      for (const auto& cc : pd.device->consumes_counters) sets.insert(cc.counter_set.value_or(""));
      if (pd.allocated || pd.tainted) continue;
      bool fits = true;
      for (const auto& cc : pd.device->consumes_counters) {
        for (const auto& [counter, value] : cc.counters) {
          auto it = avail.find({cc.counter_set.value_or(""), counter});
          if (it != avail.end() && it->second.Compare(value.value.value_or(api::Quantity())) < 0) fits = false;
        }
      }
      if (!fits) continue;
      for (const auto& cc : pd.device->consumes_counters) {
        for (const auto& [counter, value] : cc.counters) {
          auto it = avail.find({cc.counter_set.value_or(""), counter});
          if (it != avail.end()) it->second = it->second.Sub(value.value.value_or(api::Quantity()));
        }
      }
      ++k.fit;
    }
    k.ideal = k.free;
    if (example != nullptr) {
      for (const auto& [counter, need] : ConsumptionByName(*example)) {
        if (need.Sign() <= 0) continue;
        api::Quantity room;
        for (const std::string& set : sets) {
          auto it = left.find({set, counter});
          if (it != left.end() && it->second.Sign() > 0) room = room.Add(it->second);
        }
        std::optional<api::Quantity> n = room.FloorDiv(need);
        std::optional<int64_t> count = n ? n->AsInt64() : std::nullopt;
        if (count) k.ideal = std::min(k.ideal, *count);
      }
    }
    k.score = Score(k.fit, k.ideal);
  }
  for (CapacityFragmentation& c : out.capacity) {
    c.free = c.capacity.Sub(c.consumed);
    c.score = Score(c.largest, c.free);
  }
  return out;
}

void AddKind(KindFragmentation& into, const KindFragmentation& k) {
  into.devices += k.devices;
  into.allocated += k.allocated;
  into.tainted += k.tainted;
  into.free += k.free;
  into.fit += k.fit;
  into.ideal += k.ideal;
}

}  // namespace

FragmentationReport Fragmentation(const store::Snapshot& snapshot, const Features& features) {
  FragmentationReport out;
  for (const store::PoolInfo& info : snapshot.Pools()) {
    if (info.invalid) {
      out.skipped.push_back(absl::StrCat(AV(info.driver), "/", AV(info.pool), ": ", info.invalid_reason));
      continue;
    }
    if (!info.complete) {
      out.skipped.push_back(absl::StrCat(AV(info.driver), "/", AV(info.pool), ": incomplete"));
      continue;
    }
    out.pools.push_back(OnePool(snapshot, info, features));
  }

  // Nodes: the node-local pools' kinds summed by (driver, size).
  std::map<std::string, std::map<std::pair<std::string, std::string>, KindFragmentation>> node_kinds;
  std::map<std::string, std::map<std::pair<std::string, std::string>, CapacityFragmentation>> node_capacity;
  for (const PoolFragmentation& p : out.pools) {
    if (p.node.empty()) continue;
    auto& kinds = node_kinds[p.node];
    for (const KindFragmentation& k : p.kinds) {
      auto [it, added] = kinds.emplace(std::make_pair(k.driver, k.size), k);
      if (!added) AddKind(it->second, k);
    }
    auto& caps = node_capacity[p.node];
    for (const CapacityFragmentation& c : p.capacity) {
      auto [it, added] = caps.emplace(std::make_pair(c.driver, c.name), c);
      if (added) continue;
      CapacityFragmentation& into = it->second;
      into.devices += c.devices;
      into.capacity = into.capacity.Add(c.capacity);
      into.consumed = into.consumed.Add(c.consumed);
      into.free = into.free.Add(c.free);
      if (c.largest.Compare(into.largest) > 0) into.largest = c.largest;
    }
  }
  for (auto& [node, kinds] : node_kinds) {
    NodeFragmentation n;
    n.node = node;
    for (auto& [key, k] : kinds) {
      k.score = Score(k.fit, k.ideal);
      n.kinds.push_back(k);
    }
    std::sort(n.kinds.begin(), n.kinds.end(), [](const KindFragmentation& a, const KindFragmentation& b) {
      return std::tie(a.driver, a.kind) < std::tie(b.driver, b.kind);
    });
    for (auto& [key, c] : node_capacity[node]) {
      c.score = Score(c.largest, c.free);
      n.capacity.push_back(c);
    }
    out.nodes.push_back(std::move(n));
  }

  // The cluster: per (driver, size), the nodes' fit.
  std::map<std::pair<std::string, std::string>, ClusterKindFragmentation> cluster;
  for (const NodeFragmentation& n : out.nodes) {
    for (const KindFragmentation& k : n.kinds) {
      auto [it, added] = cluster.emplace(std::make_pair(k.driver, k.size), ClusterKindFragmentation{});
      ClusterKindFragmentation& c = it->second;
      if (added) {
        c.driver = k.driver;
        c.kind = k.kind;
        c.size = k.size;
      }
      c.free += k.free;
      c.fit += k.fit;
      if (k.fit > c.largest_fit) {
        c.largest_fit = k.fit;
        c.largest_node = n.node;
      }
    }
  }
  for (auto& [key, c] : cluster) {
    c.score = Score(c.largest_fit, c.fit);
    out.kinds.push_back(std::move(c));
  }
  std::sort(out.kinds.begin(), out.kinds.end(), [](const ClusterKindFragmentation& a, const ClusterKindFragmentation& b) {
    return std::tie(a.driver, a.kind) < std::tie(b.driver, b.kind);
  });
  return out;
}

}  // namespace draforge::alloc
