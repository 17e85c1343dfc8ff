#include "sim/expand.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "api/validation.h"
#include "common/status.h"
#include "sim/profiles.h"

namespace draforge::sim {
namespace {

// NVIDIA's application XIDs (device_health.go xidsToSkip): the GPU stays usable, the taint is None.
constexpr int64_t kApplicationXids[] = {13, 31, 43, 45, 68, 109};

struct Context {
  const SimulatedDevicePool& pool;
  std::string who;
  std::string driver;
  const ExpandOptions& options;
};

// One pool being built: its devices (in groups) and counter sets.
struct PoolBuild {
  std::string pool_name;
  std::optional<std::string> node;  // per-node pools
  PoolContent content;
};

bool Selected(const std::vector<std::string>& names, std::string_view name) {
  return names.empty() || std::find(names.begin(), names.end(), name) != names.end();
}

// Checks that every node and device a taint or fault names exists, so that a typo is an error and not
// a fault that silently does nothing.
absl::Status CheckTargets(const Context& ctx, const std::vector<PoolBuild>& pools, const std::vector<std::string>& nodes,
                          const std::vector<std::string>& devices, std::string_view path) {
  for (size_t i = 0; i < nodes.size(); ++i) {
    const bool found = std::any_of(pools.begin(), pools.end(), [&](const PoolBuild& p) { return p.node == nodes[i]; });
    if (!found) {
      return absl::InvalidArgumentError(absl::StrCat(
          ctx.who, ": ", AV(path), ".nodes[", i, "]: Not found: \"", nodes[i], "\"",
          ctx.pool.spec.nodes.names.empty() ? " (this pool is network-attached: it has no per-node pools)"
                                            : " (not in spec.nodes.names)"));
    }
  }
  for (size_t i = 0; i < devices.size(); ++i) {
    bool found = false;
    for (const PoolBuild& p : pools) {
      if (p.node && !Selected(nodes, *p.node)) continue;
      for (const auto& group : p.content.device_groups) {
        for (const api::Device& d : group) found |= d.name == devices[i];
      }
    }
    if (!found) {
      return absl::InvalidArgumentError(absl::StrCat(ctx.who, ": ", AV(path), ".devices[", i, "]: Not found: \"",
                                                     devices[i], "\": the pool has no such device"));
    }
  }
  return absl::OkStatus();
}

template <typename F>
void ForDevices(std::vector<PoolBuild>& pools, const std::vector<std::string>& nodes,
                const std::vector<std::string>& devices, F f) {
  for (PoolBuild& p : pools) {
    if (p.node && !Selected(nodes, *p.node)) continue;
    for (auto& group : p.content.device_groups) {
      for (api::Device& d : group) {
        if (Selected(devices, d.name.value_or(""))) f(d);
      }
    }
  }
}

template <typename Pred>
void RemoveDevices(std::vector<PoolBuild>& pools, const std::vector<std::string>& nodes,
                   const std::vector<std::string>& devices, Pred keep_anyway) {
  for (PoolBuild& p : pools) {
    if (p.node && !Selected(nodes, *p.node)) continue;
    for (auto& group : p.content.device_groups) {
      group.erase(std::remove_if(group.begin(), group.end(),
                                 [&](const api::Device& d) {
                                   return Selected(devices, d.name.value_or("")) && !keep_anyway();
                                 }),
                  group.end());
    }
  }
}

api::DeviceTaint Taint(std::string key, std::optional<std::string> value, std::string effect) {
  api::DeviceTaint t;
  t.key = std::move(key);
  t.value = std::move(value);
  t.effect = std::move(effect);
  return t;
}

// L: a std::vector<std::string> or an api::BoxedVector<std::string>.
template <typename L>
void AddUnique(L& list, const std::string& value) {
  if (std::find(list.begin(), list.end(), value) == list.end()) list.push_back(value);
}

// The device-level part of the spec: overrides, binding conditions, taints, device faults.
absl::Status ApplyDeviceSpec(const Context& ctx, std::vector<PoolBuild>& pools, bool faults) {
  const SimulatedDevicePoolSpec& spec = ctx.pool.spec;
  if (!faults) {
    ForDevices(pools, {}, {}, [&](api::Device& d) {
      for (const auto& [k, v] : spec.attributes) d.attributes.Set(k, v);
      for (const auto& [k, v] : spec.capacity) d.capacity.Set(k, v);
      for (const std::string& c : spec.binding_conditions) AddUnique(d.binding_conditions, c);
      for (const std::string& c : spec.binding_failure_conditions) AddUnique(d.binding_failure_conditions, c);
      if (spec.binds_to_node) d.binds_to_node = spec.binds_to_node;
    });
    for (size_t i = 0; i < spec.taints.size(); ++i) {
      const TaintSpec& t = spec.taints[i];
      RETURN_IF_ERROR(CheckTargets(ctx, pools, t.nodes, t.devices, absl::StrCat("spec.taints[", i, "]")));
      ForDevices(pools, t.nodes, t.devices, [&](api::Device& d) { d.taints.push_back(t.taint); });
    }
    return absl::OkStatus();
  }
  for (size_t i = 0; i < spec.faults.size(); ++i) {
    const Fault& f = spec.faults[i];
    RETURN_IF_ERROR(CheckTargets(ctx, pools, f.nodes, f.devices, absl::StrCat("spec.faults[", i, "]")));
    switch (f.type) {
      case FaultType::kTaint:
        ForDevices(pools, f.nodes, f.devices, [&](api::Device& d) { d.taints.push_back(*f.taint); });
        break;
      case FaultType::kXid: {
        const bool application = std::find(std::begin(kApplicationXids), std::end(kApplicationXids), f.xid) !=
                                 std::end(kApplicationXids);
        ForDevices(pools, f.nodes, f.devices, [&](api::Device& d) {
          d.taints.push_back(Taint(absl::StrCat(ctx.driver, "/xid"), absl::StrCat(f.xid),
                                   application ? "None" : "NoSchedule"));
        });
        break;
      }
      case FaultType::kGpuLost:
        ForDevices(pools, f.nodes, f.devices, [&](api::Device& d) {
          d.taints.push_back(Taint(absl::StrCat(ctx.driver, "/gpu-lost"), std::nullopt, "NoSchedule"));
        });
        break;
      case FaultType::kHealthUnknown:
        ForDevices(pools, f.nodes, f.devices, [&](api::Device& d) {
          d.taints.push_back(Taint(absl::StrCat(ctx.driver, "/unmonitored"), std::nullopt, "None"));
        });
        break;
      case FaultType::kBindingFailure:
        ForDevices(pools, f.nodes, f.devices, [&](api::Device& d) {
          if (d.binding_conditions.empty()) d.binding_conditions.push_back(kBindingReadyCondition);
          AddUnique(d.binding_failure_conditions, kBindingFailedCondition);
        });
        break;
      case FaultType::kRemoveDevice:
        RemoveDevices(pools, f.nodes, f.devices, [] { return false; });
        break;
      case FaultType::kFlap: {
        // Absent during even phases (so tick 0, what offline expansion shows, has the devices gone).
        const bool present = (ctx.options.tick / f.period) % 2 == 1;
        RemoveDevices(pools, f.nodes, f.devices, [present] { return present; });
        break;
      }
      case FaultType::kRemoveSlice:
      case FaultType::kIncompletePool:
      case FaultType::kStaleGeneration:
        break;  // slice-level: applied after layout
    }
  }
  return absl::OkStatus();
}

bool Advanced(const api::Device& d) { return !d.taints.empty() || !d.consumes_counters.empty(); }

// Splits a pool into slice specs (without pool/generation/names yet).
std::vector<api::ResourceSliceSpec> Layout(const PoolBuild& p) {
  std::vector<api::ResourceSliceSpec> out;
  const auto& sets = p.content.shared_counters;
  for (size_t i = 0; i < sets.size(); i += api::kResourceSliceMaxSharedCounters) {
    api::ResourceSliceSpec s;
    const size_t end = std::min(sets.size(), i + api::kResourceSliceMaxSharedCounters);
    s.shared_counters.assign(sets.begin() + static_cast<long>(i), sets.begin() + static_cast<long>(end));
    out.push_back(std::move(s));
  }
  for (const auto& group : p.content.device_groups) {
    const bool advanced = std::any_of(group.begin(), group.end(), Advanced);
    const size_t limit = advanced ? api::kResourceSliceMaxDevicesWithTaintsOrConsumesCounters
                                  : api::kResourceSliceMaxDevices;
    if (group.empty()) {
      out.emplace_back();  // every device of the group is gone: the slice stays, empty
      continue;
    }
    for (size_t i = 0; i < group.size(); i += limit) {
      api::ResourceSliceSpec s;
      const size_t end = std::min(group.size(), i + limit);
      s.devices.assign(group.begin() + static_cast<long>(i), group.begin() + static_cast<long>(end));
      out.push_back(std::move(s));
    }
  }
  return out;
}

size_t DeviceSliceCount(const PoolBuild& p) {
  size_t n = 0;
  for (const auto& s : Layout(p)) n += s.shared_counters.empty() ? 1 : 0;
  return n;
}

api::ResourceSlice MakeSlice(const Context& ctx, const PoolBuild& p, api::ResourceSliceSpec spec, std::string name,
                             int64_t generation, int64_t count) {
  api::ResourceSlice s;
  s.metadata.name = std::move(name);
  s.metadata.labels.Set(kManagedByLabel, kManagedByValue);
  s.metadata.labels.Set(kPoolLabel, ctx.pool.metadata.name.value_or(""));
  if (ctx.options.owner) s.metadata.owner_references.push_back(*ctx.options.owner);
  spec.driver = ctx.driver;
  api::ResourcePool pool;
  pool.name = p.pool_name;
  pool.generation = generation;
  pool.resource_slice_count = count;
  spec.pool = pool;
  if (p.node) {
    spec.node_name = *p.node;
  } else if (ctx.pool.spec.nodes.node_selector) {
    spec.node_selector = *ctx.pool.spec.nodes.node_selector;
  } else {
    spec.all_nodes = true;
  }
  s.spec = std::move(spec);
  return s;
}

std::string SliceName(const Context& ctx, const PoolBuild& p, size_t index, std::string_view suffix) {
  const std::string base = ctx.pool.metadata.name.value_or("");
  if (p.node) return absl::StrCat(base, "-", *p.node, "-", index, AV(suffix));
  return absl::StrCat(base, "-", index, AV(suffix));
}

}  // namespace

absl::StatusOr<Expansion> Expand(const SimulatedDevicePool& pool, const ExpandOptions& options) {
  RETURN_IF_ERROR(ValidateSimulatedDevicePool(pool));
  const ProfileInfo* profile = FindProfile(pool.spec.profile);
  Context ctx{pool, absl::StrCat(kKind, " \"", pool.metadata.name.value_or(""), "\""),
              pool.spec.driver.empty() ? std::string(profile->driver) : pool.spec.driver, options};

  std::vector<PoolBuild> pools;
  if (!pool.spec.nodes.names.empty()) {
    for (const std::string& node : pool.spec.nodes.names) pools.push_back({node, node, {}});
  } else {
    pools.push_back({pool.metadata.name.value_or(""), std::nullopt, {}});
  }
  for (PoolBuild& p : pools) {
    ASSIGN_OR_RETURN(p.content, GeneratePool(pool, *profile, ctx.driver, p.pool_name));
  }
  RETURN_IF_ERROR(ApplyDeviceSpec(ctx, pools, /*faults=*/false));
  // The real driver's layout rule is checked on what the user asked for, before faults: a fault may
  // legitimately make a driver republish differently.
  for (const PoolBuild& p : pools) {
    if (p.content.single_slice && DeviceSliceCount(p) > 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          ctx.who, ": spec.taints: Invalid value: profile ", AV(profile->name),
          " publishes a node's devices in one ResourceSlice, which holds at most 64 devices once they have taints; "
          "taint fewer devices or lower spec.devicesPerNode"));
    }
  }
  RETURN_IF_ERROR(ApplyDeviceSpec(ctx, pools, /*faults=*/true));

  Expansion out;
  std::vector<api::ResourceSlice> stale;
  for (const PoolBuild& p : pools) {
    std::vector<api::ResourceSliceSpec> specs = Layout(p);
    int64_t generation = pool.spec.pool_generation;
    int64_t extra = 0;
    bool stale_generation = false;
    for (size_t i = 0; i < pool.spec.faults.size(); ++i) {
      const Fault& f = pool.spec.faults[i];
      if (p.node && !Selected(f.nodes, *p.node)) continue;
      if (f.type == FaultType::kRemoveSlice) {
        if (specs.empty()) continue;
        const int64_t index = f.slice.value_or(static_cast<int64_t>(specs.size()) - 1);
        if (index >= static_cast<int64_t>(specs.size())) {
          return absl::InvalidArgumentError(absl::StrCat(ctx.who, ": spec.faults[", i, "].slice: Invalid value: ", index,
                                                         ": pool ", p.pool_name, " has ", specs.size(), " slices"));
        }
        specs.erase(specs.begin() + index);
      } else if (f.type == FaultType::kIncompletePool) {
        extra += f.missing_slices;
      } else if (f.type == FaultType::kStaleGeneration) {
        stale_generation = true;
      }
    }
    const int64_t count = static_cast<int64_t>(specs.size()) + extra;
    if (stale_generation) {
      // The old generation stays behind, complete, under names of its own; the pool moves on.
      for (size_t i = 0; i < specs.size(); ++i) {
        stale.push_back(MakeSlice(ctx, p, specs[i], SliceName(ctx, p, i, "-stale"), generation,
                                  static_cast<int64_t>(specs.size())));
      }
      ++generation;
    }
    for (size_t i = 0; i < specs.size(); ++i) {
      out.slices.push_back(MakeSlice(ctx, p, specs[i], SliceName(ctx, p, i, ""), generation, count));
    }
    out.pools.push_back({ctx.driver, p.pool_name, generation, count});
  }
  for (api::ResourceSlice& s : stale) out.slices.push_back(std::move(s));

  for (const api::ResourceSlice& s : out.slices) {
    std::vector<api::FieldError> errors = api::ValidateResourceSlice(s);
    if (!errors.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat(ctx.who, ": the expanded slices would be rejected (check spec.attributes, spec.capacity, "
                                "spec.deviceTemplate and spec.taints): ",
                       api::FormatInvalid("ResourceSlice", api::kGroup, s.metadata.name.value_or(""), errors)));
    }
  }
  return out;
}

