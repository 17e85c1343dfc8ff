// Pools as JSON: openapi.json's PoolList (GET /api/v1/pools), the one pool schema of the server,
// the C ABI (draforge_inventory_pools_json), the CLI and Python.
#ifndef DRAFORGE_ANALYSIS_POOLS_JSON_H_
#define DRAFORGE_ANALYSIS_POOLS_JSON_H_

#include <string>

#include "analysis/inventory.h"
#include "store/cluster.h"

namespace draforge::analysis {

// {"snapshot":{...},"items":[Pool...]}: ListPools(snapshot, filter), sorted by (driver, pool).
std::string PoolsJson(const store::Snapshot& snapshot, const PoolFilter& filter = {});

}  // namespace draforge::analysis

#endif  // DRAFORGE_ANALYSIS_POOLS_JSON_H_
