// Cluster mode: keeps the store equal to a live API server through the library's live source
// (draforge/kube.h: list + watch of the DRA kinds, Pods and Nodes into the draforge_cluster).
#ifndef DRAFORGE_EXAMPLES_SERVER_CLUSTER_SOURCE_H_
#define DRAFORGE_EXAMPLES_SERVER_CLUSTER_SOURCE_H_

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "draforge/draforge.hpp"
#include "draforge/kube.h"

namespace draforge::server {

// Where the cluster is, as the command line and the process environment say (the library reads
// no environment: ServerMain fills this from its own).
struct ClusterSourceOptions {
  std::string kubeconfig;      // --kubeconfig FILE; empty: none
  std::string kubeconfig_env;  // $KUBECONFIG (--cluster only)
  std::string home;            // $HOME, for ~/.kube/config (--cluster only)
  std::string context;         // --context; empty: current-context
  std::string service_host;    // KUBERNETES_SERVICE_HOST (--in-cluster, --cluster)
  std::string service_port;    // KUBERNETES_SERVICE_PORT
  std::vector<std::string> environment;  // "NAME=value": what exec credential plugins see
  std::string namespace_;      // --namespace: only this namespace's namespaced objects; empty: all
};

class ClusterSource {
 public:
  // Warning and error lines of the client and the source (thread-safe: called from source threads).
  using LogFunction = std::function<void(std::string_view level, std::string_view message)>;

  // Resolves the configuration (client-go's rules, draforge_kube_client_create), connects and
  // starts the live source into `cluster` (borrowed: it must outlive the source). `on_change` runs
  // on a source thread after each applied change (keep it short). Errors: the configuration's (the
  // kubeconfig, context or in-cluster files, naming what failed) or the API server's discovery
  // error (unreachable, no resource.k8s.io), naming the server.
  static Result<std::unique_ptr<ClusterSource>> Start(const ClusterSourceOptions& options, Cluster& cluster,
                                                      std::function<void()> on_change, LogFunction log);
  ~ClusterSource();
  ClusterSource(const ClusterSource&) = delete;
  ClusterSource& operator=(const ClusterSource&) = delete;

  // Every watched kind has been listed at least once.
  bool HasSynced() const;
  // The API server URL (for the start-up line).
  const std::string& server() const { return server_; }

 private:
  ClusterSource() = default;
  static void OnChange(void* self, const char* kind);
  static void OnLog(void* self, int level, const char* message);

  std::function<void()> on_change_;
  LogFunction log_;
  std::string server_;
  draforge_kube_source* source_ = nullptr;
};

}  // namespace draforge::server

#endif  // DRAFORGE_EXAMPLES_SERVER_CLUSTER_SOURCE_H_
