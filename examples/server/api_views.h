// The JSON documents of the REST endpoints (examples/server/openapi.json), rendered from one
// store snapshot. Pure functions: no HTTP here, so tests and other front ends can call them.
#ifndef DRAFORGE_EXAMPLES_SERVER_API_VIEWS_H_
#define DRAFORGE_EXAMPLES_SERVER_API_VIEWS_H_

#include <map>
#include <string>

#include "absl/status/statusor.h"
#include "store/cluster.h"

namespace draforge::server {

// Query parameters as the HTTP layer decoded them (a name may repeat).
using Query = std::multimap<std::string, std::string>;

// Each returns the response body, or InvalidArgument naming the bad query parameter (an unknown
// name, a repeated name, a value outside the documented set): the server answers 400 with it.
absl::StatusOr<std::string> RenderSummary(const store::Snapshot& snapshot, const Query& query);
absl::StatusOr<std::string> RenderPools(const store::Snapshot& snapshot, const Query& query);
absl::StatusOr<std::string> RenderDevices(const store::Snapshot& snapshot, const Query& query);
absl::StatusOr<std::string> RenderClaims(const store::Snapshot& snapshot, const Query& query);
absl::StatusOr<std::string> RenderGraph(const store::Snapshot& snapshot, const Query& query);
absl::StatusOr<std::string> RenderDiagnostics(const store::Snapshot& snapshot, const Query& query);

// {"generation":N,"resourceVersion":"..."}
std::string RenderSnapshotRef(const store::Snapshot& snapshot);

// {"error":{"code":N,"message":"..."}}
std::string RenderError(int code, std::string_view message);

}  // namespace draforge::server

#endif  // DRAFORGE_EXAMPLES_SERVER_API_VIEWS_H_
