// cel::DerivedAttribute: a DRADerivedAttributes expression (request `derivedAttributes[].expression`)
// compiled once and evaluated per device to an attribute value, as upstream's
// k8s.io/dynamic-resource-allocation/cel EvaluateDerivedAttribute does. It sees the same `device`
// as cel::DeviceSelector; only the result differs (any scalar or list of scalars, not a bool).
#ifndef DRAFORGE_CEL_DERIVED_ATTRIBUTE_H_
#define DRAFORGE_CEL_DERIVED_ATTRIBUTE_H_

#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "api/device_attribute.h"
#include "cel/selector.h"

namespace draforge::cel {

// A compiled derived-attribute expression: immutable and thread-safe.
class DerivedAttribute {
 public:
  virtual ~DerivedAttribute() = default;

  // Compiles `expression` in the DRA environment chosen by `options` (the scheduler uses the
  // defaults: stored expressions). The result type must be bool, int, string, semver, dyn, or a list
  // of those. Returns a shared, immutable program. Errors (InvalidArgument):
  // "compilation failed: ERROR: <input>:1:..." or "must evaluate to a primitive scalar (string,
  // integer, boolean, semver) or a list of these scalars, not T"; with options.check_estimated_cost,
  // ResourceExhausted "cost limit exceeded: ...".
  static absl::StatusOr<std::shared_ptr<const DerivedAttribute>> Compile(std::string_view expression,
                                                                          const CompileOptions& options = {});

  // The value for `device` (borrowed for the call), as an attribute the caller owns: a scalar or a
  // list (an empty list gives an attribute with no value, which no constraint accepts). Errors
  // (InvalidArgument): the CEL runtime error ("no such key: numa", "operation cancelled: actual cost
  // limit exceeded"), an attribute that cannot be read ("attribute X: parse semantic version: ..."),
  // a result that is no attribute value ("unsupported CEL return type: float64", "expected list
  // element at index 1 to be string, got int64").
  virtual absl::StatusOr<api::DeviceAttribute> Evaluate(const DeviceInput& device) const = 0;
  virtual const std::string& expression() const = 0;
};

}  // namespace draforge::cel

#endif  // DRAFORGE_CEL_DERIVED_ATTRIBUTE_H_
