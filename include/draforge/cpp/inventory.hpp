// DRAForge C++ API: the inventory views of a Snapshot as JSON (draforge/inventory.h): the schemas of
// draforge-server's routes (openapi.json).
#ifndef DRAFORGE_CPP_INVENTORY_HPP
#define DRAFORGE_CPP_INVENTORY_HPP

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "draforge/cpp/cluster.hpp"
#include "draforge/cpp/result.hpp"
#include "draforge/inventory.h"

namespace draforge::inventory {

// Which devices DevicesJson() lists; "" means any.
struct DeviceQuery {
  std::string driver;
  std::string pool;
  std::string node;
  std::optional<bool> allocated;  // none: either
  size_t offset = 0;
  size_t limit = DRAFORGE_INVENTORY_DEFAULT_DEVICE_LIMIT;  // at most DRAFORGE_INVENTORY_MAX_DEVICE_LIMIT
};

// Which part of the graph GraphJson() keeps; "" means any.
struct GraphQuery {
  std::string namespace_;
  std::string node;
  std::string driver;
  bool all_devices = true;  // false: only devices that allocations name
};

// The spec of a ResourcePoolStatusRequest for PoolStatusJson(); "" means unset.
struct PoolStatusQuery {
  std::string driver;  // required
  std::string pool_name;
  int64_t limit = 0;  // 0: the default (100)
  std::string default_partition_type_attribute;
  std::string now;  // lastTransitionTime; "": the current time
};

// Summary: counts, utilisation per driver and pool.
inline Result<std::string> SummaryJson(const Snapshot& snapshot) {
  return detail::BufferCall([&](draforge_buffer* out, draforge_error** e) {
    return draforge_inventory_summary_json(out, snapshot.c_handle(), e);
  });
}

// PoolList of `driver`'s pools local to `node`.
inline Result<std::string> PoolsJson(const Snapshot& snapshot, std::string_view driver = {},
                                     std::string_view node = {}) {
  detail::CString d(driver), n(node);
  return detail::BufferCall([&](draforge_buffer* out, draforge_error** e) {
    return draforge_inventory_pools_json(out, snapshot.c_handle(), d.or_null(), n.or_null(), e);
  });
}

// ResourcePoolStatusRequestStatus: pool availability as kube-controller-manager computes it.
// EINVALID for an empty driver or a limit outside 0..1000.
inline Result<std::string> PoolStatusJson(const Snapshot& snapshot, const PoolStatusQuery& q) {
  detail::CString d(q.driver), p(q.pool_name), a(q.default_partition_type_attribute), n(q.now);
  draforge_pool_status_options o = DRAFORGE_POOL_STATUS_OPTIONS_INIT;
  o.driver = d.get();
  o.pool_name = p.or_null();
  o.limit = q.limit;
  o.default_partition_type_attribute = a.or_null();
  o.now = n.or_null();
  return detail::BufferCall([&](draforge_buffer* out, draforge_error** e) {
    return draforge_inventory_pool_status_json(out, snapshot.c_handle(), &o, e);
  });
}

// DeviceList: one page of the matching devices. EINVALID for a limit over the maximum.
inline Result<std::string> DevicesJson(const Snapshot& snapshot, const DeviceQuery& q = {}) {
  detail::CString d(q.driver), p(q.pool), n(q.node);
  const int allocated = q.allocated ? (*q.allocated ? 1 : 0) : DRAFORGE_INVENTORY_ANY;
  return detail::BufferCall([&](draforge_buffer* out, draforge_error** e) {
    return draforge_inventory_devices_json(out, snapshot.c_handle(), d.or_null(), p.or_null(), n.or_null(),
                                           allocated, q.offset, q.limit, e);
  });
}

// ClaimList of `namespace_` in `state` ("pending", "allocated", "reserved"; none: any). EINVALID
// for another state ("" included).
inline Result<std::string> ClaimsJson(const Snapshot& snapshot, std::string_view namespace_ = {},
                                      std::optional<std::string_view> state = std::nullopt) {
  detail::CString ns(namespace_), s(state.value_or(std::string_view()));
  return detail::BufferCall([&](draforge_buffer* out, draforge_error** e) {
    return draforge_inventory_claims_json(out, snapshot.c_handle(), ns.or_null(), state ? s.get() : nullptr, e);
  });
}

// Pods of `namespace_` with the claims each uses (draforge_inventory_pods_json).
inline Result<std::string> PodsJson(const Snapshot& snapshot, std::string_view namespace_ = {}) {
  detail::CString ns(namespace_);
  return detail::BufferCall([&](draforge_buffer* out, draforge_error** e) {
    return draforge_inventory_pods_json(out, snapshot.c_handle(), ns.or_null(), e);
  });
}

// Graph, filtered.
inline Result<std::string> GraphJson(const Snapshot& snapshot, const GraphQuery& q = {}) {
  detail::CString ns(q.namespace_), n(q.node), d(q.driver);
  return detail::BufferCall([&](draforge_buffer* out, draforge_error** e) {
    return draforge_inventory_graph_json(out, snapshot.c_handle(), ns.or_null(), n.or_null(), d.or_null(),
                                         q.all_devices ? 1 : 0, e);
  });
}

// Diagnostics: pending claims with explain's verdicts, and anomalies.
inline Result<std::string> DiagnosticsJson(const Snapshot& snapshot, std::string_view namespace_ = {}) {
  detail::CString ns(namespace_);
  return detail::BufferCall([&](draforge_buffer* out, draforge_error** e) {
    return draforge_inventory_diagnostics_json(out, snapshot.c_handle(), ns.or_null(), e);
  });
}

// {"snapshot","diagnosis"} of one pending claim ("namespace/name"). ENOTFOUND, EINVALID (not pending).
inline Result<std::string> ClaimDiagnosisJson(const Snapshot& snapshot, std::string_view claim) {
  detail::CString c(claim);
  return detail::BufferCall([&](draforge_buffer* out, draforge_error** e) {
    return draforge_inventory_claim_diagnosis_json(out, snapshot.c_handle(), c.get(), e);
  });
}

// The ChangeEvent from `before` to `after` and how many objects changed (0: nothing a reader sees).
struct Changes {
  std::string json;
  size_t count = 0;
};
inline Result<Changes> ChangesJson(const Snapshot& before, const Snapshot& after) {
  Changes c;
  auto json = detail::BufferCall([&](draforge_buffer* out, draforge_error** e) {
    return draforge_inventory_changes_json(out, &c.count, before.c_handle(), after.c_handle(), e);
  });
  if (!json.ok()) return std::move(json).error();
  c.json = *std::move(json);
  return c;
}

}  // namespace draforge::inventory

#endif  // DRAFORGE_CPP_INVENTORY_HPP
