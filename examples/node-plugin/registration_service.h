// kubelet's plugin registration (k8s.io/kubelet/pkg/apis/pluginregistration/v1, the Registration
// service on <registration-dir>/<driver>-<uid>-reg.sock): kubelet's plugin watcher asks GetInfo,
// validates the answer with its DRA handler, and reports the outcome with NotifyRegistrationStatus.
#ifndef DRAFORGE_EXAMPLES_NODE_PLUGIN_REGISTRATION_SERVICE_H_
#define DRAFORGE_EXAMPLES_NODE_PLUGIN_REGISTRATION_SERVICE_H_

#include <grpcpp/impl/service_type.h>

#include <memory>
#include <string>
#include <vector>

#include "plugin_status.h"

namespace draforge::node_plugin {

// What GetInfo answers: type "DRAPlugin" (pluginregistration/v1 DRAPlugin), these and nothing else.
struct RegistrationInfo {
  std::string driver;                       // PluginInfo.name
  std::string endpoint;                     // the DRA socket's path
  std::vector<std::string> services;        // PluginInfo.supported_versions, e.g. "v1.DRAPlugin"
};

// The condition this service owns in PluginStatus: false until kubelet says it registered the
// plugin, false again (with kubelet's error) when kubelet says it refused it.
inline constexpr const char* kRegistrationCondition = "registration";

// The service, for grpc::ServerBuilder::RegisterService. Sets kRegistrationCondition false ("waiting
// for kubelet to register the plugin") at once. `status` must outlive it; thread-safe.
std::unique_ptr<grpc::Service> NewRegistrationService(RegistrationInfo info, PluginStatus& status);

}  // namespace draforge::node_plugin

#endif  // DRAFORGE_EXAMPLES_NODE_PLUGIN_REGISTRATION_SERVICE_H_
