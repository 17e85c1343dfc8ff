#include "alloc/internal/available_counters.h"

namespace draforge::alloc::internal {

void AvailableCounters::Resize(size_t pools, size_t devices) {
  pool_counters_.assign(pools, PoolCounters{});
  device_uses_.assign(devices, DeviceUses{});
}

// The pool's counters: counter sets indexed once per search, minus what allocated devices consume.
AvailableCounters::PoolCounters& AvailableCounters::Available(int pool_index) {
  PoolCounters& pc = pool_counters_[pool_index];
  if (pc.ready) return pc;
  pc.ready = true;
  const Pool& p = pools_[pool_index];
  for (const auto& [name, set] : p.counter_sets) {
    for (const auto& [counter, value] : set->counters) {
      pc.index.emplace(std::make_pair(name, counter), static_cast<int>(pc.available.size()));
      pc.available.push_back(value.value.value_or(api::Quantity()));
    }
  }
  pc.consumed.assign(pc.available.size(), api::Quantity());
  for (const auto* list : {&p.device_slices, &p.other_device_slices}) {
    for (const api::ResourceSlice* s : *list) {
      if (!s->spec) continue;
      for (const api::Device& d : s->spec->devices) {
        if (d.consumes_counters.empty()) continue;
        if (!state_.IsDeviceAllocated(DeviceID{std::string(p.driver), std::string(p.pool), d.name.value_or("")})) {
          continue;
        }
        for (const auto& cc : d.consumes_counters) {
          const std::string set = cc.counter_set.value_or("");
          for (const auto& [counter, value] : cc.counters) {
            auto it = pc.index.find(std::make_pair(set, counter));
            if (it != pc.index.end()) {
              pc.available[it->second] = pc.available[it->second].Sub(value.value.value_or(api::Quantity()));
            }
          }
        }
      }
    }
  }
  for (const api::Quantity& q : pc.available) {
    if (q.Sign() < 0) pc.overcommitted = true;
  }
  return pc;
}

// Every counter a valid pool's device names exists (BuildPool checks it); an unknown one,
// unreachable, is ignored.
const std::vector<std::pair<int, api::Quantity>>& AvailableCounters::Uses(int device_index, int pool_index,
                                                                          const api::Device& device) {
  DeviceUses& du = device_uses_[device_index];
  if (du.resolved) return du.uses;
  du.resolved = true;
  PoolCounters& pc = Available(pool_index);
  for (const auto& cc : device.consumes_counters) {
    const std::string set = cc.counter_set.value_or("");
    for (const auto& [counter, value] : cc.counters) {
      auto it = pc.index.find(std::make_pair(set, counter));
      if (it != pc.index.end()) du.uses.emplace_back(it->second, value.value.value_or(api::Quantity()));
    }
  }
  return du.uses;
}

void AvailableCounters::Change(int device_index, int pool_index, const api::Device& device, bool add) {
  PoolCounters& pc = Available(pool_index);
  for (const auto& [i, amount] : Uses(device_index, pool_index, device)) {
    pc.consumed[i] = add ? pc.consumed[i].Add(amount) : pc.consumed[i].Sub(amount);
  }
}

bool AvailableCounters::Reserve(int device_index, int pool_index, const api::Device& device) {
  PoolCounters& pc = Available(pool_index);
  if (pc.overcommitted) return false;
  Change(device_index, pool_index, device, true);
  for (const auto& [i, amount] : Uses(device_index, pool_index, device)) {
    if (pc.available[i].Compare(pc.consumed[i]) < 0) {
      Change(device_index, pool_index, device, false);
      return false;
    }
  }
  return true;
}

void AvailableCounters::Release(int device_index, int pool_index, const api::Device& device) {
  Change(device_index, pool_index, device, false);
}

}  // namespace draforge::alloc::internal
