// The node plugin's two gRPC servers on unix sockets (docs/node-plugin.md, "Sockets"):
//   <plugin-dir>/dra-<uid>.sock                   DRAPlugin v1 and v1beta1 (kubelet's calls)
//   <registration-dir>/<driver>-<uid>-reg.sock    Registration (kubelet's plugin watcher finds it)
// The instance UID in both names lets a new instance (a DaemonSet update) register beside the old
// one, so that kubelet keeps a plugin to call during the switch.
#ifndef DRAFORGE_EXAMPLES_NODE_PLUGIN_PLUGIN_SERVER_H_
#define DRAFORGE_EXAMPLES_NODE_PLUGIN_PLUGIN_SERVER_H_

#include <memory>
#include <string>

#include "claim_preparer.h"
#include "draforge/draforge.hpp"
#include "plugin_status.h"

namespace draforge::node_plugin {

struct PluginSockets {
  std::string registration;  // <registration-dir>/<driver>-<uid>-reg.sock
  std::string dra;           // <plugin-dir>/dra-<uid>.sock
};

PluginSockets SocketPaths(const std::string& registration_dir, const std::string& plugin_dir,
                          const std::string& driver, const std::string& instance_uid);

struct PluginServerOptions {
  std::string driver, registration_dir, plugin_dir, instance_uid;
  ClaimPreparer* preparer = nullptr;  // not owned; must outlive the server
  PluginStatus* status = nullptr;     // not owned; must outlive the server
};

class PluginServer {
 public:
  // Creates both directories if missing, replaces a stale file at either socket path (a previous
  // instance with the same UID that did not exit cleanly), then serves the DRA socket and, once it
  // answers, the registration socket (so kubelet never registers an endpoint that is not there).
  // Errors: DRAFORGE_EINVALID for a socket path longer than a unix socket allows;
  // DRAFORGE_EIO when a directory cannot be made, a stale file cannot be removed, or a socket cannot
  // be bound; each names the path.
  static Result<std::unique_ptr<PluginServer>> Start(const PluginServerOptions& options);
  ~PluginServer();
  PluginServer(const PluginServer&) = delete;
  PluginServer& operator=(const PluginServer&) = delete;

  const PluginSockets& sockets() const;
  // Removes the registration socket first (kubelet's watcher deregisters the plugin), stops both
  // servers (calls in flight finish, for at most a few seconds), then removes the DRA socket.
  // Idempotent; the destructor calls it.
  void Stop();

  struct Impl;

 private:
  explicit PluginServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace draforge::node_plugin

#endif  // DRAFORGE_EXAMPLES_NODE_PLUGIN_PLUGIN_SERVER_H_
