// DRAForge C++ API: package catalogs, sellable capacity per package and platform inventory
// (draforge/package.h), results as JSON.
#ifndef DRAFORGE_CPP_PACKAGE_HPP
#define DRAFORGE_CPP_PACKAGE_HPP

#include <cstdint>
#include <string>
#include <string_view>

#include "draforge/cpp/alloc.hpp"
#include "draforge/cpp/cluster.hpp"
#include "draforge/cpp/result.hpp"
#include "draforge/package.h"

namespace draforge {

// draforge_package_validate_json: the catalog's packages and, with a snapshot, its problems against
// the cluster.
inline Result<std::string> PackageValidateJson(std::string_view catalog, const Snapshot* snapshot = nullptr) {
  return detail::BufferCall([&](draforge_buffer* out, draforge_error** e) {
    return draforge_package_validate_json(out, catalog.data(), catalog.size(),
                                          snapshot == nullptr ? nullptr : snapshot->c_handle(), e);
  });
}

// draforge_package_expand_json: {"objects":[ResourceClaim, Pod]} of one unit of package `id`.
inline Result<std::string> PackageExpandJson(std::string_view catalog, std::string_view id, std::string_view name,
                                             std::string_view namespace_, std::string_view image) {
  detail::CString i(id), n(name), ns(namespace_), img(image);
  return detail::BufferCall([&](draforge_buffer* out, draforge_error** e) {
    return draforge_package_expand_json(out, catalog.data(), catalog.size(), i.get(), n.get(), ns.get(), img.get(), e);
  });
}

// draforge_package_capacity_json: how many more units of each package (or `id`) fit.
inline Result<std::string> PackageCapacityJson(const Snapshot& snapshot, std::string_view catalog,
                                               std::string_view id = {}, std::string_view namespace_ = {},
                                               bool quota = false, int64_t cap = 0,
                                               const AllocateOptions& options = {}) {
  detail::CString i(id), ns(namespace_);
  const draforge_allocate_options o = detail::COptions(options);
  return detail::BufferCall([&](draforge_buffer* out, draforge_error** e) {
    return draforge_package_capacity_json(out, snapshot.c_handle(), catalog.data(), catalog.size(), i.get(), ns.get(),
                                          quota ? 1 : 0, cap, &o, e);
  });
}

// draforge_package_inventory_json: the inventory fields a platform reports.
inline Result<std::string> PackageInventoryJson(const Snapshot& snapshot) {
  return detail::BufferCall([&](draforge_buffer* out, draforge_error** e) {
    return draforge_package_inventory_json(out, snapshot.c_handle(), e);
  });
}

}  // namespace draforge

#endif  // DRAFORGE_CPP_PACKAGE_HPP
