// Tables of a snapshot's objects, as `draforge get` and `draforge demo` print them, rendered from the
// C ABI's JSON (the snapshot's objects, the inventory's pools, devices and pods).
#ifndef DRAFORGE_EXAMPLES_CLI_REPORT_H_
#define DRAFORGE_EXAMPLES_CLI_REPORT_H_

#include <optional>
#include <string>
#include <string_view>

#include "draforge/draforge.hpp"
#include "rapidjson/document.h"
#include "table.h"

namespace draforge::cli {

// What `get` lists: a stored kind, or one of the derived views "pools" and "devices".
struct GetTarget {
  std::string kind;  // "ResourceSlice"; "" for a derived view
  bool namespaced = false;
  std::string view;  // "pools" or "devices" when kind is ""
};

// Parses a kind as kubectl accepts it ("resourceslices", "ResourceSlice", "pods": draforge_kind_info_json)
// or a derived view ("pools", "devices"); nullopt when unknown.
std::optional<GetTarget> ParseGetTarget(std::string_view name);

struct TableFilter {
  std::string ns;    // empty: every namespace
  std::string name;  // empty: every object
};

// The table for `target`. Namespaced kinds get a NAMESPACE column. Fails only when the ABI does.
draforge::Result<Table> MakeTable(const draforge::Snapshot& snapshot, const GetTarget& target,
                                  const TableFilter& filter);

// The pools of a ResourcePoolStatusRequestStatus (draforge_inventory_pool_status_json) as a table:
// one row per pool with its device counts, partition and shareable summaries, validation error.
Table PoolAvailabilityTable(const rapidjson::Value& status);

}  // namespace draforge::cli

#endif  // DRAFORGE_EXAMPLES_CLI_REPORT_H_
