#include "server.h"

#include <netinet/in.h>
#include <sys/socket.h>

#include <cerrno>
#include <charconv>
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <string_view>
#include <utility>

#include "api_views.h"
#include "event_hub.h"
#include "host_allow_list.h"
#include "http_encoding.h"
#include "httplib.h"
#include "metrics.h"
#include "rate_limiter.h"
#include "static_files.h"

namespace draforge::server {
namespace {

using Clock = std::chrono::steady_clock;
using RenderFn = Result<std::string> (*)(const Snapshot&, const Query&);

// With a charset parameter: cpp-httplib compresses (with Brotli 11 when the client accepts it) only
// bodies whose Content-Type is exactly "application/json" or starts with "text/"
// (detail::can_compress_content_type), so small JSON set with set_content is never compressed by
// it. Larger bodies go through SendBody, which compresses them itself.
constexpr char kJson[] = "application/json; charset=utf-8";
constexpr char kAllow[] = "GET, HEAD, OPTIONS";
// Every response: the dashboard loads only its own scripts, styles, images and API (no inline code,
// nothing from elsewhere), and no other site may frame any page (clickjacking). X-Frame-Options
// says the same to browsers that predate frame-ancestors. Images may also be data: URLs: the
// dashboard's icon is one (examples/dashboard/index.html), and an image cannot run code.
constexpr char kContentSecurityPolicy[] = "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'";

struct ApiRoute {
  const char* path;
  RenderFn render;
};

constexpr ApiRoute kApiRoutes[] = {
    {"/api/v1/summary", &RenderSummary},   {"/api/v1/pools", &RenderPools},
    {"/api/v1/devices", &RenderDevices},   {"/api/v1/claims", &RenderClaims},
    {"/api/v1/graph", &RenderGraph},       {"/api/v1/diagnostics", &RenderDiagnostics},
};

constexpr std::string_view kFixedRoutes[] = {"/healthz", "/readyz", "/metrics", "/openapi.json", "/api/v1/events"};

// A bounded label for metrics: a known route, "static" for files, "other" for the rest.
std::string RouteLabel(const std::string& path) {
  for (const auto& r : kApiRoutes) {
    if (path == r.path) return path;
  }
  for (auto r : kFixedRoutes) {
    if (path == r) return path;
  }
  if (path.rfind("/api/", 0) == 0) return "other";
  return "static";
}

void SendError(httplib::Response& res, int code, std::string_view message) {
  res.status = code;
  res.set_content(RenderError(code, message), kJson);
}

using Body = std::shared_ptr<const std::string>;

// Sends `body` as `content_type`, gzip-compressed when the client accepts gzip, the type is
// worth it and the body is large enough; `gzip` is its precompressed form if the caller has one
// (cached answers, static files), else it is compressed here. The body goes out through a
// content provider with a known length: cpp-httplib compresses only plain bodies and chunked
// streams, never those, so whatever encoding is set here is the one the client gets (Debian's
// build would otherwise pick Brotli at quality 11: seconds per large answer).
void SendBody(const httplib::Request& req, httplib::Response& res, Body body, std::string_view content_type,
              Body gzip = nullptr) {
  const bool compressible = IsCompressible(content_type);
  if (compressible) res.set_header("Vary", "Accept-Encoding");
  if (compressible && body->size() >= kCompressMinBytes && AcceptsGzip(req.get_header_value("Accept-Encoding"))) {
    if (gzip == nullptr) {
      auto gz = Gzip(*body);
      if (gz && gz->size() < body->size()) gzip = std::make_shared<const std::string>(*std::move(gz));
    }
    if (gzip != nullptr) {
      res.set_header("Content-Encoding", "gzip");
      body = std::move(gzip);
    }
  }
  if (body->empty()) {
    res.set_content("", std::string(content_type));
    return;
  }
  res.set_content_provider(
      body->size(), std::string(content_type),
      [body](size_t offset, size_t length, httplib::DataSink& sink) {
        return sink.write(body->data() + offset, length);
      });
}

// Keeps the count of open streams; released when the last copy of the stream's provider goes.
class StreamSlot {
 public:
  explicit StreamSlot(std::atomic<int64_t>& open) : open_(open) {}
  ~StreamSlot() { open_.fetch_sub(1); }
  StreamSlot(const StreamSlot&) = delete;
  StreamSlot& operator=(const StreamSlot&) = delete;

