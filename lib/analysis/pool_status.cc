#include "analysis/pool_status.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "analysis/inventory.h"
#include "api/validation.h"

namespace draforge::analysis {
namespace {

// [counter set][counter] -> amount left.
using Counters = std::map<std::string, std::map<std::string, api::Quantity>>;

// What the views need of one device of a pool's current slices.
struct DeviceRecord {
  const api::Device* device = nullptr;
  std::string name;
  // The grouping attribute: the slice's spec.partitionTypeAttribute, or the request's default
  // (resolved later); empty when neither names one.
  std::string partition_attr;
  std::string partition_type;
  bool has_partition_type = false;
};

// One pool as the controller gathers it: the slices at its highest generation.
struct PoolSlices {
  int64_t generation = 0;
  std::vector<const api::ResourceSlice*> slices;  // at `generation`, by name
};

// What allocation results say about one pool (results without adminAccess only).
struct PoolAllocations {
  std::set<std::string> in_use;                          // device names
  std::map<std::string, api::Quantity> consumed_capacity;  // capacity name -> sum of consumedCapacity
};

std::string Truncated(std::string message) {
  if (message.size() > kPoolValidationErrorMaxBytes) message.resize(kPoolValidationErrorMaxBytes);
  return message;
}

int64_t GenerationOf(const api::ResourceSlice& slice) {
  return slice.spec && slice.spec->pool ? slice.spec->pool->generation.value_or(0) : 0;
}

// Pools of `driver` (only `pool_name` when not empty): pool name -> slices at its highest generation.
std::map<std::string, PoolSlices> GatherPools(const store::Snapshot& snapshot, const std::string& driver,
                                              const std::string& pool_name) {
  std::map<std::string, PoolSlices> pools;
  for (const api::ResourceSlice* slice : snapshot.SlicesByDriver(driver)) {
    if (!slice->spec) continue;
    const std::string name = slice->spec->pool ? slice->spec->pool->name.value_or("") : "";
    if (!pool_name.empty() && name != pool_name) continue;
    const int64_t generation = GenerationOf(*slice);
    auto [it, inserted] = pools.try_emplace(name);
    PoolSlices& p = it->second;
    if (inserted || generation > p.generation) {
      p.generation = generation;
      p.slices.clear();
    }
    if (generation == p.generation) p.slices.push_back(slice);
  }
  return pools;
}

std::map<std::string, PoolAllocations> GatherAllocations(const store::Snapshot& snapshot, const std::string& driver) {
  std::map<std::string, PoolAllocations> out;
  for (const store::AllocatedDevice& a : snapshot.AllAllocations()) {
    if (a.driver != driver || a.admin_access) continue;
    PoolAllocations& p = out[std::string(a.pool)];
    p.in_use.insert(std::string(a.device));
    for (const auto& [name, quantity] : a.result->consumed_capacity) {
      api::Quantity& sum = p.consumed_capacity[name];
      sum = sum.Add(quantity);
    }
  }
  return out;
}

bool IsUnavailable(const store::Snapshot& snapshot, const std::string& driver, const std::string& pool,
                   const api::Device& device) {
  for (const auto& taint : device.taints) {
    if (IsEffectiveTaint(taint)) return true;
  }
  for (const api::DeviceTaintRule* rule : snapshot.TaintRulesFor(driver, pool, device.name.value_or(""))) {
    if (rule->spec->taint && IsEffectiveTaint(*rule->spec->taint)) return true;
  }
  return false;
}

// The string value of attribute `fqn` of a device. An attribute in the driver's domain may be
// written bare ("profile" for "gpu.example.com/profile"); the qualified spelling wins.
std::optional<std::string> PartitionTypeOf(const std::string& driver, const api::Device& device, std::string_view fqn) {
  const api::DeviceAttribute* attr = device.attributes.Find(fqn);
  if (attr == nullptr) {
    const std::string prefix = absl::StrCat(driver, "/");
    if (fqn.substr(0, prefix.size()) == prefix) attr = device.attributes.Find(fqn.substr(prefix.size()));
  }
  if (attr == nullptr || !attr->string_value()) return std::nullopt;
  return std::string(*attr->string_value());
}

// The devices of the pool, each with its grouping attribute and partition type resolved. The
// request's default applies only when no device's slice declares an attribute.
std::vector<DeviceRecord> DeviceRecords(const std::string& driver, const PoolSlices& pool,
                                        const std::optional<std::string>& default_attr) {
  std::vector<DeviceRecord> devices;
  bool pool_declares = false;
  for (const api::ResourceSlice* slice : pool.slices) {
    const std::string attr = slice->spec->partition_type_attribute.value_or("");
    for (const api::Device& device : slice->spec->devices) {
      devices.push_back({.device = &device, .name = device.name.value_or(""), .partition_attr = attr});
      pool_declares = pool_declares || !attr.empty();
    }
  }
  for (DeviceRecord& d : devices) {
    if (d.partition_attr.empty()) {
      if (pool_declares || !default_attr) continue;
      d.partition_attr = *default_attr;
    }
    if (auto type = PartitionTypeOf(driver, *d.device, d.partition_attr)) {
      d.partition_type = *std::move(type);
      d.has_partition_type = true;
    }
  }
  return devices;
}

bool Fits(const api::Device& device, const Counters& left) {
  for (const auto& consumption : device.consumes_counters) {
    auto set = left.find(consumption.counter_set.value_or(""));
    for (const auto& [name, counter] : consumption.counters) {
      if (set == left.end()) return false;
      auto have = set->second.find(name);
      if (have == set->second.end()) return false;
      if (have->second < counter.value.value_or(api::Quantity())) return false;
    }
  }
  return true;
}

void Deduct(const api::Device& device, Counters& left) {
  for (const auto& consumption : device.consumes_counters) {
    auto set = left.find(consumption.counter_set.value_or(""));
    if (set == left.end()) continue;
    for (const auto& [name, counter] : consumption.counters) {
      auto have = set->second.find(name);
      if (have == set->second.end()) continue;
      have->second = have->second.Sub(counter.value.value_or(api::Quantity()));
    }
  }
}

// The pool's shared counters (sets of the same name in several slices merge, a later slice's counter
// replacing an earlier one of the same name) minus what the allocated devices consume, once per
// device.
Counters CountersLeft(const PoolSlices& pool, const std::vector<DeviceRecord>& devices,
                      const std::set<std::string>& in_use) {
  Counters left;
  for (const api::ResourceSlice* slice : pool.slices) {
    for (const auto& set : slice->spec->shared_counters) {
      auto& counters = left[set.name.value_or("")];
      for (const auto& [name, counter] : set.counters) counters[name] = counter.value.value_or(api::Quantity());
    }
  }
  for (const DeviceRecord& d : devices) {
    if (in_use.contains(d.name)) Deduct(*d.device, left);
  }
  return left;
}

// A device's counter cost as one comparable string ("set/counter=quantity,..." sorted).
std::string CostKey(const api::Device& device) {
  std::vector<std::string> parts;
  for (const auto& consumption : device.consumes_counters) {
    for (const auto& [name, counter] : consumption.counters) {
      parts.push_back(absl::StrCat(consumption.counter_set.value_or(""), "/", name, "=",
                                   counter.value.value_or(api::Quantity()).Canonical()));
    }
  }
  std::sort(parts.begin(), parts.end());
  return absl::StrJoin(parts, ",");
}

struct ViewResult {
  std::vector<api::PartitionSummary> partition_summary;
  std::optional<api::ShareableSummary> shareable_summary;
  std::string error;  // "" when both views are fine
};

// partitionSummary, or an error. `devices` have their partition types resolved.
std::string ComputePartitionSummary(const std::string& driver, const std::string& pool_name, const PoolSlices& pool,
                             const std::vector<DeviceRecord>& devices, const std::set<std::string>& in_use,
                             std::vector<api::PartitionSummary>& out) {
  struct Group {
    int64_t total = 0;
    std::vector<const api::Device*> fresh;  // not allocated
    std::string cost_key;
  };
  std::map<std::pair<std::string, std::string>, Group> groups;  // (attribute, type), sorted as upstream
  for (const DeviceRecord& d : devices) {
    if (d.device->consumes_counters.empty() || d.partition_attr.empty()) continue;
    if (!d.has_partition_type) {
      return absl::StrCat("PartitionTypeMissing: device ", api::GoQuote(d.name), " in pool ", driver, "/", pool_name,
                          " does not carry partition type attribute ", api::GoQuote(d.partition_attr));
    }
    Group& g = groups[{d.partition_attr, d.partition_type}];
    std::string key = CostKey(*d.device);
    if (g.total == 0) {
      g.cost_key = std::move(key);
    } else if (key != g.cost_key) {
      return absl::StrCat("PartitionCostMismatch: devices of partition type ", api::GoQuote(d.partition_type),
                          " in pool ", driver, "/", pool_name, " consume different counters");
    }
    ++g.total;
    if (!in_use.contains(d.name)) g.fresh.push_back(d.device);
  }
  const Counters baseline = CountersLeft(pool, devices, in_use);
  for (const auto& [key, g] : groups) {
    Counters left = baseline;
    int64_t allocatable = 0;
    for (const api::Device* device : g.fresh) {
      if (!Fits(*device, left)) continue;
      ++allocatable;
      Deduct(*device, left);
    }
    out.push_back({.attribute = key.first, .type = key.second, .total = g.total, .allocatable = allocatable});
  }
  if (out.size() > 32) {
    const size_t n = out.size();
    out.clear();
    return absl::StrCat("PartitionSummaryOverCap: pool ", driver, "/", pool_name, " has ", n,
                        " partition types, exceeding the maximum of 32");
  }
  return "";
}

// shareableSummary (nullopt when no device allows multiple allocations), or an error.
std::string ComputeShareableSummary(const std::string& driver, const std::string& pool_name,
                             const std::vector<DeviceRecord>& devices, const PoolAllocations& allocations,
                             std::optional<api::ShareableSummary>& out) {
  int64_t full = 0, partial = 0;
  bool any = false;
  std::map<std::string, api::Quantity> total;
  for (const DeviceRecord& d : devices) {
    if (!d.device->allow_multiple_allocations.value_or(false)) continue;
    any = true;
    ++(allocations.in_use.contains(d.name) ? partial : full);
    for (const auto& [name, capacity] : d.device->capacity) {
      api::Quantity& sum = total[name];
      sum = sum.Add(capacity.value.value_or(api::Quantity()));
    }
  }
  if (!any) return "";
  if (total.size() > 32) {
    return absl::StrCat("ShareableSummaryOverCap: pool ", driver, "/", pool_name, " has ", total.size(),
                        " shareable capacity keys, exceeding the maximum of 32");
  }
  api::ShareableSummary s{.fully_available_devices = full, .partially_available_devices = partial};
  for (const auto& [name, t] : total) {
    auto it = allocations.consumed_capacity.find(name);
    const api::Quantity consumed = it == allocations.consumed_capacity.end() ? api::Quantity() : it->second;
    api::Quantity available = t.Sub(consumed);
    if (available.Sign() < 0) available = api::Quantity::FromInt64(0, t.format());
    s.capacity.push_back({.name = name, .total = t, .consumed = consumed, .available = available});
  }
  out = std::move(s);
  return "";
}

// The partition and shareable views of a complete pool. The first structural error wins; with an
// error there is no partition summary (the shareable one stays when it alone is fine).
ViewResult PoolViews(const std::string& driver, const std::string& pool_name, const PoolSlices& pool,
                     const std::vector<DeviceRecord>& devices, const PoolAllocations& allocations) {
  ViewResult r;
  bool has_counters = false;
  for (const api::ResourceSlice* slice : pool.slices) has_counters = has_counters || !slice->spec->shared_counters.empty();
  const bool grouped =
      std::any_of(devices.begin(), devices.end(), [](const DeviceRecord& d) { return !d.partition_attr.empty(); });
  if (grouped && !has_counters) {
    r.error = absl::StrCat("PartitionTypeMissing: pool ", driver, "/", pool_name,
                           " declares partitionTypeAttribute but publishes no sharedCounters");
  } else if (grouped) {
    r.error = ComputePartitionSummary(driver, pool_name, pool, devices, allocations.in_use, r.partition_summary);
  }
  std::optional<api::ShareableSummary> shareable;
  const std::string shareable_error = ComputeShareableSummary(driver, pool_name, devices, allocations, shareable);
  if (r.error.empty()) r.error = shareable_error;
  if (shareable_error.empty()) r.shareable_summary = std::move(shareable);
  if (!r.error.empty()) r.partition_summary.clear();
  return r;
}

api::PoolStatus StatusOf(const store::Snapshot& snapshot, const std::string& driver, const std::string& pool_name,
                         const PoolSlices& pool, const PoolAllocations& allocations,
                         const std::optional<std::string>& default_attr) {
  api::PoolStatus s;
  s.driver = std::string(driver);
  s.pool_name = pool_name;
  s.generation = pool.generation;
  const std::optional<std::string>& node = pool.slices.front()->spec->node_name;
  const bool same_node = std::all_of(pool.slices.begin(), pool.slices.end(), [&](const api::ResourceSlice* slice) {
    return slice->spec->node_name.value_or("") == node.value_or("");
  });
  if (same_node && !node.value_or("").empty()) s.node_name = node;

  const int64_t slice_count = static_cast<int64_t>(pool.slices.size());
  const auto& first_pool = pool.slices.front()->spec->pool;
  const int64_t expected = first_pool ? first_pool->resource_slice_count.value_or(0) : 0;
  if (slice_count < expected) {
    s.validation_error = Truncated(absl::StrCat(std::string(kPoolIncompletePrefix), " pool ", driver, "/", pool_name,
                                                " is incomplete: observed ", slice_count, "/", expected,
                                                " slices at generation ", pool.generation));
    return s;
  }
  int64_t total = 0, unavailable = 0;
  for (const api::ResourceSlice* slice : pool.slices) {
    for (const api::Device& device : slice->spec->devices) {
      ++total;
      if (IsUnavailable(snapshot, driver, pool_name, device)) ++unavailable;
    }
  }
  const int64_t allocated = static_cast<int64_t>(allocations.in_use.size());
  s.resource_slice_count = slice_count;
  s.total_devices = total;
  s.allocated_devices = allocated;
  s.available_devices = std::max<int64_t>(0, total - allocated - unavailable);
  s.unavailable_devices = unavailable;

  ViewResult views = PoolViews(driver, pool_name, pool, DeviceRecords(driver, pool, default_attr), allocations);
  s.partition_summary = std::move(views.partition_summary);
  s.shareable_summary = std::move(views.shareable_summary);
  if (!views.error.empty()) s.validation_error = Truncated(std::move(views.error));
  return s;
}

}  // namespace

api::ResourcePoolStatusRequestStatus ComputePoolStatus(const store::Snapshot& snapshot,
                                                       const api::ResourcePoolStatusRequestSpec& spec,
                                                       const api::Time& now) {
  const std::string driver = spec.driver.value_or("");
  const std::map<std::string, PoolSlices> pools =
      driver.empty() ? std::map<std::string, PoolSlices>{} : GatherPools(snapshot, driver, spec.pool_name.value_or(""));
  const std::map<std::string, PoolAllocations> allocations = GatherAllocations(snapshot, driver);
  const PoolAllocations none;

  api::ResourcePoolStatusRequestStatus status;
  status.pool_count = static_cast<int64_t>(pools.size());
  const int64_t limit = std::max<int64_t>(0, spec.limit.value_or(kPoolStatusLimitDefault));
  for (const auto& [name, pool] : pools) {
    if (static_cast<int64_t>(status.pools.size()) >= limit) break;
    auto it = allocations.find(name);
    status.pools.push_back(StatusOf(snapshot, driver, name, pool, it == allocations.end() ? none : it->second,
                                    spec.default_partition_type_attribute));
  }
  const auto flagged = std::count_if(status.pools.begin(), status.pools.end(),
                                     [](const api::PoolStatus& p) { return p.validation_error.has_value(); });
  std::string message = absl::StrCat("Calculated status for ", status.pools.size(), " pools");
  if (flagged > 0) absl::StrAppend(&message, " (", flagged, " incomplete)");
  status.conditions.push_back({.type = "Complete",
                               .status = "True",
                               .last_transition_time = now,
                               .reason = "CalculationComplete",
                               .message = std::move(message)});
  return status;
}

bool HasIncompletePool(const api::ResourcePoolStatusRequestStatus& status) {
  return std::any_of(status.pools.begin(), status.pools.end(), [](const api::PoolStatus& p) {
    return p.validation_error && p.validation_error->starts_with(kPoolIncompletePrefix);
  });
}

}  // namespace draforge::analysis
