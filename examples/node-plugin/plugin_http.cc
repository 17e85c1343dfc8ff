#include "plugin_http.h"

namespace draforge::node_plugin {

http::Probes StatusProbes(const PluginStatus& status) {
  return {[&status] { return status.Readiness(); }, [&status] { return status.Metrics(); }};
}

}  // namespace draforge::node_plugin
