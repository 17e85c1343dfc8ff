#include "server_main.h"

#include <signal.h>
#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "draforge/draforge.hpp"
#include "scenario_source.h"
#ifdef DRAFORGE_SERVER_WITH_KUBE
#include "cluster_source.h"
#include "delegated_auth.h"
#endif
#include "server.h"

extern const char kDemoScenario[];
extern const char kDemoPackageCatalog[];
extern const char kOpenApi[];

namespace draforge::server {
namespace {

constexpr char kUsage[] = R"(usage: draforge-server [--demo | --scenario FILE] [--watch-dir DIR] [flags]

Serves a read-only view of Kubernetes Dynamic Resource Allocation: JSON API (/api/v1/...,
described at /openapi.json), Server-Sent Events (/api/v1/events), /metrics, /healthz, /readyz and
the web dashboard. Each flag is given as --flag VALUE or --flag=VALUE.

Source (default --demo):
  --demo                 the embedded demo scenario (examples/scenarios/demo.yaml)
  --scenario FILE        objects from a YAML or JSON file (multi-document; Lists expanded)
  --watch-dir DIR        also apply DIR's *.yaml|*.yml|*.json on top, re-applied when they change
                         (objects removed from the files are deleted)
  --max-input-size BYTES the largest --scenario file and --watch-dir file read (default 33554432,
                         32 MiB); a 10,000-node cluster's objects are about 150 MB of JSON
  --kubeconfig FILE      a live cluster, through a kubeconfig file (list + watch)
  --in-cluster           a live cluster, from inside a pod (service account)
  --cluster              a live cluster found as kubectl finds it: $KUBECONFIG, ~/.kube/config,
                         else in-cluster
  --context NAME         kubeconfig context (default: current-context)
  --namespace NS         only this namespace's claims and pods (default: all)
  --delegate-auth        answer only requests whose bearer token the API server accepts
                         (TokenReview) and whose user may get the path as a non-resource URL
                         (SubjectAccessReview); /healthz and /readyz stay open. Cluster mode only
Packages:
  --package-catalog FILE
                         the package catalog /api/v1/packages counts (docs/packages.md), checked
                         at start. Default with --demo: the demo's (examples/packages/catalog.yaml)
Listening:
  --address ADDR         listen address (default 127.0.0.1: loopback only)
  --port N               listen port (default 8080; 0 picks a free port)
  --static-dir DIR       dashboard files (default )" DRAFORGE_DASHBOARD_DIR R"()
  --allowed-hosts LIST   Host header names answered, comma-separated: NAME, *.SUFFIX or * (any);
                         others get 403 (DNS rebinding). IP addresses are always allowed.
                         Default localhost,*.localhost; behind a proxy or an Ingress add its name
Limits:
  --max-streams N        concurrent event streams (default 2500); more get 503
  --max-connections N    concurrent connections that are not streams (default 10000); more get 503
  --max-per-source N     connections from one client address (default 1000; 0: no cap); more are
                         closed at accept. Loopback clients (kubectl port-forward, a local proxy)
                         are not counted unless --limit-loopback
  --limit-loopback       apply --max-per-source to 127.0.0.0/8 and ::1 too
  --rate-limit N         requests per second per client address, burst 2N (default 200; 0: off)
  --max-body-bytes N     request body limit (default 65536); larger: 413. Only the what-if POST
                         takes a body
What-if (/api/v1/whatif/replay: computed on a copy of the snapshot, never changes it):
  --whatif-max-steps N   allocator search steps per pod and node (default 100000); a node that needs
                         more does not fit, with the allocator's limit as its reason
  --whatif-max-pairs N   pods x nodes one what-if may replay (default 1000000); more: 400
  --whatif-max-explained N
                         pending pods x nodes given the explain funnel's sentences (default 20000,
                         about a millisecond each); more: the allocator's reasons and a note
Events:
  --heartbeat-ms N       heartbeat comment interval on idle streams (default 15000)
  --event-ring N         change events kept for Last-Event-ID resume (default 1024)
Testing:
  --ready-delay-ms N     load the source only after N ms (/readyz answers 503 meanwhile)
Other:
  --version              print "draforge-server VERSION" (libdraforge's version) and exit
  --help                 this text
)";

struct Flags {
  std::map<std::string, std::string> values;
  std::vector<std::string> bools;
};

const std::vector<std::string> kValueFlags = {"--scenario",    "--watch-dir",      "--address",    "--port",
                                              "--static-dir",  "--max-streams",    "--rate-limit", "--max-body-bytes",
                                              "--heartbeat-ms", "--event-ring",    "--ready-delay-ms", "--kubeconfig",
                                              "--context",     "--namespace",      "--allowed-hosts",
                                              "--max-connections", "--max-per-source", "--package-catalog",
                                              "--max-input-size", "--whatif-max-steps", "--whatif-max-pairs",
                                              "--whatif-max-explained"};
const std::vector<std::string> kBoolFlags = {"--demo",          "--in-cluster", "--cluster", "--limit-loopback",
                                             "--delegate-auth", "--help",       "-h",
                                             "--version"};

std::optional<Flags> ParseFlags(int argc, char** argv, std::string& error) {
  Flags f;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    std::string value;
    bool has_value = false;
    if (auto eq = arg.find('='); arg.rfind("--", 0) == 0 && eq != std::string::npos) {
      value = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
      has_value = true;
    }
    if (std::find(kBoolFlags.begin(), kBoolFlags.end(), arg) != kBoolFlags.end()) {
      if (has_value) {
        error = arg + " takes no value";
        return std::nullopt;
      }
      f.bools.push_back(arg);
      continue;
    }
    if (std::find(kValueFlags.begin(), kValueFlags.end(), arg) == kValueFlags.end()) {
      error = "unknown flag " + arg;
      return std::nullopt;
    }
    if (!has_value) {
      if (i + 1 >= argc) {
        error = arg + " needs a value";
        return std::nullopt;
      }
      value = argv[++i];
    }
    f.values[arg] = value;
  }
  return f;
}

