#include "server.h"

#include <netdb.h>
#include <sys/socket.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "api_views.h"
#include "event_hub.h"
#include "host_allow_list.h"
#include "http_encoding.h"
#include "http_listener.h"
#include "metrics.h"
#include "rate_limiter.h"
#include "request_target.h"
#include "static_files.h"
#include "work_queue.h"

namespace draforge::server {
namespace {

using Clock = std::chrono::steady_clock;
using RenderFn = std::function<Result<std::string>(const Snapshot&, const Query&)>;

constexpr char kJson[] = "application/json; charset=utf-8";
constexpr char kAllow[] = "GET, HEAD, OPTIONS";
// The one route that also takes POST: a what-if needs its edits in a body, and computes on a copy.
constexpr char kWhatifPath[] = "/api/v1/whatif/replay";
constexpr char kAllowWhatif[] = "GET, HEAD, OPTIONS, POST";
// Every response: the dashboard loads only its own scripts, styles, images and API (no inline code,
// nothing from elsewhere), and no other site may frame any page (clickjacking). X-Frame-Options
// says the same to browsers that predate frame-ancestors. Images may also be data: URLs: the
// dashboard's icon is one (examples/dashboard/index.html), and an image cannot run code.
constexpr char kContentSecurityPolicy[] = "default-src 'self'; frame-ancestors 'none'";

struct ApiRoute {
  const char* path;
  RenderFn render;
};

// A what-if view: the query checked into its request, then answered within the server's budget.
template <typename Parse, typename Render>
RenderFn WhatifRoute(Parse parse, Render render, const WhatifLimits& limits) {
  return [parse, render, limits](const Snapshot& snapshot, const Query& query) -> Result<std::string> {
    auto request = parse(query);
    if (!request.ok()) return std::move(request).error();
    return render(snapshot, *request, limits);
  };
}

// The REST views; /api/v1/packages also reads the catalog the server was started with, the what-if
// the server's budget.
std::vector<ApiRoute> ApiRoutes(const PackageCatalog& catalog, const WhatifLimits& whatif) {
  return {
      {"/api/v1/summary", &RenderSummary},
      {"/api/v1/pools", &RenderPools},
      {"/api/v1/devices", &RenderDevices},
      {"/api/v1/claims", &RenderClaims},
      {"/api/v1/graph", &RenderGraph},
      {"/api/v1/diagnostics", &RenderDiagnostics},
      {"/api/v1/pool-status", &RenderPoolStatus},
      {"/api/v1/packages",
       [catalog](const Snapshot& snapshot, const Query& query) { return RenderPackages(snapshot, query, catalog); }},
      {"/api/v1/whatif/replay", WhatifRoute(&ParseWhatifQuery, &RenderWhatifReplay, whatif)},
      {"/api/v1/whatif/preempt", WhatifRoute(&ParsePreemptQuery, &RenderWhatifPreempt, whatif)},
      {"/api/v1/whatif/gang", WhatifRoute(&ParseGangQuery, &RenderWhatifGang, whatif)},
      {"/api/v1/whatif/fragmentation",
       WhatifRoute([whatif](const Query& query) { return ParseFragmentationQuery(query, whatif); },
                   &RenderWhatifFragmentation, whatif)},
  };
}

constexpr std::string_view kFixedRoutes[] = {"/healthz", "/readyz", "/metrics", "/openapi.json", "/api/v1/events"};

// Whether `content_type` is JSON (application/json, any parameters, any case).
bool IsJsonContentType(std::string_view content_type) {
  const std::string_view media = content_type.substr(0, content_type.find(';'));
  const size_t first = media.find_first_not_of(" \t");
  if (first == std::string_view::npos) return false;
  const std::string_view trimmed = media.substr(first, media.find_last_not_of(" \t") - first + 1);
  constexpr std::string_view kWant = "application/json";
  if (trimmed.size() != kWant.size()) return false;
  for (size_t i = 0; i < trimmed.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(trimmed[i])) != kWant[i]) return false;
  }
  return true;
}

