// The node plugin's HTTP endpoints (docs/node-plugin.md, "HTTP"), served by the daemons' HTTP layer:
//   /healthz  200 "ok": the process answers (liveness only: a failing API server must not get the
//             plugin restarted, it would lose nothing but gain nothing)
//   /readyz   200 "ok", or 503 with one "condition: reason" line per condition that does not hold
//   /metrics  Prometheus text (PluginStatus::Metrics)
#ifndef DRAFORGE_EXAMPLES_NODE_PLUGIN_PLUGIN_HTTP_H_
#define DRAFORGE_EXAMPLES_NODE_PLUGIN_PLUGIN_HTTP_H_

#include "http_listener.h"
#include "plugin_status.h"

namespace draforge::node_plugin {

// Answers one request; GET and HEAD only (405 otherwise), 404 for any other path.
http::Response ServeHttp(const http::Request& request, const PluginStatus& status);

}  // namespace draforge::node_plugin

#endif  // DRAFORGE_EXAMPLES_NODE_PLUGIN_PLUGIN_HTTP_H_