bool Has(const Flags& f, const std::string& name) {
  return std::find(f.bools.begin(), f.bools.end(), name) != f.bools.end() || f.values.count(name);
}

std::optional<int64_t> IntFlag(const Flags& f, const std::string& name, int64_t fallback, int64_t min, int64_t max,
                               std::string& error) {
  auto it = f.values.find(name);
  if (it == f.values.end()) return fallback;
  int64_t n = 0;
  const std::string& v = it->second;
  auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
  if (ec != std::errc() || end != v.data() + v.size() || n < min || n > max) {
    error = name + " must be an integer from " + std::to_string(min) + " to " + std::to_string(max) + ", not \"" + v +
            "\"";
    return std::nullopt;
  }
  return n;
}

// Every connection is a file descriptor, and the default soft limit (often 1024) is far below
// --max-streams + --max-connections: take the hard limit, which needs no privilege.
void RaiseOpenFileLimit() {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < limit.rlim_max) {
    limit.rlim_cur = limit.rlim_max;
    setrlimit(RLIMIT_NOFILE, &limit);
  }
}

constexpr size_t kMaxCatalogBytes = 4 << 20;

// --package-catalog FILE, read and validated now so that a bad catalog fails at start with every
// problem named; without the flag the demo serves its own catalog and a cluster or scenario none.
std::optional<PackageCatalog> LoadPackageCatalog(const Flags& flags, bool cluster_mode) {
  auto it = flags.values.find("--package-catalog");
  if (it == flags.values.end()) {
    if (cluster_mode || Has(flags, "--scenario")) return PackageCatalog{};
    return PackageCatalog{kDemoPackageCatalog, "demo"};
  }
  std::error_code ec;
  const auto size = std::filesystem::file_size(it->second, ec);
  if (ec || std::filesystem::is_directory(it->second, ec)) {
    std::cerr << "draforge-server: --package-catalog " << it->second << ": not a readable file"
              << (ec ? " (" + ec.message() + ")" : std::string()) << "\n";
    return std::nullopt;
  }
  if (size > kMaxCatalogBytes) {
    std::cerr << "draforge-server: --package-catalog " << it->second << ": " << size << " bytes, more than the "
              << kMaxCatalogBytes << " accepted\n";
    return std::nullopt;
  }
  std::ifstream in(it->second, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  if (!in) {
    std::cerr << "draforge-server: --package-catalog " << it->second << ": cannot read it\n";
    return std::nullopt;
  }
  if (auto valid = PackageValidateJson(text.str()); !valid.ok()) {
    std::cerr << "draforge-server: --package-catalog " << it->second << ":\n" << valid.error().message << "\n";
    return std::nullopt;
  }
  return PackageCatalog{text.str(), it->second};
}

}  // namespace

