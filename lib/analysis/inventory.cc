#include "analysis/inventory.h"

#include <algorithm>
#include <string_view>

#include "analysis/claim_state.h"

namespace draforge::analysis {
namespace {

std::string DeviceNode(const api::ResourceSlice& slice, const api::Device& device) {
  if (device.node_name) return *device.node_name;
  if (slice.spec && slice.spec->node_name) return *slice.spec->node_name;
  return {};
}

std::vector<DeviceTaintSource> TaintsOf(const store::Snapshot& snapshot, std::string_view driver,
                                        std::string_view pool, const api::Device& device) {
  std::vector<DeviceTaintSource> out;
  for (const auto& t : device.taints) out.push_back({t, "ResourceSlice"});
  for (const auto* rule : snapshot.TaintRulesFor(driver, pool, device.name.value_or(""))) {
    if (rule->spec && rule->spec->taint) {
      out.push_back({*rule->spec->taint, "DeviceTaintRule/" + rule->metadata.name.value_or("")});
    }
  }
  return out;
}

bool HasEffectiveTaint(const std::vector<DeviceTaintSource>& taints) {
  return std::any_of(taints.begin(), taints.end(), [](const auto& t) { return IsEffectiveTaint(t.taint); });
}

PoolUsage UsageOf(const store::Snapshot& snapshot, const store::PoolInfo& info) {
  PoolUsage u;
  u.driver = std::string(info.driver);
  u.pool = std::string(info.pool);
  u.node = std::string(info.node_name);
  u.generation = info.generation;
  u.resource_slice_count = info.resource_slice_count;
  u.stale_slices = info.stale_slices;
  u.complete = info.complete;
  u.invalid = info.invalid;
  u.invalid_reason = info.invalid_reason;
  std::map<std::string, CounterSetUsage> sets;
  for (const auto* slice : info.slices) {
    u.slices.push_back(slice->metadata.name.value_or(""));
    if (!slice->spec) continue;
    for (const auto& cs : slice->spec->shared_counters) {
      CounterSetUsage& set = sets[cs.name.value_or("")];
      set.name = cs.name.value_or("");
      for (const auto& [name, counter] : cs.counters) {
        if (counter.value) set.capacity[name] = *counter.value;
        set.consumed.try_emplace(name);
      }
    }
  }
  for (const auto* slice : info.slices) {
    if (!slice->spec) continue;
    for (const auto& device : slice->spec->devices) {
      ++u.devices;
      const std::string name = device.name.value_or("");
      const bool in_use = snapshot.InUse(info.driver, info.pool, name);
      if (in_use) {
        ++u.allocated_devices;
        for (const auto& consumption : device.consumes_counters) {
          auto it = sets.find(consumption.counter_set.value_or(""));
          if (it == sets.end()) continue;  // a counter set no slice publishes: an invalid pool upstream
          for (const auto& [counter, value] : consumption.counters) {
            if (value.value) it->second.consumed[counter] = it->second.consumed[counter].Add(*value.value);
          }
        }
      }
      if (HasEffectiveTaint(TaintsOf(snapshot, info.driver, info.pool, device))) ++u.tainted_devices;
    }
  }
  for (auto& [name, set] : sets) u.shared_counters.push_back(std::move(set));
  u.utilisation = Utilisation(u.allocated_devices, u.devices);
  return u;
}

}  // namespace

double Utilisation(size_t allocated, size_t devices) {
  return devices == 0 ? 0.0 : static_cast<double>(allocated) / static_cast<double>(devices);
}

bool IsEffectiveTaint(const api::DeviceTaint& taint) {
  const std::string effect = taint.effect.value_or("");
  return effect == "NoSchedule" || effect == "NoExecute";
}

std::vector<PoolUsage> ListPools(const store::Snapshot& snapshot, const PoolFilter& filter) {
  std::vector<PoolUsage> out;
  for (const auto& info : snapshot.Pools(filter.driver)) {
    if (!filter.node.empty() && info.node_name != filter.node) continue;
    out.push_back(UsageOf(snapshot, info));
  }
  return out;
}

Summary Summarize(const store::Snapshot& snapshot) {
  Summary s;
  InventoryCounts& c = s.counts;
  c.nodes = snapshot.Count(api::Kind::kNode);
  c.pods = snapshot.Count(api::Kind::kPod);
  c.device_classes = snapshot.Count(api::Kind::kDeviceClass);
  c.device_taint_rules = snapshot.Count(api::Kind::kDeviceTaintRule);
  c.resource_slices = snapshot.Count(api::Kind::kResourceSlice);
  c.claim_templates = snapshot.Count(api::Kind::kResourceClaimTemplate);
  for (const auto* claim : snapshot.ResourceClaims()) {
    ++c.claims;
    switch (StateOf(*claim)) {
      case ClaimState::kPending:
        ++c.pending_claims;
        break;
      case ClaimState::kReserved:
        ++c.reserved_claims;
        ++c.allocated_claims;
        break;
      case ClaimState::kAllocated:
        ++c.allocated_claims;
        break;
    }
  }
  s.pools = ListPools(snapshot);
  for (const auto& pool : s.pools) {
    if (s.drivers.empty() || s.drivers.back().driver != pool.driver) {
      s.drivers.push_back(DriverUsage{.driver = pool.driver});
      s.drivers.back().resource_slices = snapshot.SlicesByDriver(pool.driver).size();
    }
    DriverUsage& d = s.drivers.back();
    ++d.pools;
    d.devices += pool.devices;
    d.allocated_devices += pool.allocated_devices;
    c.devices += pool.devices;
    c.allocated_devices += pool.allocated_devices;
  }
  for (auto& d : s.drivers) d.utilisation = Utilisation(d.allocated_devices, d.devices);
  c.pools = s.pools.size();
  c.drivers = s.drivers.size();
  return s;
}

std::vector<DeviceReport> ListDevices(const store::Snapshot& snapshot, const DeviceFilter& filter) {
  std::vector<DeviceReport> out;
  for (const auto& info : snapshot.Pools(filter.driver)) {
    if (!filter.pool.empty() && info.pool != filter.pool) continue;
    std::vector<DeviceReport> pool_devices;
    for (const auto* slice : info.slices) {
      if (!slice->spec) continue;
      for (size_t i = 0; i < slice->spec->devices.size(); ++i) {
        const api::Device& device = slice->spec->devices[i];
        DeviceReport r;
        r.node = DeviceNode(*slice, device);
        if (!filter.node.empty() && r.node != filter.node) continue;
        const std::string name = device.name.value_or("");
        r.in_use = snapshot.InUse(info.driver, info.pool, name);
        if (filter.allocated && *filter.allocated != r.in_use) continue;
        r.driver = std::string(info.driver);
        r.pool = std::string(info.pool);
        r.slice = slice;
        r.device = &device;
        r.device_index = i;
        r.taints = TaintsOf(snapshot, info.driver, info.pool, device);
        r.held_by = snapshot.Allocations(info.driver, info.pool, name);
        pool_devices.push_back(std::move(r));
      }
    }
    // Devices of one pool may be spread over several slices: order them by name, not by slice.
    std::stable_sort(pool_devices.begin(), pool_devices.end(), [](const DeviceReport& a, const DeviceReport& b) {
      return a.device->name.value_or("") < b.device->name.value_or("");
    });
    for (auto& r : pool_devices) out.push_back(std::move(r));
  }
  return out;
}

}  // namespace draforge::analysis
