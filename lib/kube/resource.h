// kube::Resource: one REST resource of the API (group, version, plural), and the ones DRAForge uses.
#ifndef DRAFORGE_KUBE_RESOURCE_H_
#define DRAFORGE_KUBE_RESOURCE_H_

#include <optional>
#include <string>
#include <string_view>

#include "api/object.h"

namespace draforge::kube {

struct Resource {
  std::string group;     // "" for the core group
  std::string version;   // "v1"
  std::string resource;  // plural: "resourceslices"
  std::string kind;      // "ResourceSlice"
  bool namespaced = false;

  // "resource.k8s.io/v1" or "v1".
  std::string ApiVersion() const;
  // The collection path: /apis/<group>/<version>[/namespaces/<ns>]/<resource>, or /api/v1/...
  // An empty `ns` for a namespaced resource means all namespaces.
  std::string CollectionPath(std::string_view ns) const;
  // The object path, plus "/<subresource>" when non-empty.
  std::string ObjectPath(std::string_view ns, std::string_view name, std::string_view subresource = {}) const;
  friend bool operator==(const Resource&, const Resource&) = default;
};

// The resource of a kind DRAForge models, at resource.k8s.io/v1 (core/v1 for Pod and Node); nullopt
// for api::Kind::kOther. `version` overrides the version (e.g. "v1beta2" found by discovery).
std::optional<Resource> ResourceFor(api::Kind kind, std::string_view version = {});

// coordination.k8s.io/v1 leases (leader election).
Resource LeaseResource();
// core/v1 namespaces.
Resource NamespaceResource();
// core/v1 resourcequotas (what a namespace may still create: the capacity views count within them).
Resource ResourceQuotaResource();
// policy/v1 poddisruptionbudgets (namespaced).
Resource PodDisruptionBudgetResource();

}  // namespace draforge::kube

#endif  // DRAFORGE_KUBE_RESOURCE_H_