// A bounded label for metrics: a known route, "static" for files, "other" for the rest.
std::string RouteLabel(const std::vector<ApiRoute>& routes, const std::string& path) {
  for (const auto& r : routes) {
    if (path == r.path) return path;
  }
  for (auto r : kFixedRoutes) {
    if (path == r) return path;
  }
  if (path.rfind("/api/", 0) == 0) return "other";
  return "static";
}

using Body = std::shared_ptr<const std::string>;

// A view's error as an HTTP status: a refused query 400, an object the query names and the
// snapshot does not have 404, anything else 500.
int ErrorStatus(int code) {
  if (code == DRAFORGE_EINVALID) return 400;
  if (code == DRAFORGE_ENOTFOUND) return 404;
  return 500;
}

http::Response JsonError(int code, std::string_view message) {
  http::Response r;
  r.status = code;
  r.headers.emplace_back("Content-Type", kJson);
  r.body = RenderError(code, message);
  return r;
}

http::Response Json(std::string body) {
  http::Response r;
  r.headers.emplace_back("Content-Type", kJson);
  r.headers.emplace_back("Cache-Control", "no-store");
  r.body = std::move(body);
  return r;
}

// `body` as `content_type`, gzip-compressed when the client accepts gzip, the type is worth it and
// the body is large enough; `gzip` is its precompressed form if the caller has one (cached answers,
// static files), else it is compressed here. Brotli is never used (http_encoding.h).
http::Response BodyResponse(bool accepts_gzip, Body body, std::string_view content_type, Body gzip = nullptr) {
  http::Response r;
  r.headers.emplace_back("Content-Type", std::string(content_type));
  const bool compressible = IsCompressible(content_type);
  if (compressible) r.headers.emplace_back("Vary", "Accept-Encoding");
  if (compressible && body->size() >= kCompressMinBytes && accepts_gzip) {
    if (gzip == nullptr) {
      auto gz = Gzip(*body);
      if (gz && gz->size() < body->size()) gzip = std::make_shared<const std::string>(*std::move(gz));
    }
    if (gzip != nullptr) {
      r.headers.emplace_back("Content-Encoding", "gzip");
      body = std::move(gzip);
    }
  }
  r.body = *body;
  return r;
}

std::string FormatEvent(std::string_view type, uint64_t id, std::string_view data) {
  std::string out = "id: " + std::to_string(id) + "\nevent: ";
  out.append(type).append("\ndata: ").append(data).append("\n\n");
  return out;
}

// The listener takes IP literals only; a name (--address localhost) is resolved here, once, as
// the listen address of the previous HTTP layer was. "" listens everywhere.
Result<std::string> ListenAddress(const std::string& address) {
  if (address.empty()) return std::string("0.0.0.0");
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_ADDRCONFIG;
  addrinfo* found = nullptr;
  if (const int rc = getaddrinfo(address.c_str(), nullptr, &hints, &found); rc != 0) {
    return Error{DRAFORGE_EINVALID, "cannot resolve listen address \"" + address + "\": " + gai_strerror(rc), "", ""};
  }
  char numeric[NI_MAXHOST] = "";
  const int rc = getnameinfo(found->ai_addr, found->ai_addrlen, numeric, sizeof numeric, nullptr, 0, NI_NUMERICHOST);
  freeaddrinfo(found);
  if (rc != 0) return Error{DRAFORGE_EINVALID, "cannot resolve listen address \"" + address + "\"", "", ""};
  return std::string(numeric);
}

// What a stream that last saw one id is sent to catch up: shared by every stream at that id.
struct CatchUpText {
  Body bytes;
  uint64_t last_id = 0;
  uint64_t events = 0;
};

// A live event stream and what it has been sent.
struct Subscriber {
  std::shared_ptr<http::Stream> stream;
  uint64_t last_id = 0;
  Clock::time_point last_write;
};

}  // namespace

