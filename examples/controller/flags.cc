#include "flags.h"

#include <cerrno>
#include <cstdlib>
#include <iostream>
#include <optional>

#include "draforge/draforge.hpp"
#include "inline_value.h"

namespace draforge::controller {

const char kUsage[] = R"(draforge-controller: publishes SimulatedDevicePools (sim.draforge.io/v1alpha1) as
ResourceSlices and allocates pending ResourceClaims on simulated devices, under Lease leader election.

Usage: draforge-controller [flags]     (each flag as --flag VALUE or --flag=VALUE)
  --kubeconfig PATH      kubeconfig (default: $KUBECONFIG, then ~/.kube/config, then in-cluster)
  --context NAME         kubeconfig context
  --id NAME              this replica's identity (default: hostname-pid)
  --lease-namespace NS   namespace of the Lease (default: default)
  --lease-name NAME      Lease name (default: draforge-sim-controller)
  --address ADDR         health/metrics address (default 127.0.0.1)
  --port N               health/metrics port (default 8081; 0: none)
  --resync SECONDS       safety-net period: a round at least this often (default 30); changes seen by
                         the watches are reconciled at once
  --tick SECONDS         seconds per simulation tick, the clock of flap faults (default 10)
  --no-allocate          publish slices only; leave claims alone
  --serve-pool-status-requests
                         also fill the status of ResourcePoolStatusRequests (resource.k8s.io/v1alpha3)
                         that have none, as kube-controller-manager's controller does (KEP-5677), for
                         clusters where that controller is off; each round (--resync at the latest)
  --test-pause-between-writes MS
                         test only: between two writes of a round -- the next one prepared and its
                         leadership checked, not sent -- log "test-pause: after write N of round R"
                         and sleep MS milliseconds (lets a test kill or stop the leader mid-round)
  --version              print "draforge-controller VERSION" (libdraforge's version) and exit
Endpoints: /healthz (process up), /readyz (200 once the API answered a list), /metrics (Prometheus).)";

namespace {

// A decimal integer >= 0 that fills the whole text.
bool ParseNonNegative(const std::string& text, int64_t& out) {
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos) return false;
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(text.c_str(), &end, 10);  // NOLINT(runtime/int): strtoll's type
  if (errno != 0 || end == nullptr || *end != '\0') return false;
  out = v;
  return true;
}

}  // namespace

// Flags as --flag VALUE or --flag=VALUE (what Kubernetes manifests usually write). Returns false,
// having said why on stderr, on an unknown flag, a missing or bad value, or a value given to a switch.
bool ParseFlags(int argc, char** argv, Flags& f) {
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    const std::optional<std::string> inline_value = flags::TakeInlineValue(a);
    auto value = [&](std::string& out) {
      if (inline_value) {
        out = *inline_value;
        return true;
      }
      if (i + 1 >= argc) {
        std::cerr << "error: flag " << a << " needs a value\n";
        return false;
      }
      out = argv[++i];
      return true;
    };
    auto number = [&](int64_t& out) {
      std::string v;
      if (!value(v)) return false;
      if (!ParseNonNegative(v, out) || out < 0) {
        std::cerr << "error: flag " << a << ": \"" << v << "\" is not a non-negative integer\n";
        return false;
      }
      return true;
    };
    auto no_value = [&] {
      if (!inline_value) return true;
      std::cerr << "error: flag " << a << " takes no value\n";
      return false;
    };
    int64_t port = 0;
    if (a == "--help" || a == "-h") {
      if (!no_value()) return false;
      std::cout << kUsage << "\n";
      std::exit(0);
    } else if (a == "--version") {
      if (!no_value()) return false;
      std::cout << "draforge-controller " << LibraryVersion() << "\n";
      std::exit(0);
    } else if (a == "--kubeconfig") {
      if (!value(f.kubeconfig)) return false;
    } else if (a == "--context") {
      if (!value(f.context)) return false;
    } else if (a == "--id") {
      if (!value(f.id)) return false;
    } else if (a == "--lease-namespace") {
      if (!value(f.lease_namespace)) return false;
    } else if (a == "--lease-name") {
      if (!value(f.lease_name)) return false;
    } else if (a == "--address") {
      if (!value(f.address)) return false;
    } else if (a == "--port") {
      if (!number(port)) return false;
      if (port > 65535) {
        std::cerr << "error: flag --port: " << port << " is not a port (0-65535)\n";
        return false;
      }
      f.port = static_cast<int>(port);
    } else if (a == "--resync") {
      if (!number(f.resync)) return false;
      if (f.resync == 0) {
        std::cerr << "error: flag --resync must be at least 1\n";
        return false;
      }
    } else if (a == "--tick") {
      if (!number(f.tick)) return false;
    } else if (a == "--test-pause-between-writes") {
      if (!number(f.test_pause_ms)) return false;
    } else if (a == "--no-allocate") {
      if (!no_value()) return false;
      f.allocate = false;
    } else if (a == "--serve-pool-status-requests") {
      if (!no_value()) return false;
      f.serve_pool_status_requests = true;
    } else {
      std::cerr << "error: unknown flag \"" << a << "\"\n";
      return false;
    }
  }
  return true;
}

}  // namespace draforge::controller
