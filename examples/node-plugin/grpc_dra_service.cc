#include "grpc_dra_service.h"

#include <exception>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "daemon_log.h"
#include "dra_v1.grpc.pb.h"
#include "dra_v1beta1.grpc.pb.h"

namespace draforge::node_plugin {
namespace {

namespace v1 = k8s::io::kubelet::pkg::apis::dra::v1;
namespace v1beta1 = k8s::io::kubelet::pkg::apis::dra::v1beta1;

// The types of one version of the API; v1 and v1beta1 differ only in Device.share_id, which the
// preparer does not produce (DRAForge's simulated devices are not shared).
template <typename Service, typename PrepareRequest, typename PrepareResponse, typename UnprepareRequest,
          typename UnprepareResponse>
struct Api {
  using ServiceType = Service;
  using PrepareRequestType = PrepareRequest;
  using PrepareResponseType = PrepareResponse;
  using UnprepareRequestType = UnprepareRequest;
  using UnprepareResponseType = UnprepareResponse;
};
using V1 = Api<v1::DRAPlugin::Service, v1::NodePrepareResourcesRequest, v1::NodePrepareResourcesResponse,
               v1::NodeUnprepareResourcesRequest, v1::NodeUnprepareResourcesResponse>;
using V1beta1 = Api<v1beta1::DRAPlugin::Service, v1beta1::NodePrepareResourcesRequest,
                    v1beta1::NodePrepareResourcesResponse, v1beta1::NodeUnprepareResourcesRequest,
                    v1beta1::NodeUnprepareResourcesResponse>;

std::string Describe(const ClaimRef& c) {
  return "ResourceClaim " + c.namespace_ + "/" + c.name + " (uid " + c.uid + ")";
}

// The claims of a request, each UID once (kubelet never repeats one; a repeat would otherwise be
// prepared twice and counted twice). Claims without a UID cannot be keyed in the answer: they go
// to `invalid` instead.
template <typename Request>
std::vector<ClaimRef> Claims(const Request& request, std::vector<ClaimRef>& invalid) {
  std::vector<ClaimRef> out;
  std::set<std::string> seen;
  for (const auto& c : request.claims()) {
    ClaimRef ref{c.namespace_(), c.uid(), c.name()};
    if (ref.uid.empty()) {
      invalid.push_back(std::move(ref));
    } else if (seen.insert(ref.uid).second) {
      out.push_back(std::move(ref));
    }
  }
  return out;
}

// Asks the preparer; an exception from it becomes every claim's error, not a failed RPC (kubelet
// retries claims with an error; a failed RPC tells it nothing per claim).
template <typename Result, typename Call>
std::map<std::string, Result> Ask(const std::vector<ClaimRef>& claims, const char* verb, Call call,
                                  Result (*failed)(std::string)) {
  try {
    return call();
  } catch (const std::exception& e) {
    std::map<std::string, Result> out;
    for (const auto& c : claims) out[c.uid] = failed(Describe(c) + ": " + verb + " failed: " + e.what());
    return out;
  }
}

PrepareResult PrepareFailed(std::string error) { return PrepareResult{{}, std::move(error)}; }
std::string UnprepareFailed(std::string error) { return error; }

template <typename A>
class DraPluginService final : public A::ServiceType {
 public:
  DraPluginService(ClaimPreparer& preparer, PluginStatus& status, const char* version)
      : preparer_(preparer), status_(status), version_(version) {}

  grpc::Status NodePrepareResources(grpc::ServerContext*, const typename A::PrepareRequestType* request,
                                    typename A::PrepareResponseType* response) override {
    std::vector<ClaimRef> invalid;
    const std::vector<ClaimRef> claims = Claims(*request, invalid);
    std::map<std::string, PrepareResult> results;
    if (!claims.empty()) {
      results = Ask<PrepareResult>(claims, "prepare", [&] { return preparer_.Prepare(claims); }, &PrepareFailed);
    }
    auto& out = *response->mutable_claims();
    for (const auto& c : claims) {
      auto found = results.find(c.uid);
      PrepareResult r = found != results.end()
                            ? std::move(found->second)
                            : PrepareFailed(Describe(c) + ": prepare gave no answer for this claim");
      auto& entry = out[c.uid];
      if (!r.error.empty()) {
        entry.set_error(r.error);
        daemon::Log(std::string(version_) + " NodePrepareResources: " + r.error);
      } else {
        for (const PreparedDevice& d : r.devices) {
          auto* device = entry.add_devices();
          for (const auto& n : d.request_names) device->add_request_names(n);
          device->set_pool_name(d.pool_name);
          device->set_device_name(d.device_name);
          for (const auto& id : d.cdi_device_ids) device->add_cdi_device_ids(id);
        }
        daemon::Log(std::string(version_) + " NodePrepareResources: " + Describe(c) + ": prepared, " +
                    std::to_string(r.devices.size()) + " device(s)");
      }
      status_.CountPrepare(r.error.empty());
    }
    for (const auto& c : invalid) {
      // Keyed by "" (the UID it did not have): kubelet finds no answer for it and reports that.
      out[""].set_error(Describe(c) + ": the claim has no UID");
      status_.CountPrepare(false);
      daemon::Log(std::string(version_) + " NodePrepareResources: " + Describe(c) + ": the claim has no UID");
    }
    return grpc::Status::OK;
  }

  grpc::Status NodeUnprepareResources(grpc::ServerContext*, const typename A::UnprepareRequestType* request,
                                      typename A::UnprepareResponseType* response) override {
    std::vector<ClaimRef> invalid;
    const std::vector<ClaimRef> claims = Claims(*request, invalid);
    std::map<std::string, std::string> results;
    if (!claims.empty()) {
      results =
          Ask<std::string>(claims, "unprepare", [&] { return preparer_.Unprepare(claims); }, &UnprepareFailed);
    }
    auto& out = *response->mutable_claims();
    for (const auto& c : claims) {
      auto found = results.find(c.uid);
      const std::string error =
          found != results.end() ? found->second : Describe(c) + ": unprepare gave no answer for this claim";
      out[c.uid].set_error(error);
      status_.CountUnprepare(error.empty());
      daemon::Log(std::string(version_) + " NodeUnprepareResources: " +
                  (error.empty() ? Describe(c) + ": unprepared" : error));
    }
    for (const auto& c : invalid) {
      out[""].set_error(Describe(c) + ": the claim has no UID");
      status_.CountUnprepare(false);
      daemon::Log(std::string(version_) + " NodeUnprepareResources: " + Describe(c) + ": the claim has no UID");
    }
    return grpc::Status::OK;
  }

 private:
  ClaimPreparer& preparer_;
  PluginStatus& status_;
  const char* version_;
};

}  // namespace

std::unique_ptr<grpc::Service> NewDraPluginServiceV1(ClaimPreparer& preparer, PluginStatus& status) {
  return std::make_unique<DraPluginService<V1>>(preparer, status, "v1");
}

std::unique_ptr<grpc::Service> NewDraPluginServiceV1beta1(ClaimPreparer& preparer, PluginStatus& status) {
  return std::make_unique<DraPluginService<V1beta1>>(preparer, status, "v1beta1");
}

}  // namespace draforge::node_plugin
