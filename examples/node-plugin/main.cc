// draforge-node-plugin: a kubelet DRA driver (docs/node-plugin.md). This file only composes: the
// command line (flags.h), the API client of the public surface (draforge/draforge.hpp), the
// preparer that makes claims' CDI specs exist (node_preparer.h), kubelet's gRPC services on unix
// sockets (plugin_server.h) and the HTTP endpoints (plugin_http.h) on the daemons' HTTP layer.
//
// Start order: HTTP first (liveness answers while the rest starts), then the preparer (restores its
// checkpoint and rewrites missing CDI files before kubelet can ask), then the DRA socket, then the
// registration socket (kubelet registers only a plugin that already answers). Stop order, at
// SIGTERM or SIGINT: the reverse, and both sockets are removed.
#include <pthread.h>

#include <csignal>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <optional>
#include <random>
#include <string>

#include "daemon_log.h"
#include "draforge/draforge.hpp"
#include "flags.h"
#include "http_listener.h"
#include "node_preparer.h"
#include "plugin_http.h"
#include "plugin_server.h"
#include "plugin_status.h"
#include "rapidjson/document.h"

namespace draforge::node_plugin {
namespace {

using daemon::Log;

// The default instance UID: 16 random hex digits (64 bits), not a 36-character UUID: it is part of
// both socket paths, and kubelet cannot reach a unix socket whose path is over 107 bytes.
std::string RandomUid() {
  std::random_device rd;
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  for (int i = 0; i < 16; ++i) out += kHex[rd() & 0x0f];
  return out;
}

// The API client, or none. Node mode needs one. Demo mode uses one when a kubeconfig resolves and
// no --scenario is given; otherwise the preparer reads the scenario (--scenario, or the embedded
// demo). Returns false, having said why, when a configured cluster cannot be used.
bool Cluster(const Flags& flags, std::optional<KubeClient>& client) {
  if (!flags.scenario.empty()) return true;
  KubeConfigOptions options = KubeConfigOptionsFromEnvironment(flags.kubeconfig);
  options.user_agent = "draforge-node-plugin";
  auto resolved = ResolveKubeConfig(options);
  rapidjson::Document doc;
  if (resolved.ok() && !doc.Parse(resolved->data(), resolved->size()).HasParseError() && doc.IsObject() &&
      doc.HasMember("source") && doc["source"] == "none") {
    if (!flags.node_mode) return true;
    std::cerr << "error: node mode needs an API server and no kubeconfig was found: give --kubeconfig FILE (or "
                 "set KUBECONFIG, or create ~/.kube/config, or run in a pod)\n";
    return false;
  }
  auto created = resolved.ok() ? KubeClient::Create(options) : Result<KubeClient>(resolved.error());
  if (!created.ok()) {
    const bool from_env = options.kubeconfig.empty() && !options.kubeconfig_env.empty();
    std::cerr << (from_env ? "error: $KUBECONFIG: " : "error: ") << created.error().message << "\n";
    return false;
  }
  client.emplace(*std::move(created));
  return true;
}

// Blocks SIGTERM and SIGINT in this thread and every thread started after it, so that only the
// main thread's sigwait takes them (and a signal during start-up waits for it).
sigset_t BlockStopSignals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  return set;
}

int Main(int argc, char** argv) {
  Flags flags;
  if (std::string error = ParseFlags(argc, argv, flags); !error.empty()) {
    std::cerr << "error: " << error << "\n(draforge-node-plugin --help lists the flags)\n";
    return 2;
  }
  if (flags.help) {
    std::cout << kUsage << "\n";
    return 0;
  }
  if (flags.version) {
    std::cout << "draforge-node-plugin " << LibraryVersion() << "\n";
    return 0;
  }
  const char* tmpdir = std::getenv("TMPDIR");
  ApplyDefaults(flags, tmpdir == nullptr ? "" : tmpdir);
  if (flags.instance_uid.empty()) flags.instance_uid = RandomUid();
  // Before any thread exists (the API client's, gRPC's, the HTTP layer's): all inherit the mask.
  const sigset_t stop_signals = BlockStopSignals();
  std::optional<KubeClient> client;
  if (!Cluster(flags, client)) return 2;

  PluginStatus status;
  auto listener = http::HttpListener::Start(
      flags.listen_host, flags.listen_port, http::Limits{},
      [probes = StatusProbes(status)](const http::Request& r) { return http::ServeProbes(r, probes); });
  if (!listener.ok()) {
    std::cerr << "error: --listen " << flags.listen_host << ":" << flags.listen_port << ": "
              << listener.error().message << "\n";
    return 3;
  }
  // Said once the port is ours, so that a test that asked for port 0 knows where to look.
  const bool v6 = flags.listen_host.find(':') != std::string::npos;
  Log("listening on http://" + (v6 ? "[" + flags.listen_host + "]" : flags.listen_host) + ":" +
      std::to_string((*listener)->port()));

  NodePreparerOptions po;
  po.driver = flags.driver;
  po.node = flags.node;
  po.node_mode = flags.node_mode;
  po.cdi_dir = flags.cdi_dir;
  po.state_dir = flags.state_dir;
  po.scenario_file = flags.scenario;
  po.client = client ? &*client : nullptr;
  po.status = &status;
  po.resync = flags.resync;
  auto preparer = NodePreparer::Create(po);
  if (!preparer.ok()) {
    std::cerr << "error: " << preparer.error().message << "\n";
    return 1;
  }
  if (auto started = (*preparer)->Start(); !started.ok()) {
    std::cerr << "error: " << started.error().message << "\n";
    return 1;
  }
  Log(std::string(flags.node_mode ? "node" : "demo") + " mode: driver " + flags.driver + ", node " + flags.node +
      ", CDI dir " + flags.cdi_dir + ", state dir " + flags.state_dir + ", claims from " +
      (client ? "the API server " + std::string(client->server())
              : flags.scenario.empty() ? std::string("the embedded demo scenario") : flags.scenario));

  PluginServerOptions so;
  so.driver = flags.driver;
  so.registration_dir = flags.registration_dir;
  so.plugin_dir = flags.plugin_dir;
  so.instance_uid = flags.instance_uid;
  so.preparer = preparer->get();
  so.status = &status;
  auto server = PluginServer::Start(so);
  if (!server.ok()) {
    std::cerr << "error: " << server.error().message << "\n";
    (*preparer)->Stop();
    return 1;
  }

  int signal = 0;
  sigwait(&stop_signals, &signal);
  Log(std::string(signal == SIGTERM ? "SIGTERM" : "SIGINT") + ": stopping");
  (*server)->Stop();
  (*preparer)->Stop();
  (*listener)->Stop();
  return 0;
}

}  // namespace
}  // namespace draforge::node_plugin

int main(int argc, char** argv) { return draforge::node_plugin::Main(argc, argv); }
