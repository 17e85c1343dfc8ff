// The same SSE server as beast_sse.cc and mhd_sse.cc, on the layer itself (examples/common/http,
// HttpListener), so that run.sh measures what the daemons will get. Not part of the build.
//
//   layer_sse PORT THREADS
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "http_listener.h"

namespace {

std::mutex mu;  // guards streams and next_id
std::vector<std::shared_ptr<draforge::http::Stream>> streams;
uint64_t next_id = 1;

void Broadcast() {
  std::lock_guard lock(mu);
  auto event = std::make_shared<const std::string>("id: " + std::to_string(next_id++) +
                                                   "\nevent: change\ndata: {\"change\":1}\n\n");
  size_t live = 0;
  for (auto& s : streams) {
    if (s->Write(event)) streams[live++] = s;
  }
  streams.resize(live);
}

}  // namespace

int main(int argc, char** argv) {
  const int port = argc > 1 ? std::atoi(argv[1]) : 8092;
  const int threads = argc > 2 ? std::atoi(argv[2]) : 2;
  draforge::http::Limits limits;
  limits.max_connections = 30000;
  limits.max_streams = 30000;
  auto listener = draforge::http::HttpListener::Start("127.0.0.1", port, limits, [](const draforge::http::Request& req) {
    draforge::http::Response r;
    if (req.target == "/events") {
      r.headers.emplace_back("Content-Type", "text/event-stream");
      r.body = "retry: 2000\n\nid: 0\nevent: hello\ndata: {}\n\n";
      r.on_stream = [](std::shared_ptr<draforge::http::Stream> s) {
        std::lock_guard lock(mu);
        streams.push_back(std::move(s));
      };
      return r;
    }
    if (req.target == "/publish") Broadcast();
    r.headers.emplace_back("Content-Type", "application/json");
    r.body = "{\"status\":\"ok\"}";
    return r;
  }, threads);
  if (!listener.ok()) {
    std::fprintf(stderr, "%s\n", listener.error().message.c_str());
    return 1;
  }
  std::printf("listening on %d\n", port);
  std::fflush(stdout);
  for (;;) std::this_thread::sleep_for(std::chrono::hours(1));
}
