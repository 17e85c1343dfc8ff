// DRAForge C++ API: the simulation controller's plans (include/draforge/reconcile.h): JSON or a
// snapshot in, a JSON plan out.
#ifndef DRAFORGE_CPP_RECONCILE_HPP
#define DRAFORGE_CPP_RECONCILE_HPP

#include <cstdint>
#include <string>
#include <string_view>

#include "draforge/cpp/cluster.hpp"
#include "draforge/cpp/result.hpp"
#include "draforge/reconcile.h"

namespace draforge {

// The writes that publish the pools of `pools_json` as slices, given the managed `slices_json`
// (both lists as draforge_kube_list returns them, or arrays), at simulation tick `tick` and RFC 3339
// time `now`. The plan's schema: draforge_reconcile_pools.
inline Result<std::string> ReconcilePools(std::string_view pools_json, std::string_view slices_json, int64_t tick,
                                          std::string_view now) {
  detail::CString n(now);
  return detail::BufferCall([&](draforge_buffer* out, draforge_error** e) {
    return draforge_reconcile_pools(out, pools_json.data(), pools_json.size(), slices_json.data(),
                                    slices_json.size(), tick, n.get(), e);
  });
}

// {"allocate":false} or {"allocate":true,"node","body"}: whether and where the simulator allocates
// the claim `claim_json` against `snapshot`.
inline Result<std::string> ReconcileClaimAllocation(const Snapshot& snapshot, std::string_view claim_json) {
  return detail::BufferCall([&](draforge_buffer* out, draforge_error** e) {
    return draforge_reconcile_claim_allocation(out, snapshot.c_handle(), claim_json.data(), claim_json.size(), e);
  });
}

// {"write":false} or {"write":true,"body"}: the binding conditions the simulator sets on the claim.
inline Result<std::string> ReconcileBindingConditions(const Snapshot& snapshot, std::string_view claim_json,
                                                      std::string_view now) {
  detail::CString n(now);
  return detail::BufferCall([&](draforge_buffer* out, draforge_error** e) {
    return draforge_reconcile_binding_conditions(out, snapshot.c_handle(), claim_json.data(), claim_json.size(),
                                                 n.get(), e);
  });
}

}  // namespace draforge

#endif  // DRAFORGE_CPP_RECONCILE_HPP
