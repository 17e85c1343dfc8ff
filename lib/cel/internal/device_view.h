// The `device` variable of the DRA CEL environment (device.driver, .attributes, .capacity,
// .allowMultipleAllocations), shared by every lib/cel entry point that evaluates against a device.
#ifndef DRAFORGE_CEL_INTERNAL_DEVICE_VIEW_H_
#define DRAFORGE_CEL_INTERNAL_DEVICE_VIEW_H_

#include "absl/status/statusor.h"
#include "cel/selector.h"
#include "cel/value.h"

namespace draforge::cel::internal {

// The CEL value of `device`: lazy views over its maps, allocated in `arena`. The value borrows
// `device` (and what it points to) and the arena: both must outlive every use of it. Every
// attribute is converted first, as upstream does, so a bad one fails the whole device even if the
// expression does not read it. Errors (InvalidArgument): "attribute X: parse semantic version: ...",
// "attribute X: unsupported attribute value". `list_values` false: a list-valued attribute is that
// error too (CompileOptions::list_attribute_values).
absl::StatusOr<Value> DeviceValue(const DeviceInput& device, Arena& arena, bool list_values = true);

}  // namespace draforge::cel::internal

#endif  // DRAFORGE_CEL_INTERNAL_DEVICE_VIEW_H_
