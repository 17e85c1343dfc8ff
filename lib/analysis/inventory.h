// Inventory: what a GPU platform reports about its devices. Counts, utilisation per driver and per
// pool, shared counters left, and per device its taints and the claims that hold it.
//
// Devices are those of each pool's current generation (older slices are being replaced by their
// driver and the allocator ignores them, so counting them would double-count). A device is
// "allocated" when an allocation result without adminAccess names it (store::Snapshot::InUse):
// admin-access results observe a device without taking it.
#ifndef DRAFORGE_ANALYSIS_INVENTORY_H_
#define DRAFORGE_ANALYSIS_INVENTORY_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "api/quantity.h"
#include "api/resource_slice.h"
#include "store/cluster.h"

namespace draforge::analysis {

// Allocated devices / devices, 0 when there are no devices.
double Utilisation(size_t allocated, size_t devices);

// One counter set of a pool (spec.sharedCounters of its current slices): what was published and
// what the allocated devices consume (devices[].consumesCounters).
struct CounterSetUsage {
  std::string name;
  std::map<std::string, api::Quantity> capacity;
  std::map<std::string, api::Quantity> consumed;  // every counter of `capacity`, 0 when unused
};

struct PoolUsage {
  std::string driver;
  std::string pool;
  std::string node;  // "" unless node-local
  int64_t generation = 0;
  int64_t resource_slice_count = 0;
  std::vector<std::string> slices;  // current generation, sorted
  size_t stale_slices = 0;
  bool complete = false;
  bool invalid = false;
  std::string invalid_reason;
  size_t devices = 0;
  size_t allocated_devices = 0;
  // Devices with at least one NoSchedule or NoExecute taint (from the slice or a DeviceTaintRule).
  size_t tainted_devices = 0;
  double utilisation = 0;
  std::vector<CounterSetUsage> shared_counters;  // sorted by name
};

struct DriverUsage {
  std::string driver;
  size_t pools = 0;
  size_t resource_slices = 0;  // every generation
  size_t devices = 0;
  size_t allocated_devices = 0;
  double utilisation = 0;
};

struct InventoryCounts {
  size_t nodes = 0;
  size_t pods = 0;
  size_t device_classes = 0;
  size_t device_taint_rules = 0;
  size_t resource_slices = 0;
  size_t pools = 0;
  size_t drivers = 0;
  size_t devices = 0;
  size_t claims = 0;
  size_t allocated_claims = 0;  // status.allocation set (reserved or not)
  size_t reserved_claims = 0;
  size_t pending_claims = 0;
  size_t allocated_devices = 0;
  size_t claim_templates = 0;
};

struct Summary {
  InventoryCounts counts;
  std::vector<DriverUsage> drivers;  // sorted by driver
  std::vector<PoolUsage> pools;      // sorted by (driver, pool)
};

struct PoolFilter {
  std::string driver;  // "" = any
  std::string node;    // "" = any; otherwise only pools local to this node
};

// Every pool matching `filter`, with usage. Never fails (bad quantities are skipped).
std::vector<PoolUsage> ListPools(const store::Snapshot& snapshot, const PoolFilter& filter = {});

// Counts and per driver/pool usage of the whole snapshot.
Summary Summarize(const store::Snapshot& snapshot);

// A taint on a device, and where it comes from.
struct DeviceTaintSource {
  api::DeviceTaint taint;
  std::string source;  // "ResourceSlice", or "DeviceTaintRule/<name>"
};

// One device of a pool's current generation. Pointers are owned by the snapshot and valid while it
// lives.
struct DeviceReport {
  std::string driver;
  std::string pool;
  const api::ResourceSlice* slice = nullptr;
  const api::Device* device = nullptr;
  size_t device_index = 0;  // position in slice->spec->devices
  std::string node;         // the device's or its slice's spec.nodeName, "" otherwise
  std::vector<DeviceTaintSource> taints;
  // Every allocation result naming the device (admin access included), sorted as the store sorts them.
  std::vector<store::AllocatedDevice> held_by;
  bool in_use = false;  // a result without adminAccess names it
};

struct DeviceFilter {
  std::string driver;
  std::string pool;
  std::string node;
  std::optional<bool> allocated;  // compares with DeviceReport::in_use
};

// The devices matching `filter`, sorted by (driver, pool, device name).
std::vector<DeviceReport> ListDevices(const store::Snapshot& snapshot, const DeviceFilter& filter = {});

// Whether the taint keeps pods off the device unless tolerated (NoSchedule, NoExecute).
bool IsEffectiveTaint(const api::DeviceTaint& taint);

}  // namespace draforge::analysis

#endif  // DRAFORGE_ANALYSIS_INVENTORY_H_