struct Server::Impl {
  Impl(Cluster& c, ServerOptions o)
      : cluster(c), options(std::move(o)), routes(ApiRoutes(options.package_catalog, options.whatif)),
        hub(options.event_ring), limiter(options.rate_limit), static_files(options.static_dir),
        max_running_whatifs(options.max_running_whatifs != 0
                                ? options.max_running_whatifs
                                : static_cast<size_t>(std::max(1, options.work_threads - 1))) {
    openapi_body = std::make_shared<const std::string>(options.openapi);
    if (auto gz = Gzip(*openapi_body); gz && gz->size() < openapi_body->size()) {
      openapi_gzip = std::make_shared<const std::string>(*std::move(gz));
    }
  }

  Cluster& cluster;
  const ServerOptions options;
  const std::vector<ApiRoute> routes;
  EventHub hub;
  Metrics metrics;
  RateLimiter limiter;
  StaticFiles static_files;
  Body openapi_body, openapi_gzip;
  std::atomic<bool> stopping{false};
  int bound_port = 0;
  const size_t max_running_whatifs;
  std::atomic<size_t> running_whatifs{0};  // POSTed what-ifs queued or being computed

  // The watcher: wakes on Notify() or every poll_interval, hands new snapshots to the hub and
  // the hub's events to the streams. Serve() waits on the same condition for Stop().
  std::thread watcher;
  std::mutex watch_mu;
  std::condition_variable watch_cv;
  bool notified = false;

  // Every live event stream; the watcher writes to them (streams_mu also orders a new stream's
  // first events before the watcher's next ones).
  std::mutex streams_mu;
  std::vector<Subscriber> subscribers;

  // Responses of the current snapshot, by path and query: the dashboard and many clients ask the
  // same questions after every change, and a snapshot's answers never change.
  std::mutex cache_mu;
  uint64_t cache_generation = UINT64_MAX;
  struct CacheEntry {
    std::mutex mu;  // held while the answer (or its gzip form) is computed
    std::atomic<bool> done{false};  // body or error is set (read without mu once true)
    int status = 0;     // when the answer is an error: 400 refused query, 404 unknown object, 500
    std::string error;  // its message
    Body body;
    std::atomic<bool> gzip_done{false};
    Body gzip;  // null if not worth it (small, or it did not shrink)

    bool Ready(bool accepts_gzip) const {
      return done.load() && (!accepts_gzip || body == nullptr || body->size() < kCompressMinBytes || gzip_done.load());
    }
  };
  std::map<std::string, std::shared_ptr<CacheEntry>> cache;
  static constexpr size_t kCacheEntries = 256;

  // Declared last: destroyed first. The queue's tasks answer through the listener's connections,
  // and the listener's handler and connections use everything above.
  std::unique_ptr<http::HttpListener> listener;
  std::unique_ptr<WorkQueue> work;

  bool Ready() const { return hub.started() && (!options.synced || options.synced()); }

  void Watch() {
    while (!stopping.load()) {
      if (!options.synced || options.synced()) {
        if (auto snapshot = cluster.snapshot(); snapshot.ok()) hub.Publish(*snapshot);
      }
      FanOut();
      std::unique_lock lock(watch_mu);
      watch_cv.wait_for(lock, options.poll_interval, [this] { return notified || stopping.load(); });
      notified = false;
    }
  }

  CatchUpText CatchUpFrom(uint64_t last_id) {
    CatchUp c = hub.Since(last_id);
    std::string out;
    CatchUpText text;
    if (c.reset) {
      out += FormatEvent("reset", c.current_id, hub.CurrentRef());
      ++text.events;
    }
    for (const auto& e : c.events) {
      out += FormatEvent("change", e.id, e.data);
      ++text.events;
    }
    text.last_id = c.events.empty() ? c.current_id : c.events.back().id;
    text.bytes = std::make_shared<const std::string>(std::move(out));
    return text;
  }

