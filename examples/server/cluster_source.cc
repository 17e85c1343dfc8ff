#include "cluster_source.h"

#include "absl/strings/str_cat.h"
#include "common/status.h"
#include "kube/config.h"

namespace draforge::server {

absl::StatusOr<std::unique_ptr<ClusterSource>> ClusterSource::Start(const ClusterSourceOptions& options,
                                                                    store::Cluster& cluster,
                                                                    std::function<void()> on_change,
                                                                    kube::LogFunction log) {
  absl::StatusOr<kube::RestConfig> config;
  if (!options.kubeconfig.empty()) {
    config = kube::LoadKubeconfigFile(options.kubeconfig, {.context = options.context});
  } else {
    kube::InClusterOptions in;
    in.host = options.service_host;
    in.port = options.service_port;
    config = kube::InClusterConfig(in);
  }
  if (!config.ok()) return config.status();
  std::unique_ptr<ClusterSource> source(new ClusterSource());
  source->server_ = config->server;
  ASSIGN_OR_RETURN(source->client_, kube::Client::Create(*config, {.log = log}));
  kube::ReflectorOptions ro;
  ro.namespace_ = options.namespace_;
  ro.log = log;
  ro.on_change = [on_change = std::move(on_change)](api::Kind) { on_change(); };
  source->reflector_ = std::make_unique<kube::Reflector>(*source->client_, cluster, std::move(ro));
  if (absl::Status s = source->reflector_->Start(); !s.ok()) {
    return absl::Status(s.code(), absl::StrCat(AV(config->server), ": ", s.message()));
  }
  return source;
}

ClusterSource::~ClusterSource() {
  if (reflector_) reflector_->Stop();
}

bool ClusterSource::HasSynced() const { return reflector_ && reflector_->HasSynced(); }

}  // namespace draforge::server
