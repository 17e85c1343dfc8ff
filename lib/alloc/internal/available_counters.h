// Shared counters during one search (DRAPartitionableDevices): what each pool's counter sets hold,
// less what allocated devices consume, less what the devices this search is allocating consume
// (upstream's checkAvailableCounters and its consumedCounters).
#ifndef DRAFORGE_ALLOC_INTERNAL_AVAILABLE_COUNTERS_H_
#define DRAFORGE_ALLOC_INTERNAL_AVAILABLE_COUNTERS_H_

#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "alloc/allocator.h"
#include "alloc/internal/pools.h"
#include "api/quantity.h"
#include "api/resource_slice.h"

namespace draforge::alloc::internal {

// Devices are named by the caller's index (0 .. devices-1) and the index of their pool in `pools`.
// Pools are indexed on first use: a search that never meets a device consuming counters pays nothing.
class AvailableCounters {
 public:
  // `pools` and `state` are borrowed and must outlive this object; `pools` may be filled later,
  // before Resize.
  AvailableCounters(const std::vector<Pool>& pools, const AllocatedState& state) : pools_(pools), state_(state) {}

  // Forgets everything and makes room for `pools` pools and `devices` devices.
  void Resize(size_t pools, size_t devices);

  // Adds what `device` consumes. Upstream checks every counter of the pool afterwards; before the
  // call every counter fits (a reservation that breaks one is undone here), so only the counters
  // the device consumes can break, unless allocated devices already over-consume some counter of
  // the pool (then nothing fits). false: it does not fit, and nothing is reserved.
  bool Reserve(int device_index, int pool_index, const api::Device& device);
  // Undoes one successful Reserve of the same device.
  void Release(int device_index, int pool_index, const api::Device& device);

 private:
  // The shared counters of one pool as flat arrays: one entry per (counter set, counter).
  struct PoolCounters {
    bool ready = false;
    // Some counter is already over-consumed by allocated devices: upstream's check of every counter
    // then fails every device of the pool that consumes counters.
    bool overcommitted = false;
    std::map<std::pair<std::string, std::string>, int, std::less<>> index;
    std::vector<api::Quantity> available;
    std::vector<api::Quantity> consumed;
  };
  // A device's consumesCounters as (index into its pool's arrays, amount); resolved on first use.
  struct DeviceUses {
    bool resolved = false;
    std::vector<std::pair<int, api::Quantity>> uses;
  };

  PoolCounters& Available(int pool_index);
  const std::vector<std::pair<int, api::Quantity>>& Uses(int device_index, int pool_index, const api::Device& device);
  void Change(int device_index, int pool_index, const api::Device& device, bool add);

  const std::vector<Pool>& pools_;
  const AllocatedState& state_;
  std::vector<PoolCounters> pool_counters_;
  std::vector<DeviceUses> device_uses_;
};

}  // namespace draforge::alloc::internal

#endif  // DRAFORGE_ALLOC_INTERNAL_AVAILABLE_COUNTERS_H_
