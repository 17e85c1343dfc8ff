#include "kube/resource.h"

#include "absl/strings/str_cat.h"
#include "common/status.h"

namespace draforge::kube {

std::string Resource::ApiVersion() const {
  return group.empty() ? version : absl::StrCat(group, "/", version);
}

std::string Resource::CollectionPath(std::string_view ns) const {
  std::string path = group.empty() ? absl::StrCat("/api/", version) : absl::StrCat("/apis/", group, "/", version);
  if (namespaced && !ns.empty()) absl::StrAppend(&path, "/namespaces/", AV(ns));
  absl::StrAppend(&path, "/", resource);
  return path;
}

std::string Resource::ObjectPath(std::string_view ns, std::string_view name, std::string_view subresource) const {
  std::string path = absl::StrCat(CollectionPath(ns), "/", AV(name));
  if (!subresource.empty()) absl::StrAppend(&path, "/", AV(subresource));
  return path;
}

std::optional<Resource> ResourceFor(api::Kind kind, std::string_view version) {
  auto dra = [&](const char* resource, const char* kind_name, bool namespaced) {
    return Resource{"resource.k8s.io", version.empty() ? "v1" : std::string(version), resource, kind_name,
                    namespaced};
  };
  switch (kind) {
    case api::Kind::kDeviceClass: return dra("deviceclasses", "DeviceClass", false);
    case api::Kind::kResourceClaim: return dra("resourceclaims", "ResourceClaim", true);
    case api::Kind::kResourceClaimTemplate: return dra("resourceclaimtemplates", "ResourceClaimTemplate", true);
    case api::Kind::kResourceSlice: return dra("resourceslices", "ResourceSlice", false);
    case api::Kind::kDeviceTaintRule:
      return dra("devicetaintrules", "DeviceTaintRule", false);
    case api::Kind::kResourcePoolStatusRequest:
      // Alpha only in 1.37.
      return Resource{"resource.k8s.io", version.empty() ? "v1alpha3" : std::string(version),
                      "resourcepoolstatusrequests", "ResourcePoolStatusRequest", false};
    case api::Kind::kPod: return Resource{"", "v1", "pods", "Pod", true};
    case api::Kind::kNode: return Resource{"", "v1", "nodes", "Node", false};
    case api::Kind::kOther: return std::nullopt;
  }
  return std::nullopt;
}

Resource LeaseResource() { return Resource{"coordination.k8s.io", "v1", "leases", "Lease", true}; }
Resource NamespaceResource() { return Resource{"", "v1", "namespaces", "Namespace", false}; }
Resource ResourceQuotaResource() { return Resource{"", "v1", "resourcequotas", "ResourceQuota", true}; }
Resource PodDisruptionBudgetResource() {
  return Resource{"policy", "v1", "poddisruptionbudgets", "PodDisruptionBudget", true};
}

}  // namespace draforge::kube