 private:
  std::atomic<int64_t>& open_;
};

struct StreamState {
  std::unique_ptr<StreamSlot> slot;
  bool started = false;
  bool resume = false;    // the client sent Last-Event-ID
  bool bad_id = false;    // ... and it was not a number: reset
  uint64_t last_id = 0;
};

// Errors cpp-httplib produces itself (before any route runs).
std::string_view StatusText(int status) {
  switch (status) {
    case 400:
      return "bad request";
    case 404:
      return "not found";
    case 413:
      return "request body too large";
    case 414:
      return "request target too long";
    case 431:
      return "request headers too large";
    default:
      return "request failed";
  }
}

std::string FormatEvent(std::string_view type, uint64_t id, std::string_view data) {
  std::string out = "id: " + std::to_string(id) + "\nevent: ";
  out.append(type).append("\ndata: ").append(data).append("\n\n");
  return out;
}

// Debian's cpp-httplib listens with a compiled-in backlog of 5, so a burst of connections (a
// dashboard reload by many users, clients reconnecting after a restart) sees SYNs dropped and
// retried a second later. Linux lets listen() be called again to change the backlog; the listening
// socket is found by its port.
void RaiseListenBacklog(int port) {
  for (int fd = 3; fd < 65536; ++fd) {
    sockaddr_storage addr{};
    socklen_t len = sizeof addr;
    if (getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
      if (errno == EBADF && fd > 1024) break;
      continue;
    }
    int listening = 0;
    socklen_t optlen = sizeof listening;
    if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &optlen) != 0 || listening == 0) continue;
    int bound = -1;
    if (addr.ss_family == AF_INET) bound = ntohs(reinterpret_cast<sockaddr_in*>(&addr)->sin_port);
    if (addr.ss_family == AF_INET6) bound = ntohs(reinterpret_cast<sockaddr_in6*>(&addr)->sin6_port);
    if (bound == port) ::listen(fd, 4096);
  }
}

}  // namespace

struct Server::Impl {
  Impl(Cluster& c, ServerOptions o)
      : cluster(c), options(std::move(o)), hub(options.event_ring), limiter(options.rate_limit),
        static_files(options.static_dir) {}

  Cluster& cluster;
  const ServerOptions options;
  httplib::Server http;
  EventHub hub;
  Metrics metrics;
  RateLimiter limiter;
  StaticFiles static_files;
  Body openapi_body, openapi_gzip;
  std::atomic<int64_t> open_streams{0};
  std::atomic<bool> stopping{false};
  int bound_port = 0;

  // The watcher: wakes on Notify() or every poll_interval, hands new snapshots to the hub.
  std::thread watcher;
  std::mutex watch_mu;
  std::condition_variable watch_cv;
  bool notified = false;

  // Responses of the current snapshot, by path and query: the dashboard and many clients ask the
  // same questions after every change, and a snapshot's answers never change.
  std::mutex cache_mu;
  uint64_t cache_generation = UINT64_MAX;
  struct CacheEntry {
    std::mutex mu;  // held while the answer (or its gzip form) is computed
    bool done = false;
    std::string error;  // the 400 message when the query was refused
    Body body;
    bool gzip_done = false;
    Body gzip;  // null if not worth it (small, or it did not shrink)
  };
  std::map<std::string, std::shared_ptr<CacheEntry>> cache;
  static constexpr size_t kCacheEntries = 256;

  bool Ready() const { return hub.started() && (!options.synced || options.synced()); }

  void Watch() {
    while (!stopping.load()) {
      if (!options.synced || options.synced()) {
        if (auto snapshot = cluster.snapshot(); snapshot.ok()) hub.Publish(*snapshot);
      }
      std::unique_lock lock(watch_mu);
      watch_cv.wait_for(lock, options.poll_interval,
                        [this] { return notified || stopping.load(); });
      notified = false;
    }
  }

  std::string CacheKey(const httplib::Request& req) {
    std::string key = req.path;
    for (const auto& [k, v] : req.params) key.append("\x1f").append(k).append("=").append(v);
    return key;
  }