  // Sends each stream the events after its last id (the text is made once per distinct id, so
  // 10,000 streams share one copy of each event), a heartbeat to streams idle for `heartbeat`,
  // and forgets streams whose client left.
  void FanOut() {
    static const Body kHeartbeat = std::make_shared<const std::string>(": heartbeat\n\n");
    const auto now = Clock::now();
    std::lock_guard lock(streams_mu);
    const uint64_t current = hub.current_id();
    std::map<uint64_t, CatchUpText> texts;
    size_t kept = 0;
    for (auto& s : subscribers) {
      if (s.stream->closed()) continue;
      if (s.last_id != current) {
        auto it = texts.find(s.last_id);
        if (it == texts.end()) it = texts.emplace(s.last_id, CatchUpFrom(s.last_id)).first;
        if (!it->second.bytes->empty()) {
          if (s.stream->Write(it->second.bytes)) metrics.CountEventsSent(it->second.events);
          s.last_write = now;
        }
        s.last_id = it->second.last_id;
      } else if (now - s.last_write >= options.heartbeat) {
        s.stream->Write(kHeartbeat);
        s.last_write = now;
      }
      subscribers[kept++] = std::move(s);
    }
    subscribers.resize(kept);
  }

  // A new stream: `retry`, then hello (a fresh client), reset (an id that is not a number) or the
  // events it missed (Last-Event-ID); from then on the watcher writes to it.
  void Subscribe(std::shared_ptr<http::Stream> stream, bool resume, bool bad_id, uint64_t last_id) {
    std::lock_guard lock(streams_mu);
    if (stopping.load()) return stream->Close();
    std::string out = "retry: 2000\n\n";
    uint64_t sent = 1;
    if (resume && !bad_id) {
      CatchUpText text = CatchUpFrom(last_id);
      out += *text.bytes;
      sent = text.events;
      last_id = text.last_id;
    } else {
      last_id = hub.current_id();
      out += FormatEvent(resume ? "reset" : "hello", last_id, hub.CurrentRef());
    }
    if (stream->Write(std::make_shared<const std::string>(std::move(out))) && sent > 0) metrics.CountEventsSent(sent);
    subscribers.push_back({std::move(stream), last_id, Clock::now()});
  }

  std::shared_ptr<CacheEntry> CacheEntryFor(const Snapshot& snapshot, const http::RequestTarget& target) {
    std::string key = target.path;
    for (const auto& [k, v] : target.query) key.append("\x1f").append(k).append("=").append(v);
    std::lock_guard lock(cache_mu);
    if (cache_generation != snapshot.generation()) {
      cache.clear();
      cache_generation = snapshot.generation();
    }
    if (auto it = cache.find(key); it != cache.end()) return it->second;
    auto entry = std::make_shared<CacheEntry>();
    if (cache.size() < kCacheEntries) cache.emplace(key, entry);
    return entry;
  }

  // Computes (once: requests for the same answer wait for the first) the answer and, for a client
  // that accepts it, its gzip form. Runs on the work queue: diagnostics can take seconds on a
  // large cluster.
  void Compute(const ApiRoute& route, const Snapshot& snapshot, CacheEntry& entry, const Query& query,
               bool accepts_gzip) {
    std::lock_guard lock(entry.mu);
    if (!entry.done.load()) {
      auto rendered = route.render(snapshot, query);
      if (rendered.ok()) {
        entry.body = std::make_shared<const std::string>(*std::move(rendered));
      } else {
        entry.status = ErrorStatus(rendered.error().code);
        entry.error = rendered.error().message;
      }
      entry.done.store(true);
    }
    if (entry.body != nullptr && !entry.gzip_done.load() && entry.body->size() >= kCompressMinBytes && accepts_gzip) {
      auto gz = Gzip(*entry.body);
      if (gz && gz->size() < entry.body->size()) entry.gzip = std::make_shared<const std::string>(*std::move(gz));
      entry.gzip_done.store(true);
    }
  }

