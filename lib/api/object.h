// api::Object: one decoded Kubernetes object of any kind DRAForge reads.
#ifndef DRAFORGE_API_OBJECT_H_
#define DRAFORGE_API_OBJECT_H_

#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "api/device_class.h"
#include "api/device_taint_rule.h"
#include "api/meta.h"
#include "api/node.h"
#include "api/pod.h"
#include "api/raw_json.h"
#include "api/resource_claim.h"
#include "api/resource_claim_template.h"
#include "api/resource_pool_status_request.h"
#include "api/resource_slice.h"

namespace draforge::api {

enum class Kind {
  kDeviceClass,
  kResourceClaim,
  kResourceClaimTemplate,
  kResourceSlice,
  kDeviceTaintRule,
  kResourcePoolStatusRequest,
  kPod,
  kNode,
  kOther,  // any other kind (Deployment, Namespace, CRDs, ...): kept opaque
};

// Kubernetes' name of a kind ("ResourceSlice"); "" for kOther.
std::string_view KindName(Kind kind);
// The kind named `name` as kubectl accepts it (case-insensitive kind, singular or plural resource:
// "ResourceSlice", "resourceslice", "resourceslices"; "po"/"no" for pods and nodes), or nullopt.
std::optional<Kind> ParseKindName(std::string_view name);
bool IsNamespaced(Kind kind);

// An object of a kind DRAForge does not model: identity plus the whole object as raw JSON.
struct OtherObject {
  std::string api_version;
  std::string kind;
  ObjectMeta metadata;
  RawJson raw;  // the complete object, including apiVersion and kind
  friend bool operator==(const OtherObject&, const OtherObject&) = default;
};

// One object. `api_version` is the version the object was read in ("resource.k8s.io/v1beta1"); the
// typed value is always in the resource.k8s.io/v1 (core/v1) shape.
struct Object {
  std::string api_version;
  std::variant<DeviceClass, ResourceClaim, ResourceClaimTemplate, ResourceSlice, DeviceTaintRule,
               ResourcePoolStatusRequest, Pod, Node, OtherObject>
      value;

  Kind kind() const { return static_cast<Kind>(value.index()); }
  std::string_view kind_name() const;
  const ObjectMeta& metadata() const;
  ObjectMeta& metadata();
  // "namespace/name" for namespaced kinds, "name" otherwise (what kubectl prints and errors name).
  std::string Key() const;
  friend bool operator==(const Object&, const Object&) = default;
};

}  // namespace draforge::api

#endif  // DRAFORGE_API_OBJECT_H_
