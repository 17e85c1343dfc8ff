// The claims' requests and constraints as the search uses them, checked once before it starts
// (upstream's request loop in Allocate and validateDeviceRequest). Errors name claim and request.
#include <limits>

#include "alloc/internal/search.h"

namespace draforge::alloc::internal {

absl::Status Search::PrepareClaim(int ci) {
  ClaimData& cd = claims_[ci];
  const api::DeviceClaim& dc = ClaimDevices(*cd.claim);
  // int64: each request's count is clamped to 2^30, and several of them must not wrap the sum
  // around to a small value that passes the limit check.
  int64_t min_devices = 0;
  cd.requests.resize(dc.requests.size());
  cd.has_subs.resize(dc.requests.size());
  cd.selected_sub.assign(dc.requests.size(), 0);
  for (size_t ri = 0; ri < dc.requests.size(); ++ri) {
    ASSIGN_OR_RETURN(const int64_t adding, PrepareRequest(ci, static_cast<int>(ri)));
    // Checked per request against what is left, so that the error names the request that crosses
    // the limit and huge counts cannot wrap a sum (upstream's wording).
    if (adding > kMaxResults - min_devices) {
      return absl::ResourceExhaustedError(absl::StrCat("claim ", cd.key, ", request ",
                                                       dc.requests[ri].name.value_or(""), ": adding ", adding,
                                                       " devices exceeds the claim limit of ", kMaxResults, ", with ",
                                                       min_devices, " already accounted for"));
    }
    min_devices += adding;
  }
  return PrepareConstraints(cd);
}

// Request `ri` of claim `ci` (and its subrequests) into cd.requests[ri]. Returns the devices it
// needs at least: a prioritized list is worth its smallest alternative.
absl::StatusOr<int64_t> Search::PrepareRequest(int ci, int ri) {
  ClaimData& cd = claims_[ci];
  const api::DeviceRequest& request = ClaimDevices(*cd.claim).requests[ri];
  const std::string name = request.name.value_or("");
  const bool subs = !request.first_available.empty();
  cd.has_subs[ri] = subs;
  if (!f_.prioritized_list && subs) {
    return absl::InvalidArgumentError(absl::StrCat("claim ", cd.key, ", request ", name,
                                                   ": has subrequests, but the DRAPrioritizedList feature is disabled"));
  }
  // The incubating and experimental allocators refuse capacity requests with the gate off; the
  // stable one (selected when no beta gate it lacks is on) knows nothing of them and ignores them.
  if (!f_.consumable_capacity && !f_.StableAllocator()) {
    if (request.exactly && request.exactly->capacity) {
      return absl::InvalidArgumentError(absl::StrCat(
          "claim ", cd.key, ", request ", name, ": has capacity requests, but the DRAConsumableCapacity feature is disabled"));
    }
    for (const auto& s : request.first_available) {
      if (s.capacity) {
        return absl::InvalidArgumentError(absl::StrCat("claim ", cd.key, ", subrequest ", s.name.value_or(""),
                                                       ": has capacity requests, but the DRAConsumableCapacity "
                                                       "feature is disabled"));
      }
    }
  }
  if (!subs) {
    if (!request.exactly) {
      return absl::InvalidArgumentError(absl::StrCat("claim ", cd.key, ", request ", name,
                                                     ": unknown request type (neither exactly nor firstAvailable)"));
    }
    ASSIGN_OR_RETURN(RequestData rd, ValidateRequest(ci, ri, 0, request, nullptr));
    const int64_t adding = rd.wanted;
    cd.requests[ri].push_back(std::move(rd));
    return adding;
  }
  int64_t adding = std::numeric_limits<int64_t>::max();
  for (size_t si = 0; si < request.first_available.size(); ++si) {
    ASSIGN_OR_RETURN(RequestData rd,
                     ValidateRequest(ci, ri, static_cast<int>(si), request, &request.first_available[si]));
    adding = std::min(adding, rd.wanted);
    cd.requests[ri].push_back(std::move(rd));
  }
  return adding;
}

namespace {

DistinctAttributeMode DistinctMode(const Features& f) {
  if (f.DistinctAttributeByIdentity()) return DistinctAttributeMode::kLastOfRequestByIdentity;
  if (f.DistinctAttributeLastOfRequest()) return DistinctAttributeMode::kLastOfRequest;
  return DistinctAttributeMode::kEveryDevice;
}

}  // namespace

absl::Status Search::PrepareConstraints(ClaimData& cd) {
  const api::DeviceClaim& dc = ClaimDevices(*cd.claim);
  for (size_t i = 0; i < dc.constraints.size(); ++i) {
    const api::DeviceConstraint& c = dc.constraints[i];
    // Only the stable allocator predates distinctAttribute; every other variant has it whatever
    // the gates say.
    const bool distinct_supported = !f_.StableAllocator();
    if (c.match_attribute) {
      cd.constraints.push_back(NewMatchAttribute(c.requests, *c.match_attribute, f_.ListTypeConstraints()));
    } else if (c.distinct_attribute && distinct_supported) {
      cd.constraints.push_back(
          NewDistinctAttribute(c.requests, *c.distinct_attribute, f_.ListTypeConstraints(), DistinctMode(f_)));
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat("claim ", cd.key, ", constraint #", i, ": empty constraint (unsupported constraint type?)"));
    }
  }
  return absl::OkStatus();
}