  http::Response Answer(const ApiRoute& route, const CacheEntry& entry, bool accepts_gzip, Clock::time_point start) {
    if (entry.body == nullptr) return JsonError(entry.status, entry.error);
    http::Response r = BodyResponse(accepts_gzip, entry.body, kJson, entry.gzip);
    r.headers.emplace_back("Cache-Control", "no-store");
    metrics.ObserveLatency(route.path, std::chrono::duration<double>(Clock::now() - start).count());
    return r;
  }

  // A cached answer at once; otherwise the answer is computed on the work queue, off the event
  // loop.
  http::Response ServeApi(const ApiRoute& route, const http::Request& req, const http::RequestTarget& target) {
    const auto start = Clock::now();
    auto snapshot = cluster.snapshot();
    if (!snapshot.ok()) return JsonError(500, "internal error");
    auto entry = CacheEntryFor(*snapshot, target);
    const bool gzip = AcceptsGzip(req.Header("Accept-Encoding"));
    if (entry->Ready(gzip)) return Answer(route, *entry, gzip, start);
    http::Response r;
    r.later = [this, &route, snapshot = *std::move(snapshot), entry, query = target.query, gzip, start,
               label = RouteLabel(routes, target.path)](http::Reply reply) {
      auto counted = [this, reply, label](http::Response answer) {
        metrics.CountRequest(label, answer.status);
        reply(std::move(answer));
      };
      const bool queued = work->Post([this, &route, snapshot, entry, query, gzip, start, counted] {
        Compute(route, snapshot, *entry, query, gzip);
        counted(Answer(route, *entry, gzip, start));
      });
      if (!queued) counted(JsonError(503, "server busy: too many answers being computed; retry"));
    };
    return r;
  }

  // POST /api/v1/whatif/replay: the body is read (at most max_body_bytes), checked on the event
  // loop (cheap, bounded by its size), then the what-if is computed on the work queue on the
  // snapshot current when the body arrived; nothing is cached (each body is its own question) and
  // nothing is changed. At most max_running_whatifs at once; more get 503.
  http::Response ServeWhatif(const http::Request& req, const http::RequestTarget& target) {
    if (!target.query.empty()) {
      return JsonError(400, "unknown query parameter \"" + target.query.begin()->first +
                                "\" (POST takes its options in the body: policy, explain, edits)");
    }
    const bool gzip = AcceptsGzip(req.Header("Accept-Encoding"));
    http::Response r;
    r.max_body_bytes = options.max_body_bytes;
    r.on_body = [this, gzip](std::string body) -> http::Response {
      const auto start = Clock::now();
      auto request = ParseWhatifBody(body, options.whatif);
      if (!request.ok()) return Counted(JsonError(400, request.error().message));
      auto snapshot = cluster.snapshot();
      if (!snapshot.ok()) return Counted(JsonError(500, "internal error"));
      if (running_whatifs.fetch_add(1) >= max_running_whatifs) {
        running_whatifs.fetch_sub(1);
        return Counted(JsonError(503, "server busy: " + std::to_string(max_running_whatifs) +
                                          " what-if(s) being computed; retry"));
      }
      http::Response later;
      later.later = [this, gzip, start, request = *std::move(request),
                     snapshot = *std::move(snapshot)](http::Reply reply) {
        auto counted = [this, reply](http::Response answer) { reply(Counted(std::move(answer))); };
        const bool queued = work->Post([this, gzip, start, request, snapshot, counted] {
          auto rendered = RenderWhatifReplay(snapshot, request, options.whatif);
          running_whatifs.fetch_sub(1);
          if (!rendered.ok()) {
            const int status = ErrorStatus(rendered.error().code);
            return counted(JsonError(status, status == 500 ? "internal error: " + rendered.error().message
                                                           : rendered.error().message));
          }
          http::Response ok = BodyResponse(gzip, std::make_shared<const std::string>(*std::move(rendered)), kJson);
          ok.headers.emplace_back("Cache-Control", "no-store");
          metrics.ObserveLatency(kWhatifPath, std::chrono::duration<double>(Clock::now() - start).count());
          counted(std::move(ok));
        });
        if (!queued) {
          running_whatifs.fetch_sub(1);
          counted(JsonError(503, "server busy: too many answers being computed; retry"));
        }
      };
      return later;
    };
    return r;
  }

