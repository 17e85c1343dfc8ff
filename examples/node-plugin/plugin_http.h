// The node plugin's HTTP endpoints (docs/node-plugin.md, "HTTP"): the daemons' /healthz, /readyz and
// /metrics (examples/common/http/probe_endpoints.h) over PluginStatus. /readyz is 503 with one
// "condition: reason" line per condition that does not hold.
#ifndef DRAFORGE_EXAMPLES_NODE_PLUGIN_PLUGIN_HTTP_H_
#define DRAFORGE_EXAMPLES_NODE_PLUGIN_PLUGIN_HTTP_H_

#include "plugin_status.h"
#include "probe_endpoints.h"

namespace draforge::node_plugin {

// `status` must outlive the answer.
http::Probes StatusProbes(const PluginStatus& status);

}  // namespace draforge::node_plugin

#endif  // DRAFORGE_EXAMPLES_NODE_PLUGIN_PLUGIN_HTTP_H_
