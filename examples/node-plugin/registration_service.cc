#include "registration_service.h"

#include <utility>

#include "daemon_log.h"
#include "pluginregistration_v1.grpc.pb.h"

namespace draforge::node_plugin {
namespace {

// pluginregistration/v1 constants.go: the plugin type kubelet hands to its DRA handler.
constexpr char kDraPluginType[] = "DRAPlugin";

class RegistrationService final : public pluginregistration::Registration::Service {
 public:
  RegistrationService(RegistrationInfo info, PluginStatus& status) : info_(std::move(info)), status_(status) {
    status_.SetCondition(kRegistrationCondition, false, "waiting for kubelet to register the plugin");
  }

  grpc::Status GetInfo(grpc::ServerContext*, const pluginregistration::InfoRequest*,
                       pluginregistration::PluginInfo* out) override {
    out->set_type(kDraPluginType);
    out->set_name(info_.driver);
    out->set_endpoint(info_.endpoint);
    for (const auto& s : info_.services) out->add_supported_versions(s);
    return grpc::Status::OK;
  }

  grpc::Status NotifyRegistrationStatus(grpc::ServerContext*, const pluginregistration::RegistrationStatus* in,
                                        pluginregistration::RegistrationStatusResponse*) override {
    if (in->plugin_registered()) {
      status_.SetCondition(kRegistrationCondition, true);
      daemon::Log("kubelet registered DRA driver " + info_.driver + " (endpoint " + info_.endpoint + ")");
    } else {
      const std::string error = in->error().empty() ? "no reason given" : in->error();
      status_.SetCondition(kRegistrationCondition, false, "kubelet refused the plugin: " + error);
      daemon::Log("kubelet refused DRA driver " + info_.driver + ": " + error);
    }
    return grpc::Status::OK;
  }

 private:
  const RegistrationInfo info_;
  PluginStatus& status_;
};

}  // namespace

std::unique_ptr<grpc::Service> NewRegistrationService(RegistrationInfo info, PluginStatus& status) {
  return std::make_unique<RegistrationService>(std::move(info), status);
}

}  // namespace draforge::node_plugin