absl::StatusOr<Expansion> ExpandAll(const std::vector<SimulatedDevicePool>& pools, const ExpandOptions& options) {
  Expansion out;
  std::map<std::pair<std::string, std::string>, std::string> pool_owner;
  std::map<std::string, std::string> slice_owner;
  for (const SimulatedDevicePool& pool : pools) {
    const std::string name = pool.metadata.name.value_or("");
    ASSIGN_OR_RETURN(Expansion e, Expand(pool, options));
    for (const PublishedPool& p : e.pools) {
      auto [it, inserted] = pool_owner.emplace(std::make_pair(p.driver, p.pool), name);
      if (!inserted) {
        return absl::InvalidArgumentError(absl::StrCat(kKind, " \"", name, "\": pool ", p.driver, "/", p.pool,
                                                       " is already published by ", kKind, " \"", it->second,
                                                       "\" (one driver publishes one pool per node)"));
      }
      out.pools.push_back(p);
    }
    for (api::ResourceSlice& s : e.slices) {
      auto [it, inserted] = slice_owner.emplace(s.metadata.name.value_or(""), name);
      if (!inserted) {
        return absl::InvalidArgumentError(absl::StrCat(kKind, " \"", name, "\": ResourceSlice \"", it->first,
                                                       "\" is already published by ", kKind, " \"", it->second, "\""));
      }
      out.slices.push_back(std::move(s));
    }
  }
  return out;
}

}  // namespace draforge::sim