  void ServeApi(const ApiRoute& route, const httplib::Request& req, httplib::Response& res) {
    const auto start = Clock::now();
    auto snapshot = cluster.snapshot();
    if (!snapshot.ok()) {
      SendError(res, 500, "internal error");
      return;
    }
    std::shared_ptr<CacheEntry> entry;
    {
      std::lock_guard lock(cache_mu);
      if (cache_generation != snapshot->generation()) {
        cache.clear();
        cache_generation = snapshot->generation();
      }
      const std::string key = CacheKey(req);
      if (auto it = cache.find(key); it != cache.end()) {
        entry = it->second;
      } else {
        entry = std::make_shared<CacheEntry>();
        if (cache.size() < kCacheEntries) cache.emplace(key, entry);
      }
    }
    Body body, gzip;
    {
      // Single flight: requests for the same answer wait for the first one to compute it (after a
      // change, every dashboard asks the same questions at once; diagnostics can take seconds on a
      // large cluster). The gzip form is made once too, by the first client that accepts it.
      std::lock_guard lock(entry->mu);
      if (!entry->done) {
        Query query(req.params.begin(), req.params.end());
        auto rendered = route.render(*snapshot, query);
        if (rendered.ok()) {
          entry->body = std::make_shared<const std::string>(*std::move(rendered));
        } else {
          entry->error = rendered.error().message;
        }
        entry->done = true;
      }
      if (entry->body != nullptr && !entry->gzip_done && entry->body->size() >= kCompressMinBytes &&
          AcceptsGzip(req.get_header_value("Accept-Encoding"))) {
        auto gz = Gzip(*entry->body);
        if (gz && gz->size() < entry->body->size()) entry->gzip = std::make_shared<const std::string>(*std::move(gz));
        entry->gzip_done = true;
      }
      body = entry->body;
      gzip = entry->gzip;
    }
    if (body == nullptr) {
      SendError(res, 400, entry->error);
      return;
    }
    res.set_header("Cache-Control", "no-store");
    SendBody(req, res, std::move(body), kJson, std::move(gzip));
    metrics.ObserveLatency(route.path, std::chrono::duration<double>(Clock::now() - start).count());
  }

  void ServeEvents(const httplib::Request& req, httplib::Response& res) {
    std::string last_event_id = req.get_header_value("Last-Event-ID");
    for (const auto& [k, v] : req.params) {
      if (k != "lastEventId") {
        SendError(res, 400, "unknown query parameter \"" + k + "\" (allowed: lastEventId)");
        return;
      }
      if (last_event_id.empty()) last_event_id = v;
    }
    if (open_streams.fetch_add(1) >= options.max_streams) {
      open_streams.fetch_sub(1);
      SendError(res, 503, "too many event streams (limit " + std::to_string(options.max_streams) + ")");
      return;
    }
    auto state = std::make_shared<StreamState>();
    state->slot = std::make_unique<StreamSlot>(open_streams);
    if (!last_event_id.empty()) {
      state->resume = true;
      auto [end, ec] = std::from_chars(last_event_id.data(), last_event_id.data() + last_event_id.size(),
                                       state->last_id);
      state->bad_id = ec != std::errc() || end != last_event_id.data() + last_event_id.size();
    }
    res.set_header("Cache-Control", "no-store");
    res.set_header("X-Accel-Buffering", "no");
    res.set_chunked_content_provider("text/event-stream", [this, state](size_t, httplib::DataSink& sink) {
      return StreamStep(*state, sink);
    });
  }

  // Writes what the client needs next; false ends the stream (client gone).
  bool StreamStep(StreamState& s, httplib::DataSink& sink) {
    if (stopping.load() || hub.closed()) {
      sink.done();
      return true;
    }
    std::string out;
    uint64_t sent = 0;
    auto catch_up = [&](uint64_t from) {
      CatchUp c = hub.Since(from);
      if (c.reset) {
        out += FormatEvent("reset", c.current_id, hub.CurrentRef());
        ++sent;
      }
      for (const auto& e : c.events) {
        out += FormatEvent("change", e.id, e.data);
        ++sent;
      }
      s.last_id = c.events.empty() ? c.current_id : c.events.back().id;
    };
    if (!s.started) {
      s.started = true;
      out = "retry: 2000\n\n";
      if (s.resume && !s.bad_id) {
        catch_up(s.last_id);
      } else if (s.resume) {
        const uint64_t id = hub.current_id();
        out += FormatEvent("reset", id, hub.CurrentRef());
        ++sent;
        s.last_id = id;
      } else {
        const uint64_t id = hub.current_id();
        out += FormatEvent("hello", id, hub.CurrentRef());
        ++sent;
        s.last_id = id;
      }
    } else if (hub.WaitAfter(s.last_id, options.heartbeat)) {
      catch_up(s.last_id);
    } else if (stopping.load() || hub.closed()) {
      sink.done();
      return true;
    } else {
      out = ": heartbeat\n\n";
    }
    if (!sink.write(out.data(), out.size())) return false;
    if (sent > 0) metrics.CountEventsSent(sent);
    return true;
  }