  // An answer of the what-if POST counted here: Handle counts only what the handler answers at once.
  http::Response Counted(http::Response r) {
    metrics.CountRequest(kWhatifPath, r.status);
    return r;
  }

  http::Response ServeEvents(const http::Request& req, const http::RequestTarget& target) {
    std::string last_event_id = req.Header("Last-Event-ID");
    for (const auto& [k, v] : target.query) {
      if (k != "lastEventId") return JsonError(400, "unknown query parameter \"" + k + "\" (allowed: lastEventId)");
      if (last_event_id.empty()) last_event_id = v;
    }
    // The listener enforces the budget; this says which limit was hit.
    if (listener->open_streams() >= static_cast<size_t>(options.max_streams)) {
      return JsonError(503, "too many event streams (limit " + std::to_string(options.max_streams) + ")");
    }
    bool resume = false, bad_id = false;
    uint64_t last_id = 0;
    if (!last_event_id.empty()) {
      resume = true;
      auto [end, ec] = std::from_chars(last_event_id.data(), last_event_id.data() + last_event_id.size(), last_id);
      bad_id = ec != std::errc() || end != last_event_id.data() + last_event_id.size();
    }
    http::Response r;
    r.headers = {{"Content-Type", "text/event-stream"}, {"Cache-Control", "no-store"}, {"X-Accel-Buffering", "no"}};
    r.on_stream = [this, resume, bad_id, last_id](std::shared_ptr<http::Stream> stream) {
      Subscribe(std::move(stream), resume, bad_id, last_id);
    };
    return r;
  }

  // Everything that is not an endpoint: API paths are unknown (404); files of the dashboard are
  // served (each read and compressed once, not per request); other paths are client-side routes
  // of the dashboard, which index.html handles.
  http::Response ServeStatic(const http::Request& req, const std::string& path) {
    if (path.rfind("/api/", 0) == 0 || path == "/api") return JsonError(404, "no endpoint " + path + " (see /openapi.json)");
    auto file = static_files.Get(path);
    if (!file.ok() && file.error().code == DRAFORGE_EINVALID) return JsonError(400, file.error().message);
    // A hidden file or one that resolves outside the root is not there as far as clients know,
    // and it is not a client-side route either.
    if (!file.ok() && file.error().code == DRAFORGE_EUNSUPPORTED) return JsonError(404, "no file " + path);
    if (!file.ok() && file.error().code == DRAFORGE_ENOTFOUND) file = static_files.Get("/index.html");
    if (!file.ok()) return JsonError(404, "no file " + path + " and no dashboard to fall back to");
    http::Response r = BodyResponse(AcceptsGzip(req.Header("Accept-Encoding")), (*file)->body, (*file)->content_type,
                                    (*file)->gzip);
    r.headers.emplace_back("Cache-Control", "no-cache");
    return r;
  }

  // Answers 403 for a Host not on --allowed-hosts (DNS rebinding, host_allow_list.h) and 400 for
  // a Host header that is not one (RFC 9112 section 3.2: several, or not host[:port]). 403 as
  // kubectl proxy --accept-hosts, Jupyter and Vite answer it: the server understood the request
  // and refuses it; 421 would invite clients to retry it on another connection.
  std::optional<http::Response> RefuseHost(const http::Request& req) {
    if (req.HeaderCount("Host") > 1) return JsonError(400, "more than one Host header");
    const std::string host = req.Header("Host");
    switch (options.allowed_hosts.Check(host)) {
      case HostAllowList::Verdict::kAllowed:
        return std::nullopt;
      case HostAllowList::Verdict::kMalformed:
        return JsonError(400, "invalid Host header \"" + host + "\"");
      case HostAllowList::Verdict::kRefused:
        return JsonError(403, "host \"" + host + "\" is not allowed (--allowed-hosts " +
                                  options.allowed_hosts.patterns() + "; IP addresses are always allowed)");
    }
    return JsonError(400, "invalid Host header");
  }

