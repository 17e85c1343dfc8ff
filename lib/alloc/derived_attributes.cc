#include "alloc/internal/derived_attributes.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "alloc/internal/selectors.h"
#include "cel/derived_attribute.h"
#include "cel/selector.h"
#include "common/status.h"

namespace draforge::alloc::internal {

absl::StatusOr<const api::DeviceAttribute*> DerivedAttributeCache::Lookup(
    const std::vector<api::DeviceDerivedAttribute>& derived, std::string_view name, int device_index,
    const api::Device& device, std::string_view driver, std::string_view device_id) {
  // Upstream keeps them in a map by name: with a repeated name (API validation forbids it), the
  // last one wins.
  const api::DeviceDerivedAttribute* found = nullptr;
  for (const api::DeviceDerivedAttribute& d : derived) {
    if (d.name.value_or("") == name) found = &d;
  }
  if (found == nullptr) return nullptr;
  const std::string& expression = found->expression ? *found->expression : std::string();
  auto key = std::make_pair(device_index, expression);
  if (auto it = values_.find(key); it != values_.end()) return &it->second;
  auto p = programs_.find(expression);
  // The scheduler compiles stored expressions (the defaults): the gates do not change what
  // compiles, and lists are always allowed as results, so disabling DRAListTypeAttributes cannot
  // break stored claims.
  if (p == programs_.end()) p = programs_.emplace(expression, cel::DerivedAttribute::Compile(expression)).first;
  if (!p->second.ok()) {
    return absl::Status(p->second.status().code(), absl::StrCat("compile derived attribute ", AV(name), " failed: ",
                                                                p->second.status().message()));
  }
  auto value =
      (*p->second)->Evaluate(DeviceInputFor(device, driver, device.allow_multiple_allocations.value_or(false)));
  if (!value.ok()) {
    return absl::Status(value.status().code(), absl::StrCat("evaluate derived attribute ", AV(name), " on device ",
                                                            AV(device_id), " failed: ", value.status().message()));
  }
  return &values_.emplace(std::move(key), *std::move(value)).first->second;
}

}  // namespace draforge::alloc::internal
