// cel::DeviceSelector: a DRA device selector (DeviceClass / request `selectors[].cel.expression`)
// compiled once and evaluated against many devices, as k8s.io/dynamic-resource-allocation/cel does.
//
// This header is the contract between lib/cel and its users (lib/alloc, the CLI, the C ABI).
#ifndef DRAFORGE_CEL_SELECTOR_H_
#define DRAFORGE_CEL_SELECTOR_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "api/map.h"
#include "api/resource_slice.h"

namespace draforge::cel {

// Limits of the Kubernetes DRA CEL environment (resource.k8s.io/v1).
inline constexpr int64_t kSelectorMaxCost = 1000000;          // CELSelectorExpressionMaxCost
inline constexpr size_t kSelectorMaxExpressionLength = 10 * 1024;  // CELSelectorExpressionMaxLength

// The device a selector sees: `device.driver`, `device.attributes`, `device.capacity`,
// `device.allowMultipleAllocations`. Pointers are borrowed for the duration of one Evaluate call.
struct DeviceInput {
  std::string_view driver;
  const api::Map<api::DeviceAttribute>* attributes = nullptr;  // null: none
  const api::Map<api::DeviceCapacity>* capacity = nullptr;     // null: none
  bool allow_multiple_allocations = false;
};

struct CompileOptions {
  // Reject expressions whose estimated worst-case cost exceeds kSelectorMaxCost (what API validation
  // does for new objects). The scheduler compiles without the estimate.
  bool check_estimated_cost = false;
  // DRAConsumableCapacity: device.allowMultipleAllocations holds the device's value (false when off).
  // Declares the field only for new expressions.
  bool consumable_capacity = true;
  // DRAListTypeAttributes: list-valued attributes and `includes`. Changes the declarations only
  // for new expressions.
  bool list_type_attributes = true;
  // Which environment compiles the expression (upstream environment.Type): stored expressions (what
  // the scheduler uses: the gates do not change what compiles) or new expressions (API validation
  // of a new object: the gates decide which device type and functions are declared).
  bool stored_expressions = true;
  int64_t runtime_cost_limit = kSelectorMaxCost;
  // Whether evaluation gives list-valued attributes to the expression. Kubernetes 1.37 always does;
  // 1.36's scheduler only with DRAListTypeAttributes on: otherwise a device with a list-valued
  // attribute fails every selector with "attribute X: unsupported attribute value" (a runtime error
  // that aborts the allocation), whether or not the expression reads it.
  bool list_attribute_values = true;
};

// The outcome of one evaluation. A runtime error is not "does not match": the allocator aborts
// with it (upstream returns it from Allocate).
struct SelectorResult {
  bool matches = false;
  absl::Status error;       // OK, or the CEL runtime error ("no such key: model", "actual cost limit exceeded")
  int64_t actual_cost = 0;  // CEL runtime cost of this evaluation
};

// A compiled selector: immutable, thread-safe, cheap to evaluate (no allocation on common paths).
class DeviceSelector {
 public:
  virtual ~DeviceSelector() = default;

  // Compiles `expression` in the DRA environment. Errors (InvalidArgument) carry cel-go's wording and
  // the position, e.g. "ERROR: <input>:1:8: undeclared reference to 'devce'".
  static absl::StatusOr<std::shared_ptr<const DeviceSelector>> Compile(std::string_view expression,
                                                                       const CompileOptions& options = {});

  virtual SelectorResult Evaluate(const DeviceInput& device) const = 0;
  virtual const std::string& expression() const = 0;
  // The estimated worst-case cost (as cel-go's estimator computes it for the DRA environment).
  virtual int64_t estimated_cost() const = 0;
};

}  // namespace draforge::cel

#endif  // DRAFORGE_CEL_SELECTOR_H_
