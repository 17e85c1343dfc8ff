// Server: the HTTP front of draforge-server. Read-only by construction: only GET/HEAD/OPTIONS
// routes exist, every other method is answered 405, with one exception that changes nothing either:
// POST /api/v1/whatif/replay computes a what-if (whatif_view.h) on a copy of the current snapshot
// and needs a request body only because its edits do not fit in a query.
//
// Threads: the event-driven HTTP layer (examples/common/http) serves every connection on a few
// event-loop threads (`threads`); API answers not yet cached are computed on a work queue
// (`work_threads`) so that the loop keeps answering probes meanwhile. A watcher thread turns store
// changes into events (EventHub) and writes them to every stream.
#ifndef DRAFORGE_EXAMPLES_SERVER_SERVER_H_
#define DRAFORGE_EXAMPLES_SERVER_SERVER_H_

#include <atomic>
#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <thread>

#include "api_views.h"
#include "draforge/draforge.hpp"
#include "host_allow_list.h"
#include "whatif_view.h"

namespace draforge::server {

// Whether a request may be answered (ServerOptions::authorize).
struct AuthVerdict {
  int status = 200;     // 200 allowed; otherwise the error status to answer (401, 403, 503)
  std::string message;  // why not, for the error body
};

struct ServerOptions {
  std::string address = "127.0.0.1";
  int port = 8080;  // 0: any free port (see Server::port())
  // Static files (the dashboard); "" or a missing directory: none (non-API paths get 404).
  std::string static_dir;
  int max_streams = 2500;
  // Connections that are not streams; more get 503 at accept.
  size_t max_connections = 10000;
  // Connections from one source address (0: no cap). Loopback sources (port-forwards, a local
  // proxy) are exempt unless limit_loopback.
  size_t max_per_source = 1000;
  bool limit_loopback = false;
  int threads = 2;       // event-loop threads
  int work_threads = 2;  // threads that compute API answers
  size_t max_queued_answers = 1024;  // API answers waiting for a work thread; more get 503
  double rate_limit = 200;  // requests per second per client address; 0: unlimited
  size_t max_body_bytes = 64 * 1024;  // the what-if POST's body; a larger body on any route: 413
  // What one what-if may cost (the budget of /api/v1/whatif/replay).
  WhatifLimits whatif;
  // What-ifs (POST) computed at once; more get 503. 0: one less than work_threads (at least one),
  // so that the other answers always have a work thread.
  size_t max_running_whatifs = 0;
  size_t max_target_bytes = 4096;  // path + query
  // Host header values answered; others get 403 (DNS rebinding; host_allow_list.h).
  HostAllowList allowed_hosts;
  std::chrono::milliseconds heartbeat{15000};
  std::chrono::milliseconds poll_interval{100};  // how often the watcher looks for changes
  size_t event_ring = 1024;
  // The store is synced (scenario loaded, or every reflector listed). Empty: always.
  std::function<bool()> synced;
  // The openapi.json text served at /openapi.json.
  std::string openapi;
  // The package catalog /api/v1/packages counts (validated by the caller); empty text: none.
  PackageCatalog package_catalog;
  // When set (--delegate-auth, delegated_auth.h), every request but /healthz, /readyz and OPTIONS
  // is answered only if this allows it; called with the Authorization header and the decoded path,
  // on a work thread (it may block on the API server).
  std::function<AuthVerdict(std::string_view authorization, const std::string& path)> authorize;
};

class Server {
 public:
  // `cluster` is borrowed and must outlive the Server.
  Server(Cluster& cluster, ServerOptions options);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Binds the socket and starts answering (on the listener's threads). Errors: the address that
  // cannot be resolved (DRAFORGE_EINVALID) or bound (DRAFORGE_ENOTFOUND).
  Result<void> Bind();
  // The bound port (after Bind).
  int port() const;
  // Publishes store changes to the event streams until Stop() (blocking).
  void Serve();
  // Wakes the watcher now (after a change to the store; it also polls).
  void Notify();
  // Ends the event streams and the listener; Serve() returns. Safe from any thread or signal-safe
  // context that may take a mutex (not from a signal handler).
  void Stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace draforge::server

#endif  // DRAFORGE_EXAMPLES_SERVER_SERVER_H_