  void Routes() {
    auto get = [this](const std::string& pattern, httplib::Server::Handler h) { http.Get(pattern, std::move(h)); };
    get("/healthz", [](const httplib::Request&, httplib::Response& res) {
      res.set_header("Cache-Control", "no-store");
      res.set_content(R"({"status":"ok"})", kJson);
    });
    get("/readyz", [this](const httplib::Request&, httplib::Response& res) {
      res.set_header("Cache-Control", "no-store");
      if (Ready()) {
        res.set_content(R"({"status":"ready","reason":""})", kJson);
      } else {
        res.status = 503;
        res.set_content(R"({"status":"not ready","reason":"the store has not synced yet"})", kJson);
      }
    });
    get("/openapi.json", [this](const httplib::Request& req, httplib::Response& res) {
      SendBody(req, res, openapi_body, kJson, openapi_gzip);
    });
    get("/metrics", [this](const httplib::Request& req, httplib::Response& res) {
      res.set_header("Cache-Control", "no-store");
      SendBody(req, res,
               std::make_shared<const std::string>(
                   metrics.Render(cluster.snapshot().value(), open_streams.load(), hub.published(), Ready())),
               "text/plain; version=0.0.4; charset=utf-8");
    });
    for (const auto& route : kApiRoutes) {
      get(route.path, [this, &route](const httplib::Request& req, httplib::Response& res) {
        ServeApi(route, req, res);
      });
    }
    get("/api/v1/events", [this](const httplib::Request& req, httplib::Response& res) { ServeEvents(req, res); });
    // Everything else: API paths are unknown (404); files of the dashboard are served (each
    // read and compressed once, not per request); other paths are client-side routes of the
    // dashboard, which index.html handles.
    get(".*", [this](const httplib::Request& req, httplib::Response& res) {
      if (req.path.rfind("/api/", 0) == 0 || req.path == "/api") {
        SendError(res, 404, "no endpoint " + req.path + " (see /openapi.json)");
        return;
      }
      auto file = static_files.Get(req.path);
      if (!file.ok() && file.error().code == DRAFORGE_EINVALID) {
        SendError(res, 400, file.error().message);
        return;
      }
      // A hidden file or one that resolves outside the root is not there as far as clients know,
      // and it is not a client-side route either.
      if (!file.ok() && file.error().code == DRAFORGE_EUNSUPPORTED) {
        SendError(res, 404, "no file " + req.path);
        return;
      }
      if (!file.ok() && file.error().code == DRAFORGE_ENOTFOUND) file = static_files.Get("/index.html");
      if (!file.ok()) {
        SendError(res, 404, "no file " + req.path + " and no dashboard to fall back to");
        return;
      }
      res.set_header("Cache-Control", "no-cache");
      SendBody(req, res, (*file)->body, (*file)->content_type, (*file)->gzip);
    });
    // Read-only by construction: no route changes anything, so every other method is refused.
    auto refuse = [](const httplib::Request& req, httplib::Response& res) {
      res.set_header("Allow", kAllow);
      SendError(res, 405, "method " + req.method + " not allowed: draforge-server is read-only");
    };
    http.Post(".*", refuse);
    http.Put(".*", refuse);
    http.Patch(".*", refuse);
    http.Delete(".*", refuse);
    http.Options(".*", [](const httplib::Request&, httplib::Response& res) {
      res.status = 204;
      res.set_header("Allow", kAllow);
    });
  }

  // Answers 403 for a Host not on --allowed-hosts (DNS rebinding, host_allow_list.h) and 400 for
  // a Host header that is not one (RFC 9112 section 3.2: several, or not host[:port]). 403 as
  // kubectl proxy --accept-hosts, Jupyter and Vite answer it: the server understood the request
  // and refuses it; 421 would invite clients to retry it on another connection.
  bool HostAllowed(const httplib::Request& req, httplib::Response& res) {
    if (req.get_header_value_count("Host") > 1) {
      SendError(res, 400, "more than one Host header");
      return false;
    }
    const std::string host = req.get_header_value("Host");
    switch (options.allowed_hosts.Check(host)) {
      case HostAllowList::Verdict::kAllowed:
        return true;
      case HostAllowList::Verdict::kMalformed:
        SendError(res, 400, "invalid Host header \"" + host + "\"");
        return false;
      case HostAllowList::Verdict::kRefused:
        SendError(res, 403,
                  "host \"" + host + "\" is not allowed (--allowed-hosts " + options.allowed_hosts.patterns() +
                      "; IP addresses are always allowed)");
        return false;
    }
    return false;
  }