// upstream validateDeviceRequest: subrequest `sub` of `request` (null: its `exactly`), the `si`th
// alternative of request `ri` of claim `ci`.
absl::StatusOr<RequestData> Search::ValidateRequest(int ci, int ri, int si, const api::DeviceRequest& request,
                                                    const api::DeviceSubRequest* sub) {
  const ClaimData& cd = claims_[ci];
  RequestData rd;
  std::optional<std::string> mode;
  std::optional<int64_t> count;
  const std::string* class_name = nullptr;
  if (sub != nullptr) {
    rd.parent_name = request.name ? std::string_view(*request.name) : std::string_view();
    rd.name = sub->name ? std::string_view(*sub->name) : std::string_view();
    rd.selectors = &sub->selectors;
    rd.tolerations = &sub->tolerations;
    rd.capacity = sub->capacity ? &*sub->capacity : nullptr;
    rd.derived = &sub->derived_attributes;
    mode = sub->allocation_mode;
    count = sub->count;
    class_name = sub->device_class_name ? &*sub->device_class_name : nullptr;
  } else {
    const api::ExactDeviceRequest& e = *request.exactly;
    rd.name = request.name ? std::string_view(*request.name) : std::string_view();
    rd.selectors = &e.selectors;
    rd.tolerations = &e.tolerations;
    rd.capacity = e.capacity ? &*e.capacity : nullptr;
    rd.derived = &e.derived_attributes;
    mode = e.allocation_mode;
    count = e.count;
    class_name = e.device_class_name ? &*e.device_class_name : nullptr;
    rd.admin_access = e.admin_access.value_or(false);
  }
  // Refused rather than ignored: silently dropping the constraints they feed would allocate
  // devices the user excluded (upstream validateDeviceRequest checks this first).
  if (!rd.derived->empty() && !f_.derived_attributes) {
    return absl::InvalidArgumentError(absl::StrCat("claim ", cd.key, ", request ", AV(rd.name),
                                                   ": cannot handle request with derived attributes, the feature is "
                                                   "disabled"));
  }
  if (sub == nullptr && !f_.admin_access && request.exactly->admin_access.has_value()) {
    return absl::InvalidArgumentError(absl::StrCat("claim ", cd.key, ", request ", AV(rd.name),
                                                   ": admin access is requested, but the feature is disabled"));
  }
  for (size_t i = 0; i < rd.selectors->size(); ++i) {
    const auto& sel = (*rd.selectors)[i];
    if (!sel.cel || !sel.cel->expression) {
      return absl::InvalidArgumentError(absl::StrCat("claim ", cd.key, ", request ", AV(rd.name), ", selector #", i,
                                                     ": CEL expression empty (unsupported selector type?)"));
    }
  }
  RETURN_IF_ERROR(ResolveClass(cd, class_name, rd));
  rd.claim_selectors = CompileSelectors(cache_, *rd.selectors);
  rd.slot = num_slots_++;
  match_.resize(static_cast<size_t>(num_slots_) * devs_.size(), -1);
  RETURN_IF_ERROR(SetCount(ci, ri, si, mode, count, rd));
  return rd;
}