  // The checks every request passes, in order (Host, rate, method, target size), then the route.
  http::Response Route(const http::Request& req, const http::RequestTarget& target) {
    if (auto refused = RefuseHost(req)) return *std::move(refused);
    if (!limiter.Allow(req.remote_address, Clock::now())) {
      metrics.CountRateLimited();
      http::Response r = JsonError(429, "rate limit exceeded: slow down");
      r.headers.emplace_back("Retry-After", "1");
      return r;
    }
    // Read-only by construction: no route changes anything, so every other method is refused (the
    // listener reads no body), but for the what-if POST, which computes on a copy.
    const bool whatif = target.path == kWhatifPath;
    const bool whatif_post = whatif && req.method == "POST";
    if (req.method != "GET" && req.method != "HEAD" && req.method != "OPTIONS") {
      const std::string length = req.Header("Content-Length");
      size_t n = 0;
      std::from_chars(length.data(), length.data() + length.size(), n);
      if (n > options.max_body_bytes) {
        return JsonError(413, "request body larger than " + std::to_string(options.max_body_bytes) + " bytes");
      }
      if (!whatif_post) {
        http::Response r = JsonError(405, "method " + req.method + " not allowed: draforge-server is read-only" +
                                              (whatif ? " (POST computes a what-if on a copy)" : ""));
        r.headers.emplace_back("Allow", whatif ? kAllowWhatif : kAllow);
        return r;
      }
      if (!IsJsonContentType(req.Header("Content-Type"))) {
        return JsonError(415, "Content-Type: want application/json, not \"" + req.Header("Content-Type") + "\"");
      }
    }
    size_t target_size = target.path.size();
    for (const auto& [k, v] : target.query) target_size += k.size() + v.size() + 2;
    if (target_size > options.max_target_bytes) {
      return JsonError(414, "request target longer than " + std::to_string(options.max_target_bytes) + " bytes");
    }
    if (req.method == "OPTIONS") {
      http::Response r;
      r.status = 204;
      r.headers.emplace_back("Allow", whatif ? kAllowWhatif : kAllow);
      return r;
    }
    // Probes stay open: the kubelet sends no token.
    if (options.authorize && target.path != "/healthz" && target.path != "/readyz") return Authorized(req, target);
    return Serve(req, target);
  }

  // The answer once the API server has said the client may have it (--delegate-auth): the reviews
  // block, so they run on the work queue.
  http::Response Authorized(const http::Request& req, const http::RequestTarget& target) {
    http::Response r;
    r.later = [this, req, target](http::Reply reply) {
      const bool queued = work->Post([this, req, target, reply] {
        const std::string label = RouteLabel(routes, target.path);
        const AuthVerdict verdict = options.authorize(req.Header("Authorization"), target.path);
        if (verdict.status != 200) {
          http::Response refused = JsonError(verdict.status, verdict.message);
          if (verdict.status == 401) refused.headers.emplace_back("WWW-Authenticate", "Bearer");
          metrics.CountRequest(label, refused.status);
          return reply(std::move(refused));
        }
        http::Response answer = Serve(req, target);
        if (!answer.later && !answer.on_body) metrics.CountRequest(label, answer.status);
        reply(std::move(answer));
      });
      if (!queued) reply(JsonError(503, "server busy: too many answers being computed; retry"));
    };
    return r;
  }

