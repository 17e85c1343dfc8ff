// Cluster mode: keeps the store equal to a live API server through the library's live source
// (draforge/kube.h: list + watch of the DRA kinds, Pods and Nodes into the store).
#ifndef DRAFORGE_EXAMPLES_SERVER_CLUSTER_SOURCE_H_
#define DRAFORGE_EXAMPLES_SERVER_CLUSTER_SOURCE_H_

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "draforge/draforge.hpp"

namespace draforge::server {

class ClusterSource {
 public:
  // Resolves `config` (client-go's rules; the caller fills it from its flags and environment),
  // connects and starts the live source into `cluster` (borrowed: it must outlive the source),
  // namespaced kinds of `namespace_` only ("" = all). `on_change` runs on a source thread after
  // each applied change (keep it short). Errors: the configuration's (the kubeconfig, context or
  // in-cluster files, naming what failed) or the API server's discovery error (unreachable, no
  // resource.k8s.io), naming the server.
  static Result<std::unique_ptr<ClusterSource>> Start(const KubeConfigOptions& config, const std::string& namespace_,
                                                      Cluster& cluster, std::function<void()> on_change);

  // Every watched kind has been listed at least once.
  bool HasSynced() const { return source_->synced(); }
  // The API server URL (for the start-up line).
  const std::string& server() const { return server_; }

 private:
  ClusterSource(std::string server, KubeSource source) : server_(std::move(server)), source_(std::move(source)) {}
  std::string server_;
  std::optional<KubeSource> source_;
};

}  // namespace draforge::server

#endif  // DRAFORGE_EXAMPLES_SERVER_CLUSTER_SOURCE_H_
