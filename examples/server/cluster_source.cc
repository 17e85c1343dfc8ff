#include "cluster_source.h"

#include <utility>

namespace draforge::server {
namespace {

const char* OrNull(const std::string& s) { return s.empty() ? nullptr : s.c_str(); }

std::string_view LevelName(int level) {
  switch (level) {
    case DRAFORGE_KUBE_LOG_DEBUG: return "debug";
    case DRAFORGE_KUBE_LOG_INFO: return "info";
    case DRAFORGE_KUBE_LOG_WARNING: return "warning";
    default: return "error";
  }
}

}  // namespace

void ClusterSource::OnChange(void* self, const char*) { static_cast<ClusterSource*>(self)->on_change_(); }

void ClusterSource::OnLog(void* self, int level, const char* message) {
  auto* source = static_cast<ClusterSource*>(self);
  if (source->log_) source->log_(LevelName(level), message);
}

Result<std::unique_ptr<ClusterSource>> ClusterSource::Start(const ClusterSourceOptions& options, Cluster& cluster,
                                                            std::function<void()> on_change, LogFunction log) {
  std::unique_ptr<ClusterSource> source(new ClusterSource());
  source->on_change_ = std::move(on_change);
  source->log_ = std::move(log);

  std::vector<const char*> environment;
  for (const auto& e : options.environment) environment.push_back(e.c_str());
  draforge_kube_config_options config = DRAFORGE_KUBE_CONFIG_OPTIONS_INIT;
  config.kubeconfig = OrNull(options.kubeconfig);
  config.kubeconfig_env = OrNull(options.kubeconfig_env);
  config.home = OrNull(options.home);
  config.context = OrNull(options.context);
  config.environment = environment.empty() ? nullptr : environment.data();
  config.environment_count = environment.size();
  config.service_host = OrNull(options.service_host);
  config.service_port = OrNull(options.service_port);
  config.user_agent = "draforge-server";
  config.log = &ClusterSource::OnLog;
  config.log_user_data = source.get();

  draforge_kube_client* raw_client = nullptr;
  draforge_error* e = nullptr;
  int rc = draforge_kube_client_create(&raw_client, &config, &e);
  if (rc != DRAFORGE_OK) return detail::TakeError(rc, e);
  // The source keeps what it needs of the client: ours goes when Start returns.
  std::unique_ptr<draforge_kube_client, detail::HandleDeleter<draforge_kube_client, draforge_kube_client_destroy>>
      client(raw_client);
  source->server_ = draforge_kube_client_server(client.get());

  draforge_kube_source_options so = DRAFORGE_KUBE_SOURCE_OPTIONS_INIT;
  so.namespace_ = OrNull(options.namespace_);
  so.on_change = &ClusterSource::OnChange;
  so.on_change_user_data = source.get();
  rc = draforge_kube_source_start(&source->source_, client.get(), cluster.c_handle(), &so, &e);
  if (rc != DRAFORGE_OK) {
    Error error = detail::TakeError(rc, e);
    // Discovery errors name the server already; a refused kind or option does not.
    if (error.message.find(source->server_) == std::string::npos) error.message = source->server_ + ": " + error.message;
    return error;
  }
  return source;
}

ClusterSource::~ClusterSource() { draforge_kube_source_destroy(source_); }

bool ClusterSource::HasSynced() const { return source_ != nullptr && draforge_kube_source_synced(source_) != 0; }

}  // namespace draforge::server