// The request's DeviceClass, its selectors checked and compiled.
absl::Status Search::ResolveClass(const ClaimData& cd, const std::string* class_name, RequestData& rd) {
  if (class_name == nullptr || class_name->empty()) {
    return absl::InvalidArgumentError(absl::StrCat("claim ", cd.key, ", request ", AV(rd.name),
                                                   ": missing device class name (unsupported request type?)"));
  }
  rd.class_name = *class_name;
  rd.klass = snapshot_.GetDeviceClass(*class_name);
  if (rd.klass == nullptr) {
    return absl::NotFoundError(absl::StrCat("claim ", cd.key, ", request ", AV(rd.name),
                                            ": could not retrieve device class ", *class_name,
                                            ": deviceclass.resource.k8s.io \"", *class_name, "\" not found"));
  }
  if (!rd.klass->spec) return absl::OkStatus();
  for (size_t i = 0; i < rd.klass->spec->selectors.size(); ++i) {
    const auto& sel = rd.klass->spec->selectors[i];
    if (!sel.cel || !sel.cel->expression) {
      return absl::InvalidArgumentError(absl::StrCat("class ", *class_name, ": selector #", i,
                                                     ": CEL expression empty (unsupported selector type?)"));
    }
  }
  rd.class_selectors = CompileSelectors(cache_, rd.klass->spec->selectors);
  return absl::OkStatus();
}

// How many devices the request takes: its count (ExactCount), or every matching device (All).
absl::Status Search::SetCount(int ci, int ri, int si, const std::optional<std::string>& mode,
                              const std::optional<int64_t>& count, RequestData& rd) {
  const std::string m = mode.value_or(api::kAllocationModeExactCount);
  if (m == api::kAllocationModeExactCount || m.empty()) {
    rd.wanted = count.value_or(1);
    rd.num_devices = static_cast<int>(std::clamp<int64_t>(rd.wanted, -1, 1 << 30));
    return absl::OkStatus();
  }
  if (m == api::kAllocationModeAll) return CollectAllDevices(ci, ri, si, rd);
  return absl::InvalidArgumentError(
      absl::StrCat("claim ", claims_[ci].key, ", request ", AV(rd.name), ": unsupported count mode ", m));
}

// allocationMode All: the devices of the node's pools the request's selectors match, which every
// pool must be complete and valid to know.
absl::Status Search::CollectAllDevices(int ci, int ri, int si, RequestData& rd) {
  const ClaimData& cd = claims_[ci];
  rd.all_mode = true;
  for (const Pool& p : pools_) {
    if (p.incomplete) {
      return absl::FailedPreconditionError(absl::StrCat("claim ", cd.key, ", request ", AV(rd.name),
                                                        ": asks for all devices, but resource pool ", p.Id(),
                                                        " is currently being updated"));
    }
    if (p.invalid) {
      return absl::FailedPreconditionError(absl::StrCat("claim ", cd.key, ", request ", AV(rd.name),
                                                        ": asks for all devices, but resource pool ", p.Id(),
                                                        " is currently invalid"));
    }
  }
  for (size_t d = 0; d < devs_.size(); ++d) {
    ASSIGN_OR_RETURN(bool selectable, IsSelectable(ci, ri, si, rd, static_cast<int>(d)));
    if (!selectable) continue;
    if (f_.consumable_capacity) {
      const Dev& dev = devs_[d];
      // Never fits (unknown capacity, policy): not part of "all". Static capacity only: a device
      // that fits alone but not beside what is already allocated stays in "all", and
      // AllocateDevice fails it after the in-use, taint and constraint checks, as upstream's
      // allocateDevice does (notes Q8, PR #140769); a constraint it breaks is then an error.
      auto alone =
          internal::CheckCapacity(nullptr, rd.capacity, dev.device->capacity, nullptr, CapacityRangeArithmetic(f_));
      if (!alone.ok()) return CapacityError(cd, rd, dev, alone.status(), /*with_pool=*/false);
      if (*alone != CapacityCheck::kFits) continue;
    }
    rd.all_devices.push_back(static_cast<int>(d));
    in_all_mode_[d] = true;
  }
  rd.num_devices = static_cast<int>(rd.all_devices.size());
  rd.wanted = rd.num_devices;
  return absl::OkStatus();
}

}  // namespace draforge::alloc::internal
