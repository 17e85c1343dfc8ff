#include "plugin_http.h"

#include <string>
#include <utility>

namespace draforge::node_plugin {
namespace {

http::Response Text(int status, std::string body, std::string content_type = "text/plain; charset=utf-8") {
  http::Response r;
  r.status = status;
  r.headers.emplace_back("Content-Type", std::move(content_type));
  r.body = std::move(body);
  return r;
}

}  // namespace

http::Response ServeHttp(const http::Request& request, const PluginStatus& status) {
  if (request.method != "GET" && request.method != "HEAD") {
    http::Response r = Text(405, "method not allowed\n");
    r.headers.emplace_back("Allow", "GET, HEAD");
    return r;
  }
  const std::string path = request.target.substr(0, request.target.find('?'));
  if (path == "/healthz") return Text(200, "ok\n");
  if (path == "/readyz") {
    auto [ready, reasons] = status.Readiness();
    return ready ? Text(200, "ok\n") : Text(503, std::move(reasons));
  }
  if (path == "/metrics") return Text(200, status.Metrics(), "text/plain; version=0.0.4");
  return Text(404, "not found\n");
}

}  // namespace draforge::node_plugin
