// The device attributes and capacities a selector expression reads by name, for explanations
// ("attribute gpu.nvidia.com/type exists on 0 of 1024 devices").
#ifndef DRAFORGE_CEL_REFERENCES_H_
#define DRAFORGE_CEL_REFERENCES_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "api/map.h"
#include "api/resource_slice.h"
#include "cel/selector.h"

namespace draforge::cel {

struct DeviceReference {
  enum class Kind { kAttribute, kCapacity };
  Kind kind = Kind::kAttribute;
  std::string domain;  // "gpu.nvidia.com"
  std::string name;    // "type"

  // "gpu.nvidia.com/type".
  std::string QualifiedName() const { return domain + "/" + name; }
  // Whether a device of `driver` has this attribute/capacity: under its qualified name, or
  // unqualified when the domain is the driver's (how upstream maps device data into CEL).
  bool ExistsOn(std::string_view driver, const api::Map<api::DeviceAttribute>& attributes,
                const api::Map<api::DeviceCapacity>& capacity) const;
  friend bool operator==(const DeviceReference&, const DeviceReference&) = default;
};

// Compiles `expression` (any result type) and lists, in order of first appearance and without
// duplicates, the attribute and capacity names it reads with constant keys:
//   device.attributes["D"].n, device.attributes["D"]["n"], device.attributes["D"].?n,
//   device.attributes["D"][?"n"], has(device.attributes["D"].n), "n" in device.attributes["D"],
// the same for device.capacity, and through cel.bind(x, device.attributes["D"], ... x.n ...).
// Names read with computed keys or by iterating a domain's map are not listed.
absl::StatusOr<std::vector<DeviceReference>> ReferencedNames(std::string_view expression,
                                                             const CompileOptions& options = {});

}  // namespace draforge::cel

#endif  // DRAFORGE_CEL_REFERENCES_H_
