// Tables of a snapshot's objects, as `draforge get` and `draforge demo` print them.
#ifndef DRAFORGE_EXAMPLES_CLI_REPORT_H_
#define DRAFORGE_EXAMPLES_CLI_REPORT_H_

#include <optional>
#include <string>
#include <string_view>

#include "store/cluster.h"
#include "table.h"

namespace draforge::cli {

// What `get` lists: a stored kind, or one of the derived views "pools" and "devices".
struct GetTarget {
  std::optional<api::Kind> kind;  // nullopt: a derived view
  std::string view;               // "pools" or "devices" when kind is nullopt
};

// Parses a kind as kubectl accepts it ("resourceslices", "ResourceSlice", "pods") or a derived view
// ("pools", "devices"); nullopt when unknown.
std::optional<GetTarget> ParseGetTarget(std::string_view name);

struct TableFilter {
  std::string ns;    // empty: every namespace
  std::string name;  // empty: every object
};

// The table for `target`. Namespaced kinds get a NAMESPACE column.
Table MakeTable(const store::Snapshot& snapshot, const GetTarget& target, const TableFilter& filter);

// "allocated,reserved", "allocated", "reserved" or "pending" (kubectl's STATE column).
std::string ClaimState(const api::ResourceClaim& claim);

}  // namespace draforge::cli

#endif  // DRAFORGE_EXAMPLES_CLI_REPORT_H_
