// resource.k8s.io/v1 ResourceClaimTemplate (namespaced).
#ifndef DRAFORGE_API_RESOURCE_CLAIM_TEMPLATE_H_
#define DRAFORGE_API_RESOURCE_CLAIM_TEMPLATE_H_

#include <optional>

#include "api/meta.h"
#include "api/resource_claim.h"

namespace draforge::api {

struct ResourceClaimTemplateSpec {
  std::optional<ObjectMeta> metadata;
  std::optional<ResourceClaimSpec> spec;
  friend bool operator==(const ResourceClaimTemplateSpec&, const ResourceClaimTemplateSpec&) = default;
};

struct ResourceClaimTemplate {
  ObjectMeta metadata;
  std::optional<ResourceClaimTemplateSpec> spec;
  friend bool operator==(const ResourceClaimTemplate&, const ResourceClaimTemplate&) = default;
};

}  // namespace draforge::api

#endif  // DRAFORGE_API_RESOURCE_CLAIM_TEMPLATE_H_