int ServerMain(int argc, char** argv) {
  std::string error;
  auto flags = ParseFlags(argc, argv, error);
  if (!flags) {
    std::cerr << "draforge-server: " << error << "\n" << kUsage;
    return 2;
  }
  if (Has(*flags, "--help") || Has(*flags, "-h")) {
    std::cout << kUsage;
    return 0;
  }
  if (Has(*flags, "--version")) {
    std::cout << "draforge-server " << LibraryVersion() << "\n";
    return 0;
  }
  const bool cluster_mode = Has(*flags, "--kubeconfig") || Has(*flags, "--in-cluster") || Has(*flags, "--cluster");
#ifndef DRAFORGE_SERVER_WITH_KUBE
  if (cluster_mode) {
    std::cerr << "draforge-server: cluster mode (--kubeconfig, --in-cluster, --cluster) is not available in this "
                 "build (built without lib/kube)\n";
    return 2;
  }
#endif
  if (cluster_mode && (Has(*flags, "--demo") || Has(*flags, "--scenario") || Has(*flags, "--watch-dir"))) {
    std::cerr << "draforge-server: --kubeconfig/--in-cluster/--cluster exclude --demo, --scenario and --watch-dir\n";
    return 2;
  }
  if (Has(*flags, "--delegate-auth") && !cluster_mode) {
    std::cerr << "draforge-server: --delegate-auth needs a cluster to ask (--kubeconfig, --in-cluster or --cluster)\n";
    return 2;
  }
  if (Has(*flags, "--demo") && Has(*flags, "--scenario")) {
    std::cerr << "draforge-server: --demo and --scenario exclude each other\n";
    return 2;
  }
  ServerOptions options;
  options.openapi = kOpenApi;
  options.static_dir = DRAFORGE_DASHBOARD_DIR;
  if (auto it = flags->values.find("--static-dir"); it != flags->values.end()) options.static_dir = it->second;
  if (auto it = flags->values.find("--address"); it != flags->values.end()) options.address = it->second;
  if (auto it = flags->values.find("--allowed-hosts"); it != flags->values.end()) {
    auto hosts = HostAllowList::Parse(it->second);
    if (!hosts.ok()) {
      std::cerr << "draforge-server: --allowed-hosts: " << hosts.error().message << "\n";
      return 2;
    }
    options.allowed_hosts = *std::move(hosts);
  }
  auto port = IntFlag(*flags, "--port", 8080, 0, 65535, error);
  auto streams = IntFlag(*flags, "--max-streams", 2500, 1, 30000, error);
  auto rate = IntFlag(*flags, "--rate-limit", 200, 0, 1000000, error);
  auto body = IntFlag(*flags, "--max-body-bytes", 64 * 1024, 0, 1 << 30, error);
  auto heartbeat = IntFlag(*flags, "--heartbeat-ms", 15000, 10, 3600 * 1000, error);
  auto ring = IntFlag(*flags, "--event-ring", 1024, 1, 1 << 20, error);
  auto ready_delay = IntFlag(*flags, "--ready-delay-ms", 0, 0, 3600 * 1000, error);
  auto connections = IntFlag(*flags, "--max-connections", 10000, 1, 1000000, error);
  auto per_source = IntFlag(*flags, "--max-per-source", 1000, 0, 1000000, error);
  auto max_input = IntFlag(*flags, "--max-input-size", int64_t{32} << 20, 1, int64_t{1} << 40, error);
  auto whatif_steps = IntFlag(*flags, "--whatif-max-steps", 100000, 1, int64_t{1} << 40, error);
  auto whatif_pairs = IntFlag(*flags, "--whatif-max-pairs", 1000000, 1, int64_t{1} << 40, error);
  auto whatif_explained = IntFlag(*flags, "--whatif-max-explained", 20000, 0, int64_t{1} << 40, error);
  if (!port || !streams || !rate || !body || !heartbeat || !ring || !ready_delay || !connections || !per_source ||
      !max_input || !whatif_steps || !whatif_pairs || !whatif_explained) {
    std::cerr << "draforge-server: " << error << "\n";
    return 2;
  }
  options.port = static_cast<int>(*port);
  options.max_streams = static_cast<int>(*streams);
  options.rate_limit = static_cast<double>(*rate);
  options.max_body_bytes = static_cast<size_t>(*body);
  options.whatif.max_steps = *whatif_steps;
  options.whatif.max_pairs = *whatif_pairs;
  options.whatif.max_explained = *whatif_explained;
  options.heartbeat = std::chrono::milliseconds(*heartbeat);
  options.event_ring = static_cast<size_t>(*ring);
  options.max_connections = static_cast<size_t>(*connections);
  options.max_per_source = static_cast<size_t>(*per_source);
  options.limit_loopback = Has(*flags, "--limit-loopback");
  RaiseOpenFileLimit();
  if (auto catalog = LoadPackageCatalog(*flags, cluster_mode); catalog) {
    options.package_catalog = *std::move(catalog);
  } else {
    return 2;
  }

  std::string scenario_text = kDemoScenario;
  std::string scenario_name = "demo scenario";
  std::optional<Objects> scenario_objects;  // --scenario's, read at start
  if (auto it = flags->values.find("--scenario"); it != flags->values.end()) {
    // A directory would load here (the library applies every file in it) and then be read as empty
    // text below, serving an empty cluster that says it is ready: refuse it, naming the flag for it.
    std::error_code dir_error;
    if (std::filesystem::is_directory(it->second, dir_error)) {
      std::cerr << "draforge-server: --scenario " << it->second
                << ": is a directory; --scenario takes a file (serve a directory with --watch-dir DIR)\n";
      return 2;
    }
    // Read now, once, so that a missing or malformed file fails at start and not in the background.
    auto read = ReadFile(it->second, static_cast<size_t>(*max_input));
    if (!read.ok()) {
      std::cerr << "draforge-server: " << read.error().message << "\n";
      return 1;
    }
    scenario_objects.emplace(*std::move(read));
    scenario_name = it->second;
  }

  auto created = Cluster::Create();
  if (!created.ok()) {
    std::cerr << "draforge-server: " << created.error().message << "\n";
    return 1;
  }
  Cluster& cluster = *created;
  std::atomic<bool> synced{false};
  std::function<bool()> cluster_synced;  // set in cluster mode
  options.synced = [&synced, &cluster_synced] { return cluster_synced ? cluster_synced() : synced.load(); };

  // Signals are taken by a thread (sigwait) so that Stop runs in a normal context.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  signal(SIGPIPE, SIG_IGN);

#ifdef DRAFORGE_SERVER_WITH_KUBE
  // --delegate-auth: filled in below, before the server answers its first request.
  std::optional<KubeClient> auth_client;
  std::unique_ptr<DelegatedAuth> auth;
  if (Has(*flags, "--delegate-auth")) {
    options.authorize = [&auth](std::string_view authorization, const std::string& path) {
      return auth->Check(authorization, path);
    };
  }
#endif
  Server server(cluster, options);
  std::atomic<bool> done{false};
#ifdef DRAFORGE_SERVER_WITH_KUBE
  std::unique_ptr<ClusterSource> live;
  if (cluster_mode) {
    // The library reads no environment: the server passes its own (exec credential plugins see
    // it). --kubeconfig FILE names the file; --cluster follows kubectl's rules ($KUBECONFIG,
    // ~/.kube/config, in-cluster); --in-cluster uses the service account only.
    std::string kubeconfig, context, namespace_;
    if (auto it = flags->values.find("--kubeconfig"); it != flags->values.end()) kubeconfig = it->second;
    if (auto it = flags->values.find("--context"); it != flags->values.end()) context = it->second;
    if (auto it = flags->values.find("--namespace"); it != flags->values.end()) namespace_ = it->second;
    KubeConfigOptions config = KubeConfigOptionsFromEnvironment(kubeconfig, context);
    if (Has(*flags, "--in-cluster") && !Has(*flags, "--cluster")) {
      config.kubeconfig_env.clear();
      config.home.clear();
    }
    config.log = [](int level, std::string_view message) {
      if (level >= DRAFORGE_KUBE_LOG_WARNING) {
        std::cerr << "draforge-server: " << (level == DRAFORGE_KUBE_LOG_WARNING ? "warning" : "error") << ": "
                  << message << std::endl;
      }
    };
    auto started = ClusterSource::Start(config, namespace_, cluster, [&server] { server.Notify(); });
    if (!started.ok()) {
      std::cerr << "draforge-server: " << started.error().message << "\n";
      return 1;
    }
    live = *std::move(started);
    cluster_synced = [&live] { return live->HasSynced(); };
    if (Has(*flags, "--delegate-auth")) {
      auto client = KubeClient::Create(config);
      if (!client.ok()) {
        std::cerr << "draforge-server: --delegate-auth: " << client.error().message << "\n";
        return 1;
      }
      auth_client.emplace(*std::move(client));
      auth = std::make_unique<DelegatedAuth>(*auth_client);
    }
    std::cerr << "draforge-server: watching " << live->server() << std::endl;
  }
#endif
  if (auto bound = server.Bind(); !bound.ok()) {
    std::cerr << "draforge-server: " << bound.error().message << "\n";
    return 1;
  }
  std::cout << "draforge-server listening on http://" << options.address << ":" << server.port() << std::endl;
  // The line a person opens (`draforge demo --serve` relies on it): a wildcard listen address is
  // reachable on loopback, and an IPv6 literal needs brackets in a URL.
  std::string host = options.address;
  if (host == "0.0.0.0" || host.empty()) host = "127.0.0.1";
  if (host == "::") host = "::1";
  if (host.find(':') != std::string::npos) host = "[" + host + "]";
  std::cout << "DRAForge dashboard: http://" << host << ":" << server.port() << "/" << std::endl;
  if (options.static_dir.empty() || !std::filesystem::is_regular_file(std::filesystem::path(options.static_dir) / "index.html")) {
    std::cerr << "draforge-server: no dashboard in \"" << options.static_dir
              << "\" (no index.html): serving the API only; build it with examples/dashboard/build DIR and pass "
                 "--static-dir DIR"
              << std::endl;
  }

  std::thread loader([&] {
    if (cluster_mode) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(*ready_delay));
    // LoadText names the source in its errors; ApplyObjects names the object only.
    auto loaded = scenario_objects ? cluster.ApplyObjects(*scenario_objects) : LoadText(scenario_text, scenario_name, cluster);
    if (!loaded.ok()) {
      std::cerr << "draforge-server: " << (scenario_objects ? scenario_name + ": " : "") << loaded.error().message
                << "\n";
      server.Stop();
      return;
    }
    scenario_objects.reset();  // the store holds them now
    std::optional<WatchDir> watch;
    if (auto it = flags->values.find("--watch-dir"); it != flags->values.end()) {
      watch.emplace(it->second, cluster, static_cast<size_t>(*max_input));
    }
    auto report = [](const std::string& msg) { std::cerr << "draforge-server: watch-dir: " << msg << std::endl; };
    if (watch) watch->Poll(report);
    synced = true;
    server.Notify();
    while (watch && !done.load()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      if (watch->Poll(report)) server.Notify();
    }
  });
  std::thread signal_waiter([&] {
    int sig = 0;
    sigwait(&signals, &sig);
    if (!done.load()) server.Stop();
  });

  server.Serve();
  done = true;
  server.Stop();
  loader.join();
  // Wake the signal thread if no signal came.
  pthread_kill(signal_waiter.native_handle(), SIGTERM);
  signal_waiter.join();
  return 0;
}

}  // namespace draforge::server
