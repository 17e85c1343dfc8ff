#include "cluster_source.h"

#include <utility>

namespace draforge::server {

Result<std::unique_ptr<ClusterSource>> ClusterSource::Start(const KubeConfigOptions& config,
                                                            const std::string& namespace_, Cluster& cluster,
                                                            std::function<void()> on_change) {
  auto client = KubeClient::Create(config);
  if (!client.ok()) return std::move(client).error();
  const std::string server(client->server());
  KubeSourceOptions options;
  options.namespace_ = namespace_;
  // ResourceQuotas too: /api/v1/packages?quota=true counts within them.
  options.custom_resources = "core/v1/resourcequotas";
  options.on_change = [on_change = std::move(on_change)](std::string_view) { on_change(); };
  // The source keeps what it needs of the client, which goes when this returns.
  auto source = KubeSource::Start(*client, cluster, std::move(options));
  if (!source.ok()) {
    Error error = std::move(source).error();
    // Discovery errors name the server already; a refused kind or option does not.
    if (error.message.find(server) == std::string::npos) error.message = server + ": " + error.message;
    return error;
  }
  return std::unique_ptr<ClusterSource>(new ClusterSource(server, *std::move(source)));
}

}  // namespace draforge::server
