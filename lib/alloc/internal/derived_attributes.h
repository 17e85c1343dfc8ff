// DRADerivedAttributes (alpha in 1.37): a request may define virtual attributes, each a CEL
// expression evaluated per candidate device (`derivedAttributes: [{name, expression}]`). Within
// that request, a matchAttribute/distinctAttribute constraint naming such an attribute uses the
// computed value instead of the device's own attribute of that name (shadowing it); other requests
// keep seeing the device's attribute. A compile or evaluation error aborts the allocation (upstream
// experimental allocator, lookupAttribute, and k8s.io/dynamic-resource-allocation/cel
// EvaluateDerivedAttribute).
//
// The CEL side (the `device` variable, result conversion, runtime errors and cost limit) is
// cel::DerivedAttribute; this file adds what the allocator needs around it: which request defines
// which name, and the per-attempt cache.
#ifndef DRAFORGE_ALLOC_INTERNAL_DERIVED_ATTRIBUTES_H_
#define DRAFORGE_ALLOC_INTERNAL_DERIVED_ATTRIBUTES_H_

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "alloc/features.h"
#include "api/device_attribute.h"
#include "api/resource_claim.h"
#include "api/resource_slice.h"
#include "cel/derived_attribute.h"

namespace draforge::alloc::internal {

// The derived attributes of one allocation attempt: compiled once per expression, evaluated at
// most once per (device, expression), like upstream's per-Allocate cache. Not thread-safe.
class DerivedAttributeCache {
 public:
  // The attribute `name` of device `device_index` as request `derived` sees it: null when the
  // request defines no derived attribute of that name (the caller then reads the device's own),
  // else the computed value. Errors name the attribute and device, as upstream:
  // "compile derived attribute N failed: ..." and
  // "evaluate derived attribute N on device D failed: ...".
  absl::StatusOr<const api::DeviceAttribute*> Lookup(const std::vector<api::DeviceDerivedAttribute>& derived,
                                                     std::string_view name, int device_index,
                                                     const api::Device& device, std::string_view driver,
                                                     std::string_view device_id);

 private:
  std::map<std::string, absl::StatusOr<std::shared_ptr<const cel::DerivedAttribute>>, std::less<>> programs_;
  std::map<std::pair<int, std::string>, api::DeviceAttribute> values_;
};

}  // namespace draforge::alloc::internal

#endif  // DRAFORGE_ALLOC_INTERNAL_DERIVED_ATTRIBUTES_H_
