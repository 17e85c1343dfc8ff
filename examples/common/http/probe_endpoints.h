// The operational endpoints every daemon serves beside its own (docs/node-plugin.md, docs/simulation.md):
//   /healthz  200 "ok\n": the process answers (liveness only)
//   /readyz   200 "ok\n", or 503 with the daemon's reason
//   /metrics  Prometheus text
// GET and HEAD only (405 with Allow otherwise); any other path is 404.
#ifndef DRAFORGE_EXAMPLES_COMMON_HTTP_PROBE_ENDPOINTS_H_
#define DRAFORGE_EXAMPLES_COMMON_HTTP_PROBE_ENDPOINTS_H_

#include <functional>
#include <string>
#include <utility>

#include "http_listener.h"

namespace draforge::http {

struct Probes {
  // {ready, the 503 body when not ready}; called per /readyz request, from listener threads.
  std::function<std::pair<bool, std::string>()> readiness;
  // The /metrics body; called per request, from listener threads.
  std::function<std::string()> metrics;
};

Response ServeProbes(const Request& request, const Probes& probes);

}  // namespace draforge::http

#endif  // DRAFORGE_EXAMPLES_COMMON_HTTP_PROBE_ENDPOINTS_H_
