// Devices as JSON: openapi.json's DeviceList (GET /api/v1/devices), one page of ListDevices().
#ifndef DRAFORGE_ANALYSIS_DEVICES_JSON_H_
#define DRAFORGE_ANALYSIS_DEVICES_JSON_H_

#include <cstddef>
#include <string>

#include "analysis/inventory.h"
#include "store/cluster.h"

namespace draforge::analysis {

// The server's paging defaults and bound (openapi.json: limit 1..10000, default 1000).
inline constexpr size_t kDefaultDeviceLimit = 1000;
inline constexpr size_t kMaxDeviceLimit = 10000;

// {"snapshot":{...},"total":N,"offset":O,"limit":L,"items":[Device...]}: the devices matching
// `filter` (sorted by driver, pool, device), items [offset, offset + limit) of them. `total` counts
// every match. Never fails; the caller bounds `limit`.
std::string DevicesJson(const store::Snapshot& snapshot, const DeviceFilter& filter, size_t offset, size_t limit);

}  // namespace draforge::analysis

#endif  // DRAFORGE_ANALYSIS_DEVICES_JSON_H_
