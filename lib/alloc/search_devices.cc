// Which device a request may take: upstream's isSelectable (binding conditions, the class's and
// the request's selectors, per-device node selection) and checkAvailableCapacity (consumable
// capacity), and the attribute a constraint reads of a device.
#include "alloc/internal/search.h"

namespace draforge::alloc::internal {

// Cached per (request, device): everything it looks at is fixed for the search.
absl::StatusOr<bool> Search::IsSelectable(int ci, int ri, int si, const RequestData& rd, int d) {
  const Dev& dev = devs_[d];
  if (!f_.DeviceBindingAndStatus() && !dev.device->binding_conditions.empty()) return false;
  (void)ri;
  (void)si;
  int8_t& cached = match_[static_cast<size_t>(rd.slot) * devs_.size() + static_cast<size_t>(d)];
  if (cached >= 0) return cached == 1;
  bool match = true;
  if (!rd.class_selectors.empty()) {
    ASSIGN_OR_RETURN(match, SelectorsMatch(cache_, {"class", rd.class_name}, rd.class_selectors, *dev.device,
                                           dev.ordinal, dev.driver, dev.pool, dev.name, f_));
  }
  if (match && !rd.claim_selectors.empty()) {
    ASSIGN_OR_RETURN(match, SelectorsMatch(cache_, {"claim", claims_[ci].key}, rd.claim_selectors, *dev.device,
                                           dev.ordinal, dev.driver, dev.pool, dev.name, f_));
  }
  if (match && dev.slice->spec->per_device_node_selection.value_or(false)) {
    const api::Device& d2 = *dev.device;
    ASSIGN_OR_RETURN(match, NodeMatches(node_, d2.node_name.value_or(""), d2.all_nodes.value_or(false),
                                        d2.node_selector ? &*d2.node_selector : nullptr));
  }
  cached = match ? 1 : 0;
  return match;
}

// internal::CheckCapacity for request `rd` of claim `cd` on device `d`, with what is already
// allocated and what this search is allocating. Errors name claim, request and device.
absl::StatusOr<CapacityCheck> Search::CheckCapacity(const ClaimData& cd, const RequestData& rd, int d) {
  const Dev& dev = devs_[d];
  if (dev.device->capacity.empty() && rd.capacity == nullptr) return CapacityCheck::kFits;
  // Without a capacity request and with nothing consumed yet, the answer depends on the device
  // alone: computed once per device and search.
  const bool alone = rd.capacity == nullptr && !CapacityInUse(d);
  if (alone && capacity_alone_[d] >= 0) return static_cast<CapacityCheck>(capacity_alone_[d]);
  if (alone) {
    // Nothing requested, nothing consumed, no request policy: each capacity consumes exactly its
    // value, which fits unless it is negative (an error, left to internal::CheckCapacity).
    bool fits = true;
    for (const auto& [name, cap] : dev.device->capacity) {
      if (cap.request_policy || (cap.value && cap.value->Sign() < 0)) {
        fits = false;
        break;
      }
    }
    if (fits) return CapacityCheck::kFits;
  }
  const api::Map<api::Quantity>* allocating = allocating_shares_[d] > 0 ? &allocating_capacity_[d] : nullptr;
  auto check = internal::CheckCapacity(dev.aggregated, rd.capacity, dev.device->capacity, allocating,
                                       CapacityRangeArithmetic(f_));
  if (!check.ok()) return CapacityError(cd, rd, dev, check.status(), /*with_pool=*/true);
  if (alone) capacity_alone_[d] = static_cast<int8_t>(*check);
  return check;
}

// Upstream's wording: "claim K, request R: checking capacity for device D: capacity ...". Its
// allocationMode All pre-scan names the device without driver and pool; so do we.
absl::Status Search::CapacityError(const ClaimData& cd, const RequestData& rd, const Dev& dev,
                                   const absl::Status& cause, bool with_pool) {
  const std::string device =
      with_pool ? absl::StrCat(AV(dev.driver), "/", AV(dev.pool), "/", AV(dev.name)) : std::string(dev.name);
  return absl::Status(cause.code(), absl::StrCat("claim ", cd.key, ", request ", AV(rd.name),
                                                 ": checking capacity for device ", device, ": ", cause.message()));
}

// The attribute a constraint reads for device `d` in request `rd`: the request's derived attribute
// of that name if it has one (evaluated once per device and expression), else the device's own.
// Errors: CEL compile or runtime errors of the derived attribute.
absl::StatusOr<const api::DeviceAttribute*> Search::ConstraintAttribute(const RequestData& rd, int d,
                                                                        std::string_view name) {
  const Dev& dev = devs_[d];
  if (!rd.derived->empty()) {
    ASSIGN_OR_RETURN(const api::DeviceAttribute* derived,
                     derived_.Lookup(*rd.derived, name, d, *dev.device, dev.driver, dev.id.String()));
    if (derived != nullptr) return derived;
  }
  return LookupAttribute(*dev.device, dev.driver, name);
}

}  // namespace draforge::alloc::internal