  void Configure() {
    const int threads = options.max_streams + options.rest_threads;
    http.new_task_queue = [threads] { return new httplib::ThreadPool(static_cast<size_t>(threads)); };
    http.set_payload_max_length(options.max_body_bytes);
    // Small JSON answers and SSE events must leave at once, not wait for delayed ACKs (40 ms).
    http.set_tcp_nodelay(true);
    http.set_keep_alive_max_count(1000);
    http.set_keep_alive_timeout(5);
    http.set_read_timeout(10);
    http.set_write_timeout(10);
    http.set_default_headers({{"X-Content-Type-Options", "nosniff"},
                              {"Referrer-Policy", "no-referrer"},
                              {"Content-Security-Policy", kContentSecurityPolicy},
                              {"X-Frame-Options", "DENY"}});
    openapi_body = std::make_shared<const std::string>(options.openapi);
    if (auto gz = Gzip(*openapi_body); gz && gz->size() < openapi_body->size()) {
      openapi_gzip = std::make_shared<const std::string>(*std::move(gz));
    }
    http.set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
      if (!HostAllowed(req, res)) return httplib::Server::HandlerResponse::Handled;
      if (!limiter.Allow(req.remote_addr, Clock::now())) {
        metrics.CountRateLimited();
        res.set_header("Retry-After", "1");
        SendError(res, 429, "rate limit exceeded: slow down");
        return httplib::Server::HandlerResponse::Handled;
      }
      // Refuse mutations here, before cpp-httplib reads (or insists on) a body.
      if (req.method != "GET" && req.method != "HEAD" && req.method != "OPTIONS") {
        const std::string length = req.get_header_value("Content-Length");
        size_t n = 0;
        std::from_chars(length.data(), length.data() + length.size(), n);
        if (n > options.max_body_bytes) {
          SendError(res, 413, "request body larger than " + std::to_string(options.max_body_bytes) + " bytes");
        } else {
          res.set_header("Allow", kAllow);
          SendError(res, 405, "method " + req.method + " not allowed: draforge-server is read-only");
        }
        return httplib::Server::HandlerResponse::Handled;
      }
      size_t target = req.path.size();
      for (const auto& [k, v] : req.params) target += k.size() + v.size() + 2;
      if (target > options.max_target_bytes) {
        SendError(res, 414, "request target longer than " + std::to_string(options.max_target_bytes) + " bytes");
        return httplib::Server::HandlerResponse::Handled;
      }
      return httplib::Server::HandlerResponse::Unhandled;
    });
    http.set_error_handler([](const httplib::Request&, httplib::Response& res) {
      // Errors cpp-httplib answers itself have neither body nor type; ours (SendError, SendBody) do.
      if (res.body.empty() && !res.has_header("Content-Type")) res.set_content(RenderError(res.status, StatusText(res.status)), kJson);
    });
    http.set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr) {
      SendError(res, 500, "internal error");
    });
    http.set_logger([this](const httplib::Request& req, const httplib::Response& res) {
      metrics.CountRequest(RouteLabel(req.path), res.status);
    });
    Routes();
  }
};

Server::Server(Cluster& cluster, ServerOptions options)
    : impl_(std::make_unique<Impl>(cluster, std::move(options))) {
  impl_->Configure();
}

Server::~Server() {
  Stop();
  if (impl_->watcher.joinable()) impl_->watcher.join();
}

Result<void> Server::Bind() {
  const ServerOptions& o = impl_->options;
  if (o.port == 0) {
    impl_->bound_port = impl_->http.bind_to_any_port(o.address);
    if (impl_->bound_port <= 0) return Error{DRAFORGE_ENOTFOUND, "cannot listen on " + o.address, "", ""};
  } else {
    if (!impl_->http.bind_to_port(o.address, o.port)) {
      return Error{DRAFORGE_ENOTFOUND, "cannot listen on " + o.address + ":" + std::to_string(o.port), "", ""};
    }
    impl_->bound_port = o.port;
  }
  RaiseListenBacklog(impl_->bound_port);
  return {};
}

int Server::port() const { return impl_->bound_port; }

void Server::Serve() {
  impl_->watcher = std::thread([this] { impl_->Watch(); });
  impl_->http.listen_after_bind();
}

void Server::Notify() {
  {
    std::lock_guard lock(impl_->watch_mu);
    impl_->notified = true;
  }
  impl_->watch_cv.notify_one();
}

void Server::Stop() {
  if (impl_->stopping.exchange(true)) return;
  impl_->hub.Close();
  impl_->watch_cv.notify_one();
  impl_->http.stop();
}

}  // namespace draforge::server
