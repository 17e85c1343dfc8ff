#include "kube/cluster_state.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "api/codec.h"
#include "common/status.h"
#include "kube/api_status.h"
#include "kube/resource.h"

namespace draforge::kube {

namespace {

// The namespace's (or every) object of an opaque kind the views read besides the DRA kinds
// (ResourceQuotas, PodDisruptionBudgets) into `state`. Only a connection failure is an error: an
// identity that may not list them (403) gets a `skipped` entry ("list <resource>: <why>"), and the
// views that need them say that none was read.
absl::Status ListOptional(Client& client, const Resource& resource, const ClusterStateOptions& options,
                          ClusterState& state) {
  absl::StatusOr<ListResult> list = client.List(resource, options.namespace_, {.limit = options.page_size});
  if (!list.ok()) {
    if (!IsApiForbidden(list.status()) && !absl::IsNotFound(list.status())) return list.status();
    state.skipped.push_back(absl::StrCat("list ", resource.resource, ": ", list.status().message()));
    return absl::OkStatus();
  }
  for (const auto& item : list->list["items"].GetArray()) {
    auto obj = api::DecodeObject(item, api::DecodeOptions{}, nullptr);
    if (!obj.ok()) {
      state.skipped.push_back(absl::StrCat("list ", resource.resource, ": ", obj.status().message()));
      continue;
    }
    state.objects.push_back(*std::move(obj));
  }
  return absl::OkStatus();
}

// The PodGroups and Workloads (scheduling.k8s.io/v1beta1) into `state`, as ListResourceQuotas; an API
// version the server does not serve (404) means there are none.
absl::Status ListPodGroups(Client& client, const ClusterStateOptions& options, ClusterState& state) {
  for (const Resource& r : {Resource{"scheduling.k8s.io", "v1beta1", "podgroups", "PodGroup", true},
                            Resource{"scheduling.k8s.io", "v1beta1", "workloads", "Workload", true}}) {
    absl::StatusOr<ListResult> list = client.List(r, options.namespace_, {.limit = options.page_size});
    if (!list.ok()) {
      if (absl::IsNotFound(list.status())) continue;
      if (!IsApiForbidden(list.status())) return list.status();
      state.skipped.push_back(absl::StrCat("list ", r.resource, ": ", list.status().message()));
      continue;
    }
    for (const auto& item : list->list["items"].GetArray()) {
      auto obj = api::DecodeObject(item, api::DecodeOptions{}, nullptr);
      if (!obj.ok()) {
        state.skipped.push_back(absl::StrCat("list ", r.resource, ": ", obj.status().message()));
        continue;
      }
      state.objects.push_back(*std::move(obj));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<ClusterState> ListClusterState(Client& client, const ClusterStateOptions& options) {
  ClusterState state;
  state.dra_version = options.dra_version;
  bool has_dra = std::any_of(options.kinds.begin(), options.kinds.end(),
                             [](api::Kind k) { return k != api::Kind::kPod && k != api::Kind::kNode; });
  if (has_dra && state.dra_version.empty()) {
    ASSIGN_OR_RETURN(state.dra_version, client.PreferredVersion("resource.k8s.io", {"v1", "v1beta2", "v1beta1"}));
  }
  for (api::Kind kind : options.kinds) {
    if (kind == api::Kind::kOther || kind == api::Kind::kResourcePoolStatusRequest) {
      return absl::InvalidArgumentError(absl::StrCat("cannot list kind ", AV(api::KindName(kind))));
    }
    bool core = kind == api::Kind::kPod || kind == api::Kind::kNode;
    std::vector<std::string> versions = {core ? std::string() : state.dra_version};
    // DeviceTaintRule is not in every version that serves the other kinds; fall back like Reflector.
    if (kind == api::Kind::kDeviceTaintRule) {
      for (const char* v : {"v1", "v1beta2", "v1alpha3"}) {
        if (v != versions[0]) versions.push_back(v);
      }
    }
    absl::StatusOr<ListResult> list = absl::NotFoundError("");
    for (const std::string& v : versions) {
      list = client.List(*ResourceFor(kind, v), options.namespace_, {.limit = options.page_size});
      if (list.ok() || !absl::IsNotFound(list.status())) break;
    }
    if (!list.ok()) return list.status();
    for (const auto& item : list->list["items"].GetArray()) {
      std::vector<std::string> warnings;
      auto obj = api::DecodeObject(item, api::DecodeOptions{}, &warnings);
      if (!obj.ok()) {
        state.skipped.push_back(absl::StrCat("list ", ResourceFor(kind)->resource,
                                             ": ", obj.status().message()));
        continue;
      }
      state.objects.push_back(*std::move(obj));
    }
  }
  if (options.resource_quotas) RETURN_IF_ERROR(ListOptional(client, ResourceQuotaResource(), options, state));
  if (options.pod_groups) RETURN_IF_ERROR(ListPodGroups(client, options, state));
  if (options.pod_disruption_budgets) {
    RETURN_IF_ERROR(ListOptional(client, PodDisruptionBudgetResource(), options, state));
  }
  return state;
}

}  // namespace draforge::kube
