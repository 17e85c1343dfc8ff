// kubelet's DRAPlugin gRPC service (k8s.io/kubelet/pkg/apis/dra v1 and v1beta1) over a ClaimPreparer:
// NodePrepareResources / NodeUnprepareResources become Prepare / Unprepare, and their per-claim
// answers the response's per-claim entries. One claim's error never fails the RPC, nor the other
// claims; every claim asked for is counted in PluginStatus and logged.
#ifndef DRAFORGE_EXAMPLES_NODE_PLUGIN_GRPC_DRA_SERVICE_H_
#define DRAFORGE_EXAMPLES_NODE_PLUGIN_GRPC_DRA_SERVICE_H_

#include <grpcpp/impl/service_type.h>

#include <memory>

#include "claim_preparer.h"
#include "plugin_status.h"

namespace draforge::node_plugin {

// The service names kubelet expects in the registration's supported_versions
// (k8s.io/kubelet/pkg/apis/dra/<version>.DRAPluginService), newest first: kubelet picks the first
// one it supports.
inline constexpr const char* kDraPluginServiceV1 = "v1.DRAPlugin";
inline constexpr const char* kDraPluginServiceV1beta1 = "v1beta1.DRAPlugin";

// The services, for grpc::ServerBuilder::RegisterService. `preparer` and `status` must outlive
// them; gRPC calls them from its threads, several at once.
std::unique_ptr<grpc::Service> NewDraPluginServiceV1(ClaimPreparer& preparer, PluginStatus& status);
std::unique_ptr<grpc::Service> NewDraPluginServiceV1beta1(ClaimPreparer& preparer, PluginStatus& status);

}  // namespace draforge::node_plugin

#endif  // DRAFORGE_EXAMPLES_NODE_PLUGIN_GRPC_DRA_SERVICE_H_
