// A minimal Server-Sent Events server on libmicrohttpd, to measure what one idle stream costs and
// how fast a change reaches every stream (docs/adr/0001-server-http-layer.md). Not part of the
// build: bench/server/proto/run.sh compiles it.
//
//   mhd_sse PORT THREADS
// GET /events: a chunked text/event-stream that gets every broadcast; GET /healthz: 200;
// GET /publish: broadcasts one change event to every stream. An idle stream is a suspended
// connection; a broadcast resumes them all. Each connection's memory pool (request head and write
// buffer) is 8 KiB; connections idle for 10 s before a request are closed.
#include <microhttpd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_set>
#include <vector>

namespace {

std::mutex mu;  // guards events and suspended
std::vector<std::string> events;  // every broadcast, in order (a prototype keeps them all)
struct Stream {
  MHD_Connection* connection;
  std::string hello = "retry: 2000\n\nid: 0\nevent: hello\ndata: {}\n\n";  // sent first
  size_t next = 0;       // index into events of the next one to send
  size_t offset = 0;     // bytes of events[next] already sent
  bool suspended = false;
};
std::unordered_set<Stream*> suspended;

ssize_t ReadStream(void* cls, uint64_t, char* buf, size_t max) {
  auto* s = static_cast<Stream*>(cls);
  if (!s->hello.empty()) {
    const size_t n = std::min(max, s->hello.size());
    std::memcpy(buf, s->hello.data(), n);
    s->hello.erase(0, n);
    if (s->hello.empty()) s->hello.shrink_to_fit();
    return static_cast<ssize_t>(n);
  }
  std::lock_guard lock(mu);
  if (s->next == events.size()) {
    // Nothing to send: leave MHD's loop until the next broadcast resumes us.
    s->suspended = true;
    suspended.insert(s);
    MHD_suspend_connection(s->connection);
    return 0;
  }
  const std::string& e = events[s->next];
  const size_t n = std::min(max, e.size() - s->offset);
  std::memcpy(buf, e.data() + s->offset, n);
  s->offset += n;
  if (s->offset == e.size()) {
    ++s->next;
    s->offset = 0;
  }
  return static_cast<ssize_t>(n);
}

void FreeStream(void* cls) {
  auto* s = static_cast<Stream*>(cls);
  std::lock_guard lock(mu);
  suspended.erase(s);
  delete s;
}

void Broadcast() {
  std::lock_guard lock(mu);
  events.push_back("id: " + std::to_string(events.size()) + "\nevent: change\ndata: {\"change\":1}\n\n");
  for (Stream* s : suspended) {
    s->suspended = false;
    MHD_resume_connection(s->connection);
  }
  suspended.clear();
}

MHD_Result Handle(void*, MHD_Connection* connection, const char* url, const char*, const char*, const char*,
                  size_t*, void** state) {
  static int seen;
  if (*state == nullptr) {  // MHD calls once with the head, again for the body: answer on the second
    *state = &seen;
    return MHD_YES;
  }
  MHD_Response* response;
  if (std::strcmp(url, "/events") == 0) {
    auto* s = new Stream{connection};
    {
      std::lock_guard lock(mu);
      s->next = events.size();
    }
    response = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 1024, &ReadStream, s, &FreeStream);
    MHD_add_response_header(response, "Content-Type", "text/event-stream");
    MHD_add_response_header(response, "Cache-Control", "no-store");
  } else {
    if (std::strcmp(url, "/publish") == 0) Broadcast();
    static char ok[] = "{\"status\":\"ok\"}";
    response = MHD_create_response_from_buffer(sizeof ok - 1, ok, MHD_RESPMEM_PERSISTENT);
    MHD_add_response_header(response, "Content-Type", "application/json");
  }
  MHD_Result r = MHD_queue_response(connection, MHD_HTTP_OK, response);
  MHD_destroy_response(response);
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  const int port = argc > 1 ? std::atoi(argv[1]) : 8091;
  const unsigned threads = argc > 2 ? static_cast<unsigned>(std::atoi(argv[2])) : 2;
  MHD_Daemon* d = MHD_start_daemon(
      MHD_USE_EPOLL_INTERNAL_THREAD | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ERROR_LOG, static_cast<uint16_t>(port),
      nullptr, nullptr, &Handle, nullptr, MHD_OPTION_THREAD_POOL_SIZE, threads, MHD_OPTION_CONNECTION_LIMIT,
      30000u, MHD_OPTION_CONNECTION_MEMORY_LIMIT, static_cast<size_t>(8192), MHD_OPTION_CONNECTION_TIMEOUT, 10u,
      MHD_OPTION_LISTEN_BACKLOG_SIZE, 4096u, MHD_OPTION_END);
  if (d == nullptr) {
    std::fprintf(stderr, "cannot start on port %d\n", port);
    return 1;
  }
  std::printf("listening on %d\n", port);
  std::fflush(stdout);
  for (;;) std::this_thread::sleep_for(std::chrono::hours(1));
}
