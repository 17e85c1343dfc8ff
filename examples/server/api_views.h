// The JSON documents of the REST endpoints (examples/server/openapi.json): each route's query
// parameters checked and handed to the library's inventory view of one snapshot
// (draforge/inventory.h), which renders the schema. No HTTP here.
#ifndef DRAFORGE_EXAMPLES_SERVER_API_VIEWS_H_
#define DRAFORGE_EXAMPLES_SERVER_API_VIEWS_H_

#include <map>
#include <string>
#include <string_view>

#include "draforge/draforge.hpp"
#include "query_params.h"

namespace draforge::server {

// Each returns the response body, or an Error (DRAFORGE_EINVALID) whose message names the bad query
// parameter (an unknown name, a repeated name, a value outside the documented set): the server
// answers 400 with it.
Result<std::string> RenderSummary(const Snapshot& snapshot, const Query& query);
Result<std::string> RenderPools(const Snapshot& snapshot, const Query& query);
// The status kube-controller-manager would write into a ResourcePoolStatusRequest (KEP-5677) with
// spec driver, pool, limit and defaultPartitionTypeAttribute (query driver, pool, limit,
// partitionAttribute); 400 without a driver.
Result<std::string> RenderPoolStatus(const Snapshot& snapshot, const Query& query);
Result<std::string> RenderDevices(const Snapshot& snapshot, const Query& query);
Result<std::string> RenderClaims(const Snapshot& snapshot, const Query& query);
Result<std::string> RenderGraph(const Snapshot& snapshot, const Query& query);
Result<std::string> RenderDiagnostics(const Snapshot& snapshot, const Query& query);

// The package catalog the server was started with (--package-catalog FILE, or the demo's own).
struct PackageCatalog {
  std::string text;    // YAML or JSON; "": none loaded
  std::string source;  // the file, "demo", or ""
};

// How many more units of each package of `catalog` fit (query namespace, quota, id, cap), the
// catalog's problems against the cluster, and the platform inventory fields: one document that the
// dashboard's Packages page and a platform poll after each `change` event. Without a catalog the
// packages are [] and the inventory is still there. A failure of the capacity engine on the cluster's
// objects (a Node whose allocatable does not parse) is reported in "error", not as a bad query.
Result<std::string> RenderPackages(const Snapshot& snapshot, const Query& query, const PackageCatalog& catalog);

// {"generation":N,"resourceVersion":"..."} (SnapshotRef)
std::string RenderSnapshotRef(uint64_t generation, std::string_view resource_version);

// {"error":{"code":N,"message":"..."}}
std::string RenderError(int code, std::string_view message);

}  // namespace draforge::server

#endif  // DRAFORGE_EXAMPLES_SERVER_API_VIEWS_H_
