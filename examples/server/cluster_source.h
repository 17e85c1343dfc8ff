// Cluster mode: keeps the store equal to a live API server through lib/kube's Reflector
// (list + watch of the DRA kinds, Pods and Nodes).
#ifndef DRAFORGE_EXAMPLES_SERVER_CLUSTER_SOURCE_H_
#define DRAFORGE_EXAMPLES_SERVER_CLUSTER_SOURCE_H_

#include <functional>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "kube/client.h"
#include "kube/log.h"
#include "kube/reflector.h"
#include "store/cluster.h"

namespace draforge::server {

struct ClusterSourceOptions {
  std::string kubeconfig;  // a kubeconfig file; empty: in-cluster
  std::string context;     // kubeconfig context; empty: current-context
  // In-cluster: KUBERNETES_SERVICE_HOST / _PORT, read by the caller (main) from the environment.
  std::string service_host;
  std::string service_port;
  std::string namespace_;  // only this namespace's namespaced objects; empty: all
};

class ClusterSource {
 public:
  // Connects and starts the reflector. `on_change` runs on reflector threads after each change
  // (keep it short). Errors: the kubeconfig's or in-cluster configuration's error, or the API
  // server's discovery error (unreachable, no resource.k8s.io), each naming what failed.
  static absl::StatusOr<std::unique_ptr<ClusterSource>> Start(const ClusterSourceOptions& options,
                                                              store::Cluster& cluster,
                                                              std::function<void()> on_change,
                                                              kube::LogFunction log);
  ~ClusterSource();

  // Every watched kind has been listed at least once.
  bool HasSynced() const;
  // The API server URL (for the start-up line).
  const std::string& server() const { return server_; }

 private:
  ClusterSource() = default;
  std::string server_;
  std::unique_ptr<kube::Client> client_;
  std::unique_ptr<kube::Reflector> reflector_;
};

}  // namespace draforge::server

#endif  // DRAFORGE_EXAMPLES_SERVER_CLUSTER_SOURCE_H_
