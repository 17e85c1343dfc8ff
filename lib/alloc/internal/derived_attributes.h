// DRADerivedAttributes (alpha in 1.37): a request may define virtual attributes, each a CEL
// expression evaluated per candidate device (`derivedAttributes: [{name, expression}]`). Within
// that request, a matchAttribute/distinctAttribute constraint naming such an attribute uses the
// computed value instead of the device's own attribute of that name (shadowing it); other requests
// keep seeing the device's attribute. A compile or evaluation error aborts the allocation (upstream
// experimental allocator, lookupAttribute, and k8s.io/dynamic-resource-allocation/cel
// EvaluateDerivedAttribute).
//
// Why this evaluates CEL itself instead of going through cel::DeviceSelector: a selector returns a
// bool, a derived attribute any scalar or list of scalars, and lib/cel's public API has no entry
// point that evaluates a non-bool expression against a device. This file binds `device` over
// lib/cel's Program and value types; it is meant to move into lib/cel (see the report of issue 4).
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

namespace draforge::alloc::internal {

// One compiled derived-attribute expression. Immutable and thread-safe.
class DerivedAttributeProgram {
 public:
  ~DerivedAttributeProgram();
  // Compiles `expression` in the DRA environment of stored expressions, as the scheduler does.
  // The result type must be bool, int, string, semver, dyn, or a list of those. Errors
  // (InvalidArgument): "compilation failed: ERROR: <input>:1:..." or "must evaluate to a primitive
  // scalar (string, integer, boolean, semver) or a list of these scalars, not T".
  static absl::StatusOr<std::shared_ptr<const DerivedAttributeProgram>> Compile(std::string_view expression);

  // The value for `device` (of `driver`), as an attribute: a scalar or a list (an empty list gives
  // an attribute with no value, which no constraint accepts). Errors (InvalidArgument): the CEL
  // runtime error ("no such key: numa"), an attribute that cannot be read ("attribute X: parse
  // semantic version: ..."), a result that is no attribute value ("unsupported CEL return type:
  // float64", "expected list element at index 1 to be string, got int64").
  absl::StatusOr<api::DeviceAttribute> Evaluate(const api::Device& device, std::string_view driver) const;

 private:
  struct Impl;
  explicit DerivedAttributeProgram(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

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
  std::map<std::string, absl::StatusOr<std::shared_ptr<const DerivedAttributeProgram>>, std::less<>> programs_;
  std::map<std::pair<int, std::string>, api::DeviceAttribute> values_;
};

}  // namespace draforge::alloc::internal

#endif  // DRAFORGE_ALLOC_INTERNAL_DERIVED_ATTRIBUTES_H_
