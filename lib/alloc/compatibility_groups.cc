#include "alloc/internal/compatibility_groups.h"

#include <algorithm>

#include "alloc/internal/sorted_strings.h"

namespace draforge::alloc::internal {

bool CompatibilityGroupIntersection::Admits(const std::vector<std::string>& declared) const {
  if (!has_members) return true;
  if (declared.empty()) return all_empty;
  if (all_empty) return false;
  return SortedIntersects(groups, declared);
}

CompatibilityGroupIntersection CompatibilityGroupIntersection::With(const std::vector<std::string>& declared) const {
  CompatibilityGroupIntersection out = *this;
  if (!has_members) {
    out.has_members = true;
    out.all_empty = declared.empty();
    out.groups = declared;
    return out;
  }
  // A group-less side leaves the state as it is (Admits made sure both sides agree).
  if (all_empty || declared.empty()) return out;
  out.groups = SortedIntersection(groups, declared);
  return out;
}

std::vector<std::string> CompatibilityGroupSet(const std::vector<std::string>& declared) {
  std::vector<std::string> out = declared;
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

bool SliceUsesCompatibilityGroups(const api::ResourceSlice& slice) {
  if (!slice.spec) return false;
  for (const api::Device& d : slice.spec->devices) {
    for (const api::DeviceCounterConsumption& c : d.consumes_counters) {
      if (!c.compatibility_groups.empty()) return true;
    }
  }
  return false;
}

std::map<std::string, CompatibilityGroupIntersection> AllocatedCompatibilityGroups(
    std::string_view driver, std::string_view pool, const std::vector<const api::ResourceSlice*>& slices,
    const AllocatedState& state) {
  std::map<std::string, CompatibilityGroupIntersection> out;
  for (const api::ResourceSlice* s : slices) {
    if (!s->spec) continue;
    for (const api::Device& d : s->spec->devices) {
      if (d.consumes_counters.empty()) continue;
      if (!state.IsDeviceAllocated(DeviceID{std::string(driver), std::string(pool), d.name.value_or("")})) continue;
      for (const api::DeviceCounterConsumption& c : d.consumes_counters) {
        auto& cur = out[c.counter_set.value_or("")];
        cur = cur.With(CompatibilityGroupSet(c.compatibility_groups));
      }
    }
  }
  return out;
}

bool AdmittedByAllocated(const std::map<std::string, CompatibilityGroupIntersection>& allocated,
                         const api::Device& device) {
  for (const api::DeviceCounterConsumption& c : device.consumes_counters) {
    auto it = allocated.find(c.counter_set.value_or(""));
    if (it != allocated.end() && !it->second.Admits(CompatibilityGroupSet(c.compatibility_groups))) return false;
  }
  return true;
}

bool CompatibleWith(const std::map<std::string, CompatibilityGroupIntersection>& allocated, const api::Device& a,
                    const api::Device& b, std::string* counter_set) {
  for (const api::DeviceCounterConsumption& ca : a.consumes_counters) {
    const std::string set = ca.counter_set.value_or("");
    for (const api::DeviceCounterConsumption& cb : b.consumes_counters) {
      if (cb.counter_set.value_or("") != set) continue;
      CompatibilityGroupIntersection cur;
      if (auto it = allocated.find(set); it != allocated.end()) cur = it->second;
      cur = cur.With(CompatibilityGroupSet(ca.compatibility_groups));
      if (!cur.Admits(CompatibilityGroupSet(cb.compatibility_groups))) {
        if (counter_set != nullptr) *counter_set = set;
        return false;
      }
    }
  }
  return true;
}

const std::map<std::string, CompatibilityGroupIntersection>& CompatibilityGroupTracker::Baseline(int pool_index,
                                                                                                 const Pool& pool) {
  auto it = baseline_.find(pool_index);
  if (it != baseline_.end()) return it->second;
  std::vector<const api::ResourceSlice*> slices = pool.device_slices;
  slices.insert(slices.end(), pool.other_device_slices.begin(), pool.other_device_slices.end());
  return baseline_.emplace(pool_index, AllocatedCompatibilityGroups(pool.driver, pool.pool, slices, state_))
      .first->second;
}

bool CompatibilityGroupTracker::CheckAndConsume(int pool_index, const Pool& pool, const api::Device& device,
                                                std::vector<SavedCompatibilityGroup>& saved) {
  auto& running = running_[pool_index];
  const auto& baseline = Baseline(pool_index, pool);
  const size_t first = saved.size();
  for (const api::DeviceCounterConsumption& c : device.consumes_counters) {
    const std::string set = c.counter_set.value_or("");
    auto it = running.find(set);
    const bool existed = it != running.end();
    CompatibilityGroupIntersection cur;
    if (existed) {
      cur = it->second;
    } else if (auto b = baseline.find(set); b != baseline.end()) {
      cur = b->second;
    }
    const std::vector<std::string> declared = CompatibilityGroupSet(c.compatibility_groups);
    if (!cur.Admits(declared)) {
      std::vector<SavedCompatibilityGroup> mine(std::make_move_iterator(saved.begin() + first),
                                                std::make_move_iterator(saved.end()));
      saved.resize(first);
      Restore(pool_index, mine);
      return false;
    }
    running[set] = cur.With(declared);
    saved.push_back(SavedCompatibilityGroup{set, std::move(cur), existed});
  }
  return true;
}

void CompatibilityGroupTracker::Restore(int pool_index, std::vector<SavedCompatibilityGroup>& saved) {
  auto& running = running_[pool_index];
  // Newest first, so that a counter set listed twice by one device unwinds to its oldest state.
  for (auto it = saved.rbegin(); it != saved.rend(); ++it) {
    if (it->existed) {
      running[it->counter_set] = std::move(it->previous);
    } else {
      running.erase(it->counter_set);
    }
  }
  saved.clear();
}

}  // namespace draforge::alloc::internal