  // The endpoint for a request that passed every check.
  http::Response Serve(const http::Request& req, const http::RequestTarget& target) {
    const std::string& path = target.path;
    if (path == "/healthz") return Json(R"({"status":"ok"})");
    if (path == "/readyz") {
      if (Ready()) return Json(R"({"status":"ready","reason":""})");
      http::Response r = Json(R"({"status":"not ready","reason":"the store has not synced yet"})");
      r.status = 503;
      return r;
    }
    const bool gzip = AcceptsGzip(req.Header("Accept-Encoding"));
    if (path == "/openapi.json") return BodyResponse(gzip, openapi_body, kJson, openapi_gzip);
    if (path == "/metrics") {
      http::Response r = BodyResponse(
          gzip,
          std::make_shared<const std::string>(metrics.Render(cluster.snapshot().value(),
                                                             static_cast<int64_t>(listener->open_streams()),
                                                             hub.published(), Ready())),
          "text/plain; version=0.0.4; charset=utf-8");
      r.headers.emplace_back("Cache-Control", "no-store");
      return r;
    }
    if (req.method == "POST" && path == kWhatifPath) return ServeWhatif(req, target);
    for (const auto& route : routes) {
      if (path == route.path) return ServeApi(route, req, target);
    }
    if (path == "/api/v1/events") return ServeEvents(req, target);
    return ServeStatic(req, path);
  }

  http::Response Handle(const http::Request& req) {
    const http::RequestTarget target = http::ParseRequestTarget(req.target);
    http::Response r;
    try {
      r = Route(req, target);
    } catch (const std::exception&) {
      r = JsonError(500, "internal error");
    }
    if (!r.later && !r.on_body) metrics.CountRequest(RouteLabel(routes, target.path), r.status);
    return r;
  }
};

Server::Server(Cluster& cluster, ServerOptions options)
    : impl_(std::make_unique<Impl>(cluster, std::move(options))) {}

Server::~Server() {
  Stop();
  if (impl_->watcher.joinable()) impl_->watcher.join();
}

Result<void> Server::Bind() {
  const ServerOptions& o = impl_->options;
  auto address = ListenAddress(o.address);
  if (!address.ok()) return address.error();
  http::Limits limits;
  limits.max_streams = static_cast<size_t>(o.max_streams);
  limits.max_connections = o.max_connections;
  limits.max_per_source = o.max_per_source;
  limits.limit_loopback = o.limit_loopback;
  // Every response: nosniff and no referrer as before, and the browser protections above.
  const http::Headers common = {{"X-Content-Type-Options", "nosniff"},
                                {"Referrer-Policy", "no-referrer"},
                                {"Content-Security-Policy", kContentSecurityPolicy},
                                {"X-Frame-Options", "DENY"}};
  // Before the listener: its first request may need the queue.
  impl_->work = std::make_unique<WorkQueue>(o.work_threads, o.max_queued_answers);
  auto started = http::HttpListener::Start(
      *address, o.port, limits, [impl = impl_.get()](const http::Request& req) { return impl->Handle(req); },
      o.threads, common);
  if (!started.ok()) return started.error();
  impl_->listener = *std::move(started);
  impl_->bound_port = impl_->listener->port();
  return {};
}

int Server::port() const { return impl_->bound_port; }

void Server::Serve() {
  impl_->watcher = std::thread([this] { impl_->Watch(); });
  std::unique_lock lock(impl_->watch_mu);
  impl_->watch_cv.wait(lock, [this] { return impl_->stopping.load(); });
}

void Server::Notify() {
  {
    std::lock_guard lock(impl_->watch_mu);
    impl_->notified = true;
  }
  impl_->watch_cv.notify_all();
}

void Server::Stop() {
  if (impl_->stopping.exchange(true)) return;
  {
    std::lock_guard lock(impl_->streams_mu);
    for (auto& s : impl_->subscribers) s.stream->Close();
    impl_->subscribers.clear();
  }
  {
    // Taking the mutex once after setting `stopping`: a waiter that tested it before then is
    // waiting by now, and gets the notification.
    std::lock_guard lock(impl_->watch_mu);
  }
  impl_->watch_cv.notify_all();
  if (impl_->listener) impl_->listener->Stop();
}

}  // namespace draforge::server
