// draforge-controller: publishes SimulatedDevicePools as ResourceSlices and allocates pending claims
// on simulated devices, under Lease leader election. Built on the public surface only
// (draforge/draforge.hpp): the plans are the library's (reconcile.h), and so are the API client,
// the live source and the elector (kube.h).
//
// Loop (leader only): a round (controller.h) runs when the live source reports a change
// (SimulatedDevicePools, ResourceSlices, and with allocation ResourceClaims and DeviceClasses), when
// this replica starts leading, at every simulation tick (the clock of flap faults) and, as a safety
// net against a missed event, every --resync seconds. Rounds read fresh lists (consistent reads), so
// a change only says "look again", never what to write.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <ctime>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "controller.h"
#include "daemon_log.h"
#include "draforge/draforge.hpp"
#include "flags.h"
#include "http_listener.h"
#include "metrics.h"
#include "probe_endpoints.h"
#include "trigger.h"

namespace draforge::controller {

using daemon::Log;

namespace {

std::atomic<bool> g_stop{false};
void OnSignal(int) { g_stop.store(true); }

// The live source's kinds: what a round reads, so that a change starts one.
KubeSourceOptions SourceOptions(bool allocate, Trigger& trigger) {
  KubeSourceOptions o;
  o.kinds = allocate ? "ResourceSlice,ResourceClaim,DeviceClass" : "ResourceSlice";
  o.custom_resources = std::string(DRAFORGE_RECONCILE_POOL_API_VERSION) + "/" + DRAFORGE_RECONCILE_POOL_RESOURCE;
  o.on_change = [&trigger](std::string_view) { trigger.Notify(); };
  return o;
}

// /healthz (the process), /readyz (synced with the API server), /metrics; nothing else.
http::Probes HealthProbes(const Metrics& metrics) {
  return {[&metrics] {
            return std::pair<bool, std::string>(metrics.synced.load(), "not synced with the API server yet\n");
          },
          [&metrics] { return metrics.Render(); }};
}

int Main(int argc, char** argv) {
  Flags flags;
  if (!ParseFlags(argc, argv, flags)) {
    std::cerr << "\n" << kUsage << "\n";
    return 2;
  }
  if (flags.id.empty()) {
    char host[256] = {0};
    gethostname(host, sizeof(host) - 1);
    flags.id = std::string(host) + "-" + std::to_string(getpid());
  }
  auto client = KubeClient::Create(KubeConfigOptionsFromEnvironment(flags.kubeconfig, flags.context));
  if (!client.ok()) {
    std::cerr << "error: " << client.error().message << "\n";
    return 2;
  }
  // What the live source fills; not read (rounds read fresh lists), only its changes count.
  auto watched = Cluster::Create();
  if (!watched.ok()) {
    std::cerr << "error: " << watched.error().message << "\n";
    return 2;
  }
  std::signal(SIGINT, OnSignal);
  std::signal(SIGTERM, OnSignal);
  Metrics metrics;

  // Health and metrics on the daemons' event-driven HTTP layer (examples/common/http): a slow or
  // hostile client cannot hold the thread a kubelet probe needs.
  std::unique_ptr<http::HttpListener> http;
  if (flags.port > 0) {
    auto started = http::HttpListener::Start(flags.address, flags.port, http::Limits{},
                                             [probes = HealthProbes(metrics)](const http::Request& req) {
                                               return http::ServeProbes(req, probes);
                                             });
    if (!started.ok()) {
      std::cerr << "error: " << started.error().message << "\n";
      return 3;
    }
    http = *std::move(started);
    // Said once the port is ours, so that a supervisor (or a test that picked the port) knows the
    // endpoints it reaches are this process's and not whatever else held the port.
    Log(flags.id + ": serving /healthz, /readyz and /metrics on http://" + flags.address + ":" +
        std::to_string(flags.port));
  }

  Trigger trigger;
  LeaderElectionOptions le;
  le.lease_namespace = flags.lease_namespace;
  le.lease_name = flags.lease_name;
  le.identity = flags.id;
  le.on_started_leading = [&] {
    metrics.leader.store(1);
    trigger.Notify();  // a new leader reconciles at once
    Log(flags.id + ": started leading");
  };
  le.on_stopped_leading = [&] {
    metrics.leader.store(0);
    Log(flags.id + ": stopped leading");
  };
  le.on_new_leader = [](std::string_view id) { Log("leader is " + std::string(id)); };
  auto elector = LeaderElector::Start(*client, le);
  if (!elector.ok()) {
    std::cerr << "error: " << elector.error().message << "\n";
    return 2;
  }
  Log(flags.id + ": campaigning for Lease " + flags.lease_namespace + "/" + flags.lease_name);
  Controller controller(*client, *elector, metrics, g_stop, flags.tick, flags.allocate, flags.test_pause_ms,
                        flags.serve_pool_status_requests);
  // Standbys watch too, so that a new leader's first round is not the only one it can rely on.
  std::optional<KubeSource> source;
  auto next_round = std::chrono::steady_clock::time_point::max();
  while (!g_stop.load()) {
    if (!source) {
      // Discovery needs the API server; until it answers, the resync and the tick start rounds.
      auto started = KubeSource::Start(*client, *watched, SourceOptions(flags.allocate, trigger));
      if (started.ok()) {
        source.emplace(std::move(*started));
      } else {
        Log("watch: " + started.error().message);
      }
    }
    if (elector->is_leader()) {
      ++metrics.rounds;
      if (auto s = controller.Round(); !s.ok()) {
        ++metrics.round_errors;
        Log("round: " + s.error().message);
        // An API error: retry soon even if nothing changes.
        next_round = std::min(next_round, std::chrono::steady_clock::now() + std::chrono::seconds(1));
      }
    } else if (!metrics.synced.load()) {
      // A standby is ready once it can reach the API server.
      KubeRequestOptions one;
      one.limit = 1;
      if (client->List(DRAFORGE_RECONCILE_POOL_API_VERSION, DRAFORGE_RECONCILE_POOL_RESOURCE, "", one).ok()) {
        metrics.synced.store(true);
      }
    }
    // Next: a change, the resync period, or the next simulation tick (flap faults move with it).
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(flags.resync);
    if (flags.tick > 0) {
      const int64_t now_ms = KubeNow() / 1000000;
      const int64_t tick_ms = flags.tick * 1000;
      deadline = std::min(deadline, std::chrono::steady_clock::now() +
                                        std::chrono::milliseconds(tick_ms - now_ms % tick_ms + 10));
    }
    if (!source) deadline = std::min(deadline, std::chrono::steady_clock::now() + std::chrono::seconds(1));
    deadline = std::min(deadline, next_round);
    trigger.Take(deadline, g_stop);
    next_round = std::chrono::steady_clock::time_point::max();
  }
  Log(flags.id + ": stopping");
  // The round is over: hand the Lease back first (while the client still sends), so a standby takes
  // over at once instead of after lease_duration; then end the watches.
  elector->Stop();
  if (source) source->Stop();
  if (http) http->Stop();
  return 0;
}

}  // namespace
}  // namespace draforge::controller

int main(int argc, char** argv) { return draforge::controller::Main(argc, argv); }
