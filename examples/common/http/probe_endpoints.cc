#include "probe_endpoints.h"

namespace draforge::http {
namespace {

Response Text(int status, std::string body, std::string content_type = "text/plain") {
  Response r;
  r.status = status;
  r.headers.emplace_back("Content-Type", std::move(content_type));
  r.body = std::move(body);
  return r;
}

}  // namespace

Response ServeProbes(const Request& request, const Probes& probes) {
  if (request.method != "GET" && request.method != "HEAD") {
    Response r = Text(405, "method not allowed\n");
    r.headers.emplace_back("Allow", "GET, HEAD");
    return r;
  }
  const std::string path = request.target.substr(0, request.target.find('?'));
  if (path == "/healthz") return Text(200, "ok\n");
  if (path == "/readyz") {
    auto [ready, reason] = probes.readiness();
    return ready ? Text(200, "ok\n") : Text(503, std::move(reason));
  }
  if (path == "/metrics") return Text(200, probes.metrics(), "text/plain; version=0.0.4");
  return Text(404, "not found\n");
}

}  // namespace draforge::http
